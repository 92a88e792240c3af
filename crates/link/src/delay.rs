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

/// The longest delay kept, in microseconds (one hour); longer ones count
/// as this.
const MAX_MICROS: u64 = 3_600_000_000;

/// log2 of hdrhistogram's sub-bucket count at
/// [`HISTOGRAM_SIGNIFICANT_DIGITS`] with a lowest discernible value of 1:
/// the smallest power of two that holds 2 * 10^digits (11 at three
/// digits: values below 2048 us are kept exactly, each octave above in
/// 1024 steps).
const SUB_BUCKET_BITS: u32 = (2 * 10u64.pow(HISTOGRAM_SIGNIFICANT_DIGITS as u32))
    .next_power_of_two()
    .trailing_zeros();
/// log2 of the steps per octave above the exact range.
const HALF_BITS: u32 = SUB_BUCKET_BITS - 1;
/// The exact range's values set every bit of this mask or fewer.
const SUB_BUCKET_MASK: u64 = (1 << SUB_BUCKET_BITS) - 1;

/// The counter a delay of `us` microseconds (1 ..= [`MAX_MICROS`]) goes
/// to: its index in hdrhistogram's counts at the same bounds and digits.
/// hdrhistogram's bucket b (0 for the exact range) holds values
/// `[2^(b + 10), 2^(b + 11))` in steps of `2^b`, at indices from
/// `(b + 1) * 1024`; the value's step within the octave, `us >> b`, lies in
/// 1024..2048, so the index is `b * 1024 + (us >> b)`.
#[inline(always)]
const fn counter_of(us: u64) -> usize {
    let bucket = (63 - (us | SUB_BUCKET_MASK).leading_zeros()) - HALF_BITS;
    (((bucket as u64) << HALF_BITS) + (us >> bucket)) as usize
}

/// The lowest delay (us) that [`counter_of`] sends to counter `index`.
fn lowest_of(index: usize) -> u64 {
    let index = index as u64;
    if index <= SUB_BUCKET_MASK {
        return index;
    }
    let bucket = (index >> HALF_BITS) - 1;
    (index - (bucket << HALF_BITS)) << bucket
}

/// Counters skipped together when a histogram is built.
const SCAN_CHUNK: usize = 16;

/// How many counters a histogram has: up to that of [`MAX_MICROS`],
/// rounded up to whole chunks (those past it stay zero).
const COUNTERS: usize = (counter_of(MAX_MICROS) + 1).next_multiple_of(SCAN_CHUNK);

/// Delays kept as a microsecond histogram, 1 us .. 1 hour, at
/// [`HISTOGRAM_SIGNIFICANT_DIGITS`]: the simulator's RTTs, queueing delays
/// and live frame delays, and the real-time emulator's queueing delays, so
/// every source reports on the same terms. Its size is fixed (about
/// 190 KB), whatever the number of samples.
///
/// A record only adds one to a counter laid out as hdrhistogram lays out
/// its counts (the simulator records a queueing delay per packet and an RTT
/// per ACK, and hdrhistogram's own record, a call that also keeps the
/// minimum, maximum and total, cost about 60 instructions each); the
/// percentiles are read from an hdrhistogram built from the counters, equal
/// to one that recorded every delay itself (its minimum and maximum are
/// read at its resolution, so the lowest value of a counter stands for all
/// of them).
#[derive(Clone)]
pub struct DelayHistogram {
    /// Delays counted at [`counter_of`] their microseconds.
    counts: Box<[u64]>,
    /// Delays recorded.
    total: u64,
}

impl DelayHistogram {
    /// An empty histogram.
    pub fn new() -> DelayHistogram {
        DelayHistogram {
            counts: vec![0; COUNTERS].into_boxed_slice(),
            total: 0,
        }
    }

    /// Records `delay` (saturating into the histogram's range).
    #[inline]
    pub fn record(&mut self, delay: Duration) {
        // `as_micros` without its 128-bit division (exact below 584,000 years).
        let us = delay
            .as_secs()
            .saturating_mul(1_000_000)
            .saturating_add(u64::from(delay.subsec_micros()))
            .clamp(1, MAX_MICROS);
        self.count(us);
    }

    /// Records a delay of `nanos` nanoseconds, as [`DelayHistogram::record`]
    /// does `Duration::from_nanos(nanos)`: for a delay that is a difference
    /// of two instants in nanoseconds, without building the `Duration`.
    #[inline]
    pub fn record_nanos(&mut self, nanos: u64) {
        self.count((nanos / 1000).clamp(1, MAX_MICROS));
    }

    /// Counts a delay of `us` microseconds (1 ..= [`MAX_MICROS`]).
    #[inline(always)]
    fn count(&mut self, us: u64) {
        self.counts[counter_of(us)] += 1;
        self.total += 1;
    }

    /// How many delays are recorded.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// Whether no delay is recorded.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Forgets every delay recorded (a measurement window opens).
    pub fn reset(&mut self) {
        self.counts.fill(0);
        self.total = 0;
    }

    /// The delays as hdrhistogram keeps them: its counts, total, minimum
    /// and maximum equal those of a histogram of the full range (1 us .. 1
    /// hour, same digits) that recorded each delay, and so do its
    /// percentiles and mean; it tracks values only up to the highest delay
    /// recorded (its counts beyond would be zero), which spares building
    /// and zeroing the rest.
    pub fn histogram(&self) -> Histogram<u64> {
        // Most counters are zero (delays of a run span a few octaves):
        // runs of them are skipped a chunk at a time.
        let used = |counts: &[u64]| counts.iter().fold(0, |any, &c| any | c) != 0;
        let chunks = self.counts.chunks_exact(SCAN_CHUNK);
        let end = chunks
            .clone()
            .rposition(used)
            .map_or(0, |c| (c + 1) * SCAN_CHUNK);
        let highest = lowest_of(end.saturating_sub(1)).clamp(2, MAX_MICROS);
        let mut h = Histogram::new_with_bounds(1, highest, HISTOGRAM_SIGNIFICANT_DIGITS)
            .expect("bounds of at least 1 and 2 are valid");
        for (chunk, counts) in chunks.take(end / SCAN_CHUNK).enumerate() {
            if !used(counts) {
                continue;
            }
            for (i, &count) in counts.iter().enumerate() {
                if count > 0 {
                    h.saturating_record_n(lowest_of(chunk * SCAN_CHUNK + i), count);
                }
            }
        }
        h
    }

    /// The percentiles in milliseconds; all zero if nothing was recorded.
    pub fn percentiles(&self) -> Percentiles {
        if self.is_empty() {
            return Percentiles::default();
        }
        percentiles_of(&self.histogram())
    }
}

/// The percentiles of a microsecond histogram, in milliseconds.
fn percentiles_of(h: &Histogram<u64>) -> Percentiles {
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

impl std::fmt::Debug for DelayHistogram {
    // The counters themselves are too many to print usefully.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DelayHistogram")
            .field("len", &self.total)
            .field("percentiles", &self.percentiles())
            .finish()
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

    /// hdrhistogram itself, at the bounds and digits the counters follow.
    fn reference() -> Histogram<u64> {
        Histogram::new_with_bounds(1, MAX_MICROS, HISTOGRAM_SIGNIFICANT_DIGITS).unwrap()
    }

    #[test]
    fn counters_follow_hdrhistogram_layout() {
        let h = reference();
        assert!(
            COUNTERS <= h.distinct_values(),
            "no counter beyond hdrhistogram's counts"
        );
        // Every value up to 2^20 us, then a spread to the top of the range.
        let spread = (0..4000u64).map(|i| 1 + (MAX_MICROS - 1) * i / 3999);
        for us in (1..=1 << 20).chain(spread) {
            let index = counter_of(us);
            assert!(index < COUNTERS, "{us} us -> counter {index}");
            assert_eq!(lowest_of(index), h.lowest_equivalent(us), "{us} us");
        }
    }

    /// Records `delays` in a [`DelayHistogram`] and in hdrhistogram itself
    /// and checks that both tell the same.
    fn check_against_reference(delays: &[Duration]) {
        let mut ours = DelayHistogram::new();
        let mut theirs = reference();
        for &d in delays {
            ours.record(d);
            theirs.saturating_record((d.as_micros() as u64).clamp(1, MAX_MICROS));
        }
        assert_eq!(ours.len(), theirs.len());
        assert!(
            ours.histogram() == theirs,
            "same counts, total, min and max"
        );
        if delays.is_empty() {
            assert_eq!(ours.percentiles(), Percentiles::default());
            return;
        }
        let want = percentiles_of(&theirs);
        assert_eq!(ours.percentiles(), want, "{} delays", delays.len());
        ours.reset();
        assert!(ours.is_empty());
        assert!(ours.histogram() == reference());
        assert_eq!(ours.percentiles(), Percentiles::default());
    }

    #[test]
    fn nanoseconds_count_as_their_duration() {
        let mut by_duration = DelayHistogram::new();
        let mut by_nanos = DelayHistogram::new();
        for ns in [
            0,
            999,
            1000,
            1_999_999,
            2_048_000,
            86_400_000_000_000,
            u64::MAX,
        ] {
            by_duration.record(Duration::from_nanos(ns));
            by_nanos.record_nanos(ns);
        }
        assert!(by_duration.histogram() == by_nanos.histogram());
        assert_eq!(by_duration.percentiles(), by_nanos.percentiles());
    }

    #[test]
    fn built_histogram_equals_one_that_recorded_each_delay() {
        // A deterministic spread over every octave, both ends included.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut spread = vec![Duration::ZERO, Duration::from_secs(7200)];
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            spread.push(Duration::from_nanos(x >> (x % 40)));
        }
        let us = Duration::from_micros;
        for delays in [
            spread,
            vec![],
            vec![Duration::ZERO],
            vec![us(1), us(1), us(2)],
            vec![us(2047), us(2048), us(2049), us(4095)],
            vec![us(80_000); 3],
        ] {
            check_against_reference(&delays);
        }
    }
}
