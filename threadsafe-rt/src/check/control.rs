//! How a test's executions are controlled: where a batch's schedules come from, and under
//! guide `map` the patterns its executions aim at; the schedulers themselves are chosen in
//! `crate::strategy`, seeded from the batch's seed so that a replay makes the same choices.

use std::sync::{Arc, Mutex};

use crate::config::{Config, Guide};
use crate::coverage::{thread_methods, Tracker};
use crate::exec::Control;
use crate::generate::ReadyTest;
use crate::lock::lock;
use crate::strategy::{control, exactly, Exploration};

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

/// The control of a batch of `ready` with `schedules`: its schedulers, and (with `read`)
/// `tracker` reading its executions; under DFS, the exploration's progress.
pub(super) fn control_of(
    config: &Config,
    tracker: &Arc<Mutex<Tracker>>,
    ready: &ReadyTest,
    schedules: Schedules,
    read: bool,
) -> (Control, Option<Exploration>) {
    let base = match schedules {
        Schedules::Batch(base) => base,
        Schedules::Exactly { batch, execution } => {
            return (exactly(config, batch, execution), None)
        }
    };
    let targets = (config.guide == Guide::Map).then(|| {
        let mut t = lock(tracker);
        let methods = thread_methods(&ready.test);
        (
            t.names(),
            t.targets(&methods, ready.target, TARGETS_PER_TEST),
        )
    });
    let (control, exploration) = control(config, base, targets);
    if !read {
        return (control, exploration);
    }
    let tracker = tracker.clone();
    let control = control.with_trace_sink(Box::new(move |trace| lock(&tracker).add_trace(trace)));
    (control, exploration)
}
