//! Startup and Drain: the two ways out of Startup and the drain to one BDP.
//!
//! Startup ends when the bandwidth plateaus (v1's [`FullPipe`] rule, fed
//! max_bw in v2 and the round's rate sample in v3), or on loss: at the end
//! of a round spent in recovery, with at least `full_loss_cnt` ACKs that
//! revealed losses in it (8 in v2alpha, 6 in v3) and the round's sample
//! losing more than `loss_thresh` of its inflight
//! (`bbr2_check_loss_too_high_in_startup`). A loss exit also sets
//! inflight_hi (see [`StartupLossHi`]), so the first ProbeBW cycles start
//! from the inflight that overflowed the buffer.
//!
//! [`FullPipe`]: crate::bbr::full_pipe::FullPipe

use crate::controller::AckEvent;
use crate::units::Bytes;

use super::bounds::is_inflight_too_high;
use super::{AckInfo, Bbr2, Mode, PlateauSignal, StartupLossHi};

/// The largest loss-event count kept (Linux's 4-bit saturating counter).
const MAX_LOSS_EVENTS: u32 = 15;

/// Startup's loss-exit counter and Drain's start.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct StartupState {
    /// ACKs with newly detected losses in the current loss round.
    pub loss_events_in_round: u32,
    /// The round count when Drain began.
    pub drain_start_round: u64,
}

impl Bbr2 {
    /// The loss exit from Startup.
    pub(super) fn check_startup_high_loss(&mut self, event: &AckEvent, info: &AckInfo) {
        if self.full_pipe.is_reached() {
            return;
        }
        if event.newly_lost > Bytes::ZERO {
            self.startup.loss_events_in_round =
                (self.startup.loss_events_in_round + 1).min(MAX_LOSS_EVENTS);
        }
        let count = self.params.full_loss_cnt;
        if count > 0
            && info.loss_round_start
            && event.in_recovery
            && self.startup.loss_events_in_round >= count
            && is_inflight_too_high(
                event.rate.lost,
                event.rate.tx_in_flight,
                self.params.loss_thresh,
            )
        {
            self.handle_queue_too_high_in_startup();
            return;
        }
        if info.loss_round_start {
            self.startup.loss_events_in_round = 0;
        }
    }

    /// Declares the pipe full and remembers a safe inflight as inflight_hi.
    pub(super) fn handle_queue_too_high_in_startup(&mut self) {
        self.full_pipe.set_reached();
        let bdp = self.inflight(self.max_bw.get(), 1.0);
        let hi = match self.params.startup_loss_hi {
            StartupLossHi::Cwnd => self.cwnd,
            StartupLossHi::Bdp => bdp,
            StartupLossHi::MaxBdpLatest => bdp.max(self.bounds.inflight_latest),
        };
        self.bounds.inflight_hi = Some(hi.max(self.min_cwnd()));
    }

    /// The plateau exit from Startup (and nothing once the pipe is full).
    pub(super) fn check_full_bw(&mut self, info: &AckInfo) {
        let signal = match self.params.startup_plateau {
            PlateauSignal::MaxBw => Some(self.max_bw.get()),
            PlateauSignal::Sample => info.sample_bw,
        };
        if let Some(bw) = signal {
            self.full_pipe
                .on_round(info.round_start, info.app_limited, bw);
        }
    }

    /// Startup -> Drain once the pipe is full; Drain -> ProbeBW_DOWN once
    /// inflight is down to one BDP (or, in v3, after 3 rounds).
    pub(super) fn check_drain(&mut self, event: &AckEvent) {
        if self.mode == Mode::Startup && self.full_pipe.is_reached() {
            self.mode = Mode::Drain;
            self.startup.drain_start_round = self.rounds.count();
            self.bounds.reset_congestion_signals();
        }
        if self.mode != Mode::Drain {
            return;
        }
        let drained =
            self.inflight_at_edt(event.bytes_in_flight) <= self.inflight(self.max_bw.get(), 1.0);
        let too_long = self
            .params
            .drain_max_rounds
            .is_some_and(|r| self.rounds.count() > self.startup.drain_start_round + r);
        if drained || too_long {
            self.start_probe_down();
        }
    }
}
