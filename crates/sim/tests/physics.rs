//! Physics holds at the edges where accounting slips: windows opening on a
//! burst of mahimahi opportunities, a full token bucket, flows that start
//! late or finish early, heavy random loss (data held behind holes at the
//! receiver), capacity dropping to zero and back, and tiny windows.
//!
//! Every other simulation test checks the same invariants after its run
//! (`RunResult::assert_physics`); these configurations exist to provoke them.

use std::path::Path;
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

fn check(d: Dumbbell) -> RunResult {
    let r = Simulation::new(d.build()).run();
    r.assert_physics();
    assert!(r.link.utilization <= 1.0);
    r
}

/// Bursts of ten opportunities every 100 ms, windows opening and closing
/// exactly on a burst: mm-style links once showed utilization 1.0023.
#[test]
fn sparse_opportunities_at_the_window_edges() {
    let text = "0\n".repeat(10) + "100\n";
    let trace = MahimahiTrace::parse(&text, Path::new("bursts.down")).unwrap();
    for seed in 1..=5 {
        for spec in ["bbr", "cubic", "bbr2", "obbr"] {
            let r = check(
                Dumbbell::new(mbps(1), ms(40))
                    .rate_model(RateModel::Mahimahi(trace.clone()))
                    .buffer(BufferLimit::Packets(30))
                    .warmup(ms(1000))
                    .duration(ms(3000))
                    .seed(seed)
                    .flow(spec)
                    .unwrap()
                    .flow("cubic")
                    .unwrap(),
            );
            assert!(r.link.utilization > 0.5, "{spec}: {}", r.link.utilization);
        }
    }
}

/// A 100 KB bucket that refills while sized flows pause between transfers.
#[test]
fn a_full_token_bucket_at_the_window_start() {
    for warmup in [0, 500, 1000] {
        check(
            Dumbbell::new(mbps(20), ms(20))
                .burst(Bytes(100_000))
                .buffer_bdp(1.0)
                .warmup(ms(warmup))
                .duration(ms(3000))
                .flow_with("cubic", |f| {
                    f.size = Some(Bytes(200_000));
                })
                .unwrap()
                .flow_with("bbr", |f| {
                    f.start = ms(1500);
                    f.size = Some(Bytes(300_000));
                })
                .unwrap(),
        );
    }
}

/// Flows whose windows differ (late starts, early completions): each
/// window's bytes are bytes the link carried in it.
#[test]
fn staggered_and_finished_flows() {
    let r = check(
        Dumbbell::new(mbps(50), ms(30))
            .buffer_bdp(2.0)
            .warmup(ms(200))
            .duration(ms(6000))
            .flow("bbr")
            .unwrap()
            .flow_with("cubic", |f| f.start = ms(2000))
            .unwrap()
            .flow_with("bbr2", |f| {
                f.start = ms(100);
                f.size = Some(Bytes(2_000_000));
            })
            .unwrap(),
    );
    assert!(r.flows[2].completion_time_s.is_some());
}

/// Heavy random loss keeps data waiting behind holes at the receiver when
/// the window opens; it must not be credited to the window.
#[test]
fn heavy_loss_and_data_held_behind_holes() {
    for seed in 1..=4 {
        check(
            Dumbbell::new(mbps(100), ms(40))
                .buffer_bdp(1.0)
                .loss(LossModel::Bernoulli { p: 0.1 })
                .warmup(ms(1000))
                .duration(ms(1500))
                .seed(seed)
                .flow_with("bbr", |f| f.count = 5)
                .unwrap()
                .flow_with("cubic", |f| f.count = 5)
                .unwrap(),
        );
    }
}

/// Capacity that drops to zero and comes back, with a window opening in
/// the outage.
#[test]
fn an_outage_across_the_window_start() {
    let steps = vec![
        RateStep {
            at: ms(0),
            rate: mbps(40),
        },
        RateStep {
            at: ms(900),
            rate: Bandwidth::ZERO,
        },
        RateStep {
            at: ms(1300),
            rate: mbps(10),
        },
    ];
    check(
        Dumbbell::new(mbps(40), ms(60))
            .rate_model(RateModel::Schedule(steps))
            .buffer_bdp(1.0)
            .warmup(ms(1000))
            .duration(ms(4000))
            .flow("bbr")
            .unwrap()
            .flow("cubic")
            .unwrap(),
    );
}

/// A window of a few packets' time, where one packet of slack would show.
#[test]
fn tiny_windows() {
    for (warmup, duration) in [(999, 1000), (1000, 1001), (0, 1), (5, 5)] {
        check(
            Dumbbell::new(mbps(10), ms(10))
                .warmup(ms(warmup))
                .duration(ms(duration))
                .flow("cubic")
                .unwrap()
                .flow("bbr")
                .unwrap(),
        );
    }
}

/// ACKs behind the data queue (`acks_share_queue`, a loopback testbed whose
/// qdisc shapes both directions): a full drop-tail buffer of one BDP delays
/// the data and then its ACK, so CUBIC's RTT at a full buffer is about three
/// base RTTs instead of two; the ACKs stay in order and physics holds.
#[test]
fn acks_behind_the_data_queue_wait_for_it() {
    let run = |shared: bool| {
        check(
            Dumbbell::new(mbps(10), ms(40))
                .buffer_bdp(1.0)
                .warmup(Duration::from_secs(5))
                .duration(Duration::from_secs(30))
                .acks_share_queue(shared)
                .flow("cubic")
                .unwrap(),
        )
    };
    let (alone, shared) = (run(false), run(true));
    let p99 = |r: &RunResult| r.flows[0].rtt_ms.p99;
    assert!(p99(&alone) > 70.0 && p99(&alone) < 85.0, "{}", p99(&alone));
    assert!(
        p99(&shared) > 105.0 && p99(&shared) < 125.0,
        "{}",
        p99(&shared)
    );
    assert!(shared.link.utilization > 0.9, "{}", shared.link.utilization);
}
