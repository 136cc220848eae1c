//! How the executions of a batch are controlled: who makes each execution's scheduler, and
//! what is learned from one execution for the next.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::point::Step;
use crate::sched::{Futile, Run, Scheduler};

/// What the scheduler of one execution is made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExecutionSlot {
    /// The threads of the execution.
    pub(crate) threads: usize,
    /// The execution's number in its batch.
    pub(crate) execution: usize,
    /// Steps of the longest run of the batch so far: PCT's estimate of a run's length.
    pub(crate) max_steps: usize,
    /// Points the test's earlier runs found futile (passed over from then on): an
    /// exploration whose points changed under it starts again.
    pub(crate) futile: usize,
}

/// Makes the scheduler of each execution of a batch; `None` when there is no schedule left
/// to run (an exploration ended): the batch is over.
pub(crate) type MakeScheduler =
    Box<dyn Fn(ExecutionSlot) -> Option<Box<dyn Scheduler>> + Send + Sync>;

/// Told the steps of every controlled execution as it ends (MAP-coverage reads them).
pub(crate) type TraceSink = Box<dyn Fn(Vec<Step>) + Send + Sync>;

/// PCT's first guess of a run's length, before a run has been measured.
const INITIAL_STEP_ESTIMATE: usize = 20;

/// How the executions of a batch are controlled.
pub(crate) struct Control {
    schedulers: MakeScheduler,
    /// Steps of the longest run so far.
    max_steps: AtomicUsize,
    /// Points found futile (inside std critical sections) by earlier runs of this test.
    futile: Arc<Futile>,
    trace_sink: Option<TraceSink>,
}

impl Control {
    /// Executions controlled by the schedulers `schedulers` makes.
    pub(crate) fn new(schedulers: MakeScheduler) -> Self {
        Control {
            schedulers,
            max_steps: AtomicUsize::new(INITIAL_STEP_ESTIMATE),
            futile: Arc::default(),
            trace_sink: None,
        }
    }

    /// Tells `sink` the steps of every execution.
    pub(crate) fn with_trace_sink(mut self, sink: TraceSink) -> Self {
        self.trace_sink = Some(sink);
        self
    }

    /// The controlled run of execution `e`, with `n` threads; `None` when no schedule is
    /// left.
    pub(super) fn run(&self, n: usize, e: usize) -> Option<Arc<Run>> {
        let scheduler = (self.schedulers)(ExecutionSlot {
            threads: n,
            execution: e,
            max_steps: self.max_steps.load(Ordering::Relaxed),
            futile: self.futile.len(),
        })?;
        Some(Run::with_futile(n, scheduler, self.futile.clone()))
    }

    /// Learns from a finished run: its length, and its steps for the sink.
    pub(super) fn ended(&self, run: &Run) {
        self.max_steps.fetch_max(run.steps(), Ordering::Relaxed);
        if let Some(sink) = &self.trace_sink {
            sink(run.trace());
        }
    }
}
