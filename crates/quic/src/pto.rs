//! Probe timeouts, counted from s2n-quic's recovery events.
//!
//! A PTO never reaches a congestion controller (RFC 9002 §6.2: it is not
//! a loss), so the adapter cannot count it. s2n-quic does publish its
//! recovery state after every timeout and ACK, with `pto_count`: the
//! current backoff exponent, which rises by one at each expiry and falls
//! to zero when an ACK arrives. Each rise is one PTO, the event the
//! simulator's sender counts in `FlowSummary::ptos`.
//!
//! The exponent stops rising at s2n-quic's largest backoff, so on a path
//! dead long enough to reach it the later expiries go uncounted; the
//! connection is about to close by then anyway.

use std::sync::Arc;

use s2n_quic::provider::event::{events, ConnectionInfo, ConnectionMeta, Subscriber};

use bbrlab_s2n_quic::peer_address;

use crate::telemetry::{PathRegistry, PathShared};

/// An s2n-quic event subscriber adding each connection's PTOs to its
/// path's [`crate::telemetry::PathCounters::ptos`].
#[derive(Debug)]
pub struct PtoCounter {
    paths: PathRegistry,
}

impl PtoCounter {
    /// Counts into the paths of `paths` (the registry the endpoint's
    /// controllers register with).
    pub fn new(paths: PathRegistry) -> PtoCounter {
        PtoCounter { paths }
    }
}

/// What the counter remembers of one connection.
#[derive(Debug, Default)]
pub struct PtoContext {
    /// The connection's path, found on its first PTO.
    path: Option<Arc<PathShared>>,
    /// The backoff exponent last published.
    exponent: u32,
}

impl Subscriber for PtoCounter {
    type ConnectionContext = PtoContext;

    fn create_connection_context(
        &mut self,
        _meta: &ConnectionMeta,
        _info: &ConnectionInfo,
    ) -> PtoContext {
        PtoContext::default()
    }

    fn on_recovery_metrics(
        &mut self,
        context: &mut PtoContext,
        _meta: &ConnectionMeta,
        event: &events::RecoveryMetrics,
    ) {
        let rises = event.pto_count.saturating_sub(context.exponent);
        context.exponent = event.pto_count;
        if rises == 0 {
            return;
        }
        if context.path.is_none() {
            context.path = self.paths.path(peer_address(&event.path.remote_addr));
        }
        if let Some(path) = &context.path {
            path.on_ptos(u64::from(rises));
        }
    }
}
