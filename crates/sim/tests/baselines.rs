//! The oBBR paper's two extra baselines, BBR-S and B3R, on its stable link
//! (§5.2.1, Fig. 7): 40 Mbit/s, 100 ms, a buffer of R = 0.25 BDP behind a
//! token bucket of 100 KB ("Burst is set to 100 KB", §5.1), no random loss,
//! 60 s (the paper fetches 1 GB; 60 s reaches the same steady state).
//!
//! What the paper reports there: "B3R lowers its sending rate to avoid
//! excessive in-flight data, but this does not work in our experiments
//! because of the bandwidth estimation. As a result, the retransmission
//! ratios of B3R are similar to those of BBR. BBR-S more accurately
//! estimates the bandwidth in our scenarios where the bottleneck router
//! could handle burst traffic. Benefiting from this, BBR-S retransmits fewer
//! data than BBR and B3R".
//!
//! Retransmission ratio = retransmitted / delivered stream bytes (the oBBR
//! paper's definition, DESIGN.md's). Every run is deterministic (seed 1).

use std::time::Duration;

use cc::{Bandwidth, Bytes};
use sim::{Dumbbell, FlowSummary, Simulation};

const CAPACITY_BPS: f64 = 40e6;

fn stable_link(spec: &str) -> FlowSummary {
    let d = Dumbbell::new(Bandwidth::from_mbps(40), Duration::from_millis(100))
        .buffer_bdp(0.25)
        .burst(Bytes(100_000))
        .duration(Duration::from_secs(60))
        .flow(spec)
        .unwrap();
    let mut result = Simulation::new(d.build()).run();
    result.assert_physics();
    result.flows.remove(0)
}

fn describe(f: &FlowSummary) -> String {
    format!(
        "{}: goodput {:.2} Mbit/s, retransmission ratio {:.4}, loss ratio {:.4}",
        f.cc,
        f.goodput_bps / 1e6,
        f.retransmission_ratio,
        f.loss_ratio
    )
}

#[test]
fn bbr_s_and_b3r_fill_the_stable_link() {
    // b3r:simple=true is the B3R the oBBR paper evaluated (its own code's).
    for spec in ["bbr-s", "b3r", "b3r:simple=true"] {
        let f = stable_link(spec);
        eprintln!("{}", describe(&f));
        assert!(f.bytes_delivered > 0, "{spec} delivered nothing");
        assert!(
            f.goodput_bps >= 0.80 * CAPACITY_BPS,
            "{} below 80% of 40 Mbit/s",
            describe(&f)
        );
    }
}

/// BBR-S paces at the 85th percentile, below the burst-inflated samples
/// that BBR's max filter takes for the path's rate (docs/ALGORITHMS.md, BBR-S
/// explains the mechanism and how much the margin depends on the BBRv1 core).
#[test]
fn bbr_s_retransmits_less_than_bbr() {
    let bbr = stable_link("bbr");
    let bbr_s = stable_link("bbr-s");
    eprintln!("{}\n{}", describe(&bbr), describe(&bbr_s));
    assert!(
        bbr_s.retransmission_ratio < bbr.retransmission_ratio,
        "BBR-S does not retransmit less than BBR:\n{}\n{}",
        describe(&bbr_s),
        describe(&bbr)
    );
}

/// "Similar" is read as within a factor of two either way: the paper sets
/// it against oBBR's reductions on this link (0.51-1.97% against BBR's
/// 17.42% average, 9-34x lower), so a factor of two still separates "about
/// BBR's" from "an improvement of oBBR's kind".
#[test]
fn b3r_retransmits_about_as_much_as_bbr() {
    let bbr = stable_link("bbr");
    eprintln!("{}", describe(&bbr));
    for spec in ["b3r", "b3r:simple=true"] {
        let b3r = stable_link(spec);
        let ratio = b3r.retransmission_ratio / bbr.retransmission_ratio;
        eprintln!("{} ({ratio:.2}x BBR's)", describe(&b3r));
        assert!(
            (0.5..=2.0).contains(&ratio),
            "{spec} retransmits {ratio:.2}x BBR's, outside [0.5, 2]:\n{}\n{}",
            describe(&b3r),
            describe(&bbr)
        );
    }
}
