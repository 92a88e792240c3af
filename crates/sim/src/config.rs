//! What a simulation run is made of: the link, the flows, the transport's
//! knobs and the run's clock settings. The scenario layer builds these from
//! TOML; tests and benchmarks may build them directly.

use std::time::Duration;

use cc::{AlgorithmSpec, Bytes};

use crate::link::{LinkConfig, RateModel};

/// A whole run.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// The scenario's name (carried into results).
    pub name: String,
    /// Seed for every random process of the run.
    pub seed: u64,
    /// Simulated time limit.
    pub duration: Duration,
    /// Time excluded from summary metrics at the start.
    pub warmup: Duration,
    /// Period of the time-series recorder.
    pub sample_interval: Duration,
    /// The bottleneck.
    pub link: LinkConfig,
    /// The flows; `FlowConfig::count` copies of each.
    pub flows: Vec<FlowConfig>,
    /// Transport settings shared by every flow.
    pub transport: TransportConfig,
    /// Stop as soon as every sized flow has completed (and no flow is unlimited).
    pub stop_when_done: bool,
    /// The capacity of the ACK path (the uplink), if it is limited. ACKs
    /// then queue there (never dropped, FIFO across flows) before their
    /// return delay; `None` is an unlimited ACK path.
    pub uplink: Option<RateModel>,
    /// ACKs wait behind the bottleneck's data queue before their return
    /// delay, as on a testbed whose tc qdisc on loopback shapes both
    /// directions (the oBBR authors' scripts): an ACK leaves once the data
    /// queued when it was sent has left, at the link's rate. The ACK itself
    /// takes no capacity and is never dropped. Exclusive with `uplink`.
    pub acks_share_queue: bool,
    /// Keep the time series ([`crate::RunResult::series`]). Without it a
    /// run's memory does not grow with simulated time: the summary needs
    /// only fixed-size histograms and counters (the samples still feed the
    /// mean cwnd, and are then dropped).
    pub record_series: bool,
}

/// BBR-Copilot (Yan et al., "When BBR Meets Live Streaming"): pad the probes a live stream cannot fill.
///
/// With it, a sender whose application has nothing to send while the
/// controller's pacing gain is above 1 sends full-size padding packets, as
/// far as cwnd and the pacer allow (see `Sender::poll_send`). Padding is
/// acknowledged and counted in flight and in rate samples, never resent
/// and never delivered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CopilotConfig {
    /// The authors' lsquic code (not the paper) also marks packets sent in
    /// ProbeRTT as app-limited until one sent after ProbeRTT is acked. Off
    /// by default: the paper's rule is the specification.
    pub probe_rtt_app_limited: bool,
}

/// One flow (or `count` identical flows).
#[derive(Clone, Debug)]
pub struct FlowConfig {
    /// The congestion controller.
    pub cc: AlgorithmSpec,
    /// When the flow starts.
    pub start: Duration,
    /// Bytes to transfer; `None` = unlimited bulk.
    pub size: Option<Bytes>,
    /// Base (propagation) round-trip time of this flow.
    pub rtt: Duration,
    /// Extra one-way delay on this flow's ACK path.
    pub ack_delay: Duration,
    /// How many identical flows this entry stands for.
    pub count: u32,
    /// What the flow carries (bulk by default).
    pub app: crate::app::Application,
    /// BBR-Copilot padding, if on.
    pub copilot: Option<CopilotConfig>,
    /// The Linux kernel's TCP congestion control of this name (a scenario's
    /// `cc = "linux:NAME"`), when the flow is a kernel TCP transfer rather
    /// than one of the project's controllers. Such a flow runs only in an
    /// emulated run (the real kernel through the emulated link); the
    /// simulator refuses it. `cc` then holds the project's model of the
    /// same name where one exists (`bbr`, `cubic`, `reno`), which the flow
    /// would be if simulated, and Linux's default `cubic` for any other
    /// name, only as a placeholder: nothing runs it.
    pub kernel: Option<String>,
}

impl FlowConfig {
    /// Whether the flow ends by itself: a sized transfer, or a DASH session
    /// (complete when its last segment is). Unlimited bulk flows and live
    /// streams run until the end of the run.
    pub fn ends_by_itself(&self) -> bool {
        self.size.is_some() || matches!(self.app, crate::app::Application::Dash(_))
    }

    /// The label of the flow's controller in results: `linux:NAME` for a
    /// kernel TCP flow, else the controller's spec.
    pub fn cc_label(&self) -> String {
        match &self.kernel {
            Some(name) => format!("linux:{name}"),
            None => self.cc.to_string(),
        }
    }
}

/// When the receiver sends ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckPolicy {
    /// RFC 9000 default: every 2nd ack-eliciting packet, or after `max_ack_delay`.
    EverySecond,
    /// Every packet is acknowledged at once.
    EveryPacket,
    /// Every n-th ack-eliciting packet, or after `max_ack_delay`: ACK
    /// decimation, as Chromium's QUIC client does once a transfer is under
    /// way (every 10 packets or a quarter of the min RTT).
    EveryNth(u32),
}

/// Transport settings (RFC 9002 constants are fixed; these are the knobs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransportConfig {
    /// Datagram size on the wire, headers included.
    pub max_datagram_size: Bytes,
    /// Stream payload carried by a full datagram (the rest is header overhead).
    pub max_payload: Bytes,
    /// Initial congestion window in packets.
    pub initial_window_packets: u64,
    /// Receiver ACK policy.
    pub ack_policy: AckPolicy,
    /// The receiver's max_ack_delay.
    pub max_ack_delay: Duration,
    /// The pacer's timer: zero paces packet by packet at the controller's
    /// rate (Linux fq's earliest departure times). A user-space stack's
    /// timer-driven pacer (nginx-quic's and xquic's: 3 ms) sleeps at least
    /// this long once its budget runs out and may then release up to two
    /// timer periods of data, at least ten datagrams, back to back.
    pub pacing_timer: Duration,
    /// A pacer that grants one datagram on every ACK whatever its budget
    /// (the oBBR authors' nginx-quic tops its budget up by the packet it
    /// last refused on every output run, and output runs once per ACK):
    /// the sender then outruns its pacing rate by a datagram per ACK.
    pub pacer_ack_credit: bool,
    /// The receiver's flow-control window, stream bytes: the sender never
    /// sends new data more than this beyond the receiver's in-order point
    /// as its latest ACK told it (QUIC's MAX_STREAM_DATA; a TCP receiver's
    /// advertised window, which Linux caps at half of `tcp_rmem`'s maximum).
    /// `None`, the default, is an unlimited receiver: then only cwnd
    /// bounds what is in flight.
    pub receive_window: Option<Bytes>,
}

impl Default for TransportConfig {
    fn default() -> Self {
        TransportConfig {
            // 1500-byte datagrams carrying 1448 bytes of payload, like a TCP
            // segment with timestamps, so goodput compares with TCP testbeds.
            max_datagram_size: Bytes(1500),
            max_payload: Bytes(1448),
            initial_window_packets: 10,
            ack_policy: AckPolicy::EverySecond,
            max_ack_delay: Duration::from_millis(25),
            pacing_timer: Duration::ZERO,
            pacer_ack_credit: false,
            receive_window: None,
        }
    }
}
