//! A controller defined outside bbrlab: `my-bbr`, BBRv1 with a gentler
//! ProbeBW gain cycle, declared through `cc`'s extension points.
//!
//! Three steps, none of which edits bbrlab:
//! 1. its parameters, declared once with [`cc::params!`] (a choice is an
//!    enum named with [`cc::param_choice!`]);
//! 2. its behaviour, a [`ProbeGainPolicy`] plugged into the BBRv1 core;
//! 3. its registry entry, which inherits the core's parameters by name, and
//!    [`register`], after which the spec string `"my-bbr:up=1.15"` works
//!    wherever bbrlab takes one: the simulator, scenario files, sweeps,
//!    the s2n-quic endpoint.

use std::sync::OnceLock;

use cc::bbr::extension::ProbeGainPolicy;
use cc::bbr::{Bbr, BbrParams, Extensions};
use cc::{AlgorithmInfo, AlgorithmSpec, ControllerConfig};

/// How the draining phase's gain is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DownRule {
    /// `down`, as given.
    Fixed,
    /// `1 / up`: the drain undoes the probe's excess exactly.
    Reciprocal,
}
cc::param_choice!(DownRule {
    Fixed = "fixed",
    Reciprocal = "reciprocal",
});

cc::params! {
    /// `my-bbr`'s own tunables.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct MyParams {
        /// Pacing gain of the probing phase (Linux: 1.25).
        pub up: f64 ["up", 1.0..=2.0] = 1.1
            => "ProbeBW pacing gain of the probing phase (BBRv1: 1.25)",
        /// Pacing gain of the draining phase under `down_rule=fixed`.
        pub down: f64 ["down", 0.5..=1.0] = 0.9
            => "ProbeBW pacing gain of the draining phase with down_rule=fixed (BBRv1: 0.75)",
        /// Where the draining gain comes from.
        pub down_rule: DownRule ["down_rule"] = DownRule::Fixed
            => "fixed = down; reciprocal = 1/up",
    }
}

/// The gain cycle: `up`, then the draining gain, then six phases at 1.
#[derive(Clone, Debug)]
pub struct GentleCycle(MyParams);

impl ProbeGainPolicy for GentleCycle {
    fn pacing_gain(&self, phase: usize, base: f64) -> f64 {
        match phase {
            0 => self.0.up,
            1 => match self.0.down_rule {
                DownRule::Fixed => self.0.down,
                DownRule::Reciprocal => 1.0 / self.0.up,
            },
            _ => base,
        }
    }
}

/// The spec name.
pub const NAME: &str = "my-bbr";

/// A `my-bbr` controller: the BBRv1 core with [`GentleCycle`].
pub fn new(spec: &AlgorithmSpec, config: &ControllerConfig) -> Bbr {
    let ext = Extensions {
        probe_gain: Box::new(GentleCycle(MyParams::from_spec(spec))),
        ..Extensions::default()
    };
    Bbr::with_extensions(spec.as_str(), BbrParams::from_spec(spec), config, ext)
}

/// The registry entry: its own parameters, then BBRv1's (inherited by
/// name from the registered `bbr`) but `pacing_margin`.
pub fn info() -> AlgorithmInfo {
    let bbr = cc::find("bbr").expect("bbr is built in");
    AlgorithmInfo::new(
        NAME,
        "BBRv1 with a gentler ProbeBW gain cycle (1.1/0.9 instead of 1.25/0.75)",
        |spec, config| Box::new(new(spec, config)),
    )
    .display_name("My BBR")
    .param_table(MyParams::params())
    .inherit(bbr)
    .without(&["pacing_margin"])
}

/// Registers `my-bbr` once per process (safe to call from every test).
pub fn register() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        cc::register(info()).expect("my-bbr registers");
    });
}
