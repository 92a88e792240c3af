//! The sender's view of the stream: new data and data to resend.

use std::collections::VecDeque;

/// A half-open byte range of the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// First byte.
    pub offset: u64,
    /// Length in bytes.
    pub len: u32,
}

/// Tracks what the sender still has to send. Lost data is resent in new
/// packets (QUIC never reuses a packet number), ahead of new data.
#[derive(Clone, Debug)]
pub struct SendStream {
    next_offset: u64,
    total: Option<u64>,
    resend: VecDeque<Chunk>,
}

impl SendStream {
    /// A stream of `total` bytes, or unlimited.
    pub fn new(total: Option<u64>) -> Self {
        SendStream {
            next_offset: 0,
            total,
            resend: VecDeque::new(),
        }
    }

    /// Whether anything is waiting to be sent.
    pub fn has_data(&self) -> bool {
        !self.resend.is_empty() || self.total.is_none_or(|t| self.next_offset < t)
    }

    /// Whether all new data has been handed out at least once.
    pub fn all_sent_once(&self) -> bool {
        self.total.is_some_and(|t| self.next_offset >= t)
    }

    /// The next chunk of at most `max_len` bytes, and whether it is a resend.
    pub fn next_chunk(&mut self, max_len: u32) -> Option<(Chunk, bool)> {
        if let Some(front) = self.resend.front_mut() {
            if front.len <= max_len {
                let c = *front;
                self.resend.pop_front();
                return Some((c, true));
            }
            let c = Chunk {
                offset: front.offset,
                len: max_len,
            };
            front.offset += max_len as u64;
            front.len -= max_len;
            return Some((c, true));
        }
        let remaining = match self.total {
            Some(t) => t.saturating_sub(self.next_offset),
            None => u64::MAX,
        };
        if remaining == 0 {
            return None;
        }
        let len = (max_len as u64).min(remaining) as u32;
        let c = Chunk {
            offset: self.next_offset,
            len,
        };
        self.next_offset += len as u64;
        Some((c, false))
    }

    /// Queues a lost chunk for resending.
    pub fn resend(&mut self, chunk: Chunk) {
        if chunk.len > 0 {
            self.resend.push_back(chunk);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resends_go_first_and_split() {
        let mut s = SendStream::new(Some(3000));
        assert_eq!(
            s.next_chunk(1448),
            Some((
                Chunk {
                    offset: 0,
                    len: 1448
                },
                false
            ))
        );
        s.resend(Chunk {
            offset: 0,
            len: 1448,
        });
        assert_eq!(
            s.next_chunk(1000),
            Some((
                Chunk {
                    offset: 0,
                    len: 1000
                },
                true
            ))
        );
        assert_eq!(
            s.next_chunk(1448),
            Some((
                Chunk {
                    offset: 1000,
                    len: 448
                },
                true
            ))
        );
        assert_eq!(
            s.next_chunk(1448),
            Some((
                Chunk {
                    offset: 1448,
                    len: 1448
                },
                false
            ))
        );
        assert_eq!(
            s.next_chunk(1448),
            Some((
                Chunk {
                    offset: 2896,
                    len: 104
                },
                false
            ))
        );
        assert!(!s.has_data());
        assert_eq!(s.next_chunk(1448), None);
    }
}
