//! The `obbr` suite: the oBBR paper (Bi et al.) evaluation, one experiment per figure or table.

mod cellular;
mod competitiveness;
mod fig11;
mod fig12;
mod fig14;
pub(crate) mod fig3;
pub(crate) mod fig4;
mod fig5;
pub(crate) mod fig7;
mod fig7_claims;
mod fig8;
mod fig9;
mod nginx_stack;

use super::Experiment;

/// oBBR (mu 0.5) as the paper's testbed ran it: the authors' May 2023 code,
/// whose drop detector resets a burst-inflated estimate at every loss
/// (docs/ALGORITHMS.md, oBBR, "Which revision of the code").
pub(crate) const OBBR_AS_TESTED: &str = "obbr:mu=0.5,code=true,low_ratio=1.3333,estimate_max=true";

/// The experiments, in report order.
pub static EXPERIMENTS: &[Experiment] = &[
    fig3::BUFFER,
    fig3::GAIN_ONE,
    fig3::GAIN,
    competitiveness::DEEP_BUFFER,
    fig4::DROP,
    fig5::SAMPLES,
    fig7::FAST_LINK,
    fig7::LONG_LINK,
    fig7::BUFFERS,
    nginx_stack::FIG7,
    nginx_stack::FIG7_PACER,
    fig8::MULTI_FLOW,
    nginx_stack::FIG8,
    fig9::ALTERNATING,
    fig11::TRACES,
    cellular::ESTIMATES,
    fig12::COMPETING,
    fig14::DASH,
];
