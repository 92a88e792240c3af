//! obbr: Fig. 3 (left) and the Eq. 1 model (§3.1): the goodput of a BBR
//! flow and a CUBIC flow sharing 20 Mbit/s, 40 ms, over the buffer size R
//! with g = 2. The middle (g = 1) and rightmost (over g at R = 16) panels
//! are the experiment files `experiments/obbr/fig3-gain-one.toml` and
//! `experiments/obbr/fig3-gain.toml`.
//!
//! The model's pieces used by other suites (the Q_r curves, the share
//! figure against the converge point) live here as `pub(crate)` functions;
//! the quick tour's buffer-share experiment calls them.

use report::{BarGroup, Cell, Figure, Line, LineStyle, Section, Table};

use crate::model;
use crate::reproduce::claims::{Claim, Declaration, Judged, Measured, Origin, Paper, Test};
use crate::reproduce::data::{buffer_bdp, mean_sd, metric};
use crate::reproduce::verdict::mbps;
use crate::reproduce::{Analysis, Experiment, Runs};

/// Fig. 3 (left): BBR vs CUBIC share over R, g = 2.
pub const BUFFER: Experiment = Experiment {
    id: "fig3-buffer",
    scenario: "obbr/fig3-buffer.toml",
    series: false,
    analyze: fig3_buffer,
};

const FIG3: &str = "§3.1, Fig. 3";

/// BBR's share falls as the buffer grows (g = 2).
pub static SHARE_FALLS: Claim = Claim::new(Declaration {
    id: "obbr.fig3.share-falls-with-r",
    paper: Paper::Obbr,
    place: FIG3,
    statement: "BBR's goodput share against CUBIC falls as the buffer grows (g = 2)",
    about: "BBR",
    metric: "BBR's share, from each buffer size to the next larger one",
    unit: "%",
    paper_says: "falls as R grows",
    test: Test::direction_within(0.05),
    tolerance_reason: "a direction between neighbouring buffer sizes; 5 points is the seed spread of a two-flow share",
    origin: Origin::Paper,
});

/// BBR dominates a half-BDP buffer.
pub static DOMINATES_HALF_BDP: Claim = Claim::new(Declaration {
    id: "obbr.fig3.dominates-half-bdp",
    paper: Paper::Obbr,
    place: FIG3,
    statement: "at R = 0.5 BBR dominates CUBIC",
    about: "BBR",
    metric: "BBR's goodput share at R = 0.5",
    unit: "%",
    paper_says: "BBR dominates",
    test: Test::at_least(0.8),
    tolerance_reason:
        "the paper gives no number: 'dominates' read as at least 80% of the bandwidth",
    origin: Origin::ProjectTarget,
});

/// BBR's share stays below the model's converge point.
pub static BELOW_CONVERGE_POINT: Claim = Claim::new(Declaration {
    id: "obbr.fig3.below-converge-point",
    paper: Paper::Obbr,
    place: "§3.1, Eq. 1, Fig. 3",
    statement: "BBR's share stays at or below the model's share at the converge point, 1 - p*",
    about: "BBR",
    metric: "BBR's share minus the model's 1 - p*, per buffer size",
    unit: "%",
    paper_says: "below the converge point at every R",
    test: Test::direction_within(0.05),
    tolerance_reason: "a bound per buffer size, the model's 1 - p*; 5 points is the seed spread of a two-flow share",
    origin: Origin::Paper,
});

/// BBR's loss ratio in the half-BDP buffer.
pub static LOSS_AT_HALF_BDP: Claim = Claim::new(Declaration {
    id: "obbr.fig3.bbr-loss-half-bdp",
    paper: Paper::Obbr,
    place: FIG3,
    statement: "at R = 0.5 BBR loses 13.36% of its packets",
    about: "BBR",
    metric: "BBR's loss ratio (dropped / sent) at R = 0.5, against CUBIC",
    unit: "%",
    paper_says: "13.36%",
    test: Test::point(0.1336),
    tolerance_reason: "one testbed's loss ratio with a 100 KB tc burst",
    origin: Origin::Paper,
});

/// The claims of Fig. 3 (left), judged on `(R, BBR's share, BBR's loss
/// ratio)` points of a g = 2 sweep over the buffer; the quick tour's
/// buffer-share experiment judges the same claims.
pub(crate) fn buffer_claims(points: &[(f64, f64, f64)]) -> Vec<Judged> {
    if points.is_empty() {
        return crate::reproduce::claims::none_run(
            &[
                &SHARE_FALLS,
                &DOMINATES_HALF_BDP,
                &BELOW_CONVERGE_POINT,
                &LOSS_AT_HALF_BDP,
            ],
            "no runs",
        );
    }
    let steps: Vec<(String, bool)> = points
        .windows(2)
        .map(|w| {
            (
                format!("R = {} to {}", w[0].0, w[1].0),
                w[1].1 <= w[0].1 + SHARE_FALLS.margin(),
            )
        })
        .collect();
    let below: Vec<(String, bool)> = points
        .iter()
        .map(|&(r, s, _)| {
            (
                format!("R = {r}"),
                s <= 1.0 - model::converge_point(2.0, r) + BELOW_CONVERGE_POINT.margin(),
            )
        })
        .collect();
    let half = points.iter().find(|p| p.0 == 0.5);
    let value = |v: Option<f64>| match v {
        Some(v) => Measured::Value(v),
        None => Measured::NotRun("the sweep has no R = 0.5".into()),
    };
    vec![
        SHARE_FALLS.judge(Measured::conditions(steps)),
        DOMINATES_HALF_BDP.judge(value(half.map(|p| p.1))),
        BELOW_CONVERGE_POINT.judge(Measured::conditions(below)),
        LOSS_AT_HALF_BDP.judge(value(half.map(|p| p.2))),
    ]
}

/// The paper's Fig. 2: Q_r(p; g, R) for a few (g, R), and 1 - p, the space
/// the loss-based flows leave; they meet at the converge point.
pub(crate) fn qr_figure() -> Figure {
    let curves: Vec<Line> = [
        (2.0, 0.5),
        (2.0, 1.0),
        (2.0, 2.0),
        (2.0, 4.0),
        (2.0, 16.0),
        (1.0, 16.0),
    ]
    .iter()
    .map(|&(g, r)| {
        Line::new(
            format!("g = {g}, R = {r}"),
            (0..=50)
                .map(|i| i as f64 / 50.0)
                .map(|p| (p, model::occupied_ratio(p, g, r)))
                .collect(),
        )
    })
    .chain(std::iter::once(
        Line::new("1 - p (space left)", vec![(0.0, 1.0), (1.0, 0.0)]).style(LineStyle::Dashed),
    ))
    .collect();
    Figure::lines(
        "Q_r(p; g, R), Eq. 1",
        "p (buffer share of loss-based flows)",
        "Q_r (BBR's share of the buffer)",
        curves,
    )
}

/// BBR's measured goodput share against the model's converge point: `ours`
/// as `(x, share)` and, dashed, `1 - p*` and `p*` at each of `xs`, where
/// `converge(x)` is p* at that x (x is R or g).
pub(crate) fn share_figure(
    title: &str,
    x_label: &str,
    ours: Vec<Line>,
    xs: &[f64],
    converge: impl Fn(f64) -> f64,
) -> Figure {
    let model_line = |label: &str, f: &dyn Fn(f64) -> f64| {
        Line::new(label, xs.iter().map(|&x| (x, f(x))).collect()).style(LineStyle::Dashed)
    };
    let mut lines = ours;
    lines.push(model_line("model: 1 - p*", &|x| 1.0 - converge(x)));
    lines.push(model_line("model: p*", &|x| converge(x)));
    Figure::lines(title, x_label, "BBR goodput share", lines).y_range(0.0, 1.0)
}

/// What one sweep point (over its seeds) measured.
struct Share {
    /// BBR's goodput / the sum of both, mean and sd over seeds.
    share: (f64, f64),
    /// Goodputs in Mbit/s, mean and sd.
    bbr: (f64, f64),
    cubic: (f64, f64),
    /// Loss ratios (dropped / sent), means.
    bbr_loss: f64,
    cubic_loss: f64,
}

fn share(runs: &Runs, fixed: &[(&str, &str)]) -> Option<Share> {
    let selected = runs.select(fixed);
    let per_run: Vec<[f64; 4]> = selected
        .iter()
        .filter_map(|r| {
            Some([
                metric(r, "/flows/0/goodput_bps")?,
                metric(r, "/flows/1/goodput_bps")?,
                metric(r, "/flows/0/loss_ratio")?,
                metric(r, "/flows/1/loss_ratio")?,
            ])
        })
        .collect();
    if per_run.is_empty() {
        return None;
    }
    let col = |f: &dyn Fn(&[f64; 4]) -> f64| mean_sd(&per_run.iter().map(f).collect::<Vec<_>>());
    Some(Share {
        share: col(&|v| v[0] / (v[0] + v[1])),
        bbr: col(&|v| mbps(v[0])),
        cubic: col(&|v| mbps(v[1])),
        bbr_loss: col(&|v| v[2]).0,
        cubic_loss: col(&|v| v[3]).0,
    })
}

/// Goodput bars of both flows, one category per point.
fn goodput_bars(title: &str, x_label: &str, points: &[(String, &Share)]) -> Figure {
    let group = |label: &str, f: &dyn Fn(&Share) -> (f64, f64)| {
        BarGroup::new(label, points.iter().map(|(_, s)| f(s).0).collect())
            .errors(points.iter().map(|(_, s)| f(s).1).collect())
    };
    Figure::bars(
        title,
        x_label,
        "goodput (Mbit/s)",
        points.iter().map(|(c, _)| c.clone()),
        vec![group("BBR", &|s| s.bbr), group("CUBIC", &|s| s.cubic)],
    )
}

/// The share (with its sd over seeds, empty for one seed: no spread to
/// show) and both loss ratios.
fn share_cells(s: &Share) -> [Cell; 4] {
    let sd = if s.share.1.is_finite() && s.share.1 > 0.0 {
        Cell::percent(s.share.1, 1)
    } else {
        Cell::Empty
    };
    [
        Cell::percent(s.share.0, 1),
        sd,
        Cell::percent(s.bbr_loss, 2),
        Cell::percent(s.cubic_loss, 2),
    ]
}

/// How the runs were measured: the window, and the seeds.
fn measured(runs: &Runs) -> String {
    let run = runs.points.first().map(|(_, r)| r);
    let total = run.and_then(|r| metric(r, "/sim_time_s"));
    // The measurement window, from the goodput's definition.
    let window = run.and_then(|r| {
        Some(metric(r, "/flows/0/bytes_delivered")? * 8.0 / metric(r, "/flows/0/goodput_bps")?)
    });
    let seeds = match runs.axis("seed").len() {
        0 | 1 => "one seed".to_string(),
        n => format!("mean over {n} seeds, error bars one standard deviation"),
    };
    let capitalised = |t: &str| {
        let mut c = t.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or_default()
    };
    match (total, window) {
        (Some(t), Some(w)) => format!(
            "Goodput over the last {w:.0} s of {t:.0} s runs (the paper: 7 minutes after skipping 60 s); {seeds}"
        ),
        _ => capitalised(&seeds),
    }
}

fn fig3_buffer(runs: &Runs) -> Analysis {
    let buffers = runs.axis("link.buffer");
    let g = 2.0;
    let points: Vec<(f64, String, Share)> = buffers
        .iter()
        .filter_map(|b| {
            Some((
                buffer_bdp(b),
                b.clone(),
                share(runs, &[("link.buffer", b)])?,
            ))
        })
        .collect();
    let rs: Vec<f64> = points.iter().map(|(r, _, _)| *r).collect();
    let ours: Vec<(f64, f64)> = points.iter().map(|(r, _, s)| (*r, s.share.0)).collect();
    let mut table = Table::new(
        "BBR (g = 2) against CUBIC, 20 Mbit/s, 40 ms",
        [
            "R (BDP)",
            "model p*",
            "model 1 - p*",
            "ours: BBR share",
            "sd over seeds",
            "BBR loss ratio",
            "CUBIC loss ratio",
        ],
    );
    for (r, _, s) in &points {
        let p = model::converge_point(g, *r);
        table = table.row(
            [
                Cell::fixed(*r, 1),
                Cell::fixed(p, 3),
                Cell::fixed(1.0 - p, 3),
            ]
            .into_iter()
            .chain(share_cells(s)),
        );
    }
    let at = |r: f64| points.iter().find(|(x, _, _)| *x == r).map(|(_, _, s)| s);
    let half = at(0.5);
    let paper = Table::new(
        "The paper's numbers (§3.1) and ours",
        ["quantity", "paper", "ours"],
    )
    .row([
        Cell::text("BBR's loss ratio at R = 0.5"),
        Cell::text("13.36%"),
        half.map_or(Cell::Empty, |s| Cell::percent(s.bbr_loss, 2)),
    ])
    .row([
        Cell::text("BBR's goodput share at R = 0.5"),
        Cell::text("BBR dominates"),
        half.map_or(Cell::Empty, |s| Cell::percent(s.share.0, 1)),
    ])
    .row([
        Cell::text("BBR's share as R grows"),
        Cell::text("falls, below the converge point"),
        Cell::text(
            ours.iter()
                .map(|(r, s)| format!("{r}: {:.0}%", s * 100.0))
                .collect::<Vec<_>>()
                .join(", "),
        ),
    ]);
    let labelled: Vec<(String, &Share)> = points
        .iter()
        .map(|(r, _, s)| (format!("R = {r}"), s))
        .collect();
    let claim_points: Vec<(f64, f64, f64)> = points
        .iter()
        .map(|(r, _, s)| (*r, s.share.0, s.bbr_loss))
        .collect();
    let section = Section::new("fig3-buffer", "Fig. 3 (left): BBR vs CUBIC over the buffer size, g = 2")
        .description(format!(
            "One BBR flow and one CUBIC flow, 20 Mbit/s, 40 ms, 100 KB tc burst. {}. The model (Eq. 1) gives BBR's occupied ratio Q_r of a buffer shared with loss-based flows; \
             the buffer is full where Q_r meets 1 - p, at the converge point p* = (R-g+1)/(gR). The paper marks p* on its bars \
             as BBR's expected proportion, but only 1 - p* falls with R as the bars do; both are drawn. The paper: BBR's share \
             falls as R grows and stays below the converge point; at R = 0.5 BBR dominates and loses 13.36% of its packets.",
            measured(runs)
        ))
        .figure(goodput_bars("Goodput of the two flows", "buffer", &labelled))
        .figure(share_figure(
            "BBR's share vs the model's converge point",
            "buffer R (BDP)",
            vec![Line::new("ours: BBR share", ours.clone())],
            &rs,
            |r| model::converge_point(g, r),
        ))
        .figure(qr_figure())
        .table(table)
        .table(paper);
    Analysis::judged(
        section,
        buffer_claims(&claim_points),
        "BBR's share falls with R, dominates at 0.5 BDP, and stays below the model's converge point.",
    )
}
