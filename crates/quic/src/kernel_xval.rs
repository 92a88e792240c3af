//! The simulator against the Linux kernel's TCP: the same scenario run by
//! the simulator's controllers and by the kernel's, through the shell's
//! emulated link, compared on what the papers measure.
//!
//! # What is compared
//!
//! Each [`Condition`] is a scenario file of scenarios/kernel-xval/ with
//! overrides (a buffer, a loss rate, an RTT), taken from a figure of the
//! papers: oBBR Fig. 7 (single flows at 40 Mbit/s, 100 ms, R x BDP with the
//! 100 KB token bucket), oBBR Fig. 4 (20 -> 5 Mbit/s), BBR-CWS Fig. 13 (one
//! BBR and one CUBIC flow sharing 50 Mbit/s) and Drucker et al. (BBR at 2%
//! random loss). A condition runs one or more *line-ups*: the controllers
//! of the scenario's flows, in order, as a pair of specs ([`Controller`]):
//! the simulator's `bbr` (BBRv1) beside the kernel's `linux:bbr`, the
//! simulator's `cubic:hystart=true` beside `linux:cubic`, `reno` beside
//! `linux:reno`. The simulator has no model of Linux's HyStart (the
//! ACK-train and delay-increase tests of tcp_cubic.c); its HyStart++
//! (RFC 9406) stands in for it: both leave slow start on a rise of the
//! round-trip time, HyStart++ through five rounds of conservative slow
//! start.
//!
//! Every line-up runs N times each way: simulated at the scenario's seed
//! and seeds derived from it ([`run_seed`]), emulated as many times at the
//! same seeds (the seed draws the link's random losses; the kernel's own
//! choices, such as BBR's first gain-cycle phase, are its own). Per flow,
//! the metrics are the goodput in the measurement window (warmup to end),
//! the retransmission ratio (bytes retransmitted / bytes delivered), the
//! median RTT, and, for a line-up of two flows, Jain's index of their
//! goodputs. Each is checked on the mean over the N runs; the table shows
//! the mean with the lowest and highest run.
//!
//! # The tolerances, and why
//!
//! They were fixed before the first kernel run and are never re-tuned to
//! a result:
//!
//! - goodput: the kernel's mean within [`GOODPUT_TOLERANCE`] (10%) of the
//!   simulator's, the bound of [`crate::xval`]. Beyond what that allows for
//!   (handshake time, ACK frequency, header sizes), both sides send
//!   1500-byte packets carrying 1448 payload bytes: the shell's TUN devices
//!   offer no TSO/GSO, so the kernel sends MTU-sized segments with
//!   timestamps, and the simulator's default datagram is the same size;
//!   the kernel's receiver delays ACKs;
//! - retransmission ratio: agree when |kernel - sim| <= max(0.5 percentage
//!   points, 35% of the larger) ([`RETX_ABSOLUTE`], [`RETX_RELATIVE`]).
//!   Loss recovery differs: Linux detects losses with RACK-TLP and SACK,
//!   the simulator with RFC 9002's packet and time thresholds, so the
//!   spurious retransmissions differ a little; the papers' effects are
//!   factors of two and more;
//! - Jain's index: |kernel - sim| <= [`JAIN_TOLERANCE`] (0.10): the papers'
//!   figures are read to about 0.05;
//! - RTT p50: within [`RTT_P50_TOLERANCE`] (20%): the kernel's RTT samples
//!   include delayed-ACK waits (its ATO has a 40 ms floor) where the
//!   simulator's receiver ACKs every second packet or after 25 ms. The
//!   kernel's median is that of its smoothed RTT read from TCP_INFO every
//!   10 ms (`quic::emulate`), the simulator's that of its RTT samples.
//!
//! # How a miss is reported
//!
//! Every check has a verdict, agrees or misses ([`Verdict`]); the table
//! ([`markdown`]) carries it beside the numbers and [`misses`] lists every
//! miss with its numbers. A miss is a finding to explain (docs/EMULATION.md
//! analyses each), never a reason to change a tolerance.

use std::path::PathBuf;

use serde::Serialize;
use sim::RunResult;

use crate::emulate::{self, EmulateOptions};

/// Largest relative difference of the mean goodputs accepted.
///
/// As [`crate::xval::GOODPUT_TOLERANCE`]; both sides send 1500-byte packets
/// with 1448 payload bytes (no TSO/GSO through the shell's TUN devices),
/// and the kernel's receiver delays its ACKs.
pub const GOODPUT_TOLERANCE: f64 = 0.10;
/// Retransmission ratios agree within this absolute difference (0.5
/// percentage points) ...
///
/// Linux recovers with RACK-TLP and SACK, the simulator with RFC 9002's
/// loss detection: their spurious retransmissions differ a little, where
/// the papers' effects are factors of two and more.
pub const RETX_ABSOLUTE: f64 = 0.005;
/// ... or within this share of the larger ratio, whichever is wider.
///
/// The same reason as [`RETX_ABSOLUTE`], for ratios of several percent.
pub const RETX_RELATIVE: f64 = 0.35;
/// Largest difference of Jain's indices accepted: the papers' figures are
/// read to about 0.05.
pub const JAIN_TOLERANCE: f64 = 0.10;
/// Largest relative difference of the median RTTs accepted.
///
/// The kernel's RTT samples include delayed-ACK waits up to its 40 ms ATO
/// floor, where the simulator's receiver ACKs every second packet or after
/// 25 ms.
pub const RTT_P50_TOLERANCE: f64 = 0.20;

/// Runs each way unless told otherwise.
pub const DEFAULT_RUNS: usize = 3;

/// One controller, as the simulator and as the kernel run it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Controller {
    /// The simulator's spec.
    pub sim: &'static str,
    /// The kernel's (`linux:NAME`).
    pub kernel: &'static str,
}

/// BBRv1: the simulator's `bbr`, the kernel's tcp_bbr.
pub const BBR: Controller = Controller {
    sim: "bbr",
    kernel: "linux:bbr",
};
/// CUBIC with HyStart: the simulator's HyStart++ stands in for Linux's
/// HyStart.
pub const CUBIC: Controller = Controller {
    sim: "cubic:hystart=true",
    kernel: "linux:cubic",
};
/// Reno.
pub const RENO: Controller = Controller {
    sim: "reno",
    kernel: "linux:reno",
};

/// One network condition of a figure.
#[derive(Clone, Debug)]
pub struct Condition {
    /// How the table names it.
    pub name: String,
    /// The scenario file.
    pub file: PathBuf,
    /// Overrides applied to it (`key`, `value`), besides the controllers.
    pub overrides: Vec<(String, String)>,
    /// The line-ups run on it: the controllers of flows 0, 1, ...
    pub lineups: Vec<Vec<Controller>>,
}

impl Condition {
    /// `file` with `overrides`, each of `lineups` run on it.
    pub fn new(
        name: &str,
        file: impl Into<PathBuf>,
        overrides: &[(&str, &str)],
        lineups: &[&[Controller]],
    ) -> Condition {
        Condition {
            name: name.to_string(),
            file: file.into(),
            overrides: overrides
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            lineups: lineups.iter().map(|l| l.to_vec()).collect(),
        }
    }

    /// The same condition, run for `duration` with `warmup` (a shorter
    /// run, for the CI subset).
    pub fn shortened(mut self, duration: &str, warmup: &str) -> Condition {
        self.overrides
            .push(("duration".to_string(), duration.to_string()));
        self.overrides
            .push(("warmup".to_string(), warmup.to_string()));
        self
    }

    /// The scenario with one line-up's controllers, as the simulator
    /// (`kernel` false) or the kernel (`kernel` true) runs it.
    ///
    /// # Errors
    /// The file does not load with the overrides.
    pub fn scenario(&self, lineup: &[Controller], kernel: bool) -> Result<sim::SimConfig, String> {
        let mut overrides: Vec<scenario::Override> = self
            .overrides
            .iter()
            .map(|(k, v)| scenario::Override::new(k, v))
            .collect();
        for (i, c) in lineup.iter().enumerate() {
            let spec = if kernel { c.kernel } else { c.sim };
            overrides.push(scenario::Override::new(format!("flow.{i}.cc"), spec));
        }
        let loaded = scenario::load(&self.file, &overrides)
            .map_err(|e| format!("{}: {e}", self.file.display()))?;
        if loaded.config.flows.len() != lineup.len() {
            return Err(format!(
                "{}: {} flow entries, line-up of {}",
                self.file.display(),
                loaded.config.flows.len(),
                lineup.len()
            ));
        }
        let mut config = loaded.config;
        config.record_series = false;
        Ok(config)
    }
}

/// The scenario files' directory.
pub fn scenario_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/kernel-xval")
}

/// Every condition of the comparison, in the table's order.
pub fn conditions() -> Vec<Condition> {
    let dir = scenario_dir();
    let singles: &[&[Controller]] = &[&[BBR], &[CUBIC], &[RENO]];
    let mut all = Vec::new();
    for (name, buffer, loss) in [
        ("oBBR Fig. 7, R = 0.25, loss 0", "0.25bdp", "0"),
        ("oBBR Fig. 7, R = 0.25, loss 1%", "0.25bdp", "1%"),
        ("oBBR Fig. 7, R = 0.25, loss 2%", "0.25bdp", "2%"),
        ("oBBR Fig. 7, R = 1, loss 0", "1bdp", "0"),
        ("oBBR Fig. 7, R = 2, loss 0", "2bdp", "0"),
    ] {
        all.push(Condition::new(
            name,
            dir.join("fig7.toml"),
            &[("link.buffer", buffer), ("link.loss", loss)],
            singles,
        ));
    }
    all.push(Condition::new(
        "oBBR Fig. 4, 20 -> 5 Mbit/s",
        dir.join("fig4.toml"),
        &[],
        singles,
    ));
    for rtt in ["10ms", "40ms"] {
        for buffer in ["0.5bdp", "1bdp", "2bdp", "5bdp"] {
            all.push(Condition::new(
                &format!("CWS Fig. 13, {rtt}, {buffer}"),
                dir.join("cws-fig13.toml"),
                &[("link.rtt", rtt), ("link.buffer", buffer)],
                &[&[BBR, CUBIC]],
            ));
        }
    }
    all.push(Condition::new(
        "Drucker, 2% loss",
        dir.join("drucker-loss.toml"),
        &[],
        &[&[BBR]],
    ));
    all
}

/// The seed of run `k` (run 0 at the scenario's own seed).
pub fn run_seed(seed: u64, k: usize) -> u64 {
    crate::xval::Repeats::seed(seed, k)
}

/// Which side runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The simulator, with the simulator's controllers.
    Simulated,
    /// The kernel's TCP through the shell (`quic::emulate::run`).
    Kernel,
}

/// `runs` runs of `lineup` on `condition`, at seeds [`run_seed`] 0, 1, ...
///
/// # Errors
/// The scenario does not load, or an emulated run failed.
pub fn measure(
    condition: &Condition,
    lineup: &[Controller],
    side: Side,
    runs: usize,
) -> Result<Vec<RunResult>, String> {
    let config = condition.scenario(lineup, side == Side::Kernel)?;
    (0..runs.max(1))
        .map(|k| {
            let mut c = config.clone();
            c.seed = run_seed(config.seed, k);
            match side {
                Side::Simulated => Ok(sim::Simulation::new(c).run()),
                Side::Kernel => emulate::run(&c, &EmulateOptions::default())
                    .map_err(|e| format!("{} (kernel run {k}): {e}", condition.name)),
            }
        })
        .collect()
}

/// Mean, lowest and highest of a metric over runs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Stats {
    /// Runs measured.
    pub runs: usize,
    /// Their mean.
    pub mean: f64,
    /// The lowest.
    pub min: f64,
    /// The highest.
    pub max: f64,
}

impl Stats {
    /// The stats of `values`; `None` if empty.
    pub fn of(values: &[f64]) -> Option<Stats> {
        if values.is_empty() {
            return None;
        }
        Some(Stats {
            runs: values.len(),
            mean: values.iter().sum::<f64>() / values.len() as f64,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }
}

/// A check's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Within the tolerance.
    Agrees,
    /// Outside it.
    Misses,
}

impl Verdict {
    fn from(agrees: bool) -> Verdict {
        if agrees {
            Verdict::Agrees
        } else {
            Verdict::Misses
        }
    }

    fn word(self) -> &'static str {
        match self {
            Verdict::Agrees => "agrees",
            Verdict::Misses => "**misses**",
        }
    }
}

/// What a check compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Goodput in the window, bits per second.
    Goodput,
    /// Bytes retransmitted / bytes delivered.
    Retransmissions,
    /// Median RTT, ms.
    RttP50,
    /// Jain's index of the line-up's goodputs.
    Jain,
}

impl Metric {
    /// Whether a simulated and a kernel mean agree (the tolerances above).
    pub fn agrees(self, sim: f64, kernel: f64) -> bool {
        let diff = (kernel - sim).abs();
        match self {
            Metric::Goodput => diff <= GOODPUT_TOLERANCE * sim,
            Metric::Retransmissions => {
                diff <= RETX_ABSOLUTE.max(RETX_RELATIVE * sim.max(kernel)) + 1e-12
            }
            Metric::RttP50 => diff <= RTT_P50_TOLERANCE * sim,
            Metric::Jain => diff <= JAIN_TOLERANCE + 1e-12,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Metric::Goodput => "goodput",
            Metric::Retransmissions => "retransmission ratio",
            Metric::RttP50 => "RTT p50",
            Metric::Jain => "Jain's index",
        }
    }

    /// The value as the table shows it (Mbit/s, %, ms, index).
    fn show(self, v: f64) -> String {
        match self {
            Metric::Goodput => format!("{:.2}", v / 1e6),
            Metric::Retransmissions => format!("{:.2}", v * 100.0),
            Metric::RttP50 => format!("{:.1}", v),
            Metric::Jain => format!("{:.3}", v),
        }
    }

    fn unit(self) -> &'static str {
        match self {
            Metric::Goodput => " Mbit/s",
            Metric::Retransmissions => "%",
            Metric::RttP50 => " ms",
            Metric::Jain => "",
        }
    }

    fn tolerance(self) -> &'static str {
        match self {
            Metric::Goodput => "within 10%",
            Metric::Retransmissions => "within max(0.5 pp, 35% of the larger)",
            Metric::RttP50 => "within 20%",
            Metric::Jain => "within 0.10",
        }
    }
}

/// One metric, both ways, and its verdict.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Check {
    /// What is compared.
    pub metric: Metric,
    /// Over the simulated runs.
    pub sim: Stats,
    /// Over the kernel runs.
    pub kernel: Stats,
    /// On the means.
    pub verdict: Verdict,
}

impl Check {
    /// The check of `metric` over `sim` and `kernel` values (one per run).
    ///
    /// # Panics
    /// Either side has no value.
    pub fn new(metric: Metric, sim: &[f64], kernel: &[f64]) -> Check {
        let sim = Stats::of(sim).expect("at least one simulated run");
        let kernel = Stats::of(kernel).expect("at least one kernel run");
        Check {
            metric,
            sim,
            kernel,
            verdict: Verdict::from(metric.agrees(sim.mean, kernel.mean)),
        }
    }

    fn cell(&self, stats: &Stats) -> String {
        let m = self.metric;
        if stats.runs > 1 {
            format!(
                "{} ({}..{})",
                m.show(stats.mean),
                m.show(stats.min),
                m.show(stats.max)
            )
        } else {
            m.show(stats.mean)
        }
    }
}

/// One flow of one line-up on one condition.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The condition's name.
    pub condition: String,
    /// The flow's controller.
    pub controller: Controller,
    /// Its flow index in the line-up.
    pub flow: usize,
    /// The line-up (every flow's simulator spec), for a shared link.
    pub lineup: Vec<&'static str>,
    /// Goodput.
    pub goodput: Check,
    /// Retransmission ratio.
    pub retransmissions: Check,
    /// Median RTT.
    pub rtt_p50: Check,
    /// The flow's share of the line-up's goodput (mean over runs), sim
    /// and kernel, for a shared link.
    pub share: Option<(f64, f64)>,
    /// Jain's index of the line-up, on its first flow's row.
    pub jain: Option<Check>,
}

impl Row {
    /// The row's checks.
    pub fn checks(&self) -> impl Iterator<Item = &Check> {
        [&self.goodput, &self.retransmissions, &self.rtt_p50]
            .into_iter()
            .chain(self.jain.as_ref())
    }

    /// How the table names the flow.
    pub fn label(&self) -> String {
        if self.lineup.len() > 1 {
            let others: Vec<&str> = self
                .lineup
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != self.flow)
                .map(|(_, s)| *s)
                .collect();
            format!(
                "{} / {} (vs {})",
                self.controller.sim,
                self.controller.kernel,
                others.join(", ")
            )
        } else {
            format!("{} / {}", self.controller.sim, self.controller.kernel)
        }
    }
}

/// The rows of one line-up from its simulated and kernel runs.
///
/// # Panics
/// Either side has no run, or a run has fewer flows than the line-up.
pub fn rows(
    condition: &str,
    lineup: &[Controller],
    simulated: &[RunResult],
    kernel: &[RunResult],
) -> Vec<Row> {
    let per_flow = |runs: &[RunResult], i: usize, f: &dyn Fn(&sim::FlowSummary) -> f64| {
        runs.iter().map(|r| f(&r.flows[i])).collect::<Vec<f64>>()
    };
    let share = |runs: &[RunResult], i: usize| {
        let shares: Vec<f64> = runs
            .iter()
            .map(|r| {
                let total: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
                r.flows[i].goodput_bps / total.max(1.0)
            })
            .collect();
        Stats::of(&shares).map_or(0.0, |s| s.mean)
    };
    let jain = |runs: &[RunResult]| {
        runs.iter()
            .map(|r| {
                sim::results::jain_index(&r.flows.iter().map(|f| f.goodput_bps).collect::<Vec<_>>())
            })
            .collect::<Vec<f64>>()
    };
    let shared = lineup.len() > 1;
    lineup
        .iter()
        .enumerate()
        .map(|(i, controller)| {
            let check = |metric: Metric, f: &dyn Fn(&sim::FlowSummary) -> f64| {
                Check::new(metric, &per_flow(simulated, i, f), &per_flow(kernel, i, f))
            };
            Row {
                condition: condition.to_string(),
                controller: *controller,
                flow: i,
                lineup: lineup.iter().map(|c| c.sim).collect(),
                goodput: check(Metric::Goodput, &|f| f.goodput_bps),
                retransmissions: check(Metric::Retransmissions, &|f| f.retransmission_ratio),
                rtt_p50: check(Metric::RttP50, &|f| f.rtt_ms.p50),
                share: shared.then(|| (share(simulated, i), share(kernel, i))),
                jain: (shared && i == 0)
                    .then(|| Check::new(Metric::Jain, &jain(simulated), &jain(kernel))),
            }
        })
        .collect()
}

/// Every line-up of `condition`, `runs` times each way, as rows.
///
/// # Errors
/// The scenario does not load, or an emulated run failed.
pub fn compare(condition: &Condition, runs: usize) -> Result<Vec<Row>, String> {
    let mut out = Vec::new();
    for lineup in &condition.lineups {
        let simulated = measure(condition, lineup, Side::Simulated, runs)?;
        let kernel = measure(condition, lineup, Side::Kernel, runs)?;
        out.extend(rows(&condition.name, lineup, &simulated, &kernel));
    }
    Ok(out)
}

/// Every miss among `rows`, one line each with its numbers.
pub fn misses(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for row in rows {
        for check in row.checks() {
            if check.verdict == Verdict::Misses {
                let m = check.metric;
                let what = if m == Metric::Jain {
                    "line-up".to_string()
                } else {
                    row.label()
                };
                out.push(format!(
                    "{}, {what}: {} kernel {}{u} vs simulated {}{u} (means over {} and {} runs; tolerance {})",
                    row.condition,
                    m.name(),
                    m.show(check.kernel.mean),
                    m.show(check.sim.mean),
                    check.kernel.runs,
                    check.sim.runs,
                    m.tolerance(),
                    u = m.unit(),
                ));
            }
        }
    }
    out
}

/// The rows as a markdown table: per metric the simulated and kernel
/// means (lowest..highest run when more than one) and the verdict.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = String::from(
        "| condition | controller (sim / kernel) | goodput sim, Mbit/s | goodput kernel | | \
         retx sim, % | retx kernel | | RTT p50 sim, ms | RTT p50 kernel | | Jain sim | Jain kernel | |\n\
         |---|---|---:|---:|---|---:|---:|---|---:|---:|---|---:|---:|---|\n",
    );
    for row in rows {
        let mut cells = vec![row.condition.clone(), row.label()];
        for check in [&row.goodput, &row.retransmissions, &row.rtt_p50] {
            let (mut s, mut k) = (check.cell(&check.sim), check.cell(&check.kernel));
            if check.metric == Metric::Goodput {
                if let Some((ss, ks)) = row.share {
                    s += &format!(" [{:.0}%]", ss * 100.0);
                    k += &format!(" [{:.0}%]", ks * 100.0);
                }
            }
            cells.extend([s, k, check.verdict.word().to_string()]);
        }
        match &row.jain {
            Some(j) => cells.extend([
                j.cell(&j.sim),
                j.cell(&j.kernel),
                j.verdict.word().to_string(),
            ]),
            None => cells.extend(["".into(), "".into(), "".into()]),
        }
        out += &format!("| {} |\n", cells.join(" | "));
    }
    out
}

/// How many checks agree, of how many.
pub fn tally(rows: &[Row]) -> (usize, usize) {
    let all: Vec<&Check> = rows.iter().flat_map(Row::checks).collect();
    let agree = all.iter().filter(|c| c.verdict == Verdict::Agrees).count();
    (agree, all.len())
}

/// Whether the process runs as root (the shell's namespaces need it),
/// from /proc/self/status.
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|e| e == "0"))
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tolerances_are_the_fixed_ones() {
        assert!(Metric::Goodput.agrees(10e6, 10.99e6));
        assert!(!Metric::Goodput.agrees(10e6, 11.01e6));
        assert!(!Metric::Goodput.agrees(10e6, 8.99e6));
        // Retransmissions: 0.5 pp below a few percent, 35% of the larger above.
        assert!(Metric::Retransmissions.agrees(0.001, 0.006));
        assert!(!Metric::Retransmissions.agrees(0.001, 0.0061));
        assert!(Metric::Retransmissions.agrees(0.065, 0.10));
        assert!(!Metric::Retransmissions.agrees(0.06, 0.10));
        assert!(Metric::Jain.agrees(0.95, 0.85));
        assert!(!Metric::Jain.agrees(0.95, 0.84));
        assert!(Metric::RttP50.agrees(100.0, 119.9));
        assert!(!Metric::RttP50.agrees(100.0, 120.1));
        assert!(!Metric::RttP50.agrees(100.0, 79.9));
    }

    #[test]
    fn stats_are_mean_min_max() {
        let s = Stats::of(&[1.0, 4.0, 2.5]).unwrap();
        assert_eq!((s.runs, s.min, s.max), (3, 1.0, 4.0));
        assert!((s.mean - 2.5).abs() < 1e-12);
        assert!(Stats::of(&[]).is_none());
    }

    #[test]
    fn every_condition_loads_both_ways() {
        for c in conditions() {
            for lineup in &c.lineups {
                let sim = c.scenario(lineup, false).unwrap();
                assert!(sim.flows.iter().all(|f| f.cc.to_string() != ""));
                assert!(sim.duration.as_secs() <= 30, "{}", c.name);
            }
        }
    }

    #[test]
    fn a_simulated_condition_compared_with_itself_agrees_everywhere() {
        // The simulated half of a shared-link condition, shortened, three
        // seeds: against itself every check agrees and the rows carry the
        // shares and one Jain check.
        let c = conditions()
            .into_iter()
            .find(|c| c.name == "CWS Fig. 13, 40ms, 1bdp")
            .unwrap()
            .shortened("6s", "2s");
        let lineup = &c.lineups[0];
        let runs = measure(&c, lineup, Side::Simulated, 3).unwrap();
        assert_eq!(runs.len(), 3);
        assert_ne!(
            runs[0].flows[0].goodput_bps, runs[1].flows[0].goodput_bps,
            "derived seeds differ"
        );
        let rows = rows(&c.name, lineup, &runs, &runs);
        assert_eq!(rows.len(), 2);
        assert!(rows[0].jain.is_some() && rows[1].jain.is_none());
        let (s, k) = rows[0].share.unwrap();
        assert!((s - k).abs() < 1e-12 && s > 0.0 && s < 1.0);
        assert_eq!(tally(&rows), (7, 7));
        assert!(misses(&rows).is_empty());
        let table = markdown(&rows);
        assert_eq!(table.lines().count(), 4, "{table}");
        assert!(table.contains("bbr / linux:bbr (vs cubic:hystart=true)"));
    }

    #[test]
    fn a_miss_is_reported_with_its_numbers() {
        let c = conditions()
            .into_iter()
            .find(|c| c.name == "oBBR Fig. 7, R = 0.25, loss 0")
            .unwrap()
            .shortened("4s", "1s");
        let bbr = measure(&c, &[BBR], Side::Simulated, 1).unwrap();
        let mut halved = bbr.clone();
        halved[0].flows[0].goodput_bps /= 2.0;
        let rows = rows(&c.name, &[BBR], &bbr, &halved);
        let missed = misses(&rows);
        assert_eq!(missed.len(), 1, "{missed:?}");
        assert!(missed[0].contains("goodput kernel"), "{}", missed[0]);
        assert!(markdown(&rows).contains("**misses**"));
    }
}
