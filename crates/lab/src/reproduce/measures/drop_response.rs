//! `drop_response`: how a flow responds to every fall of the link's
//! capacity (the oBBR paper's Figs. 4 and 9: BBR's max filter keeps a stale
//! bandwidth estimate for about ten rounds after a drop, the queue grows
//! and RTT samples climb, while oBBR's timely update follows sooner).
//!
//! A run's drops are read from its link series (`capacity_bps`): every
//! sample where the capacity falls starts a drop, which lasts until the
//! capacity next changes or the series ends. Per drop, from flow 0's
//! series:
//!
//! - `lag`: seconds from the drop to the first bandwidth estimate
//!   (`bw_estimate_bps`) within `within` (relative) of the new rate; the
//!   whole low period when none is;
//! - `inflated`: seconds of RTT samples (`latest_rtt_ms`) above `rtt_above`
//!   times the flow's base RTT within the low period, each sample standing
//!   for the interval to the next;
//! - `peak_rtt`: the highest RTT sample (ms) within the low period;
//! - `high_rtt_at`: seconds from the drop to the first RTT sample above
//!   `rtt_above` times the base RTT; the whole low period when none is;
//! - `mean`, `increase`, `rate`: of flow 0's series `column`, within a
//!   `window` set by the drop: `"before"` (the `before_s` seconds before
//!   it), `"until_followed"` (from the drop until the estimate is within
//!   `within` of the new rate, or the low period's end) or `"low"` (the
//!   low period): the samples' mean over `[from, to)`, a cumulative
//!   column's increase (its value at the first sample at or after `to`
//!   less that at `from`), or that increase per second of the window.
//!   Fig. 4: BBR keeps its bytes in flight and loses more per second
//!   until its estimate follows, and loses more after the drop than oBBR.
//!
//! The measure is the mean (and sd) over every drop of every run at `at`,
//! pooled in the runs' order; with `among = { axis, values }` over the
//! runs at any of those values of the axis, value by value (oBBR's three
//! mu pooled). Why not a primitive: a drop is an event found in one series
//! that sets the window of another, per drop and per run, and the pooling
//! is over drops, not over runs.

use anyhow::Context;

use crate::reproduce::data::Runs;
use crate::reproduce::file::{at_param, number_param, Value};
use crate::stats::{window_mean, Stat};
use crate::store::RunRecord;
use sim::{FlowColumn, LinkColumn};

/// A fall of the link capacity, as the link's time series shows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CapacityDrop {
    /// First sample time at the lower rate (s); the true change is at most
    /// one sample interval earlier.
    pub at: f64,
    /// The new rate (bit/s).
    pub rate: f64,
    /// When the rate next changes, or the series ends (s).
    pub until: f64,
}

/// The drops of a piecewise-constant capacity series `(t_s, bit/s)`.
pub(crate) fn capacity_drops(capacity: &[(f64, f64)]) -> Vec<CapacityDrop> {
    let end = capacity.last().map_or(0.0, |p| p.0);
    let mut drops = Vec::new();
    for (i, w) in capacity.windows(2).enumerate() {
        if w[1].1 < w[0].1 {
            let until = capacity[i + 1..]
                .iter()
                .find(|p| p.1 != w[1].1)
                .map_or(end, |p| p.0);
            drops.push(CapacityDrop {
                at: w[1].0,
                rate: w[1].1,
                until,
            });
        }
    }
    drops
}

/// The time of the first sample in `[start, end)` whose value passes `test`.
fn first_where(
    series: &[(f64, f64)],
    start: f64,
    end: f64,
    test: impl Fn(f64) -> bool,
) -> Option<f64> {
    series
        .iter()
        .filter(|(t, _)| *t >= start && *t < end)
        .find(|(_, v)| test(*v))
        .map(|(t, _)| *t)
}

/// The value of a sampled series at the first sample at or after `t` (the
/// last sample's if none is; NaN for an empty series).
fn value_at(series: &[(f64, f64)], t: f64) -> f64 {
    series
        .iter()
        .find(|(x, _)| *x >= t)
        .or(series.last())
        .map_or(f64::NAN, |(_, v)| *v)
}

/// Seconds within `[start, end)` that a sampled series spends above
/// `threshold`: each sample stands for the interval to the next one.
pub(crate) fn time_above(series: &[(f64, f64)], start: f64, end: f64, threshold: f64) -> f64 {
    series
        .windows(2)
        .filter(|w| w[0].0 >= start && w[0].0 < end && w[0].1 > threshold)
        .map(|w| w[1].0.min(end) - w[0].0)
        .sum()
}

/// What the measure gives per drop.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Gives {
    Lag,
    Inflated,
    PeakRtt,
    HighRttAt,
    /// The mean of `column` over the window.
    Mean,
    /// A cumulative `column`'s increase over the window.
    Increase,
    /// That increase per second of the window.
    Rate,
}

/// The window a drop sets for `mean`, `increase` and `rate`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Window {
    /// The `before_s` seconds before the drop.
    Before,
    /// From the drop until the estimate is within `within` of the new rate
    /// (or the low period's end).
    UntilFollowed,
    /// The low period.
    Low,
}

/// The measure's parameters.
#[derive(Clone, Debug)]
struct Params {
    gives: Gives,
    /// How close (relative) to the new rate the estimate must come.
    within: f64,
    /// The multiple of the base RTT above which an RTT sample is inflated.
    rtt_above: f64,
    /// Flow 0's series column of `mean`, `increase` and `rate`.
    column: FlowColumn,
    /// Their window.
    window: Window,
    /// The length of the `before` window, s.
    before_s: f64,
}

/// One value per capacity drop of a run (`None`: the run has no series or
/// no base RTT).
fn per_drop(runs: &Runs, record: &RunRecord, p: &Params) -> Option<Vec<f64>> {
    let flows = runs.flow_rows(record).ok()?;
    let link = runs.link_rows(record).ok()?;
    let base_rtt = record.result().ok()?.flows.first()?.base_rtt_ms;
    let drops = capacity_drops(&LinkColumn::CapacityBps.points(&link));
    let estimate = FlowColumn::BwEstimateBps.points(&flows, 0);
    // When the estimate follows drop `d` (the low period's end if never).
    let followed = |d: &CapacityDrop| {
        first_where(&estimate, d.at, d.until, |v| {
            (v - d.rate).abs() <= p.within * d.rate
        })
        .unwrap_or(d.until)
    };
    Some(match p.gives {
        Gives::Lag => drops.iter().map(|d| followed(d) - d.at).collect(),
        Gives::Inflated => {
            let rtt = FlowColumn::LatestRttMs.points(&flows, 0);
            drops
                .iter()
                .map(|d| time_above(&rtt, d.at, d.until, p.rtt_above * base_rtt))
                .collect()
        }
        Gives::PeakRtt => {
            let rtt = FlowColumn::LatestRttMs.points(&flows, 0);
            drops
                .iter()
                .map(|d| {
                    rtt.iter()
                        .filter(|(t, _)| *t >= d.at && *t < d.until)
                        .map(|p| p.1)
                        .fold(f64::NAN, f64::max)
                })
                .collect()
        }
        Gives::HighRttAt => {
            let rtt = FlowColumn::LatestRttMs.points(&flows, 0);
            drops
                .iter()
                .map(|d| {
                    first_where(&rtt, d.at, d.until, |v| v > p.rtt_above * base_rtt)
                        .unwrap_or(d.until)
                        - d.at
                })
                .collect()
        }
        Gives::Mean | Gives::Increase | Gives::Rate => {
            let column = p.column.points(&flows, 0);
            drops
                .iter()
                .map(|d| {
                    let (from, to) = match p.window {
                        Window::Before => (d.at - p.before_s, d.at),
                        Window::UntilFollowed => (d.at, followed(d)),
                        Window::Low => (d.at, d.until),
                    };
                    let increase = value_at(&column, to) - value_at(&column, from);
                    // The `before` window is `before_s` long, whatever the
                    // rounding of `at - before_s`.
                    let seconds = match p.window {
                        Window::Before => p.before_s,
                        _ => to - from,
                    };
                    match p.gives {
                        Gives::Mean => window_mean(&column, from, to),
                        Gives::Increase => increase,
                        _ if seconds > 0.0 => increase / seconds,
                        _ => f64::NAN,
                    }
                })
                .collect()
        }
    })
}

/// The named measure: parameters `gives` (`"lag"`, `"inflated"`,
/// `"peak_rtt"`, `"high_rtt_at"`, `"mean"`, `"increase"`, `"rate"`),
/// `within` (0.25), `rtt_above` (2.5), `column`, `window`, `before_s` (5),
/// `at`, `among`.
pub(crate) fn drop_response(
    runs: &Runs,
    params: &toml::Table,
    _margin: f64,
    context: &[(String, String)],
) -> anyhow::Result<Value> {
    let gives = match params.get("gives").and_then(toml::Value::as_str) {
        Some("lag") => Gives::Lag,
        Some("inflated") => Gives::Inflated,
        Some("peak_rtt") => Gives::PeakRtt,
        Some("high_rtt_at") => Gives::HighRttAt,
        Some("mean") => Gives::Mean,
        Some("increase") => Gives::Increase,
        Some("rate") => Gives::Rate,
        _ => anyhow::bail!(
            "drop_response: `gives` must be \"lag\", \"inflated\", \"peak_rtt\", \"high_rtt_at\", \
             \"mean\", \"increase\" or \"rate\""
        ),
    };
    let windowed = matches!(gives, Gives::Mean | Gives::Increase | Gives::Rate);
    let column = match params.get("column") {
        Some(c) => {
            let name = c
                .as_str()
                .context("drop_response: `column` must be a series column's name (a string)")?;
            crate::reproduce::file::column_named(name)
                .map_err(|e| anyhow::anyhow!("drop_response: `column`: {e}"))?
        }
        None if windowed => {
            anyhow::bail!(
                "drop_response: `gives = \"mean\"`, \"increase\" or \"rate\" needs `column`"
            )
        }
        // Not read by the other `gives`.
        None => FlowColumn::BwEstimateBps,
    };
    let window = match params.get("window").map(|w| w.as_str()) {
        None if !windowed => Window::Low,
        Some(Some("before")) => Window::Before,
        Some(Some("until_followed")) => Window::UntilFollowed,
        Some(Some("low")) => Window::Low,
        _ => anyhow::bail!(
            "drop_response: `window` must be \"before\", \"until_followed\" or \"low\" \
             (required with `gives = \"mean\"`, \"increase\" or \"rate\")"
        ),
    };
    let p = Params {
        gives,
        within: number_param(params, "within", Some(0.25)).context("drop_response")?,
        rtt_above: number_param(params, "rtt_above", Some(2.5)).context("drop_response")?,
        column,
        window,
        before_s: number_param(params, "before_s", Some(5.0)).context("drop_response")?,
    };
    let at = at_param(params, context);
    // The conditions pooled: `at` alone, or `at` with each value of `among`.
    let conditions: Vec<Vec<(String, String)>> = match params.get("among") {
        None => vec![at],
        Some(among) => {
            let among = among
                .as_table()
                .context("drop_response: `among` must be a table { axis, values }")?;
            let axis = among
                .get("axis")
                .and_then(toml::Value::as_str)
                .context("drop_response: `among.axis` (a string) is required")?;
            let values = among
                .get("values")
                .and_then(toml::Value::as_array)
                .context("drop_response: `among.values` (a list of strings) is required")?;
            values
                .iter()
                .map(|v| {
                    let v = v
                        .as_str()
                        .context("drop_response: `among.values` must be strings")?;
                    let mut c: Vec<(String, String)> =
                        at.iter().filter(|(k, _)| k != axis).cloned().collect();
                    c.push((axis.to_string(), v.to_string()));
                    Ok(c)
                })
                .collect::<anyhow::Result<_>>()?
        }
    };
    let mut values = Vec::new();
    for c in &conditions {
        let fixed: Vec<(&str, &str)> = c.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        for record in runs.select(&fixed) {
            values.extend(per_drop(runs, record, &p).unwrap_or_default());
        }
    }
    Ok(Value::Stat(Stat::of(&values)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_drops_finds_each_fall_and_the_next_change() {
        let capacity = [
            (0.0, 40.0),
            (1.0, 40.0),
            (2.0, 10.0),
            (3.0, 10.0),
            (4.0, 40.0),
            (5.0, 10.0),
            (6.0, 10.0),
        ];
        assert_eq!(
            capacity_drops(&capacity),
            vec![
                CapacityDrop {
                    at: 2.0,
                    rate: 10.0,
                    until: 4.0
                },
                CapacityDrop {
                    at: 5.0,
                    rate: 10.0,
                    until: 6.0
                },
            ]
        );
        assert!(capacity_drops(&[(0.0, 5.0), (1.0, 6.0)]).is_empty());
        assert!(capacity_drops(&[]).is_empty());
    }

    #[test]
    fn first_where_stays_in_its_window_and_value_at_takes_the_next_sample() {
        let s = [
            (0.0, 40.0),
            (1.0, 30.0),
            (2.0, 12.0),
            (3.0, 10.0),
            (9.0, 10.0),
        ];
        let within = |v: f64| (v - 10.0).abs() <= 0.25 * 10.0;
        assert_eq!(first_where(&s, 1.0, 5.0, within), Some(2.0));
        assert_eq!(first_where(&s, 1.0, 2.0, within), None);
        assert_eq!(first_where(&s, 0.0, 9.0, |v| v == 10.0), Some(3.0));
        assert_eq!(value_at(&s, 1.5), 12.0);
        assert_eq!(value_at(&s, 3.0), 10.0);
        assert_eq!(value_at(&s, 20.0), 10.0);
        assert!(value_at(&[], 1.0).is_nan());
    }

    #[test]
    fn time_above_sums_sample_intervals_clipped_to_the_window() {
        let s = [
            (0.0, 1.0),
            (1.0, 5.0),
            (2.0, 5.0),
            (3.0, 1.0),
            (4.0, 5.0),
            (6.0, 1.0),
        ];
        assert_eq!(time_above(&s, 0.0, 10.0, 2.0), 4.0);
        assert_eq!(time_above(&s, 0.0, 5.0, 2.0), 3.0);
        assert_eq!(time_above(&s, 2.5, 10.0, 2.0), 2.0);
    }
}
