//! `sample_runs`: a BBR flow's delivery-rate and RTT samples one by one
//! (the oBBR paper's Fig. 5, §4.2): how many are low, the lowest, and the
//! longest runs of consecutive low bandwidth samples or high RTT samples,
//! which oBBR's drop detector counts up to k = 30.
//!
//! The paper counts per-ACK samples. Our series holds the latest sample at
//! every `sample_interval`; sampled below the time between ACKs, a row
//! counts as a new sample only when the latest delivery-rate or RTT sample
//! changed. Samples before `from_s` are left out.
//!
//! Runs are counted over every sample (`view = "all"`) or as oBBR's
//! detector counts them (`"detector"`, the default): ProbeBW samples only,
//! ProbeRTT and the other modes starting a run over, and samples of the
//! first round of ProbeBW (before two min_rtts in it) neither extending
//! nor breaking a run. Per run, `gives`:
//!
//! - `share_below`: the share of the samples below `below` x the link's
//!   first capacity;
//! - `lowest`: the lowest sample over that capacity;
//! - `low_run`: the longest run of samples below `fraction` x the
//!   bandwidth estimate;
//! - `high_rtt_run`: the longest run of RTT samples above `multiple` x the
//!   min-RTT estimate;
//! - `samples`: how many samples the view counts;
//! - `left_out`: the share of the samples from the end of Drain on (the
//!   first `from_s` included) that the detector does not count.
//!
//! Mean and sd over the runs at `at`. Why not a primitive: the samples are
//! the series' distinct values, not its rows, and a run is a count along
//! them that the flow's mode breaks.

use anyhow::Context;

use crate::reproduce::data::Runs;
use crate::reproduce::file::{at_param, number_param, Value};
use crate::stats::Stat;
use crate::store::RunRecord;
use sim::FlowSample;

/// One delivery-rate / RTT sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Sample {
    t: f64,
    /// Delivery rate and the bandwidth estimate, bit/s.
    rate: f64,
    estimate: f64,
    /// RTT sample and the min-RTT estimate, ms.
    rtt: f64,
    min_rtt: f64,
    /// In ProbeBW, at least two min_rtts after entering it: the samples
    /// oBBR's drop detector counts (a packet sent a min_rtt into ProbeBW,
    /// acknowledged a round later).
    probe_bw: bool,
    /// In another mode (Startup, Drain, ProbeRTT): oBBR's detector starts
    /// its runs over there.
    other_mode: bool,
}

/// The distinct samples of flow 0's series: a row is a new sample when
/// its delivery rate or RTT differs from the previous row's. Rows before
/// the first delivery-rate sample are skipped.
pub(crate) fn samples(rows: &[FlowSample]) -> Vec<Sample> {
    let mut out = Vec::new();
    let mut previous: Option<(f64, f64)> = None;
    let mut probe_bw_since: Option<f64> = None;
    for row in rows.iter().filter(|r| r.flow == 0) {
        let t = row.t_s;
        let mode = row.mode;
        if mode == "probe_bw" {
            probe_bw_since.get_or_insert(t);
        } else {
            probe_bw_since = None;
        }
        let key = (row.delivery_rate_bps, row.latest_rtt_ms);
        if previous == Some(key) || key.0 <= 0.0 {
            previous = Some(key);
            continue;
        }
        previous = Some(key);
        let settled = probe_bw_since.is_some_and(|s| t >= s + 2.0 * row.min_rtt_ms / 1e3);
        out.push(Sample {
            t,
            rate: key.0,
            estimate: row.bw_estimate_bps,
            rtt: key.1,
            min_rtt: row.min_rtt_ms,
            probe_bw: settled,
            other_mode: mode != "probe_bw",
        });
    }
    out
}

/// Which samples a run counts.
#[derive(Clone, Copy, Debug, PartialEq)]
enum View {
    /// Every sample.
    All,
    /// As oBBR's detector: ProbeBW samples only; other modes break a run,
    /// ProbeBW samples too early to count neither extend nor break it.
    Detector,
}

/// The longest run of consecutive samples meeting `hit`.
fn longest_run(samples: &[Sample], view: View, hit: impl Fn(&Sample) -> bool) -> usize {
    let (mut best, mut current) = (0, 0);
    for s in samples {
        if view == View::Detector {
            if s.other_mode {
                current = 0;
                continue;
            }
            if !s.probe_bw {
                continue;
            }
        }
        if hit(s) {
            current += 1;
            best = best.max(current);
        } else {
            current = 0;
        }
    }
    best
}

/// What the measure gives per run.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Gives {
    ShareBelow(f64),
    Lowest,
    LowRun(f64),
    HighRttRun(f64),
    Samples,
    LeftOut,
}

/// One run's number (`None`: no series, or no sample counted).
fn of_run(runs: &Runs, record: &RunRecord, gives: Gives, view: View, from_s: f64) -> Option<f64> {
    let rows = runs.flow_rows(record).ok()?;
    let all = samples(&rows);
    let first = all.iter().position(|s| s.t >= from_s).unwrap_or(all.len());
    let counted: Vec<&Sample> = all[first..]
        .iter()
        .filter(|s| view == View::All || s.probe_bw)
        .collect();
    let capacity = || -> Option<f64> {
        let link = runs.link_rows(record).ok()?;
        sim::LinkColumn::CapacityBps
            .points(&link)
            .first()
            .map(|p| p.1)
            .filter(|c| *c > 0.0)
    };
    Some(match gives {
        Gives::ShareBelow(below) => {
            let capacity = capacity()?;
            let low = counted.iter().filter(|s| s.rate / capacity < below).count();
            low as f64 / counted.len().max(1) as f64
        }
        Gives::Lowest => {
            let capacity = capacity()?;
            counted.iter().map(|s| s.rate / capacity).reduce(f64::min)?
        }
        Gives::LowRun(fraction) => {
            longest_run(&all[first..], view, |s| s.rate < fraction * s.estimate) as f64
        }
        Gives::HighRttRun(multiple) => longest_run(&all[first..], view, |s| {
            s.min_rtt > 0.0 && s.rtt > multiple * s.min_rtt
        }) as f64,
        Gives::Samples => counted.len() as f64,
        Gives::LeftOut => {
            let after_drain = all.iter().position(|s| !s.other_mode).unwrap_or(all.len());
            let in_probe_bw = all[first..].iter().filter(|s| s.probe_bw).count();
            1.0 - in_probe_bw as f64 / (all.len() - after_drain).max(1) as f64
        }
    })
}

/// The named measure: parameters `gives` (`"share_below"` with `below`,
/// `"lowest"`, `"low_run"` with `fraction`, `"high_rtt_run"` with
/// `multiple`, `"samples"`, `"left_out"`), `view` (`"detector"` or
/// `"all"`), `from_s` (5), `at`.
pub(crate) fn sample_runs(
    runs: &Runs,
    params: &toml::Table,
    _margin: f64,
    context: &[(String, String)],
) -> anyhow::Result<Value> {
    let number = |key: &str| number_param(params, key, None).context("sample_runs");
    let gives = match params.get("gives").and_then(toml::Value::as_str) {
        Some("share_below") => Gives::ShareBelow(number("below")?),
        Some("lowest") => Gives::Lowest,
        Some("low_run") => Gives::LowRun(number("fraction")?),
        Some("high_rtt_run") => Gives::HighRttRun(number("multiple")?),
        Some("samples") => Gives::Samples,
        Some("left_out") => Gives::LeftOut,
        _ => anyhow::bail!(
            "sample_runs: `gives` must be \"share_below\", \"lowest\", \"low_run\", \
             \"high_rtt_run\", \"samples\" or \"left_out\""
        ),
    };
    let view = match params.get("view").map(toml::Value::as_str) {
        None | Some(Some("detector")) => View::Detector,
        Some(Some("all")) => View::All,
        _ => anyhow::bail!("sample_runs: `view` must be \"detector\" or \"all\""),
    };
    let from_s = number_param(params, "from_s", Some(5.0)).context("sample_runs")?;
    let at = at_param(params, context);
    let fixed: Vec<(&str, &str)> = at.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let values: Vec<f64> = runs
        .select(&fixed)
        .into_iter()
        .filter_map(|r| of_run(runs, r, gives, view, from_s))
        .collect();
    Ok(Value::Stat(Stat::of(&values)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::measures::flow_sample;

    fn sample(rate: f64, probe_bw: bool, other_mode: bool) -> Sample {
        Sample {
            t: 0.0,
            rate,
            estimate: 10.0,
            rtt: 100.0,
            min_rtt: 100.0,
            probe_bw,
            other_mode,
        }
    }

    #[test]
    fn runs_follow_the_detector_view() {
        let s = [
            sample(1.0, true, false),
            sample(1.0, true, false),
            sample(1.0, false, false), // too early in ProbeBW: skipped
            sample(1.0, true, false),
            sample(1.0, false, true), // ProbeRTT: breaks the run
            sample(1.0, true, false),
            sample(9.0, true, false),
        ];
        let low = |s: &Sample| s.rate < 0.75 * s.estimate;
        assert_eq!(longest_run(&s, View::All, low), 6);
        assert_eq!(longest_run(&s, View::Detector, low), 3);
    }

    #[test]
    fn repeated_rows_count_once() {
        let row = |t, mode, rate, rtt| FlowSample {
            delivery_rate_bps: rate,
            bw_estimate_bps: 10.0,
            latest_rtt_ms: rtt,
            min_rtt_ms: 100.0,
            ..flow_sample(t, 0, mode)
        };
        let rows = [
            FlowSample {
                min_rtt_ms: 0.0,
                bw_estimate_bps: 0.0,
                ..flow_sample(0.0, 0, "startup")
            },
            row(0.1, "probe_bw", 5.0, 100.0),
            row(0.2, "probe_bw", 5.0, 100.0),
            row(0.3, "probe_bw", 5.0, 101.0),
            row(0.4, "probe_bw", 6.0, 101.0),
            // Another flow's rows are not flow 0's samples.
            FlowSample {
                flow: 1,
                ..row(0.4, "probe_bw", 7.0, 102.0)
            },
        ];
        let s = samples(&rows);
        assert_eq!(s.len(), 3);
        assert!(!s[0].probe_bw, "first round of ProbeBW");
        assert!(s[2].probe_bw, "two min_rtts into ProbeBW");
    }
}
