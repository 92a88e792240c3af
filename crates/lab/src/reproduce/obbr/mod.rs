//! The `obbr` suite: the oBBR paper (Bi et al.) evaluation, one experiment per figure or table.

use super::Entry;

/// oBBR (mu 0.5) as the paper's testbed ran it: the authors' May 2023 code,
/// whose drop detector resets a burst-inflated estimate at every loss
/// (docs/ALGORITHMS.md, oBBR, "Which revision of the code").
pub(crate) const OBBR_AS_TESTED: &str = "obbr:mu=0.5,code=true,low_ratio=1.3333,estimate_max=true";

/// The experiments, in report order.
pub static EXPERIMENTS: &[Entry] = &[
    super::experiment_file!("experiments/obbr/fig3-buffer.toml"),
    super::experiment_file!("experiments/obbr/fig3-gain-one.toml"),
    super::experiment_file!("experiments/obbr/fig3-gain.toml"),
    super::experiment_file!("experiments/obbr/competitiveness-deep.toml"),
    super::experiment_file!("experiments/obbr/fig4-drop.toml"),
    super::experiment_file!("experiments/obbr/fig5-samples.toml"),
    super::experiment_file!("experiments/obbr/fig7-fast-link.toml"),
    super::experiment_file!("experiments/obbr/fig7-long-link.toml"),
    super::experiment_file!("experiments/obbr/fig7-buffers.toml"),
    super::experiment_file!("experiments/obbr/fig7-nginx-stack.toml"),
    super::experiment_file!("experiments/obbr/fig7-nginx-pacer.toml"),
    super::experiment_file!("experiments/obbr/fig8-multi-flow.toml"),
    super::experiment_file!("experiments/obbr/fig8-nginx-stack.toml"),
    super::experiment_file!("experiments/obbr/fig9-alternating.toml"),
    super::experiment_file!("experiments/obbr/fig11-traces.toml"),
    super::experiment_file!("experiments/obbr/cellular-estimates.toml"),
    super::experiment_file!("experiments/obbr/fig12-competing.toml"),
    super::experiment_file!("experiments/obbr/fig14-dash.toml"),
];
