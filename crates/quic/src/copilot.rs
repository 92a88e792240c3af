//! BBR-Copilot in s2n-quic: padding carried in QUIC DATAGRAM frames.
//!
//! The rule is the simulator's (BBR-Copilot, §3.3-3.4): when the application
//! has nothing to send and the controller's pacing gain is above 1, a
//! packet of meaningless data goes out, so the bandwidth probe the gain
//! asks for happens although the stream cannot fill it. DATAGRAM frames
//! are ideal padding: congestion-controlled and acknowledged like any
//! packet, never retransmitted, and handed to no application.
//!
//! s2n-quic asks a connection's datagram sender whether it has something
//! to send; the padding sender answers yes while the gain is above 1, and
//! when the stack builds a packet, it fills the room left only if no
//! stream data waits (`has_pending_streams`), which is "the send queue is
//! empty". Because the sender then has transmission interest, s2n-quic
//! does not mark the packet app-limited: the probe's samples count, as
//! lsquic's Copilot does. The stack still applies cwnd and pacing to every
//! padded packet. (lsquic's extra rule, ProbeRTT samples marked
//! app-limited, needs the estimator's app-limited mark, which a datagram
//! sender cannot set: it is not carried over.)

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::Waker;

use s2n_quic::provider::datagram::{
    ConnectionInfo, Endpoint, Packet, PreConnectionInfo, ReceiveContext, Receiver, Sender,
};

use crate::telemetry::PathShared;

/// Zeros to write as padding: larger than any datagram.
static ZEROS: [u8; 1500] = [0; 1500];
/// DATAGRAM frame overhead on the wire beyond its payload (type and
/// length), which the wire counts but the payload does not.
const FRAME_OVERHEAD: usize = 3;

/// The datagram provider of an endpoint: padding senders when `enabled`,
/// a receiver that drops whatever arrives (padding carries nothing).
#[derive(Clone, Copy, Debug, Default)]
pub struct PaddingEndpoint {
    /// Whether this endpoint's connections pad.
    pub enabled: bool,
}

impl Endpoint for PaddingEndpoint {
    type Sender = PaddingSender;
    type Receiver = DiscardReceiver;

    fn create_connection(&mut self, info: &ConnectionInfo) -> (PaddingSender, DiscardReceiver) {
        (
            PaddingSender {
                enabled: self.enabled,
                path: None,
                waker: info.waker.clone(),
                max_payload: info.max_datagram_payload as usize,
            },
            DiscardReceiver,
        )
    }

    fn max_datagram_frame_size(&self, _info: &PreConnectionInfo) -> u64 {
        // Accept full-size padding from a peer that pads.
        u64::from(u16::MAX)
    }
}

/// A connection's padding sender.
#[derive(Debug)]
pub struct PaddingSender {
    enabled: bool,
    path: Option<Arc<PathShared>>,
    waker: Waker,
    max_payload: usize,
}

impl PaddingSender {
    /// Follows `path`'s controller from now on (the application attaches it
    /// once it knows which path the connection uses).
    pub fn attach(&mut self, path: Arc<PathShared>) {
        path.set_padding_waker(self.waker.clone());
        self.path = Some(path);
        self.waker.wake_by_ref();
    }

    fn wants_padding(&self) -> bool {
        self.enabled && self.path.as_ref().is_some_and(|p| p.pacing_gain() > 1.0)
    }
}

impl Sender for PaddingSender {
    fn on_transmit<P: Packet>(&mut self, packet: &mut P) {
        if !self.wants_padding() || packet.has_pending_streams() {
            return;
        }
        let room = packet
            .remaining_capacity()
            .saturating_sub(FRAME_OVERHEAD)
            .min(self.max_payload)
            .min(ZEROS.len());
        if room == 0 {
            return;
        }
        if packet.write_datagram(&ZEROS[..room]).is_ok() {
            if let Some(path) = &self.path {
                path.padding_bytes
                    .fetch_add((room + FRAME_OVERHEAD) as u64, Ordering::Relaxed);
            }
        }
    }

    fn has_transmission_interest(&self) -> bool {
        self.wants_padding()
    }

    fn on_connection_error(&mut self, _error: s2n_quic::connection::Error) {
        self.path = None;
    }
}

/// Drops received DATAGRAM frames: padding carries nothing.
#[derive(Debug, Default)]
pub struct DiscardReceiver;

impl Receiver for DiscardReceiver {
    fn on_datagram(&mut self, _context: &ReceiveContext<'_>, _datagram: &[u8]) {}

    fn on_connection_error(&mut self, _error: s2n_quic::connection::Error) {}
}
