//! How a test's executions are controlled: the scheduler of each (the configured strategy,
//! or under guide `map` one aimed at a pattern the test can cover), seeded from the batch's
//! seed so that a replay makes the same choices.

use std::sync::{Arc, Mutex};

use crate::config::{Config, Guide, Strategy};
use crate::coverage::map::PatternKey;
use crate::coverage::{thread_methods, Guided, Names, Tracker};
use crate::exec::{Control, ExecutionSlot};
use crate::generate::ReadyTest;
use crate::lock::lock;
use crate::sched::{Pct, RandomWalk, Scheduler};

/// Where a controlled batch's schedules come from.
#[derive(Clone, Copy, Debug)]
pub(super) enum Schedules {
    /// The batch whose seed this is, every execution with its own schedule.
    Batch(u64),
    /// The one execution `execution` of batch `batch`, run alone.
    Exactly { batch: u64, execution: usize },
}

/// Patterns one test's executions aim at in turn, under guide `map`.
const TARGETS_PER_TEST: usize = 8;

/// Control of a batch whose seed is `base`: execution `e` gets the scheduler seeded with
/// `seed::schedule(base, e)`, aimed at `targets[e % targets.len()]` when there are targets.
fn control(config: &Config, base: u64, targets: Option<(Arc<Names>, Vec<PatternKey>)>) -> Control {
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
fn exactly(config: &Config, base: u64, execution: usize) -> Control {
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

/// The control of a batch of `ready` with `schedules`: its schedulers, and (with `read`)
/// `tracker` reading its executions.
pub(super) fn control_of(
    config: &Config,
    tracker: &Arc<Mutex<Tracker>>,
    ready: &ReadyTest,
    schedules: Schedules,
    read: bool,
) -> Control {
    let base = match schedules {
        Schedules::Batch(base) => base,
        Schedules::Exactly { batch, execution } => return exactly(config, batch, execution),
    };
    let targets = (config.guide == Guide::Map).then(|| {
        let mut t = lock(tracker);
        let methods = thread_methods(&ready.test);
        (
            t.names(),
            t.targets(&methods, ready.target, TARGETS_PER_TEST),
        )
    });
    let control = control(config, base, targets);
    if !read {
        return control;
    }
    let tracker = tracker.clone();
    control.with_trace_sink(Box::new(move |trace| lock(&tracker).add_trace(trace)))
}
