//! `bbrlab serve` over HTTP/3 to headless Chromium (Debian's
//! /usr/bin/chromium, driven by playwright-core from tests/browser):
//! QUIC forced on the loopback origin, the self-signed certificate that
//! `bbrlab serve` writes pinned by the SHA-256 of its public key
//! (computed here with the openssl CLI). See tests/browser/chromium-h3.mjs
//! for the flags.
//!
//! Needs /usr/bin/chromium, openssl and tests/browser/node_modules: run
//! `scripts/setup-browser.sh`. BBRLAB_SKIP_BROWSER=1 skips, as for the
//! report's browser check; otherwise anything missing is a failure.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use sim::app::dash::DashConfig;

/// A cold Chromium start on a loaded machine takes seconds; a player
/// test plays ~30 s of video on top.
const CHILD_TIMEOUT: Duration = Duration::from_secs(240);

/// tests/browser, or `None` when BBRLAB_SKIP_BROWSER=1. Chromium, node
/// and the page's packages are checked as `run --emulate` checks them
/// ([`quic::browser::Browser::locate`]); the pin needs the openssl CLI.
fn browser_ready() -> Option<PathBuf> {
    if std::env::var("BBRLAB_SKIP_BROWSER").as_deref() == Ok("1") {
        eprintln!("Chromium HTTP/3 test skipped: BBRLAB_SKIP_BROWSER=1");
        return None;
    }
    let mut missing = Vec::new();
    let browser = quic::browser::Browser::locate().map_err(|e| missing.push(e));
    if Command::new("openssl").arg("version").output().is_err() {
        missing.push("openssl".to_string());
    }
    assert!(
        missing.is_empty(),
        "the Chromium HTTP/3 test cannot run: {}.\nOr set BBRLAB_SKIP_BROWSER=1 to skip this test.",
        missing.join("; ")
    );
    Some(browser.expect("checked above").dir)
}

/// Runs a command to its end within [`CHILD_TIMEOUT`], `stdin` written to
/// it: `(success, stdout, stderr)`.
fn run(command: &mut Command, stdin: &[u8]) -> (bool, Vec<u8>, String) {
    let what = format!("{command:?}");
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let deadline = Instant::now() + CHILD_TIMEOUT;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {CHILD_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    (
        output.status.success(),
        output.stdout,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Runs `command` (stdin `stdin`) and returns its stdout; panics with its
/// stderr when it fails.
fn run_ok(command: &mut Command, stdin: &[u8]) -> Vec<u8> {
    let what = format!("{command:?}");
    let (ok, stdout, stderr) = run(command, stdin);
    assert!(ok, "{what} failed:\n{stderr}");
    stdout
}

/// Base64 of the SHA-256 of the certificate's SubjectPublicKeyInfo, the
/// form --ignore-certificate-errors-spki-list takes.
fn spki_pin(cert: &Path) -> String {
    let public_key = run_ok(
        Command::new("openssl")
            .args(["x509", "-noout", "-pubkey", "-in"])
            .arg(cert),
        b"",
    );
    let der = run_ok(
        Command::new("openssl").args(["pkey", "-pubin", "-outform", "der"]),
        &public_key,
    );
    assert!(der.len() > 32, "openssl gave a {}-byte SPKI", der.len());
    let digest = run_ok(
        Command::new("openssl").args(["dgst", "-sha256", "-binary"]),
        &der,
    );
    assert_eq!(digest.len(), 32);
    let pin = run_ok(Command::new("openssl").args(["base64", "-A"]), &digest);
    String::from_utf8(pin).unwrap().trim().to_string()
}

fn sha256(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// A temporary directory under target/tmp, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir =
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("root")).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Starts `bbrlab serve --root DIR/root` on a free loopback port, its
/// certificate written to DIR/cert.pem: the server and `127.0.0.1:PORT`.
fn serve(dir: &Path) -> (common::serve::Serve, String) {
    let root = dir.join("root");
    let cert = dir.join("cert.pem");
    let (server, addr) = common::serve::serve([
        "--cc".as_ref(),
        "bbr".as_ref(),
        "--listen".as_ref(),
        "127.0.0.1:0".as_ref(),
        "--root".as_ref(),
        root.as_os_str(),
        "--cert-out".as_ref(),
        cert.as_os_str(),
        "--duration".as_ref(),
        "300s".as_ref(),
    ] as [&std::ffi::OsStr; 10]);
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    (server, addr)
}

/// Runs a tests/browser script with `args`: `(success, stdout, stderr)`.
fn node(browser_dir: &Path, script: &str, args: &[&str]) -> (bool, String, String) {
    let (ok, stdout, stderr) = run(
        Command::new("node")
            .arg(browser_dir.join(script))
            .args(args)
            .current_dir(browser_dir),
        b"",
    );
    (ok, String::from_utf8_lossy(&stdout).into_owned(), stderr)
}

#[test]
fn chromium_loads_a_page_files_and_dash_over_h3() {
    let Some(browser_dir) = browser_ready() else {
        return;
    };
    let dir = TempDir::new("http3-chromium");
    let root = dir.0.join("root");
    std::fs::write(
        root.join("index.html"),
        "<!doctype html><title>bbrlab over h3</title><p>hello</p>\n",
    )
    .unwrap();
    // 1 MB and a bit, no two 64 KB chunks alike: a misplaced chunk shows.
    let data: Vec<u8> = (0..1_048_593u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(root.join("data.bin"), &data).unwrap();
    let (server, origin) = serve(&dir.0);
    let pin = spki_pin(&dir.0.join("cert.pem"));

    let paths = [
        "/data.bin",
        "/dash/manifest.mpd",
        "/dash/v0/init.mp4",
        "/dash/v0/1.m4s",
        "/dash/v6/2.m4s",
        "/missing.txt",
    ];
    let mut args = vec![origin.as_str(), pin.as_str(), "/index.html"];
    args.extend(paths);
    let (ok, stdout, stderr) = node(&browser_dir, "h3-fetch.mjs", &args);
    assert!(ok, "h3-fetch.mjs failed:\n{stderr}{stdout}");
    let result: Value = serde_json::from_str(&stdout).expect("h3-fetch.mjs JSON");
    assert_eq!(result["status"], 200, "{result}");
    assert_eq!(result["title"], "bbrlab over h3");
    assert_eq!(result["protocol"], "h3", "the page came over {result}");
    let fetched = result["fetched"].as_array().unwrap();
    assert_eq!(fetched.len(), paths.len());
    for (item, path) in fetched.iter().zip(paths) {
        assert_eq!(item["path"], path);
        assert_eq!(item["protocol"], "h3", "{item}");
    }
    let dash = DashConfig::obbr_paper();
    assert_eq!(fetched[0]["status"], 200);
    assert_eq!(fetched[0]["length"], data.len());
    assert_eq!(fetched[0]["sha256"], sha256(&data));
    assert_eq!(fetched[1]["status"], 200);
    assert_eq!(fetched[1]["content_type"], "application/dash+xml");
    assert_eq!(fetched[2]["status"], 200);
    assert_eq!(fetched[3]["status"], 200);
    assert_eq!(fetched[3]["length"], dash.segment_bytes(0, 0));
    assert_eq!(fetched[4]["status"], 200);
    assert_eq!(fetched[4]["length"], dash.segment_bytes(1, 6));
    assert_eq!(fetched[5]["status"], 404);

    // The pin is what makes Chromium trust the server: another key's pin
    // and the same page does not load.
    let wrong = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    let (ok, stdout, stderr) = node(
        &browser_dir,
        "h3-fetch.mjs",
        &[origin.as_str(), wrong, "/index.html"],
    );
    assert!(!ok, "loaded with a wrong pin:\n{stdout}");
    assert!(stderr.contains("ERR_"), "{stderr}");
    drop(server);
}

/// Seconds of the generated video the player test plays.
const PLAY_SECONDS: f64 = 24.0;

#[test]
fn chromium_plays_the_generated_dash_video_with_dashjs() {
    let Some(browser_dir) = browser_ready() else {
        return;
    };
    let dash_js = browser_dir.join("node_modules/dashjs/dist/dash.all.min.js");
    assert!(
        dash_js.exists(),
        "{} is missing: run scripts/setup-browser.sh",
        dash_js.display()
    );
    let package: Value =
        serde_json::from_str(&std::fs::read_to_string(browser_dir.join("package.json")).unwrap())
            .unwrap();
    let pinned = package["devDependencies"]["dashjs"].as_str().unwrap();
    // The player page, and dash.js beside it, served by bbrlab serve itself.
    let dir = TempDir::new("http3-chromium-dash");
    let player = dir.0.join("root/player");
    std::fs::create_dir_all(&player).unwrap();
    for file in ["index.html", "player.js"] {
        std::fs::copy(browser_dir.join("player").join(file), player.join(file)).unwrap();
    }
    std::fs::copy(&dash_js, player.join("dash.all.min.js")).unwrap();
    let (server, origin) = serve(&dir.0);
    let pin = spki_pin(&dir.0.join("cert.pem"));

    let seconds = PLAY_SECONDS.to_string();
    let (ok, stdout, stderr) = node(
        &browser_dir,
        "dash-play.mjs",
        &[&origin, &pin, "/player/index.html", &seconds],
    );
    assert!(ok, "dash-play.mjs failed:\n{stderr}{stdout}");
    let record: Value = serde_json::from_str(&stdout).expect("dash-play.mjs JSON");
    let summary = format!(
        "state {} errors {} stalls {} switches {} console {}",
        record["state"],
        record["errors"],
        record["stalls"],
        record["switches"],
        record["console_errors"]
    );
    assert_eq!(record["dashjs"], pinned, "{summary}");
    assert_eq!(record["mse_h264"], true, "Chromium's MSE lacks H.264");
    assert_eq!(record["errors"], serde_json::json!([]), "{summary}");
    assert_eq!(record["console_errors"], serde_json::json!([]), "{summary}");
    assert!(record["timed_out"].is_null(), "{summary}");

    // The video played: time advanced, frames were decoded at a size of
    // the ladder's pictures, and it never stalled on loopback.
    let state = &record["state"];
    assert!(
        state["current_time"].as_f64().unwrap() >= PLAY_SECONDS,
        "{summary}"
    );
    assert!(record["started"].is_number(), "{summary}");
    let frames = state["frames_decoded"].as_u64().unwrap();
    assert!(frames as f64 >= PLAY_SECONDS * 25.0 * 0.9, "{summary}");
    let (width, height) = (
        state["video_width"].as_u64().unwrap(),
        state["video_height"].as_u64().unwrap(),
    );
    assert!(
        (128..=640).contains(&width) && width * 9 == height * 16,
        "{summary}"
    );
    // No stall for want of data: the video element always held a second
    // or more beyond the playhead. Events with data buffered are recorded
    // but are not the network's (dash.js's BUFFER_EMPTY at startup before
    // its buffer accounting catches up; Chromium waiting a moment at a
    // resolution switch on a loaded machine).
    for stall in record["stalls"].as_array().unwrap() {
        assert!(
            stall["buffered_ahead"].as_f64().unwrap() >= 1.0,
            "{summary}"
        );
    }
    assert!(record["init_segments"].as_u64().unwrap() >= 1);

    // Every media segment has the model's size for its quality, in order
    // from the first, with a download time and throughput.
    let dash = DashConfig::obbr_paper();
    let segments = record["segments"].as_array().unwrap();
    let needed = (PLAY_SECONDS / dash.segment.as_secs_f64()).ceil() as usize;
    assert!(segments.len() >= needed, "{} segments", segments.len());
    for (i, segment) in segments.iter().enumerate() {
        let quality = segment["quality"].as_u64().unwrap() as usize;
        assert!(quality < dash.ladder.len(), "{segment}");
        assert_eq!(segment["index"], i, "{segment}");
        assert_eq!(
            segment["bytes"],
            dash.segment_bytes(i, quality),
            "{segment}"
        );
        assert!(segment["download_ms"].as_f64().unwrap() >= 0.0, "{segment}");
        assert!(segment["error"].is_null(), "{segment}");
        if segment["download_ms"].as_f64().unwrap() > 0.0 {
            assert!(
                segment["throughput_bps"].as_f64().unwrap() > 0.0,
                "{segment}"
            );
        }
    }
    for switch in record["switches"].as_array().unwrap() {
        assert!(switch["to"].as_u64().unwrap() < dash.ladder.len() as u64);
    }
    // All of it over HTTP/3.
    let protocols = record["protocols"].as_array().unwrap();
    let over: Vec<&Value> = protocols
        .iter()
        .filter(|p| {
            let url = p["url"].as_str().unwrap();
            url.contains("/dash/") || url.contains("/player/")
        })
        .collect();
    assert!(over.len() > needed, "{protocols:?}");
    for entry in over {
        assert_eq!(entry["protocol"], "h3", "{entry}");
    }
    println!(
        "played {}s, {} segments, qualities {:?}, {} switches, stalls {}",
        state["current_time"],
        segments.len(),
        segments
            .iter()
            .map(|s| s["quality"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        record["switches"].as_array().unwrap().len(),
        record["stalls"]
    );
    drop(server);
}

/// Runs `scenario` with `bbrlab run --emulate`: its summary, the records
/// of its `flows` Chromium pages (`browser-flow-N.json`) and its stdout.
fn emulate(name: &str, scenario: &str, flows: usize) -> (Value, Vec<Value>, Vec<u8>) {
    let dir = TempDir::new(name);
    let file = dir.0.join("scenario.toml");
    std::fs::write(&file, scenario).unwrap();
    let out = dir.0.join("out");
    let stdout = run_ok(
        Command::new(env!("CARGO_BIN_EXE_bbrlab"))
            .args(["run", "--emulate", "--no-series", "--out"])
            .arg(&out)
            .arg(&file),
        b"",
    );
    let read = |file: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(out.join(file)).unwrap()).unwrap()
    };
    let records = (0..flows)
        .map(|id| read(&format!("browser-flow-{id}.json")))
        .collect();
    // A page's session (dash.js, a live client) reports in the simulator's type.
    lab::output::SummaryFile::read(&out.join("summary.json"))
        .expect("an emulated browser run's summary reads as a run result");
    (read("summary.json"), records, stdout)
}

/// The video dash.js plays through the emulator: 5 segments of the oBBR
/// ladder, over a run long enough for the whole of it.
const EMULATED_DASHJS: &str = "name = \"dashjs\"\nseed = 1\nduration = \"26s\"\nwarmup = \"0s\"\n\
    [link]\nrate = \"20Mbit\"\nrtt = \"40ms\"\nbuffer = \"1bdp\"\n\
    [[flow]]\ncc = \"bbr\"\napp = \"dash\"\n[flow.dash]\nvideo = \"20s\"\nplayer = \"dashjs\"\n";

#[test]
fn dashjs_plays_a_dash_flow_through_the_emulator() {
    let Some(_) = browser_ready() else {
        return;
    };
    let (summary, mut records, stdout) = emulate("emulate-dashjs", EMULATED_DASHJS, 1);
    let record = records.remove(0);
    let flow = &summary["flows"][0];
    let d = &flow["dash"];
    let context = format!(
        "{}\nsummary {d}\nrecord {record}",
        String::from_utf8_lossy(&stdout)
    );
    assert_eq!(summary["mode"], "emulated");
    assert_eq!(record["dashjs"], "4.7.4", "{context}");
    assert_eq!(record["errors"], serde_json::json!([]), "{context}");
    // The summary is dash.js's: its segments (the last load of each),
    // their qualities and so the mean bitrate, its session times.
    let dash = DashConfig {
        video: Duration::from_secs(20),
        ..DashConfig::obbr_paper()
    };
    let mut qualities = std::collections::BTreeMap::new();
    for s in record["segments"].as_array().unwrap() {
        let quality = s["quality"].as_u64().unwrap() as usize;
        let index = s["index"].as_u64().unwrap() as usize;
        assert_eq!(s["bytes"], dash.segment_bytes(index, quality), "{context}");
        qualities.insert(index, quality);
    }
    let qualities: Vec<usize> = qualities.into_values().collect();
    assert_eq!(qualities.len(), 5, "{context}");
    assert_eq!(d["segments"], 5, "{context}");
    assert_eq!(d["complete"], true, "{context}");
    let aq = qualities.iter().sum::<usize>() as f64 / 5.0;
    assert!((d["aq"].as_f64().unwrap() - aq).abs() < 1e-9, "{context}");
    let mean = qualities
        .iter()
        .map(|&q| dash.ladder[q].bits_per_sec() as f64)
        .sum::<f64>()
        / 5.0;
    assert!(
        (d["mean_bitrate_bps"].as_f64().unwrap() - mean).abs() < 1.0,
        "{context}"
    );
    let session = &record["session"];
    let startup =
        (session["started"].as_f64().unwrap() - session["first_request"].as_f64().unwrap()) / 1e3;
    assert!(
        (d["startup_delay_s"].as_f64().unwrap() - startup).abs() < 1e-6,
        "{context}"
    );
    assert!(d["bola_segments"].is_null(), "{context}");
    // Over HTTP/3, through the flow's controller: the server sent the
    // video's bytes (the segments, at least) through the relay.
    for p in record["protocols"].as_array().unwrap() {
        if p["url"].as_str().unwrap().contains("/dash/") {
            assert_eq!(p["protocol"], "h3", "{context}");
        }
    }
    let video_bytes: u64 = qualities
        .iter()
        .enumerate()
        .map(|(i, &q)| dash.segment_bytes(i, q))
        .sum();
    assert!(
        flow["bytes_sent"].as_u64().unwrap() >= video_bytes,
        "{context}"
    );
    assert!(
        flow["completion_time_s"].as_f64().unwrap() < 26.0,
        "{context}"
    );
    println!("dash.js through the emulator: {d}");
}

/// Two live streams (the Copilot paper's 5.4 Mbit/s) received by Chromium
/// through the emulator, the second sender with Copilot.
const EMULATED_LIVE: &str = "name = \"live\"\nseed = 1\nduration = \"7s\"\nwarmup = \"3s\"\n\
    [link]\nrate = \"24Mbit\"\nrtt = \"100ms\"\nbuffer = \"1bdp\"\n\
    [[flow]]\ncc = \"bbr\"\napp = \"live\"\n[flow.live]\nclient = \"chromium\"\n\
    [[flow]]\ncc = \"bbr\"\napp = \"live\"\ncopilot = true\n[flow.live]\nclient = \"chromium\"\n";

#[test]
fn chromium_receives_live_streams_through_the_emulator_with_and_without_copilot() {
    let Some(_) = browser_ready() else {
        return;
    };
    let (summary, records, stdout) = emulate("emulate-live", EMULATED_LIVE, 2);
    let context = format!("{}\n{summary}", String::from_utf8_lossy(&stdout));
    for (id, copilot) in [(0, false), (1, true)] {
        let (flow, record) = (&summary["flows"][id], &records[id]);
        assert_eq!(record["status"], 200, "{context}");
        assert_eq!(record["errors"], serde_json::json!([]), "{context}");
        // The page's connection is HTTP/3 (the stream's own Resource
        // Timing entry appears only when it ends, after the run).
        let manifest = record["protocols"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["url"].as_str().unwrap().ends_with("/dash/manifest.mpd"))
            .expect("the page's first request");
        assert_eq!(manifest["protocol"], "h3", "{context}");
        // The frames created in the 4 s window (one per 40 ms), each no
        // sooner than the 50 ms one-way delay of the emulated path after
        // its creation: the stream crossed the relay.
        let live = &flow["live"];
        let frames = live["frames"].as_u64().unwrap();
        assert!((80..=105).contains(&frames), "flow {id}: {context}");
        let delay = &live["frame_delay_ms"];
        assert!(
            delay["min"].as_f64().unwrap() >= 50.0,
            "flow {id}: {context}"
        );
        assert!(
            delay["p50"].as_f64().unwrap() < 1000.0,
            "flow {id}: {context}"
        );
        // Copilot pads the second sender's app-limited rounds only.
        let padding = flow["padding_bytes"].as_u64().unwrap();
        assert_eq!(padding > 0, copilot, "flow {id}: {context}");
    }
    println!(
        "live through the emulator: {} / with Copilot {}",
        summary["flows"][0]["live"], summary["flows"][1]["live"]
    );
}
