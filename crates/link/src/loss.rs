//! Random loss in front of the bottleneck buffer, like tc netem placed
//! before the queueing discipline.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::LossModel;

/// A random-loss process: one decision per arriving packet, reproducible
/// from its seed.
///
/// Gilbert-Elliott follows netem's `loss_gilb_ell` exactly, draw for draw:
/// for each packet, the first uniform draw decides the transition out of the
/// current state (good -> bad with probability `p`, bad -> good with `r`);
/// the second decides the loss with the loss probability of the state the
/// packet *found* (netem evaluates the loss inside the branch of the old
/// state), so a transition takes effect from the next packet. The chain
/// starts in the good state. With `loss_bad` = 1 and `loss_good` = 0 the
/// loss bursts are the bad-state sojourns: geometric, mean `1 / r` packets.
///
/// Probabilities outside [0, 1] (or NaN) never panic: a draw `u` in [0, 1)
/// is compared as `u < prob`, so <= 0 or NaN never fires and >= 1 always does.
#[derive(Clone, Debug)]
pub struct LossProcess {
    model: LossModel,
    rng: Pcg64Mcg,
    bad: bool,
}

impl LossProcess {
    /// A process for `model` whose draws are a pure function of `seed`.
    pub fn new(model: LossModel, seed: u64) -> LossProcess {
        LossProcess {
            model,
            rng: Pcg64Mcg::seed_from_u64(seed),
            bad: false,
        }
    }

    /// Decides whether the packet arriving now is lost; call exactly once
    /// per arriving packet, since the Gilbert-Elliott state advances per call.
    #[inline]
    pub fn lose(&mut self) -> bool {
        match self.model {
            LossModel::None => false,
            LossModel::Bernoulli { p } => self.draw(p),
            LossModel::GilbertElliott {
                p,
                r,
                loss_good,
                loss_bad,
            } => {
                let was_bad = self.bad;
                let leave = if was_bad { r } else { p };
                if self.draw(leave) {
                    self.bad = !was_bad;
                }
                self.draw(if was_bad { loss_bad } else { loss_good })
            }
        }
    }

    /// The model this process draws from.
    pub fn model(&self) -> LossModel {
        self.model
    }

    fn draw(&mut self, prob: f64) -> bool {
        self.rng.gen::<f64>() < prob
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(model: LossModel, seed: u64, n: usize) -> Vec<bool> {
        let mut l = LossProcess::new(model, seed);
        (0..n).map(|_| l.lose()).collect()
    }

    #[test]
    fn no_loss_never_loses() {
        assert!(run(LossModel::None, 1, 1000).iter().all(|&x| !x));
    }

    #[test]
    fn bernoulli_rate_and_determinism() {
        let model = LossModel::Bernoulli { p: 0.02 };
        let a = run(model, 7, 100_000);
        let rate = a.iter().filter(|&&x| x).count() as f64 / a.len() as f64;
        // sd = sqrt(0.02 * 0.98 / 1e5) = 0.00044; allow ~4.5 sd.
        assert!((rate - 0.02).abs() < 0.002, "rate {rate}");
        assert_eq!(a, run(model, 7, 100_000));
        assert_ne!(a, run(model, 8, 100_000));
    }

    #[test]
    fn out_of_range_probabilities_do_not_panic() {
        assert!(run(LossModel::Bernoulli { p: 1.0 }, 1, 100)
            .iter()
            .all(|&x| x));
        assert!(run(LossModel::Bernoulli { p: 2.0 }, 1, 100)
            .iter()
            .all(|&x| x));
        assert!(run(LossModel::Bernoulli { p: -1.0 }, 1, 100)
            .iter()
            .all(|&x| !x));
        assert!(run(LossModel::Bernoulli { p: f64::NAN }, 1, 100)
            .iter()
            .all(|&x| !x));
        let ge = LossModel::GilbertElliott {
            p: f64::NAN,
            r: 5.0,
            loss_good: -1.0,
            loss_bad: 1.0,
        };
        assert!(run(ge, 1, 100).iter().all(|&x| !x));
    }

    #[test]
    fn gilbert_elliott_mean_and_bursts() {
        let model = LossModel::GilbertElliott {
            p: 0.01,
            r: 0.1,
            loss_good: 0.0,
            loss_bad: 1.0,
        };
        let a = run(model, 42, 1_000_000);
        let rate = a.iter().filter(|&&x| x).count() as f64 / a.len() as f64;
        let mean = model.mean_loss();
        assert!((rate - mean).abs() < 0.1 * mean, "rate {rate} vs {mean}");
        let mut bursts = Vec::new();
        let mut run_len = 0;
        for &lost in &a {
            if lost {
                run_len += 1;
            } else if run_len > 0 {
                bursts.push(run_len);
                run_len = 0;
            }
        }
        let mean_burst = bursts.iter().sum::<usize>() as f64 / bursts.len() as f64;
        assert!((mean_burst - 10.0).abs() < 1.0, "mean burst {mean_burst}");
        assert_eq!(a, run(model, 42, 1_000_000));
    }

    #[test]
    fn gilbert_elliott_with_lossy_good_state() {
        let model = LossModel::GilbertElliott {
            p: 0.05,
            r: 0.3,
            loss_good: 0.01,
            loss_bad: 0.5,
        };
        let a = run(model, 3, 1_000_000);
        let rate = a.iter().filter(|&&x| x).count() as f64 / a.len() as f64;
        let mean = model.mean_loss();
        assert!((rate - mean).abs() < 0.05 * mean, "rate {rate} vs {mean}");
    }
}
