//! The `copilot` suite: BBR-Copilot (Yan et al., "When BBR Meets Live
//! Streaming"), §4's two experiments, plus the Startup experiment on a
//! constant-rate path that isolates the mechanism from the trace.
//!
//! Every flow is a 5.4 Mbit/s live stream (25 frames/s, a 2 s GOP handed
//! over at connect: the paper gives only the bitrate) from BBRv1, with and
//! without Copilot's padding; the `flow.0.copilot` axis is "false"/"true".
//! The experiments are files (experiments/copilot/); the paper's §2.4
//! production claim, which no simulation can run, is declared in its
//! claims-not-run file (experiments/copilot/not-run.toml).

use super::Entry;

/// The experiments, in report order.
pub static EXPERIMENTS: &[Entry] = &[
    super::experiment_file!("experiments/copilot/startup.toml"),
    super::experiment_file!("experiments/copilot/startup-constant.toml"),
    super::experiment_file!("experiments/copilot/probebw.toml"),
];
