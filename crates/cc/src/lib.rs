//! Congestion controllers for bbrlab, and what they stand on.
//!
//! - [`units`]: typed units ([`Bytes`], [`Bandwidth`], [`Instant`]).
//! - [`filter`]: windowed min/max filters.
//! - [`rate`]: the delivery-rate estimator a transport runs for its controller.
//! - [`controller`]: the [`CongestionControl`] trait and its events.
//! - [`pacer`]: the token-bucket pacer a transport runs at the controller's
//!   pacing rate; [`derive_seed`]: per-stream seeds from one run seed.
//! - [`spec`]: spec strings (`"bbr"`, `"cubic:beta=0.7"`) and the registry.
//! - one module per algorithm: [`reno`], [`cubic`], [`bbr`] (BBRv1 and the
//!   core its variants extend: [`obbr`], [`cws`], [`modest`], [`bbr_s`],
//!   [`b3r`]), and [`bbr2`] (BBRv2, BBRv3 and adaptive BBRv2).
//!
//! The crate does no I/O and has no clock: every event carries its time, so
//! the same controller runs in the simulator and in a real QUIC stack.
//!
//! ```
//! use cc::{AlgorithmSpec, ControllerConfig, Instant};
//! let spec = AlgorithmSpec::parse("bbr").unwrap();
//! let bbr = spec.build(&ControllerConfig::new(1, Instant::ZERO));
//! assert_eq!(bbr.snapshot().mode, "startup");
//! ```

pub mod b3r;
pub mod bbr;
pub mod bbr2;
pub mod bbr_s;
pub mod controller;
pub mod cubic;
pub mod cws;
pub mod filter;
pub mod modest;
pub mod obbr;
pub mod pacer;
pub mod rate;
pub mod reno;
mod seed;
pub mod spec;
#[cfg(test)]
pub(crate) mod testing;
pub mod units;

pub use controller::{
    AckEvent, CongestionControl, ControllerConfig, LossEvent, ProbeState, RttEstimate, SentEvent,
    Snapshot,
};
pub use pacer::Pacer;
pub use rate::{DeliveryRateEstimator, DeliveryState, RateSample};
pub use seed::derive_seed;
pub use spec::{AlgorithmInfo, AlgorithmSpec, ParamKind, ParamSpec, SpecError};
pub use units::{Bandwidth, Bytes, Instant};

/// Every algorithm bbrlab knows, in the order `bbrlab list` shows them.
pub fn algorithms() -> &'static [AlgorithmInfo] {
    static ALGORITHMS: &[AlgorithmInfo] = &[
        reno::INFO,
        cubic::INFO,
        bbr::INFO,
        bbr2::BBR2_INFO,
        bbr2::BBR3_INFO,
        bbr2::ADAPTIVE_INFO,
        obbr::INFO,
        cws::INFO,
        modest::INFO,
        bbr_s::INFO,
        b3r::INFO,
    ];
    ALGORITHMS
}
