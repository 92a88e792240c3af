//! Running the `bbrlab` binary from a test, and the paths it needs.

use std::path::{Path, PathBuf};
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

/// A finished command's standard error, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The `summary.json` a run wrote into `dir`, as JSON.
pub fn summary(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json written");
    serde_json::from_str(&text).expect("summary.json is JSON")
}

/// A 3 s BBR flow on a 20 Mbit/s, 40 ms, 1 BDP link: short enough to
/// emulate in a test.
pub const EMULATED_LINK: &str =
    "name = \"emulated\"\nseed = 3\nduration = \"3s\"\nwarmup = \"1s\"\n\
    [link]\nrate = \"20Mbit\"\nrtt = \"40ms\"\nbuffer = \"1bdp\"\n[[flow]]\ncc = \"bbr\"\n";
