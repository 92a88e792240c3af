//! The fuzz targets: one untrusted input each, taken the way the program
//! takes it, and what counts as a crash.

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, Instant};

use cc::Bandwidth;
use sim::link::{BufferLimit, MahimahiTrace, PiecewiseTrace, RateModel};
use sim::{Dumbbell, SimConfig, Simulation};

/// Longest a single case may take, validation and simulation together. The
/// bad-input standard is a clear error in under 5 s; a simulation is cut
/// short (see [`clamp_for_fuzzing`]) to well below that.
pub const TIME_BOUND: Duration = Duration::from_secs(5);

/// Simulated time a fuzz case may run at most.
const MAX_SIMULATED: Duration = Duration::from_millis(300);

/// Bytes the bottleneck may offer in one fuzz case (about 13 000 packets):
/// faster links get proportionally shorter runs.
const MAX_OFFERED_BYTES: u128 = 16_000_000;

/// Flows a fuzz case may simulate at most (`count`s are cut down to fit).
const MAX_FLOWS: u32 = 32;

/// Finest time-series interval a fuzz case records at.
const MIN_SAMPLE_INTERVAL: Duration = Duration::from_millis(1);

/// What a fuzz target takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A scenario file, through validation (and sweep expansion) into short simulations.
    Scenario,
    /// A mahimahi delivery-opportunity trace, parsed, then simulated over.
    Mahimahi,
    /// An Irish 5G dataset CSV, parsed, then simulated over.
    Irish5g,
    /// A controller spec string (`name:key=value,...`), parsed, then simulated.
    Spec,
    /// A `--set key=value` override, parsed, then applied to a valid scenario.
    SetPath,
}

impl Target {
    /// Every target, in the order campaigns run them.
    pub const ALL: [Target; 5] = [
        Target::Scenario,
        Target::Mahimahi,
        Target::Irish5g,
        Target::Spec,
        Target::SetPath,
    ];

    /// The target's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Target::Scenario => "scenario",
            Target::Mahimahi => "mahimahi",
            Target::Irish5g => "irish5g",
            Target::Spec => "spec",
            Target::SetPath => "set-path",
        }
    }

    /// Runs one input. `Ok` says whether the input was accepted (and
    /// simulated) or refused with a message; `Err` is a crash.
    pub fn run(self, input: &str) -> Result<Verdict, Crash> {
        let started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| self.exercise(input)));
        let elapsed = started.elapsed();
        let crash = |kind| Crash {
            target: self,
            input: input.to_string(),
            kind,
        };
        match outcome {
            Err(panic) => Err(crash(CrashKind::Panic(panic_message(&*panic)))),
            Ok(_) if elapsed > TIME_BOUND => Err(crash(CrashKind::Timeout(elapsed))),
            Ok(Err(kind)) => Err(crash(kind)),
            Ok(Ok(verdict)) => Ok(verdict),
        }
    }

    fn exercise(self, input: &str) -> Result<Verdict, CrashKind> {
        match self {
            Target::Scenario => scenario_text(input),
            Target::Mahimahi => match MahimahiTrace::parse(input, Path::new("fuzz.down")) {
                Err(e) => refused(&e),
                Ok(trace) => simulate_over(RateModel::Mahimahi(trace)),
            },
            Target::Irish5g => match PiecewiseTrace::parse_irish5g(input, Path::new("fuzz.csv")) {
                Err(e) => refused(&e),
                Ok(trace) => simulate_over(RateModel::Piecewise(trace)),
            },
            Target::Spec => {
                match Dumbbell::new(Bandwidth::from_mbps(20), Duration::from_millis(40))
                    .flow(input)
                    .and_then(|d| d.flow("cubic"))
                {
                    Err(e) => refused(&e),
                    Ok(d) => simulate(d.build()),
                }
            }
            Target::SetPath => match scenario::Override::from_str(input) {
                Err(e) => refused(&e),
                Ok(set) => match scenario::from_str(BASE_SCENARIO, &origin(), &[set]) {
                    Err(e) => refused(&e),
                    Ok(s) => simulate_scenario(s),
                },
            },
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Target, String> {
        Target::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Target::ALL.iter().map(|t| t.name()).collect();
                format!(
                    "unknown fuzz target {s:?}: expected one of {}",
                    names.join(", ")
                )
            })
    }
}

/// What a target made of an input that did not crash it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Valid: parsed, validated and (where the target simulates) simulated.
    Accepted,
    /// Refused with an error message.
    Refused,
}

/// An input that crashed a target.
#[derive(Clone, Debug)]
pub struct Crash {
    /// The target it crashed.
    pub target: Target,
    /// The input, exactly.
    pub input: String,
    /// How it crashed.
    pub kind: CrashKind,
}

/// How an input crashed a target.
#[derive(Clone, Debug, PartialEq)]
pub enum CrashKind {
    /// A panic, with its message.
    Panic(String),
    /// The case ran longer than [`TIME_BOUND`].
    Timeout(Duration),
    /// The simulation's result broke physics.
    Physics(Vec<String>),
    /// The input was refused with an empty message.
    SilentRefusal,
}

impl fmt::Display for Crash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match &self.kind {
            CrashKind::Panic(m) => format!("panic: {m}"),
            CrashKind::Timeout(d) => format!("took {d:.1?} (bound {TIME_BOUND:?})"),
            CrashKind::Physics(v) => format!("breaks physics: {}", v.join("; ")),
            CrashKind::SilentRefusal => "refused without a message".to_string(),
        };
        write!(
            f,
            "{}: {what}\ninput ({} bytes): {:?}",
            self.target,
            self.input.len(),
            self.input
        )
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".to_string())
}

fn refused(e: &dyn fmt::Display) -> Result<Verdict, CrashKind> {
    if e.to_string().trim().is_empty() {
        Err(CrashKind::SilentRefusal)
    } else {
        Ok(Verdict::Refused)
    }
}

/// Where fuzzed scenario text claims to come from: a file in the project's
/// `scenarios/examples`, so the seeds' relative trace paths resolve.
pub fn origin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/examples/fuzz.toml")
}

/// The valid scenario `--set` overrides are applied to.
pub const BASE_SCENARIO: &str = r#"name = "fuzz-base"
duration = "2s"
warmup = "500ms"
[link]
rate = "20Mbit"
rtt = "40ms"
buffer = "1bdp"
loss = "0.5%"
[[flow]]
cc = "bbr"
[[flow]]
cc = "cubic"
start = "100ms"
size = "1MB"
"#;

fn scenario_text(text: &str) -> Result<Verdict, CrashKind> {
    let sweep = match scenario::sweep_from_str(text, &origin(), &[]) {
        Err(e) => return refused(&e),
        Ok(s) => s,
    };
    if sweep.axes.is_empty() {
        return match scenario::from_str(text, &origin(), &[]) {
            Err(e) => refused(&e),
            Ok(s) => simulate_scenario(s),
        };
    }
    // Expanding validates every point; large sweeps are only counted (the
    // limit on their size is what is under test there).
    match sweep.count() {
        Some(n) if n <= 16 => match sweep.scenarios_up_to(16) {
            Err(e) => refused(&e),
            Ok(points) => {
                for (_, s) in points.into_iter().take(2) {
                    if simulate_scenario(s)? == Verdict::Refused {
                        return Ok(Verdict::Refused);
                    }
                }
                Ok(Verdict::Accepted)
            }
        },
        _ => Ok(Verdict::Accepted),
    }
}

fn simulate_over(rate: RateModel) -> Result<Verdict, CrashKind> {
    let mut d = Dumbbell::new(Bandwidth::from_mbps(10), Duration::from_millis(40))
        .rate_model(rate)
        .buffer(BufferLimit::Packets(50))
        .warmup(Duration::from_millis(100));
    for spec in ["bbr", "cubic"] {
        d = d.flow(spec).expect("built-in specs are valid");
    }
    simulate(d.build())
}

/// A valid scenario the simulator may refuse (a kernel TCP flow runs only
/// in an emulated run): refused with its message, else simulated.
fn simulate_scenario(s: scenario::Scenario) -> Result<Verdict, CrashKind> {
    match s.check_simulable() {
        Err(e) => refused(&e),
        Ok(()) => simulate(s.config),
    }
}

fn simulate(mut config: SimConfig) -> Result<Verdict, CrashKind> {
    clamp_for_fuzzing(&mut config);
    let result = Simulation::new(config).run();
    let broken = result.invariant_violations();
    if broken.is_empty() {
        Ok(Verdict::Accepted)
    } else {
        Err(CrashKind::Physics(broken))
    }
}

/// Cuts a validated configuration down to a fuzz case's size: at most
/// `MAX_SIMULATED` of simulated time, and less on fast links (at most
/// `MAX_OFFERED_BYTES` of capacity); at most `MAX_FLOWS` flows; a time
/// series no finer than 1 ms. The warmup keeps its place, cut to the run
/// if it was longer. Everything else (rates, buffers, loss, controllers,
/// traces) is simulated as validated.
pub fn clamp_for_fuzzing(config: &mut SimConfig) {
    let peak = peak_rate(&config.link.rate).max(Bandwidth::from_bits_per_sec(1));
    let affordable_ns = MAX_OFFERED_BYTES * 8 * 1_000_000_000 / peak.bits_per_sec() as u128;
    let affordable = Duration::from_nanos(affordable_ns.min(u64::MAX as u128) as u64);
    config.duration = config.duration.min(MAX_SIMULATED).min(affordable);
    config.warmup = config.warmup.min(config.duration);
    config.sample_interval = config.sample_interval.max(MIN_SAMPLE_INTERVAL);
    config.record_series = true;
    let mut budget = MAX_FLOWS;
    config.flows.retain_mut(|f| {
        f.count = f.count.min(budget);
        budget -= f.count;
        f.count > 0
    });
    // A byte limit that validation accepted stays; only a pathological
    // packet count is bounded by the (cut) flows' worth of packets.
    if let BufferLimit::Packets(n) = config.link.buffer {
        config.link.buffer = BufferLimit::Packets(n.min(1_000_000));
    }
}

fn peak_rate(rate: &RateModel) -> Bandwidth {
    match rate {
        RateModel::Constant(r) => *r,
        RateModel::Schedule(steps) => steps.iter().map(|s| s.rate).max().unwrap_or_default(),
        RateModel::Mahimahi(t) => t.mean_rate(),
        RateModel::Piecewise(t) => t.steps().iter().map(|s| s.1).max().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_flow_is_refused_not_a_crash() {
        assert_eq!(
            Target::SetPath.run("flow.0.cc=linux:bbr").unwrap(),
            Verdict::Refused
        );
        let text = BASE_SCENARIO.replacen("cc = \"bbr\"", "cc = \"linux:bbr\"", 1);
        assert_ne!(text, BASE_SCENARIO);
        assert_eq!(Target::Scenario.run(&text).unwrap(), Verdict::Refused);
    }

    #[test]
    fn the_base_scenario_and_the_seeds_are_accepted() {
        assert_eq!(
            Target::Scenario.run(BASE_SCENARIO).unwrap(),
            Verdict::Accepted
        );
        assert_eq!(Target::Spec.run("obbr:mu=0.5").unwrap(), Verdict::Accepted);
        assert_eq!(Target::Spec.run("obbr:mu=").unwrap(), Verdict::Refused);
        assert_eq!(
            Target::SetPath.run("link.rate=5Mbit").unwrap(),
            Verdict::Accepted
        );
        assert_eq!(
            Target::SetPath.run("flow[0.cc=cubic").unwrap(),
            Verdict::Refused
        );
        assert_eq!(
            Target::Mahimahi.run("1\n1\n2\n").unwrap(),
            Verdict::Accepted
        );
        assert_eq!(Target::Mahimahi.run("x").unwrap(), Verdict::Refused);
    }

    #[test]
    fn a_huge_link_gets_a_short_run() {
        let mut c =
            scenario::from_str(&BASE_SCENARIO.replace("20Mbit", "1000Gbit"), &origin(), &[])
                .unwrap()
                .config;
        clamp_for_fuzzing(&mut c);
        assert_eq!(c.duration, Duration::from_nanos(128_000));
        assert_eq!(c.warmup, c.duration);
    }

    #[test]
    fn names_round_trip() {
        for t in Target::ALL {
            assert_eq!(t.name().parse::<Target>().unwrap(), t);
        }
        assert!("nope".parse::<Target>().unwrap_err().contains("set-path"));
    }
}
