//! The last result of a pure computation, kept with its inputs.
//!
//! A controller recomputes some values on every ACK from inputs that
//! seldom change: BBR's window target from the bandwidth estimate, min_rtt
//! and a gain, its pacing rate from the estimate and a gain. Each is a few
//! float conversions and a 64-bit division. A [`Memo`] returns the value
//! computed last when the inputs are the same (compared exactly: floats
//! by their bits), so the result is the very same value, bit for bit, that
//! computing it again would give.

/// The value computed for the last inputs seen.
#[derive(Clone, Copy, Debug, Default)]
pub struct Memo<K, V> {
    last: Option<(K, V)>,
}

impl<K: Copy + PartialEq, V: Copy> Memo<K, V> {
    /// An empty memo.
    pub const fn new() -> Self {
        Memo { last: None }
    }

    /// `compute()` for `inputs`: the kept value if `inputs` are those of
    /// the last call, else computed and kept. `compute` must depend on
    /// nothing but `inputs`.
    #[inline]
    pub fn get(&mut self, inputs: K, compute: impl FnOnce() -> V) -> V {
        match self.last {
            Some((k, v)) if k == inputs => v,
            _ => {
                let v = compute();
                self.last = Some((inputs, v));
                v
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn computes_again_only_when_the_inputs_change() {
        let mut memo = Memo::new();
        let mut calls = 0;
        let mut square = |memo: &mut Memo<u64, u64>, x: u64| {
            memo.get(x, || {
                calls += 1;
                x * x
            })
        };
        assert_eq!(square(&mut memo, 3), 9);
        assert_eq!(square(&mut memo, 3), 9);
        assert_eq!(square(&mut memo, 4), 16);
        assert_eq!(square(&mut memo, 3), 9);
        assert_eq!(calls, 3);
    }
}
