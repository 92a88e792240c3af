//! A QUIC-like transport (RFC 9002): one stream per connection, packet
//! numbers never reused, lost data resent in new packets, ACK-based loss
//! detection with packet and time thresholds, PTO, a recovery period per
//! congestion event, persistent congestion, and pacing.

mod pacer;
mod receiver;
mod rtt;
mod sender;
mod stream;

pub use pacer::Pacer;
pub use receiver::{AckDecision, AckFrame, Receiver};
pub use rtt::{RttEstimator, GRANULARITY, INITIAL_RTT};
pub use sender::{DataPacket, SendOutcome, Sender, SenderStats};
pub use stream::{Chunk, SendStream};
