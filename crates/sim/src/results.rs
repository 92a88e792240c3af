//! What a run produces: summary metrics and time series.
//!
//! Definitions (as DESIGN.md fixes them):
//! - goodput: application bytes delivered in order to the receiver over the
//!   flow's measurement window (from max(warmup, start) to its completion
//!   or the end of the run);
//! - retransmission ratio: retransmitted stream bytes / delivered stream bytes;
//! - loss ratio: bytes dropped at the bottleneck (buffer or random loss) /
//!   bytes sent;
//! - Jain's index: (sum x)^2 / (n sum x^2) over per-flow goodputs;
//! - link utilization: bytes the bottleneck forwarded / bytes it could have
//!   forwarded, over the measurement window (see [`LinkSummary::bytes_offered`]).
//!
//! Windows are half-open, (open, close], and a byte belongs to the instant
//! it leaves the bottleneck. Bytes that crossed it before a flow's window
//! opened are not credited to that window even when the application reads
//! them later (they were still propagating, or waiting behind a hole), and
//! bytes that crossed it inside the window and are still propagating at the
//! close are credited when they extend the in-order stream. In steady state
//! the two ends balance, as with a plain receiver-side count; unlike it, a
//! window is never credited with more than the link carried in it, so the
//! physics invariants ([`RunResult::invariant_violations`]) hold exactly.

use serde::{Deserialize, Serialize};

use crate::app::dash::log::DecisionRow;

pub use link::Percentiles;

/// Where a flow's losses come from: parts of its `bytes_lost` (wire bytes
/// the sender declared lost in the window).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LostSplit {
    /// BBR-Copilot padding (never resent, so never in `bytes_retransmitted`).
    pub padding_bytes: u64,
    /// Stream-data packets (not padding) sent in Startup.
    pub sent_in_startup_bytes: u64,
    /// Stream-data packets (not padding) sent outside Startup while the
    /// pacing gain was above 1 (ProbeBW's probing phase). The rest of
    /// `bytes_lost` are stream-data packets sent at a gain of 1 or less.
    pub sent_probing_bytes: u64,
}

/// Per-flow summary over the measurement window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowSummary {
    /// Flow index (0-based, in scenario order with `count` expanded).
    pub id: usize,
    /// The controller's spec string.
    pub cc: String,
    /// Start time, seconds.
    pub start_s: f64,
    /// Base RTT, milliseconds.
    pub base_rtt_ms: f64,
    /// Goodput, bits per second.
    pub goodput_bps: f64,
    /// Retransmitted / delivered stream bytes.
    pub retransmission_ratio: f64,
    /// Dropped / sent bytes.
    pub loss_ratio: f64,
    /// Wire bytes sent.
    pub bytes_sent: u64,
    /// Stream bytes delivered in order.
    pub bytes_delivered: u64,
    /// Stream bytes sent again.
    pub bytes_retransmitted: u64,
    /// Wire bytes the sender declared lost.
    pub bytes_lost: u64,
    /// Wire bytes dropped at the bottleneck (buffer overflow and random loss).
    pub bytes_dropped: u64,
    /// Of `bytes_dropped`, those dropped by the random-loss process.
    pub bytes_dropped_random: u64,
    /// RTT samples, milliseconds.
    pub rtt_ms: Percentiles,
    /// Time-averaged congestion window, bytes (from the time series).
    pub mean_cwnd_bytes: f64,
    /// Recovery periods entered.
    pub congestion_events: u64,
    /// PTOs fired.
    pub ptos: u64,
    /// Transfer completion time from the flow's start, seconds (sized flows).
    pub completion_time_s: Option<f64>,
    /// When the controller left Startup for good (declared the pipe full and
    /// moved on to Drain), seconds after the flow's start; a ProbeRTT taken
    /// from Startup, which returns to Startup, does not count. `None` if it
    /// never did (or has no Startup, like CUBIC).
    pub startup_exit_s: Option<f64>,
    /// The highest pacing rate the controller set while in Startup, over the
    /// whole run (Startup comes before any warmup ends), bits per second;
    /// `None` without a Startup or a pacing rate. BBR-Copilot's Fig. 6: a
    /// stream kept in Startup paces at 2.89 x an estimate that may exceed
    /// anything the path ever carries.
    pub startup_peak_pacing_bps: Option<f64>,
    /// Wire bytes of BBR-Copilot padding sent in the window (part of
    /// `bytes_sent`, never of goodput).
    pub padding_bytes: u64,
    /// `padding_bytes` / `bytes_sent`: Copilot's overhead.
    pub padding_ratio: f64,
    /// Which of `bytes_lost` were padding and in which phase the lost
    /// packets were sent; `None` where the stack does not tell them apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost_split: Option<LostSplit>,
    /// Root mean square error of the delivery-rate samples against the
    /// bottleneck's true capacity at each sample's time, bits per second,
    /// over the window (`None` without samples). For a mahimahi link the
    /// "true" capacity is its 100 ms average (`Capacity::rate_at`).
    pub bw_sample_rmse_bps: Option<f64>,
    /// The same over the samples that were not app-limited only (those
    /// BBR always lets into its max filter); `None` without one.
    pub bw_sample_unlimited_rmse_bps: Option<f64>,
    /// The same for the controller's bandwidth estimate (its max-filtered
    /// samples), read after every ACK that brought a sample; `None` for
    /// controllers without one. A live stream's raw samples mostly measure
    /// the stream, not the path, so this is what says whether the
    /// controller knows the path's rate (BBR-Copilot's Figs. 8-9).
    pub bw_estimate_rmse_bps: Option<f64>,
    /// A live stream's frame delays, for `app = "live"` flows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live: Option<crate::app::live::LiveSummary>,
    /// A DASH session's quality of experience, for `app = "dash"` flows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dash: Option<crate::app::dash::DashSummary>,
}

/// Bottleneck summary over the measurement window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkSummary {
    /// Mean capacity, bits per second.
    pub capacity_bps: f64,
    /// `bytes_forwarded` / `bytes_offered`, at most 1.
    pub utilization: f64,
    /// Bytes the link could have forwarded in the window: its capacity over
    /// the window plus what was already committed when it opened (the
    /// packet being served and the token bucket's tokens).
    pub bytes_offered: u64,
    /// Wire bytes forwarded.
    pub bytes_forwarded: u64,
    /// Wire bytes dropped.
    pub bytes_dropped: u64,
    /// Queueing delay (enqueue to departure), milliseconds.
    pub queue_delay_ms: Percentiles,
    /// The highest capacity (its 100 ms average, `Capacity::rate_at`) at
    /// any sampling instant of the whole run, bits per second.
    pub capacity_peak_bps: f64,
}

/// A flow's state at one sampling instant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowSample {
    /// Time, seconds.
    pub t_s: f64,
    /// Flow index.
    pub flow: usize,
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Bytes in flight.
    pub inflight: u64,
    /// Pacing rate, bits per second (0 when unpaced).
    pub pacing_rate_bps: f64,
    /// Latest delivery-rate sample, bits per second (0 when none).
    pub delivery_rate_bps: f64,
    /// The controller's bandwidth estimate, bits per second (0 when none).
    pub bw_estimate_bps: f64,
    /// The controller's min-RTT estimate, milliseconds (0 when none).
    pub min_rtt_ms: f64,
    /// Smoothed RTT, milliseconds.
    pub srtt_ms: f64,
    /// Latest RTT sample, milliseconds.
    pub latest_rtt_ms: f64,
    /// Controller mode.
    #[serde(deserialize_with = "intern_mode")]
    pub mode: ModeName,
    /// Pacing gain.
    pub pacing_gain: f64,
    /// cwnd gain.
    pub cwnd_gain: f64,
    /// Stream bytes delivered in order so far.
    pub delivered: u64,
    /// Stream bytes retransmitted so far.
    pub retransmitted: u64,
    /// Wire bytes declared lost so far.
    pub lost: u64,
    /// Wire bytes of BBR-Copilot padding sent so far.
    pub padding: u64,
    /// The controller's own state variables (`Snapshot::extra`: e.g.
    /// `inflight_hi`, `obbr_g`), whose set differs between controllers; the
    /// CLI writes them in long form to `series_controller.csv`.
    #[serde(skip)]
    pub controller: Vec<(&'static str, f64)>,
}

/// A controller's mode name (an alias, so that reading a series back does
/// not borrow from its input).
pub type ModeName = &'static str;

/// A mode name read back from a series file, as the `&'static str` the
/// controllers' snapshots give: each distinct name is kept once for the
/// life of the process (a closed set: the controllers' modes).
fn intern_mode<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    use std::collections::BTreeSet;
    use std::sync::Mutex;
    static MODES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let name = String::deserialize(d)?;
    let mut modes = MODES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = modes.get(name.as_str()) {
        return Ok(known);
    }
    let leaked: &'static str = Box::leak(name.into_boxed_str());
    modes.insert(leaked);
    Ok(leaked)
}

/// The bottleneck at one sampling instant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkSample {
    /// Time, seconds.
    pub t_s: f64,
    /// Bytes queued.
    pub queue_bytes: u64,
    /// Instantaneous capacity, bits per second.
    pub capacity_bps: f64,
    /// Wire bytes forwarded so far.
    pub forwarded: u64,
}

/// A numeric column of the flows' series (`series_flows`), by the name the
/// series file gives it: what an experiment file's `column = "..."` names,
/// parsed once when the file is read. The names are [`FlowSample`]'s field
/// names (serde's `snake_case` of the variants), and a test serialises a
/// sample and checks every column's name and value against it, so a field
/// cannot be renamed on one side only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowColumn {
    /// [`FlowSample::cwnd`].
    Cwnd,
    /// [`FlowSample::inflight`].
    Inflight,
    /// [`FlowSample::pacing_rate_bps`].
    PacingRateBps,
    /// [`FlowSample::delivery_rate_bps`].
    DeliveryRateBps,
    /// [`FlowSample::bw_estimate_bps`].
    BwEstimateBps,
    /// [`FlowSample::min_rtt_ms`].
    MinRttMs,
    /// [`FlowSample::srtt_ms`].
    SrttMs,
    /// [`FlowSample::latest_rtt_ms`].
    LatestRttMs,
    /// [`FlowSample::pacing_gain`].
    PacingGain,
    /// [`FlowSample::cwnd_gain`].
    CwndGain,
    /// [`FlowSample::delivered`].
    Delivered,
    /// [`FlowSample::retransmitted`].
    Retransmitted,
    /// [`FlowSample::lost`].
    Lost,
    /// [`FlowSample::padding`].
    Padding,
}

impl FlowColumn {
    /// Every column, in the series file's order.
    pub const ALL: [FlowColumn; 14] = [
        FlowColumn::Cwnd,
        FlowColumn::Inflight,
        FlowColumn::PacingRateBps,
        FlowColumn::DeliveryRateBps,
        FlowColumn::BwEstimateBps,
        FlowColumn::MinRttMs,
        FlowColumn::SrttMs,
        FlowColumn::LatestRttMs,
        FlowColumn::PacingGain,
        FlowColumn::CwndGain,
        FlowColumn::Delivered,
        FlowColumn::Retransmitted,
        FlowColumn::Lost,
        FlowColumn::Padding,
    ];

    /// The column's value in `sample` (counters and byte counts as `f64`).
    pub fn of(self, sample: &FlowSample) -> f64 {
        match self {
            FlowColumn::Cwnd => sample.cwnd as f64,
            FlowColumn::Inflight => sample.inflight as f64,
            FlowColumn::PacingRateBps => sample.pacing_rate_bps,
            FlowColumn::DeliveryRateBps => sample.delivery_rate_bps,
            FlowColumn::BwEstimateBps => sample.bw_estimate_bps,
            FlowColumn::MinRttMs => sample.min_rtt_ms,
            FlowColumn::SrttMs => sample.srtt_ms,
            FlowColumn::LatestRttMs => sample.latest_rtt_ms,
            FlowColumn::PacingGain => sample.pacing_gain,
            FlowColumn::CwndGain => sample.cwnd_gain,
            FlowColumn::Delivered => sample.delivered as f64,
            FlowColumn::Retransmitted => sample.retransmitted as f64,
            FlowColumn::Lost => sample.lost as f64,
            FlowColumn::Padding => sample.padding as f64,
        }
    }

    /// `(t_s, value)` of the column for flow `flow`, in time order.
    pub fn points(self, samples: &[FlowSample], flow: usize) -> Vec<(f64, f64)> {
        samples
            .iter()
            .filter(|s| s.flow == flow)
            .map(|s| (s.t_s, self.of(s)))
            .collect()
    }
}

/// A numeric column of the bottleneck's series (`series_link`), by the
/// name the series file gives it (see [`FlowColumn`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkColumn {
    /// [`LinkSample::queue_bytes`].
    QueueBytes,
    /// [`LinkSample::capacity_bps`].
    CapacityBps,
    /// [`LinkSample::forwarded`].
    Forwarded,
}

impl LinkColumn {
    /// Every column, in the series file's order.
    pub const ALL: [LinkColumn; 3] = [
        LinkColumn::QueueBytes,
        LinkColumn::CapacityBps,
        LinkColumn::Forwarded,
    ];

    /// The column's value in `sample`.
    pub fn of(self, sample: &LinkSample) -> f64 {
        match self {
            LinkColumn::QueueBytes => sample.queue_bytes as f64,
            LinkColumn::CapacityBps => sample.capacity_bps,
            LinkColumn::Forwarded => sample.forwarded as f64,
        }
    }

    /// `(t_s, value)` of the column, in time order.
    pub fn points(self, samples: &[LinkSample]) -> Vec<(f64, f64)> {
        samples.iter().map(|s| (s.t_s, self.of(s))).collect()
    }
}

/// Time series of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Flow samples, in time then flow order.
    pub flows: Vec<FlowSample>,
    /// Link samples.
    pub link: Vec<LinkSample>,
    /// The DASH players' decision logs, one row per segment request, in
    /// flow then request order (`series_dash`; see
    /// [`crate::app::dash::log`]).
    #[serde(default)]
    pub dash: Vec<DecisionRow>,
}

/// Everything a run produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// Scenario name.
    pub scenario: String,
    /// Seed.
    pub seed: u64,
    /// Simulated time at the end of the run, seconds.
    pub sim_time_s: f64,
    /// Wall-clock time the run took, seconds.
    pub wall_time_s: f64,
    /// Events processed: a measure of the simulator's work, not of the
    /// network (a delayed-ACK timer that a later arrival makes moot is never
    /// scheduled, so it is not counted).
    pub events: u64,
    /// Packets sent by all flows.
    pub packets_sent: u64,
    /// Bottleneck summary.
    pub link: LinkSummary,
    /// Jain's fairness index over flow goodputs.
    pub jain_index: f64,
    /// Per-flow summaries.
    pub flows: Vec<FlowSummary>,
    /// Time series (not part of the summary).
    #[serde(skip)]
    pub series: Series,
    /// Invariants of the whole run that the summary cannot show (e.g. a
    /// receiver holding more than its sender sent), found by the simulator;
    /// see [`RunResult::invariant_violations`].
    #[serde(skip)]
    pub run_violations: Vec<String>,
    /// qlog traces that could not be written (file and error), when the
    /// run was traced ([`crate::Simulation::with_qlog`]).
    #[serde(skip)]
    pub trace_errors: Vec<String>,
}

impl RunResult {
    /// Every way this result breaks physics; empty for a sound result. A
    /// non-empty list is a simulator bug, never a property of a scenario.
    ///
    /// Checked: every metric is finite and non-negative; utilization <= 1;
    /// the link forwarded no more than it offered ([`LinkSummary::bytes_offered`]);
    /// the flows' goodput bytes sum to no more than the link forwarded in the
    /// window (each flow's window lies within the link's, so this is "the sum
    /// of the goodputs is at most the capacity", exactly, in bytes); Jain's
    /// index lies in (0, 1]; and the simulator's own whole-run checks
    /// (delivered <= sent, forwarded <= sent).
    pub fn invariant_violations(&self) -> Vec<String> {
        let mut found = self.run_violations.clone();
        let mut metric = |name: String, v: f64| {
            if !v.is_finite() || v < 0.0 {
                found.push(format!(
                    "{name} is {v}: expected a finite, non-negative number"
                ));
            }
        };
        let l = &self.link;
        metric("link.capacity_bps".into(), l.capacity_bps);
        metric("link.utilization".into(), l.utilization);
        for (k, v) in l.queue_delay_ms.named() {
            metric(format!("link.queue_delay_ms.{k}"), v);
        }
        metric("jain_index".into(), self.jain_index);
        metric("sim_time_s".into(), self.sim_time_s);
        for f in &self.flows {
            let id = f.id;
            metric(format!("flows[{id}].goodput_bps"), f.goodput_bps);
            metric(
                format!("flows[{id}].retransmission_ratio"),
                f.retransmission_ratio,
            );
            metric(format!("flows[{id}].loss_ratio"), f.loss_ratio);
            metric(format!("flows[{id}].mean_cwnd_bytes"), f.mean_cwnd_bytes);
            metric(format!("flows[{id}].start_s"), f.start_s);
            metric(format!("flows[{id}].base_rtt_ms"), f.base_rtt_ms);
            for (k, v) in f.rtt_ms.named() {
                metric(format!("flows[{id}].rtt_ms.{k}"), v);
            }
            if let Some(c) = f.completion_time_s {
                metric(format!("flows[{id}].completion_time_s"), c);
            }
            if let Some(s) = f.startup_exit_s {
                metric(format!("flows[{id}].startup_exit_s"), s);
            }
            if let Some(p) = f.startup_peak_pacing_bps {
                metric(format!("flows[{id}].startup_peak_pacing_bps"), p);
            }
            if let Some(e) = f.bw_sample_rmse_bps {
                metric(format!("flows[{id}].bw_sample_rmse_bps"), e);
            }
            if let Some(e) = f.bw_estimate_rmse_bps {
                metric(format!("flows[{id}].bw_estimate_rmse_bps"), e);
            }
            metric(format!("flows[{id}].padding_ratio"), f.padding_ratio);
            if let Some(live) = &f.live {
                metric(
                    format!("flows[{id}].live.late_frame_ratio"),
                    live.late_frame_ratio,
                );
                for (k, v) in live.frame_delay_ms.named() {
                    metric(format!("flows[{id}].live.frame_delay_ms.{k}"), v);
                }
            }
        }
        if l.utilization > 1.0 {
            found.push(format!(
                "link.utilization is {}: expected at most 1",
                l.utilization
            ));
        }
        if l.bytes_forwarded > l.bytes_offered {
            found.push(format!(
                "the link forwarded {} bytes but offered only {}",
                l.bytes_forwarded, l.bytes_offered
            ));
        }
        let delivered: u64 = self.flows.iter().map(|f| f.bytes_delivered).sum();
        if delivered > l.bytes_forwarded {
            found.push(format!(
                "the flows delivered {delivered} bytes in their windows but the link \
                 forwarded only {} (the sum of the goodputs exceeds the capacity)",
                l.bytes_forwarded
            ));
        }
        if !(self.jain_index > 0.0 && self.jain_index <= 1.0 + 1e-12) {
            found.push(format!(
                "jain_index is {}: expected (0, 1]",
                self.jain_index
            ));
        }
        for f in &self.flows {
            for (what, part, whole) in [
                ("dropped at random", f.bytes_dropped_random, f.bytes_dropped),
                ("dropped", f.bytes_dropped, f.bytes_sent),
                ("of padding", f.padding_bytes, f.bytes_sent),
            ] {
                if part > whole {
                    found.push(format!(
                        "flows[{}]: {part} bytes {what} exceed the {whole} they are part of",
                        f.id
                    ));
                }
            }
        }
        found
    }
}

impl RunResult {
    /// Panics, listing them, if [`RunResult::invariant_violations`] finds
    /// any; for tests, which check physics after every run.
    #[track_caller]
    pub fn assert_physics(&self) -> &Self {
        let found = self.invariant_violations();
        assert!(
            found.is_empty(),
            "{} (seed {}) breaks physics:\n  {}",
            self.scenario,
            self.seed,
            found.join("\n  ")
        );
        self
    }
}

/// Jain's fairness index of `values`; 1 for an empty or all-zero set.
pub fn jain_index(values: &[f64]) -> f64 {
    let sum: f64 = values.iter().sum();
    let sum_sq: f64 = values.iter().map(|v| v * v).sum();
    if values.is_empty() || sum_sq == 0.0 {
        return 1.0;
    }
    sum * sum / (values.len() as f64 * sum_sq)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_bounds() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0]), 1.0);
        assert!((jain_index(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
        assert!((jain_index(&[3.0, 1.0]) - 0.8).abs() < 1e-12);
    }
}
