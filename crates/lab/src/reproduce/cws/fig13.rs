//! cws: Fig. 13: Jain's index against CUBIC over buffer size, at 10 and 40 ms.
//!
//! The Jain-vs-buffer curves, their figure, table and the BBR-CWS checks
//! are shared with the quick suite's shortened version (`quick.rs`,
//! `cws-fairness`).

use report::{Cell, Figure, Line, ReferenceLine, Section, Table, PALETTE};

use super::{buffer_bdp, seeds_note, Stat};
use crate::reproduce::data::metric;
use crate::reproduce::verdict::judge;
use crate::reproduce::{Experiment, Runs};

/// Fig. 13: Jain's index against CUBIC over buffer size, at 10 and 40 ms.
pub const FAIRNESS: Experiment = Experiment {
    id: "fig13-fairness",
    scenario: "cws/fig13-fairness.toml",
    series: false,
    analyze: |runs| fig13_fairness(runs).into(),
};

/// The paper's fairness bar: BBR-CWS ">= 0.9 ... without being affected by
/// bottleneck buffer size" (§5.4).
pub(crate) const FAIR: f64 = 0.9;

/// Jain's index of one controller against CUBIC at one buffer size.
pub(crate) struct JainPoint {
    /// Buffer size in BDP.
    pub buffer_bdp: f64,
    /// Jain's index over the point's seeds.
    pub jain: Stat,
}

/// Jain's index of one controller against CUBIC as the buffer grows.
pub(crate) struct JainCurve {
    /// The controller of flow 0 (`flow.0.cc`).
    pub cc: String,
    /// One point per buffer size that has runs, in sweep order.
    pub points: Vec<JainPoint>,
}

impl JainCurve {
    /// The mean index at buffer `r` (BDP), if measured.
    pub(crate) fn at(&self, r: f64) -> Option<f64> {
        self.points
            .iter()
            .find(|p| (p.buffer_bdp - r).abs() < 1e-9)
            .map(|p| p.jain.mean)
    }

    /// The mean indices at the buffers `keep` accepts.
    fn means_where(&self, keep: impl Fn(f64) -> bool) -> Vec<f64> {
        self.points
            .iter()
            .filter(|p| keep(p.buffer_bdp))
            .map(|p| p.jain.mean)
            .collect()
    }

    /// The lowest mean index over the buffers `keep` accepts (NaN if none).
    pub(crate) fn min_where(&self, keep: impl Fn(f64) -> bool) -> f64 {
        self.means_where(keep)
            .into_iter()
            .reduce(f64::min)
            .unwrap_or(f64::NAN)
    }

    /// The highest mean index over the buffers `keep` accepts (NaN if none).
    pub(crate) fn max_where(&self, keep: impl Fn(f64) -> bool) -> f64 {
        self.means_where(keep)
            .into_iter()
            .reduce(f64::max)
            .unwrap_or(f64::NAN)
    }

    /// How far the index falls above 1 BDP: its highest mean over buffers
    /// larger than 1 BDP minus its mean at the largest buffer (NaN if not
    /// measured). The paper: BBR's and Modest BBR's fall sharply, BBR-CWS's
    /// much less.
    pub(crate) fn fall_above_one_bdp(&self) -> f64 {
        let largest = self
            .points
            .iter()
            .max_by(|a, b| a.buffer_bdp.total_cmp(&b.buffer_bdp))
            .filter(|p| p.buffer_bdp > 1.0)
            .map_or(f64::NAN, |p| p.jain.mean);
        self.max_where(|r| r > 1.0) - largest
    }
}

/// The curve of controller `cc`, if swept.
pub(crate) fn curve<'a>(curves: &'a [JainCurve], cc: &str) -> Option<&'a JainCurve> {
    curves.iter().find(|c| c.cc == cc)
}

/// One curve per `flow.0.cc` value, over the `link.buffer` axis, from the
/// runs that also match `fixed` (e.g. one RTT); several seeds give mean and
/// spread, a sweep without a seed axis one run per point.
pub(crate) fn jain_curves(runs: &Runs, fixed: &[(&str, &str)]) -> Vec<JainCurve> {
    let buffers = runs.axis("link.buffer");
    runs.axis("flow.0.cc")
        .into_iter()
        .map(|cc| {
            let points = buffers
                .iter()
                .filter_map(|b| {
                    let mut at: Vec<(&str, &str)> = vec![("flow.0.cc", &cc), ("link.buffer", b)];
                    at.extend_from_slice(fixed);
                    let jain = runs.over_seeds(&at, |r| metric(r, "/jain_index"));
                    (jain.n > 0).then(|| JainPoint {
                        buffer_bdp: buffer_bdp(b),
                        jain,
                    })
                })
                .collect();
            JainCurve { cc, points }
        })
        .collect()
}

/// Jain's index vs buffer: a line through each controller's means, a
/// whisker of ± one standard deviation at each point in the same colour,
/// and the paper's 0.9 bar.
pub(crate) fn jain_figure(title: &str, curves: &[JainCurve]) -> Figure {
    let mut lines: Vec<Line> = curves
        .iter()
        .map(|c| {
            Line::new(
                format!("{} vs CUBIC", c.cc),
                c.points
                    .iter()
                    .map(|p| (p.buffer_bdp, p.jain.mean))
                    .collect(),
            )
        })
        .collect();
    let with_spread = curves.iter().any(|c| c.points.iter().any(|p| p.jain.n > 1));
    if with_spread {
        // Lines take palette colours by index: pad to a full palette so
        // that whisker i gets the colour of line i.
        while !lines.len().is_multiple_of(PALETTE.len()) {
            lines.push(Line::new("", Vec::new()));
        }
        for (i, c) in curves.iter().enumerate() {
            // A small horizontal offset per controller keeps whiskers apart.
            let dx = 0.04 * i as f64;
            let mut points = Vec::new();
            for p in &c.points {
                let x = p.buffer_bdp + dx;
                points.push((x, p.jain.mean - p.jain.sd));
                points.push((x, p.jain.mean + p.jain.sd));
                points.push((f64::NAN, f64::NAN));
            }
            lines.push(Line::new("", points));
        }
    }
    Figure::lines(title, "buffer (BDP)", "Jain's index (mean ± sd)", lines)
        .y_range(0.4, 1.02)
        .reference(ReferenceLine::horizontal(FAIR, "paper: BBR-CWS >= 0.9"))
}

/// Jain's index per buffer (rows) and controller (columns), one column
/// group per `(label, curves)` (e.g. per RTT; an empty label for one group).
pub(crate) fn jain_table(title: &str, groups: &[(&str, &[JainCurve])]) -> Table {
    let mut buffers: Vec<f64> = groups
        .iter()
        .flat_map(|(_, curves)| curves.iter())
        .flat_map(|c| c.points.iter().map(|p| p.buffer_bdp))
        .collect();
    buffers.sort_by(f64::total_cmp);
    buffers.dedup();
    let header = std::iter::once("buffer (BDP)".to_string()).chain(groups.iter().flat_map(
        |(label, curves)| {
            curves.iter().map(move |c| {
                if label.is_empty() {
                    c.cc.clone()
                } else {
                    format!("{label}: {}", c.cc)
                }
            })
        },
    ));
    let mut table = Table::new(title, header);
    for r in buffers {
        let cells = groups.iter().flat_map(|(_, curves)| {
            curves.iter().map(move |c| {
                c.points
                    .iter()
                    .find(|p| p.buffer_bdp == r)
                    .map_or(Cell::Empty, |p| p.jain.cell(3))
            })
        });
        table = table.row(std::iter::once(Cell::fixed(r, 1)).chain(cells));
    }
    table
}

/// The paper's headline: BBR-CWS's mean index is >= 0.9 at every buffer
/// measured (false when BBR-CWS was not measured).
pub(crate) fn cws_fair_at_every_buffer(curves: &[JainCurve]) -> bool {
    curve(curves, "bbr-cws").is_some_and(|c| c.min_where(|_| true) >= FAIR)
}

/// Whether `better`'s mean index exceeds `worse`'s at every buffer below
/// 1 BDP where both were measured (false when there is no such buffer).
pub(crate) fn fairer_below_one_bdp(curves: &[JainCurve], better: &str, worse: &str) -> bool {
    let (Some(b), Some(w)) = (curve(curves, better), curve(curves, worse)) else {
        return false;
    };
    let pairs: Vec<(f64, f64)> = b
        .points
        .iter()
        .filter(|p| p.buffer_bdp < 1.0)
        .filter_map(|p| Some((p.jain.mean, w.at(p.buffer_bdp)?)))
        .collect();
    !pairs.is_empty() && pairs.iter().all(|(b, w)| b > w)
}

/// BBR's index below 1 BDP in the paper's Fig. 13: "from 0.5 to 0.6"; we
/// accept up to 0.65 for run-to-run spread.
const BBR_SHALLOW_MAX: f64 = 0.65;
/// "A good fairness about 0.9" of BBR at 40 ms in deep buffers (>= 4 BDP
/// here); accepted from 0.85.
const BBR_DEEP_40MS_MIN: f64 = 0.85;
/// A "sharp" fall above 1 BDP: at least this much below the peak.
const SHARP_FALL: f64 = 0.05;

fn fig13_fairness(runs: &Runs) -> Section {
    let per_rtt: Vec<(String, Vec<JainCurve>)> = runs
        .axis("link.rtt")
        .into_iter()
        .map(|rtt| {
            let curves = jain_curves(runs, &[("link.rtt", &rtt)]);
            (rtt, curves)
        })
        .collect();
    let empty: Vec<JainCurve> = Vec::new();
    let at_rtt = |rtt: &str| {
        per_rtt
            .iter()
            .find(|(r, _)| r == rtt)
            .map_or(&empty[..], |(_, c)| &c[..])
    };
    let (short, long) = (at_rtt("10ms"), at_rtt("40ms"));
    let mean_of = |curves: &[JainCurve], cc: &str, f: &dyn Fn(&JainCurve) -> f64| {
        curve(curves, cc).map_or(f64::NAN, f)
    };
    let shallow = |r: f64| r < 1.0;
    let range = |curves: &[JainCurve], cc: &str, keep: &dyn Fn(f64) -> bool| {
        let lo = mean_of(curves, cc, &|c| c.min_where(keep));
        let hi = mean_of(curves, cc, &|c| c.max_where(keep));
        format!("{lo:.2} to {hi:.2}")
    };
    let fall = |curves: &[JainCurve], cc: &str| mean_of(curves, cc, &|c| c.fall_above_one_bdp());
    // The abstract's "fairness ... improved up to 73%": the largest gain of
    // BBR-CWS's index over BBR's at one buffer and RTT.
    let improvement = per_rtt
        .iter()
        .filter_map(|(_, curves)| Some((curve(curves, "bbr-cws")?, curve(curves, "bbr")?)))
        .flat_map(|(cws, bbr)| {
            cws.points
                .iter()
                .filter_map(|p| Some(p.jain.mean / bbr.at(p.buffer_bdp)? - 1.0))
        })
        .reduce(f64::max)
        .unwrap_or(f64::NAN);

    let bbr_shallow_max = |curves: &[JainCurve]| mean_of(curves, "bbr", &|c| c.max_where(shallow));
    let bbr_deep_40 = mean_of(long, "bbr", &|c| c.min_where(|r| r >= 4.0));
    let cws_fall_smaller = |curves: &[JainCurve]| {
        let cws = fall(curves, "bbr-cws");
        cws < fall(curves, "bbr") && cws < fall(curves, "modest-bbr")
    };
    let modest_still_unfair =
        |curves: &[JainCurve]| mean_of(curves, "modest-bbr", &|c| c.min_where(shallow)) < FAIR;

    let claims = Table::new(
        "The paper's Fig. 13 and ours (mean over seeds per buffer)",
        ["claim (§5.4, Fig. 13)", "paper", "ours"],
    )
    .row([
        Cell::text("BBR below 1 BDP, 10 ms"),
        Cell::text("0.5 to 0.6"),
        Cell::text(range(short, "bbr", &shallow)),
    ])
    .row([
        Cell::text("BBR above 1 BDP, 10 ms: fall from its peak to the largest buffer"),
        Cell::text("gets lower as the buffer grows"),
        Cell::fixed(fall(short, "bbr"), 2),
    ])
    .row([
        Cell::text("BBR below 1 BDP, 40 ms"),
        Cell::text("still very low"),
        Cell::text(range(long, "bbr", &shallow)),
    ])
    .row([
        Cell::text("BBR from 4 BDP, 40 ms"),
        Cell::text("about 0.9"),
        Cell::text(range(long, "bbr", &|r| r >= 4.0)),
    ])
    .row([
        Cell::text("Modest BBR below 1 BDP, 10 ms"),
        Cell::text("0.6 to 0.85"),
        Cell::text(range(short, "modest-bbr", &shallow)),
    ])
    .row([
        Cell::text("Modest BBR below 1 BDP, 40 ms"),
        Cell::text("(not given separately)"),
        Cell::text(range(long, "modest-bbr", &shallow)),
    ])
    .row([
        Cell::text("Modest BBR above 1 BDP: fall to the largest buffer (10 / 40 ms)"),
        Cell::text("decreases sharply"),
        Cell::text(format!(
            "{:.2} / {:.2}",
            fall(short, "modest-bbr"),
            fall(long, "modest-bbr")
        )),
    ])
    .row([
        Cell::text("BBR-CWS, every buffer, 10 ms"),
        Cell::text(">= 0.9"),
        Cell::text(range(short, "bbr-cws", &|_| true)),
    ])
    .row([
        Cell::text("BBR-CWS, every buffer, 40 ms"),
        Cell::text(">= 0.9"),
        Cell::text(range(long, "bbr-cws", &|_| true)),
    ])
    .row([
        Cell::text("BBR-CWS above 1 BDP: fall to the largest buffer (10 / 40 ms)"),
        Cell::text("much smaller than BBR's and Modest BBR's"),
        Cell::text(format!(
            "{:.2} / {:.2}",
            fall(short, "bbr-cws"),
            fall(long, "bbr-cws")
        )),
    ])
    .row([
        Cell::text("largest gain of BBR-CWS's index over BBR's (abstract)"),
        Cell::text("up to 73%"),
        Cell::percent(improvement, 0),
    ]);

    let groups: Vec<(&str, &[JainCurve])> = per_rtt
        .iter()
        .map(|(rtt, curves)| (rtt.as_str(), &curves[..]))
        .collect();
    let mut section = Section::new(
        "fig13-fairness",
        "Fig. 13: fairness with CUBIC over buffer size, at 10 and 40 ms",
    )
    .description(format!(
        "One BBR-family flow against one CUBIC flow for 150 s over 50 Mbit/s, buffers from 0.2 to 6 BDP, {} per \
         point (whiskers: ± one standard deviation). The paper: BBR starves CUBIC below 1 BDP (0.5-0.6) and \
         oscillates with it above; Modest BBR is fairer in shallow buffers but falls sharply in deep ones; BBR-CWS \
         stays >= 0.9 at every buffer and both RTTs. At 40 ms our BBR-CWS takes most of a link whose buffer is \
         below 1 BDP: its scaling factor stays near 0.7 (about 0.5 at 10 ms), which leaves it a window of ~1.2 BDP \
         in a pipe of 1.5 BDP, and CUBIC keeps ~0.2 BDP.",
        seeds_note(runs)
    ));
    for (i, (rtt, curves)) in per_rtt.iter().enumerate() {
        let panel = ["a", "b"].get(i).copied().unwrap_or("");
        section = section.figure(jain_figure(
            &format!("Fig. 13{panel}: Jain's index vs buffer, {rtt}"),
            curves,
        ));
    }
    let section = section
        .table(jain_table(
            "Jain's index against one CUBIC flow (50 Mbit/s), mean ± sd over seeds",
            &groups,
        ))
        .table(claims);
    judge(
        section,
        &[
            (
                "BBR's index <= 0.65 below 1 BDP at 10 and 40 ms (paper 0.5-0.6)",
                bbr_shallow_max(short) <= BBR_SHALLOW_MAX && bbr_shallow_max(long) <= BBR_SHALLOW_MAX,
            ),
            (
                "BBR's index falls by >= 0.05 above 1 BDP at 10 ms",
                fall(short, "bbr") >= SHARP_FALL,
            ),
            (
                "BBR's index >= 0.85 from 4 BDP at 40 ms (paper about 0.9)",
                bbr_deep_40 >= BBR_DEEP_40MS_MIN,
            ),
            (
                "Modest BBR is fairer than BBR below 1 BDP at both RTTs",
                fairer_below_one_bdp(short, "modest-bbr", "bbr")
                    && fairer_below_one_bdp(long, "modest-bbr", "bbr"),
            ),
            (
                "Modest BBR stays below 0.9 somewhere below 1 BDP at 10 ms (paper 0.6-0.85)",
                modest_still_unfair(short),
            ),
            (
                "Modest BBR's index falls by >= 0.05 above 1 BDP at both RTTs",
                fall(short, "modest-bbr") >= SHARP_FALL && fall(long, "modest-bbr") >= SHARP_FALL,
            ),
            (
                "BBR-CWS >= 0.9 at every buffer, 10 ms",
                cws_fair_at_every_buffer(short),
            ),
            (
                "BBR-CWS >= 0.9 at every buffer, 40 ms",
                cws_fair_at_every_buffer(long),
            ),
            (
                "BBR-CWS's fall above 1 BDP is smaller than BBR's and Modest BBR's at both RTTs",
                cws_fall_smaller(short) && cws_fall_smaller(long),
            ),
        ],
        "BBR starves CUBIC below 1 BDP, Modest BBR only partly helps and degrades in deep buffers, and BBR-CWS stays \
         >= 0.9 at every buffer and RTT.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve_of(cc: &str, points: &[(f64, f64)]) -> JainCurve {
        JainCurve {
            cc: cc.to_string(),
            points: points
                .iter()
                .map(|&(r, j)| JainPoint {
                    buffer_bdp: r,
                    jain: Stat::of(&[j]),
                })
                .collect(),
        }
    }

    #[test]
    fn fall_above_one_bdp_is_peak_minus_largest_buffer() {
        let c = curve_of("bbr", &[(0.5, 0.55), (2.0, 0.98), (4.0, 0.95), (6.0, 0.88)]);
        assert!((c.fall_above_one_bdp() - 0.10).abs() < 1e-9);
        assert!(curve_of("bbr", &[(0.5, 0.5)]).fall_above_one_bdp().is_nan());
        assert_eq!(c.at(4.0), Some(0.95));
        assert!((c.min_where(|r| r < 1.0) - 0.55).abs() < 1e-9);
        assert!(c.max_where(|r| r > 10.0).is_nan());
    }

    #[test]
    fn cws_checks_need_data_and_compare_every_shallow_buffer() {
        let curves = vec![
            curve_of("bbr", &[(0.2, 0.55), (0.5, 0.6), (2.0, 0.95)]),
            curve_of("bbr-cws", &[(0.2, 0.97), (0.5, 0.58), (2.0, 0.93)]),
        ];
        assert!(!cws_fair_at_every_buffer(&curves));
        assert!(!fairer_below_one_bdp(&curves, "bbr-cws", "bbr"));
        let fair = vec![
            curve_of("bbr", &[(0.2, 0.55), (2.0, 0.95)]),
            curve_of("bbr-cws", &[(0.2, 0.97), (2.0, 0.93)]),
        ];
        assert!(cws_fair_at_every_buffer(&fair));
        assert!(fairer_below_one_bdp(&fair, "bbr-cws", "bbr"));
        assert!(!cws_fair_at_every_buffer(&[]));
        assert!(!fairer_below_one_bdp(&fair, "bbr-cws", "modest-bbr"));
    }
}
