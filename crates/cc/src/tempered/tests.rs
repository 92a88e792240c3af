//! Mechanism tests of Tempered BBR: the loss-rate window, the gate in front
//! of oBBR's gain, Startup's plateau for app-limited flows, the bounded
//! Drain and the standing-queue test with what acts on it, the spec and its
//! errors, and determinism on the test pipe.

use std::time::Duration;

use super::*;
use crate::bbr::extension::{
    AckContext, BandwidthDropDetector, CwndGainPolicy, DrainContext, DrainExit,
};
use crate::bbr::Mode;
use crate::controller::AckEvent;
use crate::obbr::AdaptiveGainConfig;
use crate::rate::RateSample;
use crate::spec::SpecError;
use crate::testing::{cruise_context, Ack, Pipe};
use crate::units::{Bandwidth, Bytes, Instant};

const MSS: Bytes = Bytes(1500);

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

/// An ACK of one packet at `now_ms` with an RTT sample (and smoothed RTT)
/// of `rtt_ms`, the connection's lowest RTT `min_ms`, losing `lost`
/// packets with 500 KB in flight.
fn ack_at(now_ms: u64, rtt_ms: u64, min_ms: u64, lost: u64) -> AckEvent {
    Ack::at(Instant::from_nanos(now_ms * 1_000_000))
        .rtt(ms(rtt_ms))
        .min_rtt(ms(min_ms))
        .lost(MSS * lost)
        .in_flight(Bytes(500_000))
        .build()
}

/// An ACK of one packet, losing `lost` packets, with a 140 ms RTT sample
/// over a 100 ms RTprop (a buffer of 0.4 BDP: shallow, so oBBR would cut).
fn ack(now_ms: u64, lost: u64) -> AckEvent {
    ack_at(now_ms, 140, 100, lost)
}

/// The core's context in ProbeBW cruise: 40 Mbit/s x 100 ms.
fn ctx(event: &AckEvent, round_start: bool) -> AckContext<'_> {
    AckContext {
        round_start,
        ..cruise_context(event, Bandwidth::from_mbps(40), ms(100))
    }
}

fn gate(threshold: f64, queue: f64) -> CongestiveLossGate<AdaptiveCwndGain> {
    CongestiveLossGate::new(
        AdaptiveCwndGain::new(AdaptiveGainConfig {
            mu: 0.5,
            alpha: 0.01,
            g_max: 2.0,
            code: false,
            may_gain: false,
        }),
        threshold,
        queue,
    )
}

/// One round of `packets` ACKs, the first starting the round, `lost`
/// packets lost on the ACK at index `loss_at`.
fn round(
    g: &mut CongestiveLossGate<AdaptiveCwndGain>,
    start_ms: u64,
    packets: u64,
    lost: u64,
    loss_at: u64,
) {
    for i in 0..packets {
        let event = ack(start_ms + i, if i == loss_at { lost } else { 0 });
        g.on_ack(&ctx(&event, i == 0));
    }
}

#[test]
fn the_loss_rate_spans_the_current_and_the_previous_round() {
    let mut r = RoundLossRate::default();
    assert_eq!(r.rate(), 0.0, "nothing counted yet");
    r.on_ack(true, Bytes(900), Bytes(100));
    assert!((r.rate() - 0.1).abs() < 1e-12);
    r.on_ack(true, Bytes(1000), Bytes::ZERO);
    assert!(
        (r.rate() - 0.05).abs() < 1e-12,
        "previous round still counts"
    );
    r.on_ack(false, Bytes(1000), Bytes::ZERO);
    assert!((r.rate() - 100.0 / 3000.0).abs() < 1e-12);
    r.on_ack(true, Bytes(1000), Bytes::ZERO);
    assert_eq!(r.rate(), 0.0, "two rounds back is forgotten");
}

#[test]
fn a_loss_below_the_threshold_does_not_cut_the_gain_and_it_regrows() {
    let mut g = gate(0.05, 0.5);
    round(&mut g, 0, 200, 0, 0);
    // One packet in 200 (0.5%): random-loss-like.
    round(&mut g, 1000, 200, 1, 100);
    assert_eq!(g.inner().g(), 2.0, "the gain stays at g_max");
    assert_eq!(g.counts(), (0, 1));
    assert_eq!(g.inner().rescales(), 0);
}

/// One loss ACK passed on, which set oBBR's g = 1 + 0.5 x (140/100 - 1).
fn assert_cut_once(g: &CongestiveLossGate<AdaptiveCwndGain>) {
    assert!((g.inner().g() - 1.2).abs() < 1e-9, "g = {}", g.inner().g());
    assert_eq!(g.counts(), (1, 0));
}

#[test]
fn a_loss_above_the_threshold_cuts_the_gain_as_obbr_does() {
    let mut g = gate(0.05, 0.5);
    round(&mut g, 0, 100, 0, 0);
    // 30 packets lost against 100 + 100 acked: 13%.
    round(&mut g, 1000, 100, 30, 99);
    assert_cut_once(&g);
    // The cap the core sees is oBBR's g x BDP.
    let event = ack(2000, 0);
    let cap = g.inflight_cap(&ctx(&event, false)).unwrap();
    assert!(cap < Bytes(500_000).mul_f64(1.21) && cap > Bytes(500_000).mul_f64(1.19));
}

#[test]
fn a_loss_at_a_standing_queue_cuts_the_gain_whatever_the_rate() {
    // 140 ms over 100 ms is a queue of 0.4 RTprop, above a gate of 0.1.
    let mut g = gate(0.05, 0.1);
    round(&mut g, 0, 200, 0, 0);
    round(&mut g, 1000, 200, 1, 199);
    assert_cut_once(&g);
}

#[test]
fn a_loss_at_a_deep_standing_queue_raises_the_gain_to_the_rtt_ratio_then_it_decays() {
    let mut d = DeepBufferGain::new(gate(0.05, 0.1), 2.0, 4.0, 0.01);
    let deep = |now_ms: u64, lost: u64, rtt: u64| ack_at(now_ms, rtt, 100, lost);
    let event = deep(0, 1, 300);
    d.on_ack(&ctx(&event, true));
    assert!(
        (d.g_deep() - 3.0).abs() < 1e-9,
        "RTT ratio 3 at a loss: {}",
        d.g_deep()
    );
    assert_eq!(d.cwnd_gain(&ctx(&event, false), 2.0), d.g_deep());
    assert_eq!(d.inflight_cap(&ctx(&event, false)), None);
    let event = deep(1, 1, 900);
    d.on_ack(&ctx(&event, false));
    assert_eq!(d.g_deep(), 4.0, "capped at deep_max");
    // 100 BDPs acknowledged without a deep loss: 4 - 0.01 x 100 = 3.
    let bdp = Bandwidth::from_mbps(40).bytes_in(ms(100));
    let event = Ack::at(Instant::from_nanos(2_000_000))
        .rtt(ms(100))
        .min_rtt(ms(100))
        .acked(bdp * 100)
        .in_flight(Bytes(500_000))
        .build();
    d.on_ack(&ctx(&event, false));
    assert!((d.g_deep() - 3.0).abs() < 1e-9, "g_deep {}", d.g_deep());
    // A shallow-buffer loss (ratio 1.4) does not engage it.
    let mut d = DeepBufferGain::new(gate(0.05, 0.1), 2.0, 4.0, 0.01);
    let event = ack(0, 1);
    d.on_ack(&ctx(&event, true));
    assert_eq!(d.g_deep(), 0.0);
}

#[test]
fn a_zero_threshold_passes_every_loss_like_obbr() {
    let mut g = gate(0.0, 0.5);
    round(&mut g, 0, 200, 0, 0);
    round(&mut g, 1000, 200, 1, 100);
    assert!(g.inner().g() < 1.3, "g = {}", g.inner().g());
    assert_eq!(g.counts(), (1, 0));
}

/// ACKs of an always app-limited 5 Mbit/s flow, every ACK a round start.
fn drive_app_limited(cc: &mut dyn CongestionControl, acks: u64) {
    let mut delivered = Bytes::ZERO;
    for i in 1..=acks {
        let prior = delivered;
        delivered += MSS;
        let now = Instant::from_nanos(i * 50_000_000);
        let event = Ack::at(now)
            .rate(RateSample {
                delivery_rate: Some(Bandwidth::from_mbps(5)),
                delivered: MSS,
                interval: ms(50),
                prior_delivered: Some(prior),
                total_delivered: delivered,
                newest_sent_time: Some(now - ms(50)),
                is_app_limited: true,
                ..RateSample::default()
            })
            .rtt(ms(50))
            .min_rtt(ms(50))
            .acked(MSS)
            .in_flight(MSS)
            .build();
        cc.on_ack(&event);
    }
}

#[test]
fn an_app_limited_flow_leaves_startup_and_bbrv1_does_not() {
    let config = ControllerConfig::new(1, Instant::ZERO);
    let mut tempered = AlgorithmSpec::parse(NAME).unwrap().build(&config);
    let mut bbr = AlgorithmSpec::parse("bbr").unwrap().build(&config);
    let mut off = AlgorithmSpec::parse("tempered-bbr:app_limited_plateau=false")
        .unwrap()
        .build(&config);
    drive_app_limited(tempered.as_mut(), 20);
    drive_app_limited(bbr.as_mut(), 20);
    drive_app_limited(off.as_mut(), 20);
    assert_eq!(tempered.probe_state().in_startup, Some(false));
    assert_eq!(bbr.probe_state().in_startup, Some(true));
    assert_eq!(off.probe_state().in_startup, Some(true));
}

#[test]
fn the_spec_takes_its_own_then_obbr_then_bbrv1_parameters() {
    let info = crate::find(NAME).unwrap();
    let names: Vec<_> = info.params.iter().map(|p| p.name).collect();
    assert_eq!(
        names,
        [
            "loss_thresh",
            "loss_queue",
            "mu",
            "deep_max",
            "standing",
            "drain_rounds",
            "refill_hidden",
            "app_limited_plateau",
            "alpha",
            "g_max",
            "k",
            "t_ms",
            "adaptive_g",
            "timely_bw",
            "lt_bw",
            "extra_acked",
            "pacing_margin"
        ]
    );
    assert_eq!(info.display_name, "Tempered BBR");
    let spec = AlgorithmSpec::parse("tempered-bbr:loss_thresh=0.1,mu=0.75").unwrap();
    assert_eq!(TemperedParams::from_spec(&spec).loss_thresh, 0.1);
    let obbr = ObbrParams::from_spec(&spec);
    assert_eq!((obbr.mu, obbr.code, obbr.g_max), (0.75, false, 2.0));
    let spec = AlgorithmSpec::parse(NAME).unwrap();
    assert_eq!(
        ObbrParams::from_spec(&spec).mu,
        0.25,
        "Tempered BBR's own default"
    );
}

#[test]
fn bad_parameters_are_errors_that_name_them() {
    for (spec, needle) in [
        (
            "tempered-bbr:code=true",
            "`tempered-bbr` has no parameter `code`",
        ),
        ("tempered-bbr:loss_thresh=1.5", "loss_thresh"),
        ("tempered-bbr:loss_thresh=x", "loss_thresh"),
        ("tempered-bbr:app_limited_plateau=2", "app_limited_plateau"),
        ("tempered-bbr:mu=-1", "mu"),
        ("tempered-bbr:standing=-0.5", "standing"),
        ("tempered-bbr:drain_rounds=x", "drain_rounds"),
        ("tempered-bbr:drain_rounds=-1", "drain_rounds"),
    ] {
        let err: SpecError = AlgorithmSpec::parse(spec).unwrap_err();
        assert!(
            err.to_string().contains(needle),
            "{spec}: `{err}` does not name `{needle}`"
        );
    }
}

#[test]
fn same_events_same_decisions() {
    let run = || {
        let config = ControllerConfig::new(7, Instant::ZERO);
        let mut cc = AlgorithmSpec::parse(NAME).unwrap().build(&config);
        let mut pipe = Pipe::new(Bandwidth::from_mbps(20), ms(40));
        let mut trace = Vec::new();
        pipe.run_until(cc.as_mut(), Instant::from_nanos(3_000_000_000), |_, cc| {
            trace.push((cc.cwnd(), cc.pacing_rate(), cc.snapshot().mode));
        });
        trace
    };
    let a = run();
    assert!(a.len() > 1000);
    assert_eq!(a, run());
}

#[test]
fn alone_on_a_lossless_pipe_it_fills_it_as_bbrv1_does() {
    let config = ControllerConfig::new(1, Instant::ZERO);
    let mut cc = AlgorithmSpec::parse(NAME).unwrap().build(&config);
    let mut pipe = Pipe::new(Bandwidth::from_mbps(20), ms(40));
    pipe.run_until(cc.as_mut(), Instant::from_nanos(5_000_000_000), |_, _| {});
    let snap = cc.snapshot();
    assert!(snap.mode.starts_with("probe_bw"), "mode {}", snap.mode);
    let bw = snap.bandwidth_estimate.unwrap().as_bps_f64();
    assert!((bw / 20e6 - 1.0).abs() < 0.05, "estimate {bw}");
    assert_eq!(snap.cwnd_gain, 2.0, "no loss: oBBR's g stays g_max");
}

/// A lossless ACK with an RTT sample of `rtt_ms` (smoothed too), the
/// connection's lowest RTT 40 ms.
fn ack_rtt(now_ms: u64, rtt_ms: u64) -> AckEvent {
    ack_at(now_ms, rtt_ms, 40, 0)
}

/// The core's context in `mode` at round `round`, RTprop `rtprop_ms`.
fn mode_ctx(event: &AckEvent, mode: Mode, round: u64, rtprop_ms: u64) -> AckContext<'_> {
    AckContext {
        mode,
        round_count: round,
        round_start: true,
        ..cruise_context(event, Bandwidth::from_mbps(50), ms(rtprop_ms))
    }
}

fn drain_ctx(event: &AckEvent, round_count: u64, inflight: Bytes) -> DrainContext<'_> {
    DrainContext {
        event,
        round_start: true,
        round_count,
        inflight,
        target: Bytes(100_000),
    }
}

#[test]
fn drain_ends_by_linux_test_or_after_its_round_bound() {
    let event = ack_rtt(0, 300);
    let mut d = BoundedDrain::new(3);
    // Entered at round 10, inflight above the target: not over until 13.
    assert!(!d.drain_done(&drain_ctx(&event, 10, Bytes(300_000)), false));
    assert!(!d.drain_done(&drain_ctx(&event, 12, Bytes(300_000)), false));
    assert!(d.drain_done(&drain_ctx(&event, 13, Bytes(300_000)), false));
    assert_eq!(d.bounded(), 1);
    // A second Drain counts from its own start; Linux's test ends it.
    assert!(!d.drain_done(&drain_ctx(&event, 50, Bytes(300_000)), false));
    assert!(d.drain_done(&drain_ctx(&event, 51, Bytes(90_000)), true));
    assert_eq!(d.bounded(), 1, "Linux's test ended it, not the bound");
    // Bound 0: Linux's Drain, however long.
    let mut linux = BoundedDrain::new(0);
    assert!(!linux.drain_done(&drain_ctx(&event, 0, Bytes(300_000)), false));
    assert!(!linux.drain_done(&drain_ctx(&event, 1_000, Bytes(300_000)), false));
}

/// Feeds `test` a ProbeRTT of two rounds at `rtt_ms`, then the ACK that
/// returns to ProbeBW.
fn probe_rtt_at(test: &mut StandingQueue, start_round: u64, rtt_ms: u64) {
    for (i, mode) in [Mode::ProbeBw, Mode::ProbeRtt, Mode::ProbeRtt, Mode::ProbeBw]
        .into_iter()
        .enumerate()
    {
        let event = ack_rtt(start_round * 100 + i as u64, rtt_ms);
        test.on_ack(&mode_ctx(&event, mode, start_round + i as u64, 40));
    }
}

#[test]
fn a_queue_probe_rtt_cannot_drain_is_a_competitors_and_an_empty_one_clears_it() {
    let mut test = StandingQueue::new(0.5, 3);
    probe_rtt_at(&mut test, 10, 41);
    assert!(!test.competitor(), "ratio {}", test.ratio());
    // 300 ms at four packets in flight over a 40 ms path.
    probe_rtt_at(&mut test, 20, 300);
    assert!(test.competitor());
    assert!((test.ratio() - 7.5).abs() < 1e-9);
    // The next ProbeRTT sees the path again: the competitor left.
    probe_rtt_at(&mut test, 30, 44);
    assert!(!test.competitor(), "1.1 < 1.5");
}

/// Feeds `test` a Drain of `rounds` rounds at `rtt_ms`, then ProbeBW.
fn drain_at(test: &mut StandingQueue, rounds: u64, rtt_ms: u64) {
    let mut modes = vec![Mode::Startup];
    modes.extend(std::iter::repeat_n(Mode::Drain, rounds as usize));
    modes.push(Mode::ProbeBw);
    for (i, mode) in modes.into_iter().enumerate() {
        let event = ack_rtt(i as u64, rtt_ms);
        test.on_ack(&mode_ctx(&event, mode, i as u64, 40));
    }
}

#[test]
fn only_a_drain_its_bound_ended_measures_the_queue() {
    // Linux's test ended Drain after a round: the high RTT of its samples
    // is Startup's own queue, and says nothing.
    let mut test = StandingQueue::new(0.5, 3);
    drain_at(&mut test, 1, 200);
    assert!(!test.competitor());
    assert_eq!(test.ratio(), 0.0, "no measurement");
    // Three rounds of draining left the RTT at 5 times the path's.
    let mut test = StandingQueue::new(0.5, 3);
    drain_at(&mut test, 3, 200);
    assert!(test.competitor());
    // Without a drain bound, no Drain counts.
    let mut test = StandingQueue::new(0.5, 0);
    drain_at(&mut test, 3, 200);
    assert!(!test.competitor());
}

#[test]
fn beside_a_competitor_the_gain_holds_g_max_srtt_over_rtprop_and_no_cap() {
    let mut d = DeepBufferGain::new(gate(0.05, 0.1), 2.0, 16.0, 0.01)
        .with_standing_queue(StandingQueue::new(0.5, 3));
    // A shallow-buffer loss (RTT 1.4 RTprop) cuts oBBR's g.
    let event = ack(0, 1);
    d.on_ack(&ctx(&event, true));
    let event = ack(1, 0);
    let gain = d.cwnd_gain(&ctx(&event, false), 2.0);
    assert!(gain < 1.5, "cut: {gain}");
    assert!(d.inflight_cap(&ctx(&event, false)).is_some());
    // A ProbeRTT at a 300 ms RTT over a 40 ms path: a competitor's queue.
    let mut with = DeepBufferGain::new(gate(0.05, 0.1), 2.0, 16.0, 0.01)
        .with_standing_queue(StandingQueue::new(0.5, 3));
    for (i, mode) in [Mode::ProbeBw, Mode::ProbeRtt, Mode::ProbeRtt, Mode::ProbeBw]
        .into_iter()
        .enumerate()
    {
        let event = ack_rtt(2000 + i as u64, 300);
        with.on_ack(&mode_ctx(&event, mode, 20 + i as u64, 40));
    }
    assert!(with.standing_queue().unwrap().competitor());
    // SRTT 360 ms over a 240 ms RTprop: 2 x 1.5 = 3.
    let event = ack_rtt(3000, 360);
    let c = mode_ctx(&event, Mode::ProbeBw, 30, 240);
    assert!((with.cwnd_gain(&c, 2.0) - 3.0).abs() < 1e-9);
    assert_eq!(with.inflight_cap(&c), None);
    // Capped at deep_max; never below g_max; ProbeRTT keeps the core's.
    let event = ack_rtt(3001, 3000);
    assert_eq!(
        with.cwnd_gain(&mode_ctx(&event, Mode::ProbeBw, 30, 40), 2.0),
        16.0
    );
    let event = ack_rtt(3002, 240);
    assert_eq!(
        with.cwnd_gain(&mode_ctx(&event, Mode::ProbeBw, 30, 240), 2.0),
        2.0
    );
    assert_eq!(
        with.cwnd_gain(&mode_ctx(&event, Mode::ProbeRtt, 30, 240), 1.0),
        1.0
    );
}

/// A drop detector that proposes 1 Mbit/s on every ACK.
#[derive(Clone, Debug)]
struct AlwaysDrop;
impl BandwidthDropDetector for AlwaysDrop {
    fn on_ack(&mut self, _ctx: &AckContext, _sample: Option<Bandwidth>) -> Option<Bandwidth> {
        Some(Bandwidth::from_mbps(1))
    }
}

#[test]
fn the_drop_detector_rests_while_a_competitor_holds_the_queue() {
    let mut p = PausedBesideCompetitor::new(AlwaysDrop, StandingQueue::new(0.5, 3));
    let event = ack_rtt(0, 300);
    assert_eq!(
        p.on_ack(&mode_ctx(&event, Mode::ProbeBw, 1, 40), None),
        Some(Bandwidth::from_mbps(1))
    );
    for (i, mode) in [Mode::ProbeRtt, Mode::ProbeRtt, Mode::ProbeBw]
        .into_iter()
        .enumerate()
    {
        let event = ack_rtt(10 + i as u64, 300);
        p.on_ack(&mode_ctx(&event, mode, 2 + i as u64, 40), None);
    }
    let event = ack_rtt(20, 300);
    assert_eq!(
        p.on_ack(&mode_ctx(&event, Mode::ProbeBw, 5, 40), None),
        None
    );
    assert!(p.paused() >= 2);
}

/// A detector that proposes each bandwidth sample it is shown, so a test
/// sees which samples reached it.
#[derive(Clone, Debug)]
struct EchoSamples;

impl BandwidthDropDetector for EchoSamples {
    fn on_ack(&mut self, _ctx: &AckContext, sample: Option<Bandwidth>) -> Option<Bandwidth> {
        sample
    }
}

/// An ACK at `now_ms` of a packet sent at `sent_ms`, with `in_flight`
/// bytes in flight before it.
fn ack_sent(now_ms: u64, sent_ms: u64, in_flight: u64) -> AckEvent {
    Ack::at(Instant::from_nanos(now_ms * 1_000_000))
        .prior_in_flight(Bytes(in_flight))
        .with_rate(|r| r.newest_sent_time = Some(Instant::from_nanos(sent_ms * 1_000_000)))
        .build()
}

#[test]
fn samples_of_probe_rtts_refill_do_not_reach_the_drop_detector() {
    // 40 Mbit/s x 100 ms: one BDP is 500 KB.
    let mut hidden = RefillHidden::new(Box::new(EchoSamples));
    let low = Some(Bandwidth::from_mbps(10));
    // Outside a refill every sample counts, even with little in flight
    // (loss recovery's window).
    let event = ack_sent(1_000, 900, 100_000);
    assert_eq!(hidden.on_ack(&ctx(&event, false), low), low);
    // ProbeRTT, then ProbeBW with the pipe still refilling (the window is
    // restored, what is in flight is not).
    let event = ack_sent(2_000, 1_900, 6_000);
    let probe_rtt = AckContext {
        mode: Mode::ProbeRtt,
        ..ctx(&event, false)
    };
    assert_eq!(hidden.on_ack(&probe_rtt, low), None);
    let event = ack_sent(2_300, 2_200, 200_000);
    assert_eq!(hidden.on_ack(&ctx(&event, false), low), None);
    // One BDP is in flight at 2.4 s: packets sent until then still
    // measured the refill, later ones the path.
    let event = ack_sent(2_400, 2_300, 500_000);
    assert_eq!(hidden.on_ack(&ctx(&event, false), low), None);
    let event = ack_sent(2_500, 2_410, 500_000);
    assert_eq!(hidden.on_ack(&ctx(&event, false), low), low);
    // Little in flight after the refill is loss recovery's: counted.
    let event = ack_sent(2_600, 2_500, 100_000);
    assert_eq!(hidden.on_ack(&ctx(&event, false), low), low);
    assert_eq!(hidden.hidden(), 3);
}

#[test]
fn tempered_bbr_hides_the_refill_unless_told_not_to() {
    let on = AlgorithmSpec::parse(NAME).unwrap();
    assert!(TemperedParams::from_spec(&on).refill_hidden);
    let spec = AlgorithmSpec::parse("tempered-bbr:refill_hidden=false").unwrap();
    assert!(!TemperedParams::from_spec(&spec).refill_hidden);
}
