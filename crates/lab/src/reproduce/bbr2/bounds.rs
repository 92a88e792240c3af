//! bbr2: Figs. 5 and 6: BBRv2's and adaptive BBRv2's inflight_hi and
//! inflight_lo over time, without and with 2% random loss.

use report::{Cell, Figure, Line, LineStyle, ReferenceLine, Section, Table};

use super::{bin_mean, cc_label, loss_label, median_between};
use crate::reproduce::claims::{claim, Claim, Declaration, Measured, Origin, Paper, Test};
use crate::reproduce::data::{self, metric, series_column};
use crate::reproduce::{Analysis, Experiment, Runs};

/// Figs. 5/6: inflight_hi and inflight_lo over time.
pub const BOUNDS: Experiment = Experiment {
    id: "figs5-6-bounds",
    scenario: "bbr2/figs5-6-bounds.toml",
    series: true,
    analyze: figs5_6_bounds,
};

claim!(
    HI_STAYS_HIGH,
    Paper::Bbr2,
    "§IV-B, Fig. 5a",
    "bbr2.fig5.hi-stays-high",
    "without induced loss BBRv2's inflight_hi stays high; inflight_lo absorbs the buffer's losses",
    "BBRv2",
    "BBRv2's inflight_hi in the last fifth of the run / BDP, no loss",
    "x",
    "stays high (plot)",
    Test::at_least(1.0),
    "the paper gives no number: 'high' read as at least the BDP",
    Origin::ProjectTarget
);
claim!(
    HI_RARELY_CUT,
    Paper::Bbr2,
    "§IV-B, Fig. 5a",
    "bbr2.fig5.hi-rarely-cut",
    "without induced loss BBRv2 rarely cuts inflight_hi after Startup",
    "BBRv2",
    "cuts of inflight_hi per minute after the first tenth of the run, no loss",
    "per minute",
    "few cuts (plot)",
    Test::at_most(1.0),
    "the paper gives no number: 'rarely' read as at most one cut a minute",
    Origin::ProjectTarget
);
claim!(
    HI_RATCHETS,
    Paper::Bbr2,
    "§IV-B, Fig. 5b",
    "bbr2.fig5.hi-ratchets",
    "with 2% loss BBRv2's inflight_hi is cut round after round and never recovers",
    "BBRv2",
    "BBRv2's late inflight_hi over the smaller of its early value and the BDP, 2% loss",
    "x",
    "ratchets down until the flow crawls (plot)",
    Test::at_most(0.25),
    "the paper gives no number: 'never recovers' read as ending below a quarter of where it started",
    Origin::ProjectTarget
);

/// With 2% loss adaptive BBRv2's inflight_hi stays steady, above the floor
/// where a bound cannot fall further.
pub static ADAPTIVE_HI_STEADY: Claim = Claim::new(Declaration {
    id: "bbr2.fig6.adaptive-hi-steady",
    paper: Paper::Bbr2,
    place: "§V-B, §VI-B, Fig. 6",
    statement: "with 2% loss adaptive BBRv2's inflight_hi stays steady",
    about: "adaptive BBRv2",
    metric: "the smaller of late / early and early / late inflight_hi, 2% loss",
    unit: "x",
    paper_says: "steady (plot)",
    test: Test::at_least(0.7),
    tolerance_reason: "the paper gives no number: 'steady' read as the early and the late window within 30% of each other",
    origin: Origin::ProjectTarget,
})
.requires(HI_ABOVE_FLOOR);
claim!(
    ADAPTIVE_HI_LEVEL,
    Paper::Bbr2,
    "§V-B, §VI-B, Fig. 6",
    "bbr2.fig6.adaptive-hi-level",
    "with 2% loss adaptive BBRv2's inflight_hi stays near the path's BDP",
    "adaptive BBRv2",
    "adaptive BBRv2's late inflight_hi / BDP, 2% loss",
    "x",
    "reset to the latest round's inflight at every PROBE_REFILL (plot)",
    Test::at_least(0.5),
    "the paper gives no number: 'reset to the latest round's inflight' read as at least half the BDP",
    Origin::ProjectTarget
);
claim!(
    ADAPTIVE_DELIVERS,
    Paper::Bbr2,
    "§VI-B, Fig. 6",
    "bbr2.fig6.adaptive-delivers",
    "with 2% loss adaptive BBRv2 delivers far more than BBRv2",
    "adaptive BBRv2",
    "adaptive BBRv2's delivery rate / BBRv2's in the last fifth of the run, 2% loss",
    "x",
    "far more (8x goodput in Fig. 7)",
    Test::at_least(2.0),
    "the paper gives no number for Fig. 6: 'far more' read as at least twice",
    Origin::ProjectTarget
);

claim!(
    RESET_ONCE_PER_FLOW,
    Paper::Bbr2,
    "§V-B a)",
    "bbr2.v-b.reset-once-per-flow",
    "setting the long-term upper bound only once, at the beginning of the flow, makes it reflect Startup's unsustainably high sending rate",
    "adaptive BBRv2, reset once per flow",
    "inflight_hi set by a reset once per flow (its first sample in ProbeBW, which is entered after Drain) above BDP + buffer, what the path holds; 500 Mbit/s, 100 ms, 2 MB, 2% loss; at the suite's reset value (reset_to=1, one BDP at max_bw; the inflight_latest runs are shown, not judged)",
    "",
    "verified empirically, no number",
    Test::direction(),
    "a direction: the paper gives the reason it rejected the reset point, not a number",
    Origin::Paper
);
claim!(
    RESET_AT_CYCLE_START,
    Paper::Bbr2,
    "§V-B a)",
    "bbr2.v-b.reset-at-cycle-start",
    "setting the long-term upper bound once per cycle at the beginning of the steady state makes it reflect ProbeRTT's low sending rates, which reduces goodput unnecessarily",
    "adaptive BBRv2, reset at the start of each cycle",
    "goodput with the reset at the start of each ProbeBW cycle (PROBE_DOWN, also after ProbeRTT) below that with the reset at every PROBE_REFILL to the same value; 500 Mbit/s, 100 ms, 2 MB, 2% loss; at the suite's reset value (reset_to=1, one BDP at max_bw; the inflight_latest runs are shown, not judged)",
    "",
    "verified empirically, no number",
    Test::direction(),
    "a direction: the paper gives the reason it rejected the reset point, not a number",
    Origin::Paper
);

/// The reset points §V-B a) rejects, per reset value: (value label, the
/// REFILL run, the once-per-flow run, the cycle-start run).
///
/// The two claims are judged at the suite's reset value alone (one BDP at
/// max_bw): that was the condition when the claims were written. The
/// inflight_latest runs were added after the first results and are shown
/// in the section's tables and the rows' reasons, never counted in a
/// verdict.
const JUDGED_RESET_POINTS: [(&str, &str, &str, &str); 1] = [RESET_POINTS[0]];

/// Every reset-point run of the sweep, per reset value.
const RESET_POINTS: [(&str, &str, &str, &str); 2] = [
    (
        "reset_to=1 (BDP at max_bw)",
        "bbr2-adaptive",
        "bbr2-adaptive:reset_at=1",
        "bbr2-adaptive:reset_at=2",
    ),
    (
        "reset_to=0 (inflight_latest)",
        "bbr2-adaptive:reset_to=0",
        "bbr2-adaptive:reset_to=0,reset_at=1",
        "bbr2-adaptive:reset_to=0,reset_at=2",
    ),
];

/// A relative fall of inflight_hi between two samples that counts as a cut
/// (for BBRv2, a round above the loss threshold: Fig. 5's black lines).
const CUT: f64 = 0.01;

/// The window "early in the run", as fractions of its duration (after
/// Startup and the first probes).
const EARLY: (f64, f64) = (0.1, 0.3);

/// The window "at the end of the run", as fractions of its duration.
const LATE: (f64, f64) = (0.8, 1.0);

/// A steady inflight_hi means something only above where a ratcheted one
/// ends: a bound stuck near the floor is steady because it cannot fall.
const HI_ABOVE_FLOOR: &str = "adaptive BBRv2's inflight_hi is at least a quarter of the BDP in \
     both windows (below that, bbr2.fig5.hi-ratchets reads BBRv2's as ratcheted down)";
/// The least inflight_hi, as a share of the BDP, in both windows.
const HI_LEAST_BDP: f64 = 0.25;

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

/// The time of flow 0's first series row in ProbeBW (mode `probe_bw:*`).
fn first_probe_bw_time(rows: &[csv::StringRecord]) -> Option<f64> {
    let header = rows.first()?;
    let col = |n: &str| header.iter().position(|h| h == n);
    let (t, f, m) = (col("t_s")?, col("flow")?, col("mode")?);
    rows[1..]
        .iter()
        .filter(|r| r.get(f) == Some("0"))
        .find(|r| r.get(m).is_some_and(|v| v.starts_with("probe_bw")))
        .and_then(|r| r.get(t)?.parse().ok())
}

/// What one run shows.
struct BoundsRun {
    /// inflight_hi and inflight_lo (MB, NaN when unset), inflight (MB, 1 s means).
    hi: Vec<(f64, f64)>,
    lo: Vec<(f64, f64)>,
    inflight: Vec<(f64, f64)>,
    /// Delivery rate (Mbit/s, 1 s means).
    delivery: Vec<(f64, f64)>,
    /// Run length (s), BDP (MB), buffer (MB), goodput (Mbit/s).
    duration: f64,
    bdp_mb: f64,
    buffer_mb: f64,
    goodput: f64,
    /// inflight_hi (MB) at the first sample in ProbeBW (after Startup and
    /// Drain), NaN if never in ProbeBW or unset there.
    first_probe_bw_hi: f64,
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
        let first_probe_bw = first_probe_bw_time(&flows);
        let capacity = metric(record, "/link/capacity_bps").unwrap_or(f64::NAN);
        let rtt_s = metric(record, "/flows/0/base_rtt_ms").unwrap_or(f64::NAN) / 1e3;
        Some(BoundsRun {
            lo: bound_mb(&lo),
            inflight: scaled("inflight", 1e-6),
            delivery: scaled("delivery_rate_bps", 1e-6),
            duration: metric(record, "/sim_time_s").unwrap_or(f64::NAN),
            bdp_mb: capacity * rtt_s / 8.0 / 1e6,
            buffer_mb: data::link_of(record).map_or(f64::NAN, |l| data::buffer_bytes(&l)) / 1e6,
            goodput: metric(record, "/flows/0/goodput_bps").unwrap_or(f64::NAN) / 1e6,
            first_probe_bw_hi: first_probe_bw
                .and_then(|t0| hi.iter().find(|&&(t, _)| t >= t0))
                .map_or(f64::NAN, |&(_, v)| if v > 0.0 { v / 1e6 } else { f64::NAN }),
            hi: bound_mb(&hi),
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
        ("bbr2-adaptive", false) => "Fig. 6, as 5a",
        ("bbr2-adaptive", true) => "Fig. 6, as 5b",
        (_, false) => "§V-B, as 5a",
        (_, true) => "§V-B, as 5b",
    }
}

fn figs5_6_bounds(runs: &Runs) -> Analysis {
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
    let of_run = |run: Option<&BoundsRun>, f: &dyn Fn(&BoundsRun) -> f64| match run {
        Some(r) => Measured::Value(f(r)),
        None => Measured::NotRun("no such run in the sweep".into()),
    };
    let late_delivery = |r: Option<&BoundsRun>| r.map_or(f64::NAN, |r| r.window(&r.delivery, LATE));
    let judged = vec![
        HI_STAYS_HIGH.judge(of_run(v2_none, &|r| r.window(&r.hi, LATE) / r.bdp_mb)),
        HI_RARELY_CUT.judge(of_run(v2_none, &|r| {
            let minutes = (1.0 - EARLY.0) * r.duration / 60.0;
            r.cuts_after_startup() as f64 / minutes
        })),
        HI_RATCHETS.judge(of_run(v2_lossy, &|r| {
            r.window(&r.hi, LATE) / r.window(&r.hi, EARLY).min(r.bdp_mb)
        })),
        {
            let (held, detail) = adaptive_lossy.map_or((false, String::new()), |r| {
                let (early, late) = (r.window(&r.hi, EARLY), r.window(&r.hi, LATE));
                (
                    early.min(late) >= HI_LEAST_BDP * r.bdp_mb,
                    format!(
                        "inflight_hi {:.2} BDP early, {:.2} BDP late",
                        early / r.bdp_mb,
                        late / r.bdp_mb
                    ),
                )
            });
            ADAPTIVE_HI_STEADY.judge_given(
                held,
                &detail,
                of_run(adaptive_lossy, &|r| {
                    let (early, late) = (r.window(&r.hi, EARLY), r.window(&r.hi, LATE));
                    (late / early).min(early / late)
                }),
            )
        },
        ADAPTIVE_HI_LEVEL.judge(of_run(adaptive_lossy, &|r| {
            r.window(&r.hi, LATE) / r.bdp_mb
        })),
        ADAPTIVE_DELIVERS.judge(Measured::Value(
            late_delivery(adaptive_lossy) / late_delivery(v2_lossy),
        )),
        RESET_ONCE_PER_FLOW.judge(reset_conditions(&JUDGED_RESET_POINTS.map(
            |(value, _, flow, _)| {
                (
                    value,
                    get(flow, &lossy).map(|r| {
                        let sustained = r.bdp_mb + r.buffer_mb;
                        (
                            r.first_probe_bw_hi > sustained,
                            format!(
                                "{:.2} MB against BDP + buffer {:.2} MB",
                                r.first_probe_bw_hi, sustained
                            ),
                        )
                    }),
                )
            },
        ))),
        RESET_AT_CYCLE_START.judge(reset_conditions(&JUDGED_RESET_POINTS.map(
            |(value, refill, _, cycle)| {
                (
                    value,
                    get(refill, &lossy).zip(get(cycle, &lossy)).map(|(r, c)| {
                        (
                            c.goodput < r.goodput,
                            format!("{:.1} Mbit/s against {:.1} at REFILL", c.goodput, r.goodput),
                        )
                    }),
                )
            },
        ))),
    ];
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
         PROBE_REFILL to the latest round's inflight, so it stays steady and the flow delivers far more (Fig. 6). \
         The reset points §V-B a) tried and rejected run beside it, each with both reset values \
         (reset_to=1, one BDP at max_bw, the default; reset_to=0, inflight_latest): once per flow at the first \
         ProbeBW entry (reset_at=1) and at every cycle start, PROBE_DOWN (reset_at=2).",
    )
    .table(table);
    let section = figures.into_iter().fold(section, Section::figure);
    Analysis::judged(
        section,
        judged,
        "BBRv2's inflight_hi ratchets down under loss and stays high without it; adaptive BBRv2's stays steady.",
    )
}

/// A direction over the reset values: `(value, Some((holds, numbers)))`
/// per reset value, `None` where a run is missing. Every condition is
/// named with its numbers, so the row shows them whether or not it holds.
fn reset_conditions(checks: &[(&str, Option<(bool, String)>)]) -> Measured {
    if checks.iter().any(|(_, c)| c.is_none()) {
        return Measured::NotRun("the reset-point runs are not in the sweep".into());
    }
    let held = checks
        .iter()
        .filter(|(_, c)| c.as_ref().is_some_and(|c| c.0))
        .count();
    let detail = checks
        .iter()
        .filter_map(|(value, c)| {
            let (ok, numbers) = c.as_ref()?;
            Some(format!(
                "{value}: {numbers} ({})",
                if *ok { "holds" } else { "does not" }
            ))
        })
        .collect::<Vec<_>>()
        .join("; ");
    Measured::Conditions {
        held,
        total: checks.len(),
        detail,
    }
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
