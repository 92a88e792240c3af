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

use crate::spec::{AlgorithmSpec, ParamKind, ParamSpec};

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

impl StartupLossHi {
    /// The spec encoding (`startup_hi=0|1|2`).
    pub fn from_code(code: u64) -> Self {
        match code {
            0 => StartupLossHi::Cwnd,
            1 => StartupLossHi::Bdp,
            _ => StartupLossHi::MaxBdpLatest,
        }
    }
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

impl HiReset {
    /// The spec encoding (`reset_to=0|1`).
    pub fn from_code(code: u64) -> Self {
        match code {
            0 => HiReset::Latest,
            _ => HiReset::MaxBwBdp,
        }
    }
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

impl HiResetAt {
    /// The spec encoding (`reset_at=0|1|2`).
    pub fn from_code(code: u64) -> Self {
        match code {
            1 => HiResetAt::Flow,
            2 => HiResetAt::Cycle,
            _ => HiResetAt::Refill,
        }
    }
}

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

    fn apply_common(&mut self, spec: &AlgorithmSpec) {
        self.loss_thresh = spec.float("loss_thresh");
        self.beta = spec.float("beta");
        self.headroom = spec.float("headroom");
        self.down_gain = spec.float("down_gain");
        self.full_loss_cnt = spec.int("full_loss_cnt") as u32;
        self.extra_acked = spec.flag("extra_acked");
    }

    /// Reads a `bbr2` spec.
    pub fn from_v2_spec(spec: &AlgorithmSpec) -> Self {
        let mut p = Bbr2Params::v2();
        p.apply_common(spec);
        p.startup_loss_hi = StartupLossHi::from_code(spec.int("startup_hi"));
        p
    }

    /// Reads a `bbr3` spec.
    pub fn from_v3_spec(spec: &AlgorithmSpec) -> Self {
        let mut p = Bbr2Params::v3();
        p.apply_common(spec);
        p.drain_pacing_gain = spec.float("drain_gain");
        p.drain_max_rounds = spec.flag("drain_round_cap").then_some(3);
        p
    }

    /// Reads a `bbr2-adaptive` spec. `no_upper_bound=true` is §V-A's
    /// experiment: a loss threshold of 1000% (inflight_hi is almost never
    /// set) and no reset at REFILL, which would otherwise create the bound.
    pub fn from_adaptive_spec(spec: &AlgorithmSpec) -> Self {
        let mut p = Bbr2Params::from_v2_spec(spec);
        p.refill_hi_reset = Some(HiReset::from_code(spec.int("reset_to")));
        p.hi_reset_at = HiResetAt::from_code(spec.int("reset_at"));
        if spec.flag("no_upper_bound") {
            p.loss_thresh = NO_UPPER_BOUND_LOSS_THRESH;
            p.refill_hi_reset = None;
        }
        p
    }
}

/// The loss threshold of Drucker et al.'s "no upper bound" experiment (§V-A): 1000%.
pub const NO_UPPER_BOUND_LOSS_THRESH: f64 = 10.0;

const LOSS_THRESH: ParamSpec = ParamSpec {
    name: "loss_thresh",
    kind: ParamKind::Float {
        min: 0.0,
        max: 10.0,
    },
    default: "0.02",
    doc: "loss rate (lost / inflight at send) above which a bandwidth probe went too high",
};
const BETA: ParamSpec = ParamSpec {
    name: "beta",
    kind: ParamKind::Float { min: 0.0, max: 1.0 },
    default: "0.7",
    doc: "multiplicative factor on bw_lo / inflight_lo per lossy round, floor of inflight_hi cuts",
};
const HEADROOM: ParamSpec = ParamSpec {
    name: "headroom",
    kind: ParamKind::Float { min: 0.0, max: 0.5 },
    default: "0.15",
    doc: "fraction of inflight_hi left unused in CRUISE and ProbeRTT",
};
const EXTRA_ACKED: ParamSpec = ParamSpec {
    name: "extra_acked",
    kind: ParamKind::Bool,
    default: "true",
    doc: "cwnd allowance for ACK aggregation",
};
const STARTUP_HI: ParamSpec = ParamSpec {
    name: "startup_hi",
    kind: ParamKind::Int { min: 0, max: 2 },
    default: "0",
    doc: "inflight_hi on a loss exit from Startup: 0 = cwnd (Drucker et al. IV-A), 1 = BDP (v2alpha code), 2 = max(BDP, inflight_latest) (BBRv3)",
};

/// BBRv2's ProbeBW_DOWN gain (v2alpha: 0.75), shared by `bbr2` and `bbr2-adaptive`.
const V2_DOWN_GAIN: ParamSpec = ParamSpec {
    name: "down_gain",
    kind: ParamKind::Float { min: 0.5, max: 1.0 },
    default: "0.75",
    doc: "ProbeBW_DOWN pacing gain",
};

/// BBRv2's Startup loss exit (v2alpha: 8 lossy ACKs), shared by `bbr2` and `bbr2-adaptive`.
const V2_FULL_LOSS_CNT: ParamSpec = ParamSpec {
    name: "full_loss_cnt",
    kind: ParamKind::Int { min: 0, max: 15 },
    default: "8",
    doc: "ACKs with losses in a round needed (with a loss rate > loss_thresh) to end Startup; 0 disables",
};

/// The parameters of `bbr2`.
pub const BBR2_PARAMS: &[ParamSpec] = &[
    LOSS_THRESH,
    BETA,
    HEADROOM,
    V2_DOWN_GAIN,
    V2_FULL_LOSS_CNT,
    STARTUP_HI,
    EXTRA_ACKED,
];

/// The parameters of `bbr3`.
pub const BBR3_PARAMS: &[ParamSpec] = &[
    LOSS_THRESH,
    BETA,
    HEADROOM,
    ParamSpec {
        name: "down_gain",
        kind: ParamKind::Float { min: 0.5, max: 1.0 },
        default: "0.9",
        doc: "ProbeBW_DOWN pacing gain (draft 0.90; Linux v3 0.91)",
    },
    ParamSpec {
        name: "drain_gain",
        kind: ParamKind::Float { min: 0.1, max: 1.0 },
        default: "0.5",
        doc: "Drain pacing gain (draft 0.5; Linux v3 0.35)",
    },
    ParamSpec {
        name: "drain_round_cap",
        kind: ParamKind::Bool,
        default: "true",
        doc: "leave Drain after 3 rounds even if inflight > BDP (draft; Linux v3: false)",
    },
    ParamSpec {
        name: "full_loss_cnt",
        kind: ParamKind::Int { min: 0, max: 15 },
        default: "6",
        doc: "lossy ACKs in a round needed (with a loss rate > loss_thresh) to end Startup; 0 disables",
    },
    EXTRA_ACKED,
];

/// The parameters of `bbr2-adaptive`.
pub const ADAPTIVE_PARAMS: &[ParamSpec] = &[
    LOSS_THRESH,
    BETA,
    HEADROOM,
    V2_DOWN_GAIN,
    V2_FULL_LOSS_CNT,
    STARTUP_HI,
    EXTRA_ACKED,
    ParamSpec {
        name: "reset_to",
        kind: ParamKind::Int { min: 0, max: 1 },
        default: "1",
        doc: "inflight_hi at each REFILL: 1 = BDP at max_bw (abstract, I; Fig. 6's steady bound), 0 = inflight_latest (V-B b)",
    },
    ParamSpec {
        name: "reset_at",
        kind: ParamKind::Int { min: 0, max: 2 },
        default: "0",
        doc: "where inflight_hi is reset: 0 = every PROBE_REFILL (V-B a), 1 = once per flow, at the first ProbeBW entry, 2 = every cycle start, PROBE_DOWN (the two V-B a rejects)",
    },
    ParamSpec {
        name: "no_upper_bound",
        kind: ParamKind::Bool,
        default: "false",
        doc: "Drucker et al. V-A: loss threshold 1000% and no reset, so inflight_hi is (almost) never set",
    },
];
