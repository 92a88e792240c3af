//! ProbeRTT's refill is not a sample of the path.
//!
//! oBBR's drop detector (§4.2) reads `k` bandwidth samples in a row below
//! `0.75 x BtlBw` as a bandwidth drop and installs their mean. It counts
//! only samples of packets sent a min_rtt into ProbeBW, so ProbeRTT's four
//! packets do not count. But under random loss the window can stay small
//! for longer than that: a loss right after ProbeRTT enters recovery,
//! whose packet conservation sets the window to the data in flight,
//! ProbeRTT's few packets, and the window then grows only by what is
//! acknowledged. Measured on the league's `high-bdp-loss` condition (500
//! Mbit/s, 100 ms, 2 MB, 2% loss, seed 4): the ProbeRTT at 10.3 s left a
//! 0.06 MB window at 10.6 s; thirty samples of that window (0.7 ms of ACKs
//! at this rate) replaced the 500 Mbit/s estimate by 160 Mbit/s at 10.9 s;
//! the revert found delivery better than during ProbeRTT and kept it; and
//! the max filter took 5 s to climb back: 408 Mbit/s of goodput against
//! 457 and 459 on seeds 3 and 5.
//!
//! So from ProbeRTT until the data in flight is back at one BDP at the
//! estimate, bandwidth samples of the packets sent meanwhile do not reach
//! the detector: the window, not the path, set their rate. (The window
//! itself is no test: ProbeRTT's exit restores it to a full BDP, and the
//! loss collapses it one ACK later.) The RTT trigger is
//! untouched, and outside this refill every sample counts as in oBBR: a
//! first version that hid every sample of a window below one BDP also hid
//! loss recovery's windows on cellular paths, where the detector's quick
//! response is what keeps retransmissions low (the LTE trace at 0.5 BDP:
//! 3.3% -> 5.0% retransmitted, development seeds). Tempered BBR only;
//! oBBR keeps its paper's rule.

use crate::bbr::extension::{AckContext, BandwidthDropDetector};
use crate::bbr::Mode;
use crate::units::{Bandwidth, Instant};

/// Hides from `inner` the bandwidth samples of packets sent between
/// ProbeRTT and the return of one BDP in flight.
#[derive(Clone, Debug)]
pub struct RefillHidden {
    inner: Box<dyn BandwidthDropDetector>,
    /// Whether the pipe is still refilling after ProbeRTT.
    refilling: bool,
    /// The last ACK of the latest refill (or of ProbeRTT itself).
    refill_until: Option<Instant>,
    hidden: u64,
}

impl RefillHidden {
    /// Wraps a drop detector.
    pub fn new(inner: Box<dyn BandwidthDropDetector>) -> Self {
        RefillHidden {
            inner,
            refilling: false,
            refill_until: None,
            hidden: 0,
        }
    }

    /// The wrapped detector.
    pub fn inner(&self) -> &dyn BandwidthDropDetector {
        self.inner.as_ref()
    }

    /// Bandwidth samples hidden from the detector so far.
    pub fn hidden(&self) -> u64 {
        self.hidden
    }

    /// Whether the packet sent at `sent` left during a refill.
    fn sent_in_refill(&self, sent: Option<Instant>) -> bool {
        match (self.refill_until, sent) {
            (Some(until), Some(sent)) => sent <= until,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }
}

impl BandwidthDropDetector for RefillHidden {
    fn on_ack(&mut self, ctx: &AckContext, sample: Option<Bandwidth>) -> Option<Bandwidth> {
        if ctx.mode == Mode::ProbeRtt {
            self.refilling = true;
        } else if self.refilling && ctx.bdp.is_some_and(|bdp| ctx.event.prior_in_flight >= bdp) {
            self.refilling = false;
        }
        if self.refilling {
            self.refill_until = Some(ctx.event.now);
        }
        let sample = match sample {
            Some(_) if self.sent_in_refill(ctx.event.rate.newest_sent_time) => {
                self.hidden += 1;
                None
            }
            other => other,
        };
        self.inner.on_ack(ctx, sample)
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        self.inner.trace(out);
        out.push(("drop_detector_refill_hidden", self.hidden as f64));
    }
}
