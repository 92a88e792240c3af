//! Cross-validation: the same scenario simulated and emulated (real
//! s2n-quic through the real-time emulator), compared on what the papers
//! measure.
//!
//! The checks and their tolerances, fixed before any run:
//!
//! - goodput: emulated within [`GOODPUT_TOLERANCE`] (10%) of simulated, the
//!   issue's bound: the emulated stack differs in ACK frequency (s2n-quic
//!   acknowledges about every tenth packet, the simulator every second),
//!   handshake time and header sizes, which cost a few percent;
//! - retransmission order: for every pair of controllers whose simulated
//!   retransmission ratios differ by more than [`RETX_ORDER_MARGIN`]
//!   (0.5 percentage points), the emulated ratios are in the same order.
//!   Pairs closer than that are not ordered by the simulator either (seeds
//!   move them by about that much), so they are not judged;
//! - paper effects: on a buffer below one BDP, BBRv1 retransmits more than
//!   CUBIC (the problem all five papers start from) and oBBR retransmits
//!   less than BBRv1 (oBBR's claim): where the simulator shows an effect,
//!   the emulation must show it in the same direction.
//!
//! Every check compares one simulated run with one emulated run, both at
//! the scenario's seed. Where a controller draws at random (BBRv1 picks its
//! ProbeBW phase), one run is one sample: on a variable link the seed alone
//! can move goodput by more than the stack does. [`Repeats`] adds the
//! spread over more seeds and more emulated runs beside the checked pair,
//! so a difference can be read against it; the checks do not use it.

use std::path::Path;

use serde::Serialize;
use sim::RunResult;

use crate::emulate::{self, EmulateOptions};

/// Largest relative goodput difference accepted.
pub const GOODPUT_TOLERANCE: f64 = 0.10;
/// Smallest simulated retransmission-ratio difference (as a fraction)
/// that orders two controllers.
pub const RETX_ORDER_MARGIN: f64 = 0.005;

/// How many runs besides the checked pair measure the spread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Repeats {
    /// Simulated runs, at the scenario's seed and then seeds derived from
    /// it (a simulated run is deterministic: one per seed).
    pub sim_seeds: usize,
    /// Emulated runs, at the same seeds in the same order (real time: each
    /// costs the scenario's duration).
    pub emu_runs: usize,
}

impl Repeats {
    /// The checked pair alone.
    pub const NONE: Repeats = Repeats {
        sim_seeds: 1,
        emu_runs: 1,
    };

    /// The seed of run `k` of a scenario seeded `seed` (run 0 is the
    /// scenario's own).
    pub fn seed(seed: u64, k: usize) -> u64 {
        if k == 0 {
            seed
        } else {
            sim::derive_seed(seed, k as u64)
        }
    }
}

/// Goodput of one controller over several runs.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Spread {
    /// Runs measured.
    pub runs: usize,
    /// Lowest goodput, bits per second.
    pub min_bps: f64,
    /// Mean goodput, bits per second.
    pub mean_bps: f64,
    /// Highest goodput, bits per second.
    pub max_bps: f64,
}

impl Spread {
    /// The spread of `goodputs` (bits per second); None if empty.
    pub fn of(goodputs: &[f64]) -> Option<Spread> {
        if goodputs.is_empty() {
            return None;
        }
        Some(Spread {
            runs: goodputs.len(),
            min_bps: goodputs.iter().copied().fold(f64::INFINITY, f64::min),
            mean_bps: goodputs.iter().sum::<f64>() / goodputs.len() as f64,
            max_bps: goodputs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }

    fn cell(&self) -> String {
        format!(
            "{:.2}-{:.2} (mean {:.2}, {})",
            self.min_bps / 1e6,
            self.max_bps / 1e6,
            self.mean_bps / 1e6,
            self.runs
        )
    }
}

/// One controller on one scenario, both ways.
#[derive(Clone, Debug, Serialize)]
pub struct Pair {
    /// The scenario's name.
    pub scenario: String,
    /// The controller's spec.
    pub cc: String,
    /// Simulated goodput of flow 0, bits per second.
    pub sim_goodput_bps: f64,
    /// Emulated goodput of flow 0, bits per second.
    pub emu_goodput_bps: f64,
    /// Simulated retransmission ratio.
    pub sim_retx: f64,
    /// Emulated retransmission ratio.
    pub emu_retx: f64,
    /// Simulated median RTT, ms.
    pub sim_rtt_p50_ms: f64,
    /// Emulated median RTT, ms.
    pub emu_rtt_p50_ms: f64,
    /// Simulated goodput over [`Repeats::sim_seeds`] seeds, the checked
    /// run's first.
    pub sim_spread: Spread,
    /// Emulated goodput over [`Repeats::emu_runs`] runs, the checked run's
    /// first.
    pub emu_spread: Spread,
}

impl Pair {
    /// (emulated - simulated) / simulated goodput.
    pub fn goodput_error(&self) -> f64 {
        (self.emu_goodput_bps - self.sim_goodput_bps) / self.sim_goodput_bps.max(1.0)
    }
}

/// Runs `file` with each of `controllers` as its first flow's controller,
/// simulated and emulated, at the scenario's seed; `repeats` adds the
/// spread over more seeds and runs (at least the checked run each way).
///
/// # Errors
/// The scenario does not load, or an emulation failed.
pub fn compare(file: &Path, controllers: &[&str], repeats: Repeats) -> Result<Vec<Pair>, String> {
    let mut pairs = Vec::new();
    for cc in controllers {
        let overrides = [scenario::Override::new("flow.0.cc", *cc)];
        let scenario = scenario::load(file, &overrides).map_err(|e| e.to_string())?;
        let mut config = scenario.config.clone();
        config.record_series = false;
        let seeded = |k: usize| {
            let mut c = config.clone();
            c.seed = Repeats::seed(config.seed, k);
            c
        };
        let simulated: Vec<RunResult> = (0..repeats.sim_seeds.max(1))
            .map(|k| sim::Simulation::new(seeded(k)).run())
            .collect();
        let emulated = (0..repeats.emu_runs.max(1))
            .map(|k| emulate::run(&seeded(k), &EmulateOptions::default()))
            .collect::<Result<Vec<RunResult>, String>>()?;
        pairs.push(pair(&scenario.name, cc, &simulated, &emulated));
    }
    Ok(pairs)
}

/// The pair of the first runs, with the spread of all.
fn pair(scenario: &str, cc: &str, simulated: &[RunResult], emulated: &[RunResult]) -> Pair {
    let goodputs = |runs: &[RunResult]| {
        let all: Vec<f64> = runs.iter().map(|r| r.flows[0].goodput_bps).collect();
        Spread::of(&all).expect("at least one run each way")
    };
    let (s, e) = (&simulated[0].flows[0], &emulated[0].flows[0]);
    Pair {
        scenario: scenario.to_string(),
        cc: cc.to_string(),
        sim_goodput_bps: s.goodput_bps,
        emu_goodput_bps: e.goodput_bps,
        sim_retx: s.retransmission_ratio,
        emu_retx: e.retransmission_ratio,
        sim_rtt_p50_ms: s.rtt_ms.p50,
        emu_rtt_p50_ms: e.rtt_ms.p50,
        sim_spread: goodputs(simulated),
        emu_spread: goodputs(emulated),
    }
}

/// Every check the pairs of one scenario fail, described; empty if all hold.
pub fn failures(pairs: &[Pair], shallow_buffer: bool) -> Vec<String> {
    let mut failed = Vec::new();
    for p in pairs {
        if p.goodput_error().abs() > GOODPUT_TOLERANCE {
            failed.push(format!(
                "{} {}: goodput emulated {:.2} vs simulated {:.2} Mbit/s ({:+.1}%, tolerance 10%)",
                p.scenario,
                p.cc,
                p.emu_goodput_bps / 1e6,
                p.sim_goodput_bps / 1e6,
                p.goodput_error() * 100.0
            ));
        }
    }
    for (i, a) in pairs.iter().enumerate() {
        for b in &pairs[i + 1..] {
            let sim = a.sim_retx - b.sim_retx;
            if sim.abs() <= RETX_ORDER_MARGIN {
                continue;
            }
            if (a.emu_retx - b.emu_retx).signum() != sim.signum() {
                failed.push(format!(
                    "{}: retransmissions of {} vs {}: simulated {:.2}% vs {:.2}%, emulated {:.2}% vs {:.2}% (order differs)",
                    a.scenario,
                    a.cc,
                    b.cc,
                    a.sim_retx * 100.0,
                    b.sim_retx * 100.0,
                    a.emu_retx * 100.0,
                    b.emu_retx * 100.0
                ));
            }
        }
    }
    if shallow_buffer {
        let find = |cc: &str| pairs.iter().find(|p| p.cc == cc);
        for (more, less, effect) in [
            (
                "bbr",
                "cubic",
                "BBRv1 retransmits more than CUBIC on a shallow buffer",
            ),
            (
                "bbr",
                "obbr",
                "oBBR retransmits less than BBRv1 on a shallow buffer",
            ),
        ] {
            let (Some(m), Some(l)) = (find(more), find(less)) else {
                continue;
            };
            let sim_shows = m.sim_retx > l.sim_retx;
            let emu_shows = m.emu_retx > l.emu_retx;
            if sim_shows && !emu_shows {
                failed.push(format!(
                    "{}: {effect} in the simulator ({:.2}% vs {:.2}%) but not emulated ({:.2}% vs {:.2}%)",
                    m.scenario,
                    m.sim_retx * 100.0,
                    l.sim_retx * 100.0,
                    m.emu_retx * 100.0,
                    l.emu_retx * 100.0
                ));
            }
        }
    }
    failed
}

/// The spread columns as a markdown table (goodput in Mbit/s: lowest to
/// highest, mean, runs), for pairs measured with [`Repeats`].
pub fn spread_markdown(pairs: &[Pair]) -> String {
    let mut out = String::from(
        "| scenario | cc | goodput sim (seeds) | goodput emu (runs) | diff of means |\n\
         |---|---|---:|---:|---:|\n",
    );
    for p in pairs {
        let diff = (p.emu_spread.mean_bps - p.sim_spread.mean_bps) / p.sim_spread.mean_bps.max(1.0);
        out += &format!(
            "| {} | {} | {} | {} | {:+.1}% |\n",
            p.scenario,
            p.cc,
            p.sim_spread.cell(),
            p.emu_spread.cell(),
            diff * 100.0
        );
    }
    out
}

/// The pairs as a markdown table.
pub fn markdown(pairs: &[Pair]) -> String {
    let mut out = String::from(
        "| scenario | cc | goodput sim | goodput emu | diff | retx sim | retx emu | RTT p50 sim | RTT p50 emu |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for p in pairs {
        out += &format!(
            "| {} | {} | {:.2} | {:.2} | {:+.1}% | {:.2}% | {:.2}% | {:.1} | {:.1} |\n",
            p.scenario,
            p.cc,
            p.sim_goodput_bps / 1e6,
            p.emu_goodput_bps / 1e6,
            p.goodput_error() * 100.0,
            p.sim_retx * 100.0,
            p.emu_retx * 100.0,
            p.sim_rtt_p50_ms,
            p.emu_rtt_p50_ms
        );
    }
    out
}
