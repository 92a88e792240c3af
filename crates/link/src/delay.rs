//! Delays as the simulator and the emulator report them: a fixed-size
//! histogram and its percentiles in milliseconds.

use std::time::Duration;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Significant decimal digits the RTT and queueing-delay histograms keep:
/// three, so that p95, p99 and max stay distinct (at two, every one of 100
/// flows once reported 80.4 ms for all three). Values are kept to within
/// 0.1% (e.g. 80.43 ms to within 0.08 ms).
pub const HISTOGRAM_SIGNIFICANT_DIGITS: u8 = 3;

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
    #[inline]
    pub fn record(&mut self, delay: Duration) {
        // `as_micros` without its 128-bit division (exact below 584,000 years).
        let us = delay
            .as_secs()
            .saturating_mul(1_000_000)
            .saturating_add(u64::from(delay.subsec_micros()))
            .clamp(1, 3_600_000_000);
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

/// RTT or delay percentiles in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Mean.
    pub mean: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
}

impl Percentiles {
    /// The percentiles of `samples`, computed as the simulator computes its
    /// RTT and queueing-delay percentiles (a histogram keeping three
    /// significant digits), so other sources of samples (an emulated run)
    /// report on the same terms.
    pub fn of_durations(samples: impl IntoIterator<Item = Duration>) -> Percentiles {
        let mut histogram = DelayHistogram::new();
        for d in samples {
            histogram.record(d);
        }
        histogram.percentiles()
    }

    /// The fields with their names, for checks and tables.
    pub fn named(&self) -> [(&'static str, f64); 6] {
        [
            ("p50", self.p50),
            ("p95", self.p95),
            ("p99", self.p99),
            ("mean", self.mean),
            ("min", self.min),
            ("max", self.max),
        ]
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
