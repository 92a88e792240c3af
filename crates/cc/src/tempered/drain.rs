//! Drain with an end: the queue it waits for may not be its own.
//!
//! BBRv1 drains after Startup until inflight is at most one BDP at the
//! estimate (`bbr_check_drain`), however long that takes. Alone, it takes a
//! round or two. Beside a loss-based flow that has filled a deep buffer it
//! never ends by itself: pacing at 0.35 of the estimate at an RTT the
//! competitor holds at `(1 + R)` RTprop keeps `0.35 (1 + R)` BDPs in
//! flight, more than one BDP as soon as `R > 1.9`, while the max filter
//! forgets Startup's samples and the estimate follows the drained rate
//! down. Measured on the league's `vs-cubic` condition (40 ms, 8 and 16
//! BDP, development seeds): Drain lasted from 1 s to the first ProbeRTT at
//! 10.5 s and the estimate fell from 23 to 0.9 Mbit/s (BBR-CWS §3.2
//! describes the same shrinking of BBRv1 beside CUBIC, in ProbeBW).
//!
//! Here Drain also ends after `max_rounds` round trips: Startup's own queue
//! (at most `2.885 - 1` BDPs) is gone by then at the drain gain, so what
//! is left is someone else's queue, which draining cannot empty. ProbeBW's
//! 0.75 phase drains what Startup left if the bound came early.

use crate::bbr::extension::{DrainContext, DrainExit};

/// Drain ends as in Linux, or after `max_rounds` round trips (0: never).
#[derive(Clone, Copy, Debug)]
pub struct BoundedDrain {
    max_rounds: u64,
    /// The round count when Drain began; `None` outside Drain.
    entered: Option<u64>,
    /// How many Drains the bound ended.
    bounded: u64,
}

impl BoundedDrain {
    /// Drain lasts at most `max_rounds` round trips (0: Linux's Drain).
    pub fn new(max_rounds: u64) -> Self {
        BoundedDrain {
            max_rounds,
            entered: None,
            bounded: 0,
        }
    }

    /// How many Drains the round bound ended (rather than Linux's test).
    pub fn bounded(&self) -> u64 {
        self.bounded
    }
}

impl DrainExit for BoundedDrain {
    fn drain_done(&mut self, ctx: &DrainContext, default: bool) -> bool {
        let entered = *self.entered.get_or_insert(ctx.round_count);
        let over = self.max_rounds > 0 && ctx.round_count >= entered + self.max_rounds;
        if over && !default {
            self.bounded += 1;
        }
        if default || over {
            self.entered = None;
            return true;
        }
        false
    }

    fn trace(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("drains_bounded", self.bounded as f64));
    }
}
