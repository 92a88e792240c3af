//! Whose queue is it: a standing queue that draining did not empty.
//!
//! A rising RTT means a queue; BBR cannot tell from the RTT alone whether
//! the queue is its own (a capacity dip on a cellular link: its data waits
//! behind a slower link) or a competitor's (a loss-based flow filling a
//! deep buffer: BBR-CWS §3.2, Modest BBR §3). The deep-buffer gain that
//! answers every high-RTT loss as a competitor's (`deep.rs` alone) tripled
//! the retransmissions on the LTE trace, whose dips look the same.
//!
//! The difference shows at the moments BBR has emptied its own queue: the
//! end of ProbeRTT (four packets in flight for at least 200 ms and a
//! round), and the end of a Drain that its round bound ended
//! ([`BoundedDrain`](super::BoundedDrain): inflight still above one BDP
//! after rounds at the drain gain; a Drain that ended by Linux's test is
//! not a measurement, since the RTT samples of its last rounds still carry
//! Startup's own queue: on the LTE trace at 4 BDP they read 3 times the
//! lowest RTT, and the gain then held for 15 s tripled nothing but the
//! retransmissions, 0.05 % to 4-12 %). Alone, the lowest RTT of those last rounds is the
//! path's, close to the connection's lowest RTT ever (RFC 9002's
//! `min_rtt`, which never expires). Beside a flow that holds a queue, it
//! stays at the competitor's queue: the windowed RTprop itself is inflated
//! after the first ProbeRTT (measured beside CUBIC at 40 ms x 8 BDP: 306
//! ms against a 40 ms path). So at each of those moments this test
//! compares the lowest RTT of the current and the previous round with the
//! connection's lowest: at `(1 + threshold)` times or more, the queue is
//! not ours and a competitor holds it; below, no one does. The verdict
//! holds until the next such moment.
//!
//! Two parts of Tempered BBR act on the verdict: the deep-buffer gain
//! (`deep.rs`) and oBBR's drop detector, which [`PausedBesideCompetitor`]
//! pauses: its high-RTT trigger (RTT above `(g_max + 0.5)` RTprop, `k` in
//! a row) reads the competitor's queue as a bandwidth drop and installs a
//! lower estimate (measured beside CUBIC at 40 ms x 16 BDP: 23 updates in
//! 50 s, 12 of them reverted).

use std::time::Duration;

use crate::bbr::extension::{AckContext, BandwidthDropDetector};
use crate::bbr::Mode;
use crate::units::Bandwidth;

/// The standing-queue test: measured when Drain or ProbeRTT hands over to
/// ProbeBW.
#[derive(Clone, Copy, Debug)]
pub struct StandingQueue {
    threshold: f64,
    drain_rounds: u64,
    drain_entered: Option<u64>,
    round_min: Option<Duration>,
    previous_round_min: Option<Duration>,
    previous_mode: Option<Mode>,
    verdict: bool,
    /// The last measured ratio of the drained RTT to the lowest ever.
    ratio: f64,
    measurements: u64,
}

impl StandingQueue {
    /// A test that sees a competitor's queue when the drained RTT is at
    /// least `1 + threshold` times the connection's lowest RTT; a Drain
    /// counts when it lasted `drain_rounds` round trips, the bound of a
    /// [`BoundedDrain`](super::BoundedDrain) (0: Drain never counts).
    pub fn new(threshold: f64, drain_rounds: u64) -> Self {
        StandingQueue {
            threshold,
            drain_rounds,
            drain_entered: None,
            round_min: None,
            previous_round_min: None,
            previous_mode: None,
            verdict: false,
            ratio: 0.0,
            measurements: 0,
        }
    }

    /// Whether the last measurement found a queue that draining did not
    /// empty.
    pub fn competitor(&self) -> bool {
        self.verdict
    }

    /// The last measured ratio (0 before any).
    pub fn ratio(&self) -> f64 {
        self.ratio
    }

    /// Observes an ACK (after the core's model update, so `ctx.mode` is the
    /// mode this ACK left the core in).
    pub fn on_ack(&mut self, ctx: &AckContext) {
        let event = ctx.event;
        if ctx.round_start {
            self.previous_round_min = self.round_min;
            self.round_min = None;
        }
        if let Some(rtt) = event.rtt.latest {
            self.round_min = Some(self.round_min.map_or(rtt, |m| m.min(rtt)));
        }
        if ctx.mode == Mode::Drain && self.previous_mode != Some(Mode::Drain) {
            self.drain_entered = Some(ctx.round_count);
        }
        // Drain counts only when its round bound ended it: when inflight
        // fell to a BDP sooner, the RTT samples of its last rounds still
        // carry Startup's own queue.
        let drain_bounded = self.drain_rounds > 0
            && self
                .drain_entered
                .is_some_and(|entered| ctx.round_count >= entered + self.drain_rounds);
        let drained = ctx.mode == Mode::ProbeBw
            && match self.previous_mode {
                Some(Mode::ProbeRtt) => true,
                Some(Mode::Drain) => drain_bounded,
                _ => false,
            };
        self.previous_mode = Some(ctx.mode);
        if !drained {
            return;
        }
        let lowest = match (self.round_min, self.previous_round_min) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => return,
        };
        let base = event.rtt.min;
        if base.is_zero() {
            return;
        }
        self.ratio = lowest.as_secs_f64() / base.as_secs_f64();
        self.verdict = self.ratio >= 1.0 + self.threshold;
        self.measurements += 1;
    }

    /// Fields for tracing.
    pub fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("standing_queue", if self.verdict { 1.0 } else { 0.0 }));
        out.push(("standing_ratio", self.ratio));
        out.push(("standing_measurements", self.measurements as f64));
    }
}

/// A bandwidth-drop detector that rests while a [`StandingQueue`] test says
/// a competitor holds the queue: the rising RTT is then the competitor's,
/// not a drop of the path's bandwidth.
#[derive(Clone, Debug)]
pub struct PausedBesideCompetitor<D> {
    inner: D,
    test: StandingQueue,
    paused: u64,
}

impl<D> PausedBesideCompetitor<D> {
    /// Pauses `inner` while `test` sees a competitor's standing queue.
    pub fn new(inner: D, test: StandingQueue) -> Self {
        PausedBesideCompetitor {
            inner,
            test,
            paused: 0,
        }
    }

    /// The wrapped detector.
    pub fn inner(&self) -> &D {
        &self.inner
    }

    /// ACKs the detector did not see (a competitor held the queue).
    pub fn paused(&self) -> u64 {
        self.paused
    }
}

impl<D: BandwidthDropDetector + Clone + 'static> BandwidthDropDetector
    for PausedBesideCompetitor<D>
{
    fn on_ack(&mut self, ctx: &AckContext, sample: Option<Bandwidth>) -> Option<Bandwidth> {
        self.test.on_ack(ctx);
        if self.test.competitor() {
            self.paused += 1;
            return None;
        }
        self.inner.on_ack(ctx, sample)
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        self.inner.trace(out);
        out.push(("drop_detector_paused", self.paused as f64));
    }
}
