//! The sending side of a connection: RFC 9002 loss recovery around a
//! [`CongestionControl`] and its delivery-rate estimator.

use std::collections::VecDeque;
use std::time::Duration;

use cc::{
    AckEvent, Bandwidth, Bytes, CongestionControl, DeliveryRateEstimator, DeliveryState, Instant,
    LossEvent, ProbeState, RateSample, SentEvent,
};

use super::receiver::AckFrame;
use super::rtt::RttEstimator;
use super::stream::{Chunk, SendStream};
use crate::config::{CopilotConfig, TransportConfig};
use crate::link::LinkPacket;
use crate::offset::Offset;
use crate::qlog::{Metrics, QlogSink, QlogWriter};
use cc::Pacer;

/// RFC 9002 kPacketThreshold.
const PACKET_THRESHOLD: u64 = 3;
/// RFC 9002 kPersistentCongestionThreshold.
const PERSISTENT_CONGESTION_THRESHOLD: u32 = 3;
/// Probe packets sent when a PTO fires.
const PTO_PROBES: u32 = 2;

/// A data packet on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataPacket {
    /// The flow it belongs to.
    pub flow: usize,
    /// Packet number.
    pub pn: u64,
    /// Size on the wire.
    pub size: Bytes,
    /// The stream data it carries.
    pub chunk: Chunk,
    /// When it was sent (and entered the bottleneck).
    pub sent_time: Instant,
}

impl LinkPacket for DataPacket {
    fn size(&self) -> Bytes {
        self.size
    }
}

/// What a packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Stream data sent for the first time.
    New,
    /// Stream data sent again (after a loss, or as a PTO probe).
    Resend,
    /// BBR-Copilot padding: no stream data.
    Padding,
}

/// The (empty) stream range a padding packet carries: the receiver
/// acknowledges it and delivers nothing.
const PADDING: Chunk = Chunk { offset: 0, len: 0 };

/// A packet the sender is still tracking.
#[derive(Clone, Copy, Debug)]
struct SentPacket {
    state: DeliveryState,
    chunk: Chunk,
    /// BBR-Copilot padding: acknowledged like data, never resent.
    padding: bool,
    /// What the controller was doing when the packet left.
    phase: SendPhase,
}

/// The controller's phase when a packet was sent, to tell where losses
/// come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SendPhase {
    /// Startup (or a ProbeRTT taken from it).
    Startup,
    /// Outside Startup, pacing gain above 1.
    Probing,
    /// Anything else.
    Other,
}

/// What the controller tells the sender, read at most once between two
/// callbacks that can change it (a controller's state moves only in its
/// `on_*` methods): the sender consults these several times per packet,
/// through the trait object each read is an indirect call, and the phase
/// tag of every packet sent needs the probe state.
#[derive(Clone, Copy, Debug)]
struct Outputs {
    cwnd: Bytes,
    pacing_rate: Bandwidth,
    send_quantum: Bytes,
    /// The pacer's bucket depth for this quantum and rate under the
    /// transport's pacing timer ([`Pacer::depth`]): derived with the
    /// outputs, not again at each of the 2.4 polls per packet.
    pacer_depth: Bytes,
    probe: ProbeState,
}

impl Outputs {
    fn of(cc: &dyn CongestionControl, config: &TransportConfig) -> Outputs {
        let pacing_rate = cc.pacing_rate();
        let send_quantum = cc.send_quantum();
        Outputs {
            cwnd: cc.cwnd(),
            pacing_rate,
            send_quantum,
            pacer_depth: Pacer::depth(
                send_quantum,
                pacing_rate,
                config.pacing_timer,
                config.max_datagram_size,
            ),
            probe: cc.probe_state(),
        }
    }
}

/// Counters of a sender, cumulative since the connection started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Packets sent, probes and resends included.
    pub packets_sent: u64,
    /// Bytes sent on the wire.
    pub bytes_sent: u64,
    /// Stream bytes sent again (after a loss or as a PTO probe).
    pub bytes_retransmitted: u64,
    /// Packets declared lost.
    pub packets_lost: u64,
    /// Wire bytes declared lost.
    pub bytes_lost: u64,
    /// Congestion events (recovery periods entered).
    pub congestion_events: u64,
    /// PTOs that fired.
    pub ptos: u64,
    /// Times persistent congestion was declared.
    pub persistent_congestions: u64,
    /// BBR-Copilot padding packets sent (included in `packets_sent`).
    pub padding_packets: u64,
    /// Wire bytes of padding sent (included in `bytes_sent`; never goodput).
    pub padding_bytes: u64,
    /// Wire bytes of padding declared lost (included in `bytes_lost`;
    /// never resent).
    pub padding_lost: u64,
    /// Wire bytes of stream data (not padding) declared lost that were
    /// sent in Startup.
    pub lost_sent_in_startup: u64,
    /// Wire bytes of stream data (not padding) declared lost that were
    /// sent outside Startup while the pacing gain was above 1 (ProbeBW's
    /// probing phase).
    pub lost_sent_probing: u64,
}

/// What [`Sender::poll_send`] decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendOutcome {
    /// This packet leaves now.
    Sent(DataPacket),
    /// The pacer allows the next packet at this time.
    WaitUntil(Instant),
    /// Nothing can be sent until an ACK or a timer: cwnd is full or there is no data.
    Blocked,
}

/// The sending half of a connection.
#[derive(Debug)]
pub struct Sender {
    flow: usize,
    config: TransportConfig,
    cc: Box<dyn CongestionControl>,
    /// `cc`'s outputs since its latest callback, once read.
    out: Option<Outputs>,
    estimator: DeliveryRateEstimator,
    rtt: RttEstimator,
    /// `rtt.pto(config.max_ack_delay)`, kept with `rtt`: the loss timer is
    /// re-armed after every send and ACK.
    pto: Duration,
    /// `pto` backed off by `pto_count` (doubled per PTO, at most 2^16 times),
    /// kept with both for the same reason, in nanoseconds: it is added to
    /// the latest send's instant at each re-arm.
    backed_off_pto: Offset,
    stream: SendStream,
    /// Packets from `base_pn` on; `None` once acked or declared lost.
    sent: VecDeque<Option<SentPacket>>,
    base_pn: u64,
    next_pn: u64,
    bytes_in_flight: Bytes,
    largest_acked: Option<u64>,
    loss_time: Option<Instant>,
    last_ack_eliciting: Option<Instant>,
    pto_count: u32,
    probes_pending: u32,
    recovery_start: Option<Instant>,
    in_recovery: bool,
    first_rtt_sample: Option<Instant>,
    pacer: Pacer,
    stats: SenderStats,
    /// The latest ACK as the controller was told it; its rate sample is
    /// [`Sender::last_rate_sample`]. Built here rather than on the stack
    /// beside a kept copy of the sample: the sample is written once.
    last_ack: AckEvent,
    copilot: Option<CopilotConfig>,
    /// The receiver's flow-control limit as its latest ACK gave it: new
    /// data may not pass this stream offset.
    max_stream_data: u64,
    qlog: Option<QlogWriter<QlogSink>>,
}

fn elapsed(now: Instant) -> Duration {
    Duration::from_nanos(now.as_nanos())
}

/// Traces a packet sent. Out of line: inlined into the simulator's send
/// loop, the conversion of `now` to a `Duration` (a division) was hoisted
/// out of the qlog test and paid at every pump, traced or not.
#[cold]
#[inline(never)]
fn trace_sent(q: &mut QlogWriter<QlogSink>, now: Instant, pn: u64, size: Bytes) {
    q.packet_sent(elapsed(now), pn, size.get());
}

impl Sender {
    /// A sender of `size` bytes (or unlimited) driven by `cc`.
    pub fn new(
        flow: usize,
        now: Instant,
        config: TransportConfig,
        cc: Box<dyn CongestionControl>,
        size: Option<Bytes>,
    ) -> Self {
        let out = Outputs::of(cc.as_ref(), &config);
        let quantum = out.send_quantum;
        let out = Some(out);
        let max_stream_data = config.receive_window.map_or(u64::MAX, Bytes::get);
        Sender {
            flow,
            config,
            cc,
            out,
            estimator: DeliveryRateEstimator::new(),
            rtt: RttEstimator::default(),
            pto: RttEstimator::default().pto(config.max_ack_delay),
            backed_off_pto: Offset::new(RttEstimator::default().pto(config.max_ack_delay)),
            stream: SendStream::new(size.map(Bytes::get)),
            sent: VecDeque::new(),
            base_pn: 0,
            next_pn: 0,
            bytes_in_flight: Bytes::ZERO,
            largest_acked: None,
            loss_time: None,
            last_ack_eliciting: None,
            pto_count: 0,
            probes_pending: 0,
            recovery_start: None,
            in_recovery: false,
            first_rtt_sample: None,
            pacer: Pacer::new(now, quantum),
            stats: SenderStats::default(),
            last_ack: AckEvent {
                now,
                rate: RateSample::default(),
                rtt: RttEstimator::default().estimate(None),
                newly_acked: Bytes::ZERO,
                newly_lost: Bytes::ZERO,
                prior_in_flight: Bytes::ZERO,
                bytes_in_flight: Bytes::ZERO,
                in_recovery: false,
                recovery_exited: false,
            },
            copilot: None,
            qlog: None,
            max_stream_data,
        }
    }

    /// Traces the connection to `qlog` (it changes nothing the sender does).
    pub fn with_qlog(mut self, qlog: QlogWriter<QlogSink>) -> Self {
        self.qlog = Some(qlog);
        self
    }

    /// Ends the trace, returning its first write error if any.
    pub fn finish_qlog(&mut self) -> std::io::Result<()> {
        match self.qlog.take() {
            Some(q) => q.finish().map(drop),
            None => Ok(()),
        }
    }

    /// Makes the stream one the application writes into ([`Sender::write`]),
    /// as a live video source does, instead of a bulk transfer.
    pub fn with_application_stream(mut self) -> Self {
        self.stream = SendStream::written_by_application();
        self
    }

    /// Turns on BBR-Copilot padding (see [`Sender::poll_send`]).
    pub fn with_copilot(mut self, copilot: CopilotConfig) -> Self {
        self.copilot = Some(copilot);
        self
    }

    /// The application hands over `bytes` more to send.
    pub fn write(&mut self, bytes: u64) {
        self.stream.write(bytes);
    }

    /// The application takes back what it wrote and the sender has not
    /// sent once yet (an abandoned DASH request); returns where the
    /// stream's written bytes now end.
    pub fn cancel_unsent(&mut self) -> u64 {
        self.stream.cancel_unsent()
    }

    /// The congestion controller.
    pub fn controller(&self) -> &dyn CongestionControl {
        self.cc.as_ref()
    }
    /// The controller's probing state (as `controller().probe_state()`,
    /// without the call).
    pub fn probe_state(&self) -> ProbeState {
        self.out.map_or_else(|| self.cc.probe_state(), |o| o.probe)
    }

    fn outputs(&mut self) -> Outputs {
        *self
            .out
            .get_or_insert_with(|| Outputs::of(self.cc.as_ref(), &self.config))
    }
    /// Bytes in flight.
    pub fn bytes_in_flight(&self) -> Bytes {
        self.bytes_in_flight
    }
    /// The RTT estimator.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// Cumulative counters.
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
    /// The most recent rate sample.
    pub fn last_rate_sample(&self) -> &RateSample {
        &self.last_ack.rate
    }
    /// Whether the sender is in a recovery period.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// Decides whether a packet leaves now.
    ///
    /// With BBR-Copilot (§3.3-3.4): when the application has
    /// nothing to send, the controller's pacing gain is above 1 and cwnd and
    /// the pacer allow a packet, one full-size padding packet leaves instead,
    /// and the sender is not marked app-limited: the probe the gain asks for
    /// happens even when the application cannot fill it. Called again after
    /// every send (and at every pacer wake-up), this fills the probe.
    // Inlined into the simulator's send loop, its one caller there: as a
    // call, 2.4 times per packet, it cost about 2% more instructions.
    #[inline]
    pub fn poll_send(&mut self, now: Instant) -> SendOutcome {
        let probing = self.probes_pending > 0;
        let payload_room = self.config.max_payload.get() as u32;
        let overhead = self.config.max_datagram_size - self.config.max_payload;
        let full = self.config.max_datagram_size;
        if !probing {
            // Held back by the receiver's window, the sender is neither
            // app-limited nor cwnd-limited: it waits for an ACK to move
            // the limit (Linux does not mark rwnd-limited time app-limited).
            if self.stream.blocked_by_flow_control(self.max_stream_data) {
                return SendOutcome::Blocked;
            }
            let has_data = self.stream.has_data();
            let out = self.outputs();
            let pads = !has_data && self.copilot.is_some() && out.probe.pacing_gain > 1.0;
            let room = self.bytes_in_flight + full <= out.cwnd;
            if !has_data && !pads {
                if room {
                    self.estimator.on_app_limited(self.bytes_in_flight);
                }
                return SendOutcome::Blocked;
            }
            if !room {
                return SendOutcome::Blocked;
            }
            let timer = self.config.pacing_timer;
            let at = self
                .pacer
                .earliest_send(now, full, out.pacing_rate, out.pacer_depth, timer);
            if at > now {
                return SendOutcome::WaitUntil(at);
            }
            if pads {
                return SendOutcome::Sent(self.send_packet(now, PADDING, full, Kind::Padding));
            }
        }
        let (chunk, is_resend) = match self.stream.next_chunk(payload_room, self.max_stream_data) {
            Some(c) => c,
            // A probe with nothing new to say repeats the oldest data in flight.
            None => match self.sent.iter().flatten().find(|p| !p.padding) {
                Some(p) => (p.chunk, true),
                None => {
                    self.probes_pending = 0;
                    return SendOutcome::Blocked;
                }
            },
        };
        if probing {
            self.probes_pending -= 1;
        }
        let size = Bytes(chunk.len as u64) + overhead;
        let kind = if is_resend { Kind::Resend } else { Kind::New };
        let packet = self.send_packet(now, chunk, size, kind);
        SendOutcome::Sent(packet)
    }

    // Always inlined into the poll (itself inlined into the simulator's
    // send loop): as a call, once per packet, its register saves, the
    // arguments and the packet returned through memory cost about 35-47
    // instructions per packet.
    #[inline(always)]
    fn send_packet(&mut self, now: Instant, chunk: Chunk, size: Bytes, kind: Kind) -> DataPacket {
        let is_resend = kind == Kind::Resend;
        let padding = kind == Kind::Padding;
        let probe = self.outputs().probe;
        if self
            .copilot
            .is_some_and(|c| c.probe_rtt_app_limited && probe.in_probe_rtt)
        {
            // lsquic's Copilot: ProbeRTT's deliberately small inflight must
            // not pass for the path's rate, so its samples are app-limited
            // until a packet sent after ProbeRTT is acknowledged.
            self.estimator.on_app_limited(self.bytes_in_flight);
        }
        let app_limited = self.estimator.is_app_limited();
        let phase = if probe.in_startup == Some(true) {
            SendPhase::Startup
        } else if probe.pacing_gain > 1.0 {
            SendPhase::Probing
        } else {
            SendPhase::Other
        };
        let state = self
            .estimator
            .on_packet_sent(now, self.bytes_in_flight, size);
        let pn = self.next_pn;
        self.next_pn += 1;
        self.sent.push_back(Some(SentPacket {
            state,
            chunk,
            padding,
            phase,
        }));
        self.bytes_in_flight += size;
        self.last_ack_eliciting = Some(now);
        self.pacer.on_send(size);
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += size.get();
        if is_resend {
            self.stats.bytes_retransmitted += chunk.len as u64;
        }
        if padding {
            self.stats.padding_packets += 1;
            self.stats.padding_bytes += size.get();
        }
        let sent = SentEvent {
            now,
            bytes: size,
            bytes_in_flight: self.bytes_in_flight,
            app_limited,
            is_retransmission: is_resend,
        };
        // The next poll needs the outputs; most sends leave them alone.
        if self.cc.send_may_change_outputs(&sent) {
            self.out = None;
        }
        self.cc.on_packet_sent(&sent);
        if let Some(q) = self.qlog.as_mut() {
            trace_sent(q, now, pn, size);
        }
        DataPacket {
            flow: self.flow,
            pn,
            size,
            chunk,
            sent_time: now,
        }
    }

    /// Drops the holes (packets acked or declared lost) at the front of
    /// the ring. Whatever leaves a hole trims after it, so between two
    /// calls of the sender the ring starts with a packet in flight.
    fn trim_front(&mut self) {
        while let Some(None) = self.sent.front() {
            self.sent.pop_front();
            self.base_pn += 1;
        }
    }

    /// Processes an ACK frame (RFC 9002 `OnAckReceived`). Returns whether it
    /// acknowledged anything new, i.e. produced a new rate sample
    /// ([`Sender::last_rate_sample`]).
    pub fn on_ack(&mut self, now: Instant, frame: &AckFrame) -> bool {
        if frame.largest >= self.next_pn {
            // An ACK for a packet never sent: a peer bug; ignore the frame.
            return false;
        }
        // ACKs are never reordered in the model, but a limit only grows.
        self.max_stream_data = self.max_stream_data.max(frame.max_stream_data);
        if self.config.pacer_ack_credit {
            self.pacer.grant(self.config.max_datagram_size);
        }
        self.largest_acked = Some(
            self.largest_acked
                .map_or(frame.largest, |l| l.max(frame.largest)),
        );
        let prior_in_flight = self.bytes_in_flight;
        let mut newly_acked = Bytes::ZERO;
        let mut largest_newly_acked: Option<(u64, Instant)> = None;
        let mut holes = false;
        for &pn in &frame.newly_received {
            let Some(idx) = pn.checked_sub(self.base_pn) else {
                continue;
            };
            let idx = idx as usize;
            // Read in place: a copy of the whole tracked packet cost more
            // than the few fields read.
            let Some(Some(packet)) = self.sent.get(idx) else {
                continue;
            };
            let state = &packet.state;
            newly_acked += state.size;
            self.bytes_in_flight -= state.size;
            self.estimator.on_packet_acked(now, state);
            if largest_newly_acked.is_none_or(|(l, _)| pn > l) {
                largest_newly_acked = Some((pn, state.sent_time));
            }
            // Acknowledged in order, the packet is the ring's oldest: taken
            // off at once rather than left as a hole for `trim_front`.
            if idx == 0 {
                self.sent.pop_front();
                self.base_pn += 1;
            } else {
                self.sent[idx] = None;
                holes = true;
            }
        }
        let Some((largest_pn, largest_sent)) = largest_newly_acked else {
            return false;
        };
        let mut rtt_sample = None;
        if largest_pn == frame.largest {
            let latest = now - largest_sent;
            let ack_delay = frame.ack_delay.min(self.config.max_ack_delay);
            self.rtt.update(latest, ack_delay);
            self.pto = self.rtt.pto(self.config.max_ack_delay);
            self.first_rtt_sample.get_or_insert(now);
            rtt_sample = Some(latest);
        }
        // A packet acknowledged out of order left a hole that may now
        // lead the ring: dropped before loss detection, which then does
        // not walk it (in order, nothing is left to drop).
        if holes {
            self.trim_front();
        }
        let newly_lost = self.detect_lost(now);
        let min_rtt = self.rtt.has_sample().then(|| self.rtt.min());
        let rate = self.estimator.generate_sample(now, min_rtt);
        let was_in_recovery = self.in_recovery;
        self.in_recovery = self
            .recovery_start
            .is_some_and(|start| largest_sent <= start);
        self.last_ack = AckEvent {
            now,
            rate,
            rtt: self.rtt.estimate(rtt_sample),
            newly_acked,
            newly_lost,
            prior_in_flight,
            bytes_in_flight: self.bytes_in_flight,
            in_recovery: self.in_recovery,
            recovery_exited: was_in_recovery && !self.in_recovery,
        };
        self.cc.on_ack(&self.last_ack);
        // Read now: the simulator reads the probe state after every ACK,
        // and the sends that follow need the rest.
        self.out = Some(Outputs::of(self.cc.as_ref(), &self.config));
        if let Some(q) = self.qlog.as_mut() {
            let t = elapsed(now);
            q.ack_received(t, &crate::qlog::ranges(&frame.newly_received));
            let pacing = self.cc.pacing_rate();
            q.metrics_updated(
                t,
                &Metrics {
                    congestion_window: self.cc.cwnd().get(),
                    bytes_in_flight: self.bytes_in_flight.get(),
                    min_rtt: self.rtt.min(),
                    smoothed_rtt: self.rtt.smoothed(),
                    latest_rtt: self.rtt.latest(),
                    pacing_rate_bps: (pacing != Bandwidth::MAX).then(|| pacing.as_bps_f64()),
                },
            );
            q.mode(t, self.cc.snapshot().mode);
        }
        self.pto_count = 0;
        self.backed_off_pto = Offset::new(self.pto);
        true
    }

    /// Declares lost every tracked packet below the largest acked that is
    /// 3 packets or 9/8 RTT behind it; arms `loss_time` for the others.
    /// Returns the bytes declared lost.
    // Always inlined into the ACK, whose usual case returns at once (as a
    // call its register saves cost about 17 instructions per ACK); the
    // walk itself stays a call.
    #[inline(always)]
    fn detect_lost(&mut self, now: Instant) -> Bytes {
        self.loss_time = None;
        let Some(largest) = self.largest_acked else {
            return Bytes::ZERO;
        };
        // Packets up to the largest acknowledged: none if the tracked
        // ones all lie beyond it (after an ACK in order, the usual case).
        let end = largest
            .checked_sub(self.base_pn)
            .map_or(0, |below| below.saturating_add(1))
            .min(self.sent.len() as u64) as usize;
        if end == 0 {
            return Bytes::ZERO;
        }
        self.detect_lost_below(now, largest, end)
    }

    /// [`Sender::detect_lost`] over the first `end` tracked packets, which
    /// lie at or below `largest`, the largest acknowledged.
    #[inline(never)]
    fn detect_lost_below(&mut self, now: Instant, largest: u64, end: usize) -> Bytes {
        let loss_delay = self.rtt.loss_delay();
        // Nothing can be a loss_delay old before loss_delay has passed
        // (a saturating subtraction would make t=0 packets look old).
        let lost_send_time = now
            .as_nanos()
            .checked_sub(loss_delay.as_nanos() as u64)
            .map(Instant::from_nanos);
        let mut lost: Vec<(u64, SentPacket)> = Vec::new();
        for idx in 0..end {
            let pn = self.base_pn + idx as u64;
            let Some(packet) = self.sent[idx] else {
                continue;
            };
            if pn + PACKET_THRESHOLD <= largest
                || lost_send_time.is_some_and(|t| packet.state.sent_time <= t)
            {
                self.sent[idx] = None;
                lost.push((pn, packet));
            } else {
                let at = packet.state.sent_time + loss_delay;
                self.loss_time = Some(self.loss_time.map_or(at, |t| t.min(at)));
            }
        }
        let bytes = self.on_packets_lost(now, &lost);
        self.trim_front();
        bytes
    }

    fn on_packets_lost(&mut self, now: Instant, lost: &[(u64, SentPacket)]) -> Bytes {
        let mut total = Bytes::ZERO;
        let persistent = self.is_persistent_congestion(lost);
        for (i, (pn, packet)) in lost.iter().enumerate() {
            if let Some(q) = self.qlog.as_mut() {
                q.packet_lost(elapsed(now), *pn);
            }
            let size = packet.state.size;
            total += size;
            self.bytes_in_flight -= size;
            self.estimator.on_packet_lost(size);
            self.stream.resend(packet.chunk);
            self.stats.packets_lost += 1;
            self.stats.bytes_lost += size.get();
            if packet.padding {
                self.stats.padding_lost += size.get();
            }
            match packet.phase {
                _ if packet.padding => {}
                SendPhase::Startup => self.stats.lost_sent_in_startup += size.get(),
                SendPhase::Probing => self.stats.lost_sent_probing += size.get(),
                SendPhase::Other => {}
            }
            // A loss of a packet sent after the current recovery began starts a new one.
            let new_event = self
                .recovery_start
                .is_none_or(|start| packet.state.sent_time > start);
            if new_event {
                self.recovery_start = Some(now);
                self.in_recovery = true;
                self.stats.congestion_events += 1;
            }
            let persistent_now = persistent && i + 1 == lost.len();
            if persistent_now {
                self.stats.persistent_congestions += 1;
            }
            self.cc.on_packet_lost(&LossEvent {
                now,
                packet: packet.state,
                bytes_in_flight: self.bytes_in_flight,
                new_congestion_event: new_event,
                persistent_congestion: persistent_now,
            });
        }
        if !lost.is_empty() {
            self.out = None;
        }
        total
    }

    /// RFC 9002 §7.6: every packet over more than 3 PTOs lost, none acked
    /// in between, all sent after the first RTT sample.
    fn is_persistent_congestion(&self, lost: &[(u64, SentPacket)]) -> bool {
        let (Some((first_pn, first)), Some((last_pn, last))) = (lost.first(), lost.last()) else {
            return false;
        };
        let Some(first_sample) = self.first_rtt_sample else {
            return false;
        };
        if first.state.sent_time <= first_sample {
            return false;
        }
        let contiguous = (last_pn - first_pn + 1) as usize == lost.len();
        let period = (self.rtt.pto(self.config.max_ack_delay)) * PERSISTENT_CONGESTION_THRESHOLD;
        contiguous && last.state.sent_time - first.state.sent_time > period
    }

    /// When the loss-detection timer should fire (RFC 9002 `SetLossDetectionTimer`).
    pub fn loss_timer(&self) -> Option<Instant> {
        if let Some(t) = self.loss_time {
            return Some(t);
        }
        if self.bytes_in_flight == Bytes::ZERO {
            return None;
        }
        self.last_ack_eliciting
            .map(|t| self.backed_off_pto.after(t))
    }

    /// The loss-detection timer fired.
    pub fn on_loss_timer(&mut self, now: Instant) {
        if self.loss_time.is_some() {
            self.detect_lost(now);
            return;
        }
        // PTO: probe with new data (or a repeat) regardless of cwnd.
        self.stats.ptos += 1;
        self.pto_count += 1;
        self.backed_off_pto = Offset::new(self.pto * 2u32.saturating_pow(self.pto_count.min(16)));
        self.probes_pending = PTO_PROBES;
    }

    /// Whether every byte of a sized transfer has been acknowledged.
    pub fn is_done(&self) -> bool {
        self.stream.all_sent_once()
            && !self.stream.has_data()
            && self.bytes_in_flight == Bytes::ZERO
    }

    /// The controller's pacing rate.
    pub fn pacing_rate(&self) -> Bandwidth {
        self.out
            .map_or_else(|| self.cc.pacing_rate(), |o| o.pacing_rate)
    }

    /// How long since the last ack-eliciting packet (for idle detection).
    pub fn idle_for(&self, now: Instant) -> Option<Duration> {
        self.last_ack_eliciting.map(|t| now - t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cc::{AlgorithmSpec, ControllerConfig};

    fn ms(v: u64) -> Instant {
        Instant::from_nanos(v * 1_000_000)
    }

    fn sender() -> Sender {
        let cc = AlgorithmSpec::parse("reno")
            .unwrap()
            .build(&ControllerConfig::new(1, Instant::ZERO));
        Sender::new(0, Instant::ZERO, TransportConfig::default(), cc, None)
    }

    /// Sends `n` packets from `now` on, waiting for the pacer when it asks,
    /// and returns their numbers.
    fn send(s: &mut Sender, now: Instant, n: usize) -> Vec<u64> {
        let mut now = now;
        let mut pns = Vec::new();
        while pns.len() < n {
            match s.poll_send(now) {
                SendOutcome::Sent(p) => pns.push(p.pn),
                SendOutcome::WaitUntil(t) => now = t,
                SendOutcome::Blocked => panic!("cwnd full after {} packets", pns.len()),
            }
        }
        pns
    }

    fn ack(pns: &[u64]) -> AckFrame {
        AckFrame {
            largest: *pns.iter().max().unwrap(),
            ack_delay: Duration::ZERO,
            newly_received: pns.to_vec(),
            max_stream_data: u64::MAX,
        }
    }

    /// A sender that sent `n` packets at 0 ms and got an ACK of `acked`
    /// at 100 ms.
    fn acked_at_100ms(n: usize, acked: &[u64]) -> Sender {
        let mut s = sender();
        send(&mut s, ms(0), n);
        s.on_ack(ms(100), &ack(acked));
        s
    }

    #[test]
    fn packet_threshold_declares_loss_three_behind() {
        let mut s = acked_at_100ms(6, &[4]);
        // 0 and 1 are >= 3 behind 4; 2 and 3 wait for the time threshold.
        assert_eq!(s.stats().packets_lost, 2);
        assert!(s.in_recovery());
        let timer = s.loss_timer().expect("time threshold armed");
        assert_eq!(
            timer,
            ms(0) + Duration::from_micros(112_500),
            "9/8 x 100 ms after the send"
        );
        s.on_loss_timer(timer);
        assert_eq!(s.stats().packets_lost, 4);
        assert_eq!(
            s.stats().congestion_events,
            1,
            "one recovery period for the whole burst"
        );
        assert_eq!(
            s.bytes_in_flight(),
            Bytes(1500),
            "only packet 5 still in flight"
        );
    }

    #[test]
    fn packets_beyond_the_largest_acked_are_not_judged() {
        // 0 acknowledged first: 1 and 2 are above it, neither lost nor
        // timed by the loss threshold; the PTO is armed.
        let s = acked_at_100ms(3, &[0]);
        assert_eq!(s.stats().packets_lost, 0);
        assert_eq!(
            s.loss_timer(),
            Some(s.last_ack_eliciting.unwrap() + s.rtt.pto(s.config.max_ack_delay))
        );
    }

    /// The ring starts with a packet in flight between two calls, however
    /// the packets ahead of it left (loss detection relies on it to skip
    /// its walk).
    fn assert_front_in_flight(s: &Sender) {
        assert!(
            matches!(s.sent.front(), None | Some(Some(_))),
            "a hole leads the ring at {}",
            s.base_pn
        );
    }

    #[test]
    fn holes_at_the_front_are_dropped_by_whatever_leaves_them() {
        let mut s = sender();
        send(&mut s, ms(0), 8);
        // Out of order: 1 leaves a hole, then 0 leaves the front.
        s.on_ack(ms(100), &ack(&[1, 0]));
        assert_eq!(s.base_pn, 2);
        assert_front_in_flight(&s);
        // In order, acknowledged in place.
        s.on_ack(ms(101), &ack(&[2]));
        assert_eq!(s.base_pn, 3);
        // 3 and 4 lost behind 7 (3 packets), 5 and 6 by the timer.
        s.on_ack(ms(102), &ack(&[7]));
        assert_eq!(s.base_pn, 5);
        assert_front_in_flight(&s);
        let timer = s.loss_timer().expect("time threshold armed");
        s.on_loss_timer(timer);
        assert_eq!(s.stats().packets_lost, 4);
        assert!(s.sent.is_empty(), "every packet acked or lost");
        assert_eq!(s.base_pn, 8);
    }

    #[test]
    fn lost_data_is_resent_in_new_packets() {
        let mut s = sender();
        let sent = send(&mut s, ms(0), 5);
        s.on_ack(ms(100), &ack(&[3, 4]));
        assert_eq!(s.stats().packets_lost, 2);
        // The next packets carry the lost chunks under new packet numbers.
        let resent = send(&mut s, ms(100), 2);
        assert!(resent.iter().all(|pn| !sent.contains(pn)));
        assert_eq!(s.stats().bytes_retransmitted, 2 * 1448);
    }

    #[test]
    fn recovery_ends_when_a_packet_sent_after_it_began_is_acked() {
        let mut s = sender();
        send(&mut s, ms(0), 5);
        s.on_ack(ms(100), &ack(&[3, 4]));
        assert!(s.in_recovery());
        let later = send(&mut s, ms(101), 1);
        s.on_ack(ms(150), &ack(&[2]));
        assert!(
            s.in_recovery(),
            "packet 2 was sent before the recovery began"
        );
        s.on_ack(ms(201), &ack(&later));
        assert!(!s.in_recovery());
    }

    #[test]
    fn pto_fires_after_silence_and_probes_beyond_cwnd() {
        let mut s = sender();
        send(&mut s, ms(0), 2);
        s.on_ack(ms(100), &ack(&[0, 1]));
        send(&mut s, ms(100), 10);
        let pto = s.loss_timer().expect("PTO armed");
        let last_send = s.last_ack_eliciting.unwrap();
        // srtt 100 + 4 x rttvar 50 + max_ack_delay 25 after the last send.
        assert_eq!(pto, last_send + Duration::from_millis(325));
        s.on_loss_timer(pto);
        assert_eq!(s.stats().ptos, 1);
        assert!(matches!(s.poll_send(pto), SendOutcome::Sent(_)));
        assert!(matches!(s.poll_send(pto), SendOutcome::Sent(_)));
        // The second PTO backs off exponentially from the probes.
        let second = s.loss_timer().unwrap();
        assert_eq!(second, pto + Duration::from_millis(650));
        assert_eq!(
            s.poll_send(pto),
            SendOutcome::Blocked,
            "two probes only, then cwnd rules again"
        );
    }

    #[test]
    fn persistent_congestion_after_three_ptos_of_losses() {
        let mut s = sender();
        send(&mut s, ms(0), 1);
        s.on_ack(ms(100), &ack(&[0]));
        // Packets spread over 2 s (> 3 x 325 ms), all lost, then one acked.
        for t in 0..6 {
            send(&mut s, ms(200 + t * 400), 1);
        }
        let last = send(&mut s, ms(2300), 4);
        s.on_ack(ms(2400), &ack(&last[3..]));
        assert!(s.stats().persistent_congestions >= 1);
        assert_eq!(
            s.controller().cwnd(),
            Bytes(3000),
            "reno collapses to the minimum window"
        );
    }

    #[test]
    fn acks_for_unsent_packets_are_ignored() {
        let mut s = sender();
        send(&mut s, ms(0), 2);
        s.on_ack(
            ms(50),
            &AckFrame {
                largest: 99,
                ack_delay: Duration::ZERO,
                newly_received: vec![0, 99],
                max_stream_data: u64::MAX,
            },
        );
        assert_eq!(s.bytes_in_flight(), Bytes(3000));
        assert_eq!(s.stats().packets_lost, 0);
    }

    #[test]
    fn running_out_of_data_marks_the_flight_app_limited() {
        let cc = AlgorithmSpec::parse("bbr")
            .unwrap()
            .build(&ControllerConfig::new(1, Instant::ZERO));
        let mut s = Sender::new(
            0,
            Instant::ZERO,
            TransportConfig::default(),
            cc,
            Some(Bytes(2 * 1448)),
        );
        send(&mut s, ms(0), 2);
        assert_eq!(s.poll_send(ms(0)), SendOutcome::Blocked);
        s.on_ack(ms(100), &ack(&[0, 1]));
        assert!(s.last_rate_sample().is_app_limited || s.is_done());
        assert!(s.is_done());
    }

    #[test]
    fn the_receive_window_holds_new_data_until_an_ack_moves_it() {
        let cc = AlgorithmSpec::parse("reno")
            .unwrap()
            .build(&ControllerConfig::new(1, Instant::ZERO));
        let window = 4 * 1448 + 100;
        let config = TransportConfig {
            receive_window: Some(Bytes(window)),
            ..TransportConfig::default()
        };
        let mut s = Sender::new(0, Instant::ZERO, config, cc, None);
        // cwnd allows ten packets; the window four and a 100-byte piece.
        let sent = send(&mut s, ms(0), 5);
        assert_eq!(s.poll_send(ms(0)), SendOutcome::Blocked);
        assert_eq!(
            s.bytes_in_flight(),
            Bytes(4 * 1500 + 100 + 52),
            "the fifth packet carries only what the window leaves"
        );
        assert!(
            !s.estimator.is_app_limited(),
            "held back by the receiver, not by the application"
        );
        // The receiver took the first two packets in order: two more fit.
        s.on_ack(
            ms(40),
            &AckFrame {
                max_stream_data: 2 * 1448 + window,
                ..ack(&sent[..2])
            },
        );
        assert_eq!(send(&mut s, ms(40), 2).len(), 2);
        assert_eq!(s.poll_send(ms(40)), SendOutcome::Blocked);
    }
}
