//! Mechanism tests of the BBRv1 core.

use std::time::Duration;

use super::*;
use crate::rate::RateSample;
use crate::testing::Ack;
use crate::testing::Pipe;

fn bbr(seed: u64) -> Bbr {
    Bbr::new(
        "bbr",
        BbrParams::default(),
        &ControllerConfig::new(seed, Instant::ZERO),
    )
}

fn secs(s: f64) -> Instant {
    Instant::from_nanos((s * 1e9) as u64)
}

/// An ACK that starts a new round with a given delivery rate.
fn round_ack(now: Instant, total: Bytes, rate: Bandwidth, in_flight: Bytes) -> AckEvent {
    Ack::at(now)
        .rate(RateSample {
            delivery_rate: Some(rate),
            delivered: Bytes(15_000),
            interval: Duration::from_millis(40),
            prior_delivered: Some(total - Bytes(15_000)),
            total_delivered: total,
            newest_sent_time: Some(now - Duration::from_millis(40)),
            ..RateSample::default()
        })
        .rtt(Duration::from_millis(40))
        .in_flight(in_flight)
        .build()
}

#[test]
fn startup_exits_after_three_flat_rounds() {
    let mut b = bbr(1);
    let rate = Bandwidth::from_mbps(10);
    let in_flight = Bytes(1_000_000); // large: Drain does not end at once
    let mut total = Bytes(15_000);
    for round in 1..=4 {
        b.on_ack(&round_ack(
            secs(0.04 * round as f64),
            total,
            rate,
            in_flight,
        ));
        total += Bytes(15_000);
        if round < 4 {
            assert_eq!(
                b.mode(),
                Mode::Startup,
                "round {round}: {} flat rounds so far",
                round - 1
            );
        }
    }
    assert_eq!(b.mode(), Mode::Drain, "third flat round ends Startup");
    assert_eq!(b.snapshot().pacing_gain, DRAIN_GAIN);
}

#[test]
fn growing_bandwidth_keeps_startup_going() {
    let mut b = bbr(1);
    let mut total = Bytes(15_000);
    let mut rate = Bandwidth::from_mbps(1);
    for round in 1..=10 {
        b.on_ack(&round_ack(
            secs(0.04 * round as f64),
            total,
            rate,
            Bytes(1_000_000),
        ));
        total += Bytes(15_000);
        rate = rate.mul_f64(1.3);
        assert_eq!(b.mode(), Mode::Startup);
    }
}

#[test]
fn drain_ends_when_inflight_falls_to_one_bdp() {
    let mut b = bbr(1);
    let rate = Bandwidth::from_mbps(12); // BDP at 40 ms = 60 KB
    let mut total = Bytes(15_000);
    for round in 1..=4 {
        b.on_ack(&round_ack(
            secs(0.04 * round as f64),
            total,
            rate,
            Bytes(500_000),
        ));
        total += Bytes(15_000);
    }
    assert_eq!(b.mode(), Mode::Drain);
    b.on_ack(&round_ack(secs(0.2), total, rate, Bytes(50_000)));
    assert_eq!(b.mode(), Mode::ProbeBw);
}

#[test]
fn probe_bw_never_starts_in_the_draining_phase() {
    for seed in 0..200 {
        let mut b = bbr(seed);
        b.enter_probe_bw();
        assert_ne!(b.cycle_phase(), 1, "seed {seed} started at the 0.75 phase");
    }
    let starts: std::collections::BTreeSet<_> = (0..200)
        .map(|seed| {
            let mut b = bbr(seed);
            b.enter_probe_bw();
            b.cycle_phase()
        })
        .collect();
    assert_eq!(
        starts.len(),
        7,
        "all seven other phases are used: {starts:?}"
    );
}

#[test]
fn probe_bw_advances_a_phase_no_sooner_than_min_rtt() {
    let rtt = Duration::from_millis(40);
    let mut pipe = Pipe::new(Bandwidth::from_mbps(20), rtt);
    let mut b = bbr(7);
    // (phase, when it started, whether its start was observed)
    let mut last: Option<(usize, Instant, bool)> = None;
    let mut phases_seen = 0;
    pipe.run_until(&mut b, secs(9.0), |_, _| {});
    // Observe from steady state on.
    pipe.run_until(&mut b, secs(9.9), |step, cc| {
        let snap = cc.snapshot();
        if snap.mode != "probe_bw" {
            last = None;
            return;
        }
        let phase = snap
            .extra
            .iter()
            .find(|(k, _)| *k == "cycle_phase")
            .unwrap()
            .1 as usize;
        match last {
            Some((p, since, whole)) if p != phase => {
                let lasted = step.now - since;
                if whole {
                    assert!(
                        lasted > rtt,
                        "phase {p} lasted {lasted:?} < min_rtt {rtt:?}"
                    );
                    phases_seen += 1;
                }
                last = Some((phase, step.now, true));
            }
            None => last = Some((phase, step.now, false)),
            _ => {}
        }
    });
    assert!(
        phases_seen >= 8,
        "a whole cycle was observed ({phases_seen} phase changes)"
    );
}

#[test]
fn probe_rtt_after_ten_seconds_for_200ms_and_a_round() {
    let rtt = Duration::from_millis(300); // a round (300 ms) is longer than 200 ms
    let mut pipe = Pipe::new(Bandwidth::from_mbps(10), rtt);
    let mut b = bbr(3);
    let mut entered: Option<Instant> = None;
    let mut left: Option<Instant> = None;
    let mut cwnd_before = Bytes::ZERO;
    let mut cwnd_in_probe_rtt = Bytes::MAX;
    let mut prev_cwnd = Bytes::ZERO;
    let mut min_rtt_stamp = Instant::ZERO;
    let mut min_rtt_seen: Option<Duration> = None;
    pipe.run_until(&mut b, secs(15.0), |step, cc| {
        let snap = cc.snapshot();
        if snap.mode == "probe_rtt" {
            if entered.is_none() {
                entered = Some(step.now);
                cwnd_before = prev_cwnd;
            }
            cwnd_in_probe_rtt = cwnd_in_probe_rtt.min(cc.cwnd());
        } else if entered.is_some() && left.is_none() {
            left = Some(step.now);
            assert!(cc.cwnd() >= cwnd_before, "cwnd restored on exit");
        }
        // The estimate's age counts from the sample that last lowered it.
        let estimate = snap.min_rtt_estimate;
        if entered.is_none() && estimate != min_rtt_seen {
            min_rtt_seen = estimate;
            min_rtt_stamp = step.now;
        }
        prev_cwnd = cc.cwnd();
    });
    let entered = entered.expect("ProbeRTT entered");
    let left = left.expect("ProbeRTT left");
    // The estimate was last refreshed by the first (lowest) sample.
    let age = entered - min_rtt_stamp;
    assert!(
        age >= MIN_RTT_WINDOW && age < MIN_RTT_WINDOW + rtt,
        "entered after {age:?}"
    );
    assert!(
        cwnd_in_probe_rtt <= Bytes(4 * 1500),
        "cwnd {cwnd_in_probe_rtt} in ProbeRTT"
    );
    let stay = left - entered;
    assert!(
        stay >= PROBE_RTT_DURATION.max(rtt),
        "left after {stay:?}: needs 200 ms and a round"
    );
    assert!(
        stay < PROBE_RTT_DURATION + rtt * 3,
        "left after {stay:?}: too long"
    );
}

#[test]
fn steady_state_pacing_is_gain_times_bandwidth_less_one_percent() {
    let mut pipe = Pipe::new(Bandwidth::from_mbps(20), Duration::from_millis(40));
    let mut b = bbr(5);
    pipe.run_until(&mut b, secs(3.0), |_, _| {});
    let snap = b.snapshot();
    assert_eq!(snap.mode, "probe_bw");
    let bw = snap.bandwidth_estimate.unwrap();
    assert!((bw.as_mbps_f64() - 20.0).abs() < 0.5, "estimate {bw}");
    let expected = bw.mul_f64(snap.pacing_gain * 0.99);
    assert_eq!(b.pacing_rate(), expected);
    let min_rtt = b.min_rtt().unwrap();
    assert!(
        min_rtt >= Duration::from_millis(40) && min_rtt < Duration::from_millis(42),
        "{min_rtt:?}"
    );
}

#[test]
fn bandwidth_estimate_falls_ten_rounds_after_capacity_drops() {
    let rtt = Duration::from_millis(20);
    let mut pipe = Pipe::new(Bandwidth::from_mbps(20), rtt);
    let mut b = bbr(9);
    pipe.run_until(&mut b, secs(2.0), |_, _| {});
    pipe.rate = Bandwidth::from_mbps(5);
    let drop_round = b.round_count();
    let mut fell_at = None;
    pipe.run_until(&mut b, secs(6.0), |_, cc| {
        let bw = cc.snapshot().bandwidth_estimate.unwrap();
        if fell_at.is_none() && bw < Bandwidth::from_mbps(10) {
            fell_at = Some(b_round(cc));
        }
    });
    let fell_at = fell_at.expect("estimate fell");
    assert!(
        fell_at >= drop_round + 9,
        "fell at round {fell_at}, drop at {drop_round}"
    );
    assert!(
        fell_at <= drop_round + 14,
        "fell at round {fell_at}, drop at {drop_round}"
    );
}

fn b_round(cc: &dyn CongestionControl) -> u64 {
    cc.snapshot()
        .extra
        .iter()
        .find(|(k, _)| *k == "round_count")
        .unwrap()
        .1 as u64
}

/// Reports a loss detected at `now` of a packet sent at `sent`.
fn lose(b: &mut Bbr, now: Instant, sent: Instant, new_event: bool) {
    let packet = crate::rate::DeliveryState {
        sent_time: sent,
        size: Bytes(1500),
        delivered: Bytes::ZERO,
        delivered_time: sent,
        first_send_time: sent,
        is_app_limited: false,
        tx_in_flight: Bytes(30_000),
        lost: Bytes::ZERO,
    };
    b.on_packet_lost(&LossEvent {
        now,
        packet,
        bytes_in_flight: Bytes(30_000),
        new_congestion_event: new_event,
        persistent_congestion: false,
    });
}

#[test]
fn recovery_conserves_packets_then_restores_cwnd() {
    let mut pipe = Pipe::new(Bandwidth::from_mbps(20), Duration::from_millis(40));
    let mut b = bbr(2);
    pipe.run_until(&mut b, secs(3.0), |_, _| {});
    let before = b.cwnd();
    let step = pipe.step(&mut b);
    let mut ack = step.event;
    ack.now += Duration::from_millis(1);
    let loss_at = ack.now;
    lose(&mut b, loss_at, loss_at - Duration::from_millis(40), true);
    ack.in_recovery = true;
    ack.newly_lost = Bytes(3000);
    ack.bytes_in_flight = Bytes(30_000);
    ack.newly_acked = Bytes(1500);
    ack.rate.newest_sent_time = Some(loss_at - Duration::from_millis(39));
    b.on_ack(&ack);
    assert_eq!(
        b.cwnd(),
        Bytes(31_500),
        "entering recovery: cwnd = inflight + acked"
    );
    // Still in recovery, same round: cwnd never below inflight + acked.
    ack.newly_lost = Bytes::ZERO;
    ack.bytes_in_flight = Bytes(10_000);
    ack.rate.prior_delivered = Some(Bytes::ZERO); // not a round start
    b.on_ack(&ack);
    assert!(b.cwnd() >= Bytes(11_500));
    // A packet sent after the loss is acknowledged: the pre-recovery window comes back.
    ack.in_recovery = false;
    ack.rate.newest_sent_time = Some(loss_at + Duration::from_millis(1));
    b.on_ack(&ack);
    assert!(b.cwnd() >= before, "restored {} >= {}", b.cwnd(), before);
}

#[test]
fn continued_losses_extend_the_recovery_epoch() {
    let mut pipe = Pipe::new(Bandwidth::from_mbps(20), Duration::from_millis(40));
    let mut b = bbr(2);
    pipe.run_until(&mut b, secs(3.0), |_, _| {});
    let mut ack = pipe.step(&mut b).event;
    let t0 = ack.now + Duration::from_millis(1);
    lose(&mut b, t0, t0 - Duration::from_millis(40), true);
    ack.now = t0;
    ack.in_recovery = true;
    ack.newly_lost = Bytes(1500);
    ack.rate.newest_sent_time = Some(t0 - Duration::from_millis(39));
    b.on_ack(&ack);
    assert!(b.recovery.packet_conservation, "entered recovery");
    // A round later the transport's RFC 9002 period is over and a new loss
    // starts another one; for BBR the epoch simply continues.
    let t1 = t0 + Duration::from_millis(45);
    lose(&mut b, t1, t0 + Duration::from_millis(5), true);
    ack.now = t1;
    ack.rate.newest_sent_time = Some(t0 + Duration::from_millis(4));
    ack.rate.prior_delivered = ack.rate.total_delivered.into(); // a round start
    ack.rate.total_delivered += Bytes(1500);
    b.on_ack(&ack);
    assert!(b.recovery.was_in_recovery, "still in BBR's epoch");
    assert!(
        !b.recovery.packet_conservation,
        "no second round of packet conservation"
    );
    // Only a packet sent after the latest loss ends the epoch.
    ack.in_recovery = false;
    ack.newly_lost = Bytes::ZERO;
    ack.rate.newest_sent_time = Some(t1 - Duration::from_millis(1));
    b.on_ack(&ack);
    assert!(b.recovery.was_in_recovery);
    ack.rate.newest_sent_time = Some(t1 + Duration::from_millis(1));
    b.on_ack(&ack);
    assert!(!b.recovery.was_in_recovery, "epoch over");
}

#[test]
fn send_quantum_follows_the_pacing_rate() {
    let mut b = bbr(1);
    b.pace_at(Bandwidth::from_kbps(1_000));
    assert_eq!(b.send_quantum(), Bytes(1500));
    b.pace_at(Bandwidth::from_mbps(10));
    assert_eq!(b.send_quantum(), Bytes(3000));
    b.pace_at(Bandwidth::from_mbps(100)); // 12.5 KB per ms
    assert_eq!(b.send_quantum(), Bytes(8 * 1500));
    // The quantum is kept with the rate: a new datagram size moves it.
    b.on_mtu_update(Bytes(1300));
    assert_eq!(b.send_quantum(), Bytes(9 * 1300));
    b.on_mtu_update(Bytes(1500));
    b.pace_at(Bandwidth::from_mbps(10_000));
    assert_eq!(b.send_quantum(), Bytes(43 * 1500), "64 KB cap");
}

/// A cwnd policy with every method but the cap left at its default, so
/// only the box can carry its cap to the core.
#[derive(Clone, Debug)]
struct CapAt(Bytes);

impl extension::CwndGainPolicy for CapAt {
    fn cwnd_cap(&self, _ctx: &AckContext) -> Option<Bytes> {
        Some(self.0)
    }
}

#[test]
fn linux_points_are_known_and_a_replaced_point_is_called() {
    let linux = Extensions::default().linux_points();
    assert!(linux.cwnd_gain && linux.probe_gain && linux.loss_reaction && linux.startup_plateau);
    let cap = Bytes(20_000);
    let ext = Extensions {
        cwnd_gain: Box::new(CapAt(cap)),
        ..Extensions::default()
    };
    let points = ext.linux_points();
    assert!(!points.cwnd_gain, "a variant's policy is not Linux's");
    assert!(points.probe_gain && points.loss_reaction && points.startup_plateau);
    let config = ControllerConfig::new(1, Instant::ZERO);
    let mut capped = Bbr::with_extensions("bbr", BbrParams::default(), &config, ext);
    let mut plain = bbr(1);
    let rate = Bandwidth::from_mbps(100);
    for i in 1..=5u64 {
        let ack = round_ack(
            secs(0.04 * i as f64),
            Bytes(15_000 * i),
            rate,
            Bytes(30_000),
        );
        capped.on_ack(&ack);
        plain.on_ack(&ack);
    }
    assert_eq!(capped.cwnd(), cap);
    assert!(
        plain.cwnd() > cap,
        "Linux's policy caps nothing: {}",
        plain.cwnd()
    );
}

#[test]
fn a_detected_policer_rate_becomes_the_bandwidth_in_use() {
    // Samples of 10 Mbit/s keep the filter's max there, while the
    // connection's totals grow at 1 Mbit/s (1250 B per 10 ms round) with
    // 32% loss: two lossy intervals at the same rate mean a policer.
    let mut b = bbr(1);
    let filter_rate = Bandwidth::from_mbps(10);
    let mut delivered = Bytes(15_000);
    let mut lost = Bytes::ZERO;
    let mut policed = None;
    for i in 1..=40u64 {
        let prior = delivered;
        delivered += Bytes(1250);
        lost += Bytes(400);
        let now = secs(0.01 * i as f64);
        let ack = Ack::at(now)
            .acked(Bytes(1250))
            .lost(Bytes(400))
            .rate(RateSample {
                delivery_rate: Some(filter_rate),
                delivered: Bytes(1250),
                interval: Duration::from_millis(10),
                prior_delivered: Some(prior),
                total_delivered: delivered,
                total_lost: lost,
                newest_sent_time: Some(now - Duration::from_millis(10)),
                ..RateSample::default()
            })
            .rtt(Duration::from_millis(10))
            .in_flight(Bytes(3000))
            .build();
        b.on_ack(&ack);
        let lt_bw = b
            .snapshot()
            .extra
            .iter()
            .find(|(k, _)| *k == "lt_bw")
            .unwrap()
            .1;
        if lt_bw > 0.0 {
            policed = Some(lt_bw);
            break;
        }
        assert_eq!(b.bandwidth(), filter_rate, "ACK {i}: no policer yet");
    }
    let policed = policed.expect("the policer is detected");
    assert!((policed / 1e6 - 1.0).abs() < 0.05, "policed rate {policed}");
    assert_eq!(b.bandwidth().as_bps_f64(), policed);
    assert_eq!(b.probe_state().bandwidth_estimate, Some(b.bandwidth()));
}
