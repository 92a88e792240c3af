//! Startup's plateau for app-limited flows.
//!
//! BBR-Copilot's diagnosis (Yan et al., §2): a live stream is app-limited
//! in nearly every round, BBRv1 counts only rounds that are not toward the
//! three flat rounds that end Startup, so the stream stays in Startup for
//! good, pacing at 2.885 times an estimate that only measures the stream.
//! Copilot pads the probes from the transport. A controller cannot pad,
//! but it can stop waiting for a plateau it will never see: here an
//! app-limited round counts like any other, so three rounds in which the
//! (app-limited) estimate grew less than 25% end Startup. A flow that
//! later has more to send finds the bandwidth through ProbeBW's probes,
//! as it would after any Startup.

use crate::bbr::extension::StartupPlateau;

/// Every round counts toward Startup's plateau, app-limited or not.
#[derive(Clone, Copy, Debug, Default)]
pub struct EveryRoundCounts;

impl StartupPlateau for EveryRoundCounts {
    fn counts_round(&self, _app_limited: bool) -> bool {
        true
    }
}
