//! BBRv2, adaptive BBRv2 and BBRv3 against BBRv1: Drucker et al.'s headline
//! effect (BBRv2's goodput collapses under persistent random loss at a
//! large BDP, and resetting inflight_hi at every PROBE_REFILL fixes it), the
//! oBBR paper's observation that BBRv2 retransmits far less than BBRv1 in a
//! shallow buffer, and BBRv3 running the same scenarios. Every run is
//! deterministic.

use std::time::Duration;

use cc::{Bandwidth, Bytes};
use sim::link::{BufferLimit, LossModel};
use sim::{Dumbbell, FlowSummary, RunResult, Simulation};

fn run(d: Dumbbell) -> RunResult {
    let r = Simulation::new(d.build()).run();
    r.assert_physics();
    r
}

fn mbps(bps: f64) -> f64 {
    bps / 1e6
}

/// Drucker et al.'s large-BDP condition (Fig. 2, 5, 7): 100 ms, a 2 MB
/// buffer, 2% random loss, five minutes (their runs' length, §III-A; the
/// collapse is a ratchet that takes minutes to play out). 100 Mbit/s
/// instead of their 500 keeps the run cheap; the BDP (1.25 MB) is still
/// large.
fn lossy_large_bdp(spec: &str) -> FlowSummary {
    lossy_two_mb_buffer(spec, 100, Bytes::ZERO, 300)
}

/// One flow of `spec` over 100 ms, a 2 MB buffer and 2% random loss.
fn lossy_two_mb_buffer(spec: &str, rate_mbps: u64, burst: Bytes, secs: u64) -> FlowSummary {
    let r = run(
        Dumbbell::new(Bandwidth::from_mbps(rate_mbps), Duration::from_millis(100))
            .buffer(BufferLimit::Bytes(Bytes(2_000_000)))
            .burst(burst)
            .loss(LossModel::Bernoulli { p: 0.02 })
            .duration(Duration::from_secs(secs))
            .sample_interval(Duration::from_secs(1))
            .flow(spec)
            .unwrap(),
    );
    r.flows[0].clone()
}

/// The oBBR paper's shallow-buffer condition (Fig. 7): 40 Mbit/s, 100 ms,
/// a quarter-BDP buffer, no random loss.
fn shallow_buffer(spec: &str) -> FlowSummary {
    let r = run(
        Dumbbell::new(Bandwidth::from_mbps(40), Duration::from_millis(100))
            .buffer_bdp(0.25)
            .duration(Duration::from_secs(60))
            .flow(spec)
            .unwrap(),
    );
    r.flows[0].clone()
}

#[test]
fn bbr2_goodput_collapses_under_two_percent_random_loss_at_a_large_bdp() {
    let v1 = lossy_large_bdp("bbr");
    let v2 = lossy_large_bdp("bbr2");
    println!(
        "BBRv1 {:.2} Mbit/s, BBRv2 {:.2} Mbit/s",
        mbps(v1.goodput_bps),
        mbps(v2.goodput_bps)
    );
    assert!(
        v2.goodput_bps <= 0.30 * v1.goodput_bps,
        "BBRv2 {:.2} Mbit/s > 30% of BBRv1's {:.2} Mbit/s",
        mbps(v2.goodput_bps),
        mbps(v1.goodput_bps)
    );
}

/// Drucker et al.'s LAN exactly (Figs. 5-7): 500 Mbit/s, 100 ms, a 2 MB
/// buffer behind a tc token bucket with a 1 MB burst, 2% random loss. Two
/// minutes: both collapses are over within one.
fn papers_lossy_lan(spec: &str) -> FlowSummary {
    lossy_two_mb_buffer(spec, 500, Bytes(1_000_000), 120)
}

/// Adaptive BBRv2 at `spec` keeps at least 80% of BBRv1's goodput with at
/// most half its retransmitted bytes on the paper's lossy LAN.
fn assert_adaptive_matches_the_paper(spec: &str) {
    let v1 = papers_lossy_lan("bbr");
    let adaptive = papers_lossy_lan(spec);
    println!(
        "BBRv1 {:.2} Mbit/s {} B retransmitted; {spec} {:.2} Mbit/s {} B",
        mbps(v1.goodput_bps),
        v1.bytes_retransmitted,
        mbps(adaptive.goodput_bps),
        adaptive.bytes_retransmitted
    );
    assert!(
        adaptive.goodput_bps >= 0.80 * v1.goodput_bps,
        "{spec} {:.2} Mbit/s < 80% of BBRv1's {:.2} Mbit/s",
        mbps(adaptive.goodput_bps),
        mbps(v1.goodput_bps)
    );
    assert!(
        adaptive.bytes_retransmitted as f64 <= 0.50 * v1.bytes_retransmitted as f64,
        "{spec} retransmitted {} B > 50% of BBRv1's {} B",
        adaptive.bytes_retransmitted,
        v1.bytes_retransmitted
    );
}

#[test]
#[ignore = "does not reproduce: on the paper's LAN (500 Mbit/s, 100 ms, 2 MB, 1 MB burst, 2% loss, \
            120 s, seeds 1-3) BBRv1 gets 463.9 Mbit/s retransmitting 6.68%, bbr2-adaptive 32.4 Mbit/s \
            (2.05%), above BBRv2's 19.2 but far below BBRv1. With 2% loss against a 2% threshold about \
            half of a probe's loss samples lie above it, every PROBE_UP ends within a few ACKs, no sample \
            exceeds the current rate, and max_bw, to which the bound is reset at each REFILL, decays. \
            The retransmission half holds. With probes clear of the loss (loss_thresh=0.05) the fix works: \
            see the next test and docs/ALGORITHMS.md"]
fn adaptive_bbr2_recovers_most_of_bbr1s_goodput_with_half_its_retransmissions() {
    assert_adaptive_matches_the_paper("bbr2-adaptive");
}

#[test]
fn adaptive_bbr2_recovers_bbr1s_goodput_once_its_probes_clear_the_random_loss() {
    // The reset at REFILL is the paper's mechanism; it restores goodput as
    // soon as a 2% random loss no longer ends every PROBE_UP. A 5% loss
    // threshold is the smallest that does so for every seed of the
    // example sweep (3% leaves one seed whose Startup exits at 36 Mbit/s).
    assert_adaptive_matches_the_paper("bbr2-adaptive:loss_thresh=0.05");
}

/// Adaptive BBRv2's inflight_hi on the paper's LAN (500 Mbit/s, 100 ms,
/// 2 MB buffer, 1 MB burst) at `loss` random loss over two minutes, seed 1:
/// the mean inflight_hi in packets over 12-36 s and over 96-120 s, and how
/// many probes crossed the loss threshold in the second minute.
fn adaptive_bound_on_the_papers_lan(spec: &str, loss: f64) -> (f64, f64, f64) {
    let r = run(
        Dumbbell::new(Bandwidth::from_mbps(500), Duration::from_millis(100))
            .buffer(BufferLimit::Bytes(Bytes(2_000_000)))
            .burst(Bytes(1_000_000))
            .loss(LossModel::Bernoulli { p: loss })
            .duration(Duration::from_secs(120))
            .sample_interval(Duration::from_secs(1))
            .seed(1)
            .flow(spec)
            .unwrap(),
    );
    let value = |s: &sim::FlowSample, name: &str| {
        s.controller
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("{spec} traces no {name}"))
    };
    let mean_hi = |from: f64, to: f64| {
        let v: Vec<f64> = r
            .series
            .flows
            .iter()
            .filter(|s| s.t_s >= from && s.t_s <= to)
            .map(|s| value(s, "inflight_hi") / 1500.0)
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let crossings_at = |t: f64| {
        r.series
            .flows
            .iter()
            .rfind(|s| s.t_s <= t)
            .map_or(0.0, |s| value(s, "probes_too_high"))
    };
    let out = (
        mean_hi(12.0, 36.0),
        mean_hi(96.0, 120.0),
        crossings_at(120.0) - crossings_at(60.0),
    );
    println!(
        "{spec} at {loss}: inflight_hi {:.0} then {:.0} packets, {} threshold crossings in the second minute",
        out.0, out.1, out.2
    );
    out
}

#[test]
fn adaptive_bbr2_keeps_a_steady_bound_below_the_loss_threshold() {
    // Drucker et al., Fig. 6: adaptive BBRv2's inflight_hi "remains steady
    // throughout the flow" and "the loss threshold is never exceeded". The
    // default reset (one BDP at max_bw, the abstract's reading) does that
    // at 1% and 1.5% loss (at 2% no reading does: see the ignored test
    // above); the latest round's inflight (`reset_to=0`, the
    // reading of §V-B b) is CRUISE's volume, 15% under the bound, so each
    // cycle's probe runs into the threshold (1%) or the bound falls away
    // (1.5%).
    for loss in [0.01, 0.015] {
        let (early, late, crossings) = adaptive_bound_on_the_papers_lan("bbr2-adaptive", loss);
        assert!(
            late >= 0.9 * early && late <= 1.1 * early,
            "at {loss}: inflight_hi {early:.0} then {late:.0} packets, not steady"
        );
        assert!(
            late >= 4167.0,
            "at {loss}: inflight_hi {late:.0} packets is below the BDP (4167)"
        );
        // At 1% not once; at 1.5% a probe now and then (one in the minute).
        let allowed = if loss < 0.0125 { 0.0 } else { 1.0 };
        assert!(
            crossings <= allowed,
            "at {loss}: the threshold was crossed {crossings} times in a minute"
        );
    }
    let (_, _, crossings) = adaptive_bound_on_the_papers_lan("bbr2-adaptive:reset_to=0", 0.01);
    assert!(
        crossings >= 5.0,
        "reset_to=0 at 1%: {crossings} crossings in a minute"
    );
    let (early, late, _) = adaptive_bound_on_the_papers_lan("bbr2-adaptive:reset_to=0", 0.015);
    assert!(
        late <= 0.1 * early,
        "reset_to=0 at 1.5%: inflight_hi {early:.0} then {late:.0} packets"
    );
}

#[test]
fn removing_the_upper_bound_restores_goodput_under_random_loss() {
    // Drucker et al. §V-A: with a 1000% loss threshold inflight_hi is never
    // set and BBRv2 keeps its goodput; the upper bound is what collapses.
    let v2 = lossy_large_bdp("bbr2");
    let unbounded = lossy_large_bdp("bbr2-adaptive:no_upper_bound=true");
    println!(
        "BBRv2 {:.2} Mbit/s, no upper bound {:.2} Mbit/s",
        mbps(v2.goodput_bps),
        mbps(unbounded.goodput_bps)
    );
    assert!(
        unbounded.goodput_bps >= 5.0 * v2.goodput_bps,
        "no upper bound {:.2} Mbit/s < 5x BBRv2's {:.2} Mbit/s",
        mbps(unbounded.goodput_bps),
        mbps(v2.goodput_bps)
    );
    assert!(
        unbounded.goodput_bps >= 0.6e8,
        "no upper bound {:.2} Mbit/s on a 100 Mbit/s link",
        mbps(unbounded.goodput_bps)
    );
}

#[test]
fn bbr2_retransmits_far_less_than_bbr1_in_a_shallow_buffer() {
    let v1 = shallow_buffer("bbr");
    let v2 = shallow_buffer("bbr2");
    println!(
        "retransmission ratio: BBRv1 {:.4}, BBRv2 {:.4}",
        v1.retransmission_ratio, v2.retransmission_ratio
    );
    assert!(
        v2.retransmission_ratio <= 0.5 * v1.retransmission_ratio,
        "BBRv2 {:.4} not well below BBRv1 {:.4}",
        v2.retransmission_ratio,
        v1.retransmission_ratio
    );
    assert!(
        v2.goodput_bps >= 0.9 * v1.goodput_bps,
        "and without giving up goodput: {:.2} vs {:.2} Mbit/s",
        mbps(v2.goodput_bps),
        mbps(v1.goodput_bps)
    );
}

#[test]
fn bbr3_runs_the_lossy_and_shallow_scenarios() {
    let lossy = lossy_large_bdp("bbr3");
    let shallow = shallow_buffer("bbr3");
    let linux = shallow_buffer("bbr3:drain_gain=0.35,down_gain=0.91,drain_round_cap=false");
    println!(
        "BBRv3: 2% loss {:.2} Mbit/s (retx {:.4}); 0.25 BDP {:.2} Mbit/s (retx {:.4}); \
         Linux gains {:.2} Mbit/s (retx {:.4})",
        mbps(lossy.goodput_bps),
        lossy.retransmission_ratio,
        mbps(shallow.goodput_bps),
        shallow.retransmission_ratio,
        mbps(linux.goodput_bps),
        linux.retransmission_ratio
    );
    for f in [&lossy, &shallow, &linux] {
        assert!(f.bytes_delivered > 0 && f.goodput_bps > 0.0, "{f:?}");
        assert!(f.goodput_bps.is_finite() && f.retransmission_ratio.is_finite());
    }
    assert!(
        shallow.goodput_bps >= 0.85 * 40e6,
        "{:.2}",
        mbps(shallow.goodput_bps)
    );
}

#[test]
fn bbr3_keeps_a_clean_one_bdp_link_busy() {
    let r = run(
        Dumbbell::new(Bandwidth::from_mbps(40), Duration::from_millis(100))
            .buffer_bdp(1.0)
            .duration(Duration::from_secs(60))
            .warmup(Duration::from_secs(5))
            .flow("bbr3")
            .unwrap(),
    );
    println!(
        "BBRv3 utilization {:.4}, median RTT {:.1} ms",
        r.link.utilization, r.flows[0].rtt_ms.p50
    );
    assert!(
        r.link.utilization >= 0.90,
        "utilization {:.4}",
        r.link.utilization
    );
}
