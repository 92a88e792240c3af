//! Any bbrlab congestion controller inside your own s2n-quic server or
//! client.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # use std::path::Path;
//! let tls = (Path::new("cert.pem"), Path::new("key.pem"));
//! let server = s2n_quic::Server::builder()
//!     .with_tls(tls)?
//!     .with_io("0.0.0.0:4433")?
//!     .with_congestion_controller(bbrlab_s2n_quic::Endpoint::new("obbr:mu=0.5")?)?
//!     .start()?;
//! # drop(server); Ok(()) }
//! ```
//!
//! [`Endpoint`] builds one [`Controller`] per path: a `cc` controller (the
//! same code bbrlab's simulator runs) with what a controller needs and the
//! stack does not give, kept as the simulator's sender keeps it: the
//! delivery-rate estimator, bytes in flight, the recovery period and the
//! pacer ([`cc::Pacer`]). An [`ObserverFactory`] given to
//! [`Endpoint::with_observer`] hears every path's sends, ACKs and losses.
//! `examples/server.rs` is a complete echo server.
//!
//! The crate depends on `bbrlab-cc` and s2n-quic only. s2n-quic's
//! congestion-controller interface is unstable: it needs the
//! `unstable-congestion-controller` feature of s2n-quic 1.91 (this crate
//! enables it; pin the same s2n-quic version).

mod adapter;
mod observer;

pub use adapter::{peer_address, Controller, Endpoint, SentInfo};
pub use cc;
pub use observer::{ObserverFactory, PathObserver};
