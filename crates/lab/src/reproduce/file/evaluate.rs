//! Evaluation: the value of a measure on the runs, in a context (a table
//! row's or a `judge_at` value's fixed parameters). Every primitive of
//! [`Measure`] is computed here from typed run results; named measures are
//! handed to their Rust function ([`super::named`]).

use std::collections::BTreeMap;

use anyhow::Context;

use super::*;
use crate::reproduce::data::Runs;
use crate::stats::{self, Stat};
use crate::store::RunRecord;

/// [`Measure::RunWindow`]'s statistic of `points` over the fractions
/// `(from, to)` of a run of `length` seconds, the end included (to within
/// a nanosecond); of means over `bin_s` intervals when given, with zero
/// samples as gaps when `zero_unset`.
pub(super) fn run_window(
    points: &[(f64, f64)],
    take: WindowTake,
    (from, to): (f64, f64),
    length: f64,
    bin_s: Option<f64>,
    zero_unset: bool,
) -> Option<f64> {
    let kept: Vec<(f64, f64)> = points
        .iter()
        .map(|&(t, v)| (t, if zero_unset && v == 0.0 { f64::NAN } else { v }))
        .collect();
    let kept = match bin_s {
        Some(width) => crate::stats::bin_mean(&kept, width),
        None => kept,
    };
    take.of(&kept, from * length, to * length + 1e-9)
}

/// An operand of [`Measure::Arithmetic`] as evaluated: one number, or
/// one per axis value.
pub(super) enum Side {
    One(f64),
    Along(Vec<(String, String, Stat)>),
}

impl Side {
    /// Its number at axis value `value` (NaN where it has none).
    pub(super) fn at(&self, value: &str) -> f64 {
        match self {
            Side::One(x) => *x,
            Side::Along(along) => along
                .iter()
                .find(|(v, _, _)| v == value)
                .map_or(f64::NAN, |(_, _, s)| s.mean),
        }
    }
}

/// The condition `at` within `context`: `at`'s parameters, and the
/// context's on the keys `at` does not fix.
pub(super) fn within(
    context: &[(String, String)],
    at: &BTreeMap<String, String>,
) -> Vec<(String, String)> {
    let mut fixed: Vec<(String, String)> = at.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    fixed.extend(context.iter().filter(|(k, _)| !at.contains_key(k)).cloned());
    fixed
}

/// `context` with `axis` set to `value`.
pub(super) fn at_value(
    context: &[(String, String)],
    axis: &str,
    value: &str,
) -> Vec<(String, String)> {
    let mut within: Vec<(String, String)> =
        context.iter().filter(|(k, _)| k != axis).cloned().collect();
    within.push((axis.to_string(), value.to_string()));
    within
}

/// Harm (Ware et al.) of one run's `beside` against the mean `alone`:
/// `(alone - beside) / alone`, not clamped (a competitor that leaves the
/// flow more than it had alone does negative harm); `None` without a
/// positive `alone`.
pub(super) fn run_harm(alone: f64, beside: f64) -> Option<f64> {
    (alone.is_finite() && alone > 0.0 && beside.is_finite()).then(|| (alone - beside) / alone)
}

/// The axis values `values` picks, in its order (those the sweep has), or
/// every value of the axis.
pub(super) fn chosen_values(values: &Option<Vec<String>>, axis: Vec<String>) -> Vec<String> {
    match values {
        Some(v) => v.iter().filter(|v| axis.contains(v)).cloned().collect(),
        None => axis,
    }
}

impl ExperimentFile {
    /// The value of measure `m` on `runs` in a context, as
    /// [`ExperimentFile::evaluate_in`].
    pub(super) fn evaluate_measure(
        &self,
        runs: &Runs,
        m: &Measure,
        margin: f64,
        context: &[(String, String)],
    ) -> anyhow::Result<Value> {
        let fixed =
            |at: &BTreeMap<String, String>| -> Vec<(String, String)> { within(context, at) };
        let stat_at = |at: &[(String, String)], f: &dyn Fn(&RunRecord) -> Option<f64>| -> Stat {
            let fixed: Vec<(&str, &str)> =
                at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            runs.over_seeds(&fixed, f)
        };
        // A per-run function, at `at`, or along `by`.
        let along = |at: &BTreeMap<String, String>,
                     by: &Option<String>,
                     f: &dyn Fn(&RunRecord) -> Option<f64>|
         -> Value {
            let base = fixed(at);
            match by {
                None => Value::Stat(stat_at(&base, f)),
                Some(axis) => Value::ByAxis(
                    runs.axis(axis)
                        .into_iter()
                        .map(|v| {
                            let mut cond: Vec<(String, String)> =
                                base.iter().filter(|(k, _)| k != axis).cloned().collect();
                            cond.push((axis.clone(), v.clone()));
                            let label = self.label(axis, &v);
                            (v, label, stat_at(&cond, f))
                        })
                        .collect(),
                ),
            }
        };
        let by_axis = |of: &str| -> anyhow::Result<Vec<(String, String, Stat)>> {
            match self.evaluate_in(runs, of, 0.0, context)? {
                Value::ByAxis(v) => Ok(v),
                _ => anyhow::bail!("`{of}` is not taken along an axis"),
            }
        };
        let number = |of: &str| -> anyhow::Result<f64> {
            match self.evaluate_in(runs, of, 0.0, context)? {
                Value::Number(v) => Ok(v),
                Value::Stat(s) => Ok(s.mean),
                _ => anyhow::bail!("`{of}` is not a one-number measure"),
            }
        };
        // The axis values taken: all in the axis' order, or those given,
        // in the order given.
        let chosen = |values: &Option<Vec<String>>,
                      along: Vec<(String, String, Stat)>|
         -> Vec<(String, String, Stat)> {
            match values {
                None => along,
                Some(values) => values
                    .iter()
                    .filter_map(|v| along.iter().find(|(x, _, _)| x == v).cloned())
                    .collect(),
            }
        };
        Ok(match m {
            Measure::Mean { of, at, by, .. } => along(at, by, &|r| of.of(r)),
            Measure::Recorded { id, by, .. } => {
                let table = &self.recorded[id];
                match by {
                    None => Value::Stat(table.stat(context)),
                    Some(axis) => Value::ByAxis(
                        runs.axis(axis)
                            .into_iter()
                            .map(|v| {
                                let stat = table.stat(&at_value(context, axis, &v));
                                (v.clone(), self.label(axis, &v), stat)
                            })
                            .collect(),
                    ),
                }
            }
            Measure::Ratio { of, a, b, by, .. } => {
                self.pair(runs, of, &fixed(a), &fixed(b), by, |a, b| a / b)
            }
            Measure::Difference { of, a, b, by, .. } => {
                self.pair(runs, of, &fixed(a), &fixed(b), by, |a, b| a - b)
            }
            Measure::Compare {
                of,
                reference,
                values,
                holds,
                ..
            } => {
                let along = by_axis(of)?;
                let r = along
                    .iter()
                    .find(|(v, _, _)| v == reference)
                    .map_or(f64::NAN, |(_, _, s)| s.mean);
                let compared: Vec<_> = match values {
                    Some(_) => chosen(values, along),
                    None => along
                        .into_iter()
                        .filter(|(v, _, _)| v != reference)
                        .collect(),
                };
                Value::Conditions(
                    compared
                        .iter()
                        .filter(|(_, _, s)| s.mean.is_finite() && r.is_finite())
                        .map(|(_, label, s)| (label.clone(), holds.check(s.mean, r, margin)))
                        .collect(),
                )
            }
            Measure::Direction {
                of,
                way,
                values,
                strict,
                ..
            } => {
                let along: Vec<_> = chosen(values, by_axis(of)?)
                    .into_iter()
                    .filter(|(_, _, s)| s.mean.is_finite())
                    .collect();
                Value::Conditions(
                    along
                        .windows(2)
                        .map(|w| {
                            let (prev, next) = (&w[0], &w[1]);
                            let holds = match (way, strict) {
                                (Way::Increasing, false) => Holds::AtLeast,
                                (Way::Decreasing, false) => Holds::AtMost,
                                (Way::Increasing, true) => Holds::Above,
                                (Way::Decreasing, true) => Holds::Below,
                            };
                            let ok = holds.check(next.2.mean, prev.2.mean, margin);
                            (format!("{} to {}", prev.1, next.1), ok)
                        })
                        .collect(),
                )
            }
            Measure::Count {
                of,
                holds,
                bound,
                values,
                ..
            } => Value::Conditions(
                chosen(values, by_axis(of)?)
                    .into_iter()
                    .filter(|(_, _, s)| s.mean.is_finite())
                    .map(|(_, label, s)| (label, holds.check(s.mean, *bound, margin)))
                    .collect(),
            ),
            Measure::WindowMean {
                series,
                from_s,
                to_s,
                per,
                at,
                by,
                ..
            } => along(at, by, &|r| {
                let points = self.series_points(runs, r, series).ok()?;
                let mean = stats::window_mean(&points, *from_s, *to_s);
                match per {
                    None => Some(mean),
                    Some(per) => {
                        let points = self.series_points(runs, r, per).ok()?;
                        Some(mean / stats::window_mean(&points, *from_s, *to_s))
                    }
                }
            }),
            Measure::Window {
                series,
                take,
                from_s,
                to_s,
                at,
                by,
                ..
            } => along(at, by, &|r| {
                let points = self.series_points(runs, r, series).ok()?;
                take.of(&points, *from_s, *to_s)
            }),
            Measure::FirstCrossing {
                series,
                level,
                way,
                from_s,
                at,
                by,
                ..
            } => along(at, by, &|r| {
                let points = self.series_points(runs, r, series).ok()?;
                stats::first_crossing(&points, *from_s, *level, *way)
            }),
            Measure::Quantile { of, q, at, .. } => {
                let base = fixed(at);
                let fixed: Vec<(&str, &str)> =
                    base.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                let values: Vec<f64> = runs
                    .select(&fixed)
                    .into_iter()
                    .filter_map(|r| of.of(r))
                    .collect();
                Value::Number(stats::quantile(&values, *q))
            }
            Measure::Jain { of, at, by, .. } => along(at, by, &|r| {
                let result = r.result().ok()?;
                let total: f64 = result.flows.iter().map(|f| f.goodput_bps).sum();
                let n = result.flows.len();
                let values: Vec<f64> = result
                    .flows
                    .iter()
                    .filter_map(|f| of.of_flow(f, total, n))
                    .collect();
                let j = stats::jain(&values);
                j.is_finite().then_some(j)
            }),
            Measure::Least { of, .. } => {
                let mut least = f64::INFINITY;
                for id in of {
                    match self.evaluate_in(runs, id, margin, context)? {
                        Value::Number(v) if !v.is_nan() => least = least.min(v),
                        Value::Stat(s) if !s.mean.is_nan() => least = least.min(s.mean),
                        Value::Number(_) | Value::Stat(_) => least = f64::NAN,
                        _ => anyhow::bail!("`{id}` is not a one-number measure"),
                    }
                    if least.is_nan() {
                        break;
                    }
                }
                Value::Number(if of.is_empty() { f64::NAN } else { least })
            }
            Measure::Condition {
                a,
                b,
                holds,
                label,
                decimals,
                ..
            } => {
                let (a, b) = (number(a)?, number(b)?);
                let d = *decimals;
                let label = label
                    .replace("{a}", &format!("{a:.d$}"))
                    .replace("{b}", &format!("{b:.d$}"));
                Value::Conditions(if a.is_finite() && b.is_finite() {
                    vec![(label, holds.check(a, b, margin))]
                } else {
                    Vec::new()
                })
            }
            Measure::Across {
                of,
                values,
                take,
                by: None,
                ..
            } => {
                let xs: Vec<f64> = chosen(values, by_axis(of)?)
                    .into_iter()
                    .filter(|(_, _, s)| s.mean.is_finite())
                    .map(|(_, _, s)| s.mean)
                    .collect();
                Value::Number(take.of(&xs))
            }
            Measure::Across {
                of,
                values,
                take,
                by: Some(axis),
                id,
            } => {
                // The same across, one axis value at a time.
                let one = Measure::Across {
                    id: id.clone(),
                    of: of.clone(),
                    values: values.clone(),
                    take: *take,
                    by: None,
                };
                let mut along = Vec::new();
                for v in runs.axis(axis) {
                    let Value::Number(x) =
                        self.evaluate_measure(runs, &one, margin, &at_value(context, axis, &v))?
                    else {
                        anyhow::bail!("`{id}` gives no number at {v}")
                    };
                    let stat = if x.is_finite() {
                        Stat::of(&[x])
                    } else {
                        Stat::of(&[])
                    };
                    along.push((v.clone(), self.label(axis, &v), stat));
                }
                Value::ByAxis(along)
            }
            Measure::All { of, .. } => {
                let mut all: Vec<(String, bool)> = Vec::new();
                for o in of {
                    let Value::Conditions(c) = self.evaluate_in(runs, o, margin, context)? else {
                        anyhow::bail!("`{o}` is not a condition measure");
                    };
                    for (label, ok) in c {
                        match all.iter_mut().find(|(l, _)| *l == label) {
                            Some((_, held)) => *held = *held && ok,
                            None => all.push((label, ok)),
                        }
                    }
                }
                Value::Conditions(all)
            }
            Measure::Each { axis, of, .. } => {
                let mut each = Vec::new();
                for v in runs.axis(axis) {
                    let mut within: Vec<(String, String)> =
                        context.iter().filter(|(k, _)| k != axis).cloned().collect();
                    within.push((axis.clone(), v.clone()));
                    let Value::Conditions(c) = self.evaluate_in(runs, of, margin, &within)? else {
                        anyhow::bail!("`{of}` is not a condition measure");
                    };
                    if !c.is_empty() {
                        each.push((self.label(axis, &v), c.iter().all(|(_, ok)| *ok)));
                    }
                }
                Value::Conditions(each)
            }
            Measure::AcrossAxis {
                axis,
                of,
                values,
                take,
                ..
            } => {
                let mut xs = Vec::new();
                for v in chosen_values(values, runs.axis(axis)) {
                    let mut within: Vec<(String, String)> =
                        context.iter().filter(|(k, _)| k != axis).cloned().collect();
                    within.push((axis.clone(), v));
                    match self.evaluate_in(runs, of, margin, &within)? {
                        Value::Number(x) if x.is_finite() => xs.push(x),
                        Value::Stat(s) if s.mean.is_finite() => xs.push(s.mean),
                        Value::Number(_) | Value::Stat(_) => {}
                        _ => anyhow::bail!("`{of}` is not a one-number measure"),
                    }
                }
                Value::Number(take.of(&xs))
            }
            Measure::Held { of, .. } => match self.evaluate_in(runs, of, margin, context)? {
                Value::Conditions(c) => {
                    Value::Number(c.iter().filter(|(_, ok)| *ok).count() as f64)
                }
                _ => anyhow::bail!("`{of}` is not a condition measure"),
            },
            Measure::Arithmetic { op, a, b, by, .. } => {
                let side = |o: &Operand| -> anyhow::Result<Side> {
                    Ok(match o {
                        Operand::Number(x) => Side::One(*x),
                        Operand::Measure(id) => match self.evaluate_in(runs, id, 0.0, context)? {
                            Value::Number(v) => Side::One(v),
                            Value::Stat(s) => Side::One(s.mean),
                            Value::ByAxis(v) => Side::Along(v),
                            Value::Conditions(_) => {
                                anyhow::bail!("`{id}` gives conditions, not a number")
                            }
                        },
                    })
                };
                let (a, b) = (side(a)?, side(b)?);
                match by {
                    None => match (a, b) {
                        (Side::One(a), Side::One(b)) => Value::Number(op.apply(a, b)),
                        _ => anyhow::bail!("an operand is taken along an axis; give `by`"),
                    },
                    Some(axis) => Value::ByAxis(
                        runs.axis(axis)
                            .into_iter()
                            .map(|v| {
                                let x = op.apply(a.at(&v), b.at(&v));
                                let label = self.label(axis, &v);
                                (v, label, Stat::of(&[x]))
                            })
                            .collect(),
                    ),
                }
            }
            Measure::Named { name, params, .. } => {
                let f = named(name).with_context(|| format!("no named measure `{name}`"))?;
                f(runs, params, margin, context)?
            }
            Measure::Most { of, .. } => {
                let mut most = f64::NAN;
                for id in of {
                    match self.evaluate_in(runs, id, margin, context)? {
                        Value::Number(v) => most = most.max(v),
                        Value::Stat(s) => most = most.max(s.mean),
                        _ => anyhow::bail!("`{id}` is not a one-number measure"),
                    }
                }
                Value::Number(most)
            }
            Measure::Harm {
                of,
                alone,
                beside,
                per_run,
                by,
                ..
            } => {
                // Alone and beside, with the axis value (if any) fixed.
                let harm_at = |value: Option<(&String, &String)>| -> Stat {
                    let cond = |at: &BTreeMap<String, String>| -> Vec<(String, String)> {
                        let mut c: Vec<(String, String)> = fixed(at)
                            .into_iter()
                            .filter(|(k, _)| value.is_none_or(|(axis, _)| k != axis))
                            .collect();
                        c.extend(value.map(|(a, v)| (a.clone(), v.clone())));
                        c
                    };
                    let alone = stat_at(&cond(alone), &|r| of.of(r)).mean;
                    if *per_run {
                        stat_at(&cond(beside), &|r| {
                            of.of(r).and_then(|x| run_harm(alone, x))
                        })
                    } else {
                        let beside = stat_at(&cond(beside), &|r| of.of(r)).mean;
                        let harm = stats::harm(alone, beside);
                        if harm.is_finite() {
                            Stat::of(&[harm])
                        } else {
                            Stat::of(&[])
                        }
                    }
                };
                match by {
                    None if !*per_run => Value::Number(harm_at(None).mean),
                    None => Value::Stat(harm_at(None)),
                    Some(axis) => Value::ByAxis(
                        runs.axis(axis)
                            .into_iter()
                            .map(|v| {
                                let stat = harm_at(Some((axis, &v)));
                                let label = self.label(axis, &v);
                                (v, label, stat)
                            })
                            .collect(),
                    ),
                }
            }
            Measure::Near {
                of,
                targets,
                band,
                label: name,
                ..
            } => Value::Conditions(
                by_axis(of)?
                    .into_iter()
                    .filter(|(_, _, s)| s.mean.is_finite())
                    .filter_map(|(v, label, s)| {
                        let target = targets.get(&v)?;
                        let named = name.replace("{value}", &label).replace("{raw}", &v);
                        Some((
                            named,
                            (s.mean - target).abs() <= band.within(*target, margin),
                        ))
                    })
                    .collect(),
            ),
            Measure::Relabel { of, label, .. } => {
                match self.evaluate_in(runs, of, margin, context)? {
                    Value::Conditions(c) => Value::Conditions(
                        c.into_iter()
                            .map(|(l, ok)| (label.replace("{label}", &l), ok))
                            .collect(),
                    ),
                    _ => anyhow::bail!("`{of}` is not a condition measure"),
                }
            }
            Measure::PerValue {
                axis,
                values,
                of,
                label,
                ..
            } => {
                let mut kept = Vec::new();
                for v in chosen_values(values, runs.axis(axis)) {
                    let within = at_value(context, axis, &v);
                    let Value::Conditions(c) = self.evaluate_in(runs, of, margin, &within)? else {
                        anyhow::bail!("`{of}` is not a condition measure");
                    };
                    let value = self.label(axis, &v);
                    kept.extend(c.into_iter().map(|(condition, ok)| {
                        let name = label
                            .replace("{value}", &value)
                            .replace("{condition}", &condition)
                            .replace("{raw}", &v);
                        (name, ok)
                    }));
                }
                Value::Conditions(kept)
            }
            Measure::RunWindow {
                series,
                take,
                from_run,
                to_run,
                bin_s,
                zero_unset,
                at,
                by,
                ..
            } => along(at, by, &|r| {
                let points = self.series_points(runs, r, series).ok()?;
                let length = r.result().ok()?.sim_time_s;
                run_window(
                    &points,
                    *take,
                    (*from_run, *to_run),
                    length,
                    *bin_s,
                    *zero_unset,
                )
            }),
        })
    }

    /// The [`Stat`] of `mean` measure `id` at its `at` plus `extra`.
    pub(super) fn mean_at(&self, runs: &Runs, id: &str, extra: &[(&str, &str)]) -> Stat {
        match self.measure(id) {
            Some(Measure::Mean { of, at, .. }) => {
                let mut fixed: Vec<(&str, &str)> =
                    at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                fixed.extend_from_slice(extra);
                runs.over_seeds(&fixed, |r| of.of(r))
            }
            Some(Measure::Recorded { id, .. }) => {
                let context: Vec<(String, String)> = extra
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                self.recorded[id].stat(&context)
            }
            _ => Stat::of(&[]),
        }
    }

    /// `f` of a quantity's means at conditions `a` and `b`, once or along
    /// `by` (each value then a [`Stat`] of one number).
    pub(super) fn pair(
        &self,
        runs: &Runs,
        of: &Quantity,
        a: &[(String, String)],
        b: &[(String, String)],
        by: &Option<String>,
        f: fn(f64, f64) -> f64,
    ) -> Value {
        let mean = |at: &[(String, String)], extra: Option<(&str, &str)>| {
            let mut fixed: Vec<(&str, &str)> = at
                .iter()
                .filter(|(k, _)| extra.is_none_or(|(axis, _)| k != axis))
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            fixed.extend(extra);
            runs.over_seeds(&fixed, |r| of.of(r)).mean
        };
        match by {
            None => Value::Number(f(mean(a, None), mean(b, None))),
            Some(axis) => Value::ByAxis(
                runs.axis(axis)
                    .into_iter()
                    .map(|v| {
                        let x = f(mean(a, Some((axis, &v))), mean(b, Some((axis, &v))));
                        let label = self.label(axis, &v);
                        let stat = if x.is_finite() {
                            Stat::of(&[x])
                        } else {
                            Stat::of(&[])
                        };
                        (v, label, stat)
                    })
                    .collect(),
            ),
        }
    }

    pub(super) fn series_points(
        &self,
        runs: &Runs,
        record: &RunRecord,
        s: &SeriesColumn,
    ) -> anyhow::Result<Vec<(f64, f64)>> {
        Ok(match (&s.column, s.flow) {
            (SeriesName::Flow(column), SeriesOf::Flow(flow)) => {
                column.points(&runs.flow_rows(record)?, flow)
            }
            (SeriesName::Controller(name), SeriesOf::Flow(flow)) => {
                runs.controller_series(record, flow, name)?
            }
            (SeriesName::Link(column), _) => column.points(&runs.link_rows(record)?),
            (SeriesName::Flow(_) | SeriesName::Controller(_), SeriesOf::Link(_)) => {
                anyhow::bail!("the link has no controller series")
            }
        })
    }
}
