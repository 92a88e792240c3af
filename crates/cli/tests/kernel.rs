//! Kernel TCP flows (`cc = "linux:NAME"`) from the command line: refused by
//! the simulator with the file and key; under `--emulate` (as root) run
//! through the emulated link beside the simulator's outputs.

use std::path::PathBuf;
use std::process::{Command, Output};

fn bbrlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bbrlab"))
        .args(args)
        .output()
        .expect("bbrlab runs")
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tempdir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bbrlab-kernel-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn scenario() -> String {
    repo()
        .join("scenarios/kernel/bbr-vs-cubic.toml")
        .display()
        .to_string()
}

#[test]
fn a_simulated_run_refuses_a_kernel_flow_naming_file_and_key() {
    let dir = tempdir("refused");
    let out = dir.join("out");
    let o = bbrlab(&["run", &scenario(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    for needle in [
        "bbr-vs-cubic.toml: flow[0].cc (line 20)",
        "cc = \"linux:bbr\" is the kernel's TCP and runs only under --emulate",
        "the simulator's own `bbr` is the faithful model of it",
    ] {
        assert!(err.contains(needle), "`{needle}` not in: {err}");
    }
    assert!(!out.exists(), "nothing is written for a refused run");
    // With the project's models in their place the same file simulates.
    let o = bbrlab(&[
        "run",
        &scenario(),
        "--set",
        "flow.0.cc=bbr",
        "--set",
        "flow.1.cc=cubic",
        "--set",
        "duration=3s",
        "--set",
        "warmup=1s",
        "--no-series",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_sweep_refuses_a_kernel_flow_too() {
    let dir = tempdir("sweep");
    let text = std::fs::read_to_string(scenario()).unwrap()
        + "\n[sweep]\n\"link.rate\" = [\"10Mbit\", \"20Mbit\"]\n";
    let file = dir.join("swept.toml");
    std::fs::write(&file, text).unwrap();
    let o = bbrlab(&[
        "sweep",
        file.to_str().unwrap(),
        "--jobs",
        "1",
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("swept.toml: flow[0].cc") && err.contains("runs only under --emulate"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
