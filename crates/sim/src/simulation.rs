//! The event loop: flows, one bottleneck, and the clock.
//!
//! Topology (a dumbbell): every sender enqueues straight into the shared
//! bottleneck; a packet that leaves it reaches its receiver after half the
//! flow's base RTT; the ACK returns after the other half plus the flow's
//! extra ACK delay. The ACK path never congests or loses.

use std::collections::VecDeque;
use std::time::Duration;

use crate::recorder::DelayHistogram;
use cc::{derive_seed, Bytes, ControllerConfig, Instant};

use crate::app::dash::log::DecisionRow;
use crate::app::dash::player::Request;
use crate::app::dash::Player;
use crate::app::live::{FrameClock, LiveSource};
use crate::app::Application;
use crate::config::{FlowConfig, SimConfig};
use crate::event::{EventQueue, Ticket};
use crate::link::{
    Bottleneck, BufferLimit, DropReason, LinkConfig, LinkPacket, LossModel, RateModel,
};
use crate::offset::Offset;
use crate::qlog::{QlogSink, QlogWriter, Vantage};
use crate::recorder::{self, FlowRecorder};
use crate::results::{jain_index, FlowSummary, LinkSummary, LostSplit, RunResult, Series};
use crate::slots::Slots;
use crate::transport::{AckDecision, AckFrame, Chunk, DataPacket, Receiver, SendOutcome, Sender};

#[derive(Debug)]
enum Event {
    FlowStart(usize),
    SenderWake(usize),
    LossTimer(usize),
    LinkDeparture,
    /// The packet in this slot of the packets in transit reaches its
    /// receiver.
    Deliver(u32),
    /// The ACK frame in this slot of the frames in transit reaches the
    /// sender of this flow.
    Ack(usize, u32),
    AckTimer(usize, Instant),
    LiveFrame(usize),
    /// A DASH player's request is due.
    DashRequest(usize),
    /// A DASH request reaches the server, which first drops the unsent rest
    /// of an abandoned one when the request says so, then writes the segment.
    /// Boxed: a request is rare (one per segment) and would otherwise widen
    /// every event the queue moves.
    DashRequestArrives(usize, Box<Request>),
    UplinkDeparture,
    Sample,
    WarmupEnd,
}

/// The event queue's bucket width (log2 of ns): about two full packets'
/// transmission time at the link's rate, so that a bucket holds a few
/// events of each flow's sending, the link's departures and arrivals
/// (about 3.4 events per packet; of the widths from a quarter of a packet
/// time to eight, two packet times cost the fewest instructions per
/// packet in the speed bench's cases, one packet time 0.3-1.6% more, four
/// 0.7-2.0% more).
/// Only the speed depends on it.
fn bucket_width(rate: &RateModel) -> u32 {
    let bps = match rate {
        RateModel::Constant(r) => r.as_bps_f64(),
        RateModel::Schedule(steps) => steps
            .iter()
            .map(|s| s.rate.as_bps_f64())
            .fold(0.0, f64::max),
        RateModel::Mahimahi(t) => t.mean_rate().as_bps_f64(),
        RateModel::Piecewise(t) => t.mean_rate().as_bps_f64(),
    };
    let two_packets_ns = 2.0 * 1500.0 * 8e9 / bps;
    if two_packets_ns.is_finite() && two_packets_ns >= 1.0 {
        two_packets_ns.log2().round() as u32
    } else {
        16
    }
}

/// Bytes an ACK takes on the wire: a QUIC short-header packet (1 byte of
/// flags, an 8-byte connection ID, a 2-byte packet number), an ACK frame of
/// a few ranges (about 10 bytes), the 16-byte AEAD tag, and UDP/IPv4's 28.
const ACK_WIRE_BYTES: Bytes = Bytes(64);

/// An ACK crossing a limited uplink.
#[derive(Debug)]
struct AckPacket {
    flow: usize,
    frame: AckFrame,
}

impl LinkPacket for AckPacket {
    fn size(&self) -> Bytes {
        ACK_WIRE_BYTES
    }
}

#[derive(Debug)]
struct Flow {
    config: FlowConfig,
    start: Instant,
    forward_delay: Offset,
    return_delay: Offset,
    sender: Option<Sender>,
    receiver: Receiver,
    wake_at: Option<Instant>,
    loss_event_at: Option<Instant>,
    ack_timer_at: Option<Instant>,
    /// A delayed-ACK timer decided but not pushed yet, with its place in
    /// the event order: see [`Simulation::settle_ack_timer`].
    held_ack_timer: Option<(Instant, Ticket)>,
    /// When the flow's packets in transit reach the receiver, in order
    /// (they arrive in the order they left: one forward delay per flow).
    arrivals: VecDeque<Instant>,
    completed_at: Option<Instant>,
    dropped: u64,
    dropped_random: u64,
    /// Stream bytes that have left the bottleneck and not reached the
    /// receiver yet (counted once per packet).
    propagating: u64,
    /// A live stream's encoder and its viewer's frame clock.
    live: Option<(LiveSource, FrameClock)>,
    /// A DASH session's player.
    dash: Option<Player>,
    /// When the controller first left Startup.
    startup_exit: Option<Instant>,
    /// The highest pacing rate set in Startup.
    startup_peak_pacing: Option<cc::Bandwidth>,
    recorder: FlowRecorder,
}

impl Flow {
    fn is_finished(&self) -> bool {
        self.completed_at.is_some()
    }
}

/// One simulation run.
pub struct Simulation {
    config: SimConfig,
    now: Instant,
    end: Instant,
    warmup: Instant,
    queue: EventQueue<Event>,
    /// The packets that left the bottleneck and have not reached their
    /// receivers, each named by its `Deliver` event; and the ACK frames on
    /// their way back, each named by its `Ack` event (see [`Slots`] for why
    /// not a ring per flow). The events stay small: the queue moves slot
    /// numbers, not packets.
    packets_in_transit: Slots<DataPacket>,
    frames_in_transit: Slots<AckFrame>,
    link: Bottleneck<DataPacket>,
    departure_at: Option<Instant>,
    /// The ACK path's capacity, when limited: never drops, FIFO.
    uplink: Option<Bottleneck<AckPacket>>,
    uplink_departure_at: Option<Instant>,
    /// With `acks_share_queue`: when the latest ACK left the data queue
    /// (ACKs stay in order).
    shared_ack_at: Instant,
    flows: Vec<Flow>,
    series: Series,
    queue_delay: DelayHistogram,
    forwarded: u64,
    forwarded_base: u64,
    /// Link capacity committed before the window opened to bytes leaving in it.
    carried_in: u64,
    dropped: u64,
    events: u64,
    /// The highest capacity seen at a sampling instant.
    capacity_peak: f64,
    /// Where each flow's qlog trace goes, if traced.
    qlog_dir: Option<std::path::PathBuf>,
    /// Traces that could not be written, by file.
    qlog_errors: Vec<String>,
}

impl Simulation {
    /// Writes a qlog trace of each flow's sender to `dir/flow-<id>.qlog`
    /// (the directory must exist). Tracing changes no result.
    pub fn with_qlog(mut self, dir: std::path::PathBuf) -> Self {
        self.qlog_dir = Some(dir);
        self
    }

    /// Prepares a run (nothing is simulated until [`Simulation::run`]).
    ///
    /// # Panics
    /// A flow is the kernel's TCP ([`crate::FlowConfig::kernel`]): only an
    /// emulated run carries one (callers check it first, with the
    /// scenario's file and key).
    pub fn new(config: SimConfig) -> Self {
        if let Some((i, f)) = config
            .flows
            .iter()
            .enumerate()
            .find(|(_, f)| f.kernel.is_some())
        {
            panic!(
                "flow {i}: cc = \"{}\" is the kernel's TCP and runs only in an emulated run",
                f.cc_label()
            );
        }
        let link = Bottleneck::new(&config.link, derive_seed(config.seed, 0x4c49_4e4b));
        let uplink = config.uplink.as_ref().map(|rate| {
            let ack_path = LinkConfig {
                rate: rate.clone(),
                buffer: BufferLimit::Packets(u64::MAX),
                burst: Bytes::ZERO,
                line_rate: config.link.line_rate,
                loss: LossModel::None,
            };
            Bottleneck::new(&ack_path, derive_seed(config.seed, 0x5550))
        });
        let mut queue = EventQueue::with_bucket_width(bucket_width(&config.link.rate));
        let mut flows = Vec::new();
        for flow_config in &config.flows {
            for _ in 0..flow_config.count {
                let id = flows.len();
                let start = Instant::ZERO + flow_config.start;
                queue.push(start, Event::FlowStart(id));
                flows.push(Flow {
                    config: flow_config.clone(),
                    start,
                    forward_delay: Offset::new(flow_config.rtt / 2),
                    return_delay: Offset::new(
                        flow_config.rtt - flow_config.rtt / 2 + flow_config.ack_delay,
                    ),
                    sender: None,
                    receiver: Receiver::new(
                        config.transport.ack_policy,
                        config.transport.max_ack_delay,
                        config.transport.receive_window.map(Bytes::get),
                    ),
                    wake_at: None,
                    loss_event_at: None,
                    ack_timer_at: None,
                    held_ack_timer: None,
                    arrivals: VecDeque::new(),
                    completed_at: None,
                    dropped: 0,
                    dropped_random: 0,
                    propagating: 0,
                    live: None,
                    dash: None,
                    startup_exit: None,
                    startup_peak_pacing: None,
                    recorder: FlowRecorder::new(),
                });
            }
        }
        queue.push(Instant::ZERO, Event::Sample);
        let warmup = Instant::ZERO + config.warmup;
        queue.push(warmup, Event::WarmupEnd);
        Simulation {
            now: Instant::ZERO,
            end: Instant::ZERO + config.duration,
            warmup,
            queue,
            packets_in_transit: Slots::default(),
            frames_in_transit: Slots::default(),
            link,
            departure_at: None,
            uplink,
            uplink_departure_at: None,
            shared_ack_at: Instant::ZERO,
            flows,
            series: Series::default(),
            queue_delay: DelayHistogram::new(),
            forwarded: 0,
            forwarded_base: 0,
            carried_in: 0,
            dropped: 0,
            events: 0,
            capacity_peak: 0.0,
            qlog_dir: None,
            qlog_errors: Vec::new(),
            config,
        }
    }

    /// Runs to the end and returns the results.
    pub fn run(mut self) -> RunResult {
        let wall = std::time::Instant::now();
        while !self.all_done() {
            let Some((at, event)) = self.queue.pop_until(self.end) else {
                break;
            };
            self.now = at;
            self.events += 1;
            self.handle(event);
        }
        if !self.all_done() {
            self.now = self.end;
        }
        self.finish(wall.elapsed())
    }

    fn all_done(&self) -> bool {
        self.config.stop_when_done
            && self
                .flows
                .iter()
                .all(|f| f.config.ends_by_itself() && f.is_finished())
    }

    // Always inlined into the event loop, as it was before the packets in
    // transit moved to slots (out of line it cost about 90 instructions
    // more per packet for one BBR flow).
    #[inline(always)]
    fn handle(&mut self, event: Event) {
        match event {
            Event::FlowStart(id) => self.start_flow(id),
            Event::SenderWake(id) => {
                if self.flows[id].wake_at == Some(self.now) {
                    self.flows[id].wake_at = None;
                    self.pump(id);
                }
            }
            Event::LossTimer(id) => self.on_loss_timer(id),
            Event::LinkDeparture => self.on_departure(),
            Event::Deliver(slot) => self.on_deliver(slot),
            Event::Ack(id, slot) => {
                let now = self.now;
                let frame = self.frames_in_transit.remove(slot);
                let flow = &mut self.flows[id];
                if let Some(sender) = flow.sender.as_mut() {
                    let fresh = sender.on_ack(now, &frame);
                    flow.receiver.recycle(frame);
                    if now >= self.warmup {
                        if let Some(rtt) = sender.rtt().has_sample().then(|| sender.rtt().latest())
                        {
                            flow.recorder.rtt.record(rtt);
                        }
                    }
                    let state = sender.probe_state();
                    match state.in_startup {
                        Some(false) if flow.startup_exit.is_none() => {
                            flow.startup_exit = Some(now);
                        }
                        Some(true) => {
                            let pacing = sender.pacing_rate();
                            if pacing != cc::Bandwidth::MAX {
                                flow.startup_peak_pacing = Some(
                                    flow.startup_peak_pacing.map_or(pacing, |p| p.max(pacing)),
                                );
                            }
                        }
                        _ => {}
                    }
                    if fresh && flow.recorder.measuring {
                        let truth = self.link.capacity().rate_at(now).as_bps_f64();
                        let sample = sender.last_rate_sample();
                        if let Some(rate) = sample.delivery_rate {
                            flow.recorder.bw_error.add(rate.as_bps_f64() - truth);
                            if !sample.is_app_limited {
                                flow.recorder
                                    .bw_unlimited_error
                                    .add(rate.as_bps_f64() - truth);
                            }
                        }
                        if let Some(estimate) = state.bandwidth_estimate {
                            flow.recorder
                                .bw_estimate_error
                                .add(estimate.as_bps_f64() - truth);
                        }
                    }
                }
                self.pump(id);
            }
            Event::LiveFrame(id) => self.on_live_frame(id),
            Event::DashRequest(id) => self.on_dash_request(id),
            Event::DashRequestArrives(id, request) => {
                let flow = &mut self.flows[id];
                if let Some(sender) = flow.sender.as_mut() {
                    if request.cancels_previous {
                        let cut = sender.cancel_unsent();
                        if let Some(player) = flow.dash.as_mut() {
                            player.on_cut(cut);
                        }
                    }
                    sender.write(request.bytes);
                }
                self.pump(id);
            }
            Event::AckTimer(id, at) => {
                if let Some(frame) = self.flows[id].receiver.on_timer(self.now, at) {
                    self.flows[id].ack_timer_at = None;
                    self.send_ack(id, frame);
                }
            }
            Event::UplinkDeparture => self.on_uplink_departure(),
            Event::Sample => self.sample(),
            Event::WarmupEnd => {
                // The window is (warmup, end]: whatever leaves the link at
                // the warmup instant itself belongs to the time before it.
                self.release_departures();
                for id in 0..self.flows.len() {
                    if self.flows[id].sender.is_some() {
                        self.open_measurement(id);
                    }
                }
                self.forwarded_base = self.forwarded;
                self.carried_in = self.link.carried_in(self.now).get();
                self.queue_delay.reset();
            }
        }
    }

    fn start_flow(&mut self, id: usize) {
        let seed = derive_seed(self.config.seed, 1 + id as u64);
        let transport = self.config.transport;
        let cc_config = ControllerConfig {
            max_datagram_size: transport.max_datagram_size,
            initial_window_packets: transport.initial_window_packets,
            seed,
            now: self.now,
        };
        let now = self.now;
        let flow = &mut self.flows[id];
        let cc = flow.config.cc.build(&cc_config);
        let mut sender = Sender::new(id, now, transport, cc, flow.config.size);
        if let Some(dir) = &self.qlog_dir {
            let path = dir.join(format!("flow-{id}.qlog"));
            match std::fs::File::create(&path) {
                Ok(file) => {
                    let title = format!("{} flow {id} ({})", self.config.name, flow.config.cc);
                    sender = sender.with_qlog(QlogWriter::new(
                        QlogSink(Box::new(std::io::BufWriter::new(file))),
                        &title,
                        Vantage::Server,
                    ));
                }
                Err(e) => self.qlog_errors.push(format!("{}: {e}", path.display())),
            }
        }
        if let Some(copilot) = flow.config.copilot {
            sender = sender.with_copilot(copilot);
        }
        if let Application::Live(live) = &flow.config.app {
            sender = sender.with_application_stream();
            let mut source = LiveSource::new(*live, now);
            let mut clock = FrameClock::new(live.deadline, self.warmup);
            for frame in source.backlog(now) {
                sender.write(frame.bytes);
                clock.on_written(frame);
            }
            if source.next_frame_at() <= self.end {
                self.queue
                    .push(source.next_frame_at(), Event::LiveFrame(id));
            }
            flow.live = Some((source, clock));
        }
        if let Application::Dash(dash) = &flow.config.app {
            sender = sender.with_application_stream();
            let player = Player::new(dash.clone(), now);
            if let Some(at) = player.next_request_at() {
                self.queue.push(at, Event::DashRequest(id));
            }
            flow.dash = Some(player);
        }
        flow.sender = Some(sender);
        if self.now >= self.warmup {
            self.open_measurement(id);
        }
        self.pump(id);
    }

    /// A live stream's encoder emits its next frame into the send buffer.
    fn on_live_frame(&mut self, id: usize) {
        let flow = &mut self.flows[id];
        let (Some((source, clock)), Some(sender)) = (flow.live.as_mut(), flow.sender.as_mut())
        else {
            return;
        };
        let frame = source.next_frame();
        sender.write(frame.bytes);
        clock.on_written(frame);
        if source.next_frame_at() <= self.end {
            self.queue
                .push(source.next_frame_at(), Event::LiveFrame(id));
        }
        self.pump(id);
    }

    /// A DASH player's request time: it decides, and the request leaves
    /// for the server over the return path's delay (requests are a few
    /// hundred bytes: they queue nowhere), or BOLA asks it to wait.
    fn on_dash_request(&mut self, id: usize) {
        let now = self.now;
        let flow = &mut self.flows[id];
        let Some(player) = flow.dash.as_mut() else {
            return;
        };
        match player.poll_request(now) {
            Some(request) => {
                let arrives = flow.return_delay.after(now);
                self.queue
                    .push(arrives, Event::DashRequestArrives(id, Box::new(request)));
            }
            None => {
                if let Some(at) = player.next_request_at().filter(|&at| at > now) {
                    self.queue.push(at, Event::DashRequest(id));
                }
            }
        }
    }

    fn open_measurement(&mut self, id: usize) {
        let flow = &mut self.flows[id];
        let Some(sender) = flow.sender.as_ref() else {
            return;
        };
        let rec = &mut flow.recorder;
        rec.measuring = true;
        rec.opened_at = self.now;
        rec.base_stats = *sender.stats();
        // Bytes that crossed the bottleneck before the window opened belong
        // to the time before it, even if the application only gets them
        // later (still propagating, or held behind a hole); without this a
        // window could be credited with more than the link carried in it.
        rec.base_delivered = flow.receiver.delivered_in_order()
            + flow.receiver.buffered_out_of_order()
            + flow.propagating;
        rec.base_dropped = flow.dropped;
        rec.base_dropped_random = flow.dropped_random;
        rec.bw_error = Default::default();
        rec.bw_unlimited_error = Default::default();
        rec.bw_estimate_error = Default::default();
    }

    /// Sends what the sender allows now, then re-arms its timers.
    fn pump(&mut self, id: usize) {
        let now = self.now;
        loop {
            let Some(sender) = self.flows[id].sender.as_mut() else {
                return;
            };
            match sender.poll_send(now) {
                SendOutcome::Sent(packet) => self.enqueue(packet),
                SendOutcome::WaitUntil(at) => {
                    let flow = &mut self.flows[id];
                    if flow.wake_at.is_none_or(|w| at < w) {
                        flow.wake_at = Some(at);
                        // A lone flow's wake-up is alone of its kind, as the
                        // link's departure is: beside the calendar. Several
                        // flows' wake-ups would crowd the departure out.
                        if self.flows.len() == 1 {
                            self.queue.push_beside(at, Event::SenderWake(id));
                        } else {
                            self.queue.push(at, Event::SenderWake(id));
                        }
                    }
                    break;
                }
                SendOutcome::Blocked => break,
            }
        }
        self.arm_loss_timer(id);
    }

    fn enqueue(&mut self, packet: DataPacket) {
        let flow = packet.flow;
        match self.link.enqueue(self.now, packet) {
            Ok(()) => self.schedule_departure(),
            Err((dropped, reason)) => {
                let f = &mut self.flows[flow];
                f.dropped += dropped.size.get();
                if reason == DropReason::RandomLoss {
                    f.dropped_random += dropped.size.get();
                }
                if self.now >= self.warmup {
                    self.dropped += dropped.size.get();
                }
            }
        }
    }

    // Always inlined (into the enqueue and the release, twice per packet):
    // as a call its register saves cost about 13 instructions each time.
    #[inline(always)]
    fn schedule_departure(&mut self) {
        if let Some(at) = self.link.next_departure() {
            if self.departure_at.is_none_or(|d| at < d) {
                self.departure_at = Some(at);
                // Beside the calendar: a departure is nearly always the
                // only one pending (one brought forward goes to the
                // calendar, in its place in the order all the same).
                self.queue.push_beside(at, Event::LinkDeparture);
            }
        }
    }

    fn on_departure(&mut self) {
        if self.departure_at != Some(self.now) {
            return; // superseded by an earlier departure event
        }
        self.release_departures();
    }

    /// Sends every packet that has left the link by now on its way to its
    /// receiver, and schedules the next departure.
    fn release_departures(&mut self) {
        self.departure_at = None;
        while let Some(packet) = self.link.dequeue(self.now) {
            self.forwarded += packet.size.get();
            self.flows[packet.flow].propagating += packet.chunk.len as u64;
            if self.now >= self.warmup {
                let waited = self.now.saturating_nanos_since(packet.sent_time);
                self.queue_delay.record_nanos(waited);
            }
            let flow = &mut self.flows[packet.flow];
            let at = flow.forward_delay.after(self.now);
            flow.arrivals.push_back(at);
            let slot = self.packets_in_transit.insert(packet);
            self.queue.push(at, Event::Deliver(slot));
        }
        self.schedule_departure();
    }

    fn on_deliver(&mut self, slot: u32) {
        let now = self.now;
        let packet = self.packets_in_transit.remove(slot);
        let id = packet.flow;
        let flow = &mut self.flows[id];
        let at = flow.arrivals.pop_front();
        debug_assert_eq!(at, Some(now), "a flow's packets arrive in order");
        flow.propagating -= packet.chunk.len as u64;
        let decision = flow.receiver.on_packet(now, packet.pn, packet.chunk);
        if let Some((_, clock)) = flow.live.as_mut() {
            clock.on_delivered(now, flow.receiver.delivered_in_order());
        }
        if let Some(player) = flow.dash.as_mut() {
            if player.on_delivered(now, flow.receiver.delivered_in_order()) {
                if player.is_fetched() {
                    flow.completed_at = Some(now);
                }
                if let Some(at) = player.next_request_at() {
                    self.queue.push(at, Event::DashRequest(id));
                }
            }
        }
        if flow.completed_at.is_none() {
            if let Some(size) = flow.config.size {
                if flow.receiver.delivered_in_order() >= size.get() {
                    flow.completed_at = Some(now);
                }
            }
        }
        match decision {
            AckDecision::Send(frame) => {
                flow.ack_timer_at = None;
                self.send_ack(id, frame);
            }
            AckDecision::Delay(at) => {
                if flow.ack_timer_at != Some(at) {
                    flow.ack_timer_at = Some(at);
                    self.hold_ack_timer(id, at);
                }
            }
        }
        self.settle_ack_timer(id);
    }

    /// A delayed-ACK timer event for `at` is due: its place in the event
    /// order is taken now, the push itself waits (see
    /// [`Simulation::settle_ack_timer`]).
    fn hold_ack_timer(&mut self, id: usize, at: Instant) {
        let now = self.now;
        let flow = &mut self.flows[id];
        match flow.held_ack_timer {
            // Due at the same time, the held one pops first; a second
            // would find the timer spent.
            Some((held, _)) if held == at => return,
            Some((held, ticket)) => {
                flow.held_ack_timer = None;
                if flow.receiver.timer_may_fire(now, held) {
                    self.queue
                        .push_reserved(held, ticket, Event::AckTimer(id, held));
                }
            }
            None => {}
        }
        let ticket = self.queue.reserve();
        self.flows[id].held_ack_timer = Some((at, ticket));
    }

    /// Pushes a held delayed-ACK timer when it may be needed, drops it when
    /// it can no longer fire.
    ///
    /// With an ACK every second packet, every other arrival arms the timer
    /// and the next arrival, a packet time later, sends the ACK: pushed at
    /// once, nearly every timer event would pop stale (half an event per
    /// packet). While another packet of the flow reaches the receiver
    /// before the timer's time, this is called again then, so the timer
    /// waits; when none does, it is pushed in the place its ticket took,
    /// and pops exactly where it would have. Results are those of pushing
    /// every timer; only the count of events popped is lower.
    fn settle_ack_timer(&mut self, id: usize) {
        let now = self.now;
        let flow = &mut self.flows[id];
        let Some((at, ticket)) = flow.held_ack_timer else {
            return;
        };
        if !flow.receiver.timer_may_fire(now, at) {
            flow.held_ack_timer = None;
            return;
        }
        if flow.arrivals.front().is_some_and(|&next| next < at) {
            return;
        }
        debug_assert!(at >= now, "a held timer is pushed before its time");
        flow.held_ack_timer = None;
        self.queue
            .push_reserved(at, ticket, Event::AckTimer(id, at));
    }

    /// The receiver of flow `id` sends `frame`: through the uplink if it is
    /// limited, then back over the return delay.
    // Always inlined into the delivery and the ACK timer: as a call its
    // register saves cost about 18 instructions per ACK.
    #[inline(always)]
    fn send_ack(&mut self, id: usize, frame: AckFrame) {
        let now = self.now;
        if self.config.acks_share_queue {
            // Behind the data queued now, served at the link's rate.
            let backlog = self.link.queue_bytes();
            let leave = self
                .link
                .capacity()
                .time_to_serve(now, backlog)
                .unwrap_or(now)
                .max(self.shared_ack_at);
            self.shared_ack_at = leave;
            self.return_ack(leave, id, frame);
            return;
        }
        let Some(uplink) = self.uplink.as_mut() else {
            self.return_ack(now, id, frame);
            return;
        };
        if uplink.enqueue(now, AckPacket { flow: id, frame }).is_err() {
            unreachable!("the uplink neither drops nor limits its queue");
        }
        self.schedule_uplink_departure();
    }

    fn schedule_uplink_departure(&mut self) {
        let next = self.uplink.as_ref().and_then(|u| u.next_departure());
        if let Some(at) = next {
            if self.uplink_departure_at.is_none_or(|d| at < d) {
                self.uplink_departure_at = Some(at);
                self.queue.push(at, Event::UplinkDeparture);
            }
        }
    }

    fn on_uplink_departure(&mut self) {
        if self.uplink_departure_at != Some(self.now) {
            return; // superseded by an earlier departure event
        }
        self.uplink_departure_at = None;
        let now = self.now;
        if let Some(uplink) = self.uplink.as_mut() {
            while let Some(ack) = uplink.dequeue(now) {
                let slot = self.frames_in_transit.insert(ack.frame);
                let back = self.flows[ack.flow].return_delay.after(now);
                self.queue.push(back, Event::Ack(ack.flow, slot));
            }
        }
        self.schedule_uplink_departure();
    }

    /// An ACK frame of flow `id` leaves the receiver's side at `at` and
    /// reaches the sender after the return delay.
    #[inline(always)]
    fn return_ack(&mut self, at: Instant, id: usize, frame: AckFrame) {
        let slot = self.frames_in_transit.insert(frame);
        let back = self.flows[id].return_delay.after(at);
        self.queue.push(back, Event::Ack(id, slot));
    }

    /// Keeps at most one pending LossTimer event per flow at or before the
    /// sender's deadline; a deadline that moved later is re-armed lazily.
    // Always inlined into the pump (1.4 times per packet): as a call its
    // register saves cost about 25 instructions each time.
    #[inline(always)]
    fn arm_loss_timer(&mut self, id: usize) {
        let flow = &mut self.flows[id];
        let Some(deadline) = flow.sender.as_ref().and_then(|s| s.loss_timer()) else {
            return;
        };
        if flow.loss_event_at.is_none_or(|at| deadline < at) {
            flow.loss_event_at = Some(deadline);
            self.queue.push(deadline, Event::LossTimer(id));
        }
    }

    fn on_loss_timer(&mut self, id: usize) {
        let now = self.now;
        let flow = &mut self.flows[id];
        if flow.loss_event_at != Some(now) {
            return;
        }
        flow.loss_event_at = None;
        let Some(sender) = flow.sender.as_mut() else {
            return;
        };
        match sender.loss_timer() {
            Some(deadline) if deadline <= now => {
                sender.on_loss_timer(now);
                self.pump(id);
            }
            _ => self.arm_loss_timer(id),
        }
    }

    fn sample(&mut self) {
        let t = self.now.as_secs_f64();
        let capacity = self.link.capacity().rate_at(self.now).as_bps_f64();
        self.capacity_peak = self.capacity_peak.max(capacity);
        for (id, flow) in self.flows.iter_mut().enumerate() {
            let Some(sender) = flow.sender.as_ref() else {
                continue;
            };
            if flow.completed_at.is_some()
                && flow.config.size.is_some()
                && sender.bytes_in_flight() == Bytes::ZERO
            {
                continue;
            }
            if flow.recorder.measuring {
                flow.recorder.cwnd_sum += sender.controller().cwnd().get() as f64;
                flow.recorder.cwnd_samples += 1;
            }
            if self.config.record_series {
                let delivered = flow.receiver.delivered_in_order();
                self.series
                    .flows
                    .push(recorder::flow_sample(t, id, sender, delivered));
            }
        }
        if !self.config.record_series {
            self.schedule_next_sample();
            return;
        }
        self.series.link.push(recorder::link_sample(
            t,
            self.link.queue_bytes().get(),
            capacity,
            self.forwarded,
        ));
        self.schedule_next_sample();
    }

    fn schedule_next_sample(&mut self) {
        let next = self.now + self.config.sample_interval;
        if next <= self.end {
            self.queue.push(next, Event::Sample);
        }
    }

    fn finish(mut self, wall: Duration) -> RunResult {
        // A run stopped early (every sized flow done) may not have handed
        // out packets that left the link by now.
        self.release_departures();
        // A run that ends before its warmup measures nothing; say so with zeros.
        let window_start = self.warmup.min(self.now);
        let capacity_bytes = self
            .link
            .capacity()
            .bytes_between(window_start, self.now)
            .get();
        let window = (self.now - window_start).as_secs_f64();
        let forwarded = self.forwarded - self.forwarded_base;
        let offered = capacity_bytes.saturating_add(self.carried_in);
        let link = LinkSummary {
            capacity_bps: if window > 0.0 {
                capacity_bytes as f64 * 8.0 / window
            } else {
                0.0
            },
            utilization: if offered > 0 {
                forwarded as f64 / offered as f64
            } else {
                0.0
            },
            bytes_offered: offered,
            bytes_forwarded: forwarded,
            bytes_dropped: self.dropped,
            queue_delay_ms: self.queue_delay.percentiles(),
            capacity_peak_bps: self.capacity_peak,
        };
        let end = self.now;
        // Data that crossed the bottleneck inside the window and is on its
        // way to the receiver belongs to the window, as the data still
        // propagating when it opened belonged to the time before it.
        let mut arriving: Vec<Vec<Chunk>> = vec![Vec::new(); self.flows.len()];
        for packet in self.packets_in_transit.iter() {
            arriving[packet.flow].push(packet.chunk);
        }
        let flows: Vec<FlowSummary> = self
            .flows
            .iter_mut()
            .zip(arriving)
            .enumerate()
            .map(|(id, (f, arriving))| summarize(id, f, end, arriving))
            .collect();
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
        let run_violations = self.whole_run_violations();
        if self.config.record_series {
            for (id, flow) in self.flows.iter().enumerate() {
                let rows = flow.dash.iter().flat_map(|player| player.decisions());
                self.series.dash.extend(rows.map(|row| DecisionRow {
                    flow: id,
                    ..row.clone()
                }));
            }
        }
        let mut trace_errors = std::mem::take(&mut self.qlog_errors);
        for (id, flow) in self.flows.iter_mut().enumerate() {
            if let Some(Err(e)) = flow.sender.as_mut().map(Sender::finish_qlog) {
                trace_errors.push(format!("qlog of flow {id}: {e}"));
            }
        }
        RunResult {
            scenario: self.config.name.clone(),
            seed: self.config.seed,
            sim_time_s: self.now.as_secs_f64(),
            wall_time_s: wall.as_secs_f64(),
            events: self.events,
            packets_sent: self
                .flows
                .iter()
                .filter_map(|f| f.sender.as_ref())
                .map(|s| s.stats().packets_sent)
                .sum(),
            link,
            jain_index: jain_index(&goodputs),
            flows,
            series: std::mem::take(&mut self.series),
            run_violations,
            trace_errors,
        }
    }

    /// Checks over the whole run that the windowed summary cannot show:
    /// nobody receives more than was sent, the link forwards no more than
    /// entered it, and the per-flow byte counters add up.
    fn whole_run_violations(&self) -> Vec<String> {
        let mut found = Vec::new();
        let mut sent_total = 0u64;
        for (id, f) in self.flows.iter().enumerate() {
            let sent = f.sender.as_ref().map_or(0, |s| s.stats().bytes_sent);
            sent_total += sent;
            let received = f.receiver.delivered_in_order();
            if received > sent {
                found.push(format!(
                    "flows[{id}]: {received} stream bytes delivered but only {sent} bytes sent"
                ));
            }
            if f.dropped > sent {
                found.push(format!(
                    "flows[{id}]: {} bytes dropped but only {sent} bytes sent",
                    f.dropped
                ));
            }
        }
        let dropped_total: u64 = self.flows.iter().map(|f| f.dropped).sum();
        let accounted =
            self.forwarded as u128 + dropped_total as u128 + self.link.queue_bytes().get() as u128;
        if accounted != sent_total as u128 {
            found.push(format!(
                "the link forwarded {} bytes, dropped {dropped_total} and holds {}, \
                 which is not the {sent_total} bytes sent",
                self.forwarded,
                self.link.queue_bytes().get()
            ));
        }
        found
    }
}

fn summarize(id: usize, flow: &mut Flow, end: Instant, arriving: Vec<Chunk>) -> FlowSummary {
    let rec = &flow.recorder;
    let stats = flow.sender.as_ref().map(|s| *s.stats()).unwrap_or_default();
    let base = if rec.measuring { rec.base_stats } else { stats };
    // A sized flow's window closes at its completion, when everything it
    // had to deliver has been read; what is still arriving are duplicates.
    let delivered_at_close = if flow.completed_at.is_some() {
        flow.receiver.delivered_in_order()
    } else {
        flow.receiver.in_order_after(arriving)
    };
    let delivered = if rec.measuring {
        delivered_at_close.saturating_sub(rec.base_delivered)
    } else {
        0
    };
    let sent = stats.bytes_sent - base.bytes_sent;
    let retransmitted = stats.bytes_retransmitted - base.bytes_retransmitted;
    let dropped = flow.dropped
        - if rec.measuring {
            rec.base_dropped
        } else {
            flow.dropped
        };
    let dropped_random = flow.dropped_random
        - if rec.measuring {
            rec.base_dropped_random
        } else {
            flow.dropped_random
        };
    let window_end = flow.completed_at.unwrap_or(end).min(end);
    let seconds = if rec.measuring {
        (window_end - rec.opened_at).as_secs_f64()
    } else {
        0.0
    };
    FlowSummary {
        id,
        cc: flow.config.cc.as_str().to_string(),
        start_s: flow.start.as_secs_f64(),
        base_rtt_ms: flow.config.rtt.as_secs_f64() * 1e3,
        goodput_bps: if seconds > 0.0 {
            delivered as f64 * 8.0 / seconds
        } else {
            0.0
        },
        retransmission_ratio: ratio(retransmitted, delivered),
        loss_ratio: ratio(dropped, sent),
        bytes_sent: sent,
        bytes_delivered: delivered,
        bytes_retransmitted: retransmitted,
        bytes_lost: stats.bytes_lost - base.bytes_lost,
        bytes_dropped: dropped,
        bytes_dropped_random: dropped_random,
        rtt_ms: rec.rtt.percentiles(),
        mean_cwnd_bytes: if rec.cwnd_samples > 0 {
            rec.cwnd_sum / rec.cwnd_samples as f64
        } else {
            0.0
        },
        congestion_events: stats.congestion_events - base.congestion_events,
        ptos: stats.ptos - base.ptos,
        completion_time_s: flow.completed_at.map(|t| (t - flow.start).as_secs_f64()),
        startup_exit_s: flow.startup_exit.map(|t| (t - flow.start).as_secs_f64()),
        startup_peak_pacing_bps: flow.startup_peak_pacing.map(|p| p.as_bps_f64()),
        padding_bytes: stats.padding_bytes - base.padding_bytes,
        padding_ratio: ratio(stats.padding_bytes - base.padding_bytes, sent),
        lost_split: Some(LostSplit {
            padding_bytes: stats.padding_lost - base.padding_lost,
            sent_in_startup_bytes: stats.lost_sent_in_startup - base.lost_sent_in_startup,
            sent_probing_bytes: stats.lost_sent_probing - base.lost_sent_probing,
        }),
        bw_sample_rmse_bps: rec.bw_error.rms(),
        bw_sample_unlimited_rmse_bps: rec.bw_unlimited_error.rms(),
        bw_estimate_rmse_bps: rec.bw_estimate_error.rms(),
        live: flow
            .live
            .as_ref()
            .map(|(_, clock)| clock.summary(window_end)),
        dash: flow.dash.as_ref().map(|player| player.summary(end)),
    }
}

fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queue moves every event a few times (into its slot, out, into
    /// the handler): payloads live in the flows' FIFOs, not in events.
    #[test]
    fn events_stay_small() {
        assert!(std::mem::size_of::<Event>() <= 24);
        assert!(std::mem::size_of::<Option<Event>>() <= 24);
    }
}
