//! Shared by every suite's analyses: units, controller names and
//! "mean ± sd" cells. Verdicts come from declared claims only
//! (`claims.rs`).

use report::Cell;

/// The papers' name for a controller spec of our sweeps: `obbr:mu=0.5` is
/// "oBBR-0.5", `bbr2-adaptive` "adaptive BBRv2"; a bare name of any other
/// registered controller (one registered from outside bbrlab too) its
/// display name; other specs as written.
pub fn paper_name(spec: &str) -> String {
    match spec {
        "cubic" => "CUBIC".into(),
        "bbr" => "BBR".into(),
        "bbr2" => "BBRv2".into(),
        "bbr-s" => "BBR-S".into(),
        "b3r" => "B3R".into(),
        "bbr2-adaptive" => "adaptive BBRv2".into(),
        "bbr-cws" => "BBR-CWS".into(),
        "modest-bbr" => "Modest BBR".into(),
        crate::reproduce::obbr::OBBR_AS_TESTED => "oBBR as tested".into(),
        s if s.starts_with("bbr2-adaptive") && s.contains("no_upper_bound=true") => {
            "BBRv2, no upper bound".into()
        }
        other => match other.strip_prefix("obbr:mu=") {
            Some(mu) => format!("oBBR-{mu}"),
            None => match cc::find(other) {
                Some(info) => info.display_name.to_string(),
                None => other.to_string(),
            },
        },
    }
}

/// A "mean ± sd" cell of `(mean, sd)` times `scale` (100 for a percentage,
/// 1e-6 for Mbit/s), the sd left out when it is 0 (one seed); "—" when the
/// mean is unknown.
pub fn mean_sd_cell((mean, sd): (f64, f64), scale: f64, decimals: usize, unit: &str) -> Cell {
    if !mean.is_finite() {
        return Cell::text("—");
    }
    let unit = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    if sd.is_finite() && sd > 0.0 {
        Cell::text(format!(
            "{:.decimals$} ± {:.decimals$}{unit}",
            mean * scale,
            sd * scale
        ))
    } else {
        Cell::text(format!("{:.decimals$}{unit}", mean * scale))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_follow_the_papers() {
        assert_eq!(paper_name("obbr:mu=0.75"), "oBBR-0.75");
        assert_eq!(paper_name("bbr2"), "BBRv2");
        assert_eq!(
            paper_name("bbr2-adaptive:no_upper_bound=true"),
            "BBRv2, no upper bound"
        );
        // A registered controller the papers do not name: its display name.
        assert_eq!(paper_name("reno"), "NewReno");
        assert_eq!(paper_name("bbr3"), "BBRv3");
        // A spec with parameters, or no registered name: as written.
        assert_eq!(paper_name("cubic:beta=0.8"), "cubic:beta=0.8");
        assert_eq!(paper_name("no-such-cc"), "no-such-cc");
        assert_eq!(paper_name("bbr-cws"), "BBR-CWS");
        assert_eq!(
            paper_name(crate::reproduce::obbr::OBBR_AS_TESTED),
            "oBBR as tested"
        );
    }

    #[test]
    fn mean_sd_cells_show_spread_and_missing_values() {
        assert_eq!(
            mean_sd_cell((363e6, 1.5e6), 1e-6, 1, "Mbit/s"),
            Cell::text("363.0 ± 1.5 Mbit/s")
        );
        assert_eq!(mean_sd_cell((0.5, 0.0), 1.0, 2, ""), Cell::text("0.50"));
        assert_eq!(mean_sd_cell((f64::NAN, 0.0), 1.0, 2, ""), Cell::text("—"));
        assert_eq!(
            mean_sd_cell((0.0123, 0.001), 100.0, 2, ""),
            Cell::text("1.23 ± 0.10")
        );
        assert_eq!(
            mean_sd_cell((f64::NAN, f64::NAN), 1.0, 1, ""),
            Cell::text("—")
        );
    }
}
