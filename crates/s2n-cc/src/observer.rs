//! What a path's controller tells the application, as it happens.
//!
//! The adapter calls a [`PathObserver`] after each event it hands to the
//! controller, with the event exactly as the controller saw it and the
//! controller itself (its window, pacing rate, [`cc::Snapshot`] and
//! [`cc::ProbeState`] are read from it). bbrlab's own server keeps
//! counters, periodic samples and qlog traces this way; an application
//! may log, export metrics, or do nothing (no observer is the default).

use std::fmt::Debug;
use std::net::SocketAddr;
use std::sync::Arc;

use cc::{AckEvent, AlgorithmSpec, Bytes, CongestionControl, Instant, LossEvent};

/// Hears one path's controller. Times are the path's own: counted from the
/// first packet sent on it. `number` is the packet's place in the
/// controller's send order (s2n-quic does not show its packet numbers to a
/// controller). Every method does nothing unless implemented.
pub trait PathObserver: Debug + Send + Sync + 'static {
    /// A congestion-controlled packet of `bytes` left.
    fn on_sent(&self, now: Instant, bytes: Bytes, number: u64) {
        let _ = (now, bytes, number);
    }

    /// The controller processed an ACK frame that acknowledged new data.
    fn on_ack(&self, event: &AckEvent, controller: &dyn CongestionControl) {
        let _ = (event, controller);
    }

    /// The controller learned that a packet of `bytes` was lost.
    fn on_lost(&self, event: &LossEvent, bytes: Bytes, number: u64) {
        let _ = (event, bytes, number);
    }
}

/// Gives each new path its observer (or none).
pub trait ObserverFactory: Debug + Send + 'static {
    /// A path to `peer` opened, the `order`-th of the endpoint (0 for the
    /// first), with a controller built from `spec`.
    fn open_path(
        &mut self,
        peer: SocketAddr,
        spec: &AlgorithmSpec,
        order: u64,
    ) -> Option<Arc<dyn PathObserver>>;
}
