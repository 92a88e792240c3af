//! Test support: a minimal lossless path to drive a controller through its
//! states without the simulator (which lives in another crate).
//!
//! One bottleneck of fixed (or stepped) rate, a fixed propagation RTT, an
//! ACK for every packet; the sender respects cwnd and the pacing rate.

use std::collections::VecDeque;
use std::time::Duration;

use crate::controller::{AckEvent, CongestionControl, RttEstimate, SentEvent};
use crate::rate::{DeliveryRateEstimator, DeliveryState};
use crate::units::{Bandwidth, Bytes, Instant};

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
            let event = AckEvent {
                now: at,
                rate,
                rtt: RttEstimate {
                    latest: Some(rtt),
                    smoothed: self.srtt.unwrap(),
                    rttvar: Duration::ZERO,
                    min: self.min_rtt.unwrap(),
                },
                newly_acked: state.size,
                newly_lost: Bytes::ZERO,
                prior_in_flight,
                bytes_in_flight: self.bytes_in_flight,
                in_recovery: false,
                recovery_exited: false,
            };
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
