//! Mechanism tests of B3R: the simple (oBBR code) gain adaptation, the full
//! version's queue classification, small-queue adaptation and large-queue
//! phase rules, and the whole controller on a lossless pipe.

use std::time::Duration;

use super::*;
use crate::bbr::GAIN_CYCLE;
use crate::controller::AckEvent;
use crate::testing::Ack;
use crate::testing::Pipe;
use crate::units::Bandwidth;

const MIN_RTT: Duration = Duration::from_millis(100);

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

/// Feeds a policy hand-made ACKs, playing the core's part: mode, phase,
/// min_rtt and the clock.
struct Driver {
    policy: B3rProbeGain,
    now: Instant,
    mode: Mode,
    phase: usize,
}

impl Driver {
    fn new(variant: Variant, literal_code: bool) -> Self {
        Driver {
            policy: B3rProbeGain::new(B3rParams {
                variant,
                literal_code,
            }),
            now: Instant::from_nanos(1_000_000_000),
            mode: Mode::Startup,
            phase: 0,
        }
    }

    fn event(&self, lost: bool, rtt: Duration) -> AckEvent {
        Ack::at(self.now)
            .rtt(rtt)
            .min_rtt(MIN_RTT)
            .lost(if lost { Bytes(1500) } else { Bytes::ZERO })
            .in_flight(Bytes(100_000))
            .in_recovery(lost)
            .build()
    }

    /// One ACK `dt` after the previous one.
    fn ack_rtt(&mut self, dt: Duration, lost: bool, rtt: Duration) {
        self.now += dt;
        let event = self.event(lost, rtt);
        let in_probe_bw = self.mode == Mode::ProbeBw;
        let base = if in_probe_bw {
            GAIN_CYCLE[self.phase]
        } else {
            1.0
        };
        let ctx = AckContext {
            event: &event,
            mode: self.mode,
            cycle_phase: in_probe_bw.then_some(self.phase),
            pacing_gain: self.policy.pacing_gain(self.phase, base),
            round_start: false,
            round_count: 0,
            bandwidth: Bandwidth::from_mbps(40),
            min_rtt: Some(MIN_RTT),
            bdp: Some(Bytes(500_000)),
            cwnd: Bytes(1_000_000),
            full_pipe: true,
            recovery_entered: false,
            mss: Bytes(1500),
        };
        self.policy.on_ack(&ctx);
    }

    fn ack(&mut self, lost: bool) {
        self.ack_rtt(ms(1), lost, MIN_RTT);
    }

    /// The core enters ProbeBW at `phase` (after Drain or ProbeRTT).
    fn enter_probe_bw(&mut self, phase: usize) {
        self.mode = Mode::ProbeBw;
        self.phase = phase;
        self.ack(false);
    }

    /// The core advances to the next phase on a (lossless) ACK.
    fn next_phase(&mut self) {
        self.phase = (self.phase + 1) % GAIN_CYCLE.len();
        self.ack(false);
    }

    /// Runs phases until `phase` is in force.
    fn run_to(&mut self, phase: usize) {
        while self.phase != phase {
            self.next_phase();
        }
    }

    /// One whole cycle from phase 2 back to phase 2, with a loss in the
    /// probe phase if `probe_loss` and in the drain phase if `drain_loss`.
    fn cycle(&mut self, probe_loss: bool, drain_loss: bool) {
        self.run_to(0);
        self.ack(probe_loss);
        self.next_phase();
        self.ack(drain_loss);
        self.next_phase();
    }

    fn probe_rtt(&mut self) {
        self.mode = Mode::ProbeRtt;
        self.ack(false);
    }
}

// ---- simple version (the oBBR code) ----

#[test]
fn simple_cuts_two_per_lossy_ack_down_to_42() {
    let mut d = Driver::new(Variant::Simple, false);
    d.ack(false);
    assert_eq!(d.policy.gain_num(), 50);
    let mut seen = Vec::new();
    for _ in 0..6 {
        d.ack(true);
        seen.push(d.policy.gain_num());
    }
    assert_eq!(seen, [48, 46, 44, 42, 42, 42], "-2 per lossy ACK, floor 42");
}

#[test]
fn simple_raises_two_per_ack_more_than_min_rtt_after_the_last_loss_up_to_50() {
    let mut d = Driver::new(Variant::Simple, false);
    for _ in 0..5 {
        d.ack(true);
    }
    assert_eq!(d.policy.gain_num(), 42);
    // 99 ms of ACKs: still within min_rtt of the loss.
    for _ in 0..99 {
        d.ack(false);
    }
    assert_eq!(d.policy.gain_num(), 42, "not yet min_rtt after the loss");
    d.ack(false); // exactly 100 ms: not *more* than min_rtt
    assert_eq!(d.policy.gain_num(), 42);
    let mut seen = Vec::new();
    for _ in 0..6 {
        d.ack(false);
        seen.push(d.policy.gain_num());
    }
    assert_eq!(seen, [44, 46, 48, 50, 50, 50], "+2 per ACK, cap 50");
    // A new loss restarts the timer.
    d.ack(true);
    d.ack(false);
    assert_eq!(d.policy.gain_num(), 48);
}

#[test]
fn simple_probe_gain_is_latched_when_the_probe_phase_starts() {
    let mut d = Driver::new(Variant::Simple, false);
    d.enter_probe_bw(5);
    d.run_to(0);
    assert_eq!(d.policy.probe_gain(), 1.25);
    // Losses during the probe lower gum, not the probe in force.
    d.ack(true);
    d.ack(true);
    assert_eq!(d.policy.gain_num(), 46);
    assert_eq!(d.policy.pacing_gain(0, 1.25), 1.25);
    d.next_phase();
    d.run_to(0);
    assert_eq!(
        d.policy.pacing_gain(0, 1.25),
        46.0 / 40.0,
        "the next probe starts at gum/40 (no quiet min_rtt yet)"
    );
    assert_eq!(
        d.policy.pacing_gain(1, 0.75),
        0.75,
        "other phases keep Linux's gains"
    );
}

#[test]
fn simple_literal_code_rewrites_the_gain_only_on_loss() {
    let mut d = Driver::new(Variant::Simple, true);
    d.enter_probe_bw(2);
    d.ack(true); // gum 48, written
    d.ack(true); // gum 46, written
                 // Long quiet: gum climbs back to 50 but the stored gain stays 46/40.
    d.ack_rtt(ms(500), false, MIN_RTT);
    for _ in 0..4 {
        d.ack(false);
    }
    assert_eq!(d.policy.gain_num(), 50);
    d.run_to(0);
    assert_eq!(d.policy.probe_gain(), 46.0 / 40.0);
    // The next loss writes the decremented gum: 48.
    d.ack(true);
    d.next_phase();
    d.run_to(0);
    assert_eq!(d.policy.probe_gain(), 48.0 / 40.0);
}

#[test]
fn simple_never_classifies_nor_changes_phase_rules() {
    let mut d = Driver::new(Variant::Simple, false);
    d.enter_probe_bw(2);
    for _ in 0..4 {
        d.cycle(true, true);
    }
    assert_eq!(d.policy.queue_class(), QueueClass::Unclassified);
}

// ---- full version: classification ----

#[test]
fn three_lossy_cycles_without_rtt_growth_classify_small() {
    let mut d = Driver::new(Variant::Full, false);
    d.ack_rtt(ms(1), false, ms(140)); // max_rtt 1.4 min_rtt: not deep
    d.enter_probe_bw(2);
    assert_eq!(d.policy.queue_class(), QueueClass::Unknown);
    d.cycle(true, false);
    d.cycle(false, true);
    // Several lossy ACKs in one cycle count once.
    d.run_to(0);
    d.ack(true);
    d.ack(true);
    d.next_phase();
    d.ack(true);
    assert_eq!(d.policy.lossy_cycles(), 3);
    d.next_phase(); // third drain ends: classification at the next change
    assert_eq!(d.policy.queue_class(), QueueClass::Unknown);
    d.next_phase();
    assert_eq!(d.policy.queue_class(), QueueClass::Small);
}

#[test]
fn losses_in_cruise_phases_do_not_count() {
    let mut d = Driver::new(Variant::Full, false);
    d.enter_probe_bw(2);
    for _ in 0..3 {
        d.run_to(3);
        d.ack(true);
        d.cycle(false, false);
    }
    d.next_phase();
    assert_eq!(d.policy.lossy_cycles(), 0);
    assert_eq!(d.policy.queue_class(), QueueClass::Large);
    assert!(!d.policy.loss_flag());
}

#[test]
fn two_lossy_cycles_without_rtt_growth_classify_large() {
    let mut d = Driver::new(Variant::Full, false);
    d.enter_probe_bw(2);
    d.cycle(true, false);
    d.cycle(false, false);
    d.cycle(true, false);
    d.next_phase();
    assert_eq!(d.policy.lossy_cycles(), 2);
    assert_eq!(d.policy.queue_class(), QueueClass::Large);
    assert!(!d.policy.loss_flag(), "no RTT growth: no loss flag");
}

#[test]
fn rtt_growth_classifies_large_with_a_loss_flag_from_two_lossy_cycles() {
    for (lossy, flag) in [(0, false), (1, false), (2, true), (3, true)] {
        let mut d = Driver::new(Variant::Full, false);
        d.ack_rtt(ms(1), false, ms(151)); // max_rtt > 1.5 min_rtt
        d.enter_probe_bw(2);
        for c in 0..3 {
            d.cycle(c < lossy, false);
        }
        d.next_phase();
        assert_eq!(d.policy.queue_class(), QueueClass::Large, "{lossy} lossy");
        assert_eq!(d.policy.loss_flag(), flag, "{lossy} lossy cycles");
    }
}

#[test]
fn rtt_of_exactly_one_and_a_half_min_rtt_is_not_deep() {
    let mut d = Driver::new(Variant::Full, false);
    d.ack_rtt(ms(1), false, ms(150));
    d.enter_probe_bw(2);
    for _ in 0..3 {
        d.cycle(true, false);
    }
    d.next_phase();
    assert_eq!(d.policy.queue_class(), QueueClass::Small);
}

#[test]
fn max_rtt_filter_forgets_after_30_s() {
    let mut d = Driver::new(Variant::Full, false);
    d.ack_rtt(ms(1), false, ms(300));
    assert_eq!(d.policy.max_rtt(), Some(ms(300)));
    d.ack_rtt(Duration::from_secs(29), false, ms(120));
    assert_eq!(d.policy.max_rtt(), Some(ms(300)));
    d.ack_rtt(Duration::from_secs(2), false, ms(120));
    assert_eq!(
        d.policy.max_rtt(),
        Some(MIN_RTT),
        "expired: reset to min_rtt"
    );
    d.ack_rtt(ms(1), false, ms(120));
    assert_eq!(d.policy.max_rtt(), Some(ms(120)));
}

fn small_queue_driver(literal_code: bool) -> Driver {
    let mut d = Driver::new(Variant::Full, literal_code);
    d.enter_probe_bw(2);
    for _ in 0..3 {
        d.cycle(true, false);
    }
    d.next_phase();
    assert_eq!(d.policy.queue_class(), QueueClass::Small);
    d
}

// ---- full version: small-queue adaptation ----

#[test]
fn small_queue_cuts_four_on_a_lossy_probe_and_two_on_a_lossy_drain() {
    let mut d = small_queue_driver(false);
    assert_eq!(d.policy.gain_num(), 50);
    d.run_to(0);
    assert_eq!(d.policy.probe_gain(), 1.25);
    d.ack(true);
    d.ack(true); // one cut per phase
    assert_eq!(d.policy.gain_num(), 46);
    assert_eq!(
        d.policy.probe_gain(),
        1.25,
        "the running probe keeps its gain"
    );
    d.next_phase();
    d.ack(true);
    d.ack(true);
    assert_eq!(d.policy.gain_num(), 44);
    d.next_phase();
    assert_eq!(d.policy.gain_num(), 44, "a lossy cycle earns no raise");
    d.run_to(0);
    assert_eq!(d.policy.probe_gain(), 44.0 / 40.0);
    d.ack(true);
    assert_eq!(
        d.policy.gain_num(),
        GAIN_NUM_MIN,
        "44 - 4 clamps at 42 (gain 1.05)"
    );
    d.next_phase();
    d.ack(true);
    assert_eq!(d.policy.gain_num(), GAIN_NUM_MIN);
}

#[test]
fn small_queue_raises_two_after_a_loss_free_cycle_up_to_50() {
    let mut d = small_queue_driver(false);
    d.run_to(0);
    d.ack(true);
    d.next_phase();
    d.ack(true);
    d.next_phase();
    assert_eq!(d.policy.gain_num(), 44);
    let mut seen = Vec::new();
    for _ in 0..5 {
        d.cycle(false, false);
        seen.push(d.policy.gain_num());
    }
    assert_eq!(seen, [46, 48, 50, 50, 50]);
    // A loss in a cruise phase is not the probe's or the drain's.
    d.run_to(4);
    d.ack(true);
    d.cycle(false, false);
    assert_eq!(d.policy.gain_num(), 50);
}

#[test]
fn probe_rtt_restarts_classification_and_keeps_gain_num() {
    let mut d = small_queue_driver(false);
    d.run_to(0);
    d.ack(true);
    d.next_phase();
    d.ack(true);
    d.next_phase();
    assert_eq!(d.policy.gain_num(), 44);
    d.probe_rtt();
    d.enter_probe_bw(0);
    assert_eq!(d.policy.queue_class(), QueueClass::Unknown);
    assert_eq!(d.policy.probe_gain(), 1.25, "classification probes at 1.25");
    assert_eq!(d.policy.gain_num(), 44);
    for _ in 0..3 {
        d.cycle(true, false);
    }
    d.next_phase();
    assert_eq!(d.policy.queue_class(), QueueClass::Small);
    assert_eq!(
        d.policy.gain_num(),
        44,
        "classification cycles do not adapt gain_num"
    );
}

#[test]
fn literal_code_probes_at_125_after_reclassification_until_gain_num_changes() {
    for literal in [false, true] {
        let mut d = small_queue_driver(literal);
        // Drive gain_num to its floor.
        for _ in 0..3 {
            d.cycle(true, true);
        }
        assert_eq!(d.policy.gain_num(), GAIN_NUM_MIN);
        d.probe_rtt();
        d.enter_probe_bw(2);
        for _ in 0..3 {
            d.cycle(true, false);
        }
        d.next_phase();
        assert_eq!(d.policy.queue_class(), QueueClass::Small);
        d.run_to(0);
        let expected = if literal { 1.25 } else { 42.0 / 40.0 };
        assert_eq!(d.policy.probe_gain(), expected, "literal_code={literal}");
    }
}

// ---- full version: large-queue phase rules ----

fn phase_ctx(event: &AckEvent, elapsed: Duration, gain: f64, inflight: Bytes) -> PhaseContext<'_> {
    PhaseContext {
        event,
        phase: if gain > 1.0 {
            0
        } else if gain < 1.0 {
            1
        } else {
            2
        },
        elapsed,
        pacing_gain: gain,
        min_rtt: Some(MIN_RTT),
        inflight,
        bdp: Bytes(500_000),
        quantization_budget: Bytes(10_000),
    }
}

fn large_queue_driver(max_rtt: Duration, lossy_cycles: usize) -> Driver {
    let mut d = Driver::new(Variant::Full, false);
    d.ack_rtt(ms(1), false, max_rtt);
    d.enter_probe_bw(2);
    for c in 0..3 {
        d.cycle(c < lossy_cycles, false);
    }
    d.next_phase();
    assert_eq!(d.policy.queue_class(), QueueClass::Large);
    d
}

#[test]
fn large_queue_probe_lasts_a_eighth_of_the_queue_delay() {
    // max_rtt 260 ms: queue delay 160 ms, an eighth of it 20 ms.
    let d = large_queue_driver(ms(260), 0);
    let event = d.event(false, MIN_RTT);
    let target = Bytes(500_000).mul_f64(1.25) + Bytes(10_000);
    let p = &d.policy;
    assert!(!p.phase_done_with(&phase_ctx(&event, ms(20), 1.25, target), false));
    assert!(
        p.phase_done_with(&phase_ctx(&event, ms(21), 1.25, target), false),
        "past queue_delay/8 with the probe's inflight reached: done, although Linux waits min_rtt"
    );
    assert!(
        !p.phase_done_with(&phase_ctx(&event, ms(50), 1.25, target - Bytes(1)), false),
        "inflight short of the target and no loss: keep probing"
    );
    let lossy = d.event(true, MIN_RTT);
    assert!(p.phase_done_with(&phase_ctx(&lossy, ms(21), 1.25, Bytes(0)), false));
    // Cruise phases keep Linux's min_rtt.
    assert!(!p.phase_done_with(&phase_ctx(&event, ms(100), 1.0, Bytes(0)), true));
    assert!(p.phase_done_with(&phase_ctx(&event, ms(101), 1.0, Bytes(0)), false));
}

#[test]
fn large_queue_drain_aims_at_fifteen_sixteenths_of_the_bdp() {
    // Queue delay 60 ms (< 1.5 min_rtt), an eighth of it 7.5 ms.
    let d = large_queue_driver(ms(160), 0);
    let event = d.event(false, MIN_RTT);
    let p = &d.policy;
    let t1516 = Bytes(500_000).mul_f64(15.0 / 16.0) + Bytes(10_000);
    assert!(!p.phase_done_with(&phase_ctx(&event, ms(7), 0.75, t1516 + Bytes(1)), true));
    assert!(p.phase_done_with(&phase_ctx(&event, ms(7), 0.75, t1516), false));
    assert!(p.phase_done_with(&phase_ctx(&event, ms(8), 0.75, Bytes(900_000)), false));

    // With the loss flag: min_rtt *and* drained.
    let d = large_queue_driver(ms(160), 2);
    assert!(d.policy.loss_flag());
    let p = &d.policy;
    assert!(!p.phase_done_with(&phase_ctx(&event, ms(100), 0.75, t1516), true));
    assert!(!p.phase_done_with(&phase_ctx(&event, ms(200), 0.75, t1516 + Bytes(1)), true));
    assert!(p.phase_done_with(&phase_ctx(&event, ms(101), 0.75, t1516), false));
}

#[test]
fn large_queue_drain_behind_a_very_deep_queue_aims_at_the_bdp() {
    // Queue delay 200 ms (>= 1.5 min_rtt), an eighth of it 25 ms.
    let d = large_queue_driver(ms(300), 3);
    let event = d.event(false, MIN_RTT);
    let p = &d.policy;
    let t1 = Bytes(500_000) + Bytes(10_000);
    assert!(p.phase_done_with(&phase_ctx(&event, ms(10), 0.75, t1), false));
    assert!(!p.phase_done_with(&phase_ctx(&event, ms(25), 0.75, t1 + Bytes(1)), true));
    assert!(p.phase_done_with(&phase_ctx(&event, ms(26), 0.75, t1 + Bytes(1)), false));
}

#[test]
fn other_classes_keep_the_cores_verdict() {
    let d = small_queue_driver(false);
    let event = d.event(false, MIN_RTT);
    for gain in [1.25, 0.75, 1.0] {
        for default in [false, true] {
            assert_eq!(
                d.policy
                    .phase_done_with(&phase_ctx(&event, ms(30), gain, Bytes(0)), default),
                default
            );
        }
    }
}

// ---- the whole controller ----

#[test]
fn controller_classifies_a_deep_pipe_as_a_large_queue() {
    // The test pipe's buffer is unbounded: Startup queues over half a BDP,
    // and nothing is ever lost.
    let spec = AlgorithmSpec::parse("b3r").unwrap();
    let mut cc = spec.build(&ControllerConfig::new(7, Instant::ZERO));
    let mut pipe = Pipe::new(Bandwidth::from_mbps(20), ms(40));
    let class = |s: &crate::controller::Snapshot| {
        s.extra
            .iter()
            .find(|(n, _)| *n == "b3r_queue_class")
            .unwrap()
            .1
    };
    let mut saw_unknown = false;
    pipe.run_until(&mut *cc, Instant::from_nanos(4_000_000_000), |_, cc| {
        saw_unknown |= class(&cc.snapshot()) == 3.0;
    });
    let snap = cc.snapshot();
    assert!(saw_unknown, "classification ran after Drain");
    assert_eq!(snap.mode, "probe_bw");
    assert_eq!(class(&snap), 2.0, "deep queue seen in Startup: Large");
    let max_rtt = snap
        .extra
        .iter()
        .find(|(n, _)| *n == "b3r_max_rtt_ms")
        .unwrap()
        .1;
    assert!(max_rtt > 60.0, "max RTT {max_rtt} ms > 1.5 x 40 ms");
}

#[test]
fn simple_controller_probes_at_125_on_a_lossless_pipe() {
    let spec = AlgorithmSpec::parse("b3r:simple=true").unwrap();
    let mut cc = spec.build(&ControllerConfig::new(7, Instant::ZERO));
    let mut pipe = Pipe::new(Bandwidth::from_mbps(20), ms(40));
    let mut probe_gains = Vec::new();
    pipe.run_until(&mut *cc, Instant::from_nanos(4_000_000_000), |_, cc| {
        let s = cc.snapshot();
        if s.mode == "probe_bw" && s.pacing_gain > 1.0 {
            probe_gains.push(s.pacing_gain);
        }
    });
    assert!(!probe_gains.is_empty());
    assert!(
        probe_gains.iter().all(|g| *g == 1.25),
        "no loss: gum stays 50"
    );
}
