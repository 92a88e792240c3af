//! BBR-CWS: BBR congestion window scaling (Kim, Song and Cho, "BBR-CWS:
//! BBR congestion window scaling", MDPI Electronics 2020, §4, Algorithm 1).
//!
//! # The problem it fixes
//!
//! BBRv1 caps inflight at `cwnd_gain x BDP = 2 BDP` and ignores loss. In a
//! buffer smaller than one BDP that cap lies beyond the point where the
//! buffer overflows, so BBR loses packets all the time, returns to the same
//! window after every recovery, and starves a loss-based competitor
//! (paper §3.1). In a deep buffer, CUBIC's standing queue inflates BBR's
//! RTprop after a ProbeRTT, the cap inflates with it and the two flows take
//! turns at starving each other (§3.2).
//!
//! # What BBR-CWS estimates
//!
//! Besides BBR's BtlBw and RTprop, one number: the `upper_scaling_factor`
//! in `[floor, 1]`, the fraction of BBR's target window it lets itself use:
//!
//! ```text
//! upper_cwnd = target_cwnd x upper_scaling_factor        (Algorithm 1, line 19)
//! cwnd       = min(cwnd + acked, upper_cwnd)             (line 21)
//! ```
//!
//! Loss is read as "the operating point is wrong", and the flow asks why:
//!
//! 1. **Cut** (lines 1-9, §4.1). On entering loss recovery, cwnd drops to a
//!    third of what is in flight and stays there until recovery ends. If
//!    the loss came from a queue another flow built (deep buffer), that
//!    queue drains and BBR sees a lower RTprop, which lowers its BDP.
//! 2. **Wait and judge** (lines 23-33, §4.2(1)). Three RTTs after the loss,
//!    if no lower RTprop was measured, RTprop was not the problem: the
//!    buffer is simply smaller than BBR's excess, so the factor is
//!    multiplied by `beta` (0.9), never below `floor` (0.2). If a lower
//!    RTprop was measured, the factor goes back to 1 (§4.2(1), see below).
//! 3. **Creep back** (lines 34-40, §4.2(2)). Every three RTTs without a new
//!    loss, the factor grows by `delta` (0.01), up to 1, so the flow keeps
//!    competing with a loss-based flow that keeps growing.
//!
//! # State machine
//!
//! BBR's modes (Startup, Drain, ProbeBW, ProbeRTT) are the parent's,
//! unchanged. Around them, the loss reaction has two states:
//!
//! ```text
//!            recovery entered: cwnd = inflight/3, held until recovery ends
//!   Idle ----------------------------------------------------> Waiting (3 RTT)
//!    ^  every 3 RTT: factor = min(factor + delta, 1)              |
//!    |                                                            |
//!    +---- no lower RTprop: factor = max(factor x beta, floor) ---+
//!    +---- lower RTprop:    factor = 1 (rtprop_reset)         ----+
//! ```
//!
//! A new recovery while Waiting cuts cwnd again but does not restart the
//! wait (line 4: `loss_detected_time` is only set when it is 0).
//!
//! # What differs from the parent (BBRv1, [`crate::bbr`])
//!
//! Only the [`LossReaction`] extension point:
//! - recovery entry sets cwnd to `inflight / 3` instead of `inflight + acked`;
//! - packet conservation holds that window (Linux would let it grow back
//!   to `inflight + acked` on every ACK);
//! - leaving recovery does **not** restore the pre-recovery cwnd: Algorithm 1
//!   (lines 10-12) only clears `packet_conservation`, and §5.4 names the
//!   restore as the reason BBRv1 keeps the buffer overflowing;
//! - the model's target window is scaled by `upper_scaling_factor`.
//!
//! # Reading Algorithm 1, and the choices made
//!
//! - **"RTT" is time, the smoothed RTT.** Lines 25 and 35 compare
//!   timestamps (`current_time > loss_detected_time + current_rtt x 3`), so
//!   the waits are three *current* RTTs of wall time, not three packet-timed
//!   rounds and not three min_rtts; "current RTT" is the transport's
//!   smoothed RTT (Linux `srtt`). Before the first RTT sample, min_rtt is
//!   used; with neither, no decision is taken.
//! - **The cut holds for the whole recovery.** Line 21 as printed
//!   (`cwnd = min(cwnd + acked, upper_cwnd)` with `upper_cwnd = inflight`)
//!   would regrow the window to the full pre-loss inflight within the
//!   recovery round; §4.1 says the window "is maintained until the lost
//!   packet is retransmitted and the TCP_CA_Recovery state is exited",
//!   which is what lets the queue drain. The text is followed: cwnd is
//!   `inflight / 3` (never below BBR's 4-packet floor) from recovery entry
//!   to recovery exit, further losses do not shrink it.
//! - **`current_inflight`** is the bytes in flight after the ACK that
//!   entered recovery (acked and newly lost packets removed), like Linux's
//!   `tcp_packets_in_flight()` at that point.
//! - **A lower RTprop resets the factor to 1.** §4.2(1): "If the new RTprop
//!   is estimated within 3 RTT, BBR-CWS resets the upper_scaling_factor to 1
//!   so that a new RTprop is entirely applied". Algorithm 1 omits the reset
//!   (it only clears the wait). Parameter `rtprop_reset` chooses: `true`
//!   (default) follows the text, `false` the pseudocode.
//! - **"Lower RTprop measured" means measured during the wait.** The
//!   variable's definition (§4: "whether the lower RTprop is measured within
//!   a certain time after BBR reduces the congestion window") is followed:
//!   the flag is cleared when a wait starts and set when the min-RTT
//!   estimate falls during it. An estimate that is merely refreshed with an
//!   equal sample (Linux `<=`) does not count: in a deterministic simulator
//!   an empty queue gives exactly the base RTT every time, which would make
//!   every wait "successful" and disable the shallow-buffer mechanism the
//!   paper describes.
//! - **What is scaled** is the core's whole target window: `cwnd_gain x
//!   BDP` plus the quantization budget (Linux's `target_cwnd`), plus the
//!   extra-acked allowance when enabled, in every mode. The paper ran Linux
//!   4.14, which had no extra-acked allowance: `extra_acked=false`
//!   reproduces that parent; the default keeps the bbrlab BBRv1 parent's
//!   setting (on) so that `bbr` and `bbr-cws` differ only by Algorithm 1.
//! - **Order within an ACK.** Algorithm 1 updates the factor after setting
//!   cwnd (line 47); here it is updated just before, so a decision takes
//!   effect one ACK earlier. Nothing else depends on the order.
//! - **ProbeRTT.** §4 says the authors "configured the amount of reduction in
//!   ProbeRTT phase" without saying how; BBRv1's 4 packets are kept.
//! - **RTO.** Algorithm 1 reacts to `TCP_CA_Recovery` only; a QUIC
//!   persistent congestion (the analogue of `TCP_CA_Loss`) is left to the
//!   core, as in the paper.
//! - **`delta` is a fraction of the target window.** Every 3 RTTs the
//!   window may grow by `delta x 2 BDP`, i.e. `2 x delta x BDP / 3` packets
//!   per RTT, while CUBIC at a small window grows by about half a packet per
//!   RTT whatever the BDP; below 1 BDP both lose at the same overflows, so
//!   BBR-CWS's share against CUBIC follows `delta x BDP`. The paper's 0.01
//!   shares evenly at 50 Mbit/s x 10 ms (42 packets); at 50 Mbit/s x 40 ms
//!   BBR-CWS takes ~80% of the link, at 20 Mbit/s x 10 ms CUBIC does
//!   (docs/ALGORITHMS.md, BBR-CWS, "Fairness with CUBIC away from
//!   50 Mbit/s x 10 ms"). The paper's value is kept.
//!
//! # Parameters (`bbr-cws:beta=0.9,delta=0.01,floor=0.2,rtprop_reset=true`)
//!
//! | name | default | range | meaning |
//! |---|---|---|---|
//! | `beta` | 0.9 | 0.1..0.99 | factor multiplier when a loss is not explained by RTprop (§4.2(1)) |
//! | `delta` | 0.01 | 0.001..0.5 | factor increment per 3 RTT without loss (§4.2(2)) |
//! | `floor` | 0.2 | 0.05..1 | lowest factor (Algorithm 1, line 31; unnamed in the paper) |
//! | `rtprop_reset` | true | bool | reset the factor to 1 when a lower RTprop is found (§4.2 text) |
//!
//! and the parent's `cwnd_gain`, `lt_bw`, `extra_acked`.

use std::cell::Cell;
use std::time::Duration;

use crate::bbr::extension::{AckContext, Extensions, LossReaction};
use crate::bbr::{Bbr, BbrParams};
use crate::controller::ControllerConfig;
use crate::spec::AlgorithmInfo;
use crate::units::{Bytes, Instant};

/// The wait before judging a loss, and the period of the factor's growth,
/// in current RTTs (Algorithm 1, lines 25 and 35).
pub const WAIT_RTTS: u32 = 3;
/// The recovery window is `inflight / RECOVERY_DIVISOR` (line 7).
pub const RECOVERY_DIVISOR: u64 = 3;

crate::params! {
    /// BBR-CWS's tunables; `Default` is the paper's values.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct CwsParams {
        /// β: multiplies the factor when a loss is not followed by a lower RTprop.
        pub beta: f64 ["beta", 0.1..=0.99] = 0.9
            => "upper_scaling_factor multiplier when a loss is not followed by a lower RTprop within 3 RTT",
        /// δ: added to the factor every 3 RTT without loss.
        pub delta: f64 ["delta", 0.001..=0.5] = 0.01
            => "upper_scaling_factor increment per 3 RTT without loss (capped at 1)",
        /// The factor's lower bound.
        pub floor: f64 ["floor", 0.05..=1.0] = 0.2 => "lowest upper_scaling_factor",
        /// Whether a lower RTprop found after a loss resets the factor to 1
        /// (§4.2 text; Algorithm 1 does not).
        pub rtprop_reset: bool ["rtprop_reset"] = true
            => "reset upper_scaling_factor to 1 when a lower RTprop follows a loss (paper text; false = Algorithm 1 as printed)",
    }
}

/// Registry entry for `bbr-cws`: its own parameters, then the BBRv1 core's
/// (`parent`) but `pacing_margin`.
pub fn info(parent: &AlgorithmInfo) -> AlgorithmInfo {
    AlgorithmInfo::new(
        "bbr-cws",
        "BBR-CWS (Kim et al. 2020): cwnd cut to inflight/3 on loss, target scaled by a loss-driven factor",
        |spec, config| {
            Box::new(new_bbr_cws(
                spec.as_str(),
                BbrParams::from_spec(spec),
                CwsParams::from_spec(spec),
                config,
            ))
        },
    )
    .display_name("BBR-CWS")
    .param_table(CwsParams::params())
    .inherit(parent)
    .without(&["pacing_margin"])
}

/// A BBRv1 core running BBR-CWS's loss reaction.
pub fn new_bbr_cws(spec: &str, bbr: BbrParams, cws: CwsParams, config: &ControllerConfig) -> Bbr {
    let ext = Extensions {
        loss_reaction: Box::new(CwsLossReaction::new(cws, config.now)),
        ..Extensions::default()
    };
    Bbr::with_extensions(spec, bbr, config, ext)
}

/// Algorithm 1 as a [`LossReaction`]: the recovery cut, the wait for a
/// lower RTprop and the upper scaling factor.
#[derive(Clone, Debug)]
pub struct CwsLossReaction {
    params: CwsParams,
    /// `upper_scaling_factor`.
    factor: f64,
    /// `loss_detected_time` (`None` for the paper's 0).
    loss_detected: Option<Instant>,
    /// `is_rtt_min_updated`.
    rtt_min_updated: bool,
    /// `last_action_time`.
    last_action: Instant,
    /// The min-RTT estimate on the previous ACK, to see it fall.
    last_min_rtt: Option<Duration>,
    /// The window held from recovery entry to recovery exit.
    held: Option<Bytes>,
    /// The last `upper_cwnd` computed, for traces only (the extension point
    /// computes it through `&self`).
    upper_cwnd: Cell<Bytes>,
}

impl CwsLossReaction {
    /// A fresh reaction (factor 1) for a connection starting at `now`.
    pub fn new(params: CwsParams, now: Instant) -> Self {
        CwsLossReaction {
            params,
            factor: 1.0,
            loss_detected: None,
            rtt_min_updated: false,
            last_action: now,
            last_min_rtt: None,
            held: None,
            upper_cwnd: Cell::new(Bytes::ZERO),
        }
    }

    /// The current `upper_scaling_factor`.
    pub fn upper_scaling_factor(&self) -> f64 {
        self.factor
    }

    /// When the pending loss was detected, if a wait is running.
    pub fn loss_detected_time(&self) -> Option<Instant> {
        self.loss_detected
    }

    /// The window held during the current recovery, if any.
    pub fn recovery_window(&self) -> Option<Bytes> {
        self.held
    }

    /// `upper_cwnd = target x factor` (line 19).
    pub fn upper_cwnd(&self, target: Bytes) -> Bytes {
        target.mul_f64(self.factor)
    }

    /// The "current RTT" of lines 25 and 35.
    fn current_rtt(ctx: &AckContext) -> Option<Duration> {
        let srtt = ctx.event.rtt.smoothed;
        if !srtt.is_zero() {
            Some(srtt)
        } else {
            ctx.min_rtt.filter(|m| !m.is_zero())
        }
    }

    /// `bbr_set_upper_scaling_factor` (lines 23-41).
    fn set_upper_scaling_factor(&mut self, now: Instant, rtt: Duration) {
        let wait = rtt.saturating_mul(WAIT_RTTS);
        match self.loss_detected {
            Some(detected) => {
                if now > detected + wait {
                    if !self.rtt_min_updated {
                        self.factor = (self.factor * self.params.beta).max(self.params.floor);
                        self.last_action = now;
                    } else if self.params.rtprop_reset {
                        self.factor = 1.0;
                    }
                    self.loss_detected = None;
                    self.rtt_min_updated = false;
                }
            }
            None => {
                if now > self.last_action + wait {
                    self.factor = (self.factor + self.params.delta).min(1.0);
                    self.last_action = now;
                }
            }
        }
    }
}

impl LossReaction for CwsLossReaction {
    fn on_ack(&mut self, ctx: &AckContext) {
        let event = ctx.event;
        if ctx.recovery_entered && self.loss_detected.is_none() {
            // Lines 4-5: a wait starts only if none is running.
            self.loss_detected = Some(event.now);
            self.rtt_min_updated = false;
        }
        // The footnote of Algorithm 1: set when bbr_update_model lowers RTprop.
        if let (Some(now_min), Some(before)) = (ctx.min_rtt, self.last_min_rtt) {
            if now_min < before && self.loss_detected.is_some() {
                self.rtt_min_updated = true;
            }
        }
        self.last_min_rtt = ctx.min_rtt;
        if !event.in_recovery {
            // Lines 10-12: recovery is over; nothing is restored.
            self.held = None;
        }
        if let Some(rtt) = Self::current_rtt(ctx) {
            self.set_upper_scaling_factor(event.now, rtt);
        }
    }

    fn recovery_cwnd(&mut self, ctx: &AckContext, _conservative: Bytes) -> Bytes {
        // Lines 6-7: upper_cwnd = current_inflight; cwnd = upper_cwnd / 3.
        let window = (ctx.event.bytes_in_flight / RECOVERY_DIVISOR).max(ctx.mss);
        self.held = Some(window);
        window
    }

    fn conservation_cwnd(
        &self,
        _ctx: &AckContext,
        cwnd: Bytes,
        _inflight_plus_acked: Bytes,
    ) -> Bytes {
        // §4.1: the cut window "is maintained" through recovery, even
        // against the losses the core deducts.
        self.held.unwrap_or(cwnd)
    }

    fn limit_target(&self, _ctx: &AckContext, target: Bytes) -> Bytes {
        let upper = self.upper_cwnd(target);
        self.upper_cwnd.set(upper);
        // Recovery can outlast the core's one round of conservation.
        match self.held {
            Some(held) => upper.min(held),
            None => upper,
        }
    }

    fn restores_cwnd_after_recovery(&self) -> bool {
        false
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("upper_scaling_factor", self.factor));
        out.push(("upper_cwnd", self.upper_cwnd.get().as_f64()));
        out.push((
            "cws_waiting",
            f64::from(u8::from(self.loss_detected.is_some())),
        ));
        out.push(("cws_recovery_cwnd", self.held.map_or(0.0, Bytes::as_f64)));
    }
}

#[cfg(test)]
mod tests;
