//! oBBR (Bi et al., "oBBR: Optimize Retransmissions of BBR Flows on the
//! Internet", USENIX ATC 2023, §4): BBRv1 with an adaptive cwnd gain and
//! timely bandwidth updates, to cut BBR's retransmissions without giving up
//! its goodput.
//!
//! # What it estimates, and why
//!
//! oBBR keeps BBRv1's model (BtlBw = windowed max of delivery-rate samples,
//! RTprop = windowed min RTT; see [`crate::bbr`]) and adds two estimates the
//! paper traces BBR's retransmissions to (§3):
//!
//! 1. **The bottleneck buffer** (§4.1, [`cwnd_gain`]). BBR caps inflight at
//!    `2 x BDP`; a buffer shallower than `1 x BDP` cannot hold the excess and
//!    drops it, round after round. When a loss says the buffer is full, the
//!    latest RTT measures it: `q = c (RTT_latest - RTprop)`. oBBR then sets
//!    the cwnd gain so the window holds one BDP plus a share `mu` of the
//!    buffer, `g = min(1 + mu (RTT_latest - RTprop)/RTprop, g_max)`, and lets
//!    g regrow by `alpha x acked / BDP` per ACK, so a random loss or a
//!    deeper buffer brings back `g_max` (= BBR's 2: oBBR is BBRv1 in deep
//!    buffers, §4.3). While ProbeBW probes (pacing gain 1.25) the gain is at
//!    least 1.25 so the probe fits (§5.1).
//! 2. **A bandwidth drop** (§4.2, [`drop_detector`]). The max filter holds a
//!    vanished bandwidth for ten rounds that the queue it builds stretches
//!    further. `k` consecutive samples below `0.75 x BtlBw`, or `k`
//!    consecutive RTTs above `(g_max + 0.5) x RTprop`, replace BtlBw with the
//!    mean of the `k` latest samples; a delivery score
//!    `U = delivered - 10 x unacked` per interval `T` over the `2T` before
//!    and the `2T` after the update reverts it if delivery got worse.
//!
//! # State machine
//!
//! BBRv1's, unchanged (Startup -> Drain -> ProbeBW <-> ProbeRTT, see
//! [`crate::bbr`]). What differs from the parent is only inside ProbeBW:
//!
//! ```text
//!               loss, RTT/RTprop < g_max               k low bw samples or
//!   g = g_max  ----------------------->  g < g_max      k high RTTs
//!   (BBRv1:        g = 1 + mu(ratio-1)   cwnd <= g x BDP  ------------> BtlBw = mean(k latest)
//!    no cap)  <-----------------------   (>= 1.25 x BDP       |            |  2T later: score
//!              g += alpha acked/BDP       while probing)      |            v  after < before?
//!                                                             +-- revert: BtlBw = old
//! ```
//!
//! # Parameters (spec `obbr:key=value,...`)
//!
//! | name | default | meaning |
//! |---|---|---|
//! | `mu` | 0.5 | share of the detected buffer the window may fill (paper: 0.5, 0.75, 1) |
//! | `alpha` | 0.01 | g regrowth per BDP acknowledged |
//! | `g_max` | 2 (2.05 with `code=true`) | the deep-buffer gain, and g's cap |
//! | `k` | 30 | run length that signals a drop; samples averaged into the new estimate |
//! | `t_ms` | 200 | the delivery-score interval T, ms |
//! | `code` | false | reproduce the authors' nginx-quic code instead of the paper |
//! | `may_gain` | false | the adaptive gain of the code's May 2023 revisions (see below) |
//! | `low_ratio` | 0.75 | a bandwidth sample below `low_ratio x BtlBw` is low |
//! | `estimate_max` | false | a drop sets BtlBw to the max of the k latest samples, not their mean |
//! | `adaptive_g` | true | the adaptive gain (off: fixed gain `g_max`) |
//! | `timely_bw` | true | the bandwidth-drop detector |
//! | `lt_bw` | true | BBRv1's long-term (policer) mode, inherited from `bbr` |
//! | `extra_acked` | true | BBRv1's ACK-aggregation allowance, inherited from `bbr` |
//! | `pacing_margin` | 0.01 | BBRv1's pacing margin below the estimate, inherited from `bbr` |
//!
//! # Paper versus the authors' code (`code=true`)
//!
//! The paper is the default. The authors' nginx-quic (bpq233/oBBR,
//! `ngx_bbr.c`, final revision) differs, and `code=true` reproduces it:
//!
//! | behaviour | paper (`code=false`) | code (`code=true`) |
//! |---|---|---|
//! | g_max | 2 (§4.3) | 2.05 |
//! | rescale on a loss | only if `RTT_latest/RTprop < g_max`, the §4.1 shallow-buffer test | on every loss |
//! | regrowth | every ACK that does not rescale g (§4.1 "whenever an ack is received") | only outside loss recovery |
//! | where g applies | ProbeBW's cwnd gain (the fixed 2 of §2 it replaces); Startup, Drain, ProbeRTT keep BBR's gains; g is still updated on their ACKs | every mode: the mode's gain on entry, then adapted, in Startup only once loss/delivered >= 10% |
//! | 1.25 floor | while ProbeBW probes (§5.1) | whenever pacing gain > 1 (also Startup) |
//! | no loss for 3 s | nothing (the paper has no such rule) | a probe uses `max(g_max, g)` |
//! | hard cap cwnd <= g x BDP while g < g_max (g after the floor) | yes, in ProbeBW: the paper sizes inflight as `g x BDP` = `BDP + mu q` (§3.1, §4.1, §6), so BBR's aggregation and send-quantum allowances and recovery's cwnd restore may not exceed it; the 1.25 probe then ends on reaching the cap | yes, in every mode |
//! | drop trigger | the run alone ("if any of the two cases happen", §4.2) | the run and a loss on the current ACK; RTT run must exceed k |
//! | high-RTT threshold | `(g_max + 0.5) x RTprop` | `2.5 x min_rtt` |
//! | samples counted | in ProbeBW; bandwidth samples not app-limited, of packets sent a min_rtt or more into ProbeBW | bandwidth: ProbeBW, not app-limited; RTT: every mode |
//! | update | at once ("updating the bandwidth estimate in time"), only if the mean is lower | 2T after the trigger, unconditionally |
//! | "before" score | the two intervals completed before the trigger | the two intervals between trigger and update |
//! | revert spacing | none (a revert restarts the runs) | at most one revert per 10 min_rtt |
//!
//! The code's history matters here. Its final revision (June 2023, the
//! one above, whose detector matches the paper's text) followed revisions
//! from May 2023, when the artifact's test scripts and figure scripts were
//! added, whose detector differs in two ways: a sample is "low" below
//! `BtlBw / 0.75` (nearly every sample, so the trigger is in effect any
//! loss after k ProbeBW samples) and the new estimate is the *max* of the
//! 30 latest samples. Those revisions are most likely what produced the
//! paper's testbed numbers, and they behave differently where a token
//! bucket inflates BBR's samples: every loss resets a burst-inflated
//! estimate to what the latest samples delivered. `code=true,low_ratio=1.3333,
//! estimate_max=true` reproduces them (the paper-mode defaults stay).
//!
//! The May 2023 revisions' adaptive gain also differs from the final one
//! (`may_gain=true`): g adapts only in ProbeBW and is 2 on entering it; a
//! loss whose RTT exceeds min_rtt sets `g = min(1 + mu (ratio - 1), 2)`,
//! every other ACK regrows it (also in recovery); while the pacing gain is
//! above 1, g itself becomes `max(g, 2)` when the last loss is more than
//! 5 s old and `max(g, 1.25)` otherwise, so a quiet probe restores 2 until
//! the next loss; there is no hard cap (commented out) and g_max is 2.
//!
//! Two behaviours of the code are bugs and are not reproduced in either
//! mode: its detector and score state are process-wide globals shared by
//! every connection (here: per connection), and its 30-sample sum is a
//! `uint32_t` of bytes per second that overflows above ~1.1 Gbit/s (here:
//! 128-bit sums of 64-bit rates). The code's sample ring starts as zeros
//! and is always averaged over 30 entries; here the mean is over the
//! samples actually held (at most k). The nginx BBR core under the code
//! has neither the long-term mode nor the aggregation allowance
//! (`extra_ack_gain = 0`); `obbr:code=true,lt_bw=false,extra_acked=false`
//! comes closest to it.
//!
//! # Deviations from the paper, and choices it leaves open
//!
//! - "On a loss" is per ACK that reveals losses (`newly_lost > 0`), as in
//!   the code; losses declared by a timer reach the controller with the
//!   next ACK.
//! - A summary of the rescale as unconditional would misread §4.1: it applies
//!   it "once we discover the packet loss is caused by a shallow buffer",
//!   i.e. when `RTT_latest/RTprop < g` where g is BBR's fixed 2 (= g_max),
//!   and the paper wins in paper mode (a deep buffer shared with other
//!   flows keeps g, so oBBR behaves as BBRv1 there, §4.1, §4.3).
//! - g is floored at 1 (RTT_latest can undercut an RTprop not yet updated).
//! - "unacked" in the score is sent minus delivered over the interval, with
//!   "sent" counted through the newest acknowledged packet, as the code
//!   does; a pure "bytes in flight" reading would punish the window itself.
//! - A bandwidth sample counts only if its packet was sent a min_rtt or
//!   more after ProbeBW was (re)entered: earlier ones measure Drain's
//!   0.35 x BtlBw or ProbeRTT's four packets, and fired the detector after
//!   every Drain and ProbeRTT. The code counts them (its loss gate hides
//!   most of them); this holds in both modes.
//! - A revert in paper mode restarts the runs: samples taken under the
//!   lowered estimate measured its lower sending rate, not the path, and
//!   would otherwise re-trigger at once.
//! - The old estimate is restored as the code does, as a fresh max-filter
//!   entry (so it lives another ten rounds).
//! - Code mode's "regrowth only outside loss recovery" reads the
//!   transport's recovery period (`AckEvent::in_recovery`); nginx reads
//!   BBR's own epoch, which the core keeps privately.
//!
//! # Extension points used
//!
//! [`CwndGainPolicy`](crate::bbr::extension::CwndGainPolicy) =
//! [`AdaptiveCwndGain`], [`BandwidthDropDetector`](crate::bbr::extension::BandwidthDropDetector)
//! = [`TimelyBandwidthUpdate`]; everything else is the BBRv1 core. The
//! core gained `CwndGainPolicy::inflight_cap` for oBBR: a cap on cwnd that
//! also lowers ProbeBW's probe-exit target to it, since Linux's target adds
//! a send-quantum budget that a window capped at exactly `1.25 x BDP` could
//! never reach (the probe would last until a loss).
//!
//! # Results
//!
//! `crates/sim/tests/obbr.rs` and `docs/ALGORITHMS.md` hold the
//! simulation results against the paper's §5.2 claims.

pub mod cwnd_gain;
pub mod drop_detector;
#[cfg(test)]
mod tests;

use std::time::Duration;

use crate::bbr::extension::Extensions;
use crate::bbr::{Bbr, BbrParams, CWND_GAIN};
use crate::controller::{CongestionControl, ControllerConfig};
use crate::spec::{AlgorithmInfo, AlgorithmSpec};

pub use cwnd_gain::{AdaptiveCwndGain, AdaptiveGainConfig};
pub use drop_detector::{DropDetectorConfig, TimelyBandwidthUpdate};

/// The paper's g_max (§4.3): BBR's fixed ProbeBW gain.
pub const PAPER_G_MAX: f64 = 2.0;
/// The authors' code's g_max (`max_ngx_bbr_cwnd_gain`).
pub const CODE_G_MAX: f64 = 2.05;

crate::params! {
    /// oBBR's tunables (the spec parameters of [`info`]); `Default` is the
    /// paper's settings (§5.1), mu = 0.5.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct ObbrParams {
        /// mu, the share of the detected buffer the window may fill.
        pub mu: f64 ["mu", 0.0..=2.0] = 0.5
            => "share of the detected bottleneck buffer the window may fill: g = 1 + mu (RTT_latest - RTprop)/RTprop on a loss (paper: 0.5, 0.75, 1)",
        /// alpha, g's regrowth per BDP acknowledged.
        pub alpha: f64 ["alpha", 0.0..=1.0] = 0.01 => "regrowth of the cwnd gain per BDP acknowledged",
        /// g_max, the deep-buffer gain.
        pub g_max: f64 ["g_max", 1.0..=4.0] = PAPER_G_MAX
            => "the deep-buffer cwnd gain and g's cap (paper 2; with code=true 2.05 unless given)",
        /// k, the run length that signals a drop.
        pub k: u64 ["k", 1..=10_000] = 30
            => "consecutive low-bandwidth (< 0.75 BtlBw) or high-RTT (> (g_max+0.5) RTprop) samples that signal a bandwidth drop; the new estimate is the mean of the k latest samples",
        /// T, the delivery-score interval.
        pub interval: Duration ["t_ms", 1..=60_000] = Duration::from_millis(200)
            => "delivery-score interval T in ms: an update is reverted if the 2T after it score below the 2T before",
        /// A bandwidth sample below this multiple of BtlBw counts as low.
        pub low_ratio: f64 ["low_ratio", 0.05..=2.0] = drop_detector::LOW_BANDWIDTH_RATIO
            => "a bandwidth sample below low_ratio x BtlBw counts as low (paper and final code 0.75; the May 2023 code compared with BtlBw / 0.75: low_ratio=1.3333, so any loss after k ProbeBW samples triggers)",
        /// The new estimate is the max of the k latest samples, not their mean.
        pub estimate_max: bool ["estimate_max"] = false
            => "on a drop, BtlBw becomes the max of the k latest samples instead of their mean (paper and final code: mean; the May 2023 code: max)",
        /// Reproduce the authors' code instead of the paper.
        pub code: bool ["code"] = false
            => "reproduce the authors' nginx-quic code (g_max 2.05, 3 s no-loss override, loss-gated trigger, delayed update, revert spacing) instead of the paper",
        /// The adaptive gain of the authors' May 2023 revisions (see
        /// [`AdaptiveGainConfig::may_gain`]).
        pub may_gain: bool ["may_gain"] = false
            => "the adaptive gain of the authors' May 2023 revisions (the figure scripts' code): adapted in ProbeBW only, g = 2 on entering it, rescale on every loss whose RTT exceeds min_rtt, regrowth on every other ACK, a probe stores max(g, 2) into g when the last loss is over 5 s old and max(g, 1.25) otherwise, no hard cap, g_max 2 unless given",
        /// Use the adaptive gain (otherwise ProbeBW's gain is `g_max`).
        pub adaptive_g: bool ["adaptive_g"] = true
            => "adapt the cwnd gain to the bottleneck buffer (off: ProbeBW cwnd gain g_max)",
        /// Use the bandwidth-drop detector.
        pub timely_bw: bool ["timely_bw"] = true
            => "detect bandwidth drops and update the estimate at once (with revert)",
    }
    then code_g_max
}

/// `g_max` left out of a `code=true` spec is the code's 2.05 (and the
/// paper's 2 with `may_gain=true`).
fn code_g_max(params: ObbrParams, spec: &AlgorithmSpec) -> ObbrParams {
    let g_max = if spec.is_given("g_max") {
        params.g_max
    } else if params.may_gain {
        PAPER_G_MAX
    } else if params.code {
        CODE_G_MAX
    } else {
        params.g_max
    };
    ObbrParams { g_max, ..params }
}

impl ObbrParams {
    /// The authors' code's settings (`code = true`, g_max 2.05).
    pub fn code() -> Self {
        ObbrParams {
            g_max: CODE_G_MAX,
            code: true,
            ..ObbrParams::default()
        }
    }

    /// The adaptive-gain policy's configuration.
    pub fn gain_config(&self) -> AdaptiveGainConfig {
        AdaptiveGainConfig {
            mu: self.mu,
            alpha: self.alpha,
            g_max: self.g_max,
            code: self.code,
            may_gain: self.may_gain,
        }
    }

    /// The drop detector's configuration.
    pub fn detector_config(&self) -> DropDetectorConfig {
        DropDetectorConfig {
            k: self.k,
            interval: self.interval,
            high_rtt_ratio: if self.code {
                drop_detector::CODE_HIGH_RTT_RATIO
            } else {
                self.g_max + 0.5
            },
            low_ratio: self.low_ratio,
            estimate_max: self.estimate_max,
            code: self.code,
        }
    }
}

/// Registry entry for `obbr`: its own parameters, then the BBRv1 core's
/// `lt_bw`, `extra_acked` and `pacing_margin`, inherited by name (oBBR sets
/// the core's `cwnd_gain` itself).
pub fn info(parent: &AlgorithmInfo) -> AlgorithmInfo {
    AlgorithmInfo::new(
        "obbr",
        "oBBR (Bi et al., ATC 2023): BBRv1 with a cwnd gain adapted to the buffer a loss reveals, and timely, revertible bandwidth-drop updates",
        build_obbr,
    )
    .display_name("oBBR")
    .param_table(ObbrParams::params())
    .inherit(parent)
    .without(&["cwnd_gain"])
    .variant("code=true", "the authors' nginx-quic code")
}

fn build_obbr(spec: &AlgorithmSpec, config: &ControllerConfig) -> Box<dyn CongestionControl> {
    Box::new(new(
        spec.as_str(),
        ObbrParams::from_spec(spec),
        BbrParams::from_spec(spec),
        config,
    ))
}

/// An oBBR controller: the BBRv1 core (`core`, whose `cwnd_gain` oBBR
/// replaces) with oBBR's extension points.
pub fn new(spec: &str, params: ObbrParams, core: BbrParams, config: &ControllerConfig) -> Bbr {
    let mut ext = Extensions::default();
    if params.adaptive_g {
        ext.cwnd_gain = Box::new(AdaptiveCwndGain::new(params.gain_config()));
    }
    if params.timely_bw {
        ext.drop_detector = Some(Box::new(TimelyBandwidthUpdate::new(
            params.detector_config(),
        )));
    }
    let core = BbrParams {
        // The ProbeBW gain when the adaptive gain is off (paper: g_max; the
        // code's ProbeBW entry gain is BBR's 2).
        cwnd_gain: if params.code { CWND_GAIN } else { params.g_max },
        ..core
    };
    Bbr::with_extensions(spec, core, config, ext)
}
