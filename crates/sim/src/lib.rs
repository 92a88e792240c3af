//! bbrlab's deterministic discrete-event simulator.
pub mod config;
pub mod link;

pub use config::{AckPolicy, FlowConfig, SimConfig, TransportConfig};
