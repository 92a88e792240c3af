//! One direction of the relay: datagrams read from one socket go through a
//! link model and a propagation delay, and are written to the other.

use std::collections::VecDeque;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use cc::{Bytes, Instant};
use sim::link::{Bottleneck, DropReason, LinkPacket};

/// IPv4 and UDP headers: what a datagram adds on the wire to its payload.
pub const HEADER_BYTES: u64 = 28;
/// Largest UDP payload read.
const MAX_DATAGRAM: usize = 65_535;
/// Datagrams read per wake-up at most, so releases are never starved by a
/// flood of arrivals.
const READ_BATCH: usize = 256;
/// Longest sleep without anything due: how quickly a stop request is seen.
const IDLE_WAIT: Duration = Duration::from_millis(20);

/// A datagram in the relay, with where it goes.
#[derive(Debug)]
pub struct Datagram {
    /// The UDP payload.
    pub payload: Vec<u8>,
    /// Its destination.
    pub to: SocketAddr,
}

impl LinkPacket for Datagram {
    fn size(&self) -> Bytes {
        Bytes(self.payload.len() as u64 + HEADER_BYTES)
    }
}

/// Counters of one direction, readable while the relay runs.
#[derive(Debug, Default)]
pub struct DirectionStats {
    /// Datagrams read from the input socket.
    pub received: AtomicU64,
    /// Their bytes on the wire (payload + headers).
    pub received_bytes: AtomicU64,
    /// Datagrams the random-loss process took.
    pub lost: AtomicU64,
    /// Datagrams the full buffer dropped.
    pub overflowed: AtomicU64,
    /// Datagrams dropped because there was nowhere to send them (no client
    /// has spoken yet) or the send failed.
    pub undeliverable: AtomicU64,
    /// Datagrams written to the output socket.
    pub sent: AtomicU64,
    /// Their bytes on the wire.
    pub sent_bytes: AtomicU64,
}

impl DirectionStats {
    fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }
}

/// The relay's clock: model time is wall time since `epoch`.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    epoch: std::time::Instant,
}

impl Clock {
    /// A clock whose model time starts now.
    pub fn start() -> Clock {
        Clock {
            epoch: std::time::Instant::now(),
        }
    }

    /// Model time now.
    pub fn now(&self) -> Instant {
        Instant::from_nanos(self.epoch.elapsed().as_nanos().min(u64::MAX as u128) as u64)
    }
}

/// What one direction does to its datagrams.
pub struct Path {
    /// The link model, if the direction has one (an unshaped uplink has not).
    pub link: Option<Bottleneck<Datagram>>,
    /// One-way propagation delay after the link.
    pub delay: Duration,
}

/// Moves datagrams from `input` to `output` through `path` until `stop`
/// is set. `route` names each datagram's destination from its source (and
/// may remember the source); `None` drops it as undeliverable.
///
/// # Errors
/// A failure to read or to wait on `input` other than an interrupted or
/// would-block call; send failures only count as undeliverable.
pub fn pump(
    input: &UdpSocket,
    output: &UdpSocket,
    route: &(dyn Fn(SocketAddr) -> Option<SocketAddr> + Sync),
    mut path: Path,
    clock: Clock,
    stop: &AtomicBool,
    stats: &DirectionStats,
) -> io::Result<()> {
    input.set_nonblocking(true)?;
    let delay = path.delay;
    // Datagrams past the link, in release order (the delay is constant).
    let mut propagating: VecDeque<(Instant, Datagram)> = VecDeque::new();
    let mut buffer = vec![0u8; MAX_DATAGRAM];
    while !stop.load(Ordering::Relaxed) {
        let now = clock.now();
        if let Some(link) = path.link.as_mut() {
            while let Some(departure) = link.next_departure().filter(|&d| d <= now) {
                let Some(datagram) = link.dequeue(now) else {
                    break;
                };
                propagating.push_back((departure + delay, datagram));
            }
        }
        while propagating
            .front()
            .is_some_and(|(release, _)| *release <= now)
        {
            let (_, datagram) = propagating.pop_front().expect("front checked");
            match output.send_to(&datagram.payload, datagram.to) {
                Ok(_) => {
                    DirectionStats::add(&stats.sent, 1);
                    DirectionStats::add(&stats.sent_bytes, datagram.size().get());
                }
                Err(_) => DirectionStats::add(&stats.undeliverable, 1),
            }
        }
        let next = [
            path.link
                .as_ref()
                .and_then(|l| l.next_departure())
                .map(|d| d + delay),
            propagating.front().map(|(release, _)| *release),
        ]
        .into_iter()
        .flatten()
        .min();
        let wait = next.map_or(IDLE_WAIT, |t| {
            Duration::from_nanos(t.as_nanos().saturating_sub(now.as_nanos())).min(IDLE_WAIT)
        });
        if !wait.is_zero() && !readable(input, wait)? {
            continue;
        }
        for _ in 0..READ_BATCH {
            let (n, from) = match input.recv_from(&mut buffer) {
                Ok(read) => read,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // An ICMP port-unreachable from an earlier send surfaces
                // here on Linux; the peer may come back.
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => continue,
                Err(e) => return Err(e),
            };
            let arrived = clock.now();
            let Some(to) = route(from) else {
                DirectionStats::add(&stats.undeliverable, 1);
                continue;
            };
            let datagram = Datagram {
                payload: buffer[..n].to_vec(),
                to,
            };
            DirectionStats::add(&stats.received, 1);
            DirectionStats::add(&stats.received_bytes, datagram.size().get());
            match path.link.as_mut() {
                None => propagating.push_back((arrived + delay, datagram)),
                Some(link) => match link.enqueue(arrived, datagram) {
                    Ok(()) => {}
                    Err((_, DropReason::RandomLoss)) => DirectionStats::add(&stats.lost, 1),
                    Err((_, DropReason::BufferOverflow)) => {
                        DirectionStats::add(&stats.overflowed, 1)
                    }
                },
            }
        }
    }
    Ok(())
}

/// Waits up to `wait` for `socket` to become readable (ppoll: nanosecond
/// timeouts, where poll has milliseconds).
fn readable(socket: &UdpSocket, wait: Duration) -> io::Result<bool> {
    let mut fd = libc::pollfd {
        fd: socket.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let timeout = libc::timespec {
        tv_sec: wait.as_secs() as libc::time_t,
        tv_nsec: wait.subsec_nanos() as libc::c_long,
    };
    // SAFETY: one valid pollfd, a valid timespec, no signal mask.
    let ready = unsafe { libc::ppoll(&mut fd, 1, &timeout, std::ptr::null()) };
    match ready {
        -1 => {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                Ok(false)
            } else {
                Err(e)
            }
        }
        0 => Ok(false),
        _ => Ok(true),
    }
}
