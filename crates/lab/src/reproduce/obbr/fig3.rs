//! obbr: Fig. 3 and the Eq. 1 model (§3.1): the goodput of a BBR flow and
//! a CUBIC flow sharing 20 Mbit/s, 40 ms, over the buffer size R with
//! g = 2 (left), with g = 1 (middle), and over the cwnd gain g at R = 16
//! (rightmost).
//!
//! The model's pieces used by other suites (the Q_r curves, the share
//! figure against the converge point) live here as `pub(crate)` functions;
//! the quick tour's buffer-share experiment calls them.

use report::{BarGroup, Cell, Figure, Line, LineStyle, Section, Table};

use crate::model;
use crate::reproduce::data::{buffer_bdp, mean_sd, metric};
use crate::reproduce::verdict::{judge, mbps};
use crate::reproduce::{Experiment, Runs};

/// Fig. 3 (left): BBR vs CUBIC share over R, g = 2.
pub const BUFFER: Experiment = Experiment {
    id: "fig3-buffer",
    scenario: "obbr/fig3-buffer.toml",
    series: false,
    analyze: |runs| fig3_buffer(runs).into(),
};

/// Fig. 3 (rightmost): share over g at R = 16.
pub const GAIN: Experiment = Experiment {
    id: "fig3-gain",
    scenario: "obbr/fig3-gain.toml",
    series: false,
    analyze: |runs| fig3_gain(runs).into(),
};

/// Fig. 3 (middle): share over R with g = 1.
pub const GAIN_ONE: Experiment = Experiment {
    id: "fig3-gain-one",
    scenario: "obbr/fig3-gain-one.toml",
    series: false,
    analyze: |runs| fig3_gain_one(runs).into(),
};

/// The cwnd gain g of a BBR spec string: `bbr:cwnd_gain=1.5` is 1.5,
/// plain `bbr` is BBR's default 2.
fn cwnd_gain(spec: &str) -> f64 {
    spec.split_once(':')
        .into_iter()
        .flat_map(|(_, params)| params.split(','))
        .find_map(|p| p.strip_prefix("cwnd_gain="))
        .map_or(2.0, |g| g.parse().unwrap_or(f64::NAN))
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
    .y_range(0.0, 1.5)
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

fn share_cells(s: &Share) -> [Cell; 4] {
    [
        Cell::percent(s.share.0, 1),
        Cell::percent(s.share.1, 1),
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

fn fig3_buffer(runs: &Runs) -> Section {
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
            "sd",
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
    let falls = ours.windows(2).all(|w| w[1].1 <= w[0].1 + 0.05);
    let dominates = half.is_some_and(|s| s.share.0 >= 0.8);
    let below = ours
        .iter()
        .all(|&(r, s)| s <= 1.0 - model::converge_point(g, r) + 0.05);
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
    judge(
        section,
        &[
            ("BBR's share falls as the buffer grows", falls),
            ("BBR dominates at R = 0.5 (>= 80%)", dominates),
            ("BBR's share stays at or below the model's 1 - p*", below),
        ],
        "BBR's share falls with R, dominates at 0.5 BDP, and stays below the model's converge point.",
    )
}

fn fig3_gain(runs: &Runs) -> Section {
    let r = runs
        .axis("link.buffer")
        .first()
        .map_or(f64::NAN, |b| buffer_bdp(b));
    let ccs = runs.axis("flow.0.cc");
    let points: Vec<(f64, Share)> = ccs
        .iter()
        .filter_map(|cc| Some((cwnd_gain(cc), share(runs, &[("flow.0.cc", cc)])?)))
        .collect();
    let gs: Vec<f64> = points.iter().map(|(g, _)| *g).collect();
    let ours: Vec<(f64, f64)> = points.iter().map(|(g, s)| (*g, s.share.0)).collect();
    let mut table = Table::new(
        format!("BBR against CUBIC at R = {r}, 20 Mbit/s, 40 ms"),
        [
            "g",
            "model p*",
            "model 1 - p*",
            "ours: BBR share",
            "sd",
            "BBR loss ratio",
            "CUBIC loss ratio",
        ],
    );
    for (g, s) in &points {
        let p = model::converge_point(*g, r);
        table = table.row(
            [
                Cell::fixed(*g, 2),
                Cell::fixed(p, 3),
                Cell::fixed(1.0 - p, 3),
            ]
            .into_iter()
            .chain(share_cells(s)),
        );
    }
    let labelled: Vec<(String, &Share)> = points
        .iter()
        .map(|(g, s)| (format!("g = {g}"), s))
        .collect();
    let grows = ours.windows(2).all(|w| w[1].1 >= w[0].1 - 0.03);
    let spread = match (ours.first(), ours.last()) {
        (Some(a), Some(b)) => b.1 - a.1,
        _ => f64::NAN,
    };
    let section = Section::new("fig3-gain", "Fig. 3 (rightmost): BBR vs CUBIC over the cwnd gain g, R = 16")
        .description(format!(
            "BBR with cwnd_gain g against one CUBIC flow in a {r} BDP buffer, 20 Mbit/s, 40 ms, 100 KB tc burst. \
             {}. The paper's text does not list its g values; we run g from 1 to 3. The paper: BBR gains more \
             goodput with increasing g. The model's BBR share at the converge point, 1 - p* = 1 - (R-g+1)/(gR), grows \
             with g too (drawn for comparison; the paper states no number here).",
            measured(runs)
        ))
        .figure(goodput_bars("Goodput of the two flows", "BBR's cwnd gain", &labelled))
        .figure(share_figure(
            "BBR's share vs the model's converge point",
            "cwnd gain g",
            vec![Line::new("ours: BBR share", ours.clone())],
            &gs,
            |g| model::converge_point(g, r),
        ))
        .table(table);
    judge(
        section,
        &[
            (
                "BBR's share grows with g (no step down by more than 3 points)",
                grows,
            ),
            (
                "the largest g gains BBR at least 20 points of share over g = 1",
                spread >= 0.2,
            ),
        ],
        "BBR's share grows with its cwnd gain.",
    )
}

fn fig3_gain_one(runs: &Runs) -> Section {
    let buffers = runs.axis("link.buffer");
    let ccs = runs.axis("flow.0.cc");
    let one = ccs
        .iter()
        .find(|cc| cwnd_gain(cc) == 1.0)
        .cloned()
        .unwrap_or_else(|| "bbr:cwnd_gain=1".into());
    let two = ccs.iter().find(|cc| cwnd_gain(cc) == 2.0).cloned();
    let series = |cc: &str| -> Vec<(f64, String, Share)> {
        buffers
            .iter()
            .filter_map(|b| {
                Some((
                    buffer_bdp(b),
                    b.clone(),
                    share(runs, &[("flow.0.cc", cc), ("link.buffer", b)])?,
                ))
            })
            .collect()
    };
    let g1 = series(&one);
    let g2 = two.as_deref().map(series).unwrap_or_default();
    let rs: Vec<f64> = g1.iter().map(|(r, _, _)| *r).collect();
    let line = |label: &str, pts: &[(f64, String, Share)]| {
        Line::new(label, pts.iter().map(|(r, _, s)| (*r, s.share.0)).collect())
    };
    let mut lines = vec![line("ours: BBR share, g = 1", &g1)];
    if !g2.is_empty() {
        lines.push(line("ours: BBR share, g = 2", &g2));
    }
    let mut table = Table::new(
        "BBR with g = 1 against CUBIC, 20 Mbit/s, 40 ms",
        [
            "R (BDP)",
            "ours: BBR share",
            "sd",
            "BBR loss ratio",
            "CUBIC loss ratio",
            "g = 2: BBR share",
        ],
    );
    let share_g2 = |r: f64| {
        g2.iter()
            .find(|(x, _, _)| *x == r)
            .map(|(_, _, s)| s.share.0)
    };
    for (r, _, s) in &g1 {
        table = table.row(
            std::iter::once(Cell::fixed(*r, 1))
                .chain(share_cells(s))
                .chain(std::iter::once(
                    share_g2(*r).map_or(Cell::Empty, |v| Cell::percent(v, 1)),
                )),
        );
    }
    let labelled: Vec<(String, &Share)> =
        g1.iter().map(|(r, _, s)| (format!("R = {r}"), s)).collect();
    let hardly = !g1.is_empty() && g1.iter().all(|(_, _, s)| s.share.0 <= 0.25);
    let cubic_most = !g1.is_empty() && g1.iter().all(|(_, _, s)| s.share.0 < 0.5);
    let below_g2 = !g1.is_empty()
        && g1
            .iter()
            .all(|(r, _, s)| share_g2(*r).is_some_and(|v| s.share.0 < v));
    let section = Section::new("fig3-gain-one", "Fig. 3 (middle): BBR vs CUBIC over the buffer size, g = 1")
        .description(format!(
            "BBR with cwnd_gain 1 (and plain BBR, g = 2, for comparison) against one CUBIC flow, 20 Mbit/s, 40 ms, 100 KB tc \
             burst. {}. With g = 1 the model's converge point is p* = 1 at every R: BBR queues nothing \
             of its own and the loss-based flow takes the whole buffer. The paper: \"no matter how large the bottleneck buffer \
             is, BBR can hardly compete with CUBIC and almost all the bandwidth is used by the CUBIC flow\".",
            measured(runs)
        ))
        .figure(goodput_bars("Goodput of the two flows, g = 1", "buffer", &labelled))
        .figure(share_figure(
            "BBR's share with g = 1 and g = 2, and the model for g = 2",
            "buffer R (BDP)",
            lines,
            &rs,
            |r| model::converge_point(2.0, r),
        ))
        .table(table);
    judge(
        section,
        &[
            (
                "with g = 1 CUBIC takes most of the bandwidth at every R",
                cubic_most,
            ),
            (
                "with g = 1 BBR can hardly compete (<= 25%) at every R",
                hardly,
            ),
            ("g = 1 gets BBR less than g = 2 at every R", below_g2),
        ],
        "With g = 1 BBR can hardly compete with CUBIC at any buffer size.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_gains() {
        assert_eq!(cwnd_gain("bbr"), 2.0);
        assert_eq!(cwnd_gain("bbr:cwnd_gain=1.25"), 1.25);
        assert_eq!(cwnd_gain("bbr:lt_bw=false,cwnd_gain=3"), 3.0);
    }
}
