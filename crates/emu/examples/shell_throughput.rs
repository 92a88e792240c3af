//! How fast the shell goes: for each link rate, a UDP sender in the outer
//! namespace offers 1.25x the rate for 4 s to a receiver inside the shell's
//! namespace, through the TUN devices and the link (a buffer of 1000
//! packets, so the link stays busy). Prints one row per rate: the IP rate
//! the link delivered over the last 3 s, its error against the configured
//! rate, what the receiver read, the buffer's drops, and the packets the
//! kernel dropped before the shell could read them. Needs root.
//!
//! `cargo run --release -p bbrlab-emu --example shell_throughput [RATE_MBIT ...]`

use std::net::{SocketAddr, UdpSocket};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use emu::{EmuConfig, Shell, ShellConfig};

/// A 1500-byte IP packet: 1472 bytes of UDP payload.
const PAYLOAD: usize = 1472;
const IP_PACKET: f64 = 1500.0;
const SECONDS: f64 = 4.0;
/// The first second is left out: the buffer fills and the rate settles.
const SETTLE: f64 = 1.0;

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
    println!(
        "| link rate | offered | delivered (IP) | error | received (IP) | buffer drops | \
         dropped before the link |"
    );
    println!("|---|---|---|---|---|---|---|");
    for rate in rates {
        let row = measure(rate);
        println!(
            "| {rate:.0} Mbit/s | {:.0} Mbit/s | {:.1} Mbit/s | {:+.2}% | {:.1} Mbit/s | {} | {} |",
            rate * 1.25,
            row.delivered,
            (row.delivered / rate - 1.0) * 100.0,
            row.received,
            row.overflowed,
            row.dropped_before
        );
    }
}

struct Row {
    delivered: f64,
    received: f64,
    overflowed: u64,
    dropped_before: u64,
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

fn measure(rate: f64) -> Row {
    let text = format!(
        "name = \"throughput\"\nduration = \"60s\"\n[link]\nrate = \"{rate}Mbit\"\nrtt = \"10ms\"\nbuffer = \"1000pkt\"\n[[flow]]\ncc = \"bbr\"\n"
    );
    let scenario = scenario::from_str(&text, Path::new("throughput"), &[]).expect("scenario");
    let config = ShellConfig {
        link: emu_config(&scenario),
        uplink_mirrors_link: false,
    };
    let shell = Shell::start(&config).expect("the shell starts (run as root)");
    let inner = shell.inner_addr();
    let receiver = shell
        .in_namespace(move || {
            let socket = UdpSocket::bind(SocketAddr::from((inner, 0))).expect("bind inside");
            socket
                .set_read_timeout(Some(Duration::from_millis(100)))
                .unwrap();
            socket
        })
        .expect("a socket inside");
    let to = receiver.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let received = Arc::new(AtomicU64::new(0));
    let reader = {
        let (stop, received) = (stop.clone(), received.clone());
        std::thread::spawn(move || {
            let mut buffer = vec![0u8; 2048];
            while !stop.load(Ordering::Relaxed) {
                if let Ok(n) = receiver.recv(&mut buffer) {
                    received.fetch_add(n as u64 + 28, Ordering::Relaxed);
                }
            }
        })
    };
    let sender = UdpSocket::bind(SocketAddr::from((shell.outer_addr(), 0))).unwrap();
    let payload = vec![0u8; PAYLOAD];
    let interval = Duration::from_secs_f64(IP_PACKET * 8.0 / (rate * 1.25e6));
    let start = Instant::now();
    let mut next = start;
    let mut at_settle = None;
    while start.elapsed().as_secs_f64() < SECONDS {
        let now = Instant::now();
        if at_settle.is_none() && (now - start).as_secs_f64() >= SETTLE {
            at_settle = Some((
                now,
                shell.down.sent_bytes.load(Ordering::Relaxed),
                received.load(Ordering::Relaxed),
            ));
        }
        // Catch up in bursts when late: the offered load is what counts.
        while next <= now {
            let _ = sender.send_to(&payload, to);
            next += interval;
        }
        std::hint::spin_loop();
    }
    let (settled, sent0, received0) = at_settle.expect("the run outlasts its settling");
    let span = settled.elapsed().as_secs_f64();
    let delivered =
        (shell.down.sent_bytes.load(Ordering::Relaxed) - sent0) as f64 * 8.0 / span / 1e6;
    let got = (received.load(Ordering::Relaxed) - received0) as f64 * 8.0 / span / 1e6;
    let (outer, _) = shell.dropped_before_link().unwrap_or_default();
    stop.store(true, Ordering::Relaxed);
    reader.join().unwrap();
    let overflowed = shell.down.overflowed.load(Ordering::Relaxed);
    shell.stop().expect("the shell ran without error");
    Row {
        delivered,
        received: got,
        overflowed,
        dropped_before: outer,
    }
}
