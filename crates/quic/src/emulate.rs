//! A scenario in real time: for every flow a real s2n-quic server (its
//! controller from the flow's spec) and client on loopback, all through
//! one emulated bottleneck (the `emu` relay running the simulator's link
//! model), and a [`RunResult`] in the simulator's shape, so a simulated and
//! an emulated run of the same file compare column by column.
//!
//! What the result holds, and how it differs from a simulated one:
//!
//! - goodput is what each client read in the measurement window (warmup
//!   to end), payload bytes, as the simulator's stream bytes delivered;
//! - losses are the sender's declared losses (QUIC resends lost frames, so
//!   `bytes_retransmitted` is the declared-lost wire bytes); the relay's
//!   drops are counted for the whole link, not per flow;
//! - RTTs are the sender's samples (s2n-quic's RTT estimator, ACK delay
//!   included as the peer reports it);
//! - the link's queueing delay is the relay's (enqueue to departure, over
//!   the window, in the simulator's histogram) and the link series' queue
//!   is the relay's buffer; drops are the relay's, in wire bytes;
//! - Copilot's padding is counted over the window, as in the simulator;
//! - PTOs are s2n-quic's, counted from its recovery events
//!   ([`crate::pto`]); the bandwidth samples and estimates are judged
//!   against the link model's capacity at the relay's clock, over the
//!   window, as the simulator judges them;
//! - a live stream's frame delays count from each frame's creation at
//!   the server, the request's trip through the relay taken off (see
//!   [`crate::client::ClientConfig::request_trip`]), for the frames
//!   created in the window, as the simulator's;
//! - a DASH session is played by dash.js in headless Chromium
//!   (`[flow.dash] player = "dashjs"`, [`crate::dashjs`]) through the
//!   relay, and its `dash` summary is computed from dash.js's record by
//!   the model's own definitions; the flow's goodput is the video bytes
//!   dash.js had received by each segment's end, in the window;
//! - a live stream received by headless Chromium (`[flow.live] client =
//!   "chromium"`, [`crate::live_browser`]) has its frame delays computed
//!   from the page's frame times by the project's client's code.
//!
//! Runs that cannot keep real time on a small machine are refused up
//! front ([`check_feasible`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use cc::{AlgorithmSpec, Instant};
use sim::app::dash::{DashSummary, PlayerKind};
use sim::app::live::LiveClient;
use sim::app::Application;
use sim::link::{Capacity, RateModel};
use sim::results::jain_index;
use sim::{
    FlowConfig, FlowSample, FlowSummary, LinkSample, LinkSummary, Percentiles, RunResult, Series,
};

use crate::client::{get, ClientConfig, GetReport, MAX_RECEIVE_WINDOW};
use crate::protocol::Request;
use crate::server::{self, RunningServer, ServerConfig};
use crate::telemetry::{PathCounters, PathShared, TelemetryOptions};
use crate::tls::Identity;

/// Flows an emulated run carries at most: each is a server, a client and
/// their tasks on a 2-core machine.
pub const MAX_FLOWS: usize = 16;
/// The fastest link the relay emulates within 1% (docs/BENCHMARKS.md).
pub const MAX_RATE_BPS: f64 = 1e9;
/// The longest emulated run (it takes its duration in wall-clock time).
pub const MAX_DURATION: Duration = Duration::from_secs(600);

/// Options of an emulated run.
#[derive(Clone, Debug, Default)]
pub struct EmulateOptions {
    /// Keep the time series.
    pub series: bool,
    /// Write one qlog per connection here (created if missing).
    pub qlog_dir: Option<PathBuf>,
    /// Write each headless Chromium page's record (dash.js's, the live
    /// page's) here, as `browser-flow-N.json` (the directory must exist).
    pub player_dir: Option<PathBuf>,
}

/// Why a scenario cannot run in real time, or `Ok`.
///
/// # Errors
/// The reason, naming the field that makes it infeasible.
pub fn check_feasible(config: &sim::SimConfig) -> Result<(), String> {
    let flows: usize = config.flows.iter().map(|f| f.count as usize).sum();
    if flows == 0 {
        return Err("no flows: nothing to emulate".into());
    }
    if flows > MAX_FLOWS {
        return Err(format!(
            "{flows} flows: an emulated run carries at most {MAX_FLOWS} (each is a real \
             server and client on this machine); simulate it instead"
        ));
    }
    if config.duration > MAX_DURATION {
        return Err(format!(
            "duration {:?}: an emulated run takes its duration in real time; at most {:?}",
            config.duration, MAX_DURATION
        ));
    }
    let peak = peak_rate_bps(&config.link.rate, config.duration);
    if peak > MAX_RATE_BPS {
        return Err(format!(
            "link.rate peaks at {:.0} Mbit/s: the emulator keeps its rate within 1% up to \
             {:.0} Mbit/s on this machine (docs/BENCHMARKS.md); simulate it instead",
            peak / 1e6,
            MAX_RATE_BPS / 1e6
        ));
    }
    if config.acks_share_queue {
        return Err(
            "link.acks_share_queue: the emulator's ACK path does not cross the data queue; \
             simulate it instead"
                .into(),
        );
    }
    for (i, flow) in config.flows.iter().enumerate() {
        if let Some(name) = &flow.kernel {
            if !matches!(flow.app, Application::Bulk) {
                return Err(format!(
                    "flow {i}: cc = \"linux:{name}\" carries bulk and sized transfers only \
                     (the kernel's TCP has no live or DASH client here)"
                ));
            }
            if flow.copilot.is_some() {
                return Err(format!(
                    "flow {i}: copilot pads QUIC datagrams; cc = \"linux:{name}\" is TCP"
                ));
            }
        }
        if let Application::Dash(dash) = &flow.app {
            if dash.player == PlayerKind::Model {
                return Err(format!(
                    "flow {i}: app = \"dash\" with the model's player has no real-stack \
                     client: set [flow.dash] player = \"dashjs\" to play it with dash.js in \
                     headless Chromium, or simulate it"
                ));
            }
            if !crate::http3::dash::decodable(dash) {
                return Err(format!(
                    "flow {i}: player = \"dashjs\" decodes the video, which the server has as \
                     real H.264 only with 4s segments that divide the video, at most eleven \
                     bitrates and segments larger than the encoded media (docs/EMULATION.md)"
                ));
            }
        }
    }
    if config.flows.iter().any(|f| f.kernel.is_some())
        && config.flows.iter().any(|f| browser_page(f).is_some())
    {
        return Err(
            "a kernel flow runs the emulator's shell and Chromium reaches its server through \
             the relay: put them in separate runs"
                .into(),
        );
    }
    Ok(())
}

/// The page headless Chromium opens for the flow, and its query: dash.js
/// playing its DASH session, or the live page receiving its stream
/// (lasting `remaining`); None when the project's client receives it.
fn browser_page(flow: &FlowConfig) -> Option<(&'static str, serde_json::Value)> {
    browser_page_for(flow, Duration::ZERO)
}

fn browser_page_for(
    flow: &FlowConfig,
    remaining: Duration,
) -> Option<(&'static str, serde_json::Value)> {
    match &flow.app {
        Application::Dash(d) if d.player == PlayerKind::DashJs => {
            Some((crate::dashjs::PAGE, crate::dashjs::query(d)))
        }
        Application::Live(l) if l.client == LiveClient::Chromium => Some((
            crate::live_browser::PAGE,
            crate::live_browser::query(l, remaining.max(Duration::from_millis(1))),
        )),
        _ => None,
    }
}

/// The highest rate the link has while the run lasts, looked at every
/// 100 ms (a mahimahi trace's rate is its 100 ms average anyway).
fn peak_rate_bps(rate: &RateModel, duration: Duration) -> f64 {
    let capacity = Capacity::new(rate);
    let step = Duration::from_millis(100);
    let steps = (duration.as_nanos() / step.as_nanos()) as u32;
    (0..=steps)
        .map(|i| capacity.rate_at(Instant::ZERO + step * i).as_bps_f64())
        .fold(0.0, f64::max)
}

/// One flow of the run, expanded from the scenario's `count`.
struct Flow {
    id: usize,
    config: FlowConfig,
    /// The s2n-quic server of a QUIC flow; `None` for a kernel TCP flow.
    server: Option<RunningServer>,
}

/// What each flow's client brought back.
enum Outcome {
    /// A QUIC client's report, and the DASH summary of a dash.js session.
    Quic(GetReport, Option<DashSummary>),
    Kernel {
        sent: kernel::SenderReport,
        received: kernel::ReceiverReport,
    },
}

/// The emulated link: the UDP relay, or (when a flow is the kernel's TCP)
/// the shell, whose namespace every flow's receiver lives in.
enum Link {
    Relay(emu::Relay),
    Shell(emu::Shell),
}

impl Link {
    fn down(&self) -> &Arc<emu::DirectionStats> {
        match self {
            Link::Relay(r) => &r.down,
            Link::Shell(s) => &s.down,
        }
    }

    fn epoch(&self) -> std::time::Instant {
        match self {
            Link::Relay(r) => r.epoch(),
            Link::Shell(s) => s.epoch(),
        }
    }

    fn stop(self) {
        let _ = match self {
            Link::Relay(r) => r.stop(),
            Link::Shell(s) => s.stop(),
        };
    }
}

/// How often a kernel flow's sender reads TCP_INFO at most (its RTT
/// percentiles come from these readings).
const KERNEL_TICK: Duration = Duration::from_millis(10);

/// Runs `config` in real time and returns its result.
///
/// # Errors
/// An infeasible scenario, or sockets, TLS or a connection that failed.
pub fn run(config: &sim::SimConfig, options: &EmulateOptions) -> Result<RunResult, String> {
    check_feasible(config)?;
    if let Some(dir) = &options.qlog_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the qlog directory {}: {e}", dir.display()))?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(run_async(config, options))
}

async fn run_async(config: &sim::SimConfig, options: &EmulateOptions) -> Result<RunResult, String> {
    let wall_start = std::time::Instant::now();
    let identity = Identity::self_signed()?;
    // Every flow's own round trip (the extra ACK-path delay lengthens it).
    let flow_rtt = |f: &FlowConfig| f.rtt + f.ack_delay;
    let expanded: Vec<FlowConfig> = config
        .flows
        .iter()
        .flat_map(|f| std::iter::repeat_n(f.clone(), f.count as usize))
        .collect();
    for (id, flow) in expanded.iter().enumerate() {
        if let Some(name) = &flow.kernel {
            kernel::check_available(name).map_err(|e| format!("flow {id}: {e}"))?;
        }
    }
    let browser = if expanded.iter().any(|f| browser_page(f).is_some()) {
        Some(crate::browser::Browser::locate()?)
    } else {
        None
    };
    let shell = if expanded.iter().any(|f| f.kernel.is_some()) {
        // Senders outside, receivers inside the namespace: the shell's
        // round trip is the shortest, each flow's port gets its own.
        let shortest = expanded.iter().map(flow_rtt).min().expect("flows");
        let shell = emu::Shell::start(&emu::ShellConfig {
            link: emu::EmuConfig {
                link: config.link.clone(),
                uplink: config.uplink.clone(),
                rtt: shortest,
                seed: config.seed,
            },
            uplink_mirrors_link: false,
        })
        .map_err(|e| {
            format!(
                "cannot start the emulator's shell (a kernel TCP flow needs a network \
                 namespace and TUN devices: run as root): {e}"
            )
        })?;
        Some(shell)
    } else {
        None
    };
    let listen: SocketAddr = match &shell {
        Some(shell) => SocketAddr::from((shell.outer_addr(), 0)),
        None => "127.0.0.1:0".parse().expect("literal"),
    };
    let mut flows = Vec::new();
    for flow in &expanded {
        let id = flows.len();
        let server = if flow.kernel.is_some() {
            None
        } else {
            Some(server::start(ServerConfig {
                listen,
                spec: flow.cc.clone(),
                seed: sim::derive_seed(config.seed, id as u64),
                identity: identity.clone(),
                copilot: flow.copilot.is_some(),
                max_connections: 4,
                telemetry: TelemetryOptions {
                    sample_interval: options.series.then_some(config.sample_interval),
                    qlog_dir: options.qlog_dir.clone(),
                    ..TelemetryOptions::default()
                },
                // A dash.js session's video is the flow's (a live page
                // opens its connection with the default video's manifest).
                http: crate::http3::HttpOptions {
                    root: None,
                    dash: match &flow.app {
                        Application::Dash(dash) => dash.clone(),
                        _ => sim::app::dash::DashConfig::obbr_paper(),
                    },
                },
            })?)
        };
        flows.push(Flow {
            id,
            config: flow.clone(),
            server,
        });
    }
    // Where each flow's client sends (its server, or the relay's entry for
    // it), the socket it sends from when it must be made in the shell's
    // namespace, and the request's one-way trip.
    let mut entries: Vec<SocketAddr> = Vec::new();
    let mut sockets: Vec<Option<ClientSocket>> = Vec::new();
    let link = match shell {
        Some(shell) => {
            for flow in &flows {
                let inner = SocketAddr::from((shell.inner_addr(), 0));
                let socket = if flow.config.kernel.is_some() {
                    ClientSocket::Tcp(
                        shell
                            .in_namespace(move || kernel::bound_socket(inner))
                            .and_then(|r| r)
                            .map_err(|e| {
                                format!("flow {}: cannot make the receiver's socket: {e}", flow.id)
                            })?,
                    )
                } else {
                    ClientSocket::Udp(Arc::new(
                        shell
                            .in_namespace(move || std::net::UdpSocket::bind(inner))
                            .and_then(|r| r)
                            .map_err(|e| {
                                format!("flow {}: cannot make the client's socket: {e}", flow.id)
                            })?,
                    ))
                };
                let port = socket
                    .port()
                    .map_err(|e| format!("flow {}: {e}", flow.id))?;
                shell
                    .route_port(port, flow_rtt(&flow.config))
                    .map_err(|e| format!("flow {}: {e}", flow.id))?;
                entries.push(flow.server.as_ref().map_or(listen, |s| s.local_addr()));
                sockets.push(Some(socket));
            }
            Link::Shell(shell)
        }
        None => {
            let emu_config = emu::EmuConfig {
                link: config.link.clone(),
                uplink: config.uplink.clone(),
                rtt: flows[0].config.rtt,
                seed: config.seed,
            };
            let routes: Vec<emu::Route> = flows
                .iter()
                .map(|f| emu::Route {
                    listen,
                    forward: f.server.as_ref().expect("a QUIC flow").local_addr(),
                    rtt: flow_rtt(&f.config),
                })
                .collect();
            // Held until the run starts: a browser starts after the relay
            // (it needs the relay's address), and the link's schedule or
            // trace must start with the run, not that cold start before it.
            let relay = emu::Relay::start_routes_held(&routes, &emu_config)
                .map_err(|e| format!("cannot start the emulator: {e}"))?;
            entries = relay.listen_addrs();
            sockets = flows.iter().map(|_| None).collect();
            Link::Relay(relay)
        }
    };
    // Chromium starts before the run: its cold start is not the session's.
    let mut pages = Vec::new();
    for flow in &flows {
        let remaining = config.duration.saturating_sub(flow.config.start);
        pages.push(
            match (browser_page_for(&flow.config, remaining), &browser) {
                (Some((page, query)), Some(browser)) => {
                    let browser = browser.clone();
                    let (entry, pin) = (entries[flow.id], identity.spki_pin()?);
                    let id = flow.id;
                    let session = tokio::task::spawn_blocking(move || {
                        crate::browser::Session::start(&browser, entry, &pin, page, &query)
                    })
                    .await
                    .map_err(|e| format!("flow {id}: the browser task failed: {e}"))?
                    .map_err(|e| format!("flow {id}: {e}"))?;
                    Some(session)
                }
                _ => None,
            },
        );
    }
    if let Link::Relay(relay) = &link {
        relay.begin();
    }
    let start = tokio::time::Instant::now();
    let start_epoch_ms = crate::browser::epoch_ms(std::time::SystemTime::now());
    let end = start + config.duration;
    let window_start = (start + config.warmup).into_std();
    let truth = crate::telemetry::BandwidthTruth {
        capacity: Capacity::new(&config.link.rate),
        epoch: link.epoch(),
        window_start,
    };
    for server in flows.iter().filter_map(|f| f.server.as_ref()) {
        server.paths.judge_bandwidth(truth.clone());
    }
    let progress_interval = config.sample_interval.min(Duration::from_millis(100));
    let mut clients = Vec::new();
    for ((flow, socket), page) in flows.iter().zip(sockets).zip(pages) {
        if let Some(session) = page {
            let (begin, end) = ((start + flow.config.start).into_std(), end.into_std());
            let page = BrowserFlow {
                app: flow.config.app.clone(),
                start_s: flow.config.start.as_secs_f64(),
                start_epoch_ms,
                window_start_s: config.warmup.as_secs_f64(),
                request_trip: flow_rtt(&flow.config) - flow_rtt(&flow.config) / 2,
                record_path: options
                    .player_dir
                    .as_ref()
                    .map(|d| d.join(format!("browser-flow-{}.json", flow.id))),
            };
            clients.push(tokio::task::spawn_blocking(move || {
                page.run(session, begin, end)
            }));
            continue;
        }
        let remaining = config.duration.saturating_sub(flow.config.start);
        let request_trip = flow_rtt(&flow.config) - flow_rtt(&flow.config) / 2;
        let begin = start + flow.config.start;
        if let Some(name) = &flow.config.kernel {
            let Some(ClientSocket::Tcp(socket)) = socket else {
                unreachable!("a kernel flow runs in the shell")
            };
            let epoch = start.into_std();
            let sender = kernel::Sender::start(kernel::SenderConfig {
                listen,
                congestion: name.clone(),
                transfer: match flow.config.size {
                    Some(bytes) => kernel::Transfer::Sized { bytes: bytes.get() },
                    None => kernel::Transfer::Bulk {
                        until: end.into_std(),
                    },
                },
                epoch,
                tick: config
                    .sample_interval
                    .clamp(Duration::from_millis(1), KERNEL_TICK),
                // Time for a sized transfer's last bytes to be acknowledged.
                deadline: end.into_std() + Duration::from_secs(1),
            })
            .map_err(|e| format!("flow {}: {e}", flow.id))?;
            let receiver = kernel::ReceiverConfig {
                epoch,
                progress_interval,
                stop: end.into_std(),
            };
            let (begin, end) = (begin.into_std(), end.into_std());
            clients.push(tokio::task::spawn_blocking(move || {
                std::thread::sleep(begin.saturating_duration_since(std::time::Instant::now()));
                let timeout = end
                    .saturating_duration_since(std::time::Instant::now())
                    .max(Duration::from_millis(1));
                let received = kernel::connect(socket, sender.local_addr(), timeout)
                    .map_err(|e| format!("cannot connect to {}: {e}", sender.local_addr()))
                    .and_then(|stream| kernel::receive(stream, &receiver));
                let sent = sender.join();
                let (received, sent) = (received?, sent?);
                Ok(Outcome::Kernel { sent, received })
            }));
            continue;
        }
        let request = match (&flow.config.app, flow.config.size) {
            (Application::Live(live), _) => Request::Live {
                config: *live,
                duration: remaining.max(Duration::from_millis(1)),
            },
            (_, Some(bytes)) => Request::Sized { bytes: bytes.get() },
            (_, None) => Request::Bulk {
                duration: remaining.max(Duration::from_millis(1)),
            },
        };
        let client = ClientConfig {
            server: entries[flow.id],
            server_name: "localhost".into(),
            trust_pem: identity.cert_pem.clone(),
            request,
            spec: AlgorithmSpec::parse("cubic").expect("a known spec"),
            progress_interval,
            telemetry: TelemetryOptions::default(),
            // Frames are created when the request has crossed the link.
            request_trip,
            live_measure_from: Some(window_start),
            // The simulator's receiver: the scenario's window, or unlimited.
            receive_window: Some(
                config
                    .transport
                    .receive_window
                    .map_or(MAX_RECEIVE_WINDOW, |w| w.get().min(MAX_RECEIVE_WINDOW)),
            ),
            socket: match socket {
                Some(ClientSocket::Udp(socket)) => Some(socket),
                _ => None,
            },
        };
        clients.push(tokio::spawn(async move {
            tokio::time::sleep_until(begin).await;
            get(client, tokio::time::sleep_until(end))
                .await
                .map(|report| Outcome::Quic(report, None))
        }));
    }
    let link_samples = tokio::spawn(sample_link(
        link.down().clone(),
        config.link.rate.clone(),
        config.sample_interval,
        start,
        end,
        options.series,
    ));
    // The measurement window opens at the warmup: the link's and each
    // QUIC sender's counters are read then, as the simulator's recorders
    // do (a kernel flow's from its sender's readings).
    let at_warmup = {
        let down = link.down().clone();
        let registries: Vec<_> = flows
            .iter()
            .map(|f| f.server.as_ref().map(|s| s.paths.clone()))
            .collect();
        let at = start + config.warmup;
        tokio::spawn(async move {
            tokio::time::sleep_until(at).await;
            let bases: Vec<AtWarmup> = registries
                .iter()
                .map(|paths| {
                    paths
                        .as_ref()
                        .and_then(|paths| paths.path_list().first().cloned())
                        .map_or_else(AtWarmup::default, |p| AtWarmup {
                            counters: p
                                .log
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner)
                                .counters,
                            padding_bytes: p.padding_bytes.load(Ordering::Relaxed),
                        })
                })
                .collect();
            down.reset_queue_delay();
            let link = LinkAtWarmup {
                forwarded: down.sent_bytes.load(Ordering::Relaxed),
                dropped: down.dropped_bytes.load(Ordering::Relaxed),
            };
            (link, bases)
        })
    };
    let mut outcomes = Vec::new();
    for (flow, client) in flows.iter().zip(clients) {
        let outcome = client
            .await
            .map_err(|e| format!("flow {}: the client task failed: {e}", flow.id))?
            .map_err(|e| format!("flow {}: {e}", flow.id))?;
        outcomes.push(outcome);
    }
    tokio::time::sleep_until(end).await;
    let (link_at_warmup, bases) = at_warmup.await.unwrap_or_else(|_| {
        (
            LinkAtWarmup::default(),
            vec![AtWarmup::default(); flows.len()],
        )
    });
    let link_series = link_samples.await.unwrap_or_default();
    let down = link.down().clone();
    let forwarded = down.sent_bytes.load(Ordering::Relaxed);
    let dropped = down.dropped_bytes.load(Ordering::Relaxed);
    let queue_delay = down.queue_delay();
    link.stop();
    let result = assemble(
        config,
        &flows,
        &outcomes,
        &bases,
        wall_start,
        start.into_std(),
        LinkCounts {
            forwarded: forwarded.saturating_sub(link_at_warmup.forwarded),
            dropped: dropped.saturating_sub(link_at_warmup.dropped),
            queue_delay,
        },
        link_series,
        options.series,
    );
    for server in flows.iter().filter_map(|f| f.server.as_ref()) {
        for path in server.paths.path_list() {
            path.finish_qlog();
        }
    }
    Ok(result)
}

/// A flow whose client is headless Chromium ([`crate::browser`]).
struct BrowserFlow {
    app: Application,
    /// The flow's start in run time, s.
    start_s: f64,
    /// The run's start, ms since the epoch.
    start_epoch_ms: f64,
    /// The measurement window's start in run time, s.
    window_start_s: f64,
    /// A request's trip through the relay.
    request_trip: Duration,
    /// Where the page's record goes.
    record_path: Option<PathBuf>,
}

impl BrowserFlow {
    /// Opens the page at `begin`, takes its record at `end`, and makes the
    /// flow's report (and its DASH summary) from it.
    fn run(
        self,
        mut session: crate::browser::Session,
        begin: std::time::Instant,
        end: std::time::Instant,
    ) -> Result<Outcome, String> {
        std::thread::sleep(begin.saturating_duration_since(std::time::Instant::now()));
        let opened_ms = crate::browser::epoch_ms(std::time::SystemTime::now());
        session.go()?;
        std::thread::sleep(end.saturating_duration_since(std::time::Instant::now()));
        let raw = session.finish()?;
        if let Some(path) = &self.record_path {
            std::fs::write(path, serde_json::to_vec_pretty(&raw).unwrap_or_default())
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        // Run seconds since the flow's start, from ms since the epoch.
        let from_start = |ms: f64| (ms - self.start_epoch_ms) / 1e3 - self.start_s;
        match &self.app {
            Application::Dash(dash) => {
                let record = crate::dashjs::Record::try_from(raw)?;
                record.check()?;
                let summary = record.session(opened_ms).summary(dash);
                let mut progress = vec![(0.0, 0)];
                progress.extend(
                    record
                        .progress_ms()
                        .into_iter()
                        .map(|(t, bytes)| (from_start(t), bytes)),
                );
                let (elapsed_s, bytes) = *progress.last().expect("one entry");
                let report = GetReport {
                    bytes,
                    elapsed_s,
                    handshake_s: 0.0,
                    goodput_bps: ratio_bps(bytes, elapsed_s),
                    complete: summary.segments == dash.segment_count() as u64,
                    live: None,
                    progress,
                };
                Ok(Outcome::Quic(report, Some(summary)))
            }
            Application::Live(live) => {
                let record = crate::live_browser::Record::try_from(raw)?;
                record.check()?;
                let requested = record.requested.unwrap_or(opened_ms);
                // Frame time zero: the stream's start at the server.
                let (zero, trip) = record.frame_zero(self.request_trip);
                let arrival_s = from_start(zero) + self.start_s + trip.as_secs_f64();
                let measure_from =
                    Duration::from_secs_f64((self.window_start_s - arrival_s).max(0.0));
                let progress = record.progress();
                let (elapsed_s, bytes) = progress.last().copied().unwrap_or_default();
                let report = GetReport {
                    bytes,
                    elapsed_s,
                    handshake_s: from_start(requested),
                    goodput_bps: ratio_bps(bytes, elapsed_s),
                    complete: record.done,
                    live: Some(record.summary(*live, measure_from, self.request_trip)),
                    progress,
                };
                Ok(Outcome::Quic(report, None))
            }
            Application::Bulk => unreachable!("a browser flow is DASH or live"),
        }
    }
}

/// `bytes` over `seconds`, bit/s (0 over no time).
fn ratio_bps(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 * 8.0 / seconds
    } else {
        0.0
    }
}

/// A client's socket made in the shell's namespace.
enum ClientSocket {
    /// A QUIC client's.
    Udp(Arc<std::net::UdpSocket>),
    /// A kernel flow's receiver's, bound and not yet connected.
    Tcp(kernel::socket2::Socket),
}

impl ClientSocket {
    fn port(&self) -> Result<u16, String> {
        match self {
            ClientSocket::Udp(s) => s.local_addr().map(|a| a.port()),
            ClientSocket::Tcp(s) => kernel::local_addr(s).map(|a| a.port()),
        }
        .map_err(|e| format!("the client's socket has no port: {e}"))
    }
}

/// A sender's counters when the measurement window opens.
#[derive(Clone, Copy, Debug, Default)]
struct AtWarmup {
    counters: PathCounters,
    padding_bytes: u64,
}

/// The relay's downlink counters when the measurement window opens.
#[derive(Clone, Copy, Debug, Default)]
struct LinkAtWarmup {
    forwarded: u64,
    dropped: u64,
}

/// The relay's downlink counters over the measurement window.
struct LinkCounts {
    /// Wire bytes.
    forwarded: u64,
    /// Wire bytes lost or dropped.
    dropped: u64,
    /// Queueing delays of the datagrams that left the link in the window.
    queue_delay: Percentiles,
}

async fn sample_link(
    down: Arc<emu::DirectionStats>,
    rate: RateModel,
    interval: Duration,
    start: tokio::time::Instant,
    end: tokio::time::Instant,
    enabled: bool,
) -> Vec<LinkSample> {
    let mut samples = Vec::new();
    if !enabled || interval.is_zero() {
        return samples;
    }
    let capacity = Capacity::new(&rate);
    let mut at = start;
    while at <= end {
        tokio::time::sleep_until(at).await;
        let t = at - start;
        samples.push(LinkSample {
            t_s: t.as_secs_f64(),
            queue_bytes: down.queue_bytes.load(Ordering::Relaxed),
            capacity_bps: capacity
                .rate_at(Instant::from_nanos(t.as_nanos() as u64))
                .as_bps_f64(),
            forwarded: down.sent_bytes.load(Ordering::Relaxed),
        });
        at += interval;
    }
    samples
}

/// Bytes a client had read at `t` seconds after the run started, from its
/// progress record (linear between records).
fn delivered_at(progress: &[(f64, u64)], offset_s: f64, t: f64) -> u64 {
    let t = t - offset_s;
    if t <= 0.0 {
        return 0;
    }
    match progress.iter().position(|&(s, _)| s >= t) {
        None => progress.last().map_or(0, |&(_, b)| b),
        Some(0) => progress[0].1,
        Some(i) => {
            let (t0, b0) = progress[i - 1];
            let (t1, b1) = progress[i];
            let f = if t1 > t0 { (t - t0) / (t1 - t0) } else { 1.0 };
            b0 + ((b1 - b0) as f64 * f) as u64
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn assemble(
    config: &sim::SimConfig,
    flows: &[Flow],
    outcomes: &[Outcome],
    bases: &[AtWarmup],
    wall_start: std::time::Instant,
    run_start: std::time::Instant,
    link: LinkCounts,
    link_series: Vec<LinkSample>,
    series_on: bool,
) -> RunResult {
    let end_s = config.duration.as_secs_f64();
    let warmup_s = config.warmup.as_secs_f64();
    let mut summaries = Vec::new();
    let mut series = Vec::new();
    let mut packets_sent = 0;
    for ((flow, outcome), base) in flows.iter().zip(outcomes).zip(bases) {
        let (report, dash) = match outcome {
            Outcome::Quic(report, dash) => (report, dash),
            Outcome::Kernel { sent, received } => {
                let (summary, samples) = kernel_flow(config, flow, sent, received, series_on);
                packets_sent += sent.last.as_ref().map_or(0, |t| t.counters.data_segs_out);
                summaries.push(summary);
                series.extend(samples);
                continue;
            }
        };
        let path = flow
            .server
            .as_ref()
            .and_then(|s| s.paths.path_list().into_iter().next());
        // The request leaves after the handshake: progress times count from it.
        let request_s = flow.config.start.as_secs_f64() + report.handshake_s;
        let window_start = warmup_s.max(flow.config.start.as_secs_f64());
        let window = (end_s - window_start).max(1e-9);
        let progress = &report.progress;
        let delivered_window = delivered_at(progress, request_s, end_s)
            - delivered_at(progress, request_s, window_start);
        let summary_of_path = path
            .as_deref()
            .map(|p| path_summary(p, run_start, window_start));
        let total = summary_of_path
            .as_ref()
            .map(|s| s.counters)
            .unwrap_or_default();
        packets_sent += total.packets_sent;
        let counters = total.since(&base.counters);
        let padding = path.as_ref().map_or(0, |p| {
            p.padding_bytes
                .load(Ordering::Relaxed)
                .saturating_sub(base.padding_bytes)
        });
        // A DASH session completes, as in the simulator, with its last segment.
        let sized = flow.config.size.is_some() || dash.is_some();
        summaries.push(FlowSummary {
            id: flow.id,
            cc: flow.config.cc_label(),
            start_s: flow.config.start.as_secs_f64(),
            base_rtt_ms: (flow.config.rtt + flow.config.ack_delay).as_secs_f64() * 1e3,
            goodput_bps: delivered_window as f64 * 8.0 / window,
            retransmission_ratio: ratio(counters.bytes_lost, delivered_window),
            loss_ratio: ratio(counters.bytes_lost, counters.bytes_sent),
            bytes_sent: counters.bytes_sent,
            bytes_delivered: delivered_window,
            bytes_retransmitted: counters.bytes_lost,
            bytes_lost: counters.bytes_lost,
            bytes_dropped: counters.bytes_lost,
            bytes_dropped_random: 0,
            rtt_ms: summary_of_path.as_ref().map(|s| s.rtt).unwrap_or_default(),
            mean_cwnd_bytes: summary_of_path.as_ref().map_or(0.0, |s| s.mean_cwnd),
            congestion_events: counters.congestion_events,
            ptos: counters.ptos,
            completion_time_s: (sized && report.complete)
                .then_some(report.handshake_s + report.elapsed_s),
            startup_exit_s: summary_of_path
                .as_ref()
                .and_then(|s| s.startup_exit_s)
                .map(|t| t - flow.config.start.as_secs_f64()),
            startup_peak_pacing_bps: summary_of_path.as_ref().and_then(|s| s.startup_peak),
            padding_bytes: padding,
            padding_ratio: ratio(padding, counters.bytes_sent),
            lost_split: None,
            bw_sample_rmse_bps: summary_of_path.as_ref().and_then(|s| s.bw_sample_rmse),
            bw_sample_unlimited_rmse_bps: None,
            bw_estimate_rmse_bps: summary_of_path.as_ref().and_then(|s| s.bw_estimate_rmse),
            live: report.live.clone(),
            dash: dash.clone(),
        });
        if let Some(s) = summary_of_path {
            for mut sample in s.samples {
                sample.flow = flow.id;
                sample.delivered = delivered_at(progress, request_s, sample.t_s);
                series.push(sample);
            }
        }
    }
    series.sort_by(|a, b| a.t_s.total_cmp(&b.t_s).then(a.flow.cmp(&b.flow)));
    let capacity = Capacity::new(&config.link.rate);
    let t0 = Instant::from_nanos(config.warmup.as_nanos() as u64);
    let t1 = Instant::from_nanos(config.duration.as_nanos() as u64);
    let offered = capacity.bytes_between(t0, t1).get();
    let window = (end_s - warmup_s).max(1e-9);
    let goodputs: Vec<f64> = summaries.iter().map(|f| f.goodput_bps).collect();
    RunResult {
        scenario: config.name.clone(),
        seed: config.seed,
        sim_time_s: end_s,
        wall_time_s: wall_start.elapsed().as_secs_f64(),
        events: 0,
        packets_sent,
        link: LinkSummary {
            capacity_bps: offered as f64 * 8.0 / window,
            utilization: if offered == 0 {
                0.0
            } else {
                (link.forwarded as f64 / offered as f64).min(1.0)
            },
            bytes_offered: offered,
            bytes_forwarded: link.forwarded.min(offered),
            bytes_dropped: link.dropped,
            queue_delay_ms: link.queue_delay,
            capacity_peak_bps: link_series
                .iter()
                .map(|s| s.capacity_bps)
                .fold(0.0, f64::max),
        },
        jain_index: jain_index(&goodputs),
        flows: summaries,
        series: Series {
            flows: series,
            link: link_series,
            // dash.js keeps its own record (browser-flow-N.json).
            dash: Vec::new(),
        },
        run_violations: Vec::new(),
        trace_errors: Vec::new(),
    }
}

/// A kernel TCP flow's summary and series, from its receiver's progress
/// and its sender's TCP_INFO readings (docs/EMULATION.md, "The kernel's
/// TCP"): goodput is what the receiver read in the window; bytes sent and
/// retransmitted are `tcpi_bytes_sent` and `tcpi_bytes_retrans` over the
/// window (payload bytes: TCP counts no headers), and the retransmitted
/// bytes stand for the lost ones (TCP keeps no count of declared losses);
/// RTTs are the smoothed RTT read every tick in the window; congestion
/// events are the readings that find the sender newly in CWR, Recovery or
/// Loss.
fn kernel_flow(
    config: &sim::SimConfig,
    flow: &Flow,
    sent: &kernel::SenderReport,
    received: &kernel::ReceiverReport,
    series_on: bool,
) -> (FlowSummary, Vec<FlowSample>) {
    let end_s = config.duration.as_secs_f64();
    let start_s = flow.config.start.as_secs_f64();
    let window_start = config.warmup.as_secs_f64().max(start_s);
    let window = (end_s - window_start).max(1e-9);
    let progress = &received.progress;
    let delivered_window =
        delivered_at(progress, 0.0, end_s) - delivered_at(progress, 0.0, window_start);
    // The counters when the window opened: the last reading before it.
    let base = sent
        .ticks
        .iter()
        .take_while(|t| t.t_s <= window_start)
        .last()
        .map(|t| t.counters)
        .unwrap_or_default();
    let counters = sent
        .last
        .as_ref()
        .map(|t| t.counters.since(&base))
        .unwrap_or_default();
    let in_window: Vec<&kernel::Tick> = sent
        .ticks
        .iter()
        .filter(|t| t.t_s >= window_start && t.t_s <= end_s)
        .collect();
    let rtt = Percentiles::of_durations(
        in_window
            .iter()
            .map(|t| Duration::from_secs_f64(t.sample.srtt_ms / 1e3)),
    );
    let mean_cwnd = if in_window.is_empty() {
        0.0
    } else {
        in_window.iter().map(|t| t.sample.cwnd as f64).sum::<f64>() / in_window.len() as f64
    };
    let reducing = |mode: &str| matches!(mode, "cwr" | "recovery" | "loss");
    let congestion_events = in_window
        .windows(2)
        .filter(|w| reducing(w[1].sample.mode) && !reducing(w[0].sample.mode))
        .count() as u64;
    let sized = flow.config.size.is_some();
    let summary = FlowSummary {
        id: flow.id,
        cc: flow.config.cc_label(),
        start_s,
        base_rtt_ms: (flow.config.rtt + flow.config.ack_delay).as_secs_f64() * 1e3,
        goodput_bps: delivered_window as f64 * 8.0 / window,
        retransmission_ratio: ratio(counters.bytes_retrans, delivered_window),
        loss_ratio: ratio(counters.bytes_retrans, counters.bytes_sent),
        bytes_sent: counters.bytes_sent,
        bytes_delivered: delivered_window,
        bytes_retransmitted: counters.bytes_retrans,
        bytes_lost: counters.bytes_retrans,
        bytes_dropped: counters.bytes_retrans,
        bytes_dropped_random: 0,
        rtt_ms: rtt,
        mean_cwnd_bytes: mean_cwnd,
        congestion_events,
        ptos: 0,
        completion_time_s: (sized && received.complete).then_some(received.finished_s - start_s),
        startup_exit_s: None,
        startup_peak_pacing_bps: None,
        padding_bytes: 0,
        padding_ratio: 0.0,
        lost_split: None,
        bw_sample_rmse_bps: None,
        bw_sample_unlimited_rmse_bps: None,
        bw_estimate_rmse_bps: None,
        live: None,
        dash: None,
    };
    let mut samples = Vec::new();
    if series_on && !config.sample_interval.is_zero() {
        // The readings at the scenario's sample interval.
        let step = config.sample_interval.as_secs_f64();
        let mut next = 0.0;
        for tick in &sent.ticks {
            if tick.t_s + 1e-9 < next {
                continue;
            }
            let mut sample = tick.sample.clone();
            sample.flow = flow.id;
            sample.delivered = delivered_at(progress, 0.0, sample.t_s);
            samples.push(sample);
            next = (tick.t_s / step).floor() * step + step;
        }
    }
    (summary, samples)
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// A path's record in run time.
struct PathSummary {
    counters: crate::telemetry::PathCounters,
    rtt: Percentiles,
    mean_cwnd: f64,
    startup_exit_s: Option<f64>,
    startup_peak: Option<f64>,
    bw_sample_rmse: Option<f64>,
    bw_estimate_rmse: Option<f64>,
    samples: Vec<FlowSample>,
}

fn path_summary(
    path: &PathShared,
    run_start: std::time::Instant,
    window_start_s: f64,
) -> PathSummary {
    let log = path
        .log
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // Path time zero (its first packet) in run time.
    let offset = log.epoch.map_or(0.0, |e| {
        e.saturating_duration_since(run_start).as_secs_f64()
    });
    let in_window =
        |t: Instant| offset + Duration::from_nanos(t.as_nanos()).as_secs_f64() >= window_start_s;
    let rtt = Percentiles::of_durations(
        log.rtt_samples
            .iter()
            .filter(|(t, _)| in_window(*t))
            .map(|&(_, rtt)| rtt),
    );
    let samples: Vec<FlowSample> = log
        .samples
        .iter()
        .map(|s| FlowSample {
            t_s: s.t_s + offset,
            ..s.clone()
        })
        .collect();
    let window_samples: Vec<&FlowSample> =
        samples.iter().filter(|s| s.t_s >= window_start_s).collect();
    let mean_cwnd = if window_samples.is_empty() {
        0.0
    } else {
        window_samples.iter().map(|s| s.cwnd as f64).sum::<f64>() / window_samples.len() as f64
    };
    PathSummary {
        counters: log.counters,
        rtt,
        mean_cwnd,
        startup_exit_s: log
            .startup_exit
            .map(|t| offset + Duration::from_nanos(t.as_nanos()).as_secs_f64()),
        startup_peak: log.startup_peak_pacing_bps,
        bw_sample_rmse: log.bw_sample_error.rms(),
        bw_estimate_rmse: log.bw_estimate_error.rms(),
        samples,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(link: &str, duration: &str) -> sim::SimConfig {
        let text = format!(
            "name = \"feasible\"\nseed = 1\nduration = \"{duration}\"\n[link]\n{link}\n\
             rtt = \"40ms\"\nbuffer = \"1bdp\"\n[[flow]]\ncc = \"bbr\"\n"
        );
        scenario::from_str(&text, std::path::Path::new("feasible.toml"), &[])
            .expect("a valid scenario")
            .config
    }

    #[test]
    fn a_rate_above_the_limit_is_refused_only_while_the_run_lasts() {
        let rises = "schedule = [[\"0s\", \"100Mbit\"], [\"20s\", \"2Gbit\"]]";
        assert_eq!(check_feasible(&config(rises, "10s")), Ok(()));
        let refused = check_feasible(&config(rises, "30s")).unwrap_err();
        assert!(
            refused.contains("link.rate peaks at 2000 Mbit/s"),
            "{refused}"
        );
    }

    #[test]
    fn acks_behind_the_data_queue_are_refused_with_the_key() {
        let link = "rate = \"20Mbit\"\nacks_share_queue = true";
        let refused = check_feasible(&config(link, "10s")).unwrap_err();
        assert!(
            refused.starts_with("link.acks_share_queue:") && refused.contains("simulate it"),
            "{refused}"
        );
        assert_eq!(check_feasible(&config("rate = \"20Mbit\"", "10s")), Ok(()));
    }

    #[test]
    fn a_kernel_flow_carries_only_bulk_and_sized_transfers() {
        let text = "name = \"k\"\nduration = \"4s\"\n[link]\nrate = \"20Mbit\"\nrtt = \"40ms\"\n\
                    buffer = \"1bdp\"\n[[flow]]\ncc = \"linux:cubic\"\n";
        let load = |extra: &str| {
            scenario::from_str(
                &format!("{text}{extra}"),
                std::path::Path::new("k.toml"),
                &[],
            )
            .expect("a valid scenario")
            .config
        };
        assert_eq!(check_feasible(&load("size = \"1MB\"\n")), Ok(()));
        let refused = check_feasible(&load("app = \"live\"\n")).unwrap_err();
        assert!(
            refused.starts_with("flow 0: cc = \"linux:cubic\" carries bulk and sized"),
            "{refused}"
        );
        let refused = check_feasible(&load("copilot = true\n")).unwrap_err();
        assert!(refused.contains("is TCP"), "{refused}");
    }

    #[test]
    fn a_long_run_is_refused_for_its_duration_first() {
        let refused = check_feasible(&config("rate = \"5Gbit\"", "11min")).unwrap_err();
        assert!(refused.starts_with("duration"), "{refused}");
    }
}
