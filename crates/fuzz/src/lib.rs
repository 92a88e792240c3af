//! A fuzz harness for everything bbrlab reads from a user, on stable Rust.
//!
//! Five targets take untrusted text the way the program does:
//!
//! | target | input | what it exercises |
//! |---|---|---|
//! | [`Target::Scenario`] | a scenario file (TOML) | parsing, validation, sweep expansion, then a short simulation of each valid point |
//! | [`Target::Mahimahi`] | an mm-link trace | parsing, then a short simulation over the trace |
//! | [`Target::Irish5g`] | an Irish 5G dataset CSV | parsing, then a short simulation over the trace |
//! | [`Target::Spec`] | a controller spec string | parsing, then a short simulation with the controller |
//! | [`Target::SetPath`] | a `--set key=value` flag | parsing, then applying it to a valid scenario |
//!
//! A *crash* ([`Crash`]) is a panic, a case that takes longer than
//! [`TIME_BOUND`], or a simulation whose result breaks physics
//! ([`sim::RunResult::invariant_violations`]). Errors are not crashes: bad
//! input is supposed to be refused, and the targets check that refusals
//! name what was wrong (a non-empty message).
//!
//! Inputs come from [`inputs`]: mutations of a seed corpus (the project's
//! own scenarios and traces) and of grammar-built documents, drawn by
//! proptest from a seeded RNG, so a campaign is reproducible from its seed.
//! [`campaign`] runs them and counts. The test suite runs a bounded
//! campaign (`tests/campaign.rs`, over 10 000 cases); `scripts/fuzz.sh`
//! runs long ones with the `bbrlab-fuzz` binary. Simulations are cut
//! short (see [`targets::clamp_for_fuzzing`]) so a case stays cheap while
//! the whole validated configuration still runs.

pub mod campaign;
pub mod inputs;
pub mod targets;

pub use campaign::{run_campaign, Campaign};
pub use targets::{Crash, CrashKind, Target, TIME_BOUND};
