//! dash.js itself as a DASH session's player in an emulated run
//! (`[flow.dash] player = "dashjs"`): headless Chromium (Debian's, driven
//! by playwright-core from the repository's tests/browser) plays the
//! flow's video with dash.js 4.7.4, fetching the manifest and segments
//! over HTTP/3 from the flow's server through the emulator's relay.
//!
//! The session runs in a [`crate::browser::Session`] on the project's
//! player page (tests/browser/player) with the scenario's player settings
//! ([`settings`], [`query`]); its record ([`Record`]) has per segment the
//! quality, bytes and request times, and the viewer's session in
//! wall-clock time (first video request, first frame, end, each wait for
//! data).
//!
//! What the summary is ([`Record::session`]): the same
//! [`sim::app::dash::Session`] the model reports, so every `dash.*` metric
//! comes from the one definition in `sim::app::dash`: the downloaded
//! segments' qualities in segment order (a segment loaded twice counts
//! once, with its last quality), the session from the first video request
//! (the initialization segment's included; the manifest comes before it,
//! as the model has no manifest) to the video's end or the run's, the
//! startup delay to the first frame played, the stalls the video
//! element's `waiting` to `playing` after it, and the media played its
//! `currentTime`. dash.js does not say which rule chose each segment, so
//! `bola_segments` is null.
//!
//! dash.js runs with its own defaults (its dropped-frames rule included,
//! which the model leaves out) except what the scenario sets: the ABR
//! strategy, `stableBufferTime`, `bufferTimeAtTopQuality` (and its
//! long-form value, which the model does not have, set to the same), the
//! initial bitrate, and the insufficient-buffer, switch-history and
//! abandonment rules and fast switching.

use std::time::Duration;

use serde::Deserialize;

use crate::browser::{check_fetched, read_record, Protocol};
use sim::app::dash::{AbrStrategy, DashConfig, Session as ViewerSession};

/// The player page.
pub const PAGE: &str = "/player/index.html";

/// dash.js's settings for `config` (its updateSettings object).
pub fn settings(config: &DashConfig) -> serde_json::Value {
    let strategy = match config.abr {
        AbrStrategy::Throughput => "abrThroughput",
        AbrStrategy::Bola => "abrBola",
        AbrStrategy::Dynamic => "abrDynamic",
    };
    let top = config.top_quality_buffer.as_secs_f64();
    serde_json::json!({
        "streaming": {
            "buffer": {
                "stableBufferTime": config.stable_buffer.as_secs_f64(),
                "bufferTimeAtTopQuality": top,
                "bufferTimeAtTopQualityLongForm": top,
                "fastSwitchEnabled": config.fast_switching,
            },
            "abr": {
                "ABRStrategy": strategy,
                "initialBitrate": { "video": config.initial_bitrate.bits_per_sec() as f64 / 1e3 },
                "additionalAbrRules": {
                    "insufficientBufferRule": config.insufficient_buffer_rule,
                    "switchHistoryRule": config.switch_history_rule,
                    "abandonRequestsRule": config.abandon_requests,
                },
            },
        },
    })
}

/// The player page's query parameters for `config`: its dash.js settings.
pub fn query(config: &DashConfig) -> serde_json::Value {
    serde_json::json!({ "settings": settings(config).to_string() })
}

/// One media segment dash.js loaded.
#[derive(Clone, Debug, Deserialize)]
pub struct Segment {
    /// Quality index.
    pub quality: usize,
    /// Segment index (0 is the first).
    pub index: usize,
    /// Bytes loaded.
    pub bytes: u64,
    /// When it was requested, ms since the epoch.
    pub request_epoch_ms: Option<f64>,
    /// When its last byte arrived, ms since the epoch.
    pub end_epoch_ms: Option<f64>,
    /// dash.js's error loading it, if any.
    pub error: Option<String>,
}

/// A wait for data after playback began, ms since the epoch.
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct Wait {
    /// When the video element began waiting.
    pub begin: f64,
    /// When it played again; None if it was still waiting.
    pub end: Option<f64>,
}

/// The viewer's session in wall-clock time, ms since the epoch.
#[derive(Clone, Debug, Deserialize)]
pub struct SessionTimes {
    /// The first video request (initialization segment included).
    pub first_request: Option<f64>,
    /// The first frame played.
    pub started: Option<f64>,
    /// The end of the video.
    pub ended: Option<f64>,
    /// The waits for data after the first frame.
    pub waits: Vec<Wait>,
}

/// What the player page recorded (tests/browser/player/player.js), as
/// browser-session.mjs hands it back.
#[derive(Clone, Debug, Deserialize)]
pub struct Record {
    /// dash.js's version.
    pub dashjs: Option<String>,
    /// The media segments, in the order they loaded.
    pub segments: Vec<Segment>,
    /// The session's times.
    pub session: SessionTimes,
    /// Media played (the video element's `currentTime`), seconds.
    pub played: f64,
    /// When the record was taken, ms since the epoch.
    pub now: f64,
    /// Player, playback and page errors.
    pub errors: Vec<serde_json::Value>,
    /// Console errors.
    pub console_errors: Vec<String>,
    /// Every request's protocol.
    pub protocols: Vec<Protocol>,
}

impl TryFrom<serde_json::Value> for Record {
    type Error = String;

    fn try_from(raw: serde_json::Value) -> Result<Record, String> {
        read_record(raw, "dash.js")
    }
}

impl Record {
    /// Checks that dash.js played: no error, and every request for the
    /// video over HTTP/3.
    ///
    /// # Errors
    /// The first error, or a request not over `h3`.
    pub fn check(&self) -> Result<(), String> {
        check_fetched("dash.js", &self.errors, &self.protocols, |url| {
            url.contains("/dash/")
        })
    }

    /// The downloaded segments' qualities in segment order (a segment
    /// loaded twice counts once, with its last quality).
    pub fn qualities(&self) -> Vec<usize> {
        let mut by_index = std::collections::BTreeMap::new();
        for s in self.segments.iter().filter(|s| s.error.is_none()) {
            by_index.insert(s.index, s.quality);
        }
        by_index.into_values().collect()
    }

    /// The viewer's session; `opened_ms` is when the page was told to go
    /// (the session's start if dash.js never requested the video).
    pub fn session(&self, opened_ms: f64) -> ViewerSession {
        let times = &self.session;
        let connect = times.first_request.unwrap_or(opened_ms);
        let end = times.ended.unwrap_or(self.now).max(connect);
        let span = |from: f64, to: f64| Duration::from_secs_f64(((to - from) / 1e3).max(0.0));
        ViewerSession {
            qualities: self.qualities(),
            bola_segments: None,
            played: Duration::from_secs_f64(self.played.max(0.0)),
            elapsed: span(connect, end),
            startup: times.started.map(|s| span(connect, s)),
            stalled: times
                .waits
                .iter()
                .map(|w| span(w.begin, w.end.unwrap_or(end).min(end)))
                .sum(),
            stalls: times.waits.len() as u64,
            complete: times.ended.is_some(),
        }
    }

    /// (ms since the epoch, video bytes downloaded by then) at each
    /// segment's end, in time order.
    pub fn progress_ms(&self) -> Vec<(f64, u64)> {
        let mut ends: Vec<(f64, u64)> = self
            .segments
            .iter()
            .filter_map(|s| s.end_epoch_ms.map(|t| (t, s.bytes)))
            .collect();
        ends.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut total = 0;
        ends.into_iter()
            .map(|(t, bytes)| {
                total += bytes;
                (t, total)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(json: &str) -> Record {
        serde_json::from_str(json).unwrap()
    }

    const RECORD: &str = r#"{
        "dashjs": "4.7.4",
        "segments": [
            {"quality": 2, "index": 0, "bytes": 379500, "request_epoch_ms": 1000, "end_epoch_ms": 1400, "error": null},
            {"quality": 9, "index": 1, "bytes": 7465500, "request_epoch_ms": 1400, "end_epoch_ms": 4400, "error": null},
            {"quality": 5, "index": 2, "bytes": 941500, "request_epoch_ms": 4400, "end_epoch_ms": 5000, "error": null},
            {"quality": 4, "index": 2, "bytes": 627000, "request_epoch_ms": 5000, "end_epoch_ms": 5600, "error": null},
            {"quality": 9, "index": 3, "bytes": 100, "request_epoch_ms": 5600, "end_epoch_ms": null, "error": "aborted"}
        ],
        "session": {"first_request": 900, "started": 1500, "ended": null,
                    "waits": [{"begin": 5500, "end": 6500}, {"begin": 9000, "end": null}]},
        "played": 6.5,
        "now": 10900,
        "errors": [],
        "console_errors": [],
        "protocols": [{"url": "https://127.0.0.1:1/dash/manifest.mpd", "protocol": "h3"}]
    }"#;

    #[test]
    fn the_session_is_read_from_dashjs_times_and_segments() {
        let r = record(RECORD);
        r.check().unwrap();
        assert_eq!(r.qualities(), vec![2, 9, 4], "the reload of 2 counts once");
        let s = r.session(0.0);
        assert_eq!(s.elapsed, Duration::from_millis(10_000));
        assert_eq!(s.startup, Some(Duration::from_millis(600)));
        assert_eq!(s.stalls, 2);
        assert_eq!(s.stalled, Duration::from_millis(1000 + 1900));
        assert!(!s.complete);
        let summary = s.summary(&DashConfig::obbr_paper());
        assert_eq!(summary.segments, 3);
        assert!((summary.aq - 5.0).abs() < 1e-9);
        assert_eq!(summary.qs, 1);
        assert_eq!(summary.bola_segments, None);
        assert!((summary.rb.unwrap() - (10.0 - 6.5) / 6.5).abs() < 1e-9);
        let progress = r.progress_ms();
        assert_eq!(progress.first(), Some(&(1400.0, 379_500)));
        assert_eq!(
            progress.last().unwrap().1,
            379_500 + 7_465_500 + 941_500 + 627_000
        );
    }

    #[test]
    fn a_failed_or_not_h3_session_is_refused() {
        let mut r = record(RECORD);
        r.protocols.push(Protocol {
            url: "https://127.0.0.1:1/dash/v0/1.m4s".into(),
            protocol: "http/1.1".into(),
        });
        let e = r.check().unwrap_err();
        assert!(
            e.contains("/dash/v0/1.m4s") && e.contains("not HTTP/3"),
            "{e}"
        );
        let mut r = record(RECORD);
        r.errors
            .push(serde_json::json!({"source": "dashjs", "message": "code 27"}));
        assert!(r.check().unwrap_err().starts_with("dash.js failed"));
        r.errors.clear();
        r.protocols.clear();
        assert!(r.check().unwrap_err().contains("fetched nothing"));
    }

    #[test]
    fn settings_carry_the_scenario_player() {
        let s = settings(&DashConfig::obbr_paper());
        assert_eq!(s["streaming"]["abr"]["ABRStrategy"], "abrDynamic");
        assert_eq!(s["streaming"]["buffer"]["stableBufferTime"], 12.0);
        assert_eq!(
            s["streaming"]["buffer"]["bufferTimeAtTopQualityLongForm"],
            30.0
        );
        assert_eq!(s["streaming"]["abr"]["initialBitrate"]["video"], 1000.0);
        assert_eq!(s["streaming"]["buffer"]["fastSwitchEnabled"], true);
        assert_eq!(
            s["streaming"]["abr"]["additionalAbrRules"]["switchHistoryRule"],
            true
        );
        let off = settings(&DashConfig {
            fast_switching: false,
            abandon_requests: false,
            ..DashConfig::obbr_paper()
        });
        assert_eq!(off["streaming"]["buffer"]["fastSwitchEnabled"], false);
        assert_eq!(
            off["streaming"]["abr"]["additionalAbrRules"]["abandonRequestsRule"],
            false
        );
    }
}
