//! The `copilot` suite: BBR-Copilot (Yan et al., "When BBR Meets Live
//! Streaming"), §4's two experiments, plus the Startup experiment on a
//! constant-rate path that isolates the mechanism from the trace.
//!
//! Every flow is a 5.4 Mbit/s live stream (25 frames/s, a 2 s GOP handed
//! over at connect: the paper gives only the bitrate) from BBRv1, with and
//! without Copilot's padding; the `flow.0.copilot` axis is "false"/"true".

pub(crate) mod claims;
mod startup;

use super::data::metric;
use super::{Entry, Runs};
use crate::store::RunRecord;

/// The experiments, in report order.
pub static EXPERIMENTS: &[Entry] = &[
    Entry::Rust(startup::STARTUP),
    Entry::Rust(startup::STARTUP_CONSTANT),
    super::experiment_file!("experiments/copilot/probebw.toml"),
];

/// The runs of one RTT, with or without Copilot.
fn runs_at<'a>(runs: &'a Runs, rtt: &str, copilot: bool) -> Vec<&'a RunRecord> {
    runs.select(&[
        ("link.rtt", rtt),
        ("flow.0.copilot", if copilot { "true" } else { "false" }),
    ])
}

/// "with Copilot" / "without Copilot".
fn label(copilot: bool) -> &'static str {
    if copilot {
        "with Copilot"
    } else {
        "without Copilot"
    }
}

/// The RTT axis in milliseconds, in sweep order, with its values as written.
fn rtts(runs: &Runs) -> Vec<(String, f64)> {
    runs.axis("link.rtt")
        .into_iter()
        .map(|v| {
            let ms = v.trim_end_matches("ms").parse::<f64>().unwrap_or(f64::NAN);
            (v, ms)
        })
        .collect()
}

/// The mean of a summary metric over runs (NaN when none has it).
fn mean_of(runs: &[&RunRecord], pointer: &str) -> f64 {
    let values: Vec<f64> = runs.iter().filter_map(|r| metric(r, pointer)).collect();
    if values.is_empty() {
        f64::NAN
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}
