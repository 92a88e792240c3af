//! The adapter: a [`cc::CongestionControl`] as s2n-quic's
//! `CongestionController`.
//!
//! s2n-quic keeps the packets and detects losses (RFC 9002); it tells the
//! controller about each packet sent, each RTT sample, each lost packet and
//! each ACK frame, in that order, and asks it for a window, a pacing
//! departure time and a send quantum. bbrlab's controllers want more than
//! the stack hands over, so the adapter keeps what the simulator's sender
//! keeps (`sim::transport::Sender`):
//!
//! - the delivery-rate estimator ([`DeliveryRateEstimator`]), whose
//!   per-packet snapshot is the `PacketInfo` s2n-quic stores with each
//!   packet and gives back on ACK and loss;
//! - bytes in flight (the stack reports acknowledged, lost and discarded
//!   bytes; the adapter counts);
//! - the recovery period (RFC 9002 §7.3.2: it begins at the first loss of a
//!   packet sent after the last one began and ends when a packet sent after
//!   it is acknowledged), because the stack has no recovery flags;
//! - the pacer: the simulator's token bucket ([`Pacer`], kept in `cc`), turned into an
//!   earliest departure time after every send and ACK. s2n-quic sends a
//!   packet whose departure time is less than 1 ms away; the bucket keeps
//!   that early start as debt, so the long-run rate stays the controller's.
//!
//! One ACK frame arrives as `on_rtt_update` (when its largest packet is
//! newly acknowledged), then `on_packet_lost` per packet it revealed lost,
//! then one `on_ack`: the adapter collects the losses of that ACK (same
//! receive time) into the [`AckEvent`]'s `newly_lost`, as `cc` expects.
//! Losses found by the loss timer arrive without an ACK and go to the
//! controller alone, as in the simulator.
//!
//! Time: s2n-quic's [`Timestamp`]s are mapped to `cc::Instant`s counted
//! from the first packet sent on the path.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use cc::{
    derive_seed, AckEvent, AlgorithmSpec, Bytes, CongestionControl, ControllerConfig,
    DeliveryRateEstimator, DeliveryState, Instant, LossEvent, Pacer, RttEstimate, SentEvent,
    SpecError,
};
use s2n_quic::provider::congestion_controller::{
    CongestionController, PathInfo, Publisher, RandomGenerator, RttEstimator, Timestamp,
};

use crate::observer::{ObserverFactory, PathObserver};

/// What s2n-quic stores with each packet for the controller: the
/// delivery-rate snapshot, and the packet's place in the controller's send
/// order (the number its qlog trace uses: s2n-quic's own packet numbers are
/// not shown to a controller).
#[derive(Clone, Copy, Debug)]
pub struct SentInfo {
    /// The delivery-rate estimator's snapshot at send time.
    pub state: DeliveryState,
    /// The packet's number in the controller's send order.
    pub number: u64,
}

/// Losses reported for the ACK being processed (same receive time).
#[derive(Clone, Copy, Debug)]
struct AckLosses {
    at: Instant,
    bytes: Bytes,
    /// Bytes in flight before the first of them was removed.
    prior_in_flight: Bytes,
}

/// A bbrlab controller inside s2n-quic. Cloned with its path (s2n-quic
/// requires `Clone`): the clone is an independent controller in the same
/// state.
#[derive(Clone, Debug)]
pub struct Controller {
    cc: Box<dyn CongestionControl>,
    estimator: DeliveryRateEstimator,
    max_datagram_size: Bytes,
    epoch: Option<Timestamp>,
    bytes_in_flight: Bytes,
    recovery_start: Option<Instant>,
    in_recovery: bool,
    ack_losses: Option<AckLosses>,
    /// The receive time of the ACK whose RTT sample the stack just took.
    rtt_sample_at: Option<Instant>,
    pacer: Pacer,
    next_departure: Option<Timestamp>,
    next_number: u64,
    observer: Option<Arc<dyn PathObserver>>,
}

impl Controller {
    /// A controller built from `spec` for a path whose datagrams carry at
    /// most `max_datagram_size` bytes; `observer` hears what it does.
    pub fn new(
        spec: &AlgorithmSpec,
        seed: u64,
        max_datagram_size: u16,
        observer: Option<Arc<dyn PathObserver>>,
    ) -> Controller {
        let size = Bytes(u64::from(max_datagram_size.max(1)));
        let mut config = ControllerConfig::new(seed, Instant::ZERO);
        config.max_datagram_size = size;
        let cc = spec.build(&config);
        let quantum = cc.send_quantum();
        Controller {
            cc,
            estimator: DeliveryRateEstimator::new(),
            max_datagram_size: size,
            epoch: None,
            bytes_in_flight: Bytes::ZERO,
            recovery_start: None,
            in_recovery: false,
            ack_losses: None,
            rtt_sample_at: None,
            pacer: Pacer::new(Instant::ZERO, quantum),
            next_departure: None,
            next_number: 0,
            observer,
        }
    }

    /// The wrapped controller.
    pub fn controller(&self) -> &dyn CongestionControl {
        self.cc.as_ref()
    }

    fn instant(&mut self, t: Timestamp) -> Instant {
        let epoch = *self.epoch.get_or_insert(t);
        Instant::from_nanos(t.saturating_duration_since(epoch).as_nanos() as u64)
    }

    fn timestamp(&self, t: Instant) -> Option<Timestamp> {
        self.epoch
            .map(|epoch| epoch + Duration::from_nanos(t.as_nanos()))
    }

    /// Recomputes when the next full-sized packet may leave.
    fn update_departure(&mut self, now: Instant) {
        let rate = self.cc.pacing_rate();
        let quantum = self.cc.send_quantum();
        let at =
            self.pacer
                .earliest_send(now, self.max_datagram_size, rate, quantum, Duration::ZERO);
        self.next_departure = if at > now { self.timestamp(at) } else { None };
    }

    fn rtt_estimate(&self, rtt: &RttEstimator, latest: bool) -> RttEstimate {
        RttEstimate {
            latest: latest.then(|| rtt.latest_rtt()),
            smoothed: rtt.smoothed_rtt(),
            rttvar: rtt.rttvar(),
            min: rtt.min_rtt(),
        }
    }
}

impl CongestionController for Controller {
    type PacketInfo = SentInfo;

    fn congestion_window(&self) -> u32 {
        self.cc.cwnd().get().min(u64::from(u32::MAX)) as u32
    }

    fn bytes_in_flight(&self) -> u32 {
        self.bytes_in_flight.get().min(u64::from(u32::MAX)) as u32
    }

    fn is_congestion_limited(&self) -> bool {
        self.bytes_in_flight + self.max_datagram_size > self.cc.cwnd()
    }

    fn requires_fast_retransmission(&self) -> bool {
        // The simulator's sender does not send the one packet RFC 9002
        // allows beyond cwnd on entering recovery; neither does this.
        false
    }

    fn on_packet_sent<Pub: Publisher>(
        &mut self,
        time_sent: Timestamp,
        sent_bytes: usize,
        app_limited: Option<bool>,
        _rtt_estimator: &RttEstimator,
        _publisher: &mut Pub,
    ) -> SentInfo {
        let now = self.instant(time_sent);
        let size = Bytes(sent_bytes as u64);
        // `None` is a handshake packet: the application had no say, so its
        // samples do not measure the path (s2n-quic's own BBR reads it so).
        let app_limited = app_limited.unwrap_or(true);
        if app_limited {
            self.estimator.on_app_limited(self.bytes_in_flight + size);
        }
        let state = self
            .estimator
            .on_packet_sent(now, self.bytes_in_flight, size);
        let number = self.next_number;
        self.next_number += 1;
        let info = SentInfo { state, number };
        if size == Bytes::ZERO {
            return info;
        }
        self.bytes_in_flight += size;
        self.pacer.on_send(size);
        self.cc.on_packet_sent(&SentEvent {
            now,
            bytes: size,
            bytes_in_flight: self.bytes_in_flight,
            app_limited,
            // QUIC resends frames in new packets and does not tell which.
            is_retransmission: false,
        });
        self.update_departure(now);
        if let Some(observer) = &self.observer {
            observer.on_sent(now, size, number);
        }
        info
    }

    fn on_rtt_update<Pub: Publisher>(
        &mut self,
        _time_sent: Timestamp,
        now: Timestamp,
        _rtt_estimator: &RttEstimator,
        _publisher: &mut Pub,
    ) {
        let now = self.instant(now);
        self.rtt_sample_at = Some(now);
    }

    fn on_ack<Pub: Publisher>(
        &mut self,
        _newest_acked_time_sent: Timestamp,
        bytes_acknowledged: usize,
        newest_acked: SentInfo,
        rtt: &RttEstimator,
        _random_generator: &mut dyn RandomGenerator,
        ack_receive_time: Timestamp,
        _publisher: &mut Pub,
    ) {
        let now = self.instant(ack_receive_time);
        let newest_acked = newest_acked.state;
        let acked = Bytes(bytes_acknowledged as u64);
        let losses = self.ack_losses.take().filter(|l| l.at == now);
        let prior_in_flight = losses.map_or(self.bytes_in_flight, |l| l.prior_in_flight);
        self.bytes_in_flight = self.bytes_in_flight.saturating_sub(acked);
        self.estimator.on_acked(now, acked, &newest_acked);
        let min_rtt = rtt.first_rtt_sample().map(|_| rtt.min_rtt());
        let sample = self.estimator.generate_sample(now, min_rtt);
        let was_in_recovery = self.in_recovery;
        self.in_recovery = self
            .recovery_start
            .is_some_and(|start| newest_acked.sent_time <= start);
        let latest = self.rtt_sample_at.take() == Some(now);
        let event = AckEvent {
            now,
            rate: sample,
            rtt: self.rtt_estimate(rtt, latest),
            newly_acked: acked,
            newly_lost: losses.map_or(Bytes::ZERO, |l| l.bytes),
            prior_in_flight,
            bytes_in_flight: self.bytes_in_flight,
            in_recovery: self.in_recovery,
            recovery_exited: was_in_recovery && !self.in_recovery,
        };
        self.cc.on_ack(&event);
        self.update_departure(now);
        if let Some(observer) = &self.observer {
            observer.on_ack(&event, self.cc.as_ref());
        }
    }

    fn on_packet_lost<Pub: Publisher>(
        &mut self,
        lost_bytes: u32,
        packet: SentInfo,
        persistent_congestion: bool,
        _new_loss_burst: bool,
        _random_generator: &mut dyn RandomGenerator,
        timestamp: Timestamp,
        _publisher: &mut Pub,
    ) {
        let now = self.instant(timestamp);
        let SentInfo {
            state: packet,
            number,
        } = packet;
        let lost = Bytes(u64::from(lost_bytes));
        let losses = match self.ack_losses {
            Some(l) if l.at == now => self.ack_losses.as_mut().expect("matched"),
            _ => self.ack_losses.insert(AckLosses {
                at: now,
                bytes: Bytes::ZERO,
                prior_in_flight: self.bytes_in_flight,
            }),
        };
        losses.bytes += lost;
        self.bytes_in_flight = self.bytes_in_flight.saturating_sub(lost);
        self.estimator.on_packet_lost(lost);
        let new_congestion_event = self
            .recovery_start
            .is_none_or(|start| packet.sent_time > start);
        if new_congestion_event {
            self.recovery_start = Some(now);
            self.in_recovery = true;
        }
        let event = LossEvent {
            now,
            packet,
            bytes_in_flight: self.bytes_in_flight,
            new_congestion_event,
            persistent_congestion,
        };
        self.cc.on_packet_lost(&event);
        self.update_departure(now);
        if let Some(observer) = &self.observer {
            observer.on_lost(&event, lost, number);
        }
    }

    fn on_explicit_congestion<Pub: Publisher>(
        &mut self,
        _ce_count: u64,
        _event_time: Timestamp,
        _publisher: &mut Pub,
    ) {
        // No controller of the papers reacts to ECN, and the emulated link
        // never marks: CE counts are ignored, as the simulator has no ECN.
    }

    fn on_mtu_update<Pub: Publisher>(&mut self, max_data_size: u16, _publisher: &mut Pub) {
        self.max_datagram_size = Bytes(u64::from(max_data_size.max(1)));
        self.cc.on_mtu_update(self.max_datagram_size);
    }

    fn on_packet_discarded<Pub: Publisher>(&mut self, bytes_sent: usize, _publisher: &mut Pub) {
        // Packets of a discarded key space leave flight without an ACK or a loss.
        self.bytes_in_flight = self
            .bytes_in_flight
            .saturating_sub(Bytes(bytes_sent as u64));
    }

    fn earliest_departure_time(&self) -> Option<Timestamp> {
        self.next_departure
    }

    fn send_quantum(&self) -> Option<usize> {
        Some(self.cc.send_quantum().get() as usize)
    }
}

/// The peer address of an s2n-quic path.
pub fn peer_address(address: &s2n_quic_core::event::api::SocketAddress<'_>) -> SocketAddr {
    SocketAddr::from(address)
}

/// s2n-quic's congestion-controller endpoint for a bbrlab controller: it
/// builds a [`Controller`] for every new path of a server or client.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let controllers = bbrlab_s2n_quic::Endpoint::new("obbr:mu=0.5")?;
/// // s2n_quic::Server::builder() ... .with_congestion_controller(controllers)?
/// # Ok(()) }
/// ```
///
/// Each path's controller gets its own seed, derived from the endpoint's
/// seed (0 unless [`Endpoint::with_seed`]) and the path's order (0 for the
/// first path opened), so a run with the same seed repeats the controllers'
/// random choices.
pub struct Endpoint {
    spec: AlgorithmSpec,
    seed: u64,
    opened: u64,
    observers: Option<Box<dyn ObserverFactory>>,
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("spec", &self.spec.to_string())
            .field("seed", &self.seed)
            .field("opened", &self.opened)
            .field("observed", &self.observers.is_some())
            .finish()
    }
}

impl Endpoint {
    /// Controllers described by a spec string (`"bbr"`, `"obbr:mu=0.5"`,
    /// `"cubic:beta=0.7"`; `bbrlab list` names them all).
    ///
    /// # Errors
    /// The spec names no controller or a parameter it does not have.
    pub fn new(spec: &str) -> Result<Endpoint, SpecError> {
        Ok(Endpoint::from_spec(AlgorithmSpec::parse(spec)?))
    }

    /// Controllers built from a parsed spec.
    pub fn from_spec(spec: AlgorithmSpec) -> Endpoint {
        Endpoint {
            spec,
            seed: 0,
            opened: 0,
            observers: None,
        }
    }

    /// Seeds the controllers' random choices from `seed`.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Endpoint {
        self.seed = seed;
        self
    }

    /// Asks `observers` for an observer of every new path.
    #[must_use]
    pub fn with_observer(mut self, observers: impl ObserverFactory) -> Endpoint {
        self.observers = Some(Box::new(observers));
        self
    }

    /// The controllers' spec.
    pub fn spec(&self) -> &AlgorithmSpec {
        &self.spec
    }
}

impl s2n_quic::provider::congestion_controller::Endpoint for Endpoint {
    type CongestionController = Controller;

    fn new_congestion_controller(&mut self, path_info: PathInfo) -> Controller {
        let order = self.opened;
        self.opened += 1;
        let peer = peer_address(&path_info.remote_address);
        let observer = self
            .observers
            .as_mut()
            .and_then(|o| o.open_path(peer, &self.spec, order));
        Controller::new(
            &self.spec,
            derive_seed(self.seed, order),
            path_info.max_datagram_size,
            observer,
        )
    }
}
