//! Mechanism tests of oBBR: the adaptive gain, the drop detector with its
//! score and revert, the code-mode differences, and the whole controller on
//! the lossless test pipe.

use std::time::Duration;

use super::cwnd_gain::{AdaptiveCwndGain, AdaptiveGainConfig, PROBE_FLOOR};
use super::drop_detector::{DropDetectorConfig, TimelyBandwidthUpdate};
use super::*;
use crate::bbr::extension::{AckContext, BandwidthDropDetector, CwndGainPolicy};
use crate::bbr::Mode;
use crate::controller::AckEvent;
use crate::rate::RateSample;
use crate::testing::Ack;
use crate::testing::Pipe;
use crate::units::{Bandwidth, Bytes, Instant};

const MSS: Bytes = Bytes(1500);

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

fn at_ms(v: u64) -> Instant {
    Instant::from_nanos(v * 1_000_000)
}

fn mbps(v: u64) -> Bandwidth {
    Bandwidth::from_mbps(v)
}

/// An ACK at `now` acking `acked`, losing `lost`, with RTT sample `rtt`.
fn ack(now: Instant, acked: Bytes, lost: Bytes, rtt: Duration) -> AckEvent {
    Ack::at(now)
        .rate(RateSample {
            delivery_rate: Some(mbps(40)),
            delivered: acked,
            interval: ms(100),
            prior_delivered: Some(Bytes::ZERO),
            total_delivered: Bytes(10_000_000),
            newest_sent_time: Some(now - rtt),
            ..RateSample::default()
        })
        .rtt(rtt)
        .min_rtt(ms(100))
        .acked(acked)
        .lost(lost)
        .in_flight(Bytes(500_000))
        .in_recovery(lost > Bytes::ZERO)
        .build()
}

/// The core's context for `event`: 40 Mbit/s x 100 ms (BDP 500 KB).
fn ctx(event: &AckEvent, mode: Mode, pacing_gain: f64) -> AckContext<'_> {
    let bandwidth = mbps(40);
    AckContext {
        event,
        mode,
        cycle_phase: (mode == Mode::ProbeBw).then_some(2),
        pacing_gain,
        round_start: false,
        round_count: 100,
        bandwidth,
        min_rtt: Some(ms(100)),
        bdp: Some(bandwidth.bytes_in(ms(100))),
        cwnd: Bytes(1_000_000),
        full_pipe: true,
        recovery_entered: false,
        mss: MSS,
    }
}

fn paper_gain(mu: f64) -> AdaptiveCwndGain {
    AdaptiveCwndGain::new(AdaptiveGainConfig {
        mu,
        alpha: 0.01,
        g_max: 2.0,
        code: false,
        may_gain: false,
    })
}

fn code_gain() -> AdaptiveCwndGain {
    AdaptiveCwndGain::new(ObbrParams::code().gain_config())
}

/// Feeds one ACK to a gain policy in ProbeBW at pacing gain 1.
fn feed(p: &mut AdaptiveCwndGain, event: &AckEvent) {
    p.on_ack(&ctx(event, Mode::ProbeBw, 1.0));
}

fn assert_close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

// --- adaptive g (§4.1) ---

#[test]
fn loss_sets_g_from_the_rtt_ratio() {
    // RTT 150 ms over RTprop 100 ms: the buffer is half a BDP; mu 0.5 of it.
    let mut p = paper_gain(0.5);
    assert_eq!(p.g(), 2.0, "starts at g_max: BBRv1 until a loss");
    feed(&mut p, &ack(at_ms(1000), MSS, MSS, ms(150)));
    assert_close(p.g(), 1.25);
    let mut p = paper_gain(1.0);
    feed(&mut p, &ack(at_ms(1000), MSS, MSS, ms(150)));
    assert_close(p.g(), 1.5);
    let mut p = paper_gain(0.75);
    feed(&mut p, &ack(at_ms(1000), MSS, MSS, ms(190)));
    assert_close(p.g(), 1.675);
}

#[test]
fn g_is_at_most_g_max_and_at_least_one() {
    // mu 2 with a 0.9 x BDP buffer would give 2.8: capped at g_max.
    let mut p = paper_gain(2.0);
    feed(&mut p, &ack(at_ms(1000), MSS, MSS, ms(190)));
    assert_close(p.g(), 2.0);
    // An RTT below an RTprop not yet updated: floored at 1.
    let mut p = paper_gain(0.5);
    feed(&mut p, &ack(at_ms(1000), MSS, MSS, ms(90)));
    assert_close(p.g(), 1.0);
}

#[test]
fn paper_mode_keeps_g_when_the_rtt_shows_a_deep_buffer() {
    // RTT_latest / RTprop = 2.5 >= g_max: not a shallow buffer (§4.1), so
    // the loss does not rescale g; the ACK regrows it instead.
    let mut p = paper_gain(0.5);
    feed(&mut p, &ack(at_ms(1000), MSS, MSS, ms(150)));
    let g = p.g();
    feed(&mut p, &ack(at_ms(1010), MSS, MSS, ms(250)));
    assert!(p.g() > g && p.g() < g + 0.001, "{} vs {g}", p.g());
    assert_eq!(p.rescales(), 1);
}

#[test]
fn g_regrows_by_alpha_acked_over_bdp_per_lossless_ack_up_to_g_max() {
    let mut p = paper_gain(0.5);
    feed(&mut p, &ack(at_ms(1000), MSS, MSS, ms(150)));
    assert_close(p.g(), 1.25);
    // BDP 500 KB; an ACK of 50 KB adds 0.01 x 0.1.
    feed(
        &mut p,
        &ack(at_ms(1010), Bytes(50_000), Bytes::ZERO, ms(100)),
    );
    assert_close(p.g(), 1.251);
    // Each further BDP acknowledged adds alpha = 0.01: 75 BDPs reach 2.
    for i in 0..749 {
        feed(
            &mut p,
            &ack(at_ms(1020 + i), Bytes(50_000), Bytes::ZERO, ms(100)),
        );
    }
    assert_close(p.g(), 2.0);
    feed(
        &mut p,
        &ack(at_ms(2000), Bytes(500_000), Bytes::ZERO, ms(100)),
    );
    assert_eq!(p.g(), 2.0, "never above g_max");
}

#[test]
fn probing_floors_the_gain_at_1_25() {
    let mut p = paper_gain(0.5);
    feed(&mut p, &ack(at_ms(1000), MSS, MSS, ms(120))); // g = 1.1
    assert_close(p.g(), 1.1);
    let e = ack(at_ms(1010), Bytes::ZERO, Bytes::ZERO, ms(100));
    assert_close(p.cwnd_gain(&ctx(&e, Mode::ProbeBw, 1.25), 2.0), PROBE_FLOOR);
    assert_close(p.cwnd_gain(&ctx(&e, Mode::ProbeBw, 1.0), 2.0), 1.1);
    assert_close(p.cwnd_gain(&ctx(&e, Mode::ProbeBw, 0.75), 2.0), 1.1);
    // A g above the floor is kept while probing.
    let mut p = paper_gain(1.0);
    feed(&mut p, &ack(at_ms(1000), MSS, MSS, ms(140))); // g = 1.4
    assert_close(p.cwnd_gain(&ctx(&e, Mode::ProbeBw, 1.25), 2.0), 1.4);
}

#[test]
fn paper_mode_leaves_the_other_modes_gains_to_the_core() {
    let mut p = paper_gain(0.5);
    feed(&mut p, &ack(at_ms(1000), MSS, MSS, ms(150)));
    let e = ack(at_ms(1010), Bytes::ZERO, Bytes::ZERO, ms(100));
    for mode in [Mode::Startup, Mode::Drain, Mode::ProbeRtt] {
        assert_eq!(p.cwnd_gain(&ctx(&e, mode, 2.885), 2.885), 2.885, "{mode:?}");
        assert_eq!(p.inflight_cap(&ctx(&e, mode, 2.885)), None, "{mode:?}");
    }
}

#[test]
fn inflight_is_capped_at_g_bdp_only_below_g_max() {
    let e = ack(at_ms(1010), Bytes::ZERO, Bytes::ZERO, ms(100));
    let p = paper_gain(0.5);
    assert_eq!(
        p.inflight_cap(&ctx(&e, Mode::ProbeBw, 1.0)),
        None,
        "g = g_max"
    );
    let mut p = paper_gain(0.5);
    feed(&mut p, &ack(at_ms(1000), MSS, MSS, ms(120))); // g = 1.1
    assert_eq!(
        p.inflight_cap(&ctx(&e, Mode::ProbeBw, 1.0)),
        Some(Bytes(550_000))
    );
    assert_eq!(
        p.inflight_cap(&ctx(&e, Mode::ProbeBw, 1.25)),
        Some(Bytes(625_000)),
        "the probing floor raises the cap too"
    );
}

// --- code=true differences ---

#[test]
fn code_params_default_g_max_to_2_05_unless_given() {
    let p = ObbrParams::from_spec(&AlgorithmSpec::parse("obbr:code=true").unwrap());
    assert_eq!(p.g_max, CODE_G_MAX);
    assert_eq!(p.detector_config().high_rtt_ratio, 2.5);
    let p = ObbrParams::from_spec(&AlgorithmSpec::parse("obbr:code=true,g_max=2").unwrap());
    assert_eq!(p.g_max, 2.0);
    let p = ObbrParams::from_spec(&AlgorithmSpec::parse("obbr:g_max=1.8").unwrap());
    assert_eq!((p.g_max, p.code), (1.8, false));
    assert_close(p.detector_config().high_rtt_ratio, 2.3);
    let p = ObbrParams::from_spec(&AlgorithmSpec::parse("obbr").unwrap());
    assert_eq!(p, ObbrParams::default());
}

#[test]
fn code_mode_rescales_on_every_loss_up_to_2_05() {
    let mut p = code_gain();
    feed(&mut p, &ack(at_ms(1000), MSS, Bytes::ZERO, ms(100))); // mode entry
    assert_eq!(p.g(), 2.0, "ProbeBW entry sets BBR's 2");
    feed(&mut p, &ack(at_ms(1010), MSS, MSS, ms(300)));
    assert_close(p.g(), 2.0); // 1 + 0.5 x 2: no deep-buffer exemption
    feed(&mut p, &ack(at_ms(1020), MSS, MSS, ms(500)));
    assert_close(p.g(), 2.05);
}

#[test]
fn code_mode_regrows_only_outside_recovery() {
    let mut p = code_gain();
    feed(&mut p, &ack(at_ms(1000), MSS, Bytes::ZERO, ms(100)));
    feed(&mut p, &ack(at_ms(1010), MSS, MSS, ms(150)));
    assert_close(p.g(), 1.25);
    let mut in_recovery = ack(at_ms(1020), Bytes(500_000), Bytes::ZERO, ms(100));
    in_recovery.in_recovery = true;
    feed(&mut p, &in_recovery);
    assert_close(p.g(), 1.25);
    feed(
        &mut p,
        &ack(at_ms(1030), Bytes(500_000), Bytes::ZERO, ms(100)),
    );
    assert_close(p.g(), 1.26);
}

#[test]
fn code_mode_probes_at_g_max_after_three_quiet_seconds() {
    let mut p = code_gain();
    feed(&mut p, &ack(at_ms(1000), MSS, Bytes::ZERO, ms(100)));
    feed(&mut p, &ack(at_ms(1010), MSS, MSS, ms(120))); // g = 1.1
    let soon = ack(at_ms(3000), Bytes::ZERO, Bytes::ZERO, ms(100));
    assert_close(p.cwnd_gain(&ctx(&soon, Mode::ProbeBw, 1.25), 2.0), 1.25);
    let quiet = ack(at_ms(4100), Bytes::ZERO, Bytes::ZERO, ms(100));
    assert_close(p.cwnd_gain(&ctx(&quiet, Mode::ProbeBw, 1.25), 2.0), 2.05);
    assert_close(p.cwnd_gain(&ctx(&quiet, Mode::ProbeBw, 1.0), 2.0), 1.1);
    // The paper has no such rule.
    let mut p = paper_gain(0.5);
    feed(&mut p, &ack(at_ms(1010), MSS, MSS, ms(120)));
    assert_close(p.cwnd_gain(&ctx(&quiet, Mode::ProbeBw, 1.25), 2.0), 1.25);
}

#[test]
fn code_mode_adapts_startup_only_after_ten_percent_loss() {
    let mut p = code_gain();
    let startup = |e: &AckEvent, p: &mut AdaptiveCwndGain| p.on_ack(&ctx(e, Mode::Startup, 2.885));
    startup(&ack(at_ms(100), MSS, Bytes::ZERO, ms(100)), &mut p);
    let mut lossy = ack(at_ms(200), MSS, MSS, ms(150));
    lossy.rate.total_lost = Bytes(500_000); // 5% of the 10 MB delivered
    startup(&lossy, &mut p);
    assert_eq!(p.g(), 2.885, "below 10%: Startup untouched");
    lossy.rate.total_lost = Bytes(1_000_000);
    startup(&lossy, &mut p);
    assert_close(p.g(), 1.25);
    // ...and the cap then binds Startup too (at the 1.25 probing floor).
    assert_eq!(
        p.inflight_cap(&ctx(&lossy, Mode::Startup, 2.885)),
        Some(Bytes(625_000))
    );
}

#[test]
fn code_mode_caps_every_mode_and_resets_g_on_mode_entry() {
    let mut p = code_gain();
    feed(&mut p, &ack(at_ms(1000), MSS, Bytes::ZERO, ms(100)));
    feed(&mut p, &ack(at_ms(1010), MSS, MSS, ms(120))); // g = 1.1
    let drain = ack(at_ms(1020), Bytes::ZERO, Bytes::ZERO, ms(100));
    let c = ctx(&drain, Mode::ProbeRtt, 1.0);
    p.on_ack(&c);
    assert_eq!(p.g(), 1.0, "ProbeRTT entry sets its gain 1");
    feed(&mut p, &drain);
    assert_eq!(p.g(), 2.0, "back in ProbeBW: 2");
    feed(&mut p, &ack(at_ms(1030), MSS, MSS, ms(120)));
    let c = ctx(&drain, Mode::Drain, 0.35);
    assert_eq!(p.inflight_cap(&c), Some(Bytes(550_000)));
}

// --- timely bandwidth updates (§4.2) ---

/// Drives a detector with a controllable clock and delivery counters.
struct Feed {
    det: TimelyBandwidthUpdate,
    now: Instant,
    sent: Bytes,
    delivered: Bytes,
    estimate: Bandwidth,
    mode: Mode,
    app_limited: bool,
    /// When the newest acked packet was sent (default: one RTT ago).
    sent_at: Option<Instant>,
    /// When ProbeBW was last entered.
    probe_bw_at: Instant,
}

impl Feed {
    /// A detector that entered ProbeBW a second ago (only packets sent in
    /// ProbeBW give it samples).
    fn new(config: DropDetectorConfig) -> Self {
        let mut f = Feed {
            det: TimelyBandwidthUpdate::new(config),
            now: at_ms(10_000),
            sent: Bytes(10_000_000),
            delivered: Bytes(10_000_000),
            estimate: mbps(40),
            mode: Mode::ProbeBw,
            app_limited: false,
            sent_at: None,
            probe_bw_at: Instant::ZERO,
        };
        f.enter_probe_bw();
        f
    }

    /// Enters ProbeBW and lets a second pass.
    fn enter_probe_bw(&mut self) {
        self.mode = Mode::ProbeBw;
        self.ack_with(ms(0), None, ms(0), Bytes::ZERO, Bytes::ZERO, Bytes::ZERO);
        self.probe_bw_at = self.now;
        self.now += ms(1000);
    }

    fn paper() -> Self {
        Feed::new(ObbrParams::default().detector_config())
    }

    fn code() -> Self {
        Feed::new(ObbrParams::code().detector_config())
    }

    /// One ACK `step` after the last: `delivered` more bytes arrived, the
    /// sender sent `sent` more (through the newest acked packet).
    #[allow(clippy::too_many_arguments)]
    fn ack_with(
        &mut self,
        step: Duration,
        sample: Option<Bandwidth>,
        rtt: Duration,
        sent: Bytes,
        delivered: Bytes,
        lost: Bytes,
    ) -> Option<Bandwidth> {
        self.now += step;
        self.sent += sent;
        self.delivered += delivered;
        let event = Ack::at(self.now)
            .rate(RateSample {
                delivery_rate: sample,
                delivered,
                interval: ms(100),
                // tx_in_flight 0 and no losses: "sent through P" = prior_delivered.
                prior_delivered: Some(self.sent),
                total_delivered: self.delivered,
                newest_sent_time: Some(self.sent_at.unwrap_or(self.now - rtt)),
                is_app_limited: self.app_limited,
                ..RateSample::default()
            })
            .rtt(rtt)
            .min_rtt(ms(100))
            .acked(delivered)
            .lost(lost)
            .in_flight(Bytes(500_000))
            .build();
        let mut c = ctx(&event, self.mode, 1.0);
        c.bandwidth = self.estimate;
        let verdict = self.det.on_ack(&c, sample);
        if let Some(bw) = verdict {
            self.estimate = bw;
        }
        verdict
    }

    /// A 1 ms ACK of 5 KB (40 Mbit/s) with a bandwidth sample and RTT.
    fn sample(&mut self, bw: Bandwidth, rtt: Duration) -> Option<Bandwidth> {
        self.ack_with(
            ms(1),
            Some(bw),
            rtt,
            Bytes(5_000),
            Bytes(5_000),
            Bytes::ZERO,
        )
    }

    /// ACKs without bandwidth samples for `d`, each delivering `per_ms`
    /// and sending `per_ms + unacked_per_ms` per ms; returns the verdicts.
    fn traffic(&mut self, d: Duration, per_ms: u64, unacked_per_ms: u64) -> Vec<Bandwidth> {
        let mut out = Vec::new();
        for _ in 0..d.as_millis() {
            let v = self.ack_with(
                ms(1),
                None,
                ms(100),
                Bytes(per_ms + unacked_per_ms),
                Bytes(per_ms),
                Bytes::ZERO,
            );
            out.extend(v);
        }
        out
    }
}

#[test]
fn detector_fires_on_the_kth_low_sample_not_before() {
    let mut f = Feed::paper();
    // Low: below 0.75 x 40 = 30 Mbit/s.
    for i in 1..30 {
        assert_eq!(f.sample(mbps(20), ms(100)), None, "sample {i}");
    }
    assert_eq!(f.det.low_bandwidth_run(), 29);
    assert_eq!(f.sample(mbps(20), ms(100)), Some(mbps(20)), "the 30th");
    assert_eq!(f.det.updates(), 1);
}

#[test]
fn a_normal_sample_resets_the_run() {
    let mut f = Feed::paper();
    for _ in 0..29 {
        assert_eq!(f.sample(mbps(20), ms(100)), None);
    }
    // 30 Mbit/s is not below 0.75 x 40.
    assert_eq!(f.sample(mbps(30), ms(100)), None);
    assert_eq!(f.det.low_bandwidth_run(), 0);
    for _ in 0..29 {
        assert_eq!(f.sample(mbps(20), ms(100)), None);
    }
    assert!(f.sample(mbps(20), ms(100)).is_some());
}

#[test]
fn the_new_estimate_is_the_mean_of_the_k_latest_samples() {
    let mut f = Feed::paper();
    for _ in 0..10 {
        f.sample(mbps(38), ms(100)); // older samples, not averaged
    }
    // 30 low samples of 10, 11, ..., 29 Mbit/s, repeated: mean 19.5 + ...
    let lows: Vec<u64> = (0..30).map(|i| 10 + (i % 20)).collect();
    let mut verdict = None;
    for &v in &lows {
        verdict = f.sample(mbps(v), ms(100));
    }
    let mean = lows.iter().sum::<u64>() * 1_000_000 / 30;
    assert_eq!(verdict, Some(Bandwidth::from_bits_per_sec(mean)));
}

/// The May 2023 revisions of the authors' code: low below BtlBw / 0.75,
/// the new estimate the max of the k latest samples.
fn may_2023_code() -> Feed {
    Feed::new(
        ObbrParams::from_spec(
            &AlgorithmSpec::parse("obbr:code=true,low_ratio=1.3333,estimate_max=true").unwrap(),
        )
        .detector_config(),
    )
}

#[test]
fn low_ratio_above_one_counts_samples_near_the_estimate_as_low() {
    let mut f = may_2023_code();
    // 45 Mbit/s is above the 40 Mbit/s estimate, but below 40 / 0.75.
    for _ in 0..30 {
        f.sample(mbps(45), ms(100));
    }
    assert_eq!(f.det.low_bandwidth_run(), 30);
    // 54 is not below 53.3: the run breaks.
    f.sample(mbps(54), ms(100));
    assert_eq!(f.det.low_bandwidth_run(), 0);
    // The paper's 0.75 never counts 45 as low.
    let mut p = Feed::paper();
    p.sample(mbps(45), ms(100));
    assert_eq!(p.det.low_bandwidth_run(), 0);
}

#[test]
fn estimate_max_proposes_the_largest_of_the_k_latest_samples() {
    let mut f = may_2023_code();
    for v in (20..50).rev() {
        f.sample(mbps(v), ms(100));
    }
    assert_eq!(f.det.max_of_latest(), Some(mbps(49)));
    // The trigger needs a loss in code mode; the update comes two
    // intervals later and is the max, not the mean (34.5).
    f.ack_with(
        ms(1),
        Some(mbps(20)),
        ms(100),
        Bytes(5_000),
        Bytes(5_000),
        Bytes(1_500),
    );
    assert!(f.det.is_evaluating());
    let verdicts = f.traffic(ms(450), 5_000, 0);
    assert_eq!(
        verdicts.first(),
        Some(&mbps(48)),
        "max of the 30 latest (49 fell out)"
    );
}

#[test]
fn a_run_of_high_rtts_fires_too() {
    let mut f = Feed::paper();
    // Bandwidth samples look fine, RTTs exceed (2 + 0.5) x 100 ms.
    for _ in 0..20 {
        f.sample(mbps(36), ms(100));
    }
    for i in 1..30 {
        assert_eq!(f.sample(mbps(33), ms(260)), None, "RTT sample {i}");
    }
    assert_eq!(f.det.high_rtt_run(), 29);
    let v = f.sample(mbps(33), ms(260)).expect("the 30th high RTT");
    assert_eq!(v, mbps(33), "the mean of the 30 latest samples");
}

#[test]
fn another_mode_breaks_the_run() {
    let mut f = Feed::paper();
    for _ in 0..29 {
        f.sample(mbps(20), ms(100));
    }
    f.mode = Mode::Drain;
    f.sample(mbps(20), ms(100));
    assert_eq!(f.det.low_bandwidth_run(), 0);
    f.enter_probe_bw();
    for _ in 0..29 {
        assert_eq!(f.sample(mbps(20), ms(100)), None);
    }
    assert!(f.sample(mbps(20), ms(100)).is_some());
}

#[test]
fn app_limited_samples_neither_extend_nor_break_the_run() {
    let mut f = Feed::paper();
    for _ in 0..29 {
        f.sample(mbps(20), ms(100));
    }
    f.app_limited = true;
    assert_eq!(f.sample(mbps(20), ms(100)), None);
    assert_eq!(f.sample(mbps(39), ms(100)), None);
    assert_eq!(f.det.low_bandwidth_run(), 29);
    f.app_limited = false;
    assert!(f.sample(mbps(20), ms(100)).is_some());
}

#[test]
fn samples_of_packets_sent_before_probe_bw_settled_do_not_count() {
    // ProbeBW began a second ago: packets sent 1.1 s ago were paced by
    // Drain, and those sent in its first min_rtt are measured against
    // Drain's ACKs.
    let mut f = Feed::paper();
    f.sent_at = Some(f.probe_bw_at - ms(100));
    for _ in 0..40 {
        f.sample(mbps(20), ms(100));
    }
    f.sent_at = Some(f.probe_bw_at + ms(99));
    for _ in 0..40 {
        f.sample(mbps(20), ms(100));
    }
    assert_eq!(f.det.low_bandwidth_run(), 0);
    f.sent_at = Some(f.probe_bw_at + ms(100));
    f.sample(mbps(20), ms(100));
    assert_eq!(f.det.low_bandwidth_run(), 1);
}

#[test]
fn no_update_when_the_mean_is_not_lower() {
    let mut f = Feed::paper();
    f.estimate = mbps(10);
    // High RTTs with samples above the estimate: nothing to lower.
    for _ in 0..40 {
        assert_eq!(f.sample(mbps(12), ms(300)), None);
    }
    assert_eq!(f.det.updates(), 0);
}

/// Two score intervals of steady traffic, then a drop trigger.
fn triggered(before_unacked_per_ms: u64) -> Feed {
    let mut f = Feed::paper();
    // 5 KB per ms delivered; some sent data does not arrive.
    assert!(f.traffic(ms(450), 5_000, before_unacked_per_ms).is_empty());
    for _ in 0..29 {
        f.sample(mbps(20), ms(100));
    }
    assert_eq!(f.sample(mbps(20), ms(100)), Some(mbps(20)));
    f
}

#[test]
fn the_update_is_reverted_when_delivery_scores_worse_after_it() {
    // Before: 5 KB/ms delivered, nothing lost. After: half the delivery.
    let mut f = triggered(0);
    assert!(f.det.is_evaluating());
    let verdicts = f.traffic(ms(450), 2_500, 0);
    assert_eq!(verdicts, vec![mbps(40)], "the old estimate returns");
    assert_eq!(f.det.reverts(), 1);
    assert!(!f.det.is_evaluating());
}

#[test]
fn the_update_stays_when_delivery_scores_better_after_it() {
    // Before: 0.5 KB/ms sent and lost (U = 5000 - 10 x 500 = 0 per ms).
    // After: less delivered but nothing lost (U = 4000 per ms).
    let mut f = triggered(500);
    let verdicts = f.traffic(ms(450), 4_000, 0);
    assert!(verdicts.is_empty(), "{verdicts:?}");
    assert_eq!((f.det.updates(), f.det.reverts()), (1, 0));
    assert!(!f.det.is_evaluating());
}

#[test]
fn unacked_data_weighs_ten_times_delivered_data() {
    // Before: 5 KB/ms delivered, 0.1 KB/ms lost: U = 4000/ms.
    // After: 4.5 KB/ms delivered, nothing lost: U = 4500/ms, kept.
    let mut f = triggered(100);
    assert!(f.traffic(ms(450), 4_500, 0).is_empty());
    // After: 4.2 KB/ms delivered, 0.03 KB/ms lost: U = 3900/ms, reverted.
    let mut f = triggered(100);
    assert_eq!(f.traffic(ms(450), 4_200, 30), vec![mbps(40)]);
}

#[test]
fn code_mode_needs_a_loss_and_applies_the_update_after_two_intervals() {
    let mut f = Feed::code();
    f.traffic(ms(450), 5_000, 0);
    for _ in 0..40 {
        assert_eq!(f.sample(mbps(20), ms(100)), None, "no loss, no trigger");
    }
    // The loss: triggered now, applied two intervals (> 2 x 200 ms) later.
    let v = f.ack_with(
        ms(1),
        Some(mbps(20)),
        ms(100),
        Bytes(5_000),
        Bytes(5_000),
        MSS,
    );
    assert_eq!(v, None);
    assert!(f.det.is_evaluating());
    let verdicts = f.traffic(ms(399), 5_000, 0);
    assert!(verdicts.is_empty(), "not before 2T: {verdicts:?}");
    let verdicts = f.traffic(ms(10), 5_000, 0);
    assert_eq!(verdicts, vec![mbps(20)], "mean of the 30 latest samples");
    // Then scored against the two intervals between trigger and update.
    let verdicts = f.traffic(ms(450), 2_000, 0);
    assert_eq!(verdicts, vec![mbps(40)], "reverted");
}

#[test]
fn code_mode_reverts_at_most_once_per_ten_min_rtts() {
    let mut f = Feed::code();
    let cycle = |f: &mut Feed| {
        f.estimate = mbps(40);
        for _ in 0..30 {
            f.sample(mbps(20), ms(100));
        }
        f.ack_with(
            ms(1),
            Some(mbps(20)),
            ms(100),
            Bytes(5_000),
            Bytes(5_000),
            MSS,
        );
        f.traffic(ms(420), 5_000, 0);
        f.traffic(ms(420), 2_000, 0)
    };
    assert_eq!(cycle(&mut f), vec![mbps(40)]);
    // 0.9 s later: within 10 x 100 ms of the last revert.
    assert_eq!(cycle(&mut f), vec![]);
    f.traffic(ms(200), 5_000, 0);
    assert_eq!(cycle(&mut f), vec![mbps(40)]);
    assert_eq!(f.det.reverts(), 2);
}

#[test]
fn code_mode_counts_high_rtts_beyond_k() {
    let mut f = Feed::code();
    for _ in 0..29 {
        f.sample(mbps(36), ms(300));
    }
    // nginx counts the RTT before it checks, and needs more than 30.
    let lost = |f: &mut Feed| {
        f.ack_with(
            ms(1),
            Some(mbps(36)),
            ms(300),
            Bytes(5_000),
            Bytes(5_000),
            MSS,
        );
        f.det.is_evaluating()
    };
    assert!(!lost(&mut f), "30 high RTTs and a loss");
    assert!(lost(&mut f), "31 high RTTs and a loss");
}

#[test]
fn sums_do_not_overflow_at_100_gbit_s() {
    let mut f = Feed::paper();
    f.estimate = mbps(100_000);
    for _ in 0..30 {
        f.sample(mbps(60_000), ms(100));
    }
    assert_eq!(f.estimate, mbps(60_000));
}

// --- the controller ---

fn obbr(spec: &str) -> Box<dyn CongestionControl> {
    AlgorithmSpec::parse(spec)
        .unwrap()
        .build(&ControllerConfig::new(3, Instant::ZERO))
}

fn extra(cc: &dyn CongestionControl, key: &str) -> f64 {
    cc.snapshot()
        .extra
        .iter()
        .find(|(k, _)| *k == key)
        .unwrap_or_else(|| panic!("no {key}"))
        .1
}

#[test]
fn without_loss_obbr_is_bbrv1() {
    let mut pipe = Pipe::new(mbps(20), ms(40));
    let mut cc = obbr("obbr");
    pipe.run_until(cc.as_mut(), Instant::from_nanos(5_000_000_000), |_, _| {});
    let snap = cc.snapshot();
    assert_eq!(snap.mode, "probe_bw");
    assert_eq!(snap.cwnd_gain, 2.0);
    assert_eq!(extra(cc.as_ref(), "obbr_g"), 2.0);
    assert_eq!(extra(cc.as_ref(), "obbr_bw_updates"), 0.0);
    assert_eq!(snap.bandwidth_estimate, Some(mbps(20)));
}

#[test]
fn a_bandwidth_drop_is_followed_within_a_second() {
    // The lossless pipe queues without limit: after 20 -> 5 Mbit/s the RTT
    // climbs past 2.5 RTprop, and oBBR's estimate follows well before
    // BBRv1's ten rounds (which the queue stretches) are over.
    let fell_after = |spec: &str| {
        let rtt = ms(40);
        let mut pipe = Pipe::new(mbps(20), rtt);
        let mut cc = obbr(spec);
        pipe.run_until(cc.as_mut(), Instant::from_nanos(3_000_000_000), |_, _| {});
        pipe.rate = mbps(5);
        let drop_at = pipe.now;
        let mut fell = None;
        pipe.run_until(
            cc.as_mut(),
            drop_at + Duration::from_secs(10),
            |step, cc| {
                let bw = cc.snapshot().bandwidth_estimate.unwrap();
                if fell.is_none() && bw < mbps(7) {
                    fell = Some(step.now - drop_at);
                }
            },
        );
        fell.expect("estimate fell")
    };
    let obbr = fell_after("obbr");
    let bbr = fell_after("bbr");
    assert!(obbr < Duration::from_secs(1), "oBBR {obbr:?}");
    assert!(obbr * 2 < bbr, "oBBR {obbr:?}, BBR {bbr:?}");
}

#[test]
fn spec_ranges_are_enforced() {
    assert!(AlgorithmSpec::parse("obbr:mu=0.75,k=20,t_ms=100").is_ok());
    for bad in ["obbr:mu=2.5", "obbr:k=0", "obbr:g_max=0.5", "obbr:alpha=-1"] {
        assert!(AlgorithmSpec::parse(bad).is_err(), "{bad}");
    }
    let msg = AlgorithmSpec::parse("obbr:nu=1").unwrap_err().to_string();
    assert!(msg.contains("mu") && msg.contains("g_max"), "{msg}");
}

// --- the May 2023 revisions' gain (may_gain) ---

fn may_gain() -> AdaptiveCwndGain {
    let spec = crate::spec::AlgorithmSpec::parse("obbr:mu=0.5,code=true,may_gain=true").unwrap();
    let params = ObbrParams::from_spec(&spec);
    assert_eq!(params.g_max, 2.0, "the May revisions cap g at 2");
    AdaptiveCwndGain::new(params.gain_config())
}

#[test]
fn may_gain_adapts_in_probe_bw_only_and_starts_it_at_two() {
    let mut p = may_gain();
    let lossy = ack(at_ms(1000), MSS, MSS, ms(150));
    p.on_ack(&ctx(&lossy, Mode::Startup, 2.885));
    let startup = ctx(&lossy, Mode::Startup, 2.885);
    assert_eq!(
        p.cwnd_gain(&startup, 2.885),
        2.885,
        "Startup keeps its gain"
    );
    // Entering ProbeBW sets 2; the entering ACK adapts nothing.
    p.on_ack(&ctx(&lossy, Mode::ProbeBw, 1.0));
    assert_close(p.g(), 2.0);
    // A loss rescales without the shallow-buffer test: ratio 3 gives 2, 1.5 gives 1.25.
    feed(&mut p, &ack(at_ms(1100), MSS, MSS, ms(300)));
    assert_close(p.g(), 2.0);
    feed(&mut p, &ack(at_ms(1200), MSS, MSS, ms(150)));
    assert_close(p.g(), 1.25);
    // No hard cap in these revisions.
    let e = ack(at_ms(1300), MSS, Bytes::ZERO, ms(150));
    assert!(p.inflight_cap(&ctx(&e, Mode::ProbeBw, 1.0)).is_none());
}

#[test]
fn may_gain_a_quiet_probe_stores_two_until_the_next_loss() {
    let mut p = may_gain();
    let e = ack(at_ms(500), MSS, Bytes::ZERO, ms(100));
    p.on_ack(&ctx(&e, Mode::ProbeBw, 1.0));
    feed(&mut p, &ack(at_ms(1000), MSS, MSS, ms(150)));
    assert_close(p.g(), 1.25);
    // A probe 4 s after the loss: the 1.25 floor, stored.
    let probe = ack(at_ms(5000), Bytes::ZERO, Bytes::ZERO, ms(100));
    p.on_ack(&ctx(&probe, Mode::ProbeBw, 1.25));
    assert!(p.g() < 1.3, "{}", p.g());
    // A probe more than 5 s after it: g becomes 2 and stays after the probe.
    let probe = ack(at_ms(6100), Bytes::ZERO, Bytes::ZERO, ms(100));
    p.on_ack(&ctx(&probe, Mode::ProbeBw, 1.25));
    assert_close(p.g(), 2.0);
    let cruise = ack(at_ms(6200), Bytes::ZERO, Bytes::ZERO, ms(100));
    p.on_ack(&ctx(&cruise, Mode::ProbeBw, 1.0));
    assert_close(p.cwnd_gain(&ctx(&cruise, Mode::ProbeBw, 1.0), 2.0), 2.0);
    // The final code's override is only the probe's working gain.
    let mut code = code_gain();
    code.on_ack(&ctx(&e, Mode::ProbeBw, 1.0));
    feed(&mut code, &ack(at_ms(1000), MSS, MSS, ms(150)));
    code.on_ack(&ctx(&probe, Mode::ProbeBw, 1.25));
    assert!(code.cwnd_gain(&ctx(&cruise, Mode::ProbeBw, 1.0), 2.0) < 1.5);
}
