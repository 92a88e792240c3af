//! The max-bandwidth filter of BBRv2/v3: the max over the current and the
//! previous ProbeBW cycle (`max_bw[2]` in v2alpha, `BBR.MaxBwFilterLen = 2`
//! in the draft).
//!
//! BBRv1 windows its max over 10 round trips, which is one gain cycle plus
//! slack. BBRv2's cycle lasts 2..3 s or up to 63 rounds, so the window is
//! counted in cycles instead: the filter's clock is a cycle counter that
//! advances one round trip after each ProbeBW_UP ends, when the probe's best
//! samples have arrived. It is the crate's [`MaxFilter`] with a window of one
//! clock tick, so it holds samples of the current and the previous cycle.

use crate::filter::MaxFilter;
use crate::units::Bandwidth;

/// Windowed max of delivery-rate samples over two ProbeBW cycles.
#[derive(Clone, Debug)]
pub struct CycleMaxBw {
    filter: MaxFilter<Bandwidth>,
    cycle: u64,
    sampled_this_cycle: bool,
}

impl Default for CycleMaxBw {
    fn default() -> Self {
        CycleMaxBw {
            filter: MaxFilter::new(1),
            cycle: 0,
            sampled_this_cycle: false,
        }
    }
}

impl CycleMaxBw {
    /// The estimate (zero before the first sample).
    pub fn get(&self) -> Bandwidth {
        self.filter.get().unwrap_or(Bandwidth::ZERO)
    }

    /// Folds in a sample. App-limited samples count only when they raise the
    /// estimate: they bound the path's rate from below, never from above.
    pub fn update(&mut self, sample: Bandwidth, app_limited: bool) {
        if !app_limited || sample >= self.get() {
            self.filter.update(self.cycle, sample);
            self.sampled_this_cycle = true;
        }
    }

    /// Starts a new cycle. A cycle without samples does not advance the
    /// clock, so the old cycle's max is remembered (v2alpha
    /// `bbr2_advance_max_bw_filter`).
    pub fn advance(&mut self) {
        if self.sampled_this_cycle {
            self.cycle += 1;
            self.sampled_this_cycle = false;
        }
    }

    /// Cycles counted so far (for tracing).
    pub fn cycle(&self) -> u64 {
        self.cycle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mbps(v: u64) -> Bandwidth {
        Bandwidth::from_mbps(v)
    }

    #[test]
    fn holds_the_max_of_two_cycles() {
        let mut f = CycleMaxBw::default();
        f.update(mbps(100), false);
        f.update(mbps(60), false);
        f.advance();
        f.update(mbps(50), false);
        assert_eq!(f.get(), mbps(100), "previous cycle's max still counts");
        f.update(mbps(70), false);
        f.advance();
        f.update(mbps(40), false);
        assert_eq!(f.get(), mbps(70), "two cycles ago is forgotten");
        f.advance();
        f.update(mbps(30), false);
        assert_eq!(f.get(), mbps(40));
    }

    #[test]
    fn a_cycle_without_samples_does_not_age_the_estimate() {
        let mut f = CycleMaxBw::default();
        f.update(mbps(100), false);
        f.advance();
        f.advance();
        f.advance();
        f.update(mbps(10), false);
        assert_eq!(f.get(), mbps(100));
    }

    #[test]
    fn app_limited_samples_only_raise() {
        let mut f = CycleMaxBw::default();
        f.update(mbps(50), false);
        f.update(mbps(20), true);
        f.advance();
        f.advance();
        assert_eq!(f.get(), mbps(50), "the app-limited 20 was not taken");
        f.update(mbps(80), true);
        assert_eq!(f.get(), mbps(80));
    }
}
