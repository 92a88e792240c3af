//! The Linux kernel's TCP as a bbrlab flow.
//!
//! A flow is a [`Sender`] (the server: it listens, sets the connection's
//! congestion control with `TCP_CONGESTION` and checks it took, then sends
//! a bulk stream until a deadline or a sized transfer), a [`receive`]r (the
//! client: it reads and records its progress every progress interval) and
//! a sampler on the sender's socket, which reads `TCP_INFO` (and, for BBR,
//! `TCP_CC_INFO`) every tick into [`Tick`]s: the simulator's
//! [`sim::FlowSample`] and the counters a run's summary needs. Blocking
//! std sockets, one thread each.
//!
//! What `TCP_INFO` counts (see [`Counters`]): payload bytes sent with
//! retransmissions (`tcpi_bytes_sent`), payload bytes retransmitted
//! (`tcpi_bytes_retrans`), segments retransmitted (`tcpi_total_retrans`)
//! and bytes cumulatively acknowledged (`tcpi_bytes_acked`). TCP has no
//! counter of segments declared lost: `tcpi_lost` is how many are marked
//! lost now. A retransmission is the kernel's reaction to a loss it
//! declared (or to a timeout, or a spurious one), so retransmitted bytes
//! stand for lost bytes, as a QUIC sender's declared-lost bytes do.

pub mod info;

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use sim::FlowSample;

pub use info::{BbrInfo, TcpInfo};
pub use socket2;

/// Where the kernel lists the congestion controls it has loaded.
pub const AVAILABLE_PATH: &str = "/proc/sys/net/ipv4/tcp_available_congestion_control";

/// The congestion controls the kernel offers now.
///
/// # Errors
/// [`AVAILABLE_PATH`] cannot be read.
pub fn available() -> io::Result<Vec<String>> {
    Ok(std::fs::read_to_string(AVAILABLE_PATH)?
        .split_whitespace()
        .map(str::to_string)
        .collect())
}

/// `Ok` when the kernel offers congestion control `name`.
///
/// # Errors
/// It does not (the message lists what it offers), or the list cannot be
/// read.
pub fn check_available(name: &str) -> Result<(), String> {
    let offered = available().map_err(|e| format!("cannot read {AVAILABLE_PATH}: {e}"))?;
    if offered.iter().any(|a| a == name) {
        Ok(())
    } else {
        Err(format!(
            "the kernel has no TCP congestion control \"{name}\": {AVAILABLE_PATH} offers {} \
             (load a module, e.g. modprobe tcp_{name}, to add one)",
            offered.join(", ")
        ))
    }
}

/// What the sender sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transfer {
    /// As fast as the connection takes it, until `until`.
    Bulk { until: Instant },
    /// `bytes`, then the end of the stream.
    Sized { bytes: u64 },
}

/// A sender's settings.
#[derive(Clone, Debug)]
pub struct SenderConfig {
    /// Where to listen (port 0: any).
    pub listen: SocketAddr,
    /// The kernel congestion control (a name in [`available`]).
    pub congestion: String,
    /// What to send.
    pub transfer: Transfer,
    /// Time zero of the ticks' times.
    pub epoch: Instant,
    /// `TCP_INFO` is read this often.
    pub tick: Duration,
    /// The sender gives up waiting for its receiver, and stops sampling
    /// and sending, at this time.
    pub deadline: Instant,
}

/// A sender's counters at one instant (payload bytes, segments).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// `tcpi_bytes_sent`: payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    /// `tcpi_bytes_retrans`: payload bytes retransmitted.
    pub bytes_retrans: u64,
    /// `tcpi_total_retrans`: segments retransmitted.
    pub segs_retrans: u64,
    /// `tcpi_data_segs_out`: data segments sent, retransmissions included.
    pub data_segs_out: u64,
    /// `tcpi_bytes_acked`: payload bytes cumulatively acknowledged.
    pub bytes_acked: u64,
}

impl Counters {
    fn of(info: &TcpInfo) -> Counters {
        Counters {
            bytes_sent: info.bytes_sent,
            bytes_retrans: info.bytes_retrans,
            segs_retrans: u64::from(info.total_retrans),
            data_segs_out: u64::from(info.data_segs_out),
            bytes_acked: info.bytes_acked,
        }
    }

    /// What was counted after `base`.
    pub fn since(&self, base: &Counters) -> Counters {
        Counters {
            bytes_sent: self.bytes_sent.saturating_sub(base.bytes_sent),
            bytes_retrans: self.bytes_retrans.saturating_sub(base.bytes_retrans),
            segs_retrans: self.segs_retrans.saturating_sub(base.segs_retrans),
            data_segs_out: self.data_segs_out.saturating_sub(base.data_segs_out),
            bytes_acked: self.bytes_acked.saturating_sub(base.bytes_acked),
        }
    }
}

/// One reading of the sender's socket.
#[derive(Clone, Debug)]
pub struct Tick {
    /// Seconds since the epoch.
    pub t_s: f64,
    /// The counters then.
    pub counters: Counters,
    /// The state then, in the simulator's shape (`flow` 0, `delivered` 0:
    /// the caller knows both). `cwnd` = `snd_cwnd` x `snd_mss`; `inflight`
    /// = (`unacked` - `sacked` - `lost` + `retrans`) x `snd_mss` (the
    /// kernel's `tcp_packets_in_flight`); `mode` = the kernel's
    /// `ca_state` (open, disorder, cwr, recovery, loss); `bw_estimate_bps`,
    /// `pacing_gain` and `cwnd_gain` are BBR's own when the algorithm is
    /// `bbr`, else 0; `retransmitted` and `lost` are `tcpi_bytes_retrans`.
    pub sample: FlowSample,
}

/// What a sender did.
#[derive(Clone, Debug)]
pub struct SenderReport {
    /// The congestion control the connection ran, as `getsockopt` read it
    /// back.
    pub congestion: String,
    /// Payload bytes the application wrote.
    pub bytes_written: u64,
    /// Every reading, one per tick from the connection's acceptance.
    pub ticks: Vec<Tick>,
    /// The last reading: a bulk transfer's when it stopped sending, a sized
    /// one's when the receiver had read it all and closed.
    pub last: Option<Tick>,
}

/// A running sender.
pub struct Sender {
    local_addr: SocketAddr,
    thread: JoinHandle<Result<SenderReport, String>>,
}

impl Sender {
    /// Listens on `config.listen` and serves one connection on a thread.
    ///
    /// # Errors
    /// The congestion control is not offered (the message lists those
    /// that are), or the socket cannot listen.
    pub fn start(config: SenderConfig) -> Result<Sender, String> {
        check_available(&config.congestion)?;
        let listener = TcpListener::bind(config.listen)
            .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
        let local_addr = listener
            .local_addr()
            .map_err(|e| format!("the listener has no address: {e}"))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("cannot make the listener non-blocking: {e}"))?;
        let thread = std::thread::Builder::new()
            .name(format!("kernel-send-{}", local_addr.port()))
            .spawn(move || serve(&listener, &config))
            .map_err(|e| format!("cannot start the sender thread: {e}"))?;
        Ok(Sender { local_addr, thread })
    }

    /// Where the sender listens.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Waits for the transfer to end.
    ///
    /// # Errors
    /// No receiver came before the deadline, the congestion control could
    /// not be set, or the socket failed.
    pub fn join(self) -> Result<SenderReport, String> {
        self.thread
            .join()
            .map_err(|_| "the sender thread panicked".to_string())?
    }
}

/// How long a blocking call waits before the deadline is looked at again.
const POLL: Duration = Duration::from_millis(20);
/// Bytes per write.
const CHUNK: usize = 64 * 1024;

fn serve(listener: &TcpListener, config: &SenderConfig) -> Result<SenderReport, String> {
    let stream = loop {
        match listener.accept() {
            Ok((stream, _)) => break stream,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if Instant::now() >= config.deadline {
                    return Err("no receiver connected before the deadline".into());
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(e) => return Err(format!("accept failed: {e}")),
        }
    };
    stream
        .set_nonblocking(false)
        .and_then(|()| stream.set_write_timeout(Some(POLL)))
        .and_then(|()| stream.set_nodelay(true))
        .map_err(|e| format!("cannot set up the connection: {e}"))?;
    let fd = stream.as_raw_fd();
    info::set_congestion(fd, &config.congestion).map_err(|e| {
        format!(
            "cannot set TCP_CONGESTION to \"{}\": {e}",
            config.congestion
        )
    })?;
    let congestion =
        info::congestion(fd).map_err(|e| format!("cannot read TCP_CONGESTION: {e}"))?;
    if congestion != config.congestion {
        return Err(format!(
            "TCP_CONGESTION reads \"{congestion}\" after setting \"{}\"",
            config.congestion
        ));
    }
    let stream = Arc::new(stream);
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let stream = stream.clone();
        let done = done.clone();
        let config = config.clone();
        std::thread::Builder::new()
            .name("kernel-sample".into())
            .spawn(move || sample(&stream, &config, &done))
            .map_err(|e| format!("cannot start the sampler: {e}"))?
    };
    let sent = send(&stream, config);
    let reading = || {
        info::tcp_info(fd)
            .ok()
            .map(|i| tick(&i, fd, config.epoch, &config.congestion))
    };
    // A bulk transfer's last reading is at its end, before the receiver
    // stops; a sized one's once the receiver has read it all (below).
    let mut last = reading();
    let _ = stream.shutdown(std::net::Shutdown::Write);
    // Let the receiver read the end of the stream before the socket closes
    // (a close with unread data would reset the connection); the sampler
    // reads on until then, while a sized transfer's last bytes are acked.
    if sent.is_ok() {
        drain_until_closed(&stream, config.deadline);
    }
    if let Transfer::Sized { .. } = config.transfer {
        last = reading().or(last);
    }
    done.store(true, Ordering::Relaxed);
    let ticks = sampler
        .join()
        .map_err(|_| "the sampler panicked".to_string())?;
    let bytes_written = sent?;
    Ok(SenderReport {
        congestion,
        bytes_written,
        ticks,
        last,
    })
}

/// Writes the transfer; returns the bytes written.
fn send(mut stream: &TcpStream, config: &SenderConfig) -> Result<u64, String> {
    let chunk = vec![0x5au8; CHUNK];
    let mut written: u64 = 0;
    let (limit, until) = match config.transfer {
        Transfer::Bulk { until } => (u64::MAX, until.min(config.deadline)),
        Transfer::Sized { bytes } => (bytes, config.deadline),
    };
    while written < limit {
        if Instant::now() >= until {
            break;
        }
        let n = (limit - written).min(CHUNK as u64) as usize;
        match stream.write(&chunk[..n]) {
            Ok(0) => return Err("the connection closed while sending".into()),
            Ok(n) => written += n as u64,
            Err(e) if timed_out(&e) => {}
            // The receiver stopping at the deadline resets the connection.
            Err(_) if Instant::now() + POLL >= until => break,
            Err(e) => return Err(format!("send failed after {written} bytes: {e}")),
        }
    }
    Ok(written)
}

/// Whether a blocking call on a socket with a timeout only timed out or
/// was interrupted: the caller checks its deadline and tries again.
fn timed_out(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

/// Waits (until `deadline` at the latest) for the receiver to close.
fn drain_until_closed(mut stream: &TcpStream, deadline: Instant) {
    let _ = stream.set_read_timeout(Some(POLL));
    let mut buf = [0u8; 1024];
    while Instant::now() < deadline {
        match stream.read(&mut buf) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) if timed_out(&e) => {}
            Err(_) => return,
        }
    }
}

fn sample(stream: &TcpStream, config: &SenderConfig, done: &AtomicBool) -> Vec<Tick> {
    let fd = stream.as_raw_fd();
    let mut ticks = Vec::new();
    let mut at = Instant::now();
    while !done.load(Ordering::Relaxed) && at < config.deadline {
        if let Ok(info) = info::tcp_info(fd) {
            ticks.push(tick(&info, fd, config.epoch, &config.congestion));
        }
        at += config.tick.max(Duration::from_millis(1));
        let now = Instant::now();
        if at > now {
            std::thread::sleep(at - now);
        } else {
            at = now;
        }
    }
    ticks
}

fn tick(info: &TcpInfo, fd: std::os::fd::RawFd, epoch: Instant, congestion: &str) -> Tick {
    let t_s = Instant::now()
        .saturating_duration_since(epoch)
        .as_secs_f64();
    let mss = u64::from(info.snd_mss);
    let inflight_segs = (u64::from(info.unacked) + u64::from(info.retrans))
        .saturating_sub(u64::from(info.sacked) + u64::from(info.lost));
    let bbr = (congestion == "bbr").then(|| info::bbr_info(fd)).flatten();
    Tick {
        t_s,
        counters: Counters::of(info),
        sample: FlowSample {
            t_s,
            flow: 0,
            cwnd: u64::from(info.snd_cwnd) * mss,
            inflight: inflight_segs * mss,
            pacing_rate_bps: pacing_bps(info.pacing_rate),
            delivery_rate_bps: info.delivery_rate as f64 * 8.0,
            bw_estimate_bps: bbr.map_or(0.0, |b| b.bw as f64 * 8.0),
            min_rtt_ms: f64::from(info.min_rtt) / 1e3,
            srtt_ms: f64::from(info.rtt) / 1e3,
            // TCP_INFO has no latest sample: the smoothed RTT stands in.
            latest_rtt_ms: f64::from(info.rtt) / 1e3,
            mode: info::ca_state_name(info.ca_state),
            pacing_gain: bbr.map_or(0.0, |b| b.pacing_gain),
            cwnd_gain: bbr.map_or(0.0, |b| b.cwnd_gain),
            delivered: 0,
            retransmitted: info.bytes_retrans,
            lost: info.bytes_retrans,
            padding: 0,
            controller: Vec::new(),
        },
    }
}

/// `tcpi_pacing_rate` in bits per second: 0 when unpaced (the kernel
/// reports `~0` then).
fn pacing_bps(rate: u64) -> f64 {
    if rate == u64::MAX || rate == u64::from(u32::MAX) {
        0.0
    } else {
        rate as f64 * 8.0
    }
}

/// A receiver's settings.
#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    /// Time zero of the progress record.
    pub epoch: Instant,
    /// Progress is recorded this often.
    pub progress_interval: Duration,
    /// The receiver stops reading (and closes) at this time.
    pub stop: Instant,
}

/// What a receiver read.
#[derive(Clone, Debug, Default)]
pub struct ReceiverReport {
    /// Payload bytes read.
    pub bytes: u64,
    /// (seconds since the epoch, bytes read so far), every progress
    /// interval and at the end.
    pub progress: Vec<(f64, u64)>,
    /// When the connection was handed to the receiver, seconds since the
    /// epoch.
    pub connected_s: f64,
    /// When it stopped reading, seconds since the epoch.
    pub finished_s: f64,
    /// Whether the sender ended the stream (rather than the receiver
    /// stopping at its stop time).
    pub complete: bool,
}

/// Reads `stream` to its end or until `config.stop`, recording progress.
///
/// # Errors
/// The connection failed before its end.
pub fn receive(mut stream: TcpStream, config: &ReceiverConfig) -> Result<ReceiverReport, String> {
    let since = |t: Instant| t.saturating_duration_since(config.epoch).as_secs_f64();
    let connected = Instant::now();
    stream
        .set_read_timeout(Some(
            POLL.min(config.progress_interval.max(Duration::from_millis(1))),
        ))
        .map_err(|e| format!("cannot set the read timeout: {e}"))?;
    let mut buf = vec![0u8; 256 * 1024];
    let mut report = ReceiverReport {
        connected_s: since(connected),
        progress: vec![(since(connected), 0)],
        ..ReceiverReport::default()
    };
    let interval = config.progress_interval.max(Duration::from_millis(1));
    let mut next = connected + interval;
    loop {
        let now = Instant::now();
        // A loop that wakes late (a loaded machine) must not record ticks
        // past the stop time: the record ends at the stop, in time order.
        while now.min(config.stop) >= next {
            report.progress.push((since(next), report.bytes));
            next += interval;
        }
        if now >= config.stop {
            break;
        }
        match stream.read(&mut buf) {
            Ok(0) => {
                report.complete = true;
                break;
            }
            Ok(n) => report.bytes += n as u64,
            Err(e) if timed_out(&e) => {}
            Err(e) => return Err(format!("receive failed after {} bytes: {e}", report.bytes)),
        }
    }
    let end = Instant::now().min(config.stop.max(connected));
    report.finished_s = since(end);
    report.progress.push((report.finished_s, report.bytes));
    Ok(report)
}

/// A TCP socket bound to `local` (port 0: any), not yet connected: its
/// local address is known before the handshake.
///
/// # Errors
/// The socket cannot be made or bound.
pub fn bound_socket(local: SocketAddr) -> io::Result<socket2::Socket> {
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(local),
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )?;
    socket.bind(&local.into())?;
    Ok(socket)
}

/// Connects `socket` to `peer` (blocking, at most `timeout`).
///
/// # Errors
/// The connection failed.
pub fn connect(
    socket: socket2::Socket,
    peer: SocketAddr,
    timeout: Duration,
) -> io::Result<TcpStream> {
    socket.connect_timeout(&peer.into(), timeout)?;
    Ok(socket.into())
}

/// The local address of a bound socket.
///
/// # Errors
/// It has none (not bound to an IP address).
pub fn local_addr(socket: &socket2::Socket) -> io::Result<SocketAddr> {
    socket
        .local_addr()?
        .as_socket()
        .ok_or_else(|| io::Error::other("not an IP socket"))
}

#[cfg(test)]
mod receiver_tests {
    use super::*;

    /// The progress record is in time order and ends at the stop time even
    /// when the loop wakes after it (1 ms ticks with a 1 ms read timeout
    /// overshoot the stop in most of these runs).
    #[test]
    fn progress_ends_at_the_stop_time_in_order() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        for _ in 0..40 {
            let _peer = TcpStream::connect(addr).unwrap();
            let (stream, _) = listener.accept().unwrap();
            let epoch = Instant::now();
            let config = ReceiverConfig {
                epoch,
                progress_interval: Duration::from_millis(1),
                stop: epoch + Duration::from_millis(15),
            };
            let report = receive(stream, &config).unwrap();
            assert!(
                report.progress.windows(2).all(|w| w[0].0 <= w[1].0),
                "{:?}",
                report.progress
            );
            let last = report.progress.last().unwrap().0;
            assert!(last <= 0.015 + 1e-9, "{last} s after a stop at 15 ms");
        }
    }
}
