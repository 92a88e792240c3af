//! bbrlab's congestion controllers inside a real QUIC stack (s2n-quic).
//!
//! The same `cc` controllers the simulator runs drive real connections:
//! the drop-in crate `bbrlab-s2n-quic` turns a `cc::CongestionControl` into
//! s2n-quic's `CongestionController` (delivery-rate estimation, bytes in
//! flight, the recovery period and the pacer kept as the simulator's sender
//! keeps them); [`telemetry`] is its observer here and records what each
//! connection's controller did in the simulator's shapes,
//! and [`pto`] the probe timeouts s2n-quic keeps from it;
//! [`copilot`] pads a live stream's probes with DATAGRAM frames;
//! [`server`] and [`client`] speak [`protocol`] (sized and bulk transfers,
//! live streams) with [`tls`] identities, and the server speaks HTTP/3
//! too ([`http3`]: files, a DASH video, live streams).

pub mod browser;
pub mod client;
pub mod copilot;
pub mod dashjs;
pub mod emulate;
pub mod http3;
pub mod kernel_xval;
pub mod live_browser;
pub mod protocol;
pub mod pto;
pub mod server;
pub mod telemetry;
pub mod tls;
pub mod xval;

pub use bbrlab_s2n_quic::{Controller, SentInfo};
pub use telemetry::{
    controller_endpoint, BandwidthTruth, PathRegistry, PathShared, TelemetryOptions,
};
