//! `bound_cuts` and `first_in_mode`: how a controller's bound moves (the
//! adaptive BBRv2 paper's Figs. 5 and 6 and §V-B a): BBRv2's long-term
//! bound inflight_hi is cut on every round whose loss rate exceeds the
//! threshold, and a reset point sets it from whatever the flow sent when
//! the reset happened).
//!
//! A bound is read from the controller's series (`series_controller`), in
//! bytes, where 0 stands for "unset" (infinite in the paper): unset
//! samples are gaps, neither a cut nor a value.
//!
//! - `bound_cuts`: the cuts per minute of a bound after a fraction of the
//!   run: a cut is a sample that falls by more than `fraction` below the
//!   bound's previous set sample (measured across gaps). Why not a
//!   primitive: the primitives take statistics of a window's samples, not
//!   of consecutive pairs, and this counts events per time.
//! - `first_in_mode`: the bound's first set sample at or after the first
//!   row of the flow's series whose `mode` starts with a prefix (the first
//!   `probe_bw:*` row, after Startup and Drain). Why not a primitive: a
//!   mode is text, a column of another series file, which no primitive
//!   reads, and it sets the instant at which the bound is read.
//!
//! Both give a number per run; the measure is the mean and sd over the
//! runs at `at`.

use anyhow::Context;

use crate::reproduce::data::Runs;
use crate::reproduce::file::{at_param, number_param, Value};
use crate::store::RunRecord;

/// The times at which a bound falls by more than `fraction` of its
/// previous set value (unset samples, 0 or not finite, are skipped over).
fn cuts(points: &[(f64, f64)], fraction: f64) -> Vec<f64> {
    let mut last: Option<f64> = None;
    let mut times = Vec::new();
    for &(t, v) in points {
        if !(v.is_finite() && v > 0.0) {
            continue;
        }
        if last.is_some_and(|l| v < l * (1.0 - fraction)) {
            times.push(t);
        }
        last = Some(v);
    }
    times
}

/// The cuts per minute of `points` at or after `from_run` of a run of
/// `duration` seconds.
fn cuts_per_minute(points: &[(f64, f64)], fraction: f64, from_run: f64, duration: f64) -> f64 {
    let from = from_run * duration;
    let count = cuts(points, fraction)
        .iter()
        .filter(|&&t| t >= from)
        .count();
    count as f64 / ((1.0 - from_run) * duration / 60.0)
}

/// The time of flow `flow`'s first series row whose `mode` starts with
/// `prefix` (rows: a header with `t_s`, `flow` and `mode`, then data).
fn first_mode_time(rows: &[sim::FlowSample], flow: usize, prefix: &str) -> Option<f64> {
    rows.iter()
        .filter(|r| r.flow == flow)
        .find(|r| r.mode.starts_with(prefix))
        .map(|r| r.t_s)
}

/// The bound's first sample at or after `from`, if it is set there.
fn first_at_or_after(points: &[(f64, f64)], from: f64) -> Option<f64> {
    points
        .iter()
        .find(|&&(t, _)| t >= from)
        .map(|&(_, v)| v)
        .filter(|v| v.is_finite() && *v > 0.0)
}

/// The controller variable a bound measure reads: `column` (required) of
/// flow `flow` (default 0).
fn bound_param(params: &toml::Table, name: &str) -> anyhow::Result<(String, usize)> {
    let column = params
        .get("column")
        .and_then(toml::Value::as_str)
        .with_context(|| format!("{name}: `column` (a controller variable's name) is required"))?;
    let flow = number_param(params, "flow", Some(0.0)).context(name.to_string())?;
    anyhow::ensure!(
        flow >= 0.0 && flow.fract() == 0.0,
        "{name}: `flow` must be a flow's index"
    );
    Ok((column.to_string(), flow as usize))
}

/// A number per run, mean and sd over the runs at the measure's `at`
/// (within the evaluation's context).
fn over_runs_at(
    runs: &Runs,
    params: &toml::Table,
    context: &[(String, String)],
    f: impl Fn(&RunRecord) -> Option<f64>,
) -> Value {
    let at = at_param(params, context);
    let fixed: Vec<(&str, &str)> = at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Value::Stat(runs.over_seeds(&fixed, f))
}

/// `bound_cuts`: cuts per minute of controller variable `column` of flow
/// `flow` (default 0), falls by more than `fraction` (default 0.01), at or
/// after `from_run` (default 0.1) of the run; mean and sd over the runs at
/// `at`.
pub(crate) fn bound_cuts(
    runs: &Runs,
    params: &toml::Table,
    _margin: f64,
    context: &[(String, String)],
) -> anyhow::Result<Value> {
    let (column, flow) = bound_param(params, "bound_cuts")?;
    let fraction = number_param(params, "fraction", Some(0.01)).context("bound_cuts")?;
    let from_run = number_param(params, "from_run", Some(0.1)).context("bound_cuts")?;
    anyhow::ensure!(
        fraction > 0.0 && (0.0..1.0).contains(&from_run),
        "bound_cuts: `fraction` must be positive and `from_run` in [0, 1)"
    );
    Ok(over_runs_at(runs, params, context, |record| {
        let points = runs.controller_series(record, flow, &column).ok()?;
        let duration = record.result().ok()?.sim_time_s;
        Some(cuts_per_minute(&points, fraction, from_run, duration))
    }))
}

/// `first_in_mode`: controller variable `column` of flow `flow` (default
/// 0) at the flow's first series row whose mode starts with `mode`,
/// divided by `per` (default 1); mean and sd over the runs at `at`.
pub(crate) fn first_in_mode(
    runs: &Runs,
    params: &toml::Table,
    _margin: f64,
    context: &[(String, String)],
) -> anyhow::Result<Value> {
    let (column, flow) = bound_param(params, "first_in_mode")?;
    let mode = params
        .get("mode")
        .and_then(toml::Value::as_str)
        .context("first_in_mode: `mode` (a mode's prefix, such as \"probe_bw\") is required")?
        .to_string();
    let per = number_param(params, "per", Some(1.0)).context("first_in_mode")?;
    anyhow::ensure!(per > 0.0, "first_in_mode: `per` must be positive");
    Ok(over_runs_at(runs, params, context, |record| {
        let rows = runs.flow_rows(record).ok()?;
        let from = first_mode_time(&rows, flow, &mode)?;
        let points = runs.controller_series(record, flow, &column).ok()?;
        Some(first_at_or_after(&points, from)? / per)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::measures::flow_sample;

    #[test]
    fn cuts_are_falls_beyond_the_fraction_across_unset_samples() {
        let points = [
            (0.0, 10.0),
            (1.0, 9.95), // a 0.5% fall: not a cut
            (2.0, 0.0),  // unset: a gap
            (3.0, 5.0),  // a cut, measured across the gap
            (4.0, 6.0),
            (5.0, 3.0),
        ];
        assert_eq!(cuts(&points, 0.01), vec![3.0, 5.0]);
        assert!(cuts(&[], 0.01).is_empty());
        // From 4 s of a 10 s run: one cut in 6 s, 10 per minute.
        assert_eq!(cuts_per_minute(&points, 0.01, 0.4, 10.0), 10.0);
    }

    #[test]
    fn the_first_mode_row_sets_the_instant_a_bound_is_read() {
        let rows = [
            flow_sample(0.1, 0, "startup"),
            flow_sample(0.2, 1, "probe_bw:up"),
            flow_sample(0.3, 0, "drain"),
            flow_sample(0.4, 0, "probe_bw:down"),
        ];
        assert_eq!(first_mode_time(&rows, 0, "probe_bw"), Some(0.4));
        assert_eq!(first_mode_time(&rows, 1, "probe_bw"), Some(0.2));
        assert_eq!(first_mode_time(&rows, 0, "probe_rtt"), None);
        let bound = [(0.3, 7.0), (0.4, 0.0), (0.5, 5.0)];
        assert_eq!(
            first_at_or_after(&bound, 0.35),
            None,
            "unset at the instant"
        );
        assert_eq!(first_at_or_after(&bound, 0.3), Some(7.0));
        assert_eq!(first_at_or_after(&bound, 0.6), None);
    }

    #[test]
    fn a_bound_measure_names_its_missing_or_bad_parameters() {
        let params = |text: &str| -> toml::Table { toml::from_str(text).unwrap() };
        let e = bound_param(&params("flow = 0"), "bound_cuts").unwrap_err();
        assert!(format!("{e:#}").contains("`column`"), "{e:#}");
        let e = bound_param(&params("column = \"x\"\nflow = 1.5"), "bound_cuts").unwrap_err();
        assert!(format!("{e:#}").contains("`flow`"), "{e:#}");
        assert_eq!(
            bound_param(&params("column = \"x\""), "bound_cuts").unwrap(),
            ("x".to_string(), 0)
        );
    }
}
