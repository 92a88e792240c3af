//! HTTP/3 on `bbrlab serve` through the h3 crate's own client over the
//! same s2n-quic glue the server uses (`quic::http3::transport`): the
//! answers, the limits, and malformed requests, each class refused with
//! an HTTP error while the connection and the server go on serving.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::Duration;

use bytes::{Buf, Bytes};
use cc::AlgorithmSpec;
use h3::client::SendRequest;
use quic::http3::{transport, HttpOptions};
use quic::server::{self, RunningServer, ServerConfig};
use quic::tls::Identity;
use quic::TelemetryOptions;
use s2n_quic::client::Connect;
use sim::app::live::{FrameSizes, LiveConfig};
use tokio::io::AsyncWriteExt;

type Sender = SendRequest<transport::Opener, Bytes>;
/// A refused request: method, path, headers, the status and a word of
/// the reason expected.
type Refused<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], u16, &'a str);

fn start(identity: &Identity, root: Option<std::path::PathBuf>) -> RunningServer {
    server::start(ServerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        spec: AlgorithmSpec::parse("obbr").unwrap(),
        seed: 1,
        identity: identity.clone(),
        copilot: true,
        max_connections: 8,
        telemetry: TelemetryOptions::default(),
        http: HttpOptions {
            root,
            ..HttpOptions::default()
        },
    })
    .unwrap()
}

fn quic_client(identity: &Identity, alpn: &[u8]) -> s2n_quic::Client {
    s2n_quic::Client::builder()
        .with_tls(
            s2n_quic::provider::tls::default::Client::builder()
                .with_certificate(identity.cert_pem.as_str())
                .unwrap()
                .with_application_protocols([alpn].iter())
                .unwrap()
                .build()
                .unwrap(),
        )
        .unwrap()
        .with_io("127.0.0.1:0")
        .unwrap()
        .start()
        .unwrap()
}

/// An HTTP/3 connection to `addr`; its driver runs in a task.
async fn connect(client: &s2n_quic::Client, addr: SocketAddr) -> Sender {
    let connection = client
        .connect(Connect::new(addr).with_server_name("localhost"))
        .await
        .unwrap();
    let (mut driver, sender) = h3::client::builder()
        .build::<_, _, Bytes>(transport::Connection::new(connection))
        .await
        .unwrap();
    tokio::spawn(async move { std::future::poll_fn(|cx| driver.poll_close(cx)).await });
    sender
}

/// A response: status, headers, body.
struct Got {
    status: u16,
    headers: http::HeaderMap,
    body: Vec<u8>,
}

async fn fetch(sender: &mut Sender, method: &str, path: &str, headers: &[(&str, &str)]) -> Got {
    let mut request = http::Request::builder()
        .method(method)
        .uri(format!("https://localhost{path}"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let mut stream = sender
        .send_request(request.body(()).unwrap())
        .await
        .unwrap();
    stream.finish().await.unwrap();
    let response = stream.recv_response().await.unwrap();
    let mut body = Vec::new();
    while let Some(mut chunk) = stream.recv_data().await.unwrap() {
        body.extend_from_slice(&chunk.copy_to_bytes(chunk.remaining()));
    }
    Got {
        status: response.status().as_u16(),
        headers: response.headers().clone(),
        body,
    }
}

/// A root directory under target/tmp, removed when dropped (a failing
/// test included).
struct Root(std::path::PathBuf);

impl Root {
    fn new() -> Root {
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("http3-h3-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Root(dir)
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn header<'a>(got: &'a Got, name: &str) -> &'a str {
    got.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h3_clients_get_files_dash_and_live_under_the_servers_controller() {
    let root = Root::new();
    let dir = root.0.clone();
    let data: Vec<u8> = (0..300_001u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(dir.join("a.bin"), &data).unwrap();
    let identity = Identity::self_signed().unwrap();
    let running = start(&identity, Some(dir.clone()));
    let client = quic_client(&identity, b"h3");
    let mut sender = connect(&client, running.local_addr()).await;

    let whole = fetch(&mut sender, "GET", "/a.bin", &[]).await;
    assert_eq!(whole.status, 200);
    assert!(whole.body == data, "the file arrived altered");
    let part = fetch(&mut sender, "GET", "/a.bin", &[("range", "bytes=299990-")]).await;
    assert_eq!(part.status, 206);
    assert_eq!(part.body, data[299_990..]);
    assert_eq!(header(&part, "content-range"), "bytes 299990-300000/300001");
    let segment = fetch(&mut sender, "GET", "/dash/v2/7.m4s", &[]).await;
    assert_eq!(segment.status, 200);
    assert_eq!(segment.body.len(), 759_000 * 4 / 8);
    assert_eq!(&segment.body[4..8], b"styp");
    let head = fetch(&mut sender, "HEAD", "/dash/manifest.mpd", &[]).await;
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert!(header(&head, "content-length").parse::<u64>().unwrap() > 500);
    let live = fetch(
        &mut sender,
        "GET",
        "/live?bitrate=1Mbit&duration=500ms&gop=200ms&iframe=3",
        &[],
    )
    .await;
    assert_eq!(live.status, 200);
    // 5 frames of GOP at connect, then frames at 40..480 ms: 17 frames,
    // each behind a 16-byte header, the GOP's first frame 3x the others.
    let mut frames = Vec::new();
    let mut rest = &live.body[..];
    while rest.len() >= 16 {
        let size = u64::from_be_bytes(rest[8..16].try_into().unwrap()) as usize;
        frames.push(size);
        rest = &rest[16 + size..];
    }
    assert!(rest.is_empty());
    // The sizes are the live source's (an I-frame of about 3 x 3571 bytes
    // opening each GOP).
    let config = LiveConfig {
        bitrate: cc::Bandwidth::from_kbps(1000),
        gop: Duration::from_millis(200),
        frame_sizes: FrameSizes::Gop { i_frame_ratio: 3.0 },
        ..LiveConfig::COPILOT_PAPER
    };
    let expected: Vec<usize> = (0..17).map(|i| config.frame_bytes(i) as usize).collect();
    assert_eq!(frames, expected);
    assert!(frames[0] > 2 * frames[1], "{frames:?}");

    // The connection ran the server's controller: oBBR's path was recorded.
    assert!(!running.paths.path_list().is_empty());
    assert_eq!(running.stats.bad_requests.load(Ordering::Relaxed), 0);
    running.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_http3_requests_get_errors_and_the_server_keeps_serving() {
    let identity = Identity::self_signed().unwrap();
    let running = start(&identity, None);
    let addr = running.local_addr();
    let client = quic_client(&identity, b"h3");
    let mut sender = connect(&client, addr).await;

    // One class of bad input each: each refused with its status and reason.
    let long_path = format!("/{}", "a".repeat(3000));
    let refused: [Refused; 11] = [
        ("GET", "/%zz", &[], 400, "percent-encoding"),
        ("GET", "/dash/../dash/manifest.mpd", &[], 400, "segment"),
        ("GET", &long_path, &[], 414, "at most"),
        (
            "GET",
            "/dash/v0/1.m4s",
            &[("range", "bytes=5-1")],
            400,
            "Range",
        ),
        (
            "GET",
            "/dash/v0/1.m4s",
            &[("range", "bytes=999999999-")],
            416,
            "",
        ),
        ("GET", "/live", &[], 400, "missing bitrate"),
        ("GET", "/live?bitrate=0", &[], 400, "bitrate"),
        (
            "GET",
            "/live?bitrate=5Mbit&duration=2h",
            &[],
            400,
            "duration",
        ),
        (
            "GET",
            "/live?bitrate=5Mbit&speed=2",
            &[],
            400,
            "unknown parameter",
        ),
        (
            "GET",
            "/live?bitrate=5Mbit&bitrate=6Mbit",
            &[],
            400,
            "twice",
        ),
        ("DELETE", "/dash/manifest.mpd", &[], 405, "GET or HEAD"),
    ];
    for (method, path, headers, status, reason) in refused {
        let got = fetch(&mut sender, method, path, headers).await;
        let what = format!("{method} {}", &path[..path.len().min(40)]);
        assert_eq!(
            got.status,
            status,
            "{what}: {}",
            String::from_utf8_lossy(&got.body)
        );
        assert!(
            String::from_utf8_lossy(&got.body).contains(reason),
            "{what}: {}",
            String::from_utf8_lossy(&got.body)
        );
    }
    // A header section over the server's limit is refused by h3's client
    // before it is sent (aioquic's test sends one). The counter saw every
    // malformed request (not the 405 and 416: those are well-formed).
    assert_eq!(running.stats.bad_requests.load(Ordering::Relaxed), 9);

    // Streams per connection: four live streams held open, a fifth
    // request waits for one of them to end.
    let mut held = Vec::new();
    for _ in 0..4 {
        let request = http::Request::get("https://localhost/live?bitrate=1Mbit&duration=3s")
            .body(())
            .unwrap();
        let mut stream = sender.send_request(request).await.unwrap();
        stream.finish().await.unwrap();
        held.push(stream);
    }
    let fifth = tokio::time::timeout(
        Duration::from_millis(1000),
        fetch(&mut sender.clone(), "GET", "/dash/manifest.mpd", &[]),
    )
    .await;
    assert!(fifth.is_err(), "a fifth request stream was served at once");
    for mut stream in held.drain(..) {
        stream.stop_sending(h3::error::Code::H3_REQUEST_CANCELLED);
    }
    drop(held);

    // Garbage on a request stream: h3 closes that connection (a frame
    // error); a new one is served.
    let raw = quic_client(&identity, b"h3");
    let mut connection = raw
        .connect(Connect::new(addr).with_server_name("localhost"))
        .await
        .unwrap();
    let mut stream = connection.open_bidirectional_stream().await.unwrap();
    let _ = stream
        .write_all(b"\x01\x40\xff garbage that is not QPACK")
        .await;
    let _ = stream.flush().await;
    let answer = tokio::time::timeout(Duration::from_secs(5), stream.receive()).await;
    assert!(
        !matches!(answer, Ok(Ok(Some(_)))),
        "the server answered a garbage request"
    );

    let mut fresh = connect(&client, addr).await;
    let got = tokio::time::timeout(
        Duration::from_secs(10),
        fetch(&mut fresh, "GET", "/dash/manifest.mpd", &[]),
    )
    .await
    .expect("the server still serves");
    assert_eq!(got.status, 200);
    running.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_whose_headers_never_complete_is_dropped_after_the_request_timeout() {
    let identity = Identity::self_signed().unwrap();
    let running = start(&identity, None);
    let raw = quic_client(&identity, b"h3");
    let mut connection = raw
        .connect(Connect::new(running.local_addr()).with_server_name("localhost"))
        .await
        .unwrap();
    let mut stream = connection.open_bidirectional_stream().await.unwrap();
    // A HEADERS frame announcing 100 bytes, 3 of them sent, never the rest.
    stream.write_all(b"\x01\x40\x64abc").await.unwrap();
    stream.flush().await.unwrap();
    let began = std::time::Instant::now();
    let answer = tokio::time::timeout(
        server::REQUEST_TIMEOUT + Duration::from_secs(5),
        stream.receive(),
    )
    .await
    .expect("the server gave up on the request");
    assert!(
        !matches!(answer, Ok(Some(_))),
        "the server answered an incomplete request"
    );
    assert!(
        began.elapsed() >= server::REQUEST_TIMEOUT - Duration::from_secs(1),
        "dropped after {:?}, before the request timeout",
        began.elapsed()
    );
    assert_eq!(running.stats.bad_requests.load(Ordering::Relaxed), 1);
    running.stop();
}
