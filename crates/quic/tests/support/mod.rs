//! What the real-stack tests share.

use std::net::SocketAddr;
use std::time::Duration;

use cc::AlgorithmSpec;
use quic::client::ClientConfig;
use quic::protocol::Request;
use quic::tls::Identity;
use quic::TelemetryOptions;

/// A client of `to` that trusts `identity` and asks for `request`.
pub fn client_config(to: SocketAddr, identity: &Identity, request: Request) -> ClientConfig {
    ClientConfig {
        server: to,
        server_name: "localhost".into(),
        trust_pem: identity.cert_pem.clone(),
        request,
        spec: AlgorithmSpec::parse("cubic").unwrap(),
        progress_interval: Duration::from_millis(100),
        telemetry: TelemetryOptions::default(),
        receive_window: None,
        request_trip: Duration::ZERO,
        live_measure_from: None,
        socket: None,
    }
}
