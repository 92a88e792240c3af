//! The `quick` suite: one experiment from each paper (the first with the Eq. 1 model beside it).

use super::{EmbeddedFile, Entry, Retargeted};

/// The experiments, in report order.
pub static EXPERIMENTS: &[Entry] = &[
    Entry::FileOn(Retargeted {
        file: EmbeddedFile {
            path: "experiments/obbr/fig3-buffer.toml",
            text: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../experiments/obbr/fig3-buffer.toml"
            )),
            dir: None,
        },
        id: "buffer-share",
        title: "oBBR Fig. 3 and Eq. 1: BBR's share of a buffer shared with CUBIC",
        scenario: "quick/buffer-share.toml",
        description: "One BBR flow (g = 2) and one CUBIC flow, 20 Mbit/s, 40 ms, buffers of 0.5 to 16 BDP; \
            goodput over 80 s after 10 s (the paper: 7 minutes after 60 s). The paper's model (Eq. 1) predicts \
            BBR's occupied ratio Q_r of a buffer shared with loss-based flows; where Q_r meets 1 - p the \
            buffer is full: the converge point p* = (R-g+1)/(gR). The paper marks that value as BBR's \
            expected proportion, but only 1 - p* falls with R as Fig. 3's bars do; the table gives both. \
            The paper: BBR's share falls as R grows and stays below the converge point; at R = 0.5 BBR \
            dominates.",
        all_reproduced: "BBR's share falls with R, dominates at 0.5 BDP, and stays below the model's converge point.",
    }),
    Entry::FileOn(Retargeted {
        file: EmbeddedFile {
            path: "experiments/obbr/fig7-long-link.toml",
            text: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../experiments/obbr/fig7-long-link.toml"
            )),
            dir: None,
        },
        id: "stable-links",
        title: "oBBR Fig. 7: one flow over a shallow, bursty buffer (40 Mbit/s, 100 ms, R = 0.25)",
        scenario: "quick/stable-links.toml",
        description: "One flow per controller, 1 GB transfers as in the paper (runs that cannot finish stop at \
            600 s, and the table counts the transfers completed), R = 0.25, 100 KB tc burst, 0/1/2% random \
            loss, one seed. The paper's nginx-quic BBR retransmits far more than our BBR, which follows Linux \
            (its mean over Fig. 7 is in the claims), so BBR / oBBR ratios are smaller here even where oBBR's \
            own numbers are close. The last controller is oBBR as the paper's testbed ran it: the authors' \
            May 2023 code.",
        all_reproduced: "oBBR cuts BBR's retransmissions five-fold at BBR's goodput; CUBIC and BBRv2 collapse under loss.",
    }),
    Entry::FileOn(Retargeted {
        file: EmbeddedFile {
            path: "experiments/obbr/fig4-drop.toml",
            text: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../experiments/obbr/fig4-drop.toml"
            )),
            dir: None,
        },
        id: "bandwidth-drop",
        title: "oBBR Fig. 4: a bandwidth drop (20 to 5 Mbit/s at 10 s, 100 ms, 200 KB)",
        scenario: "quick/bandwidth-drop.toml",
        description: "One flow of BBR or oBBR (mu 0.5); the bandwidth drops from 20 to 5 Mbit/s at 10 s \
            (100 ms, 200 KB buffer, 25 s). BBR's max filter keeps the old bandwidth for about ten rounds: \
            the queue fills, RTT climbs and packets are lost until the estimate falls; oBBR replaces it \
            after k = 30 low samples. The quick tour runs the drop to 5 Mbit/s only, so the claims about \
            the drop to 2 Mbit/s are not run here.",
        all_reproduced: "BBR keeps sending into the smaller pipe until its estimate expires, queueing and losing; oBBR follows the drop sooner and loses less.",
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
