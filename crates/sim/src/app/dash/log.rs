//! The player's decision log: one row per segment request, with what the
//! player knew when it chose the quality and what became of the download.
//!
//! A session's summary says how often the quality fell; the log says why.
//! Each row holds the decision's inputs (the buffer level, the throughput
//! history's estimate and the window it averaged, the request latency,
//! BOLA's phase and placeholder), every rule's vote (the throughput rule's
//! or BOLA's, whichever the dynamic strategy made active, the
//! insufficient-buffer rule's and the switch-history rule's), the rule whose vote won (the lowest vote
//! wins, so each vote above the chosen quality is a rule that did not
//! decide), whether an up-switch was refused in the abandonment state,
//! whether the request fetched a buffered segment again (fast switching),
//! and the download's end: loaded (its throughput sample, as the history
//! took it) or abandoned (the rate the abandonment rule measured).
//!
//! The simulator gathers the rows of every DASH flow into the run's
//! series (`Series::dash`), which `bbrlab run` writes as `series_dash`
//! beside the other series; the rows of dash.js itself (its player page's
//! record) have the same segment-level facts, so the two can be compared
//! segment by segment.

use serde::{Deserialize, Serialize};

use super::abr::Rule;
use super::bola::BolaPhase;

/// What became of a request's download.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Still downloading when the run ended.
    InFlight,
    /// Loaded to its last byte.
    Loaded,
    /// Given up by the abandonment rule (the segment is requested again).
    Abandoned,
}

/// Every rule's vote at one decision (None: the rule did not vote).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Votes {
    /// The quality the safe throughput estimate allows after the latency's
    /// share (the throughput rule's vote when it is active, and the cap
    /// BOLA may not step up past).
    pub throughput_allows: Option<usize>,
    /// The throughput rule's vote (only while it is the active rule and the
    /// buffer is loaded).
    pub throughput: Option<usize>,
    /// BOLA's vote (only while it is the active rule).
    pub bola: Option<usize>,
    /// The insufficient-buffer rule's vote.
    pub insufficient_buffer: Option<usize>,
    /// The switch-history rule's vote.
    pub switch_history: Option<usize>,
}

/// One segment request of a DASH session, as the model's player chose it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionRow {
    /// The flow whose player it is.
    pub flow: usize,
    /// When the quality was chosen, s since the run began.
    pub t_s: f64,
    /// The wait BOLA asked for before the request left, s.
    pub delay_s: f64,
    /// The segment requested (0 is the first).
    pub segment: usize,
    /// The quality requested.
    pub quality: usize,
    /// The quality of the decision before this one (the initial bitrate's
    /// for the first).
    pub previous_quality: usize,
    /// The rule whose vote won ([`Rule`]).
    pub rule: Rule,
    /// Whether BOLA was the active rule (else the throughput rule).
    pub using_bola: bool,
    /// The segment was buffered already: fetched again by fast switching
    /// after an up-switch (an abandoned segment's second request is not:
    /// it was never buffered).
    pub replacement: bool,
    /// An up-switch the rules voted for was refused: the abandonment state
    /// (10 s after an abandonment) holds the quality.
    pub held_by_abandonment: bool,
    /// Media buffered when the quality was chosen, s.
    pub buffer_s: f64,
    /// The throughput history's estimate (the mean over its window), bit/s.
    pub estimate_bps: Option<f64>,
    /// Samples the estimate averaged (4, widened by jumps).
    pub window: usize,
    /// The newest throughput sample, bit/s.
    pub last_sample_bps: Option<f64>,
    /// The mean request latency (request to first byte), s.
    pub latency_s: Option<f64>,
    /// The quality the safe estimate allows ([`Votes::throughput_allows`]).
    pub throughput_allows: Option<usize>,
    /// The throughput rule's vote.
    pub throughput_vote: Option<usize>,
    /// BOLA's vote.
    pub bola_vote: Option<usize>,
    /// The insufficient-buffer rule's vote.
    pub insufficient_buffer_vote: Option<usize>,
    /// The switch-history rule's vote.
    pub switch_history_vote: Option<usize>,
    /// BOLA's phase after the decision.
    pub bola_phase: BolaPhase,
    /// BOLA's placeholder buffer after the decision, s.
    pub placeholder_s: f64,
    /// What became of the download.
    pub outcome: Outcome,
    /// When it loaded or was abandoned, s since the run began.
    pub end_s: Option<f64>,
    /// Its throughput sample as the history took it (loaded), or the mean
    /// rate the abandonment rule measured (abandoned), bit/s.
    pub rate_bps: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_the_table_are_snake_case() {
        let rule = serde_json::to_string(&Rule::InsufficientBuffer).unwrap();
        assert_eq!(rule, "\"insufficient_buffer\"");
        let phase = serde_json::to_string(&BolaPhase::OneBitrate).unwrap();
        assert_eq!(phase, "\"one_bitrate\"");
        let outcome = serde_json::to_string(&Outcome::InFlight).unwrap();
        assert_eq!(outcome, "\"in_flight\"");
    }
}
