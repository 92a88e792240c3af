//! How fast the relay goes: for each link rate, a sender on loopback offers
//! 1.25x the rate for 4 s through the relay (a buffer of 1000 datagrams, so
//! the link stays busy) and a receiver measures what arrives. Prints one
//! row per rate: delivered rate, its error against the configured rate,
//! and the datagrams the buffer dropped.
//!
//! With `--flows N` the load is split over N routes of the relay (N
//! servers, N clients, one shared link): the sender takes the servers in
//! turn and a receiver thread per client adds up what arrives, which
//! measures the relay's many-socket path.
//!
//! `cargo run --release -p bbrlab-emu --example throughput [--flows N] [RATE_MBIT ...]`

use std::net::{SocketAddr, UdpSocket};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use emu::{EmuConfig, Relay, Route};

const PAYLOAD: usize = 1372;
const SECONDS: f64 = 4.0;

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let mut flows = 1usize;
    if args.peek().is_some_and(|a| a == "--flows") {
        args.next();
        flows = args
            .next()
            .and_then(|n| n.parse().ok())
            .filter(|&n| n >= 1)
            .expect("--flows N, N >= 1");
    }
    let rates: Vec<f64> = args
        .map(|a| a.parse().expect("rates in Mbit/s, e.g. 100 500"))
        .collect();
    let rates = if rates.is_empty() {
        vec![100.0, 300.0, 500.0, 800.0, 1000.0]
    } else {
        rates
    };
    println!("| link rate | offered | delivered | error | buffer drops | sender reached |");
    println!("|---|---|---|---|---|---|");
    for rate in rates {
        let (delivered, drops, sent) = measure(rate, flows);
        println!(
            "| {rate:.0} Mbit/s | {:.0} Mbit/s | {delivered:.1} Mbit/s | {:+.2}% | {drops} | {sent:.0} Mbit/s |",
            rate * 1.25,
            (delivered / rate - 1.0) * 100.0
        );
    }
}

/// The scenario's link as the relay runs it (what `bbrlab emu` does).
fn emu_config(scenario: &scenario::Scenario) -> EmuConfig {
    let flow = scenario.config.flows.first().expect("a flow");
    EmuConfig {
        link: scenario.config.link.clone(),
        uplink: scenario.config.uplink.clone(),
        rtt: flow.rtt,
        seed: scenario.config.seed,
    }
}

fn measure(rate: f64, flows: usize) -> (f64, u64, f64) {
    let text = format!(
        "name = \"throughput\"\nduration = \"60s\"\n[link]\nrate = \"{rate}Mbit\"\nrtt = \"10ms\"\nbuffer = \"1000pkt\"\n[[flow]]\ncc = \"bbr\"\n"
    );
    let scenario = scenario::from_str(&text, Path::new("throughput"), &[]).expect("scenario");
    let config = emu_config(&scenario);
    let loopback: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let servers: Vec<UdpSocket> = (0..flows)
        .map(|_| UdpSocket::bind(loopback).unwrap())
        .collect();
    let routes: Vec<Route> = servers
        .iter()
        .map(|s| Route {
            listen: loopback,
            forward: s.local_addr().unwrap(),
            rtt: config.rtt,
        })
        .collect();
    let relay = Relay::start_routes(&routes, &config).unwrap();
    let mut receivers = Vec::new();
    let mut targets = Vec::new();
    for (server, listen) in servers.iter().zip(relay.listen_addrs()) {
        let client = UdpSocket::bind(loopback).unwrap();
        client.send_to(b"hello", listen).unwrap();
        let mut buf = vec![0u8; 65_536];
        let (_, to) = server.recv_from(&mut buf).unwrap();
        targets.push(to);
        receivers.push(std::thread::spawn(move || receive(&client)));
    }
    let offered = rate * 1.25;
    let gap = Duration::from_secs_f64((PAYLOAD + 28) as f64 * 8.0 / (offered * 1e6));
    let count = (SECONDS / gap.as_secs_f64()) as usize;
    let payload = vec![0u8; PAYLOAD];
    let start = Instant::now();
    for i in 0..count {
        let _ = servers[i % flows].send_to(&payload, targets[i % flows]);
        if i % 32 == 31 {
            let due = start + gap * (i as u32 + 1);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
        }
    }
    let sent = count as f64 * (PAYLOAD + 28) as f64 * 8.0 / start.elapsed().as_secs_f64() / 1e6;
    // All flows' arrivals together: the wire bytes after the earliest
    // arrival, over the span from it to the latest (with one flow, the
    // receiver's own measure).
    let mut earliest: Option<(Instant, usize)> = None;
    let (mut last, mut bytes) = (None::<Instant>, 0usize);
    for receiver in receivers {
        let Some((first, end, total)) = receiver.join().unwrap() else {
            continue;
        };
        bytes += total;
        if earliest.is_none_or(|(at, _)| first.1 < at) {
            earliest = Some((first.1, first.0));
        }
        last = Some(last.map_or(end, |l| l.max(end)));
    }
    let delivered = match (earliest, last) {
        (Some((start, first_bytes)), Some(end)) if end > start => {
            (bytes - first_bytes) as f64 * 8.0 / (end - start).as_secs_f64() / 1e6
        }
        _ => 0.0,
    };
    let drops = relay.down.overflowed.load(Ordering::Relaxed);
    relay.stop().unwrap();
    (delivered, drops, sent)
}

/// Receives until 500 ms pass without a datagram: the first arrival's
/// (wire bytes, time), the last arrival's time, and all wire bytes.
fn receive(client: &UdpSocket) -> Option<((usize, Instant), Instant, usize)> {
    client
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut buf = vec![0u8; 65_536];
    let mut seen: Option<((usize, Instant), Instant, usize)> = None;
    while let Ok(len) = client.recv(&mut buf) {
        let (now, wire) = (Instant::now(), len + 28);
        seen = Some(match seen {
            None => ((wire, now), now, wire),
            Some((first, _, bytes)) => (first, now, bytes + wire),
        });
    }
    seen
}
