//! B3R ("Bottleneck Bandwidth, Buffer and RTT"): BBRv1 that classifies the
//! bottleneck queue as small or large and, behind a small one, probes with a
//! pacing gain it lowers on loss.
//!
//! # Sources
//!
//! - The B3R paper: Singhania, Arif and Sen, "B3R: A New Approach to BBR
//!   Congestion Control for Shallow Buffers", ACTS 2021 (the oBBR paper's
//!   reference \[44\]). Only its introduction was available to us; nothing
//!   below is taken from the paper's body.
//! - The author's Linux module, `b3r.c` in github.com/TarunSinghania/B3R
//!   (commit c74f5e7a0084903f35fa73684d6809f6179e6e2f, `MODULE_AUTHOR`
//!   Tarun Singhania), a copy of `tcp_bbr.c` with B3R's changes. The full
//!   version here follows that module (learned from, not copied).
//! - The oBBR paper §5.1 (B3R "adjusts `pacing_gain` to regulate the sending
//!   rate in the ProbeBW phase. It aims at reducing the packet loss ratio
//!   when the bottleneck buffer is shallow") and its code (bpq233/oBBR,
//!   `nginx-quic/src/event/quic/ngx_bbr.c`, `ngx_bbr_on_ack`), which
//!   re-implements a simplified B3R: the `simple=true` variant.
//!
//! # The full version (default), after the author's module
//!
//! B3R runs BBRv1 ([`crate::bbr`]) unchanged except for ProbeBW, where it
//! keeps a *queue class*:
//!
//! ```text
//!   Startup/Drain ──(enter ProbeBW)──> Unknown ──(3 cycles observed)──> Small | Large
//!                                         ^                                  |
//!                                         └───────(ProbeRTT ends)────────────┘
//! ```
//!
//! - **Unknown** (classification): every entry into ProbeBW -- after Drain
//!   and after each ProbeRTT -- starts it. The flow runs Linux's gain cycle
//!   (probe 1.25) for three cycles, counting the *lossy cycles*: cycles with
//!   a loss during their probe (1.25) or drain (0.75) phase. The module
//!   counts a cycle when its drain phase ends and classifies at the next
//!   phase change after the third. With `max_rtt` the maximum RTT sample of
//!   the last 30 s (reset to min_rtt when no sample has raised it for 30 s):
//!   - `max_rtt > 1.5 min_rtt` (a queue of half a BDP or more has been
//!     seen): **Large**, with the *loss flag* set iff 2 or more cycles were
//!     lossy;
//!   - else, all 3 cycles lossy: **Small**;
//!   - else: **Large** (loss flag clear).
//! - **Small**: the probe phase paces at `gain_num / 40` instead of 1.25,
//!   `gain_num` in [42, 50] (gain 1.05 .. 1.25), starting at 50 and kept
//!   across reclassifications. A loss during the probe phase takes 4 off
//!   `gain_num`, during the drain phase 2 (at most one cut per phase); a
//!   cycle whose probe and drain phases saw no loss adds 2 when its drain
//!   phase ends. The new gain takes effect at the next probe phase (the
//!   module writes its gain array; the phase latches the gain when it
//!   starts). Phases end by Linux's rules.
//! - **Large**: Linux's gains, and the *probe duration rule*: with
//!   `queue_delay = max_rtt - min_rtt`, a phase that is "long enough" has
//!   run `queue_delay / 8` (min_rtt when queue_delay is 0) instead of
//!   min_rtt:
//!   - probe (gain > 1): long enough, and a loss or inflight >= the probe's
//!     target, as in Linux;
//!   - drain (gain < 1), if `queue_delay < 1.5 min_rtt`: long enough or
//!     inflight <= 15/16 of the BDP target; with the loss flag set, instead
//!     at least min_rtt *and* inflight <= 15/16 of the target (drain harder
//!     when losses were seen despite a deep queue);
//!   - drain otherwise: long enough or inflight <= the BDP target;
//!   - cruise phases (gain 1): min_rtt, as in Linux.
//!
//! # The simple version (`simple=true`), after the oBBR code
//!
//! `gum` in [42, 50], starting at 50; on every ACK, in every mode: an ACK
//! that reports a loss sets `gum = max(42, gum - 2)` and restarts a timer; an
//! ACK more than min_rtt after the last loss sets `gum = min(50, gum + 2)`.
//! The ProbeBW probe phase paces at `gum / 40`, latched when the phase
//! starts. No queue classification; phases end by Linux's rules.
//!
//! # Parameters
//!
//! | name | default | meaning |
//! |---|---|---|
//! | `simple` | false | the oBBR code's simplified B3R instead of the author's |
//! | `literal_code` | false | reproduce the reference code's gain-array bookkeeping (below) |
//! | `cwnd_gain`, `lt_bw`, `extra_acked` | 2, true, true | the BBRv1 core's ([`crate::bbr::BbrParams`]) |
//!
//! The constants (gain numerators 42/50, steps 4/2/2, 3 classification
//! cycles, the 1.5 RTT ratio, 30 s max-RTT window, `queue_delay / 8`,
//! 15/16) are the module's and not parameters.
//!
//! # Deviations, and why
//!
//! - Per-connection state. Both reference codes keep gain state in
//!   process-wide variables (the author's `B3R_pacing_gain[]` array and
//!   `max_rtt_stamp`, the oBBR code's `gum`, `b3r_timer` and
//!   `ngx_bbr_pacing_gain[]`), so concurrent connections disturb each other.
//! - `literal_code=false` (default) applies the gain the algorithms describe;
//!   `literal_code=true` reproduces two artefacts of how the codes store it:
//!   - author's module: entering classification resets the gain array to
//!     1.25 and entering Small does not rewrite it, so after every
//!     reclassification the probe runs at 1.25 until the next `gain_num`
//!     change (which never comes while every cycle is lossy and `gain_num`
//!     sits at its floor). Default: Small probes at `gain_num / 40` at once.
//!   - oBBR code: the `+2` branch updates `gum` but not the gain array, so
//!     the probe gain only changes on lossy ACKs (to the decremented `gum`).
//!     Default: the probe gain is `gum / 40`, as papers/README.md states.
//! - The module's guard `gain_num > 42` lets a 4-step cut from 44 reach 40
//!   (gain 1.0, which turns the probe into a cruise phase); `gain_num` is
//!   clamped at 42 here, the floor the guard and the oBBR code's [42, 50]
//!   express.
//! - The module enters ProbeBW at a fixed phase for classification, picks a
//!   new random phase when it classifies (and advances once more); here the
//!   core's cycle runs on (it starts at Linux's random phase) and only the
//!   class changes. Phases are told apart by index (0 probe, 1 drain).
//! - Leaving the long-term (policer) mode re-enters the module's current
//!   class (Small stays Small, otherwise Large); here the class is kept.
//! - RTT samples are QUIC's latest RTT (ACK delay included), the analogue of
//!   the module's `rs->rtt_us`.

use std::time::Duration;

use crate::bbr::extension::{AckContext, Extensions, PhaseContext, ProbeGainPolicy};
use crate::bbr::{Bbr, BbrParams, Mode};
use crate::controller::ControllerConfig;
use crate::spec::{AlgorithmInfo, AlgorithmSpec};
use crate::units::{Bytes, Instant};

/// Probe gains are `num / GAIN_DENOMINATOR`.
pub const GAIN_DENOMINATOR: u64 = 40;
/// The largest (and initial) numerator: gain 1.25, Linux's.
pub const GAIN_NUM_MAX: u64 = 50;
/// The smallest numerator: gain 1.05.
pub const GAIN_NUM_MIN: u64 = 42;
/// Full version: cut on a lossy probe phase.
pub const PROBE_LOSS_CUT: u64 = 4;
/// Full version: cut on a lossy drain phase; simple version: cut per lossy ACK.
pub const DRAIN_LOSS_CUT: u64 = 2;
/// Raise after a loss-free cycle (full) or per ACK past min_rtt after a loss (simple).
pub const RAISE: u64 = 2;
/// Cycles observed before classifying the queue.
pub const CLASSIFY_CYCLES: u32 = 3;
/// Lossy cycles (of [`CLASSIFY_CYCLES`]) that make a queue without RTT
/// growth Small.
pub const SMALL_QUEUE_LOSSY_CYCLES: u32 = 3;
/// Lossy cycles above which a Large queue gets its loss flag.
pub const LARGE_QUEUE_LOSS_FLAG_CYCLES: u32 = 1;
/// The max-RTT filter's window.
pub const MAX_RTT_WINDOW: Duration = Duration::from_secs(30);
/// Large-queue drain target gain when the queue delay is under 1.5 min_rtt.
pub const LARGE_QUEUE_DRAIN_GAIN: f64 = 15.0 / 16.0;

crate::params! {
    /// B3R's spec parameters (read into [`B3rParams`]).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct B3rSpec {
        /// The oBBR code's simplified B3R.
        pub simple: bool ["simple"] = false
            => "the oBBR code's simplified B3R (gum/40, -2 per lossy ACK, +2 per ACK min_rtt after a loss) instead of the author's module",
        /// Reproduce the reference code's gain-array bookkeeping.
        pub literal_code: bool ["literal_code"] = false
            => "reproduce the reference code's gain-array bookkeeping (probe gain reset to 1.25 on reclassification; simple: gain rewritten only on loss)",
    }
}

/// Registry entry for `b3r`: its own parameters, then the BBRv1 core's
/// (`parent`) but `pacing_margin`.
pub fn info(parent: &AlgorithmInfo) -> AlgorithmInfo {
    AlgorithmInfo::new(
        "b3r",
        "B3R (Singhania et al.): BBRv1 that classifies the queue and probes a shallow one with a loss-adapted gain",
        |spec, config| Box::new(build(spec, config)),
    )
    .display_name("B3R")
    .param_table(B3rSpec::params())
    .inherit(parent)
    .without(&["pacing_margin"])
}

/// Which B3R.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The author's module: queue classification, per-phase adaptation.
    Full,
    /// The oBBR code's per-ACK adaptation.
    Simple,
}

/// Tunables of B3R.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct B3rParams {
    /// Which B3R.
    pub variant: Variant,
    /// Reproduce the reference code's gain-array bookkeeping.
    pub literal_code: bool,
}

impl Default for B3rParams {
    fn default() -> Self {
        B3rParams {
            variant: Variant::Full,
            literal_code: false,
        }
    }
}

fn build(spec: &AlgorithmSpec, config: &ControllerConfig) -> Bbr {
    let b3r = B3rSpec::from_spec(spec);
    let params = B3rParams {
        variant: if b3r.simple {
            Variant::Simple
        } else {
            Variant::Full
        },
        literal_code: b3r.literal_code,
    };
    new(spec.as_str(), BbrParams::from_spec(spec), params, config)
}

/// A B3R controller: the BBRv1 core with a [`B3rProbeGain`] policy.
pub fn new(spec: &str, core: BbrParams, params: B3rParams, config: &ControllerConfig) -> Bbr {
    let ext = Extensions {
        probe_gain: Box::new(B3rProbeGain::new(params)),
        ..Extensions::default()
    };
    Bbr::with_extensions(spec, core, config, ext)
}

/// The full version's view of the bottleneck queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueClass {
    /// Not in ProbeBW yet (or the simple version, which never classifies).
    Unclassified,
    /// Observing three cycles to classify.
    Unknown,
    /// A deep queue, or losses too rare to blame its depth.
    Large,
    /// A shallow queue: every observed cycle lost packets and the RTT never
    /// grew by half.
    Small,
}

impl QueueClass {
    /// The author's code for the class (`B3R_queue_state`: 4 at start,
    /// 3 unknown, 2 large, 1 small), for traces.
    pub fn code(self) -> u8 {
        match self {
            QueueClass::Unclassified => 4,
            QueueClass::Unknown => 3,
            QueueClass::Large => 2,
            QueueClass::Small => 1,
        }
    }
}

/// B3R's ProbeBW gain policy (both versions).
#[derive(Clone, Debug)]
pub struct B3rProbeGain {
    params: B3rParams,
    /// The adapted numerator: the module's `B3R_gain_num`, the oBBR code's `gum`.
    gain_num: u64,
    /// The numerator stored for the probe phase (the codes' gain array entry).
    stored_num: u64,
    /// The numerator of the probe phase in force, latched when it started.
    active_num: u64,
    /// Simple: when the last lossy ACK arrived.
    last_loss: Option<Instant>,
    class: QueueClass,
    /// Unknown: drain phases ended since classification began.
    cycles: u32,
    /// Unknown: cycles whose probe or drain phase lost packets.
    lossy_cycles: u32,
    lossy_this_cycle: bool,
    /// Unknown: three cycles seen, classify at the next phase change.
    classify_next: bool,
    /// Small: a loss in this cycle's probe or drain phase. Large: two or
    /// more lossy classification cycles (drain harder).
    loss_flag: bool,
    /// Small: `gain_num` was already cut in this phase.
    cut_this_phase: bool,
    max_rtt: Option<Duration>,
    max_rtt_stamp: Instant,
    last_mode: Option<Mode>,
    last_phase: Option<usize>,
}

impl B3rProbeGain {
    /// A policy before the flow's first ACK.
    pub fn new(params: B3rParams) -> Self {
        B3rProbeGain {
            params,
            gain_num: GAIN_NUM_MAX,
            stored_num: GAIN_NUM_MAX,
            active_num: GAIN_NUM_MAX,
            last_loss: None,
            class: QueueClass::Unclassified,
            cycles: 0,
            lossy_cycles: 0,
            lossy_this_cycle: false,
            classify_next: false,
            loss_flag: false,
            cut_this_phase: false,
            max_rtt: None,
            max_rtt_stamp: Instant::ZERO,
            last_mode: None,
            last_phase: None,
        }
    }

    /// The adapted gain numerator (`gain_num` / `gum`).
    pub fn gain_num(&self) -> u64 {
        self.gain_num
    }

    /// The probe phase's pacing gain in force.
    pub fn probe_gain(&self) -> f64 {
        self.active_num as f64 / GAIN_DENOMINATOR as f64
    }

    /// The queue class (full version).
    pub fn queue_class(&self) -> QueueClass {
        self.class
    }

    /// Lossy cycles counted by the current (or last) classification.
    pub fn lossy_cycles(&self) -> u32 {
        self.lossy_cycles
    }

    /// The Large class's loss flag, or Small's "this cycle lost" flag.
    pub fn loss_flag(&self) -> bool {
        self.loss_flag
    }

    /// The max-RTT filter's value.
    pub fn max_rtt(&self) -> Option<Duration> {
        self.max_rtt
    }

    /// `max_rtt` over the last 30 s; reset to min_rtt when nothing raised it
    /// for that long (the module checks expiry before the update).
    fn update_max_rtt(&mut self, now: Instant, rtt: Option<Duration>, min_rtt: Option<Duration>) {
        let expired = now > self.max_rtt_stamp + MAX_RTT_WINDOW;
        if let Some(rtt) = rtt {
            if self.max_rtt.is_none_or(|m| rtt >= m) {
                self.max_rtt = Some(rtt);
                self.max_rtt_stamp = now;
            }
        }
        if expired {
            self.max_rtt_stamp = now;
            if min_rtt.is_some() {
                self.max_rtt = min_rtt;
            }
        }
    }

    fn on_ack_simple(&mut self, ctx: &AckContext) {
        let now = ctx.event.now;
        if ctx.event.newly_lost > Bytes::ZERO {
            self.gain_num = self
                .gain_num
                .saturating_sub(DRAIN_LOSS_CUT)
                .max(GAIN_NUM_MIN);
            self.last_loss = Some(now);
            if self.params.literal_code {
                self.stored_num = self.gain_num;
            }
        }
        // The oBBR code's timer starts at 0, so before any loss every ACK
        // is "long after" one.
        let quiet = match (ctx.min_rtt, self.last_loss) {
            (Some(min_rtt), Some(t)) => now.saturating_duration_since(t) > min_rtt,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if quiet {
            self.gain_num = (self.gain_num + RAISE).min(GAIN_NUM_MAX);
        }
        if !self.params.literal_code {
            self.stored_num = self.gain_num;
        }
    }

    fn start_classification(&mut self) {
        self.class = QueueClass::Unknown;
        self.cycles = 0;
        self.lossy_cycles = 0;
        self.lossy_this_cycle = false;
        self.classify_next = false;
        self.loss_flag = false;
        self.cut_this_phase = false;
        self.stored_num = GAIN_NUM_MAX;
    }

    fn classify(&mut self, min_rtt: Option<Duration>) {
        let deep = match (self.max_rtt, min_rtt) {
            (Some(max), Some(min)) => exceeds_ratio(max, min, 3, 2),
            _ => false,
        };
        self.classify_next = false;
        self.loss_flag = false;
        if deep {
            self.class = QueueClass::Large;
            self.loss_flag = self.lossy_cycles > LARGE_QUEUE_LOSS_FLAG_CYCLES;
        } else if self.lossy_cycles >= SMALL_QUEUE_LOSSY_CYCLES {
            self.class = QueueClass::Small;
            if !self.params.literal_code {
                self.stored_num = self.gain_num;
            }
        } else {
            self.class = QueueClass::Large;
        }
        if self.class == QueueClass::Large {
            self.stored_num = GAIN_NUM_MAX;
        }
    }

    /// A loss reported while `phase` was in force.
    fn on_loss_in_phase(&mut self, phase: usize) {
        if phase > 1 {
            return;
        }
        match self.class {
            QueueClass::Unknown => {
                if !self.lossy_this_cycle {
                    self.lossy_cycles += 1;
                    self.lossy_this_cycle = true;
                }
            }
            QueueClass::Small => {
                self.loss_flag = true;
                if !self.cut_this_phase && self.gain_num > GAIN_NUM_MIN {
                    let cut = if phase == 0 {
                        PROBE_LOSS_CUT
                    } else {
                        DRAIN_LOSS_CUT
                    };
                    self.gain_num = self.gain_num.saturating_sub(cut).max(GAIN_NUM_MIN);
                    self.stored_num = self.gain_num;
                    self.cut_this_phase = true;
                }
            }
            QueueClass::Large | QueueClass::Unclassified => {}
        }
    }

    /// `phase` just ended.
    fn on_phase_end(&mut self, phase: usize, min_rtt: Option<Duration>) {
        self.cut_this_phase = false;
        match self.class {
            QueueClass::Unknown => {
                if self.classify_next {
                    self.classify(min_rtt);
                } else if phase == 1 {
                    self.cycles += 1;
                    self.lossy_this_cycle = false;
                    if self.cycles >= CLASSIFY_CYCLES {
                        self.classify_next = true;
                    }
                }
            }
            QueueClass::Small => {
                if phase == 1 && !self.loss_flag && self.gain_num < GAIN_NUM_MAX {
                    self.gain_num = (self.gain_num + RAISE).min(GAIN_NUM_MAX);
                    self.stored_num = self.gain_num;
                }
                // The flag spans a cycle's probe and drain phases.
                if phase != 0 {
                    self.loss_flag = false;
                }
            }
            QueueClass::Large | QueueClass::Unclassified => {}
        }
    }

    fn on_ack_full(&mut self, ctx: &AckContext) {
        let entered = ctx.mode == Mode::ProbeBw && self.last_mode != Some(Mode::ProbeBw);
        if entered {
            // After Drain and after every ProbeRTT: classify afresh.
            self.start_classification();
            return;
        }
        if let (Some(prev), Some(cur)) = (self.last_phase, ctx.cycle_phase) {
            if ctx.event.newly_lost > Bytes::ZERO {
                self.on_loss_in_phase(prev);
            }
            if cur != prev {
                self.on_phase_end(prev, ctx.min_rtt);
            }
        }
    }

    /// The large-queue phase rules (`B3R_is_next_cycle_phase`).
    fn large_queue_phase_done(&self, ctx: &PhaseContext, default: bool) -> bool {
        let Some(min_rtt) = ctx.min_rtt else {
            return default;
        };
        let queue_delay = self
            .max_rtt
            .map_or(Duration::ZERO, |m| m.saturating_sub(min_rtt));
        let full_rtt = ctx.elapsed > min_rtt;
        let full_queue = if queue_delay.is_zero() {
            full_rtt
        } else {
            ctx.elapsed > queue_delay / 8
        };
        let lossy = ctx.event.newly_lost > Bytes::ZERO;
        if ctx.pacing_gain == 1.0 {
            full_rtt
        } else if ctx.pacing_gain > 1.0 {
            full_queue && (lossy || ctx.inflight >= ctx.target_inflight(ctx.pacing_gain))
        } else if exceeds_ratio(min_rtt, queue_delay, 2, 3) {
            // queue_delay < 1.5 min_rtt
            let drained = ctx.inflight <= ctx.target_inflight(LARGE_QUEUE_DRAIN_GAIN);
            if self.loss_flag {
                full_rtt && drained
            } else {
                full_queue || drained
            }
        } else {
            full_queue || ctx.inflight <= ctx.target_inflight(1.0)
        }
    }
}

/// Whether `a > b x num / den`, without overflow.
fn exceeds_ratio(a: Duration, b: Duration, num: u128, den: u128) -> bool {
    a.as_nanos() * den > b.as_nanos() * num
}

impl ProbeGainPolicy for B3rProbeGain {
    fn on_ack(&mut self, ctx: &AckContext) {
        self.update_max_rtt(ctx.event.now, ctx.event.rtt.latest, ctx.min_rtt);
        match self.params.variant {
            Variant::Simple => self.on_ack_simple(ctx),
            Variant::Full => self.on_ack_full(ctx),
        }
        // A probe phase paces at the gain stored when it starts.
        if ctx.cycle_phase == Some(0)
            && (self.last_phase != Some(0) || self.last_mode != Some(Mode::ProbeBw))
        {
            self.active_num = self.stored_num;
        }
        self.last_mode = Some(ctx.mode);
        self.last_phase = ctx.cycle_phase;
    }

    fn pacing_gain(&self, phase: usize, base: f64) -> f64 {
        if phase == 0 {
            self.probe_gain()
        } else {
            base
        }
    }

    fn phase_done_with(&self, ctx: &PhaseContext, default: bool) -> bool {
        if self.params.variant == Variant::Full && self.class == QueueClass::Large {
            self.large_queue_phase_done(ctx, default)
        } else {
            default
        }
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("b3r_gain_num", self.gain_num as f64));
        out.push(("b3r_probe_gain", self.probe_gain()));
        out.push(("b3r_queue_class", self.class.code() as f64));
        out.push(("b3r_lossy_cycles", self.lossy_cycles as f64));
        out.push((
            "b3r_max_rtt_ms",
            self.max_rtt.map_or(0.0, |d| d.as_secs_f64() * 1e3),
        ));
    }
}

#[cfg(test)]
mod tests;
