//! The relay: a listening socket for the client, one socket towards the
//! server, and a pump per direction.

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use sim::link::{Bottleneck, BufferLimit, LinkConfig, LossModel, RateModel};

use crate::pump::{pump, Clock, DirectionStats, Path};

/// Socket buffers the relay asks for: a 500 Mbit/s burst of 100 ms fits.
const SOCKET_BUFFER: usize = 8 << 20;

/// What the relay emulates.
#[derive(Clone, Debug, PartialEq)]
pub struct EmuConfig {
    /// The bottleneck, server to client.
    pub link: LinkConfig,
    /// The client-to-server rate, if limited.
    pub uplink: Option<RateModel>,
    /// Round-trip propagation delay, split evenly between the directions.
    pub rtt: Duration,
    /// Seed of the random-loss process.
    pub seed: u64,
}

impl EmuConfig {
    /// The link of a scenario (its `[link]`, `uplink`, the first flow's
    /// RTT and the seed), as the simulator would run it.
    ///
    /// # Errors
    /// A scenario without flows has no RTT to emulate.
    pub fn from_scenario(scenario: &scenario::Scenario) -> Result<EmuConfig, String> {
        let flow = scenario.config.flows.first().ok_or_else(|| {
            format!(
                "{}: the scenario has no [[flow]], so no round-trip time to emulate",
                scenario.source.display()
            )
        })?;
        Ok(EmuConfig {
            link: scenario.config.link.clone(),
            uplink: scenario.config.uplink.clone(),
            rtt: flow.rtt,
            seed: scenario.config.seed,
        })
    }
}

/// A running relay; stops when dropped.
pub struct Relay {
    listen: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<io::Result<()>>>,
    /// Server to client.
    pub down: Arc<DirectionStats>,
    /// Client to server.
    pub up: Arc<DirectionStats>,
}

impl Relay {
    /// Binds `listen` (port 0 picks one: see [`Relay::listen_addr`]) and
    /// starts relaying between it and `forward` through `config`.
    ///
    /// # Errors
    /// The sockets cannot be bound or configured.
    pub fn start(listen: SocketAddr, forward: SocketAddr, config: &EmuConfig) -> io::Result<Relay> {
        let client_side = UdpSocket::bind(listen)?;
        let unspecified: SocketAddr = if forward.is_ipv4() {
            "0.0.0.0:0".parse().expect("literal")
        } else {
            "[::]:0".parse().expect("literal")
        };
        let server_side = UdpSocket::bind(unspecified)?;
        for socket in [&client_side, &server_side] {
            set_buffers(socket, SOCKET_BUFFER);
        }
        let listen = client_side.local_addr()?;
        let client: Arc<Mutex<Option<SocketAddr>>> = Arc::new(Mutex::new(None));
        let stop = Arc::new(AtomicBool::new(false));
        let (down, up) = (
            Arc::new(DirectionStats::default()),
            Arc::new(DirectionStats::default()),
        );
        let clock = Clock::start();
        let one_way = config.rtt / 2;
        let downlink = Path {
            link: Some(Bottleneck::new(&config.link, config.seed)),
            delay: one_way,
        };
        let uplink = Path {
            link: config.uplink.clone().map(|rate| {
                // The simulator's ACK path: its rate, no loss, no limit.
                let ack_path = LinkConfig {
                    rate,
                    buffer: BufferLimit::Packets(u64::MAX),
                    burst: cc::Bytes(0),
                    line_rate: config.link.line_rate,
                    loss: LossModel::None,
                };
                Bottleneck::new(&ack_path, config.seed)
            }),
            delay: config.rtt - one_way,
        };
        let client_side = Arc::new(client_side);
        let server_side = Arc::new(server_side);
        let mut threads = Vec::new();
        {
            let (input, output) = (client_side.clone(), server_side.clone());
            let (client, stop, stats) = (client.clone(), stop.clone(), up.clone());
            threads.push(
                std::thread::Builder::new()
                    .name("emu-uplink".into())
                    .spawn(move || {
                        let route = move |from: SocketAddr| {
                            *client.lock().expect("client lock") = Some(from);
                            Some(forward)
                        };
                        pump(&input, &output, &route, uplink, clock, &stop, &stats)
                    })?,
            );
        }
        {
            let (input, output) = (server_side, client_side);
            let (stop, stats) = (stop.clone(), down.clone());
            threads.push(
                std::thread::Builder::new()
                    .name("emu-downlink".into())
                    .spawn(move || {
                        // Only the server's datagrams go to the client.
                        let route = move |from: SocketAddr| {
                            if from == forward {
                                *client.lock().expect("client lock")
                            } else {
                                None
                            }
                        };
                        pump(&input, &output, &route, downlink, clock, &stop, &stats)
                    })?,
            );
        }
        Ok(Relay {
            listen,
            stop,
            threads,
            down,
            up,
        })
    }

    /// The address clients send to.
    pub fn listen_addr(&self) -> SocketAddr {
        self.listen
    }

    /// Stops both directions and reports the first error either hit.
    ///
    /// # Errors
    /// A pump's socket failed.
    pub fn stop(mut self) -> io::Result<()> {
        self.halt()
    }

    fn halt(&mut self) -> io::Result<()> {
        self.stop.store(true, Ordering::Relaxed);
        let mut result = Ok(());
        for thread in self.threads.drain(..) {
            let outcome = thread
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("a relay thread panicked")));
            if result.is_ok() {
                result = outcome;
            }
        }
        result
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.halt();
    }
}

/// Asks for large socket buffers; the kernel caps them at its
/// net.core.{r,w}mem_max, which is the limit docs/EMULATION.md describes.
fn set_buffers(socket: &UdpSocket, bytes: usize) {
    use std::os::fd::AsRawFd;
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
