//! A DASH video player, as dash.js v4 (v4.7.4, the reference player the oBBR
//! paper used) fetches a video on demand over one connection.
//!
//! The video is a ladder of bitrates, each cut into segments of equal
//! duration. The player asks for one segment at a time: its request
//! crosses the path to the server (one one-way delay), the server writes
//! the segment's bytes into the connection, and the segment counts as
//! downloaded when the player holds all of it in order. So, unlike a bulk
//! transfer, the sender is idle between segments and while the playback
//! buffer is full: the traffic a BBR sender sees under a video service.
//!
//! What the player models, and where it lives:
//! - [`throughput`]: dash.js's throughput history, the segment-by-segment
//!   throughput (bytes over the time from first byte to last) averaged
//!   over a sliding window that widens when the samples jump, and the
//!   request latency.
//! - [`bola`]: the BOLA rule, buffer-based, with its Startup and Steady
//!   states and the placeholder buffer.
//! - [`abr`]: the ABR controller: which rules vote (the throughput rule,
//!   BOLA, the insufficient-buffer rule, the switch-history rule), the
//!   dynamic strategy's switch
//!   between throughput and BOLA on the buffer level, and the lowest vote
//!   wins, as in dash.js.
//! - [`player`]: the playback buffer (startup, stalls, the end of the
//!   video), the request scheduling against the buffer target (the first
//!   segment fetched without a decision, as dash.js fetches it after
//!   setting the initial bitrate's quality), and the viewer's metrics.
//!
//! - [`log`]: the decision log, one row per segment request: each rule's
//!   vote, the inputs it voted on, the rule that decided and what became
//!   of the download (`series_dash` of a run).
//! - [`abandon`]: request abandonment (dash.js's `AbandonRequestsRule`): a
//!   download too slow for its segment is given up and the segment fetched
//!   again lower (`abandon_requests` in `[flow.dash]`, on by default).
//! - Fast switching (dash.js's `fastSwitchEnabled`, on by default in
//!   v4.7.4; `fast_switching` in `[flow.dash]`), in [`player`]: when the ABR
//!   controller raises the quality, dash.js looks at the buffered segment
//!   that holds the playback position + 1.5 segment durations. If that
//!   segment was loaded (last) at a lower quality than the new one, the
//!   buffer holds at least 1.5 segment durations, and no abandonment
//!   happened in the last 10 s, the next request is that segment, at the
//!   new quality, and the ones after it follow in order: every buffered
//!   segment from there on is fetched again (at whatever quality each
//!   decision then gives, lower ones too) until the end of the buffer is
//!   reached and new segments follow. A replacement overwrites media
//!   already buffered, so the buffer level does not grow while segments are
//!   fetched again (the insufficient-buffer rule sees it fall and may
//!   lower the quality). In the summary a segment counts once, at the
//!   quality it was last loaded at (as the dash.js player's summary counts
//!   a segment dash.js loads again); its earlier downloads' bytes are in
//!   the flow's goodput, as they crossed the link.
//!
//! One connection carries the session here, so an abandoned segment's
//! request is cancelled as one stream's unsent bytes: when the cancel
//! reaches the server (with the new request, one one-way delay later) it
//! drops what it has not sent once; what is in flight still arrives, and
//! lost bytes below the cut are still resent, ahead of the new segment's
//! (HTTP/3 would carry the two on separate streams and reset the first).
//!
//! What it leaves out, and why: dash.js's dropped-frames rule (no decoder
//! here), the initialization segments (a few
//! hundred bytes, fetched again at each quality change), audio (video
//! alone carries the bytes), and the long-form buffer target (60 s for
//! content of 10 minutes or more): the issue that set this model's
//! defaults asks for the 12 s / 30 s targets the oBBR paper's dash.js
//! version used; both are settable.
//!
//! The metrics are the oBBR paper's (§5.3.2): average quality index (AQ),
//! quality switches (QS, segments of lower quality than the one before),
//! the rebuffering ratio RB = (playback time - video length) / video
//! length, plus QoE_lin (Pensieve/MPC): the sum of segment bitrates minus
//! 4.3 x seconds of stalls minus the sum of bitrate changes, in Mbit/s.

pub mod abandon;
pub mod abr;
pub mod bola;
pub mod log;
pub mod player;
pub mod throughput;

use std::time::Duration;

use cc::Bandwidth;
use serde::{Deserialize, Serialize};

pub use player::Player;

/// Which ABR strategy picks each segment's quality (`abr` in `[flow.dash]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AbrStrategy {
    /// The throughput rule alone.
    Throughput,
    /// BOLA alone.
    Bola,
    /// dash.js's default: BOLA while the buffer holds at least the stable
    /// buffer time, the throughput rule once it falls below half of it.
    #[default]
    Dynamic,
}

impl AbrStrategy {
    /// The name used in scenario files.
    pub fn as_str(self) -> &'static str {
        match self {
            AbrStrategy::Throughput => "throughput",
            AbrStrategy::Bola => "bola",
            AbrStrategy::Dynamic => "dynamic",
        }
    }

    /// Parses a scenario name.
    pub fn parse(name: &str) -> Option<AbrStrategy> {
        match name {
            "throughput" => Some(AbrStrategy::Throughput),
            "bola" => Some(AbrStrategy::Bola),
            "dynamic" => Some(AbrStrategy::Dynamic),
            _ => None,
        }
    }
}

/// Who plays a DASH session (`player` in `[flow.dash]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PlayerKind {
    /// This module's model of dash.js ([`Player`]); the simulator's only player.
    #[default]
    Model,
    /// dash.js itself in headless Chromium, fetching over HTTP/3 through the
    /// emulated link: only an emulated run (`bbrlab run --emulate`) has it.
    DashJs,
}

impl PlayerKind {
    /// The name used in scenario files.
    pub fn as_str(self) -> &'static str {
        match self {
            PlayerKind::Model => "model",
            PlayerKind::DashJs => "dashjs",
        }
    }

    /// Parses a scenario name.
    pub fn parse(name: &str) -> Option<PlayerKind> {
        match name {
            "model" => Some(PlayerKind::Model),
            "dashjs" => Some(PlayerKind::DashJs),
            _ => None,
        }
    }
}

/// A DASH session's parameters (`[flow.dash]` in a scenario).
#[derive(Clone, Debug, PartialEq)]
pub struct DashConfig {
    /// The bitrate ladder, lowest first (quality index 0 is the first).
    pub ladder: Vec<Bandwidth>,
    /// Media duration of one segment.
    pub segment: Duration,
    /// Media duration of the video.
    pub video: Duration,
    /// The ABR strategy.
    pub abr: AbrStrategy,
    /// dash.js `stableBufferTime`: the buffer target below top quality, and
    /// the dynamic strategy's switch-on level for BOLA (12 s in v4).
    pub stable_buffer: Duration,
    /// dash.js `bufferTimeAtTopQuality`: the buffer target at top quality (30 s).
    pub top_quality_buffer: Duration,
    /// The estimate used for the first segment, before any download
    /// (dash.js's default video bitrate, 1000 kbit/s).
    pub initial_bitrate: Bandwidth,
    /// dash.js's insufficient-buffer rule, on by default in v4.
    pub insufficient_buffer_rule: bool,
    /// dash.js's switch-history rule ([`abr::SwitchHistory`]), on by
    /// default in v4.
    pub switch_history_rule: bool,
    /// dash.js's request abandonment ([`abandon`]), on by default in v4.
    pub abandon_requests: bool,
    /// dash.js's fast switching (`fastSwitchEnabled`, on by default in v4):
    /// buffered segments fetched again after an up-switch (module essay).
    pub fast_switching: bool,
    /// Who plays the session.
    pub player: PlayerKind,
}

impl DashConfig {
    /// The oBBR paper's video (§5.3.1): Big Buck Bunny in ten bitrates,
    /// 4 s segments, 10 minutes, with dash.js v4's defaults.
    pub fn obbr_paper() -> DashConfig {
        DashConfig {
            ladder: [254, 507, 759, 1013, 1254, 1883, 3134, 4952, 9914, 14931]
                .into_iter()
                .map(Bandwidth::from_kbps)
                .collect(),
            segment: Duration::from_secs(4),
            video: Duration::from_secs(600),
            abr: AbrStrategy::Dynamic,
            stable_buffer: Duration::from_secs(12),
            top_quality_buffer: Duration::from_secs(30),
            initial_bitrate: Bandwidth::from_kbps(1000),
            insufficient_buffer_rule: true,
            switch_history_rule: true,
            abandon_requests: true,
            fast_switching: true,
            player: PlayerKind::Model,
        }
    }

    /// Checks the parameters; the message names the field and what was expected.
    pub fn validate(&self) -> Result<(), String> {
        if self.ladder.is_empty() {
            return Err("ladder: expected at least one bitrate".into());
        }
        if self.ladder.len() > 64 {
            return Err(format!(
                "ladder: expected at most 64 bitrates, got {}",
                self.ladder.len()
            ));
        }
        for (i, pair) in self.ladder.windows(2).enumerate() {
            if pair[1] <= pair[0] {
                return Err(format!(
                    "ladder[{}]: expected bitrates in increasing order, but {} bit/s follows {} bit/s",
                    i + 1,
                    pair[1].bits_per_sec(),
                    pair[0].bits_per_sec()
                ));
            }
        }
        if self.ladder[0] == Bandwidth::ZERO {
            return Err("ladder[0]: expected a bitrate above zero".into());
        }
        if self.segment < Duration::from_millis(100) {
            return Err(format!(
                "segment: expected at least 100ms, got {:?}",
                self.segment
            ));
        }
        if self.video < self.segment {
            return Err(format!(
                "video: expected at least one segment ({:?}), got {:?}",
                self.segment, self.video
            ));
        }
        if self.segment_count() > 1_000_000 {
            return Err("video: expected at most 1000000 segments".into());
        }
        if self.segment_bytes(0, 0) == 0 {
            return Err(
                "ladder[0] x segment is under one byte: expected segments of at least one byte"
                    .into(),
            );
        }
        if self.stable_buffer < self.segment {
            return Err(format!(
                "stable_buffer: expected at least one segment ({:?}), got {:?}",
                self.segment, self.stable_buffer
            ));
        }
        if self.top_quality_buffer < self.stable_buffer {
            return Err(format!(
                "top_quality_buffer: expected at least stable_buffer ({:?}), got {:?}",
                self.stable_buffer, self.top_quality_buffer
            ));
        }
        if self.initial_bitrate == Bandwidth::ZERO {
            return Err("initial_bitrate: expected a rate above zero".into());
        }
        Ok(())
    }

    /// Segments in the video (the last one may be shorter).
    pub fn segment_count(&self) -> usize {
        let segment = self.segment.as_nanos().max(1);
        self.video.as_nanos().div_ceil(segment) as usize
    }

    /// Media duration of segment `index`.
    pub fn segment_duration(&self, index: usize) -> Duration {
        let start = self.segment * index as u32;
        (self.video.saturating_sub(start)).min(self.segment)
    }

    /// Bytes of segment `index` at quality `quality` (constant bitrate).
    pub fn segment_bytes(&self, index: usize, quality: usize) -> u64 {
        let bits =
            self.ladder[quality].bits_per_sec() as f64 * self.segment_duration(index).as_secs_f64();
        (bits / 8.0).round() as u64
    }

    /// The highest quality index.
    pub fn top_quality(&self) -> usize {
        self.ladder.len() - 1
    }
}

/// What a DASH session's viewer saw (`dash` in a flow's summary).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DashSummary {
    /// Segments downloaded (and so played, or in the buffer at the end).
    pub segments: u64,
    /// Whether the whole video was downloaded and played within the run.
    pub complete: bool,
    /// Average quality index of the downloaded segments (0 is the lowest).
    pub aq: f64,
    /// Quality switches: segments of lower quality than the one before.
    pub qs: u64,
    /// Rebuffering ratio: (playback time - media played) / media played,
    /// playback time running from the first request to the end of playback
    /// (or of the run); the startup delay counts, as in the paper. None
    /// when nothing played.
    pub rb: Option<f64>,
    /// Mean bitrate of the downloaded segments, bit/s.
    pub mean_bitrate_bps: f64,
    /// Seconds stalled after playback began.
    pub rebuffer_s: f64,
    /// Stalls after playback began.
    pub stalls: u64,
    /// From the first request to the start of playback, s.
    pub startup_delay_s: f64,
    /// QoE_lin: sum of segment bitrates - 4.3 x stall seconds - sum of
    /// bitrate changes, in Mbit/s.
    pub qoe_lin: f64,
    /// Segments chosen by the BOLA rule (the rest by the throughput rule or
    /// the initial bitrate); None when the player does not say (dash.js
    /// reports the rule of a quality change only, not of every segment).
    pub bola_segments: Option<u64>,
}

/// A DASH session as its viewer lived it, whoever played it (the model,
/// or dash.js in a browser): the one place the viewer's metrics
/// ([`DashSummary`]) are computed from.
#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    /// The quality index of each downloaded segment, in segment order.
    pub qualities: Vec<usize>,
    /// Segments the BOLA rule chose, when the player says.
    pub bola_segments: Option<u64>,
    /// Media played by the end of playback (or of the run).
    pub played: Duration,
    /// From the first request to the end of playback, or to the end of the
    /// run while still playing.
    pub elapsed: Duration,
    /// From the first request to the start of playback; None if playback
    /// never started.
    pub startup: Option<Duration>,
    /// Time stalled after playback began (a stall still running counts to
    /// the end of the run).
    pub stalled: Duration,
    /// Stalls after playback began (one still running included).
    pub stalls: u64,
    /// Whether the whole video played.
    pub complete: bool,
}

impl Session {
    /// The viewer's metrics of this session over `config`'s ladder (see
    /// [`DashSummary`] for each definition).
    pub fn summary(&self, config: &DashConfig) -> DashSummary {
        let bitrates: Vec<f64> = self
            .qualities
            .iter()
            .map(|&q| config.ladder[q].as_mbps_f64())
            .collect();
        let n = self.qualities.len() as f64;
        let switches_down = self.qualities.windows(2).filter(|w| w[1] < w[0]).count() as u64;
        let changes: f64 = bitrates.windows(2).map(|w| (w[1] - w[0]).abs()).sum();
        let played = self.played.as_secs_f64();
        let elapsed = self.elapsed.as_secs_f64();
        let stalled = self.stalled.as_secs_f64();
        DashSummary {
            segments: self.qualities.len() as u64,
            complete: self.complete,
            aq: if n > 0.0 {
                self.qualities.iter().map(|&q| q as f64).sum::<f64>() / n
            } else {
                0.0
            },
            qs: switches_down,
            rb: (played > 0.0).then(|| (elapsed - played).max(0.0) / played),
            mean_bitrate_bps: if n > 0.0 {
                bitrates.iter().sum::<f64>() / n * 1e6
            } else {
                0.0
            },
            rebuffer_s: stalled,
            stalls: self.stalls,
            startup_delay_s: self.startup.map_or(elapsed, |s| s.as_secs_f64()),
            qoe_lin: bitrates.iter().sum::<f64>() - 4.3 * stalled - changes,
            bola_segments: self.bola_segments,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paper_video_has_150_segments_of_known_sizes() {
        let c = DashConfig::obbr_paper();
        c.validate().unwrap();
        assert_eq!(c.segment_count(), 150);
        assert_eq!(c.segment_bytes(0, 0), 127_000, "254 kbit/s x 4 s");
        assert_eq!(c.top_quality(), 9);
        let short = DashConfig {
            video: Duration::from_secs(10),
            ..DashConfig::obbr_paper()
        };
        assert_eq!(short.segment_count(), 3);
        assert_eq!(short.segment_duration(2), Duration::from_secs(2));
    }

    #[test]
    fn bad_parameters_are_named() {
        let bad = |f: &dyn Fn(&mut DashConfig)| {
            let mut c = DashConfig::obbr_paper();
            f(&mut c);
            c.validate().unwrap_err()
        };
        assert!(bad(&|c| c.ladder.clear()).starts_with("ladder"));
        assert!(bad(&|c| c.ladder.swap(0, 1)).starts_with("ladder[1]"));
        assert!(bad(&|c| c.segment = Duration::from_millis(10)).starts_with("segment"));
        assert!(bad(&|c| c.video = Duration::from_secs(1)).starts_with("video"));
        assert!(bad(&|c| c.stable_buffer = Duration::from_secs(1)).starts_with("stable_buffer"));
        assert!(bad(&|c| c.top_quality_buffer = Duration::from_secs(5))
            .starts_with("top_quality_buffer"));
        assert!(bad(&|c| c.initial_bitrate = Bandwidth::ZERO).starts_with("initial_bitrate"));
        assert!(bad(&|c| {
            c.ladder = vec![Bandwidth::from_bits_per_sec(1)];
            c.segment = Duration::from_millis(200);
        })
        .contains("one byte"));
    }
}
