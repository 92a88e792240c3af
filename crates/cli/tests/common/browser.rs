//! The browser check of report pages: headless Chromium opens the page
//! (tests/browser/check-report.mjs: every section's plots rendered, no
//! console errors, nothing fetched from outside).

use std::path::Path;
use std::process::Command;

use super::run::repo;

/// Opens the report `html` in headless Chromium and keeps the page and a
/// screenshot as target/report-artifacts/`name`.{html,png}; skipped
/// with BBRLAB_SKIP_BROWSER=1.
pub fn check_in_browser(html: &Path, name: &str) {
    if std::env::var("BBRLAB_SKIP_BROWSER").as_deref() == Ok("1") {
        eprintln!("browser check skipped: BBRLAB_SKIP_BROWSER=1");
        return;
    }
    let artifacts = repo().join("target/report-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let check = Command::new("node")
        .arg(repo().join("tests/browser/check-report.mjs"))
        .arg(html)
        .arg(artifacts.join(format!("{name}.png")))
        .output()
        .expect("node runs; scripts/setup-browser.sh installs what the check needs");
    assert!(
        check.status.success(),
        "browser check of {name} failed (run scripts/setup-browser.sh if Chromium or node_modules are missing):\n{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    std::fs::copy(html, artifacts.join(format!("{name}.html"))).unwrap();
}
