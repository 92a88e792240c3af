//! The bottleneck's capacity over time, for every [`RateModel`].
//!
//! Rate models (constant, schedule, piecewise trace) are a rate function
//! whose integral is kept exact in integer "bit-nanoseconds" (rate in bit/s
//! times time in ns; one byte is 8e9 of them), so serialisation times and
//! offered volumes have no rounding drift however long the run. Mahimahi
//! traces are a sequence of delivery opportunities, counted arithmetically.
//! Looping traces are handled by whole periods, so every query costs
//! O(log n) in the trace length, whatever the time span.

use std::time::Duration;

use cc::{Bandwidth, Bytes, Instant};

use crate::trace::{MahimahiTrace, PiecewiseTrace, MAHIMAHI_PACKET_BYTES};
use crate::{RateModel, RateStep};

/// Bit-nanoseconds per byte: the integral unit of rate models.
pub(super) const UNITS_PER_BYTE: u128 = 8 * 1_000_000_000;

/// Capacity over time, built from a [`RateModel`]; answers what the link can
/// carry and when, without any clock of its own.
#[derive(Clone, Debug)]
pub struct Capacity {
    model: Model,
}

#[derive(Clone, Debug)]
enum Model {
    /// Bits per second.
    Constant(u64),
    Steps(Steps),
    Opportunities(Opportunities),
}

/// A piecewise-constant rate, either holding its last rate forever
/// (`period` None) or looping.
#[derive(Clone, Debug)]
struct Steps {
    /// Step starts in ns (within the period when looping); `at[0]` is 0, strictly increasing.
    at: Vec<u64>,
    /// Rate of each step, bit/s.
    rate: Vec<u64>,
    /// Integral from 0 to `at[i]`, bit-ns.
    cum: Vec<u128>,
    /// Loop period in ns and the integral over one period.
    period: Option<(u64, u128)>,
    /// Where in the trace time 0 falls, ns (a trace's start offset).
    offset: u64,
}

/// Mahimahi delivery opportunities: `at` (ns, non-decreasing, last == period)
/// repeated every `period` ns, opportunity g of loop k at `k * period + at[g % n]`.
#[derive(Clone, Debug)]
struct Opportunities {
    at: Vec<u64>,
    period: u64,
    /// Where in the trace time 0 falls, ns (a trace's start offset).
    offset: u64,
    /// Opportunities of the trace before `offset`, which this link never sees.
    skipped: u64,
}

fn nanos(d: Duration) -> u64 {
    d.as_nanos().min(u64::MAX as u128) as u64
}

fn instant(ns: u128) -> Option<Instant> {
    u64::try_from(ns).ok().map(Instant::from_nanos)
}

impl Capacity {
    /// The mahimahi `rate_at` averaging window: opportunities come in bursts
    /// at millisecond granularity, so an instantaneous rate is meaningless;
    /// 100 ms is short against rate changes in the cellular traces and long
    /// enough to hold tens to hundreds of opportunities.
    pub const MAHIMAHI_RATE_WINDOW: Duration = Duration::from_millis(100);

    /// Builds the capacity of a rate model. Never fails: a schedule that
    /// validation should have rejected is made well-defined rather than
    /// panicking (steps sorted by time, the last of equal-time steps wins,
    /// rate 0 before the first step, an empty schedule is rate 0 forever).
    pub fn new(model: &RateModel) -> Capacity {
        let model = match model {
            RateModel::Constant(rate) => Model::Constant(rate.bits_per_sec()),
            RateModel::Schedule(steps) => schedule(steps),
            RateModel::Mahimahi(trace) => opportunities(trace),
            RateModel::Piecewise(trace) => piecewise(trace),
        };
        Capacity { model }
    }

    /// The capacity at `t`. For rate models the exact rate in force; for
    /// mahimahi the opportunity bytes in the [`Self::MAHIMAHI_RATE_WINDOW`]
    /// centred on `t` (starting at 0 near the start) divided by the window.
    #[inline]
    pub fn rate_at(&self, t: Instant) -> Bandwidth {
        let t = t.as_nanos();
        match &self.model {
            Model::Constant(r) => Bandwidth::from_bits_per_sec(*r),
            Model::Steps(s) => Bandwidth::from_bits_per_sec(s.rate_at(t)),
            Model::Opportunities(o) => {
                let window = nanos(Self::MAHIMAHI_RATE_WINDOW);
                let lo = t.saturating_sub(window / 2);
                let hi = lo.saturating_add(window);
                let count = o.count_before(hi) - o.count_before(lo);
                let bits = count as u128 * MAHIMAHI_PACKET_BYTES.get() as u128 * 8;
                let bps = bits * 1_000_000_000 / window as u128;
                Bandwidth::from_bits_per_sec(bps.min(u64::MAX as u128) as u64)
            }
        }
    }

    /// The volume the link offers in `(t0, t1]` (zero if `t1 <= t0`): for
    /// mahimahi the opportunities timed in the interval times their bytes;
    /// for rate models the integral, rounded so that consecutive intervals
    /// add up exactly to the whole (floor of the integral at each end).
    ///
    /// The interval is open at the start and closed at the end because a
    /// packet leaves *at* the instant its service completes: the bytes that
    /// leave at `t1` were served by the capacity up to `t1`, and an
    /// opportunity at `t0` served packets that had left by `t0`.
    pub fn bytes_between(&self, t0: Instant, t1: Instant) -> Bytes {
        if t1 <= t0 {
            return Bytes::ZERO;
        }
        let (a, b) = (t0.as_nanos(), t1.as_nanos());
        let bytes = match &self.model {
            Model::Opportunities(o) => {
                (o.count_before(b.saturating_add(1)) - o.count_before(a.saturating_add(1))) as u128
                    * MAHIMAHI_PACKET_BYTES.get() as u128
            }
            _ => self.integral(t1) / UNITS_PER_BYTE - self.integral(t0) / UNITS_PER_BYTE,
        };
        Bytes(bytes.min(u64::MAX as u128) as u64)
    }

    /// When `bytes` of service starting at `start` are complete; `None` if
    /// the capacity never delivers them (e.g. a schedule ending at rate 0)
    /// or not within the representable time. For rate models this
    /// integrates across rate changes; for mahimahi it is the time of the
    /// opportunity that completes them, counting only opportunities strictly
    /// after `start` (mm-link spends the opportunities due by the current
    /// millisecond before it enqueues a packet arriving then).
    // Always inlined into the link's service of each packet: as a call
    // (the hint alone was not taken) it cost about 20 instructions more
    // per packet.
    #[inline(always)]
    pub fn time_to_serve(&self, start: Instant, bytes: Bytes) -> Option<Instant> {
        if bytes == Bytes::ZERO {
            return Some(start);
        }
        match &self.model {
            Model::Opportunities(o) => {
                let needed = bytes.get().div_ceil(MAHIMAHI_PACKET_BYTES.get());
                let first = o.count_before(start.as_nanos().saturating_add(1));
                o.time_of(first.checked_add(needed - 1)?)
            }
            _ => self.time_to_integral(start, bytes.get() as u128 * UNITS_PER_BYTE),
        }
    }

    /// Whether the capacity is a sequence of delivery opportunities
    /// (mahimahi) rather than a rate.
    pub(super) fn is_opportunities(&self) -> bool {
        matches!(self.model, Model::Opportunities(_))
    }

    /// Index of the first delivery opportunity timed strictly after `t`
    /// (0 for rate models).
    pub(super) fn first_opportunity_after(&self, t: Instant) -> u64 {
        match &self.model {
            Model::Opportunities(o) => o.count_before(t.as_nanos().saturating_add(1)),
            _ => 0,
        }
    }

    /// The time of delivery opportunity `index` (None for rate models or
    /// beyond the representable time).
    pub(super) fn opportunity_time(&self, index: u64) -> Option<Instant> {
        match &self.model {
            Model::Opportunities(o) => o.time_of(index),
            _ => None,
        }
    }

    /// Integral of the rate from the epoch to `t`, in bit-ns (0 for mahimahi).
    pub(super) fn integral(&self, t: Instant) -> u128 {
        let t = t.as_nanos();
        match &self.model {
            Model::Constant(r) => *r as u128 * t as u128,
            Model::Steps(s) => s.integral(t),
            Model::Opportunities(_) => 0,
        }
    }

    /// The earliest instant at which the integral since `start` reaches
    /// `amount` bit-ns; None if it never does (or not for mahimahi).
    #[inline]
    pub(super) fn time_to_integral(&self, start: Instant, amount: u128) -> Option<Instant> {
        if amount == 0 {
            return Some(start);
        }
        match &self.model {
            Model::Constant(0) | Model::Opportunities(_) => None,
            Model::Constant(r) => {
                // In 64 bits when it fits (a packet's bits at any rate): the
                // 128-bit division is a library call, the quotient the same.
                let wait = match u64::try_from(amount) {
                    Ok(amount) => u128::from(amount.div_ceil(*r)),
                    _ => amount.div_ceil(*r as u128),
                };
                instant(start.as_nanos() as u128 + wait)
            }
            Model::Steps(s) => s
                .time_to_integral(start.as_nanos(), amount)
                .and_then(instant),
        }
    }
}

fn schedule(steps: &[RateStep]) -> Model {
    let mut sorted: Vec<(u64, u64)> = steps
        .iter()
        .map(|s| (nanos(s.at), s.rate.bits_per_sec()))
        .collect();
    sorted.sort_by_key(|s| s.0);
    let mut points: Vec<(u64, u64)> = Vec::with_capacity(sorted.len() + 1);
    for (at, rate) in sorted {
        match points.last_mut() {
            Some(last) if last.0 == at => last.1 = rate,
            _ => points.push((at, rate)),
        }
    }
    match points.first() {
        None => return Model::Constant(0),
        Some(&(at, _)) if at > 0 => points.insert(0, (0, 0)),
        _ => {}
    }
    if points.len() == 1 {
        return Model::Constant(points[0].1);
    }
    Model::Steps(Steps::new(points, None))
}

fn piecewise(trace: &PiecewiseTrace) -> Model {
    let period = nanos(trace.period());
    let points: Vec<(u64, u64)> = trace
        .steps()
        .iter()
        .map(|&(at, rate)| (nanos(at), rate.bits_per_sec()))
        .collect();
    // PiecewiseTrace's constructors guarantee these; stay total anyway.
    if period == 0 || points.first().map(|p| p.0) != Some(0) {
        return Model::Constant(0);
    }
    Model::Steps(Steps::new(points, Some(period)).starting_at(nanos(trace.start())))
}

fn opportunities(trace: &MahimahiTrace) -> Model {
    let at: Vec<u64> = trace
        .timestamps_ms()
        .iter()
        .map(|&ms| ms.saturating_mul(1_000_000))
        .collect();
    match at.last() {
        Some(&period) if period > 0 => {
            let mut o = Opportunities {
                at,
                period,
                offset: 0,
                skipped: 0,
            };
            let offset = nanos(trace.start());
            o.skipped = o.raw_count_before(offset);
            o.offset = offset;
            Model::Opportunities(o)
        }
        _ => Model::Constant(0),
    }
}

impl Steps {
    fn new(points: Vec<(u64, u64)>, period: Option<u64>) -> Steps {
        let n = points.len();
        let mut cum = Vec::with_capacity(n);
        let mut acc: u128 = 0;
        for i in 0..n {
            cum.push(acc);
            let end = points
                .get(i + 1)
                .map_or(period.unwrap_or(points[i].0), |p| p.0);
            let dur = end.saturating_sub(points[i].0) as u128;
            acc = acc.saturating_add(points[i].1 as u128 * dur);
        }
        Steps {
            at: points.iter().map(|p| p.0).collect(),
            rate: points.iter().map(|p| p.1).collect(),
            cum,
            period: period.map(|p| (p, acc)),
            offset: 0,
        }
    }

    /// The same steps seen from `offset` on (time 0 is `offset` in the trace).
    fn starting_at(mut self, offset: u64) -> Steps {
        self.offset = offset;
        self
    }

    /// Index of the step in force at `t` (already reduced into the period).
    fn index(&self, t: u64) -> usize {
        self.at.partition_point(|&a| a <= t).saturating_sub(1)
    }

    fn reduce(&self, t: u64) -> u64 {
        match self.period {
            Some((p, _)) => t % p,
            None => t,
        }
    }

    fn rate_at(&self, t: u64) -> u64 {
        self.rate[self.index(self.reduce(t.saturating_add(self.offset)))]
    }

    /// Integral from 0 to `t` within one period (or the whole schedule).
    fn within(&self, t: u64) -> u128 {
        let i = self.index(t);
        self.cum[i] + self.rate[i] as u128 * (t - self.at[i]) as u128
    }

    /// Integral from 0 to `t` (both from the start offset on).
    fn integral(&self, t: u64) -> u128 {
        self.raw_integral(t.saturating_add(self.offset)) - self.raw_integral(self.offset)
    }

    /// Integral from the trace's own 0 to `t`.
    fn raw_integral(&self, t: u64) -> u128 {
        match self.period {
            Some((p, per_period)) => ((t / p) as u128)
                .saturating_mul(per_period)
                .saturating_add(self.within(t % p)),
            None => self.within(t),
        }
    }

    /// The earliest `t` where `integral(t) >= integral(start) + amount`, in ns.
    fn time_to_integral(&self, start: u64, amount: u128) -> Option<u128> {
        let from = start.saturating_add(self.offset);
        self.raw_time_to_integral(from, amount)
            .map(|t| t - self.offset as u128)
    }

    /// [`Steps::time_to_integral`] in the trace's own time.
    fn raw_time_to_integral(&self, start: u64, amount: u128) -> Option<u128> {
        let target = self.raw_integral(start).checked_add(amount)?;
        // Reduce looping traces to one period by whole periods.
        let (base, target) = match self.period {
            None => (0, target),
            Some((_, 0)) => return None,
            Some((p, per_period)) => {
                let loops = (target - 1) / per_period;
                (loops.checked_mul(p as u128)?, target - loops * per_period)
            }
        };
        // The step where the integral crosses `target`: cum[j] < target <= cum[j + 1].
        let j = self.cum.partition_point(|&c| c < target).saturating_sub(1);
        let rate = self.rate[j] as u128;
        if rate == 0 {
            return None;
        }
        let t = self.at[j] as u128 + (target - self.cum[j]).div_ceil(rate);
        base.checked_add(t)
    }
}

impl Opportunities {
    /// Opportunities in one loop with a time (within the loop) below `x` ns.
    fn count_lt(&self, x: u128) -> u64 {
        self.at.partition_point(|&a| (a as u128) < x) as u64
    }

    /// How many opportunities are timed strictly before `t` ns (from the
    /// start offset on).
    fn count_before(&self, t: u64) -> u64 {
        self.raw_count_before(t.saturating_add(self.offset)) - self.skipped
    }

    /// Time of opportunity `g` (0-based over all loops, from the start offset on).
    fn time_of(&self, g: u64) -> Option<Instant> {
        let raw = self.raw_time_of(g.checked_add(self.skipped)?)?;
        Some(Instant::from_nanos(raw.as_nanos() - self.offset))
    }

    /// [`Opportunities::count_before`] in the trace's own time.
    fn raw_count_before(&self, t: u64) -> u64 {
        let (p, n) = (self.period, self.at.len() as u128);
        let (k, o) = ((t / p) as u128, (t % p) as u128);
        // Loops before k - 1 end by (k - 1) p < t: all theirs count. Loop
        // k - 1 may end exactly at t (its last opportunity is at k p).
        let mut count = self.count_lt(o) as u128;
        if k >= 1 {
            count += (k - 1) * n + self.count_lt(p as u128 + o) as u128;
        }
        count.min(u64::MAX as u128) as u64
    }

    /// Time of opportunity `g` in the trace's own time.
    fn raw_time_of(&self, g: u64) -> Option<Instant> {
        let n = self.at.len() as u64;
        let (k, i) = (g / n, (g % n) as usize);
        instant(k as u128 * self.period as u128 + self.at[i] as u128)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn ms(v: u64) -> Instant {
        Instant::from_nanos(v * 1_000_000)
    }
    fn us(v: u64) -> Instant {
        Instant::from_nanos(v * 1_000)
    }
    fn mbps(v: u64) -> Bandwidth {
        Bandwidth::from_mbps(v)
    }
    fn mm(text: &str) -> Capacity {
        Capacity::new(&RateModel::Mahimahi(
            MahimahiTrace::parse(text, Path::new("t")).unwrap(),
        ))
    }
    fn step(at_us: u64, rate: Bandwidth) -> RateStep {
        RateStep {
            at: Duration::from_micros(at_us),
            rate,
        }
    }

    #[test]
    fn constant_rate() {
        let c = Capacity::new(&RateModel::Constant(mbps(12)));
        assert_eq!(c.rate_at(ms(5)), mbps(12));
        assert_eq!(c.bytes_between(ms(1), ms(2)), Bytes(1500));
        assert_eq!(c.bytes_between(ms(2), ms(1)), Bytes::ZERO);
        assert_eq!(c.time_to_serve(ms(3), Bytes(1500)), Some(ms(4)));
        let hour = Instant::from_nanos(3_600_000_000_000);
        assert_eq!(c.bytes_between(Instant::ZERO, hour), Bytes(5_400_000_000));
        // Rounding is by endpoint, so pieces always add up to the whole.
        let c = Capacity::new(&RateModel::Constant(Bandwidth::from_bits_per_sec(7)));
        let total: u64 = (0..1000)
            .map(|i| c.bytes_between(ms(i), ms(i + 1)).get())
            .sum();
        assert_eq!(Bytes(total), c.bytes_between(ms(0), ms(1000)));
        assert_eq!(
            Capacity::new(&RateModel::Constant(Bandwidth::ZERO)).time_to_serve(ms(0), Bytes(1)),
            None
        );
    }

    #[test]
    fn schedule_integrates_across_changes() {
        let c = Capacity::new(&RateModel::Schedule(vec![
            step(0, mbps(12)),
            step(500, mbps(6)),
            step(10_000, mbps(0)),
        ]));
        // 750 B at 12 Mbit/s by 0.5 ms, the other 750 B at 6 Mbit/s take 1 ms.
        assert_eq!(c.time_to_serve(ms(0), Bytes(1500)), Some(us(1500)));
        assert_eq!(c.bytes_between(ms(0), ms(2)), Bytes(750 + 1125));
        assert_eq!(c.rate_at(us(499)), mbps(12));
        assert_eq!(c.rate_at(us(500)), mbps(6));
        // The schedule ends at 0: 7875 B fit before 10 ms, then nothing ever.
        assert_eq!(c.time_to_serve(ms(0), Bytes(7875)), Some(ms(10)));
        assert_eq!(c.time_to_serve(ms(0), Bytes(7876)), None);
        assert_eq!(c.bytes_between(ms(0), ms(1_000_000)), Bytes(7875));
    }

    #[test]
    fn malformed_schedules_do_not_panic() {
        let empty = Capacity::new(&RateModel::Schedule(vec![]));
        assert_eq!(empty.time_to_serve(ms(0), Bytes(1)), None);
        let late = Capacity::new(&RateModel::Schedule(vec![
            step(2000, mbps(12)),
            step(1000, mbps(24)),
        ]));
        assert_eq!(late.rate_at(ms(0)), Bandwidth::ZERO);
        assert_eq!(late.time_to_serve(ms(0), Bytes(3000)), Some(ms(2)));
        assert_eq!(late.bytes_between(ms(0), ms(3)), Bytes(3000 + 1500));
    }

    #[test]
    fn piecewise_loops_by_whole_periods() {
        let s = Duration::from_secs;
        let trace =
            PiecewiseTrace::from_steps(vec![(s(0), mbps(10)), (s(1), mbps(20))], s(3)).unwrap();
        let c = Capacity::new(&RateModel::Piecewise(trace));
        let sec = |v: u64| ms(v * 1000);
        assert_eq!(c.bytes_between(sec(0), sec(3)), Bytes(6_250_000));
        // Across a loop boundary: 0.5 s at 20, 1 s at 10, 0.5 s at 20 Mbit/s.
        assert_eq!(c.bytes_between(ms(2500), ms(4500)), Bytes(3_750_000));
        assert_eq!(c.rate_at(ms(3999)), mbps(10));
        assert_eq!(c.rate_at(ms(4000)), mbps(20));
        // Far away, with many whole periods: exact.
        let day = 86_400;
        assert_eq!(
            c.bytes_between(sec(0), sec(3 * day)),
            Bytes(6_250_000 * day)
        );
        // 2.5 MB from 2.5 s: 1.25 MB by 3 s, then 1.25 MB at 10 Mbit/s -> 4 s.
        assert_eq!(c.time_to_serve(ms(2500), Bytes(2_500_000)), Some(sec(4)));
        // A whole period's volume plus a bit, from inside a period.
        assert_eq!(
            c.time_to_serve(sec(1), Bytes(6_250_000 + 1_250_000)),
            Some(ms(4500))
        );
        let t = c.time_to_serve(sec(day), Bytes(6_250_000 * 1000)).unwrap();
        assert_eq!(t, sec(day + 3000));
    }

    #[test]
    fn mahimahi_counts_opportunities() {
        let c = mm("1");
        assert_eq!(c.bytes_between(ms(0), ms(1000)), Bytes(1504 * 1000));
        assert_eq!(c.bytes_between(ms(0), us(999_999)), Bytes(1504 * 999));
        assert_eq!(c.bytes_between(us(1), ms(1000)), Bytes(1504 * 1000));
        assert_eq!(c.bytes_between(ms(1), ms(1000)), Bytes(1504 * 999));
        assert_eq!(c.rate_at(ms(500)), Bandwidth::from_bits_per_sec(12_032_000));
        assert_eq!(
            c.rate_at(ms(0)),
            Bandwidth::from_bits_per_sec(12_032_000 * 99 / 100)
        );
        // Opportunities at 2, 5 | 7, 10 | 12, 15 | ...
        let c = mm("2\n5\n");
        assert_eq!(c.bytes_between(ms(0), ms(11)), Bytes(4 * 1504));
        assert_eq!(c.bytes_between(ms(4), ms(13)), Bytes(4 * 1504));
        assert_eq!(c.bytes_between(ms(5), ms(5)), Bytes::ZERO);
        assert_eq!(c.bytes_between(us(4999), ms(5)), Bytes(1504));
        assert_eq!(c.bytes_between(ms(5), ms(7)), Bytes(1504));
        assert_eq!(c.time_to_serve(ms(0), Bytes(1)), Some(ms(2)));
        assert_eq!(c.time_to_serve(ms(2), Bytes(1)), Some(ms(5)));
        assert_eq!(c.time_to_serve(ms(2), Bytes(3 * 1504)), Some(ms(10)));
        assert_eq!(c.time_to_serve(ms(2), Bytes(3 * 1504 + 1)), Some(ms(12)));
        // A loop ending where the next begins: "0 0 5" gives 3 at 5 ms.
        let c = mm("0\n0\n5\n");
        assert_eq!(c.bytes_between(us(4999), ms(5)), Bytes(3 * 1504));
        assert_eq!(c.bytes_between(ms(0), us(4999)), Bytes::ZERO);
        assert_eq!(c.bytes_between(ms(0), ms(10)), Bytes(6 * 1504));
        let day = 86_400_000;
        assert_eq!(c.bytes_between(ms(0), ms(day)), Bytes(3 * 1504 * (day / 5)));
    }

    #[test]
    fn a_trace_entered_later_is_the_same_trace_shifted() {
        // Opportunities at 2, 5 | 7, 10 | 12, 15 ms...; entered at 3 ms:
        // 5, 7, 10, 12 become 2, 4, 7, 9.
        let trace = MahimahiTrace::parse("2\n5\n", Path::new("t")).unwrap();
        let c = Capacity::new(&RateModel::Mahimahi(
            trace.clone().starting_at(Duration::from_millis(3)),
        ));
        assert_eq!(c.bytes_between(ms(0), ms(4)), Bytes(2 * 1504));
        assert_eq!(c.bytes_between(ms(4), ms(9)), Bytes(2 * 1504));
        assert_eq!(c.time_to_serve(ms(0), Bytes(1)), Some(ms(2)));
        assert_eq!(c.time_to_serve(ms(2), Bytes(2 * 1504)), Some(ms(7)));
        assert_eq!(c.first_opportunity_after(ms(0)), 0);
        assert_eq!(c.opportunity_time(0), Some(ms(2)));
        let whole = trace.clone().starting_at(Duration::from_millis(5 + 3));
        assert_eq!(
            whole.start(),
            Duration::from_millis(3),
            "reduced modulo the period"
        );

        // 10 Mbit/s for 1 s then 30 Mbit/s for 1 s, entered at 1.5 s.
        let s = Duration::from_millis;
        let steps =
            PiecewiseTrace::from_steps(vec![(s(0), mbps(10)), (s(1000), mbps(30))], s(2000))
                .unwrap()
                .starting_at(s(1500));
        let c = Capacity::new(&RateModel::Piecewise(steps));
        assert_eq!(c.rate_at(ms(0)), mbps(30));
        assert_eq!(c.rate_at(ms(600)), mbps(10));
        assert_eq!(c.bytes_between(ms(0), ms(500)), Bytes(1_875_000));
        assert_eq!(c.bytes_between(ms(0), ms(2000)), Bytes(5_000_000));
        assert_eq!(c.time_to_serve(ms(0), Bytes(1_875_000)), Some(ms(500)));
        assert_eq!(c.time_to_serve(ms(500), Bytes(1_250_000)), Some(ms(1500)));
    }

    #[test]
    fn mahimahi_real_trace_mean_matches_bytes_between() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../data/traces/mahimahi/TMobile-LTE-short.down");
        let trace = MahimahiTrace::from_file(&path).unwrap();
        let period = trace.period();
        let mean = trace.mean_rate();
        let c = Capacity::new(&RateModel::Mahimahi(trace));
        let ten = Instant::ZERO + period * 10;
        let loops = c.bytes_between(
            Instant::ZERO + Duration::from_nanos(1),
            ten + Duration::from_nanos(1),
        );
        assert_eq!(loops.per(period * 10).unwrap(), mean);
    }
}
