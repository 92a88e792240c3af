//! Statistics over runs and time series, in one place: mean and sample
//! standard deviation over seeds, median and quantiles, an empirical CDF,
//! the mean or median of a series over a time window, a series binned (the
//! mean per bin, a counter's rate per bin), and the first time a series
//! crosses a level. Non-finite values are left out everywhere; an
//! empty input gives NaN (or an empty CDF, or `None` for a crossing).

/// Mean and sample standard deviation (`(NaN, NaN)` without values, sd 0
/// for one value). Every value is used as given.
pub fn mean_sd(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = if values.len() > 1 {
        values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (mean, var.sqrt())
}

/// Mean and sample standard deviation of a quantity over seeds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stat {
    /// The mean (NaN without values).
    pub mean: f64,
    /// The sample standard deviation (0 for one value, NaN for none).
    pub sd: f64,
    /// How many values.
    pub n: usize,
}

impl Stat {
    /// The statistics of `values`, NaN ones left out.
    pub fn of(values: &[f64]) -> Stat {
        let finite = finite(values);
        let (mean, sd) = mean_sd(&finite);
        Stat {
            mean,
            sd,
            n: finite.len(),
        }
    }

    /// `(mean, sd)`.
    pub fn pair(&self) -> (f64, f64) {
        (self.mean, self.sd)
    }

    /// `mean ± sd` with `decimals` decimals; `mean` alone for one value;
    /// "—" without values.
    pub fn text(&self, decimals: u8) -> String {
        let d = decimals as usize;
        match self.n {
            0 => "—".to_string(),
            1 => format!("{:.d$}", self.mean),
            _ => format!("{:.d$} ± {:.d$}", self.mean, self.sd),
        }
    }

    /// [`Stat::text`] as a table cell, empty without values.
    pub fn cell(&self, decimals: u8) -> report::Cell {
        if self.n == 0 {
            report::Cell::Empty
        } else {
            report::Cell::text(self.text(decimals))
        }
    }
}

fn finite(values: &[f64]) -> Vec<f64> {
    values.iter().copied().filter(|v| v.is_finite()).collect()
}

fn sorted(values: &[f64]) -> Vec<f64> {
    let mut v = finite(values);
    v.sort_by(f64::total_cmp);
    v
}

/// The median (the mean of the two middle values of an even count).
pub fn median(values: &[f64]) -> f64 {
    let v = sorted(values);
    if v.is_empty() {
        return f64::NAN;
    }
    let mid = v.len() / 2;
    if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    }
}

/// The `q` quantile (0 <= q <= 1) by linear interpolation between the
/// closest ranks (q = 0.5 is the [`median`]).
pub fn quantile(values: &[f64], q: f64) -> f64 {
    let v = sorted(values);
    if v.is_empty() || !(0.0..=1.0).contains(&q) {
        return f64::NAN;
    }
    let pos = q * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// The share of values at or below `x`: the empirical CDF at `x`.
pub fn cdf_at(values: &[f64], x: f64) -> f64 {
    let v = finite(values);
    if v.is_empty() {
        return f64::NAN;
    }
    v.iter().filter(|y| **y <= x).count() as f64 / v.len() as f64
}

/// An empirical CDF as steps `(value, share at or below it)`, thinned to
/// at most `points` steps plus its extremes (starting at share 0).
pub fn cdf(values: &[f64], points: usize) -> Vec<(f64, f64)> {
    let v = sorted(values);
    let n = v.len();
    if n == 0 {
        return Vec::new();
    }
    let step = n.div_ceil(points.max(1)).max(1);
    let mut out: Vec<(f64, f64)> = vec![(v[0], 0.0)];
    for i in (0..n).step_by(step).chain(std::iter::once(n - 1)) {
        out.push((v[i], (i + 1) as f64 / n as f64));
    }
    out
}

/// The values of a series `(t, value)` whose time lies in `[from, to)`.
pub fn window(points: &[(f64, f64)], from: f64, to: f64) -> Vec<f64> {
    points
        .iter()
        .filter(|(t, v)| *t >= from && *t < to && v.is_finite())
        .map(|(_, v)| *v)
        .collect()
}

/// The mean of a series over `[from, to)` (NaN without samples there).
pub fn window_mean(points: &[(f64, f64)], from: f64, to: f64) -> f64 {
    mean_sd(&window(points, from, to)).0
}

/// The median of a series over `[from, to)` (NaN without samples there).
pub fn window_median(points: &[(f64, f64)], from: f64, to: f64) -> f64 {
    median(&window(points, from, to))
}

/// Which way a series crosses a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Crossing {
    /// The first sample at or above the level.
    Above,
    /// The first sample at or below the level.
    Below,
}

/// The time of the first sample at or after `from` that reaches `level`
/// in direction `way`; `None` if none does.
pub fn first_crossing(points: &[(f64, f64)], from: f64, level: f64, way: Crossing) -> Option<f64> {
    points
        .iter()
        .filter(|(t, v)| *t >= from && v.is_finite())
        .find(|(_, v)| match way {
            Crossing::Above => *v >= level,
            Crossing::Below => *v <= level,
        })
        .map(|(t, _)| *t)
}

/// Jain's fairness index, (sum x)^2 / (n sum x^2) (NaN without values or
/// when every value is 0).
pub fn jain(values: &[f64]) -> f64 {
    let v = finite(values);
    let sum: f64 = v.iter().sum();
    let squares: f64 = v.iter().map(|x| x * x).sum();
    if v.is_empty() || squares == 0.0 {
        return f64::NAN;
    }
    sum * sum / (v.len() as f64 * squares)
}

/// Harm (Ware et al.) of a "more is better" metric: how much of what a
/// flow gets alone it loses beside another, `(alone - beside) / alone`,
/// clamped at 0 below.
pub fn harm(alone: f64, beside: f64) -> f64 {
    if !alone.is_finite() || !beside.is_finite() || alone <= 0.0 {
        return f64::NAN;
    }
    ((alone - beside) / alone).max(0.0)
}

/// The rate of a cumulative counter sampled over time, per interval of
/// `bin_s`: `(interval midpoint, increase / elapsed time)`. An interval
/// runs between the last samples at or before its two boundaries, so an
/// interval without samples of its own is merged into the next one.
pub fn binned_rate(cumulative: &[(f64, f64)], bin_s: f64) -> Vec<(f64, f64)> {
    const EPS: f64 = 1e-6;
    let Some(&first) = cumulative.first() else {
        return Vec::new();
    };
    let t0 = first.0;
    let boundary_at_or_after = |t: f64| t0 + ((t - t0) / bin_s - EPS).ceil() * bin_s;
    let mut out = Vec::new();
    let mut start = first;
    for (i, &(t, v)) in cumulative.iter().enumerate() {
        let boundary = boundary_at_or_after(t);
        // A sample closes an interval when it is the last one before a
        // boundary; the series' last sample only when it sits on one (a
        // partial interval at the end is left out).
        let closes = match cumulative.get(i + 1) {
            Some(&(next, _)) => next > boundary + EPS,
            None => (boundary - t).abs() <= EPS,
        };
        if closes && t > start.0 + EPS {
            out.push(((start.0 + t) / 2.0, (v - start.1) / (t - start.0)));
            start = (t, v);
        }
    }
    out
}

/// The mean of `points` in consecutive bins of `width` along x, as
/// `(bin centre, mean)`; empty bins are left out. Smooths per-sample series
/// (a delivery-rate sample every 100 ms) into readable curves.
pub fn bin_mean(points: &[(f64, f64)], width: f64) -> Vec<(f64, f64)> {
    let mut bins: Vec<(f64, f64, usize)> = Vec::new();
    for &(x, y) in points {
        if !(x.is_finite() && y.is_finite()) {
            continue;
        }
        let index = (x / width).floor();
        match bins.last_mut() {
            Some((i, sum, n)) if *i == index => {
                *sum += y;
                *n += 1;
            }
            _ => bins.push((index, y, 1)),
        }
    }
    bins.into_iter()
        .map(|(i, sum, n)| ((i + 0.5) * width, sum / n as f64))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_medians_and_quantiles() {
        assert_eq!(mean_sd(&[1.0, 3.0]), (2.0, 2f64.sqrt()));
        assert!(mean_sd(&[]).0.is_nan());
        assert_eq!(Stat::of(&[1.0, 3.0, f64::NAN]).n, 2);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.5), 3.0);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95), 4.8);
        assert_eq!(quantile(&[1.0, 2.0], 0.0), 1.0);
        assert_eq!(cdf_at(&[1.0, 2.0, 3.0, 4.0], 2.0), 0.5);
    }

    #[test]
    fn cdf_is_thinned_and_ends_at_one() {
        let values: Vec<f64> = (1..=100).map(f64::from).collect();
        let c = cdf(&values, 10);
        assert_eq!(c.first(), Some(&(1.0, 0.0)));
        assert_eq!(c.last(), Some(&(100.0, 1.0)));
        assert!(c.len() <= 12);
        assert!(c.windows(2).all(|w| w[0].1 <= w[1].1));
    }

    #[test]
    fn windows_and_crossings() {
        let s = [
            (0.0, 100.0),
            (1.0, 3.0),
            (2.0, 1.0),
            (3.0, 2.0),
            (4.0, 50.0),
        ];
        assert_eq!(window_mean(&s, 1.0, 4.0), 2.0);
        assert_eq!(window_median(&s, 1.0, 4.0), 2.0);
        assert!(window_mean(&s, 10.0, 20.0).is_nan());
        assert_eq!(first_crossing(&s, 0.5, 2.0, Crossing::Below), Some(2.0));
        assert_eq!(first_crossing(&s, 0.0, 50.0, Crossing::Above), Some(0.0));
        assert_eq!(first_crossing(&s, 0.5, 60.0, Crossing::Above), None);
    }

    #[test]
    fn jain_and_harm() {
        assert_eq!(jain(&[5.0, 5.0]), 1.0);
        assert!((jain(&[3.0, 1.0]) - 0.8).abs() < 1e-12);
        assert_eq!(harm(10.0, 6.0), 0.4);
        assert_eq!(harm(10.0, 12.0), 0.0);
        assert!(harm(0.0, 1.0).is_nan());
    }

    #[test]
    fn binned_rate_of_a_steady_counter_is_its_slope() {
        // 0.1 s samples of 1000 B/s over 3 s: three 1 s intervals.
        let samples: Vec<(f64, f64)> = (0..=30)
            .map(|i| (i as f64 * 0.1, i as f64 * 100.0))
            .collect();
        let rates = binned_rate(&samples, 1.0);
        assert_eq!(rates.len(), 3);
        for (i, (t, r)) in rates.iter().enumerate() {
            assert!(close_to(*t, i as f64 + 0.5), "{t}");
            assert!(close_to(*r, 1000.0), "{r}");
        }
    }

    #[test]
    fn binned_rate_follows_a_step_and_spans_gaps() {
        // 0..1 s: nothing; 1..2 s: 500 B; then a gap to 4 s with 600 B more.
        let samples = [
            (0.0, 0.0),
            (0.5, 0.0),
            (1.0, 0.0),
            (1.5, 250.0),
            (2.0, 500.0),
            (4.0, 1100.0),
        ];
        let rates = binned_rate(&samples, 1.0);
        assert_eq!(rates.len(), 3, "{rates:?}");
        assert!(close_to(rates[0].1, 0.0));
        assert!(close_to(rates[1].1, 500.0));
        assert!(close_to(rates[2].0, 3.0) && close_to(rates[2].1, 300.0));
        assert!(binned_rate(&[], 1.0).is_empty());
        assert!(binned_rate(&[(0.0, 1.0)], 1.0).is_empty());
    }

    fn close_to(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn bin_mean_averages_consecutive_bins_and_skips_empty_ones() {
        let points = [
            (0.1, 1.0),
            (0.5, 3.0),
            (1.2, 10.0),
            (3.9, 4.0),
            (3.1, f64::NAN),
        ];
        assert_eq!(
            bin_mean(&points, 1.0),
            vec![(0.5, 2.0), (1.5, 10.0), (3.5, 4.0)]
        );
        assert!(bin_mean(&[], 1.0).is_empty());
    }
}
