//! Runs `my-bbr` beside BBRv1: one simulation through the simulator's API,
//! then a sweep over buffer sizes through a scenario file's text, on
//! worker threads.
//!
//! `cargo run --release -p bbrlab-example-my-controller [-- SECONDS]`

use std::time::Duration;

use anyhow::Context;
use cc::{AlgorithmSpec, Bandwidth};
use sim::{Dumbbell, Simulation};

fn main() -> anyhow::Result<()> {
    my_controller::register();
    let secs: u64 = match std::env::args().nth(1) {
        Some(s) => s.parse().context("seconds")?,
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
