//! A real-time link emulator: the simulator's own bottleneck model
//! ([`link::Bottleneck`]: constant rate, schedules, mahimahi and Irish
//! 5G traces, the drop-tail buffer, tc tbf's token bucket, random and
//! Gilbert-Elliott loss) applied to real UDP datagrams on the wall clock,
//! like mahimahi's mm-link and mm-delay in one user-space relay; and the
//! same model under every IP packet of any program, through TUN devices
//! and a network namespace of its own ([`shell`], `bbrlab shell`).
//!
//! # The model
//!
//! A relay has one or more [`Route`]s: clients send to a route's listening
//! address, the relay forwards to the route's server and relays the
//! server's replies back. Like a NAT, it gives each distinct client of a
//! route its own server-facing socket, so the server sees distinct peers
//! and each reply goes back to the client owning the socket it arrived at
//! (at most [`MAX_CLIENTS`] clients per relay; datagrams the server-facing
//! sockets receive from anyone but their server are dropped). Each
//! direction is one [`pump`] on its own thread, shared by every route and
//! client, so flows compete for one link as in the simulator:
//!
//! - server to client (downlink, the data direction of a download): random
//!   loss, the drop-tail buffer and the capacity model of the scenario's
//!   `[link]`, then half the route's round-trip time of propagation;
//! - client to server (uplink: ACKs, requests): the scenario's `uplink` rate
//!   if it has one (an unlimited queue, as the simulator's ACK path), then
//!   the other half of the route's round-trip time.
//!
//! A datagram's size on the link is its payload plus 28 bytes of IPv4 and
//! UDP headers (mm-link counts whole IP packets too).
//!
//! # Time
//!
//! Model time is the wall clock's time since the relay started. A datagram
//! enters the model at the time it is read; its departure is computed in
//! model time by the same code the simulator runs, and it is released when
//! the pump wakes at or after that time. Wake-ups are late by the
//! scheduler's latency (tens of microseconds on an idle machine), so single
//! datagrams carry that jitter, but departures never drift: the long-run
//! rate is the model's exactly, whatever the wake-up latency. What the
//! model cannot see is time a datagram spends in socket buffers before it
//! is read, which a loaded machine lengthens (docs/EMULATION.md).

pub mod pump;
pub mod relay;
pub mod shell;

pub use pump::{Datagram, DirectionStats};
pub use relay::{EmuConfig, Relay, Route, MAX_CLIENTS};
pub use shell::{Shell, ShellConfig, ShellError};
