//! What a controller inside s2n-quic tells the rest of bbrlab: counters,
//! periodic samples in the simulator's [`FlowSample`] shape, an optional
//! qlog trace, and the pacing gain BBR-Copilot's padding follows.
//!
//! s2n-quic creates controllers itself (one per path, through the drop-in
//! crate's [`Endpoint`], built by [`controller_endpoint`]); the registry is
//! the endpoint's [`ObserverFactory`] and each path's [`PathShared`] its
//! [`PathObserver`], so the application finds a connection's telemetry in
//! the endpoint's [`PathRegistry`] by the peer's address.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::BufWriter;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Waker;
use std::time::Duration;

use bbrlab_s2n_quic::{Endpoint, ObserverFactory, PathObserver};
use cc::{AckEvent, AlgorithmSpec, Bytes, CongestionControl, Instant, LossEvent};
use sim::link::Capacity;
use sim::qlog::{Metrics, QlogWriter, Vantage};
use sim::{FlowSample, RootMeanSquare};

/// Paths a registry remembers at most: the oldest is forgotten beyond
/// this, so a server under a flood of handshakes keeps bounded memory.
pub const MAX_REMEMBERED_PATHS: usize = 1024;

/// Paths whose connection ended that a registry still lists, the most
/// recent ones: a run reads a finished transfer's counters after its
/// connection closed (the close races the reader), while a long-running
/// server does not keep every ended path's samples.
pub const MAX_ENDED_PATHS: usize = 64;

/// s2n-quic's congestion-controller endpoint for `spec`: a controller per
/// path, seeded from `seed` and the path's order, each path's telemetry
/// kept in `paths`.
pub fn controller_endpoint(spec: AlgorithmSpec, seed: u64, paths: PathRegistry) -> Endpoint {
    Endpoint::from_spec(spec)
        .with_seed(seed)
        .with_observer(paths)
}

/// Options of the telemetry every path of an endpoint keeps.
#[derive(Clone, Debug, Default)]
pub struct TelemetryOptions {
    /// Take a [`FlowSample`] this often (none if `None`).
    pub sample_interval: Option<Duration>,
    /// Write one qlog file per path into this directory.
    pub qlog_dir: Option<PathBuf>,
    /// Which end the traces describe (names the qlog files too).
    pub vantage: Vantage,
}

/// The link's true capacity on the wall clock, against which a path's
/// bandwidth samples and estimate are judged as the simulator judges them
/// (`FlowSummary::bw_sample_rmse_bps`): known when the path runs through
/// an emulated link.
#[derive(Clone, Debug)]
pub struct BandwidthTruth {
    /// The link's capacity, in the link model's time.
    pub capacity: Capacity,
    /// The wall-clock instant of the link model's time zero.
    pub epoch: std::time::Instant,
    /// Samples taken before this instant are not judged (the measurement
    /// window opens here).
    pub window_start: std::time::Instant,
}

/// The paths an endpoint's controllers serve, by peer address.
#[derive(Clone, Debug, Default)]
pub struct PathRegistry {
    inner: Arc<Mutex<RegistryInner>>,
    options: Arc<TelemetryOptions>,
}

#[derive(Debug, Default)]
struct RegistryInner {
    by_peer: HashMap<SocketAddr, Arc<PathShared>>,
    order: VecDeque<SocketAddr>,
    /// Paths whose connection ended, oldest first.
    ended: VecDeque<Arc<PathShared>>,
    opened: u64,
    truth: Option<Arc<BandwidthTruth>>,
}

impl PathRegistry {
    /// A registry whose paths keep telemetry as `options` say.
    pub fn new(options: TelemetryOptions) -> PathRegistry {
        PathRegistry {
            inner: Arc::default(),
            options: Arc::new(options),
        }
    }

    /// Judges the bandwidth samples and estimates of every path opened
    /// from now on against `truth`.
    pub fn judge_bandwidth(&self, truth: BandwidthTruth) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.truth = Some(Arc::new(truth));
    }

    /// A new path to `peer`: its shared state and its order among the
    /// registry's paths (0 for the first).
    pub(crate) fn open(&self, peer: SocketAddr, spec: String) -> (Arc<PathShared>, u64) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let order = inner.opened;
        inner.opened += 1;
        let qlog = self.options.qlog_dir.as_ref().and_then(|dir| {
            let name = format!(
                "server-{order}-{}.qlog",
                peer.to_string().replace([':', '[', ']'], "_")
            );
            // A trace that cannot be created is reported by its absence
            // and on stderr; the connection itself goes on.
            match File::create(dir.join(&name)) {
                Ok(file) => Some(QlogWriter::new(
                    BufWriter::new(file),
                    &format!("{spec} to {peer}"),
                    self.options.vantage,
                )),
                Err(e) => {
                    eprintln!("qlog: cannot create {}: {e}", dir.join(&name).display());
                    None
                }
            }
        });
        let shared = Arc::new(PathShared {
            spec,
            peer,
            order,
            sample_interval: self.options.sample_interval,
            log: Mutex::new(PathLog {
                qlog,
                ..PathLog::default()
            }),
            pacing_gain_bits: AtomicU64::new(1.0f64.to_bits()),
            padding_bytes: AtomicU64::new(0),
            padding_waker: Mutex::new(None),
            truth: inner.truth.clone(),
        });
        if inner.by_peer.insert(peer, shared.clone()).is_none() {
            inner.order.push_back(peer);
        }
        while inner.order.len() > MAX_REMEMBERED_PATHS {
            if let Some(old) = inner.order.pop_front() {
                if let Some(path) = inner.by_peer.remove(&old) {
                    path.finish_qlog();
                }
            }
        }
        (shared, order)
    }

    /// The path to `peer`, if one was opened (and not forgotten).
    pub fn path(&self, peer: SocketAddr) -> Option<Arc<PathShared>> {
        self.inner
            .lock()
            .expect("registry lock")
            .by_peer
            .get(&peer)
            .cloned()
    }

    /// Every path remembered, open or ended (the last
    /// [`MAX_ENDED_PATHS`]), in the order they were opened.
    pub fn path_list(&self) -> Vec<Arc<PathShared>> {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let mut paths: Vec<Arc<PathShared>> = inner
            .order
            .iter()
            .filter_map(|p| inner.by_peer.get(p).cloned())
            .chain(inner.ended.iter().cloned())
            .collect();
        paths.sort_by_key(|p| p.order);
        paths
    }

    /// The connection to `peer` ended: its qlog is closed, and the path
    /// moves to the ended ones, still listed by [`PathRegistry::path_list`]
    /// but no longer found by address.
    pub fn close(&self, peer: SocketAddr) {
        let removed = {
            let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
            inner.order.retain(|p| *p != peer);
            let removed = inner.by_peer.remove(&peer);
            if let Some(path) = &removed {
                inner.ended.push_back(path.clone());
                while inner.ended.len() > MAX_ENDED_PATHS {
                    inner.ended.pop_front();
                }
            }
            removed
        };
        if let Some(path) = removed {
            path.finish_qlog();
        }
    }
}

impl ObserverFactory for PathRegistry {
    fn open_path(
        &mut self,
        peer: SocketAddr,
        spec: &AlgorithmSpec,
        _order: u64,
    ) -> Option<Arc<dyn PathObserver>> {
        // The registry belongs to one endpoint, so its own order is the
        // endpoint's.
        let (shared, _) = self.open(peer, spec.to_string());
        Some(shared)
    }
}

/// Cumulative counters of a path (wire bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathCounters {
    /// Packets sent (congestion-controlled ones).
    pub packets_sent: u64,
    /// Bytes sent.
    pub bytes_sent: u64,
    /// Bytes acknowledged.
    pub bytes_acked: u64,
    /// Packets declared lost.
    pub packets_lost: u64,
    /// Bytes declared lost.
    pub bytes_lost: u64,
    /// Recovery periods entered.
    pub congestion_events: u64,
    /// Times persistent congestion was declared.
    pub persistent_congestions: u64,
    /// Probe timeouts (counted by [`crate::pto::PtoCounter`]).
    pub ptos: u64,
}

impl PathCounters {
    /// What was counted since `base` (an earlier reading).
    pub fn since(&self, base: &PathCounters) -> PathCounters {
        PathCounters {
            packets_sent: self.packets_sent.saturating_sub(base.packets_sent),
            bytes_sent: self.bytes_sent.saturating_sub(base.bytes_sent),
            bytes_acked: self.bytes_acked.saturating_sub(base.bytes_acked),
            packets_lost: self.packets_lost.saturating_sub(base.packets_lost),
            bytes_lost: self.bytes_lost.saturating_sub(base.bytes_lost),
            congestion_events: self
                .congestion_events
                .saturating_sub(base.congestion_events),
            persistent_congestions: self
                .persistent_congestions
                .saturating_sub(base.persistent_congestions),
            ptos: self.ptos.saturating_sub(base.ptos),
        }
    }
}

/// What one path recorded.
#[derive(Debug, Default)]
pub struct PathLog {
    /// Counters.
    pub counters: PathCounters,
    /// Periodic samples (`delivered` and `padding` filled by the caller's
    /// application counters where it has them).
    pub samples: Vec<FlowSample>,
    /// RTT samples, in order, with their time (path time).
    pub rtt_samples: Vec<(Instant, Duration)>,
    /// When the controller first left Startup (path time).
    pub startup_exit: Option<Instant>,
    /// The highest pacing rate set while in Startup, bits per second.
    pub startup_peak_pacing_bps: Option<f64>,
    /// Wall-clock time of the path's first packet (its time zero).
    pub epoch: Option<std::time::Instant>,
    /// Delivery-rate samples against the link's capacity, in the window
    /// (kept only with a [`BandwidthTruth`]).
    pub bw_sample_error: RootMeanSquare,
    /// The controller's bandwidth estimate against the link's capacity,
    /// after every ACK, in the window (kept only with a [`BandwidthTruth`]
    /// and for controllers with an estimate).
    pub bw_estimate_error: RootMeanSquare,
    next_sample: Instant,
    qlog: Option<QlogWriter<BufWriter<File>>>,
}

/// One path's shared state.
#[derive(Debug)]
pub struct PathShared {
    /// The controller's spec string.
    pub spec: String,
    /// The peer's address.
    pub peer: SocketAddr,
    /// Its place among the registry's paths (0 for the first opened).
    pub order: u64,
    sample_interval: Option<Duration>,
    /// The record.
    pub log: Mutex<PathLog>,
    pacing_gain_bits: AtomicU64,
    /// Wire bytes of BBR-Copilot padding the connection sent.
    pub padding_bytes: AtomicU64,
    padding_waker: Mutex<Option<Waker>>,
    truth: Option<Arc<BandwidthTruth>>,
}

fn since(t: Instant) -> Duration {
    Duration::from_nanos(t.as_nanos())
}

impl PathShared {
    /// The controller's pacing gain now (1 for controllers without one).
    pub fn pacing_gain(&self) -> f64 {
        f64::from_bits(self.pacing_gain_bits.load(Ordering::Relaxed))
    }

    /// Registers the waker of the connection's padding sender, woken when
    /// the pacing gain rises above 1.
    pub fn set_padding_waker(&self, waker: Waker) {
        *self
            .padding_waker
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(waker);
    }

    fn publish_gain(&self, gain: f64) {
        let old = f64::from_bits(
            self.pacing_gain_bits
                .swap(gain.to_bits(), Ordering::Relaxed),
        );
        if gain > 1.0 && old <= 1.0 {
            if let Some(waker) = self
                .padding_waker
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .as_ref()
            {
                waker.wake_by_ref();
            }
        }
    }

    pub(crate) fn on_ptos(&self, count: u64) {
        let mut log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        log.counters.ptos += count;
    }

    /// Flushes and closes the qlog trace, if any (later events are not traced).
    pub fn finish_qlog(&self) {
        let qlog = self
            .log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .qlog
            .take();
        if let Some(q) = qlog {
            if let Err(e) = q.finish() {
                eprintln!("qlog of {}: {e}", self.peer);
            }
        }
    }
}

impl PathObserver for PathShared {
    fn on_sent(&self, now: Instant, size: Bytes, number: u64) {
        let mut log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        log.epoch.get_or_insert_with(std::time::Instant::now);
        log.counters.packets_sent += 1;
        log.counters.bytes_sent += size.get();
        if let Some(q) = log.qlog.as_mut() {
            q.packet_sent(since(now), number, size.get());
        }
    }

    fn on_lost(&self, event: &LossEvent, size: Bytes, number: u64) {
        let mut log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        log.counters.packets_lost += 1;
        log.counters.bytes_lost += size.get();
        if event.new_congestion_event {
            log.counters.congestion_events += 1;
        }
        if event.persistent_congestion {
            log.counters.persistent_congestions += 1;
        }
        if let Some(q) = log.qlog.as_mut() {
            q.packet_lost(since(event.now), number);
        }
    }

    fn on_ack(&self, event: &AckEvent, cc: &dyn CongestionControl) {
        let probe = cc.probe_state();
        self.publish_gain(probe.pacing_gain);
        let mut log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        let log = &mut *log;
        log.counters.bytes_acked += event.newly_acked.get();
        if let Some(latest) = event.rtt.latest {
            log.rtt_samples.push((event.now, latest));
        }
        if let (Some(truth), Some(epoch)) = (&self.truth, log.epoch) {
            // s2n-quic calls the controller only for ACKs that acknowledge
            // something new, so each one brings a sample, as the
            // simulator's fresh ACKs do.
            let at = epoch + since(event.now);
            if at >= truth.window_start {
                let link_time = at.saturating_duration_since(truth.epoch);
                let capacity = truth
                    .capacity
                    .rate_at(Instant::from_nanos(link_time.as_nanos() as u64))
                    .as_bps_f64();
                if let Some(rate) = event.rate.delivery_rate {
                    log.bw_sample_error.add(rate.as_bps_f64() - capacity);
                }
                if let Some(estimate) = probe.bandwidth_estimate {
                    log.bw_estimate_error.add(estimate.as_bps_f64() - capacity);
                }
            }
        }
        let pacing = cc.pacing_rate();
        let pacing_bps = (pacing != cc::Bandwidth::MAX).then(|| pacing.as_bps_f64());
        match probe.in_startup {
            Some(true) => {
                if let Some(bps) = pacing_bps {
                    let peak = log.startup_peak_pacing_bps.get_or_insert(bps);
                    *peak = peak.max(bps);
                }
            }
            Some(false) => {
                log.startup_exit.get_or_insert(event.now);
            }
            None => {}
        }
        if let Some(q) = log.qlog.as_mut() {
            q.metrics_updated(
                since(event.now),
                &Metrics {
                    congestion_window: cc.cwnd().get(),
                    bytes_in_flight: event.bytes_in_flight.get(),
                    min_rtt: event.rtt.min,
                    smoothed_rtt: event.rtt.smoothed,
                    latest_rtt: event.rtt.latest.unwrap_or(event.rtt.smoothed),
                    pacing_rate_bps: pacing_bps,
                },
            );
            q.mode(since(event.now), cc.snapshot().mode);
        }
        let Some(interval) = self.sample_interval else {
            return;
        };
        if event.now < log.next_sample {
            return;
        }
        log.next_sample = event.now + interval;
        let snap = cc.snapshot();
        log.samples.push(FlowSample {
            t_s: since(event.now).as_secs_f64(),
            flow: 0,
            cwnd: cc.cwnd().get(),
            inflight: event.bytes_in_flight.get(),
            pacing_rate_bps: pacing_bps.unwrap_or(0.0),
            delivery_rate_bps: event.rate.delivery_rate.map_or(0.0, |r| r.as_bps_f64()),
            bw_estimate_bps: snap.bandwidth_estimate.map_or(0.0, |b| b.as_bps_f64()),
            min_rtt_ms: snap.min_rtt_estimate.map_or(0.0, |d| d.as_secs_f64() * 1e3),
            srtt_ms: event.rtt.smoothed.as_secs_f64() * 1e3,
            latest_rtt_ms: event.rtt.latest.unwrap_or(event.rtt.smoothed).as_secs_f64() * 1e3,
            mode: snap.mode,
            pacing_gain: snap.pacing_gain,
            cwnd_gain: snap.cwnd_gain,
            delivered: log.counters.bytes_acked,
            retransmitted: log.counters.bytes_lost,
            lost: log.counters.bytes_lost,
            padding: self.padding_bytes.load(Ordering::Relaxed),
            controller: snap.extra,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    #[test]
    fn an_ended_path_stays_listed_but_is_not_found_by_address() {
        let registry = PathRegistry::new(TelemetryOptions::default());
        registry.open(peer(1), "bbr".into());
        registry.open(peer(2), "cubic".into());
        registry.close(peer(1));
        let listed: Vec<_> = registry.path_list().iter().map(|p| p.peer).collect();
        assert_eq!(
            listed,
            vec![peer(1), peer(2)],
            "opening order, ended included"
        );
        assert!(registry.path(peer(1)).is_none());
        assert!(registry.path(peer(2)).is_some());
    }

    #[test]
    fn only_the_most_recent_ended_paths_are_kept() {
        let registry = PathRegistry::new(TelemetryOptions::default());
        let count = MAX_ENDED_PATHS as u16 + 5;
        for port in 1..=count {
            registry.open(peer(port), "bbr".into());
            registry.close(peer(port));
        }
        let listed = registry.path_list();
        assert_eq!(listed.len(), MAX_ENDED_PATHS);
        assert_eq!(listed[0].peer, peer(6), "the five oldest were forgotten");
        assert_eq!(listed.last().unwrap().peer, peer(count));
    }
}
