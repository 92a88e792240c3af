//! DASH sessions in the simulator: the player fetches one segment at a
//! time over the simulated connection, and what the viewer sees follows the
//! path (the suites' fig14-dash and table5-dash have the papers' experiments).

use std::time::Duration;

use cc::{Bandwidth, Bytes};
use sim::app::dash::abr::Rule;
use sim::app::dash::log::Outcome;
use sim::app::dash::{AbrStrategy, DashConfig, DashSummary};
use sim::app::Application;
use sim::link::{BufferLimit, LossModel, RateModel, RateStep};
use sim::{Dumbbell, FlowSummary, RunResult, Simulation};

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

fn run(d: Dumbbell) -> RunResult {
    let r = Simulation::new(d.build()).run();
    r.assert_physics();
    r
}

/// The oBBR paper's video, `video` long, with `abr`, as flow 0 of `cc` over `link`.
fn session(link: Dumbbell, cc: &str, video: Duration, abr: AbrStrategy) -> RunResult {
    let d = link
        .flow_with(cc, |f| {
            f.app = Application::Dash(DashConfig {
                video,
                abr,
                ..DashConfig::obbr_paper()
            });
        })
        .unwrap();
    run(d)
}

fn dash(f: &FlowSummary) -> &DashSummary {
    f.dash.as_ref().expect("a DASH flow has a DASH summary")
}

fn path(mbit: u64, rtt_ms: u64) -> Dumbbell {
    Dumbbell::new(Bandwidth::from_mbps(mbit), ms(rtt_ms))
        .buffer_bdp(1.0)
        .duration(Duration::from_secs(400))
}

#[test]
fn a_fast_path_streams_the_whole_video_near_the_top_without_stalls() {
    let link = path(50, 50).stop_when_done(true);
    let r = session(link, "bbr", Duration::from_secs(120), AbrStrategy::Dynamic);
    let d = dash(&r.flows[0]);
    assert!(d.complete, "{d:?}");
    assert_eq!(d.segments, 30);
    assert_eq!(d.stalls, 0, "{d:?}");
    assert!(d.aq > 8.0, "{d:?}");
    // The session stops the run once every segment is in.
    assert!(r.sim_time_s < 125.0, "{}", r.sim_time_s);
    // Playback started after one request round trip and the first segment.
    assert!(d.startup_delay_s > 0.05, "{d:?}");
    assert!(d.rb.unwrap() < 0.02, "{d:?}");
    // The player spent its buffer time on BOLA at the top quality.
    assert!(d.bola_segments.unwrap() > 0, "{d:?}");
}

#[test]
fn a_slow_path_gets_a_lower_quality_than_a_fast_one() {
    let video = Duration::from_secs(120);
    let slow = session(path(3, 50), "bbr", video, AbrStrategy::Throughput);
    let fast = session(path(30, 50), "bbr", video, AbrStrategy::Throughput);
    let (slow, fast) = (dash(&slow.flows[0]), dash(&fast.flows[0]));
    assert!(slow.complete && fast.complete);
    assert!(slow.aq < fast.aq, "{slow:?} vs {fast:?}");
    // 3 Mbit/s with a 10% margin holds 1883 kbit/s (quality 5) at most.
    assert!(slow.mean_bitrate_bps < 2.7e6, "{slow:?}");
}

#[test]
fn a_bandwidth_collapse_stalls_playback_and_drops_the_quality() {
    // 20 Mbit/s, then 0.3 Mbit/s from 30 s: the buffer of top-quality
    // segments drains, the player stalls and falls to the bottom.
    let link = path(20, 50).rate_model(RateModel::Schedule(vec![
        RateStep {
            at: Duration::ZERO,
            rate: Bandwidth::from_mbps(20),
        },
        RateStep {
            at: Duration::from_secs(30),
            rate: Bandwidth::from_kbps(300),
        },
    ]));
    let r = session(link, "bbr", Duration::from_secs(120), AbrStrategy::Dynamic);
    let d = dash(&r.flows[0]);
    assert!(d.qs >= 1, "{d:?}");
    assert!(d.stalls >= 1 && d.rebuffer_s > 1.0, "{d:?}");
    assert!(d.rb.unwrap() > 0.0);
    assert!(d.qoe_lin < d.mean_bitrate_bps / 1e6 * d.segments as f64);
}

#[test]
fn a_session_that_cannot_finish_is_judged_on_what_it_played() {
    let link = path(1, 50).duration(Duration::from_secs(60));
    let r = session(
        link,
        "cubic",
        Duration::from_secs(600),
        AbrStrategy::Dynamic,
    );
    let d = dash(&r.flows[0]);
    assert!(!d.complete, "{d:?}");
    assert!(d.segments > 0 && d.segments < 150, "{d:?}");
    assert!((r.sim_time_s - 60.0).abs() < 1e-9);
}

#[test]
fn dash_sessions_are_deterministic() {
    let lossy = || {
        path(10, 100)
            .loss(LossModel::Bernoulli { p: 0.01 })
            .buffer(BufferLimit::Bytes(Bytes(60_000)))
            .seed(7)
    };
    let a = session(
        lossy(),
        "bbr2",
        Duration::from_secs(120),
        AbrStrategy::Dynamic,
    );
    let b = session(
        lossy(),
        "bbr2",
        Duration::from_secs(120),
        AbrStrategy::Dynamic,
    );
    // Debug prints every float exactly.
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert!(dash(&a.flows[0]).segments > 0);
}

#[test]
fn the_decision_log_explains_every_segment_and_repeats_with_the_seed() {
    // The Fig. 14 path at 1% loss: up- and down-switches, replacements and
    // abandonments to log.
    let link = || {
        Dumbbell::new(Bandwidth::from_mbps(20), ms(200))
            .buffer(BufferLimit::Bytes(Bytes(100_000)))
            .loss(LossModel::Bernoulli { p: 0.01 })
            .duration(Duration::from_secs(120))
    };
    let r = session(
        link(),
        "obbr",
        Duration::from_secs(120),
        AbrStrategy::Dynamic,
    );
    let d = dash(&r.flows[0]);
    let log = &r.series.dash;
    assert!(log.len() as u64 >= d.segments, "{} rows", log.len());
    assert!(log.iter().all(|row| row.flow == 0));
    // Each segment's quality is that of its last loaded request, as the
    // summary counts it; so is the rule that chose it.
    let mut last = std::collections::BTreeMap::new();
    for row in log.iter().filter(|row| row.outcome == Outcome::Loaded) {
        last.insert(row.segment, row);
    }
    assert_eq!(last.len() as u64, d.segments);
    let aq = last.values().map(|row| row.quality as f64).sum::<f64>() / d.segments as f64;
    assert!((aq - d.aq).abs() < 1e-9, "{aq} vs {d:?}");
    let bola = last.values().filter(|row| row.rule == Rule::Bola).count() as u64;
    assert_eq!(Some(bola), d.bola_segments);
    // A winning vote is the lowest one cast.
    for row in log.iter().filter(|row| row.rule != Rule::Kept) {
        let votes = [
            row.throughput_vote,
            row.bola_vote,
            row.insufficient_buffer_vote,
            row.switch_history_vote,
        ];
        if let Some(lowest) = votes.iter().flatten().min() {
            if row.rule != Rule::AbandonRequests {
                assert_eq!(row.quality, *lowest, "{row:?}");
            }
        }
    }
    // The same seed, the same log.
    let again = session(
        link(),
        "obbr",
        Duration::from_secs(120),
        AbrStrategy::Dynamic,
    );
    assert_eq!(&again.series.dash, log);
}
