//! obbr: Fig. 4 (§3.2): a BBR flow when the bandwidth drops from 20 to 5 or
//! 2 Mbit/s (100 ms, 200 KB buffer): RTT samples, bytes in flight and lost
//! bytes over time, with oBBR beside it.

use report::{Cell, Figure, Line, LineStyle, ReferenceLine, Section, Table};

use crate::reproduce::claims::{Claim, Declaration, Judged, Measured, Origin, Paper, Test};
use crate::reproduce::data::{metric, series_column};
use crate::reproduce::verdict::paper_name;
use crate::reproduce::{Analysis, Experiment, Runs};
use crate::store::RunRecord;

/// Fig. 4: 20 -> 5 and 20 -> 2 Mbit/s drops.
pub const DROP: Experiment = Experiment {
    id: "fig4-drop",
    scenario: "obbr/fig4-drop.toml",
    series: true,
    analyze: |runs| {
        drop_analysis(
            runs,
            "fig4-drop",
            "Fig. 4: a BBR flow when the bandwidth drops from 20 to 5 or 2 Mbit/s",
        )
    },
};

const FIG4: &str = "§3.2, Fig. 4";

/// BBR keeps its inflight after a drop.
pub static BBR_KEEPS_INFLIGHT: Claim = Claim::new(Declaration {
    id: "obbr.fig4.bbr-keeps-inflight",
    paper: Paper::Obbr,
    place: FIG4,
    statement: "after a bandwidth drop BBR keeps its bytes in flight until its estimate follows",
    about: "BBR",
    metric: "BBR's mean inflight from the drop until its estimate follows, over the 5 s before, per drop",
    unit: "%",
    paper_says: "inflight stays (Fig. 4 middle)",
    test: Test::direction_within(0.2),
    tolerance_reason: "a direction per drop; 'keeps' read as falling by at most a fifth",
    origin: Origin::ProjectTarget,
});

/// BBR queues up before its estimate falls.
pub static BBR_QUEUES_FIRST: Claim = Claim::new(Declaration {
    id: "obbr.fig4.bbr-queues-first",
    paper: Paper::Obbr,
    place: FIG4,
    statement:
        "BBR's RTT samples climb (past 3x the base RTT) before its estimate follows the drop",
    about: "BBR",
    metric:
        "first RTT sample > 3x base before the estimate is within 25% of the new rate, per drop",
    unit: "",
    paper_says: "RTT up to ~700 ms / ~1500 ms while the estimate is stale",
    test: Test::direction(),
    tolerance_reason: "a direction per drop",
    origin: Origin::Paper,
});

/// The deeper drop takes BBR longer.
pub static DEEPER_LATER: Claim = Claim::new(Declaration {
    id: "obbr.fig4.deeper-drop-later",
    paper: Paper::Obbr,
    place: FIG4,
    statement: "BBR takes longer to follow the deeper drop (to 2 Mbit/s) than the drop to 5 Mbit/s",
    about: "BBR",
    metric: "BBR's lag after the drop to 2 Mbit/s above its lag after the drop to 5 Mbit/s",
    unit: "",
    paper_says: "~15 s vs ~7 s",
    test: Test::direction(),
    tolerance_reason: "one direction between the two drops",
    origin: Origin::Paper,
});

/// BBR's lag after the drop to 5 Mbit/s.
pub static BBR_LAG_5: Claim = Claim::new(Declaration {
    id: "obbr.fig4.bbr-lag-5mbit",
    paper: Paper::Obbr,
    place: FIG4,
    statement: "after the drop to 5 Mbit/s BBR's bandwidth estimate is corrected after about 7 s",
    about: "BBR",
    metric: "seconds from the drop until BBR's estimate is within 25% of 5 Mbit/s",
    unit: "s",
    paper_says: "~7 s",
    test: Test::point(7.0),
    tolerance_reason: "an approximate time read off one run's plot",
    origin: Origin::Paper,
});

/// BBR's lag after the drop to 2 Mbit/s.
pub static BBR_LAG_2: Claim = Claim::new(Declaration {
    id: "obbr.fig4.bbr-lag-2mbit",
    paper: Paper::Obbr,
    place: FIG4,
    statement: "after the drop to 2 Mbit/s BBR's bandwidth estimate is corrected after about 15 s",
    about: "BBR",
    metric: "seconds from the drop until BBR's estimate is within 25% of 2 Mbit/s",
    unit: "s",
    paper_says: "~15 s",
    test: Test::point(15.0),
    tolerance_reason: "an approximate time read off one run's plot",
    origin: Origin::Paper,
});

/// BBR's RTT after the drop to 5 Mbit/s.
pub static BBR_RTT_5: Claim = Claim::new(Declaration {
    id: "obbr.fig4.bbr-rtt-5mbit",
    paper: Paper::Obbr,
    place: FIG4,
    statement: "after the drop to 5 Mbit/s BBR's RTT samples rise to about 700 ms",
    about: "BBR",
    metric: "highest RTT sample after the drop",
    unit: "ms",
    paper_says: "~700 ms",
    test: Test::point(700.0),
    tolerance_reason: "an approximate peak read off one run's plot",
    origin: Origin::Paper,
});

/// BBR's RTT after the drop to 2 Mbit/s.
pub static BBR_RTT_2: Claim = Claim::new(Declaration {
    id: "obbr.fig4.bbr-rtt-2mbit",
    paper: Paper::Obbr,
    place: FIG4,
    statement: "after the drop to 2 Mbit/s BBR's RTT samples rise to about 1500 ms",
    about: "BBR",
    metric: "highest RTT sample after the drop",
    unit: "ms",
    paper_says: "~1500 ms",
    test: Test::point(1500.0),
    tolerance_reason: "an approximate peak read off one run's plot",
    origin: Origin::Paper,
});

/// oBBR follows sooner.
pub static OBBR_SOONER: Claim = Claim::new(Declaration {
    id: "obbr.fig4.obbr-sooner",
    paper: Paper::Obbr,
    place: "§4.2, Fig. 4",
    statement: "oBBR's timely update follows a bandwidth drop sooner than BBR's max filter",
    about: "oBBR mu 0.5 (paper's algorithm)",
    metric: "oBBR's lag below BBR's, per drop",
    unit: "",
    paper_says: "after k = 30 low samples rather than ~10 rounds",
    test: Test::direction(),
    tolerance_reason: "a direction per drop",
    origin: Origin::Paper,
});

/// oBBR loses less after a drop.
pub static OBBR_LOSES_LESS: Claim = Claim::new(Declaration {
    id: "obbr.fig4.obbr-loses-less",
    paper: Paper::Obbr,
    place: "§4.2, Fig. 4",
    statement: "oBBR loses fewer bytes than BBR after a bandwidth drop",
    about: "oBBR mu 0.5 (paper's algorithm)",
    metric: "bytes lost from the drop to the end of the run, oBBR below BBR, per drop",
    unit: "",
    paper_says: "fewer losses (the point of the timely update)",
    test: Test::direction(),
    tolerance_reason: "a direction per drop",
    origin: Origin::Paper,
});

/// BBR's lost volume grows while its estimate is stale.
pub static BBR_LOSES_WHILE_STALE: Claim = Claim::new(Declaration {
    id: "obbr.fig4.bbr-lost-grows",
    paper: Paper::Obbr,
    place: FIG4,
    statement:
        "after a bandwidth drop BBR's lost data volume grows until its estimate is corrected",
    about: "BBR",
    metric: "BBR's bytes lost per second from the drop until its estimate is within 25% of the \
             new rate, above those of the 5 s before the drop, per drop",
    unit: "",
    paper_says: "\"the lost data volume also increases during this period\" (Fig. 4 bottom)",
    test: Test::direction(),
    tolerance_reason: "a direction per drop: the paper gives the growth, not its size",
    origin: Origin::Paper,
});

/// An estimate within this factor of the new rate has followed the drop.
const ADAPTED: f64 = 1.25;
/// RTT samples above this multiple of the base RTT count as queueing up.
const HIGH_RTT: f64 = 3.0;

/// The first fall of the capacity: when (s), from and to (Mbit/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CapacityDrop {
    pub t: f64,
    pub from: f64,
    pub to: f64,
}

/// The capacity over a run, from its link series.
pub(crate) struct Capacity {
    /// `(t_s, Mbit/s)` at the start, at every change and at the end.
    pub steps: Vec<(f64, f64)>,
    /// The first drop, if the capacity falls.
    pub drop: Option<CapacityDrop>,
}

/// The capacity schedule of a run, read from its link series.
pub(crate) fn capacity(runs: &Runs, record: &RunRecord) -> Capacity {
    let mut out = Capacity {
        steps: Vec::new(),
        drop: None,
    };
    let Ok(rows) = runs.link_series(record) else {
        return out;
    };
    let Some(header) = rows.first() else {
        return out;
    };
    let col = |n: &str| header.iter().position(|h| h == n);
    let (Some(t), Some(c)) = (col("t_s"), col("capacity_bps")) else {
        return out;
    };
    let points: Vec<(f64, f64)> = rows[1..]
        .iter()
        .filter_map(|r| {
            Some((
                r.get(t)?.parse().ok()?,
                r.get(c)?.parse::<f64>().ok()? / 1e6,
            ))
        })
        .collect();
    for &(t, v) in &points {
        match out.steps.last() {
            Some(&(_, last)) if last == v => {}
            Some(&(_, last)) => {
                if out.drop.is_none() && v < last {
                    out.drop = Some(CapacityDrop {
                        t,
                        from: last,
                        to: v,
                    });
                }
                out.steps.push((t, v));
            }
            None => out.steps.push((t, v)),
        }
    }
    if let Some(&last) = points.last() {
        out.steps.push(last);
    }
    out
}

/// Mean of the values with `from <= t < to`.
fn mean_between(series: &[(f64, f64)], from: f64, to: f64) -> f64 {
    let v: Vec<f64> = series
        .iter()
        .filter(|(t, _)| *t >= from && *t < to)
        .map(|(_, v)| *v)
        .collect();
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The value at the first sample at or after `t` (the last one if none).
fn at(series: &[(f64, f64)], t: f64) -> f64 {
    series
        .iter()
        .find(|(x, _)| *x >= t)
        .or(series.last())
        .map_or(f64::NAN, |(_, v)| *v)
}

/// What one run did after the drop.
struct AfterDrop {
    cc: String,
    /// Seconds after the drop.
    rtt_high: Option<f64>,
    adapted: Option<f64>,
    /// Highest RTT sample after the drop, ms.
    peak_rtt: f64,
    /// Mean bytes in flight, KB: the 5 s before the drop and from the drop
    /// until the estimate follows (or the end).
    inflight_before: f64,
    inflight_during: f64,
    /// KB declared lost from the drop until the estimate follows, and to the end.
    lost_during: f64,
    lost_after: f64,
    /// KB declared lost per second: the 5 s before the drop, and from the
    /// drop until the estimate follows (or the end).
    loss_rate_before: f64,
    loss_rate_during: f64,
    retx: f64,
}

/// Fig. 4's analysis and claims over a sweep of drops (`link.schedule.1.1`,
/// the rate after the drop) and controllers; the quick tour's
/// bandwidth-drop experiment runs one drop of it.
pub(crate) fn drop_analysis(runs: &Runs, id: &str, title: &str) -> Analysis {
    let drops = runs.axis("link.schedule.1.1");
    let ccs = runs.axis("flow.0.cc");
    let mut section = Section::new(id, title);
    let mut table = Table::new(
        "After the drop (times in seconds after it)",
        [
            "drop to",
            "controller",
            "RTT > 3x base at",
            "estimate within 25% at",
            "peak RTT (ms)",
            "inflight before (KB)",
            "inflight until adapted (KB)",
            "lost until adapted (KB)",
            "lost after the drop (KB)",
            "lost KB/s, 5 s before",
            "lost KB/s until adapted",
            "retransmission ratio",
        ],
    );
    let mut results: Vec<(String, AfterDrop)> = Vec::new();
    let mut base_rtt = f64::NAN;
    for d in &drops {
        let mut estimate = Vec::new();
        let mut rtt_lines = Vec::new();
        let mut inflight_lines = Vec::new();
        let mut lost_lines = Vec::new();
        let mut drop_at = None;
        for cc in &ccs {
            let Some(run) = runs.one(&[("link.schedule.1.1", d), ("flow.0.cc", cc)]) else {
                continue;
            };
            let Ok(rows) = runs.flow_series(run) else {
                continue;
            };
            let cap = capacity(runs, run);
            let Some(CapacityDrop { t: t0, to: new, .. }) = cap.drop else {
                continue;
            };
            if drop_at.is_none() {
                estimate.push(Line::new("capacity", cap.steps).style(LineStyle::Step));
                drop_at = Some(t0);
            }
            let base = metric(run, "/flows/0/base_rtt_ms").unwrap_or(f64::NAN);
            base_rtt = base;
            let kb = |name: &str| -> Vec<(f64, f64)> {
                series_column(&rows, 0, name)
                    .into_iter()
                    .map(|(t, v)| (t, v / 1e3))
                    .collect()
            };
            let bw: Vec<(f64, f64)> = series_column(&rows, 0, "bw_estimate_bps")
                .into_iter()
                .map(|(t, v)| (t, v / 1e6))
                .collect();
            let rtt = series_column(&rows, 0, "latest_rtt_ms");
            let inflight = kb("inflight");
            let lost = kb("lost");
            let end = rtt.last().map_or(f64::NAN, |(t, _)| *t);
            let adapted = bw
                .iter()
                .find(|(t, v)| *t >= t0 && *v <= new * ADAPTED)
                .map(|(t, _)| *t);
            let rtt_high = rtt
                .iter()
                .find(|(t, v)| *t >= t0 && *v > HIGH_RTT * base)
                .map(|(t, _)| *t);
            let until = adapted.unwrap_or(end);
            results.push((
                d.clone(),
                AfterDrop {
                    cc: cc.clone(),
                    rtt_high: rtt_high.map(|t| t - t0),
                    adapted: adapted.map(|t| t - t0),
                    peak_rtt: rtt
                        .iter()
                        .filter(|(t, _)| *t >= t0)
                        .map(|(_, v)| *v)
                        .fold(f64::NAN, f64::max),
                    inflight_before: mean_between(&inflight, t0 - 5.0, t0),
                    inflight_during: mean_between(&inflight, t0, until),
                    lost_during: at(&lost, until) - at(&lost, t0),
                    lost_after: at(&lost, end) - at(&lost, t0),
                    loss_rate_before: (at(&lost, t0) - at(&lost, t0 - 5.0)) / 5.0,
                    loss_rate_during: if until > t0 {
                        (at(&lost, until) - at(&lost, t0)) / (until - t0)
                    } else {
                        f64::NAN
                    },
                    retx: metric(run, "/flows/0/retransmission_ratio").unwrap_or(f64::NAN),
                },
            ));
            let name = paper_name(cc);
            estimate.push(Line::new(format!("{name} estimate"), bw).colour_of(name.clone()));
            rtt_lines.push(Line::new(name.clone(), rtt));
            inflight_lines.push(Line::new(name.clone(), inflight));
            lost_lines.push(Line::new(name, lost));
        }
        let Some(t0) = drop_at else {
            continue;
        };
        let to = format!("20 -> {}", d.replace("Mbit", " Mbit/s"));
        let mark = || ReferenceLine::vertical(t0, "drop");
        section = section
            .figure(
                Figure::lines(
                    format!("{to}: bandwidth estimate"),
                    "time (s)",
                    "Mbit/s",
                    estimate,
                )
                .reference(mark()),
            )
            .figure(
                Figure::lines(
                    format!("{to}: RTT samples"),
                    "time (s)",
                    "RTT (ms)",
                    rtt_lines,
                )
                .reference(mark())
                .reference(ReferenceLine::horizontal(HIGH_RTT * base_rtt, "3x base")),
            )
            .figure(
                Figure::lines(
                    format!("{to}: bytes in flight"),
                    "time (s)",
                    "inflight (KB)",
                    inflight_lines,
                )
                .reference(mark()),
            )
            .figure(
                Figure::lines(
                    format!("{to}: lost bytes (cumulative, from the start)"),
                    "time (s)",
                    "lost (KB)",
                    lost_lines,
                )
                .reference(mark()),
            );
    }
    let cell = |t: Option<f64>| t.map_or(Cell::text("never"), |t| Cell::fixed(t, 2));
    for (d, r) in &results {
        table = table.row([
            Cell::text(d.clone()),
            Cell::text(r.cc.clone()),
            cell(r.rtt_high),
            cell(r.adapted),
            Cell::fixed(r.peak_rtt, 0),
            Cell::fixed(r.inflight_before, 0),
            Cell::fixed(r.inflight_during, 0),
            Cell::fixed(r.lost_during, 0),
            Cell::fixed(r.lost_after, 0),
            Cell::fixed(r.loss_rate_before, 1),
            Cell::fixed(r.loss_rate_during, 1),
            Cell::percent(r.retx, 2),
        ]);
    }
    let find = |d: &str, cc: &str| {
        results
            .iter()
            .find(|(x, r)| x == d && (r.cc == cc || (cc == "obbr" && r.cc.starts_with("obbr"))))
            .map(|(_, r)| r)
    };
    let lag = |d: &str, cc: &str| find(d, cc).and_then(|r| r.adapted).unwrap_or(f64::INFINITY);
    let mut paper = Table::new(
        "The paper's numbers for BBR (§3.2) and ours",
        ["quantity", "paper", "ours"],
    );
    for (d, paper_lag, paper_rtt) in [("5Mbit", "~7 s", "~700 ms"), ("2Mbit", "~15 s", "~1500 ms")]
    {
        let Some(r) = find(d, "bbr") else {
            continue;
        };
        paper = paper
            .row([
                Cell::text(format!("drop to {d}: estimate corrected after")),
                Cell::text(paper_lag),
                r.adapted
                    .map_or(Cell::text("never"), |t| Cell::fixed(t, 1).with_unit("s")),
            ])
            .row([
                Cell::text(format!("drop to {d}: RTT samples rise to")),
                Cell::text(paper_rtt),
                Cell::fixed(r.peak_rtt, 0).with_unit("ms"),
            ]);
    }
    let judged = drop_claims(&results, &drops, lag);
    let section = section
        .description(
            "20 Mbit/s, 100 ms, 200 KB buffer, 100 KB tc burst; the bandwidth drops at 10 s. BBR's max filter keeps the old \
             bandwidth for about ten rounds, and the queue the stale estimate builds stretches those rounds: the inflight \
             stays, RTT climbs and packets are lost until the estimate falls. The paper's BBR needs ~7 s (RTT up to ~700 ms) \
             and ~15 s (~1500 ms); with a 200 KB drop-tail buffer our RTT cannot exceed 100 ms + 200 KB / rate (420 ms, \
             900 ms), so our rounds, and the lag, are shorter. oBBR (§4.2) replaces the estimate after k = 30 low-bandwidth or \
             high-RTT samples. Lost bytes are cumulative from the start (Startup's losses included).",
        )
        .table(table)
        .table(paper);
    Analysis::judged(
        section,
        judged,
        "BBR keeps sending into the smaller pipe until its estimate expires, queueing and losing; oBBR follows the drop sooner and loses less.",
    )
}

/// Judges Fig. 4's claims on what each run did after its drop.
fn drop_claims(
    results: &[(String, AfterDrop)],
    drops: &[String],
    lag: impl Fn(&str, &str) -> f64,
) -> Vec<Judged> {
    let find = |d: &str, obbr: bool| {
        results
            .iter()
            .find(|(x, r)| {
                x == d
                    && if obbr {
                        r.cc.starts_with("obbr")
                    } else {
                        r.cc == "bbr"
                    }
            })
            .map(|(_, r)| r)
    };
    let per_drop = |holds: &dyn Fn(&str) -> Option<bool>| -> Measured {
        let checks: Vec<(String, bool)> = drops
            .iter()
            .filter_map(|d| Some((format!("{d} drop"), holds(d)?)))
            .collect();
        Measured::conditions(checks)
    };
    let bbr_value = |d: &str, f: &dyn Fn(&AfterDrop) -> Option<f64>| match find(d, false) {
        Some(r) => match f(r) {
            Some(v) => Measured::Value(v),
            None => Measured::NotRun("the estimate never followed within the run".into()),
        },
        None => Measured::NotRun(format!("this sweep has no {d} drop")),
    };
    let keeps = 1.0 - BBR_KEEPS_INFLIGHT.margin();
    vec![
        BBR_KEEPS_INFLIGHT.judge(per_drop(&|d| {
            find(d, false).map(|r| r.inflight_during >= keeps * r.inflight_before)
        })),
        BBR_QUEUES_FIRST.judge(per_drop(&|d| {
            find(d, false).map(|r| matches!((r.rtt_high, r.adapted), (Some(h), Some(a)) if h < a))
        })),
        if find("2Mbit", false).is_some() && find("5Mbit", false).is_some() {
            DEEPER_LATER.judge(Measured::conditions([(
                "2 vs 5 Mbit/s",
                lag("2Mbit", "bbr") > lag("5Mbit", "bbr"),
            )]))
        } else {
            DEEPER_LATER.judge(Measured::NotRun("this sweep has one drop only".into()))
        },
        BBR_LAG_5.judge(bbr_value("5Mbit", &|r| r.adapted)),
        BBR_LAG_2.judge(bbr_value("2Mbit", &|r| r.adapted)),
        BBR_RTT_5.judge(bbr_value("5Mbit", &|r| Some(r.peak_rtt))),
        BBR_RTT_2.judge(bbr_value("2Mbit", &|r| Some(r.peak_rtt))),
        OBBR_SOONER.judge(per_drop(&|d| {
            find(d, true).map(|_| lag(d, "obbr") < lag(d, "bbr"))
        })),
        BBR_LOSES_WHILE_STALE.judge(per_drop(&|d| {
            find(d, false).map(|r| r.loss_rate_during > r.loss_rate_before)
        })),
        OBBR_LOSES_LESS.judge(per_drop(&|d| match (find(d, true), find(d, false)) {
            (Some(o), Some(b)) => Some(o.lost_after < b.lost_after),
            _ => None,
        })),
    ]
}
