//! bbr2: Figs. 5 and 6: BBRv2's and adaptive BBRv2's inflight_hi and
//! inflight_lo over time, without and with 2% random loss.

use report::{Cell, Figure, Line, LineStyle, ReferenceLine, Section, Table};

use super::{bin_mean, cc_label, loss_label, median_between};
use crate::reproduce::data::{metric, series_column};
use crate::reproduce::verdict::judge;
use crate::reproduce::{Experiment, Runs};

/// Figs. 5/6: inflight_hi and inflight_lo over time.
pub const BOUNDS: Experiment = Experiment {
    id: "figs5-6-bounds",
    scenario: "bbr2/figs5-6-bounds.toml",
    series: true,
    analyze: |runs| figs5_6_bounds(runs).into(),
};

/// A relative fall of inflight_hi between two samples that counts as a cut
/// (for BBRv2, a round above the loss threshold: Fig. 5's black lines).
const CUT: f64 = 0.01;

/// The window "early in the run", as fractions of its duration (after
/// Startup and the first probes).
const EARLY: (f64, f64) = (0.1, 0.3);

/// The window "at the end of the run", as fractions of its duration.
const LATE: (f64, f64) = (0.8, 1.0);

/// A bound as recorded (bytes, 0 when unset) to plotted MB, unset as a gap.
fn bound_mb(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    points
        .iter()
        .map(|&(t, v)| (t, if v > 0.0 { v / 1e6 } else { f64::NAN }))
        .collect()
}

/// The times at which `points` falls by more than `fraction` of the previous
/// value (gaps, NaN, are skipped over).
fn cuts(points: &[(f64, f64)], fraction: f64) -> Vec<f64> {
    let mut last: Option<f64> = None;
    let mut times = Vec::new();
    for &(t, v) in points {
        if !v.is_finite() {
            continue;
        }
        if last.is_some_and(|l| v < l * (1.0 - fraction)) {
            times.push(t);
        }
        last = Some(v);
    }
    times
}

/// What one run shows.
struct BoundsRun {
    /// inflight_hi and inflight_lo (MB, NaN when unset), inflight (MB, 1 s means).
    hi: Vec<(f64, f64)>,
    lo: Vec<(f64, f64)>,
    inflight: Vec<(f64, f64)>,
    /// Delivery rate (Mbit/s, 1 s means).
    delivery: Vec<(f64, f64)>,
    /// Run length (s), BDP (MB), goodput (Mbit/s).
    duration: f64,
    bdp_mb: f64,
    goodput: f64,
}

impl BoundsRun {
    fn load(runs: &Runs, cc: &str, loss: &str) -> Option<BoundsRun> {
        let record = runs.one(&[("flow.0.cc", cc), ("link.loss", loss)])?;
        let flows = runs.flow_series(record).ok()?;
        let hi = runs.controller_series(record, 0, "inflight_hi").ok()?;
        let lo = runs.controller_series(record, 0, "inflight_lo").ok()?;
        let scaled = |name: &str, scale: f64| -> Vec<(f64, f64)> {
            bin_mean(&series_column(&flows, 0, name), 1.0)
                .into_iter()
                .map(|(t, v)| (t, v * scale))
                .collect()
        };
        let capacity = metric(record, "/link/capacity_bps").unwrap_or(f64::NAN);
        let rtt_s = metric(record, "/flows/0/base_rtt_ms").unwrap_or(f64::NAN) / 1e3;
        Some(BoundsRun {
            hi: bound_mb(&hi),
            lo: bound_mb(&lo),
            inflight: scaled("inflight", 1e-6),
            delivery: scaled("delivery_rate_bps", 1e-6),
            duration: metric(record, "/sim_time_s").unwrap_or(f64::NAN),
            bdp_mb: capacity * rtt_s / 8.0 / 1e6,
            goodput: metric(record, "/flows/0/goodput_bps").unwrap_or(f64::NAN) / 1e6,
        })
    }

    /// The median of `points` over a window given as fractions of the run.
    fn window(&self, points: &[(f64, f64)], (from, to): (f64, f64)) -> f64 {
        median_between(points, from * self.duration, to * self.duration + 1e-9)
    }

    /// inflight_hi's cuts after the early window began (Startup's exit and
    /// the first probes left out).
    fn cuts_after_startup(&self) -> usize {
        cuts(&self.hi, CUT)
            .iter()
            .filter(|&&t| t >= EARLY.0 * self.duration)
            .count()
    }
}

/// The paper's figure for a run.
fn figure_name(cc: &str, lossy: bool) -> &'static str {
    match (cc, lossy) {
        ("bbr2", false) => "Fig. 5a",
        ("bbr2", true) => "Fig. 5b",
        (_, false) => "Fig. 6, as 5a",
        (_, true) => "Fig. 6, as 5b",
    }
}

fn figs5_6_bounds(runs: &Runs) -> Section {
    let ccs = runs.axis("flow.0.cc");
    let losses = runs.axis("link.loss");
    let none = losses.first().cloned().unwrap_or_default();
    let lossy = losses.last().cloned().unwrap_or_default();
    let loaded: Vec<(String, String, Option<BoundsRun>)> = ccs
        .iter()
        .flat_map(|cc| losses.iter().map(move |l| (cc.clone(), l.clone())))
        .map(|(cc, l)| {
            let run = BoundsRun::load(runs, &cc, &l);
            (cc, l, run)
        })
        .collect();
    let get = |cc: &str, loss: &str| {
        loaded
            .iter()
            .find(|r| r.0 == cc && r.1 == loss)
            .and_then(|r| r.2.as_ref())
    };

    let mut figures = Vec::new();
    let mut delivery_lines = Vec::new();
    let mut table = Table::new(
        format!(
            "inflight_hi and inflight_lo (MB, medians) early ({:.0}-{:.0}% of the run) and late ({:.0}-{:.0}%), and the cuts of inflight_hi (falls by more than {:.0}%) after the early window began",
            EARLY.0 * 100.0,
            EARLY.1 * 100.0,
            LATE.0 * 100.0,
            LATE.1 * 100.0,
            CUT * 100.0
        ),
        [
            "run",
            "goodput (Mbit/s)",
            "inflight_hi early",
            "inflight_hi late",
            "inflight_lo early",
            "inflight_lo late",
            "inflight_hi cuts",
            "BDP (MB)",
        ],
    );
    for (cc, loss, run) in &loaded {
        let Some(run) = run else {
            continue;
        };
        let name = format!(
            "{}, {} ({})",
            cc_label(cc),
            loss_label(loss),
            figure_name(cc, loss != &none)
        );
        figures.push(
            Figure::lines(
                name.clone(),
                "time (s)",
                "bytes (MB, log scale)",
                vec![
                    Line::new("inflight_hi", run.hi.clone()).style(LineStyle::Step),
                    Line::new("inflight_lo", run.lo.clone()).style(LineStyle::Step),
                    Line::new("inflight (1 s means)", run.inflight.clone()),
                ],
            )
            .log_y()
            .reference(ReferenceLine::horizontal(run.bdp_mb, "BDP")),
        );
        delivery_lines.push(Line::new(
            format!("{}, {}", cc_label(cc), loss_label(loss)),
            run.delivery.clone(),
        ));
        table = table.row([
            Cell::text(name),
            Cell::fixed(run.goodput, 1),
            Cell::fixed(run.window(&run.hi, EARLY), 2),
            Cell::fixed(run.window(&run.hi, LATE), 2),
            Cell::fixed(run.window(&run.lo, EARLY), 2),
            Cell::fixed(run.window(&run.lo, LATE), 2),
            Cell::fixed(run.cuts_after_startup() as f64, 0),
            Cell::fixed(run.bdp_mb, 2),
        ]);
    }
    figures.push(Figure::lines(
        "Delivery rate (1 s means)",
        "time (s)",
        "delivery rate (Mbit/s)",
        delivery_lines,
    ));

    let v2_none = get("bbr2", &none);
    let v2_lossy = get("bbr2", &lossy);
    let adaptive_lossy = get("bbr2-adaptive", &lossy);
    let stays_high = v2_none.is_some_and(|r| r.window(&r.hi, LATE) >= r.bdp_mb);
    let rarely_cut = v2_none.is_some_and(|r| {
        let minutes = (1.0 - EARLY.0) * r.duration / 60.0;
        r.cuts_after_startup() as f64 <= minutes.max(1.0)
    });
    let ratchets = v2_lossy.is_some_and(|r| {
        let late = r.window(&r.hi, LATE);
        late <= 0.25 * r.window(&r.hi, EARLY) && late <= 0.25 * r.bdp_mb
    });
    let adaptive_steady = adaptive_lossy.is_some_and(|r| {
        let (early, late) = (r.window(&r.hi, EARLY), r.window(&r.hi, LATE));
        (0.7..=1.0 / 0.7).contains(&(late / early)) && late >= 0.5 * r.bdp_mb
    });
    let late_delivery = |r: Option<&BoundsRun>| r.map_or(f64::NAN, |r| r.window(&r.delivery, LATE));
    let adaptive_delivers = late_delivery(adaptive_lossy) >= 2.0 * late_delivery(v2_lossy);
    let section = Section::new(
        "figs5-6-bounds",
        "Drucker et al. Figs. 5 and 6: inflight_hi and inflight_lo over a five-minute run",
    )
    .description(
        "One run each of BBRv2 and adaptive BBRv2, 500 Mbit/s, 100 ms, 2 MB buffer, 1 MB tbf burst, without \
         induced loss and with 2% random loss; the bounds are the controller's state every 100 ms (an unset \
         bound, infinite in the paper, is a gap), plotted against time where the paper plots against ACKs. The \
         paper: without induced loss inflight_lo absorbs the buffer losses and inflight_hi stays high (Fig. 5a); \
         with 2% loss every round above the 2% threshold cuts inflight_hi, which never recovers and drags \
         inflight_lo down with it until the flow crawls (Fig. 5b); adaptive BBRv2 resets inflight_hi at every \
         PROBE_REFILL to the latest round's inflight, so it stays steady and the flow delivers far more (Fig. 6).",
    )
    .table(table);
    let section = figures.into_iter().fold(section, Section::figure);
    judge(
        section,
        &[
            (
                "Fig. 5a: without loss BBRv2's inflight_hi stays at or above the BDP to the end",
                stays_high,
            ),
            (
                "Fig. 5a: without loss BBRv2 cuts inflight_hi at most once a minute after startup",
                rarely_cut,
            ),
            (
                "Fig. 5b: with 2% loss BBRv2's inflight_hi ends below 1/4 of its early value and of the BDP",
                ratchets,
            ),
            (
                "Fig. 6: with 2% loss adaptive BBRv2's inflight_hi stays steady (late/early within 0.7-1.43) at >= BDP/2",
                adaptive_steady,
            ),
            (
                "Fig. 6: with 2% loss adaptive BBRv2 delivers >= 2x BBRv2's rate at the end of the run",
                adaptive_delivers,
            ),
        ],
        "BBRv2's inflight_hi ratchets down under loss and stays high without it; adaptive BBRv2's stays steady.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_are_falls_beyond_the_fraction_across_gaps() {
        let points = [
            (0.0, 10.0),
            (1.0, 9.95), // a 0.5% fall: not a cut
            (2.0, f64::NAN),
            (3.0, 5.0), // a cut, measured across the gap
            (4.0, 6.0),
            (5.0, 3.0),
        ];
        assert_eq!(cuts(&points, 0.01), vec![3.0, 5.0]);
        assert!(cuts(&[], 0.01).is_empty());
    }

    #[test]
    fn unset_bounds_become_gaps() {
        let mb = bound_mb(&[(0.0, 0.0), (1.0, 2e6)]);
        assert!(mb[0].1.is_nan());
        assert_eq!(mb[1], (1.0, 2.0));
    }
}
