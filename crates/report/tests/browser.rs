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

/// Whether the check can run here; `None` when BBRLAB_SKIP_BROWSER=1.
fn browser_ready() -> Option<PathBuf> {
    if std::env::var("BBRLAB_SKIP_BROWSER").as_deref() == Ok("1") {
        eprintln!("browser check skipped: BBRLAB_SKIP_BROWSER=1");
        return None;
    }
    let browser_dir = repo_root().join("tests/browser");
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
    Some(browser_dir)
}

/// Runs check-report.mjs on `html` (kept as `name`.html beside its
/// screenshot in target/report-artifacts): `(passed, stdout, stderr)`.
fn check(browser_dir: &Path, html: &str, name: &str) -> (bool, String, String) {
    let artifacts = artifacts_dir();
    let report_path = artifacts.join(format!("{name}.html"));
    std::fs::write(&report_path, html).expect("write report");
    let screenshot = artifacts.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&screenshot);
    let mut child = Command::new("node")
        .arg(browser_dir.join("check-report.mjs"))
        .arg(&report_path)
        .arg(&screenshot)
        .current_dir(browser_dir)
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
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.success(), stdout, stderr)
}

#[test]
fn demo_report_renders_in_chromium() {
    let Some(browser_dir) = browser_ready() else {
        return;
    };
    let demo = report::demo::demo_report();
    let html = report::render_html(&demo);
    let (passed, stdout, stderr) = check(&browser_dir, &html, "demo");
    print!("{stdout}");
    eprint!("{stderr}");
    assert!(passed, "browser check failed:\n{stderr}{stdout}");

    let figures: usize = demo.sections.iter().map(|s| s.figures.len()).sum();
    let expected = format!(
        "report check: {} sections, {figures} figures, 0 console errors",
        demo.sections.len()
    );
    assert!(
        stdout.contains(&expected),
        "expected {expected:?} in:\n{stdout}"
    );
    let screenshot = artifacts_dir().join("demo.png");
    let size = std::fs::metadata(&screenshot).map(|m| m.len()).unwrap_or(0);
    assert!(
        size > 10_000,
        "screenshot {} is missing or tiny",
        screenshot.display()
    );
    println!("screenshot: {}", screenshot.display());
}

/// The check is not a formality: a figure with text over its data and one
/// whose series share a colour fail it, each named.
#[test]
fn the_browser_check_catches_overprinted_text_and_shared_colours() {
    let Some(browser_dir) = browser_ready() else {
        return;
    };
    let html = report::render_html(&report::demo::demo_report());

    // Text in the middle of the first figure's data area, no backing.
    let marker = "data-plot-area=\"";
    let at = html.find(marker).expect("figures mark their data area") + marker.len();
    let area: Vec<i32> = html[at..html[at..].find('"').unwrap() + at]
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect();
    let (x, y) = ((area[0] + area[2]) / 2, (area[1] + area[3]) / 2);
    let end = at + html[at..].find("</svg>").unwrap();
    let overprinted = format!(
        "{}<text x=\"{x}\" y=\"{y}\" font-size=\"12\">stray label</text>{}",
        &html[..end],
        &html[end..]
    );
    let (passed, _, stderr) = check(&browser_dir, &overprinted, "defect-overprinted");
    assert!(!passed, "text over the data passed the check");
    assert!(
        stderr.contains("text \"stray label\"") && stderr.contains("without a backing"),
        "{stderr}"
    );

    // Two series of a figure given one colour.
    let attr = "data-series-colours=\"";
    let at = html
        .match_indices(attr)
        .map(|(i, _)| i + attr.len())
        .find(|&i| html[i..i + html[i..].find('"').unwrap()].contains(' '))
        .expect("a figure with two series");
    let close = at + html[at..].find('"').unwrap();
    let first = html[at..close].split(' ').next().unwrap().to_string();
    let shared = format!("{}{first} {first}{}", &html[..at], &html[close..]);
    let (passed, _, stderr) = check(&browser_dir, &shared, "defect-shared-colour");
    assert!(!passed, "two series sharing a colour passed the check");
    assert!(stderr.contains("two series share a colour"), "{stderr}");
}
