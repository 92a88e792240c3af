//! oBBR's adaptive cwnd gain (paper §4.1): [`AdaptiveCwndGain`].
//!
//! A loss is read as "the bottleneck buffer is full". The latest RTT then
//! measures the full buffer, `q = c (RTT_latest - RTprop)`, and the gain is
//! set so that the window holds one BDP plus a share `mu` of that buffer:
//!
//! ```text
//! g = min(1 + mu (RTT_latest - RTprop) / RTprop, g_max)        on a loss
//! g = min(g + alpha S_ack / BDP, g_max)                        on other ACKs
//! ```
//!
//! The slow regrowth lets g return to `g_max` when the loss was random or
//! the bottleneck moved to a deeper buffer; with `g_max = 2` oBBR then is
//! BBRv1 again (§4.3).

use std::time::Duration;

use crate::bbr::extension::{AckContext, CwndGainPolicy};
use crate::bbr::{Mode, CWND_GAIN, HIGH_GAIN, MIN_CWND_PACKETS};
use crate::controller::AckEvent;
use crate::units::{Bytes, Instant};

/// The cwnd-gain floor while ProbeBW probes (pacing gain above 1): the
/// window must hold the 1.25 x BDP that the probe paces out (§5.1).
pub const PROBE_FLOOR: f64 = 1.25;

/// `code=true`: a probe that comes this long after the last loss may use
/// `g_max` whatever g is (`ngx_bbr_loss_timer_win_size_ms`, 3000 ms).
pub const CODE_NO_LOSS_OVERRIDE: Duration = Duration::from_secs(3);

/// `may_gain=true`: a probe this long after the last loss stores 2 into g
/// (`ngx_bbr_loss_timer_win_size_ms` of the May 2023 revisions, 5000 ms).
pub const MAY_NO_LOSS_OVERRIDE: Duration = Duration::from_secs(5);

/// `code=true`: in Startup, g adapts only once this fraction of the
/// delivered bytes has been lost (`total_loss * 100 / total_acked < 10`).
pub const CODE_STARTUP_LOSS_RATIO: f64 = 0.10;

/// The tunables of [`AdaptiveCwndGain`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdaptiveGainConfig {
    /// mu: the share of the detected buffer oBBR's window may fill
    /// (paper: 0.5, 0.75 or 1).
    pub mu: f64,
    /// alpha: regrowth per BDP acknowledged (paper: 0.01).
    pub alpha: f64,
    /// g_max: the gain of a deep buffer (paper: 2; authors' code: 2.05).
    pub g_max: f64,
    /// Reproduce the authors' nginx code instead of the paper (see the
    /// module essay of [`crate::obbr`]).
    pub code: bool,
    /// The adaptive gain of the authors' May 2023 revisions (the code the
    /// figure scripts were published with): adapted in ProbeBW only and 2
    /// on entering it; a loss with `RTT_latest > RTprop` sets
    /// `g = min(1 + mu (ratio - 1), g_max)`, every other ACK regrows g; while
    /// the pacing gain is above 1, g itself is raised to `max(g, 2)` when the
    /// last loss is more than [`MAY_NO_LOSS_OVERRIDE`] old and to
    /// `max(g, 1.25)` otherwise; no hard cap. Takes precedence over `code`
    /// for the gain.
    pub may_gain: bool,
}

/// oBBR's cwnd-gain policy for the BBR core.
///
/// Paper mode (`code = false`): g is updated on every ACK in every mode
/// (rescaled on a loss when `RTT_latest / RTprop < g_max`, regrown
/// otherwise), and used as ProbeBW's cwnd gain, at least [`PROBE_FLOOR`]
/// while probing; while g is below `g_max` the gain in force also caps
/// inflight ([`CwndGainPolicy::inflight_cap`]: `gain x BDP`, without the
/// core's ACK-aggregation and send-quantum allowances), since the paper
/// sizes the window as exactly `BDP + mu q`.
///
/// Code mode (`code = true`) follows `ngx_bbr_update_cc_mode` and
/// `ngx_bbr_set_cwnd` of the authors' nginx-quic: g is the core's gain for
/// the mode, reset on every mode change and then adapted in every mode (in
/// Startup only once 10% of the data was lost); a loss sets g without a
/// shallow-buffer test; regrowth pauses during loss recovery; while the
/// pacing gain is above 1 the gain is at least 1.25, and at least `g_max`
/// when the last loss is more than 3 s old; the hard cap applies in every
/// mode.
#[derive(Clone, Debug)]
pub struct AdaptiveCwndGain {
    config: AdaptiveGainConfig,
    g: f64,
    /// The mode g was last reset for (code mode).
    mode: Option<Mode>,
    last_loss: Option<Instant>,
    rescales: u64,
    /// ACKs that revealed a loss (tracing).
    loss_acks: u64,
    /// `RTT_latest / RTprop` on the latest loss ACK (tracing).
    loss_ratio: f64,
}

/// The BBR core's cwnd gain in `mode` (what nginx's mode entries set).
fn core_gain(mode: Mode) -> f64 {
    match mode {
        Mode::Startup | Mode::Drain => HIGH_GAIN,
        Mode::ProbeBw => CWND_GAIN,
        Mode::ProbeRtt => 1.0,
    }
}

/// Code mode's Startup gate: total lost / total delivered >= 10%.
fn startup_loss_gate_open(event: &AckEvent) -> bool {
    let lost = event.rate.total_lost.as_f64();
    let delivered = event.rate.total_delivered.as_f64();
    lost > 0.0 && lost >= CODE_STARTUP_LOSS_RATIO * delivered
}

impl AdaptiveCwndGain {
    /// A policy starting at `g_max` (paper) or at Startup's gain (code).
    pub fn new(config: AdaptiveGainConfig) -> Self {
        let g = if config.code {
            core_gain(Mode::Startup)
        } else {
            config.g_max
        };
        AdaptiveCwndGain {
            config,
            g,
            mode: None,
            last_loss: None,
            rescales: 0,
            loss_acks: 0,
            loss_ratio: 0.0,
        }
    }

    /// The adaptive gain g (before the probing floor).
    pub fn g(&self) -> f64 {
        self.g
    }

    /// How many losses have rescaled g.
    pub fn rescales(&self) -> u64 {
        self.rescales
    }

    /// The configuration.
    pub fn config(&self) -> &AdaptiveGainConfig {
        &self.config
    }

    /// On a loss: g from the buffer the latest RTT reveals. Returns whether
    /// g was rescaled.
    fn rescale(&mut self, ctx: &AckContext) -> bool {
        let (Some(rtt), Some(rtprop)) = (ctx.event.rtt.latest, ctx.min_rtt) else {
            return false;
        };
        if rtprop.is_zero() {
            return false;
        }
        let ratio = rtt.as_secs_f64() / rtprop.as_secs_f64();
        self.loss_ratio = ratio;
        // §4.1: "if RTT_latest / RTprop < g [BBR's fixed 2 = g_max], the
        // bottleneck buffer is shallow", and only then is g scaled. A larger
        // ratio is a deep buffer shared with other flows, where oBBR is to
        // behave as BBRv1: g stays. The code rescales on every loss.
        if !self.config.code && !self.config.may_gain && ratio >= self.config.g_max {
            return false;
        }
        // RTT_latest can undercut an RTprop that is not yet updated: g >= 1.
        self.g = (1.0 + self.config.mu * (ratio - 1.0))
            .min(self.config.g_max)
            .max(1.0);
        self.rescales += 1;
        true
    }

    /// Regrowth: `alpha x acked / BDP` (BDP at least the 4-packet minimum
    /// window, as the code's `ngx_bbr_target_cwnd(bbr, 1.0)`).
    fn grow(&mut self, ctx: &AckContext) {
        let Some(bdp) = ctx.bdp else {
            return;
        };
        let bdp = bdp.max(ctx.mss * MIN_CWND_PACKETS);
        if bdp == Bytes::ZERO {
            return;
        }
        let step = self.config.alpha * ctx.event.newly_acked.as_f64() / bdp.as_f64();
        self.g = (self.g + step).min(self.config.g_max);
    }

    /// `may_gain`: `ngx_bbr_update_cc_mode` of the May 2023 revisions.
    fn on_ack_may(&mut self, ctx: &AckContext, lost: bool) {
        if ctx.mode != Mode::ProbeBw {
            self.mode = Some(ctx.mode);
            return;
        }
        if self.mode != Some(Mode::ProbeBw) {
            // `ngx_bbr_enter_probe_bw`: cwnd_gain = 2 (the entering ACK was
            // seen in the previous mode, so it adapts nothing).
            self.mode = Some(Mode::ProbeBw);
            self.g = CWND_GAIN;
            return;
        }
        let above_rtprop = matches!(
            (ctx.event.rtt.latest, ctx.min_rtt),
            (Some(rtt), Some(min)) if rtt > min
        );
        if !(lost && above_rtprop && self.rescale(ctx)) {
            self.grow(ctx);
        }
        if ctx.pacing_gain > 1.0 {
            let quiet = self
                .last_loss
                .is_none_or(|t| ctx.event.now - t > MAY_NO_LOSS_OVERRIDE);
            self.g = self.g.max(if quiet { CWND_GAIN } else { PROBE_FLOOR });
        }
    }

    /// The gain in force after the probing floor (and, in code mode, the
    /// no-loss override); `base` is the core's gain for the mode.
    fn effective_gain(&self, ctx: &AckContext, base: f64) -> f64 {
        if self.config.may_gain {
            return if ctx.mode == Mode::ProbeBw {
                self.g
            } else {
                base
            };
        }
        let probing = ctx.pacing_gain > 1.0;
        if self.config.code {
            let mut gain = self.g;
            if probing {
                gain = gain.max(PROBE_FLOOR);
                let quiet = self
                    .last_loss
                    .is_none_or(|t| ctx.event.now - t > CODE_NO_LOSS_OVERRIDE);
                if quiet {
                    gain = gain.max(self.config.g_max);
                }
            }
            gain
        } else if ctx.mode == Mode::ProbeBw {
            if probing {
                self.g.max(PROBE_FLOOR)
            } else {
                self.g
            }
        } else {
            base
        }
    }
}

impl CwndGainPolicy for AdaptiveCwndGain {
    fn on_ack(&mut self, ctx: &AckContext) {
        let event = ctx.event;
        let lost = event.newly_lost > Bytes::ZERO;
        if lost {
            self.last_loss = Some(event.now);
            self.loss_acks += 1;
        }
        if self.config.may_gain {
            self.on_ack_may(ctx, lost);
            return;
        }
        if self.config.code && self.mode != Some(ctx.mode) {
            // nginx's mode entries overwrite cwnd_gain after the ACK's
            // adaptation, so the ACK that changes the mode adapts nothing.
            self.mode = Some(ctx.mode);
            self.g = core_gain(ctx.mode);
            return;
        }
        if self.config.code && ctx.mode == Mode::Startup && !startup_loss_gate_open(event) {
            return;
        }
        let rescaled = lost && self.rescale(ctx);
        if rescaled {
            return;
        }
        if self.config.code && event.in_recovery {
            // nginx: `else if (recovery_mode == BBR_NOT_IN_RECOVERY)`.
            return;
        }
        self.grow(ctx);
    }

    fn cwnd_gain(&self, ctx: &AckContext, base: f64) -> f64 {
        self.effective_gain(ctx, base)
    }

    fn inflight_cap(&self, ctx: &AckContext) -> Option<Bytes> {
        if self.config.may_gain
            || self.g >= self.config.g_max
            || (!self.config.code && ctx.mode != Mode::ProbeBw)
        {
            return None;
        }
        let bdp = ctx.bdp?;
        let gain = self.effective_gain(ctx, core_gain(ctx.mode));
        Some(bdp.mul_f64(gain).max(ctx.mss * MIN_CWND_PACKETS))
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("obbr_g", self.g));
        out.push(("obbr_g_rescales", self.rescales as f64));
        out.push(("obbr_loss_acks", self.loss_acks as f64));
        out.push(("obbr_loss_ratio", self.loss_ratio));
    }
}
