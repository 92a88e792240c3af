//! Kernel TCP flows (`cc = "linux:NAME"`) from the command line: refused by
//! the simulator with the file and key; under `--emulate` (as root) run
//! through the emulated link beside the simulator's outputs.

use std::path::PathBuf;

mod common;
use common::run::{bbrlab, repo, stderr};

fn tempdir(tag: &str) -> PathBuf {
    common::run::tempdir("kernel", tag)
}

fn scenario() -> String {
    repo()
        .join("scenarios/kernel/bbr-vs-cubic.toml")
        .display()
        .to_string()
}

#[test]
fn a_simulated_run_refuses_a_kernel_flow_naming_file_and_key() {
    let dir = tempdir("refused");
    let out = dir.join("out");
    let o = bbrlab(&["run", &scenario(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    for needle in [
        "bbr-vs-cubic.toml: flow[0].cc (line 20)",
        "cc = \"linux:bbr\" is the kernel's TCP and runs only under --emulate",
        "the simulator's own `bbr` is the faithful model of it",
    ] {
        assert!(err.contains(needle), "`{needle}` not in: {err}");
    }
    assert!(!out.exists(), "nothing is written for a refused run");
    // With the project's models in their place the same file simulates.
    let o = bbrlab(&[
        "run",
        &scenario(),
        "--set",
        "flow.0.cc=bbr",
        "--set",
        "flow.1.cc=cubic",
        "--set",
        "duration=3s",
        "--set",
        "warmup=1s",
        "--no-series",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_sweep_refuses_a_kernel_flow_too() {
    let dir = tempdir("sweep");
    let text = std::fs::read_to_string(scenario()).unwrap()
        + "\n[sweep]\n\"link.rate\" = [\"10Mbit\", \"20Mbit\"]\n";
    let file = dir.join("swept.toml");
    std::fs::write(&file, text).unwrap();
    let o = bbrlab(&[
        "sweep",
        file.to_str().unwrap(),
        "--jobs",
        "1",
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("swept.toml: flow[0].cc") && err.contains("runs only under --emulate"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// linux:bbr against linux:cubic through the shell (8 s, needs root), and
/// `compare` of it against the simulated run of the project's models.
#[test]
fn an_emulated_kernel_run_fills_the_link_and_compares_with_its_simulation() {
    assert!(
        is_root(),
        "an emulated kernel run needs root (a network namespace): run the tests as root"
    );
    let dir = tempdir("emulated");
    let emulated = dir.join("emulated");
    let o = bbrlab(&[
        "run",
        &scenario(),
        "--emulate",
        "--seed",
        "1",
        "--out",
        emulated.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(emulated.join("summary.json")).unwrap();
    let s: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(s["mode"], "emulated");
    // Kernel flows report in the simulator's type too.
    lab::output::SummaryFile::read(&emulated.join("summary.json"))
        .expect("a kernel run's summary reads as a run result");
    let flows = s["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 2);
    assert_eq!(flows[0]["cc"], "linux:bbr");
    assert_eq!(flows[1]["cc"], "linux:cubic");
    let goodput: Vec<f64> = flows
        .iter()
        .map(|f| f["goodput_bps"].as_f64().unwrap())
        .collect();
    assert!(goodput.iter().all(|&g| g > 0.0), "{goodput:?}");
    let sum: f64 = goodput.iter().sum();
    assert!((0.9 * 20e6..=20e6).contains(&sum), "goodput {goodput:?}");
    for f in flows {
        let rtt = f["rtt_ms"]["p50"].as_f64().unwrap();
        assert!(
            (40.0..=85.0).contains(&rtt),
            "rtt p50 {rtt}: 40 ms plus at most the 1-BDP queue"
        );
        // Sent and delivered in the window differ by what was in flight at
        // its edges: at most a cwnd (2 BDP + the 1-BDP buffer, 300 KB).
        let (sent, delivered) = (
            f["bytes_sent"].as_u64().unwrap() as i64,
            f["bytes_delivered"].as_u64().unwrap() as i64,
        );
        assert!(
            (sent - delivered).abs() < 300_000,
            "sent {sent}, delivered {delivered}"
        );
    }
    assert!(s["link"]["utilization"].as_f64().unwrap() > 0.9);
    let csv = std::fs::read_to_string(emulated.join("flows.csv")).unwrap();
    assert!(
        csv.contains("linux:bbr") && csv.contains("linux:cubic"),
        "{csv}"
    );
    assert!(emulated.join("series_flows.parquet").exists());

    let simulated = dir.join("simulated");
    let o = bbrlab(&[
        "run",
        &scenario(),
        "--set",
        "flow.0.cc=bbr",
        "--set",
        "flow.1.cc=cubic",
        "--seed",
        "1",
        "--out",
        simulated.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let cmp = dir.join("cmp");
    let o = bbrlab(&[
        "compare",
        emulated.to_str().unwrap(),
        simulated.to_str().unwrap(),
        "--out",
        cmp.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(cmp.join("compare.html")).unwrap();
    assert!(
        html.contains("A: flow 0 (linux:bbr)") && html.contains("B: flow 0 (bbr)"),
        "the comparison names each run's flows"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An s2n-quic flow (the project's BBR inside s2n-quic) and the kernel's
/// CUBIC share one emulated link in one run.
#[test]
fn a_quic_flow_and_a_kernel_flow_share_the_link() {
    assert!(
        is_root(),
        "an emulated kernel run needs root (a network namespace): run the tests as root"
    );
    let dir = tempdir("mixed");
    let out = dir.join("mixed");
    let o = bbrlab(&[
        "run",
        &scenario(),
        "--emulate",
        "--set",
        "flow.0.cc=bbr",
        "--set",
        "duration=6s",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(out.join("summary.json")).unwrap();
    let s: serde_json::Value = serde_json::from_str(&text).unwrap();
    lab::output::SummaryFile::read(&out.join("summary.json"))
        .expect("a QUIC and kernel run's summary reads as a run result");
    let flows = s["flows"].as_array().unwrap();
    assert_eq!(flows[0]["cc"], "bbr");
    assert_eq!(flows[1]["cc"], "linux:cubic");
    let goodput: Vec<f64> = flows
        .iter()
        .map(|f| f["goodput_bps"].as_f64().unwrap())
        .collect();
    assert!(goodput.iter().all(|&g| g > 0.5e6), "{goodput:?}");
    // QUIC's and TCP's headers differ a little; together they fill the link.
    let sum: f64 = goodput.iter().sum();
    assert!((0.85 * 20e6..=20e6).contains(&sum), "goodput {goodput:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_emulated_run_names_a_flow_whose_algorithm_the_kernel_lacks() {
    let dir = tempdir("unknown");
    let text = std::fs::read_to_string(scenario())
        .unwrap()
        .replace("linux:cubic", "linux:nosuchcc");
    let file = dir.join("unknown.toml");
    std::fs::write(&file, text).unwrap();
    let o = bbrlab(&[
        "run",
        file.to_str().unwrap(),
        "--emulate",
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    let offered = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(", ");
    for needle in [
        "unknown.toml: cannot emulate: flow 1:",
        "no TCP congestion control \"nosuchcc\"",
        "tcp_available_congestion_control offers",
        &offered,
    ] {
        assert!(err.contains(needle), "`{needle}` not in: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
