//! dash.js v4's ABR controller: which rules vote for the next segment's
//! quality, and how the votes combine.
//!
//! - The throughput rule: the highest bitrate at or below the safe
//!   throughput estimate, reduced by the share of a segment's duration the
//!   request latency eats ((1 - latency / segment), quality 0 when the
//!   latency is a whole segment). It votes only while the buffer is loaded.
//! - BOLA ([`super::bola`]).
//! - The insufficient-buffer rule: after the first two segments, quality 0
//!   while stalled, else the bitrate the raw estimate times (buffer /
//!   segment) times 0.5 allows, so a thin buffer is not bet on a big segment.
//! - The switch-history rule ([`SwitchHistory`]): the last eight decisions
//!   are kept as (quality before, whether the decision dropped below it).
//!   Going up the qualities from the lowest, the drops and non-drops of
//!   the decisions made at each quality are summed; at the first quality
//!   where the sums cover at least six decisions and the drops exceed
//!   7.5% of the non-drops, the rule votes that quality, or the one below
//!   it when decisions at it dropped. One drop among eight decisions is
//!   enough (1/7 > 0.075): a quality the player fell from is barred for the
//!   next eight decisions, a rung below it when the fall was from it, so
//!   an estimate that hovers at a rung's threshold cannot switch up and
//!   down at every segment. An abandonment clears the history and counts
//!   as its one drop (dash.js's `SwitchHistoryRule`, on by default in
//!   v4.7.4, and `SwitchRequestHistory`).
//!
//! The strategy decides which of the first two is active: `throughput` and
//! `bola` one each; `dynamic` BOLA from the moment the buffer exceeds the
//! stable buffer time until it falls to half of it. dash.js moves that
//! switch on every buffer-level measurement, not at the decisions: the
//! scheduler decides when the buffer has drained to its target (the stable
//! buffer time, 12 s), so the level at a decision never exceeds it, but
//! each segment's arrival lifts the buffer a segment above it, and that
//! peak switches BOLA on ([`AbrController::on_buffer_level`], which the
//! player calls whenever the level changes course: before and after each
//! append, at each decision). Only the active one of the two runs: BOLA's
//! state begins at its first vote and advances only while it is active, as
//! dash.js's BOLA rule returns before touching its state while the
//! throughput rule decides. The lowest vote wins; with no vote the quality
//! stays. The first segment is fetched at the initial bitrate's quality,
//! without a decision when that quality is above 0 ([`super::player`]
//! says why): the switch-history rule's first vote comes at the sixth
//! decision after it, as in dash.js's records.

use std::time::Duration;

use cc::Instant;

use serde::{Deserialize, Serialize};

use super::bola::{Bola, BolaDecision};
use super::log::Votes;
use super::throughput::ThroughputHistory;
use super::{AbrStrategy, DashConfig};

/// dash.js `INSUFFICIENT_BUFFER_SAFETY_FACTOR`.
pub const INSUFFICIENT_BUFFER_SAFETY: f64 = 0.5;
/// Segments the insufficient-buffer rule lets pass before it votes.
pub const INSUFFICIENT_BUFFER_IGNORED_SEGMENTS: usize = 2;
/// Decisions the switch history keeps (dash.js `SWITCH_REQUEST_HISTORY_DEPTH`).
pub const SWITCH_HISTORY_DEPTH: usize = 8;
/// Decisions the switch-history rule needs before it votes (`SAMPLE_SIZE`).
pub const SWITCH_HISTORY_SAMPLES: u32 = 6;
/// Drops per non-drop above which it votes (`MAX_SWITCH`).
pub const SWITCH_HISTORY_MAX_DROPS: f64 = 0.075;

/// What the player knows when it decides.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    /// The decision's time.
    pub now: Instant,
    /// Seconds of media buffered.
    pub buffer_s: f64,
    /// Whether playback is stalled or not started (dash.js BUFFER_EMPTY).
    pub buffer_empty: bool,
    /// Segments downloaded so far.
    pub downloaded: usize,
    /// Media duration of the segment to fetch, s.
    pub segment_s: f64,
}

/// Which rule set the quality.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// No rule voted: the previous quality (or the initial bitrate's).
    Kept,
    /// The throughput rule.
    Throughput,
    /// BOLA.
    Bola,
    /// The insufficient-buffer rule.
    InsufficientBuffer,
    /// The switch-history rule ([`SwitchHistory`]).
    SwitchHistory,
    /// The abandonment rule ([`super::abandon`]): the segment again, at
    /// the quality the rule set.
    AbandonRequests,
}

/// The controller's decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// The quality index.
    pub quality: usize,
    /// How long to wait before the request (BOLA's delay).
    pub delay: Duration,
    /// The rule whose vote won.
    pub rule: Rule,
    /// Every rule's vote (the decision log's; none for a quality set
    /// outside the vote).
    pub votes: Votes,
}

/// The switch-history rule's memory of the last decisions (module essay).
#[derive(Clone, Debug, Default)]
pub struct SwitchHistory {
    /// The last decisions, oldest first: the quality each was made at and
    /// whether it dropped below it.
    recent: std::collections::VecDeque<(usize, bool)>,
    /// The qualities decisions were made at since the last reset (dash.js
    /// keeps a running total for each, zero or not, and the rule's scan
    /// stops at any of them).
    seen: Vec<bool>,
}

impl SwitchHistory {
    /// A decision at quality `old` chose `new`.
    pub fn push(&mut self, old: usize, new: usize) {
        if self.seen.len() <= old {
            self.seen.resize(old + 1, false);
        }
        self.seen[old] = true;
        self.recent.push_back((old, new < old));
        if self.recent.len() > SWITCH_HISTORY_DEPTH {
            self.recent.pop_front();
        }
    }

    /// How many decisions it holds (at most [`SWITCH_HISTORY_DEPTH`]).
    pub fn len(&self) -> usize {
        self.recent.len()
    }

    /// Whether it holds no decision.
    pub fn is_empty(&self) -> bool {
        self.recent.is_empty()
    }

    /// Forgets every decision (an abandonment does).
    pub fn reset(&mut self) {
        *self = SwitchHistory::default();
    }

    /// The rule's vote, if the decisions dropped too often.
    pub fn vote(&self) -> Option<usize> {
        let (mut drops, mut kept) = (0u32, 0u32);
        for quality in (0..self.seen.len()).filter(|&q| self.seen[q]) {
            let at = self.recent.iter().filter(|&&(q, _)| q == quality);
            let dropped = at.clone().filter(|&&(_, drop)| drop).count() as u32;
            drops += dropped;
            kept += at.count() as u32 - dropped;
            // With no non-drop the ratio is infinite, as in dash.js.
            if drops + kept >= SWITCH_HISTORY_SAMPLES
                && drops as f64 > SWITCH_HISTORY_MAX_DROPS * kept as f64
            {
                return Some(if quality > 0 && dropped > 0 {
                    quality - 1
                } else {
                    quality
                });
            }
        }
        None
    }
}

/// The ABR controller of one session.
#[derive(Clone, Debug)]
pub struct AbrController {
    config: DashConfig,
    bola: Bola,
    using_bola: bool,
    quality: usize,
    history: SwitchHistory,
}

impl AbrController {
    /// A controller starting at the initial bitrate's quality.
    pub fn new(config: &DashConfig) -> AbrController {
        let quality = quality_for_bitrate(config, config.initial_bitrate.as_bps_f64(), None);
        AbrController {
            bola: Bola::new(config),
            using_bola: config.abr == AbrStrategy::Bola,
            quality,
            history: SwitchHistory::default(),
            config: config.clone(),
        }
    }

    /// The BOLA rule (for its events and tests).
    pub fn bola_mut(&mut self) -> &mut Bola {
        &mut self.bola
    }

    /// The BOLA rule's state (for the decision log).
    pub fn bola(&self) -> &Bola {
        &self.bola
    }

    /// The switch-history rule's memory of the decisions.
    pub fn switch_history(&self) -> &SwitchHistory {
        &self.history
    }

    /// The quality of the last decision (or the one a rule set since).
    pub fn quality(&self) -> usize {
        self.quality
    }

    /// Sets the quality outside the vote: the abandonment state holding
    /// back an up-switch the vote chose.
    pub fn set_quality(&mut self, quality: usize) {
        self.quality = quality;
    }

    /// The abandonment rule set `quality`: the switch history begins again
    /// from this one drop, as dash.js's does.
    pub fn abandoned(&mut self, quality: usize) {
        self.history.reset();
        self.history.push(self.quality, quality);
        self.quality = quality;
    }

    /// Whether BOLA is the active rule now.
    pub fn using_bola(&self) -> bool {
        self.using_bola
    }

    /// The buffer holds `buffer_s` seconds of media now: the dynamic
    /// strategy's switch follows it (dash.js's buffer-level metric).
    pub fn on_buffer_level(&mut self, buffer_s: f64) {
        self.update_strategy(buffer_s);
    }

    /// Picks the next segment's quality.
    pub fn decide(&mut self, ctx: Context, history: &ThroughputHistory) -> Decision {
        self.update_strategy(ctx.buffer_s);
        let latency = history.average_latency();
        let safe_quality = history
            .safe_average()
            .map(|t| quality_for_bitrate(&self.config, t, latency));
        let mut votes: Vec<(usize, Duration, Rule)> = Vec::new();
        let mut log = Votes {
            throughput_allows: safe_quality,
            ..Votes::default()
        };
        if self.using_bola {
            if let Some(BolaDecision { quality, delay }) =
                self.bola.decide(ctx.now, ctx.buffer_s, safe_quality)
            {
                votes.push((quality, delay, Rule::Bola));
                log.bola = Some(quality);
            }
        } else if let Some(q) = safe_quality.filter(|_| !ctx.buffer_empty) {
            votes.push((q, Duration::ZERO, Rule::Throughput));
            log.throughput = Some(q);
        }
        if self.config.insufficient_buffer_rule
            && ctx.downloaded >= INSUFFICIENT_BUFFER_IGNORED_SEGMENTS
        {
            let q = if ctx.buffer_empty {
                Some(0)
            } else {
                history.average().map(|t| {
                    let allowed = t * (ctx.buffer_s / ctx.segment_s) * INSUFFICIENT_BUFFER_SAFETY;
                    quality_for_bitrate(&self.config, allowed, latency)
                })
            };
            if let Some(q) = q {
                votes.push((q, Duration::ZERO, Rule::InsufficientBuffer));
                log.insufficient_buffer = Some(q);
            }
        }
        if let Some(q) = self
            .history
            .vote()
            .filter(|_| self.config.switch_history_rule)
        {
            votes.push((q, Duration::ZERO, Rule::SwitchHistory));
            log.switch_history = Some(q);
        }
        // BOLA asks the scheduler for its delay itself, whichever vote wins.
        let delay = votes
            .iter()
            .find(|v| v.2 == Rule::Bola)
            .map_or(Duration::ZERO, |v| v.1);
        // The first of equal votes wins: BOLA's, when it is among them.
        let decision = match votes.iter().min_by_key(|v| v.0) {
            Some(&(quality, _, rule)) => Decision {
                quality,
                delay,
                rule,
                votes: log,
            },
            None => Decision {
                quality: self.quality,
                delay,
                rule: Rule::Kept,
                votes: log,
            },
        };
        self.history.push(self.quality, decision.quality);
        self.quality = decision.quality;
        decision
    }

    fn update_strategy(&mut self, buffer_s: f64) {
        if self.config.abr != AbrStrategy::Dynamic {
            return;
        }
        let on = self.config.stable_buffer.as_secs_f64();
        // Hysteresis: on above the stable buffer time, off at half of it.
        let threshold = if self.using_bola { on / 2.0 } else { on };
        self.using_bola = buffer_s > threshold;
    }
}

/// dash.js `getQualityForBitrate`: the highest quality whose bitrate fits
/// `bitrate_bps` after the latency's share of a segment is taken off.
pub fn quality_for_bitrate(config: &DashConfig, bitrate_bps: f64, latency_s: Option<f64>) -> usize {
    let mut usable = bitrate_bps;
    if let Some(latency) = latency_s.filter(|l| *l > 0.0) {
        let segment = config.segment.as_secs_f64();
        if latency >= segment {
            return 0;
        }
        usable *= 1.0 - latency / segment;
    }
    config
        .ladder
        .iter()
        .rposition(|b| usable >= b.as_bps_f64())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::super::bola::{BolaPhase, LoadedSegment};
    use super::*;

    fn ctx(buffer_s: f64, downloaded: usize) -> Context {
        Context {
            now: Instant::ZERO + Duration::from_secs(downloaded as u64 * 4),
            buffer_s,
            buffer_empty: buffer_s <= 0.0,
            downloaded,
            segment_s: 4.0,
        }
    }

    /// A history whose segments all came at `mbps`, 50 ms latency.
    fn history(mbps: f64, segments: usize) -> ThroughputHistory {
        let mut h = ThroughputHistory::default();
        for _ in 0..segments {
            h.push(
                (mbps * 125_000.0) as u64,
                Duration::from_millis(50),
                Duration::from_secs(1),
            );
        }
        h
    }

    fn config(abr: AbrStrategy) -> DashConfig {
        DashConfig {
            abr,
            ..DashConfig::obbr_paper()
        }
    }

    #[test]
    fn quality_for_bitrate_takes_the_latency_share_off() {
        let c = DashConfig::obbr_paper();
        assert_eq!(
            quality_for_bitrate(&c, 5.0e6, None),
            7,
            "4952 kbit fits 5 Mbit/s"
        );
        // 400 ms of a 4 s segment: 10% off leaves 4.5 Mbit/s.
        assert_eq!(quality_for_bitrate(&c, 5.0e6, Some(0.4)), 6);
        assert_eq!(quality_for_bitrate(&c, 100e6, Some(4.0)), 0);
        assert_eq!(quality_for_bitrate(&c, 1.0, None), 0);
        assert_eq!(quality_for_bitrate(&c, 1e12, None), 9);
    }

    #[test]
    fn the_first_segment_uses_the_initial_bitrate() {
        let mut abr = AbrController::new(&config(AbrStrategy::Dynamic));
        let d = abr.decide(ctx(0.0, 0), &ThroughputHistory::default());
        assert_eq!(d.quality, 2, "759 kbit is the highest under 1000 kbit");
        assert_eq!(d.rule, Rule::Kept);
    }

    #[test]
    fn the_throughput_rule_keeps_a_safety_margin() {
        let mut abr = AbrController::new(&config(AbrStrategy::Throughput));
        // 11 Mbit/s: safe 9.9 Mbit/s, less 50 ms of 4 s: 9.78, below 9914 kbit.
        let d = abr.decide(ctx(8.0, 1), &history(11.0, 1));
        assert_eq!((d.quality, d.rule), (7, Rule::Throughput));
        let d = abr.decide(ctx(8.0, 1), &history(12.0, 1));
        assert_eq!(d.quality, 8);
    }

    #[test]
    fn the_insufficient_buffer_rule_caps_a_thin_buffer_and_a_stall() {
        let mut abr = AbrController::new(&config(AbrStrategy::Throughput));
        // 20 Mbit/s, but 2 s of buffer for 4 s segments: 20 x 0.5 x 0.5 = 5.
        let d = abr.decide(ctx(2.0, 5), &history(20.0, 5));
        assert_eq!((d.quality, d.rule), (6, Rule::InsufficientBuffer));
        let d = abr.decide(ctx(0.0, 5), &history(20.0, 5));
        assert_eq!((d.quality, d.rule), (0, Rule::InsufficientBuffer));
        // Ignored for the first two segments.
        let d = abr.decide(ctx(2.0, 1), &history(20.0, 1));
        assert_eq!(d.rule, Rule::Throughput);
    }

    #[test]
    fn a_drop_bars_the_quality_it_fell_from_for_eight_decisions() {
        let mut h = SwitchHistory::default();
        for _ in 0..7 {
            h.push(8, 8);
        }
        assert_eq!(h.vote(), None, "no drop");
        // Up to 9, then down again: 9 is barred, a rung below it stays open.
        h.push(8, 9);
        h.push(9, 7);
        assert_eq!(h.vote(), Some(8));
        // Seven more decisions keep the drop in the last eight; the eighth
        // pushes it out.
        for _ in 0..7 {
            h.push(7, 7);
            assert_eq!(h.vote(), Some(8));
        }
        h.push(7, 7);
        assert_eq!(h.vote(), None);
        // A drop from where the player sat bars that quality too (the rung
        // below is the vote), once six decisions are in.
        let mut h = SwitchHistory::default();
        for _ in 0..4 {
            h.push(8, 8);
        }
        h.push(8, 7);
        assert_eq!(h.vote(), None, "five decisions");
        h.push(7, 7);
        assert_eq!(h.vote(), Some(7));
        h.reset();
        assert_eq!(h.vote(), None);
    }

    #[test]
    fn the_switch_history_votes_as_in_dash_js_record_of_the_drop() {
        // dash.js's decisions after its undecided first segment on the
        // bandwidth drop (20 Mbit/s, 40 ms): 2 to 8, 8 kept, 8 to 9, 9 to 7,
        // then 7 to 9 with no vote of this rule (five decisions), 9 to 7,
        // and at the seventh decision its vote 8 with 2 drops and 4
        // non-drops, as its record gives the reason.
        let mut h = SwitchHistory::default();
        for (old, new) in [(2, 8), (8, 8), (8, 9), (9, 7)] {
            h.push(old, new);
        }
        assert_eq!(h.vote(), None);
        h.push(7, 9);
        assert_eq!(h.vote(), None, "five decisions: 9 allowed again");
        h.push(9, 7);
        assert_eq!(h.vote(), Some(8));
    }

    #[test]
    fn the_switch_history_caps_the_up_switch_after_a_fall() {
        // The throughput rule allows 9 at 20 Mbit/s; after a fall from 9
        // the switch-history rule holds 8 instead.
        let mut abr = AbrController::new(&DashConfig {
            insufficient_buffer_rule: false,
            ..config(AbrStrategy::Throughput)
        });
        let fast = history(20.0, 4);
        for n in 0..6 {
            assert_eq!(abr.decide(ctx(11.0, n), &fast).quality, 9);
        }
        let d = abr.decide(ctx(11.0, 6), &history(11.0, 4));
        assert_eq!((d.quality, d.rule), (7, Rule::Throughput));
        let d = abr.decide(ctx(11.0, 7), &fast);
        assert_eq!((d.quality, d.rule), (8, Rule::SwitchHistory));
        assert_eq!(
            (d.votes.throughput, d.votes.switch_history),
            (Some(9), Some(8))
        );
        // An abandonment starts the history again from its one drop.
        abr.abandoned(3);
        assert_eq!(abr.decide(ctx(11.0, 8), &fast).quality, 9);
    }

    #[test]
    fn dynamic_switches_to_bola_above_the_stable_buffer_and_back_at_half() {
        let mut abr = AbrController::new(&config(AbrStrategy::Dynamic));
        let h = history(50.0, 3);
        abr.decide(ctx(4.0, 1), &h);
        assert!(!abr.using_bola());
        abr.decide(ctx(12.0, 2), &h);
        assert!(!abr.using_bola(), "on only above 12 s");
        let d = abr.decide(ctx(12.5, 3), &h);
        assert!(abr.using_bola());
        assert_eq!(d.rule, Rule::Bola);
        abr.decide(ctx(6.5, 4), &h);
        assert!(abr.using_bola(), "off only at 6 s or below");
        abr.decide(ctx(6.0, 5), &h);
        assert!(!abr.using_bola());
    }

    #[test]
    fn dynamic_follows_the_buffer_between_decisions() {
        // The scheduler decides at the 12 s target, so a decision never
        // sees more; each arrival lifts the buffer a segment above it, and
        // that switches BOLA on, as dash.js's buffer-level metric does.
        let mut abr = AbrController::new(&config(AbrStrategy::Dynamic));
        let h = history(8.0, 3);
        let d = abr.decide(ctx(12.0, 2), &h);
        assert_eq!(d.rule, Rule::Throughput);
        abr.on_buffer_level(11.0); // drained while the segment loaded
        abr.on_buffer_level(15.0); // the segment appended
        let d = abr.decide(ctx(12.0, 3), &h);
        assert_eq!(d.rule, Rule::Bola, "on since the peak");
        abr.on_buffer_level(6.5);
        abr.on_buffer_level(10.5);
        assert!(abr.using_bola(), "the low point stayed above 6 s");
        abr.on_buffer_level(5.9);
        abr.on_buffer_level(9.9);
        let d = abr.decide(ctx(9.9, 4), &h);
        assert_eq!(d.rule, Rule::Throughput, "off since the low point");
    }

    #[test]
    fn bola_is_idle_while_the_throughput_rule_decides() {
        // Its state begins at its first vote: in Startup then, whatever
        // the throughput rule did before.
        let mut abr = AbrController::new(&config(AbrStrategy::Dynamic));
        let h = history(8.0, 3);
        for n in 0..5 {
            abr.decide(ctx(11.0, n), &h);
        }
        assert_eq!(abr.bola_mut().phase(), BolaPhase::Startup);
        abr.on_buffer_level(15.0);
        let d = abr.decide(ctx(15.0, 5), &h);
        assert_eq!(d.rule, Rule::Bola);
        assert_eq!(abr.bola_mut().phase(), BolaPhase::Startup, "its first vote");
        assert_eq!(
            d.quality,
            quality_for_bitrate(&abr.config, 7.2e6, Some(0.05))
        );
    }

    #[test]
    fn bola_alone_votes_from_the_buffer() {
        let mut abr = AbrController::new(&DashConfig {
            insufficient_buffer_rule: false,
            ..config(AbrStrategy::Bola)
        });
        let h = history(50.0, 3);
        let d = abr.decide(ctx(4.0, 1), &h);
        assert_eq!(
            (d.quality, d.rule),
            (9, Rule::Bola),
            "startup: throughput's choice"
        );
        abr.bola_mut().on_downloaded(LoadedSegment {
            requested: Instant::ZERO + Duration::from_secs(4),
            finished: Instant::ZERO + Duration::from_secs(8),
            level_s: 4.0,
            quality: 9,
            duration_s: 4.0,
            replacement: false,
        });
        abr.decide(ctx(4.0, 2), &h);
        assert_eq!(abr.bola_mut().phase(), BolaPhase::Steady);
        abr.bola_mut().on_stall();
        let d = abr.decide(ctx(0.5, 3), &h);
        assert_eq!(d.quality, 0, "steady with an empty buffer: lowest");
    }
}
