//! Valid scenarios become the simulator configuration they describe; every
//! shipped example loads.

use std::path::{Path, PathBuf};
use std::time::Duration;

use cc::{Bandwidth, Bytes};
use scenario::{from_str, load, Override};
use sim::link::{BufferLimit, LossModel, RateModel, DEFAULT_LINE_RATE};
use sim::AckPolicy;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn every_example_loads() {
    let dir = repo_root().join("scenarios/examples");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            // Sweep files expand into runs; every run must load.
            let runs = scenario::load_sweep(&path, &[])
                .and_then(|sweep| sweep.scenarios())
                .unwrap_or_else(|e| panic!("{e}"));
            let s = &runs[0].1;
            if runs.len() == 1 {
                load(&path, &[]).unwrap_or_else(|e| panic!("{e}"));
            }
            assert_eq!(
                Some(s.name.as_str()),
                path.file_stem().and_then(|s| s.to_str()),
                "{}",
                path.display()
            );
            n += 1;
        }
    }
    assert!(n >= 4, "only {n} examples in {}", dir.display());
}

#[test]
fn bbr_shallow_example() {
    let s = load(
        &repo_root().join("scenarios/examples/bbr-shallow.toml"),
        &[],
    )
    .unwrap();
    let c = &s.config;
    assert_eq!(c.name, "bbr-shallow");
    assert_eq!(c.seed, 1);
    assert_eq!(c.duration, Duration::from_secs(60));
    assert_eq!(c.warmup, Duration::from_secs(5));
    assert_eq!(c.sample_interval, ms(10));
    assert_eq!(c.link.rate, RateModel::Constant(Bandwidth::from_mbps(40)));
    // 0.25 x 40 Mbit/s x 100 ms = 0.25 x 500 KB.
    assert_eq!(c.link.buffer, BufferLimit::Bytes(Bytes(125_000)));
    assert_eq!(c.link.burst, Bytes(100_000));
    assert_eq!(c.link.line_rate, DEFAULT_LINE_RATE);
    assert_eq!(c.link.loss, LossModel::Bernoulli { p: 0.01 });
    assert_eq!(c.flows.len(), 1);
    let f = &c.flows[0];
    assert_eq!(f.cc.name(), "bbr");
    assert_eq!(
        (f.start, f.size, f.rtt, f.ack_delay, f.count),
        (Duration::ZERO, None, ms(100), Duration::ZERO, 1)
    );
    assert!(!c.stop_when_done);
}

#[test]
fn cubic_vs_bbr_example() {
    let s = load(
        &repo_root().join("scenarios/examples/cubic-vs-bbr.toml"),
        &[],
    )
    .unwrap();
    let c = &s.config;
    assert_eq!(c.duration, Duration::from_secs(120));
    assert_eq!(c.link.buffer, BufferLimit::Bytes(Bytes(200_000)));
    let names: Vec<&str> = c.flows.iter().map(|f| f.cc.name()).collect();
    assert_eq!(names, ["bbr", "cubic"]);
    assert!(c.flows.iter().all(|f| f.rtt == ms(40)));
}

#[test]
fn bandwidth_drop_example() {
    let s = load(
        &repo_root().join("scenarios/examples/bandwidth-drop.toml"),
        &[],
    )
    .unwrap();
    let RateModel::Schedule(steps) = &s.config.link.rate else {
        panic!("{:?}", s.config.link.rate)
    };
    assert_eq!(steps.len(), 2);
    assert_eq!(
        (steps[0].at, steps[0].rate),
        (Duration::ZERO, Bandwidth::from_mbps(20))
    );
    assert_eq!(
        (steps[1].at, steps[1].rate),
        (Duration::from_secs(10), Bandwidth::from_mbps(5))
    );
    assert_eq!(s.config.link.buffer, BufferLimit::Bytes(Bytes(200_000)));
}

#[test]
fn mahimahi_example_uses_the_trace_mean_for_bdp() {
    let s = load(
        &repo_root().join("scenarios/examples/mahimahi-lte.toml"),
        &[],
    )
    .unwrap();
    let RateModel::Mahimahi(trace) = &s.config.link.rate else {
        panic!()
    };
    let bdp = trace.mean_rate().bytes_in(ms(50));
    assert_eq!(s.config.link.buffer, BufferLimit::Bytes(bdp));
    assert!(bdp > Bytes(50_000) && bdp < Bytes(200_000), "{bdp}");
}

#[test]
fn burst_with_a_mahimahi_trace_is_an_error() {
    let path = repo_root().join("scenarios/examples/mahimahi-lte.toml");
    let e = load(&path, &[Override::new("link.burst", "10KB")]).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("link.burst"));
    assert!(e.to_string().contains("no token bucket"), "{e}");
    load(&path, &[Override::new("link.burst", "0")]).unwrap();
}

#[test]
fn irish5g_trace_by_extension_or_format() {
    let csv = repo_root().join("data/traces/irish-5g/Static/B_2020.02.13_13.57.29.csv");
    let text = format!(
        "name = \"i\"\nduration = \"10s\"\n[link]\ntrace = {:?}\nrtt = \"50ms\"\nbuffer = \"1bdp\"\nburst = \"10KB\"\n[[flow]]\ncc = \"bbr\"\n",
        csv.to_str().unwrap()
    );
    let s = from_str(&text, Path::new("<string>"), &[]).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(s.config.link.rate, RateModel::Piecewise(_)));
    let text = text.replace("rtt =", "trace_format = \"irish5g\"\nrtt =");
    let s = from_str(&text, Path::new("<string>"), &[]).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(s.config.link.rate, RateModel::Piecewise(_)));
}

const FULL: &str = r#"
name = "full"
seed = 42
duration = "2min"
warmup = "10s"
sample_interval = "50ms"
stop_when_done = false

[link]
rate = "1.5Gbit"
rtt = "10ms"
buffer = "100pkt"
burst = "64KiB"
line_rate = "10Gbit"
ack_delay = "5ms"

[link.loss]
model = "gilbert-elliott"
p = "1%"
r = "10%"
loss_bad = "50%"

[transport]
ack_policy = "every-packet"
max_ack_delay = "1ms"
datagram = "1252B"

[[flow]]
cc = "cubic:beta=0.5"
start = "1s"
size = "10MB"
count = 3
rtt = "30ms"

[[flow]]
cc = "reno"
"#;

#[test]
fn every_key_is_converted() {
    let s = from_str(FULL, Path::new("full.toml"), &[]).unwrap();
    let c = &s.config;
    assert_eq!(s.source, PathBuf::from("full.toml"));
    assert_eq!(c.seed, 42);
    assert_eq!(c.duration, Duration::from_secs(120));
    assert_eq!(c.sample_interval, ms(50));
    assert!(!c.stop_when_done);
    assert_eq!(c.link.rate, RateModel::Constant(Bandwidth::from_mbps(1500)));
    assert_eq!(c.link.buffer, BufferLimit::Packets(100));
    assert_eq!(c.link.burst, Bytes(65_536));
    assert_eq!(c.link.line_rate, Bandwidth::from_mbps(10_000));
    assert_eq!(
        c.link.loss,
        LossModel::GilbertElliott {
            p: 0.01,
            r: 0.1,
            loss_good: 0.0,
            loss_bad: 0.5
        }
    );
    assert_eq!(c.transport.ack_policy, AckPolicy::EveryPacket);
    assert_eq!(c.transport.max_ack_delay, ms(1));
    assert_eq!(c.transport.max_datagram_size, Bytes(1252));
    assert_eq!(c.transport.max_payload, Bytes(1200));
    assert_eq!(c.transport.initial_window_packets, 10);
    let f = &c.flows[0];
    assert_eq!(f.cc.name(), "cubic");
    assert_eq!(f.cc.float("beta"), 0.5);
    assert_eq!(
        (f.start, f.size, f.count, f.rtt, f.ack_delay),
        (ms(1000), Some(Bytes(10_000_000)), 3, ms(30), ms(5))
    );
    let f = &c.flows[1];
    assert_eq!(
        (f.cc.name(), f.rtt, f.count, f.size),
        ("reno", ms(10), 1, None)
    );
}

#[test]
fn defaults() {
    let text = "name = \"d\"\nduration = \"1s\"\n[link]\nrate = \"10Mbit\"\nrtt = \"10ms\"\nbuffer = \"10KB\"\n[[flow]]\ncc = \"bbr\"\nsize = \"1MB\"\n";
    let c = from_str(text, Path::new("d.toml"), &[]).unwrap().config;
    assert_eq!(c.seed, 1);
    assert_eq!(c.warmup, Duration::ZERO);
    assert_eq!(c.sample_interval, ms(10));
    assert_eq!(c.link.burst, Bytes::ZERO);
    assert_eq!(c.link.loss, LossModel::None);
    assert_eq!(c.link.line_rate, DEFAULT_LINE_RATE);
    assert_eq!(c.transport, sim::TransportConfig::default());
    assert_eq!(c.flows[0].start, Duration::ZERO);
    assert_eq!(c.flows[0].count, 1);
    // Every flow is sized, so the run stops when they are done.
    assert!(c.stop_when_done);
}

#[test]
fn loss_forms() {
    let base = "name = \"l\"\nduration = \"1s\"\n[link]\nrate = \"10Mbit\"\nrtt = \"10ms\"\nbuffer = \"10KB\"\n[[flow]]\ncc = \"bbr\"\n";
    let loss = |set: &str| {
        from_str(base, Path::new("l.toml"), &[set.parse().unwrap()])
            .unwrap()
            .config
            .link
            .loss
    };
    assert_eq!(loss("link.loss=1%"), LossModel::Bernoulli { p: 0.01 });
    assert_eq!(loss("link.loss=0.02"), LossModel::Bernoulli { p: 0.02 });
    assert_eq!(loss("link.loss=0"), LossModel::None);
    assert_eq!(
        loss("link.loss={model=\"bernoulli\", p=\"2%\"}"),
        LossModel::Bernoulli { p: 0.02 }
    );
    assert_eq!(
        loss("link.loss={p=0.01, r=0.5}"),
        LossModel::GilbertElliott {
            p: 0.01,
            r: 0.5,
            loss_good: 0.0,
            loss_bad: 1.0
        }
    );
    assert_eq!(
        loss("link.loss={model=\"gilbert-elliott\", p=0.01, r=0.5, loss_good=\"0.1%\"}"),
        LossModel::GilbertElliott {
            p: 0.01,
            r: 0.5,
            loss_good: 0.001,
            loss_bad: 1.0
        }
    );
}

#[test]
fn overrides_change_the_config_and_the_document() {
    let path = repo_root().join("scenarios/examples/cubic-vs-bbr.toml");
    let sets: Vec<Override> = [
        "flow.0.cc=cubic",
        "link.loss=1%",
        "seed=3",
        "link.buffer=1bdp",
        "flow.1.rtt=40ms",
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect();
    let s = load(&path, &sets).unwrap();
    let c = &s.config;
    assert_eq!(c.flows[0].cc.name(), "cubic");
    assert_eq!(c.link.loss, LossModel::Bernoulli { p: 0.01 });
    assert_eq!(c.seed, 3);
    assert_eq!(c.link.buffer, BufferLimit::Bytes(Bytes(100_000)));
    assert_eq!(c.flows[1].rtt, ms(40));
    assert!(s.document.contains("seed = 3"), "{}", s.document);
    assert!(s.document.contains("buffer = \"1bdp\""), "{}", s.document);
    assert!(
        s.document.contains("# One CUBIC and one BBR flow"),
        "comments are kept:\n{}",
        s.document
    );
    // The recorded document loads to the same configuration.
    let again = from_str(&s.document, &path, &[]).unwrap();
    assert_eq!(format!("{:?}", again.config), format!("{:?}", s.config));
    // --seed N is the same as --set seed=N.
    let a = load(&path, &[Override::seed(9)]).unwrap();
    let b = load(&path, &["seed=9".parse().unwrap()]).unwrap();
    assert_eq!(a.config.seed, 9);
    assert_eq!(a.document, b.document);
}

#[test]
fn document_without_overrides_is_the_file() {
    let path = repo_root().join("scenarios/examples/bbr-shallow.toml");
    let s = load(&path, &[]).unwrap();
    assert_eq!(s.document, std::fs::read_to_string(&path).unwrap());
}

#[test]
fn inline_and_dotted_forms_are_accepted() {
    let text = "name = \"x\"\nduration = \"1s\"\nlink = { rate = \"10Mbit\", rtt = \"10ms\", buffer = \"1bdp\" }\nflow = [{ cc = \"bbr\" }, { cc = \"cubic\", count = 2 }]\n";
    let s = from_str(
        text,
        Path::new("x.toml"),
        &[
            "flow.1.count=3".parse().unwrap(),
            "link.rtt=20ms".parse().unwrap(),
        ],
    )
    .unwrap();
    assert_eq!(s.config.flows[1].count, 3);
    assert_eq!(s.config.flows[0].rtt, ms(20));
    let text = "name = \"x\"\nduration = \"1s\"\nlink.rate = \"10Mbit\"\nlink.rtt = \"10ms\"\nlink.buffer = \"1bdp\"\n[[flow]]\ncc = \"bbr\"\n";
    from_str(text, Path::new("x.toml"), &[]).unwrap();
    let e = from_str(&text.replace("1bdp", "0"), Path::new("x.toml"), &[]).unwrap_err();
    assert_eq!(
        (e.key.as_deref(), e.line),
        (Some("link.buffer"), Some(5)),
        "{e}"
    );
}
