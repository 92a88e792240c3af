//! Windowed min/max filters (Kathleen Nichols' algorithm, as in Linux
//! `lib/win_minmax.c`).
//!
//! The filter keeps the best, second-best and third-best samples of the
//! window, each with the time it was taken, so it answers "the max (or min)
//! over the last W" in O(1) memory and time. The window is measured in any
//! monotonic unit: BBR's bandwidth filter counts round trips, its min-RTT
//! filter counts nanoseconds.

/// Which extreme a [`WindowedFilter`] tracks.
pub trait Extreme<T> {
    /// Whether `candidate` is at least as good as `incumbent`.
    fn better_or_equal(candidate: &T, incumbent: &T) -> bool;
}

/// Marker: track the maximum.
#[derive(Clone, Copy, Debug, Default)]
pub struct Max;
/// Marker: track the minimum.
#[derive(Clone, Copy, Debug, Default)]
pub struct Min;

impl<T: PartialOrd> Extreme<T> for Max {
    fn better_or_equal(candidate: &T, incumbent: &T) -> bool {
        candidate >= incumbent
    }
}
impl<T: PartialOrd> Extreme<T> for Min {
    fn better_or_equal(candidate: &T, incumbent: &T) -> bool {
        candidate <= incumbent
    }
}

#[derive(Clone, Copy, Debug)]
struct Entry<T> {
    time: u64,
    value: T,
}

/// A running min or max over a sliding window of length `window` (in the
/// caller's time unit, e.g. round trips or nanoseconds).
#[derive(Clone, Debug)]
pub struct WindowedFilter<T: Copy, E> {
    window: u64,
    entries: Option<[Entry<T>; 3]>,
    /// The first time at which a sample no better than any of the three
    /// kept could change them (one of them leaves the window, or a quarter
    /// or a half of it passes without a second or third choice). Before
    /// it such a sample changes nothing, which is the common case (BBR's
    /// bandwidth filter counts round trips, and a round has many ACKs), so
    /// [`update`](Self::update) answers it without the full walk.
    quiet_until: u64,
    _extreme: std::marker::PhantomData<E>,
}

/// A running maximum (e.g. BBR's bottleneck-bandwidth filter).
pub type MaxFilter<T> = WindowedFilter<T, Max>;
/// A running minimum (e.g. BBR's min-RTT filter).
pub type MinFilter<T> = WindowedFilter<T, Min>;

impl<T: Copy + PartialOrd, E: Extreme<T>> WindowedFilter<T, E> {
    /// An empty filter over `window` time units.
    pub fn new(window: u64) -> Self {
        WindowedFilter {
            window,
            entries: None,
            quiet_until: 0,
            _extreme: std::marker::PhantomData,
        }
    }

    /// The window length.
    pub fn window(&self) -> u64 {
        self.window
    }

    /// The current best sample, if any.
    pub fn get(&self) -> Option<T> {
        self.entries.map(|e| e[0].value)
    }

    /// Forgets every sample and starts over with `value` at `time`.
    pub fn reset(&mut self, time: u64, value: T) -> T {
        let e = Entry { time, value };
        self.entries = Some([e; 3]);
        self.settle();
        value
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        self.entries = None;
        self.settle();
    }

    /// Adds a sample taken at `time` (non-decreasing) and returns the new best.
    #[inline]
    pub fn update(&mut self, time: u64, value: T) -> T {
        if let Some(s) = &self.entries {
            if time < self.quiet_until
                && !E::better_or_equal(&value, &s[0].value)
                && !E::better_or_equal(&value, &s[1].value)
                && !E::better_or_equal(&value, &s[2].value)
            {
                // What the full walk below would find: nothing to change.
                return s[0].value;
            }
        }
        self.update_walk(time, value)
    }

    /// [`update`](Self::update) by the full walk of win_minmax's
    /// `minmax_running_max`.
    fn update_walk(&mut self, time: u64, value: T) -> T {
        let Some(mut s) = self.entries else {
            return self.reset(time, value);
        };
        let new = Entry { time, value };
        // A new best, or the best has left the window: start over.
        if E::better_or_equal(&value, &s[0].value) || time.saturating_sub(s[2].time) > self.window {
            return self.reset(time, value);
        }
        if E::better_or_equal(&value, &s[1].value) {
            s[1] = new;
            s[2] = new;
        } else if E::better_or_equal(&value, &s[2].value) {
            s[2] = new;
        }
        self.entries = Some(s);
        self.subwin_update(time, new)
    }

    /// Ages the three-sample summary as the window slides (win_minmax's
    /// `minmax_subwin_update`).
    fn subwin_update(&mut self, time: u64, new: Entry<T>) -> T {
        let s = self.entries.as_mut().expect("filter has samples");
        let dt = time.saturating_sub(s[0].time);
        if dt > self.window {
            // The best expired: promote the runners-up.
            s[0] = s[1];
            s[1] = s[2];
            s[2] = new;
            if time.saturating_sub(s[0].time) > self.window {
                s[0] = s[1];
                s[1] = s[2];
                s[2] = new;
            }
        } else if s[1].time == s[0].time && dt > self.window / 4 {
            // A quarter of the window passed with no second choice: take one.
            s[1] = new;
            s[2] = new;
        } else if s[2].time == s[1].time && dt > self.window / 2 {
            // Half the window passed with no third choice: take one.
            s[2] = new;
        }
        let best = s[0].value;
        self.settle();
        best
    }

    /// Sets `quiet_until` for the entries kept: the
    /// least time at which one of the walk's aging rules fires (each fires
    /// once `time - t > span`, that is from `t + span + 1` on; a bound
    /// beyond `u64::MAX` only makes the shortcut give way sooner).
    fn settle(&mut self) {
        let Some(s) = &self.entries else {
            self.quiet_until = 0;
            return;
        };
        let from = |t: u64, span: u64| t.saturating_add(span).saturating_add(1);
        let mut until = from(s[2].time, self.window).min(from(s[0].time, self.window));
        if s[1].time == s[0].time {
            until = until.min(from(s[0].time, self.window / 4));
        }
        if s[2].time == s[1].time {
            until = until.min(from(s[0].time, self.window / 2));
        }
        self.quiet_until = until;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_filter_forgets_a_sample_after_its_window() {
        // BBR's bandwidth filter: 10 round trips.
        let mut f: MaxFilter<u64> = MaxFilter::new(10);
        f.update(0, 100);
        for round in 1..=10 {
            assert_eq!(
                f.update(round, 50),
                100,
                "round {round} still inside the window"
            );
        }
        assert_eq!(
            f.update(11, 50),
            50,
            "the peak from round 0 is forgotten at round 11"
        );
    }

    #[test]
    fn min_filter_keeps_the_smallest_in_window() {
        let mut f: MinFilter<u64> = MinFilter::new(1_000);
        f.update(0, 40);
        assert_eq!(f.update(100, 60), 40);
        assert_eq!(f.update(200, 30), 30);
        assert_eq!(f.update(900, 50), 30);
        assert_eq!(
            f.update(1_300, 70),
            50,
            "30 expired; 50 (t=900) is the best left"
        );
    }

    proptest::proptest! {
        /// The shortcut answers exactly as the full walk, and leaves the
        /// same entries behind, over any sequence of samples, gaps and
        /// windows (small values, so that ties and every aging rule occur).
        #[test]
        fn update_is_the_full_walk(
            window in 0u64..20,
            steps in proptest::collection::vec((0u64..4, 0u64..12), 1..300),
        ) {
            let mut max: MaxFilter<u64> = MaxFilter::new(window);
            let mut min: MinFilter<u64> = MinFilter::new(window);
            let mut time = 0;
            for (gap, value) in steps {
                time += gap;
                let (mut max_walk, mut min_walk) = (max.clone(), min.clone());
                proptest::prop_assert_eq!(max.update(time, value), max_walk.update_walk(time, value));
                proptest::prop_assert_eq!(min.update(time, value), min_walk.update_walk(time, value));
                for (a, b) in [(&max.entries, &max_walk.entries), (&min.entries, &min_walk.entries)] {
                    let key = |e: &Option<[Entry<u64>; 3]>| e.map(|s| s.map(|x| (x.time, x.value)));
                    proptest::prop_assert_eq!(key(a), key(b));
                }
            }
        }
    }

    #[test]
    fn runner_up_takes_over_when_best_expires() {
        let mut f: MaxFilter<u64> = MaxFilter::new(10);
        f.update(0, 100);
        f.update(4, 80);
        f.update(8, 60);
        assert_eq!(f.update(11, 10), 80);
        assert_eq!(f.update(15, 10), 60);
    }
}
