//! What the DASH experiments share: a viewer's quality of experience per
//! controller, averaged over seeds, as a table and as numbers for claims.

use report::{Cell, Table};

use super::data::{metric, Stat};
use super::verdict::mean_sd_cell;
use super::Runs;

/// A DASH metric of flow 0 (`aq`, `qs`, `rb`, ...) over the runs matching `fixed`.
pub(crate) fn dash_stat(runs: &Runs, fixed: &[(&str, &str)], field: &str) -> Stat {
    runs.over_seeds(fixed, |r| metric(r, &format!("/flows/0/dash/{field}")))
}

/// The mean of a DASH metric (NaN without runs).
pub(crate) fn dash_mean(runs: &Runs, fixed: &[(&str, &str)], field: &str) -> f64 {
    dash_stat(runs, fixed, field).mean
}

/// One row per `(label, selection)`: the viewer's metrics, mean ± sd over
/// seeds, with the transport's retransmissions and goodput beside them.
pub(crate) fn qoe_table(title: &str, runs: &Runs, rows: &[(String, Vec<(&str, &str)>)]) -> Table {
    let mut table = Table::new(
        title,
        [
            "controller",
            "AQ (quality index)",
            "QS (down-switches)",
            "RB (%)",
            "mean bitrate (Mbit/s)",
            "stalls",
            "stalled (s)",
            "retransmission ratio (%)",
            "complete sessions",
        ],
    );
    for (label, fixed) in rows {
        let s = |field: &str| dash_stat(runs, fixed, field);
        let retx = runs.over_seeds(fixed, |r| metric(r, "/flows/0/retransmission_ratio"));
        let runs_here = runs.select(fixed);
        let complete = runs_here
            .iter()
            .filter(|r| {
                r.summary
                    .pointer("/flows/0/dash/complete")
                    .and_then(|v| v.as_bool())
                    == Some(true)
            })
            .count();
        table = table.row([
            Cell::text(label.as_str()),
            s("aq").cell(2),
            s("qs").cell(1),
            mean_sd_cell(s("rb").pair(), 100.0, 2, ""),
            mean_sd_cell(s("mean_bitrate_bps").pair(), 1e-6, 2, ""),
            s("stalls").cell(1),
            s("rebuffer_s").cell(1),
            mean_sd_cell(retx.pair(), 100.0, 2, ""),
            Cell::text(format!("{complete} of {}", runs_here.len())),
        ]);
    }
    table
}
