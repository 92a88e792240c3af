//! copilot: §4.2, Figs. 6-7: does a live stream's BBR leave Startup, and
//! what does staying there cost? On the paper's kind of path (an LTE trace
//! in both directions, 40 KB buffer) and on a constant-rate path that shows
//! the mechanism without the trace's dips.

use report::{BarGroup, Cell, Figure, Section, Table};

use super::claims::{
    CONSTANT_EXIT_WITH, CONSTANT_EXIT_WITHOUT_200MS, CONSTANT_RETX_LOWER, CUT_GROWS, EXIT_WITH,
    EXIT_WITHOUT_200MS, EXIT_WITHOUT_50MS, EXIT_WITHOUT_FALLS, FIG6_RETX_WITH, FIG6_RETX_WITHOUT,
    RETX_CUT_200MS, RETX_LOWER, RETX_WITHOUT_200MS, RETX_WITHOUT_50MS, RETX_WITHOUT_GROWS,
    RETX_WITH_200MS, RETX_WITH_50MS, RETX_WITH_GROWS, STARTUP_RATE_OVERSHOOT,
};
use super::{label, mean_of, rtts, runs_at};
use crate::reproduce::claims::Measured;
use crate::reproduce::data::metric;
use crate::reproduce::{Analysis, Experiment, Runs};

/// Figs. 6-7 on an LTE trace, many streams per point.
pub const STARTUP: Experiment = Experiment {
    id: "startup",
    scenario: "copilot/startup.toml",
    series: false,
    analyze: startup_on_trace,
};

/// The same on a constant 37 Mbit/s path (the capacity of the paper's Fig. 6 run).
pub const STARTUP_CONSTANT: Experiment = Experiment {
    id: "startup-constant",
    scenario: "copilot/startup-constant.toml",
    series: false,
    analyze: startup_on_constant_path,
};

/// One RTT, with or without Copilot, over its streams.
struct Point {
    rtt: String,
    copilot: bool,
    streams: usize,
    /// Share of streams that declared the pipe full within the run.
    exited: f64,
    /// Mean time of that exit, over the streams that exited (s).
    exit_time_s: f64,
    retransmission: f64,
    padding: f64,
    late_frames: f64,
    goodput_bps: f64,
    /// Mean bytes lost per stream: padding, and stream data by the phase
    /// it was sent in (Startup, ProbeBW's probing phase, a gain of 1 or less).
    lost_padding: f64,
    lost_startup: f64,
    lost_probing: f64,
    lost_other: f64,
}

fn points(runs: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    for (rtt, _) in rtts(runs) {
        for copilot in [false, true] {
            let streams = runs_at(runs, &rtt, copilot);
            if streams.is_empty() {
                continue;
            }
            let exits: Vec<f64> = streams
                .iter()
                .filter_map(|r| metric(r, "/flows/0/startup_exit_s"))
                .collect();
            out.push(Point {
                rtt: rtt.clone(),
                copilot,
                streams: streams.len(),
                exited: exits.len() as f64 / streams.len() as f64,
                exit_time_s: if exits.is_empty() {
                    f64::NAN
                } else {
                    exits.iter().sum::<f64>() / exits.len() as f64
                },
                retransmission: mean_of(&streams, "/flows/0/retransmission_ratio"),
                padding: mean_of(&streams, "/flows/0/padding_ratio"),
                late_frames: mean_of(&streams, "/flows/0/live/late_frame_ratio"),
                goodput_bps: mean_of(&streams, "/flows/0/goodput_bps"),
                lost_padding: mean_of(&streams, "/flows/0/lost_split/padding_bytes"),
                lost_startup: mean_of(&streams, "/flows/0/lost_split/sent_in_startup_bytes"),
                lost_probing: mean_of(&streams, "/flows/0/lost_split/sent_probing_bytes"),
                lost_other: mean_of(&streams, "/flows/0/bytes_lost")
                    - mean_of(&streams, "/flows/0/lost_split/padding_bytes")
                    - mean_of(&streams, "/flows/0/lost_split/sent_in_startup_bytes")
                    - mean_of(&streams, "/flows/0/lost_split/sent_probing_bytes"),
            });
        }
    }
    out
}

fn find<'a>(points: &'a [Point], rtt: &str, copilot: bool) -> Option<&'a Point> {
    points.iter().find(|p| p.rtt == rtt && p.copilot == copilot)
}

/// Exit share and retransmissions per RTT, with and without Copilot, and the table.
fn figures_and_table(section: Section, points: &[Point], runs: &Runs) -> Section {
    let rtt_axis: Vec<String> = rtts(runs).into_iter().map(|(v, _)| v).collect();
    let group = |copilot: bool, value: fn(&Point) -> f64| {
        BarGroup::new(
            label(copilot),
            rtt_axis
                .iter()
                .map(|r| find(points, r, copilot).map_or(f64::NAN, value) * 100.0)
                .collect(),
        )
    };
    let mut table = Table::new(
        "Per RTT: streams, share leaving Startup, when, retransmissions, padding, late frames, goodput (means over streams)",
        [
            "RTT",
            "Copilot",
            "streams",
            "left Startup",
            "mean exit (s)",
            "retransmission ratio",
            "padding / bytes sent",
            "late frames (> 1 s)",
            "goodput",
        ],
    );
    for p in points {
        table = table.row([
            Cell::text(p.rtt.as_str()),
            Cell::text(if p.copilot { "yes" } else { "no" }),
            Cell::fixed(p.streams as f64, 0),
            Cell::percent(p.exited, 0),
            Cell::fixed(p.exit_time_s, 1),
            Cell::percent(p.retransmission, 1),
            Cell::percent(p.padding, 1),
            Cell::percent(p.late_frames, 1),
            Cell::fixed(p.goodput_bps / 1e6, 2).with_unit("Mbit/s"),
        ]);
    }
    let mut lost = Table::new(
        "Where the lost bytes come from: mean wire bytes declared lost per stream, padding and \
         stream data by the phase it was sent in",
        [
            "RTT",
            "Copilot",
            "padding",
            "stream data sent in Startup",
            "sent in ProbeBW's probing phase",
            "sent at a gain of 1 or less",
            "retransmission ratio",
        ],
    );
    let mb = |v: f64| Cell::fixed(v / 1e6, 2).with_unit("MB");
    for p in points {
        lost = lost.row([
            Cell::text(p.rtt.as_str()),
            Cell::text(if p.copilot { "yes" } else { "no" }),
            mb(p.lost_padding),
            mb(p.lost_startup),
            mb(p.lost_probing),
            mb(p.lost_other),
            Cell::percent(p.retransmission, 1),
        ]);
    }
    section
        .figure(
            Figure::bars(
                "Streams whose BBR left Startup within the run",
                "RTT",
                "streams (%)",
                rtt_axis.clone(),
                vec![group(false, |p| p.exited), group(true, |p| p.exited)],
            )
            .y_range(0.0, 105.0),
        )
        .figure(Figure::bars(
            "Retransmission ratio",
            "RTT",
            "retransmitted / delivered (%)",
            rtt_axis.clone(),
            vec![
                group(false, |p| p.retransmission),
                group(true, |p| p.retransmission),
            ],
        ))
        .table(table)
        .table(lost)
}

fn startup_on_trace(runs: &Runs) -> Analysis {
    let points = points(runs);
    let at_200 = |copilot| find(&points, "200ms", copilot);
    let not_run = || Measured::NotRun("no 200 ms runs".into());
    let exit_without = at_200(false).map_or_else(not_run, |p| Measured::Value(p.exited));
    let with: Vec<f64> = points
        .iter()
        .filter(|p| p.copilot)
        .map(|p| p.exited)
        .collect();
    let exit_with = if with.is_empty() {
        Measured::NotRun("no runs with Copilot".into())
    } else {
        Measured::Value(with.iter().copied().fold(f64::INFINITY, f64::min))
    };
    let lower = retransmits_less_with_copilot(&points, runs);
    let cut = match (at_200(false), at_200(true)) {
        (Some(a), Some(b)) => Measured::Value(1.0 - b.retransmission / a.retransmission),
        _ => not_run(),
    };
    let retx_without = at_200(false).map_or_else(not_run, |p| Measured::Value(p.retransmission));
    let overshoot: Vec<f64> = runs_at(runs, "200ms", false)
        .iter()
        .filter_map(|r| {
            let peak = metric(r, "/flows/0/startup_peak_pacing_bps")?;
            let capacity = metric(r, "/link/capacity_peak_bps").filter(|c| *c > 0.0)?;
            Some(peak / capacity)
        })
        .collect();
    let overshoot = if overshoot.is_empty() {
        Measured::NotRun("no 200 ms runs without Copilot with a Startup pacing rate".into())
    } else {
        Measured::Value(overshoot.iter().sum::<f64>() / overshoot.len() as f64)
    };
    let exit_without_50 = find(&points, "50ms", false).map_or_else(
        || Measured::NotRun("no 50 ms runs".into()),
        |p| Measured::Value(p.exited),
    );
    let retx_with = at_200(true).map_or_else(not_run, |p| Measured::Value(p.retransmission));
    let judged = vec![
        EXIT_WITHOUT_50MS.judge(exit_without_50),
        RETX_WITH_200MS.judge(retx_with),
        STARTUP_RATE_OVERSHOOT.judge(overshoot),
        EXIT_WITHOUT_200MS.judge(exit_without),
        EXIT_WITH.judge(exit_with),
        RETX_LOWER.judge(lower),
        RETX_CUT_200MS.judge(cut),
        RETX_WITHOUT_200MS.judge(retx_without),
    ];
    let judged = [judged, trend_claims(&points, runs)].concat();
    let section = Section::new("startup", "Startup-exit and retransmissions (Figs. 6-7)")
        .description(
            "A 5.4 Mbit/s live stream (25 frames/s, its latest 2 s GOP handed over at connect) \
         from BBRv1 to a client behind an LTE trace in both directions, 40 KB buffer, \
         RTT 50-200 ms, 60 s; 16 streams per point, each entering the traces at a different \
         moment (8 s apart). The paper used Verizon-LTE-driving traces, which are not \
         available; we use TMobile-LTE-short (16.7 Mbit/s down, 13.4 up on average), the only \
         two-way LTE trace we have whose capacity is well above the stream, as the paper's \
         path was (37.2 Mbit/s in its Fig. 6 run). Its capacity dips below the stream's \
         bitrate now and then: the stream then backs up, its samples stop being app-limited, \
         and BBR can find a plateau and leave Startup even without Copilot, so this trace \
         moves the exit share up against the paper's. The constant-rate experiment below \
         shows the mechanism without dips. \"Left Startup\" means BBR declared the pipe full \
         (a ProbeRTT taken from Startup, which returns to Startup, does not count).",
        );
    let section = figures_and_table(section, &points, runs);
    Analysis::judged(
        section,
        judged,
        "Copilot takes every stream out of Startup and retransmits less, as in the paper.",
    )
}

/// Fig. 6's two retransmission ratios, Fig. 7(b)'s at 50 ms, and Fig. 7's
/// trends over the RTT axis.
fn trend_claims(points: &[Point], runs: &Runs) -> Vec<crate::reproduce::claims::Judged> {
    let value = |rtt: &str, copilot: bool| {
        find(points, rtt, copilot).map_or_else(
            || Measured::NotRun(format!("no {rtt} runs {}", label(copilot))),
            |p| Measured::Value(p.retransmission),
        )
    };
    let axis: Vec<String> = rtts(runs).into_iter().map(|(v, _)| v).collect();
    // A direction over each step of the RTT axis, (shorter, longer), where
    // `holds` can tell.
    let steps = |holds: &dyn Fn(&str, &str) -> Option<bool>| -> Vec<(String, bool)> {
        axis.windows(2)
            .filter_map(|w| Some((format!("{} to {}", w[0], w[1]), holds(&w[0], &w[1])?)))
            .collect()
    };
    let retx = |rtt: &str, copilot: bool| find(points, rtt, copilot).map(|p| p.retransmission);
    let cut = |rtt: &str| Some(1.0 - retx(rtt, true)? / retx(rtt, false)?);
    let exited = |rtt: &str| find(points, rtt, false).map(|p| p.exited);
    let retx_without_grows = steps(&|a, b| Some(retx(b, false)? > retx(a, false)?));
    let cut_grows = steps(&|a, b| Some(cut(b)? > cut(a)?));
    let mut exit_falls = steps(&|a, b| Some(exited(b)? <= exited(a)?));
    if let (Some(first), Some(last)) = (axis.first(), axis.last()) {
        if let (Some(a), Some(b)) = (exited(first), exited(last)) {
            exit_falls.push((format!("{first} to {last}"), b < a));
        }
    }
    let with_grows = match (retx("50ms", true), retx("200ms", true)) {
        (Some(a), Some(b)) => Measured::conditions([("50ms to 200ms", b > a)]),
        _ => Measured::NotRun("no 50 and 200 ms runs with Copilot".into()),
    };
    vec![
        FIG6_RETX_WITHOUT.judge(value("200ms", false)),
        FIG6_RETX_WITH.judge(value("200ms", true)),
        RETX_WITHOUT_50MS.judge(value("50ms", false)),
        RETX_WITH_50MS.judge(value("50ms", true)),
        RETX_WITHOUT_GROWS.judge(Measured::conditions(retx_without_grows)),
        RETX_WITH_GROWS.judge(with_grows),
        CUT_GROWS.judge(Measured::conditions(cut_grows)),
        EXIT_WITHOUT_FALLS.judge(Measured::conditions(exit_falls)),
    ]
}

/// Per RTT, whether the streams with Copilot retransmit less than those
/// without.
fn retransmits_less_with_copilot(points: &[Point], runs: &Runs) -> Measured {
    Measured::conditions(rtts(runs).iter().filter_map(|(r, _)| {
        let (a, b) = (find(points, r, false)?, find(points, r, true)?);
        Some((r.as_str(), b.retransmission < a.retransmission))
    }))
}

fn startup_on_constant_path(runs: &Runs) -> Analysis {
    let points = points(runs);
    let section = Section::new(
        "startup-constant",
        "Startup-exit on a constant-rate path (the mechanism)",
    )
    .description(
        "Our path model, not the paper's: the same stream over a constant 37 Mbit/s downlink \
         (the capacity of the paper's Fig. 6 run) with a 12 Mbit/s uplink, 40 KB buffer, \
         RTT 50-200 ms, 60 s; one stream per point (nothing random). Without dips in \
         capacity a 5.4 Mbit/s stream is app-limited nearly all the time, so BBR's Startup \
         never sees three rounds of a plateau; with Copilot the padding fills Startup's \
         probes and the plateau appears.",
    );
    let section = figures_and_table(section, &points, runs);
    let without_200 = find(&points, "200ms", false).map_or(
        Measured::NotRun("no 200 ms run without Copilot".into()),
        |p| Measured::Value(p.exited),
    );
    let with_lowest = points
        .iter()
        .filter(|p| p.copilot)
        .map(|p| p.exited)
        .fold(f64::NAN, f64::min);
    Analysis::judged(
        section,
        vec![
            CONSTANT_EXIT_WITHOUT_200MS.judge(without_200),
            CONSTANT_EXIT_WITH.judge(Measured::Value(with_lowest)),
            CONSTANT_RETX_LOWER.judge(retransmits_less_with_copilot(&points, runs)),
        ],
        "On a constant-rate path Copilot is what takes a live stream out of Startup.",
    )
}
