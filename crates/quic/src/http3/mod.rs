//! HTTP/3 on `bbrlab serve`: ALPN `h3` beside `bbrlab/1` on the same
//! endpoint, so any HTTP/3 client (a browser, curl, aioquic) can fetch
//! from a server whose every connection runs a bbrlab controller.
//!
//! [`transport`] adapts s2n-quic to the `h3` crate's QUIC traits; this
//! module answers the requests. What it serves (GET and HEAD; other
//! methods get 405 with `Allow`):
//! - `/dash/...`: a DASH video generated on request ([`dash`]).
//! - `/live?bitrate=RATE[&duration=D][&frame=D][&gop=D][&iframe=R]`: a live
//!   stream from the same live source as the `LIVE` request of
//!   `bbrlab/1` (the latest GOP at connect, then one frame per `frame`
//!   interval, for `duration`; defaults 30s, 40ms, 2s and I/P ratio 1,
//!   i.e. constant frame sizes), written as the frames are generated, as
//!   an HTTP-FLV live CDN does. The response's `bbrlab-stream-start`
//!   header gives frame time zero in the server's wall clock (ms since the
//!   Unix epoch). The body is a sequence of frames, each a
//!   16-byte header (frame number and payload length, both big-endian
//!   u64) followed by that many zero bytes.
//! - anything else: a static file under the server's root directory
//!   ([`files`]), with single byte ranges (206, or 416 with
//!   `Content-Range: bytes */LEN`), Content-Type by extension and
//!   Content-Length; 404 if there is no root or no such file.
//!
//! Limits are `bbrlab/1`'s: the endpoint's connection limit, four request
//! streams per connection, a request's headers within
//! [`crate::server::REQUEST_TIMEOUT`] and at most [`MAX_FIELD_SECTION`]
//! bytes, paths of at most [`files::MAX_PATH`] bytes, the idle timeout. A
//! malformed request (bad path, range or query) gets 400 (414 for a long
//! path) with a one-line reason; a request h3 itself cannot parse gets its
//! stream reset with h3's error code. Either way it is counted in
//! [`ServerStats::bad_requests`] and the connection goes on.

pub mod dash;
pub mod files;
pub mod transport;

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use cc::Bandwidth;
use http::{header, HeaderValue, Method, Response, StatusCode};
use sim::app::dash::DashConfig;
use sim::app::live::{FrameSizes, LiveConfig};

use crate::protocol::{MAX_DURATION, MAX_LIVE_BITRATE};
use crate::server::{LiveClock, ServerStats, REQUEST_TIMEOUT};

/// The ALPN protocol name of HTTP/3.
pub const ALPN: &[u8] = b"h3";
/// Largest request header section (decoded) the server accepts.
pub const MAX_FIELD_SECTION: u64 = 16 * 1024;
/// The chunk a body is written in.
const CHUNK: usize = 64 * 1024;
/// Zeros for generated bodies, shared by all streams.
static ZEROS: [u8; CHUNK] = [0; CHUNK];
/// The `/live` response header that gives the stream's frame time zero
/// (when its first frame was created), in milliseconds since the Unix
/// epoch by the server's wall clock.
pub const LIVE_STREAM_START: &str = "bbrlab-stream-start";

/// Bytes of a live frame's header (frame number, payload length).
pub const LIVE_FRAME_HEADER: usize = 16;

/// What HTTP/3 requests are answered from.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Static files' root directory; none: only `/dash/` and `/live`.
    pub root: Option<PathBuf>,
    /// The video `/dash/` serves.
    pub dash: DashConfig,
}

impl Default for HttpOptions {
    /// No files; the oBBR paper's DASH video.
    fn default() -> HttpOptions {
        HttpOptions {
            root: None,
            dash: DashConfig::obbr_paper(),
        }
    }
}

/// [`HttpOptions`] checked once at start: a canonical root.
#[derive(Debug)]
pub(crate) struct Site {
    root: Option<PathBuf>,
    dash: DashConfig,
}

impl Site {
    /// Checks the options.
    ///
    /// # Errors
    /// The root is not a readable directory, or the DASH video is invalid.
    pub(crate) fn new(options: &HttpOptions) -> Result<Site, String> {
        let root = match &options.root {
            None => None,
            Some(dir) => {
                let real = dir
                    .canonicalize()
                    .map_err(|e| format!("root {}: {e}", dir.display()))?;
                if !real.is_dir() {
                    return Err(format!("root {}: not a directory", dir.display()));
                }
                Some(real)
            }
        };
        options
            .dash
            .validate()
            .map_err(|e| format!("DASH video: {e}"))?;
        Ok(Site {
            root,
            dash: options.dash.clone(),
        })
    }
}

type RequestStream = h3::server::RequestStream<transport::Bidirectional<Bytes>, Bytes>;

/// Serves one HTTP/3 connection until it ends.
pub(crate) async fn serve_connection(
    connection: s2n_quic::Connection,
    site: Arc<Site>,
    stats: Arc<ServerStats>,
) {
    let mut builder = h3::server::builder();
    builder.max_field_section_size(MAX_FIELD_SECTION);
    // No GREASE: h3 puts a reserved-type frame after the last DATA frame
    // of a connection's first response, and aioquic (1.3) then never
    // reports that response's end (it drops the FIN with the unknown
    // frame), so a real client would hang on it.
    builder.send_grease(false);
    let built = builder.build::<_, Bytes>(transport::Connection::new(connection));
    let Ok(Ok(mut h3)) = tokio::time::timeout(REQUEST_TIMEOUT, built).await else {
        return;
    };
    // Errors end the connection: h3 has closed it with the reason.
    while let Ok(Some(resolver)) = h3.accept().await {
        let (site, stats) = (site.clone(), stats.clone());
        tokio::spawn(async move {
            let request = tokio::time::timeout(REQUEST_TIMEOUT, resolver.resolve_request()).await;
            let Ok(Ok((request, mut stream))) = request else {
                // h3 has reset the stream (or will, when the resolver is
                // dropped on a timeout).
                stats.bad_requests.fetch_add(1, Ordering::Relaxed);
                return;
            };
            let outcome = match answer(&request, &mut stream, &site, &stats).await {
                Ok(()) => stream.finish().await.map_err(|_| ()),
                Err(()) => Err(()),
            };
            if outcome.is_ok() {
                drain_request(&mut stream).await;
            }
            let counter = if outcome.is_ok() {
                &stats.completed
            } else {
                &stats.aborted
            };
            counter.fetch_add(1, Ordering::Relaxed);
        });
    }
}

/// Reads the request to its end (its FIN), discarding any body: a GET or
/// HEAD has none, but the stream only counts as closed, and the peer gets
/// its stream credit back, once the server has read the FIN. Dropping it
/// unread would make s2n-quic send STOP_SENDING instead, which a peer whose
/// side is already finished (aioquic) may ignore, keeping the stream open
/// for ever. Bounded by [`REQUEST_TIMEOUT`] and [`MAX_FIELD_SECTION`] bytes.
async fn drain_request(stream: &mut RequestStream) {
    let drain = async {
        let mut read = 0u64;
        while let Ok(Some(chunk)) = stream.recv_data().await {
            read += bytes::Buf::remaining(&chunk) as u64;
            if read > MAX_FIELD_SECTION {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(REQUEST_TIMEOUT, drain).await;
}

/// A body the server writes: bytes in memory followed by zeros, or a file.
enum Body {
    /// `prefix`, then zeros up to `len` bytes.
    Generated { prefix: Bytes, len: u64 },
    /// A file of `len` bytes (as it was when opened).
    File { file: Arc<std::fs::File>, len: u64 },
}

impl Body {
    fn text(text: String) -> Body {
        let prefix = Bytes::from(text);
        Body::Generated {
            len: prefix.len() as u64,
            prefix,
        }
    }

    fn len(&self) -> u64 {
        match self {
            Body::Generated { len, .. } | Body::File { len, .. } => *len,
        }
    }

    /// Up to `n` (at most [`CHUNK`]) bytes from `offset`, at least one:
    /// a generated body's prefix ends a chunk early.
    async fn read(&self, offset: u64, n: usize) -> Result<Bytes, ()> {
        match self {
            Body::Generated { prefix, .. } => {
                let at = offset.min(prefix.len() as u64) as usize;
                if at < prefix.len() {
                    Ok(prefix.slice(at..(at + n).min(prefix.len())))
                } else {
                    Ok(Bytes::from_static(&ZEROS[..n]))
                }
            }
            Body::File { file, .. } => {
                let file = file.clone();
                // Disk reads block: off the async workers.
                tokio::task::spawn_blocking(move || {
                    use std::os::unix::fs::FileExt;
                    let mut buf = vec![0u8; n];
                    file.read_exact_at(&mut buf, offset)
                        .map(|()| Bytes::from(buf))
                })
                .await
                .map_err(|_| ())?
                // The file shrank since it was opened: the response cannot
                // keep its Content-Length, so it is aborted.
                .map_err(|_| ())
            }
        }
    }
}

/// A response's status line and headers.
fn head(status: StatusCode, content_type: &str, len: Option<u64>) -> Response<()> {
    let mut response = Response::builder()
        .status(status)
        .header(header::SERVER, "bbrlab")
        // Players loaded from another origin (dash.js demo pages) may fetch.
        .header(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")
        .header(header::CONTENT_TYPE, content_type);
    if let Some(len) = len {
        response = response.header(header::CONTENT_LENGTH, len);
    }
    response
        .body(())
        .expect("static header names and valid values")
}

/// An error response with a one-line text body.
async fn error(
    stream: &mut RequestStream,
    status: StatusCode,
    reason: &str,
    extra: Option<(header::HeaderName, HeaderValue)>,
    with_body: bool,
    stats: &ServerStats,
) -> Result<(), ()> {
    let text = format!(
        "{} {}: {reason}\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    );
    let mut response = head(status, "text/plain; charset=utf-8", Some(text.len() as u64));
    if let Some((name, value)) = extra {
        response.headers_mut().insert(name, value);
    }
    stream.send_response(response).await.map_err(|_| ())?;
    if with_body {
        send_range(
            stream,
            &Body::text(text.clone()),
            0,
            text.len() as u64,
            stats,
        )
        .await?;
    }
    Ok(())
}

/// A 400 with `reason`, counted as a bad request.
async fn bad_request(
    stream: &mut RequestStream,
    reason: &str,
    with_body: bool,
    stats: &ServerStats,
) -> Result<(), ()> {
    stats.bad_requests.fetch_add(1, Ordering::Relaxed);
    error(
        stream,
        StatusCode::BAD_REQUEST,
        reason,
        None,
        with_body,
        stats,
    )
    .await
}

/// The answer to a path [`files::check`] or [`files::resolve`] refuses.
fn path_refusal(refused: files::PathError, path: &str) -> (StatusCode, String) {
    match refused {
        files::PathError::Bad(reason) => (StatusCode::BAD_REQUEST, reason),
        files::PathError::TooLong => (
            StatusCode::URI_TOO_LONG,
            format!("paths are at most {} bytes", files::MAX_PATH),
        ),
        files::PathError::NotFound => (StatusCode::NOT_FOUND, format!("no file {path}")),
    }
}

/// Writes bytes `start..end` of `body`.
async fn send_range(
    stream: &mut RequestStream,
    body: &Body,
    start: u64,
    end: u64,
    stats: &ServerStats,
) -> Result<(), ()> {
    let mut offset = start;
    while offset < end {
        let n = (end - offset).min(CHUNK as u64) as usize;
        let chunk = body.read(offset, n).await?;
        let len = chunk.len() as u64;
        stream.send_data(chunk).await.map_err(|_| ())?;
        stats.bytes_written.fetch_add(len, Ordering::Relaxed);
        offset += len;
    }
    Ok(())
}

/// Answers one request.
async fn answer(
    request: &http::Request<()>,
    stream: &mut RequestStream,
    site: &Site,
    stats: &ServerStats,
) -> Result<(), ()> {
    let with_body = request.method() == Method::GET;
    if !with_body && request.method() != Method::HEAD {
        let allow = (header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        let reason = format!("{} is not served: GET or HEAD", request.method());
        return error(
            stream,
            StatusCode::METHOD_NOT_ALLOWED,
            &reason,
            Some(allow),
            true,
            stats,
        )
        .await;
    }
    let path = request.uri().path();
    // Every path is checked, with or without a root: a malformed one is
    // a 400 whatever it names.
    if let Err(refused) = files::check(path) {
        stats.bad_requests.fetch_add(1, Ordering::Relaxed);
        let (status, reason) = path_refusal(refused, path);
        return error(stream, status, &reason, None, with_body, stats).await;
    }
    if path == "/live" {
        return match live_request(request.uri().query().unwrap_or("")) {
            Ok((config, duration)) => send_live(stream, config, duration, with_body, stats).await,
            Err(reason) => bad_request(stream, &reason, with_body, stats).await,
        };
    }
    let found = if let Some(rest) = path.strip_prefix("/dash/") {
        dash_body(&site.dash, rest)
    } else if let Some(root) = &site.root {
        match files::resolve(root, path) {
            Ok(file) => open(&file).await,
            Err(refused) => Err(path_refusal(refused, path)),
        }
    } else {
        Err((
            StatusCode::NOT_FOUND,
            format!("no file {path} (the server has no --root)"),
        ))
    };
    let (body, content_type) = match found {
        Ok(found) => found,
        Err((status, reason)) => {
            if status.is_client_error() && status != StatusCode::NOT_FOUND {
                stats.bad_requests.fetch_add(1, Ordering::Relaxed);
            }
            return error(stream, status, &reason, None, with_body, stats).await;
        }
    };
    let len = body.len();
    let range = match request.headers().get(header::RANGE) {
        None => Ok(files::RangeRequest::Whole),
        Some(value) => match value.to_str() {
            Ok(text) => files::parse_range(text, len),
            Err(_) => Err("Range: not ASCII".to_string()),
        },
    };
    let (status, start, end) = match range {
        Ok(files::RangeRequest::Whole) => (StatusCode::OK, 0, len),
        Ok(files::RangeRequest::Part { start, end }) => (StatusCode::PARTIAL_CONTENT, start, end),
        Ok(files::RangeRequest::Unsatisfiable) => {
            let all = HeaderValue::from_str(&format!("bytes */{len}")).expect("ASCII digits");
            let reason = format!("the range lies beyond the {len} bytes");
            return error(
                stream,
                StatusCode::RANGE_NOT_SATISFIABLE,
                &reason,
                Some((header::CONTENT_RANGE, all)),
                with_body,
                stats,
            )
            .await;
        }
        Err(reason) => return bad_request(stream, &reason, with_body, stats).await,
    };
    let mut response = head(status, content_type, Some(end - start));
    let headers = response.headers_mut();
    headers.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    if status == StatusCode::PARTIAL_CONTENT {
        let value = format!("bytes {start}-{}/{len}", end - 1);
        headers.insert(
            header::CONTENT_RANGE,
            HeaderValue::from_str(&value).expect("ASCII digits"),
        );
    }
    stream.send_response(response).await.map_err(|_| ())?;
    if with_body {
        send_range(stream, &body, start, end, stats).await?;
    }
    Ok(())
}

type Found = Result<(Body, &'static str), (StatusCode, String)>;

/// Opens a file found under the root.
async fn open(path: &std::path::Path) -> Found {
    let owned = path.to_path_buf();
    let opened = tokio::task::spawn_blocking(move || {
        let file = std::fs::File::open(&owned)?;
        let len = file.metadata()?.len();
        Ok::<_, std::io::Error>((file, len))
    })
    .await;
    match opened {
        Ok(Ok((file, len))) => Ok((
            Body::File {
                file: Arc::new(file),
                len,
            },
            files::content_type(path),
        )),
        // Unreadable (permissions, removed meanwhile): as if absent.
        _ => Err((StatusCode::NOT_FOUND, "the file cannot be read".to_string())),
    }
}

/// The body of a `/dash/` resource.
fn dash_body(config: &DashConfig, rest: &str) -> Found {
    match dash::route(config, rest) {
        Some(dash::Resource::Manifest) => {
            Ok((Body::text(dash::manifest(config)), "application/dash+xml"))
        }
        Some(dash::Resource::Init { quality }) => {
            let bytes = dash::init_segment(config, quality);
            Ok((
                Body::Generated {
                    len: bytes.len() as u64,
                    prefix: bytes.into(),
                },
                "video/mp4",
            ))
        }
        Some(dash::Resource::Segment { quality, index }) => {
            let len = config.segment_bytes(index, quality);
            Ok((
                Body::Generated {
                    prefix: dash::segment_prefix(config, quality, index).into(),
                    len,
                },
                "video/iso.segment",
            ))
        }
        None => Err((StatusCode::NOT_FOUND, format!("no DASH resource {rest:?}"))),
    }
}

/// Parses `/live`'s query: `bitrate` (required, e.g. 5Mbit), `duration`
/// (30s), `frame` (40ms), `gop` (2s), `iframe` (I/P size ratio, 1).
///
/// # Errors
/// A missing, unknown, repeated or invalid parameter; the message names it.
pub fn live_request(query: &str) -> Result<(LiveConfig, Duration), String> {
    let mut seen: Vec<&str> = Vec::new();
    let mut config = LiveConfig::COPILOT_PAPER;
    config.bitrate = Bandwidth::ZERO;
    let mut duration = Duration::from_secs(30);
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, raw) = pair
            .split_once('=')
            .ok_or_else(|| format!("live: expected KEY=VALUE, got {pair:?}"))?;
        let value = files::percent_decode(raw).map_err(|e| format!("live: {key}: {e}"))?;
        if seen.contains(&key) {
            return Err(format!("live: {key} given twice"));
        }
        let time =
            |v: &str| scenario::units::parse_duration(v).map_err(|e| format!("live: {key}: {e}"));
        match key {
            "bitrate" => {
                config.bitrate = scenario::units::parse_rate(&value)
                    .map_err(|e| format!("live: bitrate: {e}"))?;
                if config.bitrate.bits_per_sec() > MAX_LIVE_BITRATE {
                    return Err(format!(
                        "live: bitrate: expected at most {MAX_LIVE_BITRATE} bit/s"
                    ));
                }
            }
            "duration" => duration = time(&value)?,
            "frame" => config.frame_interval = time(&value)?,
            "gop" => config.gop = time(&value)?,
            "iframe" => {
                let ratio: f64 = value
                    .parse()
                    .map_err(|_| format!("live: iframe: expected a number, got {value:?}"))?;
                config.frame_sizes = if ratio == 1.0 {
                    FrameSizes::Constant
                } else {
                    FrameSizes::Gop {
                        i_frame_ratio: ratio,
                    }
                };
            }
            other => {
                return Err(format!(
                    "live: unknown parameter {other:?}: expected bitrate, duration, frame, gop or iframe"
                ))
            }
        }
        seen.push(key);
    }
    if !seen.contains(&"bitrate") {
        return Err("live: missing bitrate (e.g. /live?bitrate=5Mbit)".into());
    }
    config.validate().map_err(|e| format!("live: {e}"))?;
    if duration.is_zero() || duration > MAX_DURATION {
        return Err(format!(
            "live: duration: expected more than 0 and at most {}s",
            MAX_DURATION.as_secs()
        ));
    }
    Ok((config, duration))
}

/// Writes a live stream's frames as the source generates them.
async fn send_live(
    stream: &mut RequestStream,
    config: LiveConfig,
    duration: Duration,
    with_body: bool,
    stats: &ServerStats,
) -> Result<(), ()> {
    // Frame time zero, also in the wall clock: a client on this machine
    // (a browser in an emulated run) measures frame delays from it, not
    // from when it asked (the request's time inside the client is not the
    // frames' delay).
    let mut clock = LiveClock::new(config, duration);
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mut response = head(StatusCode::OK, "application/octet-stream", None);
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        LIVE_STREAM_START,
        HeaderValue::from_str(&format!("{:.3}", started.as_secs_f64() * 1e3))
            .expect("a number is a valid header value"),
    );
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(LIVE_STREAM_START),
    );
    stream.send_response(response).await.map_err(|_| ())?;
    if !with_body {
        return Ok(());
    }
    let mut number = 0u64;
    while let Some(bytes) = clock.next().await {
        let mut header = [0u8; LIVE_FRAME_HEADER];
        header[..8].copy_from_slice(&number.to_be_bytes());
        header[8..].copy_from_slice(&bytes.to_be_bytes());
        stream
            .send_data(Bytes::copy_from_slice(&header))
            .await
            .map_err(|_| ())?;
        let payload = Body::Generated {
            prefix: Bytes::new(),
            len: bytes,
        };
        send_range(stream, &payload, 0, bytes, stats).await?;
        number += 1;
    }
    Ok(())
}
