//! ProbeRTT's self-imposed app-limited mark.

use crate::units::{Bytes, Instant};

/// While in ProbeRTT, BBR sends at most 4 packets, so the delivery rates of
/// packets sent then describe BBR's own restraint, not the path. Linux marks
/// them app-limited through the transport (`tp->app_limited`); this keeps
/// the same mark inside the controller: packets sent from the first mark
/// until everything in flight at the last mark has been delivered.
#[derive(Clone, Debug, Default)]
pub struct SelfAppLimited {
    start: Option<Instant>,
    end: Option<Instant>,
    until_delivered: Bytes,
}

impl SelfAppLimited {
    fn is_active(&self) -> bool {
        self.start.is_some() && self.end.is_none()
    }

    /// Marks everything currently in flight (up to `until_delivered`).
    pub fn mark(&mut self, now: Instant, until_delivered: Bytes) {
        if !self.is_active() {
            self.start = Some(now);
            self.end = None;
        }
        self.until_delivered = until_delivered.max(Bytes(1));
    }

    /// Clears the mark once the marked data has been delivered.
    pub fn on_ack(&mut self, now: Instant, total_delivered: Bytes) {
        if self.is_active() && total_delivered > self.until_delivered {
            self.end = Some(now);
        }
    }

    /// Whether a packet sent at `sent_time` was sent under the mark.
    pub fn covers(&self, sent_time: Option<Instant>) -> bool {
        match (self.start, sent_time) {
            (Some(start), Some(t)) => t >= start && self.end.is_none_or(|end| t < end),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mark_covers_packets_sent_until_the_bubble_is_delivered() {
        let t = Instant::from_nanos;
        let mut m = SelfAppLimited::default();
        assert!(!m.covers(Some(t(5))));
        m.mark(t(10), Bytes(5_000));
        m.on_ack(t(20), Bytes(4_000));
        assert!(m.covers(Some(t(15))));
        assert!(!m.covers(Some(t(9))));
        m.on_ack(t(30), Bytes(5_001));
        assert!(m.covers(Some(t(25))));
        assert!(!m.covers(Some(t(30))), "sent after the mark cleared");
    }
}
