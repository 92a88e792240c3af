//! Mechanism tests of BBR-CWS (Algorithm 1).

use std::time::Duration;

use super::*;
use crate::controller::{AckEvent, CongestionControl};
use crate::spec::AlgorithmSpec;
use crate::spec::SpecError;
use crate::testing::Pipe;
use crate::testing::{cruise_context, Ack};
use crate::units::Bandwidth;

const SRTT: Duration = Duration::from_millis(10);
const MSS: Bytes = Bytes(1500);

fn ms(v: f64) -> Instant {
    Instant::from_nanos((v * 1e6) as u64)
}

fn ack(now: Instant, in_recovery: bool) -> AckEvent {
    Ack::at(now)
        .rtt(SRTT)
        .acked(MSS)
        .in_flight(Bytes(90_000))
        .in_recovery(in_recovery)
        .build()
}

fn ctx(event: &AckEvent, min_rtt: Duration, recovery_entered: bool) -> AckContext<'_> {
    AckContext {
        cwnd: Bytes(120_000),
        recovery_entered,
        ..cruise_context(event, Bandwidth::from_mbps(50), min_rtt)
    }
}

/// Feeds the reaction one ACK at `t` (ms) with the given min-RTT estimate.
fn feed(r: &mut CwsLossReaction, t: f64, min_rtt: Duration, entered: bool) {
    let e = ack(ms(t), entered);
    r.on_ack(&ctx(&e, min_rtt, entered));
}

fn reaction(params: CwsParams) -> CwsLossReaction {
    CwsLossReaction::new(params, Instant::ZERO)
}

/// A loss at `t` and an ACK just after the 3-RTT wait, RTprop unchanged.
fn unexplained_loss(r: &mut CwsLossReaction, t: f64) -> f64 {
    feed(r, t, SRTT, true);
    feed(r, t + 31.0, SRTT, false);
    t + 31.0
}

#[test]
fn factor_decays_by_beta_three_rtts_after_a_loss_without_lower_rtprop() {
    let mut r = reaction(CwsParams::default());
    feed(&mut r, 1000.0, SRTT, true);
    assert_eq!(r.loss_detected_time(), Some(ms(1000.0)));
    feed(&mut r, 1029.0, SRTT, false);
    assert_eq!(r.upper_scaling_factor(), 1.0, "still waiting at 2.9 RTT");
    feed(&mut r, 1030.5, SRTT, false);
    assert!(
        (r.upper_scaling_factor() - 0.9).abs() < 1e-12,
        "x beta after 3 RTT"
    );
    assert_eq!(r.loss_detected_time(), None, "the wait is over");
}

#[test]
fn factor_never_falls_below_the_floor() {
    let mut r = reaction(CwsParams::default());
    let mut t = 1000.0;
    let mut expected: f64 = 1.0;
    for n in 1..=30 {
        t = unexplained_loss(&mut r, t + 0.5);
        expected = (expected * 0.9).max(0.2);
        assert!(
            (r.upper_scaling_factor() - expected).abs() < 1e-9,
            "after {n} losses: {} != {expected}",
            r.upper_scaling_factor()
        );
    }
    assert_eq!(r.upper_scaling_factor(), 0.2);
    // Another floor, another beta.
    let mut r = reaction(CwsParams {
        beta: 0.5,
        floor: 0.3,
        ..CwsParams::default()
    });
    let mut t = 1000.0;
    for _ in 0..5 {
        t = unexplained_loss(&mut r, t + 0.5);
    }
    assert_eq!(r.upper_scaling_factor(), 0.3);
}

#[test]
fn lower_rtprop_during_the_wait_resets_the_factor() {
    for (reset, expected) in [(true, 1.0), (false, 0.9)] {
        let mut r = reaction(CwsParams {
            rtprop_reset: reset,
            ..CwsParams::default()
        });
        let t = unexplained_loss(&mut r, 1000.0);
        assert!((r.upper_scaling_factor() - 0.9).abs() < 1e-12);
        // A second loss; the queue drains and RTprop falls within 3 RTT.
        feed(&mut r, t + 1.0, SRTT, true);
        feed(&mut r, t + 15.0, Duration::from_millis(9), false);
        feed(&mut r, t + 32.0, Duration::from_millis(9), false);
        assert_eq!(r.loss_detected_time(), None);
        assert!(
            (r.upper_scaling_factor() - expected).abs() < 1e-12,
            "rtprop_reset={reset}: factor {}",
            r.upper_scaling_factor()
        );
    }
}

#[test]
fn a_lower_rtprop_before_the_loss_does_not_count() {
    let mut r = reaction(CwsParams::default());
    let low = Duration::from_millis(9);
    feed(&mut r, 990.0, SRTT, false);
    feed(&mut r, 995.0, low, false); // RTprop falls before any loss
    feed(&mut r, 1000.0, low, true);
    feed(&mut r, 1031.0, low, false);
    assert!((r.upper_scaling_factor() - 0.9).abs() < 1e-12);
}

#[test]
fn a_loss_during_the_wait_cuts_but_does_not_restart_it() {
    let mut r = reaction(CwsParams::default());
    feed(&mut r, 1000.0, SRTT, true);
    feed(&mut r, 1020.0, SRTT, false);
    feed(&mut r, 1021.0, SRTT, true); // a new recovery while waiting
    assert_eq!(r.loss_detected_time(), Some(ms(1000.0)));
    feed(&mut r, 1030.5, SRTT, false);
    assert!((r.upper_scaling_factor() - 0.9).abs() < 1e-12);
}

#[test]
fn factor_recovers_by_delta_every_three_rtts_capped_at_one() {
    let mut r = reaction(CwsParams::default());
    let mut t = 1000.0;
    for _ in 0..2 {
        t = unexplained_loss(&mut r, t + 0.5);
    }
    assert!((r.upper_scaling_factor() - 0.81).abs() < 1e-12);
    // ACKs every millisecond, no loss: +delta each time 3 RTT have passed
    // since the last action.
    let start = t;
    let mut steps = 0;
    let mut last = r.upper_scaling_factor();
    while t < start + 30.0 * 25.0 {
        t += 1.0;
        feed(&mut r, t, SRTT, false);
        let f = r.upper_scaling_factor();
        if f != last {
            assert!(
                (f - (last + 0.01).min(1.0)).abs() < 1e-9,
                "step {last} -> {f}"
            );
            steps += 1;
            last = f;
        }
    }
    // One step per 31 ms (first ACK strictly after 30 ms): 24 steps in 750 ms,
    // and 19 of them reach the cap of 1.
    assert_eq!(r.upper_scaling_factor(), 1.0, "capped at 1");
    assert_eq!(steps, 19, "0.81 -> 1.0 in steps of 0.01");
    // Timing: exactly one step per 3 RTT.
    let mut r = reaction(CwsParams::default());
    let t0 = unexplained_loss(&mut r, 1000.0);
    feed(&mut r, t0 + 30.0, SRTT, false);
    assert!((r.upper_scaling_factor() - 0.9).abs() < 1e-12, "not yet");
    feed(&mut r, t0 + 30.5, SRTT, false);
    assert!((r.upper_scaling_factor() - 0.91).abs() < 1e-12, "+delta");
}

#[test]
fn rtt_is_the_current_smoothed_rtt() {
    // With srtt 40 ms the wait is 120 ms, whatever min_rtt says.
    let mut r = reaction(CwsParams::default());
    let mut e = ack(ms(1000.0), true);
    e.rtt.smoothed = Duration::from_millis(40);
    r.on_ack(&ctx(&e, SRTT, true));
    e.in_recovery = false;
    e.now = ms(1119.0);
    r.on_ack(&ctx(&e, SRTT, false));
    assert_eq!(r.upper_scaling_factor(), 1.0);
    e.now = ms(1120.5);
    r.on_ack(&ctx(&e, SRTT, false));
    assert!((r.upper_scaling_factor() - 0.9).abs() < 1e-12);
}

#[test]
fn upper_cwnd_is_target_times_factor() {
    let mut r = reaction(CwsParams::default());
    let e = ack(ms(0.0), false);
    assert_eq!(
        r.limit_target(&ctx(&e, SRTT, false), Bytes(100_000)),
        Bytes(100_000)
    );
    let mut t = 1000.0;
    for _ in 0..3 {
        t = unexplained_loss(&mut r, t + 0.5);
    }
    let e = ack(ms(t), false);
    let c = ctx(&e, SRTT, false);
    assert_eq!(r.limit_target(&c, Bytes(100_000)), Bytes(72_900));
    assert_eq!(r.upper_cwnd(Bytes(1_000_000)), Bytes(729_000));
    let mut trace = Vec::new();
    r.trace(&mut trace);
    assert!(trace.contains(&("upper_cwnd", 72_900.0)), "{trace:?}");
}

// --- The whole controller -------------------------------------------------

fn cws() -> Bbr {
    new_bbr_cws(
        "bbr-cws",
        BbrParams::default(),
        CwsParams::default(),
        &ControllerConfig::new(2, Instant::ZERO),
    )
}

fn snapshot_value(cc: &dyn CongestionControl, key: &str) -> f64 {
    cc.snapshot()
        .extra
        .iter()
        .find(|(k, _)| *k == key)
        .unwrap_or_else(|| panic!("{key} traced"))
        .1
}

#[test]
fn recovery_entry_cuts_cwnd_to_a_third_of_inflight_and_conservation_holds_it() {
    let mut pipe = Pipe::new(Bandwidth::from_mbps(20), Duration::from_millis(40));
    let mut b = cws();
    pipe.run_until(&mut b, Instant::from_nanos(3_000_000_000), |_, _| {});
    let before = b.cwnd();
    assert!(before > Bytes(150_000), "steady cwnd {before}");
    let step = pipe.step(&mut b);
    let mut a = step.event;
    a.now += Duration::from_millis(1);
    a.in_recovery = true;
    a.newly_lost = Bytes(3000);
    a.bytes_in_flight = Bytes(90_000);
    a.rate.prior_delivered = Some(Bytes::ZERO); // not a round start
    b.on_ack(&a);
    assert_eq!(b.cwnd(), Bytes(30_000), "cwnd = inflight / 3");
    // Packet conservation: more losses and ACKs, still 30 KB (Linux would
    // raise it to inflight + acked = 61.5 KB).
    a.now += Duration::from_millis(1);
    a.newly_lost = Bytes(1500);
    a.bytes_in_flight = Bytes(60_000);
    b.on_ack(&a);
    assert_eq!(b.cwnd(), Bytes(30_000), "held during conservation");
    a.newly_lost = Bytes::ZERO;
    a.bytes_in_flight = Bytes(20_000);
    b.on_ack(&a);
    assert_eq!(b.cwnd(), Bytes(30_000), "held as inflight drains");
    // A new round (ending the core's conservation) while still in recovery.
    a.now += Duration::from_millis(40);
    a.rate.total_delivered += Bytes(30_000);
    a.rate.prior_delivered = Some(a.rate.total_delivered);
    b.on_ack(&a);
    assert_eq!(b.cwnd(), Bytes(30_000), "held until recovery ends");
    assert_eq!(snapshot_value(&b, "cws_recovery_cwnd"), 30_000.0);
    // Recovery ends: no restore of the pre-recovery window, BBR growth by acked.
    a.in_recovery = false;
    a.recovery_exited = true;
    a.rate.prior_delivered = Some(Bytes::ZERO);
    b.on_ack(&a);
    assert_eq!(
        b.cwnd(),
        Bytes(31_500),
        "grows by acked, not restored to {before}"
    );
}

#[test]
fn bbr_v1_for_comparison_restores_the_window() {
    // The same sequence with the BBRv1 reaction restores the window: the
    // contrast the paper draws (§5.4).
    let mut pipe = Pipe::new(Bandwidth::from_mbps(20), Duration::from_millis(40));
    let mut b = crate::bbr::Bbr::new(
        "bbr",
        BbrParams::default(),
        &ControllerConfig::new(2, Instant::ZERO),
    );
    pipe.run_until(&mut b, Instant::from_nanos(3_000_000_000), |_, _| {});
    let before = b.cwnd();
    let mut a = pipe.step(&mut b).event;
    a.in_recovery = true;
    a.bytes_in_flight = Bytes(90_000);
    a.rate.prior_delivered = Some(Bytes::ZERO);
    b.on_ack(&a);
    assert_eq!(b.cwnd(), Bytes(91_500));
    a.in_recovery = false;
    b.on_ack(&a);
    assert!(b.cwnd() >= before);
}

#[test]
fn controller_scales_its_window_after_unexplained_losses() {
    let rtt = Duration::from_millis(40);
    let mut pipe = Pipe::new(Bandwidth::from_mbps(20), rtt);
    let mut b = cws();
    pipe.run_until(&mut b, Instant::from_nanos(3_000_000_000), |_, _| {});
    let full = b.cwnd();
    // Five losses, each followed by more than 3 RTT of lossless path, RTprop
    // unchanged (the Pipe never goes below its base RTT).
    for n in 0..5 {
        let mut a = pipe.step(&mut b).event;
        a.in_recovery = true;
        a.newly_lost = Bytes(1500);
        b.on_ack(&a);
        let until = pipe.now + rtt * 4;
        // Recovery ends at the next ACK of the lossless pipe.
        pipe.run_until(&mut b, until, |_, _| {});
        let f = snapshot_value(&b, "upper_scaling_factor");
        assert!(f <= 0.9f64.powi(n + 1) + 0.01 * 0.5, "loss {n}: factor {f}");
    }
    let f = snapshot_value(&b, "upper_scaling_factor");
    // cwnd never exceeds target x factor (the core's floor aside).
    pipe.run_until(&mut b, pipe.now + rtt * 2, |_, cc| {
        let upper = snapshot_value(cc, "upper_cwnd");
        assert!(
            cc.cwnd().as_f64() <= upper.max(6000.0),
            "cwnd {} <= upper_cwnd {upper} (factor {f})",
            cc.cwnd()
        );
    });
    assert!(
        b.cwnd().as_f64() <= full.as_f64() * 0.65,
        "cwnd {} vs {} before the losses (factor {f})",
        b.cwnd(),
        full
    );
}

#[test]
fn parameters_are_declared_and_range_checked() {
    let spec = AlgorithmSpec::parse("bbr-cws").unwrap();
    assert_eq!(CwsParams::from_spec(&spec), CwsParams::default());
    let spec =
        AlgorithmSpec::parse("bbr-cws:beta=0.8,delta=0.02,floor=0.3,rtprop_reset=false").unwrap();
    assert_eq!(
        CwsParams::from_spec(&spec),
        CwsParams {
            beta: 0.8,
            delta: 0.02,
            floor: 0.3,
            rtprop_reset: false
        }
    );
    for bad in [
        "beta=1",
        "beta=0",
        "delta=0",
        "delta=0.9",
        "floor=0",
        "floor=1.5",
    ] {
        let err = AlgorithmSpec::parse(&format!("bbr-cws:{bad}")).unwrap_err();
        assert!(matches!(err, SpecError::BadValue { .. }), "{bad}: {err}");
    }
    let err = AlgorithmSpec::parse("bbr-cws:gamma=1")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("beta") && err.contains("rtprop_reset"),
        "{err}"
    );
    // The parent's parameters are accepted too.
    AlgorithmSpec::parse("bbr-cws:extra_acked=false,cwnd_gain=2").unwrap();
}
