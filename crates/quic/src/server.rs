//! `bbrlab serve`: an s2n-quic server whose connections run a bbrlab
//! controller, answering [`crate::protocol`] requests (ALPN `bbrlab/1`)
//! with sized or bulk transfers and live streams, and HTTP/3 requests
//! (ALPN `h3`, [`crate::http3`]) for files, a DASH video and live streams.
//!
//! Abuse limits, so one peer cannot take the server down or its memory:
//! at most [`ServerConfig::max_connections`] connections (further attempts
//! are dropped before any state is kept) and 64 handshakes in flight (then
//! Retry packets make clients prove their address); four streams per
//! connection; a request line of at most 256 bytes that must arrive within
//! [`REQUEST_TIMEOUT`]; idle connections closed after [`IDLE_TIMEOUT`];
//! each stream's send buffer bounded by s2n-quic. Malformed packets are
//! s2n-quic's to discard; malformed requests get their stream reset (an
//! HTTP/3 request: a 400 response) and are counted. A peer may open
//! [`UNI_STREAMS_PER_CONNECTION`] unidirectional streams: HTTP/3's control
//! and QPACK streams and one more (a GREASE stream); `bbrlab/1` never
//! reads them, so there they cost at most their flow-control windows.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use cc::AlgorithmSpec;
use s2n_quic::provider::endpoint_limits::{ConnectionAttempt, Limiter, Outcome};
use s2n_quic::provider::limits::Limits;
use s2n_quic::stream::{BidirectionalStream, SendStream};
use s2n_quic::Connection;
use sim::app::live::{Frame, LiveConfig, LiveSource};
use tokio::io::AsyncReadExt;

use crate::copilot::{PaddingEndpoint, PaddingSender};
use crate::http3::{HttpOptions, Site};
use crate::protocol::{Request, ALPN, MAX_REQUEST_LINE};
use crate::pto::PtoCounter;
use crate::telemetry::{controller_endpoint, PathRegistry, TelemetryOptions};
use crate::tls::Identity;

/// How long a client has to send its request line.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections idle this long are closed.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// Handshakes in flight before the server asks for address validation.
const HANDSHAKE_LIMIT: usize = 64;
/// Request streams a connection may have open at once.
const STREAMS_PER_CONNECTION: u64 = 4;
/// Unidirectional streams a peer may have open at once (HTTP/3's control,
/// QPACK encoder and decoder streams, and one GREASE stream).
pub const UNI_STREAMS_PER_CONNECTION: u64 = 4;
/// The chunk a transfer is written in.
const CHUNK: usize = 64 * 1024;
/// What every response carries: zeros, shared by all streams.
static ZEROS: [u8; CHUNK] = [0; CHUNK];

/// What a server runs with.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// The controller of every connection.
    pub spec: AlgorithmSpec,
    /// Seed of the controllers' randomness.
    pub seed: u64,
    /// The certificate and key.
    pub identity: Identity,
    /// BBR-Copilot padding on every connection.
    pub copilot: bool,
    /// Connections served at once at most.
    pub max_connections: usize,
    /// Telemetry every connection keeps.
    pub telemetry: TelemetryOptions,
    /// What HTTP/3 clients are served.
    pub http: HttpOptions,
}

/// Counters of a running server.
#[derive(Debug, Default)]
pub struct ServerStats {
    /// Connections accepted (handshake complete).
    pub connections: AtomicU64,
    /// Requests answered to the end.
    pub completed: AtomicU64,
    /// Requests refused: malformed, too long, too late.
    pub bad_requests: AtomicU64,
    /// Streams that ended early (the peer went away or reset).
    pub aborted: AtomicU64,
    /// Payload bytes written.
    pub bytes_written: AtomicU64,
}

/// A running server; stops when dropped.
pub struct RunningServer {
    addr: SocketAddr,
    /// Its connections' controllers' telemetry.
    pub paths: PathRegistry,
    /// Its counters.
    pub stats: Arc<ServerStats>,
    task: tokio::task::JoinHandle<()>,
}

impl RunningServer {
    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting and drops every connection.
    pub fn stop(self) {
        self.task.abort();
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Drops connection attempts beyond a count, asks for Retry beyond a
/// number of handshakes in flight.
#[derive(Debug)]
struct ConnectionLimits {
    max_connections: usize,
}

impl Limiter for ConnectionLimits {
    fn on_connection_attempt(&mut self, info: &ConnectionAttempt) -> Outcome {
        if info.connection_count >= self.max_connections {
            Outcome::drop()
        } else if info.inflight_handshakes >= HANDSHAKE_LIMIT {
            Outcome::retry()
        } else {
            Outcome::allow()
        }
    }
}

/// The MTU every bbrlab endpoint uses: a fixed 1500-byte path (the
/// simulator's packet), so no MTU probing changes the controllers' unit.
pub(crate) fn fixed_mtu() -> Result<s2n_quic::provider::mtu::Config, String> {
    s2n_quic::provider::mtu::Config::builder()
        .with_initial_mtu(1500)
        .and_then(|b| b.with_base_mtu(1500))
        .and_then(|b| b.with_max_mtu(1500))
        .and_then(|b| b.build())
        .map_err(|e| format!("MTU configuration: {e}"))
}

/// Starts a server on the current tokio runtime.
///
/// # Errors
/// The address cannot be bound, the TLS identity is not usable, or the
/// HTTP/3 root is not a directory; the message says which.
pub fn start(config: ServerConfig) -> Result<RunningServer, String> {
    let site = Arc::new(Site::new(&config.http)?);
    let paths = PathRegistry::new(config.telemetry.clone());
    let controllers = controller_endpoint(config.spec.clone(), config.seed, paths.clone());
    let limits = Limits::new()
        .with_max_open_remote_bidirectional_streams(STREAMS_PER_CONNECTION)
        .and_then(|l| l.with_max_open_remote_unidirectional_streams(UNI_STREAMS_PER_CONNECTION))
        .and_then(|l| l.with_max_idle_timeout(IDLE_TIMEOUT))
        .and_then(|l| l.with_max_handshake_duration(REQUEST_TIMEOUT))
        .map_err(|e| format!("connection limits: {e}"))?;
    let tls = s2n_quic::provider::tls::default::Server::builder()
        .with_certificate(
            config.identity.cert_pem.as_str(),
            config.identity.key_pem.as_str(),
        )
        .and_then(|b| b.with_application_protocols([crate::http3::ALPN, ALPN].iter()))
        .and_then(|b| b.build())
        .map_err(|e| format!("TLS certificate or key not usable: {e}"))?;
    let mut server = s2n_quic::Server::builder()
        .with_tls(tls)
        .map_err(|e| format!("TLS: {e}"))?
        .with_io(config.listen)
        .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?
        .with_congestion_controller(controllers)
        .map_err(|e| format!("congestion controller: {e}"))?
        .with_limits(limits)
        .map_err(|e| format!("limits: {e}"))?
        .with_endpoint_limits(ConnectionLimits {
            max_connections: config.max_connections,
        })
        .map_err(|e| format!("endpoint limits: {e}"))?
        .with_mtu(fixed_mtu()?)
        .map_err(|e| format!("MTU: {e}"))?
        .with_datagram(PaddingEndpoint {
            enabled: config.copilot,
        })
        .map_err(|e| format!("datagrams: {e}"))?
        .with_event(PtoCounter::new(paths.clone()))
        .map_err(|e| format!("events: {e}"))?
        .start()
        .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
    let addr = server
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let stats = Arc::new(ServerStats::default());
    let task = {
        let (paths, stats) = (paths.clone(), stats.clone());
        tokio::spawn(async move {
            while let Some(connection) = server.accept().await {
                stats.connections.fetch_add(1, Ordering::Relaxed);
                tokio::spawn(serve_connection(
                    connection,
                    paths.clone(),
                    stats.clone(),
                    site.clone(),
                ));
            }
        })
    };
    Ok(RunningServer {
        addr,
        paths,
        stats,
        task,
    })
}

async fn serve_connection(
    mut connection: Connection,
    paths: PathRegistry,
    stats: Arc<ServerStats>,
    site: Arc<Site>,
) {
    let peer = connection.remote_addr().ok();
    if let Some(path) = peer.and_then(|p| paths.path(p)) {
        let _ = connection.datagram_mut(|sender: &mut PaddingSender| sender.attach(path));
    }
    let http3 = connection
        .application_protocol()
        .is_ok_and(|alpn| alpn.as_ref() == crate::http3::ALPN);
    if http3 {
        crate::http3::serve_connection(connection, site, stats).await;
    } else {
        while let Ok(Some(stream)) = connection.accept_bidirectional_stream().await {
            tokio::spawn(serve_stream(stream, stats.clone()));
        }
    }
    if let Some(peer) = peer {
        paths.close(peer);
    }
}

/// Reads one request line: at most [`MAX_REQUEST_LINE`] bytes, within
/// [`REQUEST_TIMEOUT`].
async fn read_request(stream: &mut s2n_quic::stream::ReceiveStream) -> Result<Request, String> {
    let mut line = Vec::with_capacity(64);
    let read = async {
        let mut buf = [0u8; MAX_REQUEST_LINE];
        loop {
            let room = MAX_REQUEST_LINE - line.len();
            if room == 0 {
                return Err(format!("request line longer than {MAX_REQUEST_LINE} bytes"));
            }
            let n = stream
                .read(&mut buf[..room])
                .await
                .map_err(|e| format!("stream failed: {e}"))?;
            if n == 0 {
                return Err("stream ended before a newline".to_string());
            }
            line.extend_from_slice(&buf[..n]);
            if let Some(end) = line.iter().position(|&b| b == b'\n') {
                let text = std::str::from_utf8(&line[..end])
                    .map_err(|_| "request line is not UTF-8".to_string())?;
                return Request::parse(text.trim_end_matches('\r'));
            }
        }
    };
    tokio::time::timeout(REQUEST_TIMEOUT, read)
        .await
        .unwrap_or_else(|_| Err(format!("no request line within {REQUEST_TIMEOUT:?}")))
}

async fn serve_stream(stream: BidirectionalStream, stats: Arc<ServerStats>) {
    let (mut receive, mut send) = stream.split();
    let request = match read_request(&mut receive).await {
        Ok(r) => r,
        Err(_) => {
            stats.bad_requests.fetch_add(1, Ordering::Relaxed);
            // Application error 1: bad request.
            let _ = send.reset(1u32.into());
            return;
        }
    };
    drop(receive);
    let outcome = match request {
        Request::Sized { bytes } => write_bytes(&mut send, bytes, None, &stats).await,
        Request::Bulk { duration } => {
            write_bytes(&mut send, u64::MAX, Some(duration), &stats).await
        }
        Request::Live { config, duration } => write_live(&mut send, config, duration, &stats).await,
    };
    let outcome = match outcome {
        Ok(()) => send.close().await.map_err(|_| ()),
        Err(()) => Err(()),
    };
    let counter = if outcome.is_ok() {
        &stats.completed
    } else {
        &stats.aborted
    };
    counter.fetch_add(1, Ordering::Relaxed);
}

async fn write_bytes(
    send: &mut SendStream,
    mut left: u64,
    limit: Option<Duration>,
    stats: &ServerStats,
) -> Result<(), ()> {
    let chunk = Bytes::from_static(&ZEROS);
    let deadline = limit.map(|d| tokio::time::Instant::now() + d);
    while left > 0 {
        if deadline.is_some_and(|d| tokio::time::Instant::now() >= d) {
            break;
        }
        let n = left.min(CHUNK as u64) as usize;
        send.send(chunk.slice(..n)).await.map_err(|_| ())?;
        stats.bytes_written.fetch_add(n as u64, Ordering::Relaxed);
        left -= n as u64;
    }
    Ok(())
}

/// A live stream's frames in real time, as both protocols serve them: the
/// simulator's [`LiveSource`] (the latest GOP at connect, then one frame
/// per interval) on the wall clock, for a duration.
pub(crate) struct LiveClock {
    source: LiveSource,
    start: tokio::time::Instant,
    duration: Duration,
    backlog: std::vec::IntoIter<Frame>,
}

impl LiveClock {
    /// A stream starting now.
    pub(crate) fn new(config: LiveConfig, duration: Duration) -> LiveClock {
        let mut source = LiveSource::new(config, cc::Instant::ZERO);
        let backlog = source.backlog(cc::Instant::ZERO).into_iter();
        LiveClock {
            source,
            start: tokio::time::Instant::now(),
            duration,
            backlog,
        }
    }

    /// The size of the next frame once it is due, or `None` when the
    /// stream's duration is over.
    pub(crate) async fn next(&mut self) -> Option<u64> {
        if let Some(frame) = self.backlog.next() {
            return Some(frame.bytes);
        }
        let due = Duration::from_nanos(self.source.next_frame_at().as_nanos());
        if due >= self.duration {
            return None;
        }
        tokio::time::sleep_until(self.start + due).await;
        Some(self.source.next_frame().bytes)
    }
}

async fn write_live(
    send: &mut SendStream,
    config: LiveConfig,
    duration: Duration,
    stats: &ServerStats,
) -> Result<(), ()> {
    let mut clock = LiveClock::new(config, duration);
    while let Some(bytes) = clock.next().await {
        write_bytes(send, bytes, None, stats).await?;
    }
    Ok(())
}
