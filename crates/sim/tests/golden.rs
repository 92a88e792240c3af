//! Golden outputs: a set of short runs covering the simulator's features,
//! each compared with the summary and the hash of the time series stored in
//! `tests/golden/<case>.json`. A change that moves any number of any run
//! (a speed-up must not) fails here, naming the case and the first line that
//! differs.
//!
//! The stored outputs are regenerated only on purpose, when a change is
//! meant to move results:
//!
//! ```sh
//! BBRLAB_BLESS=1 cargo test --release -p bbrlab-sim --test golden
//! ```
//!
//! then the diff of `crates/sim/tests/golden/` is reviewed and committed
//! with the change that explains it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use cc::{Bandwidth, Bytes};
use sim::app::dash::{AbrStrategy, DashConfig};
use sim::app::live::LiveConfig;
use sim::app::Application;
use sim::link::{BufferLimit, LossModel, MahimahiTrace, PiecewiseTrace, RateModel, RateStep};
use sim::{AckPolicy, CopilotConfig, Dumbbell, RunResult, Simulation, TransportConfig};

fn mbps(v: u64) -> Bandwidth {
    Bandwidth::from_mbps(v)
}
fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}
fn secs(v: u64) -> Duration {
    Duration::from_secs(v)
}

fn traces() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/traces")
}

/// The cases: name and configuration. Short runs (the whole set takes a
/// few seconds in release), each exercising different paths of the
/// simulator, the link and the controllers.
fn cases() -> Vec<(&'static str, Dumbbell)> {
    let lte = MahimahiTrace::from_file(&traces().join("mahimahi/TMobile-LTE-short.down"))
        .expect("mahimahi trace loads");
    let lte_rate = lte.mean_rate();
    let g5 = PiecewiseTrace::from_irish5g_file(
        &traces().join("irish-5g/Static/B_2020.02.13_13.57.29.csv"),
    )
    .expect("5G trace loads")
    .starting_at(secs(8));
    let g5_rate = g5.mean_rate();
    vec![
        (
            "bulk-bbr",
            Dumbbell::new(mbps(100), ms(40))
                .buffer_bdp(1.0)
                .duration(secs(4))
                .flow("bbr")
                .unwrap(),
        ),
        (
            "bulk-cubic-reno",
            Dumbbell::new(mbps(50), ms(30))
                .buffer_bdp(2.0)
                .duration(secs(4))
                .warmup(secs(1))
                .flow("cubic:hystart=true")
                .unwrap()
                .flow("reno")
                .unwrap(),
        ),
        (
            "sized-transfers",
            Dumbbell::new(mbps(40), ms(40))
                .buffer_bdp(0.5)
                .duration(secs(10))
                .warmup(ms(500))
                .stop_when_done(true)
                .flow_with("bbr", |f| f.size = Some(Bytes(2_000_000)))
                .unwrap()
                .flow_with("cubic", |f| {
                    f.size = Some(Bytes(5_000_000));
                    f.start = ms(300);
                    f.rtt = ms(80);
                })
                .unwrap()
                .flow_with("bbr3", |f| {
                    f.size = Some(Bytes(300_000));
                    f.start = secs(1);
                    f.rtt = ms(20);
                    f.ack_delay = ms(5);
                })
                .unwrap(),
        ),
        (
            "random-loss-token-bucket",
            Dumbbell::new(mbps(100), ms(40))
                .buffer(BufferLimit::Bytes(Bytes(2_000_000)))
                .burst(Bytes(100_000))
                .loss(LossModel::Bernoulli { p: 0.01 })
                .duration(secs(4))
                .flow("bbr2")
                .unwrap()
                .flow("bbr2-adaptive")
                .unwrap(),
        ),
        (
            "gilbert-loss",
            Dumbbell::new(mbps(50), ms(60))
                .buffer_bdp(0.5)
                .loss(LossModel::GilbertElliott {
                    p: 0.01,
                    r: 0.3,
                    loss_good: 0.0,
                    loss_bad: 0.5,
                })
                .duration(secs(5))
                .seed(7)
                .flow("bbr3")
                .unwrap()
                .flow("obbr:mu=0.75")
                .unwrap(),
        ),
        (
            "live-copilot-uplink",
            Dumbbell::new(mbps(37), ms(100))
                .uplink(RateModel::Constant(mbps(12)))
                .buffer(BufferLimit::Bytes(Bytes(40_000)))
                .duration(secs(6))
                .flow_with("bbr", |f| {
                    f.app = Application::Live(LiveConfig::COPILOT_PAPER);
                    f.copilot = Some(CopilotConfig::default());
                })
                .unwrap()
                .flow_with("bbr", |f| {
                    f.app = Application::Live(LiveConfig::COPILOT_PAPER);
                    f.copilot = Some(CopilotConfig {
                        probe_rtt_app_limited: true,
                    });
                    f.start = ms(500);
                })
                .unwrap()
                .flow_with("bbr2", |f| {
                    f.app = Application::Live(LiveConfig::COPILOT_PAPER);
                })
                .unwrap(),
        ),
        (
            "dash",
            Dumbbell::new(mbps(20), ms(100))
                .buffer_bdp(1.0)
                .loss(LossModel::Bernoulli { p: 0.005 })
                .duration(secs(40))
                .stop_when_done(true)
                .flow_with("obbr", |f| {
                    f.app = Application::Dash(DashConfig {
                        video: secs(24),
                        ..DashConfig::obbr_paper()
                    });
                })
                .unwrap()
                .flow_with("bbr", |f| {
                    f.app = Application::Dash(DashConfig {
                        video: secs(16),
                        abr: AbrStrategy::Bola,
                        ..DashConfig::obbr_paper()
                    });
                })
                .unwrap(),
        ),
        (
            "mahimahi-lte",
            Dumbbell::new(lte_rate, ms(40))
                .rate_model(RateModel::Mahimahi(lte))
                .buffer_bdp(2.0)
                .duration(secs(8))
                .warmup(secs(1))
                .flow("bbr")
                .unwrap()
                .flow("bbr-s")
                .unwrap(),
        ),
        (
            "irish-5g",
            Dumbbell::new(g5_rate, ms(50))
                .rate_model(RateModel::Piecewise(g5))
                .buffer_bdp(1.0)
                .duration(secs(8))
                .flow("b3r")
                .unwrap()
                .flow("bbr-cws")
                .unwrap()
                .flow("modest-bbr")
                .unwrap(),
        ),
        (
            "many-flows",
            Dumbbell::new(mbps(500), ms(20))
                .buffer_bdp(1.0)
                .duration(secs(2))
                .sample_interval(ms(100))
                .flow_with("bbr", |f| f.count = 10)
                .unwrap()
                .flow_with("cubic", |f| f.count = 10)
                .unwrap(),
        ),
        (
            "bandwidth-drop-stack-model",
            Dumbbell::new(mbps(100), ms(40))
                .rate_model(RateModel::Schedule(vec![
                    RateStep {
                        at: Duration::ZERO,
                        rate: mbps(100),
                    },
                    RateStep {
                        at: secs(2),
                        rate: mbps(20),
                    },
                ]))
                .buffer(BufferLimit::Packets(200))
                .acks_share_queue(true)
                .transport(TransportConfig {
                    pacing_timer: ms(3),
                    pacer_ack_credit: true,
                    ack_policy: AckPolicy::EveryNth(10),
                    receive_window: Some(Bytes(3_000_000)),
                    ..TransportConfig::default()
                })
                .duration(secs(5))
                .flow("obbr:code=true")
                .unwrap()
                .flow("bbr:pacing_margin=0")
                .unwrap(),
        ),
        (
            "every-packet-acks",
            Dumbbell::new(mbps(30), ms(60))
                .buffer_bdp(4.0)
                .transport(TransportConfig {
                    ack_policy: AckPolicy::EveryPacket,
                    ..TransportConfig::default()
                })
                .duration(secs(4))
                .seed(3)
                .flow("cubic")
                .unwrap()
                .flow_with("bbr", |f| f.start = secs(1))
                .unwrap(),
        ),
    ]
}

/// FNV-1a, 64 bits: stable across platforms and Rust versions, unlike
/// `std`'s hashers.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// What is compared: the summary as JSON (wall time zeroed), and the time
/// series (every column, the controllers' own variables included, floats
/// by their bits) as sample counts and a hash.
fn golden_text(r: &RunResult) -> String {
    let mut fnv = Fnv::new();
    for s in &r.series.flows {
        fnv.write(serde_json::to_string(s).expect("serializes").as_bytes());
        for (name, value) in &s.controller {
            fnv.write(name.as_bytes());
            fnv.write(&value.to_bits().to_le_bytes());
        }
    }
    for s in &r.series.link {
        fnv.write(serde_json::to_string(s).expect("serializes").as_bytes());
    }
    let mut summary = r.clone();
    summary.wall_time_s = 0.0;
    summary.series = Default::default();
    let value = serde_json::json!({
        "summary": summary,
        "series": {
            "flow_samples": r.series.flows.len(),
            "link_samples": r.series.link.len(),
            "fnv1a": format!("{:016x}", fnv.0),
        },
    });
    let mut text = serde_json::to_string_pretty(&value).expect("serializes");
    text.push('\n');
    text
}

#[test]
fn runs_match_their_golden_outputs() {
    let bless = std::env::var_os("BBRLAB_BLESS").is_some_and(|v| v == "1");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut failures = String::new();
    for (name, d) in cases() {
        let r = Simulation::new(d.name(name).build()).run();
        r.assert_physics();
        let got = golden_text(&r);
        let path = dir.join(format!("{name}.json"));
        if bless {
            std::fs::create_dir_all(&dir).expect("golden directory");
            std::fs::write(&path, &got).expect("golden written");
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        if got != want {
            let line = got
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(got.lines().count().min(want.lines().count()));
            let _ = writeln!(
                failures,
                "{name}: differs from {} at line {}:\n  got:  {}\n  want: {}",
                path.display(),
                line + 1,
                got.lines().nth(line).unwrap_or("<end>"),
                want.lines().nth(line).unwrap_or("<end>"),
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{failures}(if the change is meant to move results: BBRLAB_BLESS=1 cargo test --release -p bbrlab-sim --test golden)"
    );
}
