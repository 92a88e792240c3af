//! The simulator against real s2n-quic through the emulator, in real time
//! (about a minute): the 20 Mbit/s, 40 ms links of scenarios/xval/ at one
//! and a quarter BDP, with BBRv1, CUBIC and oBBR. The checks and their
//! tolerances are `quic::xval`'s; the full set (100 Mbit/s, the rate
//! drop, the LTE trace) is the `cross_validate` example.

use std::path::PathBuf;

fn scenario(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../scenarios/xval/{name}.toml"))
}

#[test]
fn emulated_runs_agree_with_simulated_ones_on_a_20_mbit_link() {
    let mut failed = Vec::new();
    for (name, shallow) in [("c20-1bdp", false), ("c20-quarter-bdp", true)] {
        let pairs = quic::xval::compare(
            &scenario(name),
            &["bbr", "cubic", "obbr"],
            quic::xval::Repeats::NONE,
        )
        .unwrap();
        eprint!("{}", quic::xval::markdown(&pairs));
        failed.extend(quic::xval::failures(&pairs, shallow));
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
