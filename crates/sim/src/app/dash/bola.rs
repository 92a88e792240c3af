//! BOLA (Spiteri et al., "BOLA: Near-optimal bitrate adaptation for online
//! videos", and "From Theory to Practice", the dash.js version the oBBR
//! paper cites as \[46\]): pick the quality that maximises
//!
//! ```text
//!     score_i = (Vp * (u_i + gp) - Q) / b_i
//! ```
//!
//! where Q is the buffer level in seconds, b_i the bitrate and u_i = ln(b_i
//! / b_0) + 1 its utility. Vp and gp are set so the lowest quality is the
//! best choice at a 10 s buffer and the highest at the BOLA buffer target
//! max(stable buffer, 10 s + 2 s per quality level). A score below zero for
//! every quality means "wait": BOLA then delays the next request until the
//! buffer has drained to where the chosen quality is worth downloading.
//!
//! dash.js adds two states around the formula. Its state begins at BOLA's
//! first vote (the dynamic strategy may leave BOLA idle for a long time
//! first: nothing before that vote counts). In Startup the quality comes
//! from the throughput estimate, and a "placeholder" buffer is set so that
//! BOLA, once Steady, would choose that same quality; Steady begins at a
//! vote when the buffer holds the last loaded segment's duration, so a
//! segment must have loaded since the state began. In Steady the
//! placeholder grows by the time the player spent not downloading (a full
//! buffer, a delayed request, since the last segment finished), shrinks
//! by 1% per loaded segment and never exceeds what the last loaded
//! segment's quality allows at the buffer level its request left at, grows
//! by a segment's duration when the segment replaced a buffered one (fast
//! switching: the buffer did not grow, and BOLA should not read that as a
//! fall), and is reset by a stall. BOLA may not step up above the quality
//! the throughput allows, unless it is only holding the last loaded
//! quality.
//!
//! The thresholds where two qualities' scores cross, and where a quality's
//! score reaches zero, follow from the formula. (A note on the formula: it
//! is written with u_i + gp here, which puts quality 0 at 10 s as dash.js's
//! own comments require; a form with u_i - 1 + gp would never choose it.)

use std::time::Duration;

use cc::Instant;
use serde::{Deserialize, Serialize};

use super::DashConfig;

/// BOLA's minimum buffer: the lowest quality is chosen at this level, s.
pub const MINIMUM_BUFFER_S: f64 = 10.0;
/// Extra BOLA target per quality level, s.
pub const BUFFER_PER_LEVEL_S: f64 = 2.0;
/// The placeholder's decay per downloaded segment.
pub const PLACEHOLDER_DECAY: f64 = 0.99;

/// Where BOLA is in dash.js's state machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BolaPhase {
    /// A one-bitrate ladder: nothing to choose.
    OneBitrate,
    /// Throughput decides; the placeholder follows.
    Startup,
    /// The buffer (plus placeholder) decides.
    Steady,
}

/// A segment that finished loading, as BOLA hears of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoadedSegment {
    /// When its request left.
    pub requested: Instant,
    /// When its last byte arrived.
    pub finished: Instant,
    /// The buffer level then, before the segment is appended, s.
    pub level_s: f64,
    /// Its quality index.
    pub quality: usize,
    /// Its media duration, s.
    pub duration_s: f64,
    /// Whether it replaced a buffered segment (fast switching).
    pub replacement: bool,
}

/// BOLA's choice for the next segment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BolaDecision {
    /// The quality index.
    pub quality: usize,
    /// How long to wait before requesting it.
    pub delay: Duration,
}

/// The BOLA rule's parameters and state for one session.
#[derive(Clone, Debug)]
pub struct Bola {
    bitrates: Vec<f64>,
    utilities: Vec<f64>,
    gp: f64,
    vp: f64,
    phase: BolaPhase,
    placeholder_s: f64,
    last_quality: usize,
    last_finish: Option<Instant>,
    last_call: Option<Instant>,
    /// Whether BOLA has voted once (dash.js creates its state then).
    begun: bool,
    /// The media duration of the last segment loaded since then, s.
    last_segment_s: Option<f64>,
}

impl Bola {
    /// The rule for a session's ladder and stable buffer time.
    pub fn new(config: &DashConfig) -> Bola {
        let bitrates: Vec<f64> = config.ladder.iter().map(|b| b.as_bps_f64()).collect();
        let utilities: Vec<f64> = bitrates
            .iter()
            .map(|b| (b / bitrates[0]).ln() + 1.0)
            .collect();
        let target = config
            .stable_buffer
            .as_secs_f64()
            .max(MINIMUM_BUFFER_S + BUFFER_PER_LEVEL_S * bitrates.len() as f64);
        let top = utilities[utilities.len() - 1];
        let gp = (top - 1.0) / (target / MINIMUM_BUFFER_S - 1.0);
        Bola {
            phase: if bitrates.len() == 1 {
                BolaPhase::OneBitrate
            } else {
                BolaPhase::Startup
            },
            vp: MINIMUM_BUFFER_S / gp,
            gp,
            bitrates,
            utilities,
            placeholder_s: 0.0,
            last_quality: 0,
            last_finish: None,
            last_call: None,
            begun: false,
            last_segment_s: None,
        }
    }

    /// The state machine's phase.
    pub fn phase(&self) -> BolaPhase {
        self.phase
    }

    /// The placeholder buffer, s.
    pub fn placeholder_s(&self) -> f64 {
        self.placeholder_s
    }

    /// The quality with the best score at buffer level `level_s`.
    pub fn quality_for_buffer(&self, level_s: f64) -> usize {
        let mut best = 0;
        let mut best_score = f64::NEG_INFINITY;
        for (i, bitrate) in self.bitrates.iter().enumerate() {
            let score = (self.vp * (self.utilities[i] + self.gp) - level_s) / bitrate;
            // Ties go to the higher quality, as in dash.js.
            if score >= best_score {
                best_score = score;
                best = i;
            }
        }
        best
    }

    /// The lowest buffer level at which `quality` beats every lower one, s.
    pub fn min_buffer_for_quality(&self, quality: usize) -> f64 {
        let (bq, uq) = (self.bitrates[quality], self.utilities[quality]);
        (0..quality)
            .map(|i| {
                let (bi, ui) = (self.bitrates[i], self.utilities[i]);
                self.vp * (self.gp + (bq * ui - bi * uq) / (bq - bi))
            })
            .fold(0.0, f64::max)
    }

    /// The buffer level above which downloading `quality` scores below
    /// zero (BOLA would rather wait), s.
    pub fn max_buffer_for_quality(&self, quality: usize) -> f64 {
        self.vp * (self.utilities[quality] + self.gp)
    }

    /// Decides the next segment at `now` with `level_s` of buffer.
    /// `throughput_quality` is the quality the safe throughput estimate
    /// allows (None before any download). None: BOLA has no opinion yet.
    /// The first call begins BOLA's state.
    pub fn decide(
        &mut self,
        now: Instant,
        level_s: f64,
        throughput_quality: Option<usize>,
    ) -> Option<BolaDecision> {
        self.begun = true;
        match self.phase {
            BolaPhase::OneBitrate => Some(BolaDecision {
                quality: 0,
                delay: Duration::ZERO,
            }),
            BolaPhase::Startup => {
                let quality = throughput_quality?;
                self.placeholder_s = (self.min_buffer_for_quality(quality) - level_s).max(0.0);
                self.last_quality = quality;
                if self
                    .last_segment_s
                    .is_some_and(|segment_s| level_s >= segment_s)
                {
                    self.phase = BolaPhase::Steady;
                }
                Some(BolaDecision {
                    quality,
                    delay: Duration::ZERO,
                })
            }
            BolaPhase::Steady => Some(self.decide_steady(now, level_s, throughput_quality)),
        }
    }

    fn decide_steady(
        &mut self,
        now: Instant,
        level_s: f64,
        throughput_quality: Option<usize>,
    ) -> BolaDecision {
        // Time not spent downloading counts as buffer BOLA could have had.
        let idle_since = self.last_finish.take().or(self.last_call);
        if let Some(since) = idle_since {
            self.placeholder_s += (now - since).as_secs_f64();
        }
        self.last_call = Some(now);
        let mut quality = self.quality_for_buffer(level_s + self.placeholder_s);
        let allowed = throughput_quality.unwrap_or(0);
        if quality > self.last_quality && quality > allowed {
            quality = allowed.max(self.last_quality);
        }
        let mut delay_s =
            (level_s + self.placeholder_s - self.max_buffer_for_quality(quality)).max(0.0);
        if delay_s <= self.placeholder_s {
            self.placeholder_s -= delay_s;
            delay_s = 0.0;
        } else {
            delay_s -= self.placeholder_s;
            self.placeholder_s = 0.0;
            // At the top quality the buffer target decides how full to get.
            if quality == self.bitrates.len() - 1 {
                delay_s = 0.0;
            }
        }
        self.last_quality = quality;
        BolaDecision {
            quality,
            delay: Duration::from_secs_f64(delay_s),
        }
    }

    /// A segment finished loading (in either phase, once BOLA's state has
    /// begun): its quality becomes the last one, the placeholder decays
    /// and is capped, and a replacement adds its duration.
    pub fn on_downloaded(&mut self, segment: LoadedSegment) {
        if !self.begun || self.phase == BolaPhase::OneBitrate {
            return;
        }
        self.last_quality = segment.quality;
        self.last_segment_s = Some(segment.duration_s);
        self.placeholder_s *= PLACEHOLDER_DECAY;
        // The buffer when the request left, estimated as dash.js does.
        let at_request = segment.level_s + (segment.finished - segment.requested).as_secs_f64();
        let cap = (self.max_buffer_for_quality(self.last_quality) - at_request).max(0.0);
        self.placeholder_s = self.placeholder_s.min(cap);
        if segment.replacement {
            self.placeholder_s += segment.duration_s;
        }
        self.last_finish = Some(segment.finished);
    }

    /// A download was abandoned for `quality` with `level_s` of buffer:
    /// the placeholder shrinks to what lets BOLA just choose that quality
    /// (or to the 10 s minimum buffer for quality 0), as dash.js deflates
    /// it, to be careful after an abandonment (the segment fetched again
    /// at `quality` becomes the last quality when it has loaded).
    pub fn on_abandoned(&mut self, level_s: f64, quality: usize) {
        if !self.begun || self.phase == BolaPhase::OneBitrate {
            return;
        }
        let want = if quality > 0 {
            self.min_buffer_for_quality(quality)
        } else {
            MINIMUM_BUFFER_S
        };
        self.placeholder_s = self.placeholder_s.min((want - level_s).max(0.0));
    }

    /// Playback stalled: the placeholder must not lift quality now.
    pub fn on_stall(&mut self) {
        if self.phase == BolaPhase::Steady {
            self.placeholder_s = 0.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bola() -> Bola {
        Bola::new(&DashConfig::obbr_paper())
    }

    fn t(s: u64) -> Instant {
        Instant::ZERO + Duration::from_secs(s)
    }

    /// A 4 s segment at `quality` requested 1 s before `at_s`, with
    /// `level_s` buffered when it arrived.
    fn loaded(b: &mut Bola, at_s: u64, level_s: f64, quality: usize, replacement: bool) {
        b.on_downloaded(LoadedSegment {
            requested: t(at_s - 1),
            finished: t(at_s),
            level_s,
            quality,
            duration_s: 4.0,
            replacement,
        });
    }

    /// BOLA in Steady at `quality` by 2 s, its placeholder cleared.
    fn steady(quality: usize) -> Bola {
        let mut b = bola();
        b.decide(t(1), 4.0, Some(quality)).unwrap();
        loaded(&mut b, 2, 4.0, quality, false);
        b.decide(t(2), 4.0, Some(quality)).unwrap();
        assert_eq!(b.phase(), BolaPhase::Steady);
        b.on_stall();
        b
    }

    #[test]
    fn lowest_quality_at_the_minimum_buffer_and_the_top_at_the_target() {
        let b = bola();
        assert_eq!(b.quality_for_buffer(0.0), 0);
        assert_eq!(b.quality_for_buffer(MINIMUM_BUFFER_S), 0);
        // The target for ten levels is 10 + 2 x 10 = 30 s.
        assert_eq!(b.quality_for_buffer(30.0), 9);
        let mut last = 0;
        for tenth in 0..400 {
            let q = b.quality_for_buffer(tenth as f64 / 10.0);
            assert!(q >= last, "quality falls as the buffer grows at {tenth}");
            last = q;
        }
    }

    #[test]
    fn thresholds_are_where_scores_cross() {
        let b = bola();
        for q in 1..10 {
            let level = b.min_buffer_for_quality(q);
            assert!(b.quality_for_buffer(level + 1e-6) >= q, "q{q} at {level}");
            assert!(b.quality_for_buffer(level - 1e-3) < q, "q{q} at {level}");
            assert!(b.max_buffer_for_quality(q) > level);
        }
    }

    #[test]
    fn startup_follows_throughput_then_steady_follows_the_buffer() {
        let mut b = bola();
        assert_eq!(b.decide(t(0), 0.0, None), None, "no estimate yet");
        let d = b.decide(t(1), 4.0, Some(5)).unwrap();
        assert_eq!(d.quality, 5);
        assert_eq!(
            b.phase(),
            BolaPhase::Startup,
            "no segment has loaded since BOLA began"
        );
        loaded(&mut b, 2, 4.0, 5, false);
        let d = b.decide(t(2), 4.0, Some(5)).unwrap();
        assert_eq!(d.quality, 5);
        assert_eq!(b.phase(), BolaPhase::Steady, "a segment's worth buffered");
        // The placeholder makes BOLA agree with the throughput choice.
        assert!((b.placeholder_s() + 4.0 - b.min_buffer_for_quality(5)).abs() < 1e-9);
        let d = b.decide(t(3), 4.0, Some(5)).unwrap();
        assert!(d.quality >= 5, "{d:?}");
        b.on_stall();
        assert_eq!(b.placeholder_s(), 0.0);
        let d = b.decide(t(3), 1.0, Some(9)).unwrap();
        assert_eq!(d.quality, 0, "an empty buffer without placeholder: lowest");
    }

    #[test]
    fn nothing_before_the_first_vote_counts() {
        // dash.js creates BOLA's state at its first vote: segments loaded
        // while the throughput rule decided do not make it Steady.
        let mut b = bola();
        loaded(&mut b, 1, 8.0, 5, false);
        loaded(&mut b, 2, 12.0, 6, true);
        assert_eq!(b.placeholder_s(), 0.0, "a replacement before it began");
        b.decide(t(3), 12.0, Some(6)).unwrap();
        assert_eq!(b.phase(), BolaPhase::Startup);
        loaded(&mut b, 4, 12.0, 6, false);
        b.decide(t(4), 12.0, Some(6)).unwrap();
        assert_eq!(b.phase(), BolaPhase::Steady);
    }

    #[test]
    fn a_replacement_adds_its_duration_to_the_placeholder() {
        let mut b = steady(5);
        // A replacement: the buffer did not grow, the placeholder does.
        loaded(&mut b, 3, 4.0, 5, true);
        assert!(
            (b.placeholder_s() - 4.0).abs() < 1e-9,
            "{}",
            b.placeholder_s()
        );
        // A new segment: decay (1%) and the cap of its quality's level.
        loaded(&mut b, 4, 4.0, 5, false);
        assert!((b.placeholder_s() - 3.96).abs() < 1e-9);
        // 12 s when it arrived, 13 s when it was requested: quality 0's
        // ceiling (about 14.9 s) leaves room for less than the placeholder.
        let cap = b.max_buffer_for_quality(0) - 13.0;
        assert!(cap < 3.96 * 0.99 && b.max_buffer_for_quality(5) - 13.0 > 3.96);
        loaded(&mut b, 5, 12.0, 0, false);
        assert!(
            (b.placeholder_s() - cap).abs() < 1e-9,
            "capped by the loaded segment's quality (0), not BOLA's last choice"
        );
    }

    #[test]
    fn a_full_buffer_delays_the_request_below_the_top_quality() {
        let mut b = steady(3);
        // Throughput allows only quality 3; with 28 s of buffer BOLA holds
        // quality 3 and waits until the buffer drains to its ceiling (the
        // second since the last segment went to the placeholder first).
        let d = b.decide(t(3), 28.0, Some(3)).unwrap();
        assert_eq!(d.quality, 3);
        let expected = 28.0 - b.max_buffer_for_quality(3);
        assert!((d.delay.as_secs_f64() - expected).abs() < 1e-6, "{d:?}");
        assert!(expected > 0.0);
    }

    #[test]
    fn one_bitrate_needs_no_choice() {
        let mut c = DashConfig::obbr_paper();
        c.ladder.truncate(1);
        let mut b = Bola::new(&c);
        assert_eq!(b.phase(), BolaPhase::OneBitrate);
        assert_eq!(b.decide(Instant::ZERO, 0.0, None).unwrap().quality, 0);
    }
}
