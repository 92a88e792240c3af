//! qlog output: a connection's congestion-control trace in the JSON-SEQ
//! flavour of qlog 0.3, the one qvis (qvis.quictools.info) reads, so a
//! simulated and a real connection can be looked at side by side.
//!
//! A file is a header record, then one record per event; each record
//! starts with the record separator 0x1E and ends with a line feed (RFC
//! 7464). Times are milliseconds relative to the connection's start.
//! Events written: `transport:packet_sent`, `transport:packet_received`
//! (ACK frames, with their acknowledged ranges), `recovery:packet_lost`,
//! `recovery:metrics_updated` (cwnd, bytes in flight, RTTs, pacing rate)
//! and `recovery:congestion_state_updated` (the controller's mode).
//! Current IETF drafts renamed these events (`quic:recovery_metrics_updated`
//! and so on); qvis shows the 0.3 names.

use std::io::{self, Write};
use std::time::Duration;

use serde_json::{json, Value};

/// Which end of the connection a trace describes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Vantage {
    /// The data sender (a server sending a download).
    #[default]
    Server,
    /// The data receiver.
    Client,
}

impl Vantage {
    /// The qlog name of the vantage point.
    pub fn name(self) -> &'static str {
        match self {
            Vantage::Server => "server",
            Vantage::Client => "client",
        }
    }
}

/// The recovery state a `recovery:metrics_updated` event reports.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Congestion window, bytes.
    pub congestion_window: u64,
    /// Bytes in flight.
    pub bytes_in_flight: u64,
    /// Minimum RTT.
    pub min_rtt: Duration,
    /// Smoothed RTT.
    pub smoothed_rtt: Duration,
    /// Latest RTT sample.
    pub latest_rtt: Duration,
    /// Pacing rate, bits per second (`None`: unpaced).
    pub pacing_rate_bps: Option<f64>,
}

/// Where a simulated flow's trace goes: any writer (a file, a buffer).
pub struct QlogSink(pub Box<dyn Write + Send>);

impl Write for QlogSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl std::fmt::Debug for QlogSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("QlogSink")
    }
}

/// Inclusive ranges of the sorted, de-duplicated `numbers`.
pub fn ranges(numbers: &[u64]) -> Vec<(u64, u64)> {
    let mut sorted = numbers.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for n in sorted {
        match out.last_mut() {
            Some((_, end)) if *end + 1 == n => *end = n,
            _ => out.push((n, n)),
        }
    }
    out
}

/// Writes one connection's qlog. Write errors are kept and returned by
/// [`QlogWriter::finish`], so tracing never interrupts a run.
#[derive(Debug)]
pub struct QlogWriter<W: Write> {
    out: W,
    error: Option<io::Error>,
    last_mode: Option<String>,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

impl<W: Write> QlogWriter<W> {
    /// Starts a trace titled `title` from `vantage`.
    pub fn new(out: W, title: &str, vantage: Vantage) -> QlogWriter<W> {
        let mut writer = QlogWriter {
            out,
            error: None,
            last_mode: None,
        };
        writer.record(&json!({
            "qlog_version": "0.3",
            "qlog_format": "JSON-SEQ",
            "title": title,
            "trace": {
                "title": title,
                "vantage_point": { "type": vantage.name() },
                "common_fields": {
                    "time_format": "relative",
                    "reference_time": 0,
                    "protocol_type": ["QUIC"],
                },
            },
        }));
        writer
    }

    fn record(&mut self, value: &Value) {
        if self.error.is_some() {
            return;
        }
        let result = self
            .out
            .write_all(b"\x1e")
            .and_then(|()| serde_json::to_writer(&mut self.out, value).map_err(io::Error::from))
            .and_then(|()| self.out.write_all(b"\n"));
        if let Err(e) = result {
            self.error = Some(e);
        }
    }

    fn event(&mut self, t: Duration, name: &str, data: Value) {
        self.record(&json!({ "time": ms(t), "name": name, "data": data }));
    }

    /// A packet of `length` bytes numbered `number` left.
    pub fn packet_sent(&mut self, t: Duration, number: u64, length: u64) {
        self.event(
            t,
            "transport:packet_sent",
            json!({
                "header": { "packet_type": "1RTT", "packet_number": number },
                "raw": { "length": length },
            }),
        );
    }

    /// An ACK frame acknowledging the inclusive packet-number `ranges` arrived.
    pub fn ack_received(&mut self, t: Duration, ranges: &[(u64, u64)]) {
        let ranges: Vec<[String; 2]> = ranges
            .iter()
            .map(|(a, b)| [a.to_string(), b.to_string()])
            .collect();
        self.event(
            t,
            "transport:packet_received",
            json!({
                "header": { "packet_type": "1RTT" },
                "frames": [{ "frame_type": "ack", "acked_ranges": ranges }],
            }),
        );
    }

    /// Packet `number` was declared lost.
    pub fn packet_lost(&mut self, t: Duration, number: u64) {
        self.event(
            t,
            "recovery:packet_lost",
            json!({ "header": { "packet_type": "1RTT", "packet_number": number } }),
        );
    }

    /// The recovery state after an ACK or a loss.
    pub fn metrics_updated(&mut self, t: Duration, m: &Metrics) {
        let mut data = json!({
            "congestion_window": m.congestion_window,
            "bytes_in_flight": m.bytes_in_flight,
            "min_rtt": ms(m.min_rtt),
            "smoothed_rtt": ms(m.smoothed_rtt),
            "latest_rtt": ms(m.latest_rtt),
        });
        if let Some(rate) = m.pacing_rate_bps {
            data["pacing_rate"] = json!(rate.round() as u64);
        }
        self.event(t, "recovery:metrics_updated", data);
    }

    /// The controller is in `mode`; written only when it changed.
    pub fn mode(&mut self, t: Duration, mode: &str) {
        if self.last_mode.as_deref() == Some(mode) {
            return;
        }
        let old = self.last_mode.replace(mode.to_string());
        let mut data = json!({ "new": mode });
        if let Some(old) = old {
            data["old"] = json!(old);
        }
        self.event(t, "recovery:congestion_state_updated", data);
    }

    /// Flushes and returns the writer, or the first write error.
    ///
    /// # Errors
    /// A write failed during the trace or the final flush.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Parses a qlog JSON-SEQ text into its records (header first), checking
/// the framing: what a reader such as qvis expects.
///
/// # Errors
/// A record that does not start with 0x1E, or is not JSON, named by its
/// position.
pub fn parse(text: &str) -> Result<Vec<Value>, String> {
    let mut records = Vec::new();
    for (i, chunk) in text.split_inclusive('\n').enumerate() {
        let body = chunk
            .strip_prefix('\x1e')
            .ok_or_else(|| format!("record {}: does not start with 0x1E", i + 1))?;
        let value = serde_json::from_str(body.trim_end())
            .map_err(|e| format!("record {}: not JSON: {e}", i + 1))?;
        records.push(value);
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_json_seq_with_a_qlog_0_3_header() {
        let mut w = QlogWriter::new(Vec::new(), "flow 0", Vantage::Server);
        w.packet_sent(Duration::from_millis(1), 0, 1500);
        w.ack_received(Duration::from_millis(41), &[(0, 0)]);
        w.metrics_updated(
            Duration::from_millis(41),
            &Metrics {
                congestion_window: 15_000,
                bytes_in_flight: 0,
                min_rtt: Duration::from_millis(40),
                smoothed_rtt: Duration::from_millis(40),
                latest_rtt: Duration::from_millis(40),
                pacing_rate_bps: Some(2.0e6),
            },
        );
        w.mode(Duration::from_millis(41), "startup");
        w.mode(Duration::from_millis(42), "startup");
        w.mode(Duration::from_millis(90), "drain");
        w.packet_lost(Duration::from_millis(95), 7);
        let bytes = w.finish().unwrap();
        let text = String::from_utf8(bytes).unwrap();
        let records = parse(&text).unwrap();
        assert_eq!(records[0]["qlog_version"], "0.3");
        assert_eq!(records[0]["qlog_format"], "JSON-SEQ");
        assert_eq!(
            records[0]["trace"]["common_fields"]["time_format"],
            "relative"
        );
        let names: Vec<&str> = records[1..]
            .iter()
            .map(|r| r["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "transport:packet_sent",
                "transport:packet_received",
                "recovery:metrics_updated",
                "recovery:congestion_state_updated",
                "recovery:congestion_state_updated",
                "recovery:packet_lost",
            ],
            "a repeated mode is not written again"
        );
        assert_eq!(records[2]["data"]["frames"][0]["acked_ranges"][0][1], "0");
        assert_eq!(records[3]["data"]["pacing_rate"], 2_000_000);
        assert_eq!(records[5]["data"]["old"], "startup");
        assert_eq!(records[1]["time"], 1.0);
    }

    #[test]
    fn a_failing_writer_is_reported_at_the_end_not_during_the_run() {
        #[derive(Debug)]
        struct Broken;
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut w = QlogWriter::new(Broken, "t", Vantage::Client);
        w.packet_sent(Duration::ZERO, 0, 1200);
        assert_eq!(w.finish().unwrap_err().to_string(), "disk full");
    }

    #[test]
    fn unframed_records_are_named() {
        assert!(parse("{}\n").unwrap_err().contains("record 1"));
        assert!(parse("\x1e{}\n\x1e{\n").unwrap_err().contains("record 2"));
    }
}
