//! Behaviour the foundation must show: the classic BBRv1 and CUBIC
//! signatures that the papers start from. Every run is deterministic.

use std::path::PathBuf;
use std::time::Duration;

use cc::{Bandwidth, Bytes};
use sim::link::{BufferLimit, LossModel, MahimahiTrace, RateModel, RateStep};
use sim::{Dumbbell, RunResult, Simulation};

fn mbps(v: u64) -> Bandwidth {
    Bandwidth::from_mbps(v)
}
fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}
fn secs(v: u64) -> Duration {
    Duration::from_secs(v)
}
fn run(d: Dumbbell) -> RunResult {
    let r = Simulation::new(d.build()).run();
    r.assert_physics();
    r
}

#[test]
fn bbr_fills_a_deep_pipe_without_a_standing_queue() {
    let r = run(Dumbbell::new(mbps(20), ms(40))
        .buffer_bdp(2.0)
        .duration(secs(30))
        .warmup(secs(2))
        .flow("bbr")
        .unwrap());
    let f = &r.flows[0];
    assert!(
        r.link.utilization >= 0.95,
        "utilization {:.3}",
        r.link.utilization
    );
    assert!(
        f.rtt_ms.p50 < 80.0,
        "median RTT {:.1} ms >= 2x base",
        f.rtt_ms.p50
    );
}

#[test]
fn cubic_fills_the_pipe_and_the_buffer() {
    let r = run(Dumbbell::new(mbps(20), ms(40))
        .buffer_bdp(2.0)
        .duration(secs(30))
        .warmup(secs(2))
        .flow("cubic")
        .unwrap());
    let f = &r.flows[0];
    assert!(
        r.link.utilization >= 0.90,
        "utilization {:.3}",
        r.link.utilization
    );
    assert!(
        f.rtt_ms.p95 >= 60.0,
        "RTT p95 {:.1} ms < 1.5x base: the buffer was not filled",
        f.rtt_ms.p95
    );
}

#[test]
fn bbr_retransmits_heavily_in_a_shallow_buffer_where_cubic_does_not() {
    let link = || {
        Dumbbell::new(mbps(40), ms(100))
            .buffer_bdp(0.25)
            .duration(secs(60))
    };
    let bbr = run(link().flow("bbr").unwrap());
    let cubic = run(link().flow("cubic").unwrap());
    let (b, c) = (
        bbr.flows[0].retransmission_ratio,
        cubic.flows[0].retransmission_ratio,
    );
    assert!(b >= 0.005, "BBR retransmission ratio {b:.4} < 0.5%");
    assert!(b >= 5.0 * c, "BBR {b:.4} < 5x CUBIC {c:.4}");
}

#[test]
fn random_loss_cripples_cubic_but_not_bbr() {
    let link = || {
        Dumbbell::new(mbps(40), ms(100))
            .buffer_bdp(1.0)
            .loss(LossModel::Bernoulli { p: 0.01 })
            .duration(secs(60))
            .warmup(secs(5))
    };
    let cubic = run(link().flow("cubic").unwrap());
    let bbr = run(link().flow("bbr").unwrap());
    let capacity = 40e6;
    assert!(
        cubic.flows[0].goodput_bps <= 0.25 * capacity,
        "CUBIC {:.2} Mbit/s",
        cubic.flows[0].goodput_bps / 1e6
    );
    assert!(
        bbr.flows[0].goodput_bps >= 0.80 * capacity,
        "BBR {:.2} Mbit/s",
        bbr.flows[0].goodput_bps / 1e6
    );
}

fn bbr_share_against_cubic(buffer_bdp: f64) -> f64 {
    let r = run(Dumbbell::new(mbps(20), ms(40))
        .buffer_bdp(buffer_bdp)
        .duration(secs(120))
        .warmup(secs(10))
        .flow("bbr")
        .unwrap()
        .flow("cubic")
        .unwrap());
    r.flows[0].goodput_bps / (r.flows[0].goodput_bps + r.flows[1].goodput_bps)
}

#[test]
fn bbr_starves_cubic_in_a_shallow_buffer() {
    let share = bbr_share_against_cubic(0.5);
    assert!(share >= 0.80, "BBR share {share:.3} at 0.5 BDP");
}

#[test]
fn cubic_holds_its_own_in_a_deep_buffer() {
    let share = bbr_share_against_cubic(8.0);
    assert!(
        1.0 - share >= 0.40,
        "CUBIC share {:.3} at 8 BDP",
        1.0 - share
    );
}

#[test]
fn bbr_queues_up_before_its_estimate_follows_a_bandwidth_drop() {
    // oBBR Fig. 4: 20 -> 5 Mbit/s at 10 s, 100 ms, 200 KB buffer.
    let schedule = RateModel::Schedule(vec![
        RateStep {
            at: Duration::ZERO,
            rate: mbps(20),
        },
        RateStep {
            at: secs(10),
            rate: mbps(5),
        },
    ]);
    let r = run(Dumbbell::new(mbps(20), ms(100))
        .rate_model(schedule)
        .buffer(BufferLimit::Bytes(Bytes(200_000)))
        .duration(secs(20))
        .flow("bbr")
        .unwrap());
    let after: Vec<_> = r.series.flows.iter().filter(|s| s.t_s >= 10.0).collect();
    let rtt_high = after
        .iter()
        .find(|s| s.latest_rtt_ms > 300.0)
        .expect("RTT exceeded 3x base")
        .t_s;
    let bw_fell = after
        .iter()
        .find(|s| s.bw_estimate_bps < 10e6)
        .expect("estimate fell")
        .t_s;
    assert!(
        rtt_high < bw_fell,
        "RTT > 3x base at {rtt_high:.2}s, estimate fell at {bw_fell:.2}s"
    );
}

fn traces() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/traces")
}

#[test]
fn bbr_uses_a_cellular_trace() {
    let path = traces().join("mahimahi/TMobile-LTE-short.down");
    let trace = MahimahiTrace::from_file(&path).expect("trace loads");
    let mean = trace.mean_rate();
    let r = run(Dumbbell::new(mean, ms(40))
        .rate_model(RateModel::Mahimahi(trace))
        .buffer_bdp(2.0)
        .duration(secs(60))
        .warmup(secs(5))
        .flow("bbr")
        .unwrap());
    assert!(
        r.link.utilization >= 0.80,
        "BBR used {:.3} of the trace's capacity",
        r.link.utilization
    );
}

#[test]
fn same_scenario_and_seed_give_identical_results() {
    // BBRv1, and bbrlab's own controller, each beside CUBIC.
    for spec in ["bbr", "tempered-bbr"] {
        assert_deterministic(spec);
    }
}

fn assert_deterministic(spec: &str) {
    let scenario = || {
        Dumbbell::new(mbps(30), ms(60))
            .buffer_bdp(0.5)
            .loss(LossModel::GilbertElliott {
                p: 0.01,
                r: 0.3,
                loss_good: 0.0,
                loss_bad: 0.5,
            })
            .duration(secs(20))
            .seed(42)
            .flow(spec)
            .unwrap()
            .flow("cubic")
            .unwrap()
    };
    let mut a = run(scenario());
    let mut b = run(scenario());
    a.wall_time_s = 0.0;
    b.wall_time_s = 0.0;
    assert_eq!(a, b, "{spec}");
    assert_eq!(a.series, b.series, "{spec}");
    let mut c = run(scenario().seed(43));
    c.wall_time_s = 0.0;
    assert_ne!(a.flows, c.flows, "{spec}: another seed gives another run");
}

#[test]
fn a_sized_transfer_completes_and_stops_the_run() {
    let r = run(Dumbbell::new(mbps(20), ms(40))
        .duration(secs(60))
        .stop_when_done(true)
        .flow_with("bbr", |f| f.size = Some(Bytes(10_000_000)))
        .unwrap());
    let f = &r.flows[0];
    let t = f.completion_time_s.expect("transfer completed");
    assert_eq!(f.bytes_delivered, 10_000_000);
    // 10 MB at 20 Mbit/s is 4 s of serialisation, plus Startup.
    assert!(t > 4.0 && t < 6.0, "completion {t:.2}s");
    assert!(
        r.sim_time_s < 7.0,
        "the run stopped at completion ({:.2}s)",
        r.sim_time_s
    );
}

#[test]
fn bbr_holds_its_rate_through_steady_random_loss() {
    // BBR ignores loss below ~20% (Cardwell et al. 2016, Fig. 8); losses in
    // every round must not turn into a round of packet conservation each.
    for loss in [0.02, 0.05] {
        let r = run(Dumbbell::new(mbps(100), ms(100))
            .buffer(BufferLimit::Bytes(Bytes(2_000_000)))
            .loss(LossModel::Bernoulli { p: loss })
            .duration(secs(60))
            .warmup(secs(5))
            .flow("bbr")
            .unwrap());
        let goodput = r.flows[0].goodput_bps;
        assert!(
            goodput >= 0.85 * 100e6,
            "{:.1}% loss: {:.2} Mbit/s",
            loss * 100.0,
            goodput / 1e6
        );
    }
}
