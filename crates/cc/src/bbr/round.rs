//! Round-trip counting by delivered data (Linux `next_rtt_delivered`).

use crate::rate::RateSample;
use crate::units::Bytes;

/// Counts packet-timed round trips: a round ends when a packet sent after
/// the previous round ended is acknowledged. Counting by delivered bytes,
/// not by the clock, keeps rounds correct when the RTT swings.
#[derive(Clone, Debug, Default)]
pub struct RoundCounter {
    next_round_delivered: Bytes,
    count: u64,
    round_start: bool,
}

impl RoundCounter {
    /// Advances on an ACK; returns whether a new round started.
    pub fn on_ack(&mut self, sample: &RateSample) -> bool {
        self.round_start = false;
        if let Some(prior) = sample.prior_delivered {
            if prior >= self.next_round_delivered {
                self.next_round_delivered = sample.total_delivered;
                self.count += 1;
                self.round_start = true;
            }
        }
        self.round_start
    }

    /// An ACK that does not count for rounds (Linux skips invalid rate samples).
    pub fn skip_ack(&mut self) -> bool {
        self.round_start = false;
        false
    }

    /// Ends the current round now (Linux does this on entering recovery and
    /// in ProbeRTT, so "one round" is measured from that moment).
    pub fn start_round_now(&mut self, total_delivered: Bytes) {
        self.next_round_delivered = total_delivered;
    }

    /// Marks this ACK as a round start without advancing the count (an RTO
    /// is treated like the end of a round).
    pub fn force_round_start(&mut self) {
        self.round_start = true;
    }

    /// Whether the last ACK started a new round.
    pub fn is_round_start(&self) -> bool {
        self.round_start
    }

    /// Rounds completed so far.
    pub fn count(&self) -> u64 {
        self.count
    }
}
