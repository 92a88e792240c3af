//! The loss-driven bounds of BBRv2's model: the long-term upper bounds
//! `inflight_hi` / `bw_hi` and the short-term lower bounds `inflight_lo` /
//! `bw_lo` (the draft's `inflight_longterm`, `inflight_shortterm`,
//! `bw_shortterm`), and the one-round "latest" delivery signals they adapt to.
//!
//! - **Lower bounds** react to any loss, once per round trip, but only while
//!   not probing for bandwidth: `x_lo = max(x_latest, beta * x_lo)`, where
//!   `x_latest` is the most delivered (rate or volume) in the last round.
//!   They are forgotten at every PROBE_REFILL and on leaving ProbeRTT, so they
//!   never outlive one ProbeBW cycle (Drucker et al. §IV-A b).
//! - **Upper bounds** react only to a loss *rate* above `loss_thresh` (2%) in
//!   samples of data sent while probing: `inflight_hi = max(tx_in_flight,
//!   beta * target_inflight)`. They persist across cycles and only grow back
//!   when a higher inflight is seen to be safe or through ProbeBW_UP's
//!   additive growth. Under persistent random loss this is the ratchet that
//!   Drucker et al. §IV-B identify as BBRv2's goodput collapse.
//! - `bw_hi` is set only by BBRv2's ECN response, which bbrlab omits, so it
//!   stays unset; it is kept so that `bw = min(max_bw, bw_lo, bw_hi)` reads
//!   as in `tcp_bbr2.c` and traces show it.

use crate::units::{Bandwidth, Bytes};

/// The bounds and the latest-round delivery signals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bounds {
    /// Long-term upper bound on inflight (`None`: not set, unlimited).
    pub inflight_hi: Option<Bytes>,
    /// Short-term lower bound on inflight (`None`: unlimited).
    pub inflight_lo: Option<Bytes>,
    /// Long-term upper bound on the bandwidth (ECN only; stays `None`).
    pub bw_hi: Option<Bandwidth>,
    /// Short-term lower bound on the bandwidth (`None`: unlimited).
    pub bw_lo: Option<Bandwidth>,
    /// Max delivery rate over the latest round trip.
    pub bw_latest: Bandwidth,
    /// Max delivered volume (`RateSample::delivered`) over the latest round trip.
    pub inflight_latest: Bytes,
    /// Whether a loss was detected in the current round trip.
    pub loss_in_round: bool,
}

/// Whether a sample's loss rate says inflight went too high:
/// `lost > loss_thresh x tx_in_flight` (`bbr2_is_inflight_too_high`).
pub fn is_inflight_too_high(lost: Bytes, tx_in_flight: Bytes, loss_thresh: f64) -> bool {
    lost > Bytes::ZERO
        && tx_in_flight > Bytes::ZERO
        && lost.as_f64() > tx_in_flight.as_f64() * loss_thresh
}

/// The inflight at which the loss rate crossed `loss_thresh` inside the
/// lost packet of `size` bytes (`bbr2_inflight_hi_from_lost_skb`): solves
/// `(lost_prev + x) / (inflight_prev + x) = loss_thresh` for the prefix `x`.
/// Matters when losses are detected long after they happened (RACK, QUIC's
/// time threshold): the ACK's tx_in_flight would underestimate.
pub fn inflight_at_loss(tx_in_flight: Bytes, lost: Bytes, size: Bytes, loss_thresh: f64) -> Bytes {
    let inflight_prev = tx_in_flight.saturating_sub(size);
    let lost_prev = lost.saturating_sub(size);
    let budget = inflight_prev.as_f64() * loss_thresh;
    let divisor = 1.0 - loss_thresh;
    if lost_prev.as_f64() >= budget || divisor <= 0.0 {
        return inflight_prev;
    }
    let prefix = (budget - lost_prev.as_f64()) / divisor;
    inflight_prev + Bytes(prefix.ceil().min(u64::MAX as f64) as u64)
}

impl Bounds {
    /// `min(max_bw, bw_lo, bw_hi)`: the bandwidth the model allows.
    pub fn bw(&self, max_bw: Bandwidth) -> Bandwidth {
        let mut bw = max_bw;
        if let Some(lo) = self.bw_lo {
            bw = bw.min(lo);
        }
        if let Some(hi) = self.bw_hi {
            bw = bw.min(hi);
        }
        bw
    }

    /// Forgets the short-term bounds (at PROBE_REFILL and after ProbeRTT).
    pub fn reset_lower_bounds(&mut self) {
        self.bw_lo = None;
        self.inflight_lo = None;
    }

    /// Forgets this cycle's congestion signals (after a bandwidth probe).
    pub fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.bw_latest = Bandwidth::ZERO;
        self.inflight_latest = Bytes::ZERO;
    }

    /// Folds one valid sample into the latest-round maxima.
    pub fn note_latest(&mut self, bw: Bandwidth, delivered: Bytes) {
        self.bw_latest = self.bw_latest.max(bw);
        self.inflight_latest = self.inflight_latest.max(delivered);
    }

    /// At a loss-round boundary: the new round's maxima start from this sample.
    pub fn advance_latest(&mut self, bw: Bandwidth, delivered: Bytes) {
        self.bw_latest = bw;
        self.inflight_latest = delivered;
    }

    /// The once-per-round loss response while not probing
    /// (`bbr2_adapt_lower_bounds`): the first lossy round starts the bounds
    /// from the current `max_bw` and `cwnd`; every lossy round then moves
    /// them to `max(latest, beta x bound)`, never below what the path just
    /// delivered.
    pub fn adapt_lower_bounds(&mut self, max_bw: Bandwidth, cwnd: Bytes, beta: f64) {
        if !self.loss_in_round {
            return;
        }
        let bw_lo = self.bw_lo.unwrap_or(max_bw);
        let inflight_lo = self.inflight_lo.unwrap_or(cwnd);
        // A zero rate would stop pacing altogether; one bit/s keeps it alive.
        self.bw_lo = Some(
            self.bw_latest
                .max(bw_lo.mul_f64(beta))
                .max(Bandwidth::from_bits_per_sec(1)),
        );
        self.inflight_lo = Some(self.inflight_latest.max(inflight_lo.mul_f64(beta)));
    }

    /// `inflight_hi` less the headroom (at least one packet, never below
    /// `min_cwnd`); `None` while inflight_hi is unset.
    pub fn inflight_with_headroom(
        &self,
        headroom: f64,
        mss: Bytes,
        min_cwnd: Bytes,
    ) -> Option<Bytes> {
        self.inflight_hi.map(|hi| {
            let room = hi.mul_f64(headroom).max(mss);
            (hi - room).max(min_cwnd)
        })
    }

    /// A probe went too high: cut inflight_hi to what was in flight when the
    /// loss rate crossed the threshold, but not below `beta x target`
    /// (so the cut is never deeper than CUBIC's).
    pub fn cut_inflight_hi(&mut self, tx_in_flight: Bytes, target_inflight: Bytes, beta: f64) {
        self.inflight_hi = Some(tx_in_flight.max(target_inflight.mul_f64(beta)));
    }

    /// A sample with a tolerable loss rate saw more in flight (or a higher
    /// rate) than the upper bounds allow: raise them, so random loss cannot
    /// pin them down. Returns whether any bound is set.
    pub fn raise_upper_bounds(
        &mut self,
        tx_in_flight: Bytes,
        sample_bw: Option<Bandwidth>,
    ) -> bool {
        if self.inflight_hi.is_none() && self.bw_hi.is_none() {
            return false;
        }
        if let Some(hi) = self.inflight_hi.as_mut() {
            *hi = (*hi).max(tx_in_flight);
        }
        if let (Some(hi), Some(bw)) = (self.bw_hi.as_mut(), sample_bw) {
            *hi = (*hi).max(bw);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_rate_above_two_percent_is_too_high() {
        let inflight = Bytes(100 * 1500);
        assert!(is_inflight_too_high(Bytes(3 * 1500), inflight, 0.02));
        assert!(!is_inflight_too_high(Bytes(1500), inflight, 0.02));
        assert!(
            !is_inflight_too_high(Bytes(2 * 1500), inflight, 0.02),
            "exactly 2% is not above"
        );
        assert!(!is_inflight_too_high(Bytes::ZERO, Bytes::ZERO, 0.02));
        assert!(
            !is_inflight_too_high(Bytes(50 * 1500), inflight, 10.0),
            "1000%: never"
        );
    }

    #[test]
    fn lower_bounds_take_the_larger_of_latest_and_beta_times_bound() {
        let mut b = Bounds {
            loss_in_round: true,
            bw_latest: Bandwidth::from_mbps(50),
            inflight_latest: Bytes(50_000),
            ..Bounds::default()
        };
        // First lossy round: start from max_bw and cwnd.
        b.adapt_lower_bounds(Bandwidth::from_mbps(100), Bytes(200_000), 0.7);
        assert_eq!(b.bw_lo, Some(Bandwidth::from_mbps(70)));
        assert_eq!(b.inflight_lo, Some(Bytes(140_000)));
        // The latest round delivered more than 0.7 x bound: it wins.
        b.bw_latest = Bandwidth::from_mbps(60);
        b.inflight_latest = Bytes(120_000);
        b.adapt_lower_bounds(Bandwidth::from_mbps(100), Bytes(200_000), 0.7);
        assert_eq!(b.bw_lo, Some(Bandwidth::from_mbps(60)));
        assert_eq!(b.inflight_lo, Some(Bytes(120_000)));
        // No loss this round: unchanged.
        b.loss_in_round = false;
        b.adapt_lower_bounds(Bandwidth::from_mbps(100), Bytes(200_000), 0.7);
        assert_eq!(b.bw_lo, Some(Bandwidth::from_mbps(60)));
    }

    #[test]
    fn headroom_is_fifteen_percent_of_inflight_hi() {
        let mut b = Bounds::default();
        assert_eq!(
            b.inflight_with_headroom(0.15, Bytes(1500), Bytes(6000)),
            None
        );
        b.inflight_hi = Some(Bytes(100_000));
        assert_eq!(
            b.inflight_with_headroom(0.15, Bytes(1500), Bytes(6000)),
            Some(Bytes(85_000))
        );
        b.inflight_hi = Some(Bytes(6000));
        assert_eq!(
            b.inflight_with_headroom(0.15, Bytes(1500), Bytes(6000)),
            Some(Bytes(6000)),
            "never below the minimum window"
        );
    }

    #[test]
    fn inflight_at_loss_finds_the_crossing_point() {
        // 100 packets in flight before the lost one, 1 lost before it: the
        // 2% budget is 2 packets, so 1/(0.98) more packets fit.
        let mss = Bytes(1000);
        let at = inflight_at_loss(Bytes(101_000), Bytes(2000), mss, 0.02);
        assert_eq!(at, Bytes(100_000 + 1021));
        // Losses before this packet already crossed: the prefix is empty.
        let at = inflight_at_loss(Bytes(101_000), Bytes(5000), mss, 0.02);
        assert_eq!(at, Bytes(100_000));
    }
}
