//! Metric recorders: counters at the start of the measurement window,
//! RTT and queueing-delay histograms, and the periodic time series.
//!
//! Memory is flat in the number of packets: histograms have fixed size and
//! the time series grows with simulated time / sample interval only.

pub use link::DelayHistogram;

use crate::results::{FlowSample, LinkSample};
use crate::transport::{Sender, SenderStats};

/// Per-flow recorder state.
#[derive(Debug)]
pub(crate) struct FlowRecorder {
    pub rtt: DelayHistogram,
    /// Counters when the measurement window opened.
    pub base_stats: SenderStats,
    pub base_delivered: u64,
    pub base_dropped: u64,
    pub base_dropped_random: u64,
    pub measuring: bool,
    /// When the measurement window opened: max(warmup, flow start).
    pub opened_at: cc::Instant,
    pub cwnd_sum: f64,
    pub cwnd_samples: u64,
    /// Delivery-rate samples against the true capacity, in the window.
    pub bw_error: RootMeanSquare,
    /// The same, of the samples that were not app-limited only.
    pub bw_unlimited_error: RootMeanSquare,
    /// The controller's bandwidth estimate against the true capacity,
    /// after every ACK with a new sample, in the window.
    pub bw_estimate_error: RootMeanSquare,
}

/// Running root mean square of errors: how far the bandwidth samples and
/// estimates of a flow are from the link's true capacity, kept the same
/// way by the simulator's recorders and the real stack's telemetry.
#[derive(Clone, Copy, Debug, Default)]
pub struct RootMeanSquare {
    sum_sq: f64,
    count: u64,
}

impl RootMeanSquare {
    /// Counts one error.
    pub fn add(&mut self, error: f64) {
        self.sum_sq += error * error;
        self.count += 1;
    }

    /// None before any sample.
    pub fn rms(&self) -> Option<f64> {
        (self.count > 0).then(|| (self.sum_sq / self.count as f64).sqrt())
    }
}

impl FlowRecorder {
    pub fn new() -> Self {
        FlowRecorder {
            rtt: DelayHistogram::new(),
            base_stats: SenderStats::default(),
            base_delivered: 0,
            base_dropped: 0,
            base_dropped_random: 0,
            measuring: false,
            opened_at: cc::Instant::ZERO,
            cwnd_sum: 0.0,
            cwnd_samples: 0,
            bw_error: RootMeanSquare::default(),
            bw_unlimited_error: RootMeanSquare::default(),
            bw_estimate_error: RootMeanSquare::default(),
        }
    }
}

/// Builds a time-series sample of a flow.
pub(crate) fn flow_sample(t_s: f64, flow: usize, sender: &Sender, delivered: u64) -> FlowSample {
    let cc = sender.controller();
    let snap = cc.snapshot();
    let pacing = cc.pacing_rate();
    let rate = sender.last_rate_sample();
    let stats = sender.stats();
    FlowSample {
        t_s,
        flow,
        cwnd: cc.cwnd().get(),
        inflight: sender.bytes_in_flight().get(),
        pacing_rate_bps: if pacing == cc::Bandwidth::MAX {
            0.0
        } else {
            pacing.as_bps_f64()
        },
        delivery_rate_bps: rate.delivery_rate.map_or(0.0, |r| r.as_bps_f64()),
        bw_estimate_bps: snap.bandwidth_estimate.map_or(0.0, |b| b.as_bps_f64()),
        min_rtt_ms: snap.min_rtt_estimate.map_or(0.0, |d| d.as_secs_f64() * 1e3),
        srtt_ms: sender.rtt().smoothed().as_secs_f64() * 1e3,
        latest_rtt_ms: sender.rtt().latest().as_secs_f64() * 1e3,
        mode: snap.mode,
        pacing_gain: snap.pacing_gain,
        cwnd_gain: snap.cwnd_gain,
        delivered,
        retransmitted: stats.bytes_retransmitted,
        lost: stats.bytes_lost,
        padding: stats.padding_bytes,
        controller: snap.extra,
    }
}

/// Builds a time-series sample of the link.
pub(crate) fn link_sample(
    t_s: f64,
    queue_bytes: u64,
    capacity_bps: f64,
    forwarded: u64,
) -> LinkSample {
    LinkSample {
        t_s,
        queue_bytes,
        capacity_bps,
        forwarded,
    }
}
