//! Running many inputs against a target and counting what happened.

use std::time::{Duration, Instant};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::targets::{Crash, Target, Verdict};

/// Crashes a campaign keeps (inputs included); later ones are only counted.
pub const KEPT_CRASHES: usize = 20;

/// What a campaign over one target found.
#[derive(Clone, Debug)]
pub struct Campaign {
    /// The target.
    pub target: Target,
    /// The seed the inputs were drawn from.
    pub seed: u64,
    /// Inputs run.
    pub cases: u64,
    /// Inputs accepted (valid; simulated where the target simulates).
    pub accepted: u64,
    /// Inputs that crashed the target.
    pub crash_count: u64,
    /// The first [`KEPT_CRASHES`] crashes.
    pub crashes: Vec<Crash>,
    /// Wall time of the whole campaign.
    pub wall: Duration,
    /// The slowest single case.
    pub slowest: Duration,
}

/// Runs `cases` inputs drawn (reproducibly, from `seed`) from the target's
/// strategy. Every input runs, crash or not: the campaign counts.
///
/// Panics inside targets are caught; their default messages on stderr are
/// silenced for the campaign (the crash records the message).
pub fn run_campaign(target: Target, cases: u64, seed: u64) -> Campaign {
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    seed_bytes[8..16].copy_from_slice(&(target as u64).to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let strategy = crate::inputs::strategy(target);

    let started = Instant::now();
    let mut campaign = Campaign {
        target,
        seed,
        cases: 0,
        accepted: 0,
        crash_count: 0,
        crashes: Vec::new(),
        wall: Duration::ZERO,
        slowest: Duration::ZERO,
    };
    for _ in 0..cases {
        let input = match strategy.new_tree(&mut runner) {
            Ok(tree) => tree.current(),
            Err(_) => continue, // a strategy that rejects its own draws; none here do
        };
        let case_started = Instant::now();
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let outcome = target.run(&input);
        std::panic::set_hook(hook);
        campaign.slowest = campaign.slowest.max(case_started.elapsed());
        campaign.cases += 1;
        match outcome {
            Ok(Verdict::Accepted) => campaign.accepted += 1,
            Ok(Verdict::Refused) => {}
            Err(crash) => {
                campaign.crash_count += 1;
                if campaign.crashes.len() < KEPT_CRASHES {
                    campaign.crashes.push(crash);
                }
            }
        }
    }
    campaign.wall = started.elapsed();
    campaign
}
