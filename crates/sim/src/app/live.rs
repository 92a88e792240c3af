//! A live video source, as a CDN edge serves one to a viewer, and the
//! viewer-side frame clock that says when each frame was complete.
//!
//! The encoder emits one frame every `frame_interval`; the server writes
//! each frame into the connection's send buffer when it is generated, so
//! between frames the sender is app-limited unless the network is the
//! bottleneck. When the viewer connects, the server hands over the latest
//! group of pictures (GOP) at once, from its cache, so playback can start at
//! a keyframe: a burst of `gop` worth of frames, then the live edge. This
//! is the traffic BBR-Copilot (Yan et al., "When BBR Meets Live Streaming") addresses: a stream of 5.4 Mbit/s
//! rarely gives Startup the full pipe it needs to see the path's rate.
//!
//! The paper gives the bitrate only. The defaults for what it leaves open,
//! all settable: 25 frames per second (`frame_interval` 40 ms, the PAL/
//! broadcast rate), a 2 s GOP (the keyframe interval live platforms ask
//! encoders for), frames of equal size (so the controller, not the
//! encoder, explains what happens; `FrameSizes::Gop` gives I-frames several
//! times a P-frame's size at the same mean bitrate), and a 1 s deadline for
//! a frame to count as on time.
//!
//! Frame delay is measured from the moment a frame enters the send buffer
//! (its generation time for live frames, the connect time for the GOP
//! handed over then, which was generated in the past) to the moment the
//! receiver holds all of it in order.

use std::collections::VecDeque;
use std::time::Duration;

use cc::{Bandwidth, Instant};
use serde::{Deserialize, Serialize};

use crate::results::Percentiles;

/// How frame sizes vary within a GOP.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FrameSizes {
    /// Every frame carries bitrate x frame_interval.
    Constant,
    /// The GOP's first frame (the I-frame) is `i_frame_ratio` times the
    /// size of each following P-frame; the GOP's mean bitrate is kept.
    Gop {
        /// I-frame size / P-frame size, at least 1.
        i_frame_ratio: f64,
    },
}

/// Who receives a live stream in an emulated run (`client` in `[flow.live]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LiveClient {
    /// The project's own client over `bbrlab/1`; the simulator's receiver.
    #[default]
    Bbrlab,
    /// Headless Chromium fetching `/live` over HTTP/3 through the emulated
    /// link: only an emulated run (`bbrlab run --emulate`) has it.
    Chromium,
}

impl LiveClient {
    /// The name used in scenario files.
    pub fn as_str(self) -> &'static str {
        match self {
            LiveClient::Bbrlab => "bbrlab",
            LiveClient::Chromium => "chromium",
        }
    }

    /// Parses a scenario name.
    pub fn parse(name: &str) -> Option<LiveClient> {
        match name {
            "bbrlab" => Some(LiveClient::Bbrlab),
            "chromium" => Some(LiveClient::Chromium),
            _ => None,
        }
    }
}

/// A live stream's parameters (`[flow.live]` in a scenario).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LiveConfig {
    /// Mean video bitrate.
    pub bitrate: Bandwidth,
    /// One frame every interval.
    pub frame_interval: Duration,
    /// The group of pictures: the backlog handed over at connect, and the
    /// period of the frame-size pattern.
    pub gop: Duration,
    /// Frame sizes within a GOP.
    pub frame_sizes: FrameSizes,
    /// A frame complete later than this after it entered the send buffer is late.
    pub deadline: Duration,
    /// Who receives it in an emulated run.
    pub client: LiveClient,
}

impl LiveConfig {
    /// The paper's 5.4 Mbit/s stream with the defaults above.
    pub const COPILOT_PAPER: LiveConfig = LiveConfig {
        bitrate: Bandwidth::from_kbps(5400),
        frame_interval: Duration::from_millis(40),
        gop: Duration::from_secs(2),
        frame_sizes: FrameSizes::Constant,
        deadline: Duration::from_secs(1),
        client: LiveClient::Bbrlab,
    };

    /// Frames per GOP (at least 1).
    pub fn frames_per_gop(&self) -> u64 {
        let interval = self.frame_interval.as_nanos().max(1);
        (self.gop.as_nanos() / interval).max(1) as u64
    }

    /// Checks the parameters; the message names the field and what was expected.
    pub fn validate(&self) -> Result<(), String> {
        if self.bitrate == Bandwidth::ZERO {
            return Err("bitrate: expected a rate above zero".into());
        }
        if self.frame_interval.is_zero() {
            return Err("frame_interval: expected a duration above zero".into());
        }
        if self.gop < self.frame_interval {
            return Err(format!(
                "gop: expected at least one frame_interval ({:?}), got {:?}",
                self.frame_interval, self.gop
            ));
        }
        if self.frames_per_gop() > 100_000 {
            return Err("gop: expected at most 100000 frames per GOP".into());
        }
        if self.frame_bytes(0) == 0 {
            return Err(
                "bitrate x frame_interval is under one byte: expected a frame of at least one byte"
                    .into(),
            );
        }
        if let FrameSizes::Gop { i_frame_ratio } = self.frame_sizes {
            if !(i_frame_ratio.is_finite() && i_frame_ratio >= 1.0) {
                return Err(format!(
                    "frame_sizes: expected an I-frame ratio of at least 1, got {i_frame_ratio}"
                ));
            }
        }
        if self.deadline.is_zero() {
            return Err("deadline: expected a duration above zero".into());
        }
        Ok(())
    }

    /// Bytes of the frame at position `index` of the stream.
    pub fn frame_bytes(&self, index: u64) -> u64 {
        let mean = self.bitrate.bits_per_sec() as f64 * self.frame_interval.as_secs_f64() / 8.0;
        let size = match self.frame_sizes {
            FrameSizes::Constant => mean,
            FrameSizes::Gop { i_frame_ratio } => {
                let n = self.frames_per_gop() as f64;
                // One I-frame of r units and n - 1 P-frames of 1 unit carry n means.
                let unit = mean * n / (i_frame_ratio + n - 1.0);
                if index.is_multiple_of(self.frames_per_gop()) {
                    unit * i_frame_ratio
                } else {
                    unit
                }
            }
        };
        size.round() as u64
    }
}

/// A frame written into the send buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Its size.
    pub bytes: u64,
    /// When it entered the send buffer.
    pub written_at: Instant,
}

/// The encoder and the server's GOP cache of one stream.
#[derive(Clone, Debug)]
pub struct LiveSource {
    config: LiveConfig,
    /// Frames emitted so far (backlog included).
    emitted: u64,
    /// When the next live frame is generated.
    next_at: Instant,
}

impl LiveSource {
    /// A source for a viewer connecting at `connect`.
    pub fn new(config: LiveConfig, connect: Instant) -> LiveSource {
        LiveSource {
            config,
            emitted: 0,
            next_at: connect,
        }
    }

    /// The GOP handed over at connect, all written at `connect`.
    pub fn backlog(&mut self, connect: Instant) -> Vec<Frame> {
        let frames = self.config.frames_per_gop();
        let out = (0..frames)
            .map(|i| Frame {
                bytes: self.config.frame_bytes(self.emitted + i),
                written_at: connect,
            })
            .collect();
        self.emitted += frames;
        self.next_at = connect + self.config.frame_interval;
        out
    }

    /// When the next live frame is due.
    pub fn next_frame_at(&self) -> Instant {
        self.next_at
    }

    /// The live frame due at [`LiveSource::next_frame_at`]; advances the clock.
    pub fn next_frame(&mut self) -> Frame {
        let frame = Frame {
            bytes: self.config.frame_bytes(self.emitted),
            written_at: self.next_at,
        };
        self.emitted += 1;
        self.next_at += self.config.frame_interval;
        frame
    }
}

/// The viewer's side: which frames are complete, and how late.
#[derive(Clone, Debug)]
pub struct FrameClock {
    deadline: Duration,
    /// Frames not yet complete: (stream offset of their end, written at).
    pending: VecDeque<(u64, Instant)>,
    written: u64,
    delays: crate::recorder::DelayHistogram,
    late: u64,
    measure_from: Instant,
}

/// What a live stream's viewer saw (`live` in a flow's summary).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveSummary {
    /// Frames complete in the measurement window.
    pub frames: u64,
    /// Frame delay: from entering the send buffer to complete in order, ms.
    pub frame_delay_ms: Percentiles,
    /// Share of the window's frames complete later than the deadline, or
    /// not complete at the end of the run though due.
    pub late_frame_ratio: f64,
}

impl FrameClock {
    /// A clock counting frames written at or after `measure_from` (the
    /// warmup), with `deadline` for lateness.
    pub fn new(deadline: Duration, measure_from: Instant) -> FrameClock {
        FrameClock {
            deadline,
            pending: VecDeque::new(),
            written: 0,
            delays: crate::recorder::DelayHistogram::new(),
            late: 0,
            measure_from,
        }
    }

    /// A frame entered the send buffer.
    pub fn on_written(&mut self, frame: Frame) {
        self.written += frame.bytes;
        self.pending.push_back((self.written, frame.written_at));
    }

    /// The receiver holds `in_order` bytes in order at `now`.
    pub fn on_delivered(&mut self, now: Instant, in_order: u64) {
        while let Some(&(end, written_at)) = self.pending.front() {
            if end > in_order {
                break;
            }
            self.pending.pop_front();
            if written_at >= self.measure_from {
                let delay = now - written_at;
                self.delays.record(delay);
                if delay > self.deadline {
                    self.late += 1;
                }
            }
        }
    }

    /// The summary at the end of the run: frames still pending past their
    /// deadline count as late.
    pub fn summary(&self, end: Instant) -> LiveSummary {
        let overdue = self
            .pending
            .iter()
            .filter(|&&(_, at)| at >= self.measure_from && end - at > self.deadline)
            .count() as u64;
        let complete = self.delays.len();
        let judged = complete + overdue;
        LiveSummary {
            frames: complete,
            frame_delay_ms: self.delays.percentiles(),
            late_frame_ratio: if judged == 0 {
                0.0
            } else {
                (self.late + overdue) as f64 / judged as f64
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn frames_are_timed_and_the_gop_is_handed_over_at_connect() {
        let config = LiveConfig::COPILOT_PAPER;
        assert_eq!(config.frames_per_gop(), 50);
        assert_eq!(config.frame_bytes(0), 27_000, "5.4 Mbit/s x 40 ms");
        let connect = Instant::ZERO + ms(500);
        let mut s = LiveSource::new(config, connect);
        let backlog = s.backlog(connect);
        assert_eq!(backlog.len(), 50);
        assert!(backlog
            .iter()
            .all(|f| f.written_at == connect && f.bytes == 27_000));
        assert_eq!(s.next_frame_at(), connect + ms(40));
        let f = s.next_frame();
        assert_eq!(f.written_at, connect + ms(40));
        assert_eq!(s.next_frame_at(), connect + ms(80));
    }

    #[test]
    fn gop_sizes_keep_the_mean_bitrate() {
        let config = LiveConfig {
            frame_sizes: FrameSizes::Gop { i_frame_ratio: 5.0 },
            ..LiveConfig::COPILOT_PAPER
        };
        let gop: u64 = (0..50).map(|i| config.frame_bytes(i)).sum();
        assert!(gop.abs_diff(50 * 27_000) <= 50, "{gop}");
        assert_eq!(config.frame_bytes(0), config.frame_bytes(1) * 5);
        assert_eq!(config.frame_bytes(50), config.frame_bytes(0));
    }

    #[test]
    fn bad_parameters_are_named() {
        let bad = |c: LiveConfig| c.validate().unwrap_err();
        let base = LiveConfig::COPILOT_PAPER;
        assert!(bad(LiveConfig {
            bitrate: Bandwidth::ZERO,
            ..base
        })
        .starts_with("bitrate"));
        assert!(bad(LiveConfig {
            gop: ms(10),
            ..base
        })
        .starts_with("gop"));
        assert!(bad(LiveConfig {
            frame_interval: Duration::ZERO,
            ..base
        })
        .starts_with("frame_interval"));
        assert!(bad(LiveConfig {
            frame_sizes: FrameSizes::Gop { i_frame_ratio: 0.5 },
            ..base
        })
        .starts_with("frame_sizes"));
        assert!(bad(LiveConfig {
            bitrate: Bandwidth::from_bits_per_sec(1),
            ..base
        })
        .contains("one byte"));
    }

    #[test]
    fn frame_clock_measures_delay_and_lateness() {
        let mut c = FrameClock::new(ms(1000), Instant::ZERO + ms(100));
        let at = |v| Instant::ZERO + ms(v);
        c.on_written(Frame {
            bytes: 100,
            written_at: at(0),
        }); // before the window
        c.on_written(Frame {
            bytes: 100,
            written_at: at(200),
        });
        c.on_written(Frame {
            bytes: 100,
            written_at: at(240),
        });
        c.on_written(Frame {
            bytes: 100,
            written_at: at(280),
        });
        c.on_delivered(at(250), 150); // first frame only
        c.on_delivered(at(300), 200); // second: 100 ms
        c.on_delivered(at(1500), 300); // third: 1260 ms, late
        let s = c.summary(at(1500)); // fourth pending, 1220 ms overdue: late
        assert_eq!(s.frames, 2);
        assert!((s.frame_delay_ms.p50 - 100.0).abs() < 0.2, "{s:?}");
        assert!((s.late_frame_ratio - 2.0 / 3.0).abs() < 1e-12, "{s:?}");
    }
}
