//! Runs `my-bbr` beside BBRv1: one simulation through the simulator's API,
//! then a sweep over buffer sizes through a scenario file's text, on
//! worker threads; or an experiment file whose sweep names `my-bbr`.
//!
//! `cargo run --release -p bbrlab-example-my-controller [-- SECONDS]`
//!
//! `cargo run --release -p bbrlab-example-my-controller -- experiment FILE.toml [--fast] [--out DIR]`
//! runs an experiment file (docs/EXPERIMENTS.md) as `bbrlab experiment`
//! does, with `my-bbr` registered first: the `bbrlab` binary knows only its
//! built-in controllers.

use std::time::Duration;

use anyhow::Context;
use cc::{AlgorithmSpec, Bandwidth};
use sim::{Dumbbell, Simulation};

fn main() -> anyhow::Result<()> {
    // The experiment reports name the bbrlab commit they were made with.
    lab::provenance::set_build_commit(build_info::COMMIT);
    my_controller::register();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("experiment") {
        return experiment(&args[1..]);
    }
    let secs: u64 = match args.first() {
        Some(s) => s.parse().with_context(|| {
            format!("`{s}`: expected the seconds to simulate, or `experiment FILE`")
        })?,
        None => 20,
    };

    println!(
        "One 20 Mbit/s, 40 ms bottleneck with a 0.25 BDP buffer, {secs} s, each controller alone:"
    );
    for spec in ["bbr", "my-bbr", "my-bbr:up=1.2,down_rule=reciprocal"] {
        let config = Dumbbell::new(Bandwidth::from_mbps(20), Duration::from_millis(40))
            .duration(Duration::from_secs(secs))
            .warmup(Duration::from_secs(secs / 4))
            .buffer_bdp(0.25)
            .flow(spec)?
            .build();
        let result = Simulation::new(config).run();
        let flow = &result.flows[0];
        let shown = AlgorithmSpec::parse(spec)?.display_name();
        println!(
            "  {spec:36} ({shown:6}) goodput {:5.2} Mbit/s  retransmitted {:.4}  RTT p95 {:5.1} ms",
            flow.goodput_bps / 1e6,
            flow.retransmission_ratio,
            flow.rtt_ms.p95,
        );
    }

    println!("\nA sweep: buffer 0.25 to 4 BDP, BBRv1 and my-bbr, on 2 worker threads:");
    let mut scenarios = Vec::new();
    for cc in ["bbr", "my-bbr"] {
        for buffer in ["0.25bdp", "1bdp", "4bdp"] {
            let text = format!(
                "name = \"my-sweep\"\nseed = 1\nduration = \"{secs}s\"\n\
                 [link]\nrate = \"20Mbit\"\nrtt = \"40ms\"\nbuffer = \"{buffer}\"\n\
                 [[flow]]\ncc = \"{cc}\"\n"
            );
            let scenario = scenario::from_str(&text, std::path::Path::new("my-sweep.toml"), &[])?;
            scenarios.push((cc, buffer, scenario));
        }
    }
    let only: Vec<_> = scenarios.iter().map(|(_, _, s)| s.clone()).collect();
    let results = lab::sweep::run_all(&only, 2)?;
    for ((cc, buffer, _), summary) in scenarios.iter().zip(results) {
        let summary = summary?;
        let flow = &summary["flows"][0];
        println!(
            "  {cc:7} buffer {buffer:8} goodput {:5.2} Mbit/s  retransmitted {:.4}",
            flow["goodput_bps"].as_f64().unwrap_or(f64::NAN) / 1e6,
            flow["retransmission_ratio"].as_f64().unwrap_or(f64::NAN),
        );
    }
    Ok(())
}

/// `experiment FILE [--fast] [--out DIR]`: the file's sweep, measures and
/// claims, written where `bbrlab experiment` writes them; prints each
/// claim's verdict and the file's SHA-256.
fn experiment(args: &[String]) -> anyhow::Result<()> {
    let mut file = None;
    let mut options = lab::reproduce::Options {
        command: Some(std::env::args().collect::<Vec<_>>().join(" ")),
        ..Default::default()
    };
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--fast" => options.fast = true,
            "--out" => {
                let dir = rest.next().context("--out: expected a directory")?;
                options.out = Some(dir.into());
            }
            other if other.starts_with("--") => {
                anyhow::bail!("unknown option `{other}`: expected --fast or --out DIR")
            }
            path if file.is_none() => file = Some(std::path::PathBuf::from(path)),
            extra => anyhow::bail!("unexpected argument `{extra}`: one experiment file at a time"),
        }
    }
    let file = file.context("experiment: expected an experiment file (TOML)")?;
    let done = lab::reproduce::experiment(&file, &options, &lab::sweep::Silent)?;
    let dir = done.report.parent().unwrap_or(std::path::Path::new("."));
    let path = dir.join("claims.json");
    let claims: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?,
    )
    .with_context(|| format!("{}: not a claims table", path.display()))?;
    if let Some(hash) = claims.first().and_then(|c| c["experiment_sha256"].as_str()) {
        println!("experiment file {} sha256 {hash}", file.display());
    }
    for c in &claims {
        println!(
            "{:18} {:32} claimed {:24} ours {}",
            c["verdict"].as_str().unwrap_or("?"),
            c["id"].as_str().unwrap_or("?"),
            c["paper_says"].as_str().unwrap_or("?"),
            c["ours"].as_str().unwrap_or("?"),
        );
    }
    println!("report: {}", done.report.display());
    anyhow::ensure!(done.failed_runs == 0, "{} runs failed", done.failed_runs);
    Ok(())
}
