//! `bbrlab serve` over HTTP/3 to a client no one here wrote: aioquic's
//! HTTP/3 stack (pinned in tests/h3/requirements.txt, installed by this
//! test into a virtualenv under target/tmp), driven by tests/h3/client.py.
//! It fetches a file (byte-exact), byte ranges, errors, the DASH manifest
//! and segments, and a live stream, from `bbrlab serve --root` on loopback,
//! trusting the self-signed certificate the command writes.

mod common;
use common::serve::serve;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sim::app::dash::DashConfig;

/// How long installing aioquic or running the client may take.
const CHILD_TIMEOUT: Duration = Duration::from_secs(300);

/// Runs a command to its end within [`CHILD_TIMEOUT`]; its stdout, or why not.
fn run(command: &mut Command) -> Result<String, String> {
    let what = format!("{command:?}");
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{what}: cannot start: {e}"))?;
    let deadline = Instant::now() + CHILD_TIMEOUT;
    loop {
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{what}: still running after {CHILD_TIMEOUT:?}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!(
            "{what}: {}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/h3")
}

/// A Python with the pinned aioquic: the virtualenv under target/tmp,
/// made and filled from tests/h3/requirements.txt when it lacks it.
fn aioquic_python() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("aioquic-venv");
    let python = venv.join("bin/python");
    let requirements = tests_dir().join("requirements.txt");
    let pinned = std::fs::read_to_string(&requirements).unwrap();
    let pinned = pinned
        .lines()
        .find_map(|l| l.strip_prefix("aioquic=="))
        .expect("requirements.txt pins aioquic");
    let check = format!("import aioquic, sys; sys.exit(aioquic.__version__ != {pinned:?})");
    if run(Command::new(&python).args(["-c", &check])).is_ok() {
        return python;
    }
    let installed = run(Command::new("python3").args(["-m", "venv"]).arg(&venv)).and_then(|_| {
        run(Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "-r"])
            .arg(&requirements))
    });
    if let Err(e) = installed {
        panic!(
            "this test needs aioquic {pinned} (tests/h3/requirements.txt) in a virtualenv at {}, \
             and installing it failed (it needs python3 with venv and pip, and PyPI): {e}",
            venv.display()
        );
    }
    python
}

fn sha256(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

struct Site {
    dir: PathBuf,
    data: Vec<u8>,
}

impl Site {
    /// A root with a binary file, an index page, and beside the root a
    /// secret that a symlink inside points to.
    fn new() -> Site {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("http3-aioquic-{}", std::process::id()));
        let root = dir.join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        // 1 MB and a bit, no two 64 KB chunks alike: a misplaced chunk shows.
        let data: Vec<u8> = (0..1_048_593u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        std::fs::write(root.join("data.bin"), &data).unwrap();
        std::fs::write(root.join("sub/index.html"), "<p>hello</p>\n").unwrap();
        std::fs::write(dir.join("secret.txt"), "secret").unwrap();
        std::os::unix::fs::symlink(dir.join("secret.txt"), root.join("link.txt")).unwrap();
        Site { dir, data }
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn header<'a>(response: &'a Value, name: &str) -> &'a str {
    response["headers"][name].as_str().unwrap_or("")
}

#[test]
fn aioquic_fetches_files_ranges_dash_and_a_live_stream() {
    let python = aioquic_python();
    let site = Site::new();
    let cert = site.dir.join("cert.pem");
    let root = site.dir.join("root");
    let (server, addr) = serve([
        "--cc",
        "bbr",
        "--listen",
        "127.0.0.1:0",
        "--root",
        root.to_str().unwrap(),
        "--cert-out",
        cert.to_str().unwrap(),
        "--duration",
        "120s",
    ]);
    let addr: std::net::SocketAddr = addr.parse().unwrap();
    let len = site.data.len();
    let dash = DashConfig::obbr_paper();
    let requests = json!([
        {"path": "/data.bin"},
        {"path": "/data.bin", "headers": {"range": "bytes=70000-200000"}},
        {"path": "/data.bin", "headers": {"range": "bytes=-100"}},
        {"path": "/data.bin", "headers": {"range": format!("bytes={len}-")}},
        {"path": "/data.bin", "headers": {"range": "bytes=9-1"}},
        {"path": "/missing.txt"},
        {"path": "/link.txt"},
        {"path": "/%2e%2e/secret.txt"},
        {"path": "/sub/", "body": true},
        {"path": "/data.bin", "method": "POST"},
        {"path": "/dash/manifest.mpd", "body": true},
        {"path": "/dash/v0/init.mp4"},
        {"path": "/dash/v0/1.m4s"},
        {"path": "/dash/v9/150.m4s"},
        {"path": "/dash/v5/2.m4s", "headers": {"range": "bytes=0-99"}},
        {"path": "/dash/v10/1.m4s"},
        {"path": "/live?bitrate=2Mbit&duration=3s", "frames": true},
        {"path": "/live?bitrate=fast"},
        {"path": "/sub/index.html", "body": true},
    ]);
    let requests_file = site.dir.join("requests.json");
    std::fs::write(&requests_file, requests.to_string()).unwrap();
    let output = run(Command::new(&python)
        .arg(tests_dir().join("client.py"))
        .arg(addr.ip().to_string())
        .arg(addr.port().to_string())
        .arg(&cert)
        .arg(&requests_file))
    .unwrap_or_else(|e| panic!("the aioquic client failed: {e}"));
    let responses: Vec<Value> = serde_json::from_str(&output).expect("the client's JSON");
    let r = |i: usize| &responses[i];
    for (i, response) in responses.iter().enumerate() {
        assert_eq!(response["timed_out"], false, "request {i}: {response}");
    }

    // The whole file, byte-exact.
    assert_eq!(r(0)["status"], 200);
    assert_eq!(r(0)["length"], len);
    assert_eq!(r(0)["sha256"], sha256(&site.data));
    assert_eq!(header(r(0), "content-length"), len.to_string());
    assert_eq!(header(r(0), "content-type"), "application/octet-stream");
    assert_eq!(header(r(0), "accept-ranges"), "bytes");
    // Ranges: a-b, -n; unsatisfiable; malformed.
    assert_eq!(r(1)["status"], 206);
    assert_eq!(r(1)["sha256"], sha256(&site.data[70_000..200_001]));
    assert_eq!(
        header(r(1), "content-range"),
        format!("bytes 70000-200000/{len}")
    );
    assert_eq!(r(2)["status"], 206);
    assert_eq!(r(2)["sha256"], sha256(&site.data[len - 100..]));
    assert_eq!(r(3)["status"], 416);
    assert_eq!(header(r(3), "content-range"), format!("bytes */{len}"));
    assert_eq!(r(4)["status"], 400);
    // Not found, a symlink out of the root, a traversal.
    assert_eq!(r(5)["status"], 404);
    assert_eq!(r(6)["status"], 404);
    assert_eq!(r(7)["status"], 400);
    // A directory: its index. (HEAD is the h3 client's test: aioquic 1.3
    // takes a HEAD response's Content-Length for a body that must follow.)
    assert_eq!(r(8)["status"], 200);
    assert_eq!(r(8)["body"], "<p>hello</p>\n");
    assert_eq!(header(r(8), "content-length"), "13");
    assert_eq!(header(r(8), "content-type"), "text/html; charset=utf-8");
    assert_eq!(r(9)["status"], 405);
    assert_eq!(header(r(9), "allow"), "GET, HEAD");
    // DASH: the manifest names the ladder; segments have the model's sizes.
    assert_eq!(r(10)["status"], 200);
    assert_eq!(header(r(10), "content-type"), "application/dash+xml");
    let mpd = r(10)["body"].as_str().unwrap();
    for bitrate in &dash.ladder {
        assert!(
            mpd.contains(&format!("bandwidth=\"{}\"", bitrate.bits_per_sec())),
            "{mpd}"
        );
    }
    assert!(
        mpd.contains("media=\"$RepresentationID$/$Number$.m4s\""),
        "{mpd}"
    );
    assert_eq!(r(11)["status"], 200);
    assert!(r(11)["length"].as_u64().unwrap() > 16);
    assert_eq!(r(12)["length"], dash.segment_bytes(0, 0));
    assert_eq!(r(12)["length"], 254_000 * 4 / 8);
    assert_eq!(r(13)["length"], dash.segment_bytes(149, 9));
    assert_eq!(r(14)["status"], 206);
    assert_eq!(r(14)["length"], 100);
    assert_eq!(
        header(r(14), "content-range"),
        format!("bytes 0-99/{}", dash.segment_bytes(1, 5))
    );
    assert_eq!(r(15)["status"], 404);
    // Live: the GOP at connect (2 s of 40 ms frames), then a frame every
    // 40 ms until 3 s: 50 + 74 frames of 10,000 bytes, spread in time.
    let live = r(16);
    assert_eq!(live["status"], 200);
    let frames = live["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 124, "{live}");
    assert_eq!(live["trailing_bytes"], 0);
    for (i, frame) in frames.iter().enumerate() {
        assert_eq!(frame["number"], i);
        assert_eq!(frame["bytes"], 10_000);
    }
    let at = |i: usize| frames[i]["at"].as_f64().unwrap();
    assert!(at(49) < 1.5, "the GOP backlog took {}s", at(49));
    assert!(at(123) - at(49) > 2.5, "live frames came too fast: {live}");
    assert!(at(123) < 6.0, "the stream lasted {}s", at(123));
    assert_eq!(r(17)["status"], 400);
    // And the connection still serves after every refusal.
    assert_eq!(r(18)["status"], 200);
    assert_eq!(r(18)["body"], "<p>hello</p>\n");
    drop(server);
}
