//! Shared by every suite's analyses: verdicts from named checks, units.

use report::{Section, VerdictStatus};

/// Bits per second to Mbit/s.
pub fn mbps(bps: f64) -> f64 {
    bps / 1e6
}

/// A verdict from a list of named checks: all hold, some hold, none hold.
pub fn judge(section: Section, checks: &[(&str, bool)], all_text: &str) -> Section {
    let failed: Vec<_> = checks
        .iter()
        .filter(|(_, ok)| !ok)
        .map(|(name, _)| *name)
        .collect();
    let status = match failed.len() {
        0 => VerdictStatus::Reproduced,
        n if n == checks.len() => VerdictStatus::Differs,
        _ => VerdictStatus::Partly,
    };
    let text = if failed.is_empty() {
        all_text.to_string()
    } else {
        format!("does not hold: {}", failed.join("; "))
    };
    section.verdict(status, text)
}
