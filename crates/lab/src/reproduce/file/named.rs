//! Named measures: analyses that need more than the primitives, written in
//! Rust and referred to from a file by name (`kind = "named"`), with the
//! helpers that read their parameters.

use std::collections::BTreeMap;

use anyhow::Context;

use super::*;
use crate::reproduce::data::Runs;
use crate::stats::{self, Stat};

/// A named Rust measure: the runs, the file's parameters for it, the
/// margin of the claim judged on it (0 when none is) and the context of
/// its evaluation (a table row's parameters, which fill in its `at`).
pub type NamedMeasure = fn(&Runs, &toml::Table, f64, &[(String, String)]) -> anyhow::Result<Value>;

/// The named measures files may use: analyses that need more than the
/// primitives.
pub fn named(name: &str) -> Option<NamedMeasure> {
    match name {
        "fluctuation" => Some(fluctuation),
        "share_fluctuation" => Some(share_fluctuation),
        "held_sample_rmse" => Some(held_sample_rmse_measure),
        "drop_response" => Some(crate::reproduce::measures::drop_response::drop_response),
        "uptake_lag" => Some(crate::reproduce::bbr2::uptake_lag_measure),
        "converge_share" => Some(crate::reproduce::measures::converge_share::converge_share),
        "sample_runs" => Some(crate::reproduce::measures::sample_runs::sample_runs),
        "bound_cuts" => Some(crate::reproduce::measures::bounds::bound_cuts),
        "first_in_mode" => Some(crate::reproduce::measures::bounds::first_in_mode),
        "decision_tree" => Some(crate::reproduce::measures::decision_tree::decision_tree),
        _ => None,
    }
}

/// The names of [`named`]'s measures.
pub const NAMED: &[&str] = &[
    "fluctuation",
    "share_fluctuation",
    "held_sample_rmse",
    "drop_response",
    "uptake_lag",
    "converge_share",
    "sample_runs",
    "bound_cuts",
    "first_in_mode",
    "decision_tree",
];

/// A number parameter of a named measure (`default` when absent).
pub(crate) fn number_param(
    params: &toml::Table,
    key: &str,
    default: Option<f64>,
) -> anyhow::Result<f64> {
    match params.get(key) {
        Some(v) => v
            .as_float()
            .or(v.as_integer().map(|i| i as f64))
            .with_context(|| format!("`{key}` must be a number")),
        None => default.with_context(|| format!("`{key}` (a number) is required")),
    }
}

/// The fixed parameters of a named measure (its `at` table) within the
/// evaluation's context.
pub(crate) fn at_param(
    params: &toml::Table,
    context: &[(String, String)],
) -> Vec<(String, String)> {
    let at: BTreeMap<String, String> = params
        .get("at")
        .and_then(toml::Value::as_table)
        .map(|t| {
            t.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str().map_or_else(|| v.to_string(), str::to_string),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    within(context, &at)
}

/// `fluctuation`: the coefficient of variation (sd / mean) over time of a
/// flow's series column after `from_s`, per run, mean over the runs at
/// `at`. Parameters: `column`, `flow` (default 0), `from_s` (default 0),
/// `at` (a table of fixed parameters).
pub(super) fn fluctuation(
    runs: &Runs,
    params: &toml::Table,
    _margin: f64,
    context: &[(String, String)],
) -> anyhow::Result<Value> {
    let column = params
        .get("column")
        .and_then(toml::Value::as_str)
        .context("fluctuation: `column` (a string) is required")?;
    let column: sim::FlowColumn =
        column_named(column).map_err(|e| anyhow::anyhow!("fluctuation: `column`: {e}"))?;
    let flow = params
        .get("flow")
        .and_then(toml::Value::as_integer)
        .unwrap_or(0) as usize;
    let from = number_param(params, "from_s", Some(0.0)).context("fluctuation")?;
    let at = at_param(params, context);
    let fixed: Vec<(&str, &str)> = at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut values = Vec::new();
    for record in runs.select(&fixed) {
        let rows = runs.flow_rows(record)?;
        let points: Vec<f64> = column
            .points(&rows, flow)
            .into_iter()
            .filter(|(t, _)| *t >= from)
            .map(|(_, v)| v)
            .collect();
        let (mean, sd) = stats::mean_sd(&points);
        if mean.is_finite() && mean > 0.0 {
            values.push(sd / mean);
        }
    }
    Ok(Value::Stat(Stat::of(&values)))
}

/// `share_fluctuation`: how steadily a family of flows shares the link
/// over time (BBR-CWS paper, Figs. 9-15), per run; mean and sd over the
/// runs at `at`. Each flow's throughput is taken per interval of `bin_s`
/// from its delivered bytes; over the intervals from `from_s` on,
/// `gives = "share_sd"` is the sd of the family's share of the interval's
/// throughput, `gives = "mean_jain"` the mean of Jain's index of the
/// interval's throughputs. Parameters: `family` (flows `0..family` are
/// the family), `flows` (how many flows), `bin_s`, `from_s`, `gives`, `at`.
pub(super) fn share_fluctuation(
    runs: &Runs,
    params: &toml::Table,
    _margin: f64,
    context: &[(String, String)],
) -> anyhow::Result<Value> {
    let count = |key: &str| -> anyhow::Result<usize> {
        params
            .get(key)
            .and_then(toml::Value::as_integer)
            .and_then(|i| usize::try_from(i).ok())
            .with_context(|| format!("share_fluctuation: `{key}` (a count) is required"))
    };
    let (family, flows) = (count("family")?, count("flows")?);
    let bin_s = number_param(params, "bin_s", None).context("share_fluctuation")?;
    let from_s = number_param(params, "from_s", None).context("share_fluctuation")?;
    let share_sd = match params.get("gives").and_then(toml::Value::as_str) {
        Some("share_sd") => true,
        Some("mean_jain") => false,
        _ => anyhow::bail!("share_fluctuation: `gives` must be \"share_sd\" or \"mean_jain\""),
    };
    let at = at_param(params, context);
    let fixed: Vec<(&str, &str)> = at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let (sd, jain) =
        crate::reproduce::cws::fluctuation_over_seeds(runs, &fixed, family, flows, bin_s, from_s);
    Ok(Value::Stat(if share_sd { sd } else { jain }))
}

/// The BBR-Copilot paper's §4.3 measure, "the RMSE of the true bandwidth
/// and the bandwidth measurement samples", computed from a run's series:
/// the sample BBR holds at each instant (its BtlBw, the max-filtered
/// sample, series column `bw_estimate_bps`) against the bottleneck's
/// capacity at that instant, one term per series tick in `[from_s, to_s)`.
/// `held` and `capacity` are `(t_s, bps)` in time order; the capacity in
/// force at a tick is the latest capacity row at or before it. `None`
/// without a tick in the window.
///
/// Why the held sample and not the samples as they come: the paper's own
/// arithmetic. At 200 ms without Copilot it says BBR "continues using the
/// bandwidth measurement sample of 11.8 Mbps obtained between the 0th and
/// 20th seconds", for an RMSE of 12.18 over 20-40 s against 24 Mbit/s:
/// 24 - 11.8 = 12.2. The series it measured held a sample taken before the
/// window for the whole window, which only the filter's output does (BBR
/// lets a newer sample in only if it is not app-limited or exceeds the
/// max, and the max filter ages only when a sample enters).
pub(crate) fn held_sample_rmse(
    held: &[(f64, f64)],
    capacity: &[(f64, f64)],
    from_s: f64,
    to_s: f64,
) -> Option<f64> {
    let mut sum_sq = 0.0;
    let mut n = 0u64;
    for &(t, bps) in held.iter().filter(|(t, _)| *t >= from_s && *t < to_s) {
        let i = capacity.partition_point(|(c, _)| *c <= t);
        let Some(&(_, truth)) = i.checked_sub(1).and_then(|i| capacity.get(i)) else {
            continue;
        };
        sum_sq += (bps - truth) * (bps - truth);
        n += 1;
    }
    (n > 0).then(|| (sum_sq / n as f64).sqrt())
}

/// `held_sample_rmse`: [`held_sample_rmse`] of flow 0's `bw_estimate_bps`
/// against the link's `capacity_bps` over `[from_s, to_s)`, per run; mean
/// and sd over the runs at `at`. Parameters: `from_s`, `to_s`, `at`.
pub(super) fn held_sample_rmse_measure(
    runs: &Runs,
    params: &toml::Table,
    _margin: f64,
    context: &[(String, String)],
) -> anyhow::Result<Value> {
    let from_s = number_param(params, "from_s", None).context("held_sample_rmse")?;
    let to_s = number_param(params, "to_s", None).context("held_sample_rmse")?;
    let at = at_param(params, context);
    let fixed: Vec<(&str, &str)> = at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Ok(Value::Stat(runs.over_seeds(&fixed, |record| {
        let flows = runs.flow_rows(record).ok()?;
        let link = runs.link_rows(record).ok()?;
        held_sample_rmse(
            &sim::FlowColumn::BwEstimateBps.points(&flows, 0),
            &sim::LinkColumn::CapacityBps.points(&link),
            from_s,
            to_s,
        )
    })))
}
