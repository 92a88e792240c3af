//! A QUIC-like transport (RFC 9002): one stream per connection, packet
//! numbers never reused, lost data resent in new packets, ACK-based loss
//! detection with packet and time thresholds, PTO, a recovery period per
//! congestion event, persistent congestion, and pacing.

mod receiver;
mod rtt;
mod sender;
mod stream;

/// The pacer lives with the controllers (every transport that runs one
/// paces with it); re-exported where the sender uses it.
pub use cc::Pacer;
pub use receiver::{AckDecision, AckFrame, Receiver};
pub use rtt::{RttEstimator, GRANULARITY, INITIAL_RTT};
pub use sender::{DataPacket, SendOutcome, Sender, SenderStats};
pub use stream::{Chunk, SendStream};
