//! `bbrlab run --emulate` from the command line: a real-time run through
//! the emulated link writes the simulator's outputs with `"mode":
//! "emulated"`. A test binary of its own so that the test lanes run it in
//! the real-time lane: inside the CLI's main test binary it ran in the CPU
//! lane, under SCHED_IDLE, and beside the real-time lane's load its
//! transfer missed its goodput range (12.3 Mbit/s on a 20 Mbit/s link;
//! another time 14.7).

mod common;
use common::run::{bbrlab, stderr, summary, tempdir, EMULATED_LINK};

#[test]
fn run_emulate_writes_the_simulators_outputs_with_mode_emulated() {
    let dir = tempdir("cli", "emulate");
    let file = dir.join("link.toml");
    std::fs::write(&file, EMULATED_LINK).unwrap();
    let file = file.display().to_string();
    let out = dir.join("out");
    let qlog = dir.join("qlog");
    let o = bbrlab(&[
        "run",
        &file,
        "--emulate",
        "--out",
        out.to_str().unwrap(),
        "--qlog",
        qlog.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = summary(&out);
    assert_eq!(s["mode"], "emulated");
    let goodput = s["flows"][0]["goodput_bps"].as_f64().unwrap();
    assert!(goodput > 15e6 && goodput < 20e6, "goodput {goodput}");
    // The relay's queueing delay: at least one packet's service (0.6 ms at
    // 20 Mbit/s), at most the 1-BDP buffer's 40 ms and that service.
    let delay = &s["link"]["queue_delay_ms"];
    let (p50, max) = (
        delay["p50"].as_f64().unwrap(),
        delay["max"].as_f64().unwrap(),
    );
    assert!(p50 >= 0.5 && max <= 41.0, "queueing delay {delay}");
    for file in [
        "flows.csv",
        "series_flows.parquet",
        "series_link.parquet",
        "scenario.toml",
    ] {
        assert!(out.join(file).exists(), "{file} missing");
    }
    let traces: Vec<_> = std::fs::read_dir(&qlog).unwrap().collect();
    assert_eq!(traces.len(), 1, "one qlog per connection");
    // The emulator reports in the simulator's type: its summary reads back
    // as one, and its page renders from it.
    let typed = lab::output::SummaryFile::read(&out.join("summary.json"))
        .expect("an emulated summary reads as a run result");
    assert_eq!(typed.origin.mode, Some(lab::output::Mode::Emulated));
    assert_eq!(typed.result.flows[0].goodput_bps, goodput);
    let o = bbrlab(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The simulated run of the same file says so.
    let sim_out = dir.join("sim");
    let o = bbrlab(&["run", &file, "--out", sim_out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(summary(&sim_out)["mode"], "simulated");
    let _ = std::fs::remove_dir_all(&dir);
}
