//! Running the `bbrlab` binary from a test, and the paths it needs.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs `bbrlab ARGS` to completion.
pub fn bbrlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bbrlab"))
        .args(args)
        .output()
        .expect("bbrlab runs")
}

/// The repository's root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh, empty directory `bbrlab-SUITE-TAG-PID` under the system's
/// temporary directory.
pub fn tempdir(suite: &str, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bbrlab-{suite}-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
