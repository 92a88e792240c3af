//! bbrlab stands alone: no tracked file reaches outside the repository for
//! its data (the traces live in data/traces), and none names a path of the
//! machine it was written on.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The tracked files, or every file outside target/ and .git/ when this is
/// not a git checkout (a source tarball).
fn tracked_files() -> Vec<PathBuf> {
    let root = repo_root();
    let git = Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["ls-files", "-z"])
        .output();
    if let Ok(out) = git {
        if out.status.success() && !out.stdout.is_empty() {
            return out
                .stdout
                .split(|&b| b == 0)
                .filter(|p| !p.is_empty())
                .map(|p| root.join(String::from_utf8_lossy(p).as_ref()))
                .collect();
        }
    }
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if name == "target" || name == ".git" || name == "node_modules" || name == "out" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

#[test]
fn no_tracked_file_reads_outside_the_repository() {
    // Built from pieces so that this file does not match itself.
    let forbidden = [
        format!("../{}/", "shared"),
        format!("/{}/", "work"),
        format!("/{}/", "root"),
        format!("/{}/", "home"),
    ];
    let mut offenders = Vec::new();
    for path in tracked_files() {
        // Trace data is numbers; binary files cannot name paths we load.
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "lock") {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            for pattern in &forbidden {
                if line.contains(pattern.as_str()) {
                    offenders.push(format!(
                        "{}:{}: contains {pattern:?}",
                        path.strip_prefix(repo_root()).unwrap_or(&path).display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "tracked files reach outside the repository:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_vendored_traces_are_present_with_their_provenance() {
    let traces = repo_root().join("data/traces");
    let readme = std::fs::read_to_string(traces.join("README.md")).unwrap();
    assert!(readme.contains("GPL-3.0"), "the mahimahi licence is stated");
    assert!(
        readme.contains("MMSys 2020"),
        "the Irish 5G source is stated"
    );
    for trace in [
        "mahimahi/TMobile-LTE-short.down",
        "irish-5g/Static/B_2020.02.13_13.57.29.csv",
        "irish-5g/Driving/B_2019.12.14_10.16.30.csv",
    ] {
        assert!(
            traces.join(trace).is_file(),
            "data/traces/{trace} is vendored"
        );
    }
}
