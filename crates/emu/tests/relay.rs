//! The relay on loopback: its delivered rate is the configured one, its
//! delay the configured RTT, its loss the configured ratio. Real sockets,
//! real time: each test runs a few seconds at most.

use std::net::{SocketAddr, UdpSocket};
use std::path::Path;
use std::time::{Duration, Instant};

use emu::{EmuConfig, Relay};

fn config(link: &str) -> EmuConfig {
    let text = format!("name = \"emu-test\"\nseed = 7\nduration = \"60s\"\n[link]\n{link}\n[[flow]]\ncc = \"bbr\"\n");
    let scenario = scenario::from_str(&text, Path::new("test.toml"), &[]).expect("scenario");
    EmuConfig::from_scenario(&scenario).expect("config")
}

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// A relay in front of a server socket, and a client socket that has
/// announced itself (the relay learns the client from its first datagram).
fn setup(link: &str) -> (Relay, UdpSocket, UdpSocket, SocketAddr) {
    let server = UdpSocket::bind(loopback()).unwrap();
    let relay = Relay::start(loopback(), server.local_addr().unwrap(), &config(link)).unwrap();
    let client = UdpSocket::bind(loopback()).unwrap();
    client.send_to(b"hello", relay.listen_addr()).unwrap();
    server
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let mut buf = [0u8; 64];
    let (n, relay_side) = server.recv_from(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"hello");
    (relay, server, client, relay_side)
}

/// Sends `count` datagrams of `size` bytes from `server` to `to` at
/// `mbps` (of wire bytes), in bursts of ten.
fn blast(server: &UdpSocket, to: SocketAddr, count: usize, size: usize, mbps: f64) {
    let payload = vec![0x5a; size];
    let gap = Duration::from_secs_f64((size + 28) as f64 * 8.0 / (mbps * 1e6));
    let start = Instant::now();
    for i in 0..count {
        server.send_to(&payload, to).unwrap();
        if i % 10 == 9 {
            let due = start + gap * (i as u32 + 1);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
        }
    }
}

/// Receives until `quiet` passes without a datagram: (arrival, wire bytes).
fn drain(client: &UdpSocket, quiet: Duration) -> Vec<(Instant, usize)> {
    client.set_read_timeout(Some(quiet)).unwrap();
    let mut buf = vec![0u8; 65_536];
    let mut got = Vec::new();
    while let Ok(n) = client.recv(&mut buf) {
        got.push((Instant::now(), n + 28));
    }
    got
}

#[test]
fn the_delivered_rate_is_the_configured_rate() {
    // 40 Mbit/s, offered 80 for 3 s: the buffer stays full and the link busy.
    let (relay, server, client, to) =
        setup("rate = \"40Mbit\"\nrtt = \"20ms\"\nbuffer = \"200pkt\"");
    let receiver = std::thread::spawn(move || drain(&client, Duration::from_millis(500)));
    blast(&server, to, 25_000, 1172, 80.0);
    let got = receiver.join().unwrap();
    assert!(got.len() > 5_000, "{} datagrams arrived", got.len());
    // The rate between the first and last arrival: wire bytes after the first.
    let span = got.last().unwrap().0 - got[0].0;
    let bytes: usize = got[1..].iter().map(|(_, b)| b).sum();
    let rate = bytes as f64 * 8.0 / span.as_secs_f64() / 1e6;
    assert!(
        (rate - 40.0).abs() / 40.0 <= 0.01,
        "delivered {rate:.3} Mbit/s through a 40 Mbit/s link"
    );
    let down = &relay.down;
    let overflowed = down.overflowed.load(std::sync::atomic::Ordering::Relaxed);
    assert!(overflowed > 1_000, "the full buffer dropped: {overflowed}");
    relay.stop().unwrap();
}

#[test]
fn the_round_trip_time_is_the_configured_one() {
    let (relay, server, client, to) =
        setup("rate = \"100Mbit\"\nrtt = \"30ms\"\nbuffer = \"1bdp\"");
    client
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let mut samples = Vec::new();
    let mut buf = [0u8; 64];
    for _ in 0..10 {
        let sent = Instant::now();
        client.send_to(b"ping", relay.listen_addr()).unwrap();
        let (n, from) = server.recv_from(&mut buf).unwrap();
        assert_eq!((&buf[..n], from), (&b"ping"[..], to));
        server.send_to(b"pong", to).unwrap();
        let n = client.recv(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"pong");
        samples.push(sent.elapsed());
    }
    samples.sort();
    let median = samples[samples.len() / 2];
    assert!(
        median >= Duration::from_millis(30) && median < Duration::from_millis(33),
        "median RTT {median:?} for a 30 ms path"
    );
    relay.stop().unwrap();
}

#[test]
fn random_loss_takes_its_share() {
    let (relay, server, client, to) =
        setup("rate = \"100Mbit\"\nrtt = \"10ms\"\nbuffer = \"1000pkt\"\nloss = \"10%\"");
    let receiver = std::thread::spawn(move || drain(&client, Duration::from_millis(300)));
    blast(&server, to, 5_000, 500, 20.0);
    let got = receiver.join().unwrap();
    let lost = relay.down.lost.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(
        got.len() as u64 + lost,
        5_000,
        "every datagram delivered or lost"
    );
    let share = lost as f64 / 5_000.0;
    assert!(
        (0.08..=0.12).contains(&share),
        "lost {share:.3} at 10% loss"
    );
    relay.stop().unwrap();
}

#[test]
fn datagrams_from_strangers_do_not_reach_the_client() {
    let (relay, _server, client, relay_server_side) =
        setup("rate = \"10Mbit\"\nrtt = \"10ms\"\nbuffer = \"1bdp\"");
    // Someone other than the server writes to the relay's server-facing
    // socket (its port is not secret): it must not reach the client.
    let stranger = UdpSocket::bind(loopback()).unwrap();
    stranger.send_to(b"spoof", relay_server_side).unwrap();
    client
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut buf = [0u8; 64];
    assert!(
        client.recv(&mut buf).is_err(),
        "nothing but the server's datagrams is relayed"
    );
    let undeliverable = relay
        .down
        .undeliverable
        .load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(undeliverable, 1);
    relay.stop().unwrap();
}
