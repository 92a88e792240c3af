//! Headless Chromium receiving a live stream in an emulated run
//! (`[flow.live] client = "chromium"`): the page tests/browser/live fetches
//! the flow's `/live` stream over HTTP/3 from its server through the relay
//! (in a [`crate::browser::Session`]) and records when each frame was
//! complete; the frame delays are computed from that record by the same
//! code as the project's own client's ([`crate::client::live_summary`]):
//! from each frame's creation at the server, the request's trip through
//! the relay taken off, over the frames created in the window.
//!
//! The page opens the connection with a first request (the DASH manifest)
//! before the stream's, so the stream's request leaves on an established
//! connection, as the project's client's does after its handshake. Frame
//! times are when the page's stream reader got the bytes that complete a
//! frame: Chromium's network service hands them to the page over IPC,
//! which adds its own (sub-millisecond to millisecond) delay.

use std::time::Duration;

use serde::Deserialize;

use crate::browser::{check_fetched, read_record, Protocol};
use sim::app::live::{FrameSizes, LiveConfig, LiveSummary};

/// The live page.
pub const PAGE: &str = "/live/index.html";

/// The live page's query parameters: the `/live` request for `config`,
/// lasting `duration`.
pub fn query(config: &LiveConfig, duration: Duration) -> serde_json::Value {
    let iframe = match config.frame_sizes {
        FrameSizes::Constant => 1.0,
        FrameSizes::Gop { i_frame_ratio } => i_frame_ratio,
    };
    serde_json::json!({
        "path": format!(
            "/live?bitrate={}bit&duration={}us&frame={}us&gop={}us&iframe={iframe}",
            config.bitrate.bits_per_sec(),
            duration.as_micros(),
            config.frame_interval.as_micros(),
            config.gop.as_micros(),
        )
    })
}

/// One frame the page held.
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct Frame {
    /// Its number (0 is the first the server wrote).
    pub number: u64,
    /// Payload bytes.
    pub bytes: u64,
    /// When its last byte reached the page, ms since the epoch.
    pub at: f64,
}

/// What the live page recorded (tests/browser/live/live.js).
#[derive(Clone, Debug, Deserialize)]
pub struct Record {
    /// When the stream was requested, ms since the epoch.
    pub requested: Option<f64>,
    /// The server's frame time zero (its `bbrlab-stream-start` header), ms
    /// since the epoch: the same clock as the page's on this machine.
    #[serde(default)]
    pub stream_start: Option<f64>,
    /// The response's status.
    pub status: Option<u16>,
    /// The frames, in order.
    pub frames: Vec<Frame>,
    /// Whether the stream ended (the server's duration elapsed).
    pub done: bool,
    /// The page's errors.
    pub errors: Vec<serde_json::Value>,
    /// Console errors.
    pub console_errors: Vec<String>,
    /// Every request's protocol.
    pub protocols: Vec<Protocol>,
    /// When the record was taken, ms since the epoch.
    pub now: f64,
}

impl TryFrom<serde_json::Value> for Record {
    type Error = String;

    fn try_from(raw: serde_json::Value) -> Result<Record, String> {
        read_record(raw, "the live page")
    }
}

impl Record {
    /// Checks that the stream came: no error, a 200, frames in order from
    /// the first, and the connection over HTTP/3 (the stream's own entry
    /// appears only when it ends; the first request's shows the
    /// connection's protocol).
    ///
    /// # Errors
    /// What went wrong.
    pub fn check(&self) -> Result<(), String> {
        check_fetched("the live page", &self.errors, &self.protocols, |url| {
            url.contains("/dash/") || url.contains("/live?")
        })?;
        if self.status != Some(200) || self.requested.is_none() {
            return Err(format!("the live stream answered {:?}", self.status));
        }
        if let Some((i, f)) = self
            .frames
            .iter()
            .enumerate()
            .find(|(i, f)| f.number != *i as u64)
        {
            return Err(format!(
                "the live stream's frame {i} is numbered {}",
                f.number
            ));
        }
        Ok(())
    }

    /// (time since `zero`, payload bytes complete) at each frame.
    fn arrivals(&self, zero: f64) -> Vec<(Duration, u64)> {
        let mut total = 0;
        self.frames
            .iter()
            .map(|f| {
                total += f.bytes;
                (since(zero, f.at), total)
            })
            .collect()
    }

    /// Body bytes (frame headers included) at each frame, since the request.
    pub fn progress(&self) -> Vec<(f64, u64)> {
        let requested = self.requested.unwrap_or(self.now);
        let mut total = 0;
        self.frames
            .iter()
            .map(|f| {
                total += f.bytes + crate::http3::LIVE_FRAME_HEADER as u64;
                (since(requested, f.at).as_secs_f64(), total)
            })
            .collect()
    }

    /// Frame time zero (ms since the epoch) and the time from it to the
    /// frames' creation clock: the server's own stream start when it said
    /// (then 0), else the request's time in the page and `request_trip`.
    /// Chromium's request leaves some milliseconds after the page asks
    /// (8-24 ms measured, more under load), which would otherwise count
    /// as every frame's delay.
    pub fn frame_zero(&self, request_trip: Duration) -> (f64, Duration) {
        match self.stream_start {
            Some(start) => (start, Duration::ZERO),
            None => (self.requested.unwrap_or(self.now), request_trip),
        }
    }

    /// The frame delays of `config`'s stream: frames created from
    /// `measure_from` (frame time; see [`Record::frame_zero`] for where it
    /// starts, given the request's trip to the server).
    pub fn summary(
        &self,
        config: LiveConfig,
        measure_from: Duration,
        request_trip: Duration,
    ) -> LiveSummary {
        let (zero, trip) = self.frame_zero(request_trip);
        crate::client::live_summary(
            config,
            measure_from,
            trip,
            &self.arrivals(zero),
            since(zero, self.now),
        )
    }
}

/// From `from` to `to`, ms since the epoch.
fn since(from: f64, to: f64) -> Duration {
    Duration::from_secs_f64(((to - from) / 1e3).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(frames: &[(u64, f64)], protocol: &str) -> Record {
        let frames: Vec<_> = frames
            .iter()
            .enumerate()
            .map(|(i, &(bytes, at))| serde_json::json!({"number": i, "bytes": bytes, "at": at}))
            .collect();
        Record::try_from(serde_json::json!({
            "requested": 1000.0, "status": 200, "frames": frames, "done": true,
            "errors": [], "console_errors": [], "now": 3000.0,
            "protocols": [{"url": "https://127.0.0.1:1/dash/manifest.mpd", "protocol": protocol}],
        }))
        .unwrap()
    }

    /// 1 Mbit/s, 40 ms frames of 5000 bytes, a GOP of one frame.
    fn one_frame_gops() -> LiveConfig {
        LiveConfig {
            bitrate: cc::Bandwidth::from_kbps(1000),
            gop: Duration::from_millis(40),
            ..LiveConfig::COPILOT_PAPER
        }
    }

    #[test]
    fn frame_delays_count_from_creation_at_the_server() {
        // Frame k is created at k x 40 ms after the request reached the
        // server.
        let config = one_frame_gops();
        // The request took 20 ms; every frame is complete 50 ms after its
        // creation, so 70 ms after the request plus its creation time.
        let frames: Vec<(u64, f64)> = (0..10)
            .map(|k| (5000, 1000.0 + 70.0 + 40.0 * k as f64))
            .collect();
        let r = record(&frames, "h3");
        r.check().unwrap();
        let s = r.summary(config, Duration::ZERO, Duration::from_millis(20));
        assert!((s.frame_delay_ms.p50 - 50.0).abs() < 0.5, "{s:?}");
        assert!((s.frame_delay_ms.max - 50.0).abs() < 0.5, "{s:?}");
        assert_eq!(r.progress().last().unwrap().1, 10 * 5016);
    }

    #[test]
    fn the_servers_stream_start_is_frame_time_zero_when_it_says() {
        let config = one_frame_gops();
        // The page asked at 1000 ms, but the request left the browser 15 ms
        // later and reached the server at 1035 ms (its trip 20 ms); every
        // frame is complete 50 ms after its creation there.
        let frames: Vec<(u64, f64)> = (0..10)
            .map(|k| (5000, 1035.0 + 50.0 + 40.0 * k as f64))
            .collect();
        let mut r = record(&frames, "h3");
        let trip = Duration::from_millis(20);
        let without = r.summary(config, Duration::ZERO, trip);
        assert!(
            (without.frame_delay_ms.p50 - 65.0).abs() < 0.5,
            "{without:?}"
        );
        r.stream_start = Some(1035.0);
        assert_eq!(r.frame_zero(trip), (1035.0, Duration::ZERO));
        let with = r.summary(config, Duration::ZERO, trip);
        assert!((with.frame_delay_ms.p50 - 50.0).abs() < 0.5, "{with:?}");
        assert!((with.frame_delay_ms.max - 50.0).abs() < 0.5, "{with:?}");
    }

    #[test]
    fn a_stream_not_over_h3_or_out_of_order_is_refused() {
        let e = record(&[(10, 1100.0)], "http/1.1").check().unwrap_err();
        assert!(e.contains("not HTTP/3"), "{e}");
        let mut r = record(&[(10, 1100.0), (10, 1200.0)], "h3");
        r.frames[1].number = 5;
        assert!(r.check().unwrap_err().contains("numbered 5"));
    }

    #[test]
    fn the_query_asks_for_the_scenario_stream() {
        let q = query(&LiveConfig::COPILOT_PAPER, Duration::from_secs(5));
        assert_eq!(
            q["path"],
            "/live?bitrate=5400000bit&duration=5000000us&frame=40000us&gop=2000000us&iframe=1"
        );
        let (parsed, duration) =
            crate::http3::live_request(q["path"].as_str().unwrap().strip_prefix("/live?").unwrap())
                .unwrap();
        assert_eq!(duration, Duration::from_secs(5));
        assert_eq!(parsed, LiveConfig::COPILOT_PAPER);
    }
}
