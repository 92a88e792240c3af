//! One direction of the emulator: packets read from a set of inputs (the
//! relay's UDP sockets, the shell's TUN device) go through one link model
//! and then each its own propagation delay, and are written out of the
//! output their route names.

use std::cmp::Ordering as CmpOrdering;
use std::collections::BinaryHeap;
use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixDatagram;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use cc::{Bytes, Instant};
use link::{Bottleneck, DelayHistogram, DropReason, LinkPacket, Percentiles};

/// IPv4 and UDP headers: what a datagram adds on the wire to its payload.
pub const HEADER_BYTES: u64 = 28;
/// Largest UDP payload read.
const MAX_DATAGRAM: usize = 65_535;
/// Datagrams read per wake-up at most (over all inputs), so releases are
/// never starved by a flood of arrivals.
const READ_BATCH: usize = 256;
/// Longest sleep without anything due: how quickly a stop request is seen.
const IDLE_WAIT: Duration = Duration::from_millis(20);

/// A packet in the emulator (a UDP payload in the relay, a whole IP
/// packet in the shell), with where it goes.
#[derive(Debug)]
pub struct Datagram {
    /// The bytes read, written out as they are.
    pub payload: Vec<u8>,
    /// Header bytes the link counts beyond `payload`: IPv4 and UDP
    /// ([`HEADER_BYTES`]) for a relayed UDP payload, none for an IP packet.
    pub overhead: u64,
    /// Its destination, for outputs that address each write (sockets);
    /// None for outputs that do not (a device).
    pub to: Option<SocketAddr>,
    /// The output it leaves by, as its direction's [`Ports`] numbers them.
    pub via: usize,
    /// Its propagation delay after the link (its route's, so flows of
    /// different RTTs can share one link).
    pub delay: Duration,
    /// Model time it reached the link.
    pub arrived: Instant,
}

impl LinkPacket for Datagram {
    fn size(&self) -> Bytes {
        Bytes(self.payload.len() as u64 + self.overhead)
    }
}

/// Counters of one direction (all routes and clients together), readable
/// while the relay runs.
#[derive(Debug, Default)]
pub struct DirectionStats {
    /// Datagrams read from the input sockets and accepted for a route.
    pub received: AtomicU64,
    /// Their bytes on the wire (payload + headers).
    pub received_bytes: AtomicU64,
    /// Datagrams the random-loss process took.
    pub lost: AtomicU64,
    /// Datagrams the full buffer dropped.
    pub overflowed: AtomicU64,
    /// Wire bytes of the datagrams lost or dropped by the link.
    pub dropped_bytes: AtomicU64,
    /// Datagrams dropped because there was nowhere to send them (a stranger
    /// wrote to a server-facing socket, the client table is full) or the
    /// send failed.
    pub undeliverable: AtomicU64,
    /// Datagrams written to an output socket.
    pub sent: AtomicU64,
    /// Their bytes on the wire.
    pub sent_bytes: AtomicU64,
    /// Bytes in the link's buffer, as of the pump's last wake-up.
    pub queue_bytes: AtomicU64,
    /// Each datagram's time from reaching the link to leaving it (queueing
    /// and service, the simulator's queueing delay) since the last
    /// [`DirectionStats::reset_queue_delay`]. The pump locks it once per
    /// wake-up that sent something; readers are rare.
    queue_delay: Mutex<DelayHistogram>,
}

impl DirectionStats {
    fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    /// Percentiles of the queueing delays since the last reset (ms, as the
    /// simulator's `link.queue_delay_ms`); zero if nothing left the link.
    pub fn queue_delay(&self) -> Percentiles {
        self.queue_delay
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .percentiles()
    }

    /// Forgets the queueing delays so far: a measurement window opens.
    pub fn reset_queue_delay(&self) {
        self.queue_delay
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .reset();
    }
}

/// The relay's clock: model time is wall time since `epoch`, shared by the
/// pumps of both directions. A held clock reads zero until
/// [`Clock::begin`]: a run whose clients take a while to get ready (a
/// browser's cold start) begins the link's schedule or trace with the
/// run, not when the emulator was built; until then the link stays at its
/// time zero (a datagram crossing it waits for the clock to begin).
#[derive(Clone, Debug)]
pub struct Clock {
    epoch: Arc<std::sync::OnceLock<std::time::Instant>>,
}

impl Clock {
    /// A clock whose model time starts now.
    pub fn start() -> Clock {
        let clock = Clock::held();
        clock.begin();
        clock
    }

    /// A clock at model time zero until [`Clock::begin`].
    pub fn held() -> Clock {
        Clock {
            epoch: Arc::default(),
        }
    }

    /// Starts model time now; a clock that runs already is left alone.
    pub fn begin(&self) {
        let _ = self.epoch.set(std::time::Instant::now());
    }

    /// The wall-clock instant of model time zero (a held clock begins
    /// now).
    pub fn epoch(&self) -> std::time::Instant {
        *self.epoch.get_or_init(std::time::Instant::now)
    }

    /// Model time now (zero while held).
    pub fn now(&self) -> Instant {
        self.epoch.get().map_or(Instant::ZERO, |epoch| {
            Instant::from_nanos(epoch.elapsed().as_nanos().min(u64::MAX as u128) as u64)
        })
    }
}

/// What one direction does to its datagrams.
pub struct Path {
    /// The link model, if the direction has one (an unshaped uplink has not).
    pub link: Option<Bottleneck<Datagram>>,
    /// The shortest propagation delay any datagram of this direction gets.
    /// A departed datagram is released no sooner than this after its
    /// departure, so the pump sleeps until then instead of waking at every
    /// departure (half the wake-ups at full rate).
    pub min_delay: Duration,
}

/// Where a datagram read from an input goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// The output, as [`Ports::send`] numbers them.
    pub via: usize,
    /// The destination address, for outputs that address each write.
    pub to: Option<SocketAddr>,
    /// Propagation delay after the link.
    pub delay: Duration,
}

/// What one read from an input brought.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Received {
    /// A packet of this many bytes (at the start of the buffer), going
    /// this way.
    Packet {
        /// Bytes read.
        len: usize,
        /// Where it goes.
        hop: Hop,
        /// Header bytes the link counts beyond those read.
        overhead: u64,
    },
    /// A packet with nowhere to go: counted as undeliverable.
    Undeliverable,
}

/// The inputs and outputs of one direction and how it routes: what
/// [`pump`] reads and where it writes. The input set may grow while the
/// pump runs (the relay's downlink gains a socket per new client).
pub trait Ports {
    /// Brings the input set up to date; true if it changed since the last
    /// call, so the pump rebuilds its poll set. Called every loop, so it
    /// must be cheap when nothing changed.
    fn refresh(&mut self) -> bool;
    /// The file descriptors to poll, one per input (non-blocking), as of
    /// the last refresh.
    fn input_fds(&self) -> Vec<RawFd>;
    /// A socket that becomes readable when the input set grows, so a new
    /// input is polled at once rather than after the idle wait; the pump
    /// drains it.
    fn wake(&self) -> Option<&UnixDatagram>;
    /// Reads one packet from input `input` into `buffer`.
    ///
    /// # Errors
    /// The read failed; `WouldBlock` when the input is drained.
    fn receive(&mut self, input: usize, buffer: &mut [u8]) -> io::Result<Received>;
    /// Writes `datagram` out of the output its hop named.
    ///
    /// # Errors
    /// The write failed (counted as undeliverable).
    fn send(&self, datagram: &Datagram) -> io::Result<()>;
}

/// A datagram past the link, waiting for its release time.
struct Propagating {
    release: Instant,
    /// Arrival order, so datagrams due at the same time keep it.
    seq: u64,
    datagram: Datagram,
}

impl PartialEq for Propagating {
    fn eq(&self, other: &Self) -> bool {
        (self.release, self.seq) == (other.release, other.seq)
    }
}
impl Eq for Propagating {}
impl PartialOrd for Propagating {
    fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
        Some(self.cmp(other))
    }
}
impl Ord for Propagating {
    /// Reversed, so the max-heap pops the earliest release (first in on a
    /// tie).
    fn cmp(&self, other: &Self) -> CmpOrdering {
        (other.release, other.seq).cmp(&(self.release, self.seq))
    }
}

/// Moves datagrams from the inputs of `ports` through `path` to its
/// outputs until `stop` is set. Datagrams of different delays share the
/// link and leave it in FIFO order; after it, each is released at its
/// departure plus its own delay (a heap, as delays differ by route).
///
/// # Errors
/// A failure to read or to wait on an input other than an interrupted,
/// would-block or connection-refused call; send failures only count as
/// undeliverable.
pub fn pump(
    ports: &mut dyn Ports,
    mut path: Path,
    clock: Clock,
    stop: &AtomicBool,
    stats: &DirectionStats,
) -> io::Result<()> {
    let min_delay = path.min_delay;
    let mut propagating: BinaryHeap<Propagating> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut buffer = vec![0u8; MAX_DATAGRAM];
    // The poll set: every input, then the wake-up socket if any.
    let mut fds: Vec<libc::pollfd> = Vec::new();
    let mut ready: Vec<usize> = Vec::new();
    let mut stale = true;
    while !stop.load(Ordering::Relaxed) {
        if ports.refresh() || stale {
            stale = false;
            fds.clear();
            let wake = ports.wake().map(|w| w.as_raw_fd());
            for fd in ports.input_fds().into_iter().chain(wake) {
                fds.push(libc::pollfd {
                    fd,
                    events: libc::POLLIN,
                    revents: 0,
                });
            }
        }
        let now = clock.now();
        if let Some(link) = path.link.as_mut() {
            let mut delays = None;
            while let Some(departure) = link.next_departure().filter(|&d| d <= now) {
                let Some(datagram) = link.dequeue(now) else {
                    break;
                };
                delays
                    .get_or_insert_with(|| {
                        stats
                            .queue_delay
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                    })
                    .record(Duration::from_nanos(
                        departure
                            .as_nanos()
                            .saturating_sub(datagram.arrived.as_nanos()),
                    ));
                propagating.push(Propagating {
                    release: departure + datagram.delay,
                    seq,
                    datagram,
                });
                seq += 1;
            }
            drop(delays);
            stats
                .queue_bytes
                .store(link.queue_bytes().get(), Ordering::Relaxed);
        }
        while propagating.peek().is_some_and(|p| p.release <= now) {
            let Some(Propagating { datagram, .. }) = propagating.pop() else {
                break;
            };
            match ports.send(&datagram) {
                Ok(_) => {
                    DirectionStats::add(&stats.sent, 1);
                    DirectionStats::add(&stats.sent_bytes, datagram.size().get());
                }
                Err(_) => DirectionStats::add(&stats.undeliverable, 1),
            }
        }
        let next = [
            path.link
                .as_ref()
                .and_then(|l| l.next_departure())
                .map(|d| d + min_delay),
            propagating.peek().map(|p| p.release),
        ]
        .into_iter()
        .flatten()
        .min();
        let wait = next.map_or(IDLE_WAIT, |t| {
            Duration::from_nanos(t.as_nanos().saturating_sub(now.as_nanos())).min(IDLE_WAIT)
        });
        let inputs = fds.len() - usize::from(ports.wake().is_some());
        ready.clear();
        if wait.is_zero() && inputs == 1 {
            // Busy with one input: reading it directly saves the poll's
            // system call (a would-block read costs the same).
            ready.push(0);
        } else {
            if !poll(&mut fds, wait)? {
                continue;
            }
            // Error and hang-up events count too: the read reports them.
            ready.extend((0..inputs).filter(|&i| fds[i].revents != 0));
            if let Some(wake) = ports
                .wake()
                .filter(|_| fds[inputs..].iter().any(|f| f.revents != 0))
            {
                let mut byte = [0u8; 16];
                // The new inputs are seen by the next refresh.
                while wake.recv(&mut byte).is_ok() {}
            }
        }
        // Round robin over the ready inputs, one datagram each in turn, so
        // flows reach the shared link interleaved as they arrived rather
        // than one socket's backlog ahead of the others'.
        let mut budget = READ_BATCH;
        let mut turn = 0;
        while budget > 0 && !ready.is_empty() {
            if turn >= ready.len() {
                turn = 0;
            }
            let input = ready[turn];
            let received = match ports.receive(input, &mut buffer) {
                Ok(read) => read,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    ready.remove(turn);
                    continue;
                }
                // Counted against the budget too, so no error repeats
                // forever.
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                    budget -= 1;
                    continue;
                }
                // An ICMP port-unreachable from an earlier send surfaces
                // here on Linux; the peer may come back.
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                    budget -= 1;
                    continue;
                }
                Err(e) => return Err(e),
            };
            budget -= 1;
            turn += 1;
            let arrived = clock.now();
            let Received::Packet { len, hop, overhead } = received else {
                DirectionStats::add(&stats.undeliverable, 1);
                continue;
            };
            let datagram = Datagram {
                payload: buffer[..len].to_vec(),
                overhead,
                to: hop.to,
                via: hop.via,
                delay: hop.delay,
                arrived,
            };
            DirectionStats::add(&stats.received, 1);
            DirectionStats::add(&stats.received_bytes, datagram.size().get());
            match path.link.as_mut() {
                None => {
                    propagating.push(Propagating {
                        release: arrived + datagram.delay,
                        seq,
                        datagram,
                    });
                    seq += 1;
                }
                Some(link) => {
                    if let Err((datagram, reason)) = link.enqueue(arrived, datagram) {
                        DirectionStats::add(&stats.dropped_bytes, datagram.size().get());
                        match reason {
                            DropReason::RandomLoss => DirectionStats::add(&stats.lost, 1),
                            DropReason::BufferOverflow => DirectionStats::add(&stats.overflowed, 1),
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// The pump threads of an emulator, one per direction, stopped together
/// (and when dropped).
#[derive(Default)]
pub(crate) struct Pumps {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<io::Result<()>>>,
}

impl Pumps {
    /// Starts a thread named `name` pumping `ports` through `path`.
    pub(crate) fn spawn<P: Ports + Send + 'static>(
        &mut self,
        name: &str,
        mut ports: P,
        path: Path,
        clock: Clock,
        stats: Arc<DirectionStats>,
    ) -> io::Result<()> {
        let stop = self.stop.clone();
        self.threads.push(
            std::thread::Builder::new()
                .name(name.into())
                .spawn(move || pump(&mut ports, path, clock, &stop, &stats))?,
        );
        Ok(())
    }

    /// Stops every thread and reports the first error any hit.
    pub(crate) fn halt(&mut self) -> io::Result<()> {
        self.stop.store(true, Ordering::Relaxed);
        let mut result = Ok(());
        for thread in self.threads.drain(..) {
            let outcome = thread
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("an emulator thread panicked")));
            if result.is_ok() {
                result = outcome;
            }
        }
        result
    }
}

impl Drop for Pumps {
    fn drop(&mut self) {
        let _ = self.halt();
    }
}

/// Waits up to `wait` for any of `fds` to become readable (ppoll:
/// nanosecond timeouts, where poll has milliseconds); their `revents` say
/// which. False on a timeout or an interrupted wait.
fn poll(fds: &mut [libc::pollfd], wait: Duration) -> io::Result<bool> {
    let timeout = libc::timespec {
        tv_sec: wait.as_secs() as libc::time_t,
        tv_nsec: wait.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `fds` is a valid array of its length, the timespec is valid,
    // and there is no signal mask.
    let ready = unsafe {
        libc::ppoll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            &timeout,
            std::ptr::null(),
        )
    };
    match ready {
        -1 => {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                Ok(false)
            } else {
                Err(e)
            }
        }
        0 => Ok(false),
        _ => Ok(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_clock_reads_zero_until_it_begins() {
        let clock = Clock::held();
        let pump = clock.clone();
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(
            pump.now(),
            Instant::ZERO,
            "held: the link stays at time zero"
        );
        clock.begin();
        let epoch = clock.epoch();
        std::thread::sleep(Duration::from_millis(30));
        // Both copies run from the one epoch, set at begin, not at held().
        let now = pump.now().as_nanos();
        assert!(now >= 30_000_000 && now < 1_000_000_000, "{now} ns");
        clock.begin();
        assert_eq!(clock.epoch(), epoch, "a running clock is left alone");
        assert!(Clock::start().now() < pump.now());
    }
}
