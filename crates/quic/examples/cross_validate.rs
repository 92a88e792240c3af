//! The simulator against real s2n-quic through the emulator, on every
//! scenario of scenarios/xval/ with BBRv1, CUBIC and oBBR: prints the
//! markdown table docs/EMULATION.md carries and every check that fails.
//! Takes about three minutes (each emulated run is 10 s of real time).
//!
//! `cargo run --release -p bbrlab-quic --example cross_validate -- [--sim-seeds N] [--emu-runs N] [FILE...]`
//!
//! `--sim-seeds` and `--emu-runs` add the goodput spread over more seeds
//! and emulated runs (a second table); the checks stay on the first run
//! each way, at the scenario's seed.

use std::path::PathBuf;

use quic::xval::Repeats;

fn usage(problem: &str) -> ! {
    eprintln!(
        "cross_validate: {problem}\nusage: cross_validate [--sim-seeds N] [--emu-runs N] [FILE...]"
    );
    std::process::exit(2);
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/xval");
    let mut repeats = Repeats::NONE;
    let mut given = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let count = |flag: &str, value: Option<String>| -> usize {
            match value.as_deref().map(str::parse::<usize>) {
                Some(Ok(n)) if n >= 1 => n,
                _ => usage(&format!(
                    "{flag} expects a whole number of runs, at least 1"
                )),
            }
        };
        match arg.as_str() {
            "--sim-seeds" => repeats.sim_seeds = count("--sim-seeds", args.next()),
            "--emu-runs" => repeats.emu_runs = count("--emu-runs", args.next()),
            flag if flag.starts_with("--") => usage(&format!("unknown option {flag}")),
            file => given.push(PathBuf::from(file)),
        }
    }
    let files: Vec<PathBuf> = if given.is_empty() {
        [
            "c20-1bdp",
            "c20-quarter-bdp",
            "c100-1bdp",
            "c100-quarter-bdp",
            "drop",
            "lte-trace",
        ]
        .iter()
        .map(|name| root.join(format!("{name}.toml")))
        .collect()
    } else {
        given
    };
    let mut all = Vec::new();
    let mut failed = Vec::new();
    for file in &files {
        let shallow = file.to_string_lossy().contains("quarter");
        match quic::xval::compare(file, &["bbr", "cubic", "obbr"], repeats) {
            Ok(pairs) => {
                failed.extend(quic::xval::failures(&pairs, shallow));
                eprint!("{}", quic::xval::markdown(&pairs));
                all.extend(pairs);
            }
            Err(e) => failed.push(format!("{}: {e}", file.display())),
        }
    }
    print!("{}", quic::xval::markdown(&all));
    if repeats != Repeats::NONE {
        print!("\n{}", quic::xval::spread_markdown(&all));
    }
    if failed.is_empty() {
        println!("\nevery check holds");
    } else {
        println!("\nchecks that fail:");
        for f in &failed {
            println!("- {f}");
        }
    }
}
