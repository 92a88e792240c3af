//! CUBIC (RFC 9438), with optional HyStart++ (RFC 9406).
//!
//! Like NewReno, CUBIC estimates no path property: it probes for the window
//! at which the path drops packets. What it adds is a guess about where
//! that window is. The window just before the last loss, W_max, is taken as
//! the saturation point; after a cut to `beta * W_max` the window follows
//! a cubic function of the time since the congestion-avoidance epoch
//! started,
//!
//! ```text
//! W_cubic(t) = C * (t - K)^3 + W_max,   K = cbrt((W_max - cwnd_epoch) / C)
//! ```
//!
//! which rises fast at first, flattens as it nears W_max at `t = K`
//! (concave region, §4.4), and accelerates again past it (convex region,
//! §4.5) in case the bottleneck has freed up. Because growth depends on
//! time rather than on ACKs, flows with different RTTs grow alike, and a
//! window of thousands of packets regrows in seconds instead of the
//! thousands of round trips NewReno would need. The cubic function works in
//! segments (RFC 9438 §4.1) and here in `f64` segments of the maximum
//! datagram size; the window itself stays in [`Bytes`].
//!
//! State machine (the same as [`crate::reno`]'s): `slow_start` (cwnd below
//! ssthresh) → a loss starts `recovery` (no growth while the transport says
//! recovery lasts) → `congestion_avoidance` with a fresh epoch at its first
//! growing ACK → the next loss; persistent congestion drops to two packets
//! and slow start from any state.
//!
//! Implemented, by RFC 9438 section:
//! - §4.2 window increase: on each ACK in congestion avoidance
//!   `target = W_cubic(t + srtt)` clamped to `[cwnd, 1.5 * cwnd]`, and
//!   `cwnd += (target - cwnd) / cwnd` per acknowledged segment. `t` excludes
//!   application-limited time (§4.2, §5.8): while ACKs arrive without the
//!   window being used, the epoch start moves forward with them.
//! - §4.3 Reno-friendly region: `W_est` starts at `cwnd_epoch` and grows by
//!   `alpha_cubic * segments_acked / cwnd`, `alpha_cubic = 3(1 - beta)/(1 + beta)`,
//!   switching to 1 once `W_est >= cwnd_prior`. (The brief for this module
//!   said `W_est >= W_max`; RFC 9438 says `cwnd_prior`, which differs from
//!   W_max under fast convergence, and the RFC wins.) When `W_cubic(t)` is
//!   below `W_est`, cwnd is set to `W_est`, never lowered by it.
//! - §4.6 multiplicative decrease, on a loss the transport reports as a new
//!   congestion event: `ssthresh = max(cwnd * beta, 2 packets)`,
//!   `cwnd = ssthresh`, `cwnd_prior = cwnd` before the cut, epoch reset. The
//!   RFC prefers `flight_size * beta`; using cwnd is allowed when cwnd is
//!   kept from growing while unused, which the shared cwnd-limited rule does
//!   (see `reno::LossWindow`).
//! - §4.7 fast convergence (parameter `fast_convergence`, default on): a
//!   loss below the previous W_max sets `W_max = cwnd * (1 + beta) / 2`.
//! - §4.8 timeout, which for QUIC is persistent congestion (RFC 9002
//!   §7.6.2): cwnd drops to two packets, and the first epoch after it uses
//!   `K = 0` and `W_max = cwnd_epoch`, as §4.10 also prescribes after a
//!   HyStart++ exit without loss.
//! - §4.10 slow start: NewReno's (`cwnd += acked`), or HyStart++ with the
//!   parameter `hystart` (RFC 9406; see below).
//!
//! Not implemented: §4.9 spurious congestion events (the transport's events
//! carry no "that loss was spurious" signal) and ECN (no ECN events).
//!
//! HyStart++ (RFC 9406, off by default): during the initial slow start only
//! (RFC 9406 recommends that; later slow starts have a known ssthresh), the
//! minimum RTT of each round trip is compared with the previous round's;
//! a rise of `clamp(last_min / 8, 4 ms, 16 ms)`, judged after 8 samples,
//! starts Conservative Slow Start, which grows a quarter as fast; if the
//! RTT falls back below the baseline it was jitter and slow start resumes;
//! after 5 rounds of CSS, `ssthresh = cwnd` and congestion avoidance begins.
//! The growth cap L is infinite because the sender paces. Round trips are
//! counted as the delivery-rate estimator's samples mark them (a round ends
//! when a packet sent after it began is acknowledged), which is RFC 9406's
//! "ACK of windowEnd" in delivered bytes rather than packet numbers.
//!
//! Deviations: pacing, as the oBBR paper paces its CUBIC baseline (and Linux
//! every controller): `cwnd / srtt` times 2 in slow start, 1.2 after
//! ([`crate::controller::cwnd_pacing_rate`]); send quantum two datagrams.

use std::time::Duration;

use crate::controller::{
    AckEvent, CongestionControl, ControllerConfig, LossEvent, SentEvent, Snapshot,
};
use crate::reno::{Growth, LossWindow};
use crate::spec::{AlgorithmInfo, AlgorithmSpec};
use crate::units::{Bandwidth, Bytes, Instant};

/// CUBIC's registry entry: `"cubic"`, parameters `beta`, `c`,
/// `fast_convergence` and `hystart`.
pub fn info() -> AlgorithmInfo {
    AlgorithmInfo::new(
        NAME,
        "CUBIC (RFC 9438): cubic window growth around the last loss point, beta 0.7; paced at 2x/1.2x cwnd/srtt",
        build_cubic,
    )
    .display_name("CUBIC")
    .param_table(CubicParams::params())
}

/// CUBIC's spec name.
pub const NAME: &str = "cubic";

fn build_cubic(spec: &AlgorithmSpec, config: &ControllerConfig) -> Box<dyn CongestionControl> {
    let mut cubic = Cubic::new(config, CubicParams::from_spec(spec));
    cubic.spec = spec.as_str().to_string();
    Box::new(cubic)
}

/// HyStart++'s constants (RFC 9406 §4.3, the recommended values).
const MIN_RTT_THRESH: Duration = Duration::from_millis(4);
const MAX_RTT_THRESH: Duration = Duration::from_millis(16);
const MIN_RTT_DIVISOR: u32 = 8;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: u64 = 4;
const CSS_ROUNDS: u32 = 5;

crate::params! {
    /// CUBIC's tunables (the spec parameters of [`info`]); `Default` is
    /// RFC 9438's values, without HyStart++.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct CubicParams {
        /// beta_cubic, the multiplicative decrease factor (RFC: 0.7).
        pub beta: f64 ["beta", 0.1..=0.95] = 0.7
            => "multiplicative decrease factor beta_cubic: the window after a loss as a fraction of the window before",
        /// C, in segments per second cubed (RFC: 0.4).
        pub c: f64 ["c", 0.01..=10.0] = 0.4
            => "the cubic function's scaling constant C, in segments per second cubed: larger regrows faster",
        /// Fast convergence (RFC 9438 §4.7; RFC: on).
        pub fast_convergence: bool ["fast_convergence"] = true
            => "after a loss below the previous W_max, lower W_max further to release bandwidth to newer flows (RFC 9438 §4.7)",
        /// HyStart++ in the initial slow start (RFC 9406; here off by default).
        pub hystart: bool ["hystart"] = false
            => "leave the initial slow start when the RTT starts rising, with HyStart++ (RFC 9406)",
    }
}

impl CubicParams {
    /// The spec string that builds a controller with these parameters.
    pub fn to_spec_string(&self) -> String {
        if *self == CubicParams::default() {
            return NAME.to_string();
        }
        format!(
            "cubic:beta={},c={},fast_convergence={},hystart={}",
            self.beta, self.c, self.fast_convergence, self.hystart
        )
    }

    /// alpha_cubic (RFC 9438 §4.3): the additive increase that gives an
    /// AIMD(alpha, beta) flow the average window of Reno's AIMD(1, 0.5).
    fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }
}

/// `(x.floor(), Bytes(1).mul_f64(x.floor()))`, the whole bytes of a
/// window as a float and as a volume, without the calls where it can: on
/// x86-64 without SSE4.1 (the baseline target) `f64::floor` is a library
/// call and the saturating float-to-`u64` conversion a long sequence, and
/// CUBIC rounds its window on every ACK in congestion avoidance. Between 0
/// and 2^63 (every window) truncation through `i64` is the floor and that
/// integer is the volume, the same values (a fraction gives a positive
/// zero and no bytes, as `floor` and `mul_f64` do); anything else,
/// negative zero included, goes the long way.
#[inline]
fn whole_bytes(x: f64) -> (f64, Bytes) {
    if x > 0.0 && x < 9_223_372_036_854_775_808.0 {
        let whole = x as i64;
        (whole as f64, Bytes(whole as u64))
    } else {
        let whole = x.floor();
        (whole, Bytes(1).mul_f64(whole))
    }
}

/// The current congestion-avoidance stage.
#[derive(Clone, Copy, Debug)]
struct Epoch {
    /// t_epoch, moved forward over application-limited stretches so that
    /// `now - start` counts only time spent using the window.
    start: Instant,
    /// W_est, the window Reno would have by now, in segments.
    w_est: f64,
}

/// A CUBIC controller (RFC 9438).
#[derive(Clone, Debug)]
pub struct Cubic {
    spec: String,
    params: CubicParams,
    /// `params.alpha()`, which congestion avoidance reads on every ACK
    /// (the parameters never change after construction).
    alpha: f64,
    window: LossWindow,
    /// W_max in segments; `None` until the first congestion event and again
    /// after persistent congestion, when the next epoch takes its own start
    /// as W_max (RFC 9438 §4.8, §4.10).
    w_max: Option<f64>,
    /// K in seconds, for the current epoch or, between a loss and the
    /// epoch's start, the one it will have.
    k: f64,
    /// cwnd_prior in segments: the window when ssthresh was last set.
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    /// The fraction of a byte of window growth not yet added to cwnd: a
    /// large window grows by less than a byte per ACK in places, and
    /// dropping those fractions would flatten the curve.
    carry: f64,
    last_ack: Option<Instant>,
    /// HyStart++, while the initial slow start lasts (and only if enabled).
    hystart: Option<HyStart>,
}

impl Cubic {
    /// A CUBIC controller with the initial window of `config`.
    ///
    /// Panics if `beta` or `c` is outside the range [`info`] declares (the
    /// spec parser rejects such values; a direct caller passing them has a bug).
    pub fn new(config: &ControllerConfig, params: CubicParams) -> Cubic {
        let table = CubicParams::params();
        for (name, value) in [("beta", params.beta), ("c", params.c)] {
            let range = table.iter().find(|p| p.name == name).map(|p| p.kind);
            if let Some(crate::spec::ParamKind::Float { min, max }) = range {
                assert!(
                    (min..=max).contains(&value),
                    "cubic: {name} = {value} outside [{min}, {max}]"
                );
            }
        }
        Cubic {
            spec: params.to_spec_string(),
            params,
            alpha: params.alpha(),
            window: LossWindow::new(config),
            w_max: None,
            k: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            carry: 0.0,
            last_ack: None,
            hystart: params.hystart.then(HyStart::new),
        }
    }

    /// The parameters in use.
    pub fn params(&self) -> CubicParams {
        self.params
    }

    /// The slow-start threshold; [`Bytes::MAX`] until slow start first ends.
    pub fn ssthresh(&self) -> Bytes {
        self.window.ssthresh
    }

    /// W_max, the window just before the last reduction (less under fast
    /// convergence); `None` while undefined.
    pub fn w_max(&self) -> Option<Bytes> {
        self.w_max.map(|w| self.bytes(w))
    }

    /// K, the time from the epoch's start for the cubic function to reach W_max.
    pub fn k(&self) -> Duration {
        Duration::try_from_secs_f64(self.k).unwrap_or(Duration::MAX)
    }

    fn mds(&self) -> f64 {
        self.window.max_datagram_size.as_f64()
    }

    fn segments(&self) -> f64 {
        (self.window.cwnd.as_f64() + self.carry) / self.mds()
    }

    fn bytes(&self, segments: f64) -> Bytes {
        self.window.max_datagram_size.mul_f64(segments)
    }

    fn k_for(&self, w_max: f64, cwnd_epoch: f64) -> f64 {
        ((w_max - cwnd_epoch).max(0.0) / self.params.c).cbrt()
    }

    /// W_cubic(t), in segments (RFC 9438 Figure 1).
    fn w_cubic(&self, t: f64, w_max: f64) -> f64 {
        self.params.c * (t - self.k).powi(3) + w_max
    }

    fn set_segments(&mut self, segments: f64) {
        let bytes = segments * self.mds();
        let (whole, grown) = whole_bytes(bytes);
        // Float rounding may land a hair below the current window; CUBIC's
        // increase never lowers it.
        self.window.cwnd = self.window.cwnd.max(grown);
        self.carry = if grown == Bytes::MAX {
            0.0
        } else {
            (bytes - whole).clamp(0.0, 1.0)
        };
    }

    fn start_epoch(&mut self, now: Instant) -> Epoch {
        let cwnd = self.segments();
        let w_max = match self.w_max {
            Some(w) if w > cwnd => w,
            // No W_max (after a timeout or a HyStart++ exit) or a window
            // already past it: the plateau is here and now (K = 0).
            _ => cwnd,
        };
        self.w_max = Some(w_max);
        self.k = self.k_for(w_max, cwnd);
        let epoch = Epoch {
            start: now,
            w_est: cwnd,
        };
        self.epoch = Some(epoch);
        epoch
    }

    fn congestion_avoidance(&mut self, now: Instant, acked: Bytes) {
        let mut epoch = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(now),
        };
        let w_max = self.w_max.unwrap_or_else(|| self.segments());
        let cwnd = self.segments();
        let acked = acked.as_f64() / self.mds();
        let t = (now - epoch.start).as_secs_f64();
        let rtt = self.window.smoothed_rtt().unwrap_or_default().as_secs_f64();

        let alpha = if epoch.w_est >= self.cwnd_prior {
            1.0
        } else {
            self.alpha
        };
        epoch.w_est += alpha * acked / cwnd;
        self.epoch = Some(epoch);

        let next = if self.w_cubic(t, w_max) < epoch.w_est {
            // Reno-friendly region: Reno would be ahead, so be Reno.
            cwnd.max(epoch.w_est)
        } else {
            // Concave or convex region: close the gap to where the cubic
            // function will be one RTT from now, but never more than half a
            // window per RTT (slower than slow start) and never backwards.
            let target = self.w_cubic(t + rtt, w_max).min(1.5 * cwnd).max(cwnd);
            cwnd + (target - cwnd) / cwnd * acked
        };
        self.set_segments(next);
    }

    /// HyStart++ ended slow start without a loss (RFC 9438 §4.10).
    fn leave_slow_start(&mut self) {
        self.window.ssthresh = self.window.cwnd;
        self.cwnd_prior = self.segments();
        self.w_max = None;
        self.hystart = None;
    }
}

impl CongestionControl for Cubic {
    fn spec(&self) -> &str {
        &self.spec
    }

    fn on_packet_sent(&mut self, event: &SentEvent) {
        self.window.on_packet_sent(event);
    }

    /// A send only notes when the window was last in use.
    fn send_may_change_outputs(&self, _: &SentEvent) -> bool {
        false
    }

    fn on_ack(&mut self, event: &AckEvent) {
        let growth = self.window.on_ack(event);
        let previous_ack = self.last_ack;
        self.last_ack = Some(previous_ack.map_or(event.now, |t| t.max(event.now)));

        let mut slow_start_divisor = 1;
        if growth != Growth::Recovery && self.window.in_slow_start() {
            if let Some(hystart) = &mut self.hystart {
                match hystart.on_ack(event) {
                    Phase::Standard => {}
                    Phase::Conservative => slow_start_divisor = CSS_GROWTH_DIVISOR,
                    Phase::Done => self.leave_slow_start(),
                }
            }
        }

        match growth {
            Growth::Recovery => {}
            Growth::NotCwndLimited => {
                // RFC 9438 §4.2: t must not include application-limited
                // periods, or the window would leap when sending resumes.
                if let Some(epoch) = &mut self.epoch {
                    epoch.start += previous_ack.map_or(Duration::ZERO, |t| event.now - t);
                }
            }
            Growth::Allowed(acked) if acked == Bytes::ZERO => {}
            Growth::Allowed(acked) if self.window.in_slow_start() => {
                self.window.cwnd += acked / slow_start_divisor;
            }
            Growth::Allowed(acked) => self.congestion_avoidance(event.now, acked),
        }
    }

    fn on_packet_lost(&mut self, event: &LossEvent) {
        if event.new_congestion_event {
            let cwnd = self.segments();
            let w_max = match self.w_max {
                Some(w) if self.params.fast_convergence && cwnd < w => {
                    cwnd * (1.0 + self.params.beta) / 2.0
                }
                _ => cwnd,
            };
            self.w_max = Some(w_max);
            self.cwnd_prior = cwnd;
            self.window.reduce(self.params.beta);
            self.carry = 0.0;
            self.epoch = None;
            self.hystart = None;
            self.k = self.k_for(w_max, self.segments());
        }
        if event.persistent_congestion {
            self.window.collapse();
            self.carry = 0.0;
            self.epoch = None;
            self.w_max = None;
            self.k = 0.0;
            self.hystart = None;
        }
    }

    fn cwnd(&self) -> Bytes {
        self.window.cwnd
    }

    fn pacing_rate(&self) -> Bandwidth {
        self.window.pacing_rate()
    }

    fn send_quantum(&self) -> Bytes {
        self.window.send_quantum()
    }

    /// Extra fields: `ssthresh` (bytes, infinite before slow start first
    /// ends); `w_max` (bytes) and `k` (seconds) while W_max is defined;
    /// `w_est` (bytes, the Reno-friendly estimate) during an epoch;
    /// `hystart_css` (1 in Conservative Slow Start, else 0) while HyStart++ runs.
    fn on_mtu_update(&mut self, max_datagram_size: Bytes) {
        self.window.on_mtu_update(max_datagram_size);
    }

    fn snapshot(&self) -> Snapshot {
        let mut snapshot = Snapshot::mode(self.window.mode());
        snapshot
            .extra
            .push(("ssthresh", self.window.ssthresh_f64()));
        if let Some(w_max) = self.w_max {
            snapshot.extra.push(("w_max", w_max * self.mds()));
            snapshot.extra.push(("k", self.k));
        }
        if let Some(epoch) = &self.epoch {
            snapshot.extra.push(("w_est", epoch.w_est * self.mds()));
        }
        if let Some(hystart) = &self.hystart {
            snapshot
                .extra
                .push(("hystart_css", if hystart.css.is_some() { 1.0 } else { 0.0 }));
        }
        snapshot
    }
}

/// Where HyStart++ stands after an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Standard slow start.
    Standard,
    /// Conservative Slow Start: grow a quarter as fast.
    Conservative,
    /// CSS lasted its rounds: slow start is over.
    Done,
}

/// Conservative Slow Start, entered on a rise in the per-round minimum RTT.
#[derive(Clone, Copy, Debug)]
struct Css {
    /// cssBaselineMinRtt: the round minimum that triggered CSS.
    baseline_min_rtt: Duration,
    /// Round trips begun since CSS was entered.
    rounds: u32,
}

/// HyStart++ (RFC 9406 §4.2) state.
#[derive(Clone, Debug)]
struct HyStart {
    /// The delivered mark whose acknowledgement ends the current round.
    round_end: Bytes,
    last_round_min_rtt: Option<Duration>,
    current_round_min_rtt: Option<Duration>,
    rtt_sample_count: u32,
    css: Option<Css>,
}

impl HyStart {
    fn new() -> HyStart {
        HyStart {
            round_end: Bytes::ZERO,
            last_round_min_rtt: None,
            current_round_min_rtt: None,
            rtt_sample_count: 0,
            css: None,
        }
    }

    fn on_ack(&mut self, event: &AckEvent) -> Phase {
        let round_started = event
            .rate
            .prior_delivered
            .is_some_and(|delivered| delivered >= self.round_end);
        if round_started {
            self.round_end = event.rate.total_delivered;
            self.last_round_min_rtt = self.current_round_min_rtt.take();
            self.rtt_sample_count = 0;
            if let Some(css) = &mut self.css {
                css.rounds += 1;
                if css.rounds >= CSS_ROUNDS {
                    return Phase::Done;
                }
            }
        }
        if let Some(rtt) = event.rtt.latest {
            self.current_round_min_rtt =
                Some(self.current_round_min_rtt.map_or(rtt, |m| m.min(rtt)));
            self.rtt_sample_count += 1;
        }
        if self.rtt_sample_count >= N_RTT_SAMPLE {
            let current = self.current_round_min_rtt;
            match self.css {
                None => {
                    if let (Some(current), Some(last)) = (current, self.last_round_min_rtt) {
                        let thresh = (last / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                        if current >= last + thresh {
                            self.css = Some(Css {
                                baseline_min_rtt: current,
                                rounds: 0,
                            });
                        }
                    }
                }
                // The delay went back down: the rise was jitter, not a queue.
                Some(css) if current.is_some_and(|c| c < css.baseline_min_rtt) => self.css = None,
                Some(_) => {}
            }
        }
        if self.css.is_some() {
            Phase::Conservative
        } else {
            Phase::Standard
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reno::tests::{op, run_ops, Driver};
    use proptest::prelude::*;

    const MDS: u64 = 1500;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    fn config(initial_window_packets: u64) -> ControllerConfig {
        ControllerConfig {
            initial_window_packets,
            ..ControllerConfig::new(1, Instant::ZERO)
        }
    }

    fn cubic(initial_window_packets: u64) -> Cubic {
        Cubic::new(&config(initial_window_packets), CubicParams::default())
    }

    fn segments(cc: &Cubic) -> f64 {
        cc.cwnd().as_f64() / MDS as f64
    }

    fn extra(cc: &Cubic, name: &str) -> Option<f64> {
        cc.snapshot()
            .extra
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }

    /// Rounds of cwnd-limited ACKs until `seconds` have passed; returns
    /// (time since start, cwnd in segments) after each round.
    fn run_for(cc: &mut Cubic, d: &mut Driver, seconds: f64) -> Vec<(f64, f64)> {
        let start = d.now;
        let mut trace = Vec::new();
        while (d.now - start).as_secs_f64() < seconds {
            d.round(cc);
            trace.push(((d.now - start).as_secs_f64(), segments(cc)));
        }
        trace
    }

    #[test]
    fn spec_parameters_reach_the_controller() {
        let spec =
            AlgorithmSpec::parse("cubic:beta=0.5,c=1,fast_convergence=false,hystart=true").unwrap();
        let params = CubicParams::from_spec(&spec);
        assert_eq!(
            params,
            CubicParams {
                beta: 0.5,
                c: 1.0,
                fast_convergence: false,
                hystart: true
            }
        );
        let cc = spec.build(&config(10));
        assert_eq!(
            cc.spec(),
            "cubic:beta=0.5,c=1,fast_convergence=false,hystart=true"
        );
        assert_eq!(
            CubicParams::from_spec(&AlgorithmSpec::parse("cubic").unwrap()),
            CubicParams::default()
        );
        // The direct constructor writes a spec that parses back to its parameters.
        let text = Cubic::new(&config(10), params).spec().to_string();
        assert_eq!(
            CubicParams::from_spec(&AlgorithmSpec::parse(&text).unwrap()),
            params
        );
        assert_eq!(cubic(10).spec(), "cubic");
        assert!(AlgorithmSpec::parse("cubic:c=0").is_err());
    }

    #[test]
    fn slow_start_doubles_the_window_each_round_trip() {
        let mut cc = cubic(10);
        let mut d = Driver::new(ms(50));
        for expected in [20, 40, 80] {
            d.round(&mut cc);
            assert_eq!(cc.cwnd(), Bytes(expected * MDS));
        }
        assert_eq!(cc.snapshot().mode, "slow_start");
        assert_eq!(extra(&cc, "ssthresh"), Some(f64::INFINITY));
        assert_eq!(extra(&cc, "w_max"), None, "no W_max before the first loss");
    }

    #[test]
    fn loss_multiplies_the_window_by_beta_once_per_congestion_event() {
        let mut cc = cubic(100);
        let mut d = Driver::new(ms(100));
        d.congestion_event(&mut cc);
        assert_eq!(cc.cwnd(), Bytes(70 * MDS));
        assert_eq!(cc.ssthresh(), Bytes(70 * MDS));
        assert_eq!(cc.snapshot().mode, "recovery");
        cc.on_packet_lost(&d.loss_event(false, false));
        cc.on_packet_lost(&d.loss_event(false, false));
        assert_eq!(
            cc.cwnd(),
            Bytes(70 * MDS),
            "same recovery period: no second cut"
        );
        cc.on_packet_lost(&d.loss_event(true, false));
        assert_eq!(cc.cwnd(), Bytes(49 * MDS));
        // A custom beta.
        let params = CubicParams {
            beta: 0.5,
            ..CubicParams::default()
        };
        let mut half = Cubic::new(&config(100), params);
        half.on_packet_lost(&d.loss_event(true, false));
        assert_eq!(half.cwnd(), Bytes(50 * MDS));
    }

    #[test]
    fn no_growth_in_recovery() {
        let mut cc = cubic(100);
        let mut d = Driver::new(ms(100));
        d.congestion_event(&mut cc);
        for _ in 0..5 {
            d.round(&mut cc);
        }
        assert_eq!(cc.cwnd(), Bytes(70 * MDS));
        d.end_recovery();
        d.round(&mut cc);
        assert!(cc.cwnd() > Bytes(70 * MDS));
        assert_eq!(cc.snapshot().mode, "congestion_avoidance");
    }

    #[test]
    fn persistent_congestion_collapses_and_the_next_epoch_starts_at_k_zero() {
        let mut cc = cubic(100);
        let mut d = Driver::new(ms(100));
        cc.on_packet_lost(&d.loss_event(true, true));
        assert_eq!(cc.cwnd(), Bytes(2 * MDS));
        assert_eq!(cc.ssthresh(), Bytes(70 * MDS));
        assert_eq!(cc.snapshot().mode, "slow_start");
        assert_eq!(
            cc.w_max(),
            None,
            "RFC 9438 §4.8: W_max is set at the next epoch's start"
        );
        // Slow start back to ssthresh, then an epoch with K = 0 and W_max = cwnd_epoch.
        while cc.snapshot().mode == "slow_start" {
            d.round(&mut cc);
        }
        d.round(&mut cc);
        assert_eq!(cc.k(), Duration::ZERO);
        let w_max = cc.w_max().unwrap();
        assert!(
            w_max >= Bytes(70 * MDS) && w_max <= Bytes(80 * MDS),
            "{w_max}"
        );
    }

    #[test]
    fn k_follows_from_w_max_beta_and_c() {
        let mut cc = cubic(100);
        let d = Driver::new(ms(100));
        cc.on_packet_lost(&d.loss_event(true, false));
        // K = cbrt(W_max * (1 - beta) / C) = cbrt(100 * 0.3 / 0.4).
        assert!((cc.k().as_secs_f64() - 75f64.cbrt()).abs() < 1e-9);
        assert!((cc.k().as_secs_f64() - 4.217).abs() < 1e-3);
        assert_eq!(cc.w_max(), Some(Bytes(100 * MDS)));
        assert_eq!(extra(&cc, "w_max"), Some((100 * MDS) as f64));
        assert_eq!(extra(&cc, "k"), Some(75f64.cbrt()));
    }

    #[test]
    fn window_reaches_w_max_at_k_concave_then_convex() {
        let mut cc = cubic(100);
        let mut d = Driver::new(ms(100));
        cc.on_packet_lost(&d.loss_event(true, false));
        let k = cc.k().as_secs_f64();
        let trace = run_for(&mut cc, &mut d, 8.0);
        let (t_reach, _) = *trace.iter().find(|(_, w)| *w >= 100.0).unwrap();
        assert!(
            (t_reach - k).abs() < 0.3,
            "reached W_max at {t_reach:.2} s, K = {k:.2} s"
        );
        // Per-round growth: shrinking on the way up to W_max, growing past it.
        let growth_at = |t: f64| {
            let i = trace.iter().position(|(s, _)| *s >= t).unwrap();
            trace[i + 1].1 - trace[i].1
        };
        assert!(growth_at(0.5) > growth_at(2.0));
        assert!(growth_at(2.0) > growth_at(3.5));
        assert!(growth_at(3.5) > growth_at(k));
        assert!(growth_at(5.5) > growth_at(k + 0.2));
        assert!(growth_at(7.0) > growth_at(5.5));
        // And it follows the curve: W_cubic(4 s) = 0.4 (4 - K)^3 + 100.
        let (_, w4) = *trace.iter().find(|(t, _)| *t >= 2.0).unwrap();
        let expected = 0.4 * (2.0 - k).powi(3) + 100.0;
        assert!(
            (w4 - expected).abs() < 2.5,
            "cwnd {w4:.1} vs W_cubic {expected:.1}"
        );
    }

    #[test]
    fn fast_convergence_lowers_w_max_after_a_loss_below_it() {
        for (fast_convergence, expected) in [(true, 70.0 * 1.7 / 2.0), (false, 70.0)] {
            let params = CubicParams {
                fast_convergence,
                ..CubicParams::default()
            };
            let mut cc = Cubic::new(&config(100), params);
            let d = Driver::new(ms(100));
            cc.on_packet_lost(&d.loss_event(true, false));
            assert_eq!(cc.w_max(), Some(Bytes(100 * MDS)));
            cc.on_packet_lost(&d.loss_event(true, false));
            let w_max = cc.w_max().unwrap().as_f64() / MDS as f64;
            assert!(
                (w_max - expected).abs() < 1e-3,
                "fast_convergence={fast_convergence}: {w_max}"
            );
            assert_eq!(cc.cwnd(), Bytes(49 * MDS));
        }
    }

    #[test]
    fn reno_friendly_region_dominates_at_small_rtt_and_window() {
        let mut cc = cubic(20);
        let mut d = Driver::new(ms(1));
        cc.on_packet_lost(&d.loss_event(true, false)); // cwnd 14, W_max 20, K = 2.47 s
        run_for(&mut cc, &mut d, 0.1);
        // 100 round trips: W_cubic has barely moved (~14.7) while Reno's
        // estimate gained alpha_cubic = 0.53 per round up to cwnd_prior = 20,
        // then 1 per round: about 14 + 6 + (100 - 11) = 109.
        let w = segments(&cc);
        assert!((100.0..115.0).contains(&w), "cwnd {w:.1} segments");
        let w_est = extra(&cc, "w_est").unwrap() / MDS as f64;
        assert!(
            (w - w_est).abs() < 1.0,
            "cwnd {w:.1} follows W_est {w_est:.1}"
        );
    }

    #[test]
    fn pacing_is_twice_cwnd_per_srtt_in_slow_start_then_1_2() {
        let mut cc = cubic(10);
        assert_eq!(
            cc.pacing_rate(),
            Bandwidth::MAX,
            "no RTT sample yet: unpaced"
        );
        let mut d = Driver::new(ms(100));
        d.round(&mut cc);
        assert_eq!(cc.pacing_rate(), Bandwidth::from_bits_per_sec(4_800_000));
        d.congestion_event(&mut cc);
        // 14 packets per 100 ms = 1.68 Mbit/s, times 1.2.
        assert_eq!(cc.pacing_rate(), Bandwidth::from_bits_per_sec(2_016_000));
        assert_eq!(cc.send_quantum(), Bytes(2 * MDS));
    }

    #[test]
    fn an_unused_window_does_not_grow_and_idle_time_is_not_counted() {
        let mut cc = cubic(100);
        let mut d = Driver::new(ms(100));
        cc.on_packet_lost(&d.loss_event(true, false));
        run_for(&mut cc, &mut d, 1.0);
        // Ten seconds of application-limited ACKs: half the window in flight.
        // Those of the first srtt + 4 rttvar (200 ms) still acknowledge data
        // sent from a full window; none after may grow it.
        let mut before = cc.cwnd();
        let start = d.now;
        while d.now - start < Duration::from_secs(10) {
            d.now += ms(10);
            let event = d.ack_event(Bytes(MDS), before / 2);
            cc.on_ack(&event);
            if d.now - start == ms(200) {
                before = cc.cwnd();
            }
        }
        assert_eq!(cc.cwnd(), before);
        // Back to a full window: growth resumes where it left off instead of
        // jumping to W_cubic(11 s), which is past the 1.5x clamp.
        d.round(&mut cc);
        let step = segments(&cc) - before.as_f64() / MDS as f64;
        assert!(
            step > 0.0 && step < 3.0,
            "one round after the pause grew {step:.2} segments"
        );
    }

    #[test]
    fn without_hystart_a_rising_rtt_does_not_end_slow_start() {
        let mut cc = cubic(10);
        let mut d = Driver::new(ms(100));
        d.round(&mut cc);
        d.round(&mut cc);
        d.srtt = ms(150);
        for _ in 0..4 {
            d.round(&mut cc);
        }
        assert_eq!(cc.snapshot().mode, "slow_start");
        assert_eq!(cc.cwnd(), Bytes(640 * MDS));
        assert_eq!(extra(&cc, "hystart_css"), None);
    }

    fn hystart() -> Cubic {
        Cubic::new(
            &config(10),
            CubicParams {
                hystart: true,
                ..CubicParams::default()
            },
        )
    }

    #[test]
    fn hystart_rtt_rise_enters_css_then_congestion_avoidance() {
        let mut cc = hystart();
        let mut d = Driver::new(ms(100));
        d.round(&mut cc);
        d.round(&mut cc);
        assert_eq!(extra(&cc, "hystart_css"), Some(0.0));
        d.srtt = ms(120); // > 100 ms + 12.5 ms
        d.round(&mut cc);
        d.round(&mut cc);
        assert_eq!(extra(&cc, "hystart_css"), Some(1.0));
        assert_eq!(cc.snapshot().mode, "slow_start");
        // CSS grows a quarter as fast: one round adds a quarter of the window.
        let w = cc.cwnd();
        d.round(&mut cc);
        let ratio = cc.cwnd().as_f64() / w.as_f64();
        assert!((1.2..1.3).contains(&ratio), "CSS round grew x{ratio:.3}");
        for _ in 0..4 {
            d.round(&mut cc);
        }
        assert_eq!(cc.snapshot().mode, "congestion_avoidance");
        assert!(cc.ssthresh() < Bytes::MAX && cc.ssthresh() <= cc.cwnd());
        assert_eq!(
            cc.k(),
            Duration::ZERO,
            "RFC 9438 §4.10: K = 0 after a HyStart++ exit"
        );
        assert_eq!(extra(&cc, "hystart_css"), None, "HyStart++ is done");
    }

    #[test]
    fn hystart_rtt_drop_in_css_resumes_slow_start() {
        let mut cc = hystart();
        let mut d = Driver::new(ms(100));
        d.round(&mut cc);
        d.round(&mut cc);
        d.srtt = ms(120);
        d.round(&mut cc);
        d.round(&mut cc);
        assert_eq!(extra(&cc, "hystart_css"), Some(1.0));
        d.srtt = ms(100);
        d.round(&mut cc);
        assert_eq!(extra(&cc, "hystart_css"), Some(0.0), "the rise was jitter");
        let w = cc.cwnd();
        d.round(&mut cc);
        // Up to the first 8 ACKs of a round may still grow at the CSS pace.
        assert!(
            cc.cwnd() > w * 2 - Bytes(6 * MDS),
            "standard slow start again: {w} -> {}",
            cc.cwnd()
        );
    }

    #[test]
    fn hystart_leaves_slow_start_on_a_real_queue_before_any_loss() {
        // 12 Mbit/s, 40 ms: a BDP of 40 packets behind an unbounded queue,
        // so without HyStart++ slow start would never end.
        let mut pipe = crate::testing::Pipe::new(Bandwidth::from_mbps(12), ms(40));
        let mut cc = hystart();
        let mut css_entered_at = None;
        pipe.run_until(&mut cc, Instant::ZERO + Duration::from_secs(3), |_, cc| {
            let css = cc.snapshot().extra.contains(&("hystart_css", 1.0));
            if css && css_entered_at.is_none() {
                css_entered_at = Some(cc.cwnd());
            }
        });
        assert_eq!(cc.snapshot().mode, "congestion_avoidance");
        // The round minimum RTT first rises in the round after the window
        // passes the BDP, the window having doubled meanwhile: CSS starts
        // near 4 BDP, then grows it 1.25x per round for 5 rounds.
        let bdp = Bytes(40 * MDS);
        let entered = css_entered_at.expect("CSS was entered");
        assert!(
            entered > bdp * 2 && entered < bdp * 5,
            "CSS entered at {entered}"
        );
        let ssthresh = cc.ssthresh();
        assert!(
            ssthresh > entered * 2 && ssthresh < entered * 4,
            "ssthresh {ssthresh}"
        );
    }

    #[test]
    fn a_paced_sender_keeps_growing_in_congestion_avoidance() {
        // The cwnd-limited rule must not mistake pacing gaps for an idle
        // application: on a real paced path CUBIC keeps growing after a loss.
        let mut pipe = crate::testing::Pipe::new(Bandwidth::from_mbps(12), ms(40));
        let mut cc = cubic(10);
        pipe.run_until(&mut cc, Instant::ZERO + ms(300), |_, _| {});
        let d = Driver::new(ms(40));
        cc.on_packet_lost(&d.loss_event(true, false));
        let after_cut = cc.cwnd();
        pipe.run_until(&mut cc, Instant::ZERO + Duration::from_secs(3), |_, _| {});
        assert!(
            cc.cwnd() > after_cut + Bytes(5 * MDS),
            "{} -> {}",
            after_cut,
            cc.cwnd()
        );
    }

    /// What [`whole_bytes`] stands for.
    fn whole_bytes_the_long_way(x: f64) -> (u64, Bytes) {
        (x.floor().to_bits(), Bytes(1).mul_f64(x.floor()))
    }

    #[test]
    fn whole_bytes_are_floor_bit_for_bit() {
        let specials = [
            0.0,
            -0.0,
            0.5,
            1.0,
            1.5,
            -1.5,
            2f64.powi(52) + 0.5,
            2f64.powi(53),
            2f64.powi(63) - 1024.0,
            2f64.powi(63),
            2f64.powi(64),
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
        ];
        for x in specials {
            let (whole, bytes) = whole_bytes(x);
            assert_eq!((whole.to_bits(), bytes), whole_bytes_the_long_way(x), "{x}");
        }
        let (whole, bytes) = whole_bytes(f64::NAN);
        assert!(whole.is_nan());
        assert_eq!(bytes, Bytes::ZERO);
    }

    proptest! {
        #[test]
        fn whole_bytes_match_floor(x in any::<f64>(), window in 0.0f64..1e12) {
            for x in [x, window] {
                if !x.is_nan() {
                    let (whole, bytes) = whole_bytes(x);
                    prop_assert_eq!((whole.to_bits(), bytes), whole_bytes_the_long_way(x));
                }
            }
        }

        #[test]
        fn cubic_survives_arbitrary_event_sequences(
            mds in prop_oneof![Just(1200u64), Just(1500), Just(9000)],
            iw in 1u64..100,
            beta in 0.1f64..0.95,
            c in 0.01f64..10.0,
            fast_convergence in any::<bool>(),
            hystart in any::<bool>(),
            ops in proptest::collection::vec(op(), 1..300),
        ) {
            let config = ControllerConfig {
                max_datagram_size: Bytes(mds),
                initial_window_packets: iw,
                ..ControllerConfig::new(1, Instant::ZERO)
            };
            let mut cc = Cubic::new(&config, CubicParams { beta, c, fast_convergence, hystart });
            run_ops(&mut cc, mds, &ops);
        }
    }
}
