//! The simulator against real s2n-quic through the emulator, on every
//! scenario of scenarios/xval/ with BBRv1, CUBIC and oBBR: prints the
//! markdown table docs/EMULATION.md carries and every check that fails.
//! Takes about three minutes (each emulated run is 10 s of real time).
//!
//! `cargo run --release -p bbrlab-quic --example cross_validate [FILE...]`

use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/xval");
    let files: Vec<PathBuf> = match std::env::args()
        .skip(1)
        .map(PathBuf::from)
        .collect::<Vec<_>>()
    {
        given if !given.is_empty() => given,
        _ => [
            "c20-1bdp",
            "c20-quarter-bdp",
            "c100-1bdp",
            "c100-quarter-bdp",
            "drop",
            "lte-trace",
        ]
        .iter()
        .map(|name| root.join(format!("{name}.toml")))
        .collect(),
    };
    let mut all = Vec::new();
    let mut failed = Vec::new();
    for file in &files {
        let shallow = file.to_string_lossy().contains("quarter");
        match quic::xval::compare(file, &["bbr", "cubic", "obbr"]) {
            Ok(pairs) => {
                failed.extend(quic::xval::failures(&pairs, shallow));
                eprint!("{}", quic::xval::markdown(&pairs));
                all.extend(pairs);
            }
            Err(e) => failed.push(format!("{}: {e}", file.display())),
        }
    }
    print!("{}", quic::xval::markdown(&all));
    if failed.is_empty() {
        println!("\nevery check holds");
    } else {
        println!("\nchecks that fail:");
        for f in &failed {
            println!("- {f}");
        }
    }
}
