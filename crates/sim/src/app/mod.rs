//! Applications a flow can carry: what its sender has to send, and when.
//!
//! A bulk transfer always has data (the papers' default); a live video
//! source writes frames as they are generated, so its sender is often
//! app-limited, which the delivery-rate estimator marks exactly as for any
//! application.

pub mod dash;
pub mod live;

use dash::DashConfig;
use live::LiveConfig;

/// What a flow carries (`app` in a scenario's `[[flow]]`).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Application {
    /// A bulk transfer: unlimited, or `size` bytes, all available at once.
    #[default]
    Bulk,
    /// A live video stream (see [`live`]).
    Live(LiveConfig),
    /// A DASH video session (see [`dash`]).
    Dash(DashConfig),
}
