//! The event queue: events pop in order of (time, insertion order).
//!
//! Ties on time are broken by insertion order, never by anything that could
//! vary between runs (addresses, hash order), so a run is a pure function
//! of its inputs.
//!
//! Most events of a run are packets in propagation: a flow's deliveries
//! and ACKs each arrive in the order they were scheduled. Such an event
//! can go into a *lane* ([`EventQueue::push_lane`]), a FIFO of which only
//! the head sits in the heap, so the heap holds a few entries per flow
//! instead of every packet on the wire, and its entries are 32 bytes
//! (the key and where the event is) rather than the events themselves.
//! The order events pop in is the same as with one heap of everything:
//! every event, in a lane or not, carries its (time, insertion order) key
//! and the heap always yields the smallest.

use std::collections::VecDeque;

use cc::Instant;

/// Where a heap entry's event is: a slot of `loose` or, with the top bit
/// set, the head of a lane.
type Source = u32;
const LANE: Source = 1 << 31;

/// (time, insertion order) in one integer: compared in one step.
type Key = u128;

fn key(at: Instant, seq: u64) -> Key {
    (u128::from(at.as_nanos()) << 64) | u128::from(seq)
}

fn time_of(key: Key) -> Instant {
    Instant::from_nanos((key >> 64) as u64)
}

#[derive(Clone, Copy)]
struct Entry {
    key: Key,
    source: Source,
}

/// A deterministic discrete-event queue.
pub struct EventQueue<E> {
    /// A binary min-heap on `key`.
    heap: Vec<Entry>,
    /// Events not in a lane; `None` slots are free (listed in `free`).
    loose: Vec<Option<E>>,
    free: Vec<u32>,
    lanes: Vec<VecDeque<(Key, E)>>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue::with_lanes(0)
    }
}

impl<E> EventQueue<E> {
    /// A queue with `lanes` FIFO lanes (see [`EventQueue::push_lane`]).
    pub fn with_lanes(lanes: usize) -> Self {
        assert!(lanes < LANE as usize, "too many lanes");
        EventQueue {
            heap: Vec::new(),
            loose: Vec::new(),
            free: Vec::new(),
            lanes: (0..lanes).map(|_| VecDeque::new()).collect(),
            next_seq: 0,
        }
    }

    fn next_key(&mut self, at: Instant) -> Key {
        let k = key(at, self.next_seq);
        self.next_seq += 1;
        k
    }

    /// Schedules `event` at `at`.
    pub fn push(&mut self, at: Instant, event: E) {
        let key = self.next_key(at);
        self.push_loose(key, event);
    }

    fn push_loose(&mut self, key: Key, event: E) {
        let slot = match self.free.pop() {
            Some(slot) => {
                self.loose[slot as usize] = Some(event);
                slot
            }
            None => {
                self.loose.push(Some(event));
                u32::try_from(self.loose.len() - 1).expect("fewer than 2^31 pending events")
            }
        };
        debug_assert!(slot < LANE);
        self.heap_push(Entry { key, source: slot });
    }

    /// Schedules `event` at `at` in `lane`. Cheapest when a lane's events
    /// are pushed in order of time (a flow's packets on a fixed delay);
    /// an event earlier than the lane's last is still served in order,
    /// outside the lane.
    pub fn push_lane(&mut self, lane: usize, at: Instant, event: E) {
        let key = self.next_key(at);
        let fifo = &mut self.lanes[lane];
        match fifo.back() {
            Some(&(last, _)) if time_of(last) > at => self.push_loose(key, event),
            Some(_) => fifo.push_back((key, event)),
            None => {
                fifo.push_back((key, event));
                self.heap_push(Entry {
                    key,
                    source: LANE | lane as u32,
                });
            }
        }
    }

    /// Removes and returns the earliest event.
    pub fn pop(&mut self) -> Option<(Instant, E)> {
        let top = *self.heap.first()?;
        let event = if top.source & LANE != 0 {
            let fifo = &mut self.lanes[(top.source & !LANE) as usize];
            let (_, event) = fifo.pop_front().expect("a lane in the heap is not empty");
            match fifo.front() {
                Some(&(next, _)) => {
                    // The lane's next event takes its place: one sift down
                    // instead of a pop and a push.
                    self.heap[0].key = next;
                    self.sift_down(0);
                }
                None => self.heap_pop(),
            }
            event
        } else {
            let slot = top.source;
            let event = self.loose[slot as usize].take().expect("a live slot");
            self.free.push(slot);
            self.heap_pop();
            event
        };
        Some((time_of(top.key), event))
    }

    /// The time of the earliest event.
    pub fn peek_time(&self) -> Option<Instant> {
        self.heap.first().map(|e| time_of(e.key))
    }

    /// The pending events, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &E> {
        self.loose
            .iter()
            .flatten()
            .chain(self.lanes.iter().flatten().map(|(_, e)| e))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.loose.len() - self.free.len() + self.lanes.iter().map(VecDeque::len).sum::<usize>()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    fn heap_push(&mut self, entry: Entry) {
        self.heap.push(entry);
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[parent].key <= entry.key {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = entry;
    }

    fn heap_pop(&mut self) {
        let last = self.heap.pop().expect("not empty");
        if !self.heap.is_empty() {
            self.heap[0] = last;
            self.sift_down(0);
        }
    }

    fn sift_down(&mut self, mut i: usize) {
        let entry = self.heap[i];
        let n = self.heap.len();
        loop {
            let left = 2 * i + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let child = if right < n && self.heap[right].key < self.heap[left].key {
                right
            } else {
                left
            };
            if entry.key <= self.heap[child].key {
                break;
            }
            self.heap[i] = self.heap[child];
            i = child;
        }
        self.heap[i] = entry;
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

    /// Lanes change nothing in the order: the same pushes into lanes or
    /// not pop identically, ties and out-of-order lane pushes included.
    #[test]
    fn lanes_pop_in_the_order_of_one_heap() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        // The reference: one heap of everything, keyed by (time, insertion order).
        let mut plain = std::collections::BinaryHeap::new();
        let mut seq = 0u64;
        let mut laned = EventQueue::with_lanes(3);
        let mut now = 0;
        let mut popped = (Vec::new(), Vec::new());
        for i in 0..20_000u64 {
            let r = next();
            if r % 3 == 0 {
                let a = plain
                    .pop()
                    .map(|std::cmp::Reverse((t, _, e))| (Instant::from_nanos(t), e));
                let b = laned.pop();
                assert_eq!(a, b);
                if let Some((t, e)) = a {
                    now = t.as_nanos();
                    popped.0.push(e);
                    popped.1.push(e);
                }
                continue;
            }
            // Mostly in order per lane, sometimes earlier, often tied.
            let at = Instant::from_nanos(now + (r >> 8) % 50);
            plain.push(std::cmp::Reverse((at.as_nanos(), seq, i)));
            seq += 1;
            match (r >> 4) % 4 {
                3 => laned.push(at, i),
                lane => laned.push_lane(lane as usize, at, i),
            }
            assert_eq!(plain.len(), laned.len());
        }
        while let Some(std::cmp::Reverse((t, _, e))) = plain.pop() {
            assert_eq!(Some((Instant::from_nanos(t), e)), laned.pop());
        }
        assert!(laned.is_empty());
    }
}
