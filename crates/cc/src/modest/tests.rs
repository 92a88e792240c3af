//! Mechanism tests of Modest BBR (Algorithm 2 of the BBR-CWS paper).

use std::time::Duration;

use super::*;
use crate::bbr::Mode;
use crate::controller::{AckEvent, CongestionControl};
use crate::spec::AlgorithmSpec;
use crate::spec::SpecError;
use crate::testing::Ack;
use crate::testing::Pipe;
use crate::units::{Bandwidth, Instant};

const MSS: Bytes = Bytes(1500);

fn ack(now_ms: u64) -> AckEvent {
    Ack::at(Instant::from_nanos(now_ms * 1_000_000))
        .rtt(Duration::from_millis(10))
        .acked(MSS)
        .in_flight(Bytes(100_000))
        .build()
}

fn ctx(event: &AckEvent, cwnd: Bytes, recovery_entered: bool, round_start: bool) -> AckContext<'_> {
    AckContext {
        event,
        mode: Mode::ProbeBw,
        cycle_phase: Some(2),
        pacing_gain: 1.0,
        round_start,
        round_count: 100,
        bandwidth: Bandwidth::from_mbps(50),
        min_rtt: Some(Duration::from_millis(10)),
        bdp: Some(Bytes(62_500)),
        cwnd,
        full_pipe: true,
        recovery_entered,
        mss: MSS,
    }
}

/// Smin = 1 packet keeps the arithmetic of the search readable.
fn one_packet() -> ModestParams {
    ModestParams {
        smin_packets: 1.0,
        ..ModestParams::default()
    }
}

struct Driver {
    r: ModestLossReaction,
    t: u64,
}

impl Driver {
    fn new(params: ModestParams) -> Self {
        Driver {
            r: ModestLossReaction::new(params, MSS),
            t: 1000,
        }
    }
    fn cwnd(&self) -> Bytes {
        self.r
            .window()
            .unwrap_or(Bytes(150_000))
            .min(Bytes(150_000))
    }
    /// An ACK that reveals a retransmission (a new recovery period).
    fn retransmission(&mut self) {
        self.t += 1;
        let e = ack(self.t);
        let c = self.cwnd();
        self.r.on_ack(&ctx(&e, c, true, false));
    }
    /// The first ACK of a round after a round without retransmission.
    fn clean_round(&mut self) {
        self.t += 10;
        let e = ack(self.t);
        let c = self.cwnd();
        self.r.on_ack(&ctx(&e, c, false, true));
    }
    /// An ACK inside a round.
    fn plain_ack(&mut self) {
        let e = ack(self.t);
        let c = self.cwnd();
        self.r.on_ack(&ctx(&e, c, false, false));
    }
}

#[test]
fn a_retransmission_starts_a_binary_search_below_the_window() {
    let mut d = Driver::new(one_packet());
    assert_eq!(d.r.phase(), Phase::Idle);
    assert_eq!(d.r.window(), None);
    d.retransmission();
    assert_eq!(d.r.phase(), Phase::BinarySearch);
    assert_eq!(d.r.last_cwnd(), Bytes(150_000));
    // min_win = Wmin x cwnd; max_win = (cwnd + min_win) / 2 = Wmax x cwnd.
    assert_eq!(d.r.bracket(), (Bytes(75_000), Bytes(112_500)));
    assert_eq!(d.r.window(), Some(Bytes(112_500)), "cwnd = max_win");
    // ACKs within the round change nothing.
    d.plain_ack();
    assert_eq!(d.r.window(), Some(Bytes(112_500)));
}

#[test]
fn binary_search_halves_the_bracket_each_round_then_turns_linear() {
    let mut d = Driver::new(one_packet());
    d.retransmission();
    // A clean round: min_win moves up to the midpoint and cwnd follows it.
    d.clean_round();
    assert_eq!(d.r.bracket(), (Bytes(93_750), Bytes(112_500)));
    assert_eq!(d.r.window(), Some(Bytes(93_750)));
    // A retransmission: max_win moves down to the midpoint, cwnd follows.
    d.retransmission();
    assert_eq!(d.r.bracket(), (Bytes(93_750), Bytes(103_125)));
    assert_eq!(d.r.window(), Some(Bytes(103_125)));
    assert_eq!(d.r.last_cwnd(), Bytes(150_000), "same search");
    d.clean_round();
    assert_eq!(d.r.bracket(), (Bytes(98_437), Bytes(103_125)));
    d.clean_round();
    assert_eq!(d.r.bracket(), (Bytes(100_781), Bytes(103_125)));
    assert_eq!(d.r.phase(), Phase::BinarySearch, "2344 B > Smin");
    d.clean_round();
    // 1172 B <= Smin (1 packet): the search is over; the linear phase
    // already adds Smin on this ACK.
    assert_eq!(d.r.bracket(), (Bytes(101_953), Bytes(103_125)));
    assert_eq!(d.r.phase(), Phase::Linear);
    assert_eq!(d.r.window(), Some(Bytes(101_953 + 1500)));
}

#[test]
fn linear_phase_adds_smin_per_ack_up_to_the_window_that_lost() {
    let mut d = Driver::new(ModestParams {
        smin_packets: 2.0,
        ..ModestParams::default()
    });
    d.retransmission();
    while d.r.phase() == Phase::BinarySearch {
        d.clean_round();
    }
    assert_eq!(d.r.phase(), Phase::Linear);
    let mut w = d.r.window().unwrap();
    let mut acks = 0;
    while d.r.phase() == Phase::Linear {
        d.plain_ack();
        acks += 1;
        if let Some(now) = d.r.window() {
            if d.r.phase() == Phase::Linear {
                assert_eq!(now, w + Bytes(3000), "+Smin per ACK");
                w = now;
            }
        }
        assert!(acks < 1000);
    }
    assert_eq!(d.r.phase(), Phase::Idle);
    assert!(w > Bytes(150_000), "linear until above last_cwnd ({w})");
    assert!(w <= Bytes(150_000 + 3000));
    // Clean rounds in the idle phase do nothing.
    d.clean_round();
    assert_eq!(d.r.phase(), Phase::Idle);
}

#[test]
fn a_retransmission_in_the_linear_phase_starts_a_new_search() {
    let mut d = Driver::new(one_packet());
    d.retransmission();
    while d.r.phase() == Phase::BinarySearch {
        d.clean_round();
    }
    let w = d.r.window().unwrap();
    d.retransmission();
    assert_eq!(d.r.phase(), Phase::BinarySearch);
    assert_eq!(
        d.r.last_cwnd(),
        w,
        "the new search starts from the current window"
    );
    assert_eq!(d.r.window(), Some(w.mul_f64(0.75)));
}

#[test]
fn repeated_retransmissions_drive_the_window_to_the_lower_bound() {
    let mut d = Driver::new(one_packet());
    d.retransmission();
    for _ in 0..20 {
        if d.r.phase() != Phase::BinarySearch {
            break;
        }
        d.retransmission();
    }
    assert_eq!(d.r.phase(), Phase::Linear);
    let (lo, hi) = d.r.bracket();
    assert_eq!(lo, Bytes(75_000));
    assert!(hi - lo <= MSS);
}

#[test]
fn the_window_caps_bbr_in_recovery_conservation_and_target() {
    let mut d = Driver::new(one_packet());
    let e = ack(5);
    let c = ctx(&e, Bytes(150_000), false, false);
    assert_eq!(
        d.r.limit_target(&c, Bytes(200_000)),
        Bytes(200_000),
        "idle: BBRv1"
    );
    assert_eq!(
        d.r.conservation_cwnd(&c, Bytes(10_000), Bytes(90_000)),
        Bytes(90_000),
        "idle: Linux conservation"
    );
    d.retransmission();
    assert_eq!(d.r.limit_target(&c, Bytes(200_000)), Bytes(112_500));
    assert_eq!(d.r.limit_target(&c, Bytes(50_000)), Bytes(50_000));
    assert_eq!(d.r.recovery_cwnd(&c, Bytes(140_000)), Bytes(112_500));
    assert_eq!(
        d.r.conservation_cwnd(&c, Bytes(10_000), Bytes(130_000)),
        Bytes(112_500)
    );
}

#[test]
fn wmax_below_wmin_is_raised_to_it() {
    let mut d = Driver::new(ModestParams {
        wmin: 0.6,
        wmax: 0.4,
        smin_packets: 1.0,
    });
    d.retransmission();
    assert_eq!(d.r.bracket(), (Bytes(90_000), Bytes(90_000)));
    assert_eq!(d.r.phase(), Phase::Linear, "an empty bracket is converged");
}

#[test]
fn controller_cuts_to_the_search_window_on_recovery() {
    let mut pipe = Pipe::new(Bandwidth::from_mbps(20), Duration::from_millis(40));
    let mut b = new_modest_bbr(
        "modest-bbr",
        BbrParams::default(),
        ModestParams::default(),
        &ControllerConfig::new(4, Instant::ZERO),
    );
    pipe.run_until(&mut b, Instant::from_nanos(3_000_000_000), |_, _| {});
    let before = b.cwnd();
    let mut a = pipe.step(&mut b).event;
    a.in_recovery = true;
    a.newly_lost = Bytes(1500);
    a.bytes_in_flight = before;
    a.rate.prior_delivered = Some(Bytes::ZERO);
    b.on_ack(&a);
    // Linux conservation would keep inflight + acked (> before); Modest
    // BBR's window is 0.75 x the window that lost.
    assert_eq!(b.cwnd(), before.mul_f64(0.75));
    let snap = b.snapshot();
    let phase = snap
        .extra
        .iter()
        .find(|(k, _)| *k == "modest_phase")
        .unwrap()
        .1;
    assert_eq!(phase, 1.0, "binary search");
    // Recovery ends: the saved window is restored by the core but capped.
    a.in_recovery = false;
    b.on_ack(&a);
    assert!(b.cwnd() <= before.mul_f64(0.75), "{} capped", b.cwnd());
    // Over the following lossless seconds the search ends and the linear
    // phase (+0.01 packet per ACK) brings the flow back to BBRv1.
    pipe.run_until(&mut b, pipe.now + Duration::from_secs(8), |_, _| {});
    let snap = b.snapshot();
    let phase = snap
        .extra
        .iter()
        .find(|(k, _)| *k == "modest_phase")
        .unwrap()
        .1;
    assert_eq!(phase, 0.0, "idle again");
    assert!(b.cwnd() >= before.mul_f64(0.9), "{} vs {before}", b.cwnd());
}

#[test]
fn parameters_are_declared_and_range_checked() {
    let spec = AlgorithmSpec::parse("modest-bbr").unwrap();
    assert_eq!(ModestParams::from_spec(&spec), ModestParams::default());
    let spec = AlgorithmSpec::parse("modest-bbr:wmin=0.4,wmax=0.9,smin=2").unwrap();
    assert_eq!(
        ModestParams::from_spec(&spec),
        ModestParams {
            wmin: 0.4,
            wmax: 0.9,
            smin_packets: 2.0
        }
    );
    for bad in ["wmin=0", "wmin=1", "wmax=1.5", "smin=0", "smin=100"] {
        let err = AlgorithmSpec::parse(&format!("modest-bbr:{bad}")).unwrap_err();
        assert!(matches!(err, SpecError::BadValue { .. }), "{bad}: {err}");
    }
    AlgorithmSpec::parse("modest-bbr:lt_bw=false").unwrap();
}

#[test]
fn default_smin_is_a_hundredth_of_a_packet() {
    let mut d = Driver::new(ModestParams::default());
    d.retransmission();
    let mut rounds = 0;
    while d.r.phase() == Phase::BinarySearch {
        d.clean_round();
        rounds += 1;
    }
    // A 37.5 KB bracket halves down to <= 15 B: 12 clean rounds.
    assert_eq!(rounds, 12);
    let (lo, hi) = d.r.bracket();
    assert!(hi - lo <= Bytes(15));
    let w = d.r.window().unwrap();
    d.plain_ack();
    assert_eq!(d.r.window().unwrap(), w + Bytes(15), "+0.01 packet per ACK");
}
