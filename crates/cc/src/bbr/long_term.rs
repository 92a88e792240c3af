//! Long-term bandwidth ("lt_bw"): policer detection (`bbr_lt_bw_sampling`).
//!
//! A token-bucket policer lets a burst through, then drops everything above
//! its rate. BBR's max filter would keep believing the burst rate and lose
//! heavily. So after a loss BBR measures the delivery rate over intervals of
//! 4..16 rounds; when two consecutive intervals both see >= 20% loss and
//! agree on the rate (within 1/8, or 4 kbit/s), BBR assumes a policer and
//! paces at their mean with gain 1 for 48 rounds.

use crate::units::{Bandwidth, Bytes, Instant};

const MIN_INTERVAL_ROUNDS: u32 = 4;
const MAX_INTERVAL_ROUNDS: u32 = 4 * MIN_INTERVAL_ROUNDS;
/// Loss rate that suggests policing: 50/256 (about 20%).
const LOSS_THRESH: f64 = 50.0 / 256.0;
/// Two intervals agree when within 1/8 of each other...
const RATIO_THRESH: f64 = 1.0 / 8.0;
/// ...or within 4 kbit/s (Linux's 4000/8 bytes per second).
const DIFF_THRESH: Bandwidth = Bandwidth::from_bits_per_sec(4_000);
/// Rounds to use the policed rate before re-probing.
const MAX_USE_ROUNDS: u32 = 48;

/// What the long-term sampler asks of the core after an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LongTermVerdict {
    /// Nothing changes.
    None,
    /// A policer was detected: pace at the long-term rate with gain 1.
    StartUsing,
    /// The long-term rate has been used for 48 rounds: re-enter ProbeBW.
    StopUsing,
}

/// The long-term (policed) bandwidth sampler.
#[derive(Clone, Debug, Default)]
pub struct LongTermBandwidth {
    is_sampling: bool,
    in_use: bool,
    bw: Option<Bandwidth>,
    rounds: u32,
    start_time: Instant,
    start_delivered: Bytes,
    start_lost: Bytes,
}

/// The per-ACK inputs of the sampler.
#[derive(Clone, Copy, Debug)]
pub struct LongTermInput {
    /// ACK time (the connection's latest delivery time).
    pub now: Instant,
    /// Whether the ACK started a round.
    pub round_start: bool,
    /// Whether the ACK revealed losses.
    pub has_losses: bool,
    /// Whether the sample is app-limited.
    pub app_limited: bool,
    /// Whether the core is in ProbeBW.
    pub in_probe_bw: bool,
    /// Connection totals.
    pub total_delivered: Bytes,
    /// Connection totals.
    pub total_lost: Bytes,
}

impl LongTermBandwidth {
    /// The policed rate, while it is in use.
    pub fn bandwidth_in_use(&self) -> Option<Bandwidth> {
        if self.in_use {
            self.bw
        } else {
            None
        }
    }

    fn reset(&mut self, input: &LongTermInput) {
        self.bw = None;
        self.in_use = false;
        self.is_sampling = false;
        self.reset_interval(input);
    }

    fn reset_interval(&mut self, input: &LongTermInput) {
        self.start_time = input.now;
        self.start_delivered = input.total_delivered;
        self.start_lost = input.total_lost;
        self.rounds = 0;
    }

    /// Folds one ACK in.
    pub fn on_ack(&mut self, input: &LongTermInput) -> LongTermVerdict {
        if self.in_use {
            if input.in_probe_bw && input.round_start {
                self.rounds += 1;
                if self.rounds >= MAX_USE_ROUNDS {
                    self.reset(input);
                    return LongTermVerdict::StopUsing;
                }
            }
            return LongTermVerdict::None;
        }
        // Start at the first loss: by then the policer's tokens are spent.
        if !self.is_sampling {
            if !input.has_losses {
                return LongTermVerdict::None;
            }
            self.reset_interval(input);
            self.is_sampling = true;
        }
        if input.app_limited {
            self.reset(input);
            return LongTermVerdict::None;
        }
        if input.round_start {
            self.rounds += 1;
        }
        if self.rounds < MIN_INTERVAL_ROUNDS {
            return LongTermVerdict::None;
        }
        if self.rounds > MAX_INTERVAL_ROUNDS {
            self.reset(input);
            return LongTermVerdict::None;
        }
        // End the interval on a loss: the tokens are exhausted.
        if !input.has_losses {
            return LongTermVerdict::None;
        }
        let lost = input.total_lost - self.start_lost;
        let delivered = input.total_delivered - self.start_delivered;
        if delivered == Bytes::ZERO || lost.as_f64() < LOSS_THRESH * delivered.as_f64() {
            return LongTermVerdict::None;
        }
        let elapsed = input.now - self.start_time;
        if elapsed < std::time::Duration::from_millis(1) {
            return LongTermVerdict::None;
        }
        let Some(bw) = delivered.per(elapsed) else {
            return LongTermVerdict::None;
        };
        self.interval_done(bw, input)
    }

    fn interval_done(&mut self, bw: Bandwidth, input: &LongTermInput) -> LongTermVerdict {
        if let Some(prev) = self.bw {
            let diff = if bw > prev { bw - prev } else { prev - bw };
            if diff.as_bps_f64() <= RATIO_THRESH * prev.as_bps_f64() || diff <= DIFF_THRESH {
                self.bw = Some(Bandwidth::from_bits_per_sec(
                    (bw.bits_per_sec() + prev.bits_per_sec()) / 2,
                ));
                self.in_use = true;
                self.rounds = 0;
                return LongTermVerdict::StartUsing;
            }
        }
        self.bw = Some(bw);
        self.reset_interval(input);
        LongTermVerdict::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_lossy_intervals_at_the_same_rate_detect_a_policer() {
        let mut lt = LongTermBandwidth::default();
        let mut delivered = Bytes::ZERO;
        let mut lost = Bytes::ZERO;
        let mut verdict = LongTermVerdict::None;
        // 1 Mbit/s delivered (125 B/ms) with 25% loss; one round per 10 ms.
        for ms in 0..200u64 {
            delivered += Bytes(125);
            lost += Bytes(40);
            let input = LongTermInput {
                now: Instant::from_nanos(ms * 1_000_000),
                round_start: ms % 10 == 0,
                has_losses: true,
                app_limited: false,
                in_probe_bw: true,
                total_delivered: delivered,
                total_lost: lost,
            };
            verdict = lt.on_ack(&input);
            if verdict == LongTermVerdict::StartUsing {
                break;
            }
        }
        assert_eq!(verdict, LongTermVerdict::StartUsing);
        let bw = lt.bandwidth_in_use().unwrap();
        assert!((bw.as_mbps_f64() - 1.0).abs() < 0.05, "{bw}");
    }

    #[test]
    fn low_loss_never_triggers() {
        let mut lt = LongTermBandwidth::default();
        for ms in 0..2_000u64 {
            let input = LongTermInput {
                now: Instant::from_nanos(ms * 1_000_000),
                round_start: ms % 10 == 0,
                has_losses: ms % 7 == 0,
                app_limited: false,
                in_probe_bw: true,
                total_delivered: Bytes(125 * ms),
                total_lost: Bytes(2 * ms),
            };
            assert_eq!(lt.on_ack(&input), LongTermVerdict::None);
        }
    }
}
