//! oBBR's timely bandwidth updates (paper §4.2): [`TimelyBandwidthUpdate`].
//!
//! BBR's max filter keeps a bandwidth that has gone for ten rounds, and the
//! queue the stale estimate builds stretches those rounds further (§3.2).
//! Single low samples prove nothing (ACKs are delayed, 59% of samples on a
//! steady lab link are below 0.95 x BtlBw), but runs of them do: on a
//! steady link at most 22 consecutive samples fall below 0.75 x BtlBw and
//! at most 15 consecutive RTTs exceed 2.5 x RTprop (Fig. 5). So:
//!
//! - **trigger**: `k` consecutive bandwidth samples below `0.75 x BtlBw`,
//!   or `k` consecutive RTT samples above `(g_max + 0.5) x RTprop`;
//! - **update**: BtlBw := the mean of the `k` most recent bandwidth samples;
//! - **revert**: a delivery score `U = delivered - 10 x unacked` is kept per
//!   interval `T`; if the `2T` after the update score below the `2T`
//!   before it, the old estimate returns.
//!
//! "unacked" is measured as the code does: bytes sent (as of the newest
//! acknowledged packet's send time) minus bytes delivered over the
//! interval, i.e. the data that left in the interval and did not arrive.
//! From a rate sample that is `P.delivered + P.lost + P.tx_in_flight` for
//! the newest acknowledged packet P, so no per-packet state is needed.

use std::collections::VecDeque;
use std::time::Duration;

use crate::bbr::extension::{AckContext, BandwidthDropDetector};
use crate::bbr::Mode;
use crate::controller::AckEvent;
use crate::units::{Bandwidth, Bytes, Instant};

use super::cwnd_gain::CODE_STARTUP_LOSS_RATIO;

/// A bandwidth sample below this fraction of BtlBw counts as low (§4.2).
pub const LOW_BANDWIDTH_RATIO: f64 = 0.75;
/// Weight of unacknowledged data in the delivery score (§4.2).
pub const UNACKED_WEIGHT: i128 = 10;
/// `code=true`: the high-RTT threshold is this multiple of min_rtt,
/// whatever g_max is (nginx: `sampler->rtt > 2.5 * bbr->min_rtt`).
pub const CODE_HIGH_RTT_RATIO: f64 = 2.5;
/// `code=true`: a revert may follow the previous one only after this many
/// min_rtts (`ngx_current_msec - re_timer > 10 * bbr->min_rtt`).
pub const CODE_REVERT_SPACING_RTTS: u32 = 10;

/// The tunables of [`TimelyBandwidthUpdate`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DropDetectorConfig {
    /// k: the run length that signals a drop, and the number of samples
    /// averaged into the new estimate (paper: 30).
    pub k: u64,
    /// T: the delivery-score interval (paper: 200 ms).
    pub interval: Duration,
    /// RTT samples above this multiple of RTprop count as high
    /// (paper: g_max + 0.5).
    pub high_rtt_ratio: f64,
    /// Bandwidth samples below this multiple of BtlBw count as low
    /// (paper: [`LOW_BANDWIDTH_RATIO`]).
    pub low_ratio: f64,
    /// The new estimate is the max of the retained samples instead of
    /// their mean (the authors' code, at the revisions read).
    pub estimate_max: bool,
    /// Reproduce the authors' nginx code instead of the paper (see the
    /// module essay of [`crate::obbr`]).
    pub code: bool,
}

/// Where the detector is in its update cycle.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Stage {
    /// Watching for a run of low or high samples.
    Watching,
    /// Code mode: triggered; scoring the two intervals before the update
    /// is applied (nginx's `cc` 0 and 1).
    Before { windows: u8 },
    /// The update is in force; scoring the two intervals after it.
    After {
        /// The score of the 2T before the update, if there was one.
        before: Option<i128>,
        /// The estimate the update replaced.
        old: Bandwidth,
        /// Intervals completed since the update.
        windows: u8,
    },
}

/// The running delivery-score interval.
#[derive(Clone, Copy, Debug)]
struct ScoreWindow {
    start: Instant,
    sent: Bytes,
    delivered: Bytes,
}

/// oBBR's bandwidth-drop detector for the BBR core.
///
/// Paper mode (`code = false`): samples and runs are counted in ProbeBW
/// only (a run is broken by any other mode; bandwidth samples of packets
/// sent in ProbeBW's first min_rtt do not count); the run of `k` low
/// bandwidth samples or `k` high RTTs triggers at once, the mean of the `k`
/// latest samples replaces BtlBw right away if it is lower, and the two
/// score intervals completed before the trigger are compared with the two
/// after; a revert restarts the runs.
///
/// Code mode (`code = true`) follows `ngx_bbr_update_cc_mode`: the trigger
/// needs a loss on the current ACK and `k` low samples or more than `k`
/// high RTTs (RTT counted in every mode, threshold 2.5 x min_rtt); the
/// update is applied after two further intervals `T` (whose scores are the
/// "before"), then two intervals are scored "after"; a revert needs the
/// previous one to be more than 10 min_rtt old. Its process-wide state and
/// 32-bit sample sum are not reproduced (they are bugs): state is per
/// connection and sums are 128-bit.
#[derive(Clone, Debug)]
pub struct TimelyBandwidthUpdate {
    config: DropDetectorConfig,
    /// The latest `k` bandwidth samples that count (see `probe_bw_since`).
    samples: VecDeque<Bandwidth>,
    low_bw_run: u64,
    high_rtt_run: u64,
    window: Option<ScoreWindow>,
    /// Scores of the last two completed intervals, newest last.
    scores: [Option<i128>; 2],
    stage: Stage,
    /// When the core last entered ProbeBW. A sample counts the data
    /// acknowledged between its packet's send and its ACK, data sent about
    /// a round trip earlier; so only packets sent a min_rtt or more after
    /// this measure ProbeBW's own sending, not Drain's 0.35 x BtlBw or
    /// ProbeRTT's four packets.
    probe_bw_since: Option<Instant>,
    last_revert: Option<Instant>,
    updates: u64,
    reverts: u64,
}

/// Bytes sent through the newest acknowledged packet P and bytes delivered,
/// from the ACK's rate sample: what was sent before P was delivered, lost or
/// still in flight when P left.
fn progress(event: &AckEvent) -> Option<(Bytes, Bytes)> {
    let rate = &event.rate;
    let prior_delivered = rate.prior_delivered?;
    let lost_before_p = rate.total_lost - rate.lost;
    let sent = prior_delivered + lost_before_p + rate.tx_in_flight;
    Some((sent, rate.total_delivered))
}

impl TimelyBandwidthUpdate {
    /// A detector in its watching stage.
    pub fn new(config: DropDetectorConfig) -> Self {
        let k = usize::try_from(config.k.max(1)).unwrap_or(usize::MAX);
        TimelyBandwidthUpdate {
            config,
            samples: VecDeque::with_capacity(k.min(4096)),
            low_bw_run: 0,
            high_rtt_run: 0,
            window: None,
            scores: [None; 2],
            stage: Stage::Watching,
            probe_bw_since: None,
            last_revert: None,
            updates: 0,
            reverts: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &DropDetectorConfig {
        &self.config
    }

    /// Consecutive low bandwidth samples so far.
    pub fn low_bandwidth_run(&self) -> u64 {
        self.low_bw_run
    }

    /// Consecutive high RTT samples so far.
    pub fn high_rtt_run(&self) -> u64 {
        self.high_rtt_run
    }

    /// Bandwidth updates applied.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Updates reverted.
    pub fn reverts(&self) -> u64 {
        self.reverts
    }

    /// Whether an update is being evaluated (or, in code mode, prepared).
    pub fn is_evaluating(&self) -> bool {
        self.stage != Stage::Watching
    }

    /// The mean of the retained samples (up to `k`), if any.
    pub fn mean_of_latest(&self) -> Option<Bandwidth> {
        if self.samples.is_empty() {
            return None;
        }
        let sum: u128 = self
            .samples
            .iter()
            .map(|b| u128::from(b.bits_per_sec()))
            .sum();
        let mean = sum / self.samples.len() as u128;
        Some(Bandwidth::from_bits_per_sec(
            u64::try_from(mean).unwrap_or(u64::MAX),
        ))
    }

    /// The max of the retained samples (up to `k`), if any.
    pub fn max_of_latest(&self) -> Option<Bandwidth> {
        self.samples.iter().copied().max()
    }

    /// The estimate an update proposes: the mean of the latest samples, or
    /// their max with `estimate_max`.
    fn proposed_estimate(&self) -> Option<Bandwidth> {
        if self.config.estimate_max {
            self.max_of_latest()
        } else {
            self.mean_of_latest()
        }
    }

    fn k_usize(&self) -> usize {
        usize::try_from(self.config.k.max(1)).unwrap_or(usize::MAX)
    }

    /// Records a bandwidth sample that counts and extends or breaks the run
    /// of low ones.
    fn record_bandwidth(&mut self, sample: Bandwidth, estimate: Bandwidth) {
        if self.samples.len() >= self.k_usize() {
            self.samples.pop_front();
        }
        self.samples.push_back(sample);
        if sample < estimate.mul_f64(self.config.low_ratio) {
            self.low_bw_run = self.low_bw_run.saturating_add(1);
        } else {
            self.low_bw_run = 0;
        }
    }

    /// Extends or breaks the run of high RTTs.
    fn record_rtt(&mut self, ctx: &AckContext) {
        let (Some(rtt), Some(rtprop)) = (ctx.event.rtt.latest, ctx.min_rtt) else {
            return;
        };
        if rtt.as_secs_f64() > self.config.high_rtt_ratio * rtprop.as_secs_f64() {
            self.high_rtt_run = self.high_rtt_run.saturating_add(1);
        } else {
            self.high_rtt_run = 0;
        }
    }

    fn reset_runs(&mut self) {
        self.low_bw_run = 0;
        self.high_rtt_run = 0;
    }

    /// Advances the score interval; returns the score of an interval that
    /// this ACK completed.
    fn score_interval(&mut self, event: &AckEvent) -> Option<i128> {
        let (sent, delivered) = progress(event)?;
        let Some(w) = self.window else {
            self.restart_window(event.now, sent, delivered);
            return None;
        };
        if event.now - w.start <= self.config.interval {
            return None;
        }
        let delivered_in = i128::from(delivered.get()) - i128::from(w.delivered.get());
        let sent_in = i128::from(sent.get()) - i128::from(w.sent.get());
        let unacked = sent_in - delivered_in;
        let score = delivered_in - UNACKED_WEIGHT * unacked;
        self.restart_window(event.now, sent, delivered);
        self.scores = [self.scores[1], Some(score)];
        Some(score)
    }

    fn restart_window(&mut self, now: Instant, sent: Bytes, delivered: Bytes) {
        self.window = Some(ScoreWindow {
            start: now,
            sent,
            delivered,
        });
    }

    /// Starts a fresh interval at this ACK (the partial one is dropped).
    fn restart_window_at(&mut self, event: &AckEvent) {
        match progress(event) {
            Some((sent, delivered)) => self.restart_window(event.now, sent, delivered),
            None => self.window = None,
        }
    }

    /// The summed score of the last two intervals, if both exist.
    fn last_two(&self) -> Option<i128> {
        match self.scores {
            [Some(a), Some(b)] => Some(a + b),
            _ => None,
        }
    }

    /// Whether a sample describes ProbeBW's own sending: not app-limited,
    /// of a packet sent at least a min_rtt into ProbeBW.
    fn is_probe_bw_sample(&self, ctx: &AckContext) -> bool {
        let settled = match (ctx.event.rate.newest_sent_time, self.probe_bw_since) {
            (Some(sent), Some(since)) => sent >= since + ctx.min_rtt.unwrap_or_default(),
            _ => false,
        };
        settled && !ctx.event.rate.is_app_limited
    }

    fn on_ack_paper(&mut self, ctx: &AckContext, sample: Option<Bandwidth>) -> Option<Bandwidth> {
        let event = ctx.event;
        if ctx.mode == Mode::ProbeBw {
            if let Some(bw) = sample.filter(|_| self.is_probe_bw_sample(ctx)) {
                self.record_bandwidth(bw, ctx.bandwidth);
            }
            self.record_rtt(ctx);
        } else {
            self.reset_runs();
        }
        let completed = self.score_interval(event);
        match self.stage {
            Stage::Watching => {
                let k = self.config.k;
                let triggered =
                    ctx.mode == Mode::ProbeBw && (self.low_bw_run >= k || self.high_rtt_run >= k);
                if !triggered {
                    return None;
                }
                self.reset_runs();
                let mean = self.proposed_estimate()?;
                let old = ctx.bandwidth;
                if mean >= old {
                    // The latest samples do not say the bandwidth fell.
                    return None;
                }
                self.stage = Stage::After {
                    before: self.last_two(),
                    old,
                    windows: 0,
                };
                self.restart_window_at(event);
                self.updates += 1;
                Some(mean)
            }
            Stage::After {
                before,
                old,
                windows,
            } => {
                completed?;
                let windows = windows + 1;
                if windows < 2 {
                    self.stage = Stage::After {
                        before,
                        old,
                        windows,
                    };
                    return None;
                }
                self.stage = Stage::Watching;
                match (before, self.last_two()) {
                    (Some(before), Some(after)) if after < before => {
                        self.reverts += 1;
                        // Samples taken under the reverted estimate measured
                        // its lower sending rate, not the path: count anew.
                        self.reset_runs();
                        Some(old.max(ctx.bandwidth))
                    }
                    _ => None,
                }
            }
            // Paper mode never prepares an update.
            Stage::Before { .. } => {
                self.stage = Stage::Watching;
                None
            }
        }
    }

    fn on_ack_code(&mut self, ctx: &AckContext, sample: Option<Bandwidth>) -> Option<Bandwidth> {
        let event = ctx.event;
        let mut verdict = None;
        // ngx_bbr_update_cc_mode runs first, and not at all in Startup
        // until 10% of the data was lost.
        let lost = event.rate.total_lost.as_f64();
        let gate_closed = ctx.mode == Mode::Startup
            && !(lost > 0.0
                && lost >= CODE_STARTUP_LOSS_RATIO * event.rate.total_delivered.as_f64());
        if !gate_closed {
            self.record_rtt(ctx);
            let k = self.config.k;
            if event.newly_lost > Bytes::ZERO
                && self.stage == Stage::Watching
                && (self.low_bw_run >= k || self.high_rtt_run > k)
            {
                self.stage = Stage::Before { windows: 0 };
                self.restart_window_at(event);
            } else if self.score_interval(event).is_some() {
                verdict = self.advance_code_stage(ctx);
            }
        }
        // ngx_bbr_update_bandwidth runs after: ProbeBW samples only.
        if ctx.mode == Mode::ProbeBw {
            if let Some(bw) = sample.filter(|_| self.is_probe_bw_sample(ctx)) {
                self.record_bandwidth(bw, ctx.bandwidth);
            }
        }
        verdict
    }

    /// Code mode: an interval completed; `self.scores` holds its score last.
    fn advance_code_stage(&mut self, ctx: &AckContext) -> Option<Bandwidth> {
        match self.stage {
            Stage::Watching => None,
            Stage::Before { windows: 0 } => {
                self.stage = Stage::Before { windows: 1 };
                None
            }
            Stage::Before { .. } => {
                let before = self.last_two();
                let old = ctx.bandwidth;
                self.stage = Stage::After {
                    before,
                    old,
                    windows: 0,
                };
                self.reset_runs();
                let mean = self.proposed_estimate()?;
                self.updates += 1;
                Some(mean)
            }
            Stage::After {
                before,
                old,
                windows: 0,
            } => {
                self.stage = Stage::After {
                    before,
                    old,
                    windows: 1,
                };
                None
            }
            Stage::After { before, old, .. } => {
                self.stage = Stage::Watching;
                let spaced = match (self.last_revert, ctx.min_rtt) {
                    (Some(t), Some(rtt)) => {
                        ctx.event.now - t > rtt.saturating_mul(CODE_REVERT_SPACING_RTTS)
                    }
                    (Some(_), None) => false,
                    (None, _) => true,
                };
                match (before, self.last_two()) {
                    (Some(before), Some(after)) if after < before && spaced => {
                        self.last_revert = Some(ctx.event.now);
                        self.reverts += 1;
                        Some(old.max(ctx.bandwidth))
                    }
                    _ => None,
                }
            }
        }
    }
}

impl BandwidthDropDetector for TimelyBandwidthUpdate {
    fn on_ack(&mut self, ctx: &AckContext, sample: Option<Bandwidth>) -> Option<Bandwidth> {
        if ctx.mode != Mode::ProbeBw {
            self.probe_bw_since = None;
        } else if self.probe_bw_since.is_none() {
            self.probe_bw_since = Some(ctx.event.now);
        }
        if self.config.code {
            self.on_ack_code(ctx, sample)
        } else {
            self.on_ack_paper(ctx, sample)
        }
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("obbr_low_bw_run", self.low_bw_run as f64));
        out.push(("obbr_high_rtt_run", self.high_rtt_run as f64));
        out.push(("obbr_bw_updates", self.updates as f64));
        out.push(("obbr_bw_reverts", self.reverts as f64));
        out.push((
            "obbr_evaluating",
            if self.is_evaluating() { 1.0 } else { 0.0 },
        ));
    }
}
