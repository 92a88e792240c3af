//! RTT estimation (RFC 9002 §5).

use std::time::Duration;

use cc::RttEstimate;

/// RFC 9002's kInitialRtt: used before the first sample.
pub const INITIAL_RTT: Duration = Duration::from_millis(333);
/// RFC 9002's kGranularity.
pub const GRANULARITY: Duration = Duration::from_millis(1);

/// The RFC 9002 RTT estimator: min_rtt, smoothed_rtt, rttvar.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    latest: Duration,
    smoothed: Duration,
    rttvar: Duration,
    min: Duration,
    has_sample: bool,
}

impl Default for RttEstimator {
    fn default() -> Self {
        RttEstimator {
            latest: Duration::ZERO,
            smoothed: INITIAL_RTT,
            rttvar: INITIAL_RTT / 2,
            min: Duration::ZERO,
            has_sample: false,
        }
    }
}

impl RttEstimator {
    /// Folds in a sample; `ack_delay` is the peer's reported delay, already
    /// capped at max_ack_delay.
    #[inline]
    pub fn update(&mut self, latest: Duration, ack_delay: Duration) {
        self.latest = latest;
        if !self.has_sample {
            self.has_sample = true;
            self.min = latest;
            self.smoothed = latest;
            self.rttvar = latest / 2;
            return;
        }
        self.min = self.min.min(latest);
        // Subtract the peer's delay only when that cannot go below min_rtt.
        let adjusted = if latest >= self.min + ack_delay {
            latest - ack_delay
        } else {
            latest
        };
        let deviation = self.smoothed.abs_diff(adjusted);
        self.rttvar = (self.rttvar * 3 + deviation) / 4;
        self.smoothed = (self.smoothed * 7 + adjusted) / 8;
    }

    /// Whether any sample has been taken.
    pub fn has_sample(&self) -> bool {
        self.has_sample
    }
    /// The latest sample.
    pub fn latest(&self) -> Duration {
        self.latest
    }
    /// smoothed_rtt.
    pub fn smoothed(&self) -> Duration {
        self.smoothed
    }
    /// min_rtt (zero before the first sample).
    pub fn min(&self) -> Duration {
        self.min
    }

    /// The probe timeout before backoff: srtt + max(4 rttvar, 1 ms) + max_ack_delay.
    #[inline]
    pub fn pto(&self, max_ack_delay: Duration) -> Duration {
        self.smoothed + (self.rttvar * 4).max(GRANULARITY) + max_ack_delay
    }

    /// The time threshold for loss: 9/8 max(srtt, latest), at least 1 ms.
    pub fn loss_delay(&self) -> Duration {
        (self.smoothed.max(self.latest) * 9 / 8).max(GRANULARITY)
    }

    /// The estimate as the controller sees it.
    pub fn estimate(&self, sample: Option<Duration>) -> RttEstimate {
        RttEstimate {
            latest: sample,
            smoothed: self.smoothed,
            rttvar: self.rttvar,
            min: self.min,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sample_initialises_then_smooths() {
        let mut r = RttEstimator::default();
        assert_eq!(r.smoothed(), INITIAL_RTT);
        r.update(Duration::from_millis(100), Duration::ZERO);
        assert_eq!(r.smoothed(), Duration::from_millis(100));
        assert_eq!(
            r.pto(Duration::from_millis(25)),
            Duration::from_millis(100 + 200 + 25)
        );
        r.update(Duration::from_millis(180), Duration::from_millis(20));
        // adjusted = 160; srtt = (700 + 160)/8 = 107.5
        assert_eq!(r.smoothed(), Duration::from_micros(107_500));
        assert_eq!(r.min(), Duration::from_millis(100));
    }

    #[test]
    fn ack_delay_never_pushes_below_min_rtt() {
        let mut r = RttEstimator::default();
        r.update(Duration::from_millis(100), Duration::ZERO);
        r.update(Duration::from_millis(110), Duration::from_millis(25));
        // 110 - 25 < 100: the delay is not subtracted.
        assert_eq!(r.smoothed(), Duration::from_micros(101_250));
    }
}
