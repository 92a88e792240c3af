//! The deep-buffer gain: keeping a share beside a loss-based flow.
//!
//! BBRv1's window of two BDPs is the reason it loses to CUBIC in a deep
//! buffer: CUBIC fills the buffer, the RTT grows to `(1 + R) RTprop`, and a
//! window of `2 x BtlBw x RTprop` then delivers only `2/(1+R)` of BBR's
//! estimate per round, so the estimate and the window shrink together
//! (BBR-CWS §3.2; oBBR §4.3 keeps BBRv1 there and loses the same way). A
//! loss while the RTT is at least `g_max x RTprop` is oBBR's test for a deep
//! buffer shared with other flows (§4.1); BBR alone never queues that much.
//! On such a loss the cwnd gain becomes the RTT ratio itself (at most
//! `deep_max`), so the window holds what the flow delivers at the RTT the
//! competitor imposes and the estimate stops shrinking; between such losses
//! it decays back towards oBBR's gain by `alpha` per BDP acknowledged, as
//! oBBR's gain regrows. Alone, in a shallow buffer or under random loss
//! (RTT ratio below `g_max` at the loss) it never engages.
//!
//! That trigger also fires on a cellular link's capacity dips, where the
//! queue is the flow's own. With a [`StandingQueue`] test
//! ([`with_standing_queue`](DeepBufferGain::with_standing_queue)) the gain
//! answers the competitor instead of the loss: while the test says a queue
//! survived the flow's own draining (Drain's end, ProbeRTT), the ProbeBW
//! gain is at least `g_max x SRTT / RTprop` (at most `deep_max`), the
//! window BBRv1 would have if RTprop were the RTT the competitor imposes,
//! and oBBR's shallow-buffer cut is overridden: beside CUBIC the windowed
//! RTprop itself is inflated by CUBIC's queue, so oBBR's test (`RTT <
//! g_max x RTprop` at a loss) reads CUBIC's deep buffer as shallow and cuts
//! the gain to about 1.05, under the `RTT / RTprop` the estimate needs not
//! to shrink. Losses do not engage anything then: the test does.

use crate::bbr::extension::{AckContext, CwndGainPolicy};
use crate::bbr::Mode;
use crate::units::Bytes;

use super::standing::StandingQueue;

/// A cwnd-gain policy that raises `inner`'s gain to the RTT ratio of the
/// latest deep-buffer loss, decaying.
#[derive(Clone, Debug)]
pub struct DeepBufferGain<P> {
    inner: P,
    g_max: f64,
    deep_max: f64,
    alpha: f64,
    /// The deep gain in force; 0 when none.
    g_deep: f64,
    engaged: u64,
    standing: Option<StandingQueue>,
}

impl<P: CwndGainPolicy + Clone> DeepBufferGain<P> {
    /// Wraps `inner`; a loss at an RTT ratio of `g_max` or more engages the
    /// deep gain (capped at `deep_max`), which decays by `alpha` per BDP
    /// acknowledged.
    pub fn new(inner: P, g_max: f64, deep_max: f64, alpha: f64) -> Self {
        DeepBufferGain {
            inner,
            g_max,
            deep_max,
            alpha,
            g_deep: 0.0,
            engaged: 0,
            standing: None,
        }
    }

    /// Engages on `test`'s verdict (a competitor's standing queue) instead
    /// of on deep-buffer losses.
    pub fn with_standing_queue(mut self, test: StandingQueue) -> Self {
        self.standing = Some(test);
        self
    }

    /// The standing-queue test, if the gain engages on it.
    pub fn standing_queue(&self) -> Option<&StandingQueue> {
        self.standing.as_ref()
    }

    /// The gain the standing-queue verdict holds: `g_max x SRTT / RTprop`
    /// within `[g_max, deep_max]`; `None` without a verdict or outside
    /// ProbeBW.
    fn standing_gain(&self, ctx: &AckContext) -> Option<f64> {
        let test = self.standing.as_ref()?;
        if !test.competitor() || ctx.mode != Mode::ProbeBw {
            return None;
        }
        let rtprop = ctx.min_rtt.filter(|m| !m.is_zero())?;
        let ratio = ctx.event.rtt.smoothed.as_secs_f64() / rtprop.as_secs_f64();
        Some((self.g_max * ratio).clamp(self.g_max, self.deep_max))
    }

    /// The deep gain in force (0 when disengaged).
    pub fn g_deep(&self) -> f64 {
        self.g_deep
    }

    /// The wrapped policy.
    pub fn inner(&self) -> &P {
        &self.inner
    }

    fn loss_engaged(&self, ctx: &AckContext, base: f64) -> bool {
        ctx.mode == Mode::ProbeBw && self.g_deep > self.inner.cwnd_gain(ctx, base)
    }
}

impl<P: CwndGainPolicy + Clone + 'static> CwndGainPolicy for DeepBufferGain<P> {
    fn on_ack(&mut self, ctx: &AckContext) {
        self.inner.on_ack(ctx);
        if let Some(test) = &mut self.standing {
            let before = test.competitor();
            test.on_ack(ctx);
            if test.competitor() && !before {
                self.engaged += 1;
            }
            return;
        }
        let event = ctx.event;
        let ratio = match (event.rtt.latest, ctx.min_rtt) {
            (Some(rtt), Some(rtprop)) if !rtprop.is_zero() => {
                rtt.as_secs_f64() / rtprop.as_secs_f64()
            }
            _ => return,
        };
        if event.newly_lost > Bytes::ZERO && ratio >= self.g_max && ctx.full_pipe {
            let g = ratio.min(self.deep_max);
            if g > self.g_deep {
                self.engaged += 1;
            }
            self.g_deep = self.g_deep.max(g);
            return;
        }
        if self.g_deep > 0.0 {
            let Some(bdp) = ctx.bdp.filter(|b| *b > Bytes::ZERO) else {
                return;
            };
            self.g_deep -= self.alpha * event.newly_acked.as_f64() / bdp.as_f64();
            if self.g_deep <= self.g_max {
                self.g_deep = 0.0;
            }
        }
    }

    fn cwnd_gain(&self, ctx: &AckContext, base: f64) -> f64 {
        let gain = self.inner.cwnd_gain(ctx, base);
        if let Some(g) = self.standing_gain(ctx) {
            return g.max(gain);
        }
        if self.loss_engaged(ctx, base) {
            self.g_deep
        } else {
            gain
        }
    }

    fn cwnd_cap(&self, ctx: &AckContext) -> Option<Bytes> {
        self.inner.cwnd_cap(ctx)
    }

    fn inflight_cap(&self, ctx: &AckContext) -> Option<Bytes> {
        // The deep gain exceeds oBBR's, whose cap would undo it.
        if (self.g_deep > 0.0 && ctx.mode == Mode::ProbeBw) || self.standing_gain(ctx).is_some() {
            return None;
        }
        self.inner.inflight_cap(ctx)
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        self.inner.trace(out);
        out.push(("g_deep", self.g_deep));
        out.push(("deep_engaged", self.engaged as f64));
        if let Some(test) = &self.standing {
            test.trace(out);
        }
    }
}
