//! Metric recorders: counters at the start of the measurement window,
//! RTT and queueing-delay histograms, and the periodic time series.
//!
//! Memory is flat in the number of packets: histograms have fixed size and
//! the time series grows with simulated time / sample interval only.

use std::time::Duration;

use hdrhistogram::Histogram;

use crate::results::{FlowSample, LinkSample, Percentiles};
use crate::transport::{Sender, SenderStats};

/// Significant decimal digits the RTT and queueing-delay histograms keep:
/// three, so that p95, p99 and max stay distinct (at two, every one of 100
/// flows once reported 80.4 ms for all three). Values are kept to within
/// 0.1% (e.g. 80.43 ms to within 0.08 ms).
pub(crate) const HISTOGRAM_SIGNIFICANT_DIGITS: u8 = 3;

/// Delays kept as a microsecond histogram, 1 us .. 1 hour, at
/// [`HISTOGRAM_SIGNIFICANT_DIGITS`]: the simulator's RTTs, queueing delays
/// and live frame delays, and the real-time emulator's queueing delays, so
/// every source reports on the same terms. Its size is fixed (about
/// 190 KB), whatever the number of samples.
#[derive(Clone, Debug)]
pub struct DelayHistogram(Histogram<u64>);

impl DelayHistogram {
    /// An empty histogram.
    pub fn new() -> DelayHistogram {
        DelayHistogram(
            Histogram::new_with_bounds(1, 3_600_000_000, HISTOGRAM_SIGNIFICANT_DIGITS)
                .expect("static histogram bounds are valid"),
        )
    }

    /// Records `delay` (saturating into the histogram's range).
    pub fn record(&mut self, delay: Duration) {
        let us = (delay.as_micros() as u64).clamp(1, 3_600_000_000);
        self.0.saturating_record(us);
    }

    /// How many delays are recorded.
    pub fn len(&self) -> u64 {
        self.0.len()
    }

    /// Whether no delay is recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Forgets every delay recorded (a measurement window opens).
    pub fn reset(&mut self) {
        self.0.reset();
    }

    /// The percentiles in milliseconds; all zero if nothing was recorded.
    pub fn percentiles(&self) -> Percentiles {
        let h = &self.0;
        if self.is_empty() {
            return Percentiles::default();
        }
        let ms = |us: u64| us as f64 / 1000.0;
        Percentiles {
            p50: ms(h.value_at_quantile(0.50)),
            p95: ms(h.value_at_quantile(0.95)),
            p99: ms(h.value_at_quantile(0.99)),
            mean: h.mean() / 1000.0,
            min: ms(h.min()),
            max: ms(h.max()),
        }
    }
}

impl Default for DelayHistogram {
    fn default() -> DelayHistogram {
        DelayHistogram::new()
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_keep_three_significant_digits() {
        let mut h = DelayHistogram::new();
        // 80.0 .. 89.9 ms in steps of 0.1 ms: with two digits p95, p99 and
        // max all read 81.0 (one bucket 0.5 ms wide); three keep them apart.
        for i in 0..100u64 {
            h.record(Duration::from_micros(80_000 + i * 100));
        }
        let p = h.percentiles();
        assert!(p.p95 < p.p99 && p.p99 < p.max, "{p:?}");
        for (got, want) in [(p.p50, 84.9), (p.p95, 89.4), (p.p99, 89.8), (p.max, 89.9)] {
            assert!((got - want).abs() <= want * 1e-3, "{got} vs {want}: {p:?}");
        }
    }
}
