//! `bbrlab emu`: the real-time link emulator alone, for any UDP
//! application (see the `emu` crate for the model). It serves one route
//! and any number of clients on it, up to the relay's limit: like a NAT,
//! each client gets its own server-facing port, and all of them share the
//! one emulated link.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::Context;

/// Where the link of `bbrlab emu` comes from, and for how long it runs.
#[derive(clap::Args, Debug)]
pub struct EmuArgs {
    /// Address clients send to, e.g. 127.0.0.1:4433. Several clients may
    /// use it at once (up to 64): each reaches the server from its own port
    /// and they share the link.
    #[arg(long, value_name = "ADDR")]
    listen: SocketAddr,
    /// The server's address, e.g. 127.0.0.1:4434.
    #[arg(long, value_name = "ADDR")]
    forward: SocketAddr,
    /// Take the link from this scenario's [link], uplink and first flow's RTT.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["rate", "rtt", "buffer", "loss", "burst", "uplink"])]
    scenario: Option<PathBuf>,
    /// Bottleneck rate, e.g. 50Mbit (or a trace: see --scenario).
    #[arg(long, default_value = "100Mbit")]
    rate: String,
    #[command(flatten)]
    link: LinkOptions,
    /// Uplink rate (client to server), unlimited if not given.
    #[arg(long)]
    uplink: Option<String>,
    /// Stop after this long (e.g. 30s); runs until interrupted if not given.
    #[arg(long)]
    duration: Option<String>,
}

/// The link options `bbrlab emu` and `bbrlab shell` share (the rate, its
/// trace and the uplink differ between them).
#[derive(clap::Args, Debug)]
pub struct LinkOptions {
    /// Round-trip propagation delay, split evenly between the directions.
    #[arg(long, default_value = "40ms")]
    pub rtt: String,
    /// Drop-tail buffer: bytes (300KB), packets (100pkt) or BDPs (1bdp).
    #[arg(long, default_value = "1bdp")]
    pub buffer: String,
    /// Random loss on the bottleneck, e.g. 1%.
    #[arg(long)]
    pub loss: Option<String>,
    /// Token-bucket depth (tc tbf burst), e.g. 1MB.
    #[arg(long)]
    pub burst: Option<String>,
    /// Seed of the loss process.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl LinkOptions {
    /// The scenario document these options describe with `capacity` (a
    /// `rate = ...` or `trace = ...` line) and `extra` lines of `[link]`,
    /// so they are checked by the scenario parser with its messages;
    /// an error names the option (`--rtt`), not the document.
    pub fn scenario(&self, capacity: &str, extra: &str) -> anyhow::Result<scenario::Scenario> {
        let mut link = format!(
            "{capacity}rtt = {:?}\nbuffer = {:?}\n{extra}",
            self.rtt, self.buffer
        );
        for (key, value) in [("loss", &self.loss), ("burst", &self.burst)] {
            if let Some(value) = value {
                link += &format!("{key} = {value:?}\n");
            }
        }
        let document = format!(
            "name = \"link\"\nseed = {}\nduration = \"60s\"\n[link]\n{link}[[flow]]\ncc = \"bbr\"\n",
            self.seed
        );
        scenario::from_str(&document, Path::new("the command line"), &[]).map_err(|e| {
            match e.key.as_deref() {
                Some(key) => match key.trim_start_matches("link.") {
                    "uplink_rate" => anyhow::anyhow!("--uplink: {}", e.message),
                    option => anyhow::anyhow!("--{option}: {}", e.message),
                },
                None => anyhow::Error::new(e),
            }
        })
    }
}

/// The link of a scenario (its `[link]`, `uplink`, the first flow's RTT
/// and the seed), as the simulator would run it.
///
/// # Errors
/// A scenario without flows has no RTT to emulate.
pub(crate) fn emu_config(scenario: &scenario::Scenario) -> anyhow::Result<emu::EmuConfig> {
    let flow = scenario.config.flows.first().ok_or_else(|| {
        anyhow::anyhow!(
            "{}: the scenario has no [[flow]], so no round-trip time to emulate",
            scenario.source.display()
        )
    })?;
    Ok(emu::EmuConfig {
        link: scenario.config.link.clone(),
        uplink: scenario.config.uplink.clone(),
        rtt: flow.rtt,
        seed: scenario.config.seed,
    })
}

pub fn emu(args: EmuArgs) -> anyhow::Result<()> {
    let scenario = match &args.scenario {
        Some(path) => scenario::load(path, &[])?,
        None => {
            let uplink = args
                .uplink
                .as_ref()
                .map_or(String::new(), |u| format!("uplink_rate = {u:?}\n"));
            args.link
                .scenario(&format!("rate = {:?}\n", args.rate), &uplink)?
        }
    };
    let config = emu_config(&scenario)?;
    let run_for = args
        .duration
        .as_deref()
        .map(|d| scenario::units::parse_duration(d).map_err(|e| anyhow::anyhow!("--duration: {e}")))
        .transpose()?;
    let relay = emu::Relay::start(args.listen, args.forward, &config)
        .with_context(|| format!("cannot start the relay on {}", args.listen))?;
    println!(
        "relaying {} -> {} through {} (RTT {:?}, up to {} clients sharing the link); Ctrl-C to stop",
        relay.listen_addr(),
        args.forward,
        args.scenario.as_ref().map_or_else(
            || format!("{} / {} buffer", args.rate, args.link.buffer),
            |p| p.display().to_string()
        ),
        config.rtt,
        emu::MAX_CLIENTS
    );
    let started = Instant::now();
    let mut last = (0u64, started);
    loop {
        std::thread::sleep(Duration::from_secs(1));
        let sent = relay.down.sent_bytes.load(Ordering::Relaxed);
        let now = Instant::now();
        let rate = (sent - last.0) as f64 * 8.0 / (now - last.1).as_secs_f64() / 1e6;
        // The queueing delay of the last second's departures.
        let delay = relay.down.queue_delay();
        relay.down.reset_queue_delay();
        println!(
            "{:>6.1} s  down {:>8.2} Mbit/s  queue {:>7} B  delay p50 {:>6.1} ms p99 {:>6.1} ms  \
             lost {}  overflowed {}  up {} datagrams  clients {}",
            (now - started).as_secs_f64(),
            rate,
            relay.down.queue_bytes.load(Ordering::Relaxed),
            delay.p50,
            delay.p99,
            relay.down.lost.load(Ordering::Relaxed),
            relay.down.overflowed.load(Ordering::Relaxed),
            relay.up.sent.load(Ordering::Relaxed),
            relay.clients()
        );
        last = (sent, now);
        if run_for.is_some_and(|d| started.elapsed() >= d) {
            break;
        }
    }
    relay.stop().context("the relay failed")?;
    Ok(())
}
