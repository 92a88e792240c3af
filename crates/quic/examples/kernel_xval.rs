//! The simulator against the Linux kernel's TCP: every condition of
//! `quic::kernel_xval::conditions` (scenarios/kernel-xval/), the
//! simulator's bbr, cubic:hystart=true and reno beside the kernel's
//! linux:bbr, linux:cubic and linux:reno through the shell's emulated
//! link, N runs each way. Prints the markdown table docs/EMULATION.md
//! carries, every miss, and the wall time. Needs root (the shell's network
//! namespace); about 35 minutes at the default three runs.
//!
//! `cargo run --release -p bbrlab-quic --example kernel_xval -- [--runs N] [--quick] [--json FILE] [NAME...]`
//!
//! `--quick` is `--runs 1`; NAMEs keep the conditions whose name contains
//! one of them (e.g. `"Fig. 4"`).

use std::path::PathBuf;
use std::time::Instant;

use quic::kernel_xval::{self, DEFAULT_RUNS};

fn usage(problem: &str) -> ! {
    eprintln!(
        "kernel_xval: {problem}\nusage: kernel_xval [--runs N] [--quick] [--json FILE] [NAME...]"
    );
    std::process::exit(2);
}

fn main() {
    let mut runs = DEFAULT_RUNS;
    let mut json: Option<PathBuf> = None;
    let mut names = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => {
                runs = match args.next().as_deref().map(str::parse::<usize>) {
                    Some(Ok(n)) if n >= 1 => n,
                    _ => usage("--runs expects a whole number of runs, at least 1"),
                }
            }
            "--quick" => runs = 1,
            "--json" => {
                json = Some(
                    args.next()
                        .unwrap_or_else(|| usage("--json needs a file"))
                        .into(),
                )
            }
            flag if flag.starts_with("--") => usage(&format!("unknown option {flag}")),
            name => names.push(name.to_string()),
        }
    }
    if !kernel_xval::is_root() {
        usage("the kernel's TCP runs through the shell's network namespace: run as root");
    }
    let conditions: Vec<_> = kernel_xval::conditions()
        .into_iter()
        .filter(|c| names.is_empty() || names.iter().any(|n| c.name.contains(n.as_str())))
        .collect();
    if conditions.is_empty() {
        usage("no condition's name contains any of the NAMEs given");
    }
    let started = Instant::now();
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for condition in &conditions {
        let t = Instant::now();
        match kernel_xval::compare(condition, runs) {
            Ok(r) => {
                eprint!("{}", kernel_xval::markdown(&r));
                eprintln!("({}: {:.0} s)", condition.name, t.elapsed().as_secs_f64());
                rows.extend(r);
            }
            Err(e) => failed.push(e),
        }
    }
    let wall = started.elapsed().as_secs_f64();
    print!("{}", kernel_xval::markdown(&rows));
    let (agree, all) = kernel_xval::tally(&rows);
    println!("\n{agree} of {all} checks agree ({runs} run(s) each way; wall time {wall:.0} s)");
    let missed = kernel_xval::misses(&rows);
    if !missed.is_empty() {
        println!("\nmisses:");
        for m in &missed {
            println!("- {m}");
        }
    }
    if !failed.is_empty() {
        println!("\nruns that failed:");
        for f in &failed {
            println!("- {f}");
        }
    }
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&rows).expect("rows serialize");
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("kernel_xval: cannot write {}: {e}", path.display());
        }
    }
    if !failed.is_empty() {
        std::process::exit(1);
    }
}
