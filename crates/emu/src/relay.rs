//! The relay: a client-facing socket per route, a server-facing socket per
//! client (a NAT), and a pump per direction shared by all of them.

use std::collections::HashMap;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::os::unix::net::UnixDatagram;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use link::{Bottleneck, BufferLimit, LinkConfig, LossModel, RateModel};

use std::os::fd::{AsRawFd, RawFd};

use crate::pump::{
    Clock, Datagram, DirectionStats, Hop, Path, Ports, Pumps, Received, HEADER_BYTES,
};

/// Socket buffers the relay asks for: a 500 Mbit/s burst of 100 ms fits.
const SOCKET_BUFFER: usize = 8 << 20;

/// Clients one relay serves at most, over all routes and its whole life.
/// Each holds a server-facing socket (and up to 2 x 8 MB of socket buffers
/// in the kernel) that is never reclaimed, as a NAT mapping that never
/// expires: a relay lives for one experiment. Datagrams from further
/// clients are dropped and counted as undeliverable.
pub const MAX_CLIENTS: usize = 64;

/// What the relay emulates.
#[derive(Clone, Debug, PartialEq)]
pub struct EmuConfig {
    /// The bottleneck, server to client.
    pub link: LinkConfig,
    /// The client-to-server rate, if limited.
    pub uplink: Option<RateModel>,
    /// Round-trip propagation delay of [`Relay::start`]'s one route, split
    /// evenly between the directions ([`Relay::start_routes`] takes one
    /// per route instead).
    pub rtt: Duration,
    /// Seed of the random-loss process.
    pub seed: u64,
}

impl EmuConfig {
    /// The uplink's model as the simulator's ACK path: the `uplink` rate,
    /// no loss, no queue limit; None when the uplink is unlimited.
    pub fn ack_path(&self) -> Option<Bottleneck<Datagram>> {
        self.uplink.clone().map(|rate| {
            let ack_path = LinkConfig {
                rate,
                buffer: BufferLimit::Packets(u64::MAX),
                burst: cc::Bytes(0),
                line_rate: self.link.line_rate,
                loss: LossModel::None,
            };
            Bottleneck::new(&ack_path, self.seed)
        })
    }
}

/// One client-facing entry of the relay: clients send to `listen`, the
/// relay forwards to `forward`; datagrams of this route get `rtt` of
/// propagation delay (half each way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    /// Address clients send to (port 0 picks one: see
    /// [`Relay::listen_addrs`]).
    pub listen: SocketAddr,
    /// The server's address.
    pub forward: SocketAddr,
    /// Round-trip propagation delay of this route: the downlink gets half,
    /// the uplink the rest.
    pub rtt: Duration,
}

impl Route {
    /// The server-to-client propagation delay: half the RTT.
    pub fn downlink_delay(&self) -> Duration {
        self.rtt / 2
    }

    /// The client-to-server propagation delay: the rest of the RTT.
    pub fn uplink_delay(&self) -> Duration {
        self.rtt - self.downlink_delay()
    }
}

/// A client the relay has heard from, with its own server-facing socket.
struct Client {
    /// Its route's index.
    route: usize,
    /// Its address, where the server's replies go.
    addr: SocketAddr,
    /// The socket the server sees it as.
    socket: Arc<UdpSocket>,
}

/// The relay's side of a direction, in socket terms; [`Udp`] makes it the
/// pump's [`Ports`].
trait UdpPorts {
    /// As [`Ports::refresh`].
    fn refresh(&mut self) -> bool;
    /// The sockets to read (non-blocking), as of the last refresh.
    fn inputs(&self) -> &[Arc<UdpSocket>];
    /// As [`Ports::wake`].
    fn wake(&self) -> Option<&UnixDatagram>;
    /// Where a datagram read from input `input`, sent by `from`, goes;
    /// None drops it as undeliverable.
    fn route(&mut self, input: usize, from: SocketAddr) -> Option<Hop>;
    /// The socket numbered `via` (from a [`Hop`] this direction made).
    fn output(&self, via: usize) -> &UdpSocket;
}

/// A [`UdpPorts`] as the pump sees it: every packet is a UDP payload,
/// counted with its IPv4 and UDP headers.
struct Udp<P>(P);

impl<P: UdpPorts> Ports for Udp<P> {
    fn refresh(&mut self) -> bool {
        self.0.refresh()
    }

    fn input_fds(&self) -> Vec<RawFd> {
        self.0.inputs().iter().map(|s| s.as_raw_fd()).collect()
    }

    fn wake(&self) -> Option<&UnixDatagram> {
        self.0.wake()
    }

    fn receive(&mut self, input: usize, buffer: &mut [u8]) -> io::Result<Received> {
        let (len, from) = self.0.inputs()[input].recv_from(buffer)?;
        Ok(match self.0.route(input, from) {
            Some(hop) => Received::Packet {
                len,
                hop,
                overhead: HEADER_BYTES,
            },
            None => Received::Undeliverable,
        })
    }

    fn send(&self, datagram: &Datagram) -> io::Result<()> {
        let to = datagram
            .to
            .ok_or_else(|| io::Error::other("a relayed datagram without a destination"))?;
        self.0
            .output(datagram.via)
            .send_to(&datagram.payload, to)
            .map(drop)
    }
}

/// The client table both directions share. Entries are only ever added
/// (by the uplink), so their count tells the downlink whether it has seen
/// them all without taking the lock.
#[derive(Default)]
struct Nat {
    clients: Mutex<Vec<Arc<Client>>>,
    count: AtomicUsize,
}

/// The uplink's ports: reads the client-facing sockets, writes each
/// client's server-facing socket, creating it on the client's first
/// datagram.
struct Uplink {
    listening: Vec<Arc<UdpSocket>>,
    /// Per route: the server and the uplink's delay.
    routes: Vec<(SocketAddr, Duration)>,
    /// (route, client address) to the index of its socket in `outputs`.
    table: HashMap<(usize, SocketAddr), usize>,
    outputs: Vec<Arc<UdpSocket>>,
    nat: Arc<Nat>,
    /// Tells the downlink that a socket was added.
    wake: UnixDatagram,
}

impl Uplink {
    /// A new client's mapping, or None if the table is full or its socket
    /// cannot be made (then its datagrams are undeliverable, and the
    /// relay carries on for the others).
    fn admit(&mut self, route: usize, from: SocketAddr) -> Option<usize> {
        if self.outputs.len() >= MAX_CLIENTS {
            return None;
        }
        let socket = Arc::new(server_facing(self.routes[route].0).ok()?);
        let via = self.outputs.len();
        self.outputs.push(socket.clone());
        self.table.insert((route, from), via);
        let mut clients = self.nat.clients.lock().unwrap_or_else(|e| e.into_inner());
        clients.push(Arc::new(Client {
            route,
            addr: from,
            socket,
        }));
        self.nat.count.store(clients.len(), Ordering::Release);
        drop(clients);
        // A full wake-up buffer means the downlink has a wake-up pending.
        let _ = self.wake.send(&[1]);
        Some(via)
    }
}

impl UdpPorts for Uplink {
    fn refresh(&mut self) -> bool {
        false
    }

    fn inputs(&self) -> &[Arc<UdpSocket>] {
        &self.listening
    }

    fn wake(&self) -> Option<&UnixDatagram> {
        None
    }

    fn route(&mut self, input: usize, from: SocketAddr) -> Option<Hop> {
        let via = match self.table.get(&(input, from)) {
            Some(&via) => via,
            None => self.admit(input, from)?,
        };
        let (to, delay) = self.routes[input];
        Some(Hop {
            via,
            to: Some(to),
            delay,
        })
    }

    fn output(&self, via: usize) -> &UdpSocket {
        &self.outputs[via]
    }
}

/// The downlink's ports: reads every client's server-facing socket (the
/// set grows as the uplink admits clients), writes the client-facing
/// socket of the client's route.
struct Downlink {
    nat: Arc<Nat>,
    /// The clients seen so far, in the table's order; `inputs[i]` is
    /// `clients[i].socket`.
    clients: Vec<Arc<Client>>,
    inputs: Vec<Arc<UdpSocket>>,
    /// Per route: the server and the downlink's delay.
    routes: Vec<(SocketAddr, Duration)>,
    listening: Vec<Arc<UdpSocket>>,
    wake: UnixDatagram,
}

impl UdpPorts for Downlink {
    fn refresh(&mut self) -> bool {
        if self.nat.count.load(Ordering::Acquire) == self.clients.len() {
            return false;
        }
        let clients = self.nat.clients.lock().unwrap_or_else(|e| e.into_inner());
        for client in &clients[self.clients.len()..] {
            self.inputs.push(client.socket.clone());
            self.clients.push(client.clone());
        }
        true
    }

    fn inputs(&self) -> &[Arc<UdpSocket>] {
        &self.inputs
    }

    fn wake(&self) -> Option<&UnixDatagram> {
        Some(&self.wake)
    }

    fn route(&mut self, input: usize, from: SocketAddr) -> Option<Hop> {
        let client = &self.clients[input];
        let (server, delay) = self.routes[client.route];
        // Only the server's datagrams go to the client.
        (from == server).then_some(Hop {
            via: client.route,
            to: Some(client.addr),
            delay,
        })
    }

    fn output(&self, via: usize) -> &UdpSocket {
        &self.listening[via]
    }
}

/// A running relay; stops when dropped.
pub struct Relay {
    listen: Vec<SocketAddr>,
    nat: Arc<Nat>,
    pumps: Pumps,
    clock: Clock,
    /// Server to client, all routes and clients together.
    pub down: Arc<DirectionStats>,
    /// Client to server, all routes and clients together.
    pub up: Arc<DirectionStats>,
}

impl Relay {
    /// Binds `listen` (port 0 picks one: see [`Relay::listen_addr`]) and
    /// starts relaying between it and `forward` through `config`, with
    /// `config.rtt`: the one-route case of [`Relay::start_routes`].
    ///
    /// # Errors
    /// The sockets cannot be bound or configured.
    pub fn start(listen: SocketAddr, forward: SocketAddr, config: &EmuConfig) -> io::Result<Relay> {
        Relay::start_routes(
            &[Route {
                listen,
                forward,
                rtt: config.rtt,
            }],
            config,
        )
    }

    /// Binds every route's `listen` address and starts relaying through
    /// `config`'s links, which all routes and clients share: one downlink
    /// bottleneck and one uplink, so flows compete as in the simulator.
    /// Each route has its own RTT (`config.rtt` is not used). Each
    /// distinct client of a route gets its own server-facing socket, up to
    /// [`MAX_CLIENTS`] in all.
    ///
    /// # Errors
    /// No routes, or a socket cannot be bound or configured.
    pub fn start_routes(routes: &[Route], config: &EmuConfig) -> io::Result<Relay> {
        Relay::start_routes_on(routes, config, Clock::start())
    }

    /// As [`Relay::start_routes`], but the links' model time stays at zero
    /// (the schedule or trace at its start) until [`Relay::begin`]: for a
    /// run whose clients are got ready after the relay is up (a browser
    /// needs the relay's address to start), so that the link's schedule
    /// starts with the run.
    ///
    /// # Errors
    /// As [`Relay::start_routes`].
    pub fn start_routes_held(routes: &[Route], config: &EmuConfig) -> io::Result<Relay> {
        Relay::start_routes_on(routes, config, Clock::held())
    }

    /// Starts a held relay's model time now (no effect on a running one).
    pub fn begin(&self) {
        self.clock.begin();
    }

    fn start_routes_on(routes: &[Route], config: &EmuConfig, clock: Clock) -> io::Result<Relay> {
        if routes.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a relay needs at least one route",
            ));
        }
        let mut listening = Vec::with_capacity(routes.len());
        for route in routes {
            let socket = UdpSocket::bind(route.listen)?;
            set_buffers(&socket, SOCKET_BUFFER);
            socket.set_nonblocking(true)?;
            listening.push(Arc::new(socket));
        }
        let listen = listening
            .iter()
            .map(|s| s.local_addr())
            .collect::<io::Result<Vec<_>>>()?;
        let (wake_sender, wake_receiver) = UnixDatagram::pair()?;
        wake_sender.set_nonblocking(true)?;
        wake_receiver.set_nonblocking(true)?;
        let nat = Arc::new(Nat::default());
        let (down, up) = (
            Arc::new(DirectionStats::default()),
            Arc::new(DirectionStats::default()),
        );
        let down_delays: Vec<Duration> = routes.iter().map(Route::downlink_delay).collect();
        let up_delays: Vec<Duration> = routes.iter().map(Route::uplink_delay).collect();
        let shortest = |delays: &[Duration]| delays.iter().copied().min().unwrap_or_default();
        let downlink = Path {
            link: Some(Bottleneck::new(&config.link, config.seed)),
            min_delay: shortest(&down_delays),
        };
        let uplink = Path {
            link: config.ack_path(),
            min_delay: shortest(&up_delays),
        };
        let up_ports = Uplink {
            listening: listening.clone(),
            routes: routes.iter().map(|r| r.forward).zip(up_delays).collect(),
            table: HashMap::new(),
            outputs: Vec::new(),
            nat: nat.clone(),
            wake: wake_sender,
        };
        let down_ports = Downlink {
            nat: nat.clone(),
            clients: Vec::new(),
            inputs: Vec::new(),
            routes: routes.iter().map(|r| r.forward).zip(down_delays).collect(),
            listening,
            wake: wake_receiver,
        };
        let mut relay = Relay {
            listen,
            nat,
            pumps: Pumps::default(),
            clock: clock.clone(),
            down,
            up,
        };
        // On a failed spawn, dropping `relay` stops the thread already
        // running.
        let stats = relay.up.clone();
        relay
            .pumps
            .spawn("emu-uplink", Udp(up_ports), uplink, clock.clone(), stats)?;
        let stats = relay.down.clone();
        relay
            .pumps
            .spawn("emu-downlink", Udp(down_ports), downlink, clock, stats)?;
        Ok(relay)
    }

    /// The wall-clock instant of model time zero: the link's schedule or
    /// trace starts here, so a datagram that arrives at a client at `t`
    /// left the link at model time `t - epoch - ` its route's one-way delay.
    pub fn epoch(&self) -> std::time::Instant {
        self.clock.epoch()
    }

    /// The address clients send to: the first route's.
    pub fn listen_addr(&self) -> SocketAddr {
        self.listen[0]
    }

    /// The bound client-facing address of each route, in order (port 0
    /// resolved).
    pub fn listen_addrs(&self) -> Vec<SocketAddr> {
        self.listen.clone()
    }

    /// Clients heard from so far, over all routes (at most
    /// [`MAX_CLIENTS`]).
    pub fn clients(&self) -> usize {
        self.nat.count.load(Ordering::Acquire)
    }

    /// Stops both directions and reports the first error either hit.
    ///
    /// # Errors
    /// A pump's socket failed.
    pub fn stop(mut self) -> io::Result<()> {
        self.pumps.halt()
    }
}

/// A client's server-facing socket: the unspecified address of the
/// server's family, any port, large buffers, non-blocking.
fn server_facing(server: SocketAddr) -> io::Result<UdpSocket> {
    let unspecified: SocketAddr = if server.is_ipv4() {
        (std::net::Ipv4Addr::UNSPECIFIED, 0).into()
    } else {
        (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
    };
    let socket = UdpSocket::bind(unspecified)?;
    set_buffers(&socket, SOCKET_BUFFER);
    socket.set_nonblocking(true)?;
    Ok(socket)
}

/// Asks for large socket buffers; the kernel caps them at its
/// net.core.{r,w}mem_max, which is the limit docs/EMULATION.md describes.
fn set_buffers(socket: &UdpSocket, bytes: usize) {
    let value = bytes as libc::c_int;
    for option in [libc::SO_RCVBUF, libc::SO_SNDBUF] {
        // SAFETY: a valid socket and a c_int option value of the right size.
        unsafe {
            libc::setsockopt(
                socket.as_raw_fd(),
                libc::SOL_SOCKET,
                option,
                (&value as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
    }
}
