//! One direction of the shell as the pump sees it: IP packets read from
//! one TUN device, written to the other.

use std::collections::HashMap;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixDatagram;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use super::tun::Tun;
use crate::pump::{Datagram, Hop, Ports, Received};

const IPV4: u8 = 4;
const TCP: u8 = 6;
const UDP: u8 = 17;

/// Round trips by the inner side's TCP or UDP port, for flows whose RTT
/// differs from the shell's (they then share the link with their own
/// propagation delays, as the relay's routes do).
#[derive(Debug, Default)]
pub(crate) struct PortRoutes {
    /// Port to (downlink delay, uplink delay).
    delays: RwLock<HashMap<u16, (Duration, Duration)>>,
    /// Whether any port has a route: most shells have none, and then no
    /// packet's header is parsed.
    any: AtomicBool,
}

impl PortRoutes {
    pub(crate) fn insert(&self, port: u16, down: Duration, up: Duration) {
        self.delays
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(port, (down, up));
        self.any.store(true, Ordering::Release);
    }

    fn delay(&self, port: u16, downlink: bool) -> Option<Duration> {
        let delays = self.delays.read().unwrap_or_else(PoisonError::into_inner);
        delays
            .get(&port)
            .map(|&(down, up)| if downlink { down } else { up })
    }
}

/// The inner side's port of an IPv4 TCP or UDP packet: its destination
/// port going in (downlink), its source port going out. None for other
/// protocols and for fragments after the first.
pub(crate) fn inner_port(packet: &[u8], downlink: bool) -> Option<u16> {
    let header = usize::from(packet.first()? & 0x0f) * 4;
    let protocol = *packet.get(9)?;
    let fragment_offset = u16::from_be_bytes([*packet.get(6)?, *packet.get(7)?]) & 0x1fff;
    if !matches!(protocol, TCP | UDP) || fragment_offset != 0 {
        return None;
    }
    let at = if downlink { header + 2 } else { header };
    Some(u16::from_be_bytes([*packet.get(at)?, *packet.get(at + 1)?]))
}

/// A direction: from `input` through the link to `output`.
pub(crate) struct TunDirection {
    pub(crate) input: Arc<Tun>,
    pub(crate) output: Arc<Tun>,
    /// Whether this is the downlink (outer to inner namespace).
    pub(crate) downlink: bool,
    /// This direction's share of the shell's round trip.
    pub(crate) delay: Duration,
    pub(crate) routes: Arc<PortRoutes>,
}

impl Ports for TunDirection {
    fn refresh(&mut self) -> bool {
        false
    }

    fn input_fds(&self) -> Vec<RawFd> {
        vec![self.input.as_raw_fd()]
    }

    fn wake(&self) -> Option<&UnixDatagram> {
        None
    }

    fn receive(&mut self, _input: usize, buffer: &mut [u8]) -> io::Result<Received> {
        let len = self.input.read_packet(buffer)?;
        let packet = &buffer[..len];
        // IPv6 is off on both devices; anything but IPv4 has nowhere to go.
        if packet.first().map(|b| b >> 4) != Some(IPV4) {
            return Ok(Received::Undeliverable);
        }
        let delay = if self.routes.any.load(Ordering::Acquire) {
            inner_port(packet, self.downlink)
                .and_then(|port| self.routes.delay(port, self.downlink))
                .unwrap_or(self.delay)
        } else {
            self.delay
        };
        Ok(Received::Packet {
            len,
            hop: Hop {
                via: 0,
                to: None,
                delay,
            },
            // The link counts whole IP packets, as mm-link does.
            overhead: 0,
        })
    }

    fn send(&self, datagram: &Datagram) -> io::Result<()> {
        self.output.write_packet(&datagram.payload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An IPv4 header (20 bytes) and the first four transport bytes.
    fn packet(protocol: u8, fragment: u16, source: u16, destination: u16) -> Vec<u8> {
        let mut p = vec![0u8; 24];
        p[0] = 0x45;
        p[6..8].copy_from_slice(&fragment.to_be_bytes());
        p[9] = protocol;
        p[20..22].copy_from_slice(&source.to_be_bytes());
        p[22..24].copy_from_slice(&destination.to_be_bytes());
        p
    }

    #[test]
    fn the_inner_port_is_the_destination_going_in_and_the_source_going_out() {
        let p = packet(TCP, 0, 5001, 40000);
        assert_eq!(inner_port(&p, true), Some(40000));
        assert_eq!(inner_port(&p, false), Some(5001));
        assert_eq!(inner_port(&packet(UDP, 0x4000, 1, 2), true), Some(2));
    }

    #[test]
    fn other_protocols_later_fragments_and_short_packets_have_no_port() {
        assert_eq!(inner_port(&packet(1, 0, 1, 2), true), None);
        assert_eq!(inner_port(&packet(TCP, 185, 1, 2), true), None);
        assert_eq!(inner_port(&packet(TCP, 0, 1, 2)[..21], true), None);
        assert_eq!(inner_port(&[], true), None);
    }
}
