//! BBRv2 (google/bbr `v2alpha`, `net/ipv4/tcp_bbr2.c`), BBRv3
//! (draft-ietf-ccwg-bbr) and Drucker et al.'s adaptive BBRv2, on one core of
//! their own.
//!
//! # Why a second core
//!
//! BBRv1 ([`crate::bbr`]) cycles eight fixed-length pacing-gain phases and
//! ignores loss. BBRv2 keeps v1's model (a max-filtered bandwidth, a min
//! RTT) but replaces the cycle by a four-phase state machine whose phases
//! end on events, not on a phase clock, and bounds the model with
//! loss-driven limits. That state machine fits none of v1's extension
//! points (a probe-gain policy sees a phase index, not a DOWN that lasts
//! until inflight drains nor a CRUISE that lasts 2..3 s), so BBRv2 and v3
//! share this second core instead of extending v1's. They reuse the pieces of v1 that are the same:
//! [`RoundCounter`] (packet-timed rounds), [`FullPipe`] (the 25%-in-three-
//! rounds plateau, for Startup and for v3's ProbeBW_UP), [`AckAggregation`]
//! (the extra-acked allowance) and [`crate::filter::MaxFilter`] (under the
//! two-cycle [`max_bw::CycleMaxBw`]); ProbeRTT's self-imposed app-limited
//! mark follows v1's idea.
//!
//! # The model
//!
//! - `max_bw`: max delivery rate over the current and previous ProbeBW cycle.
//! - `min_rtt`: min RTT over 10 s; ProbeRTT is scheduled from a 5 s min.
//! - [`Bounds`]: `inflight_hi` (long-term, cut when a probe sees a loss rate
//!   above 2%, persisting across cycles), `inflight_lo` / `bw_lo`
//!   (short-term, cut by `beta = 0.7` each lossy round outside probing,
//!   forgotten every cycle), `bw_hi` (ECN only, unused).
//! - The bandwidth used for pacing and the BDP is `min(max_bw, bw_lo, bw_hi)`.
//!
//! # The state machine
//!
//! ```text
//!  Startup --(plateau, or >= full_loss_cnt lossy ACKs in a round with loss > 2%)--> Drain
//!  Drain --(inflight <= BDP)--> ProbeBW_DOWN
//!
//!  DOWN ---(inflight <= BDP and <= (1-headroom) x inflight_hi)---> CRUISE
//!   ^                                                                 |
//!   |  (2..3 s since DOWN began, or min(62..63, BDP) rounds: Reno bound)|
//!   |                    <---- from DOWN or CRUISE ----               v
//!   +--- UP <--(one round)-- REFILL (bw_lo, inflight_lo reset) <------+
//!  (ends: loss > 2% -> cut inflight_hi; v2: inflight >= 1.25 BDP after min_rtt;
//!   v3: bandwidth plateau; both: reached a previously too-high inflight_hi)
//!
//!  any --(no lower RTT for 5 s)--> ProbeRTT (cwnd 0.5 BDP, 200 ms + a round)
//!      --> CRUISE (pipe full) or Startup
//! ```
//!
//! | phase | pacing gain (v2 / v3) | cwnd gain | inflight cap |
//! |---|---|---|---|
//! | Startup | 2.885 / 2.77 | 2.885 / 2 | none |
//! | Drain | 0.347 / 0.5 | 2.885 / 2 | inflight_lo |
//! | DOWN | 0.75 / 0.90 | 2 | inflight_hi, inflight_lo |
//! | CRUISE | 1 | 2 | (1 - 0.15) x inflight_hi, inflight_lo |
//! | REFILL | 1 | 2 | inflight_hi |
//! | UP | 1.25 | 2 / 2.25 | inflight_hi |
//! | ProbeRTT | 1 | 0.5 | 0.5 BDP, (1 - 0.15) x inflight_hi, inflight_lo |
//!
//! In UP, while the window is full at inflight_hi, inflight_hi grows by
//! 1, 2, 4, ... packets per round trip. A probe whose samples show a loss
//! rate above 2% sets `inflight_hi = max(tx_in_flight, 0.7 x target)` and
//! goes DOWN. The next probe stops as soon as inflight reaches that
//! inflight_hi; if that caused no excess loss, it probes again at once,
//! this time holding inflight there for a round and growing beyond.
//!
//! # The three controllers
//!
//! - `bbr2`: [`Bbr2Params::v2`]: the v2alpha gains and rules.
//! - `bbr3`: [`Bbr2Params::v3`]: the draft's gains (Startup 2.77/2, Drain
//!   0.5/2, DOWN 0.90, UP 1.25/2.25), Startup loss exit at 6 lossy ACKs with
//!   `inflight_hi = max(BDP, inflight_latest)`, UP ends on a bandwidth
//!   plateau, Drain at most 3 rounds. Linux v3 differences are parameters:
//!   `drain_gain=0.35`, `down_gain=0.91`, `drain_round_cap=false`.
//! - `bbr2-adaptive`: Drucker et al. §V-B: at the start of every
//!   PROBE_REFILL (a: not once per flow, which would keep Startup's
//!   overshoot, nor at the start of the cycle, which would keep ProbeRTT's
//!   low rate), `inflight_hi` is reset; everything else, the lower bounds
//!   and the loss-driven cuts included, is BBRv2's. The two rejected reset
//!   points are `reset_at=1` (once per flow: the first entry into ProbeBW,
//!   where Drain, or a ProbeRTT that interrupted it, hands over to the
//!   steady state; the first moment Startup's overshoot is over and the
//!   bound governs the window) and `reset_at=2` (every start of a cycle,
//!   PROBE_DOWN, including the one a ProbeRTT exit starts before going on
//!   to CRUISE); the default `reset_at=0` is REFILL. *To what* the paper
//!   says two ways: the abstract ("aligning BBRv2's upper bound with its
//!   maximum bandwidth estimation") and §I ("reset to BBRv2's maximum
//!   bandwidth estimate") give one BDP at max_bw, `bbr_inflight(max_bw,
//!   1)`, the default (`reset_to=1`); §V-B b names `inflight_latest`, the
//!   largest volume delivered in a round trip over the latest round
//!   (`reset_to=0`). Fig. 6 decides: its bound "remains steady throughout
//!   the flow". At REFILL the latest round is CRUISE's, at most 85% of
//!   inflight_hi, so `reset_to=0` lowers the bound every cycle that UP does
//!   not win back, and on the paper's LAN at 1.5% loss it falls from 873
//!   to 18 packets in two minutes; one BDP at max_bw stays within 4%.
//!   `no_upper_bound=true` is their first experiment (§V-A): loss
//!   threshold 1000% and no reset.
//!
//! # What reproduces
//!
//! Under 2% random loss at a large BDP, BBRv2's inflight_hi ratchets down
//! cycle after cycle (each probe's first samples come from the refill, sent
//! at the worn-down CRUISE inflight, and lose more than 2%) until the flow
//! crawls, as in Drucker et al.'s Fig. 5b; without the upper bound goodput
//! returns (§V-A). Adaptive BBRv2 keeps a steady bound and BBRv2's goodput
//! up to 1.5% loss; at 2% loss against the 2% threshold about half of a
//! probe's loss samples lie above it, every UP ends within a few ACKs, no
//! sample ever exceeds the current rate, and max_bw, to which the bound is
//! reset, decays (104 to 47 Mbit/s in two minutes on the paper's LAN).
//! With `loss_thresh=0.05` adaptive BBRv2 keeps 85% of BBR's goodput at 2%
//! loss (docs/ALGORITHMS.md has the numbers).
//!
//! # Deviations, and why
//!
//! - ECN is omitted (v2alpha ships it disabled): no `ecn_alpha`, no ECN cut
//!   of inflight_lo/bw_lo, no `bw_hi` (it stays unset).
//! - Startup's loss exit sets `inflight_hi` to the cwnd by default
//!   (`startup_hi=0`), as Drucker et al. §IV-A a) describe BBRv2; the paper is
//!   the specification here. v2alpha's code uses one BDP (`startup_hi=1`),
//!   the draft and the task text `max(BDP, inflight_latest)` (`startup_hi=2`,
//!   `bbr3`'s behaviour). The loss exit itself follows the code (>= 8 lossy
//!   ACKs in a round, in recovery, with the round's sample above 2%); the
//!   paper summarises it as "the loss rate since the start of Startup
//!   exceeds 2%".
//! - "Lossy ACKs" stand in for v2alpha's loss-marking events and the draft's
//!   discontiguous lost ranges: an ACK that reveals losses is one event.
//! - Windows are bytes; a packet is the max datagram size. `inflight at EDT`
//!   is prior inflight plus one send quantum while pacing above 1, as in the
//!   v1 core.
//! - `is_cwnd_limited` (Linux's per-window flag) is kept by the controller:
//!   true when a send in this or the previous round left no room for
//!   another full packet.
//! - The extra-acked allowance is added only after Startup (v2alpha also
//!   adds a 1-round allowance in Startup) and uses v1's 5..10-round window
//!   (the draft says 10 rounds).
//! - Loss recovery: no packet conservation (as v2alpha and the draft); the
//!   cwnd saved on entering recovery is restored on leaving it (draft
//!   `RestoreCwnd`; v2alpha restores only after an RTO). Persistent
//!   congestion stands in for the RTO: cwnd falls to inflight + 1 packet,
//!   the plateau search restarts and, outside probing, inflight_lo starts
//!   from the saved cwnd.
//! - No spurious-loss undo: the transport never declares recovery spurious.
//! - ProbeRTT's 5 s min is refreshed only by a strictly lower RTT (draft,
//!   Linux v3); v2alpha also refreshes on an equal one, which on a path
//!   with a perfectly constant RTT would postpone ProbeRTT forever.
//! - The latest-round maxima restart after the Startup-exit and ProbeBW
//!   decisions of the ACK that ends a round (draft
//!   `AdvanceLatestDeliverySignals`, Linux v3); v2alpha restarts them first.
//! - The startup growth rule is the draft's (`cwnd += acked` below target or
//!   while less than the initial window was delivered); v2alpha grows below
//!   twice the initial window, which only differs in the first round.
//! - cwnd never falls below 4 packets.

mod bounds;
pub mod max_bw;
mod params;
mod probe_bw;
mod probe_rtt;
mod startup;
#[cfg(test)]
mod tests;

use std::time::Duration;

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::bbr::ack_aggregation::AckAggregation;
use crate::bbr::full_pipe::FullPipe;
use crate::bbr::round::RoundCounter;
use crate::bbr::{MIN_CWND_PACKETS, PACING_MARGIN};
use crate::controller::{
    AckEvent, CongestionControl, ControllerConfig, LossEvent, ProbeState, SentEvent, Snapshot,
};
use crate::spec::AlgorithmInfo;
use crate::units::{Bandwidth, Bytes, Instant};

pub use bounds::{inflight_at_loss, is_inflight_too_high, Bounds};
pub use params::{
    AdaptiveSpec, Bbr2Params, Bbr2Spec, Bbr3Spec, HiReset, HiResetAt, PlateauSignal, StartupLossHi,
    UpExit, NO_UPPER_BOUND_LOSS_THRESH, V2_HIGH_GAIN,
};
pub use probe_bw::Phase;

use max_bw::CycleMaxBw;
use probe_bw::ProbeBwState;
use probe_rtt::MinRttState;
use startup::StartupState;

/// Registry entry for `bbr2`.
pub fn bbr2_info() -> AlgorithmInfo {
    AlgorithmInfo::new(
        "bbr2",
        "BBRv2 as google/bbr v2alpha: inflight_hi/lo and bw_lo bounds, 2% loss threshold, DOWN/CRUISE/REFILL/UP",
        |spec, config| Box::new(Bbr2::new(spec.as_str(), Bbr2Params::from_v2_spec(spec), config)),
    )
    .display_name("BBRv2")
    .param_table(Bbr2Spec::params())
}

/// Registry entry for `bbr3`: `bbr2`'s parameters (`parent`) but
/// `startup_hi`, with the draft's defaults, and its own.
pub fn bbr3_info(parent: &AlgorithmInfo) -> AlgorithmInfo {
    AlgorithmInfo::new(
        "bbr3",
        "BBRv3 per draft-ietf-ccwg-bbr (Linux v3 differences as parameters)",
        |spec, config| {
            Box::new(Bbr2::new(
                spec.as_str(),
                Bbr2Params::from_v3_spec(spec),
                config,
            ))
        },
    )
    .display_name("BBRv3")
    .inherit(parent)
    .without(&["startup_hi"])
    .param_table(Bbr3Spec::params())
}

/// Registry entry for `bbr2-adaptive`: `bbr2`'s parameters (`parent`),
/// then its own.
pub fn adaptive_info(parent: &AlgorithmInfo) -> AlgorithmInfo {
    AlgorithmInfo::new(
        "bbr2-adaptive",
        "BBRv2 with Drucker et al.'s adaptive inflight_hi: reset to one BDP at max_bw at every REFILL",
        |spec, config| {
            Box::new(Bbr2::new(
                spec.as_str(),
                Bbr2Params::from_adaptive_spec(spec),
                config,
            ))
        },
    )
    .display_name("adaptive BBRv2")
    .inherit(parent)
    .param_table(AdaptiveSpec::params())
}

/// The core's modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Exponential search for the bottleneck bandwidth.
    Startup,
    /// Drain the queue Startup built.
    Drain,
    /// Steady state, in one of its four phases.
    ProbeBw(Phase),
    /// Cut inflight to half a BDP to re-measure the propagation RTT.
    ProbeRtt,
}

impl Mode {
    /// The mode's name in traces.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBw(phase) => phase.name(),
            Mode::ProbeRtt => "probe_rtt",
        }
    }
}

/// Whether the sender has been cwnd-limited lately (Linux `is_cwnd_limited`).
#[derive(Clone, Copy, Debug, Default)]
struct CwndLimited {
    this_round: bool,
    last_round: bool,
}

impl CwndLimited {
    fn on_send(&mut self, limited: bool) {
        self.this_round |= limited;
    }
    fn on_round_start(&mut self) {
        self.last_round = self.this_round;
        self.this_round = false;
    }
    fn get(&self) -> bool {
        self.this_round || self.last_round
    }
}

/// What the core learned about one ACK before updating its model.
#[derive(Clone, Copy, Debug)]
struct AckInfo {
    /// The ACK carries a valid rate sample and acknowledged data.
    valid: bool,
    /// The sample's delivery rate.
    sample_bw: Option<Bandwidth>,
    /// A packet-timed round trip ended.
    round_start: bool,
    /// A loss-accounting round trip ended.
    loss_round_start: bool,
    /// The sample is app-limited (by the application or by ProbeRTT).
    app_limited: bool,
}

/// The BBRv2/v3 core.
#[derive(Clone, Debug)]
pub struct Bbr2 {
    spec: String,
    params: Bbr2Params,
    mss: Bytes,
    initial_cwnd: Bytes,
    mode: Mode,
    rounds: RoundCounter,
    /// Rounds for loss accounting: v2alpha's `loss_round_delivered`, which a
    /// round's first loss restarts so the round covers the whole loss episode.
    loss_rounds: RoundCounter,
    /// A loss was detected: restart the loss round at the next ACK's delivered.
    loss_round_pending: bool,
    full_pipe: FullPipe,
    max_bw: CycleMaxBw,
    bounds: Bounds,
    probe: ProbeBwState,
    startup: StartupState,
    rtt: MinRttState,
    aggregation: AckAggregation,
    pacing_gain: f64,
    cwnd_gain: f64,
    cwnd: Bytes,
    pacing_rate: Bandwidth,
    has_seen_rtt: bool,
    prior_cwnd: Bytes,
    was_in_recovery: bool,
    idle_restart: bool,
    /// Time of the latest event.
    now: Instant,
    /// Connection total delivered as of the latest ACK.
    delivered: Bytes,
    /// Connection total lost, summed over loss events.
    total_lost: Bytes,
    cwnd_limited: CwndLimited,
    /// Probes whose loss samples crossed `loss_thresh` (Drucker et al.'s
    /// Figs. 5-6 mark each such event), for traces and tests.
    probes_too_high: u64,
    /// Resets of inflight_hi by adaptive BBRv2 (§V-B), for tests.
    hi_resets: u64,
    rng: Pcg64Mcg,
}

impl Bbr2 {
    /// A controller with `params`.
    pub fn new(spec: &str, params: Bbr2Params, config: &ControllerConfig) -> Self {
        let initial_cwnd = config.packets(config.initial_window_packets);
        let mut b = Bbr2 {
            spec: spec.to_string(),
            params,
            mss: config.max_datagram_size,
            initial_cwnd,
            mode: Mode::Startup,
            rounds: RoundCounter::default(),
            loss_rounds: RoundCounter::default(),
            loss_round_pending: false,
            full_pipe: FullPipe::default(),
            max_bw: CycleMaxBw::default(),
            bounds: Bounds::default(),
            probe: ProbeBwState::new(config.now),
            startup: StartupState::default(),
            rtt: MinRttState::new(config.now),
            aggregation: AckAggregation::default(),
            pacing_gain: params.startup_pacing_gain,
            cwnd_gain: params.startup_cwnd_gain,
            cwnd: initial_cwnd,
            pacing_rate: Bandwidth::ZERO,
            has_seen_rtt: false,
            prior_cwnd: Bytes::ZERO,
            was_in_recovery: false,
            idle_restart: false,
            now: config.now,
            delivered: Bytes::ZERO,
            total_lost: Bytes::ZERO,
            cwnd_limited: CwndLimited::default(),
            probes_too_high: 0,
            hi_resets: 0,
            rng: Pcg64Mcg::seed_from_u64(config.seed),
        };
        b.init_pacing_rate(None);
        b
    }

    /// The current mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The tunables in use.
    pub fn params(&self) -> &Bbr2Params {
        &self.params
    }

    /// The loss-driven bounds.
    pub fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    /// The two-cycle max bandwidth.
    pub fn max_bw(&self) -> Bandwidth {
        self.max_bw.get()
    }

    /// The bandwidth the model allows: `min(max_bw, bw_lo, bw_hi)`.
    pub fn bw(&self) -> Bandwidth {
        self.bounds.bw(self.max_bw.get())
    }

    /// The min-RTT estimate.
    pub fn min_rtt(&self) -> Option<Duration> {
        self.rtt.min_rtt
    }

    /// How many bandwidth probes saw a loss rate above `loss_thresh` (each
    /// probe reacts once: `bbr2_handle_inflight_too_high`).
    pub fn probes_too_high(&self) -> u64 {
        self.probes_too_high
    }

    /// Round trips counted so far.
    pub fn round_count(&self) -> u64 {
        self.rounds.count()
    }

    /// Whether Startup has filled the pipe.
    pub fn is_full_pipe(&self) -> bool {
        self.full_pipe.is_reached()
    }

    fn min_cwnd(&self) -> Bytes {
        self.mss * MIN_CWND_PACKETS
    }

    fn is_probing_bandwidth(&self) -> bool {
        matches!(
            self.mode,
            Mode::Startup | Mode::ProbeBw(Phase::Refill) | Mode::ProbeBw(Phase::Up)
        )
    }

    /// `gain x bw x min_rtt`; the initial window until min_rtt is known.
    fn bdp(&self, bw: Bandwidth, gain: f64) -> Bytes {
        match self.rtt.min_rtt {
            Some(rtt) => bw.bytes_in(rtt).mul_f64(gain),
            None => self.initial_cwnd,
        }
    }

    /// Room for the send quanta held at both ends of the path (the draft's
    /// offload budget, v2alpha's `cwnd_tso_budget = 1` flooring), and two
    /// more packets while probing up, so small BDPs can probe at all.
    fn quantization_budget(&self, inflight: Bytes) -> Bytes {
        let mut inflight = inflight.max(self.send_quantum() * 3).max(self.min_cwnd());
        if self.mode == Mode::ProbeBw(Phase::Up) {
            inflight += self.mss * 2;
        }
        inflight
    }

    /// The inflight BBR aims for at `gain` (`bbr_inflight`, draft `Inflight`).
    fn inflight(&self, bw: Bandwidth, gain: f64) -> Bytes {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// The BDP, unless congestion has cut cwnd below it (`bbr2_target_inflight`).
    fn target_inflight(&self) -> Bytes {
        self.inflight(self.bw(), 1.0).min(self.cwnd)
    }

    fn inflight_at_edt(&self, inflight: Bytes) -> Bytes {
        crate::bbr::inflight_at_edt(inflight, self.pacing_gain, self.send_quantum())
    }

    fn init_pacing_rate(&mut self, srtt: Option<Duration>) {
        self.pacing_rate =
            crate::bbr::initial_pacing_rate(self.cwnd, srtt, self.params.startup_pacing_gain)
                .max(Bandwidth::from_bits_per_sec(1));
    }

    fn set_pacing_rate(&mut self, bw: Bandwidth, gain: f64, srtt: Duration) {
        if !self.has_seen_rtt && !srtt.is_zero() {
            self.has_seen_rtt = true;
            self.init_pacing_rate(Some(srtt));
        }
        let rate = bw.mul_f64(gain * (1.0 - PACING_MARGIN));
        // Until the pipe is full, never slow down: early samples undershoot.
        if rate > Bandwidth::ZERO && (self.full_pipe.is_reached() || rate > self.pacing_rate) {
            self.pacing_rate = rate;
        }
    }

    fn save_cwnd(&mut self) {
        if !self.was_in_recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    fn update_gains(&mut self) {
        let p = &self.params;
        let (pacing, cwnd) = match self.mode {
            Mode::Startup => (p.startup_pacing_gain, p.startup_cwnd_gain),
            Mode::Drain => (p.drain_pacing_gain, p.drain_cwnd_gain),
            Mode::ProbeBw(Phase::Down) => (p.down_gain, p.cwnd_gain),
            Mode::ProbeBw(Phase::Cruise) | Mode::ProbeBw(Phase::Refill) => (1.0, p.cwnd_gain),
            Mode::ProbeBw(Phase::Up) => (p.up_gain, p.up_cwnd_gain),
            Mode::ProbeRtt => (1.0, p.probe_rtt_cwnd_gain),
        };
        self.pacing_gain = pacing;
        self.cwnd_gain = cwnd;
    }

    /// Round counting, the app-limited verdict and the sample's validity.
    fn update_round(&mut self, event: &AckEvent) -> AckInfo {
        let sample_bw = event.rate.delivery_rate;
        let valid = sample_bw.is_some() && event.newly_acked > Bytes::ZERO;
        // Linux counts rounds only on valid rate samples.
        let round_start = if valid {
            self.rounds.on_ack(&event.rate)
        } else {
            self.rounds.skip_ack()
        };
        if round_start {
            self.probe.rounds_since_probe = self.probe.rounds_since_probe.saturating_add(1);
            self.cwnd_limited.on_round_start();
        }
        self.rtt.mark.on_ack(event.now, event.rate.total_delivered);
        let app_limited =
            event.rate.is_app_limited || self.rtt.mark.covers(event.rate.newest_sent_time);
        AckInfo {
            valid,
            sample_bw,
            round_start,
            loss_round_start: false,
            app_limited,
        }
    }

    /// The max-bandwidth filter and the once-per-round loss response
    /// (`bbr2_update_congestion_signals`).
    fn update_congestion_signals(&mut self, event: &AckEvent, info: &mut AckInfo) {
        let (true, Some(bw)) = (info.valid, info.sample_bw) else {
            self.loss_rounds.skip_ack();
            return;
        };
        self.max_bw.update(bw, info.app_limited);
        if event.newly_lost > Bytes::ZERO {
            self.bounds.loss_in_round = true;
        }
        self.bounds.note_latest(bw, event.rate.delivered);
        if self.loss_rounds.on_ack(&event.rate) {
            info.loss_round_start = true;
            // While probing, losses are the probe's own doing: the upper
            // bounds deal with them, the lower bounds must not hold it back.
            if !self.is_probing_bandwidth() {
                self.bounds
                    .adapt_lower_bounds(self.max_bw.get(), self.cwnd, self.params.beta);
            }
            self.bounds.loss_in_round = false;
        }
    }

    fn update_model(&mut self, event: &AckEvent, info: &mut AckInfo) {
        self.update_congestion_signals(event, info);
        if self.params.extra_acked && info.valid {
            self.aggregation.on_ack(
                event.now,
                info.round_start,
                event.newly_acked,
                self.bw(),
                self.cwnd,
                self.mss,
            );
        }
        self.check_startup_high_loss(event, info);
        self.check_full_bw(info);
        self.check_drain(event);
        self.update_cycle_phase(event, info);
        self.update_min_rtt(event, info.round_start);
        if info.loss_round_start {
            // Only now, so the Startup exit and REFILL above saw the whole
            // round's maxima (draft `AdvanceLatestDeliverySignals`).
            if let Some(bw) = info.sample_bw {
                self.bounds.advance_latest(bw, event.rate.delivered);
            }
        }
    }

    /// Caps the window by the phase's bounds (`bbr2_bound_cwnd_for_inflight_model`).
    fn bound_cwnd_for_model(&self, cwnd: Bytes) -> Bytes {
        let cap = match self.mode {
            Mode::ProbeBw(Phase::Cruise) | Mode::ProbeRtt => {
                self.bounds
                    .inflight_with_headroom(self.params.headroom, self.mss, self.min_cwnd())
            }
            Mode::ProbeBw(_) => self.bounds.inflight_hi,
            Mode::Startup | Mode::Drain => None,
        };
        let mut cap = cap.unwrap_or(Bytes::MAX);
        if let Some(lo) = self.bounds.inflight_lo {
            cap = cap.min(lo);
        }
        cwnd.min(cap.max(self.min_cwnd()))
    }

    /// `bbr_set_cwnd` then the model's caps.
    fn set_cwnd(&mut self, event: &AckEvent, bw: Bandwidth) {
        let acked = event.newly_acked;
        let mut cwnd = self.cwnd;
        if acked > Bytes::ZERO {
            let mut target = self.bdp(bw, self.cwnd_gain);
            if self.params.extra_acked && self.full_pipe.is_reached() {
                target += self.aggregation.allowance(bw, 1.0);
            }
            let target = self.quantization_budget(target);
            if self.full_pipe.is_reached() {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || self.delivered < self.initial_cwnd {
                // Slow-start toward the target; never cut before the pipe is full.
                cwnd += acked;
            }
        }
        cwnd = cwnd.max(self.min_cwnd());
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(self.probe_rtt_cwnd());
        }
        self.cwnd = self.bound_cwnd_for_model(cwnd);
    }

    /// Persistent congestion, the QUIC analogue of an RTO (v2alpha
    /// `bbr2_set_state(TCP_CA_Loss)` and the stack's cwnd = inflight + 1).
    fn on_persistent_congestion(&mut self, bytes_in_flight: Bytes) {
        self.save_cwnd();
        self.was_in_recovery = true;
        self.full_pipe.reset_plateau();
        if !self.is_probing_bandwidth() && self.bounds.inflight_lo.is_none() {
            self.bounds.inflight_lo = Some(self.prior_cwnd.max(self.min_cwnd()));
        }
        self.cwnd = (bytes_in_flight + self.mss).max(self.min_cwnd());
    }
}

impl CongestionControl for Bbr2 {
    fn spec(&self) -> &str {
        &self.spec
    }

    fn on_packet_sent(&mut self, event: &SentEvent) {
        self.now = self.now.max(event.now);
        self.cwnd_limited
            .on_send(!event.app_limited && event.bytes_in_flight + self.mss > self.cwnd);
        // Restarting from idle: pace at the estimate, not a probing gain,
        // and let an overdue ProbeRTT end before the new flight.
        if event.app_limited && event.bytes_in_flight == event.bytes {
            self.idle_restart = true;
            self.aggregation = AckAggregation::default();
            match self.mode {
                Mode::ProbeBw(_) => {
                    let rate = self.bw().mul_f64(1.0 - PACING_MARGIN);
                    if rate > Bandwidth::ZERO {
                        self.pacing_rate = rate;
                    }
                }
                Mode::ProbeRtt => self.check_probe_rtt_done(event.now),
                _ => {}
            }
        }
    }

    fn on_ack(&mut self, event: &AckEvent) {
        self.now = event.now;
        self.delivered = event.rate.total_delivered;
        if std::mem::take(&mut self.loss_round_pending) {
            // The round of a loss runs until data sent after its detection
            // is acknowledged.
            self.loss_rounds.start_round_now(self.delivered);
        }
        let recovery_entered = event.in_recovery && !self.was_in_recovery;
        let recovery_exited = self.was_in_recovery && !event.in_recovery;
        if recovery_entered {
            self.save_cwnd();
        }
        self.was_in_recovery = event.in_recovery;
        if recovery_exited {
            self.cwnd = self.cwnd.max(self.prior_cwnd);
        }
        let mut info = self.update_round(event);
        self.update_model(event, &mut info);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, event.rtt.smoothed);
        self.set_cwnd(event, bw);
    }

    fn on_packet_lost(&mut self, event: &LossEvent) {
        self.now = self.now.max(event.now);
        let packet = &event.packet;
        self.total_lost += packet.size;
        if !self.bounds.loss_in_round {
            self.loss_round_pending = true;
        }
        self.bounds.loss_in_round = true;
        if event.persistent_congestion {
            self.on_persistent_congestion(event.bytes_in_flight);
        }
        // A packet sent while probing: did the loss rate of its flight
        // cross the threshold, and at what inflight (`bbr2_skb_marked_lost`)?
        if self.probe.bw_probe_samples {
            let lost = self.total_lost - packet.lost;
            if is_inflight_too_high(lost, packet.tx_in_flight, self.params.loss_thresh) {
                let at = inflight_at_loss(
                    packet.tx_in_flight,
                    lost,
                    packet.size,
                    self.params.loss_thresh,
                );
                self.handle_inflight_too_high(packet.is_app_limited, at);
            }
        }
    }

    fn cwnd(&self) -> Bytes {
        self.cwnd
    }

    fn pacing_rate(&self) -> Bandwidth {
        self.pacing_rate
    }

    /// As the draft's `SetSendQuantum` and Linux's `bbr_tso_segs_goal`.
    fn send_quantum(&self) -> Bytes {
        crate::bbr::send_quantum(self.pacing_rate, self.mss)
    }

    fn probe_state(&self) -> ProbeState {
        ProbeState {
            pacing_gain: self.pacing_gain,
            in_startup: Some(!self.full_pipe.is_reached()),
            in_probe_rtt: self.mode == Mode::ProbeRtt,
            bandwidth_estimate: Some(self.bw()),
        }
    }

    /// Extra fields: bounds in bytes / bits per second, 0 when unset.
    fn on_mtu_update(&mut self, max_datagram_size: Bytes) {
        // As BBRv1: the model sets cwnd; the size sets floors and quanta.
        self.mss = max_datagram_size.max(Bytes(1));
    }

    fn snapshot(&self) -> Snapshot {
        let bytes = |b: Option<Bytes>| b.map_or(0.0, Bytes::as_f64);
        let bps = |b: Option<Bandwidth>| b.map_or(0.0, Bandwidth::as_bps_f64);
        Snapshot {
            mode: self.mode.name(),
            bandwidth_estimate: Some(self.bw()),
            min_rtt_estimate: self.rtt.min_rtt,
            pacing_gain: self.pacing_gain,
            cwnd_gain: self.cwnd_gain,
            extra: vec![
                ("round_count", self.rounds.count() as f64),
                ("max_bw", self.max_bw.get().as_bps_f64()),
                ("inflight_hi", bytes(self.bounds.inflight_hi)),
                ("inflight_lo", bytes(self.bounds.inflight_lo)),
                ("bw_hi", bps(self.bounds.bw_hi)),
                ("bw_lo", bps(self.bounds.bw_lo)),
                ("bw_latest", self.bounds.bw_latest.as_bps_f64()),
                ("inflight_latest", self.bounds.inflight_latest.as_f64()),
                ("rounds_since_probe", self.probe.rounds_since_probe as f64),
                ("bw_cycle", self.max_bw.cycle() as f64),
                ("extra_acked", self.aggregation.extra_acked().as_f64()),
                ("prior_cwnd", self.prior_cwnd.as_f64()),
                ("probes_too_high", self.probes_too_high as f64),
            ],
        }
    }
}
