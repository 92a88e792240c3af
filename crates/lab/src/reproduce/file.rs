//! Experiments as files: one TOML file holds an experiment's sweep (a
//! scenario sweep file it names), the measures it takes from the runs, its
//! tables and figures, and its claims. docs/EXPERIMENTS.md documents every
//! key; this module parses a file, computes its measures from the runs and
//! judges its claims by the rules of [`super::claims`] (the same kinds,
//! bands and origins as the claims declared in Rust: a file can only pick
//! a kind and give the paper's number or the project's bar).
//!
//! Measures come from a closed set of typed primitives ([`Measure`]); an
//! analysis that needs more is a named Rust measure ([`named`]) the file
//! refers to by name. A file's SHA-256 is recorded in its report section
//! and in claims.json, so a tolerance cannot change unseen.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use report::{BarGroup, Cell, Figure, Line, LineStyle, ReferenceLine, Section, Table};
use serde::Deserialize;

use super::claims::{Claim, Declaration, Judged, Measured, Origin, Paper, Test};
use super::data::{seeds_note, Runs};
use super::verdict::{mean_sd_cell, paper_name};
use super::Analysis;
use crate::stats::{self, Crossing, Stat};
use crate::store::RunRecord;

mod shared;

/// The file as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    id: String,
    title: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    scenario: Option<String>,
    #[serde(default)]
    sweep: Option<String>,
    #[serde(default)]
    series: bool,
    #[serde(default)]
    all_reproduced: String,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default, rename = "measure")]
    measures: Vec<Measure>,
    #[serde(default, rename = "table")]
    tables: Vec<TableSpec>,
    #[serde(default, rename = "figure")]
    figures: Vec<FigureSpec>,
    #[serde(default, rename = "timeline")]
    timelines: Vec<TimelineSpec>,
    #[serde(default, rename = "claim")]
    claims: Vec<ClaimSpec>,
    /// Judge every claim once per value of an axis (each value filling
    /// in the claims' measures), value by value.
    #[serde(default)]
    judge_at: Option<JudgeAt>,
    /// Line figures of a measure over a numeric axis (`[[curve]]`).
    #[serde(default, rename = "curve")]
    curves: Vec<CurveSpec>,
    /// Another experiment file whose measures, tables, figures and claims
    /// come first in this one (a second sweep of the same shape).
    #[serde(default)]
    extends: Option<String>,
    /// Experiment files whose claims `judge` may name (claims declared
    /// once, judged by several experiments).
    #[serde(default)]
    claims_from: Vec<String>,
    /// The claims judged, in order, by id: this file's, an extended
    /// file's and those of `claims_from` (default: this file's own and
    /// its extended file's, in order).
    #[serde(default)]
    judge: Option<Vec<String>>,
    /// Classification trees fitted to the runs (`[[tree]]`).
    #[serde(default, rename = "tree")]
    trees: Vec<TreeSpec>,
}

/// The values of an axis every claim is judged at.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct JudgeAt {
    axis: String,
    values: Vec<String>,
}

/// A number of one run, read from its typed results.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quantity {
    /// The metric.
    pub metric: Metric,
    /// Which flow (default 0), or `"mean"` / `"sum"` over the run's flows
    /// (ignored by the run-wide metrics).
    #[serde(default)]
    pub flow: FlowSel,
    /// A unit the number is divided by, run by run (`1500`: bytes as
    /// 1500-byte packets; `1e6`: bit/s as Mbit/s); default 1.
    #[serde(default)]
    pub per: Option<f64>,
    /// Another quantity of the same run that divides this one, run by run
    /// (`startup_peak_pacing_bps` over `link_capacity_peak_bps`: how far
    /// above the path's highest capacity a run paced); no number where
    /// either has none or the divisor is 0.
    #[serde(default)]
    pub over: Option<Box<Quantity>>,
}

/// Which flow of a run a [`Quantity`] reads.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum FlowSel {
    /// One flow, by index.
    Index(usize),
    /// A group of flows, by index: the sum of their values (no number if
    /// one of them has none).
    Group(Vec<usize>),
    /// An aggregate over the flows.
    Over(Aggregate),
}

impl Default for FlowSel {
    fn default() -> Self {
        FlowSel::Index(0)
    }
}

/// An aggregate over a run's flows.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Aggregate {
    /// The mean over the flows.
    Mean,
    /// The sum over the flows.
    Sum,
    /// The least over the flows.
    Min,
    /// The largest over the flows.
    Max,
}

/// The metrics a file can read: fields of a flow's summary, of a DASH or
/// live flow's viewer summary, and of the run (link, Jain's index).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum Metric {
    GoodputBps,
    /// The flow's share of the run's total goodput.
    Share,
    /// The flow's goodput over an equal share of the run's total goodput
    /// (the total / the number of flows).
    EqualShareRatio,
    RetransmissionRatio,
    LossRatio,
    MeanCwndBytes,
    BytesSent,
    BytesDelivered,
    BytesRetransmitted,
    BytesLost,
    CongestionEvents,
    RttP50Ms,
    RttP95Ms,
    RttP99Ms,
    RttMeanMs,
    /// The least RTT the flow saw (its path's propagation RTT as measured).
    BaseRttMs,
    CompletionTimeS,
    StartupExitS,
    /// 1 if the flow's controller left Startup within the run (it has a
    /// `startup_exit_s`), 0 if it had a Startup (a Startup pacing rate)
    /// and stayed in it; no number for a controller without Startup. Its
    /// mean over streams is the share of streams that left Startup.
    LeftStartup,
    StartupPeakPacingBps,
    PaddingRatio,
    /// Of `bytes_lost`: Copilot's padding (no number where the stack does
    /// not split its losses).
    LostPaddingBytes,
    /// Of `bytes_lost`: stream data sent in Startup.
    LostInStartupBytes,
    /// Of `bytes_lost`: stream data sent in ProbeBW's probing phase (a
    /// pacing gain above 1 outside Startup).
    LostProbingBytes,
    /// Of `bytes_lost`: the rest, stream data sent at a pacing gain of 1
    /// or less.
    LostAtUnitGainBytes,
    BwEstimateRmseBps,
    BwSampleRmseBps,
    /// The RMSE of the non-app-limited delivery-rate samples against the
    /// true rate (a summary's window, absent: no number).
    BwSampleUnlimitedRmseBps,
    DashAq,
    DashQs,
    DashRb,
    DashQoeLin,
    DashMeanBitrateBps,
    DashStalls,
    DashRebufferS,
    /// 1 for a DASH session that downloaded and played the whole video, else 0.
    DashComplete,
    LiveLateFrameRatio,
    LiveFrameDelayP95Ms,
    /// Run-wide: Jain's index over the flows' goodputs.
    JainIndex,
    /// Run-wide: the bottleneck's utilization.
    LinkUtilization,
    /// Run-wide: the bottleneck's highest capacity (its 100 ms average)
    /// at any sampling instant of the run, bit/s.
    LinkCapacityPeakBps,
    /// Run-wide: queueing delay percentiles, ms.
    QueueDelayP50Ms,
    QueueDelayP95Ms,
    QueueDelayMeanMs,
    /// Run-wide: the bottleneck's mean capacity over the measurement
    /// window, bit/s (a schedule's time-weighted mean).
    LinkCapacityBps,
    /// The flow's path's bandwidth-delay product, bytes: the bottleneck's
    /// mean capacity (`link_capacity_bps`) times the flow's base RTT.
    BdpBytes,
    /// Run-wide: the bottleneck's buffer, bytes (a limit in packets counted
    /// as 1500-byte datagrams), from the run's scenario.
    LinkBufferBytes,
}

impl Metric {
    /// The metric of flow `f` of a run of `flows` flows whose goodputs sum
    /// to `total_goodput`.
    fn of_flow(self, f: &sim::FlowSummary, total_goodput: f64, flows: usize) -> Option<f64> {
        use Metric::*;
        Some(match self {
            GoodputBps => f.goodput_bps,
            Share => {
                return (total_goodput > 0.0).then(|| f.goodput_bps / total_goodput);
            }
            EqualShareRatio => {
                let equal = total_goodput / flows as f64;
                return (equal > 0.0).then(|| f.goodput_bps / equal);
            }
            RetransmissionRatio => f.retransmission_ratio,
            LossRatio => f.loss_ratio,
            MeanCwndBytes => f.mean_cwnd_bytes,
            BytesSent => f.bytes_sent as f64,
            BytesDelivered => f.bytes_delivered as f64,
            BytesRetransmitted => f.bytes_retransmitted as f64,
            BytesLost => f.bytes_lost as f64,
            CongestionEvents => f.congestion_events as f64,
            RttP50Ms => f.rtt_ms.p50,
            RttP95Ms => f.rtt_ms.p95,
            RttP99Ms => f.rtt_ms.p99,
            RttMeanMs => f.rtt_ms.mean,
            BaseRttMs => f.base_rtt_ms,
            CompletionTimeS => f.completion_time_s?,
            StartupExitS => f.startup_exit_s?,
            LeftStartup => match (f.startup_exit_s, f.startup_peak_pacing_bps) {
                (Some(_), _) => 1.0,
                (None, Some(_)) => 0.0,
                (None, None) => return None,
            },
            StartupPeakPacingBps => f.startup_peak_pacing_bps?,
            PaddingRatio => f.padding_ratio,
            LostPaddingBytes => f.lost_split?.padding_bytes as f64,
            LostInStartupBytes => f.lost_split?.sent_in_startup_bytes as f64,
            LostProbingBytes => f.lost_split?.sent_probing_bytes as f64,
            LostAtUnitGainBytes => {
                let split = f.lost_split?;
                f.bytes_lost
                    .saturating_sub(split.padding_bytes)
                    .saturating_sub(split.sent_in_startup_bytes)
                    .saturating_sub(split.sent_probing_bytes) as f64
            }
            BwEstimateRmseBps => f.bw_estimate_rmse_bps?,
            BwSampleRmseBps => f.bw_sample_rmse_bps?,
            BwSampleUnlimitedRmseBps => f.bw_sample_unlimited_rmse_bps?,
            DashAq => f.dash.as_ref()?.aq,
            DashQs => f.dash.as_ref()?.qs as f64,
            DashRb => f.dash.as_ref()?.rb?,
            DashQoeLin => f.dash.as_ref()?.qoe_lin,
            DashMeanBitrateBps => f.dash.as_ref()?.mean_bitrate_bps,
            DashStalls => f.dash.as_ref()?.stalls as f64,
            DashRebufferS => f.dash.as_ref()?.rebuffer_s,
            DashComplete => f64::from(u8::from(f.dash.as_ref()?.complete)),
            LiveLateFrameRatio => f.live.as_ref()?.late_frame_ratio,
            LiveFrameDelayP95Ms => f.live.as_ref()?.frame_delay_ms.p95,
            JainIndex | LinkUtilization | LinkCapacityPeakBps | QueueDelayP50Ms
            | QueueDelayP95Ms | QueueDelayMeanMs | LinkCapacityBps => return None,
            BdpBytes | LinkBufferBytes => return None,
        })
    }

    fn of_run(self, r: &sim::RunResult) -> Option<f64> {
        Some(match self {
            Metric::JainIndex => r.jain_index,
            Metric::LinkUtilization => r.link.utilization,
            Metric::LinkCapacityPeakBps => r.link.capacity_peak_bps,
            Metric::QueueDelayP50Ms => r.link.queue_delay_ms.p50,
            Metric::QueueDelayP95Ms => r.link.queue_delay_ms.p95,
            Metric::QueueDelayMeanMs => r.link.queue_delay_ms.mean,
            Metric::LinkCapacityBps => r.link.capacity_bps,
            _ => return None,
        })
    }
}

impl Quantity {
    /// The metrics of the path rather than of the run's summary alone:
    /// `Some(number or none)` for `bdp_bytes` (of flow `flow`, an index)
    /// and `link_buffer_bytes`, `None` for the other metrics.
    fn of_path(&self, record: &RunRecord, r: &sim::RunResult) -> Option<Option<f64>> {
        match (self.metric, &self.flow) {
            (Metric::BdpBytes, FlowSel::Index(i)) => Some(
                r.flows
                    .get(*i)
                    .map(|f| r.link.capacity_bps * (f.base_rtt_ms / 1e3) / 8.0),
            ),
            (Metric::BdpBytes, _) => Some(None),
            (Metric::LinkBufferBytes, _) => {
                Some(super::data::link_of(record).map(|l| super::data::buffer_bytes(&l)))
            }
            _ => None,
        }
    }

    /// The quantity of one run (`None`: the run has no such number).
    pub fn of(&self, record: &RunRecord) -> Option<f64> {
        let mut value = self.raw(record)?;
        if let Some(over) = &self.over {
            value /= over.of(record).filter(|d| *d != 0.0)?;
        }
        Some(match self.per {
            Some(per) => value / per,
            None => value,
        })
    }

    /// The quantity of one run before [`Quantity::per`].
    fn raw(&self, record: &RunRecord) -> Option<f64> {
        let r = record.result().ok()?;
        if let Some(v) = self.metric.of_run(r) {
            return Some(v);
        }
        if let Some(v) = self.of_path(record, r) {
            return v;
        }
        let total: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
        let n = r.flows.len();
        match &self.flow {
            FlowSel::Index(i) => self.metric.of_flow(r.flows.get(*i)?, total, n),
            FlowSel::Group(flows) if flows.is_empty() => None,
            FlowSel::Group(flows) => flows
                .iter()
                .map(|i| self.metric.of_flow(r.flows.get(*i)?, total, n))
                .sum(),
            FlowSel::Over(agg) => {
                let values: Vec<f64> = r
                    .flows
                    .iter()
                    .filter_map(|f| self.metric.of_flow(f, total, n))
                    .collect();
                if values.is_empty() {
                    return None;
                }
                Some(match agg {
                    Aggregate::Sum => values.iter().sum(),
                    Aggregate::Mean => stats::mean_sd(&values).0,
                    Aggregate::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
                    Aggregate::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                })
            }
        }
    }
}

/// A time series column of a flow (`series_flows`: `cwnd`, `pacing_rate_bps`,
/// `bw_estimate_bps`, `srtt_ms`, ...), or of the bottleneck when `flow` is
/// `"link"` (`queue_bytes`, `capacity_bps`).
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "RawSeriesColumn")]
pub struct SeriesColumn {
    /// The column, parsed against the series file it reads when the
    /// experiment file is read.
    pub column: SeriesName,
    /// The flow's index, or `"link"`.
    #[serde(default)]
    pub flow: SeriesOf,
    /// Which of the run's series files: the flows' (default) or the
    /// controllers' state variables (`series_controller`: `column` is a
    /// variable's name, such as BBR-CWS's `upper_scaling_factor`).
    #[serde(default)]
    pub source: SeriesSource,
}

/// A [`SeriesColumn`] as written: its column by name.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSeriesColumn {
    column: String,
    #[serde(default)]
    flow: SeriesOf,
    #[serde(default)]
    source: SeriesSource,
}

/// The column a [`SeriesColumn`] names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeriesName {
    /// A column of `series_flows`.
    Flow(sim::FlowColumn),
    /// A column of `series_link`.
    Link(sim::LinkColumn),
    /// A controller state variable of `series_controller` (whose names
    /// differ between controllers, so they stay text).
    Controller(String),
}

impl TryFrom<RawSeriesColumn> for SeriesColumn {
    type Error = String;

    /// Parses the column's name against its file: an unknown name is
    /// refused with serde's `unknown variant` message, which lists the
    /// valid columns (the file's error then names its line and key).
    fn try_from(raw: RawSeriesColumn) -> Result<SeriesColumn, String> {
        let column = match (raw.flow, raw.source) {
            (_, SeriesSource::Controller) => SeriesName::Controller(raw.column),
            (SeriesOf::Flow(_), SeriesSource::Flows) => {
                SeriesName::Flow(column_named(&raw.column)?)
            }
            (SeriesOf::Link(_), SeriesSource::Flows) => {
                SeriesName::Link(column_named(&raw.column)?)
            }
        };
        Ok(SeriesColumn {
            column,
            flow: raw.flow,
            source: raw.source,
        })
    }
}

/// A series column by its name in the file (`sim::FlowColumn` or
/// `sim::LinkColumn`); the error lists the valid names.
pub(crate) fn column_named<T: serde::de::DeserializeOwned>(name: &str) -> Result<T, String> {
    use serde::de::IntoDeserializer;
    let name: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
        name.into_deserializer();
    T::deserialize(name).map_err(|e| e.to_string())
}

impl SeriesColumn {
    /// Whether it asks for the link's controller series, which no run has.
    fn is_link_controller(&self) -> bool {
        matches!(self.flow, SeriesOf::Link(_)) && self.source == SeriesSource::Controller
    }
}

/// Which series file a [`SeriesColumn`] reads.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SeriesSource {
    /// `series_flows` (or `series_link` for `flow = "link"`).
    #[default]
    Flows,
    /// `series_controller`: a flow's controller state variables.
    Controller,
}

/// Whose series.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum SeriesOf {
    /// A flow's, by index.
    Flow(usize),
    /// The bottleneck's.
    Link(LinkWord),
}

/// The word `"link"`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LinkWord {
    /// The bottleneck.
    Link,
}

impl Default for SeriesOf {
    fn default() -> Self {
        SeriesOf::Flow(0)
    }
}

/// Which way a condition must go.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Holds {
    /// At least the reference (less the claim's margin).
    AtLeast,
    /// At most the reference (plus the claim's margin).
    AtMost,
    /// Strictly above the reference (less the claim's margin).
    Above,
    /// Strictly below the reference (plus the claim's margin).
    Below,
}

impl Holds {
    fn check(self, value: f64, reference: f64, margin: f64) -> bool {
        match self {
            Holds::AtLeast => value >= reference - margin,
            Holds::AtMost => value <= reference + margin,
            Holds::Above => value > reference - margin,
            Holds::Below => value < reference + margin,
        }
    }
}

/// Which number of the values along an axis.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Take {
    /// The largest.
    Max,
    /// The least.
    Min,
    /// Their mean.
    Mean,
}

/// Which way along an axis.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Way {
    /// Each value at least the one before (less the claim's margin).
    Increasing,
    /// Each value at most the one before (plus the claim's margin).
    Decreasing,
}

/// Which statistic of a series' window [`Measure::Window`] takes.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WindowTake {
    /// The mean of the samples.
    Mean,
    /// The largest sample.
    Max,
    /// The least sample.
    Min,
    /// The samples' standard deviation.
    Sd,
    /// The samples' median.
    Median,
}

impl WindowTake {
    /// The statistic of `points` over `[from, to)`; `None` without a
    /// sample there.
    fn of(self, points: &[(f64, f64)], from: f64, to: f64) -> Option<f64> {
        let values = stats::window(points, from, to);
        if values.is_empty() {
            return None;
        }
        Some(match self {
            WindowTake::Mean => stats::mean_sd(&values).0,
            WindowTake::Sd => stats::mean_sd(&values).1,
            WindowTake::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            WindowTake::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
            WindowTake::Median => stats::median(&values),
        })
    }
}

/// [`Measure::RunWindow`]'s statistic of `points` over the fractions
/// `(from, to)` of a run of `length` seconds, the end included (to within
/// a nanosecond); of means over `bin_s` intervals when given, with zero
/// samples as gaps when `zero_unset`.
fn run_window(
    points: &[(f64, f64)],
    take: WindowTake,
    (from, to): (f64, f64),
    length: f64,
    bin_s: Option<f64>,
    zero_unset: bool,
) -> Option<f64> {
    let kept: Vec<(f64, f64)> = points
        .iter()
        .map(|&(t, v)| (t, if zero_unset && v == 0.0 { f64::NAN } else { v }))
        .collect();
    let kept = match bin_s {
        Some(width) => crate::stats::bin_mean(&kept, width),
        None => kept,
    };
    take.of(&kept, from * length, to * length + 1e-9)
}

/// Conditions as a claim's row with `every_condition` shows them: each
/// named with its outcome, "X (holds)" or "X (does not)".
fn every_condition(conditions: &[(String, bool)]) -> Measured {
    Measured::Conditions {
        held: conditions.iter().filter(|(_, ok)| *ok).count(),
        total: conditions.len(),
        detail: conditions
            .iter()
            .map(|(label, ok)| format!("{label} ({})", if *ok { "holds" } else { "does not" }))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// The `{ID}` placeholders of a text, in order.
fn placeholders(text: &str) -> Vec<&str> {
    text.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(id, _)| id))
        .collect()
}

/// An arithmetic operation of [`Measure::Arithmetic`].
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// `a + b`.
    Add,
    /// `a - b`.
    Subtract,
    /// `a * b`.
    Multiply,
    /// `a / b`.
    Divide,
}

impl Op {
    fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Op::Add => a + b,
            Op::Subtract => a - b,
            Op::Multiply => a * b,
            Op::Divide => a / b,
        }
    }
}

/// An operand of [`Measure::Arithmetic`]: a number, or a measure by id.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Operand {
    /// A number.
    Number(f64),
    /// A measure, by id.
    Measure(String),
}

/// The measure primitives. Every measure has an `id` that tables, figures,
/// claims and other measures refer to; `at` fixes sweep parameters
/// (`{ "link.buffer" = "0.5bdp" }`), `by` names an axis over which the
/// measure is taken once per value. Means are over the seeds (the runs
/// left after fixing `at` and the `by` value).
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Measure {
    /// A quantity's mean and spread over seeds, at one condition or along `by`.
    Mean {
        /// The measure's id.
        id: String,
        /// The quantity.
        of: Quantity,
        /// Fixed parameters.
        #[serde(default)]
        at: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// The ratio of a quantity's means at two conditions, `a / b` (of
    /// two controllers, say), once or along `by`.
    Ratio {
        /// The measure's id.
        id: String,
        /// The quantity.
        of: Quantity,
        /// The numerator's condition.
        a: BTreeMap<String, String>,
        /// The denominator's condition.
        b: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// The difference of a quantity's means at two conditions, `a - b`,
    /// once or along `by`.
    Difference {
        /// The measure's id.
        id: String,
        /// The quantity.
        of: Quantity,
        /// The first condition.
        a: BTreeMap<String, String>,
        /// The condition subtracted.
        b: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// Harm (Ware et al.): `(alone - beside) / alone` of a quantity's
    /// means, at least 0; with `per_run`, of each run at `beside` against
    /// the mean at `alone`, not clamped, mean and spread over seeds. Once
    /// or along `by` (the axis value fixed on both sides).
    Harm {
        /// The measure's id.
        id: String,
        /// The quantity ("more is better").
        of: Quantity,
        /// The condition alone.
        alone: BTreeMap<String, String>,
        /// The condition beside the other flows.
        beside: BTreeMap<String, String>,
        /// Per run and not clamped (default: of the means, at least 0).
        #[serde(default)]
        per_run: bool,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// A condition per value of a `mean` measure taken `by` an axis: the
    /// value against the one at `reference`, `holds` within the claim's
    /// margin.
    Compare {
        /// The measure's id.
        id: String,
        /// A `mean` measure with `by`.
        of: String,
        /// The axis value compared against.
        reference: String,
        /// The axis values compared (default: all but the reference).
        #[serde(default)]
        values: Option<Vec<String>>,
        /// Which way each must go.
        holds: Holds,
    },
    /// A direction along the axis of a `mean` measure taken `by` it: one
    /// condition per consecutive pair of values.
    Direction {
        /// The measure's id.
        id: String,
        /// A `mean` measure with `by`.
        of: String,
        /// Which way.
        way: Way,
        /// The axis values taken, in the axis' order (default: all).
        #[serde(default)]
        values: Option<Vec<String>>,
        /// Each step strictly so (default: at least or at most).
        #[serde(default)]
        strict: bool,
    },
    /// A count of the axis values of a `mean` measure taken `by` it where
    /// the value `holds` against `bound` (within the claim's margin).
    Count {
        /// The measure's id.
        id: String,
        /// A `mean` measure with `by`.
        of: String,
        /// Which way.
        holds: Holds,
        /// The bound, in the quantity's unit.
        bound: f64,
        /// The axis values counted (default: all).
        #[serde(default)]
        values: Option<Vec<String>>,
    },
    /// One condition, named `label`: one-number measure `a` against
    /// one-number measure `b`, `holds` within the claim's margin.
    Condition {
        /// The measure's id.
        id: String,
        /// The measure compared.
        a: String,
        /// The measure it is compared against.
        b: String,
        /// Which way `a` must be of `b`.
        holds: Holds,
        /// The condition's name in the claim's row; `{a}` and `{b}` in it
        /// are the two numbers, with `decimals` decimals.
        label: String,
        /// The decimals of the numbers `{a}` and `{b}` show in `label`.
        #[serde(default = "two")]
        decimals: usize,
    },
    /// The mean of a time series over `[from_s, to_s)`, per run; mean and
    /// spread over seeds.
    WindowMean {
        /// The measure's id.
        id: String,
        /// The series.
        series: SeriesColumn,
        /// Window start, s.
        from_s: f64,
        /// Window end, s (`inf`: to the end).
        to_s: f64,
        /// A second series: the measure is then the ratio of the two
        /// series' means over the window, per run.
        #[serde(default)]
        per: Option<SeriesColumn>,
        /// Fixed parameters.
        #[serde(default)]
        at: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// A statistic of a time series over `[from_s, to_s)` (`take`: its
    /// mean, largest or least sample, or its sd over time), per run; mean
    /// and spread over seeds.
    Window {
        /// The measure's id.
        id: String,
        /// The series.
        series: SeriesColumn,
        /// Which statistic of the window's samples.
        take: WindowTake,
        /// Window start, s.
        from_s: f64,
        /// Window end, s (`inf`: to the end).
        to_s: f64,
        /// Fixed parameters.
        #[serde(default)]
        at: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// The first time at or after `from_s` a series reaches `level`
    /// (`way`: above or below), per run; mean and spread over seeds.
    FirstCrossing {
        /// The measure's id.
        id: String,
        /// The series.
        series: SeriesColumn,
        /// The level.
        level: f64,
        /// Which way.
        way: Crossing,
        /// Where to start looking, s.
        #[serde(default)]
        from_s: f64,
        /// Fixed parameters.
        #[serde(default)]
        at: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// The `q` quantile of a quantity over the runs at a condition.
    Quantile {
        /// The measure's id.
        id: String,
        /// The quantity.
        of: Quantity,
        /// The quantile, 0 to 1.
        q: f64,
        /// Fixed parameters.
        #[serde(default)]
        at: BTreeMap<String, String>,
    },
    /// Jain's index over the flows' values of a metric, per run; mean and
    /// spread over seeds.
    Jain {
        /// The measure's id.
        id: String,
        /// The metric (per flow).
        of: Metric,
        /// Fixed parameters.
        #[serde(default)]
        at: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// The least of several one-number measures (NaN if any has no number).
    Least {
        /// The measure's id.
        id: String,
        /// The measures, by id.
        of: Vec<String>,
    },
    /// One number from a measure taken `by` an axis: the largest, the
    /// least or the mean of its values (those with a number) at the axis
    /// values chosen.
    Across {
        /// The measure's id.
        id: String,
        /// A measure with `by`.
        of: String,
        /// The axis values taken (default: all).
        #[serde(default)]
        values: Option<Vec<String>>,
        /// Which number.
        take: Take,
        /// An axis along which it is taken: one number per value, the
        /// value filling in the conditions of `of` (a controller's worst
        /// flow count, per controller).
        #[serde(default)]
        by: Option<String>,
    },
    /// Conditions that must all hold: those of several condition measures,
    /// one per label (in the order they first appear), holding where it
    /// holds in every measure that has it.
    All {
        /// The measure's id.
        id: String,
        /// The condition measures, by id.
        of: Vec<String>,
    },
    /// A condition measure taken at each value of an axis (the value
    /// filling in its conditions): one condition per value, named by it,
    /// holding where every condition of the measure there holds.
    Each {
        /// The measure's id.
        id: String,
        /// The axis.
        axis: String,
        /// A condition measure.
        of: String,
    },
    /// How many conditions of a condition measure hold: one number.
    Held {
        /// The measure's id.
        id: String,
        /// A condition measure.
        of: String,
    },
    /// Arithmetic on two operands, each a number or a measure: one number
    /// from one-number operands, or, with `by`, one value per value of the
    /// axis (an operand taken `by` that axis value by value, a one-number
    /// operand the same at every value). Means are combined, not runs: a
    /// value along the axis has no spread.
    Arithmetic {
        /// The measure's id.
        id: String,
        /// The operation, `a op b`.
        op: Op,
        /// The first operand.
        a: Operand,
        /// The second operand.
        b: Operand,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// A named Rust measure ([`named`]), with its parameters.
    Named {
        /// The measure's id.
        id: String,
        /// The name.
        name: String,
        /// Its parameters.
        #[serde(default)]
        params: toml::Table,
    },
    /// One number from a one-number measure taken at each value of an
    /// axis (the value filling in its conditions): the largest, the least
    /// or the mean of those with a number.
    AcrossAxis {
        /// The measure's id.
        id: String,
        /// The axis.
        axis: String,
        /// A one-number measure.
        of: String,
        /// The axis values taken (default: all).
        #[serde(default)]
        values: Option<Vec<String>>,
        /// Which number.
        take: Take,
    },
    /// The largest of several one-number measures (those with a number;
    /// NaN if none has one).
    Most {
        /// The measure's id.
        id: String,
        /// The measures, by id.
        of: Vec<String>,
    },
    /// A condition measure taken at each value of an axis (the value
    /// filling in its conditions), every condition kept: one condition per
    /// value and condition of the measure there, named by `label`.
    PerValue {
        /// The measure's id.
        id: String,
        /// The axis.
        axis: String,
        /// The axis values taken, in the order given (default: all; a
        /// value the sweep lacks is left out).
        #[serde(default)]
        values: Option<Vec<String>>,
        /// A condition measure.
        of: String,
        /// The conditions' names: `{value}` is the axis value's label,
        /// `{condition}` the condition's name in the measure.
        #[serde(default = "per_value_label")]
        label: String,
    },
    /// One condition per axis value of `targets`: the value of a measure
    /// taken `by` the axis lies within the claim's margin of its target,
    /// `|x - target| <= margin`, named by the value's label.
    Near {
        /// The measure's id.
        id: String,
        /// A measure with `by`.
        of: String,
        /// The target of each axis value checked.
        targets: BTreeMap<String, f64>,
        /// How far from its target a value may lie (default: the claim's
        /// margin).
        #[serde(default)]
        band: NearBand,
        /// The conditions' names (default `{value}`, the value's label;
        /// `{raw}` is the value as the sweep writes it).
        #[serde(default = "near_label")]
        label: String,
    },
    /// Numbers recorded outside the simulator, from a CSV file kept in
    /// the repository (dash.js itself on a run's path, say): information
    /// beside the runs' numbers, for tables and figures; see
    /// [`RecordedTable`].
    Recorded {
        /// The measure's id.
        id: String,
        /// The CSV file, from the repository root.
        file: String,
        /// The column holding the numbers (empty: not run).
        value: String,
        /// The rows taken: column = value.
        #[serde(default)]
        rows: BTreeMap<String, String>,
        /// Sweep axis = the column holding its value: where the context
        /// (a table row) fixes the axis, a row must hold its value.
        keys: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
    /// The conditions of a condition measure renamed: `label` with
    /// `{label}` replaced by each condition's own name.
    Relabel {
        /// The measure's id.
        id: String,
        /// A condition measure.
        of: String,
        /// The new name, `{label}` standing for the old one.
        label: String,
    },
    /// A statistic of a time series over a window given as fractions of
    /// the run's length (`sim_time_s`), `[from_run, to_run]`, the end
    /// included; of the series' means over `bin_s` intervals (placed at
    /// their centres) when given, and with a sample of 0 as a gap when
    /// `zero_unset` (a controller's bound that is unset); per run, mean and
    /// spread over seeds.
    RunWindow {
        /// The measure's id.
        id: String,
        /// The series.
        series: SeriesColumn,
        /// Which statistic of the window's samples.
        take: WindowTake,
        /// Window start, a fraction of the run's length.
        from_run: f64,
        /// Window end, a fraction of the run's length (included).
        to_run: f64,
        /// The width of the intervals whose means are taken first, s.
        #[serde(default)]
        bin_s: Option<f64>,
        /// Whether a sample of 0 is a gap (an unset bound).
        #[serde(default)]
        zero_unset: bool,
        /// Fixed parameters.
        #[serde(default)]
        at: BTreeMap<String, String>,
        /// The axis along which it is taken.
        #[serde(default)]
        by: Option<String>,
    },
}

/// The default name of a [`Measure::PerValue`] condition.
fn per_value_label() -> String {
    "{value}: {condition}".into()
}

/// The default name of a [`Measure::Near`] condition: the value's label.
fn near_label() -> String {
    "{value}".into()
}

/// How far from its target a [`Measure::Near`] value may lie.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NearBand {
    /// Within the claim's margin, in the measure's unit.
    #[default]
    Margin,
    /// Within the rule for point numbers: `claims::rules::POINT_REL` of
    /// the target (a paper's number read as a point, condition by
    /// condition; the claim's margin is not used).
    Point,
}

impl NearBand {
    /// The largest distance from `target` that holds, with the claim's `margin`.
    fn within(self, target: f64, margin: f64) -> f64 {
        match self {
            NearBand::Margin => margin,
            NearBand::Point => super::claims::rules::POINT_REL * target.abs(),
        }
    }
}

impl Measure {
    /// The measure's id.
    pub fn id(&self) -> &str {
        match self {
            Measure::Mean { id, .. }
            | Measure::Ratio { id, .. }
            | Measure::Difference { id, .. }
            | Measure::Harm { id, .. }
            | Measure::Compare { id, .. }
            | Measure::Direction { id, .. }
            | Measure::Count { id, .. }
            | Measure::WindowMean { id, .. }
            | Measure::Window { id, .. }
            | Measure::FirstCrossing { id, .. }
            | Measure::Quantile { id, .. }
            | Measure::Jain { id, .. }
            | Measure::Least { id, .. }
            | Measure::Condition { id, .. }
            | Measure::Across { id, .. }
            | Measure::All { id, .. }
            | Measure::Each { id, .. }
            | Measure::Held { id, .. }
            | Measure::Arithmetic { id, .. }
            | Measure::Named { id, .. }
            | Measure::AcrossAxis { id, .. }
            | Measure::Most { id, .. }
            | Measure::PerValue { id, .. }
            | Measure::Near { id, .. }
            | Measure::Recorded { id, .. }
            | Measure::Relabel { id, .. }
            | Measure::RunWindow { id, .. } => id,
        }
    }

    /// The measure another one refers to, if any.
    fn refers_to(&self) -> Option<&str> {
        match self {
            Measure::Compare { of, .. }
            | Measure::Direction { of, .. }
            | Measure::Count { of, .. }
            | Measure::Across { of, .. }
            | Measure::Near { of, .. } => Some(of),
            _ => None,
        }
    }

    fn by(&self) -> Option<&str> {
        match self {
            Measure::Mean { by, .. }
            | Measure::Ratio { by, .. }
            | Measure::Difference { by, .. }
            | Measure::WindowMean { by, .. }
            | Measure::Window { by, .. }
            | Measure::FirstCrossing { by, .. }
            | Measure::Arithmetic { by, .. }
            | Measure::Jain { by, .. }
            | Measure::Across { by, .. }
            | Measure::Recorded { by, .. }
            | Measure::Harm { by, .. }
            | Measure::RunWindow { by, .. } => by.as_deref(),
            _ => None,
        }
    }

    /// Whether it gives conditions (a claim's `direction` test, `all`,
    /// `each`, `held` and preconditions take them).
    fn gives_conditions(&self) -> bool {
        matches!(
            self,
            Measure::Compare { .. }
                | Measure::Direction { .. }
                | Measure::Count { .. }
                | Measure::Condition { .. }
                | Measure::All { .. }
                | Measure::Each { .. }
                | Measure::PerValue { .. }
                | Measure::Near { .. }
                | Measure::Relabel { .. }
        )
    }

    /// The quantity it reads from the runs' results, if any.
    fn quantity(&self) -> Option<&Quantity> {
        match self {
            Measure::Mean { of, .. }
            | Measure::Ratio { of, .. }
            | Measure::Difference { of, .. }
            | Measure::Harm { of, .. }
            | Measure::Quantile { of, .. } => Some(of),
            _ => None,
        }
    }

    /// The series it reads from the runs' series files.
    fn series(&self) -> Vec<&SeriesColumn> {
        match self {
            Measure::WindowMean { series, per, .. } => std::iter::once(series).chain(per).collect(),
            Measure::Window { series, .. }
            | Measure::FirstCrossing { series, .. }
            | Measure::RunWindow { series, .. } => vec![series],
            _ => Vec::new(),
        }
    }
}

/// What a measure gives.
#[derive(Clone, Debug)]
pub enum Value {
    /// Mean and spread over seeds.
    Stat(Stat),
    /// One number.
    Number(f64),
    /// One [`Stat`] per value of an axis: `(value, its label, stat)`.
    ByAxis(Vec<(String, String, Stat)>),
    /// Conditions, `(label, holds)`.
    Conditions(Vec<(String, bool)>),
}

impl Value {
    fn measured(&self) -> Measured {
        match self {
            Value::Stat(s) => Measured::Value(s.mean),
            Value::Number(v) => Measured::Value(*v),
            Value::Conditions(c) => Measured::conditions(c.iter().map(|(l, ok)| (l.as_str(), *ok))),
            Value::ByAxis(_) => Measured::NotRun("the measure is taken along an axis".into()),
        }
    }
}

/// An operand of [`Measure::Arithmetic`] as evaluated: one number, or
/// one per axis value.
enum Side {
    One(f64),
    Along(Vec<(String, String, Stat)>),
}

impl Side {
    /// Its number at axis value `value` (NaN where it has none).
    fn at(&self, value: &str) -> f64 {
        match self {
            Side::One(x) => *x,
            Side::Along(along) => along
                .iter()
                .find(|(v, _, _)| v == value)
                .map_or(f64::NAN, |(_, _, s)| s.mean),
        }
    }
}

/// The condition `at` within `context`: `at`'s parameters, and the
/// context's on the keys `at` does not fix.
fn within(context: &[(String, String)], at: &BTreeMap<String, String>) -> Vec<(String, String)> {
    let mut fixed: Vec<(String, String)> = at.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    fixed.extend(context.iter().filter(|(k, _)| !at.contains_key(k)).cloned());
    fixed
}

/// `context` with `axis` set to `value`.
fn at_value(context: &[(String, String)], axis: &str, value: &str) -> Vec<(String, String)> {
    let mut within: Vec<(String, String)> =
        context.iter().filter(|(k, _)| k != axis).cloned().collect();
    within.push((axis.to_string(), value.to_string()));
    within
}

/// Harm (Ware et al.) of one run's `beside` against the mean `alone`:
/// `(alone - beside) / alone`, not clamped (a competitor that leaves the
/// flow more than it had alone does negative harm); `None` without a
/// positive `alone`.
fn run_harm(alone: f64, beside: f64) -> Option<f64> {
    (alone.is_finite() && alone > 0.0 && beside.is_finite()).then(|| (alone - beside) / alone)
}

/// A named Rust measure: the runs, the file's parameters for it, the
/// margin of the claim judged on it (0 when none is) and the context of
/// its evaluation (a table row's parameters, which fill in its `at`).
pub type NamedMeasure = fn(&Runs, &toml::Table, f64, &[(String, String)]) -> anyhow::Result<Value>;

/// The named measures files may use: analyses that need more than the
/// primitives.
pub fn named(name: &str) -> Option<NamedMeasure> {
    match name {
        "fluctuation" => Some(fluctuation),
        "share_fluctuation" => Some(share_fluctuation),
        "held_sample_rmse" => Some(held_sample_rmse_measure),
        "drop_response" => Some(super::measures::drop_response::drop_response),
        "uptake_lag" => Some(super::bbr2::uptake_lag_measure),
        "converge_share" => Some(super::measures::converge_share::converge_share),
        "sample_runs" => Some(super::measures::sample_runs::sample_runs),
        "bound_cuts" => Some(super::measures::bounds::bound_cuts),
        "first_in_mode" => Some(super::measures::bounds::first_in_mode),
        "decision_tree" => Some(super::measures::decision_tree::decision_tree),
        _ => None,
    }
}

/// The names of [`named`]'s measures.
pub const NAMED: &[&str] = &[
    "fluctuation",
    "share_fluctuation",
    "held_sample_rmse",
    "drop_response",
    "uptake_lag",
    "converge_share",
    "sample_runs",
    "bound_cuts",
    "first_in_mode",
    "decision_tree",
];

impl Take {
    /// The largest, the least or the mean of `xs` (NaN if empty).
    fn of(self, xs: &[f64]) -> f64 {
        match (self, xs.is_empty()) {
            (_, true) => f64::NAN,
            (Take::Max, false) => xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            (Take::Min, false) => xs.iter().copied().fold(f64::INFINITY, f64::min),
            (Take::Mean, false) => stats::mean_sd(xs).0,
        }
    }
}

/// The axis values `values` picks, in its order (those the sweep has), or
/// every value of the axis.
fn chosen_values(values: &Option<Vec<String>>, axis: Vec<String>) -> Vec<String> {
    match values {
        Some(v) => v.iter().filter(|v| axis.contains(v)).cloned().collect(),
        None => axis,
    }
}

/// A number parameter of a named measure (`default` when absent).
pub(crate) fn number_param(
    params: &toml::Table,
    key: &str,
    default: Option<f64>,
) -> anyhow::Result<f64> {
    match params.get(key) {
        Some(v) => v
            .as_float()
            .or(v.as_integer().map(|i| i as f64))
            .with_context(|| format!("`{key}` must be a number")),
        None => default.with_context(|| format!("`{key}` (a number) is required")),
    }
}

/// The fixed parameters of a named measure (its `at` table) within the
/// evaluation's context.
pub(crate) fn at_param(
    params: &toml::Table,
    context: &[(String, String)],
) -> Vec<(String, String)> {
    let at: BTreeMap<String, String> = params
        .get("at")
        .and_then(toml::Value::as_table)
        .map(|t| {
            t.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str().map_or_else(|| v.to_string(), str::to_string),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    within(context, &at)
}

/// `fluctuation`: the coefficient of variation (sd / mean) over time of a
/// flow's series column after `from_s`, per run, mean over the runs at
/// `at`. Parameters: `column`, `flow` (default 0), `from_s` (default 0),
/// `at` (a table of fixed parameters).
fn fluctuation(
    runs: &Runs,
    params: &toml::Table,
    _margin: f64,
    context: &[(String, String)],
) -> anyhow::Result<Value> {
    let column = params
        .get("column")
        .and_then(toml::Value::as_str)
        .context("fluctuation: `column` (a string) is required")?;
    let column: sim::FlowColumn =
        column_named(column).map_err(|e| anyhow::anyhow!("fluctuation: `column`: {e}"))?;
    let flow = params
        .get("flow")
        .and_then(toml::Value::as_integer)
        .unwrap_or(0) as usize;
    let from = number_param(params, "from_s", Some(0.0)).context("fluctuation")?;
    let at = at_param(params, context);
    let fixed: Vec<(&str, &str)> = at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut values = Vec::new();
    for record in runs.select(&fixed) {
        let rows = runs.flow_rows(record)?;
        let points: Vec<f64> = column
            .points(&rows, flow)
            .into_iter()
            .filter(|(t, _)| *t >= from)
            .map(|(_, v)| v)
            .collect();
        let (mean, sd) = stats::mean_sd(&points);
        if mean.is_finite() && mean > 0.0 {
            values.push(sd / mean);
        }
    }
    Ok(Value::Stat(Stat::of(&values)))
}

/// `share_fluctuation`: how steadily a family of flows shares the link
/// over time (BBR-CWS paper, Figs. 9-15), per run; mean and sd over the
/// runs at `at`. Each flow's throughput is taken per interval of `bin_s`
/// from its delivered bytes; over the intervals from `from_s` on,
/// `gives = "share_sd"` is the sd of the family's share of the interval's
/// throughput, `gives = "mean_jain"` the mean of Jain's index of the
/// interval's throughputs. Parameters: `family` (flows `0..family` are
/// the family), `flows` (how many flows), `bin_s`, `from_s`, `gives`, `at`.
fn share_fluctuation(
    runs: &Runs,
    params: &toml::Table,
    _margin: f64,
    context: &[(String, String)],
) -> anyhow::Result<Value> {
    let count = |key: &str| -> anyhow::Result<usize> {
        params
            .get(key)
            .and_then(toml::Value::as_integer)
            .and_then(|i| usize::try_from(i).ok())
            .with_context(|| format!("share_fluctuation: `{key}` (a count) is required"))
    };
    let (family, flows) = (count("family")?, count("flows")?);
    let bin_s = number_param(params, "bin_s", None).context("share_fluctuation")?;
    let from_s = number_param(params, "from_s", None).context("share_fluctuation")?;
    let share_sd = match params.get("gives").and_then(toml::Value::as_str) {
        Some("share_sd") => true,
        Some("mean_jain") => false,
        _ => anyhow::bail!("share_fluctuation: `gives` must be \"share_sd\" or \"mean_jain\""),
    };
    let at = at_param(params, context);
    let fixed: Vec<(&str, &str)> = at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let (sd, jain) = super::cws::fluctuation_over_seeds(runs, &fixed, family, flows, bin_s, from_s);
    Ok(Value::Stat(if share_sd { sd } else { jain }))
}

/// The BBR-Copilot paper's §4.3 measure, "the RMSE of the true bandwidth
/// and the bandwidth measurement samples", computed from a run's series:
/// the sample BBR holds at each instant (its BtlBw, the max-filtered
/// sample, series column `bw_estimate_bps`) against the bottleneck's
/// capacity at that instant, one term per series tick in `[from_s, to_s)`.
/// `held` and `capacity` are `(t_s, bps)` in time order; the capacity in
/// force at a tick is the latest capacity row at or before it. `None`
/// without a tick in the window.
///
/// Why the held sample and not the samples as they come: the paper's own
/// arithmetic. At 200 ms without Copilot it says BBR "continues using the
/// bandwidth measurement sample of 11.8 Mbps obtained between the 0th and
/// 20th seconds", for an RMSE of 12.18 over 20-40 s against 24 Mbit/s:
/// 24 - 11.8 = 12.2. The series it measured held a sample taken before the
/// window for the whole window, which only the filter's output does (BBR
/// lets a newer sample in only if it is not app-limited or exceeds the
/// max, and the max filter ages only when a sample enters).
pub(crate) fn held_sample_rmse(
    held: &[(f64, f64)],
    capacity: &[(f64, f64)],
    from_s: f64,
    to_s: f64,
) -> Option<f64> {
    let mut sum_sq = 0.0;
    let mut n = 0u64;
    for &(t, bps) in held.iter().filter(|(t, _)| *t >= from_s && *t < to_s) {
        let i = capacity.partition_point(|(c, _)| *c <= t);
        let Some(&(_, truth)) = i.checked_sub(1).and_then(|i| capacity.get(i)) else {
            continue;
        };
        sum_sq += (bps - truth) * (bps - truth);
        n += 1;
    }
    (n > 0).then(|| (sum_sq / n as f64).sqrt())
}

/// `held_sample_rmse`: [`held_sample_rmse`] of flow 0's `bw_estimate_bps`
/// against the link's `capacity_bps` over `[from_s, to_s)`, per run; mean
/// and sd over the runs at `at`. Parameters: `from_s`, `to_s`, `at`.
fn held_sample_rmse_measure(
    runs: &Runs,
    params: &toml::Table,
    _margin: f64,
    context: &[(String, String)],
) -> anyhow::Result<Value> {
    let from_s = number_param(params, "from_s", None).context("held_sample_rmse")?;
    let to_s = number_param(params, "to_s", None).context("held_sample_rmse")?;
    let at = at_param(params, context);
    let fixed: Vec<(&str, &str)> = at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Ok(Value::Stat(runs.over_seeds(&fixed, |record| {
        let flows = runs.flow_rows(record).ok()?;
        let link = runs.link_rows(record).ok()?;
        held_sample_rmse(
            &sim::FlowColumn::BwEstimateBps.points(&flows, 0),
            &sim::LinkColumn::CapacityBps.points(&link),
            from_s,
            to_s,
        )
    })))
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableSpec {
    title: String,
    /// The axis whose values are the rows, or several axes: one row per
    /// combination of their values (the first slowest), one first column
    /// per axis, the columns' measures one-number measures taken at the
    /// row's values.
    #[serde(default)]
    by: Option<Headers>,
    /// A second axis: one row per pair of values (`by` slowest); the
    /// columns' measures must then be `mean` measures.
    #[serde(default)]
    then: Option<String>,
    /// Rows given one by one (instead of `by`): their first cells and the
    /// parameters their columns' measures are taken at.
    #[serde(default)]
    rows: Option<Vec<RowSpec>>,
    /// The header of the first column, or of the first columns (with
    /// `rows`, one per cell of a row's `cells`).
    #[serde(default = "default_first_header")]
    first: Headers,
    /// The title without the seeds note.
    #[serde(default = "yes")]
    seeds_note: bool,
    columns: Vec<ColumnSpec>,
}

/// One header, or several.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum Headers {
    One(String),
    Several(Vec<String>),
}

impl Headers {
    fn list(&self) -> Vec<String> {
        match self {
            Headers::One(h) => vec![h.clone()],
            Headers::Several(h) => h.clone(),
        }
    }
}

fn default_first_header() -> Headers {
    Headers::One("condition".into())
}

fn yes() -> bool {
    true
}

/// A row of a table given row by row.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RowSpec {
    /// Its first cells, as text.
    cells: Vec<String>,
    /// The parameters the columns' measures are taken at (filling in what
    /// each measure does not fix itself).
    at: BTreeMap<String, String>,
}

/// How a cell shows a number.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum CellFormat {
    /// "mean ± sd" (the sd left out when it is 0), "—" without a number.
    #[default]
    MeanSd,
    /// "mean ± sd" over two or more values, "mean" over one, empty
    /// without any.
    Stat,
    /// The mean alone.
    Mean,
    /// The mean as a percentage ("12.5%"), not scaled.
    Percent,
    /// "k of n": of a quantity that is 1 or 0 per run (`dash_complete`),
    /// how many of the runs have 1.
    CountOf,
    /// How many runs have a number: of a quantity every run has
    /// (`goodput_bps`), the number of runs at the row (copilot's streams
    /// per point).
    Runs,
}

impl CellFormat {
    fn cell(self, s: Stat, scale: f64, decimals: usize) -> Cell {
        match self {
            CellFormat::MeanSd => mean_sd_cell(s.pair(), scale, decimals, ""),
            CellFormat::Stat => Stat {
                mean: s.mean * scale,
                sd: s.sd * scale,
                n: s.n,
            }
            .cell(decimals as u8),
            CellFormat::Mean if s.mean.is_finite() => Cell::fixed(s.mean * scale, decimals as u8),
            CellFormat::Mean => Cell::Empty,
            CellFormat::Percent => Cell::percent(s.mean, decimals as u8),
            CellFormat::CountOf => {
                let held = if s.n == 0 { 0.0 } else { s.mean * s.n as f64 };
                Cell::text(format!("{} of {}", held.round(), s.n))
            }
            CellFormat::Runs => Cell::fixed(s.n as f64, 0),
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ColumnSpec {
    header: String,
    measure: String,
    #[serde(default = "one")]
    scale: f64,
    #[serde(default = "two")]
    decimals: usize,
    /// Show the value minus the one at this axis value (no spread).
    #[serde(default)]
    minus: Option<String>,
    /// How the cell shows the number.
    #[serde(default)]
    format: CellFormat,
}

fn one() -> f64 {
    1.0
}

fn two() -> usize {
    2
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FigureSpec {
    title: String,
    measure: String,
    x_label: String,
    y_label: String,
    #[serde(default = "one")]
    scale: f64,
    #[serde(default)]
    series: Option<String>,
    /// An axis whose values are the bar groups (the measure must then be
    /// a `mean` measure).
    #[serde(default)]
    groups: Option<String>,
    #[serde(default)]
    reference: Option<ReferenceSpec>,
    /// Error bars (± sd) on grouped bars (bars of one series always have
    /// them).
    #[serde(default)]
    errors: bool,
    /// The vertical axis' range, `[min, max]`.
    #[serde(default)]
    y_range: Option<[f64; 2]>,
    /// The title without the seeds note.
    #[serde(default = "yes")]
    seeds_note: bool,
    /// A logarithmic vertical axis.
    #[serde(default)]
    log_y: bool,
    /// Display names of the categories' (the `by` axis') values in this
    /// figure, over the file's `[labels]`.
    #[serde(default)]
    x_labels: BTreeMap<String, String>,
}

/// A horizontal reference line: at an axis value's bar (`at`), at a
/// value (`y`) or at a one-number measure's number (`measure`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReferenceSpec {
    /// The axis value whose bar the line is drawn at.
    #[serde(default)]
    at: Option<String>,
    /// The value the line is drawn at (in the figure's scale).
    #[serde(default)]
    y: Option<f64>,
    label: String,
    /// The one-number measure whose number (times the figure's scale) the
    /// line is drawn at: a number of the runs, such as the link's capacity.
    #[serde(default)]
    measure: Option<String>,
}

/// A figure of time series of one run each (`[[timeline]]`): the first
/// run (in the sweep's order: the first seed) at the figure's `at` plus
/// each line's.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TimelineSpec {
    title: String,
    #[serde(default)]
    at: BTreeMap<String, String>,
    #[serde(default = "time_label")]
    x_label: String,
    y_label: String,
    lines: Vec<LineSpec>,
    #[serde(default)]
    y_range: Option<[f64; 2]>,
    /// Horizontal reference lines at values.
    #[serde(default)]
    reference: Vec<ValueLine>,
    /// Draw from this time on (s; the horizontal axis starts here).
    #[serde(default)]
    from_s: Option<f64>,
    /// Draw up to this time (s; the horizontal axis ends here).
    #[serde(default)]
    to_s: Option<f64>,
}

fn time_label() -> String {
    "time (s)".into()
}

/// A horizontal line at a value.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ValueLine {
    y: f64,
    label: String,
}

/// A line figure of a `mean` measure over a numeric axis (`[[curve]]`):
/// one line per value of the `lines` axis, one point per value of the
/// measure's `by` axis, placed at the number the value starts with
/// (`"0.2bdp"`: 0.2, `"40ms"`: 40), with ± sd whiskers.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CurveSpec {
    title: String,
    /// A `mean` measure taken `by` the horizontal axis.
    measure: String,
    /// The axis whose values are the lines.
    lines: String,
    /// Each line's legend, `{}` standing for the value's label (default:
    /// the label).
    #[serde(default)]
    line_label: Option<String>,
    /// Parameters every point fixes (`{ "link.rtt" = "10ms" }`).
    #[serde(default)]
    at: BTreeMap<String, String>,
    x_label: String,
    y_label: String,
    #[serde(default = "one")]
    scale: f64,
    /// Whiskers of ± one sd at each point (drawn when a point has two
    /// runs or more), each line's a little to the right of the previous.
    #[serde(default)]
    errors: bool,
    /// The vertical axis' range, `[min, max]`; the top is raised to the
    /// highest whisker.
    #[serde(default)]
    y_range: Option<[f64; 2]>,
    /// Horizontal lines.
    #[serde(default)]
    reference: Vec<ValueLine>,
}

/// One line of a [`TimelineSpec`].
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LineSpec {
    label: String,
    series: SeriesColumn,
    /// Parameters of the run drawn, beside the figure's.
    #[serde(default)]
    at: BTreeMap<String, String>,
    #[serde(default = "one")]
    scale: f64,
    /// A cumulative column (`delivered`) drawn as its rate per interval
    /// of this many seconds.
    #[serde(default)]
    rate_per_s: Option<f64>,
    #[serde(default)]
    style: Style,
}

/// How a line is drawn.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum Style {
    #[default]
    Solid,
    Dashed,
    Step,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum PaperKey {
    Obbr,
    Cws,
    Bbr2,
    Copilot,
    Own,
}

impl PaperKey {
    fn paper(self) -> Paper {
        match self {
            PaperKey::Obbr => Paper::Obbr,
            PaperKey::Cws => Paper::Cws,
            PaperKey::Bbr2 => Paper::Bbr2,
            PaperKey::Copilot => Paper::Copilot,
            PaperKey::Own => Paper::Own,
        }
    }
}

/// A claim's test as a file writes it: the kinds of [`Test`].
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum TestSpec {
    Point {
        paper: f64,
    },
    Factor {
        paper: f64,
    },
    Fraction {
        paper: f64,
    },
    Cut {
        paper: f64,
    },
    Gain {
        paper: f64,
    },
    AtLeast {
        bound: f64,
    },
    AtMost {
        bound: f64,
    },
    Direction {
        #[serde(default)]
        margin: f64,
    },
}

impl TestSpec {
    fn test(self) -> Test {
        match self {
            TestSpec::Point { paper } => Test::point(paper),
            TestSpec::Factor { paper } => Test::factor(paper),
            TestSpec::Fraction { paper } => Test::fraction(paper),
            TestSpec::Cut { paper } => Test::cut(paper),
            TestSpec::Gain { paper } => Test::gain(paper),
            TestSpec::AtLeast { bound } => Test::at_least(bound),
            TestSpec::AtMost { bound } => Test::at_most(bound),
            TestSpec::Direction { margin } => Test::direction_within(margin),
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaimSpec {
    id: String,
    paper: PaperKey,
    place: String,
    statement: String,
    about: String,
    metric: String,
    unit: String,
    paper_says: String,
    test: TestSpec,
    tolerance_reason: String,
    origin: Origin,
    /// The measure whose value (or conditions) the claim is judged on (a
    /// claim of an experiment file; empty in a claims-not-run file).
    #[serde(default)]
    measure: String,
    /// What must hold in the runs for the claim to mean anything
    /// (`Claim::requires`).
    #[serde(default)]
    precondition: Option<PreconditionSpec>,
    /// Whether the row names every condition with its outcome
    /// ("X (holds)", "Y (does not)"), not only those that fail.
    #[serde(default)]
    every_condition: bool,
    /// What judging the claim would need (a claim of a claims-not-run
    /// file, [`NotRunFile`]).
    #[serde(default)]
    needs: Option<String>,
}

impl ClaimSpec {
    /// The claim it declares.
    fn declare(&self) -> &'static Claim {
        let declared = Claim::new(Declaration {
            id: leak(&self.id),
            paper: self.paper.paper(),
            place: leak(&self.place),
            statement: leak(&self.statement),
            about: leak(&self.about),
            metric: leak(&self.metric),
            unit: leak(&self.unit),
            paper_says: leak(&self.paper_says),
            test: self.test.test(),
            tolerance_reason: leak(&self.tolerance_reason),
            origin: self.origin,
        });
        let declared = match &self.precondition {
            Some(p) => declared.requires(leak(&p.text)),
            None => declared,
        };
        Box::leak(Box::new(declared))
    }
}

/// A claim's precondition: its text and the condition measure that checks
/// it (it holds where every condition holds).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PreconditionSpec {
    text: String,
    measure: String,
    /// What the row says where the precondition fails, `{ID}` standing for
    /// one-number measure `ID`'s number (default: "not at" the conditions
    /// that fail).
    #[serde(default)]
    unmet: Option<String>,
    /// The decimals of the numbers in `unmet`.
    #[serde(default = "two")]
    decimals: usize,
}

/// A claims-not-run file as written: its claims, each with what judging
/// it `needs` in place of a measure.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NotRunSpec {
    #[serde(default, rename = "claim")]
    claims: Vec<ClaimSpec>,
}

/// A suite's claims that no experiment judges (`experiments/<suite>/
/// not-run.toml`): those a simulated dumbbell cannot measure (a real
/// Internet path, a production log, a condition the paper does not give)
/// and those runnable but not judged yet, each judged "not run" with what
/// judging it `needs`. Its claims are written and checked as an experiment
/// file's (the same keys, errors naming the file, the line and the key),
/// without a measure; its SHA-256 is recorded as an experiment file's.
#[derive(Clone, Debug)]
pub struct NotRunFile {
    /// The file's name as given (the repository path of a suite's).
    pub name: String,
    /// The SHA-256 of its bytes, hex.
    pub sha256: String,
    /// Each claim and what judging it needs.
    claims: Vec<(&'static Claim, String)>,
}

impl NotRunFile {
    /// Parses a claims-not-run file's `text`; `name` names it in errors
    /// and in the report.
    pub fn parse(name: &str, text: &str) -> anyhow::Result<NotRunFile> {
        let spec: NotRunSpec = toml::from_str(text).map_err(|e| toml_error(name, text, &e))?;
        let mut claims: Vec<(&'static Claim, String)> = Vec::new();
        for c in &spec.claims {
            let needle = format!("\"{}\"", c.id);
            let refuse =
                |key: &str, message: String| Err(key_error(name, text, key, &needle, message));
            if claims.iter().any(|(d, _)| d.id() == c.id) {
                return refuse("claim.id", format!("`{}` is declared twice", c.id));
            }
            let judged_by = [
                ("claim.measure", !c.measure.is_empty()),
                ("claim.precondition", c.precondition.is_some()),
                ("claim.every_condition", c.every_condition),
            ];
            if let Some((key, _)) = judged_by.iter().find(|(_, given)| *given) {
                return refuse(
                    key,
                    format!(
                        "`{}` is not run, so it has no `{}`: an experiment file judges a claim \
                         on measures",
                        c.id,
                        key.trim_start_matches("claim.")
                    ),
                );
            }
            match c.needs.as_deref().map(str::trim) {
                Some(needs) if !needs.is_empty() => claims.push((c.declare(), needs.to_string())),
                _ => {
                    return refuse(
                        "claim.needs",
                        format!("`{}` needs `needs`: what judging it would need", c.id),
                    )
                }
            }
        }
        Ok(NotRunFile {
            name: name.to_string(),
            sha256: sha256_hex(text.as_bytes()),
            claims,
        })
    }

    /// Every claim judged "not run", with what it needs.
    pub fn judged(&self) -> Vec<Judged> {
        self.claims
            .iter()
            .map(|(claim, needs)| claim.judge(Measured::NotRun(needs.clone())))
            .collect()
    }
}

/// A classification tree drawn from a `decision_tree` measure's runs
/// (`[[tree]]`), and optionally a table of its leaves.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TreeSpec {
    /// The figure's title; `{conditions}` in it is the number of
    /// conditions the tree is fitted to.
    title: String,
    /// A `named` measure of name `decision_tree`, whose parameters say
    /// what the tree is fitted to.
    measure: String,
    /// The title of a table of the tree's leaves (none without it).
    #[serde(default)]
    leaves: Option<String>,
    /// The title gets the seeds note.
    #[serde(default = "yes")]
    seeds_note: bool,
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

/// Where an experiment's sweep comes from.
#[derive(Clone, Debug)]
enum SweepSource {
    /// A scenario sweep file, relative to the scenarios directory.
    Scenarios(String),
    /// A sweep file, relative to the experiment file's directory.
    Beside(PathBuf),
}

/// The rows a [`Measure::Recorded`] reads: numbers recorded outside the
/// simulator (a real player's runs on a scenario's path, say), in a CSV
/// file kept in the repository with their provenance. A row is one
/// recorded run; a measure takes the mean and spread of its `value`
/// column over the rows that match its `rows` and, for each of its `keys`
/// (sweep axis = column), the value a table row or `by` fixes on that
/// axis. An empty cell is a run not made: it counts nowhere. They are
/// information beside the simulator's numbers; no claim is judged on them
/// (docs/EXPERIMENTS.md, "Recorded numbers").
#[derive(Clone, Debug, Default)]
pub struct RecordedTable {
    /// The rows taken (those matching the measure's `rows`): each key
    /// column's value, and the number (None: not run).
    rows: Vec<(BTreeMap<String, String>, Option<f64>)>,
}

impl RecordedTable {
    /// The file of `recorded` measure: a path from the current directory
    /// (the repository when run there), else from the repository the
    /// binary was built in.
    fn locate(file: &str) -> PathBuf {
        let here = PathBuf::from(file);
        if here.exists() {
            return here;
        }
        let built = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(file);
        if built.exists() {
            built
        } else {
            here
        }
    }

    /// Reads every `recorded` measure's file; errors name the experiment
    /// file's line, or the CSV file's line and column.
    fn load_all(
        name: &str,
        text: &str,
        measures: &[Measure],
    ) -> anyhow::Result<BTreeMap<String, RecordedTable>> {
        let mut tables = BTreeMap::new();
        for m in measures {
            let Measure::Recorded {
                id,
                file,
                value,
                rows,
                keys,
                ..
            } = m
            else {
                continue;
            };
            let needle = format!("\"{file}\"");
            let csv_text = std::fs::read_to_string(Self::locate(file)).map_err(|e| {
                key_error(
                    name,
                    text,
                    "measure.file",
                    &needle,
                    format!("cannot read {file}: {e}"),
                )
            })?;
            let table = Self::parse(file, &csv_text, value, rows, keys)
                .map_err(|e| key_error(name, text, "measure.file", &needle, format!("{e:#}")))?;
            tables.insert(id.clone(), table);
        }
        Ok(tables)
    }

    /// Parses `csv_text` (named `file` in errors): a header line, then
    /// one run per line; `value` must hold a number or nothing.
    fn parse(
        file: &str,
        csv_text: &str,
        value: &str,
        rows: &BTreeMap<String, String>,
        keys: &BTreeMap<String, String>,
    ) -> anyhow::Result<RecordedTable> {
        let mut reader = csv::ReaderBuilder::new().from_reader(csv_text.as_bytes());
        let header = reader
            .headers()
            .with_context(|| format!("{file}: line 1: not a CSV header"))?
            .clone();
        let column = |name: &str, role: &str| -> anyhow::Result<usize> {
            header.iter().position(|h| h == name).with_context(|| {
                format!(
                    "{file}: line 1: no column `{name}` ({role}); the columns are {}",
                    header.iter().collect::<Vec<_>>().join(", ")
                )
            })
        };
        let value_at = column(value, "the measure's `value`")?;
        let row_at: Vec<(usize, &String)> = rows
            .iter()
            .map(|(c, v)| Ok((column(c, "a `rows` column")?, v)))
            .collect::<anyhow::Result<_>>()?;
        let key_at: Vec<(&String, usize)> = keys
            .iter()
            .map(|(axis, c)| Ok((axis, column(c, &format!("the column of axis `{axis}`"))?)))
            .collect::<anyhow::Result<_>>()?;
        let mut table = RecordedTable::default();
        for (i, record) in reader.records().enumerate() {
            let line = i + 2;
            let record = record.with_context(|| format!("{file}: line {line}: not a CSV row"))?;
            let cell = |at: usize| record.get(at).unwrap_or("").trim();
            if row_at.iter().any(|(at, v)| cell(*at) != v.as_str()) {
                continue;
            }
            let number = match cell(value_at) {
                "" => None,
                text => Some(
                    text.parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite())
                        .with_context(|| {
                            format!(
                                "{file}: line {line}: `{value}` is `{text}`: expected a number, \
                             or nothing for a run not made"
                            )
                        })?,
                ),
            };
            let keys = key_at
                .iter()
                .map(|(axis, at)| ((*axis).clone(), cell(*at).to_string()))
                .collect();
            table.rows.push((keys, number));
        }
        Ok(table)
    }

    /// The mean and spread of the rows matching `context` on the keys'
    /// axes it fixes (the runs made).
    fn stat(&self, context: &[(String, String)]) -> Stat {
        let values: Vec<f64> = self
            .rows
            .iter()
            .filter(|(keys, _)| {
                context
                    .iter()
                    .all(|(axis, v)| keys.get(axis).is_none_or(|k| k == v))
            })
            .filter_map(|(_, number)| *number)
            .collect();
        Stat::of(&values)
    }
}

/// A parsed experiment file.
#[derive(Clone, Debug)]
pub struct ExperimentFile {
    /// The file's name as given (a path, or the repository path of a suite's).
    pub name: String,
    /// The SHA-256 of its bytes, hex.
    pub sha256: String,
    spec: Spec,
    source: SweepSource,
    /// Each claim, the measure it is judged on and its precondition's.
    claims: Vec<(&'static Claim, String, Option<String>)>,
    /// The rows of each `recorded` measure, by its id.
    recorded: BTreeMap<String, RecordedTable>,
}

/// A TOML error of `name`, with its line and column.
///
/// A measure's fields are read through its `kind` tag, and the TOML parser
/// then places an unknown value at the start of the measure's table; the
/// error names instead the line that writes the value and its key
/// (`op = "power"`: `x.toml: op (line 14): unknown variant `power`, ...`).
fn toml_error(name: &str, text: &str, e: &toml::de::Error) -> anyhow::Error {
    let message = e.message().trim();
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let variant = message
                .strip_prefix("unknown variant `")
                .and_then(|rest| rest.split('`').next())
                .or_else(|| {
                    // A string where a number belongs: named by its key.
                    message
                        .strip_prefix("invalid type: string \"")
                        .and_then(|rest| rest.split('"').next())
                });
            if let Some(variant) = variant {
                let quoted = format!("\"{variant}\"");
                let at_span = text.lines().nth(line - 1).unwrap_or("");
                let written = text
                    .lines()
                    .enumerate()
                    .skip(line - 1)
                    .find(|(_, l)| l.contains(&quoted));
                if let (false, Some((i, l))) = (at_span.contains(&quoted), written) {
                    let lead = l[..l.find(&quoted).unwrap_or(0)].trim_end();
                    let lead = lead.strip_suffix('=').unwrap_or(lead).trim_end();
                    let key: String = lead
                        .chars()
                        .rev()
                        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '"'))
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect();
                    return anyhow::anyhow!("{name}: {key} (line {}): {message}", i + 1);
                }
            }
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            anyhow::anyhow!("{name} (line {line}, column {column}): {message}")
        }
        None => anyhow::anyhow!("{name}: {message}"),
    }
}

/// `name: key (line N): message`, the line the first where `needle` appears.
fn key_error(name: &str, text: &str, key: &str, needle: &str, message: String) -> anyhow::Error {
    match text.lines().position(|l| l.contains(needle)) {
        Some(i) => anyhow::anyhow!("{name}: {key} (line {}): {message}", i + 1),
        None => anyhow::anyhow!("{name}: {key}: {message}"),
    }
}

/// The SHA-256 of `bytes`, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

impl ExperimentFile {
    /// Reads and parses the experiment file at `path`.
    pub fn load(path: &Path) -> anyhow::Result<ExperimentFile> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read experiment file {}", path.display()))?;
        ExperimentFile::parse(&path.display().to_string(), &text, path.parent())
    }

    /// Parses an experiment file's `text`; `name` names it in errors and in
    /// the report; `dir` is its directory (for a `sweep` beside it).
    pub fn parse(name: &str, text: &str, dir: Option<&Path>) -> anyhow::Result<ExperimentFile> {
        Self::parse_within(name, text, dir, 0)
    }

    /// [`ExperimentFile::parse`] of a file `depth` references deep (an
    /// extended file or one whose claims another judges).
    fn parse_within(
        name: &str,
        text: &str,
        dir: Option<&Path>,
        depth: usize,
    ) -> anyhow::Result<ExperimentFile> {
        let spec: Spec = toml::from_str(text).map_err(|e| toml_error(name, text, &e))?;
        let (spec, hashed) = shared::resolve(name, text, dir, depth, spec)?;
        let source = match (&spec.scenario, &spec.sweep) {
            (Some(s), None) => SweepSource::Scenarios(s.clone()),
            (None, Some(s)) => SweepSource::Beside(dir.unwrap_or(Path::new(".")).join(s)),
            _ => anyhow::bail!(
                "{name}: give exactly one of `scenario` (a sweep file under the scenarios directory) \
                 and `sweep` (a sweep file beside this one)"
            ),
        };
        let mut ids: BTreeMap<&str, &Measure> = BTreeMap::new();
        for m in &spec.measures {
            let needle = format!("\"{}\"", m.id());
            if ids.insert(m.id(), m).is_some() {
                return Err(key_error(
                    name,
                    text,
                    "measure.id",
                    &needle,
                    format!("`{}` is declared twice", m.id()),
                ));
            }
            if let Measure::RunWindow {
                from_run,
                to_run,
                bin_s,
                ..
            } = m
            {
                if !(0.0 <= *from_run && from_run < to_run && *to_run <= 1.0) {
                    return Err(key_error(
                        name,
                        text,
                        "measure.from_run",
                        &needle,
                        format!(
                            "`{}` needs 0 <= from_run < to_run <= 1 (fractions of the run), \
                             not {from_run} and {to_run}",
                            m.id()
                        ),
                    ));
                }
                if bin_s.is_some_and(|b| b.is_nan() || b <= 0.0) {
                    return Err(key_error(
                        name,
                        text,
                        "measure.bin_s",
                        &needle,
                        format!("`{}` needs a positive bin_s (seconds)", m.id()),
                    ));
                }
            }
            if let Some(of) = m.refers_to() {
                let ok = ids.get(of).is_some_and(|o| o.by().is_some());
                if !ok {
                    return Err(key_error(
                        name,
                        text,
                        "measure.of",
                        &needle,
                        format!(
                            "`{of}` must be a measure taken `by` an axis, declared before `{}`",
                            m.id()
                        ),
                    ));
                }
            }
            if let Measure::Across {
                of, by: Some(axis), ..
            } = m
            {
                if ids.get(of.as_str()).and_then(|o| o.by()) == Some(axis.as_str()) {
                    return Err(key_error(
                        name,
                        text,
                        "measure.by",
                        &needle,
                        format!(
                            "`{of}` is taken along `{axis}` already; an across taken `by` an \
                             axis needs a measure along another one"
                        ),
                    ));
                }
            }
            // Taken `by` an axis, a ratio or difference sets that axis at
            // each value on both sides: a side that also fixes it would be
            // overridden without a word (BBR over BBR, 1.00x).
            if let Measure::Ratio {
                a,
                b,
                by: Some(axis),
                ..
            }
            | Measure::Difference {
                a,
                b,
                by: Some(axis),
                ..
            } = m
            {
                if let Some((side, value)) = [("a", a), ("b", b)]
                    .into_iter()
                    .find_map(|(side, at)| at.get(axis).map(|v| (side, v)))
                {
                    return Err(key_error(
                        name,
                        text,
                        "measure.by",
                        &needle,
                        format!(
                            "`{}` is taken by `{axis}`, which sets `{axis}` on both sides at \
                             each value, but its `{side}` fixes `{axis} = {value:?}`: drop \
                             `{axis}` from `{side}`, or take it by another axis",
                            m.id()
                        ),
                    ));
                }
            }
            let one_numbers: Vec<&String> = match m {
                Measure::Least { of, .. } | Measure::Most { of, .. } => of.iter().collect(),
                Measure::Condition { a, b, .. } => vec![a, b],
                Measure::AcrossAxis { of, .. } => vec![of],
                _ => Vec::new(),
            };
            {
                for o in one_numbers {
                    let one_number = ids.get(o.as_str()).is_some_and(|o| o.by().is_none());
                    if !one_number {
                        return Err(key_error(
                            name,
                            text,
                            "measure.of",
                            &needle,
                            format!(
                                "`{o}` must be a one-number measure declared before `{}`",
                                m.id()
                            ),
                        ));
                    }
                }
            }
            let of_conditions: Vec<&String> = match m {
                Measure::All { of, .. } => of.iter().collect(),
                Measure::Each { of, .. } | Measure::Held { of, .. } => vec![of],
                Measure::PerValue { of, .. } => vec![of],
                Measure::Relabel { of, .. } => vec![of],
                _ => Vec::new(),
            };
            {
                for o in of_conditions {
                    let conditions = ids.get(o.as_str()).is_some_and(|o| o.gives_conditions());
                    if !conditions {
                        return Err(key_error(
                            name,
                            text,
                            "measure.of",
                            &needle,
                            format!(
                                "`{o}` must be a condition measure (compare, direction, count, \
                                 condition, all, each, per_value, near, relabel) declared before `{}`",
                                m.id()
                            ),
                        ));
                    }
                }
            }
            if let Measure::Named { name: n, .. } = m {
                if named(n).is_none() {
                    return Err(key_error(
                        name,
                        text,
                        "measure.name",
                        &format!("\"{n}\""),
                        format!("no named measure `{n}`; known: {}", NAMED.join(", ")),
                    ));
                }
            }
            if let Measure::Quantile { q, .. } = m {
                if !(0.0..=1.0).contains(q) {
                    return Err(key_error(
                        name,
                        text,
                        "measure.q",
                        &needle,
                        format!("expected 0 <= q <= 1, got {q}"),
                    ));
                }
            }
            // `per` of the quantity and of every quantity it is `over`.
            let mut quantity = m.quantity();
            let mut key = "measure.of".to_string();
            while let Some(q) = quantity {
                if let Some(per) = q.per.filter(|p| !(p.is_finite() && *p > 0.0)) {
                    return Err(key_error(
                        name,
                        text,
                        &format!("{key}.per"),
                        &needle,
                        format!("expected a positive number to divide by, got {per}"),
                    ));
                }
                quantity = q.over.as_deref();
                key.push_str(".over");
            }
            if m.series().iter().any(|s| s.is_link_controller()) {
                return Err(key_error(
                    name,
                    text,
                    "measure.series.source",
                    &needle,
                    "`source = \"controller\"` needs a flow's index, not `\"link\"`".into(),
                ));
            }
            if let Measure::Arithmetic { a, b, by, .. } = m {
                for (key, operand) in [("measure.a", a), ("measure.b", b)] {
                    let Operand::Measure(o) = operand else {
                        continue;
                    };
                    let fits = ids.get(o.as_str()).is_some_and(|o| {
                        !o.gives_conditions() && (o.by().is_none() || o.by() == by.as_deref())
                    });
                    if !fits {
                        let what = match by {
                            Some(axis) => {
                                format!("a one-number measure or one taken `by = \"{axis}\"`")
                            }
                            None => "a one-number measure".to_string(),
                        };
                        return Err(key_error(
                            name,
                            text,
                            key,
                            &needle,
                            format!("`{o}` must be {what}, declared before `{}`", m.id()),
                        ));
                    }
                }
            }
        }
        let by_axis = |id: &str| ids.get(id).map(|m| m.by().is_some());
        for t in &spec.tables {
            let needle = format!("\"{}\"", t.title);
            let table_error =
                |key: &str, message: String| Err(key_error(name, text, key, &needle, message));
            let rows_of_values = t.rows.is_some() || matches!(t.by, Some(Headers::Several(_)));
            match (&t.by, &t.rows) {
                (Some(Headers::One(_)), None) => {}
                (Some(Headers::Several(axes)), None) => {
                    if t.then.is_some() {
                        return table_error(
                            "table.then",
                            "`then` needs `by` to be one axis".into(),
                        );
                    }
                    if t.first.list().len() != axes.len() {
                        return table_error(
                            "table.first",
                            format!(
                                "{} header(s) in `first` for {} axes in `by`",
                                t.first.list().len(),
                                axes.len()
                            ),
                        );
                    }
                }
                (None, Some(rows)) => {
                    if t.then.is_some() {
                        return table_error("table.then", "`then` needs `by`, not `rows`".into());
                    }
                    let headers = t.first.list().len();
                    if let Some(r) = rows.iter().find(|r| r.cells.len() != headers) {
                        return table_error(
                            "table.rows.cells",
                            format!(
                                "a row has {} cells ({}) for {headers} header(s) in `first`",
                                r.cells.len(),
                                r.cells.join(", ")
                            ),
                        );
                    }
                }
                _ => {
                    return table_error(
                        "table.by",
                        "give exactly one of `by` (an axis) and `rows`".into(),
                    )
                }
            }
            for c in &t.columns {
                let (want, what) = if rows_of_values {
                    (
                        Some(false),
                        "a one-number measure (a table with `rows` or several axes `by`)",
                    )
                } else {
                    (Some(true), "a measure taken `by` an axis")
                };
                if by_axis(&c.measure) != want {
                    return Err(key_error(
                        name,
                        text,
                        "table.columns.measure",
                        &format!("\"{}\"", c.measure),
                        format!("`{}` must be {what}", c.measure),
                    ));
                }
                if c.minus.is_some() && rows_of_values {
                    return Err(key_error(
                        name,
                        text,
                        "table.columns.minus",
                        &format!("\"{}\"", c.measure),
                        "`minus` needs a table `by` one axis".into(),
                    ));
                }
            }
        }
        for f in &spec.figures {
            let ok = match &f.reference {
                None => true,
                Some(r) => match (&r.at, r.y, &r.measure) {
                    (Some(_), None, None) => f.groups.is_none(),
                    (None, Some(_), None) | (None, None, Some(_)) => true,
                    _ => false,
                },
            };
            if !ok {
                return Err(key_error(
                    name,
                    text,
                    "figure.reference",
                    &format!("\"{}\"", f.title),
                    "give exactly one of `at` (an axis value; not with `groups`), `y` (a value) \
                     and `measure` (a one-number measure)"
                        .into(),
                ));
            }
            if let Some(m) = f.reference.as_ref().and_then(|r| r.measure.as_ref()) {
                if !ids
                    .get(m.as_str())
                    .is_some_and(|m| m.by().is_none() && !m.gives_conditions())
                {
                    return Err(key_error(
                        name,
                        text,
                        "figure.reference.measure",
                        &format!("\"{}\"", f.title),
                        format!("`{m}` must be a one-number measure"),
                    ));
                }
            }
        }
        for t in &spec.timelines {
            let from = t.from_s.unwrap_or(f64::NEG_INFINITY);
            let to = t.to_s.unwrap_or(f64::INFINITY);
            if from.is_nan() || to.is_nan() || from >= to {
                return Err(key_error(
                    name,
                    text,
                    "timeline.to_s",
                    &format!("\"{}\"", t.title),
                    format!("expected from_s < to_s, got {from} and {to}"),
                ));
            }
            for l in &t.lines {
                if l.series.is_link_controller() {
                    return Err(key_error(
                        name,
                        text,
                        "timeline.lines.series.source",
                        &format!("\"{}\"", l.label),
                        "`source = \"controller\"` needs a flow's index, not `\"link\"`".into(),
                    ));
                }
                if l.rate_per_s.is_some_and(|r| r.is_nan() || r <= 0.0) {
                    return Err(key_error(
                        name,
                        text,
                        "timeline.lines.rate_per_s",
                        &format!("\"{}\"", l.label),
                        "expected a positive number of seconds".into(),
                    ));
                }
            }
        }
        let is_mean = |id: &str| {
            ids.get(id).is_some_and(|m| {
                matches!(
                    m,
                    Measure::Mean { by: Some(_), .. } | Measure::Recorded { by: Some(_), .. }
                )
            })
        };
        for t in spec.tables.iter().filter(|t| t.then.is_some()) {
            if let Some(c) = t.columns.iter().find(|c| !is_mean(&c.measure)) {
                return Err(key_error(
                    name,
                    text,
                    "table.columns.measure",
                    &format!("\"{}\"", c.measure),
                    format!(
                        "a table with `then` needs `mean` measures; `{}` is not one",
                        c.measure
                    ),
                ));
            }
        }
        for f in spec.figures.iter().filter(|f| f.groups.is_some()) {
            if !is_mean(&f.measure) {
                return Err(key_error(
                    name,
                    text,
                    "figure.measure",
                    &format!("\"{}\"", f.measure),
                    format!(
                        "a figure with `groups` needs a `mean` measure; `{}` is not one",
                        f.measure
                    ),
                ));
            }
        }
        for f in &spec.figures {
            if by_axis(&f.measure) != Some(true) {
                return Err(key_error(
                    name,
                    text,
                    "figure.measure",
                    &format!("\"{}\"", f.measure),
                    format!("`{}` must be a measure taken `by` an axis", f.measure),
                ));
            }
        }
        if let Some(c) = spec.curves.iter().find(|c| !is_mean(&c.measure)) {
            return Err(key_error(
                name,
                text,
                "curve.measure",
                &format!("\"{}\"", c.measure),
                format!(
                    "`{}` must be a `mean` measure taken `by` an axis",
                    c.measure
                ),
            ));
        }
        for t in &spec.trees {
            let tree = ids.get(t.measure.as_str()).is_some_and(
                |m| matches!(m, Measure::Named { name: n, .. } if n == "decision_tree"),
            );
            if !tree {
                return Err(key_error(
                    name,
                    text,
                    "tree.measure",
                    &format!("\"{}\"", t.title),
                    format!(
                        "`{}` must be a named measure of name \"decision_tree\"",
                        t.measure
                    ),
                ));
            }
        }
        let mut claims = Vec::new();
        for c in &spec.claims {
            let needle = format!("\"{}\"", c.id);
            if c.needs.is_some() {
                return Err(key_error(
                    name,
                    text,
                    "claim.needs",
                    &needle,
                    format!(
                        "`{}`: an experiment file's claim is judged on its `measure`; a claim \
                         no experiment judges goes in the suite's claims-not-run file",
                        c.id
                    ),
                ));
            }
            if c.measure.is_empty() {
                return Err(key_error(
                    name,
                    text,
                    "claim.measure",
                    &needle,
                    format!("`{}` needs `measure`: the measure it is judged on", c.id),
                ));
            }
            match by_axis(&c.measure) {
                None => {
                    return Err(key_error(
                        name,
                        text,
                        "claim.measure",
                        &needle,
                        format!("no measure `{}`", c.measure),
                    ))
                }
                Some(true) => {
                    return Err(key_error(
                        name,
                        text,
                        "claim.measure",
                        &needle,
                        format!(
                            "`{}` is taken along an axis; a claim needs one number or conditions",
                            c.measure
                        ),
                    ))
                }
                Some(false) => {}
            }
            if let Some(unmet) = c.precondition.as_ref().and_then(|p| p.unmet.as_ref()) {
                for id in placeholders(unmet) {
                    if !ids
                        .get(id)
                        .is_some_and(|m| m.by().is_none() && !m.gives_conditions())
                    {
                        return Err(key_error(
                            name,
                            text,
                            "claim.precondition.unmet",
                            &format!("{{{id}}}"),
                            format!("`{{{id}}}` must name a one-number measure"),
                        ));
                    }
                }
            }
            if let Some(p) = &c.precondition {
                let conditions = ids
                    .get(p.measure.as_str())
                    .is_some_and(|m| m.gives_conditions());
                if !conditions {
                    return Err(key_error(
                        name,
                        text,
                        "claim.precondition.measure",
                        &needle,
                        format!(
                            "`{}` must be a condition measure (compare, direction, count, \
                             condition, all, each)",
                            p.measure
                        ),
                    ));
                }
            }
            claims.push((
                c.declare(),
                c.measure.clone(),
                c.precondition.as_ref().map(|p| p.measure.clone()),
            ));
        }
        let recorded = RecordedTable::load_all(name, text, &spec.measures)?;
        Ok(ExperimentFile {
            name: name.to_string(),
            sha256: sha256_hex(&hashed),
            spec,
            source,
            claims,
            recorded,
        })
    }

    /// The experiment's id: its store directory and section anchor.
    pub fn id(&self) -> &str {
        &self.spec.id
    }

    /// Whether its measures need the runs' time series.
    pub fn series(&self) -> bool {
        self.spec.series
    }

    /// Its sweep file, as the report names it.
    pub fn scenario_label(&self) -> String {
        match &self.source {
            SweepSource::Scenarios(s) => format!("scenarios/{s}"),
            SweepSource::Beside(p) => p.display().to_string(),
        }
    }

    /// Its sweep, in full or shortened (`fast`).
    pub fn sweep(&self, scenarios: &Path, fast: bool) -> anyhow::Result<scenario::Sweep> {
        let path = match &self.source {
            SweepSource::Scenarios(s) => scenarios.join(s),
            SweepSource::Beside(p) => p.clone(),
        };
        let sweep = scenario::load_sweep(&path, &[])?;
        Ok(if fast { sweep.fast()? } else { sweep })
    }

    /// The display label of an axis value: the file's `[labels]`, else
    /// the papers' name of a controller (on a `.cc` axis), else the value.
    fn label(&self, axis: &str, value: &str) -> String {
        if let Some(l) = self.spec.labels.get(value) {
            return l.clone();
        }
        if axis.ends_with(".cc") {
            paper_name(value)
        } else {
            value.to_string()
        }
    }

    fn measure(&self, id: &str) -> Option<&Measure> {
        self.spec.measures.iter().find(|m| m.id() == id)
    }

    /// The value of measure `id` on `runs`; `margin` is the judged claim's.
    pub fn evaluate(&self, runs: &Runs, id: &str, margin: f64) -> anyhow::Result<Value> {
        self.evaluate_in(runs, id, margin, &[])
    }

    /// The value of measure `id` on `runs` in a context: sweep parameters
    /// (a table row's) that fill in every condition of the measure on the
    /// keys it does not fix itself.
    pub fn evaluate_in(
        &self,
        runs: &Runs,
        id: &str,
        margin: f64,
        context: &[(String, String)],
    ) -> anyhow::Result<Value> {
        let m = self
            .measure(id)
            .with_context(|| format!("no measure `{id}`"))?;
        self.evaluate_measure(runs, m, margin, context)
    }

    /// The value of measure `m` on `runs` in a context, as
    /// [`ExperimentFile::evaluate_in`].
    fn evaluate_measure(
        &self,
        runs: &Runs,
        m: &Measure,
        margin: f64,
        context: &[(String, String)],
    ) -> anyhow::Result<Value> {
        let fixed =
            |at: &BTreeMap<String, String>| -> Vec<(String, String)> { within(context, at) };
        let stat_at = |at: &[(String, String)], f: &dyn Fn(&RunRecord) -> Option<f64>| -> Stat {
            let fixed: Vec<(&str, &str)> =
                at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            runs.over_seeds(&fixed, f)
        };
        // A per-run function, at `at`, or along `by`.
        let along = |at: &BTreeMap<String, String>,
                     by: &Option<String>,
                     f: &dyn Fn(&RunRecord) -> Option<f64>|
         -> Value {
            let base = fixed(at);
            match by {
                None => Value::Stat(stat_at(&base, f)),
                Some(axis) => Value::ByAxis(
                    runs.axis(axis)
                        .into_iter()
                        .map(|v| {
                            let mut cond: Vec<(String, String)> =
                                base.iter().filter(|(k, _)| k != axis).cloned().collect();
                            cond.push((axis.clone(), v.clone()));
                            let label = self.label(axis, &v);
                            (v, label, stat_at(&cond, f))
                        })
                        .collect(),
                ),
            }
        };
        let by_axis = |of: &str| -> anyhow::Result<Vec<(String, String, Stat)>> {
            match self.evaluate_in(runs, of, 0.0, context)? {
                Value::ByAxis(v) => Ok(v),
                _ => anyhow::bail!("`{of}` is not taken along an axis"),
            }
        };
        let number = |of: &str| -> anyhow::Result<f64> {
            match self.evaluate_in(runs, of, 0.0, context)? {
                Value::Number(v) => Ok(v),
                Value::Stat(s) => Ok(s.mean),
                _ => anyhow::bail!("`{of}` is not a one-number measure"),
            }
        };
        // The axis values taken: all in the axis' order, or those given,
        // in the order given.
        let chosen = |values: &Option<Vec<String>>,
                      along: Vec<(String, String, Stat)>|
         -> Vec<(String, String, Stat)> {
            match values {
                None => along,
                Some(values) => values
                    .iter()
                    .filter_map(|v| along.iter().find(|(x, _, _)| x == v).cloned())
                    .collect(),
            }
        };
        Ok(match m {
            Measure::Mean { of, at, by, .. } => along(at, by, &|r| of.of(r)),
            Measure::Recorded { id, by, .. } => {
                let table = &self.recorded[id];
                match by {
                    None => Value::Stat(table.stat(context)),
                    Some(axis) => Value::ByAxis(
                        runs.axis(axis)
                            .into_iter()
                            .map(|v| {
                                let stat = table.stat(&at_value(context, axis, &v));
                                (v.clone(), self.label(axis, &v), stat)
                            })
                            .collect(),
                    ),
                }
            }
            Measure::Ratio { of, a, b, by, .. } => {
                self.pair(runs, of, &fixed(a), &fixed(b), by, |a, b| a / b)
            }
            Measure::Difference { of, a, b, by, .. } => {
                self.pair(runs, of, &fixed(a), &fixed(b), by, |a, b| a - b)
            }
            Measure::Compare {
                of,
                reference,
                values,
                holds,
                ..
            } => {
                let along = by_axis(of)?;
                let r = along
                    .iter()
                    .find(|(v, _, _)| v == reference)
                    .map_or(f64::NAN, |(_, _, s)| s.mean);
                let compared: Vec<_> = match values {
                    Some(_) => chosen(values, along),
                    None => along
                        .into_iter()
                        .filter(|(v, _, _)| v != reference)
                        .collect(),
                };
                Value::Conditions(
                    compared
                        .iter()
                        .filter(|(_, _, s)| s.mean.is_finite() && r.is_finite())
                        .map(|(_, label, s)| (label.clone(), holds.check(s.mean, r, margin)))
                        .collect(),
                )
            }
            Measure::Direction {
                of,
                way,
                values,
                strict,
                ..
            } => {
                let along: Vec<_> = chosen(values, by_axis(of)?)
                    .into_iter()
                    .filter(|(_, _, s)| s.mean.is_finite())
                    .collect();
                Value::Conditions(
                    along
                        .windows(2)
                        .map(|w| {
                            let (prev, next) = (&w[0], &w[1]);
                            let holds = match (way, strict) {
                                (Way::Increasing, false) => Holds::AtLeast,
                                (Way::Decreasing, false) => Holds::AtMost,
                                (Way::Increasing, true) => Holds::Above,
                                (Way::Decreasing, true) => Holds::Below,
                            };
                            let ok = holds.check(next.2.mean, prev.2.mean, margin);
                            (format!("{} to {}", prev.1, next.1), ok)
                        })
                        .collect(),
                )
            }
            Measure::Count {
                of,
                holds,
                bound,
                values,
                ..
            } => Value::Conditions(
                chosen(values, by_axis(of)?)
                    .into_iter()
                    .filter(|(_, _, s)| s.mean.is_finite())
                    .map(|(_, label, s)| (label, holds.check(s.mean, *bound, margin)))
                    .collect(),
            ),
            Measure::WindowMean {
                series,
                from_s,
                to_s,
                per,
                at,
                by,
                ..
            } => along(at, by, &|r| {
                let points = self.series_points(runs, r, series).ok()?;
                let mean = stats::window_mean(&points, *from_s, *to_s);
                match per {
                    None => Some(mean),
                    Some(per) => {
                        let points = self.series_points(runs, r, per).ok()?;
                        Some(mean / stats::window_mean(&points, *from_s, *to_s))
                    }
                }
            }),
            Measure::Window {
                series,
                take,
                from_s,
                to_s,
                at,
                by,
                ..
            } => along(at, by, &|r| {
                let points = self.series_points(runs, r, series).ok()?;
                take.of(&points, *from_s, *to_s)
            }),
            Measure::FirstCrossing {
                series,
                level,
                way,
                from_s,
                at,
                by,
                ..
            } => along(at, by, &|r| {
                let points = self.series_points(runs, r, series).ok()?;
                stats::first_crossing(&points, *from_s, *level, *way)
            }),
            Measure::Quantile { of, q, at, .. } => {
                let base = fixed(at);
                let fixed: Vec<(&str, &str)> =
                    base.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                let values: Vec<f64> = runs
                    .select(&fixed)
                    .into_iter()
                    .filter_map(|r| of.of(r))
                    .collect();
                Value::Number(stats::quantile(&values, *q))
            }
            Measure::Jain { of, at, by, .. } => along(at, by, &|r| {
                let result = r.result().ok()?;
                let total: f64 = result.flows.iter().map(|f| f.goodput_bps).sum();
                let n = result.flows.len();
                let values: Vec<f64> = result
                    .flows
                    .iter()
                    .filter_map(|f| of.of_flow(f, total, n))
                    .collect();
                let j = stats::jain(&values);
                j.is_finite().then_some(j)
            }),
            Measure::Least { of, .. } => {
                let mut least = f64::INFINITY;
                for id in of {
                    match self.evaluate_in(runs, id, margin, context)? {
                        Value::Number(v) if !v.is_nan() => least = least.min(v),
                        Value::Stat(s) if !s.mean.is_nan() => least = least.min(s.mean),
                        Value::Number(_) | Value::Stat(_) => least = f64::NAN,
                        _ => anyhow::bail!("`{id}` is not a one-number measure"),
                    }
                    if least.is_nan() {
                        break;
                    }
                }
                Value::Number(if of.is_empty() { f64::NAN } else { least })
            }
            Measure::Condition {
                a,
                b,
                holds,
                label,
                decimals,
                ..
            } => {
                let (a, b) = (number(a)?, number(b)?);
                let d = *decimals;
                let label = label
                    .replace("{a}", &format!("{a:.d$}"))
                    .replace("{b}", &format!("{b:.d$}"));
                Value::Conditions(if a.is_finite() && b.is_finite() {
                    vec![(label, holds.check(a, b, margin))]
                } else {
                    Vec::new()
                })
            }
            Measure::Across {
                of,
                values,
                take,
                by: None,
                ..
            } => {
                let xs: Vec<f64> = chosen(values, by_axis(of)?)
                    .into_iter()
                    .filter(|(_, _, s)| s.mean.is_finite())
                    .map(|(_, _, s)| s.mean)
                    .collect();
                Value::Number(take.of(&xs))
            }
            Measure::Across {
                of,
                values,
                take,
                by: Some(axis),
                id,
            } => {
                // The same across, one axis value at a time.
                let one = Measure::Across {
                    id: id.clone(),
                    of: of.clone(),
                    values: values.clone(),
                    take: *take,
                    by: None,
                };
                let mut along = Vec::new();
                for v in runs.axis(axis) {
                    let Value::Number(x) =
                        self.evaluate_measure(runs, &one, margin, &at_value(context, axis, &v))?
                    else {
                        anyhow::bail!("`{id}` gives no number at {v}")
                    };
                    let stat = if x.is_finite() {
                        Stat::of(&[x])
                    } else {
                        Stat::of(&[])
                    };
                    along.push((v.clone(), self.label(axis, &v), stat));
                }
                Value::ByAxis(along)
            }
            Measure::All { of, .. } => {
                let mut all: Vec<(String, bool)> = Vec::new();
                for o in of {
                    let Value::Conditions(c) = self.evaluate_in(runs, o, margin, context)? else {
                        anyhow::bail!("`{o}` is not a condition measure");
                    };
                    for (label, ok) in c {
                        match all.iter_mut().find(|(l, _)| *l == label) {
                            Some((_, held)) => *held = *held && ok,
                            None => all.push((label, ok)),
                        }
                    }
                }
                Value::Conditions(all)
            }
            Measure::Each { axis, of, .. } => {
                let mut each = Vec::new();
                for v in runs.axis(axis) {
                    let mut within: Vec<(String, String)> =
                        context.iter().filter(|(k, _)| k != axis).cloned().collect();
                    within.push((axis.clone(), v.clone()));
                    let Value::Conditions(c) = self.evaluate_in(runs, of, margin, &within)? else {
                        anyhow::bail!("`{of}` is not a condition measure");
                    };
                    if !c.is_empty() {
                        each.push((self.label(axis, &v), c.iter().all(|(_, ok)| *ok)));
                    }
                }
                Value::Conditions(each)
            }
            Measure::AcrossAxis {
                axis,
                of,
                values,
                take,
                ..
            } => {
                let mut xs = Vec::new();
                for v in chosen_values(values, runs.axis(axis)) {
                    let mut within: Vec<(String, String)> =
                        context.iter().filter(|(k, _)| k != axis).cloned().collect();
                    within.push((axis.clone(), v));
                    match self.evaluate_in(runs, of, margin, &within)? {
                        Value::Number(x) if x.is_finite() => xs.push(x),
                        Value::Stat(s) if s.mean.is_finite() => xs.push(s.mean),
                        Value::Number(_) | Value::Stat(_) => {}
                        _ => anyhow::bail!("`{of}` is not a one-number measure"),
                    }
                }
                Value::Number(take.of(&xs))
            }
            Measure::Held { of, .. } => match self.evaluate_in(runs, of, margin, context)? {
                Value::Conditions(c) => {
                    Value::Number(c.iter().filter(|(_, ok)| *ok).count() as f64)
                }
                _ => anyhow::bail!("`{of}` is not a condition measure"),
            },
            Measure::Arithmetic { op, a, b, by, .. } => {
                let side = |o: &Operand| -> anyhow::Result<Side> {
                    Ok(match o {
                        Operand::Number(x) => Side::One(*x),
                        Operand::Measure(id) => match self.evaluate_in(runs, id, 0.0, context)? {
                            Value::Number(v) => Side::One(v),
                            Value::Stat(s) => Side::One(s.mean),
                            Value::ByAxis(v) => Side::Along(v),
                            Value::Conditions(_) => {
                                anyhow::bail!("`{id}` gives conditions, not a number")
                            }
                        },
                    })
                };
                let (a, b) = (side(a)?, side(b)?);
                match by {
                    None => match (a, b) {
                        (Side::One(a), Side::One(b)) => Value::Number(op.apply(a, b)),
                        _ => anyhow::bail!("an operand is taken along an axis; give `by`"),
                    },
                    Some(axis) => Value::ByAxis(
                        runs.axis(axis)
                            .into_iter()
                            .map(|v| {
                                let x = op.apply(a.at(&v), b.at(&v));
                                let label = self.label(axis, &v);
                                (v, label, Stat::of(&[x]))
                            })
                            .collect(),
                    ),
                }
            }
            Measure::Named { name, params, .. } => {
                let f = named(name).with_context(|| format!("no named measure `{name}`"))?;
                f(runs, params, margin, context)?
            }
            Measure::Most { of, .. } => {
                let mut most = f64::NAN;
                for id in of {
                    match self.evaluate_in(runs, id, margin, context)? {
                        Value::Number(v) => most = most.max(v),
                        Value::Stat(s) => most = most.max(s.mean),
                        _ => anyhow::bail!("`{id}` is not a one-number measure"),
                    }
                }
                Value::Number(most)
            }
            Measure::Harm {
                of,
                alone,
                beside,
                per_run,
                by,
                ..
            } => {
                // Alone and beside, with the axis value (if any) fixed.
                let harm_at = |value: Option<(&String, &String)>| -> Stat {
                    let cond = |at: &BTreeMap<String, String>| -> Vec<(String, String)> {
                        let mut c: Vec<(String, String)> = fixed(at)
                            .into_iter()
                            .filter(|(k, _)| value.is_none_or(|(axis, _)| k != axis))
                            .collect();
                        c.extend(value.map(|(a, v)| (a.clone(), v.clone())));
                        c
                    };
                    let alone = stat_at(&cond(alone), &|r| of.of(r)).mean;
                    if *per_run {
                        stat_at(&cond(beside), &|r| {
                            of.of(r).and_then(|x| run_harm(alone, x))
                        })
                    } else {
                        let beside = stat_at(&cond(beside), &|r| of.of(r)).mean;
                        let harm = stats::harm(alone, beside);
                        if harm.is_finite() {
                            Stat::of(&[harm])
                        } else {
                            Stat::of(&[])
                        }
                    }
                };
                match by {
                    None if !*per_run => Value::Number(harm_at(None).mean),
                    None => Value::Stat(harm_at(None)),
                    Some(axis) => Value::ByAxis(
                        runs.axis(axis)
                            .into_iter()
                            .map(|v| {
                                let stat = harm_at(Some((axis, &v)));
                                let label = self.label(axis, &v);
                                (v, label, stat)
                            })
                            .collect(),
                    ),
                }
            }
            Measure::Near {
                of,
                targets,
                band,
                label: name,
                ..
            } => Value::Conditions(
                by_axis(of)?
                    .into_iter()
                    .filter(|(_, _, s)| s.mean.is_finite())
                    .filter_map(|(v, label, s)| {
                        let target = targets.get(&v)?;
                        let named = name.replace("{value}", &label).replace("{raw}", &v);
                        Some((
                            named,
                            (s.mean - target).abs() <= band.within(*target, margin),
                        ))
                    })
                    .collect(),
            ),
            Measure::Relabel { of, label, .. } => {
                match self.evaluate_in(runs, of, margin, context)? {
                    Value::Conditions(c) => Value::Conditions(
                        c.into_iter()
                            .map(|(l, ok)| (label.replace("{label}", &l), ok))
                            .collect(),
                    ),
                    _ => anyhow::bail!("`{of}` is not a condition measure"),
                }
            }
            Measure::PerValue {
                axis,
                values,
                of,
                label,
                ..
            } => {
                let mut kept = Vec::new();
                for v in chosen_values(values, runs.axis(axis)) {
                    let within = at_value(context, axis, &v);
                    let Value::Conditions(c) = self.evaluate_in(runs, of, margin, &within)? else {
                        anyhow::bail!("`{of}` is not a condition measure");
                    };
                    let value = self.label(axis, &v);
                    kept.extend(c.into_iter().map(|(condition, ok)| {
                        let name = label
                            .replace("{value}", &value)
                            .replace("{condition}", &condition)
                            .replace("{raw}", &v);
                        (name, ok)
                    }));
                }
                Value::Conditions(kept)
            }
            Measure::RunWindow {
                series,
                take,
                from_run,
                to_run,
                bin_s,
                zero_unset,
                at,
                by,
                ..
            } => along(at, by, &|r| {
                let points = self.series_points(runs, r, series).ok()?;
                let length = r.result().ok()?.sim_time_s;
                run_window(
                    &points,
                    *take,
                    (*from_run, *to_run),
                    length,
                    *bin_s,
                    *zero_unset,
                )
            }),
        })
    }

    /// The [`Stat`] of `mean` measure `id` at its `at` plus `extra`.
    fn mean_at(&self, runs: &Runs, id: &str, extra: &[(&str, &str)]) -> Stat {
        match self.measure(id) {
            Some(Measure::Mean { of, at, .. }) => {
                let mut fixed: Vec<(&str, &str)> =
                    at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                fixed.extend_from_slice(extra);
                runs.over_seeds(&fixed, |r| of.of(r))
            }
            Some(Measure::Recorded { id, .. }) => {
                let context: Vec<(String, String)> = extra
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                self.recorded[id].stat(&context)
            }
            _ => Stat::of(&[]),
        }
    }

    /// `f` of a quantity's means at conditions `a` and `b`, once or along
    /// `by` (each value then a [`Stat`] of one number).
    fn pair(
        &self,
        runs: &Runs,
        of: &Quantity,
        a: &[(String, String)],
        b: &[(String, String)],
        by: &Option<String>,
        f: fn(f64, f64) -> f64,
    ) -> Value {
        let mean = |at: &[(String, String)], extra: Option<(&str, &str)>| {
            let mut fixed: Vec<(&str, &str)> = at
                .iter()
                .filter(|(k, _)| extra.is_none_or(|(axis, _)| k != axis))
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            fixed.extend(extra);
            runs.over_seeds(&fixed, |r| of.of(r)).mean
        };
        match by {
            None => Value::Number(f(mean(a, None), mean(b, None))),
            Some(axis) => Value::ByAxis(
                runs.axis(axis)
                    .into_iter()
                    .map(|v| {
                        let x = f(mean(a, Some((axis, &v))), mean(b, Some((axis, &v))));
                        let label = self.label(axis, &v);
                        let stat = if x.is_finite() {
                            Stat::of(&[x])
                        } else {
                            Stat::of(&[])
                        };
                        (v, label, stat)
                    })
                    .collect(),
            ),
        }
    }

    fn series_points(
        &self,
        runs: &Runs,
        record: &RunRecord,
        s: &SeriesColumn,
    ) -> anyhow::Result<Vec<(f64, f64)>> {
        Ok(match (&s.column, s.flow) {
            (SeriesName::Flow(column), SeriesOf::Flow(flow)) => {
                column.points(&runs.flow_rows(record)?, flow)
            }
            (SeriesName::Controller(name), SeriesOf::Flow(flow)) => {
                runs.controller_series(record, flow, name)?
            }
            (SeriesName::Link(column), _) => column.points(&runs.link_rows(record)?),
            (SeriesName::Flow(_) | SeriesName::Controller(_), SeriesOf::Link(_)) => {
                anyhow::bail!("the link has no controller series")
            }
        })
    }

    /// A `[[timeline]]` figure: series of the first run at each line's
    /// parameters.
    fn timeline(&self, runs: &Runs, t: &TimelineSpec) -> Figure {
        let mut lines = Vec::new();
        for l in &t.lines {
            let mut at = t.at.clone();
            at.extend(l.at.iter().map(|(k, v)| (k.clone(), v.clone())));
            let fixed: Vec<(&str, &str)> =
                at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let Some(record) = runs.one(&fixed) else {
                continue;
            };
            let Ok(points) = self.series_points(runs, record, &l.series) else {
                continue;
            };
            let points = match l.rate_per_s {
                Some(bin_s) => stats::binned_rate(&points, bin_s),
                None => points,
            };
            let (from, to) = (
                t.from_s.unwrap_or(f64::NEG_INFINITY),
                t.to_s.unwrap_or(f64::INFINITY),
            );
            let points = points
                .into_iter()
                .filter(|(t, _)| (from..=to).contains(t))
                .map(|(t, v)| (t, v * l.scale))
                .collect();
            let style = match l.style {
                Style::Solid => LineStyle::Solid,
                Style::Dashed => LineStyle::Dashed,
                Style::Step => LineStyle::Step,
            };
            lines.push(Line::new(l.label.clone(), points).style(style));
        }
        let mut figure =
            Figure::lines(t.title.clone(), t.x_label.clone(), t.y_label.clone(), lines);
        if let Some([lo, hi]) = t.y_range {
            figure = figure.y_range(lo, hi);
        }
        if let (Some(from), Some(to)) = (t.from_s, t.to_s) {
            figure = figure.x_range(from, to);
        }
        for r in &t.reference {
            figure = figure.reference(ReferenceLine::horizontal(r.y, r.label.clone()));
        }
        figure
    }

    /// The file judged on another sweep, under another id, title and
    /// description ([`super::Retargeted`]: the quick tour's shortened
    /// version of a suite's experiment).
    pub fn retarget(mut self, to: &super::Retargeted) -> ExperimentFile {
        self.spec.id = to.id.to_string();
        self.spec.title = to.title.to_string();
        self.spec.description = to.description.to_string();
        self.spec.all_reproduced = to.all_reproduced.to_string();
        self.spec.scenario = Some(to.scenario.to_string());
        self.source = SweepSource::Scenarios(to.scenario.to_string());
        self
    }

    /// A `[[curve]]` figure (none if no line has a point); an axis value
    /// that is not a number is left out and named in `problems`.
    fn curve(&self, runs: &Runs, c: &CurveSpec, problems: &mut Vec<String>) -> Option<Figure> {
        let by = self.measure(&c.measure).and_then(Measure::by).unwrap_or("");
        let mut xs = Vec::new();
        for v in runs.axis_values(by) {
            match v.number() {
                Some(x) => xs.push((v.into_label(), x)),
                None => problems.push(format!(
                    "curve \"{}\": the {by} value `{v}` is not a number",
                    c.title
                )),
            }
        }
        let lines: Vec<(String, Vec<(f64, Stat)>)> = runs
            .axis(&c.lines)
            .into_iter()
            .map(|l| {
                let label = self.label(&c.lines, &l);
                let label = match &c.line_label {
                    Some(f) => f.replace("{}", &label),
                    None => label,
                };
                let mut fixed: Vec<(&str, &str)> =
                    c.at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                fixed.push((&c.lines, &l));
                let points = xs
                    .iter()
                    .filter_map(|(v, x)| {
                        let mut at = fixed.clone();
                        at.push((by, v));
                        let s = self.mean_at(runs, &c.measure, &at);
                        (s.n > 0).then_some((*x, s))
                    })
                    .collect();
                (label, points)
            })
            .collect();
        let mut figure_lines: Vec<Line> = lines
            .iter()
            .map(|(label, points)| {
                Line::new(
                    label.clone(),
                    points.iter().map(|(x, s)| (*x, s.mean * c.scale)).collect(),
                )
            })
            .collect();
        if lines.iter().all(|(_, p)| p.is_empty()) {
            return None;
        }
        let spread = lines.iter().any(|(_, p)| p.iter().any(|(_, s)| s.n > 1));
        let mut top = f64::NEG_INFINITY;
        for (i, (label, points)) in lines.iter().enumerate() {
            let mut whiskers = Vec::new();
            for (x, s) in points {
                let sd = if s.sd.is_finite() { s.sd } else { 0.0 };
                top = top.max((s.mean + sd) * c.scale);
                // A small offset per line keeps the whiskers apart.
                let x = x + 0.04 * i as f64;
                whiskers.push((x, (s.mean - sd) * c.scale));
                whiskers.push((x, (s.mean + sd) * c.scale));
                whiskers.push((f64::NAN, f64::NAN));
            }
            if c.errors && spread {
                figure_lines.push(Line::new("", whiskers).colour_of(label.clone()));
            }
        }
        let mut figure = Figure::lines(
            c.title.clone(),
            c.x_label.clone(),
            c.y_label.clone(),
            figure_lines,
        );
        if let Some([lo, hi]) = c.y_range {
            figure = figure.y_range(lo, if c.errors { hi.max(top) } else { hi });
        }
        for r in &c.reference {
            figure = figure.reference(ReferenceLine::horizontal(r.y, r.label.clone()));
        }
        Some(figure)
    }

    /// The report section and the judged claims of the experiment on `runs`.
    pub fn analyze(&self, runs: &Runs) -> Analysis {
        let note = seeds_note(runs);
        let noted = |title: &str, with: bool| {
            if title.contains("{seeds}") {
                title.replace("{seeds}", &note)
            } else if with {
                format!("{title} ({note})")
            } else {
                title.to_string()
            }
        };
        let mut section = Section::new(self.spec.id.clone(), self.spec.title.clone())
            .description(self.spec.description.trim().replace("{seeds}", &note));
        let mut problems = Vec::new();
        let along = |id: &str, problems: &mut Vec<String>| -> Vec<(String, String, Stat)> {
            match self.evaluate(runs, id, 0.0) {
                Ok(Value::ByAxis(v)) => v,
                Ok(_) => Vec::new(),
                Err(e) => {
                    problems.push(format!("{id}: {e:#}"));
                    Vec::new()
                }
            }
        };
        for t in &self.spec.timelines {
            section = section.figure(self.timeline(runs, t));
        }
        for f in self.spec.figures.iter().filter(|f| f.groups.is_some()) {
            let (Some(groups), Some(Measure::Mean { by: Some(by), .. })) =
                (&f.groups, self.measure(&f.measure))
            else {
                continue;
            };
            let xs = runs.axis(by);
            let bars: Vec<BarGroup> = runs
                .axis(groups)
                .iter()
                .map(|g| {
                    let stats: Vec<Stat> = xs
                        .iter()
                        .map(|x| self.mean_at(runs, &f.measure, &[(by, x), (groups, g)]))
                        .collect();
                    let bars = BarGroup::new(
                        self.label(groups, g),
                        stats.iter().map(|s| s.mean * f.scale).collect(),
                    );
                    if f.errors {
                        bars.errors(stats.iter().map(|s| s.sd * f.scale).collect())
                    } else {
                        bars
                    }
                })
                .collect();
            let mut figure = Figure::bars(
                noted(&f.title, f.seeds_note),
                f.x_label.clone(),
                f.y_label.clone(),
                xs.iter().map(|x| {
                    f.x_labels
                        .get(x)
                        .cloned()
                        .unwrap_or_else(|| self.label(by, x))
                }),
                bars,
            );
            if let Some([lo, hi]) = f.y_range {
                figure = figure.y_range(lo, hi);
            }
            if f.log_y {
                figure = figure.log_y();
            }
            if let Some(r) = &f.reference {
                if let Some(y) = r.y.or_else(|| self.reference_number(runs, r, f.scale)) {
                    figure = figure.reference(ReferenceLine::horizontal(y, r.label.clone()));
                }
            }
            section = section.figure(figure);
        }
        for f in self.spec.figures.iter().filter(|f| f.groups.is_none()) {
            let values = along(&f.measure, &mut problems);
            let reference = f.reference.as_ref().and_then(|r| match (&r.at, r.y) {
                (_, Some(y)) => Some(y),
                (None, None) if r.measure.is_some() => self.reference_number(runs, r, f.scale),
                (Some(at), None) => values
                    .iter()
                    .find(|(v, _, _)| v == at)
                    .map(|(_, _, s)| s.mean * f.scale),
                (None, None) => None,
            });
            let mut figure = Figure::bars(
                noted(&f.title, f.seeds_note),
                f.x_label.clone(),
                f.y_label.clone(),
                values
                    .iter()
                    .map(|(v, l, _)| f.x_labels.get(v).unwrap_or(l).clone()),
                vec![BarGroup::new(
                    f.series.clone().unwrap_or_else(|| f.measure.clone()),
                    values.iter().map(|(_, _, s)| s.mean * f.scale).collect(),
                )
                .errors(values.iter().map(|(_, _, s)| s.sd * f.scale).collect())],
            );
            if let Some([lo, hi]) = f.y_range {
                figure = figure.y_range(lo, hi);
            }
            if f.log_y {
                figure = figure.log_y();
            }
            if let (Some(y), Some(r)) = (reference, &f.reference) {
                figure = figure.reference(ReferenceLine::horizontal(y, r.label.clone()));
            }
            section = section.figure(figure);
        }
        for c in &self.spec.curves {
            if let Some(figure) = self.curve(runs, c, &mut problems) {
                section = section.figure(figure);
            }
        }
        for t in &self.spec.trees {
            section = self.tree(
                runs,
                t,
                &noted(&t.title, t.seeds_note),
                section,
                &mut problems,
            );
        }
        for t in &self.spec.tables {
            let mut headers = t.first.list();
            headers.extend(t.columns.iter().map(|c| c.header.clone()));
            let mut table = Table::new(noted(&t.title, t.seeds_note), headers);
            // Rows of parameters: given one by one, or every combination
            // of several axes' values.
            let rows: Option<Vec<RowSpec>> = match (&t.by, &t.rows) {
                (_, Some(rows)) => Some(rows.clone()),
                (Some(Headers::Several(axes)), None) => {
                    let mut rows = vec![RowSpec {
                        cells: Vec::new(),
                        at: BTreeMap::new(),
                    }];
                    for axis in axes {
                        rows = rows
                            .into_iter()
                            .flat_map(|r| {
                                runs.axis(axis).into_iter().map(move |v| {
                                    let mut r = r.clone();
                                    r.cells.push(self.label(axis, &v));
                                    r.at.insert(axis.clone(), v);
                                    r
                                })
                            })
                            .collect();
                    }
                    Some(rows)
                }
                _ => None,
            };
            let by = match &t.by {
                Some(Headers::One(by)) => Some(by),
                _ => None,
            };
            match (by, &t.then, &rows) {
                (Some(by), Some(then), _) => {
                    for v in runs.axis(by) {
                        for w in runs.axis(then) {
                            let mut row = vec![Cell::text(format!(
                                "{}, {}",
                                self.label(then, &w),
                                self.label(by, &v)
                            ))];
                            for c in &t.columns {
                                let s = self.mean_at(
                                    runs,
                                    &c.measure,
                                    &[(by.as_str(), v.as_str()), (then, w.as_str())],
                                );
                                row.push(c.format.cell(s, c.scale, c.decimals));
                            }
                            table = table.row(row);
                        }
                    }
                }
                (Some(by), None, None) => {
                    let columns: Vec<Vec<(String, String, Stat)>> = t
                        .columns
                        .iter()
                        .map(|c| along(&c.measure, &mut problems))
                        .collect();
                    for value in runs.axis(by) {
                        let mut row = vec![Cell::text(self.label(by, &value))];
                        for (c, values) in t.columns.iter().zip(&columns) {
                            let at = |v: &str| {
                                values.iter().find(|(x, _, _)| x == v).map(|(_, _, s)| *s)
                            };
                            let cell = match (at(&value), &c.minus) {
                                (None, _) => Cell::text("—"),
                                (Some(s), None) => c.format.cell(s, c.scale, c.decimals),
                                (Some(s), Some(r)) => match at(r) {
                                    Some(r) if s.mean.is_finite() && r.mean.is_finite() => {
                                        Cell::fixed((s.mean - r.mean) * c.scale, c.decimals as u8)
                                    }
                                    _ => Cell::text("—"),
                                },
                            };
                            row.push(cell);
                        }
                        table = table.row(row);
                    }
                }
                (_, _, Some(rows)) => {
                    for r in rows {
                        let context: Vec<(String, String)> =
                            r.at.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                        let mut row: Vec<Cell> = r.cells.iter().map(Cell::text).collect();
                        for c in &t.columns {
                            let s = match self.evaluate_in(runs, &c.measure, 0.0, &context) {
                                Ok(Value::Stat(s)) => s,
                                Ok(Value::Number(v)) => Stat::of(&[v]),
                                Ok(_) => Stat::of(&[]),
                                Err(e) => {
                                    problems.push(format!("{}: {e:#}", c.measure));
                                    Stat::of(&[])
                                }
                            };
                            row.push(c.format.cell(s, c.scale, c.decimals));
                        }
                        table = table.row(row);
                    }
                }
                (None, _, None) => {}
            }
            section = section.table(table);
        }
        let judge = |context: &[(String, String)]| -> Vec<Judged> {
            self.claims
                .iter()
                .map(|(claim, measure, precondition)| {
                    self.judge(runs, claim, measure, precondition.as_deref(), context)
                })
                .collect()
        };
        let judged: Vec<Judged> = match &self.spec.judge_at {
            None => judge(&[]),
            Some(at) => {
                let axis = runs.axis(&at.axis);
                at.values
                    .iter()
                    .flat_map(|v| {
                        let label = self.label(&at.axis, v);
                        let judged = if axis.contains(v) {
                            judge(&[(at.axis.clone(), v.clone())])
                        } else {
                            self.claims
                                .iter()
                                .map(|(claim, _, _)| {
                                    claim.judge(Measured::NotRun(format!(
                                        "the sweep has no {label}"
                                    )))
                                })
                                .collect()
                        };
                        judged.into_iter().map(move |j| Judged {
                            ours: format!("{label}: {}", j.ours),
                            ..j
                        })
                    })
                    .collect()
            }
        };
        if !problems.is_empty() {
            section.description.push_str(&format!(
                " Measures that could not be taken: {}.",
                problems.join("; ")
            ));
        }
        section.description.push_str(&format!(
            " Experiment file: {} (sha256 {}).",
            self.name, self.sha256
        ));
        Analysis::judged(section, judged, &self.spec.all_reproduced)
    }

    /// The number of a reference line's `measure`, times `scale` (none
    /// without a measure, or where it has no finite number).
    fn reference_number(&self, runs: &Runs, r: &ReferenceSpec, scale: f64) -> Option<f64> {
        let number = match self.evaluate(runs, r.measure.as_ref()?, 0.0).ok()? {
            Value::Number(v) => v,
            Value::Stat(s) => s.mean,
            _ => return None,
        };
        (number * scale).is_finite().then_some(number * scale)
    }

    /// `section` with the tree `t` (titled `title`) and its leaves' table.
    fn tree(
        &self,
        runs: &Runs,
        t: &TreeSpec,
        title: &str,
        section: Section,
        problems: &mut Vec<String>,
    ) -> Section {
        let Some(Measure::Named { params, .. }) = self.measure(&t.measure) else {
            return section;
        };
        let leaves = t.leaves.as_deref().unwrap_or_default();
        match super::measures::decision_tree::tree_figure(runs, params, title, leaves) {
            Ok(Some((figure, table))) => {
                let section = section.figure(figure);
                match t.leaves {
                    Some(_) => section.table(table),
                    None => section,
                }
            }
            Ok(None) => {
                problems.push(format!("{}: fewer than two samples", t.measure));
                section
            }
            Err(e) => {
                problems.push(format!("{}: {e:#}", t.measure));
                section
            }
        }
    }

    /// A precondition's `unmet` text with each `{ID}` replaced by one-number
    /// measure `ID`'s number in `context` ("—" without one).
    fn unmet_text(
        &self,
        runs: &Runs,
        text: &str,
        decimals: usize,
        context: &[(String, String)],
    ) -> String {
        placeholders(text)
            .into_iter()
            .fold(text.to_string(), |out, id| {
                let number = match self.evaluate_in(runs, id, 0.0, context) {
                    Ok(Value::Number(v)) => v,
                    Ok(Value::Stat(s)) => s.mean,
                    _ => f64::NAN,
                };
                let shown = if number.is_finite() {
                    format!("{number:.decimals$}")
                } else {
                    "—".to_string()
                };
                out.replace(&format!("{{{id}}}"), &shown)
            })
    }

    /// A claim judged on `measure` (and its precondition's) in `context`.
    fn judge(
        &self,
        runs: &Runs,
        claim: &'static Claim,
        measure: &str,
        precondition: Option<&str>,
        context: &[(String, String)],
    ) -> Judged {
        let spec = self.spec.claims.iter().find(|c| c.id == claim.id());
        let measured = match self.evaluate_in(runs, measure, claim.margin(), context) {
            Ok(Value::Conditions(c)) if spec.is_some_and(|s| s.every_condition) => {
                every_condition(&c)
            }
            Ok(v) => v.measured(),
            Err(e) => Measured::NotRun(format!("{e:#}")),
        };
        let Some(precondition) = precondition else {
            return claim.judge(measured);
        };
        let unmet = spec
            .and_then(|s| s.precondition.as_ref())
            .and_then(|p| Some((p.unmet.as_deref()?, p.decimals)));
        match self.evaluate_in(runs, precondition, 0.0, context) {
            Ok(Value::Conditions(c)) if !c.is_empty() => {
                let failed: Vec<&str> = c
                    .iter()
                    .filter(|(_, ok)| !ok)
                    .map(|(l, _)| l.as_str())
                    .collect();
                let detail = match unmet {
                    Some((text, decimals)) => self.unmet_text(runs, text, decimals, context),
                    None => format!("not at {}", failed.join(", ")),
                };
                claim.judge_given(failed.is_empty(), &detail, measured)
            }
            Ok(_) => claim.judge(Measured::NotRun(
                "its precondition has no condition measured".into(),
            )),
            Err(e) => claim.judge(Measured::NotRun(format!("{e:#}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
id = "x"
title = "X"
scenario = "obbr/competitiveness-deep.toml"

[[measure]]
id = "share"
kind = "mean"
of = { metric = "share", flow = 0 }
by = "flow.0.cc"

[[measure]]
id = "like"
kind = "compare"
of = "share"
reference = "bbr"
holds = "at_least"

[[claim]]
id = "t.x"
paper = "obbr"
place = "p"
statement = "s"
about = "a"
metric = "m"
unit = "%"
paper_says = "p"
test = { kind = "direction", margin = 0.05 }
tolerance_reason = "r"
origin = "project analysis"
measure = "like"
"#;

    #[test]
    fn a_minimal_file_parses_and_hashes_its_bytes() {
        let f = ExperimentFile::parse("x.toml", MINIMAL, None).unwrap();
        assert_eq!(f.id(), "x");
        assert_eq!(f.claims.len(), 1);
        assert_eq!(f.claims[0].0.margin(), 0.05);
        assert_eq!(f.sha256, sha256_hex(MINIMAL.as_bytes()));
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn errors_name_the_file_the_line_and_the_key() {
        let text = MINIMAL.replace("holds = \"at_least\"", "holds = \"at_least\"\nmargin = 3");
        let e = ExperimentFile::parse("x.toml", &text, None)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.toml (line "), "{e}");
        assert!(e.contains("margin"), "{e}");
        let text = MINIMAL.replace("measure = \"like\"", "measure = \"nothing\"");
        let e = ExperimentFile::parse("x.toml", &text, None)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.toml: claim.measure (line "), "{e}");
        assert!(e.contains("no measure `nothing`"), "{e}");
        let text = MINIMAL.replace("origin = \"project analysis\"", "origin = \"mine\"");
        let e = ExperimentFile::parse("x.toml", &text, None)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("x.toml (line 30, column 10): unknown variant `mine`"),
            "{e}"
        );
    }

    /// A run's summary: one short simulation of three flows, whose
    /// goodputs and retransmitted bytes the tests then set.
    fn template() -> serde_json::Value {
        static TEMPLATE: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
        TEMPLATE
            .get_or_init(|| {
                let text = "name = \"t\"\nduration = \"500ms\"\n[link]\nrate = \"10Mbit\"\nrtt = \"20ms\"\nbuffer = \"1bdp\"\n\
                            [[flow]]\ncc = \"bbr\"\ncount = 3\n";
                let config = scenario::from_str(text, Path::new("t.toml"), &[])
                    .unwrap()
                    .config;
                serde_json::to_value(sim::Simulation::new(config).run()).unwrap()
            })
            .clone()
    }

    /// A run at `params` whose flows have these goodputs (bit/s) and
    /// retransmitted bytes.
    fn point(
        params: &[(&str, &str)],
        goodputs: &[f64],
        retx: &[u64],
    ) -> (Vec<(String, scenario::AxisValue)>, RunRecord) {
        let mut summary = template();
        let flows = summary["flows"].as_array_mut().unwrap();
        for (i, f) in flows.iter_mut().enumerate() {
            f["goodput_bps"] = serde_json::json!(goodputs[i]);
            f["bytes_retransmitted"] = serde_json::json!(retx[i]);
        }
        let params: Vec<(String, scenario::AxisValue)> = params
            .iter()
            .map(|(k, v)| (k.to_string(), scenario::AxisValue::parse(*v)))
            .collect();
        let id = params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",");
        (
            params.clone(),
            RunRecord::new(id, params, String::new(), summary),
        )
    }

    /// Two controllers (`a`, `b`) by two buffers (`1`, `2`), two seeds.
    fn grid(dir: &Path) -> Runs {
        let mut points = Vec::new();
        for (cc, buffer, seed, g, r) in [
            ("a", "1", "1", [6.0, 2.0, 2.0], [10, 0, 0]),
            ("a", "1", "2", [6.0, 2.0, 2.0], [30, 0, 0]),
            ("a", "2", "1", [4.0, 4.0, 2.0], [5, 1, 0]),
            ("a", "2", "2", [4.0, 4.0, 2.0], [5, 1, 0]),
            ("b", "1", "1", [2.0, 2.0, 6.0], [40, 0, 0]),
            ("b", "1", "2", [2.0, 2.0, 6.0], [40, 0, 0]),
            ("b", "2", "1", [1.0, 1.0, 8.0], [5, 0, 2]),
            ("b", "2", "2", [1.0, 1.0, 8.0], [5, 0, 2]),
        ] {
            points.push(point(
                &[("cc", cc), ("buffer", buffer), ("seed", seed)],
                &g,
                &r,
            ));
        }
        let axes: [(&str, &[&str]); 3] = [
            ("cc", &["a", "b"]),
            ("buffer", &["1", "2"]),
            ("seed", &["1", "2"]),
        ];
        runs_of(points, &axes, dir)
    }

    /// The runs of `points` on `axes` (each a key and its values), in `dir`.
    fn runs_of(
        points: Vec<(Vec<(String, scenario::AxisValue)>, RunRecord)>,
        axes: &[(&str, &[&str])],
        dir: &Path,
    ) -> Runs {
        Runs {
            points,
            axes: axes
                .iter()
                .map(|(key, values)| scenario::Axis {
                    key: key.to_string(),
                    values: values
                        .iter()
                        .map(|v| scenario::AxisValue::parse(*v))
                        .collect(),
                })
                .collect(),
            dir: dir.to_path_buf(),
            missing: 0,
            rejected: Vec::new(),
        }
    }

    /// The [`grid`] in a fresh directory `bbrlab-file-NAME-PID` whose
    /// runs' series files `write` writes, given each run's parameters and
    /// directory.
    fn grid_with_series(
        name: &str,
        write: impl Fn(&[(String, scenario::AxisValue)], &Path),
    ) -> (PathBuf, Runs) {
        let dir = std::env::temp_dir().join(format!("bbrlab-file-{name}-{}", std::process::id()));
        let runs = grid(&dir);
        for (params, record) in &runs.points {
            let run = dir.join("runs").join(&record.id);
            std::fs::create_dir_all(&run).unwrap();
            write(params, &run);
        }
        (dir, runs)
    }

    /// A series CSV with the columns a test sets, completed with the
    /// other columns of the simulator's row (`zero`'s values) as a run
    /// writes them.
    fn complete_series<T: serde::Serialize>(partial: &str, zero: T) -> String {
        let zero = serde_json::to_value(zero).unwrap();
        let zero = zero.as_object().unwrap();
        let mut reader = csv::Reader::from_reader(partial.as_bytes());
        let header = reader.headers().unwrap().clone();
        let missing: Vec<(&String, String)> = zero
            .iter()
            .filter(|(name, _)| !header.iter().any(|h| h == name.as_str()))
            .map(|(name, v)| {
                (
                    name,
                    v.as_str().map_or_else(|| v.to_string(), str::to_string),
                )
            })
            .collect();
        let mut w = csv::Writer::from_writer(Vec::new());
        let names = header.iter().chain(missing.iter().map(|(n, _)| n.as_str()));
        w.write_record(names).unwrap();
        for row in reader.records() {
            let row = row.unwrap();
            w.write_record(row.iter().chain(missing.iter().map(|(_, v)| v.as_str())))
                .unwrap();
        }
        String::from_utf8(w.into_inner().unwrap()).unwrap()
    }

    /// A row of the `keys` (name and text) and every one of `columns` at 0.
    fn zeros<C: serde::Serialize>(columns: &[C], keys: &[(&str, &str)]) -> serde_json::Value {
        let mut row: serde_json::Map<String, serde_json::Value> = keys
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
            .collect();
        for c in columns {
            let name = serde_json::to_value(c).unwrap();
            row.insert(name.as_str().unwrap().to_string(), serde_json::json!(0));
        }
        serde_json::Value::Object(row)
    }

    fn complete_flows(partial: &str) -> String {
        let keys = [("t_s", "0"), ("flow", "0"), ("mode", "startup")];
        complete_series(partial, zeros(&sim::FlowColumn::ALL, &keys))
    }

    fn complete_link(partial: &str) -> String {
        complete_series(partial, zeros(&sim::LinkColumn::ALL, &[("t_s", "0")]))
    }

    const HEAD: &str = r#"
id = "t"
title = "T"
sweep = "none.toml"
"#;

    fn file(body: &str) -> ExperimentFile {
        ExperimentFile::parse("t.toml", &format!("{HEAD}{body}"), None).unwrap()
    }

    fn error(body: &str) -> String {
        ExperimentFile::parse("t.toml", &format!("{HEAD}{body}"), None)
            .expect_err("the file must not parse")
            .to_string()
    }

    /// Each `(id, says)` measure of `f` parses but cannot be taken: its
    /// error (with its causes) starts with `prefix` and says `says`.
    fn evaluation_refused(f: &ExperimentFile, runs: &Runs, prefix: &str, cases: &[(&str, &str)]) {
        for (id, says) in cases {
            let e = format!("{:#}", f.evaluate(runs, id, 0.0).unwrap_err());
            assert!(e.starts_with(prefix) && e.contains(says), "{id}: {e}");
        }
    }

    fn number(f: &ExperimentFile, runs: &Runs, id: &str) -> f64 {
        match f.evaluate(runs, id, 0.0).unwrap() {
            Value::Stat(s) => s.mean,
            Value::Number(v) => v,
            v => panic!("{id}: {v:?}"),
        }
    }

    fn conditions(f: &ExperimentFile, runs: &Runs, id: &str, margin: f64) -> Vec<(String, bool)> {
        match f.evaluate(runs, id, margin).unwrap() {
            Value::Conditions(c) => c,
            v => panic!("{id}: {v:?}"),
        }
    }

    #[test]
    fn left_startup_and_the_split_of_lost_bytes() {
        let mut summary = template();
        let flows = summary["flows"].as_array_mut().unwrap();
        // Flow 0 left Startup, flow 1 stayed in it, flow 2 has no Startup.
        flows[0]["startup_exit_s"] = serde_json::json!(1.5);
        flows[0]["startup_peak_pacing_bps"] = serde_json::json!(2e7);
        flows[1].as_object_mut().unwrap().remove("startup_exit_s");
        flows[1]["startup_peak_pacing_bps"] = serde_json::json!(2e7);
        for key in ["startup_exit_s", "startup_peak_pacing_bps", "lost_split"] {
            flows[2].as_object_mut().unwrap().remove(key);
        }
        flows[0]["bytes_lost"] = serde_json::json!(10_000);
        flows[0]["lost_split"] = serde_json::json!({
            "padding_bytes": 4_000, "sent_in_startup_bytes": 3_000, "sent_probing_bytes": 2_000,
        });
        let record = RunRecord::new("r".into(), Vec::new(), String::new(), summary);
        let of = |metric: Metric, flow: usize| {
            Quantity {
                metric,
                flow: FlowSel::Index(flow),
                per: None,
                over: None,
            }
            .of(&record)
        };
        assert_eq!(of(Metric::LeftStartup, 0), Some(1.0));
        assert_eq!(of(Metric::LeftStartup, 1), Some(0.0));
        assert_eq!(of(Metric::LeftStartup, 2), None, "no Startup, no number");
        assert_eq!(of(Metric::LostPaddingBytes, 0), Some(4_000.0));
        assert_eq!(of(Metric::LostInStartupBytes, 0), Some(3_000.0));
        assert_eq!(of(Metric::LostProbingBytes, 0), Some(2_000.0));
        assert_eq!(of(Metric::LostAtUnitGainBytes, 0), Some(1_000.0));
        for m in [
            Metric::LostPaddingBytes,
            Metric::LostInStartupBytes,
            Metric::LostProbingBytes,
            Metric::LostAtUnitGainBytes,
        ] {
            assert_eq!(of(m, 2), None, "{m:?}: no split, no number");
        }
        // The share of flows that left Startup, of those with a Startup.
        let share = Quantity {
            metric: Metric::LeftStartup,
            flow: FlowSel::Over(Aggregate::Mean),
            per: None,
            over: None,
        };
        assert_eq!(share.of(&record), Some(0.5), "flow 2 is left out");
        // A misspelt metric is refused naming the file, line and key.
        let e = error(
            "[[measure]]\nid = \"m\"\nkind = \"mean\"\nof = { metric = \"lost_in_probing_bytes\" }\n",
        );
        assert!(e.starts_with("t.toml: metric (line 8)"), "{e}");
        assert!(e.contains("unknown variant `lost_in_probing_bytes`"), "{e}");
        assert!(e.contains("lost_probing_bytes"), "{e}");
    }

    #[test]
    fn a_quantity_over_another_of_the_same_run() {
        let mut summary = template();
        summary["link"]["capacity_peak_bps"] = serde_json::json!(1e7);
        summary["flows"][0]["startup_peak_pacing_bps"] = serde_json::json!(2.5e7);
        summary["flows"][1]["startup_peak_pacing_bps"] = serde_json::json!(2e7);
        summary["flows"][1]["goodput_bps"] = serde_json::json!(0.0);
        summary["flows"][2]
            .as_object_mut()
            .unwrap()
            .remove("startup_peak_pacing_bps");
        let record = RunRecord::new("r".into(), Vec::new(), String::new(), summary);
        let quantity = |text: &str| -> Quantity { toml::from_str(text).unwrap() };
        let overshoot = |flow: usize| {
            quantity(&format!(
                "metric = \"startup_peak_pacing_bps\"\nflow = {flow}\nover = {{ metric = \"link_capacity_peak_bps\" }}"
            ))
            .of(&record)
        };
        assert_eq!(overshoot(0), Some(2.5));
        assert_eq!(overshoot(2), None, "no dividend, no number");
        // A divisor of 0 gives no number; `per` applies after `over`.
        let q = quantity(
            "metric = \"startup_peak_pacing_bps\"\nflow = 0\nover = { metric = \"goodput_bps\", flow = 1 }",
        );
        assert_eq!(q.of(&record), None);
        let q = quantity(
            "metric = \"startup_peak_pacing_bps\"\nper = 0.01\nover = { metric = \"link_capacity_peak_bps\" }",
        );
        assert_eq!(q.of(&record), Some(250.0));
        // A bad `over` is refused naming the file, line and key.
        let e = error(
            "[[measure]]\nid = \"m\"\nkind = \"mean\"\nof = { metric = \"goodput_bps\", over = { metric = \"capacity\" } }\n",
        );
        assert!(e.starts_with("t.toml: metric (line 8)"), "{e}");
        assert!(e.contains("unknown variant `capacity`"), "{e}");
        let e = error(
            "[[measure]]\nid = \"m\"\nkind = \"mean\"\nof = { metric = \"goodput_bps\", over = { metric = \"goodput_bps\", per = 0 } }\n",
        );
        assert!(e.starts_with("t.toml: measure.of.over.per (line 6)"), "{e}");
        assert!(e.contains("expected a positive number"), "{e}");
    }

    #[test]
    fn flow_groups_least_and_largest_and_the_equal_share_ratio() {
        let runs = grid(Path::new("."));
        let f = file(
            r#"
[[measure]]
id = "group"
kind = "mean"
of = { metric = "share", flow = [0, 1] }
at = { cc = "a", buffer = "1" }

[[measure]]
id = "group-retx"
kind = "mean"
of = { metric = "bytes_retransmitted", flow = [0, 2] }
at = { cc = "b", buffer = "2" }

[[measure]]
id = "missing-flow"
kind = "mean"
of = { metric = "share", flow = [0, 7] }

[[measure]]
id = "smallest"
kind = "mean"
of = { metric = "equal_share_ratio", flow = "min" }
at = { cc = "a", buffer = "1" }

[[measure]]
id = "largest"
kind = "mean"
of = { metric = "goodput_bps", flow = "max" }
at = { cc = "b", buffer = "2" }
"#,
        );
        assert_eq!(number(&f, &runs, "group"), 0.8);
        assert_eq!(number(&f, &runs, "group-retx"), 7.0);
        assert!(number(&f, &runs, "missing-flow").is_nan());
        // 2 of an equal share of 10 / 3.
        assert!((number(&f, &runs, "smallest") - 0.6).abs() < 1e-12);
        assert_eq!(number(&f, &runs, "largest"), 8.0);
    }

    #[test]
    fn a_condition_compares_two_numbers_strictly_or_not() {
        let runs = grid(Path::new("."));
        let body = |holds: &str| {
            format!(
                r#"
[[measure]]
id = "x"
kind = "mean"
of = {{ metric = "goodput_bps", flow = 0 }}
at = {{ cc = "a", buffer = "2" }}

[[measure]]
id = "y"
kind = "mean"
of = {{ metric = "goodput_bps", flow = 1 }}
at = {{ cc = "a", buffer = "2" }}

[[measure]]
id = "c"
kind = "condition"
a = "x"
b = "y"
holds = "{holds}"
label = "equal goodputs"
"#
            )
        };
        let held = |holds: &str, margin: f64| conditions(&file(&body(holds)), &runs, "c", margin);
        let one = |ok: bool| vec![("equal goodputs".to_string(), ok)];
        assert_eq!(held("at_least", 0.0), one(true));
        assert_eq!(held("above", 0.0), one(false));
        assert_eq!(held("above", 0.5), one(true));
        assert_eq!(held("below", 0.0), one(false));
        assert_eq!(held("at_most", 0.0), one(true));
        let e = error(&body("above").replace("b = \"y\"", "b = \"nothing\""));
        assert!(e.starts_with("t.toml: measure.of (line "), "{e}");
        assert!(e.contains("`nothing` must be a one-number measure"), "{e}");
    }

    #[test]
    fn direction_and_count_take_chosen_values_and_strict_steps() {
        let runs = grid(Path::new("."));
        let f = file(
            r#"
[[measure]]
id = "retx"
kind = "mean"
of = { metric = "bytes_retransmitted", flow = 0 }
at = { buffer = "2" }
by = "cc"

[[measure]]
id = "flat"
kind = "direction"
of = "retx"
way = "increasing"

[[measure]]
id = "rising"
kind = "direction"
of = "retx"
way = "increasing"
strict = true

[[measure]]
id = "just-b"
kind = "count"
of = "retx"
holds = "below"
bound = 5.0
values = ["b"]
"#,
        );
        assert_eq!(
            conditions(&f, &runs, "flat", 0.0),
            vec![("a to b".to_string(), true)]
        );
        assert_eq!(
            conditions(&f, &runs, "rising", 0.0),
            vec![("a to b".to_string(), false)]
        );
        assert_eq!(
            conditions(&f, &runs, "just-b", 0.0),
            vec![("b".to_string(), false)]
        );
        assert_eq!(
            conditions(&f, &runs, "just-b", 1.0),
            vec![("b".to_string(), true)]
        );
    }

    #[test]
    fn a_table_of_rows_takes_each_measure_at_the_rows_parameters() {
        let runs = grid(Path::new("."));
        let f = file(
            r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps", flow = 0 }

[[measure]]
id = "of-b"
kind = "ratio"
of = { metric = "goodput_bps", flow = 0 }
a = {}
b = { cc = "b" }

[[measure]]
id = "retx"
kind = "mean"
of = { metric = "bytes_retransmitted", flow = 0 }

[[table]]
title = "Rows"
seeds_note = false
first = ["controller", "buffer"]
rows = [
    { cells = ["A", "1"], at = { cc = "a", buffer = "1" } },
    { cells = ["A", "2"], at = { cc = "a", buffer = "2" } },
]
columns = [
    { header = "goodput", measure = "goodput", format = "mean", decimals = 1 },
    { header = "of b's", measure = "of-b", format = "percent", decimals = 0 },
    { header = "retransmitted", measure = "retx", format = "stat", scale = 0.1, decimals = 1 },
    { header = "retransmitted (mean ± sd)", measure = "retx", decimals = 1 },
]
"#,
        );
        let section = f.analyze(&runs).section;
        let table = &section.tables[0];
        assert_eq!(table.caption, "Rows");
        assert_eq!(
            table.header,
            [
                "controller",
                "buffer",
                "goodput",
                "of b's",
                "retransmitted",
                "retransmitted (mean ± sd)"
            ]
        );
        assert_eq!(
            table.rows[0],
            [
                Cell::text("A"),
                Cell::text("1"),
                Cell::fixed(6.0, 1),
                Cell::percent(3.0, 0),
                Cell::text("2.0 ± 1.4"),
                Cell::text("20.0 ± 14.1"),
            ]
        );
        assert_eq!(table.rows[1][3], Cell::percent(4.0, 0));
        assert_eq!(table.rows[1][5], Cell::text("5.0"));
    }

    #[test]
    fn bad_tables_figures_and_timelines_are_named_by_file_line_and_key() {
        let rows = r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps" }

[[table]]
title = "Rows"
first = ["a", "b"]
rows = [{ cells = ["only one"], at = {} }]
columns = [{ header = "g", measure = "goodput" }]
"#;
        let e = error(rows);
        assert!(e.starts_with("t.toml: table.rows.cells (line "), "{e}");
        assert!(e.contains("1 cells (only one) for 2 header(s)"), "{e}");
        let e = error(&rows.replace("first = [\"a\", \"b\"]", "first = [\"a\"]\nby = \"cc\""));
        assert!(e.starts_with("t.toml: table.by (line "), "{e}");
        let e = error(
            &rows
                .replace("[\"only one\"]", "[\"one\", \"two\"]")
                .replace("\"goodput\" }]", "\"goodput\", minus = \"a\" }]"),
        );
        assert!(e.starts_with("t.toml: table.columns.minus (line "), "{e}");
        let figure = r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps" }
by = "cc"

[[figure]]
title = "Goodput"
measure = "goodput"
x_label = "x"
y_label = "y"
reference = { at = "a", y = 1.0, label = "both" }
"#;
        let e = error(figure);
        assert!(e.starts_with("t.toml: figure.reference (line 13)"), "{e}");
        let e = error(&figure.replace("at = \"a\"", "measure = \"goodput\""));
        assert!(e.starts_with("t.toml: figure.reference (line 13)"), "{e}");
        let e = error(&figure.replace("at = \"a\", y = 1.0", "measure = \"goodput\""));
        assert!(
            e.starts_with("t.toml: figure.reference.measure (line 13)"),
            "{e}"
        );
        assert!(e.contains("`goodput` must be a one-number measure"), "{e}");
        let timeline = r#"
[[timeline]]
title = "Over time"
y_label = "y"
lines = [{ label = "cwnd", series = { column = "cwnd" }, rate_per_s = 0 }]
"#;
        let e = error(timeline);
        assert!(
            e.starts_with("t.toml: timeline.lines.rate_per_s (line 9)"),
            "{e}"
        );
        let e = error(&timeline.replace("rate_per_s = 0", "style = \"dotted\""));
        assert!(e.starts_with("t.toml (line 9, column "), "{e}");
        assert!(e.contains("unknown variant `dotted`"), "{e}");
    }

    #[test]
    fn window_means_per_another_series_and_timelines_read_the_runs_series() {
        let (dir, runs) = grid_with_series("test", |_, run| {
            let mut flows = String::from("t_s,flow,bw_estimate_bps,delivered\n");
            let mut link = String::from("t_s,capacity_bps\n");
            for i in 0..=40 {
                let t = i as f64 * 0.5;
                flows.push_str(&format!(
                    "{t},0,{},{}\n",
                    if t < 5.0 { 1.0 } else { 3.0 },
                    t * 1000.0
                ));
                link.push_str(&format!("{t},4\n"));
            }
            std::fs::write(run.join("series_flows.csv"), complete_flows(&flows)).unwrap();
            std::fs::write(run.join("series_link.csv"), complete_link(&link)).unwrap();
        });
        let f = file(
            r#"
[[measure]]
id = "believed"
kind = "window_mean"
series = { column = "bw_estimate_bps" }
per = { column = "capacity_bps", flow = "link" }
from_s = 5.0
to_s = inf
at = { seed = "1", cc = "a", buffer = "1" }

[[timeline]]
title = "Estimate"
at = { buffer = "2" }
y_label = "Mbit/s"
y_range = [0.0, 10.0]
reference = [{ y = 4.0, label = "capacity" }]
lines = [
    { label = "b's rate", series = { column = "delivered" }, at = { cc = "b" }, rate_per_s = 1.0, scale = 0.001 },
    { label = "capacity", series = { column = "capacity_bps", flow = "link" }, style = "step" },
]
"#,
        );
        assert_eq!(number(&f, &runs, "believed"), 0.75);
        let section = f.analyze(&runs).section;
        let figure = &section.figures[0];
        assert_eq!(figure.title, "Estimate");
        assert_eq!(figure.y_range, Some((0.0, 10.0)));
        assert_eq!(figure.references.len(), 1);
        let report::FigureKind::Lines(lines) = &figure.kind else {
            panic!("{:?}", figure.kind);
        };
        assert_eq!(lines[0].label, "b's rate");
        assert_eq!(lines[0].points.len(), 20);
        assert!(lines[0].points.iter().all(|(_, v)| (v - 1.0).abs() < 1e-9));
        assert_eq!(lines[1].style, LineStyle::Step);
        assert_eq!(lines[1].points.len(), 41);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn across_takes_one_number_of_an_axis_and_all_joins_conditions() {
        let runs = grid(Path::new("."));
        let f = file(
            r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps", flow = 0 }
at = { buffer = "1" }
by = "cc"

[[measure]]
id = "most"
kind = "across"
of = "goodput"
take = "max"

[[measure]]
id = "least-of-b"
kind = "across"
of = "goodput"
values = ["b"]
take = "min"

[[measure]]
id = "mean"
kind = "across"
of = "goodput"
take = "mean"

[[measure]]
id = "over-three"
kind = "count"
of = "goodput"
holds = "above"
bound = 3.0

[[measure]]
id = "under-five"
kind = "count"
of = "goodput"
holds = "below"
bound = 5.0

[[measure]]
id = "between"
kind = "all"
of = ["over-three", "under-five"]
"#,
        );
        assert_eq!(number(&f, &runs, "most"), 6.0);
        assert_eq!(number(&f, &runs, "least-of-b"), 2.0);
        assert_eq!(number(&f, &runs, "mean"), 4.0);
        assert_eq!(
            conditions(&f, &runs, "between", 0.0),
            vec![("a".to_string(), false), ("b".to_string(), false)]
        );
        assert_eq!(
            conditions(&f, &runs, "between", 1.5),
            vec![("a".to_string(), true), ("b".to_string(), true)]
        );
        let e = error(
            r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps" }

[[measure]]
id = "joined"
kind = "all"
of = ["goodput"]
"#,
        );
        assert!(e.starts_with("t.toml: measure.of (line 12)"), "{e}");
        assert!(e.contains("`goodput` must be a condition measure"), "{e}");
    }

    #[test]
    fn across_by_an_axis_and_per_value_keep_a_value_per_axis_value() {
        let runs = grid(Path::new("."));
        let f = file(
            r#"
measure = [
    { id = "goodput", kind = "mean", of = { metric = "goodput_bps", flow = 0 }, by = "buffer" },
    { id = "best-buffer", kind = "across", of = "goodput", take = "max", by = "cc" },
    { id = "least-best", kind = "across", of = "best-buffer", take = "min" },
    { id = "a-ahead", kind = "compare", of = "best-buffer", reference = "b", holds = "above" },
    { id = "over-three", kind = "count", of = "goodput", holds = "above", bound = 3.0 },
    { id = "kept", kind = "per_value", axis = "cc", of = "over-three", label = "{value} at {condition}" },
    { id = "kept-b", kind = "per_value", axis = "cc", values = ["b", "c"], of = "over-three" },
]
"#,
        );
        let Value::ByAxis(best) = f.evaluate(&runs, "best-buffer", 0.0).unwrap() else {
            panic!("best-buffer is taken along cc");
        };
        let best: Vec<(String, f64)> = best.into_iter().map(|(v, _, s)| (v, s.mean)).collect();
        assert_eq!(best, vec![("a".to_string(), 6.0), ("b".to_string(), 2.0)]);
        assert_eq!(number(&f, &runs, "least-best"), 2.0);
        assert_eq!(
            conditions(&f, &runs, "a-ahead", 0.0),
            vec![("a".to_string(), true)]
        );
        assert_eq!(
            conditions(&f, &runs, "a-ahead", -4.5),
            vec![("a".to_string(), false)]
        );
        let kept = |labels: &[&str], held: &[bool]| -> Vec<(String, bool)> {
            labels
                .iter()
                .map(|l| l.to_string())
                .zip(held.iter().copied())
                .collect()
        };
        assert_eq!(
            conditions(&f, &runs, "kept", 0.0),
            kept(
                &["a at 1", "a at 2", "b at 1", "b at 2"],
                &[true, true, false, false]
            )
        );
        assert_eq!(
            conditions(&f, &runs, "kept-b", 1.5),
            kept(&["b: 1", "b: 2"], &[true, false])
        );
    }

    #[test]
    fn bad_across_axes_and_per_values_are_named_by_file_line_and_key() {
        let mean = "[[measure]]\nid = \"g\"\nkind = \"mean\"\nof = { metric = \"goodput_bps\" }\n";
        for (body, starts, says) in [
            (
                format!("\n{mean}by = \"cc\"\n\n[[measure]]\nid = \"most\"\nkind = \"across\"\nof = \"g\"\ntake = \"max\"\nby = \"cc\"\n"),
                "t.toml: measure.by (line 13)",
                "`g` is taken along `cc` already",
            ),
            (
                format!("\n{mean}\n[[measure]]\nid = \"kept\"\nkind = \"per_value\"\naxis = \"cc\"\nof = \"g\"\n"),
                "t.toml: measure.of (line 12)",
                "`g` must be a condition measure",
            ),
            (
                "\n[[measure]]\nid = \"kept\"\nkind = \"per_value\"\naxis = \"cc\"\nvalue = [\"a\"]\nof = \"g\"\n".to_string(),
                "t.toml (line ",
                "`value`",
            ),
        ] {
            let e = error(&body);
            assert!(e.starts_with(starts), "{e}");
            assert!(e.contains(says), "{e}");
        }
    }

    #[test]
    fn a_table_by_several_axes_has_a_row_per_combination() {
        let runs = grid(Path::new("."));
        let f = file(
            r#"
[labels]
"1" = "one"

[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps", flow = 0 }

[[table]]
title = "Goodput: {seeds}"
by = ["cc", "buffer"]
first = ["controller", "buffer"]
columns = [{ header = "goodput", measure = "goodput", decimals = 0 }]
"#,
        );
        let section = f.analyze(&runs).section;
        let table = &section.tables[0];
        assert_eq!(table.caption, "Goodput: mean ± sd over 2 seeds");
        let rows: Vec<Vec<Cell>> = table.rows.clone();
        assert_eq!(
            rows,
            [
                ("a", "one", "6"),
                ("a", "2", "4"),
                ("b", "one", "2"),
                ("b", "2", "1")
            ]
            .map(|(c, b, g)| vec![Cell::text(c), Cell::text(b), Cell::text(g)])
        );
        let e = error(
            r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps" }

[[table]]
title = "Goodput"
by = ["cc", "buffer"]
first = "controller"
columns = [{ header = "goodput", measure = "goodput" }]
"#,
        );
        assert!(e.starts_with("t.toml: table.first (line 12)"), "{e}");
        assert!(
            e.contains("1 header(s) in `first` for 2 axes in `by`"),
            "{e}"
        );
    }

    #[test]
    fn grouped_bars_take_errors_ranges_references_and_category_names() {
        let runs = grid(Path::new("."));
        let f = file(
            r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps", flow = 0 }
by = "buffer"

[[figure]]
title = "Goodput"
measure = "goodput"
groups = "cc"
errors = true
seeds_note = false
x_label = "buffer"
y_label = "goodput"
y_range = [0.0, 10.0]
reference = { y = 5.0, label = "half" }
x_labels = { "1" = "shallow" }
"#,
        );
        let section = f.analyze(&runs).section;
        let figure = &section.figures[0];
        assert_eq!(figure.title, "Goodput");
        assert_eq!(figure.y_range, Some((0.0, 10.0)));
        assert_eq!(figure.references.len(), 1);
        assert_eq!(figure.references[0].at, 5.0);
        let report::FigureKind::Bars { categories, groups } = &figure.kind else {
            panic!("{:?}", figure.kind);
        };
        assert_eq!(categories, &["shallow", "2"]);
        assert_eq!(groups[0].label, "a");
        assert_eq!(groups[0].values, [6.0, 4.0]);
        assert_eq!(groups[0].errors, Some(vec![0.0, 0.0]));
    }

    #[test]
    fn each_takes_a_condition_at_every_value_of_an_axis_and_held_counts_them() {
        let runs = grid(Path::new("."));
        let f = file(
            r#"
[[measure]]
id = "goodput-by-cc"
kind = "mean"
of = { metric = "goodput_bps", flow = 0 }
by = "cc"

[[measure]]
id = "a-goodput"
kind = "across"
of = "goodput-by-cc"
values = ["a"]
take = "max"

[[measure]]
id = "b-goodput"
kind = "across"
of = "goodput-by-cc"
values = ["b"]
take = "max"

[[measure]]
id = "a-ahead"
kind = "condition"
a = "a-goodput"
b = "b-goodput"
holds = "above"
label = "here"

[[measure]]
id = "a-ahead-by-buffer"
kind = "each"
axis = "buffer"
of = "a-ahead"

[[measure]]
id = "buffers-a-ahead"
kind = "held"
of = "a-ahead-by-buffer"

[[figure]]
title = "Goodput"
measure = "goodput-by-cc"
x_label = "controller"
y_label = "goodput"
log_y = true
"#,
        );
        assert_eq!(
            conditions(&f, &runs, "a-ahead-by-buffer", 0.0),
            vec![("1".to_string(), true), ("2".to_string(), true)]
        );
        assert_eq!(
            conditions(&f, &runs, "a-ahead-by-buffer", -3.5),
            vec![("1".to_string(), true), ("2".to_string(), false)]
        );
        assert_eq!(number(&f, &runs, "buffers-a-ahead"), 2.0);
        let section = f.analyze(&runs).section;
        assert_eq!(section.figures[0].y_scale, report::Scale::Log);
        let e = error(
            r#"
[[measure]]
id = "goodput"
kind = "mean"
of = { metric = "goodput_bps" }

[[measure]]
id = "counted"
kind = "held"
of = "goodput"
"#,
        );
        assert!(e.starts_with("t.toml: measure.of (line 12)"), "{e}");
    }

    #[test]
    fn a_claim_with_a_precondition_differs_where_it_fails() {
        let runs = grid(Path::new("."));
        let body = |bound: f64| {
            format!(
                r#"
[[measure]]
id = "goodput"
kind = "mean"
of = {{ metric = "goodput_bps", flow = 0 }}
at = {{ cc = "a" }}
by = "buffer"

[[measure]]
id = "delivers"
kind = "count"
of = "goodput"
holds = "at_least"
bound = {bound}

[[measure]]
id = "a-goodput"
kind = "mean"
of = {{ metric = "goodput_bps", flow = 0 }}
at = {{ cc = "a", buffer = "1" }}

[[claim]]
id = "t.pre"
paper = "obbr"
place = "p"
statement = "s"
about = "a"
metric = "m"
unit = ""
paper_says = "p"
test = {{ kind = "at_least", bound = 5.0 }}
tolerance_reason = "r"
origin = "project target"
measure = "a-goodput"
precondition = {{ text = "a delivers at least 5 at every buffer", measure = "delivers" }}
"#
            )
        };
        let judged = |bound: f64| file(&body(bound)).analyze(&runs).claims.remove(0);
        let held = judged(4.0);
        assert_eq!(held.verdict, report::VerdictStatus::Reproduced);
        assert_eq!(held.ours, "6.000");
        assert_eq!(
            held.record().precondition,
            Some("a delivers at least 5 at every buffer")
        );
        let unmet = judged(5.0);
        assert_eq!(unmet.verdict, report::VerdictStatus::Differs);
        assert_eq!(unmet.ours, "6.000; precondition unmet: not at 2");
        let e = error(&body(5.0).replace("measure = \"delivers\" }", "measure = \"a-goodput\" }"));
        assert!(
            e.starts_with("t.toml: claim.precondition.measure (line 27)"),
            "{e}"
        );
        assert!(e.contains("`a-goodput` must be a condition measure"), "{e}");
    }

    #[test]
    fn judge_at_judges_every_claim_per_value_in_the_order_given() {
        let runs = grid(Path::new("."));
        let f = file(
            r#"
judge_at = { axis = "buffer", values = ["2", "1", "9"] }

[labels]
"2" = "deep"

[[measure]]
id = "goodput-by-cc"
kind = "mean"
of = { metric = "goodput_bps", flow = 0 }
by = "cc"

[[measure]]
id = "b-below-a"
kind = "compare"
of = "goodput-by-cc"
reference = "a"
values = ["b", "a"]
holds = "below"

[[measure]]
id = "complete"
kind = "mean"
of = { metric = "bytes_retransmitted", flow = 1 }
by = "buffer"

[[table]]
title = "T"
by = "buffer"
columns = [{ header = "runs", measure = "complete", format = "count_of" }]

[[claim]]
id = "t.each"
paper = "obbr"
place = "p"
statement = "s"
about = "a"
metric = "m"
unit = ""
paper_says = "p"
test = { kind = "direction" }
tolerance_reason = "r"
origin = "project analysis"
measure = "b-below-a"
"#,
        );
        // `values` are taken in the order given.
        assert_eq!(
            conditions(&f, &runs, "b-below-a", 0.0),
            vec![("b".to_string(), true), ("a".to_string(), false)]
        );
        let analysis = f.analyze(&runs);
        let ours: Vec<&str> = analysis.claims.iter().map(|j| j.ours.as_str()).collect();
        assert_eq!(
            ours,
            [
                "deep: holds in 1 of 2 (not at a)",
                "1: holds in 1 of 2 (not at a)",
                "9: not run: the sweep has no 9",
            ]
        );
        // Flow 1 retransmitted (1 or 0 bytes) in 2 of the 4 runs at buffer 2.
        assert_eq!(analysis.section.tables[0].rows[0][1], Cell::text("0 of 4"));
        assert_eq!(analysis.section.tables[0].rows[1][1], Cell::text("2 of 4"));
    }

    #[test]
    fn arithmetic_combines_numbers_and_values_along_an_axis_and_per_divides_runs() {
        let runs = grid(Path::new("."));
        let f = file(
            r#"
measure = [
    { id = "a-goodput", kind = "mean", of = { metric = "goodput_bps", per = 2 }, at = { cc = "a" }, by = "buffer" },
    { id = "half", kind = "arithmetic", op = "multiply", a = "a-goodput", b = 0.5, by = "buffer" },
    { id = "together", kind = "arithmetic", op = "add", a = "a-goodput", b = "half", by = "buffer" },
    { id = "retx-of-b", kind = "ratio", of = { metric = "bytes_retransmitted" }, a = { cc = "a" }, b = { cc = "b" }, by = "buffer" },
    { id = "cut", kind = "arithmetic", op = "subtract", a = 1, b = "retx-of-b", by = "buffer" },
    { id = "largest-cut", kind = "across", of = "cut", take = "max" },
    { id = "a-shallow", kind = "mean", of = { metric = "goodput_bps" }, at = { cc = "a", buffer = "1" } },
    { id = "quarter", kind = "arithmetic", op = "divide", a = "a-shallow", b = 4.0 },
    { id = "product", kind = "arithmetic", op = "multiply", a = "largest-cut", b = "quarter" },
]
"#,
        );
        let along = |id: &str| match f.evaluate(&runs, id, 0.0).unwrap() {
            Value::ByAxis(v) => v.iter().map(|(_, _, s)| s.mean).collect::<Vec<_>>(),
            v => panic!("{id}: {v:?}"),
        };
        // a's goodputs of flow 0 halved run by run: 3 and 2.
        assert_eq!(along("a-goodput"), vec![3.0, 2.0]);
        assert_eq!(along("half"), vec![1.5, 1.0]);
        assert_eq!(along("together"), vec![4.5, 3.0]);
        // a's retransmissions over b's: 20 / 40 at buffer 1, 5 / 5 at 2.
        assert_eq!(along("cut"), vec![0.5, 0.0]);
        assert_eq!(number(&f, &runs, "largest-cut"), 0.5);
        assert_eq!(number(&f, &runs, "quarter"), 1.5);
        assert_eq!(number(&f, &runs, "product"), 0.75);
    }

    #[test]
    fn bad_arithmetic_units_and_series_sources_are_named_by_file_line_and_key() {
        let e = error(
            r#"
[[measure]]
id = "g"
kind = "mean"
of = { metric = "goodput_bps", per = 0 }
"#,
        );
        assert!(e.starts_with("t.toml: measure.of.per (line 7)"), "{e}");
        assert!(e.contains("expected a positive number"), "{e}");
        let by_cc = r#"
measure = [
    { id = "g", kind = "mean", of = { metric = "goodput_bps" }, by = "cc" },
    { id = "twice", kind = "arithmetic", op = "multiply", a = 2, b = "g", by = "buffer" },
]
"#;
        let e = error(by_cc);
        assert!(e.starts_with("t.toml: measure.b (line 8)"), "{e}");
        assert!(e.contains("one taken `by = \"buffer\"`"), "{e}");
        let e = error(&by_cc.replace(", by = \"buffer\" }", " }"));
        assert!(e.starts_with("t.toml: measure.b (line 8)"), "{e}");
        assert!(e.contains("`g` must be a one-number measure"), "{e}");
        let e = error(&by_cc.replace("a = 2", "a = \"later\""));
        assert!(e.starts_with("t.toml: measure.a (line 8)"), "{e}");
        let e = error(&by_cc.replace("\"multiply\"", "\"power\""));
        assert!(e.starts_with("t.toml: op (line 8): "), "{e}");
        assert!(e.contains("unknown variant `power`"), "{e}");
        let e = error(
            r#"
[[measure]]
id = "queue"
kind = "window_mean"
series = { column = "queue_bytes", flow = "link", source = "controller" }
from_s = 0.0
to_s = inf
"#,
        );
        assert!(
            e.starts_with("t.toml: measure.series.source (line 7)"),
            "{e}"
        );
        let e = error(
            r#"
[[timeline]]
title = "Over time"
y_label = "y"
lines = [{ label = "queue", series = { column = "queue_bytes", flow = "link", source = "controller" } }]
"#,
        );
        assert!(
            e.starts_with("t.toml: timeline.lines.series.source (line 9)"),
            "{e}"
        );
        let e = error(
            r#"
[[measure]]
id = "factor"
kind = "window_mean"
series = { column = "f", source = "controllers" }
from_s = 0.0
to_s = inf
"#,
        );
        assert!(e.starts_with("t.toml: source (line 9): "), "{e}");
        assert!(e.contains("unknown variant `controllers`"), "{e}");
        // A column the series file does not have is refused when the file
        // is read, naming the line, the key and the valid columns.
        let measure = "\n[[measure]]\nid = \"cwnd\"\nkind = \"window_mean\"\n";
        let e = error(&format!(
            "{measure}series = {{ column = \"cwnd_bytes\" }}\nfrom_s = 0.0\nto_s = inf\n"
        ));
        assert!(e.starts_with("t.toml: column (line 9): "), "{e}");
        assert!(e.contains("unknown variant `cwnd_bytes`"), "{e}");
        assert!(e.contains("`cwnd`, `inflight`"), "{e}");
        let line = r#"{ label = "queue", series = { column = "queue", flow = "link" } }"#;
        let e = error(&format!(
            "\n[[timeline]]\ntitle = \"Over time\"\ny_label = \"y\"\nlines = [{line}]\n"
        ));
        // (On one line with other keys, the error points at its column.)
        assert!(e.starts_with("t.toml (line 9, column "), "{e}");
        assert!(
            e.contains("expected one of `queue_bytes`, `capacity_bps`, `forwarded`"),
            "{e}"
        );
    }

    #[test]
    fn a_controller_series_is_read_by_window_means_and_timelines() {
        let (dir, runs) = grid_with_series("ctl", |params, run| {
            // Only controller `a` has the variable: 0.25 and 0.75, or,
            // in buffer 2, 1.0 throughout; flow 1 has another value.
            let buffer2 = params.iter().any(|(k, v)| k == "buffer" && v == "2");
            let mut rows = String::from("t_s,flow,name,value\n");
            if params.iter().any(|(k, v)| k == "cc" && v == "a") {
                for (t, v) in [(0.0, 0.25), (1.0, 0.75)] {
                    let v = if buffer2 { 1.0 } else { v };
                    rows.push_str(&format!("{t},0,factor,{v}\n{t},1,factor,9\n"));
                }
            }
            std::fs::write(run.join("series_controller.csv"), rows).unwrap();
        });
        let f = file(
            r#"
[[measure]]
id = "factor"
kind = "window_mean"
series = { column = "factor", flow = 0, source = "controller" }
from_s = 0.0
to_s = inf

[[measure]]
id = "factor-by-buffer"
kind = "window_mean"
series = { column = "factor", flow = 0, source = "controller" }
from_s = 0.0
to_s = inf
at = { cc = "a" }
by = "buffer"

[[timeline]]
title = "Factor"
at = { cc = "a" }
y_label = "factor"
lines = [{ label = "buffer 1", series = { column = "factor", source = "controller" }, at = { buffer = "1" }, style = "step" }]

[[table]]
title = "Factor"
by = ["cc", "buffer"]
first = ["cc", "buffer"]
columns = [{ header = "factor", measure = "factor", format = "stat" }]
"#,
        );
        match f.evaluate(&runs, "factor-by-buffer", 0.0).unwrap() {
            Value::ByAxis(v) => {
                assert_eq!(v[0].2.mean, 0.5);
                assert_eq!(v[1].2.mean, 1.0);
            }
            v => panic!("{v:?}"),
        }
        let section = f.analyze(&runs).section;
        let report::FigureKind::Lines(lines) = &section.figures[0].kind else {
            panic!("{:?}", section.figures[0].kind);
        };
        assert_eq!(lines[0].points, vec![(0.0, 0.25), (1.0, 0.75)]);
        // Controller b has no such variable: its cells are empty.
        let rows = &section.tables[0].rows;
        assert_eq!(rows[0][2], Cell::text("0.50 ± 0.00"));
        assert_eq!(rows[1][2], Cell::text("1.00 ± 0.00"));
        assert_eq!(rows[2][2], Cell::Empty);
        assert_eq!(rows[3][2], Cell::Empty);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn window_statistics_and_windowed_timelines_read_part_of_a_series() {
        let (dir, runs) = grid_with_series("window", |_, run| {
            // min_rtt_ms: 10 until 5 s, then 12, 16, 12, 16, ...
            let mut flows = String::from("t_s,flow,min_rtt_ms\n");
            for i in 0..=20 {
                let t = i as f64 * 0.5;
                let v = match (t < 5.0, i % 2) {
                    (true, _) => 10.0,
                    (false, 0) => 12.0,
                    (false, _) => 16.0,
                };
                flows.push_str(&format!("{t},0,{v}\n"));
            }
            std::fs::write(run.join("series_flows.csv"), complete_flows(&flows)).unwrap();
        });
        let body = r#"
measure = [
    { id = "highest", kind = "window", take = "max", series = { column = "min_rtt_ms" }, from_s = 0.0, to_s = inf, at = { seed = "1", cc = "a", buffer = "1" } },
    { id = "least-late", kind = "window", take = "min", series = { column = "min_rtt_ms" }, from_s = 5.0, to_s = inf, at = { seed = "1", cc = "a", buffer = "1" } },
    { id = "sd-late", kind = "window", take = "sd", series = { column = "min_rtt_ms" }, from_s = 5.0, to_s = 6.0, at = { cc = "a" }, by = "buffer" },
    { id = "none", kind = "window", take = "mean", series = { column = "min_rtt_ms" }, from_s = 50.0, to_s = inf, at = { seed = "1", cc = "a", buffer = "1" } },
]

[[timeline]]
title = "RTprop"
at = { cc = "a", buffer = "1" }
y_label = "ms"
from_s = 2.0
to_s = 4.0
lines = [{ label = "a", series = { column = "min_rtt_ms" } }]
"#;
        let f = file(body);
        assert_eq!(number(&f, &runs, "highest"), 16.0);
        assert_eq!(number(&f, &runs, "least-late"), 12.0);
        // 12 at 5 s and 16 at 5.5 s: sd sqrt(8).
        match f.evaluate(&runs, "sd-late", 0.0).unwrap() {
            Value::ByAxis(v) => assert!((v[0].2.mean - 8f64.sqrt()).abs() < 1e-12, "{v:?}"),
            v => panic!("{v:?}"),
        }
        // No sample in the window: no number.
        assert!(number(&f, &runs, "none").is_nan());
        let section = f.analyze(&runs).section;
        let figure = &section.figures[0];
        assert_eq!(figure.x_range, Some((2.0, 4.0)));
        let report::FigureKind::Lines(lines) = &figure.kind else {
            panic!("{:?}", figure.kind);
        };
        assert_eq!(lines[0].points.len(), 5);
        std::fs::remove_dir_all(&dir).unwrap();
        let e = error(&body.replace("from_s = 2.0\nto_s = 4.0", "from_s = 4.0\nto_s = 2.0"));
        assert!(e.starts_with("t.toml: timeline.to_s (line "), "{e}");
        assert!(e.contains("expected from_s < to_s"), "{e}");
        let e = error(&body.replace("take = \"sd\"", "take = \"mode\""));
        assert!(e.starts_with("t.toml: take (line 9): "), "{e}");
        assert!(e.contains("unknown variant `mode`"), "{e}");
    }

    /// The [`grid`] with two capacity drops: capacity 40, 10 (2-4 s), 40,
    /// 10 (5 s to the end), Mbit/s; cc a's estimate follows at once, b's
    /// never; RTT 100 ms from 2 to 4 s, 10 ms otherwise (base RTT 20 ms);
    /// inflight 10 t, cumulative lost t^2.
    fn drop_grid(name: &str) -> (PathBuf, Runs) {
        let (dir, mut runs) = grid_with_series(name, |params, run| {
            let b = params.iter().any(|(k, v)| k == "cc" && v == "b");
            let mut link = String::from("t_s,queue_bytes,capacity_bps\n");
            let mut flows = String::from("t_s,flow,bw_estimate_bps,latest_rtt_ms,inflight,lost\n");
            for (t, capacity) in [
                (0.0, 40e6),
                (1.0, 40e6),
                (2.0, 10e6),
                (3.0, 10e6),
                (4.0, 40e6),
                (5.0, 10e6),
                (6.0, 10e6),
            ] {
                let estimate = if b { 40e6 } else { capacity };
                let rtt = if (2.0..4.0).contains(&t) { 100.0 } else { 10.0 };
                link.push_str(&format!("{t},0,{capacity}\n"));
                flows.push_str(&format!("{t},0,{estimate},{rtt},{},{}\n", 10.0 * t, t * t));
            }
            std::fs::write(run.join("series_link.csv"), complete_link(&link)).unwrap();
            std::fs::write(run.join("series_flows.csv"), complete_flows(&flows)).unwrap();
        });
        for (_, r) in &mut runs.points {
            r.summary["flows"][0]["base_rtt_ms"] = serde_json::json!(20.0);
        }
        (dir, runs)
    }

    #[test]
    fn drop_response_pools_every_drop_of_the_runs_taken() {
        let (dir, runs) = drop_grid("drops");
        let f = file(
            r#"
measure = [
    { id = "lag-b", kind = "named", name = "drop_response", params = { gives = "lag", at = { cc = "b" } } },
    { id = "lag-pooled", kind = "named", name = "drop_response", params = { gives = "lag", among = { axis = "cc", values = ["a", "b"] } } },
    { id = "inflated", kind = "named", name = "drop_response", params = { gives = "inflated", rtt_above = 2.5 } },
    { id = "peak", kind = "named", name = "drop_response", params = { gives = "peak_rtt", at = { cc = "a" } } },
    { id = "wrong", kind = "named", name = "drop_response", params = { gives = "nothing" } },
    { id = "no-among-values", kind = "named", name = "drop_response", params = { gives = "lag", among = { axis = "cc" } } },
]
"#,
        );
        // b: the whole low periods, 2 s and 1 s; a: 0 s twice.
        assert_eq!(number(&f, &runs, "lag-b"), 1.5);
        assert_eq!(number(&f, &runs, "lag-pooled"), 0.75);
        // Above 50 ms: 2 s in the first low period, none in the second.
        assert_eq!(number(&f, &runs, "inflated"), 1.0);
        assert_eq!(number(&f, &runs, "peak"), 55.0);
        let e = f.evaluate(&runs, "wrong", 0.0).unwrap_err().to_string();
        assert!(e.contains("drop_response: `gives` must be"), "{e}");
        let e = f
            .evaluate(&runs, "no-among-values", 0.0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`among.values`"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn held_sample_rmse_is_the_copilot_papers_arithmetic() {
        // The paper's 200 ms run without Copilot: 11.8 Mbit/s held over
        // 20-40 s against 24 Mbit/s gives 12.2 (the paper: 12.18).
        let ticks = |v: f64| (0..4000).map(|i| (i as f64 * 0.01, v)).collect::<Vec<_>>();
        let capacity = vec![(0.0, 12e6), (20.0, 24e6)];
        let rmse = held_sample_rmse(&ticks(11.8e6), &capacity, 20.0, 40.0).unwrap();
        assert!((rmse - 12.2e6).abs() < 1.0, "{rmse}");
        // Before 20 s the same estimate is 0.2 Mbit/s off, and not counted.
        let all = held_sample_rmse(&ticks(11.8e6), &capacity, 0.0, 40.0).unwrap();
        assert!(all < rmse, "{all}");
        // Two ticks, one at the true rate, one 4 Mbit/s below: sqrt(16/2).
        let held = vec![(20.0, 24e6), (20.5, 20e6), (40.0, 0.0)];
        let capacity = vec![(0.0, 24e6)];
        let rmse = held_sample_rmse(&held, &capacity, 20.0, 40.0).unwrap();
        assert!((rmse - 8f64.sqrt() * 1e6).abs() < 1.0, "{rmse}");
        // No tick in the window, or no capacity known yet: no value.
        assert_eq!(held_sample_rmse(&held, &capacity, 41.0, 50.0), None);
        assert_eq!(held_sample_rmse(&held, &[(30.0, 24e6)], 20.0, 30.0), None);
    }

    /// Flow 0's goodput / 3 of cc `a` and of cc `b` at buffer 1 (2 and
    /// 2 / 3), as measures `a-goodput` and `b-goodput`.
    const GOODPUTS_OF_A_AND_B: &str = r#"
[[measure]]
id = "a-goodput"
kind = "mean"
of = { metric = "goodput_bps", per = 3 }
at = { cc = "a", buffer = "1" }

[[measure]]
id = "b-goodput"
kind = "mean"
of = { metric = "goodput_bps", per = 3 }
at = { cc = "b", buffer = "1" }
"#;

    #[test]
    fn a_condition_label_shows_its_numbers_and_a_named_measure_needs_its_params() {
        let runs = grid(Path::new("."));
        let body = GOODPUTS_OF_A_AND_B.to_string()
            + r#"

[[measure]]
id = "a-above"
kind = "condition"
a = "a-goodput"
b = "b-goodput"
holds = "above"
label = "a {a}, b {b}"
decimals = 1
"#;
        let f = file(&body);
        assert_eq!(
            conditions(&f, &runs, "a-above", 0.0),
            vec![("a 2.0, b 0.7".to_string(), true)]
        );
        let f = file(&body.replace("decimals = 1\n", ""));
        assert_eq!(conditions(&f, &runs, "a-above", 0.0)[0].0, "a 2.00, b 0.67");
        let f = file(
            r#"
[[measure]]
id = "rmse"
kind = "named"
name = "held_sample_rmse"
params = { from_s = 20.0 }
"#,
        );
        let e = f.evaluate(&runs, "rmse", 0.0).unwrap_err();
        assert!(
            format!("{e:#}").contains("`to_s` (a number) is required"),
            "{e:#}"
        );
    }

    #[test]
    fn a_runs_cell_counts_the_runs_with_a_number() {
        let runs = grid(Path::new("."));
        let body = r#"
measure = [
    { id = "goodput", kind = "mean", of = { metric = "goodput_bps" } },
    { id = "retransmitted", kind = "mean", of = { metric = "bytes_retransmitted", flow = 2 } },
]

[[table]]
title = "T"
by = ["cc", "buffer"]
first = ["cc", "buffer"]
columns = [
    { header = "runs", measure = "goodput", format = "runs" },
    { header = "retransmitted", measure = "retransmitted", format = "runs" },
]
"#;
        let analysis = file(body).analyze(&runs);
        let rows = &analysis.section.tables[0].rows;
        assert_eq!(rows.len(), 4);
        // Two seeds per (cc, buffer); flow 2's bytes_retransmitted is a
        // number in every run (0 or 2), so both columns count 2.
        for row in rows {
            assert_eq!(row[2], Cell::fixed(2.0, 0), "{row:?}");
            assert_eq!(row[3], Cell::fixed(2.0, 0), "{row:?}");
        }
        // A misspelt format is refused naming the file and the line.
        refused(
            &body.replace(
                "format = \"runs\" },\n    { header = \"retransmitted\"",
                "format = \"run\" },\n    { header = \"retransmitted\"",
            ),
            "t.toml (line ",
            &["unknown variant `run`", "`runs`"],
        );
    }

    #[test]
    fn a_curve_draws_a_mean_over_a_numeric_axis_one_line_per_value() {
        let runs = grid(Path::new("."));
        let body = r#"
measure = [{ id = "goodput", kind = "mean", of = { metric = "goodput_bps", flow = 0 }, by = "buffer" }]

[[curve]]
title = "C"
measure = "goodput"
lines = "cc"
line_label = "{} line"
x_label = "buffer"
y_label = "goodput"
errors = true
y_range = [0.0, 5.0]
reference = [{ y = 3.0, label = "bar" }]
"#;
        let analysis = file(body).analyze(&runs);
        let figure = &analysis.section.figures[0];
        let report::FigureKind::Lines(lines) = &figure.kind else {
            panic!("{:?}", figure.kind);
        };
        // Two lines, then their whiskers in their colours (two seeds a point).
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0].label, "a line");
        assert_eq!(lines[0].points, vec![(1.0, 6.0), (2.0, 4.0)]);
        assert_eq!(lines[1].label, "b line");
        assert_eq!(lines[1].points, vec![(1.0, 2.0), (2.0, 1.0)]);
        assert_eq!(lines[3].colour_key.as_deref(), Some("b line"));
        assert_eq!(lines[3].points[0], (1.04, 2.0));
        // The top is raised to the highest whisker.
        assert_eq!(figure.y_range, Some((0.0, 6.0)));
        // A horizontal axis whose values are not numbers: left out, and said.
        let f = file(
            &body
                .replace("by = \"buffer\"", "by = \"cc\"")
                .replace("lines = \"cc\"", "lines = \"buffer\""),
        );
        let analysis = f.analyze(&runs);
        // No line has a point: no figure.
        assert!(analysis.section.figures.is_empty());
        assert!(
            analysis
                .section
                .description
                .contains("curve \"C\": the cc value `a` is not a number"),
            "{}",
            analysis.section.description
        );
        // A measure that is not a mean taken by an axis is refused naming
        // the file, line and key.
        refused(
            &body.replace(", by = \"buffer\"", ""),
            "t.toml: curve.measure (line ",
            &["`goodput` must be a `mean` measure taken `by` an axis"],
        );
        refused(
            &body.replace("errors = true", "whiskers = true"),
            "t.toml (line ",
            &["whiskers"],
        );
    }

    #[test]
    fn per_value_names_conditions_by_two_axes_and_across_axis_pools_one_number_measures() {
        let runs = grid(Path::new("."));
        let body = r#"
measure = [
    { id = "goodput", kind = "mean", of = { metric = "goodput_bps", flow = 0 }, by = "buffer" },
    { id = "above-3", kind = "count", of = "goodput", holds = "above", bound = 3.0 },
    { id = "above-3-per-cc", kind = "per_value", axis = "cc", of = "above-3", label = "{value} {condition}" },
    { id = "above-3-b", kind = "per_value", axis = "cc", of = "above-3", values = ["b", "z"], label = "{value} {condition}" },
    { id = "most", kind = "across", of = "goodput", take = "max" },
    { id = "least-most", kind = "across_axis", axis = "cc", of = "most", take = "min" },
    { id = "mean-most-of-a", kind = "across_axis", axis = "cc", of = "most", values = ["a", "z"], take = "mean" },
    { id = "nothing", kind = "mean", of = { metric = "goodput_bps" }, at = { buffer = "9" } },
    { id = "most-of-nothing", kind = "across_axis", axis = "cc", of = "nothing", take = "max" },
]

[labels]
"1" = "shallow"
"2" = "deep"
"#;
        let f = file(body);
        // Flow 0's goodput: a 6 and 4, b 2 and 1 at buffers 1 and 2.
        assert_eq!(
            conditions(&f, &runs, "above-3-per-cc", 0.0),
            labelled(&[
                ("a shallow", true),
                ("a deep", true),
                ("b shallow", false),
                ("b deep", false)
            ])
        );
        assert_eq!(
            conditions(&f, &runs, "above-3-b", 0.0),
            labelled(&[("b shallow", false), ("b deep", false)])
        );
        assert_eq!(number(&f, &runs, "least-most"), 2.0);
        assert_eq!(number(&f, &runs, "mean-most-of-a"), 6.0);
        assert!(number(&f, &runs, "most-of-nothing").is_nan());
        // What they take must be a condition measure and a one-number
        // measure, declared before them.
        refused(
            &body.replace(
                "axis = \"cc\", of = \"above-3\", label",
                "axis = \"cc\", of = \"goodput\", label",
            ),
            "t.toml: measure.of (line ",
            &["`goodput` must be a condition measure"],
        );
        refused(
            &body.replace(
                "of = \"most\", take = \"min\"",
                "of = \"goodput\", take = \"min\"",
            ),
            "t.toml: measure.of (line ",
            &["`goodput` must be a one-number measure"],
        );
        refused(
            &body.replace("take = \"mean\"", "take = \"median\""),
            "t.toml",
            &["unknown variant `median`"],
        );
    }

    #[test]
    fn a_ratio_or_difference_by_an_axis_its_sides_fix_is_refused() {
        for (kind, sides, side, value) in [
            (
                "ratio",
                "a = { cc = \"a\" }\nb = { buffer = \"1\" }",
                "a",
                "a",
            ),
            (
                "difference",
                "a = { buffer = \"1\" }\nb = { cc = \"b\" }",
                "b",
                "b",
            ),
        ] {
            let e = error(&format!(
                "\n[[measure]]\nid = \"m\"\nkind = \"{kind}\"\nof = {{ metric = \"goodput_bps\" }}\n{sides}\nby = \"cc\"\n"
            ));
            assert!(e.starts_with("t.toml: measure.by (line "), "{e}");
            assert!(
                e.contains(&format!("its `{side}` fixes `cc = \"{value}\"`")),
                "{e}"
            );
        }
        // By another axis than its sides fix: accepted.
        let body = "\n[[measure]]\nid = \"m\"\nkind = \"ratio\"\nof = { metric = \"goodput_bps\" }\na = { cc = \"a\" }\nb = { cc = \"b\" }\nby = \"buffer\"\n";
        file(body);
    }

    /// Conditions as a measure gives them, from label and verdict pairs.
    fn labelled(v: &[(&str, bool)]) -> Vec<(String, bool)> {
        v.iter().map(|(l, ok)| (l.to_string(), *ok)).collect()
    }

    /// `body` must not parse; its error starts with `starts` and says each
    /// of `says`.
    fn refused(body: &str, starts: &str, says: &[&str]) {
        let e = error(body);
        assert!(e.starts_with(starts), "{e}");
        for s in says {
            assert!(e.contains(s), "{e}");
        }
    }

    #[test]
    fn most_takes_the_largest_number_and_relabel_keeps_conditions_apart() {
        let runs = grid(Path::new("."));
        // Per controller: its goodput by buffer, the largest, whether it is
        // above a bound per buffer, and those conditions named after it.
        let per_cc = |cc: &str, bound: f64| {
            format!(
                r#"
[[measure]]
id = "{cc}-goodput"
kind = "mean"
of = {{ metric = "goodput_bps" }}
at = {{ cc = "{cc}" }}
by = "buffer"

[[measure]]
id = "{cc}-most"
kind = "across"
of = "{cc}-goodput"
take = "max"

[[measure]]
id = "{cc}-high"
kind = "count"
of = "{cc}-goodput"
holds = "above"
bound = {bound:?}

[[measure]]
id = "{cc}-high-named"
kind = "relabel"
of = "{cc}-high"
label = "{cc} at {{label}}"
"#
            )
        };
        let f = file(&format!(
            "{}{}{}",
            per_cc("a", 5.0),
            per_cc("b", 1.5),
            r#"
[[measure]]
id = "none"
kind = "mean"
of = { metric = "goodput_bps" }
at = { cc = "c" }

[[measure]]
id = "largest"
kind = "most"
of = ["b-most", "none", "a-most"]

[[measure]]
id = "no-number"
kind = "most"
of = ["none"]

[[measure]]
id = "apart"
kind = "all"
of = ["a-high-named", "b-high-named"]

[[measure]]
id = "joined"
kind = "all"
of = ["a-high", "b-high"]
"#
        ));
        assert_eq!(number(&f, &runs, "largest"), 6.0);
        assert!(number(&f, &runs, "no-number").is_nan());
        assert_eq!(
            conditions(&f, &runs, "apart", 0.0),
            labelled(&[
                ("a at 1", true),
                ("a at 2", false),
                ("b at 1", true),
                ("b at 2", false)
            ])
        );
        assert_eq!(
            conditions(&f, &runs, "joined", 0.0),
            labelled(&[("1", true), ("2", false)])
        );
        // Bad input: a `most` of a measure along an axis.
        let goodput =
            "\n[[measure]]\nid = \"goodput\"\nkind = \"mean\"\nof = { metric = \"goodput_bps\" }\n";
        let e = error(&format!(
            "{goodput}by = \"cc\"\n\n[[measure]]\nid = \"largest\"\nkind = \"most\"\nof = [\"goodput\"]\n"
        ));
        assert!(e.starts_with("t.toml: measure.of (line 13)"), "{e}");
        assert!(e.contains("`goodput` must be a one-number measure"), "{e}");
    }

    #[test]
    fn uptake_lag_reads_the_capacity_steps_and_a_runs_mean_capacity_is_a_metric() {
        // The capacity rises from 100 to 200 at 10 s; controller `a`'s
        // delivery rate reaches 190 (>= 90% of 200) at 12 s, `b`'s never.
        let (dir, mut runs) = grid_with_series("uptake", |params, run| {
            let fast = params.iter().any(|(k, v)| k == "cc" && v == "a");
            let mut flows = String::from("t_s,flow,delivery_rate_bps\n");
            let mut link = String::from("t_s,capacity_bps\n");
            for i in 0..40 {
                let t = i as f64 * 0.5;
                let rate = if fast && t >= 12.0 { 190.0 } else { 100.0 };
                flows.push_str(&format!("{t},0,{rate}\n"));
                link.push_str(&format!("{t},{}\n", if t < 10.0 { 100 } else { 200 }));
            }
            let (flows, link) = (complete_flows(&flows), complete_link(&link));
            for (name, text) in [("series_flows.csv", flows), ("series_link.csv", link)] {
                std::fs::write(run.join(name), text).unwrap();
            }
        });
        for (_, record) in runs.points.iter_mut() {
            record.summary["sim_time_s"] = serde_json::json!(20.0);
        }
        let f = file(
            r#"
[[measure]]
id = "lag-a"
kind = "named"
name = "uptake_lag"
params = { at = { cc = "a", buffer = "1" } }

[[measure]]
id = "lag-b"
kind = "named"
name = "uptake_lag"
params = { fraction = 0.9, bin_s = 1.0, at = { cc = "b", buffer = "1" } }

[[measure]]
id = "lag-a-strict"
kind = "named"
name = "uptake_lag"
params = { fraction = 0.99, at = { cc = "a", buffer = "1" } }

[[measure]]
id = "capacity"
kind = "quantile"
of = { metric = "link_capacity_bps" }
q = 0.5
"#,
        );
        // The 1 s bin from 12 s, centred at 12.5 s, is the first at 190.
        assert_eq!(number(&f, &runs, "lag-a"), 2.5);
        // Never taken up: the rise counts as its whole 10 s.
        assert_eq!(number(&f, &runs, "lag-b"), 10.0);
        assert_eq!(number(&f, &runs, "lag-a-strict"), 10.0);
        // The test runs' link: 10 Mbit/s throughout.
        assert!((number(&f, &runs, "capacity") - 10e6).abs() < 1.0);
        let f = file(
            r#"
[[measure]]
id = "lag"
kind = "named"
name = "uptake_lag"
params = { fraction = "most" }
"#,
        );
        let e = f.evaluate(&runs, "lag", 0.0).unwrap_err();
        assert!(
            format!("{e:#}").contains("`fraction` must be a number"),
            "{e:#}"
        );
        // A misspelt metric: line 9 is the `of` of the body below.
        let e = error("\n[[measure]]\nid = \"capacity\"\nkind = \"mean\"\nof = { metric = \"link_capacity\" }\n");
        assert!(
            e.starts_with("t.toml") && e.contains("line 9") && e.contains("link_capacity_bps"),
            "{e}"
        );
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn harm_per_run_is_unclamped_near_checks_targets_and_relabel_renames() {
        let runs = grid(Path::new("."));
        // Harm measures: id, extra keys, quantity, alone, beside.
        let harm = |id: &str, extra: &str, of: &str, alone: &str, beside: &str| {
            format!(
                "[[measure]]\nid = \"{id}\"\nkind = \"harm\"\n{extra}\nof = {{ {of} }}\n\
                 alone = {{ {alone} }}\nbeside = {{ {beside} }}\n\n"
            )
        };
        let goodput = "metric = \"goodput_bps\"";
        let harms = [
            harm(
                "harm-of-b",
                "per_run = true\nby = \"buffer\"",
                goodput,
                "cc = \"a\"",
                "cc = \"b\"",
            ),
            harm(
                "harm-of-a",
                "per_run = true",
                goodput,
                "cc = \"b\", buffer = \"1\"",
                "cc = \"a\", buffer = \"1\"",
            ),
            harm(
                "harm-of-a-clamped",
                "",
                goodput,
                "cc = \"b\", buffer = \"1\"",
                "cc = \"a\", buffer = \"1\"",
            ),
            harm(
                "harm-of-flows",
                "per_run = true\nby = \"buffer\"",
                "metric = \"goodput_bps\", flow = \"mean\"",
                "cc = \"a\"",
                "cc = \"b\"",
            ),
        ]
        .concat();
        let f = file(&format!(
            "\n{harms}{}",
            r#"[[measure]]
id = "near-paper"
kind = "near"
of = "harm-of-b"
targets = { "1" = 0.7, "2" = 0.5 }

[[measure]]
id = "near-named"
kind = "relabel"
of = "near-paper"
label = "lossy {label} B"
"#
        ));
        // Buffer 1: a alone 6, b's flow 0 has 2: (6 - 2) / 6; buffer 2: (4 - 1) / 4.
        let Value::ByAxis(along) = f.evaluate(&runs, "harm-of-b", 0.0).unwrap() else {
            panic!("harm-of-b is taken by buffer");
        };
        let means: Vec<f64> = along.iter().map(|(_, _, s)| s.mean).collect();
        assert!(
            (means[0] - 4.0 / 6.0).abs() < 1e-12 && means[1] == 0.75,
            "{means:?}"
        );
        // a leaves b's flow 0 more than it had alone: -2, where `harm` clamps to 0.
        assert_eq!(number(&f, &runs, "harm-of-a"), -2.0);
        assert_eq!(number(&f, &runs, "harm-of-a-clamped"), 0.0);
        // The mean over a run's flows (10/3 on both sides at buffer 1).
        let Value::ByAxis(flows) = f.evaluate(&runs, "harm-of-flows", 0.0).unwrap() else {
            panic!("harm-of-flows is taken by buffer");
        };
        assert!(flows[0].2.mean.abs() < 1e-12, "{flows:?}");
        assert_eq!(
            conditions(&f, &runs, "near-paper", 0.05),
            vec![("1".to_string(), true), ("2".to_string(), false)]
        );
        assert_eq!(
            conditions(&f, &runs, "near-named", 0.3),
            vec![
                ("lossy 1 B".to_string(), true),
                ("lossy 2 B".to_string(), true)
            ]
        );
    }

    #[test]
    fn near_relabel_and_harm_per_run_name_their_bad_keys() {
        // A one-number goodput, then the measure under test.
        let after_goodput = |by: &str, rest: &str| {
            error(&format!(
                "\n[[measure]]\nid = \"goodput\"\nkind = \"mean\"\nof = {{ metric = \"goodput_bps\" }}\n{by}\n{rest}"
            ))
        };
        // `near` of a one-number measure, `relabel` of one without conditions.
        for wrong in [
            "kind = \"near\"\ntargets = { \"1\" = 0.5 }",
            "kind = \"relabel\"\nlabel = \"x {label}\"",
        ] {
            let e = after_goodput(
                "",
                &format!("[[measure]]\nid = \"m\"\nof = \"goodput\"\n{wrong}\n"),
            );
            assert!(e.starts_with("t.toml: measure.of (line 12)"), "{e}");
        }
        let bad_target = after_goodput(
            "by = \"buffer\"",
            r#"[[measure]]
id = "near"
kind = "near"
of = "goodput"
targets = { "1" = "half" }
"#,
        );
        assert!(
            bad_target.starts_with(
                "t.toml: \"1\" (line 15): invalid type: string \"half\", expected f64"
            ),
            "{bad_target}"
        );
        // A per-run harm with a zero unit, then with a key it does not take.
        let harm = |of_extra: &str, extra: &str| {
            error(&format!(
                "\n[[measure]]\nid = \"harm\"\nkind = \"harm\"\nper_run = true\n\
                 of = {{ metric = \"goodput_bps\"{of_extra} }}\nalone = {{ cc = \"a\" }}\n\
                 beside = {{ cc = \"b\" }}\n{extra}"
            ))
        };
        let bad_per = harm(", per = 0", "");
        assert!(
            bad_per.starts_with("t.toml: measure.of.per (line"),
            "{bad_per}"
        );
        let unknown = harm("", "at = { buffer = \"1\" }");
        assert!(unknown.contains("unknown field `at`"), "{unknown}");
    }

    #[test]
    fn drop_response_takes_windows_a_drop_sets() {
        let (dir, runs) = drop_grid("drop-windows");
        let f = file(
            r#"
measure = [
    { id = "high-rtt", kind = "named", name = "drop_response", params = { gives = "high_rtt_at", rtt_above = 2.5, at = { cc = "b" } } },
    { id = "inflight-before", kind = "named", name = "drop_response", params = { gives = "mean", column = "inflight", window = "before", before_s = 1.0, at = { cc = "b" } } },
    { id = "inflight-until", kind = "named", name = "drop_response", params = { gives = "mean", column = "inflight", window = "until_followed", at = { cc = "b" } } },
    { id = "lost-low", kind = "named", name = "drop_response", params = { gives = "increase", column = "lost", window = "low", at = { cc = "b" } } },
    { id = "loss-rate-before", kind = "named", name = "drop_response", params = { gives = "rate", column = "lost", window = "before", before_s = 2.0, at = { cc = "b" } } },
    { id = "followed-at-once", kind = "named", name = "drop_response", params = { gives = "rate", column = "lost", window = "until_followed", at = { cc = "a" } } },
    { id = "no-column", kind = "named", name = "drop_response", params = { gives = "mean", window = "low" } },
    { id = "no-window", kind = "named", name = "drop_response", params = { gives = "rate", column = "lost" } },
    { id = "bad-window", kind = "named", name = "drop_response", params = { gives = "increase", column = "lost", window = "after" } },
    { id = "bad-column", kind = "named", name = "drop_response", params = { gives = "mean", column = 3, window = "low" } },
]
"#,
        );
        // RTT above 50 ms at once in the first drop, never in the second
        // (its whole 1 s).
        assert_eq!(number(&f, &runs, "high-rtt"), 0.5);
        // [1, 2) and [4, 5): 10 and 40.
        assert_eq!(number(&f, &runs, "inflight-before"), 25.0);
        // b never follows: [2, 4) and [5, 6): 25 and 50.
        assert_eq!(number(&f, &runs, "inflight-until"), 37.5);
        // 16 - 4 and 36 - 25.
        assert_eq!(number(&f, &runs, "lost-low"), 11.5);
        // (4 - 0) / 2 and (25 - 9) / 2.
        assert_eq!(number(&f, &runs, "loss-rate-before"), 5.0);
        // a follows at the drop: an empty window has no rate.
        assert!(number(&f, &runs, "followed-at-once").is_nan());
        evaluation_refused(
            &f,
            &runs,
            "drop_response: ",
            &[
                ("no-column", "needs `column`"),
                ("no-window", "`window` must be"),
                ("bad-window", "`window` must be"),
                ("bad-column", "`column` must be"),
            ],
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sample_runs_counts_distinct_samples_and_runs_as_the_detector_does() {
        let (dir, runs) = grid_with_series("sample-runs", |_, run| {
            // Capacity 10; a sample repeated in the next row counts once;
            // ProbeBW's samples count two min_rtts (0.4 s) after it starts.
            let rows = [
                "0.0,0,5,10,200,200,startup",
                "0.25,0,6,10,200,200,probe_bw",
                "0.5,0,4,10,200,200,probe_bw",
                "0.75,0,4,10,600,200,probe_bw",
                "1.0,0,4,10,600,200,probe_bw",
                "1.25,0,9,10,600,200,probe_bw",
                "1.5,0,2,10,200,200,probe_rtt",
                "1.75,0,3,10,520,200,probe_bw",
            ];
            let flows = format!(
                "t_s,flow,delivery_rate_bps,bw_estimate_bps,latest_rtt_ms,min_rtt_ms,mode\n{}\n",
                rows.join("\n")
            );
            std::fs::write(run.join("series_flows.csv"), complete_flows(&flows)).unwrap();
            std::fs::write(
                run.join("series_link.csv"),
                complete_link("t_s,queue_bytes,capacity_bps\n0.0,0,10\n1.75,0,10\n"),
            )
            .unwrap();
        });
        let f = file(
            r#"
measure = [
    { id = "samples", kind = "named", name = "sample_runs", params = { gives = "samples", view = "all", from_s = 0.0 } },
    { id = "samples-late", kind = "named", name = "sample_runs", params = { gives = "samples", view = "all", from_s = 0.6 } },
    { id = "counted", kind = "named", name = "sample_runs", params = { gives = "samples", from_s = 0.0 } },
    { id = "below", kind = "named", name = "sample_runs", params = { gives = "share_below", below = 0.5, view = "all", from_s = 0.0 } },
    { id = "below-counted", kind = "named", name = "sample_runs", params = { gives = "share_below", below = 0.5, from_s = 0.0 } },
    { id = "lowest", kind = "named", name = "sample_runs", params = { gives = "lowest", view = "all", from_s = 0.0 } },
    { id = "lowest-counted", kind = "named", name = "sample_runs", params = { gives = "lowest", view = "detector", from_s = 0.0 } },
    { id = "low-run", kind = "named", name = "sample_runs", params = { gives = "low_run", fraction = 0.75, view = "all", from_s = 0.0 } },
    { id = "low-run-counted", kind = "named", name = "sample_runs", params = { gives = "low_run", fraction = 0.75, from_s = 0.0 } },
    { id = "high-rtt-run", kind = "named", name = "sample_runs", params = { gives = "high_rtt_run", multiple = 2.5, view = "all", from_s = 0.0 } },
    { id = "left-out", kind = "named", name = "sample_runs", params = { gives = "left_out", from_s = 0.0 } },
    { id = "no-below", kind = "named", name = "sample_runs", params = { gives = "share_below" } },
    { id = "bad-gives", kind = "named", name = "sample_runs", params = { gives = "median" } },
    { id = "bad-view", kind = "named", name = "sample_runs", params = { gives = "lowest", view = "some" } },
]
"#,
        );
        // The mean of eight runs' equal shares, to the last bits.
        let near = |id: &str, want: f64| {
            let got = number(&f, &runs, id);
            assert!((got - want).abs() < 1e-12, "{id}: {got} against {want}");
        };
        // Seven distinct samples (the 1 s row repeats 0.75 s's), four
        // from 0.6 s on; the detector counts 0.75 and 1.25 s.
        assert_eq!(number(&f, &runs, "samples"), 7.0);
        assert_eq!(number(&f, &runs, "samples-late"), 4.0);
        assert_eq!(number(&f, &runs, "counted"), 2.0);
        // Below 5: 4, 4, 2 and 3 of seven; 4 of the two counted.
        near("below", 4.0 / 7.0);
        near("below-counted", 0.5);
        near("lowest", 0.2);
        near("lowest-counted", 0.4);
        // Below 7.5: the first four samples in a row; the detector's run
        // starts over in Startup and ProbeRTT and skips early ProbeBW.
        assert_eq!(number(&f, &runs, "low-run"), 4.0);
        assert_eq!(number(&f, &runs, "low-run-counted"), 1.0);
        // RTT above 500 ms: 0.75 and 1.25 s (1.75 s after ProbeRTT's 200).
        assert_eq!(number(&f, &runs, "high-rtt-run"), 2.0);
        // Six samples from the end of Drain (0.25 s) on, two counted.
        near("left-out", 1.0 - 2.0 / 6.0);
        evaluation_refused(
            &f,
            &runs,
            "sample_runs",
            &[
                ("no-below", "`below` (a number) is required"),
                ("bad-gives", "`gives` must be"),
                ("bad-view", "`view` must be"),
            ],
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_run_window_takes_a_statistic_over_fractions_of_the_run() {
        // A 10 s run; 0 is an unset bound.
        let points = [
            (0.0, 0.0),
            (1.0, 4.0),
            (2.0, 0.0),
            (3.0, 2.0),
            (4.0, 6.0),
            (5.0, 8.0),
            (10.0, 3.0),
        ];
        let take =
            |t, window, bin_s, zero_unset| run_window(&points, t, window, 10.0, bin_s, zero_unset);
        // [1, 5] s, the end included: 4, 2, 6, 8 without the unset 0.
        assert_eq!(take(WindowTake::Median, (0.1, 0.5), None, true), Some(5.0));
        assert_eq!(take(WindowTake::Median, (0.1, 0.5), None, false), Some(4.0));
        // The last sample, at the run's end, is in a window to 1.
        assert_eq!(take(WindowTake::Max, (0.6, 1.0), None, false), Some(3.0));
        assert_eq!(take(WindowTake::Mean, (0.6, 0.9), None, false), None);
        // Means over 2 s bins (at 1, 3, 5 and 11 s: 4, 2, 7, 3), then the window.
        assert_eq!(
            take(WindowTake::Min, (0.0, 0.6), Some(2.0), true),
            Some(2.0)
        );
        assert_eq!(
            take(WindowTake::Max, (0.0, 0.6), Some(2.0), true),
            Some(7.0)
        );
        // The last bin's centre, 11 s, lies after the run's end.
        assert_eq!(
            take(WindowTake::Median, (0.0, 1.0), Some(2.0), true),
            Some(4.0)
        );

        let (dir, runs) = grid_with_series("run-window", |params, run| {
            // inflight: 0 (unset) then 1, 2, ... every 50 ms; cc b's doubled.
            let double = params.iter().any(|(k, v)| k == "cc" && v == "b");
            let mut flows = String::from("t_s,flow,inflight\n");
            for i in 0..=10 {
                let v = if i == 0 { 0.0 } else { i as f64 };
                let v = if double { 2.0 * v } else { v };
                flows.push_str(&format!("{},0,{v}\n", i as f64 * 0.05));
            }
            std::fs::write(run.join("series_flows.csv"), complete_flows(&flows)).unwrap();
        });
        let length = runs.points[0].1.result().unwrap().sim_time_s;
        assert_eq!(length, 0.5, "the template's run lasts 500 ms");
        let body = r#"
[[measure]]
id = "early"
kind = "run_window"
series = { column = "inflight" }
take = "median"
from_run = 0.0
to_run = 0.3
zero_unset = true
at = { cc = "a", buffer = "1" }

[[measure]]
id = "late-by-cc"
kind = "run_window"
series = { column = "inflight" }
take = "mean"
from_run = 0.8
to_run = 1.0
at = { buffer = "1" }
by = "cc"
"#;
        let f = file(body);
        // 0 to 0.15 s: 1, 2, 3 without the unset first sample.
        assert_eq!(number(&f, &runs, "early"), 2.0);
        match f.evaluate(&runs, "late-by-cc", 0.0).unwrap() {
            // 0.4 to 0.5 s: 8, 9, 10; cc b's doubled.
            Value::ByAxis(v) => {
                assert_eq!(
                    v.iter().map(|x| x.2.mean).collect::<Vec<_>>(),
                    vec![9.0, 18.0]
                )
            }
            v => panic!("{v:?}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
        let e = error(&body.replace("to_run = 0.3", "to_run = 0.0"));
        assert!(e.starts_with("t.toml: measure.from_run (line 7): "), "{e}");
        assert!(e.contains("0 <= from_run < to_run <= 1"), "{e}");
        let e = error(&body.replace("to_run = 1.0", "to_run = 1.5"));
        assert!(e.starts_with("t.toml: measure.from_run (line 17): "), "{e}");
        let e = error(&body.replace("zero_unset = true", "bin_s = 0.0"));
        assert!(e.starts_with("t.toml: measure.bin_s (line 7): "), "{e}");
        let e = error(&body.replace("take = \"mean\"", "take = \"mode\""));
        assert!(e.contains("unknown variant `mode`"), "{e}");
    }

    #[test]
    fn the_bdp_and_the_buffer_are_metrics_of_the_path() {
        let text = "name = \"t\"\nduration = \"500ms\"\n[link]\nrate = \"10Mbit\"\nrtt = \"20ms\"\nbuffer = \"1bdp\"\n\
                    [[flow]]\ncc = \"bbr\"\ncount = 3\n";
        let record = RunRecord::new("r".into(), Vec::new(), text.into(), template());
        let r = record.result().unwrap();
        let quantity = |text: &str| -> Quantity { toml::from_str(text).unwrap() };
        let bdp = quantity("metric = \"bdp_bytes\"\nflow = 1")
            .of(&record)
            .unwrap();
        let expected = r.link.capacity_bps * (r.flows[1].base_rtt_ms / 1e3) / 8.0;
        assert_eq!(bdp, expected);
        assert!(bdp > 0.0);
        assert_eq!(
            quantity("metric = \"bdp_bytes\"\nflow = \"sum\"").of(&record),
            None
        );
        // 1 BDP of 10 Mbit/s x 20 ms.
        let buffer = quantity("metric = \"link_buffer_bytes\"\nper = 1e3").of(&record);
        assert_eq!(buffer, Some(25.0));
        // A record without its scenario has no buffer.
        let (_, bare) = point(&[], &[1.0, 1.0, 1.0], &[0, 0, 0]);
        assert_eq!(quantity("metric = \"link_buffer_bytes\"").of(&bare), None);
    }

    /// A `direction` claim `t.claim` judged on `measure`, its other keys
    /// placeholders.
    fn direction_claim(measure: &str) -> String {
        format!(
            "[[claim]]\nid = \"t.claim\"\npaper = \"obbr\"\nplace = \"p\"\nstatement = \"s\"\n\
             about = \"a\"\nmetric = \"m\"\nunit = \"\"\npaper_says = \"p\"\n\
             test = {{ kind = \"direction\" }}\ntolerance_reason = \"r\"\n\
             origin = \"project target\"\nmeasure = \"{measure}\"\n"
        )
    }

    /// A CSV file `bbrlab-recorded-NAME-PID.csv` in the temporary
    /// directory holding `text`; its path.
    fn recorded_csv(name: &str, text: &str) -> PathBuf {
        let path =
            std::env::temp_dir().join(format!("bbrlab-recorded-{name}-{}.csv", std::process::id()));
        std::fs::write(&path, text).unwrap();
        path
    }

    fn recorded_measure(path: &Path, value: &str, keys: &str) -> String {
        format!(
            r#"
[[measure]]
id = "real"
kind = "recorded"
file = "{}"
value = "{value}"
rows = {{ path = "p" }}
keys = {keys}
by = "buffer"
"#,
            path.display()
        )
    }

    #[test]
    fn a_row_may_name_every_condition_and_an_unmet_precondition_its_numbers() {
        let runs = grid(Path::new("."));
        let body = GOODPUTS_OF_A_AND_B.to_string()
            + r#"
[[measure]]
id = "a-below-b"
kind = "condition"
a = "a-goodput"
b = "b-goodput"
holds = "below"
label = "buffer 1: {a} against {b}"

[[measure]]
id = "b-below-a"
kind = "condition"
a = "b-goodput"
b = "a-goodput"
holds = "below"
label = "b below a"

"# + &direction_claim("a-below-b")
            + r#"every_condition = true
precondition = { text = "a is ahead", measure = "b-below-a", unmet = "a at {a-goodput}, b at {b-goodput}", decimals = 1 }
"#;
        let judged = file(&body).analyze(&runs).claims.remove(0);
        assert_eq!(judged.verdict, report::VerdictStatus::Differs);
        assert_eq!(
            judged.ours,
            "holds in 0 of 1 (buffer 1: 2.00 against 0.67 (does not))"
        );
        // Where the precondition fails, its numbers follow.
        let swapped = body
            .replace("measure = \"b-below-a\"", "measure = \"a-below-b\"")
            .replace(
                "measure = \"a-below-b\"\nevery",
                "measure = \"b-below-a\"\nevery",
            );
        let judged = file(&swapped).analyze(&runs).claims.remove(0);
        assert_eq!(
            judged.ours,
            "holds in 1 of 1 (b below a (holds)); precondition unmet: a at 2.0, b at 0.7"
        );
        // Without every_condition, only the conditions that fail are named.
        let judged = file(&body.replace("every_condition = true\n", ""))
            .analyze(&runs)
            .claims
            .remove(0);
        assert_eq!(
            judged.ours,
            "holds in 0 of 1 (not at buffer 1: 2.00 against 0.67)"
        );
        let e = error(&body.replace("{b-goodput}", "{nothing}"));
        assert!(
            e.starts_with("t.toml: claim.precondition.unmet (line 48): "),
            "{e}"
        );
        assert!(
            e.contains("`{nothing}` must name a one-number measure"),
            "{e}"
        );
    }

    #[test]
    fn recorded_numbers_fill_a_column_beside_the_runs() {
        // Two runs of a real player at (a, 1), one at (b, 2), one not
        // made at (a, 2), and a row of another path left out.
        let csv = recorded_csv(
            "column",
            "path,cc,buffer,run,aq,command\n\
             p,a,1,1,7.5,x --seed 1\n\
             p,a,1,2,6.5,x --seed 2\n\
             p,b,2,1,3,x\n\
             p,a,2,1,,not run\n\
             q,a,1,1,0,x\n",
        );
        let runs = grid(Path::new("."));
        let f = file(&format!(
            r#"{}
[[measure]]
id = "goodput"
kind = "mean"
of = {{ metric = "goodput_bps", flow = 0 }}
by = "buffer"

[[table]]
title = "Goodput"
by = "buffer"
then = "cc"
columns = [
    {{ header = "goodput", measure = "goodput", decimals = 0 }},
    {{ header = "real AQ", measure = "real", format = "stat", decimals = 1 }},
]
"#,
            recorded_measure(&csv, "aq", r#"{ cc = "cc", buffer = "buffer" }"#)
        ));
        let table = &f.analyze(&runs).section.tables[0];
        let real: Vec<Cell> = table.rows.iter().map(|r| r[2].clone()).collect();
        assert_eq!(
            real,
            [
                Cell::text("7.0 ± 0.7"),
                Cell::Empty,
                Cell::Empty,
                Cell::text("3.0")
            ],
            "{:?}",
            table.rows
        );
        // Along its axis, the other keys free: every run of the path.
        match f.evaluate(&runs, "real", 0.0).unwrap() {
            Value::ByAxis(v) => {
                let means: Vec<(String, f64)> =
                    v.into_iter().map(|(x, _, s)| (x, s.mean)).collect();
                assert_eq!(means, [("1".to_string(), 7.0), ("2".to_string(), 3.0)]);
            }
            v => panic!("{v:?}"),
        }
        std::fs::remove_file(csv).unwrap();
    }

    #[test]
    fn a_recorded_file_is_refused_naming_the_file_the_line_and_the_key() {
        let e = error(&recorded_measure(
            Path::new("no/such/recorded.csv"),
            "aq",
            r#"{ cc = "cc" }"#,
        ));
        assert!(e.starts_with("t.toml: measure.file (line 9)"), "{e}");
        assert!(e.contains("cannot read no/such/recorded.csv"), "{e}");

        let csv = recorded_csv("no-column", "path,cc,run,aq\np,a,1,7\n");
        let e = error(&recorded_measure(
            &csv,
            "aq",
            r#"{ cc = "cc", buffer = "buf" }"#,
        ));
        assert!(e.starts_with("t.toml: measure.file (line 9)"), "{e}");
        assert!(
            e.contains("line 1: no column `buf` (the column of axis `buffer`); the columns are path, cc, run, aq"),
            "{e}"
        );
        let e = error(&recorded_measure(&csv, "qs", r#"{ cc = "cc" }"#));
        assert!(e.contains("no column `qs` (the measure's `value`)"), "{e}");
        std::fs::remove_file(csv).unwrap();

        let csv = recorded_csv("not-a-number", "path,cc,aq\np,a,7\np,b,seven\n");
        let e = error(&recorded_measure(&csv, "aq", r#"{ cc = "cc" }"#));
        assert!(
            e.contains("line 3: `aq` is `seven`: expected a number, or nothing for a run not made"),
            "{e}"
        );
        std::fs::remove_file(&csv).unwrap();

        let csv = recorded_csv("ragged", "path,cc,aq\np,a,7,extra\n");
        let e = error(&recorded_measure(&csv, "aq", r#"{ cc = "cc" }"#));
        assert!(e.contains("line 2: not a CSV row"), "{e}");
        std::fs::remove_file(&csv).unwrap();
    }

    #[test]
    fn near_takes_the_point_band_and_names_raw_values_as_per_value_does() {
        let runs = grid(Path::new("."));
        // Measures of one kind each: id, kind, and the rest of its keys.
        let measures: String = [
            ("goodput-1", "mean", "of = { metric = \"goodput_bps\" }\nat = { buffer = \"1\" }\nby = \"cc\""),
            ("point", "near", "of = \"goodput-1\"\nband = \"point\"\ntargets = { a = 5.0, b = 1.0 }\nlabel = \"{raw} ({value}) at 1\""),
            ("margin", "near", "of = \"goodput-1\"\ntargets = { a = 5.0, b = 1.0 }"),
            ("goodput", "mean", "of = { metric = \"goodput_bps\" }\nby = \"buffer\""),
            ("at-least-3", "count", "of = \"goodput\"\nholds = \"at_least\"\nbound = 3.0"),
            ("per-cc", "per_value", "axis = \"cc\"\nof = \"at-least-3\"\nlabel = \"{raw} {condition}\""),
        ]
        .iter()
        .map(|(id, kind, rest)| format!("[[measure]]\nid = \"{id}\"\nkind = \"{kind}\"\n{rest}\n\n"))
        .collect();
        let f = file(&format!("\n[labels]\na = \"A\"\n\n{measures}"));
        let named = |v: &[(&str, bool)]| -> Vec<(String, bool)> {
            v.iter().map(|(l, ok)| (l.to_string(), *ok)).collect()
        };
        // a: |6 - 5| within a quarter of 5; b: |2 - 1| beyond a quarter of 1,
        // whatever the claim's margin.
        assert_eq!(
            conditions(&f, &runs, "point", 5.0),
            named(&[("a (A) at 1", true), ("b (b) at 1", false)])
        );
        // Without a band, the claim's margin: 1 holds both.
        assert_eq!(
            conditions(&f, &runs, "margin", 1.0),
            named(&[("A", true), ("b", true)])
        );
        assert_eq!(
            conditions(&f, &runs, "margin", 0.5),
            named(&[("A", false), ("b", false)])
        );
        // a delivers 6 and 4, b 2 and 1.
        assert_eq!(
            conditions(&f, &runs, "per-cc", 0.0),
            named(&[("a 1", true), ("a 2", true), ("b 1", false), ("b 2", false)])
        );
        let e = error(
            "\n[[measure]]\nid = \"g\"\nkind = \"mean\"\nof = { metric = \"goodput_bps\" }\nby = \"cc\"\n\n\
             [[measure]]\nid = \"n\"\nkind = \"near\"\nof = \"g\"\nband = \"wide\"\ntargets = { a = 1.0 }\n",
        );
        assert!(
            e.starts_with(
                "t.toml: band (line 16): unknown variant `wide`, expected `margin` or `point`"
            ),
            "{e}"
        );
    }
    /// Table I's axes at two losses, RTTs and buffers, one BBR and one
    /// BBRv2 run each (seed 1): BBR far ahead with loss, BBRv2 within 1%
    /// without, but 25% ahead at 10 ms with the larger buffer.
    fn tree_grid() -> Runs {
        let mut points = Vec::new();
        for loss in ["0", "2%"] {
            for rtt in ["10ms", "100ms"] {
                for buffer in ["1MB", "10MB"] {
                    let (bbr, bbr2) = match (loss, rtt, buffer) {
                        ("0", "10ms", "10MB") => (8.0, 10.0),
                        ("0", _, _) => (9.95, 10.0),
                        _ => (10.0, 2.0),
                    };
                    for (cc, g) in [("bbr", bbr), ("bbr2", bbr2)] {
                        points.push(point(
                            &[
                                ("link.loss", loss),
                                ("link.rate", "10Mbit"),
                                ("link.rtt", rtt),
                                ("link.buffer", buffer),
                                ("flow.0.cc", cc),
                            ],
                            &[g, 1.0, 1.0],
                            &[0, 0, 0],
                        ));
                    }
                }
            }
        }
        let axes: [(&str, &[&str]); 5] = [
            ("link.loss", &["0", "2%"]),
            ("link.rate", &["10Mbit"]),
            ("link.rtt", &["10ms", "100ms"]),
            ("link.buffer", &["1MB", "10MB"]),
            ("flow.0.cc", &["bbr", "bbr2"]),
        ];
        runs_of(points, &axes, &std::env::temp_dir())
    }

    const TREE: &str = r#"
[[measure]]
id = "checks"
kind = "named"
name = "decision_tree"
params = { of = { metric = "goodput_bps" }, classes = ["bbr", "bbr2"], gives = "fig1" }

[[measure]]
id = "root"
kind = "named"
name = "decision_tree"
params = { of = { metric = "goodput_bps" }, classes = ["bbr", "bbr2"], gives = "root" }

[[tree]]
title = "Who wins over {conditions} conditions"
measure = "root"
leaves = "Leaves"
"#;

    #[test]
    fn a_decision_tree_checks_fig1_splits_on_loss_and_is_drawn_with_its_leaves() {
        let f = file(TREE);
        let runs = tree_grid();
        let checks = conditions(&f, &runs, "checks", 0.0);
        assert_eq!(checks.len(), 8);
        assert!(checks.iter().all(|(_, ok)| *ok), "{checks:?}");
        assert_eq!(
            checks[1].0,
            "10Mbit, 10ms, no loss, 10MB buffer (BBRv2 +25%)"
        );
        assert_eq!(
            conditions(&f, &runs, "root", 0.0),
            labelled(&[("the root splits on loss (%)", true)])
        );
        let section = f.analyze(&runs).section;
        let tree = section
            .figures
            .iter()
            .find(|f| matches!(f.kind, report::FigureKind::Tree { .. }))
            .expect("a tree figure");
        assert_eq!(tree.title, "Who wins over 8 conditions (one seed)");
        assert_eq!(section.tables[0].caption, "Leaves");
        // Without the leaves' title, the tree alone.
        let f = file(&TREE.replace("leaves = \"Leaves\"\n", ""));
        let section = f.analyze(&runs).section;
        assert!(section.tables.iter().all(|t| t.caption != "Leaves"));
        // A measure without the runs' quantity, or giving what it cannot.
        let bad = file(&TREE.replace("gives = \"fig1\"", "gives = \"leaves\""));
        evaluation_refused(
            &bad,
            &runs,
            "decision_tree",
            &[("checks", "`gives` must be")],
        );
        let bad = file(&TREE.replace(
            "classes = [\"bbr\", \"bbr2\"], gives = \"root\"",
            "gives = \"root\"",
        ));
        evaluation_refused(
            &bad,
            &runs,
            "decision_tree",
            &[("root", "`classes` must be two")],
        );
    }

    #[test]
    fn a_tree_of_a_measure_that_is_not_a_decision_tree_is_named_by_file_line_and_key() {
        // A named measure of another name, and no measure at all.
        let other = TREE.replace(
            "name = \"decision_tree\"\nparams = { of = { metric = \"goodput_bps\" }, classes = [\"bbr\", \"bbr2\"], gives = \"root\" }",
            "name = \"converge_share\"\nparams = { g = 2 }",
        );
        let e = error(&other);
        assert!(e.starts_with("t.toml: tree.measure (line 19)"), "{e}");
        assert!(
            e.contains("`root` must be a named measure of name \"decision_tree\""),
            "{e}"
        );
        let e = error(&TREE.replace("measure = \"root\"", "measure = \"nothing\""));
        assert!(e.starts_with("t.toml: tree.measure (line 19)"), "{e}");
        let e = error(&TREE.replace(
            "leaves = \"Leaves\"",
            "leaves = \"Leaves\"\ncolour = \"red\"",
        ));
        assert!(e.contains("unknown field `colour`"), "{e}");
    }

    /// A claims-not-run file of one claim: [`MINIMAL`]'s, with what judging
    /// it needs in place of its measure (line 2 is its id, line 10 its test).
    fn not_run() -> String {
        let claim = &MINIMAL[MINIMAL.find("[[claim]]").unwrap()..];
        claim.replace("measure = \"like\"", "needs = \"the Internet path\"")
    }

    #[test]
    fn a_claims_not_run_file_judges_each_claim_not_run_with_what_it_needs() {
        let text = not_run();
        let f = NotRunFile::parse("n.toml", &text).unwrap();
        assert_eq!(f.sha256, sha256_hex(text.as_bytes()));
        let judged = f.judged();
        assert_eq!(judged.len(), 1);
        assert_eq!(judged[0].claim.id(), "t.x");
        assert_eq!(judged[0].verdict, report::VerdictStatus::NotRun);
        assert_eq!(judged[0].ours, "not run: the Internet path");
        // Every suite's file parses, its claims declared once.
        let mut ids = std::collections::BTreeSet::new();
        for suite in super::super::suites() {
            let Some(file) = &suite.outside else { continue };
            let parsed = NotRunFile::parse(file.path, file.text).unwrap();
            assert!(!parsed.claims.is_empty(), "{}", file.path);
            for (claim, _) in &parsed.claims {
                assert!(ids.insert(claim.id()), "{} twice", claim.id());
            }
        }
    }

    #[test]
    fn a_bad_claims_not_run_file_is_named_by_file_line_and_key() {
        let refused = |text: &str| NotRunFile::parse("n.toml", text).unwrap_err().to_string();
        let claim = not_run();
        let e = refused(&claim.replace("needs = \"the Internet path\"\n", ""));
        assert!(e.starts_with("n.toml: claim.needs (line 2)"), "{e}");
        assert!(e.contains("`t.x` needs `needs`"), "{e}");
        let e = refused(&claim.replace("needs = \"the Internet path\"", "needs = \" \""));
        assert!(e.starts_with("n.toml: claim.needs (line 2)"), "{e}");
        let e = refused(&format!("{claim}measure = \"m\"\n"));
        assert!(e.starts_with("n.toml: claim.measure (line 2)"), "{e}");
        let e = refused(&format!("{claim}every_condition = true\n"));
        assert!(
            e.starts_with("n.toml: claim.every_condition (line 2)"),
            "{e}"
        );
        let e = refused(&format!("{claim}{claim}"));
        assert!(e.starts_with("n.toml: claim.id (line 2)"), "{e}");
        assert!(e.contains("`t.x` is declared twice"), "{e}");
        let e = refused(&format!("{claim}colour = \"red\"\n"));
        assert!(e.starts_with("n.toml (line "), "{e}");
        assert!(e.contains("unknown field `colour`"), "{e}");
        let e = refused(&claim.replace("kind = \"direction\"", "kind = \"direktion\""));
        assert!(
            e.contains("line 10") && e.contains("unknown variant `direktion`"),
            "{e}"
        );
        // An experiment file's claim is judged on a measure, never `needs`.
        let e = ExperimentFile::parse("x.toml", &format!("{MINIMAL}needs = \"n\"\n"), None)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.toml: claim.needs (line 20)"), "{e}");
        let text = MINIMAL.replace("measure = \"like\"\n", "");
        let e = ExperimentFile::parse("x.toml", &text, None)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.toml: claim.measure (line 20)"), "{e}");
    }

    #[test]
    fn a_reference_line_at_a_measures_number_draws_goodput_under_losss_capacity() {
        // bbr2's goodput under loss draws the runs' mean capacity (here the
        // template's 10 Mbit/s link) on its goodput figure, in Mbit/s.
        let points = ["bbr", "bbr2"]
            .into_iter()
            .flat_map(|cc| {
                ["0", "2%"].map(|loss| {
                    point(
                        &[("flow.0.cc", cc), ("link.loss", loss)],
                        &[5e6, 0.0, 0.0],
                        &[0; 3],
                    )
                })
            })
            .collect();
        let axes: [(&str, &[&str]); 2] =
            [("flow.0.cc", &["bbr", "bbr2"]), ("link.loss", &["0", "2%"])];
        let runs = runs_of(points, &axes, &std::env::temp_dir());
        let text = include_str!("../../../../experiments/bbr2/goodput-under-loss.toml");
        let f = ExperimentFile::parse("goodput-under-loss.toml", text, None).unwrap();
        let section = f.analyze(&runs).section;
        let goodput = section
            .figures
            .iter()
            .find(|f| f.title.starts_with("Goodput under random loss"))
            .unwrap();
        assert_eq!(goodput.references.len(), 1);
        assert!(
            (goodput.references[0].at - 10.0).abs() < 1e-9,
            "{:?}",
            goodput.references
        );
        assert_eq!(goodput.references[0].label, "capacity");
        // A measure without a number (no runs) draws no line.
        let section = f
            .analyze(&Runs {
                points: Vec::new(),
                ..runs
            })
            .section;
        assert!(section.figures.iter().all(|f| f.references.is_empty()));
    }
}
