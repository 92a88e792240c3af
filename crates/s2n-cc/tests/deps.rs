//! The drop-in crate stays a drop-in: its dependency tree holds none of
//! bbrlab's simulator, emulator or scenario crates.

use std::process::Command;

#[test]
fn the_dependency_tree_has_no_simulator_emulator_or_scenario() {
    let output = Command::new(env!("CARGO"))
        .args([
            "tree",
            "-p",
            env!("CARGO_PKG_NAME"),
            "-e",
            "normal",
            "--prefix",
            "none",
            "--offline",
            "--locked",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    let tree = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let names: Vec<&str> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert!(
        names.contains(&"bbrlab-cc"),
        "the tree lists bbrlab-cc:\n{tree}"
    );
    assert!(
        names.contains(&"s2n-quic"),
        "the tree lists s2n-quic:\n{tree}"
    );
    for forbidden in ["bbrlab-sim", "bbrlab-emu", "bbrlab-scenario", "bbrlab-link"] {
        assert!(
            !names.contains(&forbidden),
            "{forbidden} is in the drop-in's dependency tree:\n{tree}"
        );
    }
    let bbrlab: Vec<&&str> = names.iter().filter(|n| n.starts_with("bbrlab-")).collect();
    assert!(
        bbrlab
            .iter()
            .all(|n| ["bbrlab-cc", "bbrlab-s2n-quic"].contains(n)),
        "only bbrlab-cc of bbrlab's crates: {bbrlab:?}"
    );
}
