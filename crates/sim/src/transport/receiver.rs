//! The receiver: reassembles the stream and decides when to ACK.

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
    /// Out-of-order stream data: (start, end), sorted, disjoint and never
    /// adjacent. A few holes at most, and most packets extend the last
    /// range or the in-order point: a sorted vector beats a tree here.
    ranges: Vec<(u64, u64)>,
    in_order: u64,
    pending: Vec<u64>,
    /// Emptied frame lists handed back by [`Receiver::recycle`], reused
    /// instead of allocating one per ACK.
    spare: Vec<Vec<u64>>,
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
            ranges: Vec::new(),
            in_order: 0,
            pending: Vec::new(),
            spare: Vec::new(),
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
        self.ranges.iter().map(|&(s, e)| e - s).sum()
    }

    /// Where the in-order point would be once `arriving` chunks (data on
    /// its way) are received too; the receiver itself is not changed.
    pub fn in_order_after(&self, arriving: impl IntoIterator<Item = Chunk>) -> u64 {
        let mut chunks: Vec<(u64, u64)> = arriving
            .into_iter()
            .map(|c| (c.offset, c.offset + c.len as u64))
            .chain(self.ranges.iter().copied())
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
    // Inlined into the simulator's delivery handler (once per packet).
    #[inline]
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

    /// Whether [`Receiver::on_timer`] for `at` could still send a frame at
    /// some time from `now` on. It acts only while the armed timer is `at`,
    /// and a timer is armed for the arrival that arms it plus the maximum
    /// ACK delay; so once another (or none) is armed, `at` can come back
    /// only through an arrival at `at - max_ack_delay`, not before `now`.
    pub fn timer_may_fire(&self, now: Instant, at: Instant) -> bool {
        self.timer == Some(at) || now + self.max_ack_delay <= at
    }

    fn make_frame(&mut self, now: Instant) -> AckFrame {
        self.timer = None;
        AckFrame {
            largest: self.largest.unwrap_or(0),
            ack_delay: now - self.largest_time,
            newly_received: std::mem::replace(
                &mut self.pending,
                self.spare.pop().unwrap_or_default(),
            ),
            max_stream_data: self.max_stream_data(),
        }
    }

    /// Hands back a frame the sender has processed: its list is reused.
    pub fn recycle(&mut self, frame: AckFrame) {
        // As many as there are ACKs in flight; the bound only guards
        // against a caller that never takes them.
        if self.spare.len() < 4096 {
            let mut list = frame.newly_received;
            list.clear();
            self.spare.push(list);
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
        // In order with nothing held that it reaches (the usual packet):
        // what the merge below would do, without its search and drain.
        if start == self.in_order && self.ranges.first().is_none_or(|&(s, _)| s > end) {
            self.in_order = end;
            return;
        }
        // Beyond a hole, packets arrive in order after the last range held:
        // it is extended, or a new one starts after it. The search below
        // would find the same place, but its loads depend on each other and
        // on a cold receiver (one of many flows) they cost a cache miss
        // each. Ranges lie beyond the in-order point, so `start` does too.
        if let Some(last) = self.ranges.last_mut() {
            if start >= last.0 {
                if start <= last.1 {
                    last.1 = last.1.max(end);
                } else {
                    self.ranges.push((start, end));
                }
                return;
            }
        }
        // Merge with overlapping or adjacent ranges: those starting at or
        // before `end`, walking down while they reach `start`.
        let hi = self.ranges.partition_point(|&(s, _)| s <= end);
        let mut lo = hi;
        while lo > 0 {
            let (s, e) = self.ranges[lo - 1];
            if e < start {
                break;
            }
            start = start.min(s);
            end = end.max(e);
            lo -= 1;
        }
        if start <= self.in_order {
            // Every held range lies beyond the in-order point, so the
            // merged ones are the first.
            self.ranges.drain(lo..hi);
            self.in_order = end;
        } else if lo == hi {
            self.ranges.insert(lo, (start, end));
        } else {
            self.ranges[lo] = (start, end);
            self.ranges.drain(lo + 1..hi);
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
    fn a_timer_replaced_by_an_ack_never_fires_again() {
        let ms = |v: u64| Instant::from_nanos(v * 1_000_000);
        let mut r = Receiver::new(AckPolicy::EverySecond, Duration::from_millis(25), None);
        let AckDecision::Delay(at) = r.on_packet(ms(10), 0, c(0, 100)) else {
            panic!("the first packet arms the timer");
        };
        assert_eq!(at, ms(35));
        assert!(r.timer_may_fire(ms(10), at));
        assert!(matches!(
            r.on_packet(ms(11), 1, c(100, 100)),
            AckDecision::Send(_)
        ));
        // Spent, and no arrival from 11 ms on can arm it for 35 ms again.
        assert!(!r.timer_may_fire(ms(11), at));
        assert_eq!(r.on_timer(at, at), None);
        // At the instant it was armed another arrival could re-arm it.
        assert!(r.timer_may_fire(ms(10), at));
        let AckDecision::Delay(next) = r.on_packet(ms(12), 2, c(200, 100)) else {
            panic!("a new timer");
        };
        assert!(r.timer_may_fire(ms(12), next));
        assert!(r.on_timer(next, next).is_some());
        assert!(!r.timer_may_fire(next, next));
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

    /// The ranges merge as a tree of start -> end merged them: random
    /// chunks (overlapping, adjacent, duplicate, out of order) leave the
    /// same in-order point and held ranges.
    #[test]
    fn ranges_merge_like_a_tree_of_ranges() {
        use std::collections::BTreeMap;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rng = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut r = Receiver::new(AckPolicy::EveryPacket, Duration::from_millis(25), None);
        let mut tree: BTreeMap<u64, u64> = BTreeMap::new();
        let mut in_order = 0u64;
        for pn in 0..20_000 {
            let offset = in_order.saturating_sub(300) + rng() % 3_000;
            let len = 1 + (rng() % 400) as u32;
            r.on_packet(Instant::ZERO, pn, c(offset, len));
            let (mut start, mut end) = (offset, offset + len as u64);
            if end > in_order {
                start = start.max(in_order);
                while let Some((&s, &e)) = tree.range(..=end).next_back() {
                    if e < start {
                        break;
                    }
                    tree.remove(&s);
                    start = start.min(s);
                    end = end.max(e);
                }
                if start <= in_order {
                    in_order = end;
                } else {
                    tree.insert(start, end);
                }
            }
            assert_eq!(r.delivered_in_order(), in_order);
            let held: Vec<(u64, u64)> = tree.iter().map(|(&s, &e)| (s, e)).collect();
            assert_eq!(r.ranges, held);
        }
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
