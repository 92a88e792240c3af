//! The congestive-loss gate: which losses may cut the cwnd gain.
//!
//! oBBR rescales its gain on every ACK that reveals a loss (when the RTT says
//! the buffer is shallow), so a random loss with an empty queue reads as a
//! buffer of zero bytes and sets the gain to 1. BBRv2 and BBRv3 answer
//! loss only when a round's loss rate exceeds a threshold (`loss_thresh`,
//! 2%); Drucker et al. show that a bound cut by every such round ratchets
//! down under random loss. The gate takes BBRv2's test and oBBR's response,
//! and adds the RTT: a loss reaches the gain policy when the loss rate over
//! the current round and the previous one exceeds the threshold, or when
//! the RTT at the loss says a queue stood (at least `1 + queue` times
//! RTprop: a buffer overflowed, the loss is congestive whatever its rate;
//! a loss-based competitor's losses are of this kind and rarely reach 2%).
//! A loss with neither, at a low rate and an empty queue, is random: the ACK
//! reaches the policy as a lossless ACK, so the gain regrows instead.

use crate::bbr::extension::{AckContext, CwndGainPolicy};
use crate::controller::AckEvent;
use crate::units::Bytes;

/// Lost and delivered bytes over the current and the previous round trip.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RoundLossRate {
    current_acked: Bytes,
    current_lost: Bytes,
    previous_acked: Bytes,
    previous_lost: Bytes,
}

impl RoundLossRate {
    /// Counts an ACK; `round_start` says it began a new round trip.
    pub fn on_ack(&mut self, round_start: bool, acked: Bytes, lost: Bytes) {
        if round_start {
            self.previous_acked = self.current_acked;
            self.previous_lost = self.current_lost;
            self.current_acked = Bytes::ZERO;
            self.current_lost = Bytes::ZERO;
        }
        self.current_acked += acked;
        self.current_lost += lost;
    }

    /// Lost bytes over lost plus acknowledged bytes, over the two rounds
    /// (0 before anything was counted).
    pub fn rate(&self) -> f64 {
        let lost = (self.current_lost + self.previous_lost).as_f64();
        let total = lost + (self.current_acked + self.previous_acked).as_f64();
        if total > 0.0 {
            lost / total
        } else {
            0.0
        }
    }
}

/// A cwnd-gain policy that sees only congestive losses: those of rounds
/// whose loss rate exceeds `threshold`, and those at an RTT of at least
/// `(1 + queue) x RTprop`; the other loss ACKs reach it without their losses.
#[derive(Clone, Debug)]
pub struct CongestiveLossGate<P> {
    inner: P,
    threshold: f64,
    queue: f64,
    rate: RoundLossRate,
    passed: u64,
    withheld: u64,
}

impl<P: CwndGainPolicy + Clone> CongestiveLossGate<P> {
    /// Gates `inner` at a loss rate of `threshold` and a queue of `queue`
    /// RTprops (both fractions).
    pub fn new(inner: P, threshold: f64, queue: f64) -> Self {
        CongestiveLossGate {
            inner,
            threshold,
            queue,
            rate: RoundLossRate::default(),
            passed: 0,
            withheld: 0,
        }
    }

    /// The gated policy.
    pub fn inner(&self) -> &P {
        &self.inner
    }

    /// Loss ACKs passed on as losses, and loss ACKs passed on without them.
    pub fn counts(&self) -> (u64, u64) {
        (self.passed, self.withheld)
    }
}

impl<P: CwndGainPolicy + Clone + 'static> CwndGainPolicy for CongestiveLossGate<P> {
    fn on_ack(&mut self, ctx: &AckContext) {
        let event = ctx.event;
        self.rate
            .on_ack(ctx.round_start, event.newly_acked, event.newly_lost);
        let queued = match (event.rtt.latest, ctx.min_rtt) {
            (Some(rtt), Some(rtprop)) => {
                rtt.as_secs_f64() >= (1.0 + self.queue) * rtprop.as_secs_f64()
            }
            // Without an RTT sample nothing says the queue was empty.
            _ => true,
        };
        if event.newly_lost == Bytes::ZERO || queued || self.rate.rate() > self.threshold {
            if event.newly_lost > Bytes::ZERO {
                self.passed += 1;
            }
            self.inner.on_ack(ctx);
            return;
        }
        self.withheld += 1;
        let lossless = AckEvent {
            newly_lost: Bytes::ZERO,
            ..*event
        };
        self.inner.on_ack(&AckContext {
            event: &lossless,
            ..*ctx
        });
    }

    fn cwnd_gain(&self, ctx: &AckContext, base: f64) -> f64 {
        self.inner.cwnd_gain(ctx, base)
    }

    fn cwnd_cap(&self, ctx: &AckContext) -> Option<Bytes> {
        self.inner.cwnd_cap(ctx)
    }

    fn inflight_cap(&self, ctx: &AckContext) -> Option<Bytes> {
        self.inner.inflight_cap(ctx)
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        self.inner.trace(out);
        out.push(("loss_rate_2rounds", self.rate.rate()));
        out.push(("loss_acks_passed", self.passed as f64));
        out.push(("loss_acks_withheld", self.withheld as f64));
    }
}
