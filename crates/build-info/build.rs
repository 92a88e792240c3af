//! Records the git commit the binaries are built from, for outputs' provenance.
//! Outside a git checkout (a source tarball) the commit is "unknown".

use std::process::Command;

fn main() {
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .is_some_and(|o| !o.stdout.is_empty());
    let commit = if dirty && commit != "unknown" {
        format!("{commit}+modified")
    } else {
        commit
    };
    println!("cargo:rustc-env=BBRLAB_GIT_COMMIT={commit}");
    // Rebuild when HEAD moves; paths are relative to this crate.
    for path in ["../../.git/HEAD", "../../.git/index"] {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
