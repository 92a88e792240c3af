//! `bbrlab serve`'s server under malformed and abusive peers on loopback:
//! garbage datagrams, forged QUIC headers, malformed requests, a
//! connection flood. Every loop is bounded; afterwards a well-behaved
//! client is still served and memory has stayed bounded.

mod support;
use support::client_config;

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::Ordering;
use std::time::Duration;

use cc::AlgorithmSpec;
use quic::client::get;
use quic::protocol::Request;
use quic::server::{self, ServerConfig};
use quic::tls::Identity;
use quic::TelemetryOptions;
use rand::{Rng, SeedableRng};
use s2n_quic::client::Connect;
use tokio::io::AsyncWriteExt;

const MAX_CONNECTIONS: usize = 16;

fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn raw_client(identity: &Identity) -> s2n_quic::Client {
    s2n_quic::Client::builder()
        .with_tls(
            s2n_quic::provider::tls::default::Client::builder()
                .with_certificate(identity.cert_pem.as_str())
                .unwrap()
                .with_application_protocols([quic::protocol::ALPN].iter())
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

/// Garbage and forged long-header datagrams straight at the server's socket.
fn flood_datagrams(to: SocketAddr, count: usize) {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
    let mut buf = [0u8; 1500];
    for i in 0..count {
        let len = rng.gen_range(1..=1500);
        rng.fill(&mut buf[..len]);
        if i % 2 == 0 && len > 20 {
            // A long header, QUIC v1, an Initial: s2n-quic must parse further.
            buf[0] = 0xc0 | (buf[0] & 0x0f);
            buf[1..5].copy_from_slice(&1u32.to_be_bytes());
            buf[5] = 8;
        }
        let _ = socket.send_to(&buf[..len], to);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_keeps_serving_through_garbage_bad_requests_and_a_connection_flood() {
    let identity = Identity::self_signed().unwrap();
    let running = server::start(ServerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        spec: AlgorithmSpec::parse("bbr").unwrap(),
        seed: 1,
        identity: identity.clone(),
        copilot: false,
        max_connections: MAX_CONNECTIONS,
        telemetry: TelemetryOptions::default(),
        http: quic::http3::HttpOptions::default(),
    })
    .unwrap();
    let addr = running.local_addr();
    // Warm up (allocator, TLS) before the baseline.
    let first = get(
        client_config(addr, &identity, Request::Sized { bytes: 100_000 }),
        std::future::pending(),
    )
    .await
    .unwrap();
    assert!(first.complete);
    let baseline = resident_bytes();

    // 1. Garbage: 20,000 datagrams, half of them forged Initial headers.
    tokio::task::spawn_blocking(move || flood_datagrams(addr, 20_000))
        .await
        .unwrap();

    // 2. Malformed requests on real connections: each stream is refused.
    let client = raw_client(&identity);
    let bad_lines: [&[u8]; 4] = [
        b"GET / HTTP/1.1\n",
        b"SIZE 99999999999999999999\n",
        &[b'A'; 300],
        b"\xff\xfe\xfd\n",
    ];
    for line in bad_lines {
        let mut connection = client
            .connect(Connect::new(addr).with_server_name("localhost"))
            .await
            .unwrap();
        let mut stream = connection.open_bidirectional_stream().await.unwrap();
        let _ = stream.write_all(line).await;
        let _ = stream.flush().await;
        // The server resets the stream: the read ends in an error, not data.
        let read = tokio::time::timeout(Duration::from_secs(5), stream.receive()).await;
        assert!(
            !matches!(read, Ok(Ok(Some(_)))),
            "{:?}: the server answered a malformed request",
            String::from_utf8_lossy(line)
        );
    }
    assert_eq!(running.stats.bad_requests.load(Ordering::Relaxed), 4);

    // 3. A connection flood: MAX_CONNECTIONS held open, then more attempts
    //    are dropped rather than served.
    let mut held = Vec::new();
    for _ in 0..MAX_CONNECTIONS + 8 {
        let attempt = tokio::time::timeout(
            Duration::from_millis(1500),
            client.connect(Connect::new(addr).with_server_name("localhost")),
        )
        .await;
        if let Ok(Ok(mut connection)) = attempt {
            let _ = connection.keep_alive(true);
            held.push(connection);
        }
    }
    assert!(
        held.len() <= MAX_CONNECTIONS,
        "{} connections accepted, limit {MAX_CONNECTIONS}",
        held.len()
    );
    assert!(
        held.len() >= MAX_CONNECTIONS / 2,
        "only {} connections accepted",
        held.len()
    );
    for connection in held.drain(..) {
        connection.close(0u32.into());
    }
    tokio::time::sleep(Duration::from_millis(500)).await;

    // 4. A well-behaved client is served in full.
    let report = get(
        client_config(addr, &identity, Request::Sized { bytes: 2_000_000 }),
        std::future::pending(),
    )
    .await
    .expect("the server still serves");
    assert!(report.complete);
    assert_eq!(report.bytes, 2_000_000);
    let grown = resident_bytes().saturating_sub(baseline);
    assert!(
        grown < 64 << 20,
        "resident memory grew by {} MB through the abuse",
        grown >> 20
    );
}
