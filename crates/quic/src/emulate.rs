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
//!   created in the window, as the simulator's.
//!
//! Runs that cannot keep real time on a small machine are refused up
//! front ([`check_feasible`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use cc::{AlgorithmSpec, Instant};
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
        if let Application::Dash(_) = flow.app {
            return Err(format!(
                "flow {i}: app = \"dash\" has no real-stack client yet (serve/get carry \
                 sized and bulk transfers and live streams)"
            ));
        }
    }
    Ok(())
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
    server: RunningServer,
}

/// What each flow's client brought back.
struct Outcome {
    report: GetReport,
}

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
    let loopback: SocketAddr = "127.0.0.1:0".parse().expect("literal");
    let mut flows = Vec::new();
    for flow in &config.flows {
        for _ in 0..flow.count {
            let id = flows.len();
            let server = server::start(ServerConfig {
                listen: loopback,
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
            })?;
            flows.push(Flow {
                id,
                config: flow.clone(),
                server,
            });
        }
    }
    let emu_config = emu::EmuConfig {
        link: config.link.clone(),
        uplink: config.uplink.clone(),
        rtt: flows[0].config.rtt,
        seed: config.seed,
    };
    let routes: Vec<emu::Route> = flows
        .iter()
        .map(|f| emu::Route {
            listen: loopback,
            forward: f.server.local_addr(),
            // The extra ACK-path delay of a flow lengthens its round trip.
            rtt: f.config.rtt + f.config.ack_delay,
        })
        .collect();
    let relay = emu::Relay::start_routes(&routes, &emu_config)
        .map_err(|e| format!("cannot start the emulator: {e}"))?;
    let entries = relay.listen_addrs();
    let start = tokio::time::Instant::now();
    let end = start + config.duration;
    let window_start = (start + config.warmup).into_std();
    let truth = crate::telemetry::BandwidthTruth {
        capacity: Capacity::new(&config.link.rate),
        epoch: relay.epoch(),
        window_start,
    };
    for flow in &flows {
        flow.server.paths.judge_bandwidth(truth.clone());
    }
    let mut clients = Vec::new();
    for flow in &flows {
        let remaining = config.duration.saturating_sub(flow.config.start);
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
            progress_interval: config.sample_interval.min(Duration::from_millis(100)),
            telemetry: TelemetryOptions::default(),
            // Frames are created when the request has crossed the relay.
            request_trip: routes[flow.id].uplink_delay(),
            live_measure_from: Some(window_start),
            // The simulator's receiver: the scenario's window, or unlimited.
            receive_window: Some(
                config
                    .transport
                    .receive_window
                    .map_or(MAX_RECEIVE_WINDOW, |w| w.get().min(MAX_RECEIVE_WINDOW)),
            ),
        };
        let begin = start + flow.config.start;
        clients.push(tokio::spawn(async move {
            tokio::time::sleep_until(begin).await;
            get(client, tokio::time::sleep_until(end)).await
        }));
    }
    let link_samples = tokio::spawn(sample_link(
        relay.down.clone(),
        config.link.rate.clone(),
        config.sample_interval,
        start,
        end,
        options.series,
    ));
    // The measurement window opens at the warmup: the link's and each
    // sender's counters are read then, as the simulator's recorders do.
    let at_warmup = {
        let down = relay.down.clone();
        let registries: Vec<_> = flows.iter().map(|f| f.server.paths.clone()).collect();
        let at = start + config.warmup;
        tokio::spawn(async move {
            tokio::time::sleep_until(at).await;
            let bases: Vec<AtWarmup> = registries
                .iter()
                .map(|paths| {
                    paths
                        .path_list()
                        .first()
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
        let report = client
            .await
            .map_err(|e| format!("flow {}: the client task failed: {e}", flow.id))?
            .map_err(|e| format!("flow {}: {e}", flow.id))?;
        outcomes.push(Outcome { report });
    }
    tokio::time::sleep_until(end).await;
    let (link_at_warmup, bases) = at_warmup.await.unwrap_or_else(|_| {
        (
            LinkAtWarmup::default(),
            vec![AtWarmup::default(); flows.len()],
        )
    });
    let link_series = link_samples.await.unwrap_or_default();
    let forwarded = relay.down.sent_bytes.load(Ordering::Relaxed);
    let dropped = relay.down.dropped_bytes.load(Ordering::Relaxed);
    let queue_delay = relay.down.queue_delay();
    let _ = relay.stop();
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
    );
    for flow in &flows {
        for path in flow.server.paths.path_list() {
            path.finish_qlog();
        }
    }
    Ok(result)
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
) -> RunResult {
    let end_s = config.duration.as_secs_f64();
    let warmup_s = config.warmup.as_secs_f64();
    let mut summaries = Vec::new();
    let mut series = Vec::new();
    let mut packets_sent = 0;
    for ((flow, outcome), base) in flows.iter().zip(outcomes).zip(bases) {
        let path = flow.server.paths.path_list().into_iter().next();
        // The request leaves after the handshake: progress times count from it.
        let request_s = flow.config.start.as_secs_f64() + outcome.report.handshake_s;
        let window_start = warmup_s.max(flow.config.start.as_secs_f64());
        let window = (end_s - window_start).max(1e-9);
        let progress = &outcome.report.progress;
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
        let sized = flow.config.size.is_some();
        summaries.push(FlowSummary {
            id: flow.id,
            cc: flow.config.cc.to_string(),
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
            completion_time_s: (sized && outcome.report.complete)
                .then_some(outcome.report.handshake_s + outcome.report.elapsed_s),
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
            live: outcome.report.live.clone(),
            dash: None,
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
        },
        run_violations: Vec::new(),
        trace_errors: Vec::new(),
    }
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
    fn a_long_run_is_refused_for_its_duration_first() {
        let refused = check_feasible(&config("rate = \"5Gbit\"", "11min")).unwrap_err();
        assert!(refused.starts_with("duration"), "{refused}");
    }
}
