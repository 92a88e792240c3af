//! BBR-Copilot and live streams in the simulator: the padding rule and the
//! paper's directions on a constant-rate path (the suite `bbrlab reproduce
//! copilot` has the paper's experiments; these pin the mechanism).

use std::time::Duration;

use cc::{Bandwidth, Bytes};
use sim::app::live::LiveConfig;
use sim::app::Application;
use sim::link::{BufferLimit, LossModel, RateModel, RateStep};
use sim::{CopilotConfig, Dumbbell, FlowSummary, RunResult, Simulation};

fn mbps(v: u64) -> Bandwidth {
    Bandwidth::from_mbps(v)
}
fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

fn run(d: Dumbbell) -> RunResult {
    let r = Simulation::new(d.build()).run();
    r.assert_physics();
    r
}

/// A 5.4 Mbit/s live stream of `cc` over `link`, with or without Copilot.
fn live(link: Dumbbell, cc: &str, copilot: bool) -> FlowSummary {
    let d = link
        .flow_with(cc, |f| {
            f.app = Application::Live(LiveConfig::COPILOT_PAPER);
            f.copilot = copilot.then(CopilotConfig::default);
        })
        .unwrap();
    run(d).flows.remove(0)
}

/// The Startup experiment's path without a trace: 37 Mbit/s, 12 Mbit/s
/// uplink, 40 KB buffer, 60 s.
fn startup_path(rtt_ms: u64) -> Dumbbell {
    Dumbbell::new(mbps(37), ms(rtt_ms))
        .uplink(RateModel::Constant(mbps(12)))
        .buffer(BufferLimit::Bytes(Bytes(40_000)))
        .duration(Duration::from_secs(60))
}

#[test]
fn without_copilot_a_live_stream_stays_in_startup_on_a_long_path() {
    let f = live(startup_path(200), "bbr", false);
    assert_eq!(f.startup_exit_s, None, "{f:?}");
    assert_eq!(f.padding_bytes, 0);
    let live = f.live.as_ref().unwrap();
    assert!(live.frames > 1400, "{live:?}");
}

#[test]
fn with_copilot_every_stream_leaves_startup_at_every_rtt() {
    for rtt in [50, 100, 150, 200] {
        let f = live(startup_path(rtt), "bbr", true);
        let exit = f.startup_exit_s.expect("left Startup");
        assert!(exit < 5.0, "{rtt} ms: left Startup only at {exit} s");
        assert!(f.padding_bytes > 0);
    }
}

#[test]
fn padding_is_sent_only_when_app_limited_and_the_gain_is_above_one() {
    // CUBIC has no pacing gain above 1: never pads.
    let cubic = live(startup_path(100), "cubic", true);
    assert_eq!(cubic.padding_bytes, 0);
    // A bulk flow always has data: never pads, and Copilot changes nothing.
    let bulk = |copilot: bool| {
        let d = Dumbbell::new(mbps(20), ms(40))
            .loss(LossModel::Bernoulli { p: 0.01 })
            .duration(Duration::from_secs(20))
            .flow_with("bbr", |f| f.copilot = copilot.then(CopilotConfig::default))
            .unwrap();
        let mut r = run(d);
        r.wall_time_s = 0.0;
        r
    };
    let (with, without) = (bulk(true), bulk(false));
    assert_eq!(with.flows[0].padding_bytes, 0);
    assert_eq!(
        with.flows, without.flows,
        "a bulk flow is bit-identical with Copilot on"
    );
}

#[test]
fn padding_is_never_goodput_nor_retransmitted() {
    // A lossy path: padding is lost too, and never resent.
    let d = startup_path(100).loss(LossModel::Bernoulli { p: 0.02 });
    let with = live(d.clone(), "bbr", true);
    let without = live(d, "bbr", false);
    assert!(with.padding_bytes > 1_000_000, "{with:?}");
    // Goodput is the stream's, whatever the padding.
    let stream = 5.4e6;
    for f in [&with, &without] {
        assert!((f.goodput_bps - stream).abs() < 0.05 * stream, "{f:?}");
    }
    // Retransmitted bytes are stream bytes: at most what the stream lost,
    // though the padding made up much of the bytes lost.
    assert!(with.bytes_retransmitted < with.bytes_lost, "{with:?}");
    assert!(
        with.bytes_retransmitted as f64 <= 1.5 * without.bytes_retransmitted as f64 + 100_000.0
    );
}

#[test]
fn lost_bytes_split_into_padding_and_stream_data_by_phase() {
    let d = startup_path(100).loss(LossModel::Bernoulli { p: 0.02 });
    let with = live(d.clone(), "bbr", true);
    let without = live(d, "bbr", false);
    let (w, wo) = (with.lost_split.unwrap(), without.lost_split.unwrap());
    assert_eq!(wo.padding_bytes, 0, "{without:?}");
    assert!(w.padding_bytes > 100_000, "{with:?}");
    // Kept in Startup without Copilot, every loss is of data sent there.
    assert_eq!(without.startup_exit_s, None);
    assert_eq!(wo.sent_in_startup_bytes, without.bytes_lost, "{without:?}");
    // With Copilot the stream leaves Startup and probes in ProbeBW.
    assert!(w.sent_probing_bytes > 0, "{with:?}");
    let parts = w.padding_bytes + w.sent_in_startup_bytes + w.sent_probing_bytes;
    assert!(parts <= with.bytes_lost, "{with:?}");
    // Only stream data is resent: never more than the stream data lost.
    assert!(with.bytes_retransmitted <= with.bytes_lost - w.padding_bytes);
}

#[test]
fn copilot_lets_bbr_see_a_bandwidth_increase() {
    // Figs. 8-9: 12 -> 24 Mbit/s at 20 s; the estimate's error over 20-40 s.
    let path = |rtt| {
        Dumbbell::new(mbps(12), ms(rtt))
            .rate_model(RateModel::Schedule(vec![
                RateStep {
                    at: Duration::ZERO,
                    rate: mbps(12),
                },
                RateStep {
                    at: Duration::from_secs(20),
                    rate: mbps(24),
                },
            ]))
            .uplink(RateModel::Constant(mbps(12)))
            .buffer(BufferLimit::Bytes(Bytes(40_000)))
            .warmup(Duration::from_secs(20))
            .duration(Duration::from_secs(40))
    };
    for rtt in [50, 200] {
        let error = |copilot| {
            live(path(rtt), "bbr", copilot)
                .bw_estimate_rmse_bps
                .expect("samples")
        };
        let (without, with) = (error(false), error(true));
        assert!(
            with <= 0.5 * without,
            "{rtt} ms: RMSE {with} with vs {without} without"
        );
    }
}

#[test]
fn the_uplink_delays_acks_when_it_is_the_bottleneck() {
    // 64-byte ACKs for every second 1500-byte packet: a 100 kbit/s uplink
    // carries 195 ACKs a second, for ~4.5 Mbit/s of data at steady state
    // (up to twice that while slow start adds a packet per packet acked),
    // and ACKs queue there, so an ACK-clocked sender cannot fill 20 Mbit/s.
    let bulk = |uplink: Option<u64>| {
        let mut d = Dumbbell::new(mbps(20), ms(40)).duration(Duration::from_secs(20));
        if let Some(kbps) = uplink {
            d = d.uplink(RateModel::Constant(Bandwidth::from_kbps(kbps)));
        }
        run(d.flow("cubic").unwrap()).flows.remove(0)
    };
    let free = bulk(None);
    let slow = bulk(Some(100));
    assert!(free.goodput_bps > 18e6, "{free:?}");
    assert!(slow.goodput_bps < 0.6 * free.goodput_bps, "{slow:?}");
    assert!(slow.rtt_ms.p50 > 10.0 * free.rtt_ms.p50, "{slow:?}");
}

#[test]
fn kept_in_startup_bbr_paces_far_above_the_path() {
    // The paper's Fig. 6: a stream that never leaves Startup paces at
    // 2.89x an estimate inflated by bursts, above the path's capacity.
    let d = startup_path(200)
        .flow_with("bbr", |f| {
            f.app = Application::Live(LiveConfig::COPILOT_PAPER)
        })
        .unwrap();
    let r = run(d);
    let f = &r.flows[0];
    assert_eq!(f.startup_exit_s, None);
    let peak = f.startup_peak_pacing_bps.expect("BBR paces in Startup");
    assert!(
        (r.link.capacity_peak_bps - 37e6).abs() < 1e3,
        "{:?}",
        r.link
    );
    assert!(peak > r.link.capacity_peak_bps, "{peak} vs {:?}", r.link);
    // CUBIC has no Startup.
    let cubic = live(startup_path(200), "cubic", false);
    assert_eq!(cubic.startup_peak_pacing_bps, None);
}
