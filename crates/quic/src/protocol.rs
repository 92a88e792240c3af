//! The application protocol of `bbrlab serve` and `bbrlab get` (ALPN
//! `bbrlab/1`): the client opens a bidirectional stream, writes one request
//! line and closes its side; the server answers on the same stream.
//!
//! - `SIZE <bytes>`: that many bytes, then the end of the stream (a sized
//!   transfer).
//! - `BULK <milliseconds>`: bytes for that long, or until the client stops
//!   reading (an unlimited bulk transfer within a run).
//! - `LIVE <bitrate bit/s> <frame interval us> <gop us> <I/P ratio>
//!   <deadline us> <milliseconds>`: a live video stream, frames written as
//!   the simulator's `LiveSource` generates them (a GOP at connect, then
//!   one frame per interval), for that long.
//!
//! Every number is a decimal integer but the I/P ratio (a decimal); a line
//! is at most [`MAX_REQUEST_LINE`] bytes. The limits below are what a
//! server accepts; they bound what one request can cost it.

use std::time::Duration;

use cc::Bandwidth;
use sim::app::live::{FrameSizes, LiveConfig};

/// The ALPN protocol name.
pub const ALPN: &[u8] = b"bbrlab/1";
/// Longest request line, newline included.
pub const MAX_REQUEST_LINE: usize = 256;
/// Largest sized transfer a server sends (1 TB).
pub const MAX_SIZE: u64 = 1 << 40;
/// Longest bulk transfer or live stream a server keeps up (one hour).
pub const MAX_DURATION: Duration = Duration::from_secs(3600);
/// Highest live bitrate a server generates (10 Gbit/s).
pub const MAX_LIVE_BITRATE: u64 = 10_000_000_000;

/// What a client asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Request {
    /// `bytes` bytes.
    Sized {
        /// How many.
        bytes: u64,
    },
    /// Bytes for `duration`, or until the client stops reading.
    Bulk {
        /// How long at most.
        duration: Duration,
    },
    /// A live stream for `duration`.
    Live {
        /// The stream.
        config: LiveConfig,
        /// How long.
        duration: Duration,
    },
}

impl Request {
    /// The request line, newline included.
    pub fn line(&self) -> String {
        match self {
            Request::Sized { bytes } => format!("SIZE {bytes}\n"),
            Request::Bulk { duration } => format!("BULK {}\n", duration.as_millis()),
            Request::Live { config, duration } => {
                let ratio = match config.frame_sizes {
                    FrameSizes::Constant => 1.0,
                    FrameSizes::Gop { i_frame_ratio } => i_frame_ratio,
                };
                format!(
                    "LIVE {} {} {} {} {} {}\n",
                    config.bitrate.bits_per_sec(),
                    config.frame_interval.as_micros(),
                    config.gop.as_micros(),
                    ratio,
                    config.deadline.as_micros(),
                    duration.as_millis()
                )
            }
        }
    }

    /// Parses a request line (without its newline).
    ///
    /// # Errors
    /// The message names the field and what was expected.
    pub fn parse(line: &str) -> Result<Request, String> {
        let mut words = line.split_ascii_whitespace();
        let verb = words
            .next()
            .ok_or("empty request: expected SIZE, BULK or LIVE")?;
        let mut int = |field: &str| -> Result<u64, String> {
            let word = words
                .next()
                .ok_or_else(|| format!("{verb}: missing {field}"))?;
            word.parse::<u64>()
                .map_err(|_| format!("{verb}: {field}: expected a whole number, got {word:?}"))
        };
        let duration = |ms: u64| -> Result<Duration, String> {
            let d = Duration::from_millis(ms);
            if d.is_zero() || d > MAX_DURATION {
                return Err(format!(
                    "{verb}: duration: expected 1 to {} ms, got {ms}",
                    MAX_DURATION.as_millis()
                ));
            }
            Ok(d)
        };
        let request = match verb {
            "SIZE" => {
                let bytes = int("bytes")?;
                if bytes > MAX_SIZE {
                    return Err(format!(
                        "SIZE: bytes: expected at most {MAX_SIZE}, got {bytes}"
                    ));
                }
                Request::Sized { bytes }
            }
            "BULK" => Request::Bulk {
                duration: duration(int("milliseconds")?)?,
            },
            "LIVE" => {
                let bitrate = int("bitrate")?;
                if bitrate > MAX_LIVE_BITRATE {
                    return Err(format!(
                        "LIVE: bitrate: expected at most {MAX_LIVE_BITRATE} bit/s, got {bitrate}"
                    ));
                }
                let frame_interval = Duration::from_micros(int("frame interval")?);
                let gop = Duration::from_micros(int("gop")?);
                let ratio_word = words.next().ok_or("LIVE: missing I/P ratio")?;
                let ratio: f64 = ratio_word.parse().map_err(|_| {
                    format!("LIVE: I/P ratio: expected a decimal number, got {ratio_word:?}")
                })?;
                let mut int = |field: &str| -> Result<u64, String> {
                    let word = words
                        .next()
                        .ok_or_else(|| format!("LIVE: missing {field}"))?;
                    word.parse::<u64>().map_err(|_| {
                        format!("LIVE: {field}: expected a whole number, got {word:?}")
                    })
                };
                let deadline = Duration::from_micros(int("deadline")?);
                let config = LiveConfig {
                    bitrate: Bandwidth::from_bits_per_sec(bitrate),
                    frame_interval,
                    gop,
                    frame_sizes: if ratio == 1.0 {
                        FrameSizes::Constant
                    } else {
                        FrameSizes::Gop {
                            i_frame_ratio: ratio,
                        }
                    },
                    deadline,
                    client: sim::app::live::LiveClient::Bbrlab,
                };
                config.validate().map_err(|e| format!("LIVE: {e}"))?;
                Request::Live {
                    config,
                    duration: duration(int("milliseconds")?)?,
                }
            }
            other => {
                return Err(format!(
                    "unknown request {other:?}: expected SIZE, BULK or LIVE"
                ))
            }
        };
        if let Some(extra) = words.next() {
            return Err(format!("{verb}: unexpected {extra:?} after the request"));
        }
        Ok(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_survives_its_line() {
        let requests = [
            Request::Sized { bytes: 100_000_000 },
            Request::Bulk {
                duration: Duration::from_secs(30),
            },
            Request::Live {
                config: LiveConfig::COPILOT_PAPER,
                duration: Duration::from_secs(60),
            },
            Request::Live {
                config: LiveConfig {
                    frame_sizes: FrameSizes::Gop { i_frame_ratio: 2.5 },
                    ..LiveConfig::COPILOT_PAPER
                },
                duration: Duration::from_secs(5),
            },
        ];
        for request in requests {
            let line = request.line();
            assert!(line.len() <= MAX_REQUEST_LINE, "{line}");
            assert_eq!(Request::parse(line.trim_end()).unwrap(), request, "{line}");
        }
    }

    #[test]
    fn bad_requests_are_named() {
        for (line, expected) in [
            ("", "empty request"),
            ("GET /", "unknown request \"GET\""),
            ("SIZE", "SIZE: missing bytes"),
            ("SIZE -1", "SIZE: bytes: expected a whole number"),
            ("SIZE 99999999999999999", "SIZE: bytes: expected at most"),
            ("BULK 0", "BULK: duration: expected 1 to"),
            ("BULK 99999999", "BULK: duration: expected 1 to"),
            ("LIVE 5000000 40000 2000000 x 1000000 1000", "I/P ratio"),
            ("LIVE 0 40000 2000000 1 1000000 1000", "LIVE: bitrate"),
            (
                "LIVE 99000000000 40000 2000000 1 1000000 1000",
                "expected at most",
            ),
            ("LIVE 5000000 40000 1000 1 1000000 1000", "LIVE: gop"),
            ("SIZE 10 11", "unexpected \"11\""),
        ] {
            let error = Request::parse(line).unwrap_err();
            assert!(error.contains(expected), "{line:?}: {error}");
        }
    }
}
