//! Real s2n-quic connections on loopback, driven by bbrlab controllers.

mod support;
use support::client_config;

use std::net::SocketAddr;
use std::time::Duration;

use cc::AlgorithmSpec;
use quic::client::{get, GetReport};
use quic::protocol::Request;
use quic::server::{self, ServerConfig};
use quic::tls::Identity;
use quic::TelemetryOptions;

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

fn server_config(spec: &str, identity: &Identity) -> ServerConfig {
    ServerConfig {
        listen: loopback(),
        spec: AlgorithmSpec::parse(spec).unwrap(),
        seed: 1,
        identity: identity.clone(),
        copilot: false,
        max_connections: 16,
        telemetry: TelemetryOptions {
            sample_interval: Some(Duration::from_millis(100)),
            ..TelemetryOptions::default()
        },
        http: quic::http3::HttpOptions::default(),
    }
}

async fn fetch(to: SocketAddr, identity: &Identity, request: Request) -> GetReport {
    get(client_config(to, identity, request), std::future::pending())
        .await
        .expect("get")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sized_transfer_arrives_whole_under_each_controller() {
    let identity = Identity::self_signed().unwrap();
    for spec in ["bbr", "cubic", "obbr", "bbr2"] {
        let running = server::start(server_config(spec, &identity)).unwrap();
        let report = fetch(
            running.local_addr(),
            &identity,
            Request::Sized { bytes: 5_000_000 },
        )
        .await;
        assert!(report.complete, "{spec}: {report:?}");
        assert_eq!(report.bytes, 5_000_000, "{spec}");
        let path = running
            .paths
            .path_list()
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("{spec}: no path recorded"));
        let log = path.log.lock().unwrap();
        // Every byte went through the controller (the last ACKs may still
        // be on their way when the client has read everything).
        assert!(
            log.counters.bytes_sent >= 5_000_000 && log.counters.bytes_acked > 4_000_000,
            "{spec}: the controller saw {:?}",
            log.counters
        );
        assert_eq!(path.spec, spec);
    }
}

fn emulated_link(link: &str) -> emu::EmuConfig {
    let text = format!(
        "name = \"quic-test\"\nseed = 7\nduration = \"60s\"\n[link]\n{link}\n[[flow]]\ncc = \"bbr\"\n"
    );
    let scenario = scenario::from_str(&text, std::path::Path::new("test.toml"), &[]).unwrap();
    emu::EmuConfig {
        link: scenario.config.link.clone(),
        uplink: scenario.config.uplink.clone(),
        rtt: scenario.config.flows[0].rtt,
        seed: scenario.config.seed,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_the_emulator_bbr_fills_the_link() {
    let identity = Identity::self_signed().unwrap();
    let running = server::start(server_config("bbr", &identity)).unwrap();
    let relay = emu::Relay::start(
        loopback(),
        running.local_addr(),
        &emulated_link("rate = \"20Mbit\"\nrtt = \"40ms\"\nbuffer = \"1bdp\""),
    )
    .unwrap();
    let report = fetch(
        relay.listen_addr(),
        &identity,
        Request::Bulk {
            duration: Duration::from_secs(6),
        },
    )
    .await;
    let path = running.paths.path_list().into_iter().next().unwrap();
    let log = path.log.lock().unwrap();
    let goodput = report.goodput_bps / 1e6;
    assert!(
        goodput > 17.0,
        "{goodput:.2} Mbit/s through a 20 Mbit/s link"
    );
    // The controller inside s2n-quic found the link's rate and left Startup.
    let last = log.samples.last().expect("samples");
    let estimate = last.bw_estimate_bps / 1e6;
    assert!(
        (18.0..=21.0).contains(&estimate),
        "BBR's estimate {estimate:.2} Mbit/s"
    );
    assert_eq!(last.mode, "probe_bw");
}
