//! The bounded fuzz campaign of the test suite: 13 000 inputs over the five
//! targets, none of which may panic, hang past the time bound, refuse
//! without a message, or produce a result that breaks physics.
//! `scripts/fuzz.sh` runs the long campaigns.

use fuzz::{run_campaign, Target};

fn campaign(target: Target, cases: u64) {
    let c = run_campaign(target, cases, 1);
    eprintln!(
        "{target}: {} cases, {} accepted, {} crashes, {:.1} s, slowest {:.0} ms",
        c.cases,
        c.accepted,
        c.crash_count,
        c.wall.as_secs_f64(),
        c.slowest.as_secs_f64() * 1e3
    );
    assert_eq!(c.cases, cases);
    let shown: Vec<String> = c.crashes.iter().map(|c| c.to_string()).collect();
    assert_eq!(c.crash_count, 0, "crashes:\n{}", shown.join("\n\n"));
    // A campaign that never gets past validation exercises nothing deep.
    assert!(
        c.accepted * 20 >= cases,
        "{target}: only {} of {cases} accepted",
        c.accepted
    );
}

#[test]
fn scenario_files() {
    campaign(Target::Scenario, 5_000);
}

#[test]
fn mahimahi_traces() {
    campaign(Target::Mahimahi, 2_000);
}

#[test]
fn irish5g_traces() {
    campaign(Target::Irish5g, 2_000);
}

#[test]
fn spec_strings() {
    campaign(Target::Spec, 2_000);
}

#[test]
fn set_paths() {
    campaign(Target::SetPath, 2_000);
}
