//! The bottleneck link model, shared by the simulator and the real-time
//! emulator: a capacity process (constant, piecewise schedule, or a capacity
//! trace), a drop-tail buffer, a token-bucket burst allowance like tc tbf's,
//! and a random-loss process in front of the buffer.
//!
//! The link's queueing delays are kept as [`DelayHistogram`]s and read as
//! [`Percentiles`], the terms every delay of bbrlab is reported in.
//!
//! The model has no clock of its own: every call carries the current time,
//! so the discrete-event simulator and a wall-clock relay drive the very
//! same code and can only differ by real-world timing.

mod bottleneck;
mod capacity;
mod delay;
mod loss;
pub mod trace;

pub use bottleneck::{Bottleneck, DropReason, LinkPacket};
pub use capacity::Capacity;
pub use delay::{DelayHistogram, Percentiles, HISTOGRAM_SIGNIFICANT_DIGITS};
pub use loss::LossProcess;
pub use trace::{MahimahiTrace, PiecewiseTrace, TraceError};

use std::time::Duration;

use cc::{Bandwidth, Bytes};

/// The highest rate a link, a rate-schedule step or a capacity trace may
/// have: 1 Tbit/s. Ten times the fastest interface a packet-level study of
/// these controllers uses, and low enough that a packet's serialization time
/// (12 ns for 1500 bytes) stays a meaningful, non-zero number of
/// nanoseconds. A larger value is almost always a unit mistake (kbit/s read
/// as bit/s, a corrupt trace row), so it is an error, not a silent clamp.
pub const MAX_RATE: Bandwidth = Bandwidth::from_mbps(1_000_000);

/// The access line rate a full token bucket bursts at (tc tbf's peak): 1 Gbit/s.
pub const DEFAULT_LINE_RATE: Bandwidth = Bandwidth::from_mbps(1000);

/// One step of a piecewise-constant rate schedule: from `at` on, the rate is `rate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateStep {
    /// Time since the start of the run.
    pub at: Duration,
    /// The bottleneck rate from then on.
    pub rate: Bandwidth,
}

/// How the bottleneck's capacity evolves.
#[derive(Clone, Debug, PartialEq)]
pub enum RateModel {
    /// A fixed rate.
    Constant(Bandwidth),
    /// A piecewise-constant schedule; the first step is at 0 and the last
    /// rate holds until the end of the run.
    Schedule(Vec<RateStep>),
    /// A mahimahi delivery-opportunity trace (loops).
    Mahimahi(MahimahiTrace),
    /// A piecewise-constant rate trace, e.g. from the Irish 5G dataset (loops).
    Piecewise(PiecewiseTrace),
}

/// The drop-tail buffer's limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferLimit {
    /// At most this many bytes queued.
    Bytes(Bytes),
    /// At most this many packets queued.
    Packets(u64),
}

/// Random loss applied to packets arriving at the bottleneck.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum LossModel {
    /// No random loss.
    #[default]
    None,
    /// Each packet is lost independently with probability `p`.
    Bernoulli {
        /// Loss probability in [0, 1).
        p: f64,
    },
    /// Gilbert-Elliott two-state bursty loss (tc netem's `gemodel p r 1-h 1-k`).
    GilbertElliott {
        /// Probability of moving from the good to the bad state, per packet.
        p: f64,
        /// Probability of moving from the bad to the good state, per packet.
        r: f64,
        /// Loss probability in the good state (netem's 1-k).
        loss_good: f64,
        /// Loss probability in the bad state (netem's 1-h).
        loss_bad: f64,
    },
}

impl LossModel {
    /// The long-run mean loss probability.
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LossModel::None => 0.0,
            LossModel::Bernoulli { p } => p,
            LossModel::GilbertElliott {
                p,
                r,
                loss_good,
                loss_bad,
            } => {
                if p + r == 0.0 {
                    loss_good
                } else {
                    let pi_bad = p / (p + r);
                    (1.0 - pi_bad) * loss_good + pi_bad * loss_bad
                }
            }
        }
    }
}

/// A bottleneck link's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkConfig {
    /// Capacity over time.
    pub rate: RateModel,
    /// Drop-tail buffer limit.
    pub buffer: BufferLimit,
    /// Token-bucket depth (tc tbf `burst`); zero disables the bucket.
    pub burst: Bytes,
    /// Rate at which a burst leaves when the bucket holds tokens.
    pub line_rate: Bandwidth,
    /// Random loss in front of the buffer.
    pub loss: LossModel,
}
