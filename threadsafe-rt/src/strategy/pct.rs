//! Probabilistic Concurrency Testing.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::sched::Scheduler;

/// Steps after which PCT picks uniformly: its priorities starve a lower thread forever when
/// the higher one spins waiting for it.
const PCT_FAIR_AFTER: usize = 10_000;

/// Probabilistic Concurrency Testing (Burckhardt et al., ASPLOS 2010): random distinct
/// priorities, the highest-priority runnable thread runs, and at `depth - 1` random steps
/// the running thread drops below everyone. A bug of depth `d` among `k` steps and `n`
/// threads is found with probability at least `1 / (n * k^(d-1))` per run.
pub(crate) struct Pct {
    rng: ChaCha8Rng,
    priorities: Vec<usize>,
    change_points: Vec<usize>,
    steps: usize,
}

impl Pct {
    /// `max_steps` estimates the steps of a run (learned from earlier runs).
    pub(crate) fn new(seed: u64, threads: usize, depth: usize, max_steps: usize) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let d = depth.max(1);
        let mut priorities: Vec<usize> = (d..d + threads).collect();
        for i in (1..priorities.len()).rev() {
            let j = rng.gen_range(0..=i);
            priorities.swap(i, j);
        }
        let change_points = (0..d - 1)
            .map(|_| rng.gen_range(1..=max_steps.max(1)))
            .collect();
        Pct {
            rng,
            priorities,
            change_points,
            steps: 0,
        }
    }
}

impl Scheduler for Pct {
    fn next(&mut self, runnable: &[usize], current: Option<usize>, yielding: bool) -> usize {
        self.steps += 1;
        if self.steps > PCT_FAIR_AFTER {
            // A run this long is likely a spin loop waiting for a lower-priority thread:
            // from here on every runnable thread gets its chance.
            return runnable[self.rng.gen_range(0..runnable.len())];
        }
        if let Some(c) = current {
            if let Some(i) = self.change_points.iter().position(|&p| p == self.steps) {
                // Change point i: the running thread gets priority i, below all initial ones.
                self.priorities[c] = i;
            } else if yielding {
                // A thread that yields waits for another: it goes below everyone.
                let lowest = self.priorities.iter().copied().min().unwrap_or(0);
                self.priorities[c] = lowest.saturating_sub(1);
                if lowest == 0 {
                    for (t, p) in self.priorities.iter_mut().enumerate() {
                        if t != c {
                            *p += 1;
                        }
                    }
                }
            }
        }
        *runnable
            .iter()
            .max_by_key(|&&t| self.priorities.get(t).copied().unwrap_or(0))
            .expect("runnable is not empty")
    }
    fn pick(&mut self, n: usize) -> usize {
        self.rng.gen_range(0..n)
    }
}
