//! A fixed duration kept in nanoseconds, for the durations the simulator
//! adds to instants once or more per packet (a flow's path delays, the
//! sender's PTO): `Instant + Duration` first widens the duration to 128-bit
//! nanoseconds at every addition.

use std::time::Duration;

use cc::Instant;

/// A duration in nanoseconds (saturated at `u64::MAX`, as `Instant +
/// Duration` saturates), added to instants with [`Offset::after`]: the
/// same instants as `Instant + Duration`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Offset(u64);

impl Offset {
    /// `duration` in nanoseconds.
    pub(crate) fn new(duration: Duration) -> Offset {
        Offset(u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX))
    }

    /// `t` + this duration (saturating).
    #[inline(always)]
    pub(crate) fn after(self, t: Instant) -> Instant {
        Instant::from_nanos(t.as_nanos().saturating_add(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_as_instant_plus_duration() {
        let durations = [
            Duration::ZERO,
            Duration::from_nanos(1),
            Duration::from_millis(20),
            Duration::new(3, 999_999_999),
            Duration::from_secs(u64::MAX / 1_000_000_000 + 1),
            Duration::MAX,
        ];
        for t in [0, 1, 1 << 40, u64::MAX - 5, u64::MAX].map(Instant::from_nanos) {
            for d in durations {
                assert_eq!(Offset::new(d).after(t), t + d, "{t:?} + {d:?}");
            }
        }
    }
}
