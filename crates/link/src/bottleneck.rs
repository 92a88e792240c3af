//! The bottleneck: random loss, then a drop-tail FIFO served by the
//! capacity model (optionally through a tbf-like token bucket).
//!
//! Queue accounting: a packet occupies the buffer from its arrival until it
//! has completely left the link, i.e. the packet being served (serialised,
//! waiting for tokens, or collecting mahimahi opportunity bytes) counts in
//! `queue_bytes`/`queue_packets` and against the [`BufferLimit`]. This is
//! store-and-forward memory use and keeps the occupancy metric equal to
//! everything not yet delivered by the link; it differs from tc tbf (whose
//! `limit` excludes the packet on the wire) and mm-link (which excludes the
//! packet in transit) by at most one packet. A packet whose departure time
//! has passed no longer counts, even if the caller has not dequeued it yet.
//!
//! Time is whatever the caller passes as `now`; a `now` earlier than one
//! already seen is treated as the latest seen, so a jittery wall clock
//! cannot make the model go backwards.

use std::collections::VecDeque;

use cc::{Bandwidth, Bytes, Instant};

use crate::capacity::{Capacity, UNITS_PER_BYTE};
use crate::loss::LossProcess;
use crate::trace::MAHIMAHI_PACKET_BYTES;
use crate::{BufferLimit, LinkConfig};

/// What the link needs to know about a packet.
pub trait LinkPacket {
    /// The packet's size on the wire; read once, on arrival.
    fn size(&self) -> Bytes;
}

/// Why the bottleneck refused a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// The random-loss process took it (before the buffer).
    RandomLoss,
    /// The drop-tail buffer was full.
    BufferOverflow,
}

#[derive(Clone, Debug)]
struct Queued<P> {
    packet: P,
    arrival: Instant,
    size: u64,
    /// When it leaves the link, once it has reached the front and been
    /// served (meaningless before).
    departure: Instant,
}

/// The service state carried from one packet to the next.
#[derive(Clone, Debug)]
struct Service {
    /// Rate models: when the previous packet finished leaving the link.
    link_free_at: Instant,
    /// Token bucket: tokens (bit-ns) held at `tokens_at`.
    tokens: u128,
    tokens_at: Instant,
    /// Mahimahi: index of the first opportunity not yet used.
    next_opportunity: u64,
    /// Mahimahi: the last used opportunity's time and its unused bytes,
    /// which may serve the next packet if it was already queued then.
    leftover: Option<(Instant, u64)>,
}

/// A bottleneck link: random loss, a drop-tail buffer and a server driven by
/// the capacity model; see the module docs for queue accounting.
///
/// Service: under rate models a packet starts when it reaches the head and
/// the link is free, and leaves after its serialisation integrated over the
/// (possibly changing) rate. With a token bucket (`burst` > 0, not for
/// mahimahi, where it is ignored) tokens accrue at the bottleneck rate up to
/// the depth max(`burst`, packet size) -- the max lets packets larger than
/// the bucket through -- starting full; a packet starts once the bucket
/// holds its size, spends it, and is serialised at `line_rate`. Under
/// mahimahi, opportunities strictly after a packet's arrival serve the
/// FIFO like mm-link: each brings 1504 bytes to the head packet and any
/// remainder to the next queued ones; bytes of an opportunity that finds the
/// queue empty are lost.
#[derive(Clone, Debug)]
pub struct Bottleneck<P: LinkPacket> {
    capacity: Capacity,
    limit: BufferLimit,
    /// Token-bucket depth in bytes; 0 = no bucket.
    burst: u64,
    line_rate: Bandwidth,
    loss: LossProcess,
    /// The first `departed` packets have left the link and wait for
    /// `dequeue`; the next one is being served, the rest wait. Departed
    /// packets stay where they are instead of moving to a queue of their
    /// own: every packet passes through here, and the move was one more
    /// copy of it.
    queue: VecDeque<Queued<P>>,
    /// How many packets at the front of `queue` have left the link.
    departed: usize,
    /// Sum of the queued sizes; u128 so absurd sizes cannot overflow it.
    queued_bytes: u128,
    /// The served packet's departure, computed once when it reached the
    /// front.
    head_departure: Option<Instant>,
    clock: Instant,
    service: Service,
}

impl<P: LinkPacket> Bottleneck<P> {
    /// A bottleneck with an empty queue and a full token bucket; `seed`
    /// drives the random-loss process only.
    pub fn new(config: &LinkConfig, seed: u64) -> Bottleneck<P> {
        let capacity = Capacity::new(&config.rate);
        let burst = if capacity.is_opportunities() {
            0
        } else {
            config.burst.get()
        };
        Bottleneck {
            capacity,
            limit: config.buffer,
            burst,
            line_rate: config.line_rate,
            loss: LossProcess::new(config.loss, seed),
            queue: VecDeque::new(),
            departed: 0,
            queued_bytes: 0,
            head_departure: None,
            clock: Instant::ZERO,
            service: Service {
                link_free_at: Instant::ZERO,
                tokens: burst as u128 * UNITS_PER_BYTE,
                tokens_at: Instant::ZERO,
                next_opportunity: 0,
                leftover: None,
            },
        }
    }

    /// Offers a packet arriving at `now`. Random loss is decided first (once
    /// per arrival, like netem in front of the qdisc), then the drop-tail
    /// limit: `Bytes(b)` drops when queued bytes + size > b, `Packets(n)`
    /// when n packets are queued. A refused packet is handed back.
    pub fn enqueue(&mut self, now: Instant, packet: P) -> Result<(), (P, DropReason)> {
        let now = self.advance(now);
        if self.loss.lose() {
            return Err((packet, DropReason::RandomLoss));
        }
        let size = packet.size().get();
        let full = match self.limit {
            BufferLimit::Bytes(b) => self.queued_bytes + size as u128 > b.get() as u128,
            BufferLimit::Packets(n) => self.queue_packets() as u64 >= n,
        };
        if full {
            return Err((packet, DropReason::BufferOverflow));
        }
        self.queue.push_back(Queued {
            packet,
            arrival: now,
            size,
            departure: now,
        });
        self.queued_bytes += size as u128;
        if self.queue_packets() == 1 {
            self.head_departure = self.serve_front();
        }
        Ok(())
    }

    /// When the next packet leaves the link: a time already passed if one
    /// awaits `dequeue`, else the head's departure; None if the link is
    /// empty or will never serve its head (capacity gone for good).
    pub fn next_departure(&self) -> Option<Instant> {
        if self.departed > 0 {
            self.queue.front().map(|q| q.departure)
        } else {
            self.head_departure
        }
    }

    /// Hands out the next packet whose departure time is at or before
    /// `now`, in FIFO order; None if none has left yet.
    pub fn dequeue(&mut self, now: Instant) -> Option<P> {
        self.advance(now);
        if self.departed == 0 {
            return None;
        }
        self.departed -= 1;
        self.queue.pop_front().map(|q| q.packet)
    }

    /// Bytes at the link (including the packet being served).
    pub fn queue_bytes(&self) -> Bytes {
        Bytes(self.queued_bytes.min(u64::MAX as u128) as u64)
    }

    /// Packets at the link (including the packet being served).
    pub fn queue_packets(&self) -> usize {
        self.queue.len() - self.departed
    }

    /// The packet being served (or next to be).
    fn head(&self) -> Option<&Queued<P>> {
        self.queue.get(self.departed)
    }

    /// Capacity already committed at `now` to bytes that have not left yet:
    /// the whole packet at the head (its service may have begun before
    /// `now`; counting all of it is an upper bound of at most one packet)
    /// plus the tokens the bucket holds. Bytes leaving in `(now, t]` never
    /// exceed `carried_in(now)` + `capacity().bytes_between(now, t)`, which
    /// is what a measurement window opening at `now` may be charged.
    pub fn carried_in(&mut self, now: Instant) -> Bytes {
        let now = self.advance(now);
        let head = self.head().map_or(0, |q| q.size);
        let tokens = if self.burst == 0 {
            0
        } else {
            self.tokens_at(now) / UNITS_PER_BYTE
        };
        Bytes(u64::try_from(head as u128 + tokens).unwrap_or(u64::MAX))
    }

    /// Tokens (bit-ns) the bucket holds at `t`. Exact when the last
    /// committed start is at or before `t`; when the head's start is
    /// already committed for later, the tokens it found then (an upper
    /// bound of what `t` held, since tokens only grow while it waits).
    fn tokens_at(&self, t: Instant) -> u128 {
        let Service {
            tokens, tokens_at, ..
        } = self.service;
        let depth = self.burst as u128 * UNITS_PER_BYTE;
        if tokens_at <= t {
            let accrued = self
                .capacity
                .integral(t)
                .saturating_sub(self.capacity.integral(tokens_at));
            depth.min(tokens.saturating_add(accrued))
        } else {
            let spent = self.head().map_or(0, |q| q.size) as u128 * UNITS_PER_BYTE;
            depth.max(spent).min(tokens.saturating_add(spent))
        }
    }

    /// The capacity model, e.g. to measure the capacity offered over an interval.
    pub fn capacity(&self) -> &Capacity {
        &self.capacity
    }

    /// Moves every packet whose departure is at or before `now` out of the
    /// buffer; returns the (monotone) current time.
    fn advance(&mut self, now: Instant) -> Instant {
        self.clock = self.clock.max(now);
        let now = self.clock;
        while let Some(departure) = self.head_departure.filter(|&d| d <= now) {
            let Some(done) = self.queue.get_mut(self.departed) else {
                self.head_departure = None;
                break;
            };
            done.departure = departure;
            self.queued_bytes -= done.size as u128;
            self.departed += 1;
            self.head_departure = if self.queue_packets() == 0 {
                None
            } else {
                self.serve_front()
            };
        }
        now
    }

    /// Computes the front packet's departure and commits the service state
    /// it leaves behind; called exactly once per packet, when it reaches the
    /// front, which its FIFO service cannot depend on later arrivals.
    fn serve_front(&mut self) -> Option<Instant> {
        let head = self.head()?;
        let (arrival, size) = (head.arrival, head.size);
        if self.capacity.is_opportunities() {
            self.serve_opportunities(arrival, size)
        } else if self.burst == 0 {
            let start = arrival.max(self.service.link_free_at);
            let done = self.capacity.time_to_serve(start, Bytes(size))?;
            self.service.link_free_at = done;
            Some(done)
        } else {
            self.serve_token_bucket(arrival, size)
        }
    }

    // Never inlined, nor the opportunities' service: inlined into the
    // service of a packet, these paths (a token bucket, a trace) made the
    // constant-rate one save and restore more registers, about 20
    // instructions per packet.
    #[inline(never)]
    fn serve_token_bucket(&mut self, arrival: Instant, size: u64) -> Option<Instant> {
        let Service {
            link_free_at,
            tokens,
            tokens_at,
            ..
        } = self.service;
        let capacity = &self.capacity;
        let free = arrival.max(link_free_at);
        let need = size as u128 * UNITS_PER_BYTE;
        let depth = self.burst.max(size) as u128 * UNITS_PER_BYTE;
        // Tokens only ever grow between packets, so capping once at the end
        // of the interval is the same as capping continuously.
        let base = capacity.integral(tokens_at);
        let tokens_then = |t: Instant| {
            let accrued = capacity.integral(t).saturating_sub(base);
            depth.min(tokens.saturating_add(accrued))
        };
        let have = tokens_then(free);
        let start = if have >= need {
            free
        } else {
            capacity.time_to_integral(free, need - have)?
        };
        let left = tokens_then(start).saturating_sub(need);
        // Checked like the other service paths: past the representable time is never.
        let wire = self.line_rate.time_to_send(Bytes(size))?.as_nanos();
        let done = Instant::from_nanos(u64::try_from(start.as_nanos() as u128 + wire).ok()?);
        self.service.tokens = left;
        self.service.tokens_at = start;
        self.service.link_free_at = done;
        Some(done)
    }

    #[inline(never)]
    fn serve_opportunities(&mut self, arrival: Instant, size: u64) -> Option<Instant> {
        let per = MAHIMAHI_PACKET_BYTES.get();
        let s = &mut self.service;
        let mut remaining = size;
        if let Some((at, left)) = s.leftover.take() {
            if arrival < at {
                let used = left.min(remaining);
                remaining -= used;
                if remaining == 0 {
                    s.leftover = Some((at, left - used)).filter(|l| l.1 > 0);
                    return Some(at);
                }
            }
        }
        let first = s
            .next_opportunity
            .max(self.capacity.first_opportunity_after(arrival));
        // A zero-byte packet still needs an opportunity to be picked up.
        let count = remaining.div_ceil(per).max(1);
        let last = first.checked_add(count - 1)?;
        let at = self.capacity.opportunity_time(last)?;
        s.next_opportunity = last + 1;
        s.leftover = Some((at, count * per - remaining)).filter(|l| l.1 > 0);
        Some(at)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use super::*;
    use crate::{LossModel, MahimahiTrace, RateModel, RateStep, DEFAULT_LINE_RATE};

    #[derive(Debug, PartialEq)]
    struct Pkt(u64, u32);
    impl LinkPacket for Pkt {
        fn size(&self) -> Bytes {
            Bytes(self.0)
        }
    }

    fn us(v: u64) -> Instant {
        Instant::from_nanos(v * 1_000)
    }
    fn ms(v: u64) -> Instant {
        us(v * 1000)
    }

    fn config(rate: RateModel) -> LinkConfig {
        LinkConfig {
            rate,
            buffer: BufferLimit::Bytes(Bytes(100_000_000)),
            burst: Bytes::ZERO,
            line_rate: DEFAULT_LINE_RATE,
            loss: LossModel::None,
        }
    }

    fn link(cfg: &LinkConfig) -> Bottleneck<Pkt> {
        Bottleneck::new(cfg, 1)
    }

    fn mm(text: &str) -> LinkConfig {
        config(RateModel::Mahimahi(
            MahimahiTrace::parse(text, Path::new("t")).unwrap(),
        ))
    }

    /// Drains the link like an event loop: (departure time, packet id) pairs.
    fn drain(l: &mut Bottleneck<Pkt>) -> Vec<(Instant, u32)> {
        let mut out = Vec::new();
        while let Some(t) = l.next_departure() {
            let p = l.dequeue(t).expect("a packet departs at next_departure");
            out.push((t, p.1));
        }
        out
    }

    #[test]
    fn constant_rate_serialises_back_to_back() {
        let mut l = link(&config(RateModel::Constant(Bandwidth::from_mbps(12))));
        assert_eq!(l.next_departure(), None);
        for id in 0..3 {
            l.enqueue(Instant::ZERO, Pkt(1500, id)).unwrap();
        }
        assert_eq!((l.queue_packets(), l.queue_bytes()), (3, Bytes(4500)));
        assert_eq!(l.next_departure(), Some(ms(1)));
        assert_eq!(l.dequeue(us(999)), None);
        assert_eq!(drain(&mut l), vec![(ms(1), 0), (ms(2), 1), (ms(3), 2)]);
        assert_eq!(l.queue_bytes(), Bytes::ZERO);
        // An idle link starts serving on arrival.
        l.enqueue(ms(10), Pkt(750, 9)).unwrap();
        assert_eq!(l.next_departure(), Some(us(10_500)));
    }

    #[test]
    fn late_dequeue_hands_out_every_departed_packet_in_order() {
        let mut l = link(&config(RateModel::Constant(Bandwidth::from_mbps(12))));
        for id in 0..3 {
            l.enqueue(Instant::ZERO, Pkt(1500, id)).unwrap();
        }
        // A wall-clock caller wakes up late: departed packets free the buffer.
        l.enqueue(us(2500), Pkt(1500, 3)).unwrap();
        assert_eq!(l.queue_packets(), 2);
        assert_eq!(l.next_departure(), Some(ms(1)));
        assert_eq!(l.dequeue(ms(2)).map(|p| p.1), Some(0));
        assert_eq!(l.dequeue(ms(1)).map(|p| p.1), Some(1)); // time never goes back
        assert_eq!(l.dequeue(ms(2)), None);
        assert_eq!(drain(&mut l), vec![(ms(3), 2), (ms(4), 3)]);
    }

    #[test]
    fn schedule_change_mid_packet() {
        let steps = vec![
            RateStep {
                at: Duration::ZERO,
                rate: Bandwidth::from_mbps(12),
            },
            RateStep {
                at: Duration::from_micros(500),
                rate: Bandwidth::from_mbps(6),
            },
        ];
        let mut l = link(&config(RateModel::Schedule(steps)));
        l.enqueue(Instant::ZERO, Pkt(1500, 0)).unwrap();
        l.enqueue(Instant::ZERO, Pkt(1500, 1)).unwrap();
        assert_eq!(drain(&mut l), vec![(us(1500), 0), (us(3500), 1)]);
    }

    #[test]
    fn schedule_ending_at_zero_stalls_for_good() {
        let steps = vec![
            RateStep {
                at: Duration::ZERO,
                rate: Bandwidth::from_mbps(12),
            },
            RateStep {
                at: Duration::from_millis(1),
                rate: Bandwidth::ZERO,
            },
        ];
        let mut l = link(&config(RateModel::Schedule(steps)));
        l.enqueue(Instant::ZERO, Pkt(1000, 0)).unwrap();
        l.enqueue(Instant::ZERO, Pkt(1000, 1)).unwrap();
        assert_eq!(l.dequeue(ms(5)).map(|p| p.1), Some(0));
        assert_eq!(l.next_departure(), None);
        assert_eq!(l.dequeue(ms(1_000_000)), None);
        assert_eq!(l.queue_packets(), 1);
    }

    #[test]
    fn byte_limit_drops_exactly_at_the_limit() {
        let mut cfg = config(RateModel::Constant(Bandwidth::from_mbps(12)));
        cfg.buffer = BufferLimit::Bytes(Bytes(4500));
        let mut l = link(&cfg);
        for id in 0..3 {
            l.enqueue(Instant::ZERO, Pkt(1500, id)).unwrap();
        }
        let (p, why) = l.enqueue(Instant::ZERO, Pkt(1, 3)).unwrap_err();
        assert_eq!((p, why), (Pkt(1, 3), DropReason::BufferOverflow));
        // The packet in service still counts until it leaves at 1 ms.
        assert!(l.enqueue(us(999), Pkt(1500, 4)).is_err());
        l.enqueue(ms(1), Pkt(1500, 5)).unwrap();
        assert_eq!(l.queue_bytes(), Bytes(4500));
        let mut cfg2 = cfg.clone();
        cfg2.buffer = BufferLimit::Bytes(Bytes(4000));
        let mut l = link(&cfg2);
        l.enqueue(Instant::ZERO, Pkt(3000, 0)).unwrap();
        l.enqueue(Instant::ZERO, Pkt(1000, 1)).unwrap();
        assert!(l.enqueue(Instant::ZERO, Pkt(1, 2)).is_err());
    }

    #[test]
    fn packet_limit_drops_exactly_at_the_limit() {
        let mut cfg = config(RateModel::Constant(Bandwidth::from_mbps(12)));
        cfg.buffer = BufferLimit::Packets(2);
        let mut l = link(&cfg);
        l.enqueue(Instant::ZERO, Pkt(1500, 0)).unwrap();
        l.enqueue(Instant::ZERO, Pkt(1500, 1)).unwrap();
        assert_eq!(
            l.enqueue(Instant::ZERO, Pkt(10, 2)).unwrap_err().1,
            DropReason::BufferOverflow
        );
        assert!(l.enqueue(ms(1), Pkt(10, 3)).is_ok());
        cfg.buffer = BufferLimit::Packets(0);
        assert!(link(&cfg).enqueue(Instant::ZERO, Pkt(1, 0)).is_err());
    }

    #[test]
    fn random_loss_comes_before_the_buffer_and_is_seeded() {
        let mut cfg = config(RateModel::Constant(Bandwidth::from_mbps(12)));
        cfg.loss = LossModel::Bernoulli { p: 1.0 };
        cfg.buffer = BufferLimit::Packets(0);
        let mut l = link(&cfg);
        assert_eq!(
            l.enqueue(Instant::ZERO, Pkt(1500, 0)).unwrap_err().1,
            DropReason::RandomLoss
        );
        cfg.loss = LossModel::Bernoulli { p: 0.3 };
        cfg.buffer = BufferLimit::Packets(1_000_000);
        let outcome = |seed| {
            let mut l: Bottleneck<Pkt> = Bottleneck::new(&cfg, seed);
            (0..1000)
                .map(|i| l.enqueue(Instant::ZERO, Pkt(100, i)).is_ok())
                .collect::<Vec<_>>()
        };
        assert_eq!(outcome(5), outcome(5));
        assert_ne!(outcome(5), outcome(6));
    }

    #[test]
    fn token_bucket_bursts_at_line_rate_then_holds_the_rate() {
        let mut cfg = config(RateModel::Constant(Bandwidth::from_mbps(12)));
        cfg.burst = Bytes(15_000);
        let mut l = link(&cfg);
        let n = 2010;
        for id in 0..n {
            l.enqueue(Instant::ZERO, Pkt(1500, id)).unwrap();
        }
        let out = drain(&mut l);
        // 1500 B at 1 Gbit/s = 12 us; the full bucket sends 10 packets back to back.
        for (i, &(t, _)) in out.iter().take(10).enumerate() {
            assert_eq!(t, us(12 * (i as u64 + 1)));
        }
        // Then one packet per ms as tokens accrue at 12 Mbit/s (1.5 B/us):
        // packet k (0-based) starts when 15000 + 1.5 B/us * t reaches (k+1) * 1500.
        for (k, &(t, _)) in out.iter().enumerate().skip(10) {
            assert_eq!(t, ms(k as u64 - 9) + Duration::from_micros(12));
        }
        // Long run: (bytes - burst) / rate.
        let last = out.last().unwrap().0;
        let rate = Bytes(1500 * (n as u64 - 10)).per(last - us(12)).unwrap();
        assert_eq!(rate, Bandwidth::from_mbps(12));

        // After 10 ms idle the bucket is full again: another line-rate burst.
        let t0 = last + Duration::from_millis(10);
        for id in 0..12 {
            l.enqueue(t0, Pkt(1500, id)).unwrap();
        }
        let out = drain(&mut l);
        assert_eq!(out[9].0, t0 + Duration::from_micros(120));
        assert!(out[10].0 > t0 + Duration::from_micros(900));
    }

    #[test]
    fn token_bucket_smaller_than_a_packet_still_passes_packets() {
        let mut cfg = config(RateModel::Constant(Bandwidth::from_mbps(12)));
        cfg.burst = Bytes(100);
        let mut l = link(&cfg);
        for id in 0..3 {
            l.enqueue(Instant::ZERO, Pkt(1500, id)).unwrap();
        }
        // Starts with 100 B; needs 1400 B more (933.34 us), then 1500 B per ms.
        let out = drain(&mut l);
        assert_eq!(out.len(), 3);
        let start = Instant::from_nanos(933_334);
        assert_eq!(out[0].0, start + Duration::from_micros(12));
        assert_eq!(
            out[1].0,
            start + Duration::from_millis(1) + Duration::from_micros(12)
        );
    }

    #[test]
    fn token_bucket_follows_a_changing_rate() {
        let steps = vec![
            RateStep {
                at: Duration::ZERO,
                rate: Bandwidth::from_mbps(12),
            },
            RateStep {
                at: Duration::from_millis(100),
                rate: Bandwidth::from_mbps(24),
            },
        ];
        let mut cfg = config(RateModel::Schedule(steps));
        cfg.burst = Bytes(3000);
        let mut l = link(&cfg);
        for id in 0..400 {
            l.enqueue(Instant::ZERO, Pkt(1500, id)).unwrap();
        }
        let out = drain(&mut l);
        // Before 100 ms one packet per ms, after it one per 0.5 ms.
        let gap = |i: usize| out[i + 1].0 - out[i].0;
        assert_eq!(gap(50), Duration::from_millis(1));
        assert_eq!(gap(300), Duration::from_micros(500));
    }

    #[test]
    fn mahimahi_one_opportunity_per_ms_gives_12_mbps() {
        let mut l = link(&mm("1"));
        let mut delivered = 0u64;
        let mut next_id = 0;
        let end = ms(10_000);
        let mut now = Instant::ZERO;
        // Keep the queue full and count bytes delivered until 10 s.
        while now < end {
            while l.queue_packets() < 10 {
                l.enqueue(now, Pkt(1500, next_id)).unwrap();
                next_id += 1;
            }
            now = l.next_departure().unwrap();
            while let Some(p) = l.dequeue(now) {
                if now <= end {
                    delivered += p.0;
                }
            }
        }
        // 1504 B per ms for 10000 opportunities (ms 1..=10000) by 10 s.
        assert!(delivered.abs_diff(1504 * 10_000) <= 1500, "{delivered}");
        assert!(delivered <= 1504 * 10_000, "never more than offered");
        assert_eq!(
            l.capacity().bytes_between(Instant::ZERO, end),
            Bytes(1504 * 10_000)
        );
    }

    #[test]
    fn mahimahi_shares_opportunity_bytes_and_wastes_idle_ones() {
        let mut l = link(&mm("1"));
        // Arrival at 10.5 ms: first opportunity at 11 ms; nothing saved from idle ms.
        l.enqueue(us(10_500), Pkt(3000, 0)).unwrap();
        assert_eq!(l.next_departure(), Some(ms(12)));
        // Queued behind: uses the 8 B left at 12 ms, then 1492 B at 13 ms.
        l.enqueue(us(10_600), Pkt(1500, 1)).unwrap();
        l.enqueue(us(10_700), Pkt(4, 2)).unwrap();
        assert_eq!(drain(&mut l), vec![(ms(12), 0), (ms(13), 1), (ms(13), 2)]);
        // The 8 B left at 13 ms are wasted: the queue was empty then.
        l.enqueue(ms(13), Pkt(8, 3)).unwrap();
        assert_eq!(l.next_departure(), Some(ms(14)));
        // An arrival exactly at an opportunity's ms cannot use it (mm-link order).
        l.enqueue(ms(20), Pkt(100, 4)).unwrap();
        assert_eq!(drain(&mut l), vec![(ms(14), 3), (ms(21), 4)]);
    }

    #[test]
    fn mahimahi_repeated_timestamps_and_looping() {
        let mut l = link(&mm("1\n1\n1\n"));
        for id in 0..4 {
            l.enqueue(us(500), Pkt(1500, id)).unwrap();
        }
        assert_eq!(
            drain(&mut l),
            vec![(ms(1), 0), (ms(1), 1), (ms(1), 2), (ms(2), 3)]
        );

        // Opportunities at 2, 5 | 7, 10 | 12, 15 ...
        let mut l = link(&mm("2\n5\n"));
        for id in 0..6 {
            l.enqueue(Instant::ZERO, Pkt(1504, id)).unwrap();
        }
        let times: Vec<Instant> = drain(&mut l).into_iter().map(|d| d.0).collect();
        assert_eq!(times, [2, 5, 7, 10, 12, 15].map(ms));
        l.enqueue(ms(1_000_003), Pkt(1, 9)).unwrap();
        assert_eq!(l.next_departure(), Some(ms(1_000_005)));
    }

    #[test]
    fn mahimahi_ignores_the_token_bucket() {
        let mut cfg = mm("1");
        cfg.burst = Bytes(1_000_000);
        let mut l = link(&cfg);
        for id in 0..3 {
            l.enqueue(Instant::ZERO, Pkt(1504, id)).unwrap();
        }
        let times: Vec<Instant> = drain(&mut l).into_iter().map(|d| d.0).collect();
        assert_eq!(times, [1, 2, 3].map(ms));
    }

    #[test]
    fn zero_line_rate_or_capacity_never_panics() {
        let mut cfg = config(RateModel::Constant(Bandwidth::ZERO));
        cfg.burst = Bytes(10_000);
        cfg.line_rate = Bandwidth::ZERO;
        let mut l = link(&cfg);
        l.enqueue(Instant::ZERO, Pkt(1500, 0)).unwrap();
        assert_eq!(l.next_departure(), None);
        let mut l = link(&config(RateModel::Constant(Bandwidth::ZERO)));
        l.enqueue(Instant::ZERO, Pkt(0, 0)).unwrap();
        assert_eq!(l.next_departure(), Some(Instant::ZERO));
        l.enqueue(Instant::ZERO, Pkt(1, 1)).unwrap();
        assert_eq!(drain(&mut l), vec![(Instant::ZERO, 0)]);
        assert_eq!(l.next_departure(), None);
        let mut cfg = config(RateModel::Constant(Bandwidth::MAX));
        cfg.buffer = BufferLimit::Packets(10);
        let mut l = link(&cfg);
        l.enqueue(Instant::MAX, Pkt(u64::MAX, 0)).unwrap();
        l.enqueue(Instant::MAX, Pkt(u64::MAX, 1)).unwrap();
        assert_eq!(l.next_departure(), None);
        assert_eq!(l.queue_bytes(), Bytes::MAX);
    }

    /// mm-link's `rationalize` loop, transcribed: at each arrival (in whole
    /// ms) spend every opportunity due by then, then enqueue.
    fn mm_link_reference(ts: &[u64], arrivals: &[(Instant, u64)]) -> Vec<(Instant, u32)> {
        let period = *ts.last().unwrap();
        let time = |g: usize| (g / ts.len()) as u64 * period + ts[g % ts.len()];
        let (mut g, mut out) = (0, Vec::new());
        let mut queue: VecDeque<(u32, u64)> = VecDeque::new();
        let mut in_transit: Option<(u32, u64)> = None;
        // `drain`: stop once everything left (the real loop would burn on).
        let mut rationalize = |now: u64, queue: &mut VecDeque<(u32, u64)>, drain: bool| {
            while time(g) <= now && !(drain && in_transit.is_none() && queue.is_empty()) {
                let mut left = 1504;
                while left > 0 {
                    if in_transit.is_none() {
                        match queue.pop_front() {
                            Some(p) => in_transit = Some(p),
                            None => break,
                        }
                    }
                    let (id, rem) = in_transit.as_mut().unwrap();
                    let amount = left.min(*rem);
                    *rem -= amount;
                    left -= amount;
                    if *rem == 0 {
                        out.push((ms(time(g)), *id));
                        in_transit = None;
                    }
                }
                g += 1;
            }
        };
        for (id, &(at, size)) in arrivals.iter().enumerate() {
            rationalize(at.as_nanos() / 1_000_000, &mut queue, false);
            queue.push_back((id as u32, size));
        }
        rationalize(u64::MAX, &mut queue, true);
        out
    }

    #[test]
    fn mahimahi_matches_mm_link_reference() {
        use rand::{Rng, SeedableRng};
        for seed in 0..40 {
            let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
            let mut ts = vec![rng.gen_range(0..3u64)];
            for _ in 0..rng.gen_range(0..30) {
                let step = if rng.gen_bool(0.4) {
                    0
                } else {
                    rng.gen_range(1..6)
                };
                ts.push(ts.last().unwrap() + step);
            }
            if *ts.last().unwrap() == 0 {
                ts.push(1);
            }
            let text: String = ts.iter().map(|t| format!("{t}\n")).collect();
            let mut l = link(&mm(&text));
            let mut now = 0u64;
            let mut arrivals = Vec::new();
            let mut out = Vec::new();
            for id in 0..400u32 {
                now += rng.gen_range(0..3_000_000);
                let at = Instant::from_nanos(now);
                while let Some(t) = l.next_departure().filter(|&t| t <= at) {
                    out.push((t, l.dequeue(t).unwrap().1));
                }
                let size = rng.gen_range(1..3500);
                l.enqueue(at, Pkt(size, id)).unwrap();
                arrivals.push((at, size));
            }
            out.extend(drain(&mut l));
            assert_eq!(
                out,
                mm_link_reference(&ts, &arrivals),
                "seed {seed} trace {ts:?}"
            );
        }
    }

    #[test]
    fn odd_configurations_and_call_orders_never_panic() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(99);
        let rates = [0, 1, 1000, 12_000_000, u64::MAX / 2, u64::MAX];
        for case in 0..300 {
            let pick = |rng: &mut rand_pcg::Pcg64Mcg| {
                Bandwidth::from_bits_per_sec(rates[rng.gen_range(0..rates.len())])
            };
            let rate = match case % 4 {
                0 => RateModel::Constant(pick(&mut rng)),
                1 => RateModel::Schedule(
                    (0..rng.gen_range(0..5))
                        .map(|_| RateStep {
                            at: Duration::from_nanos(rng.gen_range(0..5_000_000)),
                            rate: pick(&mut rng),
                        })
                        .collect(),
                ),
                2 => RateModel::Mahimahi(MahimahiTrace::parse("0\n3\n3", Path::new("t")).unwrap()),
                _ => RateModel::Piecewise(
                    crate::PiecewiseTrace::from_steps(
                        vec![
                            (Duration::ZERO, Bandwidth::ZERO),
                            (
                                Duration::from_millis(1),
                                // Traces are bounded by MAX_RATE; schedules test the extremes.
                                pick(&mut rng)
                                    .max(Bandwidth::from_bits_per_sec(1))
                                    .min(crate::MAX_RATE),
                            ),
                        ],
                        Duration::from_millis(rng.gen_range(2..5)),
                    )
                    .unwrap(),
                ),
            };
            let cfg = LinkConfig {
                rate,
                buffer: if rng.gen_bool(0.5) {
                    BufferLimit::Bytes(Bytes(rng.gen_range(0..20_000)))
                } else {
                    BufferLimit::Packets(rng.gen_range(0..20))
                },
                burst: Bytes([0, 1, 1500, 100_000, u64::MAX][rng.gen_range(0..5)]),
                line_rate: pick(&mut rng),
                loss: LossModel::Bernoulli { p: 0.1 },
            };
            let mut l: Bottleneck<Pkt> = Bottleneck::new(&cfg, case);
            let mut now = 0u64;
            for id in 0..200 {
                now = now
                    .saturating_add(rng.gen_range(0..2_000_000))
                    .saturating_sub(rng.gen_range(0..100_000));
                let at = Instant::from_nanos(now);
                let size = [0, 1, 1500, 65_000, u64::MAX][rng.gen_range(0..5)];
                let _ = l.enqueue(at, Pkt(size, id));
                if let Some(t) = l.next_departure() {
                    assert!(l.dequeue(t).is_some());
                }
                let _ = l.dequeue(at);
                let _ = l.capacity().bytes_between(at, Instant::MAX);
                let _ = l.capacity().rate_at(at);
            }
        }
    }
}
