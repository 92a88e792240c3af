//! The league's scores, each defined once: what it measures, its unit,
//! which way is better, and where it comes from in a run's summary
//! (summary.json, `output::summary`), read as the simulator's
//! [`sim::RunResult`].
//!
//! A condition names the scores that apply to it (`[league] scores`);
//! every score is computed on the *subject* flows (those whose controller
//! the league varies) unless it says otherwise:
//!
//! | name | unit | better | definition |
//! |---|---|---|---|
//! | `goodput` | share of capacity | higher | sum of the subject flows' `goodput_bps` / `link.capacity_bps` (the link's mean capacity over the measured time) |
//! | `retx` | % | lower | 100 x sum of the subject flows' `bytes_retransmitted` / sum of their `bytes_delivered` (the oBBR paper's retransmission ratio) |
//! | `delay` | ms | lower | the p95 queueing delay of the bottleneck, `link.queue_delay_ms.p95` (every flow's packets wait in the one queue) |
//! | `jain` | index in (0, 1] | higher | Jain's index over every flow's goodput, `jain_index` |
//! | `harm` | share | lower | harm of the subject flows on the others (Ware et al.): (others' goodput alone - others' goodput beside the subjects) / others' goodput alone, the "alone" run being the same scenario and seed without the subject flows; clamped at 0 |
//! | `frame_delay` | ms | lower | the worst subject flow's p95 frame delay of a live stream, `live.frame_delay_ms.p95` |
//! | `startup` | share | higher | the share of subject flows that left Startup for good within the run (`startup_exit_s` not null); the BBR-Copilot paper's Startup-exit ratio. Not defined for controllers without a Startup (CUBIC, Reno: `startup_peak_pacing_bps` null) |
//! | `qoe` | Mbit/s | higher | the subject DASH sessions' mean QoE_lin (`dash.qoe_lin`: segment bitrates - 4.3 x stall seconds - bitrate changes) |
//! | `share` | share | higher | the subject flows' goodput / every flow's goodput: what they take of what the flows get (1 with no other flows); goal files read it (Tempered BBR's goal 2b: where BBRv1 takes at most 60 %) |
//!
//! A score that cannot be computed (a controller without Startup, a run
//! without live frames) is NaN: left out of means and rankings, never 0.

use std::fmt;
use std::str::FromStr;

use sim::{FlowSummary, RunResult};

/// One score of the league.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Score {
    /// Subject goodput as a share of capacity.
    Goodput,
    /// Retransmitted / delivered bytes of the subject flows, %.
    Retx,
    /// p95 queueing delay at the bottleneck, ms.
    Delay,
    /// Jain's index over every flow's goodput.
    Jain,
    /// Harm of the subject flows on the others.
    Harm,
    /// p95 frame delay of the subject live streams, ms.
    FrameDelay,
    /// Share of subject flows that left Startup.
    Startup,
    /// QoE_lin of the subject DASH sessions, Mbit/s.
    Qoe,
    /// The subject flows' share of every flow's goodput.
    Share,
}

impl Score {
    /// Every score, in the order tables show them.
    pub const ALL: [Score; 9] = [
        Score::Goodput,
        Score::Retx,
        Score::Delay,
        Score::Jain,
        Score::Harm,
        Score::FrameDelay,
        Score::Startup,
        Score::Qoe,
        Score::Share,
    ];

    /// The name in condition files, `--weights` and the scores table.
    pub fn name(self) -> &'static str {
        match self {
            Score::Goodput => "goodput",
            Score::Retx => "retx",
            Score::Delay => "delay",
            Score::Jain => "jain",
            Score::Harm => "harm",
            Score::FrameDelay => "frame_delay",
            Score::Startup => "startup",
            Score::Qoe => "qoe",
            Score::Share => "share",
        }
    }

    /// A label with the unit, for tables and axes.
    pub fn label(self) -> &'static str {
        match self {
            Score::Goodput => "goodput (share of capacity)",
            Score::Retx => "retransmissions (%)",
            Score::Delay => "p95 queueing delay (ms)",
            Score::Jain => "Jain's index",
            Score::Harm => "harm to cross traffic",
            Score::FrameDelay => "p95 frame delay (ms)",
            Score::Startup => "Startup exit ratio",
            Score::Qoe => "DASH QoE_lin (Mbit/s)",
            Score::Share => "share of the flows' goodput",
        }
    }

    /// Whether a higher value is better.
    pub fn higher_is_better(self) -> bool {
        matches!(
            self,
            Score::Goodput | Score::Jain | Score::Startup | Score::Qoe | Score::Share
        )
    }

    /// Its weight in the indices unless `--weights` says otherwise: 2 for
    /// an application's primary outcome (goodput, frame delay, QoE), 1
    /// for the others (see [`super::rank`]).
    pub fn default_weight(self) -> f64 {
        match self {
            Score::Goodput | Score::FrameDelay | Score::Qoe => 2.0,
            _ => 1.0,
        }
    }

    /// Decimals to show.
    pub fn decimals(self) -> u8 {
        match self {
            Score::Delay | Score::FrameDelay | Score::Qoe => 1,
            _ => 3,
        }
    }

    /// The score of one run: `run` its summary, `subjects` the subject
    /// flows' ids, `alone` the summary of the same scenario and seed
    /// without the subject flows (for [`Score::Harm`]).
    pub fn of(self, run: &RunResult, subjects: &[usize], alone: Option<&RunResult>) -> f64 {
        let is_subject = |f: &&FlowSummary| subjects.contains(&f.id);
        let subject = || run.flows.iter().filter(is_subject);
        let sum = |value: fn(&FlowSummary) -> f64| subject().map(value).sum::<f64>();
        let goodput = |r: &RunResult| r.flows.iter().map(|f| f.goodput_bps).sum::<f64>();
        match self {
            Score::Goodput => sum(|f| f.goodput_bps) / run.link.capacity_bps,
            Score::Retx => {
                100.0 * sum(|f| f.bytes_retransmitted as f64) / sum(|f| f.bytes_delivered as f64)
            }
            Score::Delay => run.link.queue_delay_ms.p95,
            Score::Jain => run.jain_index,
            Score::Harm => {
                let beside: f64 = run
                    .flows
                    .iter()
                    .filter(|f| !is_subject(f))
                    .map(|f| f.goodput_bps)
                    .sum();
                crate::stats::harm(alone.map_or(f64::NAN, goodput), beside)
            }
            Score::FrameDelay => subject()
                .map(|f| f.live.as_ref().map_or(f64::NAN, |l| l.frame_delay_ms.p95))
                .fold(f64::NAN, f64::max),
            Score::Startup => {
                // A controller with a Startup records its peak pacing
                // rate there; one without (CUBIC, Reno) records null.
                let has_startup: Vec<bool> = subject()
                    .filter(|f| f.startup_peak_pacing_bps.is_some())
                    .map(|f| f.startup_exit_s.is_some())
                    .collect();
                if has_startup.is_empty() {
                    f64::NAN
                } else {
                    has_startup.iter().filter(|&&e| e).count() as f64 / has_startup.len() as f64
                }
            }
            Score::Qoe => {
                let q: Vec<f64> = subject()
                    .map(|f| f.dash.as_ref().map_or(f64::NAN, |d| d.qoe_lin))
                    .collect();
                crate::stats::mean_sd(&q).0
            }
            Score::Share => sum(|f| f.goodput_bps) / goodput(run),
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Score {
    type Err = String;

    fn from_str(s: &str) -> Result<Score, String> {
        Score::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| format!("unknown score `{s}`; the scores are {}", names()))
    }
}

/// The score names, comma-separated, for messages.
pub fn names() -> String {
    Score::ALL
        .iter()
        .map(|s| s.name())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of three flows (two BBR, one CUBIC) on a 10 Mbit/s link,
    /// its numbers then set by `set`.
    fn run(set: impl FnOnce(&mut RunResult)) -> RunResult {
        let mut r = sim::Simulation::new(
            sim::Dumbbell::new(
                cc::Bandwidth::from_mbps(10),
                std::time::Duration::from_millis(20),
            )
            .duration(std::time::Duration::from_millis(300))
            .flow("bbr")
            .unwrap()
            .flow("bbr")
            .unwrap()
            .flow("cubic")
            .unwrap()
            .build(),
        )
        .run();
        r.link.capacity_bps = 10e6;
        r.link.queue_delay_ms.p95 = 12.5;
        r.jain_index = 0.8;
        set(&mut r);
        r
    }

    #[test]
    fn scores_read_the_subject_flows_of_a_summary() {
        let r = run(|r| {
            let flows = &mut r.flows;
            for (f, (goodput, retx, delivered)) in
                flows
                    .iter_mut()
                    .zip([(6e6, 10, 1000), (3e6, 0, 500), (0.0, 0, 0)])
            {
                f.goodput_bps = goodput;
                f.bytes_retransmitted = retx;
                f.bytes_delivered = delivered;
                f.live = None;
                f.dash = None;
            }
            (flows[0].startup_exit_s, flows[0].startup_peak_pacing_bps) = (Some(0.5), Some(2e7));
            (flows[1].startup_exit_s, flows[1].startup_peak_pacing_bps) = (None, Some(2e7));
            (flows[2].startup_exit_s, flows[2].startup_peak_pacing_bps) = (None, None);
        });
        let alone = run(|r| {
            r.flows.truncate(1);
            r.flows[0].goodput_bps = 9e6;
        });
        assert_eq!(Score::Goodput.of(&r, &[0], None), 0.6);
        assert_eq!(Score::Goodput.of(&r, &[0, 1], None), 0.9);
        assert_eq!(Score::Retx.of(&r, &[0], None), 1.0);
        assert_eq!(Score::Delay.of(&r, &[0], None), 12.5);
        assert_eq!(Score::Jain.of(&r, &[0], None), 0.8);
        // Flow 1 (cross traffic) has 3 of the 9 Mbit/s it had alone.
        assert!((Score::Harm.of(&r, &[0], Some(&alone)) - 2.0 / 3.0).abs() < 1e-12);
        assert!(Score::Harm.of(&r, &[0], None).is_nan());
        assert_eq!(Score::Startup.of(&r, &[0, 1], None), 0.5);
        // Flow 2 has no Startup (a CUBIC): no value, not 0.
        assert!(Score::Startup.of(&r, &[2], None).is_nan());
        assert!(Score::FrameDelay.of(&r, &[0], None).is_nan());
        assert!(Score::Qoe.of(&r, &[0], None).is_nan());
        // Flow 0 takes 6 of the flows' 9 Mbit/s.
        assert!((Score::Share.of(&r, &[0], None) - 6.0 / 9.0).abs() < 1e-12);
    }

    #[test]
    fn names_round_trip_and_unknown_ones_list_the_scores() {
        for s in Score::ALL {
            assert_eq!(s.name().parse::<Score>().unwrap(), s);
        }
        let e = "latency".parse::<Score>().unwrap_err();
        assert!(
            e.contains("unknown score `latency`") && e.contains("goodput, retx"),
            "{e}"
        );
    }
}
