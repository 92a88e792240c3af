//! Full-pipe detection: Startup ends when the bandwidth stops growing.

use crate::units::Bandwidth;

/// Growth below this factor per round counts as "flat".
const FULL_BW_THRESH: f64 = 1.25;
/// Flat rounds in a row that mean the pipe is full.
const FULL_BW_COUNT: u32 = 3;

/// Decides when Startup has filled the pipe: the max bandwidth grew less
/// than 25% for three consecutive non-app-limited rounds (`bbr_check_full_bw_reached`).
#[derive(Clone, Debug, Default)]
pub struct FullPipe {
    full_bw: Bandwidth,
    flat_rounds: u32,
    reached: bool,
}

impl FullPipe {
    /// Whether the pipe is full.
    pub fn is_reached(&self) -> bool {
        self.reached
    }

    /// Declares the pipe full (e.g. BBRv2 exits Startup on loss).
    pub fn set_reached(&mut self) {
        self.reached = true;
    }

    /// Forgets the plateau so far (after an RTO Linux restarts the search).
    pub fn reset_plateau(&mut self) {
        self.full_bw = Bandwidth::ZERO;
        self.flat_rounds = 0;
    }

    /// Called once per ACK; only round starts of non-app-limited samples count.
    pub fn on_round(&mut self, round_start: bool, app_limited: bool, max_bw: Bandwidth) {
        if self.reached || !round_start || app_limited {
            return;
        }
        if max_bw.as_bps_f64() >= self.full_bw.as_bps_f64() * FULL_BW_THRESH {
            self.full_bw = max_bw;
            self.flat_rounds = 0;
            return;
        }
        self.flat_rounds += 1;
        self.reached = self.flat_rounds >= FULL_BW_COUNT;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_flat_rounds_fill_the_pipe() {
        let mut fp = FullPipe::default();
        let bw = |m| Bandwidth::from_mbps(m);
        fp.on_round(true, false, bw(10));
        fp.on_round(true, false, bw(20));
        fp.on_round(true, false, bw(40));
        fp.on_round(true, false, bw(45)); // +12.5%: flat 1
        fp.on_round(true, false, bw(48)); // flat 2
        assert!(!fp.is_reached());
        fp.on_round(false, false, bw(48)); // not a round start: ignored
        fp.on_round(true, true, bw(48)); // app-limited: ignored
        assert!(!fp.is_reached());
        fp.on_round(true, false, bw(49)); // flat 3
        assert!(fp.is_reached());
    }

    #[test]
    fn growth_resets_the_flat_count() {
        let mut fp = FullPipe::default();
        let bw = |m| Bandwidth::from_mbps(m);
        fp.on_round(true, false, bw(10));
        fp.on_round(true, false, bw(10));
        fp.on_round(true, false, bw(10));
        fp.on_round(true, false, bw(13)); // +30%: growth
        fp.on_round(true, false, bw(13));
        fp.on_round(true, false, bw(13));
        assert!(!fp.is_reached());
        fp.on_round(true, false, bw(13));
        assert!(fp.is_reached());
    }
}
