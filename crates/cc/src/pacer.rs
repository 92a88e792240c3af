//! The pacer: spreads packets at the controller's pacing rate.
//!
//! It belongs with the controllers because every transport that runs one
//! needs it: the simulator's sender and the s2n-quic adapter pace with this
//! same token bucket, so a controller's pacing rate means the same bursts
//! in both.

use crate::{Bandwidth, Bytes, Instant};

/// A token bucket refilled at the pacing rate, as deep as the controller's
/// send quantum: the sender may release one quantum back-to-back, then
/// waits for tokens, so the long-run rate is the pacing rate while bursts
/// stay within what the controller allows (Linux fq + TSO behave alike).
#[derive(Clone, Debug)]
pub struct Pacer {
    tokens: f64,
    last: Instant,
}

impl Pacer {
    /// A pacer with a full bucket of `initial` bytes.
    pub fn new(now: Instant, initial: Bytes) -> Self {
        Pacer {
            tokens: initial.as_f64(),
            last: now,
        }
    }

    #[inline]
    fn refill(&mut self, now: Instant, rate: Bandwidth, depth: Bytes) {
        // Nothing accrues between two polls at the same instant (as the
        // poll that follows each send): the conversion and the product
        // are skipped. Adding their zero would change nothing later steps
        // can see (at most the sign of a zero, which only meets additions,
        // subtractions and comparisons).
        if now != self.last {
            let dt = secs_f64(now.saturating_nanos_since(self.last));
            self.tokens += rate.as_bps_f64() / 8.0 * dt;
        }
        self.tokens = self.tokens.min(depth.as_f64());
        self.last = now;
    }

    /// When a packet of `size` may leave: `now` or a later time. `quantum`
    /// is the bucket's depth; a `timer` above zero is a timer-driven pacer's
    /// granularity: it sleeps at least that long once the bucket runs dry.
    #[inline]
    pub fn earliest_send(
        &mut self,
        now: Instant,
        size: Bytes,
        rate: Bandwidth,
        quantum: Bytes,
        timer: std::time::Duration,
    ) -> Instant {
        if rate == Bandwidth::MAX {
            return now;
        }
        let depth = quantum.max(size);
        self.refill(now, rate, depth);
        let missing = size.as_f64() - self.tokens;
        if missing <= 0.0 || rate == Bandwidth::ZERO {
            return now;
        }
        let wait_ns = ceil_u64(missing * 8.0 / rate.as_bps_f64() * 1e9);
        // In nanoseconds, as `now + Duration::from_nanos(wait).max(timer)`
        // without building and comparing `Duration`s on every short poll.
        let timer_ns = u64::try_from(timer.as_nanos()).unwrap_or(u64::MAX);
        Instant::from_nanos(now.as_nanos().saturating_add(wait_ns.max(1).max(timer_ns)))
    }

    /// The bucket depth of a timer-driven pacer (`timer` above zero): two
    /// timer periods at `rate`, at least ten datagrams and at least
    /// `quantum` (nginx-quic's `max(10 MSS, (3 + 3) ms x rate)`); `quantum`
    /// itself for a packet-by-packet pacer.
    #[inline]
    pub fn depth(
        quantum: Bytes,
        rate: Bandwidth,
        timer: std::time::Duration,
        datagram: Bytes,
    ) -> Bytes {
        if timer.is_zero() || rate == Bandwidth::MAX {
            return quantum;
        }
        let two_periods = Bytes((rate.as_bps_f64() / 8.0 * 2.0 * timer.as_secs_f64()) as u64);
        quantum.max(two_periods).max(Bytes(10 * datagram.get()))
    }

    /// Lets a packet of `size` leave at once, whatever the budget (a pacer
    /// that forgives its overspend: see `TransportConfig::pacer_ack_credit`).
    pub fn grant(&mut self, size: Bytes) {
        self.tokens = self.tokens.max(size.as_f64());
    }

    /// A packet of `size` left.
    #[inline]
    pub fn on_send(&mut self, size: Bytes) {
        self.tokens -= size.as_f64();
    }
}

/// `Duration::from_nanos(nanos).as_secs_f64()`, the same bits: below a
/// second (every gap between two polls but an idle restart's) that is
/// `0.0 + nanos / 1e9`, so the quotient is taken from the nanoseconds
/// directly, without splitting them into seconds and nanoseconds first
/// and converting both.
#[inline]
fn secs_f64(nanos: u64) -> f64 {
    match u32::try_from(nanos) {
        Ok(n) if n < 1_000_000_000 => f64::from(n) / 1e9,
        _ => std::time::Duration::from_nanos(nanos).as_secs_f64(),
    }
}

/// `x.ceil() as u64`, without the call: on x86-64 without SSE4.1 (the
/// baseline target) `f64::ceil` is a library call, and the pacer rounds a
/// wait on every poll that finds the bucket short. The conversion `as u64`
/// truncates toward zero and saturates (NaN to 0), so adding one whenever
/// the truncation lost a fraction gives the same value for every input:
/// non-integers below 2^53 round up, larger floats are integers already,
/// and anything at or above 2^64 stays at `u64::MAX`.
/// Between 0 and 2^63 (every wait a run meets) the conversions go through
/// `i64`, one instruction each way, where `as u64` and back are sequences
/// that handle the upper half of the range.
#[inline]
fn ceil_u64(x: f64) -> u64 {
    if x > 0.0 && x < 9_223_372_036_854_775_808.0 {
        let t = x as i64;
        return if (t as f64) < x {
            t as u64 + 1
        } else {
            t as u64
        };
    }
    let t = x as u64;
    if (t as f64) < x {
        t.saturating_add(1)
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn releases_a_quantum_then_paces() {
        let rate = Bandwidth::from_mbps(12); // 1500 B per ms
        let q = Bytes(3000);
        let t0 = Instant::ZERO;
        let mut p = Pacer::new(t0, q);
        let packet_by_packet = Duration::ZERO;
        assert_eq!(
            p.earliest_send(t0, Bytes(1500), rate, q, packet_by_packet),
            t0
        );
        p.on_send(Bytes(1500));
        assert_eq!(
            p.earliest_send(t0, Bytes(1500), rate, q, packet_by_packet),
            t0
        );
        p.on_send(Bytes(1500));
        let next = p.earliest_send(t0, Bytes(1500), rate, q, packet_by_packet);
        assert_eq!(next, t0 + Duration::from_millis(1));
    }

    #[test]
    fn a_grant_lets_one_packet_out_whatever_the_budget() {
        let rate = Bandwidth::from_mbps(12);
        let t0 = Instant::ZERO;
        let mut p = Pacer::new(t0, Bytes(0));
        let q = Bytes(3000);
        assert!(p.earliest_send(t0, Bytes(1500), rate, q, Duration::ZERO) > t0);
        p.grant(Bytes(1500));
        assert_eq!(
            p.earliest_send(t0, Bytes(1500), rate, q, Duration::ZERO),
            t0
        );
    }

    #[test]
    fn a_timer_driven_pacer_sleeps_a_period_then_bursts() {
        let rate = Bandwidth::from_mbps(12); // 1500 B per ms
        let timer = Duration::from_millis(3);
        let datagram = Bytes(1500);
        // Two periods of 3 ms at 1500 B/ms are 9000 B, below ten datagrams.
        let depth = Pacer::depth(Bytes(3000), rate, timer, datagram);
        assert_eq!(depth, Bytes(15_000));
        assert_eq!(
            Pacer::depth(Bytes(3000), rate, Duration::ZERO, datagram),
            Bytes(3000)
        );
        let t0 = Instant::ZERO;
        let mut p = Pacer::new(t0, Bytes(0));
        // Empty: the next packet waits the timer, not its 1 ms of tokens.
        let wake = p.earliest_send(t0, datagram, rate, depth, timer);
        assert_eq!(wake, t0 + timer);
        // At the wake-up 3 ms of tokens let three packets leave at once.
        for _ in 0..3 {
            assert_eq!(p.earliest_send(wake, datagram, rate, depth, timer), wake);
            p.on_send(datagram);
        }
        assert_eq!(
            p.earliest_send(wake, datagram, rate, depth, timer),
            wake + timer
        );
    }

    #[test]
    fn secs_f64_is_the_durations_seconds() {
        for nanos in [
            0,
            1,
            999,
            1_000_000,
            999_999_999,
            1_000_000_000,
            1_500_000_001,
            u64::MAX,
        ] {
            let expected = Duration::from_nanos(nanos).as_secs_f64();
            assert_eq!(secs_f64(nanos).to_bits(), expected.to_bits(), "{nanos}");
        }
    }

    #[test]
    fn ceil_u64_is_ceil_then_cast() {
        let specials = [
            0.0,
            -0.0,
            -0.5,
            -3.5,
            0.25,
            1.0,
            1.0 + f64::EPSILON,
            2f64.powi(52) + 0.5,
            2f64.powi(53),
            2f64.powi(53) + 2.0,
            2f64.powi(63),
            2f64.powi(64),
            2f64.powi(64) * 3.0,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ];
        for x in specials {
            assert_eq!(ceil_u64(x), x.ceil() as u64, "{x}");
        }
    }

    #[test]
    fn a_smaller_depth_caps_the_tokens_at_the_same_instant() {
        let rate = Bandwidth::from_mbps(12); // 1500 B per ms
        let t0 = Instant::ZERO;
        let mut p = Pacer::new(t0, Bytes(30_000));
        let q = Bytes(3000);
        for _ in 0..2 {
            assert_eq!(
                p.earliest_send(t0, Bytes(1500), rate, q, Duration::ZERO),
                t0
            );
            p.on_send(Bytes(1500));
        }
        assert_eq!(
            p.earliest_send(t0, Bytes(1500), rate, q, Duration::ZERO),
            t0 + Duration::from_millis(1)
        );
    }

    proptest::proptest! {
        /// The refill that skips polls at the same instant gives the
        /// tokens of the plain formula, bit for bit, over any sequence of
        /// polls, sends and depths.
        #[test]
        fn tokens_are_those_of_the_plain_refill(
            steps in proptest::collection::vec((0u64..3, 0u64..2_000_000, 1u64..20, 1_000u64..10_000_000_000, proptest::bool::ANY), 1..200),
        ) {
            let t0 = Instant::ZERO;
            let mut p = Pacer::new(t0, Bytes(3000));
            let (mut tokens, mut last) = (3000.0f64, t0);
            let mut now = t0;
            for (kind, ns, packets, bps, send) in steps {
                if kind == 0 {
                    now += Duration::from_nanos(ns);
                }
                let (rate, depth, size) = (Bandwidth::from_bits_per_sec(bps), Bytes(packets * 1500), Bytes(1500));
                let at = p.earliest_send(now, size, rate, depth, Duration::ZERO);
                let dt = (now - last).as_secs_f64();
                tokens = (tokens + rate.as_bps_f64() / 8.0 * dt).min(depth.max(size).as_f64());
                last = now;
                // Equal as numbers: a zero may differ in sign only.
                proptest::prop_assert_eq!(p.tokens, tokens);
                proptest::prop_assert_eq!(at == now, tokens >= size.as_f64());
                if send {
                    p.on_send(size);
                    tokens -= size.as_f64();
                }
            }
        }

        #[test]
        fn secs_f64_matches_for_any_nanoseconds(nanos in proptest::num::u64::ANY, short in 0u64..1_000_000_000) {
            for n in [nanos, short] {
                proptest::prop_assert_eq!(secs_f64(n).to_bits(), Duration::from_nanos(n).as_secs_f64().to_bits());
            }
        }

        #[test]
        fn ceil_u64_matches_for_any_float(bits in proptest::num::u64::ANY, scale in 0.0f64..1e12) {
            let x = f64::from_bits(bits);
            proptest::prop_assert_eq!(ceil_u64(x), x.ceil() as u64);
            proptest::prop_assert_eq!(ceil_u64(scale), scale.ceil() as u64);
        }
    }
}
