//! dash.js v4's throughput history: what the player believes the path
//! carries, from the segments it has downloaded.
//!
//! Each segment gives one throughput sample, its bytes over the time from
//! its first byte to its last (dash.js's "dead-time latency" default: the
//! request's round trip is kept apart, as a latency sample). The estimate is
//! the mean of the last four samples (VOD), widened by one more sample for
//! each consecutive pair in the window that differs by more than 1.3x, so a
//! jumpy history is averaged over more segments. The ABR rules use it times
//! the 0.9 safety factor.
//!
//! A segment that downloads in under 50 ms looks like a cache hit to
//! dash.js: it is ignored once real samples exist, and the first real
//! sample clears a history made only of such hits.

use std::time::Duration;

/// Samples kept at most (dash.js `MAX_MEASUREMENTS_TO_KEEP`).
pub const MAX_SAMPLES: usize = 20;
/// The base averaging window for on-demand video.
pub const VOD_WINDOW: usize = 4;
/// Latency samples averaged.
pub const LATENCY_WINDOW: usize = 4;
/// A jump between consecutive samples beyond this ratio widens the window.
pub const CHANGE_SCALE: f64 = 1.3;
/// dash.js `bandwidthSafetyFactor`.
pub const SAFETY_FACTOR: f64 = 0.9;
/// Downloads faster than this look served from a cache.
pub const CACHE_THRESHOLD: Duration = Duration::from_millis(50);

/// The history of one media type's downloads.
#[derive(Clone, Debug, Default)]
pub struct ThroughputHistory {
    /// Throughput samples, bit/s, oldest first.
    throughput: Vec<f64>,
    /// Latency samples, s, oldest first.
    latency: Vec<f64>,
    /// Whether the samples held are cache hits.
    cached: bool,
}

impl ThroughputHistory {
    /// Records a download of `bytes`: `latency` from request to first byte,
    /// `download` from first byte to last.
    pub fn push(&mut self, bytes: u64, latency: Duration, download: Duration) {
        let latency_s = latency.as_secs_f64().max(1e-3);
        if download < CACHE_THRESHOLD {
            if !self.throughput.is_empty() && !self.cached {
                return;
            }
            self.cached = true;
        } else if self.cached {
            self.throughput.clear();
            self.latency.clear();
            self.cached = false;
        }
        push_bounded(&mut self.throughput, sample_bps(bytes, download));
        push_bounded(&mut self.latency, latency_s);
    }

    /// The newest throughput sample, bit/s.
    pub fn last_sample(&self) -> Option<f64> {
        self.throughput.last().copied()
    }

    /// Whether any sample exists.
    pub fn is_empty(&self) -> bool {
        self.throughput.is_empty()
    }

    /// The number of samples averaged now.
    pub fn window(&self) -> usize {
        let samples = &self.throughput;
        let mut size = VOD_WINDOW;
        if size >= samples.len() {
            return samples.len();
        }
        // The window grows while it is scanned, as in dash.js.
        let mut i = 1;
        while i < size {
            let ratio = samples[samples.len() - i] / samples[samples.len() - i - 1];
            if ratio >= CHANGE_SCALE || ratio <= 1.0 / CHANGE_SCALE {
                size += 1;
                if size == samples.len() {
                    break;
                }
            }
            i += 1;
        }
        size
    }

    /// The mean throughput over the window, bit/s (None before any sample).
    pub fn average(&self) -> Option<f64> {
        let n = self.window();
        (n > 0).then(|| {
            let recent = &self.throughput[self.throughput.len() - n..];
            recent.iter().sum::<f64>() / n as f64
        })
    }

    /// The average times the safety factor, bit/s.
    pub fn safe_average(&self) -> Option<f64> {
        self.average().map(|t| t * SAFETY_FACTOR)
    }

    /// The mean of the last few latency samples, s.
    pub fn average_latency(&self) -> Option<f64> {
        let n = self.latency.len().min(LATENCY_WINDOW);
        (n > 0).then(|| self.latency[self.latency.len() - n..].iter().sum::<f64>() / n as f64)
    }
}

/// The throughput sample of `bytes` downloaded in `download` (first byte
/// to last), bit/s: dash.js never divides by zero, a sub-millisecond time
/// counts as 1 ms.
pub fn sample_bps(bytes: u64, download: Duration) -> f64 {
    bytes as f64 * 8.0 / download.as_secs_f64().max(1e-3)
}

fn push_bounded(samples: &mut Vec<f64>, value: f64) {
    samples.push(value);
    if samples.len() > MAX_SAMPLES {
        samples.remove(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    /// A segment of `mbit` Mbit downloaded in one second.
    fn push_mbps(h: &mut ThroughputHistory, mbit: u64) {
        h.push(mbit * 125_000, ms(100), ms(1000));
    }

    #[test]
    fn steady_samples_average_over_four_and_keep_a_safety_margin() {
        let mut h = ThroughputHistory::default();
        assert_eq!(h.average(), None);
        for mbit in [1, 10, 10, 10, 10] {
            push_mbps(&mut h, mbit);
        }
        assert_eq!(h.window(), 4);
        assert!((h.average().unwrap() - 10e6).abs() < 1.0);
        assert!((h.safe_average().unwrap() - 9e6).abs() < 1.0);
        assert!((h.average_latency().unwrap() - 0.1).abs() < 1e-12);
    }

    #[test]
    fn jumps_widen_the_window() {
        let mut h = ThroughputHistory::default();
        for mbit in [10, 10, 10, 10, 10, 20, 10, 20] {
            push_mbps(&mut h, mbit);
        }
        // Three jumps among the last four pairs widen 4 to 7 samples.
        assert_eq!(h.window(), 7);
        let expected = (10.0 + 10.0 + 10.0 + 20.0 + 10.0 + 20.0 + 10.0) / 7.0 * 1e6;
        assert!((h.average().unwrap() - expected).abs() < 1.0);
    }

    #[test]
    fn cache_hits_are_ignored_once_real_samples_exist() {
        let mut h = ThroughputHistory::default();
        h.push(1_000_000, ms(1), ms(10)); // a cache hit, first: kept
        assert!((h.average().unwrap() - 800e6).abs() < 1.0);
        push_mbps(&mut h, 5); // the first real sample clears it
        assert!((h.average().unwrap() - 5e6).abs() < 1.0);
        h.push(1_000_000, ms(1), ms(10)); // ignored now
        assert!((h.average().unwrap() - 5e6).abs() < 1.0);
        assert_eq!(h.window(), 1);
    }

    #[test]
    fn at_most_twenty_samples_are_kept() {
        let mut h = ThroughputHistory::default();
        for i in 0..30 {
            push_mbps(&mut h, 1 + (i % 2) * 9);
        }
        assert_eq!(h.throughput.len(), MAX_SAMPLES);
        assert_eq!(h.window(), MAX_SAMPLES);
    }
}
