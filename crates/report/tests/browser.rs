//! Renders the demo report and loads it in headless Chromium through
//! `tests/browser/check-report.mjs`, which checks that every section's
//! figures render as visible, non-empty SVG and that nothing errors.
//!
//! Needs /usr/bin/chromium and tests/browser/node_modules: run
//! `scripts/setup-browser.sh`. Set BBRLAB_SKIP_BROWSER=1 to skip on machines
//! without a browser; otherwise a missing browser is a failure, so CI cannot
//! silently stop checking.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/bin/chromium";
/// Generous: a cold Chromium start on a loaded CI machine takes seconds.
const TIMEOUT: Duration = Duration::from_secs(180);

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

/// `target/report-artifacts`, kept after the test for a human to open.
fn artifacts_dir() -> PathBuf {
    // CARGO_TARGET_TMPDIR is <target dir>/tmp, which respects CARGO_TARGET_DIR.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target dir")
        .to_path_buf();
    let dir = target.join("report-artifacts");
    std::fs::create_dir_all(&dir).expect("create target/report-artifacts");
    dir
}

#[test]
fn demo_report_renders_in_chromium() {
    if std::env::var("BBRLAB_SKIP_BROWSER").as_deref() == Ok("1") {
        eprintln!("browser check skipped: BBRLAB_SKIP_BROWSER=1");
        return;
    }
    let root = repo_root();
    let browser_dir = root.join("tests/browser");
    let script = browser_dir.join("check-report.mjs");
    let mut missing = Vec::new();
    if !Path::new(CHROMIUM).exists() {
        missing.push(CHROMIUM.to_string());
    }
    if !browser_dir.join("node_modules/playwright-core").exists() {
        missing.push(browser_dir.join("node_modules").display().to_string());
    }
    if Command::new("node").arg("--version").output().is_err() {
        missing.push("node (Node.js 20+)".to_string());
    }
    assert!(
        missing.is_empty(),
        "the browser check cannot run, missing: {}.\nRun scripts/setup-browser.sh (as root) to install them, \
         or set BBRLAB_SKIP_BROWSER=1 to skip this test.",
        missing.join(", ")
    );

    let demo = report::demo::demo_report();
    let html = report::render_html(&demo);
    let work = std::env::temp_dir().join(format!("bbrlab-report-browser-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("create temp dir");
    let report_path = work.join("demo.html");
    std::fs::write(&report_path, &html).expect("write demo report");
    let artifacts = artifacts_dir();
    let screenshot = artifacts.join("demo.png");
    let _ = std::fs::remove_file(&screenshot);
    // Keep the HTML next to its screenshot for a human to open.
    std::fs::write(artifacts.join("demo.html"), &html).expect("write artifact");

    let mut child = Command::new("node")
        .arg(&script)
        .arg(&report_path)
        .arg(&screenshot)
        .current_dir(&browser_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start node");
    // A hung browser must fail the test, not stall CI.
    let start = Instant::now();
    while child.try_wait().expect("wait for node").is_none() {
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("browser check did not finish within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("node output");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    print!("{stdout}");
    eprint!("{stderr}");
    let _ = std::fs::remove_dir_all(&work);
    assert!(
        output.status.success(),
        "browser check failed ({}):\n{stderr}{stdout}",
        output.status
    );

    let figures: usize = demo.sections.iter().map(|s| s.figures.len()).sum();
    let expected = format!(
        "report check: {} sections, {figures} figures, 0 console errors",
        demo.sections.len()
    );
    assert!(
        stdout.contains(&expected),
        "expected {expected:?} in:\n{stdout}"
    );
    let size = std::fs::metadata(&screenshot).map(|m| m.len()).unwrap_or(0);
    assert!(
        size > 10_000,
        "screenshot {} is missing or tiny",
        screenshot.display()
    );
    println!("screenshot: {}", screenshot.display());
}
