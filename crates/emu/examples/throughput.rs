//! How fast the relay goes: for each link rate, a sender on loopback offers
//! 1.25x the rate for 4 s through the relay (a buffer of 1000 datagrams, so
//! the link stays busy) and a receiver measures what arrives. Prints one
//! row per rate: delivered rate, its error against the configured rate,
//! and the datagrams the buffer dropped.
//!
//! `cargo run --release -p bbrlab-emu --example throughput [RATE_MBIT ...]`

use std::net::{SocketAddr, UdpSocket};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use emu::{EmuConfig, Relay};

const PAYLOAD: usize = 1372;
const SECONDS: f64 = 4.0;

fn main() {
    let rates: Vec<f64> = std::env::args()
        .skip(1)
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
        let (delivered, drops, sent) = measure(rate);
        println!(
            "| {rate:.0} Mbit/s | {:.0} Mbit/s | {delivered:.1} Mbit/s | {:+.2}% | {drops} | {sent:.0} Mbit/s |",
            rate * 1.25,
            (delivered / rate - 1.0) * 100.0
        );
    }
}

fn measure(rate: f64) -> (f64, u64, f64) {
    let text = format!(
        "name = \"throughput\"\nduration = \"60s\"\n[link]\nrate = \"{rate}Mbit\"\nrtt = \"10ms\"\nbuffer = \"1000pkt\"\n[[flow]]\ncc = \"bbr\"\n"
    );
    let scenario = scenario::from_str(&text, Path::new("throughput"), &[]).expect("scenario");
    let config = EmuConfig::from_scenario(&scenario).expect("config");
    let loopback: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let server = UdpSocket::bind(loopback).unwrap();
    let relay = Relay::start(loopback, server.local_addr().unwrap(), &config).unwrap();
    let client = UdpSocket::bind(loopback).unwrap();
    client.send_to(b"hello", relay.listen_addr()).unwrap();
    let mut buf = vec![0u8; 65_536];
    let (_, to) = server.recv_from(&mut buf).unwrap();
    let receiver = std::thread::spawn(move || {
        client
            .set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let mut buf = vec![0u8; 65_536];
        let (mut first, mut last, mut bytes, mut n) = (None, Instant::now(), 0usize, 0usize);
        while let Ok(len) = client.recv(&mut buf) {
            let now = Instant::now();
            if first.is_none() {
                first = Some(now);
            } else {
                bytes += len + 28;
            }
            last = now;
            n += 1;
        }
        let span = first.map_or(0.0, |f| (last - f).as_secs_f64());
        (bytes as f64 * 8.0 / span / 1e6, n)
    });
    let offered = rate * 1.25;
    let gap = Duration::from_secs_f64((PAYLOAD + 28) as f64 * 8.0 / (offered * 1e6));
    let count = (SECONDS / gap.as_secs_f64()) as usize;
    let payload = vec![0u8; PAYLOAD];
    let start = Instant::now();
    for i in 0..count {
        let _ = server.send_to(&payload, to);
        if i % 32 == 31 {
            let due = start + gap * (i as u32 + 1);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
        }
    }
    let sent = count as f64 * (PAYLOAD + 28) as f64 * 8.0 / start.elapsed().as_secs_f64() / 1e6;
    let (delivered, _) = receiver.join().unwrap();
    let drops = relay.down.overflowed.load(Ordering::Relaxed);
    relay.stop().unwrap();
    (delivered, drops, sent)
}
