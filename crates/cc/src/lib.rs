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
//!   [`b3r`], and bbrlab's own [`tempered`]), and [`bbr2`] (BBRv2, BBRv3 and adaptive BBRv2).
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
pub mod memo;
pub mod modest;
pub mod obbr;
pub mod pacer;
pub mod rate;
pub mod reno;
mod seed;
pub mod spec;
pub mod tempered;
pub mod testing;
pub mod units;

pub use controller::{
    AckEvent, CongestionControl, ControllerConfig, LossEvent, ProbeState, RttEstimate, SentEvent,
    Snapshot,
};
pub use pacer::Pacer;
pub use rate::{DeliveryRateEstimator, DeliveryState, RateSample};
pub use seed::derive_seed;
pub use spec::{
    algorithms, find, register, AlgorithmInfo, AlgorithmSpec, ParamChoice, ParamKind, ParamSpec,
    ParamValue, RegisterError, SpecError, Value, Variant,
};
pub use units::{Bandwidth, Bytes, Instant};

/// The built-in algorithms, in the order `bbrlab list` shows them; the
/// registry ([`spec::algorithms`], [`spec::register`]) starts with these.
pub(crate) fn builtin_algorithms() -> Vec<AlgorithmInfo> {
    let bbr = bbr::info();
    let bbr2 = bbr2::bbr2_info();
    let obbr = obbr::info(&bbr);
    vec![
        reno::info(),
        cubic::info(),
        bbr.clone(),
        bbr2.clone(),
        bbr2::bbr3_info(&bbr2),
        bbr2::adaptive_info(&bbr2),
        obbr.clone(),
        cws::info(&bbr),
        modest::info(&bbr),
        bbr_s::info(&bbr),
        b3r::info(&bbr),
        tempered::info(&obbr),
    ]
}
