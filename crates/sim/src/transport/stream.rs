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
    /// Bytes the application has written so far; `None` when all of
    /// `total` is there from the start (a bulk transfer).
    written: Option<u64>,
    /// Where new data ends for now: `written` capped by `total`,
    /// `u64::MAX` when neither is set (so an unlimited stream ends at
    /// 2^64 - 1 bytes). Kept with them: the sender asks twice per poll.
    end: u64,
    resend: VecDeque<Chunk>,
}

impl SendStream {
    /// A stream of `total` bytes, or unlimited, all available at once.
    pub fn new(total: Option<u64>) -> Self {
        let mut stream = SendStream {
            next_offset: 0,
            total,
            written: None,
            end: 0,
            resend: VecDeque::new(),
        };
        stream.end = stream.limit();
        stream
    }

    /// An unbounded stream the application fills with [`SendStream::write`]
    /// (a live video source): between writes it may have nothing to send.
    pub fn written_by_application() -> Self {
        let mut stream = SendStream {
            written: Some(0),
            ..SendStream::new(None)
        };
        stream.end = stream.limit();
        stream
    }

    /// The application hands over `bytes` more (saturating at 2^64 - 1).
    /// For a bulk stream this is a no-op: everything is already there.
    pub fn write(&mut self, bytes: u64) {
        if let Some(w) = &mut self.written {
            *w = w.saturating_add(bytes);
        }
        self.end = self.limit();
    }

    /// Takes back the written bytes not handed out once yet (lost ones
    /// below are still resent); returns where the written bytes now end.
    /// For a bulk stream nothing is taken back and the end is the total
    /// (or unlimited: `u64::MAX`).
    pub fn cancel_unsent(&mut self) -> u64 {
        let end = match &mut self.written {
            Some(w) => {
                *w = self.next_offset.min(*w);
                *w
            }
            None => self.total.unwrap_or(u64::MAX),
        };
        self.end = self.limit();
        end
    }

    /// Where new data ends for now: the written bytes, capped by `total`;
    /// `u64::MAX` without either.
    fn limit(&self) -> u64 {
        match (self.total, self.written) {
            (Some(t), Some(w)) => t.min(w),
            (Some(t), None) => t,
            (None, Some(w)) => w,
            (None, None) => u64::MAX,
        }
    }

    /// Whether anything is waiting to be sent.
    pub fn has_data(&self) -> bool {
        !self.resend.is_empty() || self.next_offset < self.end
    }

    /// Whether something waits but none of it may leave below the
    /// receiver's flow-control limit `max_stream_data`: no resend is
    /// queued and new data starts at or beyond it.
    pub fn blocked_by_flow_control(&self, max_stream_data: u64) -> bool {
        self.resend.is_empty() && self.has_data() && self.next_offset >= max_stream_data
    }

    /// Whether all new data has been handed out at least once.
    pub fn all_sent_once(&self) -> bool {
        self.total.is_some_and(|t| self.next_offset >= t)
    }

    /// The next chunk of at most `max_len` bytes, and whether it is a
    /// resend. New data ends at `max_stream_data` at the latest (the
    /// receiver's flow-control limit); resends are below it already.
    pub fn next_chunk(&mut self, max_len: u32, max_stream_data: u64) -> Option<(Chunk, bool)> {
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
        let end = self.end.min(max_stream_data);
        let remaining = end.saturating_sub(self.next_offset);
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
    fn cancelling_takes_back_only_what_was_not_sent_once() {
        let mut s = SendStream::written_by_application();
        s.write(3000);
        s.next_chunk(1000, u64::MAX);
        s.resend(Chunk {
            offset: 0,
            len: 100,
        });
        assert_eq!(s.cancel_unsent(), 1000);
        assert!(s.next_chunk(1000, u64::MAX).unwrap().1, "the resend stays");
        assert!(!s.has_data());
        s.write(500);
        let (next, resent) = s.next_chunk(1000, u64::MAX).unwrap();
        assert_eq!(
            (next.offset, next.len, resent),
            (1000, 500, false),
            "what is written next follows the cut"
        );
        assert_eq!(SendStream::new(Some(10)).cancel_unsent(), 10);
    }

    #[test]
    fn an_application_stream_sends_only_what_was_written() {
        let mut s = SendStream::written_by_application();
        assert!(!s.has_data());
        assert_eq!(s.next_chunk(1000, u64::MAX), None);
        s.write(1500);
        assert_eq!(
            s.next_chunk(1000, u64::MAX),
            Some((
                Chunk {
                    offset: 0,
                    len: 1000
                },
                false
            ))
        );
        assert_eq!(
            s.next_chunk(1000, u64::MAX),
            Some((
                Chunk {
                    offset: 1000,
                    len: 500
                },
                false
            ))
        );
        assert!(!s.has_data());
        s.resend(Chunk { offset: 0, len: 10 });
        assert!(
            s.has_data(),
            "a resend is data even when nothing new is written"
        );
        assert!(!s.all_sent_once(), "a live stream never ends");
        let mut bulk = SendStream::new(Some(10));
        bulk.write(5);
        assert_eq!(
            bulk.next_chunk(100, u64::MAX),
            Some((Chunk { offset: 0, len: 10 }, false))
        );
    }

    #[test]
    fn resends_go_first_and_split() {
        let mut s = SendStream::new(Some(3000));
        assert_eq!(
            s.next_chunk(1448, u64::MAX),
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
            s.next_chunk(1000, u64::MAX),
            Some((
                Chunk {
                    offset: 0,
                    len: 1000
                },
                true
            ))
        );
        assert_eq!(
            s.next_chunk(1448, u64::MAX),
            Some((
                Chunk {
                    offset: 1000,
                    len: 448
                },
                true
            ))
        );
        assert_eq!(
            s.next_chunk(1448, u64::MAX),
            Some((
                Chunk {
                    offset: 1448,
                    len: 1448
                },
                false
            ))
        );
        assert_eq!(
            s.next_chunk(1448, u64::MAX),
            Some((
                Chunk {
                    offset: 2896,
                    len: 104
                },
                false
            ))
        );
        assert!(!s.has_data());
        assert_eq!(s.next_chunk(1448, u64::MAX), None);
    }
}
