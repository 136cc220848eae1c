//! The strategies: who runs next at each scheduling point of a controlled execution, one file
//! each, and the one place where a batch's executions get theirs ([`control`], [`exactly`]).
//!
//! - `random.rs`, [`RandomWalk`]: uniformly random among the runnable threads (the default,
//!   `strategy = "random"`);
//! - `pct.rs`, [`Pct`]: Probabilistic Concurrency Testing, random priorities with `depth - 1`
//!   change points (`strategy = "pct"`);
//! - `dfs.rs`, [`Dfs`]: every schedule of the test with at most `k` preemptions, depth first,
//!   up to [`DFS_LIMIT`] schedules, then random ones (`strategy = "dfs"`, `"dfs3"`);
//! - `guided.rs`, [`Guided`]: Algorithm 5 of MAPTest, steering towards one memory-access
//!   pattern; chosen by `guide = "map"` for the executions that aim at a target, whatever the
//!   sampling strategy (the others get the strategy's scheduler). DFS explores every
//!   schedule within its bound, so it aims at nothing.
//!
//! Every scheduler implements `crate::sched::Scheduler`, the interface the controlled run
//! asks at each point; the sampling ones are seeded with `seed::schedule(batch seed,
//! execution)`, and DFS's schedule `e` is the same for the same test, so that a replay token
//! makes the same choices.

use std::sync::{Arc, Mutex};

use crate::config::{Config, Strategy};
use crate::coverage::map::PatternKey;
use crate::coverage::Names;
use crate::exec::{Control, ExecutionSlot};
use crate::lock::lock;
use crate::sched::Scheduler;

mod dfs;
mod guided;
mod pct;
mod random;

use dfs::{Dfs, Explorer};

pub(crate) use dfs::{End, Explored};
pub(crate) use guided::Guided;
pub(crate) use pct::Pct;
pub(crate) use random::RandomWalk;

/// Schedules of one test that `dfs` explores at most; past it, the test's batch samples
/// random schedules (see decision 0093).
pub(crate) const DFS_LIMIT: usize = 2_000;

/// An exploration's progress, read by the check after the batch.
#[derive(Clone)]
pub(crate) struct Exploration(Arc<Mutex<Explorer>>);

impl Exploration {
    /// What the exploration came to.
    pub(crate) fn explored(&self) -> Explored {
        lock(&self.0).explored()
    }

    /// Executions its batch runs for `sampled` sampled ones: the exploration first, up to
    /// its limit, then `sampled` random schedules if the limit was reached.
    pub(crate) fn executions(&self, sampled: usize) -> usize {
        lock(&self.0).limit() + sampled
    }
}

/// Control of a batch whose seed is `base`: execution `e` gets the scheduler seeded with
/// `seed::schedule(base, e)`, aimed at `targets[e % targets.len()]` when there are targets;
/// under DFS, the next schedule of the test's exploration (and its progress, to read).
pub(crate) fn control(
    config: &Config,
    base: u64,
    targets: Option<(Arc<Names>, Vec<PatternKey>)>,
) -> (Control, Option<Exploration>) {
    let strategy = config.strategy;
    if let Strategy::Dfs { preemptions } = strategy {
        return explore(preemptions, base);
    }
    let control = Control::new(Box::new(move |slot: ExecutionSlot| {
        let seed = crate::seed::schedule(base, slot.execution);
        Some(match (&targets, strategy) {
            (Some((names, targets)), _) if !targets.is_empty() => {
                let target = targets[slot.execution % targets.len()];
                Box::new(Guided::new(seed, target, names.clone()))
            }
            _ => of_strategy(strategy, seed, slot),
        })
    }));
    (control, None)
}

/// Control of a batch that explores its test's schedules with at most `bound` preemptions,
/// up to [`DFS_LIMIT`], then samples random ones seeded from `base`. The batch ends when
/// the exploration does, unless the limit ended it.
fn explore(bound: usize, base: u64) -> (Control, Option<Exploration>) {
    let explorer = Arc::new(Mutex::new(Explorer::new(bound, DFS_LIMIT)));
    let shared = explorer.clone();
    let control = Control::new(Box::new(move |slot: ExecutionSlot| {
        let mut ex = lock(&shared);
        if ex.begin(slot.futile) {
            return Some(Box::new(Dfs::new(shared.clone())) as Box<dyn Scheduler>);
        }
        ex.over_limit().then(|| {
            Box::new(RandomWalk::new(crate::seed::schedule(base, slot.execution)))
                as Box<dyn Scheduler>
        })
    }));
    (control, Some(Exploration(explorer)))
}

/// Control of a batch that runs execution `execution` of the batch whose seed is `base`
/// first: its first execution gets the scheduler that execution had (the regressions file
/// replays a controlled failure in one execution). Exact for the random strategy; PCT's
/// scheduler also depends on the length of the runs before it, and DFS's schedule on the
/// schedules before it, which this batch has not run (a random one runs instead; the
/// regressions file then runs the whole batch).
pub(crate) fn exactly(config: &Config, base: u64, execution: usize) -> Control {
    let strategy = config.strategy;
    Control::new(Box::new(move |slot: ExecutionSlot| {
        Some(of_strategy(
            strategy,
            crate::seed::schedule(base, execution),
            slot,
        ))
    }))
}

/// The sampling scheduler of `strategy` for one execution, seeded with `seed` (random for
/// DFS, whose schedules are not sampled).
fn of_strategy(strategy: Strategy, seed: u64, slot: ExecutionSlot) -> Box<dyn Scheduler> {
    match strategy {
        Strategy::Pct { depth } => Box::new(Pct::new(seed, slot.threads, depth, slot.max_steps)),
        _ => Box::new(RandomWalk::new(seed)),
    }
}
