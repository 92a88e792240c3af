//! The receiver: reassembles the stream and decides when to ACK.

use std::collections::BTreeMap;
use std::time::Duration;

use cc::Instant;

use super::stream::Chunk;
use crate::config::AckPolicy;

/// An ACK frame. The ACK path of the model never loses or reorders, so a
/// frame lists the packet numbers received since the previous frame rather
/// than every range (equivalent here, and it keeps frames small).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AckFrame {
    /// Largest packet number received so far.
    pub largest: u64,
    /// Time between receiving `largest` and sending this frame.
    pub ack_delay: Duration,
    /// Packet numbers received since the previous frame.
    pub newly_received: Vec<u64>,
    /// The stream offset up to which the sender may send (the in-order
    /// point plus the receive window; `u64::MAX` for an unlimited receiver).
    pub max_stream_data: u64,
}

/// What the receiver wants after a packet arrived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AckDecision {
    /// Send this frame now.
    Send(AckFrame),
    /// Arm the delayed-ACK timer for this time (if not armed).
    Delay(Instant),
}

/// Stream reassembly and the ACK policy.
#[derive(Debug)]
pub struct Receiver {
    policy: AckPolicy,
    max_ack_delay: Duration,
    receive_window: Option<u64>,
    /// Out-of-order stream data: start -> end.
    ranges: BTreeMap<u64, u64>,
    in_order: u64,
    pending: Vec<u64>,
    largest: Option<u64>,
    largest_time: Instant,
    timer: Option<Instant>,
}

impl Receiver {
    /// A receiver with the given ACK policy and flow-control window
    /// (stream bytes; `None` for unlimited).
    pub fn new(policy: AckPolicy, max_ack_delay: Duration, receive_window: Option<u64>) -> Self {
        Receiver {
            policy,
            max_ack_delay,
            receive_window,
            ranges: BTreeMap::new(),
            in_order: 0,
            pending: Vec::new(),
            largest: None,
            largest_time: Instant::ZERO,
            timer: None,
        }
    }

    /// Stream bytes delivered in order to the application.
    pub fn delivered_in_order(&self) -> u64 {
        self.in_order
    }

    /// Stream bytes received beyond the in-order point, held until the
    /// holes before them are filled.
    pub fn buffered_out_of_order(&self) -> u64 {
        self.ranges.iter().map(|(&s, &e)| e - s).sum()
    }

    /// Where the in-order point would be once `arriving` chunks (data on
    /// its way) are received too; the receiver itself is not changed.
    pub fn in_order_after(&self, arriving: impl IntoIterator<Item = Chunk>) -> u64 {
        let mut chunks: Vec<(u64, u64)> = arriving
            .into_iter()
            .map(|c| (c.offset, c.offset + c.len as u64))
            .chain(self.ranges.iter().map(|(&s, &e)| (s, e)))
            .collect();
        chunks.sort_unstable();
        let mut in_order = self.in_order;
        for (start, end) in chunks {
            if start > in_order {
                break;
            }
            in_order = in_order.max(end);
        }
        in_order
    }

    /// A packet arrived.
    pub fn on_packet(&mut self, now: Instant, pn: u64, chunk: Chunk) -> AckDecision {
        self.add_chunk(chunk);
        // A gap (a packet number skipped) is acknowledged at once, so the
        // sender learns of the loss quickly (RFC 9000 §13.2.1).
        let out_of_order = self.largest.is_some_and(|l| pn != l + 1);
        if self.largest.is_none_or(|l| pn > l) {
            self.largest = Some(pn);
            self.largest_time = now;
        }
        self.pending.push(pn);
        let immediate = match self.policy {
            AckPolicy::EveryPacket => true,
            AckPolicy::EverySecond => self.pending.len() >= 2 || out_of_order,
            AckPolicy::EveryNth(n) => self.pending.len() >= n as usize || out_of_order,
        };
        if immediate {
            AckDecision::Send(self.make_frame(now))
        } else {
            let at = *self.timer.get_or_insert(now + self.max_ack_delay);
            AckDecision::Delay(at)
        }
    }

    /// The delayed-ACK timer armed for `at` fired.
    pub fn on_timer(&mut self, now: Instant, at: Instant) -> Option<AckFrame> {
        if self.timer != Some(at) || self.pending.is_empty() {
            return None;
        }
        Some(self.make_frame(now))
    }

    fn make_frame(&mut self, now: Instant) -> AckFrame {
        self.timer = None;
        AckFrame {
            largest: self.largest.unwrap_or(0),
            ack_delay: now - self.largest_time,
            newly_received: std::mem::take(&mut self.pending),
            max_stream_data: self.max_stream_data(),
        }
    }

    /// The flow-control limit the receiver advertises now.
    pub fn max_stream_data(&self) -> u64 {
        self.receive_window
            .map_or(u64::MAX, |w| self.in_order.saturating_add(w))
    }

    fn add_chunk(&mut self, chunk: Chunk) {
        let (mut start, mut end) = (chunk.offset, chunk.offset + chunk.len as u64);
        if end <= self.in_order {
            return; // duplicate of delivered data
        }
        start = start.max(self.in_order);
        // Merge with overlapping or adjacent ranges.
        while let Some((&s, &e)) = self.ranges.range(..=end).next_back() {
            if e < start {
                break;
            }
            self.ranges.remove(&s);
            start = start.min(s);
            end = end.max(e);
        }
        if start <= self.in_order {
            self.in_order = end;
        } else {
            self.ranges.insert(start, end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(offset: u64, len: u32) -> Chunk {
        Chunk { offset, len }
    }

    #[test]
    fn reassembles_out_of_order_data() {
        let mut r = Receiver::new(AckPolicy::EveryPacket, Duration::from_millis(25), None);
        let t = Instant::ZERO;
        r.on_packet(t, 0, c(0, 100));
        r.on_packet(t, 2, c(200, 100));
        r.on_packet(t, 3, c(400, 100));
        assert_eq!(r.delivered_in_order(), 100);
        r.on_packet(t, 4, c(100, 100)); // fills the first hole
        assert_eq!(r.delivered_in_order(), 300);
        r.on_packet(t, 5, c(250, 200)); // overlaps both sides
        assert_eq!(r.delivered_in_order(), 500);
        r.on_packet(t, 6, c(0, 500)); // duplicate
        assert_eq!(r.delivered_in_order(), 500);
    }

    #[test]
    fn advertises_its_window_beyond_the_in_order_point_only() {
        let mut r = Receiver::new(
            AckPolicy::EveryPacket,
            Duration::from_millis(25),
            Some(1000),
        );
        let t = Instant::ZERO;
        let frame = |d: AckDecision| match d {
            AckDecision::Send(f) => f,
            AckDecision::Delay(_) => panic!("every packet is acknowledged"),
        };
        assert_eq!(frame(r.on_packet(t, 0, c(0, 100))).max_stream_data, 1100);
        // Data past a hole is held, not consumed: the limit stays.
        assert_eq!(frame(r.on_packet(t, 2, c(200, 100))).max_stream_data, 1100);
        assert_eq!(frame(r.on_packet(t, 1, c(100, 100))).max_stream_data, 1300);
        let unlimited = Receiver::new(AckPolicy::EveryPacket, Duration::from_millis(25), None);
        assert_eq!(unlimited.max_stream_data(), u64::MAX);
    }

    #[test]
    fn counts_held_bytes_and_the_in_order_point_after_arrivals() {
        let mut r = Receiver::new(AckPolicy::EveryPacket, Duration::from_millis(25), None);
        let t = Instant::ZERO;
        r.on_packet(t, 0, c(0, 100));
        r.on_packet(t, 2, c(200, 100));
        r.on_packet(t, 3, c(400, 50));
        assert_eq!(r.buffered_out_of_order(), 150);
        assert_eq!(r.in_order_after([]), 100);
        assert_eq!(
            r.in_order_after([c(300, 100)]),
            100,
            "the hole at 100 stays"
        );
        assert_eq!(r.in_order_after([c(300, 100), c(100, 100)]), 450);
        assert_eq!(
            r.in_order_after([c(50, 100)]),
            150,
            "overlaps delivered data"
        );
        assert_eq!(
            r.in_order_after([c(50, 150)]),
            300,
            "reaches the held range"
        );
        assert_eq!(r.delivered_in_order(), 100, "unchanged");
    }

    #[test]
    fn acks_every_second_packet_or_after_the_delay() {
        let mut r = Receiver::new(AckPolicy::EverySecond, Duration::from_millis(25), None);
        let t0 = Instant::ZERO;
        assert_eq!(
            r.on_packet(t0, 0, c(0, 10)),
            AckDecision::Delay(t0 + Duration::from_millis(25))
        );
        match r.on_packet(t0 + Duration::from_millis(1), 1, c(10, 10)) {
            AckDecision::Send(f) => {
                assert_eq!(f.newly_received, vec![0, 1]);
                assert_eq!(f.largest, 1);
            }
            other => panic!("expected an ACK, got {other:?}"),
        }
        let at = t0 + Duration::from_millis(27);
        assert_eq!(
            r.on_packet(t0 + Duration::from_millis(2), 2, c(20, 10)),
            AckDecision::Delay(at)
        );
        let f = r.on_timer(at, at).expect("delayed ACK");
        assert_eq!(f.newly_received, vec![2]);
        assert_eq!(f.ack_delay, Duration::from_millis(25));
        assert_eq!(r.on_timer(at, at), None, "nothing pending");
    }

    #[test]
    fn a_gap_is_acknowledged_at_once() {
        let mut r = Receiver::new(AckPolicy::EverySecond, Duration::from_millis(25), None);
        r.on_packet(Instant::ZERO, 0, c(0, 10));
        r.on_packet(Instant::ZERO, 1, c(10, 10));
        assert!(matches!(
            r.on_packet(Instant::ZERO, 3, c(30, 10)),
            AckDecision::Send(_)
        ));
    }
}
