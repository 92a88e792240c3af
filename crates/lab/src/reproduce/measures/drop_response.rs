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
//! - `peak_rtt`: the highest RTT sample (ms) within the low period.
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
use crate::stats::Stat;
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

/// Seconds from `start` to the first sample in `[start, end)` within
/// `tolerance` (relative) of `target`; `None` if none is.
pub(crate) fn time_to_reach(
    series: &[(f64, f64)],
    start: f64,
    end: f64,
    target: f64,
    tolerance: f64,
) -> Option<f64> {
    series
        .iter()
        .filter(|(t, _)| *t >= start && *t < end)
        .find(|(_, v)| (v - target).abs() <= tolerance * target)
        .map(|(t, _)| t - start)
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
}

/// The measure's parameters.
#[derive(Clone, Copy, Debug)]
struct Params {
    gives: Gives,
    /// How close (relative) to the new rate the estimate must come.
    within: f64,
    /// The multiple of the base RTT above which an RTT sample is inflated.
    rtt_above: f64,
}

/// One value per capacity drop of a run (`None`: the run has no series or
/// no base RTT).
fn per_drop(runs: &Runs, record: &RunRecord, p: Params) -> Option<Vec<f64>> {
    let flows = runs.flow_rows(record).ok()?;
    let link = runs.link_rows(record).ok()?;
    let base_rtt = record.result().ok()?.flows.first()?.base_rtt_ms;
    let drops = capacity_drops(&LinkColumn::CapacityBps.points(&link));
    Some(match p.gives {
        Gives::Lag => {
            let estimate = FlowColumn::BwEstimateBps.points(&flows, 0);
            drops
                .iter()
                .map(|d| {
                    time_to_reach(&estimate, d.at, d.until, d.rate, p.within)
                        .unwrap_or(d.until - d.at)
                })
                .collect()
        }
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
    })
}

/// The named measure: parameters `gives` (`"lag"`, `"inflated"`,
/// `"peak_rtt"`), `within` (0.25), `rtt_above` (2.5), `at`, `among`.
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
        _ => anyhow::bail!("drop_response: `gives` must be \"lag\", \"inflated\" or \"peak_rtt\""),
    };
    let p = Params {
        gives,
        within: number_param(params, "within", Some(0.25)).context("drop_response")?,
        rtt_above: number_param(params, "rtt_above", Some(2.5)).context("drop_response")?,
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
            values.extend(per_drop(runs, record, p).unwrap_or_default());
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
    fn time_to_reach_stays_in_its_window() {
        let s = [
            (0.0, 40.0),
            (1.0, 30.0),
            (2.0, 12.0),
            (3.0, 10.0),
            (9.0, 10.0),
        ];
        assert_eq!(time_to_reach(&s, 1.0, 5.0, 10.0, 0.25), Some(1.0));
        assert_eq!(time_to_reach(&s, 1.0, 2.0, 10.0, 0.25), None);
        assert_eq!(time_to_reach(&s, 0.0, 9.0, 10.0, 0.0), Some(3.0));
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
