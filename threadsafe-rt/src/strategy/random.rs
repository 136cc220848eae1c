//! The uniformly random walk: the default strategy.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::sched::Scheduler;

/// Uniformly random among the runnable threads at every point.
pub(crate) struct RandomWalk {
    rng: ChaCha8Rng,
}

impl RandomWalk {
    pub(crate) fn new(seed: u64) -> Self {
        RandomWalk {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Scheduler for RandomWalk {
    fn next(&mut self, runnable: &[usize], current: Option<usize>, yielding: bool) -> usize {
        let others: Vec<usize> = runnable
            .iter()
            .copied()
            .filter(|&t| Some(t) != current)
            .collect();
        if yielding && !others.is_empty() {
            return others[self.rng.gen_range(0..others.len())];
        }
        runnable[self.rng.gen_range(0..runnable.len())]
    }
    fn pick(&mut self, n: usize) -> usize {
        self.rng.gen_range(0..n)
    }
}
