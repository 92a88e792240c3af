//! The `quick` suite: one experiment from each paper, and the Q_r model.

use report::{Cell, Line, Section, Table};

use super::data::{metric, Runs};
use super::obbr::fig3;
use super::{Analysis, EmbeddedFile, Entry, Experiment, Retargeted};
use crate::model;

/// The experiments, in report order.
pub static EXPERIMENTS: &[Entry] = &[
    Entry::Rust(Experiment {
        id: "buffer-share",
        scenario: "quick/buffer-share.toml",
        series: false,
        analyze: buffer_share,
    }),
    Entry::Rust(Experiment {
        id: "stable-links",
        scenario: "quick/stable-links.toml",
        series: false,
        analyze: stable_links,
    }),
    Entry::Rust(Experiment {
        id: "bandwidth-drop",
        scenario: "quick/bandwidth-drop.toml",
        series: true,
        analyze: bandwidth_drop,
    }),
    Entry::FileOn(Retargeted {
        file: EmbeddedFile {
            path: "experiments/cws/fig13-fairness.toml",
            text: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../experiments/cws/fig13-fairness.toml"
            )),
            dir: None,
        },
        id: "cws-fairness",
        title: "BBR-CWS Fig. 13: fairness with CUBIC over buffer size (10 ms)",
        scenario: "quick/cws-fairness.toml",
        description: "One BBR-family flow against one CUBIC flow. The paper: BBR-CWS keeps Jain's index \
            high from 0.2 to 6 BDP, where BBR starves CUBIC in shallow buffers; Modest BBR sits between \
            them (claims). The quick tour runs 10 ms only, so the 40 ms claims are not run here.",
        all_reproduced: "BBR-CWS stays fair to CUBIC at every buffer size, unlike BBR.",
    }),
    Entry::FileOn(Retargeted {
        file: EmbeddedFile {
            path: "experiments/bbr2/goodput-under-loss.toml",
            text: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../experiments/bbr2/goodput-under-loss.toml"
            )),
            dir: None,
        },
        id: "bbr2-loss",
        title: "Drucker et al. Fig. 7: BBR, BBRv2 and adaptive BBRv2 under random loss",
        scenario: "quick/bbr2-loss.toml",
        description: "100 Mbit/s, 100 ms, 2 MB buffer, 120 s (the paper: 500 Mbit/s, five minutes; see the bbr2 suite). \
            BBRv2's long-term bound inflight_hi is cut on every round with more than 2% loss and ratchets down; \
            the paper's adaptive BBRv2 resets it at every PROBE_REFILL. Our adaptive BBRv2 does not reproduce the \
            paper's recovery (docs/ALGORITHMS.md explains why). The quick tour runs no BBRv2 without upper bound, \
            so its claim is not run here.",
        all_reproduced: "BBRv2 collapses under loss; without its long-term bound or with the adaptive reset it keeps BBR-like goodput and retransmits less than BBR.",
    }),
];

/// oBBR Fig. 3 (left) and Eq. 1: BBR's share against CUBIC over buffer size.
fn buffer_share(runs: &Runs) -> Analysis {
    let buffers = runs.axis("link.buffer");
    let r_of = super::data::buffer_bdp;
    let mut ours = Vec::new();
    let mut claim_points = Vec::new();
    let mut table = Table::new(
        "BBR's goodput share against CUBIC (g = 2, 20 Mbit/s, 40 ms)",
        [
            "R (BDP)",
            "model p*",
            "model 1 - p*",
            "ours: BBR share",
            "ours: loss ratio",
        ],
    );
    for b in &buffers {
        let Some(run) = runs.one(&[("link.buffer", b)]) else {
            continue;
        };
        let (Some(g0), Some(g1)) = (
            metric(run, "/flows/0/goodput_bps"),
            metric(run, "/flows/1/goodput_bps"),
        ) else {
            continue;
        };
        let r = r_of(b);
        let share = g0 / (g0 + g1);
        let loss = metric(run, "/flows/0/loss_ratio").unwrap_or(f64::NAN);
        ours.push((r, share));
        claim_points.push((r, share, loss));
        let p = model::converge_point(2.0, r);
        table = table.row([
            Cell::fixed(r, 1),
            Cell::fixed(p, 3),
            Cell::fixed(1.0 - p, 3),
            Cell::percent(share, 1),
            Cell::percent(loss, 2),
        ]);
    }
    let rs: Vec<f64> = buffers.iter().map(|b| r_of(b)).collect();
    let shares = fig3::share_figure(
        "BBR's share vs the model's converge point",
        "buffer R (BDP)",
        vec![Line::new("ours: BBR share", ours.clone())],
        &rs,
        |r| model::converge_point(2.0, r),
    );
    let qr = fig3::qr_figure();
    let section = Section::new("buffer-share", "oBBR Fig. 3 and Eq. 1: BBR's share of a buffer shared with CUBIC")
        .description(
            "The paper's model (Eq. 1) predicts BBR's occupied ratio Q_r of a buffer shared with loss-based flows; \
             where Q_r meets 1 - p the buffer is full: the converge point p* = (R-g+1)/(gR). The paper marks that \
             value as BBR's expected proportion, but only 1 - p* falls with R as Fig. 3's bars do; both are drawn. \
             The paper: BBR's share falls as R grows and stays below the converge point; at R = 0.5 BBR dominates.",
        )
        .figure(qr)
        .figure(shares)
        .table(table);
    Analysis::judged(
        section,
        fig3::buffer_claims(&claim_points),
        "BBR's share falls with R, dominates at 0.5 BDP, and stays below the model's converge point.",
    )
}

/// oBBR Fig. 7 (40 Mbit/s, 100 ms): the obbr suite's long-link analysis
/// and claims, on shorter transfers.
fn stable_links(runs: &Runs) -> Analysis {
    super::obbr::fig7::long_link(
        runs,
        "stable-links",
        "oBBR Fig. 7: one flow over a shallow, bursty buffer (40 Mbit/s, 100 ms, R = 0.25)",
    )
}

/// oBBR Fig. 4: the obbr suite's analysis and claims, on the drop to 5 Mbit/s.
fn bandwidth_drop(runs: &Runs) -> Analysis {
    super::obbr::fig4::drop_analysis(
        runs,
        "bandwidth-drop",
        "oBBR Fig. 4: a bandwidth drop (20 to 5 Mbit/s at 10 s, 100 ms, 200 KB)",
    )
}
