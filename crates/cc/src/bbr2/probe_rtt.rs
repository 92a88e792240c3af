//! min_rtt and ProbeRTT (`bbr_update_min_rtt` in `tcp_bbr2.c`, draft
//! "ProbeRTT Logic").
//!
//! BBRv2 splits v1's single 10 s min filter in two: `min_rtt` still covers
//! 10 s and sizes the BDP, but ProbeRTT is scheduled by a second min over
//! 5 s (`probe_rtt_min`). When that one has not been lowered (or refreshed
//! by an idle period) for 5 s, ProbeRTT caps cwnd at half a BDP, instead of
//! v1's 4 packets, for 200 ms and a round trip, then resumes in CRUISE.

use std::time::Duration;

use crate::controller::AckEvent;
use crate::units::{Bytes, Instant};

use super::probe_bw::AckPhase;
use super::{Bbr2, Mode};

pub(super) use crate::bbr::probe_rtt::SelfAppLimited as AppLimitedMark;

/// The RTT filters and ProbeRTT's progress.
#[derive(Clone, Debug)]
pub(super) struct MinRttState {
    /// The min RTT over `min_rtt_window` (10 s): sizes the BDP.
    pub min_rtt: Option<Duration>,
    pub min_rtt_stamp: Instant,
    /// The min RTT over `probe_rtt_interval` (5 s): schedules ProbeRTT.
    pub probe_rtt_min: Option<Duration>,
    pub probe_rtt_min_stamp: Instant,
    /// When ProbeRTT may end (set once inflight is down).
    pub done: Option<Instant>,
    /// A full round passed at the reduced window.
    pub round_done: bool,
    pub mark: AppLimitedMark,
}

impl MinRttState {
    pub fn new(now: Instant) -> Self {
        MinRttState {
            min_rtt: None,
            min_rtt_stamp: now,
            probe_rtt_min: None,
            probe_rtt_min_stamp: now,
            done: None,
            round_done: false,
            mark: AppLimitedMark::default(),
        }
    }
}

impl Bbr2 {
    /// ProbeRTT's window: half a BDP, at least 4 packets.
    pub(super) fn probe_rtt_cwnd(&self) -> Bytes {
        self.bdp(self.bw(), self.params.probe_rtt_cwnd_gain)
            .max(self.min_cwnd())
    }

    /// Updates both RTT filters and runs ProbeRTT.
    pub(super) fn update_min_rtt(&mut self, event: &AckEvent, round_start: bool) {
        let now = event.now;
        let r = &mut self.rtt;
        let probe_rtt_expired = now > r.probe_rtt_min_stamp + self.params.probe_rtt_interval;
        if let Some(rtt) = event.rtt.latest {
            if r.probe_rtt_min.is_none_or(|m| rtt < m) || probe_rtt_expired {
                r.probe_rtt_min = Some(rtt);
                r.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now > r.min_rtt_stamp + self.params.min_rtt_window;
        if let Some(probe_min) = r.probe_rtt_min {
            if r.min_rtt.is_none_or(|m| probe_min <= m) || min_rtt_expired {
                r.min_rtt = Some(probe_min);
                r.min_rtt_stamp = r.probe_rtt_min_stamp;
            }
        }
        if probe_rtt_expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.rtt.done = None;
            self.probe.ack_phase = AckPhase::ProbeStopping;
            self.rounds.start_round_now(self.delivered);
        }
        if self.mode == Mode::ProbeRtt {
            let in_flight = event.bytes_in_flight;
            self.rtt.mark.mark(now, self.delivered + in_flight);
            match self.rtt.done {
                None if in_flight <= self.probe_rtt_cwnd() => {
                    // Hold for 200 ms and at least one round from now.
                    self.rtt.done = Some(now + self.params.probe_rtt_duration);
                    self.rtt.round_done = false;
                    self.rounds.start_round_now(self.delivered);
                }
                Some(_) => {
                    if round_start {
                        self.rtt.round_done = true;
                    }
                    if self.rtt.round_done {
                        self.check_probe_rtt_done(now);
                    }
                }
                None => {}
            }
        }
        if event.rate.delivered > Bytes::ZERO {
            self.idle_restart = false;
        }
    }

    /// Leaves ProbeRTT if its time is up.
    pub(super) fn check_probe_rtt_done(&mut self, now: Instant) {
        if self.rtt.done.is_none_or(|done| now <= done) {
            return;
        }
        // The next ProbeRTT is a full interval away.
        self.rtt.probe_rtt_min_stamp = now;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.exit_probe_rtt();
    }

    /// Back to ProbeBW (in CRUISE, since inflight is below the BDP, with a
    /// fresh probe clock) or to Startup; the short-term bounds start over.
    fn exit_probe_rtt(&mut self) {
        self.bounds.reset_lower_bounds();
        if self.full_pipe.is_reached() {
            self.start_probe_down();
            self.start_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }
}
