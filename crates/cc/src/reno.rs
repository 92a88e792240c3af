//! NewReno, as QUIC specifies it (RFC 9002 §7 and Appendix B).
//!
//! NewReno estimates nothing about the path: it treats the congestion window
//! as the answer to "how much can be in flight without loss" and finds it by
//! probing. It grows the window until a packet is lost, halves it, and grows
//! it again, so over time the window saws between half the path's capacity
//! (bandwidth-delay product plus buffer) and all of it.
//!
//! State machine (RFC 9002 §7.3), as the snapshot's `mode` names it:
//!
//! ```text
//!   slow_start ──cwnd >= ssthresh──▶ congestion_avoidance
//!       │                              │          ▲
//!       └───────loss──▶ recovery ◀──loss┘          │ the transport ends recovery (a
//!                          └──────────────────────┘ packet sent after the cut is acked)
//!   persistent congestion, from any state: cwnd = 2 packets, back to slow_start
//! ```
//!
//! - Slow start (cwnd < ssthresh): every acknowledged byte adds a byte, so
//!   the window doubles each round trip.
//! - Congestion avoidance: one maximum datagram per window of acknowledged
//!   bytes (`cwnd += mds * acked / cwnd`, §7.3.3), kept exact over many small
//!   ACKs with a byte accumulator (RFC 3465's appropriate byte counting)
//!   instead of the pseudocode's per-ACK integer division, which rounds the
//!   increase of a small ACK on a large window down to nothing.
//! - Recovery (§7.3.2): a loss that the transport reports as a new
//!   congestion event sets `ssthresh = max(cwnd * 0.5, 2 * mds)` and
//!   `cwnd = ssthresh`; later losses of the same period cut nothing; while
//!   the transport says the connection is in recovery no ACK grows the window
//!   (those ACKs acknowledge packets sent before the cut). Appendix B writes
//!   `ssthresh = cwnd * 0.5; cwnd = max(ssthresh, kMinimumWindow)`; flooring
//!   ssthresh as well only differs when the window is already below four
//!   packets, and then both leave the sender in congestion avoidance at the
//!   minimum window.
//! - Persistent congestion (§7.6.2): the window collapses to the minimum
//!   window, two datagrams, and slow start climbs back to ssthresh.
//!
//! The window grows only while the sender uses it (§7.8: "the congestion
//! window SHOULD NOT be increased" when underutilized, but pacing delay is
//! not underuse). The rule: the window counts as *in use* when the bytes in
//! flight leave no room for another full datagram, or, in slow start, when
//! at least half of it is in flight (Linux's `tcp_is_cwnd_limited`); the
//! bytes in flight are observed after every sent packet and before every
//! ACK; an ACK may grow the window if it was in use at some observation
//! within `srtt + max(4 * rttvar, 1 ms)` before it (details on the
//! crate-private `LossWindow`).
//!
//! Deviations from the RFC: the window is paced (§7.7 recommends pacing but
//! leaves the rate open) with the oBBR paper's CUBIC-baseline rule,
//! [`cwnd_pacing_rate`] (twice cwnd/srtt in slow start, 1.2 times after),
//! and the send quantum is [`cwnd_send_quantum`]. The transport, not this
//! module, decides when a recovery period starts and ends.
//!
//! `LossWindow` holds what NewReno and CUBIC share (slow start, recovery,
//! the cwnd-limited rule, pacing); [`crate::cubic`] builds on it.

use std::time::Duration;

use crate::controller::{
    cwnd_pacing_rate, cwnd_send_quantum, AckEvent, CongestionControl, ControllerConfig, LossEvent,
    RttEstimate, SentEvent, Snapshot,
};
use crate::spec::{AlgorithmInfo, AlgorithmSpec};
use crate::units::{Bandwidth, Bytes, Instant};

/// NewReno's registry entry: `"reno"`, no parameters.
pub fn info() -> AlgorithmInfo {
    AlgorithmInfo::new(
        NAME,
        "NewReno as in QUIC (RFC 9002): AIMD, halves the window on loss; paced at 2x/1.2x cwnd/srtt",
        build_reno,
    )
    .display_name("NewReno")
}

/// NewReno's spec name.
pub const NAME: &str = "reno";

/// RFC 9002's kLossReductionFactor: a congestion event halves the window.
pub const LOSS_REDUCTION_FACTOR: f64 = 0.5;

/// RFC 9002's kMinimumWindow, in datagrams: the window never falls below this.
pub const MINIMUM_WINDOW_PACKETS: u64 = 2;

fn build_reno(spec: &AlgorithmSpec, config: &ControllerConfig) -> Box<dyn CongestionControl> {
    Box::new(Reno::with_spec(spec.as_str(), config))
}

/// A NewReno controller (RFC 9002 Appendix B).
#[derive(Clone, Debug)]
pub struct Reno {
    spec: String,
    window: LossWindow,
    /// Bytes acknowledged in congestion avoidance since the window last grew
    /// by a datagram: the window grows by one datagram per window of bytes.
    bytes_acked: Bytes,
}

impl Reno {
    /// A NewReno controller with the initial window of `config`.
    pub fn new(config: &ControllerConfig) -> Reno {
        Reno::with_spec(NAME, config)
    }

    fn with_spec(spec: &str, config: &ControllerConfig) -> Reno {
        Reno {
            spec: spec.to_string(),
            window: LossWindow::new(config),
            bytes_acked: Bytes::ZERO,
        }
    }

    /// The slow-start threshold; [`Bytes::MAX`] until the first congestion event.
    pub fn ssthresh(&self) -> Bytes {
        self.window.ssthresh
    }
}

impl CongestionControl for Reno {
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
        let Growth::Allowed(acked) = self.window.on_ack(event) else {
            return;
        };
        let w = &mut self.window;
        if w.in_slow_start() {
            w.cwnd += acked;
            return;
        }
        self.bytes_acked += acked;
        // A loop, not an `if`: one ACK may cover more than a window right
        // after a cut, and each window's worth is owed its datagram.
        while self.bytes_acked >= w.cwnd {
            self.bytes_acked -= w.cwnd;
            w.cwnd += w.max_datagram_size;
        }
    }

    fn on_packet_lost(&mut self, event: &LossEvent) {
        if event.new_congestion_event {
            self.window.reduce(LOSS_REDUCTION_FACTOR);
            self.bytes_acked = Bytes::ZERO;
        }
        if event.persistent_congestion {
            self.window.collapse();
            self.bytes_acked = Bytes::ZERO;
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

    fn on_mtu_update(&mut self, max_datagram_size: Bytes) {
        self.window.on_mtu_update(max_datagram_size);
    }

    fn snapshot(&self) -> Snapshot {
        let mut snapshot = Snapshot::mode(self.window.mode());
        snapshot
            .extra
            .push(("ssthresh", self.window.ssthresh_f64()));
        snapshot
    }
}

/// What [`LossWindow::on_ack`] allows an ACK to do to the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Growth {
    /// The transport is in a recovery period: the ACK acknowledges packets
    /// sent before the window was cut, so it must not grow it (RFC 9002 §7.3.2).
    Recovery,
    /// The sender has not been using its window: growing it would inflate
    /// it beyond anything the path has been shown to carry (RFC 9002 §7.8).
    NotCwndLimited,
    /// The window may grow on account of these newly acknowledged bytes.
    Allowed(Bytes),
}

/// The bookkeeping a loss-based window controller (NewReno, CUBIC) shares:
/// the window and slow-start threshold, recovery, whether the sender is
/// using its window, the transport's RTT, and the window-based pacing rate.
/// Each controller only adds its own congestion-avoidance increase and
/// reduction factor.
///
/// The cwnd-limited rule (RFC 9002 §7.8: do not grow an underused window,
/// but do not count pacing delay as underuse):
/// - the window is *in use* at an observation when the bytes in flight leave
///   no room for another full-sized datagram (`in_flight + mds > cwnd`), or,
///   in slow start, when at least half the window is in flight (Linux's
///   `tcp_is_cwnd_limited`: slow start may grow the window to twice what
///   was actually used, because the window doubles within each round trip
///   and a paced sender is always somewhat behind it);
/// - the observations are the bytes in flight after every sent packet
///   ([`SentEvent::bytes_in_flight`]) and before every ACK
///   ([`AckEvent::prior_in_flight`]);
/// - an ACK may grow the window if the window was in use at some observation
///   within `srtt + max(4 * rttvar, 1 ms)` before it. Packets sent while the
///   window was full are acknowledged within about that long (it is the
///   probe timeout without the peer's ACK delay), so such an ACK acknowledges
///   data sent from a full window. Holding the verdict that long is what
///   keeps a paced or ACK-aggregated sender, whose in-flight dips between
///   refills, from counting as application-limited.
///
/// The rate sample's app-limited mark is not used: it says whether the
/// delivery rate is trustworthy, which is a different question from whether
/// the window was the limit.
#[derive(Clone, Debug)]
pub(crate) struct LossWindow {
    /// The maximum datagram size: the unit of every packet-denominated constant.
    pub(crate) max_datagram_size: Bytes,
    /// The congestion window.
    pub(crate) cwnd: Bytes,
    /// The slow-start threshold; [`Bytes::MAX`] until the first congestion event.
    pub(crate) ssthresh: Bytes,
    /// Whether the connection is in a recovery period, as the transport last said.
    pub(crate) in_recovery: bool,
    /// The transport's RTT estimate, once it has had a sample.
    rtt: Option<RttEstimate>,
    /// The last time the window was observed in use.
    in_use_at: Option<Instant>,
}

impl LossWindow {
    /// The state at connection start: the configured initial window, no
    /// threshold, slow start.
    pub(crate) fn new(config: &ControllerConfig) -> LossWindow {
        // A zero datagram size would make every packet count zero bytes and
        // every per-segment ratio infinite; a byte is the least that works.
        let mds = config.max_datagram_size.max(Bytes(1));
        let initial = (mds * config.initial_window_packets).max(mds * MINIMUM_WINDOW_PACKETS);
        LossWindow {
            max_datagram_size: mds,
            cwnd: initial,
            ssthresh: Bytes::MAX,
            in_recovery: false,
            rtt: None,
            in_use_at: None,
        }
    }

    /// A new datagram size: the window keeps its size in packets (as TCP's
    /// cwnd, counted in segments, does when the MSS changes).
    pub(crate) fn on_mtu_update(&mut self, max_datagram_size: Bytes) {
        let new = max_datagram_size.max(Bytes(1));
        let scale = |b: Bytes| {
            Bytes(
                (b.get() as u128 * new.get() as u128 / self.max_datagram_size.get() as u128) as u64,
            )
        };
        self.cwnd = scale(self.cwnd);
        if self.ssthresh != Bytes::MAX {
            self.ssthresh = scale(self.ssthresh);
        }
        self.max_datagram_size = new;
        self.cwnd = self.cwnd.max(self.min_window());
    }

    /// The minimum window, kMinimumWindow (two datagrams).
    pub(crate) fn min_window(&self) -> Bytes {
        self.max_datagram_size * MINIMUM_WINDOW_PACKETS
    }

    /// Slow start: the window is below the threshold.
    pub(crate) fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// The transport's smoothed RTT, once it has measured one.
    pub(crate) fn smoothed_rtt(&self) -> Option<Duration> {
        self.rtt.map(|r| r.smoothed)
    }

    /// Records a sent packet's in-flight total for the cwnd-limited rule.
    pub(crate) fn on_packet_sent(&mut self, event: &SentEvent) {
        self.observe(event.now, event.bytes_in_flight);
    }

    /// Takes in an ACK's RTT and recovery state and says whether, and by how
    /// much, the window may grow.
    pub(crate) fn on_ack(&mut self, event: &AckEvent) -> Growth {
        let sampled = event.rtt.latest.is_some() || !event.rtt.min.is_zero();
        if sampled || self.rtt.is_some() {
            self.rtt = Some(event.rtt);
        }
        self.observe(event.now, event.prior_in_flight);
        self.in_recovery = event.in_recovery;
        if event.in_recovery {
            Growth::Recovery
        } else if !self.is_cwnd_limited(event.now) {
            Growth::NotCwndLimited
        } else {
            Growth::Allowed(event.newly_acked)
        }
    }

    fn observe(&mut self, now: Instant, in_flight: Bytes) {
        let full = in_flight + self.max_datagram_size > self.cwnd;
        let half_in_slow_start = self.in_slow_start() && in_flight * 2 >= self.cwnd;
        if full || half_in_slow_start {
            self.in_use_at = Some(self.in_use_at.map_or(now, |t| t.max(now)));
        }
    }

    fn is_cwnd_limited(&self, now: Instant) -> bool {
        let hold = match self.rtt {
            Some(r) => r.smoothed + (r.rttvar * 4).max(Duration::from_millis(1)),
            None => Duration::from_millis(1),
        };
        self.in_use_at.is_some_and(|t| now - t <= hold)
    }

    /// A congestion event: `ssthresh = max(cwnd * factor, min window)`,
    /// `cwnd = ssthresh`, and the connection is in recovery.
    pub(crate) fn reduce(&mut self, factor: f64) {
        self.ssthresh = self.cwnd.mul_f64(factor).max(self.min_window());
        self.cwnd = self.ssthresh;
        self.in_recovery = true;
    }

    /// Persistent congestion: the window collapses to the minimum and, as
    /// RFC 9002 Appendix B resets the recovery start time, recovery ends.
    pub(crate) fn collapse(&mut self) {
        self.cwnd = self.min_window();
        self.in_recovery = false;
    }

    /// `cwnd / srtt` times 2 in slow start, 1.2 after; unpaced before any RTT sample.
    pub(crate) fn pacing_rate(&self) -> Bandwidth {
        let srtt = self.smoothed_rtt().unwrap_or(Duration::ZERO);
        cwnd_pacing_rate(self.cwnd, srtt, self.in_slow_start())
    }

    /// Two datagrams (RFC 9002 §7.7).
    pub(crate) fn send_quantum(&self) -> Bytes {
        cwnd_send_quantum(self.max_datagram_size)
    }

    /// `"recovery"`, `"slow_start"` or `"congestion_avoidance"`.
    pub(crate) fn mode(&self) -> &'static str {
        if self.in_recovery {
            "recovery"
        } else if self.in_slow_start() {
            "slow_start"
        } else {
            "congestion_avoidance"
        }
    }

    /// ssthresh for snapshots: bytes, and `f64::INFINITY` before the first
    /// congestion event (RFC 9002 initialises it to infinity). Infinity
    /// rather than omission keeps the snapshot's fields the same all run
    /// long, so a time series of them has fixed columns.
    pub(crate) fn ssthresh_f64(&self) -> f64 {
        if self.ssthresh == Bytes::MAX {
            f64::INFINITY
        } else {
            self.ssthresh.as_f64()
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rate::RateSample;
    use crate::testing::Ack;
    use proptest::prelude::*;

    const MDS: u64 = 1500;

    /// Drives a controller with synthetic transport events; keeps its own
    /// clock and delivery counters so the events are self-consistent.
    pub(crate) struct Driver {
        pub(crate) now: Instant,
        /// The RTT every ACK reports (as its sample and as the smoothed RTT).
        pub(crate) srtt: Duration,
        pub(crate) delivered: Bytes,
        pub(crate) in_recovery: bool,
        /// `delivered` at the start of the current and the previous
        /// [`Driver::round`]: a packet acknowledged now was sent one round
        /// ago at the same place in that round, which is what its rate
        /// sample's `prior_delivered` says.
        round_base: Bytes,
        prev_round_base: Bytes,
    }

    impl Driver {
        pub(crate) fn new(srtt: Duration) -> Driver {
            Driver {
                now: Instant::ZERO,
                srtt,
                delivered: Bytes::ZERO,
                in_recovery: false,
                round_base: Bytes::ZERO,
                prev_round_base: Bytes::ZERO,
            }
        }

        /// An ACK of `acked` bytes with `prior_in_flight` in flight before it.
        pub(crate) fn ack_event(&mut self, acked: Bytes, prior_in_flight: Bytes) -> AckEvent {
            let prior_delivered =
                (self.prev_round_base + (self.delivered - self.round_base)).min(self.delivered);
            self.delivered += acked;
            Ack::at(self.now)
                .rate(RateSample {
                    prior_delivered: Some(prior_delivered),
                    total_delivered: self.delivered,
                    delivered: acked,
                    ..RateSample::default()
                })
                .rtt(self.srtt)
                .rttvar(self.srtt / 4)
                .acked(acked)
                .prior_in_flight(prior_in_flight)
                .bytes_in_flight(prior_in_flight - acked)
                .in_recovery(self.in_recovery)
                .build()
        }

        /// A cwnd-limited ACK: the window was full when it arrived.
        pub(crate) fn ack(&mut self, cc: &mut dyn CongestionControl, acked: Bytes) {
            let event = self.ack_event(acked, cc.cwnd());
            cc.on_ack(&event);
        }

        /// One round trip of cwnd-limited ACKs: the whole window, one
        /// datagram per ACK, evenly spread over `srtt`.
        pub(crate) fn round(&mut self, cc: &mut dyn CongestionControl) {
            self.prev_round_base = self.round_base;
            self.round_base = self.delivered;
            let packets = (cc.cwnd().get() / MDS).max(1);
            let gap = self.srtt / packets as u32;
            for _ in 0..packets {
                self.now += gap;
                self.ack(cc, Bytes(MDS));
            }
        }

        /// A lost packet.
        pub(crate) fn loss_event(&self, new_congestion_event: bool, persistent: bool) -> LossEvent {
            LossEvent {
                now: self.now,
                packet: crate::rate::DeliveryState {
                    sent_time: self.now - self.srtt,
                    size: Bytes(MDS),
                    delivered: self.delivered,
                    delivered_time: self.now - self.srtt,
                    first_send_time: self.now - self.srtt,
                    is_app_limited: false,
                    tx_in_flight: Bytes(MDS),
                    lost: Bytes::ZERO,
                },
                bytes_in_flight: Bytes::ZERO,
                new_congestion_event,
                persistent_congestion: persistent,
            }
        }

        /// A loss that starts a recovery period, which this driver then
        /// reports on its ACKs until [`Driver::end_recovery`].
        pub(crate) fn congestion_event(&mut self, cc: &mut dyn CongestionControl) {
            cc.on_packet_lost(&self.loss_event(true, false));
            self.in_recovery = true;
        }

        pub(crate) fn end_recovery(&mut self) {
            self.in_recovery = false;
        }
    }

    fn config() -> ControllerConfig {
        ControllerConfig::new(1, Instant::ZERO)
    }

    fn reno() -> Reno {
        Reno::new(&config())
    }

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn initial_window_comes_from_the_config() {
        let cc = reno();
        assert_eq!(cc.cwnd(), Bytes(10 * MDS));
        assert_eq!(cc.ssthresh(), Bytes::MAX);
        let small = ControllerConfig {
            initial_window_packets: 1,
            ..config()
        };
        assert_eq!(
            Reno::new(&small).cwnd(),
            Bytes(2 * MDS),
            "never below the minimum window"
        );
        let snap = cc.snapshot();
        assert_eq!(snap.mode, "slow_start");
        assert_eq!(snap.extra, vec![("ssthresh", f64::INFINITY)]);
    }

    #[test]
    fn registry_builds_reno_with_its_spec() {
        let cc = AlgorithmSpec::parse("reno").unwrap().build(&config());
        assert_eq!(cc.spec(), "reno");
        assert_eq!(cc.cwnd(), Bytes(10 * MDS));
        assert!(
            AlgorithmSpec::parse("reno:beta=0.5").is_err(),
            "reno has no parameters"
        );
    }

    #[test]
    fn slow_start_doubles_the_window_each_round_trip() {
        let mut cc = reno();
        let mut d = Driver::new(ms(100));
        for expected in [20, 40, 80, 160] {
            d.round(&mut cc);
            assert_eq!(cc.cwnd(), Bytes(expected * MDS));
            assert_eq!(cc.snapshot().mode, "slow_start");
        }
    }

    #[test]
    fn congestion_avoidance_adds_one_datagram_per_window_of_acks() {
        let mut cc = reno();
        let mut d = Driver::new(ms(100));
        d.round(&mut cc); // 20 packets
        d.congestion_event(&mut cc);
        assert_eq!(cc.cwnd(), Bytes(10 * MDS));
        assert_eq!(cc.ssthresh(), Bytes(10 * MDS));
        d.end_recovery();
        // A window's worth of bytes in 100-byte ACKs: exactly one datagram.
        let cwnd = cc.cwnd();
        for _ in 0..cwnd.get() / 100 - 1 {
            d.now += Duration::from_micros(100);
            d.ack(&mut cc, Bytes(100));
        }
        assert_eq!(cc.cwnd(), cwnd, "one ACK short of a window: no growth yet");
        d.ack(&mut cc, Bytes(100));
        assert_eq!(cc.cwnd(), cwnd + Bytes(MDS));
        assert_eq!(cc.snapshot().mode, "congestion_avoidance");
        // Ten more round trips: ten more datagrams.
        for _ in 0..10 {
            d.round(&mut cc);
        }
        assert_eq!(cc.cwnd(), cwnd + Bytes(11 * MDS));
    }

    #[test]
    fn loss_halves_the_window_once_per_congestion_event() {
        let mut cc = reno();
        let mut d = Driver::new(ms(100));
        d.round(&mut cc);
        d.round(&mut cc); // 40 packets
        d.congestion_event(&mut cc);
        assert_eq!(cc.cwnd(), Bytes(20 * MDS));
        assert_eq!(cc.snapshot().mode, "recovery");
        assert_eq!(cc.snapshot().extra, vec![("ssthresh", (20 * MDS) as f64)]);
        // More losses of the same recovery period: no further cut.
        cc.on_packet_lost(&d.loss_event(false, false));
        cc.on_packet_lost(&d.loss_event(false, false));
        assert_eq!(cc.cwnd(), Bytes(20 * MDS));
        // A new congestion event cuts again.
        cc.on_packet_lost(&d.loss_event(true, false));
        assert_eq!(cc.cwnd(), Bytes(10 * MDS));
    }

    #[test]
    fn no_growth_in_recovery() {
        let mut cc = reno();
        let mut d = Driver::new(ms(100));
        d.round(&mut cc);
        d.congestion_event(&mut cc);
        let cwnd = cc.cwnd();
        for _ in 0..3 {
            d.round(&mut cc);
        }
        assert_eq!(cc.cwnd(), cwnd);
        assert_eq!(cc.snapshot().mode, "recovery");
        d.end_recovery();
        d.round(&mut cc);
        assert_eq!(cc.cwnd(), cwnd + Bytes(MDS));
        assert_eq!(cc.snapshot().mode, "congestion_avoidance");
    }

    #[test]
    fn the_minimum_window_bounds_the_cut() {
        let mut cc = Reno::new(&ControllerConfig {
            initial_window_packets: 3,
            ..config()
        });
        let d = Driver::new(ms(100));
        cc.on_packet_lost(&d.loss_event(true, false));
        assert_eq!(cc.cwnd(), Bytes(2 * MDS));
        cc.on_packet_lost(&d.loss_event(true, false));
        assert_eq!(cc.cwnd(), Bytes(2 * MDS));
        assert_eq!(cc.ssthresh(), Bytes(2 * MDS));
    }

    #[test]
    fn persistent_congestion_collapses_to_the_minimum_window() {
        let mut cc = reno();
        let mut d = Driver::new(ms(100));
        d.round(&mut cc);
        d.round(&mut cc); // 40 packets
        cc.on_packet_lost(&d.loss_event(true, true));
        assert_eq!(cc.cwnd(), Bytes(2 * MDS));
        assert_eq!(cc.ssthresh(), Bytes(20 * MDS));
        assert_eq!(
            cc.snapshot().mode,
            "slow_start",
            "recovery ends with persistent congestion"
        );
        // Slow start back to ssthresh.
        d.round(&mut cc);
        assert_eq!(cc.cwnd(), Bytes(4 * MDS));
    }

    #[test]
    fn pacing_is_twice_cwnd_per_srtt_in_slow_start_then_1_2() {
        let mut cc = reno();
        assert_eq!(
            cc.pacing_rate(),
            Bandwidth::MAX,
            "no RTT sample yet: unpaced"
        );
        let mut d = Driver::new(ms(100));
        d.round(&mut cc);
        // 20 * 1500 B per 100 ms = 2.4 Mbit/s, times 2.
        assert_eq!(cc.pacing_rate(), Bandwidth::from_bits_per_sec(4_800_000));
        d.congestion_event(&mut cc);
        // 10 * 1500 B per 100 ms = 1.2 Mbit/s, times 1.2.
        assert_eq!(cc.pacing_rate(), Bandwidth::from_bits_per_sec(1_440_000));
        assert_eq!(cc.send_quantum(), Bytes(2 * MDS));
    }

    #[test]
    fn an_unused_window_does_not_grow() {
        let mut cc = reno();
        let mut d = Driver::new(ms(100));
        // Slow start, but the application keeps only 2 packets in flight.
        for _ in 0..50 {
            d.now += ms(10);
            cc.on_packet_sent(&SentEvent {
                now: d.now,
                bytes: Bytes(MDS),
                bytes_in_flight: Bytes(2 * MDS),
                app_limited: true,
                is_retransmission: false,
            });
            let event = d.ack_event(Bytes(MDS), Bytes(2 * MDS));
            cc.on_ack(&event);
        }
        assert_eq!(cc.cwnd(), Bytes(10 * MDS));
        // Half the window in flight is enough in slow start ...
        let event = d.ack_event(Bytes(MDS), Bytes(5 * MDS));
        cc.on_ack(&event);
        assert_eq!(cc.cwnd(), Bytes(11 * MDS));
        // ... and not in congestion avoidance, where only a full window counts.
        d.congestion_event(&mut cc);
        d.end_recovery();
        let cwnd = cc.cwnd();
        d.now += Duration::from_secs(1);
        for _ in 0..100 {
            d.now += ms(10);
            let event = d.ack_event(Bytes(MDS), cwnd - Bytes(2 * MDS));
            cc.on_ack(&event);
        }
        assert_eq!(cc.cwnd(), cwnd);
    }

    #[test]
    fn a_recently_full_window_still_counts_while_pacing_refills_it() {
        let mut cc = reno();
        let mut d = Driver::new(ms(100));
        d.round(&mut cc);
        d.congestion_event(&mut cc);
        d.end_recovery();
        let cwnd = cc.cwnd();
        // Full at t, then ACKs with a dip in flight within one srtt still grow.
        d.ack(&mut cc, Bytes::ZERO);
        let mut acked = Bytes::ZERO;
        while acked < cwnd {
            d.now += ms(5);
            let event = d.ack_event(Bytes(MDS), cwnd / 2);
            cc.on_ack(&event);
            acked += Bytes(MDS);
        }
        assert_eq!(cc.cwnd(), cwnd + Bytes(MDS));
    }

    #[derive(Clone, Debug)]
    pub(crate) enum Op {
        Sent {
            in_flight_pkts: u64,
        },
        Ack {
            acked: u64,
            prior_in_flight_pkts: u64,
            rtt_us: u64,
            in_recovery: bool,
            sample: bool,
        },
        Loss {
            new_event: bool,
            persistent: bool,
        },
        Wait {
            us: u64,
        },
    }

    pub(crate) fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u64..200).prop_map(|in_flight_pkts| Op::Sent { in_flight_pkts }),
            (
                0u64..200_000,
                0u64..200,
                100u64..10_000_000,
                any::<bool>(),
                any::<bool>()
            )
                .prop_map(
                    |(acked, prior_in_flight_pkts, rtt_us, in_recovery, sample)| Op::Ack {
                        acked,
                        prior_in_flight_pkts,
                        rtt_us,
                        in_recovery,
                        sample
                    }
                ),
            (any::<bool>(), any::<bool>()).prop_map(|(new_event, persistent)| Op::Loss {
                new_event,
                persistent
            }),
            (0u64..20_000_000).prop_map(|us| Op::Wait { us }),
        ]
    }

    /// Runs `ops` against `cc`, checking the invariants after every event.
    pub(crate) fn run_ops(cc: &mut dyn CongestionControl, mds: u64, ops: &[Op]) {
        let mut now = Instant::ZERO;
        let mut delivered = Bytes::ZERO;
        for op in ops {
            now += Duration::from_micros(10);
            match *op {
                Op::Sent { in_flight_pkts } => cc.on_packet_sent(&SentEvent {
                    now,
                    bytes: Bytes(mds),
                    bytes_in_flight: Bytes(in_flight_pkts * mds),
                    app_limited: false,
                    is_retransmission: false,
                }),
                Op::Ack {
                    acked,
                    prior_in_flight_pkts,
                    rtt_us,
                    in_recovery,
                    sample,
                } => {
                    let rtt = Duration::from_micros(rtt_us);
                    let prior = delivered;
                    delivered += Bytes(acked);
                    cc.on_ack(
                        &Ack::at(now)
                            .with_rate(|r| {
                                r.prior_delivered = Some(prior);
                                r.total_delivered = delivered;
                            })
                            .rtt_estimate(RttEstimate {
                                latest: sample.then_some(rtt),
                                smoothed: rtt,
                                rttvar: rtt / 2,
                                min: if sample { rtt } else { Duration::ZERO },
                            })
                            .acked(Bytes(acked))
                            .prior_in_flight(Bytes(prior_in_flight_pkts * mds))
                            .bytes_in_flight(Bytes(prior_in_flight_pkts * mds) - Bytes(acked))
                            .in_recovery(in_recovery)
                            .build(),
                    )
                }
                Op::Loss {
                    new_event,
                    persistent,
                } => cc.on_packet_lost(&LossEvent {
                    now,
                    packet: crate::rate::DeliveryState {
                        sent_time: now,
                        size: Bytes(mds),
                        delivered,
                        delivered_time: now,
                        first_send_time: now,
                        is_app_limited: false,
                        tx_in_flight: Bytes(mds),
                        lost: Bytes::ZERO,
                    },
                    bytes_in_flight: Bytes::ZERO,
                    new_congestion_event: new_event,
                    persistent_congestion: persistent,
                }),
                Op::Wait { us } => now += Duration::from_micros(us),
            }
            assert!(
                cc.cwnd() >= Bytes(2 * mds),
                "cwnd {} below two datagrams",
                cc.cwnd()
            );
            assert!(cc.pacing_rate() > Bandwidth::ZERO);
            assert!(cc.send_quantum() > Bytes::ZERO);
            let snap = cc.snapshot();
            assert!(["slow_start", "congestion_avoidance", "recovery"].contains(&snap.mode));
        }
    }

    proptest! {
        #[test]
        fn reno_survives_arbitrary_event_sequences(
            mds in prop_oneof![Just(1200u64), Just(1500), Just(9000)],
            iw in 1u64..100,
            ops in proptest::collection::vec(op(), 1..300),
        ) {
            let config = ControllerConfig {
                max_datagram_size: Bytes(mds),
                initial_window_packets: iw,
                ..config()
            };
            let mut cc = Reno::new(&config);
            run_ops(&mut cc, mds, &ops);
        }
    }
}
