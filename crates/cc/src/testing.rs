//! Test support for controllers, here and in crates that define their own:
//!
//! - [`Ack`]: an [`AckEvent`] built from the few fields a test cares about;
//! - [`cruise_context`]: the [`AckContext`] a BBR-core extension point sees
//!   in ProbeBW's cruise phase, for testing an extension point alone;
//! - [`Pipe`]: a minimal lossless path to drive a controller through its
//!   states without the simulator (which lives in another crate). One
//!   bottleneck of fixed (or stepped) rate, a fixed propagation RTT, an
//!   ACK for every packet; the sender respects cwnd and the pacing rate.

use std::collections::VecDeque;
use std::time::Duration;

use crate::bbr::extension::AckContext;
use crate::bbr::Mode;
use crate::controller::{AckEvent, CongestionControl, RttEstimate, SentEvent};
use crate::rate::{DeliveryRateEstimator, DeliveryState, RateSample};
use crate::units::{Bandwidth, Bytes, Instant};

/// An [`AckEvent`] under construction. [`Ack::at`] starts from one
/// acknowledged 1500-byte packet, nothing lost, nothing in flight, no RTT
/// and no rate sample; the setters change one thing each.
///
/// ```
/// use std::time::Duration;
/// use cc::testing::Ack;
/// use cc::{Bandwidth, Bytes, Instant};
/// let event = Ack::at(Instant::from_nanos(100_000_000))
///     .rtt(Duration::from_millis(40))
///     .in_flight(Bytes(60_000))
///     .delivery_rate(Bandwidth::from_mbps(10))
///     .build();
/// assert_eq!(event.rtt.min, Duration::from_millis(40));
/// assert_eq!(event.prior_in_flight, Bytes(60_000));
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct Ack(AckEvent);

impl Ack {
    /// One 1500-byte packet acknowledged at `now`.
    pub fn at(now: Instant) -> Ack {
        Ack(AckEvent {
            now,
            rate: RateSample::default(),
            rtt: RttEstimate {
                latest: None,
                smoothed: Duration::ZERO,
                rttvar: Duration::ZERO,
                min: Duration::ZERO,
            },
            newly_acked: Bytes(1500),
            newly_lost: Bytes::ZERO,
            prior_in_flight: Bytes::ZERO,
            bytes_in_flight: Bytes::ZERO,
            in_recovery: false,
            recovery_exited: false,
        })
    }

    /// An RTT sample of `rtt`, which is also the smoothed and the minimum RTT
    /// (call [`Ack::min_rtt`] or [`Ack::smoothed_rtt`] after to set those apart).
    pub fn rtt(mut self, rtt: Duration) -> Ack {
        self.0.rtt = RttEstimate {
            latest: Some(rtt),
            smoothed: rtt,
            rttvar: Duration::ZERO,
            min: rtt,
        };
        self
    }

    /// The connection's minimum RTT.
    pub fn min_rtt(mut self, min: Duration) -> Ack {
        self.0.rtt.min = min;
        self
    }

    /// The smoothed RTT.
    pub fn smoothed_rtt(mut self, smoothed: Duration) -> Ack {
        self.0.rtt.smoothed = smoothed;
        self
    }

    /// The RTT variation.
    pub fn rttvar(mut self, rttvar: Duration) -> Ack {
        self.0.rtt.rttvar = rttvar;
        self
    }

    /// The whole RTT state.
    pub fn rtt_estimate(mut self, rtt: RttEstimate) -> Ack {
        self.0.rtt = rtt;
        self
    }

    /// No RTT sample on this ACK (the estimates stay).
    pub fn no_rtt_sample(mut self) -> Ack {
        self.0.rtt.latest = None;
        self
    }

    /// Bytes newly acknowledged.
    pub fn acked(mut self, bytes: Bytes) -> Ack {
        self.0.newly_acked = bytes;
        self
    }

    /// Bytes newly declared lost.
    pub fn lost(mut self, bytes: Bytes) -> Ack {
        self.0.newly_lost = bytes;
        self
    }

    /// Bytes in flight, before and after the ACK alike.
    pub fn in_flight(mut self, bytes: Bytes) -> Ack {
        self.0.prior_in_flight = bytes;
        self.0.bytes_in_flight = bytes;
        self
    }

    /// Bytes in flight before the ACK.
    pub fn prior_in_flight(mut self, bytes: Bytes) -> Ack {
        self.0.prior_in_flight = bytes;
        self
    }

    /// Bytes in flight after the ACK.
    pub fn bytes_in_flight(mut self, bytes: Bytes) -> Ack {
        self.0.bytes_in_flight = bytes;
        self
    }

    /// Whether the sender is in recovery after the ACK.
    pub fn in_recovery(mut self, in_recovery: bool) -> Ack {
        self.0.in_recovery = in_recovery;
        self
    }

    /// Whether the ACK ended a recovery period.
    pub fn recovery_exited(mut self, exited: bool) -> Ack {
        self.0.recovery_exited = exited;
        self
    }

    /// The whole rate sample.
    pub fn rate(mut self, rate: RateSample) -> Ack {
        self.0.rate = rate;
        self
    }

    /// The rate sample's delivery rate.
    pub fn delivery_rate(mut self, rate: Bandwidth) -> Ack {
        self.0.rate.delivery_rate = Some(rate);
        self
    }

    /// Edits the rate sample in place (for the fields without a setter).
    pub fn with_rate(mut self, edit: impl FnOnce(&mut RateSample)) -> Ack {
        edit(&mut self.0.rate);
        self
    }

    /// The event.
    pub fn build(self) -> AckEvent {
        self.0
    }
}

impl From<Ack> for AckEvent {
    fn from(ack: Ack) -> AckEvent {
        ack.0
    }
}

/// The context of `event` for an extension point of the BBR core in
/// ProbeBW's cruise phase (phase 2, pacing gain 1), past Startup, at
/// `bandwidth` and `min_rtt` (BDP their product), with a window of two
/// BDPs, 1500-byte packets, round 100, no round start and no recovery
/// entered; change a field with struct update syntax.
pub fn cruise_context(event: &AckEvent, bandwidth: Bandwidth, min_rtt: Duration) -> AckContext<'_> {
    let bdp = bandwidth.bytes_in(min_rtt);
    AckContext {
        event,
        mode: Mode::ProbeBw,
        cycle_phase: Some(2),
        pacing_gain: 1.0,
        round_start: false,
        round_count: 100,
        bandwidth,
        min_rtt: Some(min_rtt),
        bdp: Some(bdp),
        cwnd: bdp * 2,
        full_pipe: true,
        recovery_entered: false,
        mss: Bytes(1500),
    }
}

/// A lossless single-bottleneck path.
#[derive(Clone)]
pub struct Pipe {
    pub now: Instant,
    pub rate: Bandwidth,
    pub rtt: Duration,
    pub mss: Bytes,
    estimator: DeliveryRateEstimator,
    in_flight: VecDeque<(DeliveryState, Instant)>,
    bytes_in_flight: Bytes,
    link_free: Instant,
    next_send: Instant,
    srtt: Option<Duration>,
    min_rtt: Option<Duration>,
}

/// What the driver saw on one ACK.
pub struct Step {
    pub now: Instant,
    pub event: AckEvent,
}

impl Pipe {
    pub fn new(rate: Bandwidth, rtt: Duration) -> Self {
        Pipe {
            now: Instant::ZERO,
            rate,
            rtt,
            mss: Bytes(1500),
            estimator: DeliveryRateEstimator::new(),
            in_flight: VecDeque::new(),
            bytes_in_flight: Bytes::ZERO,
            link_free: Instant::ZERO,
            next_send: Instant::ZERO,
            srtt: None,
            min_rtt: None,
        }
    }

    fn send_allowed(&self, cc: &dyn CongestionControl) -> bool {
        self.bytes_in_flight + self.mss <= cc.cwnd()
    }

    /// Runs until the next ACK has been processed and returns it.
    pub fn step(&mut self, cc: &mut dyn CongestionControl) -> Step {
        loop {
            let next_ack = self
                .in_flight
                .front()
                .map(|(_, at)| *at)
                .unwrap_or(Instant::MAX);
            if self.send_allowed(cc) && self.next_send.max(self.now) < next_ack {
                self.now = self.next_send.max(self.now);
                let state = self
                    .estimator
                    .on_packet_sent(self.now, self.bytes_in_flight, self.mss);
                self.bytes_in_flight += self.mss;
                let depart =
                    self.link_free.max(self.now) + self.rate.time_to_send(self.mss).unwrap();
                self.link_free = depart;
                self.in_flight.push_back((state, depart + self.rtt));
                cc.on_packet_sent(&SentEvent {
                    now: self.now,
                    bytes: self.mss,
                    bytes_in_flight: self.bytes_in_flight,
                    app_limited: false,
                    is_retransmission: false,
                });
                let gap = cc
                    .pacing_rate()
                    .time_to_send(self.mss)
                    .unwrap_or(Duration::ZERO);
                self.next_send = self.now + gap;
                continue;
            }
            let (state, at) = self
                .in_flight
                .pop_front()
                .expect("cwnd allows at least one packet");
            self.now = at;
            let prior_in_flight = self.bytes_in_flight;
            self.bytes_in_flight -= state.size;
            let rtt = at - state.sent_time;
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
            self.srtt = Some(self.srtt.map_or(rtt, |s| (s * 7 + rtt) / 8));
            self.estimator.on_packet_acked(at, &state);
            let rate = self.estimator.generate_sample(at, self.min_rtt);
            let event = Ack::at(at)
                .rate(rate)
                .rtt(rtt)
                .smoothed_rtt(self.srtt.unwrap())
                .min_rtt(self.min_rtt.unwrap())
                .acked(state.size)
                .prior_in_flight(prior_in_flight)
                .bytes_in_flight(self.bytes_in_flight)
                .build();
            cc.on_ack(&event);
            return Step { now: at, event };
        }
    }

    /// Steps until `until`, calling `f` after every ACK.
    pub fn run_until(
        &mut self,
        cc: &mut dyn CongestionControl,
        until: Instant,
        mut f: impl FnMut(&Step, &dyn CongestionControl),
    ) {
        while self.now < until {
            let step = self.step(cc);
            f(&step, cc);
        }
    }
}
