//! How quickly a flow takes up a capacity increase: the adaptive BBRv2
//! paper's Fig. 9 claim ("adaptive BBRv2 follows capacity changes as
//! quickly as BBR"), as the named measure `uptake_lag` of experiment
//! files.
//!
//! The capacity of a run is a step schedule, read from the bottleneck's
//! series (`capacity_bps`) as the instants it changes. After each rise, the
//! flow has taken the increase up at the first sample of its delivery rate
//! (means over `bin_s` intervals, which smooth a sample every 100 ms into a
//! readable rate) at or above `fraction` of the new capacity, before the
//! next step. The lag is the time from the rise to that sample; a rise
//! never taken up counts as its whole length (a lower bound of its lag).
//! A run's number is the mean over its rises.
//!
//! Why not a primitive: a first crossing (`first_crossing`) takes one
//! level from one instant, whereas this takes a level per step of a second
//! series, within the step, with a rule for the steps never reached.

use anyhow::Context;

use crate::reproduce::data::Runs;
use crate::reproduce::file::{at_param, number_param, Value};
use crate::stats::bin_mean;
use sim::{FlowColumn, LinkColumn};

/// The changes of a sampled capacity: `(time, new rate)`, starting with the
/// first sample.
fn capacity_steps(capacity: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut steps: Vec<(f64, f64)> = Vec::new();
    for &(t, c) in capacity {
        if steps.last().is_none_or(|&(_, last)| last != c) {
            steps.push((t, c));
        }
    }
    steps
}

/// How a rate followed one capacity increase.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Uptake {
    /// Seconds from the step to the first sample at or above the fraction
    /// of the new capacity; `None` when that did not happen before the
    /// next step.
    lag: Option<f64>,
    /// Seconds until the next step (or the end of the run).
    length: f64,
}

/// The uptake of every capacity increase by `rate` (samples at or after the
/// step and before the next one count).
fn uptakes(steps: &[(f64, f64)], rate: &[(f64, f64)], fraction: f64, end: f64) -> Vec<Uptake> {
    steps
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[1].1 > w[0].1)
        .map(|(i, w)| {
            let (at, capacity) = w[1];
            let until = steps.get(i + 2).map_or(end, |s| s.0);
            let lag = rate
                .iter()
                .find(|&&(t, v)| t >= at && t < until && v >= fraction * capacity)
                .map(|&(t, _)| t - at);
            Uptake {
                lag,
                length: until - at,
            }
        })
        .collect()
}

/// The mean uptake lag, an increase never taken up counting as its whole
/// length; `None` without an increase.
fn mean_lag(uptakes: &[Uptake]) -> Option<f64> {
    if uptakes.is_empty() {
        return None;
    }
    let total: f64 = uptakes.iter().map(|u| u.lag.unwrap_or(u.length)).sum();
    Some(total / uptakes.len() as f64)
}

/// `uptake_lag`: the mean lag (s) of flow 0's delivery rate (means over
/// `bin_s`, default 1 s) behind the capacity's rises, to `fraction`
/// (default 0.9) of the new capacity, per run; mean and sd over the runs
/// at `at`. Parameters: `fraction`, `bin_s`, `at`.
pub(crate) fn uptake_lag_measure(
    runs: &Runs,
    params: &toml::Table,
    _margin: f64,
    context: &[(String, String)],
) -> anyhow::Result<Value> {
    let fraction = number_param(params, "fraction", Some(0.9)).context("uptake_lag")?;
    let bin_s = number_param(params, "bin_s", Some(1.0)).context("uptake_lag")?;
    anyhow::ensure!(
        fraction > 0.0 && bin_s > 0.0,
        "uptake_lag: `fraction` and `bin_s` must be positive"
    );
    let at = at_param(params, context);
    let fixed: Vec<(&str, &str)> = at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Ok(Value::Stat(runs.over_seeds(&fixed, |record| {
        let flows = runs.flow_rows(record).ok()?;
        let link = runs.link_rows(record).ok()?;
        let steps = capacity_steps(&LinkColumn::CapacityBps.points(&link));
        let rate = bin_mean(&FlowColumn::DeliveryRateBps.points(&flows, 0), bin_s);
        let end = record.result().map_or(f64::INFINITY, |r| r.sim_time_s);
        mean_lag(&uptakes(&steps, &rate, fraction, end))
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_the_changes_of_the_capacity() {
        let capacity = [(0.0, 5.0), (0.1, 5.0), (0.2, 4.0), (0.3, 4.0), (0.4, 5.0)];
        assert_eq!(
            capacity_steps(&capacity),
            vec![(0.0, 5.0), (0.2, 4.0), (0.4, 5.0)]
        );
        assert!(capacity_steps(&[]).is_empty());
    }

    #[test]
    fn uptakes_measure_each_rise_until_the_next_step() {
        // 250 -> 300 at 10 s, -> 200 at 20 s (a fall: ignored), -> 350 at 30 s; end 40 s.
        let steps = [(0.0, 250.0), (10.0, 300.0), (20.0, 200.0), (30.0, 350.0)];
        let rate = [
            (9.5, 250.0),
            (10.5, 260.0),
            (12.5, 275.0), // >= 270 (90% of 300): taken up 2.5 s after the rise
            (21.5, 200.0),
            (30.5, 300.0), // never >= 315 before the end
            (39.5, 310.0),
        ];
        let u = uptakes(&steps, &rate, 0.9, 40.0);
        assert_eq!(
            u,
            vec![
                Uptake {
                    lag: Some(2.5),
                    length: 10.0
                },
                Uptake {
                    lag: None,
                    length: 10.0
                },
            ]
        );
        // The missed rise counts as its whole 10 s.
        assert_eq!(mean_lag(&u), Some(6.25));
        assert_eq!(mean_lag(&[]), None);
    }

    #[test]
    fn a_late_uptake_belongs_to_the_next_step_only() {
        let steps = [(0.0, 200.0), (10.0, 300.0), (20.0, 400.0)];
        // Reaches 270 only after the next rise began: the first is missed.
        let rate = [(15.0, 250.0), (21.0, 380.0)];
        let lags: Vec<Option<f64>> = uptakes(&steps, &rate, 0.9, 30.0)
            .iter()
            .map(|u| u.lag)
            .collect();
        assert_eq!(lags, vec![None, Some(1.0)]);
    }
}
