//! obbr: Fig. 7 on a model of the authors' nginx-quic stack with its
//! pacer's ACK credit, to ask whether its BBR's retransmissions in Fig. 7
//! (far above a Linux-like BBR's) come from the stack (the stack model
//! without the credit, and Fig. 8 on it, are experiments/obbr/*-nginx-stack.toml).
//!
//! The model takes from the authors' code what the simulator can express:
//! the timer-driven pacer (3 ms, bursts of up to two periods), the initial
//! window of 32 packets, BBR without the 1% pacing margin, the ACK
//! aggregation allowance or the long-term mode; oBBR on the code path over
//! that core. The scenario file lists each with its source.

use report::{BarGroup, Cell, Figure, ReferenceLine, Section, Table};

use super::fig8::mean;
use crate::reproduce::claims::{claim, Measured, Origin, Paper, Test};
use crate::reproduce::data::{metric, seeds_note};
use crate::reproduce::verdict::mean_sd_cell;
use crate::reproduce::{Analysis, Experiment, Runs};

/// Fig. 7's conditions with the stack model and its pacer's ACK credit.
pub const FIG7_PACER: Experiment = Experiment {
    id: "fig7-nginx-pacer",
    scenario: "obbr/fig7-nginx-pacer.toml",
    series: false,
    analyze: fig7_nginx_pacer,
};

const PACER_PLACE: &str = "§5.2.1, Fig. 7 (on the stack model with its pacer's ACK credit: a bracket over a parameter the paper does not give)";

claim!(
    PACER_BBR_RETX_ACK2,
    Paper::Obbr,
    PACER_PLACE,
    "obbr.fig7-pacer.bbr-mean-retx-ack2",
    "BBR retransmits 17.42% on average over Fig. 7 (stack model with the pacer's ACK credit, ACK every 2 packets)",
    "BBR as in ngx_bbr.c, stack model with ACK credit",
    "BBR's retransmission ratio, mean over the seven fig7.sh conditions",
    "%",
    "17.42%",
    Test::point(0.1742),
    "a bracket over a parameter the paper does not give (the client's ACK frequency), on the project's model of the stack",
    Origin::Analysis
);
claim!(
    PACER_BBR_RETX_ACK10,
    Paper::Obbr,
    PACER_PLACE,
    "obbr.fig7-pacer.bbr-mean-retx-ack10",
    "BBR retransmits 17.42% on average over Fig. 7 (stack model with the pacer's ACK credit, ACK every 10 packets)",
    "BBR as in ngx_bbr.c, stack model with ACK credit",
    "BBR's retransmission ratio, mean over the seven fig7.sh conditions",
    "%",
    "17.42%",
    Test::point(0.1742),
    "a bracket over a parameter the paper does not give (the client's ACK frequency), on the project's model of the stack",
    Origin::Analysis
);
claim!(
    PACER_30X_ACK2,
    Paper::Obbr,
    PACER_PLACE,
    "obbr.fig7-pacer.up-to-30x-ack2",
    "oBBR reduces BBR's loss ratio by up to 30x (stack model with the pacer's ACK credit, ACK every 2 packets)",
    "oBBR as tested (any mu), stack model with ACK credit",
    "largest BBR / oBBR retransmission ratio over mu and conditions",
    "x",
    "up to 30x",
    Test::factor(30.0),
    "a bracket over a parameter the paper does not give (the client's ACK frequency); the analysis hands the largest BBR / oBBR ratio",
    Origin::Analysis
);
claim!(
    PACER_30X_ACK10,
    Paper::Obbr,
    PACER_PLACE,
    "obbr.fig7-pacer.up-to-30x-ack10",
    "oBBR reduces BBR's loss ratio by up to 30x (stack model with the pacer's ACK credit, ACK every 10 packets)",
    "oBBR as tested (any mu), stack model with ACK credit",
    "largest BBR / oBBR retransmission ratio over mu and conditions",
    "x",
    "up to 30x",
    Test::factor(30.0),
    "a bracket over a parameter the paper does not give (the client's ACK frequency); the analysis hands the largest BBR / oBBR ratio",
    Origin::Analysis
);

/// What Fig. 7's claims read off the stack model's runs.
struct Cuts {
    /// BBR's retransmission ratio, mean over the conditions.
    bbr_mean: f64,
    /// The largest BBR / oBBR retransmission ratio over mu and conditions.
    largest: f64,
    /// Whether each oBBR retransmits less than BBR, per (mu, condition).
    below: Vec<(String, bool)>,
}

/// [`Cuts`] over the `link` conditions, from `retx(link, spec)` (a mean
/// retransmission ratio, NaN when not run).
fn cuts(links: &[String], ccs: &[String], retx: impl Fn(&str, &str) -> f64) -> Cuts {
    let mut out = Cuts {
        bbr_mean: f64::NAN,
        largest: f64::NAN,
        below: Vec::new(),
    };
    let Some(bbr) = ccs.iter().find(|cc| cc.starts_with("bbr")) else {
        return out;
    };
    let mut bbr_values = Vec::new();
    for link in links {
        let b = retx(link, bbr);
        if !b.is_finite() {
            continue;
        }
        bbr_values.push(b);
        for cc in ccs.iter().filter(|cc| cc.starts_with("obbr")) {
            let o = retx(link, cc);
            if o.is_finite() {
                out.below
                    .push((format!("{} {}", label(cc), condition_label(link)), o < b));
                if o > 0.0 {
                    out.largest = out.largest.max(b / o);
                }
            }
        }
    }
    out.bbr_mean = mean(&bbr_values).unwrap_or(f64::NAN);
    out
}

fn fig7_nginx_pacer(runs: &Runs) -> Analysis {
    let links = runs.axis("link");
    let ccs = runs.axis("flow.0.cc");
    let policies = runs.axis("transport.ack_policy");
    let retx = |policy: &str, link: &str, cc: &str| {
        runs.over_seeds(
            &[
                ("transport.ack_policy", policy),
                ("link", link),
                ("flow.0.cc", cc),
            ],
            |r| metric(r, "/flows/0/retransmission_ratio"),
        )
        .pair()
    };
    let mut table = Table::new(
        format!(
            "Retransmission ratio (%) with the pacer's ACK credit ({})",
            seeds_note(runs)
        ),
        ["ACK policy".to_string(), "condition".to_string()]
            .into_iter()
            .chain(ccs.iter().map(|cc| label(cc))),
    );
    let summary = |policy: &str| {
        let c = cuts(&links, &ccs, |l, cc| retx(policy, l, cc).0);
        (c.bbr_mean, c.largest)
    };
    for policy in &policies {
        for link in &links {
            table = table.row(
                [
                    Cell::text(policy.clone()),
                    Cell::text(condition_label(link)),
                ]
                .into_iter()
                .chain(
                    ccs.iter()
                        .map(|cc| mean_sd_cell(retx(policy, link, cc), 100.0, 2, "")),
                ),
            );
        }
    }
    let figure = Figure::bars(
        format!(
            "BBR and oBBR-0.5 with the pacer's ACK credit ({})",
            seeds_note(runs)
        ),
        "condition",
        "retransmitted / delivered (%)",
        links.iter().map(|l| condition_label(l)),
        {
            let mut groups = Vec::new();
            for p in &policies {
                for cc in ccs
                    .iter()
                    .filter(|cc| cc.starts_with("bbr") || cc.contains("mu=0.5"))
                {
                    groups.push(BarGroup::new(
                        format!("{}, ACK {p}", label(cc)),
                        links.iter().map(|l| retx(p, l, cc).0 * 100.0).collect(),
                    ));
                }
            }
            groups
        },
    )
    .log_y()
    .reference(ReferenceLine::horizontal(17.42, "paper: BBR's mean 17.42%"));
    let value = |policy: &str, pick: fn((f64, f64)) -> f64| {
        if policies.iter().any(|p| p == policy) {
            Measured::Value(pick(summary(policy)))
        } else {
            Measured::NotRun(format!("this sweep has no ACK policy {policy}"))
        }
    };
    let section = Section::new(
        "fig7-nginx-pacer",
        "Fig. 7 on the stack model with its pacer's ACK credit: one datagram per ACK past the pacing rate",
    )
    .description(
        "The stack model of the section above plus one trait of the authors' pacer: every output run \
         tops its budget up by the packet it last refused, and output runs once per ACK, so each ACK \
         lets a datagram out past the pacing rate (ngx_quic_create_datagrams() and ngx_pacing.c). BBR \
         then runs on its cwnd (2 BDP) into a 0.25 BDP buffer and drops continuously; oBBR's adaptive \
         cwnd gain caps the window at the buffer and barely notices. How many datagrams the credit adds \
         depends on the client's ACK frequency, which the paper does not give: ACKs every 2 packets \
         (RFC 9000's default, Chromium's first 100 packets) and every 10 (Chromium's decimation) are \
         both run, and each claim is judged at each.",
    )
    .figure(figure)
    .table(table);
    Analysis::judged(
        section,
        vec![
            PACER_BBR_RETX_ACK2.judge(value("every-2", |s| s.0)),
            PACER_BBR_RETX_ACK10.judge(value("every-10", |s| s.0)),
            PACER_30X_ACK2.judge(value("every-2", |s| s.1)),
            PACER_30X_ACK10.judge(value("every-10", |s| s.1)),
        ],
        "With its pacer's ACK credit the stack model gives the paper's BBR and its 30x cut.",
    )
}

/// The condition's label: rate, RTT, buffer and loss of a `link` axis value.
fn condition_label(link: &str) -> String {
    let field = |key: &str| {
        link.split(',')
            .find_map(|part| {
                let (k, v) = part.split_once('=')?;
                (k.trim().trim_start_matches('{').trim() == key).then(|| {
                    v.trim()
                        .trim_end_matches('}')
                        .trim()
                        .trim_matches('"')
                        .to_string()
                })
            })
            .unwrap_or_default()
    };
    format!(
        "{}, {}, {}, loss {}",
        field("rate"),
        field("rtt"),
        field("buffer"),
        field("loss")
    )
}

/// "BBR" or "oBBR-0.5": the stack model's specs by their algorithm and mu.
fn label(spec: &str) -> String {
    match spec.split_once("mu=") {
        Some((_, rest)) => format!("oBBR-{}", rest.split(',').next().unwrap_or(rest)),
        None => "BBR".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_and_controllers_are_named() {
        let link =
            r#"{ rate = "40Mbit", rtt = "100ms", buffer = "125KB", burst = "100KB", loss = "2%" }"#;
        assert_eq!(condition_label(link), "40Mbit, 100ms, 125KB, loss 2%");
        assert_eq!(label("obbr:mu=0.75,code=true,pacing_margin=0"), "oBBR-0.75");
        assert_eq!(label("bbr:lt_bw=false"), "BBR");
    }
}
