//! Modest BBR (Zhang, Cui and Tso, "Modest BBR: Enabling better fairness
//! for BBR congestion control", IEEE ISCC 2018), as the BBR-CWS paper
//! re-implemented it for its comparison: Kim, Song and Cho, "BBR-CWS: BBR
//! congestion window scaling", MDPI Electronics 2020, §5.2, Algorithm 2 and
//! Table 1. Like the BBR-CWS authors, this module follows Algorithm 2 only
//! (the original paper's code is not public).
//!
//! # The idea
//!
//! BBRv1 does not answer retransmissions, so in a shallow buffer it keeps
//! overflowing it and starves loss-based flows. Modest BBR answers a
//! retransmission the way BIC does: a *binary search* for the largest
//! window that does not cause retransmissions, between a lower bound
//! `min_win = Wmin x cwnd` and an upper bound that starts between that and
//! the window that lost; once the bracket is narrower than `Smin`, a
//! *linear phase* grows the window by `Smin` per ACK back to the window
//! that lost, after which BBR's own window rules apply again until the next
//! retransmission.
//!
//! # State machine (Algorithm 2; `bin_p`, `add_p` are the paper's flags)
//!
//! ```text
//!          retransmission: last_cwnd = cwnd, min_win = Wmin x cwnd,
//!                          max_win = Wmax x cwnd, cwnd = max_win
//!   Idle ---------------------------------------------------> BinarySearch (bin_p)
//!    ^                                                          |  retransmission:
//!    |                                                          |    max_win = mid, cwnd = max_win
//!    |                                                          |  a round without:
//!    |                                                          |    min_win = mid, cwnd = min_win
//!    |   cwnd > last_cwnd           max_win - min_win <= Smin   v
//!    +------------------------- Linear (add_p) <----------------+
//!                               cwnd += Smin per ACK
//! ```
//!
//! (`mid = (max_win + min_win) / 2`.) A retransmission in the linear phase
//! starts a new search (line 1: `bin_p = 0` there).
//!
//! # What differs from the parent (BBRv1, [`crate::bbr`])
//!
//! Only the [`LossReaction`] extension point. While a search or a linear
//! phase runs, Modest BBR's window caps BBR's: the target window, the
//! window set on entering recovery and the packet-conservation window are
//! all limited to it. Outside those phases the flow is BBRv1.
//!
//! # Reading Algorithm 2, and the choices made
//!
//! - **Line 4 reads `min_win = cwnd x wmax`** although Table 1 defines
//!   `Wmin` as the "minimum window scale factor" and `min_win` as the lower
//!   bound; and line 5 fixes `max_win = (cwnd + min_win) / 2`, leaving
//!   `Wmax` unused. Both factors of Table 1 are kept: `min_win = Wmin x
//!   cwnd` and `max_win = Wmax x cwnd`. With the defaults `Wmin = 0.5`,
//!   `Wmax = 0.75 = (1 + Wmin) / 2`, this is exactly lines 4-5.
//! - **Line 17 reads `bin_p = 1`**; it must be `bin_p = 0`, or the search
//!   would never end and line 1 (a new search) could never run again.
//! - **What "retransmission occurs" means, and how often the search
//!   steps.** A search step per ACK would halve the bracket a dozen times
//!   within one round trip, before the network could show the effect of any
//!   of those windows. As in BIC, whose phases Modest BBR borrows, a step is
//!   taken once per round trip: immediately when a retransmission occurs
//!   (the transport entered a new loss recovery period, so all losses of
//!   one window count once, the way TCP counts congestion events), and at
//!   the end of every packet-timed round without one.
//! - **The search as printed.** On a round without retransmission the lower
//!   bound moves up to the midpoint and cwnd is set *to that bound*, so
//!   right after the first cut a clean round lowers cwnd from `max_win` to
//!   the midpoint before it climbs back towards `max_win`. This is
//!   implemented as printed (a BIC search would move the bound to the
//!   window just tested instead).
//! - **The linear phase** adds `Smin` per ACK (line 21), as printed, while
//!   the window is at most `last_cwnd`; once above, the cap is lifted.
//! - **Leaving recovery** restores the pre-recovery window as in BBRv1, but
//!   the cap applies on the same ACK, so nothing above Modest BBR's window
//!   is ever sent.
//!
//! # Parameters (`modest-bbr:wmin=0.5,wmax=0.75,smin=0.01`)
//!
//! The paper leaves `Wmin`, `Wmax` and `Smin` open. The choices:
//!
//! - `wmin = 0.5`: BBR keeps cwnd near `2 BDP`, so half of it is one BDP,
//!   the smallest window that still fills the pipe by itself; searching
//!   below it would cost throughput, which Zhang et al. report Modest BBR
//!   does not lose.
//! - `wmax = 0.75`: makes the first probe the midpoint of `[min_win, cwnd]`,
//!   as line 5 prescribes.
//! - `smin = 0.01` packet: Table 1 calls `Smin` "the minimum increase
//!   step", BIC's name for its minimum per-round increment, and Algorithm 2
//!   borrows BIC's phases (§5.2); BIC's minimum increment is a hundredth of a
//!   packet. Added per ACK, it grows the window by about a quarter of a
//!   packet per round trip at the paper's 50 Mbit/s x 10 ms with delayed
//!   ACKs, the pace of Linux BIC's slowest regime near its target (one
//!   packet per five windows of ACKs): a genuinely *linear* phase. With a
//!   whole packet per ACK instead, the "linear" phase grows the window by
//!   half of it per round, as fast as BBR's own growth, so the cap is gone
//!   before the next ProbeBW probe and Modest BBR changes nothing. Measured
//!   in `crates/sim/tests/cws.rs`' setting (50 Mbit/s, 10 ms, 0.5 BDP):
//!   `smin=1` retransmits 99% of BBRv1's bytes alone and reaches Jain 0.57
//!   against CUBIC (BBRv1: 0.57); `smin=0.01` retransmits 10% of BBRv1's
//!   bytes at 99.6% of its goodput and reaches Jain 0.76, matching what the
//!   paper reports for Modest BBR (up to 75% fewer retransmissions, §5.3;
//!   Jain 0.6-0.85 against CUBIC in shallow buffers, Fig. 13a), though from
//!   CUBIC's side: CUBIC takes about 37 of 48 Mbit/s. The bracket that ends
//!   the search is then 15 bytes: about a dozen rounds of search after a
//!   retransmission. Because the step is per ACK, the linear phase grows
//!   the window by `smin / 2` of itself per RTT, so in packets per RTT its
//!   growth scales with the BDP: at 40 ms the same `smin` shares a shallow
//!   buffer evenly with CUBIC. Above 1 BDP any cap can only lower BBRv1's
//!   share, which there is already at or below CUBIC's (docs/ALGORITHMS.md,
//!   Modest BBR, "Above 1 BDP").
//!
//! | name | default | range | meaning |
//! |---|---|---|---|
//! | `wmin` | 0.5 | 0.1..0.95 | lower search bound, as a fraction of the window that lost |
//! | `wmax` | 0.75 | 0.1..1 | first upper search bound, same units (raised to `wmin` if below) |
//! | `smin` | 0.01 | 0.001..64 | packets: bracket width that ends the search, and the linear phase's step per ACK |
//!
//! and the parent's `cwnd_gain`, `lt_bw`, `extra_acked`.

use crate::bbr::extension::{AckContext, Extensions, LossReaction};
use crate::bbr::{Bbr, BbrParams};
use crate::controller::ControllerConfig;
use crate::spec::AlgorithmInfo;
use crate::units::Bytes;

crate::params! {
    /// Modest BBR's tunables (Table 1); `Default` is the values chosen for
    /// bbrlab (the paper gives none); see the module docs.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct ModestParams {
        /// `Wmin`: the search's lower bound as a fraction of the window that lost.
        pub wmin: f64 ["wmin", 0.1..=0.95] = 0.5
            => "Wmin: lower binary-search bound = Wmin x the cwnd that saw a retransmission",
        /// `Wmax`: the search's first upper bound as a fraction of that window.
        pub wmax: f64 ["wmax", 0.1..=1.0] = 0.75
            => "Wmax: first upper search bound = Wmax x that cwnd (0.75 = Algorithm 2's (cwnd + min_win)/2 with Wmin 0.5)",
        /// `Smin`, in packets: the bracket width that ends the search and the
        /// linear phase's step per ACK.
        pub smin_packets: f64 ["smin", 0.001..=64.0] = 0.01
            => "Smin in packets: search ends when max_win - min_win <= Smin; linear phase adds Smin per ACK",
    }
}

/// Registry entry for `modest-bbr`: its own parameters, then the BBRv1
/// core's (`parent`) but `pacing_margin`.
pub fn info(parent: &AlgorithmInfo) -> AlgorithmInfo {
    AlgorithmInfo::new(
        "modest-bbr",
        "Modest BBR (Zhang et al. 2018, as in BBR-CWS Alg. 2): binary search then linear increase on retransmission",
        |spec, config| {
            Box::new(new_modest_bbr(
                spec.as_str(),
                BbrParams::from_spec(spec),
                ModestParams::from_spec(spec),
                config,
            ))
        },
    )
    .display_name("Modest BBR")
    .param_table(ModestParams::params())
    .inherit(parent)
    .without(&["pacing_margin"])
}

/// A BBRv1 core running Modest BBR's loss reaction.
pub fn new_modest_bbr(
    spec: &str,
    bbr: BbrParams,
    modest: ModestParams,
    config: &ControllerConfig,
) -> Bbr {
    let ext = Extensions {
        loss_reaction: Box::new(ModestLossReaction::new(modest, config.max_datagram_size)),
        ..Extensions::default()
    };
    Bbr::with_extensions(spec, bbr, config, ext)
}

/// Where Algorithm 2 is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Neither flag set: BBRv1's window rules.
    Idle,
    /// `bin_p = 1`: binary search between `min_win` and `max_win`.
    BinarySearch,
    /// `add_p = 1`: linear increase back to `last_cwnd`.
    Linear,
}

impl Phase {
    /// The phase's name in traces.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Idle => "idle",
            Phase::BinarySearch => "binary_search",
            Phase::Linear => "linear",
        }
    }
}

/// Algorithm 2 as a [`LossReaction`].
#[derive(Clone, Debug)]
pub struct ModestLossReaction {
    params: ModestParams,
    smin: Bytes,
    phase: Phase,
    last_cwnd: Bytes,
    min_win: Bytes,
    max_win: Bytes,
    /// Modest BBR's cwnd (Algorithm 2's `cwnd`), a cap on BBR's.
    window: Bytes,
}

impl ModestLossReaction {
    /// A reaction in the idle phase; `mss` is the packet `Smin` counts in.
    pub fn new(params: ModestParams, mss: Bytes) -> Self {
        ModestLossReaction {
            params,
            smin: mss.mul_f64(params.smin_packets).max(Bytes(1)),
            phase: Phase::Idle,
            last_cwnd: Bytes::ZERO,
            min_win: Bytes::ZERO,
            max_win: Bytes::ZERO,
            window: Bytes::MAX,
        }
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Modest BBR's window while a search or linear phase runs.
    pub fn window(&self) -> Option<Bytes> {
        (self.phase != Phase::Idle).then_some(self.window)
    }

    /// The search bracket `(min_win, max_win)`.
    pub fn bracket(&self) -> (Bytes, Bytes) {
        (self.min_win, self.max_win)
    }

    /// The window that saw the retransmission starting the current search.
    pub fn last_cwnd(&self) -> Bytes {
        self.last_cwnd
    }

    fn mid(&self) -> Bytes {
        let sum = u128::from(self.min_win.get()) + u128::from(self.max_win.get());
        Bytes((sum / 2) as u64)
    }

    /// Lines 1-6.
    fn start_search(&mut self, cwnd: Bytes) {
        self.phase = Phase::BinarySearch;
        self.last_cwnd = cwnd;
        self.min_win = cwnd.mul_f64(self.params.wmin);
        self.max_win = cwnd.mul_f64(self.params.wmax.max(self.params.wmin));
        self.window = self.max_win;
    }

    /// Lines 15-18 (with line 17's `bin_p = 0`).
    fn check_converged(&mut self) {
        if self.max_win.saturating_sub(self.min_win) <= self.smin {
            self.phase = Phase::Linear;
        }
    }

    /// Lines 1-19 for one step: `retransmission` says whether this step
    /// follows a retransmission or a clean round.
    fn step(&mut self, cwnd: Bytes, retransmission: bool) {
        match (self.phase, retransmission) {
            (Phase::Idle | Phase::Linear, true) => self.start_search(cwnd),
            (Phase::BinarySearch, true) => {
                self.max_win = self.mid();
                self.window = self.max_win;
            }
            (Phase::BinarySearch, false) => {
                self.min_win = self.mid();
                self.window = self.min_win;
            }
            (Phase::Idle | Phase::Linear, false) => return,
        }
        self.check_converged();
    }

    fn cap(&self, cwnd: Bytes) -> Bytes {
        match self.phase {
            Phase::Idle => cwnd,
            _ => cwnd.min(self.window),
        }
    }
}

impl LossReaction for ModestLossReaction {
    fn on_ack(&mut self, ctx: &AckContext) {
        if ctx.recovery_entered {
            self.step(ctx.cwnd, true);
        } else if ctx.round_start {
            self.step(ctx.cwnd, false);
        }
        // Lines 20-24.
        if self.phase == Phase::Linear && ctx.event.newly_acked > Bytes::ZERO {
            if self.window <= self.last_cwnd {
                self.window = self.window.saturating_add(self.smin);
            } else {
                self.phase = Phase::Idle;
            }
        }
    }

    fn recovery_cwnd(&mut self, _ctx: &AckContext, conservative: Bytes) -> Bytes {
        self.cap(conservative)
    }

    fn conservation_cwnd(
        &self,
        _ctx: &AckContext,
        cwnd: Bytes,
        inflight_plus_acked: Bytes,
    ) -> Bytes {
        self.cap(cwnd.max(inflight_plus_acked))
    }

    fn limit_target(&self, _ctx: &AckContext, target: Bytes) -> Bytes {
        self.cap(target)
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        let phase = match self.phase {
            Phase::Idle => 0.0,
            Phase::BinarySearch => 1.0,
            Phase::Linear => 2.0,
        };
        out.push(("modest_phase", phase));
        out.push(("modest_window", self.window().map_or(0.0, Bytes::as_f64)));
        out.push(("modest_min_win", self.min_win.as_f64()));
        out.push(("modest_max_win", self.max_win.as_f64()));
        out.push(("modest_last_cwnd", self.last_cwnd.as_f64()));
    }
}

#[cfg(test)]
mod tests;
