//! BBR (v1), faithful to Linux `net/ipv4/tcp_bbr.c`, and the core every
//! BBR variant of bbrlab extends.
//!
//! # The model
//!
//! BBR ("Bottleneck Bandwidth and Round-trip propagation time") models the
//! path by two numbers it measures continuously:
//!
//! - **BtlBw**, the bottleneck bandwidth: the windowed *maximum* of the
//!   delivery-rate samples over the last 10 round trips. A delivery rate can
//!   never exceed the bottleneck's, so the max is the least-biased estimate;
//!   the window lets the estimate fall when capacity does (slowly: that lag
//!   is what oBBR attacks).
//! - **RTprop**, the round-trip propagation time: the windowed *minimum* RTT
//!   over 10 s. Any queue adds to the RTT, so the min is the propagation part.
//!
//! Their product is the BDP, the data the path holds without a queue. BBR
//! paces at `pacing_gain x BtlBw` and caps inflight at `cwnd_gain x BDP`
//! (plus allowances for ACK aggregation and send quanta). It ignores loss
//! as a congestion signal except for packet conservation during the first
//! round of recovery and the long-term (policer) mode: the root of the high
//! retransmission rates in shallow buffers that the papers fix.
//!
//! # The state machine
//!
//! ```text
//!            full pipe                inflight <= BDP
//!  Startup ------------> Drain ----------------------> ProbeBW
//!  (2.885/2.885)         (1/2.885, cwnd 2.885)        (cycle 1.25,0.75,1x6 / cwnd 2)
//!     ^                                                 |   ^
//!     | min_rtt 10 s old, pipe not yet full             |   | 200 ms and a round at
//!     +----------------------- ProbeRTT <---------------+   | 4 packets, then restore
//!                              (cwnd 4 packets) ------------+
//! ```
//!
//! - *Startup* doubles the sending rate each round (gain 2/ln 2) until the
//!   max bandwidth grew less than 25% for three rounds ([`full_pipe`]).
//! - *Drain* paces at the inverse gain until inflight falls to one BDP.
//! - *ProbeBW* cycles eight phases of at least one min_rtt each: 1.25 probes
//!   for more bandwidth (ending early only on loss or once inflight reaches
//!   1.25 BDP, and never before min_rtt), 0.75 drains what the probe queued
//!   (ending early when inflight <= BDP), and six cruise phases at 1. The
//!   cycle starts at a random phase other than 0.75, so flows desynchronise.
//! - *ProbeRTT* is entered when the min-RTT estimate is 10 s old: cwnd drops
//!   to 4 packets for max(200 ms, one round) to let the queue drain and
//!   re-measure RTprop; then the saved cwnd is restored.
//!
//! Also as in Linux: packet conservation for the first round of recovery
//! and restoring the pre-recovery cwnd on exit ([`extension::PacketConservation`]),
//! the extra-acked aggregation allowance ([`ack_aggregation`]), the
//! long-term bandwidth policer mode ([`long_term`]), and send quanta by rate.
//!
//! # Extension points
//!
//! Variants (oBBR, BBR-CWS, Modest BBR, BBR-S, B3R, Tempered BBR) replace
//! pieces listed in [`extension`]: the bandwidth filter, the cwnd-gain
//! policy, the probe-gain policy, the loss reaction, a bandwidth-drop
//! detector and which rounds count toward Startup's plateau.
//!
//! # Deviations from Linux, and why
//!
//! - Windows are in bytes, not packets; "one packet" is the max datagram size.
//! - Linux marks packets app-limited during ProbeRTT through the transport's
//!   `tp->app_limited`; here the controller keeps that mark itself (it never
//!   writes to the transport) and treats samples of packets sent under the
//!   mark as app-limited, which is equivalent.
//! - Inflight "at EDT" (Linux accounts for a packet already scheduled by
//!   the pacer) is approximated by the ACK's prior inflight plus one send
//!   quantum while probing.
//! - An RTO has no QUIC equivalent; persistent congestion plays its role.
//! - The recovery epoch. Linux's `TCP_CA_Recovery` lasts until everything
//!   outstanding at its start, retransmissions included, is cumulatively
//!   acknowledged, so under random loss a round of packet conservation is
//!   followed by a round of growth. An RFC 9002 recovery period ends one
//!   round after it began, and with steady losses the next one starts at
//!   once: mapped one to one, BBR would re-enter packet conservation every
//!   round, lose each round's losses from inflight for good, and its max
//!   filter would follow the shrinking delivery rate down (40 Mbit/s of 100
//!   at 2% loss, where Linux keeps ~95%). So BBR keeps its own epoch, as
//!   Chromium's and xquic's QUIC BBR and the oBBR authors' `ngx_bbr.c` do:
//!   it begins with the transport's congestion event and ends only when a
//!   packet sent after the latest loss is acknowledged.
//! - cwnd never falls below 4 packets, not even during packet conservation
//!   (where Linux may go down to 1 when almost nothing is in flight).

pub mod ack_aggregation;
pub mod extension;
pub mod full_pipe;
pub mod long_term;
pub mod probe_rtt;
pub mod round;
#[cfg(test)]
mod tests;

use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::controller::{
    AckEvent, CongestionControl, ControllerConfig, LossEvent, ProbeState, SentEvent, Snapshot,
};
use crate::memo::Memo;
use crate::spec::AlgorithmInfo;
use crate::units::{Bandwidth, Bytes, Instant};

use ack_aggregation::AckAggregation;
pub use extension::{AckContext, Extensions};
use extension::{
    CwndGainPolicy as _, FixedCwndGain, LinuxGainCycle, LinuxPlateau, LinuxPoints,
    LossReaction as _, PacketConservation, ProbeGainPolicy as _, StartupPlateau as _,
};
use full_pipe::FullPipe;
use long_term::{LongTermBandwidth, LongTermInput, LongTermVerdict};
use probe_rtt::SelfAppLimited;
use round::RoundCounter;

/// Startup's pacing and cwnd gain, 2/ln 2: the smallest gain that doubles
/// the delivery rate each round.
pub const HIGH_GAIN: f64 = 2.885;
/// Drain's pacing gain: the inverse of Startup's, to empty its queue in a round.
pub const DRAIN_GAIN: f64 = 1.0 / HIGH_GAIN;
/// ProbeBW's cwnd gain.
pub const CWND_GAIN: f64 = 2.0;
/// ProbeBW's pacing-gain cycle.
pub const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// The min-RTT filter window; also how often ProbeRTT runs.
pub const MIN_RTT_WINDOW: Duration = Duration::from_secs(10);
/// How long ProbeRTT holds the window at its minimum.
pub const PROBE_RTT_DURATION: Duration = Duration::from_millis(200);
/// The smallest cwnd, in packets (enough for delayed ACKs to keep flowing).
pub const MIN_CWND_PACKETS: u64 = 4;
/// Pacing is 1% below the estimate, so a standing queue cannot build.
pub const PACING_MARGIN: f64 = 0.01;

/// BBR's modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Exponential search for the bottleneck bandwidth.
    Startup,
    /// Drain the queue Startup built.
    Drain,
    /// Steady state: cycle the pacing gain around the estimate.
    ProbeBw,
    /// Cut inflight to re-measure the propagation RTT.
    ProbeRtt,
}

impl Mode {
    /// The mode's name in traces.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBw => "probe_bw",
            Mode::ProbeRtt => "probe_rtt",
        }
    }
}

crate::params! {
    /// Tunables of the BBRv1 core (the spec parameters of `bbr`; variants
    /// built on the core inherit them by name).
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct BbrParams {
        /// ProbeBW cwnd gain (Linux: 2; the oBBR paper's Fig. 3 varies it).
        pub cwnd_gain: f64 ["cwnd_gain", 1.0..=4.0] = CWND_GAIN
            => "ProbeBW cwnd gain g: inflight cap = g x BDP",
        /// Enable the long-term bandwidth (policer) mode.
        pub long_term_bw: bool ["lt_bw"] = true
            => "long-term bandwidth (policer detection) mode",
        /// Enable the extra-acked aggregation allowance.
        pub extra_acked: bool ["extra_acked"] = true
            => "cwnd allowance for ACK aggregation",
        /// How far below the estimate BBR paces (Linux: 1%, so that a standing
        /// queue cannot build; the oBBR authors' nginx-quic BBR: 0). Variants
        /// that do not declare the parameter pace 1% below.
        pub pacing_margin: f64 ["pacing_margin", 0.0..=0.1] = PACING_MARGIN
            => "pace this fraction below the estimate (Linux 0.01; the oBBR authors' nginx-quic BBR 0)",
    }
}

/// Registry entry for `bbr`; the variants built on the core inherit its
/// parameters from it.
pub fn info() -> AlgorithmInfo {
    AlgorithmInfo::new(
        "bbr",
        "BBRv1 as in Linux tcp_bbr.c: max-filtered bandwidth, min RTT, 8-phase gain cycle, ProbeRTT",
        |spec, config| Box::new(Bbr::new(spec.as_str(), BbrParams::from_spec(spec), config)),
    )
    .display_name("BBRv1")
    .param_table(BbrParams::params())
}

/// The send quantum at `pacing_rate` (Linux `bbr_tso_segs_goal`, the
/// draft's `SetSendQuantum`): about 1 ms of data, at most 64 KB, at least 2
/// packets (1 below 1.2 Mbit/s). Shared by every BBR core.
pub fn send_quantum(pacing_rate: Bandwidth, mss: Bytes) -> Bytes {
    let min_packets = if pacing_rate < Bandwidth::from_kbps(1_200) {
        1
    } else {
        2
    };
    let bytes = pacing_rate
        .bytes_in(Duration::from_millis(1))
        .min(Bytes(64 * 1024));
    let packets = (bytes.get() / mss.get().max(1)).max(min_packets).min(127);
    mss * packets
}

/// Inflight as it will be once the pacer releases the next quantum (Linux
/// `bbr_packets_in_net_at_edt`, approximated): one send quantum more while
/// probing. Shared by every BBR core.
pub fn inflight_at_edt(inflight: Bytes, pacing_gain: f64, send_quantum: Bytes) -> Bytes {
    if pacing_gain > 1.0 {
        inflight + send_quantum
    } else {
        inflight
    }
}

/// The pacing rate before any bandwidth sample (`bbr_init_pacing_rate_from_rtt`):
/// `gain x cwnd / srtt`, with 1 ms standing in until the first RTT sample,
/// less the pacing margin. Shared by every BBR core.
pub fn initial_pacing_rate(cwnd: Bytes, srtt: Option<Duration>, gain: f64) -> Bandwidth {
    let rtt = srtt
        .filter(|r| !r.is_zero())
        .unwrap_or(Duration::from_millis(1));
    let bw = cwnd.per(rtt).unwrap_or(Bandwidth::MAX);
    bw.mul_f64(gain * (1.0 - PACING_MARGIN))
}

/// `gain x bw x min_rtt`; `initial_cwnd` until min_rtt is known.
fn bdp_at(min_rtt: Option<Duration>, initial_cwnd: Bytes, bw: Bandwidth, gain: f64) -> Bytes {
    match min_rtt {
        Some(rtt) => bw.bytes_in(rtt).mul_f64(gain),
        None => initial_cwnd,
    }
}

/// Recovery bookkeeping (`bbr_set_cwnd_to_recover_or_restore`).
#[derive(Clone, Debug, Default)]
struct Recovery {
    was_in_recovery: bool,
    /// Whether BBR's recovery epoch continues after the ACK being processed.
    in_recovery: bool,
    /// When the latest loss was detected: the epoch lasts until a packet
    /// sent after it is acknowledged.
    latest_loss: Option<Instant>,
    packet_conservation: bool,
    prior_cwnd: Bytes,
}

/// The bandwidth estimates as of the last change of the filter or of the
/// long-term sampler.
#[derive(Clone, Copy, Debug)]
struct Estimates {
    /// The filter's `max_bw`.
    filter_max: Bandwidth,
    /// The policed rate, while the long-term mode uses it.
    long_term: Option<Bandwidth>,
    /// [`Bbr::bandwidth`]: the policed rate, else the filter's max.
    in_use: Bandwidth,
    /// The policed rate, else the filter's `pacing_bw`.
    pacing: Bandwidth,
}

impl Estimates {
    fn of(filter: &dyn extension::BandwidthFilter, long_term: &LongTermBandwidth) -> Self {
        let filter_max = filter.max_bw();
        let long_term = long_term.bandwidth_in_use();
        Estimates {
            filter_max,
            long_term,
            in_use: long_term.unwrap_or(filter_max),
            pacing: long_term.unwrap_or_else(|| filter.pacing_bw()),
        }
    }
}

/// The BBR core.
#[derive(Clone, Debug)]
pub struct Bbr {
    spec: String,
    params: BbrParams,
    mss: Bytes,
    initial_cwnd: Bytes,
    ext: Extensions,
    /// Which points of `ext` are Linux's own: those are called statically.
    linux: LinuxPoints,
    /// The bandwidth estimates, taken again whenever the filter (`update`,
    /// `set`) or the long-term sampler changes: an ACK reads them about ten
    /// times, the filter's through indirect calls, and they seldom move.
    bw: Estimates,
    mode: Mode,
    rounds: RoundCounter,
    full_pipe: FullPipe,
    min_rtt: Option<Duration>,
    min_rtt_stamp: Instant,
    probe_rtt_done: Option<Instant>,
    probe_rtt_round_done: bool,
    self_app_limited: SelfAppLimited,
    cycle_phase: usize,
    cycle_stamp: Instant,
    aggregation: AckAggregation,
    long_term: LongTermBandwidth,
    recovery: Recovery,
    pacing_gain: f64,
    cwnd_gain: f64,
    cwnd: Bytes,
    pacing_rate: Bandwidth,
    /// `send_quantum(pacing_rate, mss)`, kept with both (set by
    /// [`Bbr::pace_at`] and `on_mtu_update`): an ACK reads it several times
    /// and the sender after every ACK, and each time it is a division.
    quantum: Bytes,
    has_seen_rtt: bool,
    delivered_time: Instant,
    idle_restart: bool,
    rng: Pcg64Mcg,
    /// The cwnd-gain policy's inflight cap at the last ACK.
    inflight_cap: Option<Bytes>,
    /// The pacing rate at (bandwidth, gain bits): an ACK computes it
    /// again, and the estimate and the gain seldom move between ACKs.
    paced: Memo<(Bandwidth, u64), Bandwidth>,
    /// The window's `gain x BDP` at (bandwidth, min_rtt, gain bits).
    window_bdp: Memo<(Bandwidth, Option<Duration>, u64), Bytes>,
    /// The aggregation allowance at (extra_acked, bandwidth).
    allowance: Memo<(Bytes, Bandwidth), Bytes>,
}

impl Bbr {
    /// BBRv1 with the Linux defaults for every extension point.
    pub fn new(spec: &str, params: BbrParams, config: &ControllerConfig) -> Self {
        Self::with_extensions(spec, params, config, Extensions::default())
    }

    /// The core with a variant's extension points.
    pub fn with_extensions(
        spec: &str,
        params: BbrParams,
        config: &ControllerConfig,
        ext: Extensions,
    ) -> Self {
        let initial_cwnd = config.packets(config.initial_window_packets);
        let mut bbr = Bbr {
            spec: spec.to_string(),
            params,
            mss: config.max_datagram_size,
            initial_cwnd,
            linux: ext.linux_points(),
            bw: Estimates::of(&*ext.bandwidth_filter, &LongTermBandwidth::default()),
            ext,
            mode: Mode::Startup,
            rounds: RoundCounter::default(),
            full_pipe: FullPipe::default(),
            min_rtt: None,
            min_rtt_stamp: config.now,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            self_app_limited: SelfAppLimited::default(),
            cycle_phase: 0,
            cycle_stamp: config.now,
            aggregation: AckAggregation::default(),
            long_term: LongTermBandwidth::default(),
            recovery: Recovery::default(),
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            cwnd: initial_cwnd,
            pacing_rate: Bandwidth::ZERO,
            quantum: send_quantum(Bandwidth::ZERO, config.max_datagram_size),
            has_seen_rtt: false,
            delivered_time: config.now,
            idle_restart: false,
            rng: Pcg64Mcg::seed_from_u64(config.seed),
            inflight_cap: None,
            paced: Memo::new(),
            window_bdp: Memo::new(),
            allowance: Memo::new(),
        };
        bbr.init_pacing_rate(None);
        bbr
    }

    /// The current mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The ProbeBW gain-cycle phase (0 = probing at 1.25).
    pub fn cycle_phase(&self) -> usize {
        self.cycle_phase
    }

    /// The min-RTT estimate.
    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }

    /// The bandwidth estimate in use: the policed rate in long-term mode,
    /// else the bandwidth filter's.
    pub fn bandwidth(&self) -> Bandwidth {
        self.bw.in_use
    }

    /// Round trips counted so far.
    pub fn round_count(&self) -> u64 {
        self.rounds.count()
    }

    /// Whether Startup has filled the pipe.
    pub fn is_full_pipe(&self) -> bool {
        self.full_pipe.is_reached()
    }

    /// The extension points in use.
    pub fn extensions(&self) -> &Extensions {
        &self.ext
    }

    fn pacing_bandwidth(&self) -> Bandwidth {
        self.bw.pacing
    }

    fn min_cwnd(&self) -> Bytes {
        self.mss * MIN_CWND_PACKETS
    }

    /// `gain x bw x min_rtt`; the initial window until min_rtt is known.
    fn bdp(&self, bw: Bandwidth, gain: f64) -> Bytes {
        bdp_at(self.min_rtt, self.initial_cwnd, bw, gain)
    }

    /// Headroom for send quanta in flight at both ends of the path, and two
    /// extra packets while probing (`bbr_quantization_budget`).
    fn quantization_budget(&self, cwnd: Bytes) -> Bytes {
        let mut cwnd = cwnd + self.quantum * 3;
        if self.mode == Mode::ProbeBw && self.cycle_phase == 0 {
            cwnd += self.mss * 2;
        }
        cwnd
    }

    /// The inflight BBR aims for at `gain` (`bbr_inflight`).
    fn target_inflight(&self, bw: Bandwidth, gain: f64) -> Bytes {
        self.quantization_budget(self.bdp(bw, gain))
    }

    fn inflight_at_edt(&self, inflight: Bytes) -> Bytes {
        inflight_at_edt(inflight, self.pacing_gain, self.quantum)
    }

    /// Sets the pacing rate, and the send quantum with it.
    fn pace_at(&mut self, rate: Bandwidth) {
        if rate == self.pacing_rate {
            // The quantum is the rate's already (and the MSS's: a new MSS
            // computes it again).
            return;
        }
        self.pacing_rate = rate;
        self.quantum = send_quantum(rate, self.mss);
    }

    fn init_pacing_rate(&mut self, srtt: Option<Duration>) {
        self.pace_at(initial_pacing_rate(self.cwnd, srtt, HIGH_GAIN));
    }

    fn set_pacing_rate(&mut self, bw: Bandwidth, gain: f64, srtt: Duration) {
        if !self.has_seen_rtt && !srtt.is_zero() {
            self.has_seen_rtt = true;
            self.init_pacing_rate(Some(srtt));
        }
        let margin = self.params.pacing_margin;
        let rate = self
            .paced
            .get((bw, gain.to_bits()), || bw.mul_f64(gain * (1.0 - margin)));
        // Until the pipe is full, never slow down: early samples undershoot.
        if rate > Bandwidth::ZERO && (self.full_pipe.is_reached() || rate > self.pacing_rate) {
            self.pace_at(rate);
        }
    }

    fn reset_startup_or_probe_bw(&mut self) {
        if self.full_pipe.is_reached() {
            self.enter_probe_bw();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// Enters ProbeBW at a random phase other than the draining one.
    fn enter_probe_bw(&mut self) {
        self.mode = Mode::ProbeBw;
        // Linux: cycle_idx = CYCLE_LEN - 1 - rand(7), then advance: 2..7 or 0.
        let start = GAIN_CYCLE.len() - 1 - self.rng.gen_range(0..GAIN_CYCLE.len() - 1);
        self.cycle_phase = start;
        self.advance_cycle_phase();
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_phase = (self.cycle_phase + 1) % GAIN_CYCLE.len();
        self.cycle_stamp = self.delivered_time;
    }

    /// `bbr_is_next_cycle_phase`.
    fn cycle_phase_done(&self, event: &AckEvent) -> bool {
        let elapsed = self.delivered_time - self.cycle_stamp;
        let full_length = self.min_rtt.is_some_and(|m| elapsed > m);
        let inflight = self.inflight_at_edt(event.prior_in_flight);
        let bw = self.bw.filter_max;
        let default = if self.pacing_gain == 1.0 {
            full_length
        } else if self.pacing_gain > 1.0 {
            // Probe for at least min_rtt, then until loss or the probe's
            // inflight is reached.
            let target = self.target_inflight(bw, self.pacing_gain);
            // A window capped below the target (oBBR) probes up to the cap.
            let target = self.inflight_cap.map_or(target, |cap| target.min(cap));
            full_length && (event.newly_lost > Bytes::ZERO || inflight >= target)
        } else {
            // Drain until the queue is likely gone, at most one min_rtt.
            full_length || inflight <= self.target_inflight(bw, 1.0)
        };
        if self.linux.probe_gain {
            // Linux's cycle reads nothing of the phase context.
            return LinuxGainCycle.phase_done(event, self.cycle_phase, elapsed, default);
        }
        let ctx = extension::PhaseContext {
            event,
            phase: self.cycle_phase,
            elapsed,
            pacing_gain: self.pacing_gain,
            min_rtt: self.min_rtt,
            inflight,
            bdp: self.bdp(bw, 1.0),
            quantization_budget: self.quantization_budget(Bytes::ZERO),
        };
        self.ext.probe_gain.phase_done_with(&ctx, default)
    }

    fn save_cwnd(&mut self) {
        if !self.recovery.was_in_recovery && self.mode != Mode::ProbeRtt {
            self.recovery.prior_cwnd = self.cwnd;
        } else {
            self.recovery.prior_cwnd = self.recovery.prior_cwnd.max(self.cwnd);
        }
    }

    fn update_gains(&mut self) {
        let (pacing, cwnd) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            // Linux keeps Startup's cwnd gain while draining.
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => {
                let base = GAIN_CYCLE[self.cycle_phase];
                let pacing = if self.bw.long_term.is_some() {
                    1.0
                } else if self.linux.probe_gain {
                    LinuxGainCycle.pacing_gain(self.cycle_phase, base)
                } else {
                    self.ext.probe_gain.pacing_gain(self.cycle_phase, base)
                };
                (pacing, self.params.cwnd_gain)
            }
            Mode::ProbeRtt => (1.0, 1.0),
        };
        self.pacing_gain = pacing;
        self.cwnd_gain = cwnd;
    }

    /// Updates bandwidth, rounds, aggregation, cycle phase, Startup/Drain
    /// exits and min_rtt (`bbr_update_model`). Returns whether this ACK
    /// started a round and whether its sample was app-limited.
    fn update_model(&mut self, event: &AckEvent) -> (bool, bool) {
        let sample = &event.rate;
        let valid = sample.delivery_rate.is_some();
        // Linux counts rounds only on valid samples.
        let round_start = if valid {
            self.rounds.on_ack(sample)
        } else {
            self.rounds.skip_ack()
        };
        if round_start {
            self.recovery.packet_conservation = false;
        }
        self.self_app_limited
            .on_ack(event.now, sample.total_delivered);
        let app_limited =
            sample.is_app_limited || self.self_app_limited.covers(sample.newest_sent_time);

        if self.params.long_term_bw && valid {
            let verdict = self.long_term.on_ack(&LongTermInput {
                now: self.delivered_time,
                round_start,
                has_losses: event.newly_lost > Bytes::ZERO,
                app_limited,
                in_probe_bw: self.mode == Mode::ProbeBw,
                total_delivered: sample.total_delivered,
                total_lost: sample.total_lost,
            });
            if verdict == LongTermVerdict::StopUsing {
                self.enter_probe_bw();
            }
        }
        if let Some(rate) = sample.delivery_rate {
            self.ext
                .bandwidth_filter
                .update(self.rounds.count(), rate, app_limited);
            // The long-term sampler runs only on valid samples too, above.
            self.bw = Estimates::of(&*self.ext.bandwidth_filter, &self.long_term);
        }
        if self.params.extra_acked && valid {
            self.aggregation.on_ack(
                self.delivered_time,
                round_start,
                event.newly_acked,
                self.bandwidth(),
                self.cwnd,
                self.mss,
            );
        }
        if self.mode == Mode::ProbeBw && self.cycle_phase_done(event) {
            self.advance_cycle_phase();
        }
        let counts = if self.linux.startup_plateau {
            LinuxPlateau.counts_round(app_limited)
        } else {
            self.ext.startup_plateau.counts_round(app_limited)
        };
        let uncounted = !counts;
        self.full_pipe
            .on_round(round_start, uncounted, self.bw.filter_max);
        if self.mode == Mode::Startup && self.full_pipe.is_reached() {
            self.mode = Mode::Drain;
        }
        if self.mode == Mode::Drain {
            let inflight = self.inflight_at_edt(event.bytes_in_flight);
            let target = self.target_inflight(self.bw.filter_max, 1.0);
            let ctx = extension::DrainContext {
                event,
                round_start,
                round_count: self.rounds.count(),
                inflight,
                target,
            };
            if self.ext.drain_exit.drain_done(&ctx, inflight <= target) {
                self.enter_probe_bw();
            }
        }
        self.update_min_rtt(event, round_start);
        (round_start, app_limited)
    }

    /// The min-RTT filter and ProbeRTT (`bbr_update_min_rtt`).
    fn update_min_rtt(&mut self, event: &AckEvent, round_start: bool) {
        let now = event.now;
        let expired = now > self.min_rtt_stamp + MIN_RTT_WINDOW;
        if let Some(rtt) = event.rtt.latest {
            if self.min_rtt.is_none_or(|m| rtt < m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }
        if expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Samples taken at 4 packets say nothing about the bandwidth.
            self.self_app_limited
                .mark(now, event.rate.total_delivered + event.bytes_in_flight);
            match self.probe_rtt_done {
                None if event.bytes_in_flight <= self.min_cwnd() => {
                    self.probe_rtt_done = Some(now + PROBE_RTT_DURATION);
                    self.probe_rtt_round_done = false;
                    self.rounds.start_round_now(event.rate.total_delivered);
                }
                Some(_) => {
                    if round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done {
                        self.check_probe_rtt_done(now);
                    }
                }
                None => {}
            }
        }
        if event.rate.delivered > Bytes::ZERO {
            self.idle_restart = false;
        }
    }

    fn check_probe_rtt_done(&mut self, now: Instant) {
        if self.probe_rtt_done.is_some_and(|done| now > done) {
            // Schedule the next ProbeRTT a full window from now.
            self.min_rtt_stamp = now;
            self.cwnd = self.cwnd.max(self.recovery.prior_cwnd);
            self.reset_startup_or_probe_bw();
        }
    }

    fn context<'a>(
        &self,
        event: &'a AckEvent,
        round_start: bool,
        recovery_entered: bool,
    ) -> AckContext<'a> {
        let bandwidth = self.bandwidth();
        AckContext {
            event,
            mode: self.mode,
            cycle_phase: (self.mode == Mode::ProbeBw).then_some(self.cycle_phase),
            pacing_gain: self.pacing_gain,
            round_start,
            round_count: self.rounds.count(),
            bandwidth,
            min_rtt: self.min_rtt,
            bdp: self.min_rtt.map(|rtt| bandwidth.bytes_in(rtt)),
            cwnd: self.cwnd,
            full_pipe: self.full_pipe.is_reached(),
            recovery_entered,
            mss: self.mss,
        }
    }

    /// `bbr_set_cwnd`, with the recovery logic of
    /// `bbr_set_cwnd_to_recover_or_restore`.
    fn set_cwnd(&mut self, ctx: &AckContext, bw: Bandwidth, gain: f64) {
        let event = ctx.event;
        let acked = event.newly_acked;
        let mut cwnd = self.cwnd;
        if acked > Bytes::ZERO {
            let conserving = self.recover_or_restore(ctx, &mut cwnd);
            if !conserving {
                let (min_rtt, initial_cwnd) = (self.min_rtt, self.initial_cwnd);
                let mut target = self.window_bdp.get((bw, min_rtt, gain.to_bits()), || {
                    bdp_at(min_rtt, initial_cwnd, bw, gain)
                });
                if self.params.extra_acked && self.full_pipe.is_reached() {
                    let aggregation = &self.aggregation;
                    target += self.allowance.get((aggregation.extra_acked(), bw), || {
                        aggregation.allowance(bw, 1.0)
                    });
                }
                let target = self.quantization_budget(target);
                let target = if self.linux.loss_reaction {
                    PacketConservation.limit_target(ctx, target)
                } else {
                    self.ext.loss_reaction.limit_target(ctx, target)
                };
                if self.full_pipe.is_reached() {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || event.rate.total_delivered < self.initial_cwnd {
                    // Slow-start toward the target; never cut before the pipe is full.
                    cwnd += acked;
                }
                cwnd = cwnd.max(self.min_cwnd());
            }
        }
        let (cwnd_cap, inflight_cap) = if self.linux.cwnd_gain {
            (FixedCwndGain.cwnd_cap(ctx), FixedCwndGain.inflight_cap(ctx))
        } else {
            let policy = &self.ext.cwnd_gain;
            (policy.cwnd_cap(ctx), policy.inflight_cap(ctx))
        };
        if let Some(cap) = cwnd_cap {
            cwnd = cwnd.min(cap);
        }
        self.inflight_cap = inflight_cap;
        if let Some(cap) = self.inflight_cap {
            cwnd = cwnd.min(cap);
        }
        // Linux lets packet conservation take cwnd below 4 packets when
        // little is in flight; the floor holds here in every state.
        cwnd = cwnd.max(self.min_cwnd());
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(self.min_cwnd());
        }
        self.cwnd = cwnd;
    }

    /// Whether BBR is in recovery after `event`: it enters with the
    /// transport's congestion event and stays until a packet sent after the
    /// latest loss is acknowledged (see "Deviations" in the module essay).
    fn in_recovery_after(&self, event: &AckEvent) -> bool {
        if !self.recovery.was_in_recovery {
            return event.in_recovery;
        }
        match (self.recovery.latest_loss, event.rate.newest_sent_time) {
            (Some(loss), Some(sent)) => sent <= loss,
            // An ACK that acknowledged nothing changes nothing.
            (Some(_), None) => true,
            // No loss reported packet by packet: follow the transport's period.
            (None, _) => event.in_recovery,
        }
    }

    /// Deducts losses, starts packet conservation on entering recovery and
    /// restores the saved cwnd on leaving it. Returns whether packet
    /// conservation decided the window.
    fn recover_or_restore(&mut self, ctx: &AckContext, cwnd: &mut Bytes) -> bool {
        let event = ctx.event;
        let acked = event.newly_acked;
        // An ACK for P packets releases at most 2P: first take back the losses.
        if event.newly_lost > Bytes::ZERO {
            *cwnd = (*cwnd - event.newly_lost).max(self.mss);
        }
        let inflight_plus_acked = event.bytes_in_flight + acked;
        if ctx.recovery_entered {
            self.recovery.packet_conservation = true;
            self.rounds.start_round_now(event.rate.total_delivered);
            *cwnd = self
                .ext
                .loss_reaction
                .recovery_cwnd(ctx, inflight_plus_acked);
        } else if self.recovery.was_in_recovery && !self.recovery.in_recovery {
            if self.ext.loss_reaction.restores_cwnd_after_recovery() {
                *cwnd = (*cwnd).max(self.recovery.prior_cwnd);
            }
            self.recovery.packet_conservation = false;
        }
        self.recovery.was_in_recovery = self.recovery.in_recovery;
        if self.recovery.packet_conservation {
            *cwnd = self
                .ext
                .loss_reaction
                .conservation_cwnd(ctx, *cwnd, inflight_plus_acked);
            return true;
        }
        false
    }
}

impl CongestionControl for Bbr {
    fn spec(&self) -> &str {
        &self.spec
    }

    fn on_packet_sent(&mut self, event: &SentEvent) {
        // Restarting from idle: don't let an old aggregation epoch or a
        // probing gain burst the new flight out.
        if event.app_limited && event.bytes_in_flight == event.bytes {
            self.idle_restart = true;
            self.aggregation = AckAggregation::default();
            match self.mode {
                Mode::ProbeBw => self.pace_at(
                    self.pacing_bandwidth()
                        .mul_f64(1.0 - self.params.pacing_margin),
                ),
                Mode::ProbeRtt => self.check_probe_rtt_done(event.now),
                _ => {}
            }
        }
    }

    /// Only a restart from idle (`on_packet_sent`, above: keep the two
    /// together) touches the pacing rate or the mode.
    fn send_may_change_outputs(&self, event: &SentEvent) -> bool {
        event.app_limited && event.bytes_in_flight == event.bytes
    }

    fn on_ack(&mut self, event: &AckEvent) {
        if event.newly_acked > Bytes::ZERO {
            self.delivered_time = event.now;
        }
        self.recovery.in_recovery = self.in_recovery_after(event);
        let recovery_entered = self.recovery.in_recovery && !self.recovery.was_in_recovery;
        if recovery_entered {
            self.save_cwnd();
        }
        let (round_start, _app_limited) = self.update_model(event);
        if let Some(mut detector) = self.ext.drop_detector.take() {
            let ctx = self.context(event, round_start, recovery_entered);
            if let Some(bw) = detector.on_ack(&ctx, event.rate.delivery_rate) {
                self.ext.bandwidth_filter.set(self.rounds.count(), bw);
                self.bw = Estimates::of(&*self.ext.bandwidth_filter, &self.long_term);
            }
            self.ext.drop_detector = Some(detector);
        }
        self.update_gains();
        let mut ctx = self.context(event, round_start, recovery_entered);
        // Linux's points observe nothing.
        if !self.linux.cwnd_gain {
            self.ext.cwnd_gain.on_ack(&ctx);
        }
        if !self.linux.probe_gain {
            self.ext.probe_gain.on_ack(&ctx);
            // Probe gains may have changed with the policy's state (no other
            // input of the gains moves here).
            self.update_gains();
        }
        if !self.linux.loss_reaction {
            self.ext.loss_reaction.on_ack(&ctx);
        }
        self.cwnd_gain = if self.linux.cwnd_gain {
            FixedCwndGain.cwnd_gain(&ctx, self.cwnd_gain)
        } else {
            self.ext.cwnd_gain.cwnd_gain(&ctx, self.cwnd_gain)
        };
        self.set_pacing_rate(
            self.pacing_bandwidth(),
            self.pacing_gain,
            event.rtt.smoothed,
        );
        // Of the context, only the pacing gain can have moved since it was
        // taken (the policies' callbacks change their own state alone):
        // the rest, the bandwidth and the BDP, is not computed again.
        ctx.pacing_gain = self.pacing_gain;
        self.set_cwnd(&ctx, ctx.bandwidth, self.cwnd_gain);
    }

    fn on_packet_lost(&mut self, event: &LossEvent) {
        self.recovery.latest_loss = Some(event.now);
        if event.persistent_congestion {
            // The QUIC analogue of an RTO (Linux `bbr_set_state(TCP_CA_Loss)`):
            // restart the plateau search and fall back to what is in flight.
            self.save_cwnd();
            self.recovery.was_in_recovery = true;
            self.full_pipe.reset_plateau();
            self.rounds.force_round_start();
            self.cwnd = (event.bytes_in_flight + self.mss).max(self.min_cwnd());
        }
    }

    fn cwnd(&self) -> Bytes {
        self.cwnd
    }

    fn pacing_rate(&self) -> Bandwidth {
        self.pacing_rate
    }

    fn send_quantum(&self) -> Bytes {
        self.quantum
    }

    fn probe_state(&self) -> ProbeState {
        ProbeState {
            pacing_gain: self.pacing_gain,
            in_startup: Some(!self.full_pipe.is_reached()),
            in_probe_rtt: self.mode == Mode::ProbeRtt,
            bandwidth_estimate: Some(self.bandwidth()),
        }
    }

    fn on_mtu_update(&mut self, max_datagram_size: Bytes) {
        // cwnd and the pacing rate come from the model; only the
        // packet-denominated floors and the send quantum use the size.
        self.mss = max_datagram_size.max(Bytes(1));
        self.quantum = send_quantum(self.pacing_rate, self.mss);
    }

    fn snapshot(&self) -> Snapshot {
        let mut extra = vec![
            ("round_count", self.rounds.count() as f64),
            ("cycle_phase", self.cycle_phase as f64),
            ("extra_acked", self.aggregation.extra_acked().as_f64()),
            ("prior_cwnd", self.recovery.prior_cwnd.as_f64()),
            (
                "lt_bw",
                self.long_term
                    .bandwidth_in_use()
                    .map_or(0.0, |b| b.as_bps_f64()),
            ),
        ];
        self.ext.bandwidth_filter.trace(&mut extra);
        self.ext.cwnd_gain.trace(&mut extra);
        self.ext.probe_gain.trace(&mut extra);
        self.ext.loss_reaction.trace(&mut extra);
        self.ext.drain_exit.trace(&mut extra);
        if let Some(d) = &self.ext.drop_detector {
            d.trace(&mut extra);
        }
        Snapshot {
            mode: self.mode.name(),
            bandwidth_estimate: Some(self.bandwidth()),
            min_rtt_estimate: self.min_rtt,
            pacing_gain: self.pacing_gain,
            cwnd_gain: self.cwnd_gain,
            extra,
        }
    }
}
