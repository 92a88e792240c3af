//! `bbrlab serve` and `bbrlab get`: the real QUIC server and client (the
//! `quic` crate), for deployments and for tests against real peers.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, Context};
use cc::AlgorithmSpec;
use quic::protocol::Request;
use quic::tls::Identity;
use quic::TelemetryOptions;
use sim::app::live::LiveConfig;

/// `bbrlab serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The controller of every connection, e.g. bbr, obbr, cubic:beta=0.7.
    #[arg(long, value_name = "SPEC")]
    cc: String,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:4433", value_name = "ADDR")]
    listen: SocketAddr,
    /// PEM certificate (chain); with --key. Without both, a self-signed
    /// certificate for localhost is generated.
    #[arg(long, value_name = "FILE", requires = "key")]
    cert: Option<PathBuf>,
    /// PEM private key of --cert.
    #[arg(long, value_name = "FILE", requires = "cert")]
    key: Option<PathBuf>,
    /// Where to write the generated certificate (for `get --trust`).
    #[arg(
        long,
        value_name = "FILE",
        default_value = "bbrlab-serve.pem",
        conflicts_with = "cert"
    )]
    cert_out: PathBuf,
    /// BBR-Copilot padding (DATAGRAM frames) while the pacing gain is above 1.
    #[arg(long)]
    copilot: bool,
    /// Connections served at once; further attempts are dropped.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    max_connections: u64,
    /// Write a qlog trace per connection into this directory.
    #[arg(long, value_name = "DIR")]
    qlog: Option<PathBuf>,
    /// Seed of the controllers' randomness.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop after this long (e.g. 60s); serves until interrupted if not given.
    #[arg(long, value_name = "DURATION")]
    duration: Option<String>,
    /// Serve the files under this directory to HTTP/3 clients (GET, HEAD,
    /// byte ranges). HTTP/3 clients always get /dash/manifest.mpd (a
    /// generated DASH video) and /live?bitrate=5Mbit&duration=30s (a live
    /// stream); see docs/EMULATION.md.
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
}

/// `bbrlab get`.
#[derive(clap::Args, Debug)]
pub struct GetArgs {
    /// The server: HOST:PORT, or quic://HOST:PORT.
    #[arg(value_name = "URL-or-ADDR")]
    server: String,
    /// Fetch this many bytes, e.g. 100MB.
    #[arg(
        long,
        value_name = "SIZE",
        conflicts_with = "live",
        required_unless_present = "live"
    )]
    size: Option<String>,
    /// Watch a live stream of this bitrate, e.g. 5Mbit (40 ms frames, 2 s GOP).
    #[arg(long, value_name = "RATE")]
    live: Option<String>,
    /// How long to watch a live stream.
    #[arg(long = "for", value_name = "DURATION", default_value = "30s")]
    watch_for: String,
    /// The certificate to trust (PEM), e.g. the one `bbrlab serve` wrote.
    #[arg(long, value_name = "FILE", default_value = "bbrlab-serve.pem")]
    trust: PathBuf,
    /// The name the server's certificate carries.
    #[arg(long, default_value = "localhost")]
    server_name: String,
    /// Write a qlog trace of the client's connection into this directory.
    #[arg(long, value_name = "DIR")]
    qlog: Option<PathBuf>,
    /// The flow-control window the client gives the server, e.g. 3MB (at
    /// most 4GB); s2n-quic's default, 3.75 MB, if not given.
    #[arg(long, value_name = "SIZE")]
    receive_window: Option<String>,
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

fn qlog_dir(dir: &Option<PathBuf>) -> anyhow::Result<Option<PathBuf>> {
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("--qlog: cannot create {}", dir.display()))?;
    }
    Ok(dir.clone())
}

pub fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let spec = AlgorithmSpec::parse(&args.cc).map_err(|e| anyhow!("--cc: {e}"))?;
    let duration = args
        .duration
        .as_deref()
        .map(|d| scenario::units::parse_duration(d).map_err(|e| anyhow!("--duration: {e}")))
        .transpose()?;
    if let Some(root) = &args.root {
        if !root.is_dir() {
            anyhow::bail!("--root: {} is not a directory", root.display());
        }
    }
    let identity = match (&args.cert, &args.key) {
        (Some(cert), Some(key)) => Identity::from_files(cert, key).map_err(|e| anyhow!(e))?,
        _ => {
            let identity = Identity::self_signed().map_err(|e| anyhow!(e))?;
            std::fs::write(&args.cert_out, &identity.cert_pem)
                .with_context(|| format!("--cert-out: cannot write {}", args.cert_out.display()))?;
            identity
        }
    };
    let config = quic::server::ServerConfig {
        listen: args.listen,
        spec,
        seed: args.seed,
        identity,
        copilot: args.copilot,
        max_connections: args.max_connections as usize,
        telemetry: TelemetryOptions {
            qlog_dir: qlog_dir(&args.qlog)?,
            ..TelemetryOptions::default()
        },
        http: quic::http3::HttpOptions {
            root: args.root.clone(),
            ..quic::http3::HttpOptions::default()
        },
    };
    let runtime = runtime()?;
    runtime.block_on(async {
        let server = quic::server::start(config).map_err(|e| anyhow!(e))?;
        println!(
            "serving on {} with {} (ALPN bbrlab/1 and h3{}){}",
            server.local_addr(),
            args.cc,
            match &args.root {
                Some(root) => format!(", files under {}", root.display()),
                None => String::new(),
            },
            if args.cert.is_none() {
                format!("; clients trust {}", args.cert_out.display())
            } else {
                String::new()
            }
        );
        match duration {
            Some(d) => tokio::time::sleep(d).await,
            None => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
        let stats = &server.stats;
        let load = |c: &std::sync::atomic::AtomicU64| c.load(std::sync::atomic::Ordering::Relaxed);
        eprintln!(
            "{} connections, {} requests completed, {} aborted, {} refused as malformed",
            load(&stats.connections),
            load(&stats.completed),
            load(&stats.aborted),
            load(&stats.bad_requests)
        );
        for path in server.paths.path_list() {
            path.finish_qlog();
        }
        server.stop();
        Ok(())
    })
}

/// HOST:PORT or quic://HOST:PORT[/...] to an address.
fn server_address(text: &str) -> anyhow::Result<SocketAddr> {
    let rest = text.strip_prefix("quic://").unwrap_or(text);
    let authority = rest.split('/').next().unwrap_or(rest);
    authority
        .to_socket_addrs()
        .map_err(|e| anyhow!("{text:?}: expected HOST:PORT or quic://HOST:PORT ({e})"))?
        .next()
        .ok_or_else(|| anyhow!("{text:?}: the name resolves to no address"))
}

pub fn get(args: GetArgs) -> anyhow::Result<()> {
    let server = server_address(&args.server)?;
    let request = match (&args.size, &args.live) {
        (Some(size), _) => Request::Sized {
            bytes: scenario::units::parse_size(size)
                .map_err(|e| anyhow!("--size: {e}"))?
                .get(),
        },
        (None, Some(rate)) => {
            let bitrate = scenario::units::parse_rate(rate).map_err(|e| anyhow!("--live: {e}"))?;
            let config = LiveConfig {
                bitrate,
                ..LiveConfig::COPILOT_PAPER
            };
            config.validate().map_err(|e| anyhow!("--live: {e}"))?;
            let duration = scenario::units::parse_duration(&args.watch_for)
                .map_err(|e| anyhow!("--for: {e}"))?;
            if duration.is_zero() || duration > quic::protocol::MAX_DURATION {
                anyhow::bail!(
                    "--for: expected more than 0 and at most 1h, got {}",
                    args.watch_for
                );
            }
            Request::Live { config, duration }
        }
        (None, None) => anyhow::bail!("give --size or --live"),
    };
    if let Request::Sized { bytes } = request {
        if bytes > quic::protocol::MAX_SIZE {
            anyhow::bail!("--size: at most 1TB, got {bytes} bytes");
        }
    }
    let receive_window = match &args.receive_window {
        None => None,
        Some(text) => {
            let bytes = scenario::units::parse_size(text)
                .map_err(|e| anyhow!("--receive-window: {e}"))?
                .get();
            if !(3000..=quic::client::MAX_RECEIVE_WINDOW).contains(&bytes) {
                anyhow::bail!(
                    "--receive-window: expected 3000 bytes (two datagrams) to {} bytes, got {text}",
                    quic::client::MAX_RECEIVE_WINDOW
                );
            }
            Some(bytes)
        }
    };
    let trust_pem = std::fs::read_to_string(&args.trust).with_context(|| {
        format!(
            "--trust: cannot read {} (the certificate `bbrlab serve` wrote)",
            args.trust.display()
        )
    })?;
    if !trust_pem.contains("-----BEGIN CERTIFICATE-----") {
        anyhow::bail!("--trust: {} holds no PEM certificate", args.trust.display());
    }
    let config = quic::client::ClientConfig {
        server,
        server_name: args.server_name.clone(),
        trust_pem,
        request,
        spec: AlgorithmSpec::parse("cubic").expect("a known spec"),
        progress_interval: Duration::from_millis(100),
        telemetry: TelemetryOptions {
            qlog_dir: qlog_dir(&args.qlog)?,
            vantage: sim::qlog::Vantage::Client,
            ..TelemetryOptions::default()
        },
        receive_window,
        // Unknown on a real path: frame delays include the request's trip.
        request_trip: Duration::ZERO,
        live_measure_from: None,
        socket: None,
    };
    let report = runtime()?
        .block_on(quic::client::get(config, async {
            let _ = tokio::signal::ctrl_c().await;
        }))
        .map_err(|e| anyhow!(e))?;
    println!("{}", serde_json::to_string_pretty(&report)?);
    if !report.complete {
        anyhow::bail!("the stream from {server} did not end as the server meant it to");
    }
    Ok(())
}
