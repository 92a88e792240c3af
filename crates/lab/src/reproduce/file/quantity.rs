//! The numbers a measure reads from one run: a [`Quantity`] (a metric of a
//! flow, of the flows' mean or sum, or of the run), a series column, and
//! the small vocabularies measures are written in (takes, ways, windows,
//! operators).

use serde::Deserialize;

use crate::stats;
use crate::store::RunRecord;

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
    pub(super) fn of_flow(
        self,
        f: &sim::FlowSummary,
        total_goodput: f64,
        flows: usize,
    ) -> Option<f64> {
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

    pub(super) fn of_run(self, r: &sim::RunResult) -> Option<f64> {
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
    pub(super) fn of_path(&self, record: &RunRecord, r: &sim::RunResult) -> Option<Option<f64>> {
        match (self.metric, &self.flow) {
            (Metric::BdpBytes, FlowSel::Index(i)) => Some(
                r.flows
                    .get(*i)
                    .map(|f| r.link.capacity_bps * (f.base_rtt_ms / 1e3) / 8.0),
            ),
            (Metric::BdpBytes, _) => Some(None),
            (Metric::LinkBufferBytes, _) => Some(
                crate::reproduce::data::link_of(record)
                    .map(|l| crate::reproduce::data::buffer_bytes(&l)),
            ),
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
    pub(super) fn raw(&self, record: &RunRecord) -> Option<f64> {
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
pub(super) struct RawSeriesColumn {
    pub(super) column: String,
    #[serde(default)]
    pub(super) flow: SeriesOf,
    #[serde(default)]
    pub(super) source: SeriesSource,
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
    pub(super) fn is_link_controller(&self) -> bool {
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
    pub(super) fn check(self, value: f64, reference: f64, margin: f64) -> bool {
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

/// Which statistic of a series' window [`Measure::Window`](super::Measure::Window) takes.
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
    pub(super) fn of(self, points: &[(f64, f64)], from: f64, to: f64) -> Option<f64> {
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

/// An arithmetic operation of [`Measure::Arithmetic`](super::Measure::Arithmetic).
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
    pub(super) fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Op::Add => a + b,
            Op::Subtract => a - b,
            Op::Multiply => a * b,
            Op::Divide => a / b,
        }
    }
}

/// An operand of [`Measure::Arithmetic`](super::Measure::Arithmetic): a number, or a measure by id.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Operand {
    /// A number.
    Number(f64),
    /// A measure, by id.
    Measure(String),
}

impl Take {
    /// The largest, the least or the mean of `xs` (NaN if empty).
    pub(super) fn of(self, xs: &[f64]) -> f64 {
        match (self, xs.is_empty()) {
            (_, true) => f64::NAN,
            (Take::Max, false) => xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            (Take::Min, false) => xs.iter().copied().fold(f64::INFINITY, f64::min),
            (Take::Mean, false) => stats::mean_sd(xs).0,
        }
    }
}
