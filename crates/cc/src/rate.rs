//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation, the
//! algorithm of Linux `tcp_rate.c`).
//!
//! The estimator lives on the transport side: the sender stamps every packet
//! with a [`DeliveryState`] snapshot when it leaves, and when ACKs arrive the
//! estimator turns the newest acknowledged packet's snapshot into a
//! [`RateSample`]: how much was delivered between that packet's send and its
//! acknowledgement, over the longer of the send and ACK intervals (the longer
//! one, because ACK compression shortens the ACK interval and a burst from
//! the sender shortens the send interval, and either alone would overstate
//! the rate). Samples over an interval shorter than min_rtt are rejected for
//! the same reason.
//!
//! When the sender runs out of data with room in the congestion window, the
//! estimator marks the "bubble" as app-limited: every packet sent until that
//! bubble has been delivered carries the mark, and controllers know its rate
//! sample reflects the application, not the path.

use std::time::Duration;

use crate::units::{Bandwidth, Bytes, Instant};

/// What a sender records about a packet at send time, and hands back to the
/// estimator when the packet is acknowledged or lost. In a QUIC stack this is
/// the controller's per-packet `PacketInfo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeliveryState {
    /// When the packet was sent.
    pub sent_time: Instant,
    /// The packet's size on the wire.
    pub size: Bytes,
    /// Bytes delivered (acknowledged) before this packet was sent.
    pub delivered: Bytes,
    /// When `delivered` was last increased, as of this packet's send.
    pub delivered_time: Instant,
    /// Send time of the first packet of the current flight, as of this packet's send.
    pub first_send_time: Instant,
    /// Whether this packet was sent inside an app-limited bubble.
    pub is_app_limited: bool,
    /// Bytes in flight just after this packet was sent (this packet included).
    pub tx_in_flight: Bytes,
    /// Bytes declared lost before this packet was sent.
    pub lost: Bytes,
}

/// The outcome of one ACK for the delivery-rate estimator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// The measured delivery rate; `None` when there is no valid sample (no
    /// packet with delivery state was acked, or the interval was shorter than
    /// min_rtt).
    pub delivery_rate: Option<Bandwidth>,
    /// Bytes delivered over the sample's interval (`C.delivered - P.delivered`).
    pub delivered: Bytes,
    /// The sample's interval: `max(send_elapsed, ack_elapsed)`.
    pub interval: Duration,
    /// `delivered` as of the newest acked packet's send; `None` when this ACK
    /// acknowledged no packet (e.g. a duplicate).
    pub prior_delivered: Option<Bytes>,
    /// Whether the newest acked packet was sent while app-limited.
    pub is_app_limited: bool,
    /// Bytes in flight when the newest acked packet was sent.
    pub tx_in_flight: Bytes,
    /// Bytes lost between the newest acked packet's send and now.
    pub lost: Bytes,
    /// Total bytes delivered on the connection after this ACK.
    pub total_delivered: Bytes,
    /// Total bytes lost on the connection after this ACK.
    pub total_lost: Bytes,
    /// Send time of the newest acked packet.
    pub newest_sent_time: Option<Instant>,
}

/// The connection-wide delivery counters (the `C.` variables of the draft).
#[derive(Clone, Debug, Default)]
pub struct DeliveryRateEstimator {
    delivered: Bytes,
    delivered_time: Instant,
    first_send_time: Instant,
    /// End of the app-limited bubble (`C.app_limited`), as a `delivered` mark.
    app_limited_until: Option<Bytes>,
    lost: Bytes,
    /// The newest-sent packet acknowledged by the ACK being processed.
    newest_acked: Option<DeliveryState>,
}

impl DeliveryRateEstimator {
    /// A fresh estimator for a new connection.
    pub fn new() -> Self {
        Self::default()
    }

    /// Total bytes delivered so far.
    #[inline]
    pub fn delivered(&self) -> Bytes {
        self.delivered
    }

    /// Total bytes declared lost so far.
    #[inline]
    pub fn lost(&self) -> Bytes {
        self.lost
    }

    /// Whether an app-limited bubble is still in the network.
    #[inline]
    pub fn is_app_limited(&self) -> bool {
        self.app_limited_until.is_some()
    }

    /// Stamps a packet about to be sent. `bytes_in_flight` excludes the packet.
    #[inline]
    pub fn on_packet_sent(
        &mut self,
        now: Instant,
        bytes_in_flight: Bytes,
        size: Bytes,
    ) -> DeliveryState {
        if bytes_in_flight == Bytes::ZERO {
            // A new flight: the interval starts now, not at the last ACK.
            self.first_send_time = now;
            self.delivered_time = now;
        }
        DeliveryState {
            sent_time: now,
            size,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_send_time: self.first_send_time,
            is_app_limited: self.app_limited_until.is_some(),
            tx_in_flight: bytes_in_flight + size,
            lost: self.lost,
        }
    }

    /// The sender has no data to send although the window has room: mark the
    /// bubble of what is now in flight as app-limited.
    #[inline]
    pub fn on_app_limited(&mut self, bytes_in_flight: Bytes) {
        self.app_limited_until = Some((self.delivered + bytes_in_flight).max(Bytes(1)));
    }

    /// One packet of the current ACK was newly acknowledged.
    #[inline]
    pub fn on_packet_acked(&mut self, now: Instant, packet: &DeliveryState) {
        self.on_acked(now, packet.size, packet);
    }

    /// An ACK acknowledged `bytes` in all, of which `newest` is the
    /// newest-sent packet: what a QUIC stack that reports an ACK frame in
    /// one call (s2n-quic's `on_ack`) knows. Equivalent to
    /// [`DeliveryRateEstimator::on_packet_acked`] for each packet.
    #[inline]
    pub fn on_acked(&mut self, now: Instant, bytes: Bytes, newest: &DeliveryState) {
        self.delivered += bytes;
        self.delivered_time = now;
        let newer = self.newest_acked.is_none_or(|p| {
            newest.sent_time > p.sent_time
                || (newest.sent_time == p.sent_time && newest.delivered > p.delivered)
        });
        if newer {
            self.first_send_time = newest.sent_time;
            self.newest_acked = Some(*newest);
        }
    }

    /// A packet was declared lost.
    #[inline]
    pub fn on_packet_lost(&mut self, size: Bytes) {
        self.lost += size;
    }

    /// Closes the current ACK and returns its rate sample. Call once per ACK,
    /// after every acknowledged and lost packet of it has been reported.
    #[inline]
    pub fn generate_sample(&mut self, now: Instant, min_rtt: Option<Duration>) -> RateSample {
        if let Some(mark) = self.app_limited_until {
            if self.delivered > mark {
                self.app_limited_until = None;
            }
        }
        let mut sample = RateSample {
            total_delivered: self.delivered,
            total_lost: self.lost,
            ..RateSample::default()
        };
        let Some(p) = self.newest_acked.take() else {
            return sample;
        };
        // In nanoseconds, the instants' unit: one `Duration` built, for the
        // sample, instead of two compared and the rate's taken apart again.
        let send_elapsed = p.sent_time.saturating_nanos_since(p.first_send_time);
        let ack_elapsed = now.saturating_nanos_since(p.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        sample.interval = Duration::from_nanos(interval);
        sample.delivered = self.delivered - p.delivered;
        sample.prior_delivered = Some(p.delivered);
        sample.is_app_limited = p.is_app_limited;
        sample.tx_in_flight = p.tx_in_flight;
        sample.lost = self.lost - p.lost;
        sample.newest_sent_time = Some(p.sent_time);
        // An interval shorter than min_rtt is an artefact of ACK compression
        // or a sender burst: its rate would overestimate the path.
        let too_short = min_rtt.is_some_and(|m| sample.interval < m);
        if !too_short {
            sample.delivery_rate = sample.delivered.per_nanos(u128::from(interval));
        }
        sample
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Instant {
        Instant::from_nanos(v * 1_000_000)
    }

    #[test]
    fn steady_flight_measures_the_ack_rate() {
        let mut est = DeliveryRateEstimator::new();
        // Ten 1000-byte packets at t=0, acked one per ms from t=100ms.
        let mut inflight = Bytes::ZERO;
        let states: Vec<_> = (0..10)
            .map(|_| {
                let s = est.on_packet_sent(ms(0), inflight, Bytes(1000));
                inflight += Bytes(1000);
                s
            })
            .collect();
        let mut last = RateSample::default();
        for (i, s) in states.iter().enumerate() {
            est.on_packet_acked(ms(100 + i as u64), s);
            last = est.generate_sample(ms(100 + i as u64), Some(Duration::from_millis(100)));
        }
        // The last packet: 10 KB delivered over 109 ms.
        assert_eq!(last.delivered, Bytes(10_000));
        assert_eq!(last.interval, Duration::from_millis(109));
        assert_eq!(
            last.delivery_rate,
            Bytes(10_000).per(Duration::from_millis(109))
        );
    }

    #[test]
    fn rate_sample_ignores_intervals_shorter_than_min_rtt() {
        let mut est = DeliveryRateEstimator::new();
        let s = est.on_packet_sent(ms(0), Bytes::ZERO, Bytes(1000));
        est.on_packet_acked(ms(30), &s);
        let sample = est.generate_sample(ms(30), Some(Duration::from_millis(40)));
        assert_eq!(sample.interval, Duration::from_millis(30));
        assert_eq!(
            sample.delivery_rate, None,
            "30 ms < min_rtt 40 ms: not a valid sample"
        );
        assert_eq!(
            sample.prior_delivered,
            Some(Bytes::ZERO),
            "round accounting still sees the ACK"
        );

        let s = est.on_packet_sent(ms(30), Bytes::ZERO, Bytes(1000));
        est.on_packet_acked(ms(80), &s);
        let sample = est.generate_sample(ms(80), Some(Duration::from_millis(40)));
        assert!(
            sample.delivery_rate.is_some(),
            "50 ms >= min_rtt 40 ms is valid"
        );
    }

    #[test]
    fn app_limited_bubble_marks_packets_until_delivered() {
        let mut est = DeliveryRateEstimator::new();
        let a = est.on_packet_sent(ms(0), Bytes::ZERO, Bytes(1000));
        est.on_app_limited(Bytes(1000));
        let b = est.on_packet_sent(ms(1), Bytes(1000), Bytes(1000));
        assert!(!a.is_app_limited);
        assert!(b.is_app_limited);
        est.on_packet_acked(ms(50), &a);
        let s = est.generate_sample(ms(50), None);
        assert!(!s.is_app_limited);
        assert!(
            est.is_app_limited(),
            "bubble (1000 B) not yet passed: delivered == mark"
        );
        est.on_packet_acked(ms(51), &b);
        let s = est.generate_sample(ms(51), None);
        assert!(s.is_app_limited, "b was sent inside the bubble");
        assert!(
            !est.is_app_limited(),
            "delivered 2000 > mark 1000: bubble gone"
        );
    }

    #[test]
    fn newest_sent_packet_of_an_ack_defines_the_sample() {
        let mut est = DeliveryRateEstimator::new();
        let a = est.on_packet_sent(ms(0), Bytes::ZERO, Bytes(1000));
        let b = est.on_packet_sent(ms(5), Bytes(1000), Bytes(1000));
        // One ACK covers both, reported out of order.
        est.on_packet_acked(ms(60), &b);
        est.on_packet_acked(ms(60), &a);
        let s = est.generate_sample(ms(60), None);
        assert_eq!(s.newest_sent_time, Some(ms(5)));
        assert_eq!(s.tx_in_flight, Bytes(2000));
        assert_eq!(s.delivered, Bytes(2000));
    }

    #[test]
    fn loss_between_send_and_ack_is_reported() {
        let mut est = DeliveryRateEstimator::new();
        let a = est.on_packet_sent(ms(0), Bytes::ZERO, Bytes(1000));
        let _b = est.on_packet_sent(ms(1), Bytes(1000), Bytes(1000));
        est.on_packet_lost(Bytes(1000));
        est.on_packet_acked(ms(50), &a);
        let s = est.generate_sample(ms(50), None);
        assert_eq!(s.lost, Bytes(1000));
        assert_eq!(s.total_lost, Bytes(1000));
    }
}
