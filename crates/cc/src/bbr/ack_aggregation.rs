//! The extra-acked allowance: headroom in cwnd for ACK aggregation
//! (`bbr_update_ack_aggregation` in Linux).
//!
//! Wi-Fi, cellular MACs and receivers that stretch ACKs deliver ACKs in
//! bursts. Between bursts a sender limited to `cwnd_gain x BDP` would sit
//! idle; BBR measures how much more data was acked in an "epoch" than the
//! bandwidth estimate predicts and lets cwnd exceed the target by that much.

use std::time::Duration;

use crate::units::{Bandwidth, Bytes, Instant};

/// Rounds per half of the two-slot max window (Linux `bbr_extra_acked_win_rtts`).
const WINDOW_ROUNDS: u32 = 5;
/// The allowance never exceeds this much time at the estimated bandwidth.
const MAX_ALLOWANCE: Duration = Duration::from_millis(100);
/// An epoch that has acked this many packets is restarted (Linux: 2^20).
const EPOCH_RESET_PACKETS: u64 = 1 << 20;

/// Tracks the extra-acked maximum over the last 5..10 round trips.
#[derive(Clone, Debug, Default)]
pub struct AckAggregation {
    epoch_start: Instant,
    epoch_acked: Bytes,
    slots: [Bytes; 2],
    slot: usize,
    rounds_in_slot: u32,
}

impl AckAggregation {
    /// Folds one ACK into the estimate.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn on_ack(
        &mut self,
        now: Instant,
        round_start: bool,
        newly_acked: Bytes,
        bw: Bandwidth,
        cwnd: Bytes,
        mss: Bytes,
    ) {
        if newly_acked == Bytes::ZERO {
            return;
        }
        if round_start {
            self.rounds_in_slot = (self.rounds_in_slot + 1).min(31);
            if self.rounds_in_slot >= WINDOW_ROUNDS {
                self.rounds_in_slot = 0;
                self.slot ^= 1;
                self.slots[self.slot] = Bytes::ZERO;
            }
        }
        let mut expected = bw.bytes_in(now - self.epoch_start);
        // A slow ACK stream (or a very old epoch) starts a new epoch.
        if self.epoch_acked <= expected
            || self.epoch_acked + newly_acked >= mss * EPOCH_RESET_PACKETS
        {
            self.epoch_acked = Bytes::ZERO;
            self.epoch_start = now;
            expected = Bytes::ZERO;
        }
        self.epoch_acked += newly_acked;
        let extra = (self.epoch_acked - expected).min(cwnd);
        if extra > self.slots[self.slot] {
            self.slots[self.slot] = extra;
        }
    }

    /// The measured extra-acked volume (max of both slots).
    pub fn extra_acked(&self) -> Bytes {
        self.slots[0].max(self.slots[1])
    }

    /// The cwnd allowance: `gain x extra_acked`, capped at 100 ms of `bw`.
    pub fn allowance(&self, bw: Bandwidth, gain: f64) -> Bytes {
        self.extra_acked()
            .mul_f64(gain)
            .min(bw.bytes_in(MAX_ALLOWANCE))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Instant {
        Instant::from_nanos(v * 1_000_000)
    }

    #[test]
    fn aggregated_acks_raise_the_allowance() {
        let mut agg = AckAggregation::default();
        let bw = Bandwidth::from_mbps(12); // 1500 B per ms
        let mss = Bytes(1500);
        // A smooth ACK stream: one packet per ms, no extra.
        for t in 0..20 {
            agg.on_ack(ms(t), false, mss, bw, Bytes(100_000), mss);
        }
        assert!(
            agg.extra_acked() <= mss * 2,
            "smooth stream: {}",
            agg.extra_acked()
        );
        // Silence for 10 ms, then 10 packets acked at once.
        agg.on_ack(ms(30), false, mss * 10, bw, Bytes(100_000), mss);
        assert!(agg.extra_acked() >= mss * 9, "burst: {}", agg.extra_acked());
        assert_eq!(agg.allowance(bw, 1.0), agg.extra_acked());
        // Capped at 100 ms of bandwidth.
        assert!(agg.allowance(Bandwidth::from_kbps(100), 1.0) <= Bytes(1250));
    }

    #[test]
    fn allowance_expires_after_two_slots_of_rounds() {
        let mut agg = AckAggregation::default();
        let bw = Bandwidth::from_mbps(12);
        let mss = Bytes(1500);
        agg.on_ack(ms(0), false, mss, bw, Bytes(100_000), mss);
        agg.on_ack(ms(50), false, mss * 40, bw, Bytes(100_000), mss);
        assert!(agg.extra_acked() > Bytes::ZERO);
        // Smooth acking at bw, one round per ms: ack exactly what the rate predicts.
        for t in 100..100 + 2 * WINDOW_ROUNDS as u64 {
            agg.on_ack(ms(t), true, mss, bw, Bytes(100_000), mss);
        }
        assert!(
            agg.extra_acked() <= mss * 2,
            "old burst forgotten: {}",
            agg.extra_acked()
        );
    }
}
