//! The BBR core's extension points.
//!
//! Every variant in the papers changes one or two of these, and nothing
//! else, so each variant is a small module that supplies its pieces to
//! [`Bbr::with_extensions`](super::Bbr::with_extensions) instead of a copy
//! of the core:
//!
//! | extension point | default (BBRv1) | replaced by |
//! |---|---|---|
//! | [`BandwidthFilter`] | windowed max over 10 rounds | BBR-S (85th percentile) |
//! | [`CwndGainPolicy`] | fixed gain per mode | oBBR (adaptive g) |
//! | [`ProbeGainPolicy`] | 1.25 / 0.75 / 1 x6 cycle | B3R (adaptive probe gain) |
//! | [`LossReaction`] | packet conservation, restore on exit | BBR-CWS, Modest BBR |
//! | [`BandwidthDropDetector`] | none | oBBR (timely bandwidth updates) |
//! | [`StartupPlateau`] | only rounds not app-limited count | Tempered BBR (app-limited rounds count) |
//! | [`DrainExit`] | inflight at most one BDP | Tempered BBR (at most a few rounds) |
//!
//! The core recognises Linux's own cwnd gain, gain cycle, loss reaction and
//! plateau rule ([`LinuxPoints`]) and calls their defaults directly, so
//! BBRv1 and every variant pay the indirect calls only for the points they
//! replace.

use std::fmt;
use std::time::Duration;

use dyn_clone::DynClone;

use crate::controller::AckEvent;
use crate::filter::MaxFilter;
use crate::units::{Bandwidth, Bytes};

use super::Mode;

/// What the core knows when an ACK has been folded into its model; handed
/// to every extension point.
#[derive(Clone, Copy, Debug)]
pub struct AckContext<'a> {
    /// The ACK itself.
    pub event: &'a AckEvent,
    /// The core's mode after this ACK's model update.
    pub mode: Mode,
    /// ProbeBW gain-cycle phase index (0 = the probing phase), if in ProbeBW.
    pub cycle_phase: Option<usize>,
    /// The pacing gain in force.
    pub pacing_gain: f64,
    /// Whether this ACK started a new round trip.
    pub round_start: bool,
    /// Round trips so far.
    pub round_count: u64,
    /// The bandwidth estimate the core uses for the BDP.
    pub bandwidth: Bandwidth,
    /// min_rtt estimate, once there is one.
    pub min_rtt: Option<Duration>,
    /// `bandwidth x min_rtt`, once min_rtt is known.
    pub bdp: Option<Bytes>,
    /// The congestion window before this ACK's update.
    pub cwnd: Bytes,
    /// Whether Startup has filled the pipe.
    pub full_pipe: bool,
    /// Whether this ACK entered a loss recovery period.
    pub recovery_entered: bool,
    /// Maximum datagram size.
    pub mss: Bytes,
}

/// Estimates the bottleneck bandwidth from delivery-rate samples.
pub trait BandwidthFilter: Send + fmt::Debug + DynClone {
    /// A valid delivery-rate sample arrived in round `round`.
    fn update(&mut self, round: u64, sample: Bandwidth, app_limited: bool);
    /// The estimate that sizes the congestion window (and the BDP).
    fn max_bw(&self) -> Bandwidth;
    /// The estimate that sets the pacing rate (defaults to [`max_bw`](Self::max_bw)).
    fn pacing_bw(&self) -> Bandwidth {
        self.max_bw()
    }
    /// Replaces the estimate (a bandwidth-drop detector's verdict).
    fn set(&mut self, round: u64, bw: Bandwidth);
    /// Algorithm-specific fields for tracing.
    fn trace(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// Chooses the cwnd gain.
pub trait CwndGainPolicy: Send + fmt::Debug + DynClone {
    /// Whether this is Linux's own cwnd gain ([`FixedCwndGain`]), every method of
    /// which is the trait's default: the core then calls the defaults
    /// directly, inlined, on each ACK (see [`LinuxPoints`]). Only Linux's
    /// says yes; a policy that says no is called through its box.
    fn is_linux(&self) -> bool {
        false
    }
    /// Observes an ACK (before the cwnd is computed).
    fn on_ack(&mut self, _ctx: &AckContext) {}
    /// The gain to apply now; `base` is the core's gain for its mode.
    fn cwnd_gain(&self, _ctx: &AckContext, base: f64) -> f64 {
        base
    }
    /// A hard upper bound on cwnd, if the policy imposes one.
    fn cwnd_cap(&self, _ctx: &AckContext) -> Option<Bytes> {
        None
    }
    /// A hard upper bound on inflight (oBBR's `g x BDP`, without the core's
    /// send-quantum and aggregation allowances): cwnd never exceeds it, and
    /// a ProbeBW probe whose inflight target lies above it ends on reaching
    /// the cap instead (a capped probe could otherwise only end on a loss).
    /// Default: none.
    fn inflight_cap(&self, _ctx: &AckContext) -> Option<Bytes> {
        None
    }
    /// Algorithm-specific fields for tracing.
    fn trace(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// Chooses the ProbeBW pacing gain of each cycle phase.
pub trait ProbeGainPolicy: Send + fmt::Debug + DynClone {
    /// Whether this is Linux's own gain cycle ([`LinuxGainCycle`]), every method of
    /// which is the trait's default: the core then calls the defaults
    /// directly, inlined, on each ACK (see [`LinuxPoints`]). Only Linux's
    /// says yes; a policy that says no is called through its box.
    fn is_linux(&self) -> bool {
        false
    }
    /// Observes an ACK.
    fn on_ack(&mut self, _ctx: &AckContext) {}
    /// The pacing gain of `phase`; `base` is Linux's gain for that phase.
    fn pacing_gain(&self, _phase: usize, base: f64) -> f64 {
        base
    }
    /// Whether `phase`, running for `elapsed`, should end on this ACK;
    /// `default` is the core's (Linux's) verdict.
    fn phase_done(
        &self,
        _event: &AckEvent,
        _phase: usize,
        _elapsed: Duration,
        default: bool,
    ) -> bool {
        default
    }
    /// Like [`phase_done`](Self::phase_done), with the core's inflight
    /// targets at hand (B3R's phase rules compare inflight with targets at
    /// gains the core does not use). The core calls this one; the default
    /// defers to `phase_done`.
    fn phase_done_with(&self, ctx: &PhaseContext, default: bool) -> bool {
        self.phase_done(ctx.event, ctx.phase, ctx.elapsed, default)
    }
    /// Algorithm-specific fields for tracing.
    fn trace(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// What the core knows when it asks a [`ProbeGainPolicy`] whether a
/// ProbeBW phase is over (`bbr_is_next_cycle_phase`).
#[derive(Clone, Copy, Debug)]
pub struct PhaseContext<'a> {
    /// The ACK being processed.
    pub event: &'a AckEvent,
    /// The phase in force (0 = the probing phase).
    pub phase: usize,
    /// How long the phase has run, in delivery time.
    pub elapsed: Duration,
    /// The pacing gain in force.
    pub pacing_gain: f64,
    /// min_rtt estimate, once there is one.
    pub min_rtt: Option<Duration>,
    /// Inflight as the core compares it with its targets (Linux's
    /// inflight at EDT: prior inflight, plus a send quantum while probing).
    pub inflight: Bytes,
    /// `max_bw x min_rtt`; the initial window until min_rtt is known.
    pub bdp: Bytes,
    /// What the core adds to `gain x BDP` for send quanta
    /// (`bbr_quantization_budget`).
    pub quantization_budget: Bytes,
}

impl PhaseContext<'_> {
    /// The core's inflight target at `gain` (`bbr_inflight`).
    pub fn target_inflight(&self, gain: f64) -> Bytes {
        let bdp = if self.min_rtt.is_some() {
            self.bdp.mul_f64(gain)
        } else {
            self.bdp
        };
        bdp.saturating_add(self.quantization_budget)
    }
}

/// How the window reacts to loss and what caps it.
pub trait LossReaction: Send + fmt::Debug + DynClone {
    /// Whether this is Linux's own loss reaction ([`PacketConservation`]), every method of
    /// which is the trait's default: the core then calls the defaults
    /// directly, inlined, on each ACK (see [`LinuxPoints`]). Only Linux's
    /// says yes; a policy that says no is called through its box.
    fn is_linux(&self) -> bool {
        false
    }
    /// Observes an ACK (before the cwnd is computed).
    fn on_ack(&mut self, _ctx: &AckContext) {}
    /// The window on entering recovery; `conservative` is Linux's choice,
    /// bytes in flight plus bytes just acked.
    fn recovery_cwnd(&mut self, _ctx: &AckContext, conservative: Bytes) -> Bytes {
        conservative
    }
    /// The window while packet conservation lasts (the first round of
    /// recovery); Linux: never below inflight plus what was just acked.
    fn conservation_cwnd(
        &self,
        _ctx: &AckContext,
        cwnd: Bytes,
        inflight_plus_acked: Bytes,
    ) -> Bytes {
        cwnd.max(inflight_plus_acked)
    }
    /// Limits the target window computed from the model.
    fn limit_target(&self, _ctx: &AckContext, target: Bytes) -> Bytes {
        target
    }
    /// Whether leaving recovery restores the window saved before it (Linux: yes).
    fn restores_cwnd_after_recovery(&self) -> bool {
        true
    }
    /// Algorithm-specific fields for tracing.
    fn trace(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// Detects a drop of the bottleneck bandwidth sooner than the max filter's
/// window would, and replaces the estimate.
pub trait BandwidthDropDetector: Send + fmt::Debug + DynClone {
    /// Observes an ACK; returns a new estimate to install, if any.
    fn on_ack(&mut self, ctx: &AckContext, sample: Option<Bandwidth>) -> Option<Bandwidth>;
    /// Algorithm-specific fields for tracing.
    fn trace(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// Decides which rounds count toward the plateau that ends Startup
/// (`bbr_check_full_bw_reached`: three rounds in a row in which the max
/// bandwidth grew less than 25%).
pub trait StartupPlateau: Send + fmt::Debug + DynClone {
    /// Whether this is Linux's own plateau rule ([`LinuxPlateau`]), every method of
    /// which is the trait's default: the core then calls the defaults
    /// directly, inlined, on each ACK (see [`LinuxPoints`]). Only Linux's
    /// says yes; a policy that says no is called through its box.
    fn is_linux(&self) -> bool {
        false
    }
    /// Whether a round whose first sample was `app_limited` may count as a
    /// flat (or growing) round. Linux: only rounds not app-limited, so a
    /// flow that is always app-limited (a live stream) never leaves Startup.
    fn counts_round(&self, app_limited: bool) -> bool {
        !app_limited
    }
}

/// What the core knows when it asks a [`DrainExit`] whether Drain is over
/// (`bbr_check_drain`).
#[derive(Clone, Copy, Debug)]
pub struct DrainContext<'a> {
    /// The ACK being processed.
    pub event: &'a AckEvent,
    /// Whether this ACK started a new round trip.
    pub round_start: bool,
    /// Round trips so far.
    pub round_count: u64,
    /// Inflight as the core compares it with its target (at EDT).
    pub inflight: Bytes,
    /// The core's target: one BDP at the current estimate (`bbr_inflight`
    /// at gain 1).
    pub target: Bytes,
}

/// Decides when Drain, which empties the queue Startup built, is over.
pub trait DrainExit: Send + fmt::Debug + DynClone {
    /// Whether Drain ends on this ACK; `default` is Linux's verdict
    /// (inflight at most one BDP). Called on every ACK while in Drain.
    fn drain_done(&mut self, _ctx: &DrainContext, default: bool) -> bool {
        default
    }
    /// Algorithm-specific fields for tracing.
    fn trace(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// BBRv1's bandwidth filter: the max over the last 10 rounds (`CYCLE_LEN + 2`).
/// App-limited samples count only when they exceed the current max, since an
/// app-limited rate is a lower bound on the path's.
#[derive(Clone, Debug)]
pub struct WindowedMaxBandwidth {
    filter: MaxFilter<Bandwidth>,
}

/// BBRv1's bandwidth filter window in round trips.
pub const BW_FILTER_ROUNDS: u64 = 10;

impl Default for WindowedMaxBandwidth {
    fn default() -> Self {
        WindowedMaxBandwidth {
            filter: MaxFilter::new(BW_FILTER_ROUNDS),
        }
    }
}

impl BandwidthFilter for WindowedMaxBandwidth {
    fn update(&mut self, round: u64, sample: Bandwidth, app_limited: bool) {
        if !app_limited || sample >= self.max_bw() {
            self.filter.update(round, sample);
        }
    }
    fn max_bw(&self) -> Bandwidth {
        self.filter.get().unwrap_or(Bandwidth::ZERO)
    }
    fn set(&mut self, round: u64, bw: Bandwidth) {
        self.filter.reset(round, bw);
    }
}

/// The fixed gains of BBRv1.
#[derive(Clone, Copy, Debug, Default)]
pub struct FixedCwndGain;
impl CwndGainPolicy for FixedCwndGain {
    fn is_linux(&self) -> bool {
        true
    }
}

/// The Linux ProbeBW gain cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinuxGainCycle;
impl ProbeGainPolicy for LinuxGainCycle {
    fn is_linux(&self) -> bool {
        true
    }
}

/// Linux's packet conservation on entering recovery, restore on exit.
#[derive(Clone, Copy, Debug, Default)]
pub struct PacketConservation;
impl LossReaction for PacketConservation {
    fn is_linux(&self) -> bool {
        true
    }
}

/// Linux's plateau: app-limited rounds do not count.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinuxPlateau;
impl StartupPlateau for LinuxPlateau {
    fn is_linux(&self) -> bool {
        true
    }
}

/// Linux's Drain: until inflight is at most one BDP, however long it takes.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinuxDrain;
impl DrainExit for LinuxDrain {}

/// The set of extension points a [`Bbr`](super::Bbr) core runs with.
#[derive(Clone, Debug)]
pub struct Extensions {
    /// Bandwidth estimation.
    pub bandwidth_filter: Box<dyn BandwidthFilter>,
    /// cwnd gain.
    pub cwnd_gain: Box<dyn CwndGainPolicy>,
    /// ProbeBW pacing gains.
    pub probe_gain: Box<dyn ProbeGainPolicy>,
    /// Loss reaction.
    pub loss_reaction: Box<dyn LossReaction>,
    /// Bandwidth-drop detection, if any.
    pub drop_detector: Option<Box<dyn BandwidthDropDetector>>,
    /// Which rounds count toward Startup's plateau.
    pub startup_plateau: Box<dyn StartupPlateau>,
    /// When Drain ends.
    pub drain_exit: Box<dyn DrainExit>,
}

/// Which of a core's extension points are Linux's own, taken once when
/// the core is built (the boxes are not replaced afterwards).
///
/// The core calls its points about ten times per ACK. For Linux's points
/// every one of those calls returns its input or does nothing, so the core
/// calls the traits' defaults directly instead, where the compiler inlines
/// them to nothing, and skips what they would only have read (the phase
/// context, the gains recomputed after the policies observed the ACK).
/// The variants' points are called through their boxes as before.
#[derive(Clone, Copy, Debug)]
pub struct LinuxPoints {
    /// The cwnd gain is [`FixedCwndGain`].
    pub cwnd_gain: bool,
    /// The gain cycle is [`LinuxGainCycle`].
    pub probe_gain: bool,
    /// The loss reaction is [`PacketConservation`].
    pub loss_reaction: bool,
    /// The plateau rule is [`LinuxPlateau`].
    pub startup_plateau: bool,
}

impl Extensions {
    /// Which points are Linux's own.
    pub fn linux_points(&self) -> LinuxPoints {
        LinuxPoints {
            cwnd_gain: self.cwnd_gain.is_linux(),
            probe_gain: self.probe_gain.is_linux(),
            loss_reaction: self.loss_reaction.is_linux(),
            startup_plateau: self.startup_plateau.is_linux(),
        }
    }
}

impl Default for Extensions {
    /// BBRv1 as in Linux.
    fn default() -> Self {
        Extensions {
            bandwidth_filter: Box::new(WindowedMaxBandwidth::default()),
            cwnd_gain: Box::new(FixedCwndGain),
            probe_gain: Box::new(LinuxGainCycle),
            loss_reaction: Box::new(PacketConservation),
            drop_detector: None,
            startup_plateau: Box::new(LinuxPlateau),
            drain_exit: Box::new(LinuxDrain),
        }
    }
}

dyn_clone::clone_trait_object!(BandwidthFilter);
dyn_clone::clone_trait_object!(CwndGainPolicy);
dyn_clone::clone_trait_object!(ProbeGainPolicy);
dyn_clone::clone_trait_object!(LossReaction);
dyn_clone::clone_trait_object!(BandwidthDropDetector);
dyn_clone::clone_trait_object!(StartupPlateau);
dyn_clone::clone_trait_object!(DrainExit);
