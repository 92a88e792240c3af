//! Every registered controller, fed arbitrary but causally valid event
//! sequences at 10 kbit/s .. 100 Gbit/s and RTTs of 100 us .. 10 s, keeps
//! cwnd at or above two packets, a positive pacing rate and a positive send
//! quantum, and never panics or overflows.

use std::collections::VecDeque;
use std::time::Duration;

use cc::testing::Ack;
use cc::{
    AlgorithmSpec, Bandwidth, Bytes, CongestionControl, ControllerConfig, DeliveryRateEstimator,
    DeliveryState, Instant, LossEvent, SentEvent,
};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    /// Send up to n packets the window allows.
    Send(u8),
    /// Advance time by this many microseconds (log-scaled).
    Wait(u32),
    /// Acknowledge the n oldest packets in flight.
    Ack(u8),
    /// Declare the n oldest packets lost (with an ACK for the next one).
    Lose(u8),
    /// Persistent congestion: declare everything lost.
    Collapse,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (1u8..64).prop_map(Op::Send),
        3 => (0u32..35_000_000).prop_map(Op::Wait),
        4 => (1u8..32).prop_map(Op::Ack),
        1 => (1u8..8).prop_map(Op::Lose),
        1 => Just(Op::Collapse),
    ]
}

struct Harness {
    cc: Box<dyn CongestionControl>,
    est: DeliveryRateEstimator,
    now: Instant,
    flight: VecDeque<DeliveryState>,
    in_flight: Bytes,
    min_rtt: Option<Duration>,
    srtt: Duration,
    in_recovery_since: Option<Instant>,
    mss: Bytes,
}

impl Harness {
    fn check(&self, spec: &str) {
        let cwnd = self.cc.cwnd();
        assert!(
            cwnd >= self.mss * 2,
            "{spec}: cwnd {cwnd} below two packets"
        );
        assert!(
            self.cc.pacing_rate() > Bandwidth::ZERO,
            "{spec}: pacing rate zero"
        );
        assert!(
            self.cc.send_quantum() > Bytes::ZERO,
            "{spec}: send quantum zero"
        );
        let snap = self.cc.snapshot();
        assert!(
            snap.pacing_gain.is_finite() && snap.cwnd_gain.is_finite(),
            "{spec}: {snap:?}"
        );
    }

    fn send(&mut self, n: u8) {
        for _ in 0..n {
            if self.in_flight + self.mss > self.cc.cwnd() {
                break;
            }
            let s = self.est.on_packet_sent(self.now, self.in_flight, self.mss);
            self.in_flight += self.mss;
            self.flight.push_back(s);
            self.cc.on_packet_sent(&SentEvent {
                now: self.now,
                bytes: self.mss,
                bytes_in_flight: self.in_flight,
                app_limited: false,
                is_retransmission: false,
            });
        }
    }

    fn lose(&mut self, n: usize, persistent: bool) -> Bytes {
        let mut lost = Bytes::ZERO;
        for i in 0..n {
            let Some(p) = self.flight.pop_front() else {
                break;
            };
            self.in_flight -= p.size;
            self.est.on_packet_lost(p.size);
            lost += p.size;
            let new_event = self.in_recovery_since.is_none_or(|t| p.sent_time > t);
            if new_event {
                self.in_recovery_since = Some(self.now);
            }
            self.cc.on_packet_lost(&LossEvent {
                now: self.now,
                packet: p,
                bytes_in_flight: self.in_flight,
                new_congestion_event: new_event,
                persistent_congestion: persistent && i + 1 == n,
            });
        }
        lost
    }

    fn ack(&mut self, n: usize, newly_lost: Bytes) {
        let prior = self.in_flight + newly_lost;
        let mut acked = Bytes::ZERO;
        let mut newest = None;
        for _ in 0..n {
            let Some(p) = self.flight.pop_front() else {
                break;
            };
            self.in_flight -= p.size;
            self.est.on_packet_acked(self.now, &p);
            acked += p.size;
            newest = Some(p.sent_time);
        }
        let Some(sent) = newest else { return };
        let rtt = (self.now - sent).max(Duration::from_micros(1));
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        self.srtt = (self.srtt * 7 + rtt) / 8;
        let sample = self.est.generate_sample(self.now, self.min_rtt);
        let in_recovery = self.in_recovery_since.is_some_and(|t| sent <= t);
        self.cc.on_ack(
            &Ack::at(self.now)
                .rate(sample)
                .rtt(rtt)
                .smoothed_rtt(self.srtt)
                .rttvar(rtt / 4)
                .min_rtt(self.min_rtt.unwrap())
                .acked(acked)
                .lost(newly_lost)
                .prior_in_flight(prior)
                .bytes_in_flight(self.in_flight)
                .in_recovery(in_recovery)
                .build(),
        );
    }
}

fn exercise(spec: &str, ops: &[Op], rtt_us: u64) {
    let config = ControllerConfig::new(3, Instant::from_nanos(1_000));
    let parsed = AlgorithmSpec::parse(spec).unwrap();
    let mut h = Harness {
        cc: parsed.build(&config),
        est: DeliveryRateEstimator::new(),
        now: config.now,
        flight: VecDeque::new(),
        in_flight: Bytes::ZERO,
        min_rtt: None,
        srtt: Duration::from_micros(rtt_us),
        in_recovery_since: None,
        mss: config.max_datagram_size,
    };
    h.check(spec);
    for op in ops {
        match *op {
            Op::Send(n) => h.send(n),
            // Log-scale waits: 1 us .. ~30 s, weighted toward the RTT.
            Op::Wait(x) => h.now += Duration::from_micros((x as u64 * rtt_us / 1_000_000).max(1)),
            Op::Ack(n) => h.ack(n as usize, Bytes::ZERO),
            Op::Lose(n) => {
                let lost = h.lose(n as usize, false);
                h.ack(1, lost);
            }
            Op::Collapse => {
                let n = h.flight.len();
                h.lose(n, true);
            }
        }
        h.check(spec);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_controller_survives_arbitrary_events(
        ops in proptest::collection::vec(op(), 1..400),
        rtt_exp in 2.0f64..7.0, // RTT 100 us .. 10 s
    ) {
        let rtt_us = 10f64.powf(rtt_exp) as u64;
        for info in cc::algorithms() {
            exercise(info.name, &ops, rtt_us);
        }
    }
}

/// Long steady runs at the extremes of rate and RTT, through the real
/// estimator, for every controller.
#[test]
fn extreme_rates_and_rtts_stay_sane() {
    for info in cc::algorithms() {
        for (rate_bps, rtt) in [
            (10_000u64, Duration::from_secs(10)),
            (10_000, Duration::from_micros(100)),
            (100_000_000_000, Duration::from_micros(100)),
            (100_000_000_000, Duration::from_secs(10)),
        ] {
            let rate = Bandwidth::from_bits_per_sec(rate_bps);
            let config = ControllerConfig::new(1, Instant::ZERO);
            let mut cc = AlgorithmSpec::parse(info.name).unwrap().build(&config);
            let mut est = DeliveryRateEstimator::new();
            let mut now = Instant::ZERO;
            let mss = config.max_datagram_size;
            let gap = rate.time_to_send(mss).unwrap();
            let mut flight: VecDeque<(DeliveryState, Instant)> = VecDeque::new();
            let mut in_flight = Bytes::ZERO;
            for _ in 0..3_000 {
                while in_flight + mss <= cc.cwnd() && flight.len() < 2_000 {
                    let s = est.on_packet_sent(now, in_flight, mss);
                    in_flight += mss;
                    let arrive = flight
                        .back()
                        .map_or(now + gap, |(_, t)| (*t).max(now) + gap)
                        + rtt;
                    flight.push_back((s, arrive));
                    cc.on_packet_sent(&SentEvent {
                        now,
                        bytes: mss,
                        bytes_in_flight: in_flight,
                        app_limited: false,
                        is_retransmission: false,
                    });
                }
                let Some((p, at)) = flight.pop_front() else {
                    break;
                };
                now = now.max(at);
                let prior = in_flight;
                in_flight -= p.size;
                est.on_packet_acked(now, &p);
                let sample = est.generate_sample(now, Some(rtt));
                cc.on_ack(
                    &Ack::at(now)
                        .rate(sample)
                        .rtt(now - p.sent_time)
                        .smoothed_rtt(rtt)
                        .rttvar(rtt / 4)
                        .min_rtt(rtt)
                        .acked(p.size)
                        .prior_in_flight(prior)
                        .bytes_in_flight(in_flight)
                        .build(),
                );
                assert!(cc.cwnd() >= mss * 2, "{} at {rate} / {rtt:?}", info.name);
                assert!(
                    cc.pacing_rate() > Bandwidth::ZERO,
                    "{} at {rate} / {rtt:?}",
                    info.name
                );
            }
        }
    }
}
