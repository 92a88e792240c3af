//! The [`CongestionControl`] trait and the events a transport feeds it.
//!
//! The trait is shaped so that it runs unchanged in the simulator and inside
//! a real QUIC stack (s2n-quic's `CongestionController`):
//! - per-packet state is a [`DeliveryState`] that the transport stores with
//!   each packet (s2n-quic's `PacketInfo`) and hands back on ACK and loss;
//! - one [`AckEvent`] covers every packet a single ACK frame acknowledged,
//!   with one rate sample for the whole ACK;
//! - losses arrive one packet at a time ([`LossEvent`]), before the
//!   [`AckEvent`] of the ACK that revealed them, and their bytes are
//!   repeated in that event's `newly_lost` so a controller can react per
//!   packet or per ACK;
//! - the transport, not the controller, decides when a loss recovery period
//!   begins and ends (RFC 9002 §7.3.2) and says so in the events.

use std::fmt;

use dyn_clone::DynClone;
use std::time::Duration;

use crate::rate::{DeliveryState, RateSample};
use crate::units::{Bandwidth, Bytes, Instant};

/// What a controller is told when it is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControllerConfig {
    /// Maximum datagram size (the "packet" of every packet-denominated constant).
    pub max_datagram_size: Bytes,
    /// Initial congestion window, in packets (RFC 9002 and Linux: 10).
    pub initial_window_packets: u64,
    /// Seed for the controller's own randomness (e.g. BBR's ProbeBW start phase).
    pub seed: u64,
    /// The connection's start time.
    pub now: Instant,
}

impl ControllerConfig {
    /// The usual configuration: 1500-byte datagrams, an initial window of 10 packets.
    pub fn new(seed: u64, now: Instant) -> Self {
        ControllerConfig {
            max_datagram_size: Bytes(1500),
            initial_window_packets: 10,
            seed,
            now,
        }
    }

    /// `packets` full-sized datagrams.
    pub fn packets(&self, packets: u64) -> Bytes {
        self.max_datagram_size * packets
    }
}

/// The transport's RTT estimator state (RFC 9002 §5) at the time of an event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RttEstimate {
    /// The RTT sample this ACK produced, if it produced one.
    pub latest: Option<Duration>,
    /// Smoothed RTT.
    pub smoothed: Duration,
    /// RTT variation.
    pub rttvar: Duration,
    /// Minimum RTT seen over the connection (RFC 9002's `min_rtt`, never expires).
    pub min: Duration,
}

/// A packet left the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentEvent {
    /// Send time.
    pub now: Instant,
    /// The packet's size.
    pub bytes: Bytes,
    /// Bytes in flight after this packet was sent.
    pub bytes_in_flight: Bytes,
    /// Whether the sender was app-limited when it sent the packet.
    pub app_limited: bool,
    /// Whether the packet carries data declared lost earlier.
    pub is_retransmission: bool,
}

/// One ACK frame was processed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckEvent {
    /// Arrival time of the ACK.
    pub now: Instant,
    /// The delivery-rate estimator's sample for this ACK.
    pub rate: RateSample,
    /// RTT state after this ACK.
    pub rtt: RttEstimate,
    /// Bytes newly acknowledged by this ACK.
    pub newly_acked: Bytes,
    /// Bytes newly declared lost while processing this ACK.
    pub newly_lost: Bytes,
    /// Bytes in flight before this ACK was processed.
    pub prior_in_flight: Bytes,
    /// Bytes in flight after this ACK (acked and lost packets removed).
    pub bytes_in_flight: Bytes,
    /// Whether the sender is in a loss recovery period after this ACK.
    pub in_recovery: bool,
    /// Whether this ACK ended a recovery period.
    pub recovery_exited: bool,
}

/// A packet was declared lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossEvent {
    /// When the loss was detected.
    pub now: Instant,
    /// The lost packet's delivery state from its send time.
    pub packet: DeliveryState,
    /// Bytes in flight after removing the lost packet.
    pub bytes_in_flight: Bytes,
    /// Whether this loss started a new recovery period (a congestion event).
    pub new_congestion_event: bool,
    /// Whether RFC 9002 persistent congestion was established.
    pub persistent_congestion: bool,
}

/// A controller's state, for tracing and plots.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// The state machine's current mode (e.g. "startup", "probe_bw:up", "ca").
    pub mode: &'static str,
    /// The bottleneck bandwidth estimate in use, if the algorithm has one.
    pub bandwidth_estimate: Option<Bandwidth>,
    /// The min-RTT estimate in use, if the algorithm has one.
    pub min_rtt_estimate: Option<Duration>,
    /// Current pacing gain (1.0 for controllers without one).
    pub pacing_gain: f64,
    /// Current cwnd gain (1.0 for controllers without one).
    pub cwnd_gain: f64,
    /// Algorithm-specific fields (e.g. `inflight_hi`, `ssthresh`), in bytes,
    /// bits per second or plain numbers as their names say.
    pub extra: Vec<(&'static str, f64)>,
}

impl Snapshot {
    /// A snapshot with only a mode (gains 1, no estimates).
    pub fn mode(mode: &'static str) -> Self {
        Snapshot {
            mode,
            bandwidth_estimate: None,
            min_rtt_estimate: None,
            pacing_gain: 1.0,
            cwnd_gain: 1.0,
            extra: Vec::new(),
        }
    }
}

/// Where a model-based controller is in its probing cycle: what an
/// application-aware sender needs to know, cheaply, after every send
/// (BBR-Copilot pads only while the pacing gain is above 1; its lsquic
/// implementation also treats ProbeRTT specially).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeState {
    /// The pacing gain in force (1 for controllers without one).
    pub pacing_gain: f64,
    /// Still in the initial search for the bottleneck's rate: in Startup,
    /// or in a ProbeRTT entered from it (which returns to Startup), so not
    /// yet past a full pipe. `None` for controllers that have no Startup.
    pub in_startup: Option<bool>,
    /// In ProbeRTT.
    pub in_probe_rtt: bool,
    /// The bottleneck bandwidth estimate in use, if the algorithm has one.
    pub bandwidth_estimate: Option<Bandwidth>,
}

impl ProbeState {
    /// A controller without gains or modes (CUBIC, Reno).
    pub const NONE: ProbeState = ProbeState {
        pacing_gain: 1.0,
        in_startup: None,
        in_probe_rtt: false,
        bandwidth_estimate: None,
    };
}

/// A congestion controller: consumes transport events, produces a congestion
/// window, a pacing rate and a send quantum.
///
/// Implementations hold no I/O and no clock: every event carries its time.
pub trait CongestionControl: Send + fmt::Debug + DynClone {
    /// The spec string this controller was built from (e.g. `"bbr"`).
    fn spec(&self) -> &str;
    /// A packet was sent.
    fn on_packet_sent(&mut self, event: &SentEvent);
    /// An ACK was processed (after the [`LossEvent`]s it revealed).
    fn on_ack(&mut self, event: &AckEvent);
    /// A packet was declared lost.
    fn on_packet_lost(&mut self, event: &LossEvent);
    /// The congestion window: the most bytes that may be in flight.
    fn cwnd(&self) -> Bytes;
    /// The rate at which to pace packets out.
    fn pacing_rate(&self) -> Bandwidth;
    /// The largest burst the pacer may send at once.
    fn send_quantum(&self) -> Bytes;
    /// The path's maximum datagram size changed (a QUIC stack's path MTU
    /// discovery): packet-denominated quantities (minimum windows, the send
    /// quantum, a window counted in packets) follow it from now on. The
    /// simulator never calls it: its datagram size is fixed per flow.
    fn on_mtu_update(&mut self, max_datagram_size: Bytes);
    /// The controller's state, for tracing.
    fn snapshot(&self) -> Snapshot;
    /// Where the controller is in its probing cycle (no allocation, unlike
    /// [`CongestionControl::snapshot`]); [`ProbeState::NONE`] by default.
    fn probe_state(&self) -> ProbeState {
        ProbeState::NONE
    }
    /// Whether [`CongestionControl::on_packet_sent`] with `event`, called
    /// next, may change what [`CongestionControl::cwnd`],
    /// [`CongestionControl::pacing_rate`], [`CongestionControl::send_quantum`]
    /// or [`CongestionControl::probe_state`] return. A transport that keeps
    /// those outputs between callbacks reads them again after a send only
    /// when this is true: the sender polls after every packet, and reading
    /// all four costs more than a packet's send callback. The default, true,
    /// is always correct; a controller whose send callback usually leaves
    /// them alone says when it does not.
    fn send_may_change_outputs(&self, event: &SentEvent) -> bool {
        let _ = event;
        true
    }
}

dyn_clone::clone_trait_object!(CongestionControl);

/// Pacing for window-based controllers, as the oBBR paper paces its CUBIC
/// baseline and Linux paces every controller (`tcp_update_pacing_rate`):
/// `cwnd / srtt * ratio`, with ratio 2 in slow start and 1.2 otherwise.
pub fn cwnd_pacing_rate(cwnd: Bytes, smoothed_rtt: Duration, in_slow_start: bool) -> Bandwidth {
    let ratio = if in_slow_start { 2.0 } else { 1.2 };
    match cwnd.per(smoothed_rtt) {
        Some(rate) => rate.mul_f64(ratio),
        // No RTT sample yet: do not throttle the initial window.
        None => Bandwidth::MAX,
    }
}

/// Send quantum for window-based controllers: two full datagrams, as the
/// RFC 9002 pacer's suggested burst allowance (§7.7).
pub fn cwnd_send_quantum(max_datagram_size: Bytes) -> Bytes {
    max_datagram_size * 2
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::testing::Pipe;
    use crate::{
        algorithms, AlgorithmSpec, Bandwidth, Bytes, CongestionControl, ControllerConfig, Instant,
        ProbeState, SentEvent,
    };

    /// A clone taken mid-connection is a separate controller in the same
    /// state: driven by the same events it makes the same decisions, and
    /// driving it leaves the original alone.
    #[test]
    fn a_cloned_controller_continues_independently_in_the_same_state() {
        for info in algorithms() {
            let spec = AlgorithmSpec::parse(info.name).unwrap();
            let mut original = spec.build(&ControllerConfig::new(3, Instant::ZERO));
            let mut pipe = Pipe::new(Bandwidth::from_mbps(20), Duration::from_millis(40));
            for _ in 0..300 {
                pipe.step(original.as_mut());
            }
            let mut copy = original.clone();
            let before = (original.cwnd(), original.pacing_rate(), original.snapshot());
            let mut copy_pipe = pipe.clone();
            for _ in 0..200 {
                copy_pipe.step(copy.as_mut());
            }
            assert_eq!(
                (original.cwnd(), original.pacing_rate(), original.snapshot()),
                before,
                "{}: driving the clone changed the original",
                info.name
            );
            for _ in 0..200 {
                pipe.step(original.as_mut());
            }
            assert_eq!(
                (copy.cwnd(), copy.pacing_rate(), copy.snapshot()),
                (original.cwnd(), original.pacing_rate(), original.snapshot()),
                "{}: the clone diverged from the original on the same events",
                info.name
            );
        }
    }

    /// `send_may_change_outputs` is never false for a send that changes
    /// an output: every registered controller, at every ACK of a run long
    /// enough for Startup, ProbeBW and ProbeRTT (the 10 s min_rtt expiry),
    /// is sent (on a copy) packets that are app-limited or not, that
    /// restart from idle or join a flight, and its four outputs compared.
    #[test]
    fn a_send_said_to_keep_the_outputs_keeps_them() {
        fn outputs(cc: &dyn CongestionControl) -> (Bytes, Bandwidth, Bytes, ProbeState) {
            (
                cc.cwnd(),
                cc.pacing_rate(),
                cc.send_quantum(),
                cc.probe_state(),
            )
        }
        for info in algorithms() {
            let spec = AlgorithmSpec::parse(info.name).unwrap();
            let mut cc = spec.build(&ControllerConfig::new(5, Instant::ZERO));
            let mut pipe = Pipe::new(Bandwidth::from_mbps(10), Duration::from_millis(40));
            let (mut said_kept, mut said_moved) = (0, 0);
            pipe.run_until(
                cc.as_mut(),
                Instant::ZERO + Duration::from_secs(12),
                |step, cc| {
                    let in_flight = step.event.bytes_in_flight;
                    for (app_limited, bytes_in_flight) in [
                        (false, in_flight + Bytes(1500)),
                        (true, in_flight + Bytes(1500)),
                        (true, Bytes(1500)),
                        (false, Bytes(1500)),
                    ] {
                        let event = SentEvent {
                            now: step.now,
                            bytes: Bytes(1500),
                            bytes_in_flight,
                            app_limited,
                            is_retransmission: false,
                        };
                        let mut copy = dyn_clone::clone_box(cc);
                        let before = outputs(copy.as_ref());
                        if copy.send_may_change_outputs(&event) {
                            said_moved += 1;
                            continue;
                        }
                        said_kept += 1;
                        copy.on_packet_sent(&event);
                        assert_eq!(
                            outputs(copy.as_ref()),
                            before,
                            "{} at {}: {event:?} changed the outputs",
                            info.name,
                            step.now
                        );
                    }
                },
            );
            assert!(
                said_kept + said_moved > 1000,
                "{}: too short a run",
                info.name
            );
        }
    }

    /// After a datagram-size change the send quantum is whole packets of
    /// the new size; a window-based controller keeps its window in packets.
    #[test]
    fn an_mtu_update_rescales_packet_denominated_quantities() {
        let mut config = ControllerConfig::new(1, Instant::ZERO);
        config.max_datagram_size = Bytes(1200);
        for info in algorithms() {
            let mut cc = AlgorithmSpec::parse(info.name).unwrap().build(&config);
            cc.on_mtu_update(Bytes(1500));
            assert_eq!(
                cc.send_quantum().get() % 1500,
                0,
                "{}: the send quantum {:?} is not whole 1500-byte packets",
                info.name,
                cc.send_quantum()
            );
        }
        let mut reno = AlgorithmSpec::parse("reno").unwrap().build(&config);
        assert_eq!(reno.cwnd(), Bytes(12_000));
        reno.on_mtu_update(Bytes(1500));
        assert_eq!(reno.cwnd(), Bytes(15_000), "ten packets stay ten packets");
    }
}
