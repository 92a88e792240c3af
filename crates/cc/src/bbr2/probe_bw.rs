//! ProbeBW: DOWN, CRUISE, REFILL, UP, and the upper-bound logic that runs
//! alongside (`bbr2_update_cycle_phase`, `bbr2_adapt_upper_bounds`; draft
//! "ProbeBW Algorithm Details").
//!
//! - DOWN paces below 1 until inflight is at most one BDP and leaves the
//!   headroom below inflight_hi, then CRUISEs at gain 1.
//! - After a randomised 2..3 s since DOWN began, or after
//!   `min(63, BDP in packets)` round trips (62..63 with the random head
//!   start: the bound that lets a Reno flow of 62 packets BDP keep up),
//!   REFILL forgets the lower bounds and fills the pipe at gain 1 for one
//!   round, so the probe's feedback measures a full pipe.
//! - UP paces at 1.25. While the window is full at inflight_hi, inflight_hi
//!   grows by 1, 2, 4, ... packets per round. A loss rate above
//!   `loss_thresh` in the probe's samples cuts inflight_hi and goes DOWN.

use std::time::Duration;

use rand::Rng;

use crate::bbr::full_pipe::FullPipe;
use crate::controller::AckEvent;
use crate::units::{Bandwidth, Bytes, Instant};

use super::bounds::is_inflight_too_high;
use super::{AckInfo, Bbr2, HiReset, HiResetAt, Mode, UpExit};

/// The four phases of ProbeBW.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Drain the probe's queue and yield to other flows.
    Down,
    /// Send at the estimate, leaving headroom below inflight_hi.
    Cruise,
    /// Fill the pipe at the estimate for one round before probing.
    Refill,
    /// Probe for more bandwidth and inflight.
    Up,
}

impl Phase {
    /// The phase's name in traces.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Down => "probe_bw:down",
            Phase::Cruise => "probe_bw:cruise",
            Phase::Refill => "probe_bw:refill",
            Phase::Up => "probe_bw:up",
        }
    }
}

/// What the ACKs arriving now tell about bandwidth probing (`bbr_ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AckPhase {
    /// Not probing; no probe feedback.
    Init,
    /// Sending at the estimate to fill the pipe.
    Refilling,
    /// Inflight rising to probe.
    ProbeStarting,
    /// Feedback from the probe is arriving.
    ProbeFeedback,
    /// Probe over; its last feedback still arriving.
    ProbeStopping,
}

/// ProbeBW's state.
#[derive(Clone, Debug)]
pub(super) struct ProbeBwState {
    /// When the current DOWN (the cycle) or UP started.
    pub cycle_stamp: Instant,
    /// Wall-clock wait from DOWN until the next probe.
    pub probe_wait: Duration,
    /// Rounds since the last probe (with a random head start).
    pub rounds_since_probe: u64,
    pub ack_phase: AckPhase,
    /// The samples arriving now reflect bandwidth probing.
    pub bw_probe_samples: bool,
    /// The last probe went too high (loss above the threshold).
    pub prev_probe_too_high: bool,
    /// The last UP stopped at the previous too-high inflight_hi.
    pub stopped_risky_probe: bool,
    /// Rounds of inflight_hi growth in this UP.
    pub up_rounds: u32,
    /// Bytes acked since inflight_hi last grew.
    pub up_acked: Bytes,
    /// Bytes to ack per one-packet growth of inflight_hi (`None`: not growing).
    pub up_per_inc: Option<Bytes>,
    /// BBRv3's plateau detector for UP (`full_bw_now`).
    pub up_plateau: FullPipe,
    /// ProbeBW has been entered (a cycle has started) at least once.
    pub entered: bool,
}

impl ProbeBwState {
    pub fn new(now: Instant) -> Self {
        ProbeBwState {
            cycle_stamp: now,
            probe_wait: Duration::ZERO,
            rounds_since_probe: 0,
            ack_phase: AckPhase::Init,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            up_rounds: 0,
            up_acked: Bytes::ZERO,
            up_per_inc: None,
            up_plateau: FullPipe::default(),
            entered: false,
        }
    }
}

/// A plateau detector whose baseline is `sample` (draft `ResetFullBW();
/// BBR.full_bw = RS.delivery_rate`).
fn plateau_from(sample: Option<Bandwidth>) -> FullPipe {
    let mut fp = FullPipe::default();
    if let Some(bw) = sample {
        fp.on_round(true, false, bw);
    }
    fp
}

impl Bbr2 {
    fn has_elapsed_in_phase(&self, interval: Duration) -> bool {
        self.now > self.probe.cycle_stamp + interval
    }

    /// Randomises the wait until the next probe, in rounds and in time.
    fn pick_probe_wait(&mut self) {
        let p = &self.params;
        self.probe.rounds_since_probe = if p.probe_rand_rounds > 0 {
            self.rng.gen_range(0..p.probe_rand_rounds)
        } else {
            0
        };
        let rand_nanos = p.probe_wait_rand.as_nanos().min(u64::MAX as u128) as u64;
        let extra = if rand_nanos > 0 {
            self.rng.gen_range(0..rand_nanos)
        } else {
            0
        };
        self.probe.probe_wait = p.probe_wait_base + Duration::from_nanos(extra);
    }

    /// Adaptive BBRv2's reset of inflight_hi (§V-B b): by default to one BDP
    /// at max_bw (the abstract), or to the latest round's volume
    /// (`reset_to=0`). Nothing for BBRv2/v3.
    pub(super) fn reset_inflight_hi(&mut self) {
        let reset = match self.params.refill_hi_reset {
            Some(HiReset::Latest) => Some(self.bounds.inflight_latest),
            Some(HiReset::MaxBwBdp) => Some(self.inflight(self.max_bw.get(), 1.0)),
            None => None,
        };
        if let Some(hi) = reset.filter(|hi| *hi > Bytes::ZERO) {
            self.bounds.inflight_hi = Some(hi.max(self.min_cwnd()));
            self.hi_resets += 1;
        }
    }

    /// Starts a cycle: DOWN, with a fresh wall clock and round count.
    pub(super) fn start_probe_down(&mut self) {
        // The two reset points §V-B a) rejects: the start of every cycle
        // (`reset_at=2`), or once per flow (`reset_at=1`) at the first
        // ProbeBW entry, when Drain (or a ProbeRTT that interrupted it)
        // hands over to the steady state.
        match self.params.hi_reset_at {
            HiResetAt::Cycle => self.reset_inflight_hi(),
            HiResetAt::Flow if !self.probe.entered => self.reset_inflight_hi(),
            _ => {}
        }
        self.probe.entered = true;
        self.bounds.reset_congestion_signals();
        self.probe.up_per_inc = None;
        self.pick_probe_wait();
        self.probe.cycle_stamp = self.now;
        self.probe.ack_phase = AckPhase::ProbeStopping;
        self.rounds.start_round_now(self.delivered);
        self.mode = Mode::ProbeBw(Phase::Down);
    }

    pub(super) fn start_probe_cruise(&mut self) {
        if let (Some(lo), Some(hi)) = (self.bounds.inflight_lo, self.bounds.inflight_hi) {
            self.bounds.inflight_lo = Some(lo.min(hi));
        }
        self.mode = Mode::ProbeBw(Phase::Cruise);
    }

    /// REFILL: forget the short-term bounds and fill the pipe for a round.
    fn start_probe_refill(&mut self) {
        self.bounds.reset_lower_bounds();
        // Drucker et al. §V-B: the upper bound is reset every cycle,
        // instead of a value that persistent loss can only ratchet down.
        if self.params.hi_reset_at == HiResetAt::Refill {
            self.reset_inflight_hi();
        }
        self.probe.up_rounds = 0;
        self.probe.up_acked = Bytes::ZERO;
        self.probe.stopped_risky_probe = false;
        self.probe.ack_phase = AckPhase::Refilling;
        self.rounds.start_round_now(self.delivered);
        self.mode = Mode::ProbeBw(Phase::Refill);
    }

    fn start_probe_up(&mut self, sample: Option<Bandwidth>) {
        self.probe.ack_phase = AckPhase::ProbeStarting;
        self.rounds.start_round_now(self.delivered);
        self.probe.cycle_stamp = self.now;
        self.probe.up_plateau = plateau_from(sample);
        self.mode = Mode::ProbeBw(Phase::Up);
        self.raise_inflight_hi_slope();
    }

    /// Each round of UP doubles inflight_hi's growth: 1, 2, 4, ... packets.
    pub(super) fn raise_inflight_hi_slope(&mut self) {
        let growth_this_round = 1u64 << self.probe.up_rounds;
        self.probe.up_rounds = (self.probe.up_rounds + 1).min(30);
        self.probe.up_per_inc = Some((self.cwnd / growth_this_round).max(self.mss));
    }

    /// In UP without excess loss: grow inflight_hi if it limits the window.
    pub(super) fn probe_inflight_hi_upward(&mut self, acked: Bytes, round_start: bool) {
        let Some(hi) = self.bounds.inflight_hi else {
            return;
        };
        if !self.cwnd_limited.get() || self.cwnd < hi {
            // Not using all of inflight_hi: no evidence that more fits.
            self.probe.up_acked = Bytes::ZERO;
            return;
        }
        self.probe.up_acked += acked;
        if let Some(per_inc) = self.probe.up_per_inc.filter(|p| *p > Bytes::ZERO) {
            if self.probe.up_acked >= per_inc {
                let delta = self.probe.up_acked.get() / per_inc.get();
                self.probe.up_acked -= per_inc * delta;
                self.bounds.inflight_hi = Some(hi + self.mss * delta);
            }
        }
        if round_start {
            self.raise_inflight_hi_slope();
        }
    }

    /// A probe's loss rate went above the threshold: cut inflight_hi (once
    /// per probe) and, if in UP, go DOWN.
    pub(super) fn handle_inflight_too_high(&mut self, app_limited: bool, tx_in_flight: Bytes) {
        self.probe.prev_probe_too_high = true;
        self.probe.bw_probe_samples = false;
        self.probes_too_high += 1;
        // An app-limited flight did not robustly probe the volume.
        if !app_limited {
            let target = self.target_inflight();
            self.bounds
                .cut_inflight_hi(tx_in_flight, target, self.params.beta);
        }
        if self.mode == Mode::ProbeBw(Phase::Up) {
            self.start_probe_down();
        }
    }

    /// Tracks the probe's feedback, advances the max-bw cycle, and adapts
    /// the upper bounds. Returns whether it decided a state transition.
    fn adapt_upper_bounds(&mut self, event: &AckEvent, info: &AckInfo) -> bool {
        let in_probe_bw = matches!(self.mode, Mode::ProbeBw(_));
        if self.probe.ack_phase == AckPhase::ProbeStarting && info.round_start {
            self.probe.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.probe.ack_phase == AckPhase::ProbeStopping && info.round_start {
            // The probe's last samples are in: the best time to forget the
            // previous cycle's bandwidth.
            self.probe.bw_probe_samples = false;
            self.probe.ack_phase = AckPhase::Init;
            if in_probe_bw && !info.app_limited {
                self.max_bw.advance();
            }
            // The cautious probe reached the old inflight_hi without excess
            // loss: probe again, this time holding inflight there a round.
            if in_probe_bw && self.probe.stopped_risky_probe && !self.probe.prev_probe_too_high {
                self.start_probe_refill();
                return true;
            }
        }
        let rs = &event.rate;
        if is_inflight_too_high(rs.lost, rs.tx_in_flight, self.params.loss_thresh) {
            if self.probe.bw_probe_samples {
                self.handle_inflight_too_high(info.app_limited, rs.tx_in_flight);
            }
        } else if self
            .bounds
            .raise_upper_bounds(rs.tx_in_flight, info.sample_bw)
            && self.mode == Mode::ProbeBw(Phase::Up)
        {
            self.probe_inflight_hi_upward(event.newly_acked, info.round_start);
        }
        false
    }

    /// Whether the wait since DOWN is over; if so, REFILL.
    fn check_time_to_probe_bw(&mut self) -> bool {
        if self.has_elapsed_in_phase(self.probe.probe_wait) || self.is_reno_coexistence_probe_time()
        {
            self.start_probe_refill();
            return true;
        }
        false
    }

    /// A Reno flow at our BDP would lose (probe) once every BDP-in-packets
    /// rounds; probe at least that often, and at least every 63 rounds so
    /// random loss cannot wear the bounds down for long.
    fn is_reno_coexistence_probe_time(&self) -> bool {
        let bdp_packets = self.target_inflight().get() / self.mss.get().max(1);
        let rounds = self.params.probe_max_rounds.min(bdp_packets);
        self.probe.rounds_since_probe >= rounds
    }

    /// DOWN is over once inflight leaves the headroom and is at most a BDP.
    fn check_time_to_cruise(&self, inflight: Bytes, bw: Bandwidth) -> bool {
        let headroom =
            self.bounds
                .inflight_with_headroom(self.params.headroom, self.mss, self.min_cwnd());
        if headroom.is_some_and(|h| inflight > h) {
            return false;
        }
        inflight <= self.inflight(bw, 1.0)
    }

    /// The ProbeBW state machine, run on every ACK once the pipe is full.
    pub(super) fn update_cycle_phase(&mut self, event: &AckEvent, info: &AckInfo) {
        if !self.full_pipe.is_reached() {
            return;
        }
        if self.adapt_upper_bounds(event, info) {
            return;
        }
        let Mode::ProbeBw(phase) = self.mode else {
            return;
        };
        let inflight = self.inflight_at_edt(event.prior_in_flight);
        let bw = self.max_bw.get();
        match phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw();
            }
            Phase::Refill => {
                if info.round_start {
                    // From now on the samples reflect the refilled pipe.
                    self.probe.bw_probe_samples = true;
                    self.start_probe_up(info.sample_bw);
                }
            }
            Phase::Up => {
                if let Some(bw) = info.sample_bw {
                    self.probe
                        .up_plateau
                        .on_round(info.round_start, info.app_limited, bw);
                }
                let mut done = false;
                let hi = self.bounds.inflight_hi;
                if self.probe.prev_probe_too_high && hi.is_some_and(|hi| inflight >= hi) {
                    // Precautionary probing: the last probe lost too much
                    // at this inflight; don't hold it for a round.
                    self.probe.stopped_risky_probe = true;
                    done = true;
                } else {
                    match self.params.up_exit {
                        UpExit::InflightTarget => {
                            let min_rtt = self.rtt.min_rtt.unwrap_or(Duration::ZERO);
                            done = self.has_elapsed_in_phase(min_rtt)
                                && inflight >= self.inflight(bw, self.params.up_gain);
                        }
                        UpExit::BandwidthPlateau => {
                            if self.cwnd_limited.get() && hi.is_some_and(|hi| self.cwnd >= hi) {
                                // inflight_hi, not the path, limits growth.
                                self.probe.up_plateau = plateau_from(info.sample_bw);
                            } else if self.probe.up_plateau.is_reached() {
                                done = true;
                            }
                        }
                    }
                }
                if done {
                    self.probe.prev_probe_too_high = false;
                    self.start_probe_down();
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw() {
                    return;
                }
                if self.check_time_to_cruise(inflight, bw) {
                    self.start_probe_cruise();
                }
            }
        }
    }
}
