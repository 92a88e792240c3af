//! obbr: Fig. 12: one oBBR flow against one BBR, CUBIC or BBRv2 flow.

use report::{BarGroup, Cell, Figure, ReferenceLine, Section, Table};

use super::fig8::{is_obbr, mean};
use crate::reproduce::claims::{claim, Measured, Origin, Paper, Test};
use crate::reproduce::data::metric;
use crate::reproduce::data::seeds_note;
use crate::reproduce::verdict::{mean_sd_cell, paper_name};
use crate::reproduce::{Analysis, Experiment, Runs};
use crate::store::RunRecord;

/// Fig. 12: oBBR against BBR, CUBIC, BBRv2.
pub const COMPETING: Experiment = Experiment {
    id: "fig12-competing",
    scenario: "obbr/fig12-competing.toml",
    series: false,
    analyze: fig12_competing,
};

const FIG12: &str = "§5.2.4, Fig. 12";

claim!(
    GROWS_WITH_MU,
    Paper::Obbr,
    FIG12,
    "obbr.fig12.vs-bbr-grows-with-mu",
    "against BBR in a 0.5 BDP buffer, oBBR's share grows with mu",
    "oBBR (paper's algorithm)",
    "oBBR's share vs BBR at R = 0.5, from each mu to the next",
    "",
    "hardly any; grows with mu",
    Test::direction(),
    "a direction between neighbouring mu",
    Origin::Paper
);
claim!(
    MU1_THIRD,
    Paper::Obbr,
    FIG12,
    "obbr.fig12.vs-bbr-mu1-third",
    "against BBR in a 0.5 BDP buffer, oBBR-1 gets 33% of the bandwidth",
    "oBBR mu 1 (paper's algorithm)",
    "oBBR-1's goodput share vs BBR, R = 0.5",
    "%",
    "33%",
    Test::point(0.33),
    "one share of one two-flow run",
    Origin::Paper
);
claim!(
    MORE_AT_DEEP,
    Paper::Obbr,
    FIG12,
    "obbr.fig12.vs-bbr-more-at-deep",
    "against BBR, every oBBR gets more at R = 1 than at R = 0.5 (BBR is less aggressive)",
    "oBBR (paper's algorithm)",
    "oBBR's share vs BBR, R = 1 above R = 0.5, per mu",
    "",
    "BBR less aggressive at 1 BDP",
    Test::direction(),
    "a direction per mu",
    Origin::Paper
);
claim!(
    HALF_AT_DEEP,
    Paper::Obbr,
    FIG12,
    "obbr.fig12.vs-bbr-mu05-deep",
    "against BBR in a 1 BDP buffer, even oBBR-0.5 gets 40.5% of the bandwidth",
    "oBBR mu 0.5 (paper's algorithm)",
    "oBBR-0.5's goodput share vs BBR, R = 1",
    "%",
    "40.5%",
    Test::point(0.405),
    "one share of one two-flow run",
    Origin::Paper
);
claim!(
    VS_CUBIC_SHALLOW,
    Paper::Obbr,
    FIG12,
    "obbr.fig12.vs-cubic-shallow",
    "against CUBIC in a 0.5 BDP buffer oBBR is aggressive, but less than BBR, which takes almost all",
    "oBBR (paper's algorithm)",
    "oBBR's share vs CUBIC at R = 0.5 above half and below BBR's share vs CUBIC, per mu",
    "",
    "more than half, below BBR's",
    Test::direction(),
    "a direction per mu",
    Origin::Paper
);
claim!(
    CUBIC_DEEP,
    Paper::Obbr,
    FIG12,
    "obbr.fig12.cubic-deep",
    "against oBBR in a 1 BDP buffer CUBIC gets up to 46.6% of the bandwidth",
    "CUBIC vs oBBR",
    "CUBIC's largest share against any oBBR, R = 1",
    "%",
    "46.6%",
    Test::point(0.466),
    "the largest share of one two-flow run",
    Origin::Paper
);
claim!(
    VS_BBR2_SHALLOW,
    Paper::Obbr,
    FIG12,
    "obbr.fig12.vs-bbr2-shallow",
    "against BBRv2 in a 0.5 BDP buffer oBBR behaves as against CUBIC (takes more than half)",
    "oBBR (paper's algorithm)",
    "oBBR's share vs BBRv2 at R = 0.5 above half, per mu",
    "",
    "as against CUBIC",
    Test::direction(),
    "a direction per mu",
    Origin::Paper
);
claim!(
    BBR2_TAKES_MORE_DEEP,
    Paper::Obbr,
    FIG12,
    "obbr.fig12.bbr2-takes-more-deep",
    "in a 1 BDP buffer BBRv2 takes more from oBBR than CUBIC does",
    "BBRv2 vs oBBR",
    "opponent's mean share against oBBR at R = 1, BBRv2 above CUBIC",
    "",
    "BBRv2 takes more (probes RTT more often)",
    Test::direction(),
    "one direction, over the mean of the mu",
    Origin::Paper
);

/// Flow 0's share of the two flows' goodput.
fn first_flow_share(record: &RunRecord) -> Option<f64> {
    let g0 = metric(record, "/flows/0/goodput_bps")?;
    let g1 = metric(record, "/flows/1/goodput_bps")?;
    (g0 + g1 > 0.0).then(|| g0 / (g0 + g1))
}

/// `R = 0.5` for a buffer axis value `0.5bdp`.
fn r_label(buffer: &str) -> String {
    format!("R = {}", buffer.trim_end_matches("bdp"))
}

fn fig12_competing(runs: &Runs) -> Analysis {
    let buffers = runs.axis("link.buffer");
    let opponents = runs.axis("flow.1.cc");
    let ccs = runs.axis("flow.0.cc");
    let obbrs: Vec<String> = ccs.iter().filter(|c| is_obbr(c)).cloned().collect();
    let stat = |b: &str, opp: &str, cc: &str, value: fn(&RunRecord) -> Option<f64>| {
        runs.over_seeds(
            &[("link.buffer", b), ("flow.1.cc", opp), ("flow.0.cc", cc)],
            value,
        )
        .pair()
    };
    let share = |b: &str, opp: &str, cc: &str| stat(b, opp, cc, first_flow_share);
    let jain = |b: &str, opp: &str, cc: &str| stat(b, opp, cc, |r| metric(r, "/jain_index"));

    let categories: Vec<String> = opponents
        .iter()
        .map(|o| format!("vs {}", paper_name(o)))
        .collect();
    let share_figure = |b: &str| {
        Figure::bars(
            format!(
                "Share of the first flow against each opponent, {}",
                r_label(b)
            ),
            "opponent",
            "first flow's goodput share (%)",
            categories.clone(),
            ccs.iter()
                .map(|cc| {
                    let stats: Vec<_> = opponents.iter().map(|o| share(b, o, cc)).collect();
                    BarGroup::new(paper_name(cc), stats.iter().map(|s| s.0 * 100.0).collect())
                        .errors(stats.iter().map(|s| s.1 * 100.0).collect())
                })
                .collect(),
        )
        .y_range(0.0, 100.0)
        .reference(ReferenceLine::horizontal(50.0, "equal share"))
    };

    let mut per_pair = Table::new(
        format!(
            "First flow's goodput share (%) and Jain's index: {}",
            seeds_note(runs)
        ),
        ["R", "opponent", "first flow", "share (%)", "Jain's index"],
    );
    for b in &buffers {
        for o in &opponents {
            for cc in &ccs {
                per_pair = per_pair.row([
                    Cell::text(r_label(b)),
                    Cell::text(paper_name(o)),
                    Cell::text(paper_name(cc)),
                    mean_sd_cell(share(b, o, cc), 100.0, 1, ""),
                    mean_sd_cell(jain(b, o, cc), 1.0, 3, ""),
                ]);
            }
        }
    }

    // The paper's numbers (§5.2.4) and ours. Buffers and opponents are
    // named as the scenario writes them.
    let (shallow, deep) = ("0.5bdp", "1bdp");
    let shares =
        |b: &str, opp: &str| -> Vec<f64> { obbrs.iter().map(|cc| share(b, opp, cc).0).collect() };
    let list = |values: &[f64]| {
        values
            .iter()
            .map(|v| format!("{:.1}", v * 100.0))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let mu_list = obbrs
        .iter()
        .map(|cc| paper_name(cc))
        .collect::<Vec<_>>()
        .join(" / ");
    let opponent_best = |b: &str, opp: &str| {
        shares(b, opp)
            .iter()
            .map(|s| 1.0 - s)
            .fold(f64::NAN, f64::max)
    };
    let mean_opponent_share = |b: &str, opp: &str| {
        mean(
            &shares(b, opp)
                .iter()
                .map(|s| 1.0 - s)
                .filter(|s| s.is_finite())
                .collect::<Vec<_>>(),
        )
        .unwrap_or(f64::NAN)
    };
    let bbr_vs_cubic = share(shallow, "cubic", "bbr").0;
    let paper = Table::new(
        "The paper's numbers (§5.2.4, Fig. 12) and ours",
        ["quantity", "paper", "ours"],
    )
    .row([
        Cell::text(format!("oBBR's share vs BBR, R = 0.5 ({mu_list}, %)")),
        Cell::text("hardly any; grows with mu; oBBR-1: 33%"),
        Cell::text(list(&shares(shallow, "bbr"))),
    ])
    .row([
        Cell::text(format!("oBBR's share vs BBR, R = 1 ({mu_list}, %)")),
        Cell::text("oBBR-0.5: 40.5%"),
        Cell::text(list(&shares(deep, "bbr"))),
    ])
    .row([
        Cell::text(format!("oBBR's share vs CUBIC, R = 0.5 ({mu_list}, %)")),
        Cell::text("aggressive (> 50%), below BBR's"),
        Cell::text(list(&shares(shallow, "cubic"))),
    ])
    .row([
        Cell::text("BBR's share vs CUBIC, R = 0.5"),
        Cell::text("almost all"),
        Cell::percent(bbr_vs_cubic, 1),
    ])
    .row([
        Cell::text("CUBIC's largest share vs oBBR, R = 1"),
        Cell::text("46.6%"),
        Cell::percent(opponent_best(deep, "cubic"), 1),
    ])
    .row([
        Cell::text(format!("oBBR's share vs BBRv2, R = 0.5 ({mu_list}, %)")),
        Cell::text("as against CUBIC"),
        Cell::text(list(&shares(shallow, "bbr2"))),
    ])
    .row([
        Cell::text("opponent's mean share vs oBBR, R = 1: BBRv2 / CUBIC"),
        Cell::text("BBRv2 takes more"),
        Cell::text(format!(
            "{:.1}% / {:.1}%",
            mean_opponent_share(deep, "bbr2") * 100.0,
            mean_opponent_share(deep, "cubic") * 100.0
        )),
    ]);

    let share_of = |b: &str, opp: &str, cc: &str| share(b, opp, cc).0;
    let per_mu = |holds: &dyn Fn(&str) -> bool| {
        let checks: Vec<(String, bool)> =
            obbrs.iter().map(|cc| (paper_name(cc), holds(cc))).collect();
        Measured::conditions(checks)
    };
    let steps = obbrs.windows(2).map(|w| {
        (
            format!("{} to {}", paper_name(&w[0]), paper_name(&w[1])),
            share_of(shallow, "bbr", &w[1]) > share_of(shallow, "bbr", &w[0]),
        )
    });
    let steps: Vec<(String, bool)> = steps.collect();
    let judged = vec![
        GROWS_WITH_MU.judge(Measured::conditions(steps)),
        MU1_THIRD.judge(Measured::Value(share_of(shallow, "bbr", "obbr:mu=1"))),
        MORE_AT_DEEP.judge(per_mu(&|cc| {
            share_of(deep, "bbr", cc) > share_of(shallow, "bbr", cc)
        })),
        HALF_AT_DEEP.judge(Measured::Value(share_of(deep, "bbr", "obbr:mu=0.5"))),
        VS_CUBIC_SHALLOW.judge(per_mu(&|cc| {
            let s = share_of(shallow, "cubic", cc);
            s > 0.5 && s < bbr_vs_cubic
        })),
        CUBIC_DEEP.judge(Measured::Value(opponent_best(deep, "cubic"))),
        VS_BBR2_SHALLOW.judge(per_mu(&|cc| share_of(shallow, "bbr2", cc) > 0.5)),
        BBR2_TAKES_MORE_DEEP.judge(Measured::conditions([(
            "R = 1",
            mean_opponent_share(deep, "bbr2") > mean_opponent_share(deep, "cubic"),
        )])),
    ];
    let section = Section::new(
        "fig12-competing",
        "Fig. 12: one oBBR flow against BBR, CUBIC or BBRv2 (40 Mbit/s, 100 ms, R = 0.5 and 1)",
    )
    .description(
        "Two flows start together, one oBBR (mu 0.5, 0.75, 1) and one opponent; BBR against the same opponents \
         is shown for reference. The paper: against BBR, oBBR hardly gains bandwidth at R = 0.5, more with \
         larger mu (oBBR-1: 33%), and at R = 1 BBR is less aggressive (oBBR-0.5: 40.5%); against CUBIC, oBBR \
         is aggressive in the shallow buffer but yields more than BBR, which takes almost everything, and \
         CUBIC gets up to 46.6% at R = 1; BBRv2 behaves like CUBIC at R = 0.5 and takes more at R = 1 (it \
         probes RTT more often).",
    )
    .figure(share_figure(shallow))
    .figure(share_figure(deep))
    .table(paper)
    .table(per_pair);
    Analysis::judged(
        section,
        judged,
        "oBBR yields to BBR (less so with larger mu and deeper buffers), out-competes CUBIC and BBRv2 in a shallow buffer but less than BBR does.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(summary: serde_json::Value) -> RunRecord {
        RunRecord::new("x".into(), Vec::new(), String::new(), summary)
    }

    #[test]
    fn first_flow_share_of_two_flows() {
        let r = record(serde_json::json!({
            "flows": [{"goodput_bps": 30.0}, {"goodput_bps": 10.0}]
        }));
        assert_eq!(first_flow_share(&r), Some(0.75));
        let idle = record(serde_json::json!({
            "flows": [{"goodput_bps": 0.0}, {"goodput_bps": 0.0}]
        }));
        assert_eq!(first_flow_share(&idle), None);
        assert_eq!(first_flow_share(&record(serde_json::json!({}))), None);
    }

    #[test]
    fn buffer_labels() {
        assert_eq!(r_label("0.5bdp"), "R = 0.5");
    }
}
