//! The strategies: who runs next at each scheduling point of a controlled execution, one file
//! each, and the one place where a batch's executions get theirs ([`control`], [`exactly`]).
//!
//! - `random.rs`, [`RandomWalk`]: uniformly random among the runnable threads (the default,
//!   `strategy = "random"`);
//! - `pct.rs`, [`Pct`]: Probabilistic Concurrency Testing, random priorities with `depth - 1`
//!   change points (`strategy = "pct"`);
//! - `guided.rs`, [`Guided`]: Algorithm 5 of MAPTest, steering towards one memory-access
//!   pattern; chosen by `guide = "map"` for the executions that aim at a target, whatever the
//!   strategy (the others get the strategy's scheduler).
//!
//! Every scheduler implements `crate::sched::Scheduler`, the interface the controlled run
//! asks at each point; each is seeded with `seed::schedule(batch seed, execution)`, so that a
//! replay token makes the same choices.

use std::sync::Arc;

use crate::config::{Config, Strategy};
use crate::coverage::map::PatternKey;
use crate::coverage::Names;
use crate::exec::{Control, ExecutionSlot};
use crate::sched::Scheduler;

mod guided;
mod pct;
mod random;

pub(crate) use guided::Guided;
pub(crate) use pct::Pct;
pub(crate) use random::RandomWalk;

/// Control of a batch whose seed is `base`: execution `e` gets the scheduler seeded with
/// `seed::schedule(base, e)`, aimed at `targets[e % targets.len()]` when there are targets.
pub(crate) fn control(
    config: &Config,
    base: u64,
    targets: Option<(Arc<Names>, Vec<PatternKey>)>,
) -> Control {
    let strategy = config.strategy;
    Control::new(Box::new(move |slot: ExecutionSlot| -> Box<dyn Scheduler> {
        let seed = crate::seed::schedule(base, slot.execution);
        match (&targets, strategy) {
            (Some((names, targets)), _) if !targets.is_empty() => {
                let target = targets[slot.execution % targets.len()];
                Box::new(Guided::new(seed, target, names.clone()))
            }
            _ => of_strategy(strategy, seed, slot),
        }
    }))
}

/// Control of a batch that runs execution `execution` of the batch whose seed is `base`
/// first: its first execution gets the scheduler that execution had (the regressions file
/// replays a controlled failure in one execution). Exact for the random strategy; PCT's
/// scheduler also depends on the length of the runs before it, which this batch has not run.
pub(crate) fn exactly(config: &Config, base: u64, execution: usize) -> Control {
    let strategy = config.strategy;
    Control::new(Box::new(move |slot: ExecutionSlot| -> Box<dyn Scheduler> {
        of_strategy(strategy, crate::seed::schedule(base, execution), slot)
    }))
}

/// The scheduler of `strategy` for one execution, seeded with `seed`.
fn of_strategy(strategy: Strategy, seed: u64, slot: ExecutionSlot) -> Box<dyn Scheduler> {
    match strategy {
        Strategy::Pct { depth } => Box::new(Pct::new(seed, slot.threads, depth, slot.max_steps)),
        _ => Box::new(RandomWalk::new(seed)),
    }
}
