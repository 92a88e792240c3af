//! `bbrlab get`: a client that asks a `bbrlab serve` for a transfer or a
//! live stream and measures what arrives.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use cc::{AlgorithmSpec, Instant};
use s2n_quic::client::Connect;
use serde::Serialize;
use sim::app::live::{FrameClock, LiveSource, LiveSummary};
use tokio::io::AsyncWriteExt;

use crate::copilot::PaddingEndpoint;
use crate::protocol::{Request, ALPN};
use crate::pto::PtoCounter;
use crate::server::{fixed_mtu, IDLE_TIMEOUT};
use crate::telemetry::{controller_endpoint, PathRegistry, TelemetryOptions};

/// What a client does.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// The server.
    pub server: SocketAddr,
    /// The name the server's certificate must carry.
    pub server_name: String,
    /// The certificate (or CA) to trust, PEM.
    pub trust_pem: String,
    /// What to ask for.
    pub request: Request,
    /// The client's own controller (it sends the request and ACKs).
    pub spec: AlgorithmSpec,
    /// Record progress this often.
    pub progress_interval: Duration,
    /// Telemetry of the client's path.
    pub telemetry: TelemetryOptions,
    /// The flow-control window the client gives the server, for the
    /// connection and for its stream, bytes (at most [`MAX_RECEIVE_WINDOW`]);
    /// `None` keeps s2n-quic's default (3.75 MB: 150 Mbit/s x 100 ms x 2).
    pub receive_window: Option<u64>,
    /// How long the request takes to reach the server, when it is known
    /// (an emulated route's uplink delay): a live stream's frame delays
    /// then count from each frame's creation at the server, as the
    /// simulator's do. Zero counts them from when the request left, so
    /// they include its one-way trip.
    pub request_trip: Duration,
    /// A live stream's frames created before this instant are not counted
    /// (a measurement window's start, as the simulator's warmup); `None`
    /// counts every frame.
    pub live_measure_from: Option<std::time::Instant>,
    /// The UDP socket to use, when the caller made it (e.g. inside an
    /// emulator shell's network namespace: a socket belongs to the
    /// namespace it was created in); `None` binds one on any address.
    pub socket: Option<Arc<std::net::UdpSocket>>,
}

/// The largest flow-control window s2n-quic takes (its transport
/// parameters are 32-bit there): what an emulated run gives a flow whose
/// scenario sets none, to stand for the simulator's unlimited receiver.
pub const MAX_RECEIVE_WINDOW: u64 = u32::MAX as u64;

/// What the client saw.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GetReport {
    /// Payload bytes received.
    pub bytes: u64,
    /// From sending the request to the end of the stream (or to stopping), seconds.
    pub elapsed_s: f64,
    /// From connecting to sending the request (the handshake), seconds.
    pub handshake_s: f64,
    /// Goodput over `elapsed_s`, bits per second.
    pub goodput_bps: f64,
    /// Whether the stream ended as the server meant it to (not stopped or reset).
    pub complete: bool,
    /// Frames of a live stream, timed from their creation at the server
    /// when [`ClientConfig::request_trip`] is known, else from the request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live: Option<LiveSummary>,
    /// (seconds since the request, bytes received so far), every progress interval.
    #[serde(skip)]
    pub progress: Vec<(f64, u64)>,
}

/// The client's I/O: on `socket` when given (its clones for receiving and
/// sending), else on a socket bound to `bind`.
fn io_provider(
    bind: SocketAddr,
    socket: Option<&std::net::UdpSocket>,
) -> Result<s2n_quic::provider::io::tokio::Provider, String> {
    let builder = s2n_quic::provider::io::tokio::Builder::default();
    let builder = match socket {
        None => builder.with_receive_address(bind),
        Some(socket) => {
            let clone = |s: &std::net::UdpSocket| {
                s.try_clone()
                    .and_then(|s| s.set_nonblocking(true).map(|()| s))
            };
            builder
                .with_rx_socket(clone(socket).map_err(|e| format!("the client socket: {e}"))?)
                .and_then(|b| b.with_tx_socket(clone(socket)?))
        }
    };
    builder
        .and_then(|b| b.build())
        .map_err(|e| format!("cannot bind a client socket: {e}"))
}

/// Connects, asks, reads to the end (or until `stop` resolves) and reports.
///
/// # Errors
/// The connection or the request failed; the message says which.
pub async fn get(
    config: ClientConfig,
    stop: impl std::future::Future<Output = ()>,
) -> Result<GetReport, String> {
    let paths = PathRegistry::new(config.telemetry.clone());
    let controllers = controller_endpoint(config.spec.clone(), 0, paths.clone());
    let tls = s2n_quic::provider::tls::default::Client::builder()
        .with_certificate(config.trust_pem.as_str())
        .and_then(|b| b.with_application_protocols([ALPN].iter()))
        .and_then(|b| b.build())
        .map_err(|e| format!("the trusted certificate is not usable: {e}"))?;
    let bind: SocketAddr = if config.server.is_ipv4() {
        "0.0.0.0:0".parse().expect("literal")
    } else {
        "[::]:0".parse().expect("literal")
    };
    let mut limits = s2n_quic::provider::limits::Limits::new()
        .with_max_idle_timeout(IDLE_TIMEOUT)
        .map_err(|e| format!("limits: {e}"))?;
    if let Some(window) = config.receive_window {
        limits = limits
            .with_data_window(window)
            .and_then(|l| l.with_bidirectional_local_data_window(window))
            .map_err(|e| format!("receive window of {window} bytes: {e}"))?;
    }
    let client = s2n_quic::Client::builder()
        .with_tls(tls)
        .map_err(|e| format!("TLS: {e}"))?
        .with_io(io_provider(bind, config.socket.as_deref())?)
        .map_err(|e| format!("cannot bind a client socket: {e}"))?
        .with_congestion_controller(controllers)
        .map_err(|e| format!("congestion controller: {e}"))?
        .with_limits(limits)
        .map_err(|e| format!("limits: {e}"))?
        .with_mtu(fixed_mtu()?)
        .map_err(|e| format!("MTU: {e}"))?
        .with_datagram(PaddingEndpoint { enabled: false })
        .map_err(|e| format!("datagrams: {e}"))?
        .with_event(PtoCounter::new(paths))
        .map_err(|e| format!("events: {e}"))?
        .start()
        .map_err(|e| format!("cannot start the client: {e}"))?;
    let started = std::time::Instant::now();
    let connect = Connect::new(config.server).with_server_name(config.server_name.as_str());
    let mut connection = client
        .connect(connect)
        .await
        .map_err(|e| format!("cannot connect to {}: {e}", config.server))?;
    let _ = connection.keep_alive(true);
    let stream = connection
        .open_bidirectional_stream()
        .await
        .map_err(|e| format!("cannot open a stream to {}: {e}", config.server))?;
    let (mut receive, mut send) = stream.split();
    let asked = std::time::Instant::now();
    send.write_all(config.request.line().as_bytes())
        .await
        .map_err(|e| format!("cannot send the request: {e}"))?;
    let _ = send.close().await;
    let mut report = GetReport {
        handshake_s: (asked - started).as_secs_f64(),
        ..GetReport::default()
    };
    let mut frames = match config.request {
        Request::Live { config: live, .. } => {
            // Frame time zero is the request's arrival at the server.
            let created_from = config.live_measure_from.map_or(Duration::ZERO, |at| {
                at.saturating_duration_since(asked + config.request_trip)
            });
            Some(LiveFrames::new(live, created_from))
        }
        _ => None,
    };
    let mut next_progress = Duration::ZERO;
    tokio::pin!(stop);
    loop {
        let chunk = tokio::select! {
            chunk = receive.receive() => chunk,
            () = &mut stop => break,
        };
        match chunk {
            Ok(Some(bytes)) => {
                report.bytes += bytes.len() as u64;
                let since = asked.elapsed();
                if let Some(frames) = frames.as_mut() {
                    frames.on_delivered(since.saturating_sub(config.request_trip), report.bytes);
                }
                if since >= next_progress {
                    report.progress.push((since.as_secs_f64(), report.bytes));
                    next_progress = since + config.progress_interval;
                }
            }
            Ok(None) => {
                report.complete = true;
                break;
            }
            Err(e) => return Err(format!("the stream from {} failed: {e}", config.server)),
        }
    }
    let elapsed = asked.elapsed();
    report.elapsed_s = elapsed.as_secs_f64();
    report.progress.push((report.elapsed_s, report.bytes));
    report.goodput_bps = if report.elapsed_s > 0.0 {
        report.bytes as f64 * 8.0 / report.elapsed_s
    } else {
        0.0
    };
    report.live = frames.map(|f| f.summary(elapsed.saturating_sub(config.request_trip)));
    connection.close(0u32.into());
    Ok(report)
}

/// A live stream's frame delays from when a client held each frame: as
/// [`get`] computes them, for a client that is not this one (Chromium in
/// an emulated run). `arrivals` are (time since the request left, payload
/// bytes of the frames complete by then), in order; frame time zero is the
/// request's arrival at the server, `request_trip` after it left; frames
/// created from `measure_from` (frame time) count; `elapsed` is when the
/// client stopped, since the request left.
pub fn live_summary(
    config: sim::app::live::LiveConfig,
    measure_from: Duration,
    request_trip: Duration,
    arrivals: &[(Duration, u64)],
    elapsed: Duration,
) -> LiveSummary {
    let mut frames = LiveFrames::new(config, measure_from);
    for &(since, bytes) in arrivals {
        frames.on_delivered(since.saturating_sub(request_trip), bytes);
    }
    frames.summary(elapsed.saturating_sub(request_trip))
}

/// The viewer's frame clock for a live stream: the frames the server
/// writes are known from the request (the simulator's `LiveSource`), timed
/// from when the request reached the server ([`ClientConfig::request_trip`]
/// after it left).
struct LiveFrames {
    source: LiveSource,
    clock: FrameClock,
    backlog: Vec<sim::app::live::Frame>,
    registered: u64,
}

impl LiveFrames {
    /// Frames created `measure_from` or later (frame time) are counted.
    fn new(config: sim::app::live::LiveConfig, measure_from: Duration) -> LiveFrames {
        let mut source = LiveSource::new(config, Instant::ZERO);
        let mut backlog = source.backlog(Instant::ZERO);
        backlog.reverse();
        LiveFrames {
            source,
            clock: FrameClock::new(config.deadline, Self::at(measure_from)),
            backlog,
            registered: 0,
        }
    }

    fn at(since: Duration) -> Instant {
        Instant::from_nanos(since.as_nanos() as u64)
    }

    fn on_delivered(&mut self, since: Duration, bytes: u64) {
        // Frames are registered as the bytes that complete them arrive:
        // their write times are known, so the order does not matter.
        while self.registered < bytes {
            let frame = self
                .backlog
                .pop()
                .unwrap_or_else(|| self.source.next_frame());
            self.registered += frame.bytes;
            self.clock.on_written(frame);
        }
        self.clock.on_delivered(Self::at(since), bytes);
    }

    fn summary(mut self, end: Duration) -> LiveSummary {
        // Frames due by the end but not complete are late.
        while Duration::from_nanos(self.source.next_frame_at().as_nanos()) <= end {
            let frame = self.source.next_frame();
            self.clock.on_written(frame);
        }
        self.clock.summary(Self::at(end))
    }
}
