//! `my-bbr` inside s2n-quic: a real connection on loopback whose sender
//! runs the registered controller.

use std::net::SocketAddr;
use std::time::Duration;

use cc::AlgorithmSpec;
use quic::client::{get, ClientConfig};
use quic::protocol::Request;
use quic::server::{self, ServerConfig};
use quic::tls::Identity;
use quic::TelemetryOptions;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn my_bbr_carries_a_transfer_in_s2n_quic() {
    my_controller::register();
    let identity = Identity::self_signed().unwrap();
    let spec = "my-bbr:up=1.15";
    let running = server::start(ServerConfig {
        listen: "127.0.0.1:0".parse::<SocketAddr>().unwrap(),
        spec: AlgorithmSpec::parse(spec).unwrap(),
        seed: 1,
        identity: identity.clone(),
        copilot: false,
        max_connections: 4,
        telemetry: TelemetryOptions {
            sample_interval: Some(Duration::from_millis(100)),
            ..TelemetryOptions::default()
        },
        http: quic::http3::HttpOptions::default(),
    })
    .unwrap();
    let client = ClientConfig {
        server: running.local_addr(),
        server_name: "localhost".into(),
        trust_pem: identity.cert_pem.clone(),
        request: Request::Sized { bytes: 3_000_000 },
        spec: AlgorithmSpec::parse("cubic").unwrap(),
        progress_interval: Duration::from_millis(100),
        telemetry: TelemetryOptions::default(),
        receive_window: None,
        request_trip: Duration::ZERO,
        live_measure_from: None,
        socket: None,
    };
    let report = get(client, std::future::pending()).await.expect("get");
    assert!(report.complete, "{report:?}");
    assert_eq!(report.bytes, 3_000_000);
    let path = running
        .paths
        .path_list()
        .into_iter()
        .next()
        .expect("a path recorded");
    assert_eq!(path.spec, spec);
    let log = path.log.lock().unwrap();
    assert!(log.counters.bytes_sent >= 3_000_000, "{:?}", log.counters);
}
