//! The shell: any program's traffic through the link model, as
//! mahimahi's mm-link and mm-delay do.
//!
//! # The model
//!
//! A shell is a network namespace of its own and two TUN devices, one on
//! each side, joined by the emulator's two pumps:
//!
//! ```text
//!  outer namespace                      the shell's namespace
//!  (servers, the kernel's senders)      (the command, the receivers)
//!   bbrlabN  outer address  <-- uplink ---  bbrlab0  inner address
//!                           --- downlink ->
//! ```
//!
//! Every IP packet the kernel routes to one device is read by the shell,
//! crosses [`link::Bottleneck`] on the wall clock (the same code the
//! simulator and the UDP relay run: rate, schedule or trace, drop-tail
//! buffer, token bucket, random and Gilbert-Elliott loss), waits its share
//! of the round trip, and is written into the other device, where the
//! kernel takes it as received. Any protocol crosses: TCP, UDP, QUIC,
//! ICMP. IPv6 is off on both devices.
//!
//! - The downlink (outer to inner, the data direction of a download from
//!   a server outside) carries the scenario's `[link]` and half the RTT.
//! - The uplink carries the other half of the RTT and, as the simulator's
//!   ACK path, the scenario's `uplink` rate if it has one (no loss, no
//!   queue limit), else no limit; or, with
//!   [`ShellConfig::uplink_mirrors_link`], a second copy of the link
//!   (its own queue and its own loss draws), as mm-link given one trace
//!   for both directions.
//!
//! A rate counts whole IP packets (headers included), as mm-link does, and
//! the buffer holds IP packets, counted in bytes or packets as the link
//! says. Packets are 1500 bytes at most (the devices' MTU).
//!
//! The namespace reaches the outside only at the outer address (no
//! default route, no forwarding): programs inside reach servers of the
//! outer namespace there, and programs outside reach servers inside at
//! the inner address.
//!
//! # Cleanup
//!
//! Nothing the shell makes outlives its process: the namespace is not
//! named and the devices are not persistent, so the kernel removes them
//! when their last descriptor closes, whether bbrlab returns, is
//! interrupted or is killed; a command started by [`Shell::command`] is
//! killed when bbrlab dies.

mod netns;
mod ports;
mod tun;

use std::ffi::OsStr;
use std::io;
use std::net::Ipv4Addr;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use link::Bottleneck;

use crate::pump::{Clock, DirectionStats, Path, Pumps};
use crate::relay::EmuConfig;
pub use netns::Namespace;
use ports::{PortRoutes, TunDirection};
pub use tun::Tun;

/// The block the shells' addresses come from: 100.64.0.0/16, in the
/// shared address space of RFC 6598 (as mahimahi's), which no public host
/// uses. Each shell takes a /30 of it: the outer address, then the inner.
const ADDRESS_BLOCK: u32 = 0x6440_0000;
/// /30 blocks in it.
const ADDRESS_SLOTS: u32 = 1 << 14;
/// The environment variable naming the outer address for the command
/// (and the mahimahi name of the same, for scripts written for it).
pub const BASE_VARIABLE: &str = "BBRLAB_BASE";
const MAHIMAHI_BASE_VARIABLE: &str = "MAHIMAHI_BASE";

/// What a shell emulates.
#[derive(Clone, Debug, PartialEq)]
pub struct ShellConfig {
    /// The link, its uplink rate, the round trip and the seed of its loss.
    pub link: EmuConfig,
    /// The uplink is a second copy of the link (each way its own queue and
    /// loss) instead of the ACK path `link.uplink` describes.
    pub uplink_mirrors_link: bool,
}

/// What went wrong starting or driving a shell.
#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    /// The machine refused a namespace, a device or a setting.
    #[error(transparent)]
    System(#[from] io::Error),
    /// A request the shell cannot honour.
    #[error("{0}")]
    Invalid(String),
}

/// A running shell; stops its pumps when dropped.
pub struct Shell {
    namespace: Namespace,
    outer: Arc<Tun>,
    inner: Arc<Tun>,
    outer_addr: Ipv4Addr,
    inner_addr: Ipv4Addr,
    rtt: Duration,
    routes: Arc<PortRoutes>,
    pumps: Pumps,
    clock: Clock,
    /// The downlink's counters (outer to inner namespace).
    pub down: Arc<DirectionStats>,
    /// The uplink's counters (inner to outer namespace).
    pub up: Arc<DirectionStats>,
}

impl Shell {
    /// Makes the namespace and its devices and starts both directions.
    ///
    /// # Errors
    /// No privilege (CAP_NET_ADMIN and CAP_SYS_ADMIN, /dev/net/tun), no
    /// free address block, or a thread that could not start.
    pub fn start(config: &ShellConfig) -> Result<Shell, ShellError> {
        let (outer_addr, inner_addr, outer, namespace, inner) = claim_addresses()?;
        let (outer, inner) = (Arc::new(outer), Arc::new(inner));
        let link = &config.link;
        let down_delay = link.rtt / 2;
        let up_delay = link.rtt - down_delay;
        let uplink_model = if config.uplink_mirrors_link {
            // Its own loss draws: a seed of its own.
            Some(Bottleneck::new(&link.link, link.seed ^ 0x5eed_0f0f_u64))
        } else {
            link.ack_path()
        };
        let routes = Arc::new(PortRoutes::default());
        let mut shell = Shell {
            namespace,
            outer: outer.clone(),
            inner: inner.clone(),
            outer_addr,
            inner_addr,
            rtt: link.rtt,
            routes: routes.clone(),
            pumps: Pumps::default(),
            clock: Clock::start(),
            down: Arc::default(),
            up: Arc::default(),
        };
        let directions = [
            (
                "shell-downlink",
                TunDirection {
                    input: outer.clone(),
                    output: inner.clone(),
                    downlink: true,
                    delay: down_delay,
                    routes: routes.clone(),
                },
                Path {
                    link: Some(Bottleneck::new(&link.link, link.seed)),
                    min_delay: down_delay,
                },
                shell.down.clone(),
            ),
            (
                "shell-uplink",
                TunDirection {
                    input: inner,
                    output: outer,
                    downlink: false,
                    delay: up_delay,
                    routes,
                },
                Path {
                    link: uplink_model,
                    min_delay: up_delay,
                },
                shell.up.clone(),
            ),
        ];
        for (name, ports, path, stats) in directions {
            // On a failed spawn, dropping `shell` stops the thread already
            // running.
            let clock = shell.clock.clone();
            shell.pumps.spawn(name, ports, path, clock, stats)?;
        }
        Ok(shell)
    }

    /// The outer namespace's address: where the command reaches the
    /// outside (servers of the outer namespace listen on it or on any
    /// address).
    pub fn outer_addr(&self) -> Ipv4Addr {
        self.outer_addr
    }

    /// The namespace's own address: where programs outside reach the
    /// command's servers.
    pub fn inner_addr(&self) -> Ipv4Addr {
        self.inner_addr
    }

    /// The devices' names: outside, then inside the namespace.
    pub fn device_names(&self) -> (&str, &str) {
        (self.outer.name(), self.inner.name())
    }

    /// The wall-clock instant of model time zero (the link's schedule or
    /// trace starts here).
    pub fn epoch(&self) -> std::time::Instant {
        self.clock.epoch()
    }

    /// Runs `f` on a thread inside the namespace: sockets it creates
    /// belong to the namespace wherever they are used afterwards.
    ///
    /// # Errors
    /// The thread could not start or enter the namespace.
    pub fn in_namespace<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> io::Result<T> {
        self.namespace.run(f)
    }

    /// Gives the packets whose inner-side TCP or UDP port is `port` a round
    /// trip of `rtt` (half each way) instead of the shell's.
    ///
    /// # Errors
    /// `rtt` is shorter than the shell's: the pumps sleep as long as the
    /// shell's shortest delay, so a shorter one would be late.
    pub fn route_port(&self, port: u16, rtt: Duration) -> Result<(), ShellError> {
        if rtt < self.rtt {
            return Err(ShellError::Invalid(format!(
                "a round trip of {rtt:?} for port {port} is shorter than the shell's {:?}; \
                 start the shell with the shortest round trip",
                self.rtt
            )));
        }
        let down = rtt / 2;
        self.routes.insert(port, down, rtt - down);
        Ok(())
    }

    /// A command that runs `program` inside the namespace, with the outer
    /// address in `BBRLAB_BASE` (and `MAHIMAHI_BASE`), default signal
    /// dispositions, and killed if bbrlab dies first.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut command = Command::new(program);
        let base = self.outer_addr.to_string();
        command
            .env(BASE_VARIABLE, &base)
            .env(MAHIMAHI_BASE_VARIABLE, &base);
        let namespace = self.namespace.fd();
        // SAFETY: getpid is async-signal-safe.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the closure only makes async-signal-safe system calls
        // (setns, prctl, signal, getppid) between fork and exec.
        unsafe {
            command.pre_exec(move || {
                netns::enter(namespace)?;
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) < 0 {
                    return Err(io::Error::last_os_error());
                }
                // bbrlab may have died before the signal was asked for.
                if libc::getppid() != parent {
                    return Err(io::Error::other("bbrlab ended before the command started"));
                }
                for signal in [libc::SIGINT, libc::SIGQUIT, libc::SIGTERM, libc::SIGPIPE] {
                    libc::signal(signal, libc::SIG_DFL);
                }
                Ok(())
            });
        }
        command
    }

    /// Packets each device's transmit queue dropped before the shell read
    /// them (outer, inner): losses outside the link model, zero unless the
    /// machine could not keep up.
    ///
    /// # Errors
    /// The kernel's device table could not be read.
    pub fn dropped_before_link(&self) -> io::Result<(u64, u64)> {
        let outer = transmit_drops(self.outer.name())?;
        let name = self.inner.name().to_string();
        let inner = self.namespace.run(move || transmit_drops(&name))??;
        Ok((outer, inner))
    }

    /// Stops both directions and reports the first error either hit.
    ///
    /// # Errors
    /// A pump's device failed.
    pub fn stop(mut self) -> io::Result<()> {
        self.pumps.halt()
    }
}

/// Finds a free /30 in the shells' block, makes the namespace and both
/// devices and gives them its addresses. Another shell starting at the
/// same moment may pick the same block: the addresses are checked again
/// once configured, and the next block is tried on a clash.
#[allow(clippy::type_complexity)]
fn claim_addresses() -> Result<(Ipv4Addr, Ipv4Addr, Tun, Namespace, Tun), ShellError> {
    let first = std::process::id().wrapping_mul(7919) % ADDRESS_SLOTS;
    for step in 0..ADDRESS_SLOTS {
        let slot = (first + step) % ADDRESS_SLOTS;
        let outer_addr = Ipv4Addr::from(ADDRESS_BLOCK + slot * 4 + 1);
        let inner_addr = Ipv4Addr::from(ADDRESS_BLOCK + slot * 4 + 2);
        if addresses_in_use()?
            .iter()
            .any(|a| *a == outer_addr || *a == inner_addr)
        {
            continue;
        }
        let (namespace, inner) = Namespace::create(move || {
            tun::loopback_up()?;
            let inner = Tun::create("bbrlab-in")?;
            inner.configure(inner_addr, outer_addr)?;
            Ok(inner)
        })?;
        let outer = Tun::create("bbrlab%d")?;
        outer.configure(outer_addr, inner_addr)?;
        let clashes = addresses_in_use()?
            .iter()
            .filter(|a| **a == outer_addr || **a == inner_addr)
            .count();
        // Ours: the outer address, and the inner one as its peer.
        if clashes == 2 {
            return Ok((outer_addr, inner_addr, outer, namespace, inner));
        }
    }
    Err(ShellError::Invalid(
        "no free address block in 100.64.0.0/16 for the shell".into(),
    ))
}

/// Every IPv4 address of the calling thread's namespace, local and
/// point-to-point peers.
fn addresses_in_use() -> io::Result<Vec<Ipv4Addr>> {
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `list`, freed below.
    if unsafe { libc::getifaddrs(&mut list) } < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut found = Vec::new();
    let mut entry = list;
    while !entry.is_null() {
        // SAFETY: a node of the list getifaddrs returned.
        let node = unsafe { &*entry };
        for address in [node.ifa_addr, node.ifa_ifu] {
            if let Some(a) = ipv4_of(address) {
                found.push(a);
            }
        }
        entry = node.ifa_next;
    }
    // SAFETY: the list getifaddrs returned, freed once.
    unsafe { libc::freeifaddrs(list) };
    Ok(found)
}

fn ipv4_of(address: *mut libc::sockaddr) -> Option<Ipv4Addr> {
    if address.is_null() {
        return None;
    }
    // SAFETY: a sockaddr from getifaddrs; read as sockaddr_in only when its
    // family says so.
    unsafe {
        if i32::from((*address).sa_family) != libc::AF_INET {
            return None;
        }
        let inet = &*(address as *const libc::sockaddr_in);
        Some(Ipv4Addr::from(u32::from_be(inet.sin_addr.s_addr)))
    }
}

/// Packets the device `name` (in the calling thread's namespace) dropped
/// from its transmit queue.
fn transmit_drops(name: &str) -> io::Result<u64> {
    let table = std::fs::read_to_string("/proc/thread-self/net/dev")?;
    table
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(device, _)| device.trim() == name)
        .and_then(|(_, counters)| counters.split_whitespace().nth(11)?.parse().ok())
        .ok_or_else(|| io::Error::other(format!("no counters for device {name}")))
}
