//! bbrlab's deterministic discrete-event simulator.
//!
//! A run is a pure function of its [`SimConfig`]: a dumbbell of flows, each
//! a QUIC-like connection ([`transport`]) driven by a congestion controller
//! from the `cc` crate, through one bottleneck ([`link`]). Time is integer
//! nanoseconds; ties between events break by insertion order.
//!
//! ```no_run
//! # fn config() -> sim::SimConfig { unimplemented!() }
//! let result = sim::Simulation::new(config()).run();
//! println!("goodput {:.1} Mbit/s", result.flows[0].goodput_bps / 1e6);
//! ```

pub mod app;
mod builder;
pub mod config;
pub mod event;
mod offset;
/// The link model lives in its own crate (`bbrlab-link`), which the
/// real-time emulator shares; re-exported here as it always was.
pub use ::link;
pub mod qlog;
mod recorder;
pub mod results;
mod simulation;
mod slots;
pub mod transport;

pub use builder::Dumbbell;
pub use cc::derive_seed;
pub use config::{AckPolicy, CopilotConfig, FlowConfig, SimConfig, TransportConfig};
pub use recorder::{DelayHistogram, RootMeanSquare};
pub use results::{
    FlowColumn, FlowSample, FlowSummary, LinkColumn, LinkSample, LinkSummary, LostSplit,
    Percentiles, RunResult, Series,
};
pub use simulation::Simulation;
