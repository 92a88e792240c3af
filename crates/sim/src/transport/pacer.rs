//! The pacer: spreads packets at the controller's pacing rate.

use cc::{Bandwidth, Bytes, Instant};

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

    fn refill(&mut self, now: Instant, rate: Bandwidth, depth: Bytes) {
        let dt = (now - self.last).as_secs_f64();
        self.tokens = (self.tokens + rate.as_bps_f64() / 8.0 * dt).min(depth.as_f64());
        self.last = now;
    }

    /// When a packet of `size` may leave: `now` or a later time.
    pub fn earliest_send(
        &mut self,
        now: Instant,
        size: Bytes,
        rate: Bandwidth,
        quantum: Bytes,
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
        let wait_ns = (missing * 8.0 / rate.as_bps_f64() * 1e9).ceil() as u64;
        now + std::time::Duration::from_nanos(wait_ns.max(1))
    }

    /// A packet of `size` left.
    pub fn on_send(&mut self, size: Bytes) {
        self.tokens -= size.as_f64();
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
        assert_eq!(p.earliest_send(t0, Bytes(1500), rate, q), t0);
        p.on_send(Bytes(1500));
        assert_eq!(p.earliest_send(t0, Bytes(1500), rate, q), t0);
        p.on_send(Bytes(1500));
        let next = p.earliest_send(t0, Bytes(1500), rate, q);
        assert_eq!(next, t0 + Duration::from_millis(1));
    }
}
