//! The tunables of the BBRv2/v3 core, the presets of the three registered
//! algorithms, and their spec parameters.
//!
//! BBRv2 (google/bbr `v2alpha`) and BBRv3 (draft-ietf-ccwg-bbr) run the same
//! state machine; what separates them is a handful of gains and three
//! decisions, all of which are fields here rather than code paths:
//!
//! | field | `bbr2` (v2alpha) | `bbr3` (draft) | Linux v3 |
//! |---|---|---|---|
//! | Startup pacing / cwnd gain | 2.885 / 2.885 | 2.77 / 2 | 2.77 / 2 |
//! | Drain pacing / cwnd gain | 1/2.885 / 2.885 | 0.5 / 2 | 0.35 / 2 |
//! | ProbeBW DOWN pacing gain | 0.75 | 0.90 | 0.91 |
//! | ProbeBW UP cwnd gain | 2 | 2.25 | 2.25 |
//! | end of UP ([`UpExit`]) | inflight >= 1.25 BDP after min_rtt | bandwidth plateau | plateau |
//! | Startup plateau signal ([`PlateauSignal`]) | max_bw | rate sample | rate sample |
//! | `full_loss_cnt` | 8 | 6 | 6 |
//! | inflight_hi on a loss exit from Startup ([`StartupLossHi`]) | see below | max(BDP, inflight_latest) | same |
//! | Drain capped at 3 rounds | no | yes | no |

use std::time::Duration;

use crate::spec::AlgorithmSpec;

/// What ends a ProbeBW_UP phase besides loss and precautionary probing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpExit {
    /// v2alpha: UP has lasted min_rtt and inflight reached
    /// `up_gain x BDP` (`bbr2_update_cycle_phase`, "is_queuing").
    InflightTarget,
    /// BBRv3: the delivery rate stopped growing 25% per round for three
    /// rounds while inflight_hi did not limit the window (`IsTimeToGoDown`).
    BandwidthPlateau,
}

/// What Startup's full-pipe detector watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlateauSignal {
    /// The max-filtered bandwidth (Linux v1 and v2alpha).
    MaxBw,
    /// The round-start rate sample itself (draft `CheckFullBWReached`).
    Sample,
}

/// The inflight_hi a loss exit from Startup leaves behind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartupLossHi {
    /// The cwnd at exit: Drucker et al. §IV-A a) ("sets the long-term upper
    /// bound to the current cwnd").
    Cwnd,
    /// One BDP with the quantization budget: v2alpha
    /// `bbr2_handle_queue_too_high_in_startup`.
    Bdp,
    /// `max(BDP, inflight_latest)`: the draft, Linux v3, and the task text.
    MaxBdpLatest,
}

/// What adaptive BBRv2 resets inflight_hi to at PROBE_REFILL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HiReset {
    /// `inflight_latest`, the most delivered in a round trip of the latest
    /// round (Drucker et al. §V-B b; `reset_to=0`). At REFILL that round is
    /// CRUISE's, at most 85% of inflight_hi, so the bound falls every cycle
    /// that UP does not win back: not the steady bound of their Fig. 6.
    Latest,
    /// One BDP at `max_bw`, `bbr_inflight(max_bw, 1)` (the abstract's
    /// "aligning BBRv2's upper bound with its maximum bandwidth estimation"
    /// and §I's "reset to BBRv2's maximum bandwidth estimate"; `reset_to=1`,
    /// the default): the bound is as steady as max_bw.
    MaxBwBdp,
}

/// When adaptive BBRv2 resets inflight_hi (Drucker et al. §V-B a).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HiResetAt {
    /// At the start of every PROBE_REFILL, once the cycle has reached its
    /// steady state (`reset_at=0`, the default: the paper's choice).
    Refill,
    /// Once per flow, when ProbeBW is first entered after Startup and Drain
    /// (`reset_at=1`; §V-B a rejects it: the bound "reflects Startup's
    /// unsustainably high sending rate").
    Flow,
    /// At the start of every ProbeBW cycle, PROBE_DOWN, including the one
    /// that a ProbeRTT exit starts (`reset_at=2`; §V-B a rejects it: the
    /// bound reflects "the low sending rates used during PROBE_RTT").
    Cycle,
}

crate::param_choice!(StartupLossHi {
    Cwnd = "cwnd",
    Bdp = "bdp",
    MaxBdpLatest = "max_bdp_latest",
});
crate::param_choice!(HiReset {
    Latest = "latest",
    MaxBwBdp = "max_bw_bdp",
});
crate::param_choice!(HiResetAt {
    Refill = "refill",
    Flow = "flow",
    Cycle = "cycle",
});

/// Every tunable of the BBRv2/v3 core.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bbr2Params {
    /// Startup pacing gain.
    pub startup_pacing_gain: f64,
    /// Startup cwnd gain.
    pub startup_cwnd_gain: f64,
    /// Drain pacing gain.
    pub drain_pacing_gain: f64,
    /// Drain cwnd gain.
    pub drain_cwnd_gain: f64,
    /// ProbeBW_DOWN pacing gain.
    pub down_gain: f64,
    /// ProbeBW_UP pacing gain (also the inflight target of [`UpExit::InflightTarget`]).
    pub up_gain: f64,
    /// ProbeBW cwnd gain outside UP.
    pub cwnd_gain: f64,
    /// ProbeBW_UP cwnd gain.
    pub up_cwnd_gain: f64,
    /// ProbeRTT's window as a fraction of the BDP.
    pub probe_rtt_cwnd_gain: f64,
    /// Loss rate (lost / tx_in_flight) above which a probe went "too high".
    pub loss_thresh: f64,
    /// Multiplicative factor of the loss response (Linux's `1 - beta`).
    pub beta: f64,
    /// Fraction of inflight_hi left free in CRUISE and ProbeRTT.
    pub headroom: f64,
    /// ACKs with losses in a round that, with a too-high loss rate, end
    /// Startup (0 disables the loss exit).
    pub full_loss_cnt: u32,
    /// inflight_hi after a loss exit from Startup.
    pub startup_loss_hi: StartupLossHi,
    /// What Startup's plateau detector watches.
    pub startup_plateau: PlateauSignal,
    /// What ends ProbeBW_UP.
    pub up_exit: UpExit,
    /// Drain ends after this many rounds even if inflight is still high
    /// (draft `CheckDrainDone`); `None` waits for inflight <= BDP (Linux).
    pub drain_max_rounds: Option<u64>,
    /// Shortest wall-clock wait between bandwidth probes.
    pub probe_wait_base: Duration,
    /// Random extra wait, uniform in `[0, probe_wait_rand)`.
    pub probe_wait_rand: Duration,
    /// Reno-coexistence bound on the wait, in round trips.
    pub probe_max_rounds: u64,
    /// Random head start on the round count, uniform in `[0, probe_rand_rounds)`.
    pub probe_rand_rounds: u64,
    /// How often ProbeRTT runs when no lower RTT was seen.
    pub probe_rtt_interval: Duration,
    /// How long ProbeRTT holds the reduced window.
    pub probe_rtt_duration: Duration,
    /// The min_rtt filter window.
    pub min_rtt_window: Duration,
    /// Add the extra-acked aggregation allowance to the cwnd target.
    pub extra_acked: bool,
    /// Drucker et al. §V-B: reset inflight_hi at every PROBE_REFILL
    /// (`None`: BBRv2's persistent inflight_hi).
    pub refill_hi_reset: Option<HiReset>,
    /// Where that reset happens (§V-B a); only read when
    /// `refill_hi_reset` is set.
    pub hi_reset_at: HiResetAt,
}

/// BBRv2's Startup gain, 2/ln 2.
pub const V2_HIGH_GAIN: f64 = 2.885;

impl Bbr2Params {
    /// BBRv2 as google/bbr `v2alpha` (`tcp_bbr2.c`) ships it, with the
    /// Startup-exit inflight_hi of Drucker et al. (see [`StartupLossHi`]).
    pub fn v2() -> Self {
        Bbr2Params {
            startup_pacing_gain: V2_HIGH_GAIN,
            startup_cwnd_gain: V2_HIGH_GAIN,
            drain_pacing_gain: 1.0 / V2_HIGH_GAIN,
            drain_cwnd_gain: V2_HIGH_GAIN,
            down_gain: 0.75,
            up_gain: 1.25,
            cwnd_gain: 2.0,
            up_cwnd_gain: 2.0,
            probe_rtt_cwnd_gain: 0.5,
            loss_thresh: 0.02,
            beta: 0.7,
            headroom: 0.15,
            full_loss_cnt: 8,
            startup_loss_hi: StartupLossHi::Cwnd,
            startup_plateau: PlateauSignal::MaxBw,
            up_exit: UpExit::InflightTarget,
            drain_max_rounds: None,
            probe_wait_base: Duration::from_secs(2),
            probe_wait_rand: Duration::from_secs(1),
            probe_max_rounds: 63,
            probe_rand_rounds: 2,
            probe_rtt_interval: Duration::from_secs(5),
            probe_rtt_duration: Duration::from_millis(200),
            min_rtt_window: Duration::from_secs(10),
            extra_acked: true,
            refill_hi_reset: None,
            hi_reset_at: HiResetAt::Refill,
        }
    }

    /// BBRv3 as draft-ietf-ccwg-bbr specifies it.
    pub fn v3() -> Self {
        Bbr2Params {
            startup_pacing_gain: 2.77,
            startup_cwnd_gain: 2.0,
            drain_pacing_gain: 0.5,
            drain_cwnd_gain: 2.0,
            down_gain: 0.90,
            up_gain: 1.25,
            cwnd_gain: 2.0,
            up_cwnd_gain: 2.25,
            full_loss_cnt: 6,
            startup_loss_hi: StartupLossHi::MaxBdpLatest,
            startup_plateau: PlateauSignal::Sample,
            up_exit: UpExit::BandwidthPlateau,
            drain_max_rounds: Some(3),
            ..Bbr2Params::v2()
        }
    }

    /// Drucker et al.'s adaptive BBRv2 (§V-B).
    pub fn adaptive() -> Self {
        Bbr2Params {
            refill_hi_reset: Some(HiReset::MaxBwBdp),
            ..Bbr2Params::v2()
        }
    }

    /// Applies the parameters every spec of the family declares (for
    /// `bbr3`, `down_gain` and `full_loss_cnt` with its own defaults).
    fn apply_common(&mut self, spec: &AlgorithmSpec) {
        let v2 = Bbr2Spec::from_spec(spec);
        self.loss_thresh = v2.loss_thresh;
        self.beta = v2.beta;
        self.headroom = v2.headroom;
        self.down_gain = v2.down_gain;
        self.full_loss_cnt = v2.full_loss_cnt;
        self.extra_acked = v2.extra_acked;
    }

    /// Reads a `bbr2` spec.
    pub fn from_v2_spec(spec: &AlgorithmSpec) -> Self {
        let mut p = Bbr2Params::v2();
        p.apply_common(spec);
        p.startup_loss_hi = Bbr2Spec::from_spec(spec).startup_hi;
        p
    }

    /// Reads a `bbr3` spec.
    pub fn from_v3_spec(spec: &AlgorithmSpec) -> Self {
        let mut p = Bbr2Params::v3();
        p.apply_common(spec);
        let v3 = Bbr3Spec::from_spec(spec);
        p.drain_pacing_gain = v3.drain_gain;
        p.drain_max_rounds = v3.drain_round_cap.then_some(3);
        p
    }

    /// Reads a `bbr2-adaptive` spec. `no_upper_bound=true` is §V-A's
    /// experiment: a loss threshold of 1000% (inflight_hi is almost never
    /// set) and no reset at REFILL, which would otherwise create the bound.
    pub fn from_adaptive_spec(spec: &AlgorithmSpec) -> Self {
        let mut p = Bbr2Params::from_v2_spec(spec);
        let adaptive = AdaptiveSpec::from_spec(spec);
        p.refill_hi_reset = Some(adaptive.reset_to);
        p.hi_reset_at = adaptive.reset_at;
        if adaptive.no_upper_bound {
            p.loss_thresh = NO_UPPER_BOUND_LOSS_THRESH;
            p.refill_hi_reset = None;
        }
        p
    }
}

/// The loss threshold of Drucker et al.'s "no upper bound" experiment (§V-A): 1000%.
pub const NO_UPPER_BOUND_LOSS_THRESH: f64 = 10.0;

crate::params! {
    /// The spec parameters of `bbr2` (defaults: [`Bbr2Params::v2`]); `bbr3`
    /// and `bbr2-adaptive` inherit them by name.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Bbr2Spec {
        /// See [`Bbr2Params::loss_thresh`].
        pub loss_thresh: f64 ["loss_thresh", 0.0..=10.0] = Bbr2Params::v2().loss_thresh
            => "loss rate (lost / inflight at send) above which a bandwidth probe went too high",
        /// See [`Bbr2Params::beta`].
        pub beta: f64 ["beta", 0.0..=1.0] = Bbr2Params::v2().beta
            => "multiplicative factor on bw_lo / inflight_lo per lossy round, floor of inflight_hi cuts",
        /// See [`Bbr2Params::headroom`].
        pub headroom: f64 ["headroom", 0.0..=0.5] = Bbr2Params::v2().headroom
            => "fraction of inflight_hi left unused in CRUISE and ProbeRTT",
        /// BBRv2's ProbeBW_DOWN gain (v2alpha: 0.75).
        pub down_gain: f64 ["down_gain", 0.5..=1.0] = Bbr2Params::v2().down_gain
            => "ProbeBW_DOWN pacing gain",
        /// BBRv2's Startup loss exit (v2alpha: 8 lossy ACKs).
        pub full_loss_cnt: u32 ["full_loss_cnt", 0..=15] = Bbr2Params::v2().full_loss_cnt
            => "ACKs with losses in a round needed (with a loss rate > loss_thresh) to end Startup; 0 disables",
        /// See [`StartupLossHi`].
        pub startup_hi: StartupLossHi ["startup_hi"] = Bbr2Params::v2().startup_loss_hi
            => "inflight_hi on a loss exit from Startup: cwnd (Drucker et al. IV-A), bdp (v2alpha code), max_bdp_latest = max(BDP, inflight_latest) (BBRv3); the codes 0, 1, 2 name them too",
        /// See [`Bbr2Params::extra_acked`].
        pub extra_acked: bool ["extra_acked"] = Bbr2Params::v2().extra_acked
            => "cwnd allowance for ACK aggregation",
    }
}

crate::params! {
    /// What `bbr3` declares beyond (or instead of) `bbr2`'s parameters
    /// (defaults: [`Bbr2Params::v3`]).
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Bbr3Spec {
        /// The draft's ProbeBW_DOWN gain.
        pub down_gain: f64 ["down_gain", 0.5..=1.0] = Bbr2Params::v3().down_gain
            => "ProbeBW_DOWN pacing gain (draft 0.90; Linux v3 0.91)",
        /// The draft's Drain pacing gain.
        pub drain_gain: f64 ["drain_gain", 0.1..=1.0] = Bbr2Params::v3().drain_pacing_gain
            => "Drain pacing gain (draft 0.5; Linux v3 0.35)",
        /// The draft's 3-round cap on Drain.
        pub drain_round_cap: bool ["drain_round_cap"] = Bbr2Params::v3().drain_max_rounds.is_some()
            => "leave Drain after 3 rounds even if inflight > BDP (draft; Linux v3: false)",
        /// The draft's Startup loss exit.
        pub full_loss_cnt: u32 ["full_loss_cnt", 0..=15] = Bbr2Params::v3().full_loss_cnt
            => "lossy ACKs in a round needed (with a loss rate > loss_thresh) to end Startup; 0 disables",
    }
}

crate::params! {
    /// What `bbr2-adaptive` declares beyond `bbr2`'s parameters.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct AdaptiveSpec {
        /// See [`HiReset`].
        pub reset_to: HiReset ["reset_to"] = HiReset::MaxBwBdp
            => "inflight_hi at each REFILL: max_bw_bdp = BDP at max_bw (abstract, I; Fig. 6's steady bound), latest = inflight_latest (V-B b); the codes 1, 0 name them too",
        /// See [`HiResetAt`].
        pub reset_at: HiResetAt ["reset_at"] = HiResetAt::Refill
            => "where inflight_hi is reset: refill = every PROBE_REFILL (V-B a), flow = once per flow, at the first ProbeBW entry, cycle = every cycle start, PROBE_DOWN (the two V-B a rejects); the codes 0, 1, 2 name them too",
        /// Drucker et al. §V-A.
        pub no_upper_bound: bool ["no_upper_bound"] = false
            => "Drucker et al. V-A: loss threshold 1000% and no reset, so inflight_hi is (almost) never set",
    }
}
