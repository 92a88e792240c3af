//! Mechanism tests of the BBRv2/v3 core.

use std::time::Duration;

use super::*;
use crate::rate::{DeliveryState, RateSample};
use crate::spec::AlgorithmSpec;
use crate::testing::Ack as AckBuilder;
use crate::testing::Pipe;

const MSS: Bytes = Bytes(1500);

fn config(seed: u64) -> ControllerConfig {
    ControllerConfig::new(seed, Instant::ZERO)
}

fn v2() -> Bbr2 {
    Bbr2::new("bbr2", Bbr2Params::v2(), &config(1))
}

fn v3() -> Bbr2 {
    Bbr2::new("bbr3", Bbr2Params::v3(), &config(1))
}

fn from_spec(spec: &str) -> Bbr2 {
    let spec = AlgorithmSpec::parse(spec).unwrap();
    let params = match spec.name() {
        "bbr2" => Bbr2Params::from_v2_spec(&spec),
        "bbr3" => Bbr2Params::from_v3_spec(&spec),
        _ => Bbr2Params::from_adaptive_spec(&spec),
    };
    Bbr2::new(spec.as_str(), params, &config(1))
}

fn secs(s: f64) -> Instant {
    Instant::from_nanos((s * 1e9) as u64)
}

fn packets(n: u64) -> Bytes {
    MSS * n
}

/// A synthetic ACK: one packet acked, a valid sample of `rate` over 40 ms.
struct Ack {
    now: Instant,
    total_delivered: Bytes,
    prior_delivered: Bytes,
    rate: Bandwidth,
    delivered: Bytes,
    tx_in_flight: Bytes,
    lost: Bytes,
    newly_lost: Bytes,
    in_flight: Bytes,
    in_recovery: bool,
}

impl Ack {
    fn new(now: Instant, total_delivered: Bytes, rate: Bandwidth) -> Self {
        Ack {
            now,
            total_delivered,
            // Not a round start unless the test says so.
            prior_delivered: Bytes::ZERO,
            rate,
            delivered: packets(100),
            tx_in_flight: packets(100),
            lost: Bytes::ZERO,
            newly_lost: Bytes::ZERO,
            in_flight: packets(100),
            in_recovery: false,
        }
    }

    fn event(&self) -> AckEvent {
        AckBuilder::at(self.now)
            .rate(RateSample {
                delivery_rate: Some(self.rate),
                delivered: self.delivered,
                interval: Duration::from_millis(40),
                prior_delivered: Some(self.prior_delivered),
                is_app_limited: false,
                tx_in_flight: self.tx_in_flight,
                lost: self.lost,
                total_delivered: self.total_delivered,
                total_lost: Bytes::ZERO,
                newest_sent_time: Some(self.now - Duration::from_millis(40)),
            })
            .rtt(Duration::from_millis(40))
            .acked(MSS)
            .lost(self.newly_lost)
            .prior_in_flight(self.in_flight + MSS)
            .bytes_in_flight(self.in_flight)
            .in_recovery(self.in_recovery)
            .build()
    }
}

/// A controller that has left Startup on a lossless 20 Mbit/s, 40 ms pipe.
fn steady(mut b: Bbr2) -> (Bbr2, Pipe) {
    let mut pipe = Pipe::new(Bandwidth::from_mbps(20), Duration::from_millis(40));
    pipe.run_until(&mut b, secs(1.5), |_, _| {});
    assert!(matches!(b.mode(), Mode::ProbeBw(_)), "{:?}", b.mode());
    (b, pipe)
}

#[test]
fn inflight_hi_is_cut_on_a_three_percent_loss_round_but_not_on_one_percent() {
    for (loss_percent, cut) in [(3, true), (1, false)] {
        let (mut b, pipe) = steady(v2());
        b.mode = Mode::ProbeBw(Phase::Up);
        b.probe.bw_probe_samples = true;
        b.probe.cycle_stamp = pipe.now;
        b.bounds.inflight_hi = Some(packets(200));
        let mut ack = Ack::new(
            pipe.now + Duration::from_millis(1),
            b.delivered + MSS,
            Bandwidth::from_mbps(20),
        );
        ack.tx_in_flight = packets(100);
        ack.lost = packets(loss_percent);
        // Above the BDP, so DOWN does not turn into CRUISE at once.
        ack.in_flight = packets(150);
        let target = b.target_inflight();
        b.on_ack(&ack.event());
        if cut {
            let expected = packets(100).max(target.mul_f64(0.7));
            assert_eq!(
                b.bounds.inflight_hi,
                Some(expected),
                "3% loss cuts inflight_hi"
            );
            assert!(expected < packets(200));
            assert_eq!(b.mode(), Mode::ProbeBw(Phase::Down), "and ends the probe");
            assert!(b.probe.prev_probe_too_high);
        } else {
            assert!(
                b.bounds.inflight_hi >= Some(packets(200)),
                "1% loss leaves inflight_hi: {:?}",
                b.bounds.inflight_hi
            );
            assert_eq!(b.mode(), Mode::ProbeBw(Phase::Up));
        }
    }
}

#[test]
fn a_lost_packet_sent_while_probing_cuts_inflight_hi_at_the_crossing_point() {
    let (mut b, pipe) = steady(v2());
    b.mode = Mode::ProbeBw(Phase::Up);
    b.probe.bw_probe_samples = true;
    b.bounds.inflight_hi = Some(packets(400));
    // 5 packets lost before this one, out of 200 in flight at its send: 3%.
    b.total_lost = packets(5);
    let target = b.target_inflight();
    let packet = DeliveryState {
        sent_time: pipe.now,
        size: MSS,
        delivered: b.delivered,
        delivered_time: pipe.now,
        first_send_time: pipe.now,
        is_app_limited: false,
        tx_in_flight: packets(200),
        lost: Bytes::ZERO,
    };
    b.on_packet_lost(&LossEvent {
        now: pipe.now,
        packet,
        bytes_in_flight: packets(100),
        new_congestion_event: true,
        persistent_congestion: false,
    });
    // 2% of 199 packets is 3.98: the loss rate crossed the threshold
    // before this packet, so inflight_hi is the inflight before it, unless
    // beta x target is larger.
    assert_eq!(
        b.bounds.inflight_hi,
        Some(packets(199).max(target.mul_f64(0.7)))
    );
    assert_eq!(b.mode(), Mode::ProbeBw(Phase::Down));
}

#[test]
fn lower_bounds_follow_max_of_latest_and_beta_on_a_lossy_round_outside_probing() {
    let (mut b, pipe) = steady(v2());
    b.mode = Mode::ProbeBw(Phase::Cruise);
    b.bounds.bw_lo = Some(Bandwidth::from_mbps(20));
    b.bounds.inflight_lo = Some(packets(100));
    // A new round starts...
    b.bounds.advance_latest(Bandwidth::ZERO, Bytes::ZERO);
    let mut now = pipe.now;
    let mut total = b.delivered;
    // ...lossy, at 10 Mbit/s delivering 40 packets per sample...
    for _ in 0..5 {
        now += Duration::from_millis(5);
        total += MSS;
        let mut ack = Ack::new(now, total, Bandwidth::from_mbps(10));
        ack.newly_lost = MSS;
        ack.lost = MSS;
        ack.delivered = packets(40);
        ack.tx_in_flight = packets(1000);
        b.on_ack(&ack.event());
    }
    // ...and ends: the ACK of a packet sent after the round began.
    now += Duration::from_millis(5);
    let mut ack = Ack::new(now, total + MSS, Bandwidth::from_mbps(10));
    ack.prior_delivered = total + MSS;
    ack.delivered = packets(40);
    ack.tx_in_flight = packets(1000);
    b.on_ack(&ack.event());
    assert_eq!(
        b.bounds.bw_lo,
        Some(Bandwidth::from_mbps(14)),
        "0.7 x 20 > latest 10"
    );
    assert_eq!(
        b.bounds.inflight_lo,
        Some(packets(70)),
        "0.7 x 100 > latest 40"
    );

    // While probing (UP), the same lossy round leaves the bounds alone.
    b.mode = Mode::ProbeBw(Phase::Up);
    b.bounds.loss_in_round = true;
    let before = (b.bounds.bw_lo, b.bounds.inflight_lo);
    now += Duration::from_millis(5);
    let total = b.delivered + MSS;
    let mut ack = Ack::new(now, total, Bandwidth::from_mbps(10));
    ack.prior_delivered = total;
    ack.delivered = packets(40);
    ack.tx_in_flight = packets(1000);
    b.on_ack(&ack.event());
    assert_eq!((b.bounds.bw_lo, b.bounds.inflight_lo), before);
}

#[test]
fn the_latest_round_wins_when_it_delivered_more_than_beta_times_the_bound() {
    let (mut b, pipe) = steady(v2());
    b.mode = Mode::ProbeBw(Phase::Down);
    b.bounds.bw_lo = Some(Bandwidth::from_mbps(20));
    b.bounds.inflight_lo = Some(packets(100));
    b.bounds.loss_in_round = true;
    b.bounds.bw_latest = Bandwidth::from_mbps(18);
    b.bounds.inflight_latest = packets(90);
    let total = b.delivered + MSS;
    let mut ack = Ack::new(
        pipe.now + Duration::from_millis(1),
        total,
        Bandwidth::from_mbps(1),
    );
    ack.prior_delivered = total;
    ack.delivered = packets(10);
    ack.tx_in_flight = packets(1000);
    b.on_ack(&ack.event());
    assert_eq!(b.bounds.bw_lo, Some(Bandwidth::from_mbps(18)));
    assert_eq!(b.bounds.inflight_lo, Some(packets(90)));
}

#[test]
fn cwnd_caps_per_phase() {
    let mut b = v2();
    b.bounds.inflight_hi = Some(packets(100));
    let huge = packets(10_000);
    for (mode, cap) in [
        (Mode::ProbeBw(Phase::Up), packets(100)),
        (Mode::ProbeBw(Phase::Refill), packets(100)),
        (Mode::ProbeBw(Phase::Down), packets(100)),
        (Mode::ProbeBw(Phase::Cruise), packets(85)),
        (Mode::ProbeRtt, packets(85)),
        (Mode::Startup, huge),
        (Mode::Drain, huge),
    ] {
        b.mode = mode;
        assert_eq!(b.bound_cwnd_for_model(huge), cap, "{mode:?}");
    }
    // inflight_lo caps every phase, Startup included.
    b.bounds.inflight_lo = Some(packets(50));
    for mode in [
        Mode::Startup,
        Mode::Drain,
        Mode::ProbeBw(Phase::Up),
        Mode::ProbeBw(Phase::Cruise),
        Mode::ProbeRtt,
    ] {
        b.mode = mode;
        assert_eq!(b.bound_cwnd_for_model(huge), packets(50), "{mode:?}");
    }
    // Never below 4 packets.
    b.bounds.inflight_lo = Some(packets(1));
    assert_eq!(b.bound_cwnd_for_model(huge), packets(4));
}

#[test]
fn up_grows_inflight_hi_by_one_two_four_packets_per_round_when_cwnd_limited() {
    let mut b = v2();
    b.mode = Mode::ProbeBw(Phase::Up);
    b.cwnd = packets(1000);
    b.cwnd_limited.on_send(true);
    b.bounds.inflight_hi = Some(packets(100));
    b.probe.up_rounds = 0;
    b.raise_inflight_hi_slope();
    let mut growth = Vec::new();
    for _ in 0..5 {
        let before = b.bounds.inflight_hi.unwrap();
        // One round: a window's worth of ACKs of one packet each.
        for i in 0..1000 {
            b.probe_inflight_hi_upward(MSS, i == 999);
        }
        b.cwnd_limited.on_send(true);
        growth.push((b.bounds.inflight_hi.unwrap() - before).get() / MSS.get());
    }
    assert_eq!(growth, vec![1, 2, 4, 8, 16]);

    // Not cwnd-limited: no growth.
    let mut b2 = v2();
    b2.cwnd = packets(1000);
    b2.bounds.inflight_hi = Some(packets(100));
    b2.raise_inflight_hi_slope();
    for _ in 0..2000 {
        b2.probe_inflight_hi_upward(MSS, false);
    }
    assert_eq!(b2.bounds.inflight_hi, Some(packets(100)));
}

#[test]
fn up_growth_runs_through_the_ack_path_while_inflight_hi_limits_the_window() {
    let (mut b, mut pipe) = steady(v2());
    // Pin inflight_hi below the BDP (100 KB): the window sits at it.
    b.bounds.inflight_hi = Some(packets(40));
    pipe.run_until(&mut b, pipe.now + Duration::from_secs(4), |_, _| {});
    let mut max_hi = Bytes::ZERO;
    let mut saw_up = false;
    pipe.run_until(&mut b, pipe.now + Duration::from_secs(4), |_, cc| {
        let snap = cc.snapshot();
        if snap.mode == "probe_bw:up" {
            saw_up = true;
        }
        let hi = snap
            .extra
            .iter()
            .find(|(k, _)| *k == "inflight_hi")
            .unwrap()
            .1;
        max_hi = max_hi.max(Bytes(hi as u64));
    });
    assert!(saw_up, "a probe ran");
    assert!(max_hi > packets(40), "UP raised inflight_hi to {max_hi}");
}

#[test]
fn probe_rtt_every_five_seconds_at_half_the_bdp() {
    let rtt = Duration::from_millis(100);
    let rate = Bandwidth::from_mbps(12); // BDP 150 KB = 100 packets
    let bdp = rate.bytes_in(rtt);
    let mut pipe = Pipe::new(rate, rtt);
    let mut b = v2();
    let mut entries = Vec::new();
    let mut exits = Vec::new();
    let mut in_probe_rtt = false;
    let mut min_cwnd_in = Bytes::MAX;
    pipe.run_until(&mut b, secs(16.5), |step, cc| {
        let now_in = cc.snapshot().mode == "probe_rtt";
        if now_in && !in_probe_rtt {
            entries.push(step.now);
        }
        if !now_in && in_probe_rtt {
            exits.push(step.now);
        }
        if now_in {
            min_cwnd_in = min_cwnd_in.min(cc.cwnd());
        }
        in_probe_rtt = now_in;
    });
    assert_eq!(
        entries.len(),
        3,
        "ProbeRTT at about 5, 10 and 15 s: {entries:?}"
    );
    // The first comes 5 s after the first (lowest) RTT sample.
    let first = entries[0].as_secs_f64();
    assert!((5.1..5.5).contains(&first), "first ProbeRTT at {first}");
    for pair in entries.windows(2) {
        let gap = (pair[1] - pair[0]).as_secs_f64();
        // 5 s counted from the end of the previous ProbeRTT.
        assert!((5.2..5.6).contains(&gap), "gap {gap}");
    }
    for (enter, exit) in entries.iter().zip(&exits) {
        let stay = *exit - *enter;
        assert!(stay >= Duration::from_millis(200), "stayed {stay:?}");
        assert!(
            stay < Duration::from_millis(200) + rtt * 3,
            "stayed {stay:?}"
        );
    }
    // The BDP as the controller sees it: min_rtt includes one packet's
    // serialization.
    let half = rate.bytes_in(b.min_rtt().unwrap()).mul_f64(0.5);
    assert!(
        half > bdp.mul_f64(0.5) && half < bdp.mul_f64(0.52),
        "{half}"
    );
    assert!(
        min_cwnd_in <= half && min_cwnd_in >= half - MSS * 2,
        "cwnd {min_cwnd_in} in ProbeRTT, half a BDP is {half}"
    );
}

/// Drives Startup through one loss round of `events` lossy ACKs, ended by
/// an ACK whose sample lost `lost` of 100 packets in flight. Returns the
/// cwnd before that last ACK.
fn startup_loss_round(b: &mut Bbr2, events: u32, lost: Bytes) -> Bytes {
    let mut now = secs(0.2);
    let mut total = packets(1000);
    // A round with a valid sample to learn min_rtt and a bandwidth.
    let mut ack = Ack::new(now, total, Bandwidth::from_mbps(100));
    ack.prior_delivered = total;
    b.on_ack(&ack.event());
    for i in 0..events {
        now += Duration::from_millis(1);
        total += MSS;
        let mut ack = Ack::new(now, total, Bandwidth::from_mbps(100));
        ack.in_recovery = true;
        ack.newly_lost = MSS;
        ack.prior_delivered = packets(900) + MSS * i as u64;
        ack.delivered = packets(600);
        b.on_ack(&ack.event());
    }
    let cwnd = b.cwnd();
    // The round (restarted at the first loss) ends.
    now += Duration::from_millis(40);
    total += MSS;
    let mut ack = Ack::new(now, total, Bandwidth::from_mbps(100));
    ack.in_recovery = true;
    ack.prior_delivered = total;
    ack.lost = lost;
    ack.tx_in_flight = packets(100);
    b.on_ack(&ack.event());
    cwnd
}

#[test]
fn startup_exits_on_eight_lossy_acks_with_loss_above_two_percent() {
    let mut b = v2();
    let cwnd = startup_loss_round(&mut b, 8, packets(3));
    assert!(b.is_full_pipe());
    assert!(
        matches!(b.mode(), Mode::Drain | Mode::ProbeBw(_)),
        "{:?}",
        b.mode()
    );
    // inflight_hi is the cwnd at exit (Drucker et al. IV-A).
    assert_eq!(b.bounds.inflight_hi, Some(cwnd));

    // Seven lossy ACKs are not enough; nor is a loss rate of 2% or less.
    let mut b = v2();
    startup_loss_round(&mut b, 7, packets(3));
    assert_eq!(b.mode(), Mode::Startup);
    let mut b = v2();
    startup_loss_round(&mut b, 12, packets(2));
    assert_eq!(b.mode(), Mode::Startup);
    // BBRv3 needs six.
    let mut b = v3();
    startup_loss_round(&mut b, 6, packets(3));
    assert!(b.is_full_pipe());
}

#[test]
fn startup_loss_exit_sets_inflight_hi_as_configured() {
    for code in 0..=2 {
        let mut b = from_spec(&format!("bbr2:startup_hi={code}"));
        let cwnd = startup_loss_round(&mut b, 8, packets(3));
        let hi = b.bounds.inflight_hi.unwrap();
        // 100 Mbit/s x 40 ms: 333 packets, plus the quantization budget.
        let bdp = b.inflight(b.max_bw(), 1.0);
        assert!(bdp > packets(333) && bdp < packets(600), "{bdp}");
        let expected = match code {
            0 => cwnd,
            1 => bdp,
            // The lossy ACKs each delivered 600 packets over their sample.
            _ => packets(600),
        };
        assert_eq!(hi, expected, "startup_hi={code}");
    }
}

#[test]
fn startup_exits_on_a_bandwidth_plateau() {
    let mut b = v2();
    let mut total = packets(10);
    for round in 1..=5 {
        let mut ack = Ack::new(secs(0.04 * round as f64), total, Bandwidth::from_mbps(10));
        ack.prior_delivered = total;
        ack.in_flight = packets(1000);
        b.on_ack(&ack.event());
        total += packets(10);
    }
    assert_eq!(b.mode(), Mode::Drain);
    assert_eq!(b.bounds.inflight_hi, None, "a plateau exit sets no bound");
}

#[test]
fn adaptive_resets_inflight_hi_at_refill() {
    // 0: no reset (BBRv2); 1: the latest round's inflight (`reset_to=0`);
    // 2: one BDP at max_bw (the default, `reset_to=1`).
    for (spec, reset) in [
        ("bbr2-adaptive:reset_to=0", 1),
        ("bbr2-adaptive", 2),
        ("bbr2", 0),
    ] {
        let (mut b, pipe) = steady(from_spec(spec));
        b.mode = Mode::ProbeBw(Phase::Cruise);
        b.bounds.inflight_hi = Some(packets(30));
        b.bounds.inflight_lo = Some(packets(20));
        b.bounds.bw_lo = Some(Bandwidth::from_mbps(5));
        b.bounds.inflight_latest = packets(66);
        // The probe wait is over.
        b.probe.cycle_stamp = pipe.now - Duration::from_secs(4);
        let bdp_at_max_bw = b.inflight(b.max_bw(), 1.0);
        assert_ne!(bdp_at_max_bw, packets(66), "the cases differ");
        let mut ack = Ack::new(
            pipe.now + Duration::from_millis(1),
            b.delivered + MSS,
            Bandwidth::from_mbps(5),
        );
        ack.delivered = packets(10);
        ack.tx_in_flight = packets(10);
        b.on_ack(&ack.event());
        assert_eq!(b.mode(), Mode::ProbeBw(Phase::Refill), "{spec}");
        let expected = match reset {
            0 => packets(30),
            1 => packets(66),
            _ => bdp_at_max_bw,
        };
        assert_eq!(b.bounds.inflight_hi, Some(expected), "{spec}");
        // REFILL forgets the lower bounds in both.
        assert_eq!(b.bounds.inflight_lo, None, "{spec}");
        assert_eq!(b.bounds.bw_lo, None, "{spec}");
    }
}

#[test]
fn adaptive_options() {
    let b = from_spec("bbr2-adaptive:no_upper_bound=true");
    assert_eq!(b.params.loss_thresh, NO_UPPER_BOUND_LOSS_THRESH);
    assert_eq!(b.params.refill_hi_reset, None);
    let b = from_spec("bbr2-adaptive:reset_to=1");
    assert_eq!(b.params.refill_hi_reset, Some(HiReset::MaxBwBdp));
    let b = from_spec("bbr2-adaptive:reset_to=0");
    assert_eq!(b.params.refill_hi_reset, Some(HiReset::Latest));
    let b = from_spec("bbr2-adaptive");
    assert_eq!(
        b.params.refill_hi_reset,
        Some(HiReset::MaxBwBdp),
        "the abstract's reading is the default"
    );
    assert_eq!(b.params.loss_thresh, 0.02);
}

#[test]
fn bbr3_gains_per_phase() {
    let mut b = v3();
    let cases = [
        (Mode::Startup, 2.77, 2.0),
        (Mode::Drain, 0.5, 2.0),
        (Mode::ProbeBw(Phase::Down), 0.90, 2.0),
        (Mode::ProbeBw(Phase::Cruise), 1.0, 2.0),
        (Mode::ProbeBw(Phase::Refill), 1.0, 2.0),
        (Mode::ProbeBw(Phase::Up), 1.25, 2.25),
        (Mode::ProbeRtt, 1.0, 0.5),
    ];
    for (mode, pacing, cwnd) in cases {
        b.mode = mode;
        b.update_gains();
        assert_eq!((b.pacing_gain, b.cwnd_gain), (pacing, cwnd), "{mode:?}");
    }
    // Linux v3's values are options.
    let mut b = from_spec("bbr3:drain_gain=0.35,down_gain=0.91");
    b.mode = Mode::Drain;
    b.update_gains();
    assert_eq!(b.pacing_gain, 0.35);
    b.mode = Mode::ProbeBw(Phase::Down);
    b.update_gains();
    assert_eq!(b.pacing_gain, 0.91);
}

#[test]
fn bbr2_gains_per_phase() {
    let mut b = v2();
    let cases = [
        (Mode::Startup, 2.885, 2.885),
        (Mode::Drain, 1.0 / 2.885, 2.885),
        (Mode::ProbeBw(Phase::Down), 0.75, 2.0),
        (Mode::ProbeBw(Phase::Cruise), 1.0, 2.0),
        (Mode::ProbeBw(Phase::Refill), 1.0, 2.0),
        (Mode::ProbeBw(Phase::Up), 1.25, 2.0),
    ];
    for (mode, pacing, cwnd) in cases {
        b.mode = mode;
        b.update_gains();
        assert_eq!((b.pacing_gain, b.cwnd_gain), (pacing, cwnd), "{mode:?}");
    }
}

#[test]
fn bbr3_leaves_drain_after_three_rounds_even_with_a_queue() {
    for (spec, leaves) in [("bbr3", true), ("bbr3:drain_round_cap=false", false)] {
        let mut b = from_spec(spec);
        b.full_pipe.set_reached();
        let mut total = packets(10);
        for round in 1..=6 {
            let mut ack = Ack::new(secs(0.04 * round as f64), total, Bandwidth::from_mbps(10));
            ack.prior_delivered = total;
            ack.in_flight = packets(10_000);
            b.on_ack(&ack.event());
            total += packets(10);
        }
        assert_eq!(
            matches!(b.mode(), Mode::ProbeBw(_)),
            leaves,
            "{spec}: {:?}",
            b.mode()
        );
    }
}

#[test]
fn probe_wait_is_two_to_three_seconds_and_62_to_63_rounds() {
    let mut waits = Vec::new();
    let mut rounds = std::collections::BTreeSet::new();
    for seed in 0..50 {
        let mut b = Bbr2::new("bbr2", Bbr2Params::v2(), &config(seed));
        b.start_probe_down();
        waits.push(b.probe.probe_wait);
        rounds.insert(b.probe.rounds_since_probe);
    }
    assert!(waits
        .iter()
        .all(|w| *w >= Duration::from_secs(2) && *w < Duration::from_secs(3)));
    assert!(waits.iter().any(|w| *w < Duration::from_millis(2300)));
    assert!(waits.iter().any(|w| *w > Duration::from_millis(2700)));
    // A head start of 0 or 1 round: 63 or 62 rounds to the next probe.
    assert_eq!(rounds.into_iter().collect::<Vec<_>>(), vec![0, 1]);
}

#[test]
fn small_bdp_flows_probe_on_the_reno_time_scale() {
    // 2.4 Mbit/s x 40 ms = 8 packets of BDP: probe after about 8 rounds,
    // long before 2 s.
    let mut pipe = Pipe::new(Bandwidth::from_kbps(2_400), Duration::from_millis(40));
    let mut b = v2();
    pipe.run_until(&mut b, secs(3.0), |_, _| {});
    let mut refills = Vec::new();
    let mut last = "";
    pipe.run_until(&mut b, secs(6.0), |step, cc| {
        let mode = cc.snapshot().mode;
        if mode == "probe_bw:refill" && last != mode {
            refills.push(step.now);
        }
        last = mode;
    });
    assert!(refills.len() >= 4, "probes at {refills:?}");
    for pair in refills.windows(2) {
        assert!(pair[1] - pair[0] < Duration::from_secs(1), "{refills:?}");
    }
}

#[test]
fn steady_state_fills_a_lossless_pipe_and_paces_at_the_estimate() {
    for mut b in [v2(), v3()] {
        let mut pipe = Pipe::new(Bandwidth::from_mbps(20), Duration::from_millis(40));
        pipe.run_until(&mut b, secs(4.0), |_, _| {});
        let bw = b.bw();
        assert!((bw.as_mbps_f64() - 20.0).abs() < 0.5, "{}: {bw}", b.spec);
        assert_eq!(b.bounds.inflight_lo, None, "no loss: no lower bound");
        if b.mode() == Mode::ProbeBw(Phase::Cruise) {
            assert_eq!(b.pacing_rate(), bw.mul_f64(0.99));
        }
    }
}

#[test]
fn persistent_congestion_falls_back_to_inflight_and_restores_on_exit() {
    let (mut b, pipe) = steady(v2());
    let before = b.cwnd();
    let packet = DeliveryState {
        sent_time: pipe.now,
        size: MSS,
        delivered: b.delivered,
        delivered_time: pipe.now,
        first_send_time: pipe.now,
        is_app_limited: false,
        tx_in_flight: packets(10),
        lost: Bytes::ZERO,
    };
    b.on_packet_lost(&LossEvent {
        now: pipe.now,
        packet,
        bytes_in_flight: packets(2),
        new_congestion_event: true,
        persistent_congestion: true,
    });
    assert_eq!(b.cwnd(), packets(4), "inflight + 1 packet, at least 4");
    if matches!(b.mode(), Mode::ProbeBw(Phase::Cruise | Phase::Down)) {
        assert_eq!(b.bounds.inflight_lo, Some(before));
    }
    // Recovery ends: the window comes back (bounded by the model).
    let mut ack = Ack::new(
        pipe.now + Duration::from_millis(50),
        b.delivered + MSS,
        Bandwidth::from_mbps(20),
    );
    ack.in_recovery = false;
    b.on_ack(&ack.event());
    assert!(b.cwnd() > packets(4), "{}", b.cwnd());
}

#[test]
fn send_quantum_and_minimum_window() {
    let mut b = v3();
    b.pacing_rate = Bandwidth::from_kbps(1_000);
    assert_eq!(b.send_quantum(), MSS);
    b.pacing_rate = Bandwidth::from_mbps(100);
    assert_eq!(b.send_quantum(), packets(8));
    b.pacing_rate = Bandwidth::from_mbps(10_000);
    assert_eq!(b.send_quantum(), packets(43), "64 KB cap");
    assert_eq!(b.min_cwnd(), packets(4));
}

/// Runs `b` on a lossless 20 Mbit/s, 40 ms pipe for `until` and returns,
/// for every ACK step where adaptive BBRv2 reset inflight_hi, the mode
/// before and after the step and the bound it set.
fn reset_steps(b: &mut Bbr2, until: Instant) -> Vec<(Mode, Mode, Option<Bytes>)> {
    let mut pipe = Pipe::new(Bandwidth::from_mbps(20), Duration::from_millis(40));
    let mut out = Vec::new();
    while pipe.now < until {
        let (mode, resets) = (b.mode(), b.hi_resets);
        pipe.step(b);
        if b.hi_resets != resets {
            assert_eq!(b.hi_resets, resets + 1, "one reset per step");
            out.push((mode, b.mode(), b.bounds.inflight_hi));
        }
    }
    out
}

#[test]
fn adaptive_reset_points() {
    // Twelve seconds: Startup, Drain, ProbeRTT at about 5 and 10 s, and
    // several ProbeBW cycles.
    let end = secs(12.0);
    // REFILL (the default): every reset enters REFILL, one per cycle.
    let mut b = from_spec("bbr2-adaptive");
    let refill = reset_steps(&mut b, end);
    assert!(refill.len() >= 3, "{refill:?}");
    for (_, after, _) in &refill {
        assert_eq!(*after, Mode::ProbeBw(Phase::Refill));
    }
    // Once per flow: one reset, where Drain hands over to ProbeBW, to one
    // BDP at max_bw (about 100 KB on this pipe) or to the latest round's
    // volume.
    for spec in [
        "bbr2-adaptive:reset_at=1",
        "bbr2-adaptive:reset_at=1,reset_to=0",
    ] {
        let mut b = from_spec(spec);
        let flow = reset_steps(&mut b, end);
        assert_eq!(flow.len(), 1, "{spec}: {flow:?}");
        let (before, after, hi) = flow[0];
        assert!(
            matches!(before, Mode::Drain | Mode::Startup),
            "{spec}: {before:?}"
        );
        assert!(matches!(after, Mode::ProbeBw(_)), "{spec}: {after:?}");
        assert!(hi.is_some(), "{spec}");
    }
    // Cycle start: a reset at every entry into PROBE_DOWN, including the
    // first (from Drain) and those that end ProbeRTT (DOWN, then CRUISE at
    // once).
    let mut b = from_spec("bbr2-adaptive:reset_at=2");
    let cycle = reset_steps(&mut b, end);
    assert!(
        matches!(cycle[0].0, Mode::Drain | Mode::Startup),
        "{cycle:?}"
    );
    let after_probe_rtt = cycle
        .iter()
        .filter(|(before, after, _)| {
            *before == Mode::ProbeRtt && *after == Mode::ProbeBw(Phase::Cruise)
        })
        .count();
    assert_eq!(after_probe_rtt, 2, "{cycle:?}");
    for (before, after, _) in &cycle[1..] {
        let from_up =
            matches!(before, Mode::ProbeBw(Phase::Up)) && *after == Mode::ProbeBw(Phase::Down);
        let from_probe_rtt = *before == Mode::ProbeRtt;
        assert!(from_up || from_probe_rtt, "{before:?} -> {after:?}");
    }
    // No REFILL resets there: REFILL keeps the bound the cycle start set.
    assert!(cycle
        .iter()
        .all(|(_, after, _)| *after != Mode::ProbeBw(Phase::Refill)));
    // BBRv2 never resets.
    let mut b = from_spec("bbr2");
    assert!(reset_steps(&mut b, end).is_empty());
}

#[test]
fn reset_at_option() {
    assert_eq!(
        from_spec("bbr2-adaptive").params.hi_reset_at,
        HiResetAt::Refill
    );
    assert_eq!(
        from_spec("bbr2-adaptive:reset_at=1").params.hi_reset_at,
        HiResetAt::Flow
    );
    assert_eq!(
        from_spec("bbr2-adaptive:reset_at=2").params.hi_reset_at,
        HiResetAt::Cycle
    );
}
