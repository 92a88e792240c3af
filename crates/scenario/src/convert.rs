//! Validation of a raw scenario document and its conversion to a
//! [`sim::SimConfig`], with an error naming the key for every bad value.

use std::path::{Path, PathBuf};
use std::time::Duration;

use cc::{AlgorithmSpec, Bandwidth, Bytes};
use sim::app::dash::{AbrStrategy, DashConfig, PlayerKind};
use sim::app::live::{FrameSizes, LiveClient, LiveConfig};
use sim::app::Application;
use sim::link::{
    BufferLimit, LinkConfig, LossModel, MahimahiTrace, PiecewiseTrace, RateModel, RateStep,
    DEFAULT_LINE_RATE,
};
use sim::{AckPolicy, CopilotConfig, FlowConfig, SimConfig, TransportConfig};
use toml::Value;

use crate::error::{KeyPath, ScenarioError};
use crate::locate::Locator;
use crate::overrides::{Override, LOSS_KEYS};
use crate::raw::{RawFlow, RawLink, RawScenario, RawTransport};
use crate::units::{
    self, BufferSize, Problem, BUFFER_EXPECTED, DURATION_EXPECTED, RATE_EXPECTED, SIZE_EXPECTED,
};

/// Default seed.
pub(crate) const DEFAULT_SEED: u64 = 1;
/// Default period of the time-series recorder.
pub(crate) const DEFAULT_SAMPLE_INTERVAL: Duration = Duration::from_millis(10);

/// The most time-series rows a run may record (samples x (flows + the
/// link)), checked before the run allocates any. A row costs about 160
/// bytes in memory (measured: 10 M rows, 1.57 GB peak), so the limit holds
/// a run to about 3 GB, where `sample_interval = "1ns"` over one second
/// would ask for a billion rows. 100 flows sampled every 10 ms for 10
/// minutes are 6 M rows.
pub const MAX_SERIES_ROWS: u64 = 20_000_000;
/// Header overhead of a datagram: the payload is the datagram minus this.
pub(crate) const DATAGRAM_OVERHEAD: u64 = 52;
/// Largest datagram (an IP packet's maximum size).
pub(crate) const MAX_DATAGRAM: u64 = 65_535;
/// The coarsest pacer timer a scenario may set (a user-space stack's timer
/// is a few milliseconds; beyond this the "pacer" is a burst generator).
const MAX_PACING_TIMER: std::time::Duration = std::time::Duration::from_millis(100);
/// Most flows one `[[flow]]` entry, and the whole scenario, may stand for.
pub(crate) const MAX_FLOWS: u64 = 10_000;

const CC_EXPECTED: &str = "an algorithm spec like \"bbr\" or \"cubic:beta=0.7\", or a kernel TCP like \"linux:cubic\" (emulated runs only)";

/// What validation needs to know besides the document.
pub(crate) struct Ctx<'a> {
    /// The scenario file, for messages.
    pub file: &'a Path,
    /// Where relative trace paths start.
    pub base_dir: PathBuf,
    /// Lines of keys in the file as written.
    pub locator: &'a Locator,
    /// Overrides applied, with the paths they set.
    pub overridden: &'a [(KeyPath, Override)],
}

/// A short description of a value as written, for "got ..." in messages.
pub(crate) fn show(v: &Value) -> String {
    match v {
        Value::String(s) => units::quote(s),
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Boolean(b) => b.to_string(),
        Value::Datetime(d) => d.to_string(),
        Value::Array(a) if a.is_empty() => "an empty array".to_string(),
        Value::Array(_) => "an array".to_string(),
        Value::Table(_) => "a table".to_string(),
    }
}

impl Ctx<'_> {
    /// An error about `key`, with its line in the file; values set by an
    /// override have no line but say which override set them.
    pub(crate) fn err(&self, key: &KeyPath, message: impl Into<String>) -> ScenarioError {
        let mut message = message.into();
        let mut line = self.locator.line(key);
        if !key.0.is_empty() {
            if let Some((path, ov)) = self
                .overridden
                .iter()
                .rev()
                .find(|(path, _)| key.starts_with(path) || path.starts_with(key))
            {
                if key.starts_with(path) {
                    line = None;
                }
                message.push_str(&format!(" (set by --set {ov})"));
            }
        }
        ScenarioError {
            file: self.file.to_path_buf(),
            key: if key.0.is_empty() {
                None
            } else {
                Some(key.to_string())
            },
            line,
            column: None,
            message,
        }
    }

    fn missing(&self, key: &KeyPath, expected: &str) -> ScenarioError {
        self.err(key, format!("missing required key; expected {expected}"))
    }

    fn expected(&self, key: &KeyPath, expected: &str, v: &Value) -> ScenarioError {
        self.err(key, format!("expected {expected}, got {}", show(v)))
    }

    /// A value with a unit, parsed by `parse`.
    fn unit<T>(
        &self,
        key: &KeyPath,
        v: &Value,
        expected: &'static str,
        parse: impl Fn(&str) -> Result<T, Problem>,
    ) -> Result<T, ScenarioError> {
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Integer(i) => i.to_string(),
            Value::Float(f) if f.is_finite() => f.to_string(),
            _ => return Err(self.expected(key, expected, v)),
        };
        parse(&text).map_err(|p| self.err(key, p.render(&show(v))))
    }

    fn duration(&self, key: &KeyPath, v: &Value) -> Result<Duration, ScenarioError> {
        self.unit(key, v, DURATION_EXPECTED, units::duration_impl)
    }

    fn positive_duration(&self, key: &KeyPath, v: &Value) -> Result<Duration, ScenarioError> {
        let d = self.duration(key, v)?;
        if d.is_zero() {
            return Err(self.err(
                key,
                Problem {
                    expected: DURATION_EXPECTED,
                    hint: Some("must be greater than zero".into()),
                }
                .render(&show(v)),
            ));
        }
        Ok(d)
    }

    fn rate(&self, key: &KeyPath, v: &Value, allow_zero: bool) -> Result<Bandwidth, ScenarioError> {
        self.unit(key, v, RATE_EXPECTED, |s| units::rate_impl(s, allow_zero))
    }

    fn size(&self, key: &KeyPath, v: &Value) -> Result<Bytes, ScenarioError> {
        self.unit(key, v, SIZE_EXPECTED, units::size_impl)
    }

    fn probability(&self, key: &KeyPath, v: &Value, inclusive: bool) -> Result<f64, ScenarioError> {
        let expected = if inclusive {
            units::FRACTION_EXPECTED
        } else {
            units::PROBABILITY_EXPECTED
        };
        let r = match v {
            Value::String(s) => units::probability_impl(s, inclusive),
            Value::Integer(i) => units::probability_from_f64(*i as f64, inclusive),
            Value::Float(f) => units::probability_from_f64(*f, inclusive),
            _ => return Err(self.expected(key, expected, v)),
        };
        r.map_err(|p| self.err(key, p.render(&show(v))))
    }

    fn string<'v>(
        &self,
        key: &KeyPath,
        v: &'v Value,
        expected: &str,
    ) -> Result<&'v str, ScenarioError> {
        match v {
            Value::String(s) => Ok(s),
            _ => Err(self.expected(key, expected, v)),
        }
    }

    fn boolean(&self, key: &KeyPath, v: &Value) -> Result<bool, ScenarioError> {
        match v {
            Value::Boolean(b) => Ok(*b),
            _ => Err(self.expected(key, "true or false", v)),
        }
    }
}

/// Validates `raw` and builds the simulator's configuration.
pub(crate) fn convert(raw: &RawScenario, ctx: &Ctx<'_>) -> Result<SimConfig, ScenarioError> {
    let root = KeyPath::root();
    let k = |name: &str| root.key(name);

    let name = match &raw.name {
        None => {
            return Err(ctx.missing(
                &k("name"),
                "a string naming the scenario, like name = \"bbr-shallow\"",
            ))
        }
        Some(v) => {
            let s = ctx.string(&k("name"), v, "a non-empty string")?;
            if s.trim().is_empty() {
                return Err(ctx.expected(&k("name"), "a non-empty string", v));
            }
            s.to_string()
        }
    };

    let seed = match &raw.seed {
        None => DEFAULT_SEED,
        Some(v) => seed(ctx, &k("seed"), v)?,
    };

    let duration = match &raw.duration {
        None => {
            return Err(ctx.missing(
                &k("duration"),
                "the simulated time limit, like duration = \"60s\"",
            ))
        }
        Some(v) => ctx.positive_duration(&k("duration"), v)?,
    };
    let warmup = match &raw.warmup {
        None => Duration::ZERO,
        Some(v) => ctx.duration(&k("warmup"), v)?,
    };
    if warmup >= duration {
        return Err(ctx.err(
            &k("warmup"),
            format!(
                "the warmup ({warmup:?}) must be shorter than the duration ({duration:?}), or no time would be measured"
            ),
        ));
    }
    let sample_interval = match &raw.sample_interval {
        None => DEFAULT_SAMPLE_INTERVAL,
        Some(v) => ctx.positive_duration(&k("sample_interval"), v)?,
    };

    let transport = match &raw.transport {
        None => TransportConfig::default(),
        Some(t) => transport(ctx, &k("transport"), t)?,
    };

    let Some(raw_link) = &raw.link else {
        return Err(ctx.err(
            &k("link"),
            "missing required table [link]; it needs a capacity (`rate`, `schedule` or `trace`), `rtt` and `buffer`",
        ));
    };
    let (link, link_rtt, ack_delay) = link(ctx, &k("link"), raw_link, &transport)?;
    let uplink = uplink(ctx, &k("link"), raw_link)?;
    let acks_share_queue = match &raw_link.acks_share_queue {
        None => false,
        Some(v) => ctx.boolean(&k("link").key("acks_share_queue"), v)?,
    };
    if acks_share_queue && uplink.is_some() {
        return Err(ctx.err(
            &k("link").key("acks_share_queue"),
            "acks_share_queue puts the ACKs behind the data queue; give it or link.uplink_rate / link.uplink_trace, not both",
        ));
    }

    let flows = flows(ctx, raw.flow.as_deref(), link_rtt, ack_delay, duration)?;

    let total_flows: u64 = flows.iter().map(|f| u64::from(f.count)).sum();
    let samples = duration.as_nanos() / sample_interval.as_nanos().max(1) + 1;
    let rows = samples.saturating_mul(u128::from(total_flows) + 1);
    if rows > u128::from(MAX_SERIES_ROWS) {
        return Err(ctx.err(
            &k("sample_interval"),
            format!(
                "the run would record {rows} time-series rows ({samples} samples of {sample_interval:?} over {duration:?}, \
                 x {total_flows} flows + the link); at most {MAX_SERIES_ROWS} are allowed: use a longer sample_interval"
            ),
        ));
    }

    let stop_when_done = match &raw.stop_when_done {
        None => flows.iter().all(|f| f.ends_by_itself()),
        Some(v) => ctx.boolean(&k("stop_when_done"), v)?,
    };

    Ok(SimConfig {
        name,
        seed,
        duration,
        warmup,
        sample_interval,
        link,
        flows,
        transport,
        stop_when_done,
        record_series: true,
        uplink,
        acks_share_queue,
    })
}

fn seed(ctx: &Ctx<'_>, key: &KeyPath, v: &Value) -> Result<u64, ScenarioError> {
    const E: &str = "a non-negative integer like 1";
    match v {
        Value::Integer(i) if *i >= 0 => Ok(*i as u64),
        Value::String(s) => s.trim().parse::<u64>().map_err(|_| ctx.expected(key, E, v)),
        _ => Err(ctx.expected(key, E, v)),
    }
}

fn transport(
    ctx: &Ctx<'_>,
    tk: &KeyPath,
    t: &RawTransport,
) -> Result<TransportConfig, ScenarioError> {
    let mut cfg = TransportConfig::default();
    if let Some(v) = &t.ack_policy {
        const E: &str = "\"every-2\" (RFC 9000's default), \"every-packet\", or \"every-N\" with N from 3 to 100 (ACK decimation, e.g. \"every-10\" as Chromium's client)";
        let key = tk.key("ack_policy");
        cfg.ack_policy = match ctx.string(&key, v, E)? {
            "every-2" => AckPolicy::EverySecond,
            "every-packet" => AckPolicy::EveryPacket,
            other => match other.strip_prefix("every-").map(str::parse::<u32>) {
                Some(Ok(n @ 3..=100)) => AckPolicy::EveryNth(n),
                _ => return Err(ctx.expected(&key, E, v)),
            },
        };
    }
    if let Some(v) = &t.max_ack_delay {
        cfg.max_ack_delay = ctx.duration(&tk.key("max_ack_delay"), v)?;
    }
    if let Some(v) = &t.datagram {
        let key = tk.key("datagram");
        let size = ctx.size(&key, v)?;
        if size.get() <= DATAGRAM_OVERHEAD || size.get() > MAX_DATAGRAM {
            return Err(ctx.err(
                &key,
                format!(
                    "expected a datagram size above {DATAGRAM_OVERHEAD}B (the header overhead) and at most {MAX_DATAGRAM}B, like \"1500B\", got {}",
                    show(v)
                ),
            ));
        }
        cfg.max_datagram_size = size;
        cfg.max_payload = Bytes(size.get() - DATAGRAM_OVERHEAD);
    }
    if let Some(v) = &t.initial_window {
        let key = tk.key("initial_window");
        const E: &str =
            "a number of datagrams from 2 to 1000, like 10 (RFC 9002) or 32 (nginx-quic)";
        cfg.initial_window_packets = match v.as_integer() {
            Some(n @ 2..=1000) => n as u64,
            _ => return Err(ctx.expected(&key, E, v)),
        };
    }
    if let Some(v) = &t.pacing_timer {
        let key = tk.key("pacing_timer");
        let timer = ctx.duration(&key, v)?;
        if timer > MAX_PACING_TIMER {
            return Err(ctx.err(
                &key,
                format!(
                    "expected a pacer timer of at most 100ms, like \"3ms\" (nginx-quic) or \"0ms\" (packet by packet), got {}",
                    show(v)
                ),
            ));
        }
        cfg.pacing_timer = timer;
    }
    if let Some(v) = &t.pacer_ack_credit {
        let key = tk.key("pacer_ack_credit");
        cfg.pacer_ack_credit = match v.as_bool() {
            Some(b) => b,
            None => return Err(ctx.expected(&key, "true or false", v)),
        };
    }
    if let Some(v) = &t.receive_window {
        let key = tk.key("receive_window");
        let window = ctx.size(&key, v)?;
        // Below two datagrams' payload the sender would trickle one
        // packet per round trip: no receiver advertises so little.
        let least = 2 * cfg.max_payload.get();
        if window.get() < least {
            return Err(ctx.err(
                &key,
                format!(
                    "expected a receive window of at least two datagrams' payload ({least}B), like \"3MB\" (Linux's default tcp_rmem maximum of 6 MB, halved), got {}",
                    show(v)
                ),
            ));
        }
        cfg.receive_window = Some(window);
    }
    Ok(cfg)
}

/// The link, the default RTT of flows, and the ACK-path delay.
fn link(
    ctx: &Ctx<'_>,
    lk: &KeyPath,
    l: &RawLink,
    transport: &TransportConfig,
) -> Result<(LinkConfig, Option<Duration>, Duration), ScenarioError> {
    let k = |name: &str| lk.key(name);

    let rtt = match &l.rtt {
        None => None,
        Some(v) => Some(ctx.positive_duration(&k("rtt"), v)?),
    };

    if l.trace_format.is_some() && l.trace.is_none() {
        return Err(ctx.err(
            &k("trace_format"),
            "trace_format is only meaningful with link.trace",
        ));
    }

    let burst = match &l.burst {
        None => Bytes::ZERO,
        Some(v) => ctx.size(&k("burst"), v)?,
    };

    let start = trace_start(ctx, lk, l)?;
    // The rate model, and the rate a "bdp" buffer is taken from.
    let (rate, bdp_rate, bdp_rate_source) = match (&l.rate, &l.schedule, &l.trace) {
        (Some(v), None, None) => {
            let r = ctx.rate(&k("rate"), v, false)?;
            (RateModel::Constant(r), r, "link.rate")
        }
        (None, Some(v), None) => {
            let steps = schedule(ctx, &k("schedule"), v)?;
            let first = steps[0].rate;
            (
                RateModel::Schedule(steps),
                first,
                "the schedule's first rate",
            )
        }
        (None, None, Some(v)) => {
            let (model, mean) = trace(ctx, lk, "trace", v, l.trace_format.as_ref())?;
            let model = started(model, start);
            if matches!(model, RateModel::Mahimahi(_)) && burst > Bytes::ZERO {
                return Err(ctx.err(
                    &k("burst"),
                    format!(
                        "a mahimahi trace has no token bucket; expected burst = \"0\" (or no burst) with a mahimahi trace, got {}",
                        l.burst.as_ref().map(show).unwrap_or_default()
                    ),
                ));
            }
            (model, mean, "the trace's mean rate")
        }
        (None, None, None) => {
            return Err(ctx.err(
                lk,
                "missing the link's capacity: give one of `rate` (like rate = \"40Mbit\"), `schedule` or `trace`",
            ));
        }
        (rate, schedule, trace) => {
            let given: Vec<&str> = [
                ("rate", rate.is_some()),
                ("schedule", schedule.is_some()),
                ("trace", trace.is_some()),
            ]
            .iter()
            .filter(|(_, g)| *g)
            .map(|(n, _)| *n)
            .collect();
            let (first, second) = (given[0], given[1]);
            return Err(ctx.err(
                &k(second),
                format!(
                    "give only one of link.rate, link.schedule or link.trace; this link gives both link.{first} and link.{second}"
                ),
            ));
        }
    };

    let buffer = match &l.buffer {
        None => {
            return Err(ctx.missing(
                &k("buffer"),
                "a buffer size like \"300KB\", \"100pkt\" or \"0.25bdp\"",
            ));
        }
        Some(v) => buffer(
            ctx,
            &k("buffer"),
            v,
            transport,
            rtt,
            bdp_rate,
            bdp_rate_source,
        )?,
    };

    let line_rate = match &l.line_rate {
        None => DEFAULT_LINE_RATE,
        Some(v) => ctx.rate(&k("line_rate"), v, false)?,
    };
    let ack_delay = match &l.ack_delay {
        None => Duration::ZERO,
        Some(v) => ctx.duration(&k("ack_delay"), v)?,
    };
    let loss = match &l.loss {
        None => LossModel::None,
        Some(v) => loss(ctx, &k("loss"), v)?,
    };

    Ok((
        LinkConfig {
            rate,
            buffer,
            burst,
            line_rate,
            loss,
        },
        rtt,
        ack_delay,
    ))
}

fn schedule(ctx: &Ctx<'_>, key: &KeyPath, v: &Value) -> Result<Vec<RateStep>, ScenarioError> {
    const E: &str =
        "an array of [time, rate] pairs like [[\"0s\", \"40Mbit\"], [\"10s\", \"10Mbit\"]]";
    const PAIR: &str = "a [time, rate] pair like [\"10s\", \"10Mbit\"]";
    let Value::Array(items) = v else {
        return Err(ctx.expected(key, E, v));
    };
    if items.is_empty() {
        return Err(ctx.expected(key, E, v));
    }
    let mut steps: Vec<RateStep> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let ik = key.index(i);
        let pair = match item {
            Value::Array(pair) if pair.len() == 2 => pair,
            _ => return Err(ctx.expected(&ik, PAIR, item)),
        };
        let at = ctx.duration(&ik.index(0), &pair[0])?;
        let rate = ctx.rate(&ik.index(1), &pair[1], true)?;
        match steps.last() {
            None if !at.is_zero() => {
                return Err(ctx.err(
                    &ik.index(0),
                    format!("the first step must be at \"0s\", got {}", show(&pair[0])),
                ));
            }
            Some(prev) if at <= prev.at => {
                return Err(ctx.err(
                    &ik.index(0),
                    format!(
                        "step times must strictly increase: {} is not after the previous step's {:?}",
                        show(&pair[0]),
                        prev.at
                    ),
                ));
            }
            _ => {}
        }
        steps.push(RateStep { at, rate });
    }
    if steps.iter().all(|s| s.rate == Bandwidth::ZERO) {
        return Err(ctx.err(
            key,
            "every rate in the schedule is zero; the link would never deliver anything",
        ));
    }
    Ok(steps)
}

/// Loads a capacity trace; returns the model and the trace's mean rate.
/// `link.trace_start`: where in its trace(s) the link starts.
fn trace_start(ctx: &Ctx<'_>, lk: &KeyPath, l: &RawLink) -> Result<Duration, ScenarioError> {
    match &l.trace_start {
        None => Ok(Duration::ZERO),
        Some(v) => {
            if l.trace.is_none() && l.uplink_trace.is_none() {
                return Err(ctx.err(
                    &lk.key("trace_start"),
                    "trace_start is only meaningful with link.trace or link.uplink_trace",
                ));
            }
            ctx.duration(&lk.key("trace_start"), v)
        }
    }
}

/// A trace's model entered at `start`.
fn started(model: RateModel, start: Duration) -> RateModel {
    match model {
        RateModel::Mahimahi(t) => RateModel::Mahimahi(t.starting_at(start)),
        RateModel::Piecewise(t) => RateModel::Piecewise(t.starting_at(start)),
        other => other,
    }
}

/// `link.uplink_rate` or `link.uplink_trace`: the ACK path's capacity.
fn uplink(ctx: &Ctx<'_>, lk: &KeyPath, l: &RawLink) -> Result<Option<RateModel>, ScenarioError> {
    match (&l.uplink_rate, &l.uplink_trace) {
        (None, None) => Ok(None),
        (Some(v), None) => Ok(Some(RateModel::Constant(ctx.rate(
            &lk.key("uplink_rate"),
            v,
            false,
        )?))),
        (None, Some(v)) => Ok(Some(started(
            trace(ctx, lk, "uplink_trace", v, None)?.0,
            trace_start(ctx, lk, l)?,
        ))),
        (Some(_), Some(_)) => Err(ctx.err(
            &lk.key("uplink_trace"),
            "give only one of link.uplink_rate or link.uplink_trace",
        )),
    }
}

fn trace(
    ctx: &Ctx<'_>,
    lk: &KeyPath,
    name: &str,
    v: &Value,
    format: Option<&Value>,
) -> Result<(RateModel, Bandwidth), ScenarioError> {
    let key = lk.key(name);
    let text = ctx.string(
        &key,
        v,
        "a path to a trace file (relative to the scenario file's directory)",
    )?;
    if text.trim().is_empty() {
        return Err(ctx.expected(&key, "a path to a trace file", v));
    }
    let path = ctx.base_dir.join(text);
    const FORMATS: &str = "\"mahimahi\" or \"irish5g\"";
    let irish = match format {
        Some(f) => {
            let fk = lk.key("trace_format");
            match ctx.string(&fk, f, FORMATS)? {
                "mahimahi" => false,
                "irish5g" => true,
                _ => return Err(ctx.expected(&fk, FORMATS, f)),
            }
        }
        None => path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv")),
    };
    match std::fs::metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ctx.err(
                &key,
                format!(
                    "trace file not found: {} (relative trace paths start at the scenario file's directory)",
                    path.display()
                ),
            ));
        }
        Err(e) => {
            return Err(ctx.err(
                &key,
                format!("cannot read trace file {}: {e}", path.display()),
            ))
        }
        Ok(m) if !m.is_file() => {
            return Err(ctx.err(
                &key,
                format!("trace file {} is not a regular file", path.display()),
            ));
        }
        Ok(_) => {}
    }
    if irish {
        let t = PiecewiseTrace::from_irish5g_file(&path)
            .map_err(|e| ctx.err(&key, format!("cannot load the irish5g trace: {e}")))?;
        let mean = t.mean_rate();
        Ok((RateModel::Piecewise(t), mean))
    } else {
        let t = MahimahiTrace::from_file(&path)
            .map_err(|e| ctx.err(&key, format!("cannot load the mahimahi trace: {e}")))?;
        let mean = t.mean_rate();
        Ok((RateModel::Mahimahi(t), mean))
    }
}

fn buffer(
    ctx: &Ctx<'_>,
    key: &KeyPath,
    v: &Value,
    transport: &TransportConfig,
    rtt: Option<Duration>,
    bdp_rate: Bandwidth,
    bdp_rate_source: &str,
) -> Result<BufferLimit, ScenarioError> {
    let datagram = transport.max_datagram_size;
    let too_small = |hint: String| {
        ctx.err(
            key,
            Problem {
                expected: BUFFER_EXPECTED,
                hint: Some(hint),
            }
            .render(&show(v)),
        )
    };
    Ok(
        match ctx.unit(key, v, BUFFER_EXPECTED, units::buffer_impl)? {
            BufferSize::Bytes(b) => {
                if b < datagram {
                    return Err(too_small(format!(
                        "{} bytes is less than one {}-byte datagram",
                        b.get(),
                        datagram.get()
                    )));
                }
                BufferLimit::Bytes(b)
            }
            BufferSize::Packets(n) => BufferLimit::Packets(n),
            BufferSize::Bdp(f) => {
                let Some(rtt) = rtt else {
                    return Err(ctx.err(
                    key,
                    format!(
                        "a buffer in bdp needs link.rtt (the BDP is {bdp_rate_source} x link.rtt); give link.rtt or a size like \"300KB\""
                    ),
                ));
                };
                let bdp = bdp_rate.bytes_in(rtt);
                let b = bdp.mul_f64(f);
                if b < datagram {
                    return Err(too_small(format!(
                    "{} bytes, less than one {}-byte datagram; the BDP is {} bytes = {} ({bdp_rate_source}) x {:?}",
                    b.get(),
                    datagram.get(),
                    bdp.get(),
                    bdp_rate,
                    rtt
                )));
                }
                BufferLimit::Bytes(b)
            }
        },
    )
}

fn loss(ctx: &Ctx<'_>, key: &KeyPath, v: &Value) -> Result<LossModel, ScenarioError> {
    let Value::Table(t) = v else {
        let p = ctx.probability(key, v, false)?;
        return Ok(if p == 0.0 {
            LossModel::None
        } else {
            LossModel::Bernoulli { p }
        });
    };
    for name in t.keys() {
        if !LOSS_KEYS.contains(&name.as_str()) {
            let valid: Vec<String> = LOSS_KEYS.iter().map(|k| format!("`{k}`")).collect();
            return Err(ctx.err(
                &key.key(name),
                format!("unknown key `{name}`, expected one of {}", valid.join(", ")),
            ));
        }
    }
    const MODELS: &str = "\"gilbert-elliott\" or \"bernoulli\"";
    let model = match t.get("model") {
        None => "gilbert-elliott",
        Some(m) => {
            let mk = key.key("model");
            match ctx.string(&mk, m, MODELS)? {
                s @ ("gilbert-elliott" | "bernoulli") => s,
                _ => return Err(ctx.expected(&mk, MODELS, m)),
            }
        }
    };
    let prob = |name: &str, inclusive: bool, default: Option<f64>| -> Result<f64, ScenarioError> {
        let pk = key.key(name);
        match (t.get(name), default) {
            (Some(v), _) => ctx.probability(&pk, v, inclusive),
            (None, Some(d)) => Ok(d),
            (None, None) => Err(ctx.missing(
                &pk,
                if inclusive {
                    units::FRACTION_EXPECTED
                } else {
                    units::PROBABILITY_EXPECTED
                },
            )),
        }
    };
    if model == "bernoulli" {
        for name in ["r", "loss_bad", "loss_good"] {
            if t.contains_key(name) {
                return Err(ctx.err(
                    &key.key(name),
                    format!("`{name}` is a gilbert-elliott parameter; a bernoulli loss model takes only `p`"),
                ));
            }
        }
        let p = prob("p", false, None)?;
        return Ok(if p == 0.0 {
            LossModel::None
        } else {
            LossModel::Bernoulli { p }
        });
    }
    let p = prob("p", true, None)?;
    let r = prob("r", true, None)?;
    let loss_bad = prob("loss_bad", true, Some(1.0))?;
    let loss_good = prob("loss_good", false, Some(0.0))?;
    let model = LossModel::GilbertElliott {
        p,
        r,
        loss_good,
        loss_bad,
    };
    let mean = model.mean_loss();
    if mean.is_nan() || mean >= 1.0 {
        return Err(ctx.err(
            key,
            "this gilbert-elliott model loses every packet in the long run (mean loss 100%); lower `loss_bad` or raise `r`",
        ));
    }
    Ok(model)
}

fn flows(
    ctx: &Ctx<'_>,
    raw: Option<&[RawFlow]>,
    link_rtt: Option<Duration>,
    ack_delay: Duration,
    duration: Duration,
) -> Result<Vec<FlowConfig>, ScenarioError> {
    let fk = KeyPath::root().key("flow");
    let raw = raw.unwrap_or_default();
    if raw.is_empty() {
        return Err(ctx.err(&fk, "at least one flow is required: add a [[flow]] table with cc = \"bbr\" (or another algorithm)"));
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut total: u64 = 0;
    for (i, f) in raw.iter().enumerate() {
        let k = fk.index(i);
        let (cc, kernel) = match &f.cc {
            None => return Err(ctx.missing(&k.key("cc"), CC_EXPECTED)),
            Some(v) => {
                let s = ctx.string(&k.key("cc"), v, CC_EXPECTED)?;
                match s.trim().strip_prefix(KERNEL_PREFIX) {
                    Some(rest) => {
                        let name = kernel_name(rest).map_err(|m| ctx.err(&k.key("cc"), m))?;
                        (kernel_model(&name), Some(name))
                    }
                    None => (
                        AlgorithmSpec::parse(s)
                            .map_err(|e| ctx.err(&k.key("cc"), e.to_string()))?,
                        None,
                    ),
                }
            }
        };
        let start = match &f.start {
            None => Duration::ZERO,
            Some(v) => ctx.duration(&k.key("start"), v)?,
        };
        if start >= duration {
            return Err(ctx.err(
                &k.key("start"),
                format!("the flow starts at {start:?}, at or after the end of the run (duration = {duration:?})"),
            ));
        }
        let size = match &f.size {
            None => None,
            Some(v) => {
                let s = ctx.size(&k.key("size"), v)?;
                if s == Bytes::ZERO {
                    return Err(ctx.err(
                        &k.key("size"),
                        Problem {
                            expected: SIZE_EXPECTED,
                            hint: Some(
                                "must be greater than zero; leave size out for an unlimited flow"
                                    .into(),
                            ),
                        }
                        .render(&show(v)),
                    ));
                }
                Some(s)
            }
        };
        let count = match &f.count {
            None => 1,
            Some(v) => {
                let ck = k.key("count");
                match v {
                    Value::Integer(n) if (1..=MAX_FLOWS as i64).contains(n) => *n as u32,
                    _ => {
                        return Err(ctx.expected(
                            &ck,
                            &format!("a whole number of identical flows from 1 to {MAX_FLOWS}"),
                            v,
                        ))
                    }
                }
            }
        };
        total += u64::from(count);
        if total > MAX_FLOWS {
            return Err(ctx.err(
                &k.key("count"),
                format!("the scenario has more than {MAX_FLOWS} flows in all; expected at most {MAX_FLOWS}"),
            ));
        }
        let rtt = match (&f.rtt, link_rtt) {
            (Some(v), _) => ctx.positive_duration(&k.key("rtt"), v)?,
            (None, Some(r)) => r,
            (None, None) => {
                return Err(ctx.err(
                    &KeyPath::root().key("link").key("rtt"),
                    format!(
                        "missing required key; expected the flows' base RTT, like rtt = \"100ms\" (flow[{i}] gives no rtt of its own)"
                    ),
                ));
            }
        };
        let app = application(ctx, &k, f, size)?;
        let copilot = match &f.copilot {
            None | Some(Value::Boolean(false)) => None,
            Some(Value::Boolean(true)) => Some(CopilotConfig::default()),
            Some(Value::String(s)) if s == "paper" => Some(CopilotConfig::default()),
            Some(Value::String(s)) if s == "lsquic" => Some(CopilotConfig {
                probe_rtt_app_limited: true,
            }),
            Some(v) => return Err(ctx.expected(&k.key("copilot"), COPILOT_EXPECTED, v)),
        };
        out.push(FlowConfig {
            cc,
            start,
            size,
            rtt,
            ack_delay,
            count,
            app,
            copilot,
            kernel,
        });
    }
    Ok(out)
}

/// `cc = "linux:NAME"`: the kernel's TCP with congestion control NAME.
const KERNEL_PREFIX: &str = "linux:";

/// The project's controllers that model a kernel congestion control of
/// the same name.
pub(crate) const KERNEL_MODELS: &[&str] = &["bbr", "cubic", "reno"];

/// The NAME of `linux:NAME`: a kernel congestion-control name (lower-case
/// letters, digits, `_`), with no options after it.
fn kernel_name(rest: &str) -> Result<String, String> {
    let name = rest.trim();
    if let Some((name, options)) = name.split_once(':') {
        return Err(format!(
            "\"linux:{name}:{options}\": the kernel's algorithms take no options here (they \
             are the kernel's module parameters, set system-wide); write cc = \"linux:{name}\""
        ));
    }
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        return Err(format!(
            "expected \"linux:NAME\" with NAME a kernel congestion-control name (lower-case \
             letters, digits and _, like \"linux:bbr\" or \"linux:cubic\"), got \"linux:{name}\""
        ));
    }
    Ok(name.to_string())
}

/// The project's model of kernel algorithm `name`, or `cubic` (Linux's
/// default) as a placeholder when there is none ([`sim::FlowConfig::kernel`]).
fn kernel_model(name: &str) -> AlgorithmSpec {
    let model = if KERNEL_MODELS.contains(&name) {
        name
    } else {
        "cubic"
    };
    AlgorithmSpec::parse(model).expect("the kernel models are known algorithms")
}

/// Why the simulator cannot run `config`, naming the key: the first kernel
/// flow's `cc`, else the first `[flow.dash] player = "dashjs"`, else the
/// first `[flow.live] client = "chromium"`; `None` when
/// every flow is one of the project's controllers and models.
pub(crate) fn simulator_refusal(ctx: &Ctx<'_>, config: &sim::SimConfig) -> Option<ScenarioError> {
    kernel_refusal(ctx, config)
        .or_else(|| dashjs_refusal(ctx, config))
        .or_else(|| chromium_live_refusal(ctx, config))
}

/// The first live stream Chromium receives: a real browser, which only an
/// emulated run has.
fn chromium_live_refusal(ctx: &Ctx<'_>, config: &sim::SimConfig) -> Option<ScenarioError> {
    let i = config
        .flows
        .iter()
        .position(|f| matches!(&f.app, Application::Live(l) if l.client == LiveClient::Chromium))?;
    Some(
        ctx.err(
            &KeyPath::root()
                .key("flow")
                .index(i)
                .key("live")
                .key("client"),
            "client = \"chromium\" is headless Chromium and runs only under --emulate; \
         the simulator's receiver is the project's (client = \"bbrlab\", the default)",
        ),
    )
}

/// The first flow whose DASH session dash.js plays: a real browser, which
/// only an emulated run has.
fn dashjs_refusal(ctx: &Ctx<'_>, config: &sim::SimConfig) -> Option<ScenarioError> {
    let i = config
        .flows
        .iter()
        .position(|f| matches!(&f.app, Application::Dash(d) if d.player == PlayerKind::DashJs))?;
    Some(
        ctx.err(
            &KeyPath::root()
                .key("flow")
                .index(i)
                .key("dash")
                .key("player"),
            "player = \"dashjs\" is dash.js in headless Chromium and runs only under --emulate; \
         the simulator's player is the model of dash.js (player = \"model\", the default)",
        ),
    )
}

/// The first kernel flow's `cc` key, naming the simulator's model of it.
fn kernel_refusal(ctx: &Ctx<'_>, config: &sim::SimConfig) -> Option<ScenarioError> {
    let (i, flow) = config
        .flows
        .iter()
        .enumerate()
        .find(|(_, f)| f.kernel.is_some())?;
    let name = flow.kernel.as_deref().unwrap_or_default();
    let model = if KERNEL_MODELS.contains(&name) {
        format!("the simulator's own `{name}` is the faithful model of it")
    } else {
        format!(
            "the simulator has no model of it (models of kernel algorithms: {})",
            KERNEL_MODELS.join(", ")
        )
    };
    Some(ctx.err(
        &KeyPath::root().key("flow").index(i).key("cc"),
        format!("cc = \"linux:{name}\" is the kernel's TCP and runs only under --emulate; {model}"),
    ))
}

const COPILOT_EXPECTED: &str = "true, false, \"paper\" (the same as true: the paper's padding rule) or \"lsquic\" (the authors' code: also marks ProbeRTT's packets app-limited)";
const APP_EXPECTED: &str = "\"bulk\", \"live\" or \"dash\"";

/// `app` and its table: what the flow carries.
fn application(
    ctx: &Ctx<'_>,
    k: &KeyPath,
    f: &RawFlow,
    size: Option<Bytes>,
) -> Result<Application, ScenarioError> {
    let app = match &f.app {
        None => "bulk",
        Some(v) => ctx.string(&k.key("app"), v, APP_EXPECTED)?,
    };
    for (table, present) in [("live", f.live.is_some()), ("dash", f.dash.is_some())] {
        if present && app != table {
            return Err(ctx.err(
                &k.key(table),
                format!("a [flow.{table}] table needs app = \"{table}\" in its flow"),
            ));
        }
    }
    match app {
        "bulk" => Ok(Application::Bulk),
        "dash" => dash_application(ctx, k, f, size),
        "live" => {
            if size.is_some() {
                return Err(ctx.err(
                    &k.key("size"),
                    "a live stream has no size: it runs until the end of the run; leave size out",
                ));
            }
            let lk = k.key("live");
            let raw = f.live.as_ref();
            let get = |name: &str| {
                raw.and_then(|r| match name {
                    "bitrate" => r.bitrate.as_ref(),
                    "frame_interval" => r.frame_interval.as_ref(),
                    "gop" => r.gop.as_ref(),
                    "frame_sizes" => r.frame_sizes.as_ref(),
                    "i_frame_ratio" => r.i_frame_ratio.as_ref(),
                    "deadline" => r.deadline.as_ref(),
                    "client" => r.client.as_ref(),
                    _ => None,
                })
            };
            let d = LiveConfig::COPILOT_PAPER;
            let bitrate = match get("bitrate") {
                None => d.bitrate,
                Some(v) => ctx.rate(&lk.key("bitrate"), v, false)?,
            };
            let frame_interval = match get("frame_interval") {
                None => d.frame_interval,
                Some(v) => ctx.positive_duration(&lk.key("frame_interval"), v)?,
            };
            let gop = match get("gop") {
                None => d.gop,
                Some(v) => ctx.positive_duration(&lk.key("gop"), v)?,
            };
            let deadline = match get("deadline") {
                None => d.deadline,
                Some(v) => ctx.positive_duration(&lk.key("deadline"), v)?,
            };
            const SIZES: &str = "\"constant\" or \"gop\" (I-frames i_frame_ratio times a P-frame)";
            let frame_sizes = match get("frame_sizes") {
                None => FrameSizes::Constant,
                Some(v) => match ctx.string(&lk.key("frame_sizes"), v, SIZES)? {
                    "constant" => FrameSizes::Constant,
                    "gop" => {
                        let ratio = match get("i_frame_ratio") {
                            None => DEFAULT_I_FRAME_RATIO,
                            Some(Value::Integer(n)) => *n as f64,
                            Some(Value::Float(x)) => *x,
                            Some(v) => {
                                return Err(ctx.expected(
                                    &lk.key("i_frame_ratio"),
                                    "a number of at least 1, like 5",
                                    v,
                                ))
                            }
                        };
                        FrameSizes::Gop {
                            i_frame_ratio: ratio,
                        }
                    }
                    _ => return Err(ctx.expected(&lk.key("frame_sizes"), SIZES, v)),
                },
            };
            if get("i_frame_ratio").is_some() && frame_sizes == FrameSizes::Constant {
                return Err(ctx.err(
                    &lk.key("i_frame_ratio"),
                    "i_frame_ratio needs frame_sizes = \"gop\"",
                ));
            }
            const CLIENT: &str = "\"bbrlab\" (the project's client) or \"chromium\" (headless Chromium over HTTP/3, under --emulate)";
            let client = match get("client") {
                None => d.client,
                Some(v) => {
                    let name = ctx.string(&lk.key("client"), v, CLIENT)?;
                    LiveClient::parse(name)
                        .ok_or_else(|| ctx.expected(&lk.key("client"), CLIENT, v))?
                }
            };
            let live = LiveConfig {
                bitrate,
                frame_interval,
                gop,
                frame_sizes,
                deadline,
                client,
            };
            live.validate().map_err(|m| {
                let field = m.split(':').next().unwrap_or("live").to_string();
                let key = if field.contains(' ') {
                    lk.clone()
                } else {
                    lk.key(&field)
                };
                ctx.err(&key, m)
            })?;
            Ok(Application::Live(live))
        }
        other => Err(ctx.err(
            &k.key("app"),
            format!("expected {APP_EXPECTED}, got {other:?}"),
        )),
    }
}

/// `app = "dash"` and its `[flow.dash]` table.
fn dash_application(
    ctx: &Ctx<'_>,
    k: &KeyPath,
    f: &RawFlow,
    size: Option<Bytes>,
) -> Result<Application, ScenarioError> {
    if size.is_some() {
        return Err(ctx.err(
            &k.key("size"),
            "a DASH session's size is its video's: set [flow.dash] video, and leave size out",
        ));
    }
    let dk = k.key("dash");
    let d = DashConfig::obbr_paper();
    let Some(raw) = f.dash.as_ref() else {
        return Ok(Application::Dash(d));
    };
    let ladder = match &raw.ladder {
        None => d.ladder,
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, v)| ctx.rate(&dk.key("ladder").index(i), v, false))
            .collect::<Result<Vec<_>, _>>()?,
        Some(v) => {
            return Err(ctx.expected(
                &dk.key("ladder"),
                "a non-empty array of bitrates, lowest first, like [\"1Mbit\", \"2.5Mbit\"]",
                v,
            ))
        }
    };
    let duration = |name: &str, v: &Option<Value>, default| match v {
        None => Ok(default),
        Some(v) => ctx.positive_duration(&dk.key(name), v),
    };
    let switch = |name: &str, v: &Option<Value>, default| match v {
        None => Ok(default),
        Some(v) => ctx.boolean(&dk.key(name), v),
    };
    const ABR: &str = "\"throughput\", \"bola\" or \"dynamic\"";
    let abr = match &raw.abr {
        None => d.abr,
        Some(v) => {
            let name = ctx.string(&dk.key("abr"), v, ABR)?;
            AbrStrategy::parse(name).ok_or_else(|| ctx.expected(&dk.key("abr"), ABR, v))?
        }
    };
    const PLAYER: &str = "\"model\" (the simulator's model of dash.js) or \"dashjs\" (dash.js in headless Chromium, under --emulate)";
    let player = match &raw.player {
        None => d.player,
        Some(v) => {
            let name = ctx.string(&dk.key("player"), v, PLAYER)?;
            PlayerKind::parse(name).ok_or_else(|| ctx.expected(&dk.key("player"), PLAYER, v))?
        }
    };
    let dash = DashConfig {
        ladder,
        segment: duration("segment", &raw.segment, d.segment)?,
        video: duration("video", &raw.video, d.video)?,
        abr,
        stable_buffer: duration("stable_buffer", &raw.stable_buffer, d.stable_buffer)?,
        top_quality_buffer: duration(
            "top_quality_buffer",
            &raw.top_quality_buffer,
            d.top_quality_buffer,
        )?,
        initial_bitrate: match &raw.initial_bitrate {
            None => d.initial_bitrate,
            Some(v) => ctx.rate(&dk.key("initial_bitrate"), v, false)?,
        },
        insufficient_buffer_rule: switch(
            "insufficient_buffer_rule",
            &raw.insufficient_buffer_rule,
            d.insufficient_buffer_rule,
        )?,
        switch_history_rule: switch(
            "switch_history_rule",
            &raw.switch_history_rule,
            d.switch_history_rule,
        )?,
        abandon_requests: switch(
            "abandon_requests",
            &raw.abandon_requests,
            d.abandon_requests,
        )?,
        fast_switching: switch("fast_switching", &raw.fast_switching, d.fast_switching)?,
        player,
    };
    dash.validate().map_err(|m| {
        // "ladder[1]: ..." names an item, "video: ..." a key.
        let field = m.split(':').next().unwrap_or("dash");
        let key = match field
            .strip_prefix("ladder[")
            .and_then(|r| r.strip_suffix(']'))
        {
            Some(i) => dk.key("ladder").index(i.parse().unwrap_or(0)),
            None if field.contains(' ') => dk.clone(),
            None => dk.key(field),
        };
        ctx.err(&key, m)
    })?;
    Ok(Application::Dash(dash))
}

/// I-frame / P-frame size with `frame_sizes = "gop"`: H.264 I-frames are
/// typically several times a P-frame; 5 is a middle value.
const DEFAULT_I_FRAME_RATIO: f64 = 5.0;
