//! Capacity traces read from files: mahimahi delivery-opportunity traces
//! (mm-link's format) and piecewise-constant rate traces (the Irish 5G
//! dataset's CSVs, or steps built in code).
//!
//! Parsing is strict and every error names the file, the 1-based line where
//! one applies, and what was expected, because a silently misread trace
//! would quietly change every result computed over it.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use cc::{Bandwidth, Bytes};
use time::format_description::BorrowedFormatItem;
use time::PrimitiveDateTime;

use crate::MAX_RATE;

/// Bytes one mahimahi delivery opportunity carries. mahimahi's code counts
/// 1504 (its docs say 1500); we follow the code so results match mm-link.
pub const MAHIMAHI_PACKET_BYTES: Bytes = Bytes(1504);

/// Largest accepted mahimahi timestamp (about 35 years): keeps every
/// opportunity of the first loops representable in 64-bit nanoseconds.
const MAX_TIMESTAMP_MS: u64 = 1 << 40;

const NANOS_PER_SEC: u64 = 1_000_000_000;

/// Most delivery opportunities one millisecond of a mahimahi trace may hold:
/// 1 Tbit/s ([`MAX_RATE`]) worth of 1504-byte packets.
const MAX_OPPORTUNITIES_PER_MS: u64 =
    MAX_RATE.bits_per_sec() / 1000 / (MAHIMAHI_PACKET_BYTES.get() * 8);

/// Longest bad value quoted in an error message, so a binary file fed by
/// mistake does not produce a megabyte-long message.
const MAX_QUOTED_CHARS: usize = 60;

/// Why a trace could not be read: which file, which line (1-based, when one
/// applies) and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// The trace file (or a pseudo-path such as `<steps>` for traces built in code).
    pub path: PathBuf,
    /// 1-based line number, when the problem is on a particular line.
    pub line: Option<usize>,
    /// What went wrong and what was expected.
    pub message: String,
}

impl TraceError {
    fn new(path: &Path, line: Option<usize>, message: impl Into<String>) -> TraceError {
        TraceError {
            path: path.to_path_buf(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.path.display(), line, self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for TraceError {}

/// Quotes a bad value for an error message, shortened if huge.
fn quoted(s: &str) -> String {
    if s.chars().count() <= MAX_QUOTED_CHARS {
        format!("{s:?}")
    } else {
        let head: String = s.chars().take(MAX_QUOTED_CHARS).collect();
        format!("{head:?}...")
    }
}

/// Reads a whole trace file as UTF-8, locating an encoding error by line so
/// the user can find it.
fn read_text(path: &Path) -> Result<String, TraceError> {
    let bytes = std::fs::read(path)
        .map_err(|e| TraceError::new(path, None, format!("cannot read the trace file: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..valid]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        TraceError::new(
            path,
            Some(line),
            "expected UTF-8 text, found a byte that is not UTF-8",
        )
    })
}

/// Numbered lines of a text, 1-based, trimmed, blank ones skipped, with a
/// leading byte-order mark removed (spreadsheet exports add one).
fn content_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty())
}

/// A mahimahi (mm-link) delivery-opportunity trace: one millisecond
/// timestamp per opportunity, each worth [`MAHIMAHI_PACKET_BYTES`]; it loops
/// by advancing its base time by its last timestamp.
///
/// Invariants (enforced by parsing): at least one timestamp, non-decreasing,
/// last timestamp > 0.
#[derive(Clone, Debug, PartialEq)]
pub struct MahimahiTrace {
    timestamps_ms: Vec<u64>,
    /// Where in the trace a link using it starts (within one period).
    start: Duration,
}

impl MahimahiTrace {
    /// Reads and parses a trace file.
    pub fn from_file(path: &Path) -> Result<MahimahiTrace, TraceError> {
        MahimahiTrace::parse(&read_text(path)?, path)
    }

    /// Parses a trace's text; `path` is only used in error messages.
    /// Blank lines and whitespace around numbers are tolerated.
    pub fn parse(text: &str, path: &Path) -> Result<MahimahiTrace, TraceError> {
        let mut timestamps_ms: Vec<u64> = Vec::new();
        let mut last_line = 0;
        let mut same_ms = 0;
        for (line, s) in content_lines(text) {
            // `str::parse::<u64>` would accept "+5"; mm-link's traces never hold signs.
            let value = if s.bytes().all(|b| b.is_ascii_digit()) {
                s.parse::<u64>().ok()
            } else {
                None
            };
            let Some(ms) = value else {
                return Err(TraceError::new(
                    path,
                    Some(line),
                    format!(
                        "expected a millisecond timestamp (non-negative integer), got {}",
                        quoted(s)
                    ),
                ));
            };
            if ms > MAX_TIMESTAMP_MS {
                return Err(TraceError::new(
                    path,
                    Some(line),
                    format!("timestamp {ms} ms is too large (at most {MAX_TIMESTAMP_MS} ms)"),
                ));
            }
            if let Some(&prev) = timestamps_ms.last() {
                if ms < prev {
                    return Err(TraceError::new(
                        path,
                        Some(line),
                        format!(
                            "timestamp {ms} is smaller than the previous one ({prev}): \
                             timestamps must not decrease"
                        ),
                    ));
                }
            }
            if Some(&ms) == timestamps_ms.last() {
                same_ms += 1;
                if same_ms > MAX_OPPORTUNITIES_PER_MS {
                    return Err(TraceError::new(
                        path,
                        Some(line),
                        format!(
                            "more than {MAX_OPPORTUNITIES_PER_MS} delivery opportunities at \
                             {ms} ms: that is above 1 Tbit/s, outside the plausible range"
                        ),
                    ));
                }
            } else {
                same_ms = 1;
            }
            timestamps_ms.push(ms);
            last_line = line;
        }
        match timestamps_ms.last() {
            None => Err(TraceError::new(
                path,
                None,
                "empty trace: expected one millisecond timestamp per line",
            )),
            Some(0) => Err(TraceError::new(
                path,
                Some(last_line),
                "the last timestamp is 0: the trace loops every <last timestamp> ms, \
                 so it must end at 1 ms or later",
            )),
            Some(_) => Ok(MahimahiTrace {
                timestamps_ms,
                start: Duration::ZERO,
            }),
        }
    }

    /// The same trace, entered `start` into it (reduced modulo the period):
    /// a link's time 0 is the trace's `start`, so streams over one trace can
    /// meet different stretches of it.
    pub fn starting_at(mut self, start: Duration) -> MahimahiTrace {
        let period = self.period().as_nanos().max(1);
        self.start = Duration::from_nanos((start.as_nanos() % period) as u64);
        self
    }

    /// Where in the trace a link using it starts.
    pub fn start(&self) -> Duration {
        self.start
    }

    /// Bytes per delivery opportunity ([`MAHIMAHI_PACKET_BYTES`]).
    pub fn opportunity_bytes(&self) -> Bytes {
        MAHIMAHI_PACKET_BYTES
    }

    /// The opportunities' millisecond timestamps within one loop.
    pub fn timestamps_ms(&self) -> &[u64] {
        &self.timestamps_ms
    }

    /// The loop period: the last timestamp, as mm-link advances its base by it.
    pub fn period(&self) -> Duration {
        Duration::from_millis(self.timestamps_ms.last().copied().unwrap_or(0))
    }

    /// Long-run capacity: opportunities per period times their bytes.
    pub fn mean_rate(&self) -> Bandwidth {
        let period_ms = self.timestamps_ms.last().copied().unwrap_or(0) as u128;
        if period_ms == 0 {
            return Bandwidth::ZERO;
        }
        let bits = self.timestamps_ms.len() as u128 * MAHIMAHI_PACKET_BYTES.get() as u128 * 8;
        let bps = bits * 1000 / period_ms;
        Bandwidth::from_bits_per_sec(bps.min(u64::MAX as u128) as u64)
    }
}

/// A looping piecewise-constant rate: each step's rate holds from its offset
/// to the next step's (the last one to the period's end), then it starts over.
///
/// Invariants (enforced by every constructor): the first step is at offset
/// 0, offsets strictly increase and stay below the period, the period fits
/// 64-bit nanoseconds, and some step has a non-zero rate.
#[derive(Clone, Debug, PartialEq)]
pub struct PiecewiseTrace {
    steps: Vec<(Duration, Bandwidth)>,
    period: Duration,
    /// Where in the trace a link using it starts (within one period).
    start: Duration,
}

/// One CSV row of the Irish 5G dataset, as far as capacity is concerned.
struct IrishRow {
    second: i64,
    downloading: bool,
    rate: Bandwidth,
}

impl PiecewiseTrace {
    /// Builds a trace from `(offset, rate)` steps and a loop period.
    /// Errors (named after the pseudo-path `<steps>`) when the steps are
    /// empty, do not start at 0, do not strictly increase, reach the period,
    /// or are all zero.
    pub fn from_steps(
        steps: Vec<(Duration, Bandwidth)>,
        period: Duration,
    ) -> Result<PiecewiseTrace, TraceError> {
        let path = Path::new("<steps>");
        let fail = |m: String| Err(TraceError::new(path, None, m));
        let Some(&(first, _)) = steps.first() else {
            return fail("no steps: expected at least one (offset, rate) step".into());
        };
        if first != Duration::ZERO {
            return fail(format!(
                "the first step is at {first:?}: expected it at offset 0"
            ));
        }
        for pair in steps.windows(2) {
            if pair[1].0 <= pair[0].0 {
                return fail(format!(
                    "step offsets must strictly increase, got {:?} after {:?}",
                    pair[1].0, pair[0].0
                ));
            }
        }
        let last = steps[steps.len() - 1].0;
        if period <= last {
            return fail(format!(
                "the period ({period:?}) must be longer than the last step's offset ({last:?})"
            ));
        }
        if period.as_nanos() > u64::MAX as u128 {
            return fail(format!(
                "the period ({period:?}) is too long (at most 584 years)"
            ));
        }
        if steps.iter().all(|&(_, r)| r == Bandwidth::ZERO) {
            return fail("every step has rate 0: the trace has no capacity".into());
        }
        if let Some(&(at, rate)) = steps.iter().find(|&&(_, r)| r > MAX_RATE) {
            return fail(format!(
                "the step at {at:?} has rate {} bit/s: expected at most {} bit/s (1 Tbit/s)",
                rate.bits_per_sec(),
                MAX_RATE.bits_per_sec()
            ));
        }
        Ok(PiecewiseTrace {
            steps,
            period,
            start: Duration::ZERO,
        })
    }

    /// Reads and parses an Irish 5G dataset CSV (see [`PiecewiseTrace::parse_irish5g`]).
    pub fn from_irish5g_file(path: &Path) -> Result<PiecewiseTrace, TraceError> {
        PiecewiseTrace::parse_irish5g(&read_text(path)?, path)
    }

    /// Parses an Irish 5G dataset CSV; `path` is only used in error messages.
    ///
    /// Following the dataset's README: rows are sorted by time (stably), the
    /// k rows sharing one second are spread evenly over it (at s + i/k), and
    /// each row's `DL_bitrate` (kbit/s) holds until the next row, whatever its
    /// state. Only downloading rows (`State` == `D`) become capacity; the time
    /// of other rows (idle, video) is cut out, so the downloading stretches
    /// are concatenated. The last row holds for its slot (1 s, or 1/k s when
    /// it shares its second). Offsets start at the first downloading row.
    pub fn parse_irish5g(text: &str, path: &Path) -> Result<PiecewiseTrace, TraceError> {
        let err = |line: Option<usize>, m: String| TraceError::new(path, line, m);
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(text.as_bytes());
        // The reader's own line count skips blank lines, and a record's
        // position is where the previous one ended (before any blank lines):
        // its line is that of its first byte after them.
        let bytes = text.as_bytes();
        let newlines: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i] == b'\n').collect();
        let line_of = |p: &csv::Position| {
            let mut at = p.byte() as usize;
            while at < bytes.len() && matches!(bytes[at], b'\n' | b'\r') {
                at += 1;
            }
            newlines.partition_point(|&n| n < at) + 1
        };
        // Records with their line, blank (whitespace-only) lines skipped.
        let mut records = reader.records().filter_map(|record| match record {
            Ok(r) if r.len() == 1 && r[0].is_empty() => None,
            Ok(r) => Some(Ok((r.position().map_or(0, line_of), r))),
            Err(e) => Some(Err(err(
                e.position().map(line_of),
                format!("not a CSV file: {e}"),
            ))),
        });
        let Some(first) = records.next() else {
            return Err(err(
                None,
                "empty file: expected a CSV header naming Timestamp, DL_bitrate and State".into(),
            ));
        };
        let (header_line, header) = first?;
        let find = |name: &str| header.iter().position(|n| n == name);
        let (ts_col, dl_col, state_col) =
            match (find("Timestamp"), find("DL_bitrate"), find("State")) {
                (Some(t), Some(d), Some(s)) => (t, d, s),
                (t, d, s) => {
                    let missing: Vec<&str> = [(t, "Timestamp"), (d, "DL_bitrate"), (s, "State")]
                        .iter()
                        .filter(|(i, _)| i.is_none())
                        .map(|&(_, n)| n)
                        .collect();
                    return Err(err(
                        Some(header_line),
                        format!(
                            "missing column(s) {} in the header: expected a CSV header naming \
                         Timestamp, DL_bitrate and State",
                            missing.join(", ")
                        ),
                    ));
                }
            };
        let needed = ts_col.max(dl_col).max(state_col) + 1;

        let mut rows = Vec::new();
        for record in records {
            let (line, fields) = record?;
            if fields.len() < needed {
                return Err(err(
                    Some(line),
                    format!(
                        "expected at least {needed} comma-separated fields (the header's \
                         Timestamp, DL_bitrate and State columns), got {}",
                        fields.len()
                    ),
                ));
            }
            let second = parse_irish_timestamp(&fields[ts_col]).ok_or_else(|| {
                err(
                    Some(line),
                    format!(
                        "expected a Timestamp like 2020.02.14_09.38.22, got {}",
                        quoted(&fields[ts_col])
                    ),
                )
            })?;
            let downloading = &fields[state_col] == "D";
            // Only downloading rows carry capacity; idle rows' rates are never used.
            let rate = if downloading {
                parse_kbps(&fields[dl_col]).ok_or_else(|| {
                    err(
                        Some(line),
                        format!(
                            "expected DL_bitrate in kbit/s (a non-negative number), got {}",
                            quoted(&fields[dl_col])
                        ),
                    )
                })?
            } else {
                Bandwidth::ZERO
            };
            if rate > MAX_RATE {
                return Err(err(
                    Some(line),
                    format!(
                        "DL_bitrate {} kbit/s is outside the plausible range: \
                         expected at most {} kbit/s (1 Tbit/s)",
                        quoted(&fields[dl_col]),
                        MAX_RATE.bits_per_sec() / 1000
                    ),
                ));
            }
            rows.push(IrishRow {
                second,
                downloading,
                rate,
            });
        }
        if !rows.iter().any(|r| r.downloading) {
            return Err(err(
                None,
                "no downloading rows (State \"D\"): nothing to use as capacity".into(),
            ));
        }
        if rows
            .iter()
            .all(|r| !r.downloading || r.rate == Bandwidth::ZERO)
        {
            return Err(err(
                None,
                "every downloading row has DL_bitrate 0: the trace has no capacity".into(),
            ));
        }
        rows.sort_by_key(|r| r.second);

        // Row times in ns since the first row; u128 because a corrupt file
        // may span millennia, which is rejected below instead of overflowing.
        let first = rows[0].second;
        let mut times: Vec<u128> = Vec::with_capacity(rows.len());
        let mut slots: Vec<u128> = Vec::with_capacity(rows.len());
        let mut i = 0;
        while i < rows.len() {
            let k = rows[i..]
                .iter()
                .take_while(|r| r.second == rows[i].second)
                .count();
            let base = (rows[i].second - first) as u128 * NANOS_PER_SEC as u128;
            let slot = (NANOS_PER_SEC as u128 / k as u128).max(1);
            for j in 0..k {
                times.push(base + j as u128 * NANOS_PER_SEC as u128 / k as u128);
                slots.push(slot);
            }
            i += k;
        }

        let mut steps: Vec<(u128, Bandwidth)> = Vec::new();
        let mut offset: u128 = 0;
        for (idx, row) in rows.iter().enumerate() {
            if !row.downloading {
                continue;
            }
            let hold = match times.get(idx + 1) {
                Some(&next) => next - times[idx],
                None => slots[idx],
            };
            if hold == 0 {
                continue;
            }
            // Equal neighbours merge so the capacity crosses fewer segments.
            if steps.last().map(|s| s.1) != Some(row.rate) {
                steps.push((offset, row.rate));
            }
            offset += hold;
        }
        if offset > u64::MAX as u128 {
            return Err(err(
                None,
                "the downloading rows span more than 584 years: check the Timestamp column".into(),
            ));
        }
        let steps = steps
            .into_iter()
            .map(|(o, r)| (Duration::from_nanos(o as u64), r))
            .collect();
        Ok(PiecewiseTrace {
            steps,
            period: Duration::from_nanos(offset as u64),
            start: Duration::ZERO,
        })
    }

    /// The same trace, entered `start` into it (reduced modulo the period).
    pub fn starting_at(mut self, start: Duration) -> PiecewiseTrace {
        let period = self.period.as_nanos().max(1);
        self.start = Duration::from_nanos((start.as_nanos() % period) as u64);
        self
    }

    /// Where in the trace a link using it starts.
    pub fn start(&self) -> Duration {
        self.start
    }

    /// The `(offset, rate)` steps within one period.
    pub fn steps(&self) -> &[(Duration, Bandwidth)] {
        &self.steps
    }

    /// The loop period.
    pub fn period(&self) -> Duration {
        self.period
    }

    /// Time-weighted mean rate over one period.
    pub fn mean_rate(&self) -> Bandwidth {
        let period = self.period.as_nanos();
        if period == 0 {
            return Bandwidth::ZERO;
        }
        let mut bit_nanos: u128 = 0;
        for (i, &(at, rate)) in self.steps.iter().enumerate() {
            let end = self.steps.get(i + 1).map_or(self.period, |s| s.0);
            let dur = end.saturating_sub(at).as_nanos();
            bit_nanos = bit_nanos.saturating_add(rate.bits_per_sec() as u128 * dur);
        }
        Bandwidth::from_bits_per_sec((bit_nanos / period).min(u64::MAX as u128) as u64)
    }

    /// The rate at `offset` from the trace's start (looping).
    pub fn rate_at(&self, offset: Duration) -> Bandwidth {
        let period = self.period.as_nanos();
        if period == 0 || self.steps.is_empty() {
            return Bandwidth::ZERO;
        }
        let within = Duration::from_nanos((offset.as_nanos() % period) as u64);
        let i = self
            .steps
            .partition_point(|s| s.0 <= within)
            .saturating_sub(1);
        self.steps[i].1
    }
}

/// Parses `2020.02.14_09.38.22` into seconds since 1970-01-01 (treating the
/// local time as if it were UTC: only differences matter). Four-digit year,
/// two-digit fields, a valid calendar date and a time of day up to 23.59.59.
fn parse_irish_timestamp(s: &str) -> Option<i64> {
    static FORMAT: OnceLock<Vec<BorrowedFormatItem<'static>>> = OnceLock::new();
    let format = FORMAT.get_or_init(|| {
        time::format_description::parse_borrowed::<2>(
            "[year].[month].[day]_[hour].[minute].[second]",
        )
        .expect("a valid format description")
    });
    let at = PrimitiveDateTime::parse(s, format).ok()?;
    Some(at.assume_utc().unix_timestamp())
}

/// Parses a kbit/s value (integer or decimal) into a rate.
/// Values too large for 64 bits saturate, so the caller's range check, not a
/// syntax error, reports them.
fn parse_kbps(s: &str) -> Option<Bandwidth> {
    if s.bytes().all(|b| b.is_ascii_digit()) && !s.is_empty() {
        // All digits, so the only way parsing fails is overflow.
        let kbps: u64 = s.parse().unwrap_or(u64::MAX);
        return Some(Bandwidth::from_bits_per_sec(kbps.saturating_mul(1000)));
    }
    let v: f64 = s.parse().ok()?;
    if !v.is_finite() || v < 0.0 || s.starts_with('+') {
        return None;
    }
    Some(Bandwidth::from_bps_f64((v * 1000.0).round()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/traces");

    fn p(s: &str) -> &Path {
        Path::new(s)
    }

    #[test]
    fn mahimahi_parses_and_reports_rate_and_period() {
        let t = MahimahiTrace::parse("1\n", p("one.down")).unwrap();
        assert_eq!(t.period(), Duration::from_millis(1));
        assert_eq!(t.mean_rate(), Bandwidth::from_bits_per_sec(12_032_000));
        assert_eq!(t.opportunity_bytes(), Bytes(1504));

        let t = MahimahiTrace::parse("\n  3 \r\n3\n\n7\n", p("x")).unwrap();
        assert_eq!(t.timestamps_ms(), &[3, 3, 7]);
        assert_eq!(t.period(), Duration::from_millis(7));
    }

    #[test]
    fn mahimahi_real_trace_mean_rate() {
        let path = Path::new(TRACES).join("mahimahi/TMobile-LTE-short.down");
        let t = MahimahiTrace::from_file(&path).unwrap();
        let mbps = t.mean_rate().as_mbps_f64();
        assert!((16.5..17.0).contains(&mbps), "mean {mbps}");
        assert!((139.0..141.0).contains(&t.period().as_secs_f64()));
    }

    #[test]
    fn mahimahi_errors_name_file_line_and_expectation() {
        let e = MahimahiTrace::parse("1\n2\n\nabc\n", p("traces/x.down")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "traces/x.down:4: expected a millisecond timestamp (non-negative integer), got \"abc\""
        );
        for bad in ["-3", "+3", "1.5", "3 4"] {
            let e = MahimahiTrace::parse(bad, p("t")).unwrap_err();
            assert_eq!(e.line, Some(1), "{bad}");
        }
        let e = MahimahiTrace::parse("5\n7\n6\n", p("t")).unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("must not decrease"), "{e}");
        let e = MahimahiTrace::parse("\n \n", p("t")).unwrap_err();
        assert_eq!(
            (e.line, e.to_string().starts_with("t: empty trace")),
            (None, true)
        );
        let e = MahimahiTrace::parse("0\n0\n", p("t")).unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = MahimahiTrace::parse("99999999999999999999", p("t")).unwrap_err();
        assert_eq!(e.line, Some(1));
        let e = MahimahiTrace::from_file(p("/nonexistent/trace.down")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/nonexistent/trace.down: cannot read"),
            "{e}"
        );
    }

    const HEADER: &str = "Timestamp,Longitude,DL_bitrate,State,PINGAVG";

    #[test]
    fn irish5g_spreads_duplicates_removes_idle_and_holds_rates() {
        let csv = format!(
            "{HEADER}\n\
             2020.02.14_09.38.23,-8.1,2000,D,-\n\
             2020.02.14_09.38.22,-8.1,1000,D,-\n\
             2020.02.14_09.38.23,-8.1,4000,D,-\n\
             2020.02.14_09.38.24,-8.1,0,I,-\n\
             2020.02.14_09.38.25,-8.1,0,I,-\n\
             2020.02.14_09.38.26,-8.1,3000,D,12.5\n\
             2020.02.14_09.38.29,-8.1,0,D,-\n"
        );
        let t = PiecewiseTrace::parse_irish5g(&csv, p("x.csv")).unwrap();
        let ms = Duration::from_millis;
        let k = Bandwidth::from_kbps;
        assert_eq!(
            t.steps(),
            &[
                (ms(0), k(1000)),
                (ms(1000), k(2000)),
                (ms(1500), k(4000)),
                (ms(2000), k(3000)),
                (ms(5000), k(0))
            ]
        );
        assert_eq!(t.period(), ms(6000));
        assert_eq!(t.rate_at(ms(1600)), k(4000));
        assert_eq!(t.rate_at(ms(6000 + 2500)), k(3000));
        // (1000 + 0.5*2000 + 0.5*4000 + 3*3000 + 0) / 6 s.
        assert_eq!(t.mean_rate(), Bandwidth::from_bits_per_sec(13_000_000 / 6));
    }

    #[test]
    fn irish5g_real_static_file() {
        let path = Path::new(TRACES).join("irish-5g/Static/B_2019.12.16_13.40.04.csv");
        let t = PiecewiseTrace::from_irish5g_file(&path).unwrap();
        let mbps = t.mean_rate().as_mbps_f64();
        assert!((40.0..65.0).contains(&mbps), "mean {mbps}");
        let text = std::fs::read_to_string(&path).unwrap();
        let stamps: Vec<i64> = text
            .lines()
            .skip(1)
            .filter_map(|l| parse_irish_timestamp(l.split(',').next()?))
            .collect();
        let span = (stamps[stamps.len() - 1] - stamps[0] + 1) as f64;
        let idle_rows = text.lines().filter(|l| l.contains(",I,")).count();
        assert!(idle_rows > 20);
        // The idle rows' time is cut out: the period is the span minus roughly
        // one second per idle row (duplicates make that approximate).
        let period = t.period().as_secs_f64();
        assert!(
            period < span - 0.5 * idle_rows as f64,
            "period {period} span {span}"
        );
        assert!(
            period > span - 2.0 * idle_rows as f64,
            "period {period} span {span}"
        );
        // The file starts D, I, I: the first step holds only until the idle rows.
        assert_eq!(t.steps()[0], (Duration::ZERO, Bandwidth::from_kbps(72)));
        assert_eq!(t.steps()[1].0, Duration::from_secs(1));
    }

    #[test]
    fn irish5g_errors_name_file_line_and_expectation() {
        let parse = |s: &str| PiecewiseTrace::parse_irish5g(s, p("c.csv")).unwrap_err();
        let e = parse("Timestamp,Speed,Stat\n");
        assert_eq!(e.line, Some(1));
        assert!(
            e.message.contains("missing column(s) DL_bitrate, State"),
            "{e}"
        );
        let e = parse(&format!(
            "{HEADER}\n2020.02.14_09.38.22,1,5,D,-\n2020.02.14_09.38.61,1,5,D,-\n"
        ));
        assert_eq!(
            e.to_string(),
            "c.csv:3: expected a Timestamp like 2020.02.14_09.38.22, got \"2020.02.14_09.38.61\""
        );
        let e = parse(&format!("{HEADER}\n2020.02.14_09.38.22,1,-,D,-\n"));
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("DL_bitrate"), "{e}");
        let e = parse(&format!("{HEADER}\n\n2020.02.14_09.38.22,1\n"));
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("at least 4"), "{e}");
        let e = parse(&format!("{HEADER}\n2020.02.14_09.38.22,1,5,I,-\n"));
        assert!(
            e.to_string().starts_with("c.csv: no downloading rows"),
            "{e}"
        );
        let e = parse(&format!("{HEADER}\n2020.02.14_09.38.22,1,0,D,-\n"));
        assert!(e.message.contains("DL_bitrate 0"), "{e}");
        let e = parse("");
        assert_eq!(e.line, None);
        assert!(e.to_string().starts_with("c.csv: empty file"));
        let e = PiecewiseTrace::from_irish5g_file(p("/nonexistent.csv")).unwrap_err();
        assert!(
            e.to_string().starts_with("/nonexistent.csv: cannot read"),
            "{e}"
        );
        // Idle rows' bitrate is not capacity, so a `-` there is fine.
        assert!(PiecewiseTrace::parse_irish5g(
            &format!("{HEADER}\n2020.02.14_09.38.22,1,-,I,-\n2020.02.14_09.38.23,1,5.5,D,-\n"),
            p("c.csv")
        )
        .is_ok());
    }

    #[test]
    fn irish_timestamps_are_calendar_dates_and_times_of_day() {
        let t = parse_irish_timestamp;
        assert_eq!(t("1970.01.01_00.00.00"), Some(0));
        assert_eq!(t("2020.02.14_09.38.22"), Some(1_581_673_102));
        assert_eq!(
            t("2020.03.01_00.00.00").unwrap() - t("2020.02.28_00.00.00").unwrap(),
            2 * 86_400,
            "2020 is a leap year"
        );
        for bad in [
            "2019.02.29_00.00.00",
            "2020.13.01_00.00.00",
            "2020.02.14_24.00.00",
            "2020.02.14_09.38.61",
            "2020.2.14_09.38.22",
            "2020.02.14 09.38.22",
            "2020.02.14_09.38.22x",
            "",
        ] {
            assert_eq!(t(bad), None, "{bad}");
        }
    }

    #[test]
    fn irish5g_lines_count_blank_lines_crlf_and_a_byte_order_mark() {
        let parse = |s: &str| PiecewiseTrace::parse_irish5g(s, p("c.csv")).unwrap_err();
        let e = parse(&format!(
            "\u{feff}{HEADER}\r\n\r\n   \r\n2020.02.14_09.38.22,1,5,D,-\r\n\n2020.02.14_09.38.22,1\r\n"
        ));
        assert_eq!(e.line, Some(6), "{e}");
        assert!(e.message.contains("at least 4"), "{e}");
        let e = parse("\n\nTimestamp,Speed\n");
        assert_eq!(e.line, Some(3), "{e}");
    }

    #[test]
    fn from_steps_validates() {
        let s = Duration::from_secs;
        let r = Bandwidth::from_mbps(10);
        assert!(PiecewiseTrace::from_steps(vec![(s(0), r), (s(1), Bandwidth::ZERO)], s(2)).is_ok());
        assert!(PiecewiseTrace::from_steps(vec![], s(2)).is_err());
        assert!(PiecewiseTrace::from_steps(vec![(s(1), r)], s(2)).is_err());
        assert!(PiecewiseTrace::from_steps(vec![(s(0), r), (s(0), r)], s(2)).is_err());
        assert!(PiecewiseTrace::from_steps(vec![(s(0), r), (s(2), r)], s(2)).is_err());
        assert!(PiecewiseTrace::from_steps(vec![(s(0), Bandwidth::ZERO)], s(2)).is_err());
        let t = PiecewiseTrace::from_steps(vec![(s(0), r), (s(1), Bandwidth::from_mbps(30))], s(2))
            .unwrap();
        assert_eq!(t.mean_rate(), Bandwidth::from_mbps(20));
        assert_eq!(t.rate_at(s(5)), Bandwidth::from_mbps(30));
        let e = PiecewiseTrace::from_steps(
            vec![(s(0), r), (s(1), Bandwidth::from_bits_per_sec(u64::MAX))],
            s(2),
        )
        .unwrap_err();
        assert!(e.message.contains("at most 1000000000000 bit/s"), "{e}");
    }

    #[test]
    fn rates_outside_the_plausible_range_are_errors_with_their_line() {
        // A corrupt row once made a run crawl through 10^30 bit/s of capacity.
        for huge in ["1e30", "1000000001", "18446744073709551615"] {
            let e = PiecewiseTrace::parse_irish5g(
                &format!(
                    "{HEADER}\n2020.02.14_09.38.22,1,5,D,-\n2020.02.14_09.38.23,1,{huge},D,-\n"
                ),
                p("c.csv"),
            )
            .unwrap_err();
            assert_eq!(e.line, Some(3), "{huge}: {e}");
            assert!(e.message.contains("plausible range"), "{huge}: {e}");
            assert!(
                e.message.contains("at most 1000000000 kbit/s"),
                "{huge}: {e}"
            );
        }
        // Exactly 1 Tbit/s is still accepted.
        assert!(PiecewiseTrace::parse_irish5g(
            &format!("{HEADER}\n2020.02.14_09.38.22,1,1000000000,D,-\n"),
            p("c.csv")
        )
        .is_ok());

        let burst = |n: u64| "7\n".repeat(n as usize) + "9\n";
        assert!(MahimahiTrace::parse(&burst(MAX_OPPORTUNITIES_PER_MS), p("m.down")).is_ok());
        let e =
            MahimahiTrace::parse(&burst(MAX_OPPORTUNITIES_PER_MS + 1), p("m.down")).unwrap_err();
        assert_eq!(e.line, Some(MAX_OPPORTUNITIES_PER_MS as usize + 1));
        assert!(e.message.contains("above 1 Tbit/s"), "{e}");
    }
}
