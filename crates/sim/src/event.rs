//! The event queue: events pop in order of (time, insertion order).
//!
//! Ties on time are broken by insertion order, never by anything that could
//! vary between runs (addresses, hash order), so a run is a pure function
//! of its inputs.
//!
//! It is a calendar queue (a timing wheel): time is cut into buckets
//! (2^16 ns, 65.5 us, unless the simulation sizes them to its link: about
//! a packet's transmission time), a wheel of 4096 buckets holds the time
//! ahead, and events further out wait in a heap until the wheel reaches
//! them. A push
//! into a future bucket is an append; a bucket is sorted once, when it
//! becomes the current one. Most events of a run are packets on a path of
//! tens of milliseconds, so they cost a constant instead of a heap's
//! log(events pending) (every packet in propagation is pending). Events
//! are ordered by their exact (time, insertion order) key throughout:
//! buckets only decide when a group of them is sorted, so the order events
//! pop in is that of one heap of everything.
//!
//! Two events may wait beside the calendar ([`EventQueue::push_beside`]),
//! with the same keys, the earlier compared with the calendar's first at
//! each pop: the simulator keeps the link's next departure there, and a
//! lone flow's next wake-up (each one event per packet that is almost
//! always alone of its kind), which saves their buckets' placement and
//! sort. FIFO lanes beside the calendar for the deliveries and ACKs too
//! were measured and cost more than the calendar (a deque's push and pop
//! and a scan of the lanes' heads at each pop).
//!
//! An event waits in its entry, beside its key, not in a slab of slots
//! the entry names: the bucket's sort moves 40 bytes an entry instead of
//! 24, but the pop reads the event from the line the sort just brought
//! in, where a slot was one more line to miss (with 100 flows, the most
//! sampled load of the event loop).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use cc::Instant;

/// log2 of a bucket's width in nanoseconds, by default.
const BUCKET_SHIFT: u32 = 16;
/// Buckets in the wheel (a power of two).
const BUCKETS: u64 = 4096;
const MASK: u64 = BUCKETS - 1;
const WORDS: usize = (BUCKETS / 64) as usize;

/// An event and its place in the order: (time in ns, insertion order)
/// decide. The event is taken out when it pops (`None` after). The order
/// is written out rather than derived, as it must not look at the event.
struct Entry<E> {
    at: u64,
    seq: u64,
    event: Option<E>,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl<E> Eq for Entry<E> {}

impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

/// (time, insertion order) as one number: compared in one step, where
/// the order of an [`Entry`] compares its fields one by one (the bucket
/// sort cost about 15 instructions more per packet that way; the
/// insertion's binary search, on the other hand, is cheaper with the
/// field-by-field order).
#[inline(always)]
fn key(at: u64, seq: u64) -> u128 {
    (u128::from(at) << 64) | u128::from(seq)
}

impl<E> Entry<E> {
    #[inline(always)]
    fn key(&self) -> u128 {
        key(self.at, self.seq)
    }
}

/// A place in the order of insertion, taken when an event is decided and
/// redeemed by [`EventQueue::push_reserved`] when it is known to be needed:
/// the event then pops exactly where it would have popped had it been
/// pushed when its ticket was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket(u64);

/// A deterministic discrete-event queue.
pub struct EventQueue<E> {
    /// Events pending in the calendar (beside it not counted).
    pending: usize,
    /// The current bucket's entries (and any pushed for its time or
    /// earlier), sorted earliest first from `head`, the next event; those
    /// before `head` have popped. Emptied as soon as the last one pops.
    /// Earliest first, an event pushed into the bucket after all the
    /// others (the usual case: a later time or a tie) is appended, where
    /// latest first it shifted every entry.
    current: Vec<Entry<E>>,
    head: usize,
    /// The current bucket (time >> shift).
    cursor: u64,
    /// log2 of a bucket's width in nanoseconds.
    shift: u32,
    /// Buckets `cursor + 1 .. cursor + BUCKETS`, at `bucket & MASK`, unsorted.
    wheel: Vec<Vec<Entry<E>>>,
    /// Emptied buckets' storage, for the next bucket that fills: only
    /// buckets holding events keep an allocation, not all 4096.
    spare: Vec<Vec<Entry<E>>>,
    /// Which wheel buckets hold entries.
    occupied: [u64; WORDS],
    in_wheel: usize,
    /// Entries beyond the wheel.
    beyond: BinaryHeap<Reverse<Entry<E>>>,
    next_seq: u64,
    /// Up to two events beside the calendar (see
    /// [`EventQueue::push_beside`]), the earlier first: their keys, (time,
    /// insertion order) as one number (`u128::MAX` where there is none),
    /// and the events. The second is filled only after the first.
    beside_key: u128,
    beside: Option<E>,
    second_key: u128,
    second: Option<E>,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue::with_bucket_width(BUCKET_SHIFT)
    }
}

impl<E> EventQueue<E> {
    /// A queue whose buckets are 2^`log2_ns` ns wide (clamped to 2^8 ..
    /// 2^32). The width changes only the speed: about as many events per
    /// bucket as fit a bucket's sort cheaply is best.
    pub fn with_bucket_width(log2_ns: u32) -> Self {
        EventQueue {
            pending: 0,
            current: Vec::new(),
            head: 0,
            cursor: 0,
            shift: log2_ns.clamp(8, 32),
            wheel: (0..BUCKETS).map(|_| Vec::new()).collect(),
            spare: Vec::new(),
            occupied: [0; WORDS],
            in_wheel: 0,
            beyond: BinaryHeap::new(),
            next_seq: 0,
            beside_key: u128::MAX,
            beside: None,
            second_key: u128::MAX,
            second: None,
        }
    }

    /// Schedules `event` at `at` as [`EventQueue::push`] does, in one of
    /// the two places beside the calendar if one is free: there it costs a
    /// few writes and a comparison at each pop instead of a bucket's
    /// placement and sort. For kinds of event that are almost always
    /// alone, such as the link's next departure.
    #[inline(always)]
    pub fn push_beside(&mut self, at: Instant, event: E) {
        // The first place on a path of its own: a departure alone (CUBIC,
        // which does not wake per packet) then costs what it did with one
        // place; through the ordering below it moved an empty second
        // place each time (+1% instructions, 2% slower for CUBIC).
        if self.beside.is_none() {
            let ticket = self.reserve();
            self.beside_key = key(at.as_nanos(), ticket.0);
            self.beside = Some(event);
            return;
        }
        if self.second.is_some() {
            self.push(at, event);
            return;
        }
        let ticket = self.reserve();
        let key = key(at.as_nanos(), ticket.0);
        if key < self.beside_key {
            self.second_key = self.beside_key;
            self.second = self.beside.take();
            self.beside_key = key;
            self.beside = Some(event);
        } else {
            self.second_key = key;
            self.second = Some(event);
        }
    }

    fn bucket(&self, entry: &Entry<E>) -> u64 {
        entry.at >> self.shift
    }

    /// Schedules `event` at `at`.
    #[inline]
    pub fn push(&mut self, at: Instant, event: E) {
        let ticket = self.reserve();
        self.push_reserved(at, ticket, event);
    }

    /// Takes the next place in the order of insertion without pushing
    /// anything yet. A ticket never redeemed leaves no trace: only the
    /// relative order of the events pushed matters.
    #[inline]
    pub fn reserve(&mut self) -> Ticket {
        let ticket = Ticket(self.next_seq);
        self.next_seq += 1;
        ticket
    }

    /// Schedules `event` at `at` in the place `ticket` took: among events at
    /// the same time it pops after those pushed before the ticket was taken
    /// and before those pushed after. `at` must not lie before the time of
    /// the latest event popped (as for [`EventQueue::push`], an event in the
    /// past pops next, in its order).
    #[inline]
    pub fn push_reserved(&mut self, at: Instant, ticket: Ticket, event: E) {
        self.pending += 1;
        let entry = Entry {
            at: at.as_nanos(),
            seq: ticket.0,
            event: Some(event),
        };
        self.place(entry);
    }

    // Always inlined into the push: as a call (the hint alone was not
    // taken) its register saves cost about 17 instructions per event.
    #[inline(always)]
    fn place(&mut self, entry: Entry<E>) {
        let bucket = self.bucket(&entry);
        if bucket <= self.cursor {
            // Earliest first: everything from `head` to `i` is earlier.
            let i = self.head + self.current[self.head..].partition_point(|e| e < &entry);
            self.current.insert(i, entry);
        } else if bucket - self.cursor < BUCKETS {
            let i = (bucket & MASK) as usize;
            let slot = &mut self.wheel[i];
            if slot.capacity() == 0 {
                if let Some(storage) = self.spare.pop() {
                    *slot = storage;
                }
            }
            slot.push(entry);
            self.occupied[i / 64] |= 1 << (i % 64);
            self.in_wheel += 1;
        } else {
            self.beyond.push(Reverse(entry));
        }
    }

    /// Makes the earliest pending bucket the current one; false if no
    /// event is pending.
    fn advance(&mut self) -> bool {
        debug_assert!(self.current.is_empty());
        let in_wheel = self.next_occupied();
        let beyond = self.beyond.peek().map(|Reverse(e)| self.bucket(e));
        self.cursor = match (in_wheel, beyond) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (None, None) => return false,
        };
        let i = (self.cursor & MASK) as usize;
        if self.occupied[i / 64] & (1 << (i % 64)) != 0 {
            self.occupied[i / 64] &= !(1 << (i % 64));
            self.in_wheel -= self.wheel[i].len();
            let done = std::mem::replace(&mut self.current, std::mem::take(&mut self.wheel[i]));
            if done.capacity() > 0 {
                self.spare.push(done);
            }
        }
        // The wheel now reaches further: bring in what it covers.
        while let Some(Reverse(e)) = self.beyond.peek() {
            if self.bucket(e) - self.cursor >= BUCKETS {
                break;
            }
            let Some(Reverse(e)) = self.beyond.pop() else {
                break;
            };
            if self.bucket(&e) == self.cursor {
                self.current.push(e);
            } else {
                self.place(e);
            }
        }
        self.current.sort_unstable_by_key(Entry::key);
        true
    }

    /// The first occupied wheel bucket after the cursor.
    fn next_occupied(&self) -> Option<u64> {
        if self.in_wheel == 0 {
            return None;
        }
        let start = ((self.cursor + 1) & MASK) as usize;
        let (word, bit) = (start / 64, start % 64);
        let first = self.occupied[word] & (u64::MAX << bit);
        let found = if first != 0 {
            word * 64 + first.trailing_zeros() as usize
        } else {
            (1..=WORDS)
                .map(|k| (word + k) % WORDS)
                .find(|&w| self.occupied[w] != 0)
                .map(|w| w * 64 + self.occupied[w].trailing_zeros() as usize)
                .expect("in_wheel counts entries in occupied buckets")
        };
        let ahead = (found as u64).wrapping_sub(start as u64) & MASK;
        Some(self.cursor + 1 + ahead)
    }

    /// Whether the event beside the calendar pops before the calendar's
    /// first (false when there is none).
    #[inline(always)]
    fn beside_first(&mut self) -> bool {
        if self.current.is_empty() && !self.advance() {
            return self.beside.is_some();
        }
        self.beside_key < self.current[self.head].key()
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Instant, E)> {
        self.pop_until(Instant::from_nanos(u64::MAX))
    }

    /// Removes and returns the earliest event if it is due at `until` or
    /// before: one decision per event where a peek and a pop would each
    /// compare the calendar with the event beside it.
    #[inline]
    pub fn pop_until(&mut self, until: Instant) -> Option<(Instant, E)> {
        let until = until.as_nanos();
        if self.beside_first() {
            let at = (self.beside_key >> 64) as u64;
            if at > until {
                return None;
            }
            let event = self.beside.take();
            if self.second.is_some() {
                self.beside_key = std::mem::replace(&mut self.second_key, u128::MAX);
                self.beside = self.second.take();
            } else {
                self.beside_key = u128::MAX;
            }
            return event.map(|e| (Instant::from_nanos(at), e));
        }
        let entry = self.current.get_mut(self.head)?;
        let at = entry.at;
        if at > until {
            return None;
        }
        let event = entry.event.take();
        self.head += 1;
        if self.head == self.current.len() {
            self.current.clear();
            self.head = 0;
        }
        self.pending -= 1;
        event.map(|e| (Instant::from_nanos(at), e))
    }

    /// The time of the earliest event.
    pub fn peek_time(&mut self) -> Option<Instant> {
        if self.beside_first() {
            return Some(Instant::from_nanos((self.beside_key >> 64) as u64));
        }
        self.current
            .get(self.head)
            .map(|e| Instant::from_nanos(e.at))
    }

    /// The pending events, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &E> {
        let wheel = self.wheel.iter().flatten();
        let beyond = self.beyond.iter().map(|Reverse(e)| e);
        self.current[self.head..]
            .iter()
            .chain(wheel)
            .chain(beyond)
            .filter_map(|e| e.event.as_ref())
            .chain(self.beside.iter())
            .chain(self.second.iter())
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.pending + usize::from(self.beside.is_some()) + usize::from(self.second.is_some())
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        let t = Instant::from_nanos(5);
        q.push(t, 'b');
        q.push(Instant::from_nanos(1), 'a');
        q.push(t, 'c');
        q.push(t, 'd');
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
    }

    #[test]
    fn a_reserved_push_pops_in_the_place_of_its_ticket() {
        let mut q = EventQueue::default();
        let t = Instant::from_nanos(5);
        q.push(t, 'a');
        let ticket = q.reserve();
        let unused = q.reserve();
        q.push(t, 'c');
        q.push(Instant::from_nanos(3), 'x');
        assert_eq!(q.pop(), Some((Instant::from_nanos(3), 'x')));
        q.push_reserved(t, ticket, 'b');
        q.push(t, 'd');
        let _ = unused;
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
    }

    /// The same pushes and pops as one heap keyed by (time, insertion
    /// order): ties, events in the current bucket, in the past, in the
    /// wheel, beyond it, beside it, and long idle stretches.
    #[test]
    fn pops_in_the_order_of_one_heap() {
        for shift in [10, BUCKET_SHIFT, 20] {
            pops_in_the_order_of_one_heap_with(shift);
        }
    }

    fn pops_in_the_order_of_one_heap_with(shift: u32) {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut rng = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut reference = BinaryHeap::new();
        let mut q = EventQueue::with_bucket_width(shift);
        let mut seq = 0u64;
        let mut now = 0u64;
        let mut held = Vec::new();
        for i in 0..200_000u64 {
            let r = rng();
            if r % 5 < 2 {
                // Now and then with a limit that the next event may lie beyond.
                if r % 5 == 1 && (r >> 20) % 4 == 0 {
                    let until = now + (r >> 24) % 200_000;
                    if reference.peek().is_none_or(|Reverse((t, _, _))| *t > until) {
                        assert_eq!(q.pop_until(Instant::from_nanos(until)), None);
                        continue;
                    }
                }
                let want = reference
                    .pop()
                    .map(|Reverse((t, _, e))| (Instant::from_nanos(t), e));
                assert_eq!(q.peek_time(), want.map(|(t, _)| t));
                assert_eq!(q.pop(), want);
                if let Some((t, _)) = want {
                    now = t.as_nanos();
                }
                continue;
            }
            let delay = match (r >> 8) % 8 {
                0 => 0,
                1 => (r >> 16) % 1_000,
                2 | 3 => (r >> 16) % 100_000,
                4 | 5 => (r >> 16) % 50_000_000,
                6 => (r >> 16) % 2_000_000_000,
                _ => 1 << shift,
            };
            // Now and then a time already passed.
            let at = if (r >> 40) % 50 == 0 {
                now.saturating_sub(delay)
            } else {
                now + delay
            };
            match (r >> 48) % 8 {
                // Take a place now, push into it later (at or after the
                // time it is pushed at, as the simulator's deferred timers).
                0 => {
                    held.push((q.reserve(), seq, at.saturating_sub(now)));
                    seq += 1;
                }
                1 if !held.is_empty() => {
                    let (ticket, its_seq, ahead) = held.swap_remove(r as usize % held.len());
                    reference.push(Reverse((now + ahead, its_seq, i)));
                    q.push_reserved(Instant::from_nanos(now + ahead), ticket, i);
                }
                // A ticket never redeemed.
                2 => {
                    q.reserve();
                    seq += 1;
                }
                // Beside the calendar when that place is free, soon (ties
                // with events pushed at `now` before and after).
                3 => {
                    let at = now + (r >> 16) % 3;
                    reference.push(Reverse((at, seq, i)));
                    seq += 1;
                    q.push_beside(Instant::from_nanos(at), i);
                }
                _ => {
                    reference.push(Reverse((at, seq, i)));
                    seq += 1;
                    q.push(Instant::from_nanos(at), i);
                }
            }
            assert_eq!(q.len(), reference.len());
        }
        while let Some(Reverse((t, _, e))) = reference.pop() {
            assert_eq!(q.pop(), Some((Instant::from_nanos(t), e)));
        }
        assert!(q.is_empty());
        assert_eq!(q.pop(), None);
    }
}
