//! oBBR's headline effects (Bi et al., USENIX ATC 2023, §5.2), reproduced on
//! the simulator's dumbbell with the paper's tc settings: a token bucket of
//! 100 KB at the bottleneck (tc `burst`), which lets bursts through at line
//! rate and so inflates BBR's bandwidth samples.
//!
//! Definitions as DESIGN.md fixes them: goodput = application bytes
//! delivered in order / measurement time; retransmission ratio =
//! retransmitted bytes / delivered bytes (the paper's definition).

use std::time::Duration;

use cc::{Bandwidth, Bytes};
use sim::link::{BufferLimit, LossModel, RateModel, RateStep};
use sim::results::FlowSummary;
use sim::{Dumbbell, RunResult, Simulation};

/// The paper's transfer: a 1 GB file (§5.2).
const FILE: Bytes = Bytes(1_000_000_000);
/// tc `burst` in every tc experiment of the paper (§5.1).
const TC_BURST: Bytes = Bytes(100_000);

fn mbps(v: u64) -> Bandwidth {
    Bandwidth::from_mbps(v)
}

fn run(d: Dumbbell) -> RunResult {
    let r = Simulation::new(d.build()).run();
    r.assert_physics();
    r
}

/// §5.2.1's stable link: 40 Mbit/s, 100 ms, buffer R = 0.25 BDP, and one
/// 1 GB transfer with `spec` (the run ends when it completes, or after
/// 3000 s for a controller that cannot finish).
fn transfer_on_stable_link(spec: &str, random_loss: f64) -> FlowSummary {
    let mut link = Dumbbell::new(mbps(40), Duration::from_millis(100))
        .buffer_bdp(0.25)
        .burst(TC_BURST)
        .duration(Duration::from_secs(3000))
        .stop_when_done(true);
    if random_loss > 0.0 {
        link = link.loss(LossModel::Bernoulli { p: random_loss });
    }
    let r = run(link.flow_with(spec, |f| f.size = Some(FILE)).unwrap());
    r.flows[0].clone()
}

/// oBBR as the paper's testbed ran it: the authors' nginx code at its May
/// 2023 revisions (the artifact's test and figure scripts date from then),
/// whose bandwidth-drop trigger is any loss after 30 ProbeBW samples
/// (a sample is "low" below BtlBw / 0.75) and whose new estimate is the max
/// of the 30 latest samples. See the `obbr` module essay.
const OBBR_AS_TESTED: &str = "obbr:mu=0.5,code=true,low_ratio=1.3333,estimate_max=true";

#[test]
fn obbr_retransmits_a_fifth_of_bbrs_in_a_shallow_bursty_buffer() {
    // Measured (1 GB, seed 1): BBRv1 3.76%, oBBR as tested 0.70% (0.19x),
    // goodput 37.5 Mbit/s each. The token bucket refills whenever the link
    // idles, so BBR's next probe reads ~47.8 Mbit/s and its estimate
    // overshoots the 0.25 BDP buffer for ten rounds; the tested code resets
    // that estimate to what the latest samples delivered at the next loss.
    let bbr = transfer_on_stable_link("bbr", 0.0);
    let obbr = transfer_on_stable_link(OBBR_AS_TESTED, 0.0);
    let (b, o) = (bbr.retransmission_ratio, obbr.retransmission_ratio);
    assert!(b > 0.0, "BBRv1 retransmitted nothing");
    assert!(
        o <= b / 5.0,
        "oBBR retransmission ratio {:.3}% > 1/5 of BBRv1's {:.3}%",
        o * 100.0,
        b * 100.0
    );
    assert!(
        obbr.goodput_bps >= 0.85 * 40e6,
        "oBBR goodput {:.2} Mbit/s < 85% of 40 Mbit/s",
        obbr.goodput_bps / 1e6
    );
}

#[test]
fn obbr_as_the_paper_writes_it_cuts_fewer_burst_retransmissions() {
    // The paper's text (and the code's final revision) only counts samples
    // below 0.75 x BtlBw, which a ~20% burst overestimate never produces:
    // measured 1.27% against BBRv1's 3.76% (0.34x). Pinned so that a change
    // in either direction is noticed and documented.
    let bbr = transfer_on_stable_link("bbr", 0.0);
    let paper = transfer_on_stable_link("obbr:mu=0.5", 0.0);
    let tested = transfer_on_stable_link(OBBR_AS_TESTED, 0.0);
    let ratio = paper.retransmission_ratio / bbr.retransmission_ratio;
    assert!(
        (0.2..0.6).contains(&ratio),
        "paper-mode oBBR / BBRv1 retransmission ratio {ratio:.2}, expected between 0.2 and 0.6"
    );
    assert!(tested.retransmission_ratio < paper.retransmission_ratio);
}

#[test]
fn obbr_keeps_its_goodput_under_random_loss_where_bbrv2_collapses() {
    // §5.2.1: with 2% random loss BBRv2 keeps cutting inflight_hi and
    // bw_lo; oBBR reads the empty queue at each loss (g near 1) and keeps
    // sending at its estimate. (Needs `bbr2` registered.)
    let bbr2 = transfer_on_stable_link("bbr2", 0.02);
    let obbr = transfer_on_stable_link("obbr:mu=0.5", 0.02);
    assert!(
        obbr.goodput_bps >= 5.0 * bbr2.goodput_bps,
        "oBBR {:.2} Mbit/s < 5 x BBRv2 {:.2} Mbit/s",
        obbr.goodput_bps / 1e6,
        bbr2.goodput_bps / 1e6
    );
}

/// §5.2.2: 40 and 10 Mbit/s alternating every 10 s, 100 ms, 300 KB buffer.
fn alternating_link(spec: &str) -> RunResult {
    let steps = (0..6u64)
        .map(|i| RateStep {
            at: Duration::from_secs(10 * i),
            rate: if i % 2 == 0 { mbps(40) } else { mbps(10) },
        })
        .collect();
    run(Dumbbell::new(mbps(40), Duration::from_millis(100))
        .rate_model(RateModel::Schedule(steps))
        .buffer(BufferLimit::Bytes(Bytes(300_000)))
        .burst(TC_BURST)
        .duration(Duration::from_secs(60))
        .flow(spec)
        .unwrap())
}

#[test]
fn obbr_follows_bandwidth_drops_and_retransmits_less_than_bbr() {
    let bbr = alternating_link("bbr");
    let obbr = alternating_link("obbr:mu=0.5");
    let (b, o) = (&bbr.flows[0], &obbr.flows[0]);
    assert!(
        o.bytes_retransmitted as f64 <= 0.6 * b.bytes_retransmitted as f64,
        "oBBR retransmitted {} B > 60% of BBRv1's {} B",
        o.bytes_retransmitted,
        b.bytes_retransmitted
    );
    assert!(
        o.goodput_bps >= 0.9 * b.goodput_bps,
        "oBBR goodput {:.2} Mbit/s < 90% of BBRv1's {:.2} Mbit/s",
        o.goodput_bps / 1e6,
        b.goodput_bps / 1e6
    );
    // After each drop to 10 Mbit/s the estimate comes within 25% of it
    // within 3 s (the paper: ~2 s for oBBR, ~6 s for BBR).
    let new_rate = 10e6;
    for drop_at in [10.0, 30.0, 50.0] {
        let reached = obbr
            .series
            .flows
            .iter()
            .filter(|s| s.t_s >= drop_at && s.t_s < drop_at + 10.0)
            .find(|s| (s.bw_estimate_bps - new_rate).abs() <= 0.25 * new_rate)
            .map(|s| s.t_s - drop_at)
            .unwrap_or(f64::INFINITY);
        assert!(
            reached <= 3.0,
            "drop at {drop_at} s: estimate within 25% of 10 Mbit/s only after {reached:.2} s"
        );
    }
}
