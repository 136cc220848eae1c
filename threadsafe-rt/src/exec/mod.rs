//! Executing tests: one call, a sequential order of calls, and concurrent executions.
//!
//! - `call.rs`: one call — its fresh argument values, receiver and output;
//! - `sequential.rs`: the calls of a test one at a time in a given order, on a worker
//!   thread under a watchdog ([`SeqRunner`]);
//! - concurrent executions ([`ConcRunner`]) run as *batches*, a test's executions back to
//!   back, built like a stress harness: persistent workers (`worker.rs`), the prefix run by
//!   the first worker while the others wait, fresh argument values made before the start,
//!   and a spin barrier so the suffixes really start together (`batch.rs`, with the
//!   threads' walk through each execution in `phases.rs`). Controlled executions run on
//!   the same workers, one thread at a time, with the scheduler that `control.rs`'s
//!   [`Control`] makes for each; `execution.rs` holds the parts every executor shares, and
//!   `outcome.rs` what an execution came to. `executor = "paper"` (`paper.rs`) spawns a
//!   thread per suffix per execution instead and starts them with `std::sync::Barrier`, as
//!   the original tool did.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::Executor;
use crate::point::Step;
use crate::subject::Description;
use crate::testcase::TestCase;

mod batch;
mod blocking;
mod call;
mod control;
mod cores;
mod execution;
mod linear;
mod offsets;
mod outcome;
mod padded;
mod paper;
mod phases;
mod results;
mod sequential;
mod worker;

pub(crate) use batch::stride;
#[cfg(feature = "bench")]
pub use batch::MAX_STRIDE;
pub(crate) use blocking::{run_blocking, Blocking};
pub(crate) use call::{CallOutcome, Produced};
pub(crate) use control::{Control, ExecutionSlot};
pub(crate) use linear::{Pace, Started};
pub(crate) use outcome::{Blocked, ExecOutcome, Site};
pub(crate) use results::{Distinct, Res, Results, Seen};
pub(crate) use sequential::{serial_order, SeqRunner};

use worker::Worker;

/// What a batch of executions came to.
pub(crate) struct BatchOutcome {
    pub(crate) executions: usize,
    /// The first execution that did not pass, if any (then the batch stopped there).
    pub(crate) outcome: ExecOutcome,
    /// Its schedule, when it was controlled.
    pub(crate) trace: Option<Vec<Step>>,
    /// Controlled executions that had to give up control.
    pub(crate) uncontrolled: usize,
    /// Controlled executions cut at [`MAX_STEPS`](crate::sched::MAX_STEPS) (then the
    /// batch stopped after the first).
    pub(crate) cut: usize,
    /// The distinct results of its executions, when observed.
    pub(crate) results: Distinct,
}

/// What to run: how many executions, how long to wait, and whether under control.
pub(crate) struct BatchSpec {
    pub(crate) count: usize,
    pub(crate) timeout: Duration,
    pub(crate) deadline: Instant,
    pub(crate) control: Option<Control>,
    /// Observe the calls' return values and keep the distinct results.
    pub(crate) observe: bool,
    /// Free-running executions per round (jcstress's strides; see [`stride`]); controlled
    /// rounds hold one.
    pub(crate) stride: usize,
    /// How long the test took, run one call at a time: bounds the free-running threads'
    /// start offsets (`offsets.rs`).
    pub(crate) seq_time: Duration,
    /// Scheduling points that run reached: with `seq_time`, bounds the noise's stalls at
    /// statement points (`offsets.rs`).
    pub(crate) points: u64,
    /// The batch's seed (`crate::seed::batch`, owned by the check): the free-running
    /// threads' start delays derive from it.
    pub(crate) seed: u64,
}

/// Runs tests concurrently, many times each.
pub(crate) struct ConcRunner {
    executor: Executor,
    workers: Vec<Worker>,
}

impl ConcRunner {
    pub(crate) fn new(executor: Executor) -> Self {
        ConcRunner {
            executor,
            workers: Vec::new(),
        }
    }

    /// Worker threads left blocked in deadlocked code.
    pub(crate) fn abandoned(&self) -> usize {
        self.workers.iter().map(|w| w.abandoned).sum()
    }

    /// Up to `spec.count` executions of `test`, each on a fresh prefix, stopping at the
    /// first that fails (or is invalid) or at the deadline. Controlled executions (with
    /// `spec.control`) run on the stress workers too, one thread at a time. A batch run again
    /// with the same seed and control makes the same choices.
    pub(crate) fn run_batch<T: Send + Sync + 'static>(
        &mut self,
        desc: &'static Description<T>,
        test: &Arc<TestCase>,
        spec: BatchSpec,
    ) -> BatchOutcome {
        match self.executor {
            Executor::Paper if spec.control.is_none() => paper::run(
                desc,
                test,
                spec.count,
                spec.timeout,
                spec.deadline,
                spec.observe,
            ),
            _ => batch::run(
                &mut self.workers,
                batch::BatchPlan {
                    desc,
                    test,
                    count: spec.count,
                    timeout: spec.timeout,
                    deadline: spec.deadline,
                    control: spec.control,
                    jitter_seed: spec.seed,
                    observe: spec.observe,
                    stride: spec.stride,
                    seq_time: spec.seq_time,
                    points: spec.points,
                },
            ),
        }
    }

    /// Runs `test` once per order of `orders` (a linearization each), one call at a time,
    /// each call on the worker of its thread; the results of each run (`None` where the
    /// prefix failed or the run hung). See `linear.rs`.
    pub(crate) fn run_linear<T: Send + Sync + 'static>(
        &mut self,
        desc: &'static Description<T>,
        test: &Arc<TestCase>,
        orders: &[Vec<usize>],
        timeout: Duration,
    ) -> Vec<Option<Results>> {
        linear::run(&mut self.workers, desc, test, orders, None, timeout)
    }

    /// Starts runs as [`run_linear`](Self::run_linear) does, each call after a seeded pause
    /// (`pace`), the runs spread over lanes of workers beside the first lane's, and returns
    /// without waiting for them: unpaced runs may go on the first lane meanwhile.
    /// [`finish_linear`](Self::finish_linear) or [`cancel_linear`](Self::cancel_linear)
    /// must follow before the next batch.
    pub(crate) fn start_linear_beside<T: Send + Sync + 'static>(
        &mut self,
        desc: &'static Description<T>,
        test: &Arc<TestCase>,
        orders: &[Vec<usize>],
        pace: Pace,
    ) -> Started<T> {
        let first = test.threads.len();
        linear::start(&mut self.workers, first, desc, test, orders, Some(pace))
    }

    /// Waits for runs started beside; the results of each run, as `run_linear` gives them.
    pub(crate) fn finish_linear<T: Send + Sync + 'static>(
        &mut self,
        started: Started<T>,
        timeout: Duration,
    ) -> Vec<Option<Results>> {
        started.finish(&mut self.workers, timeout)
    }

    /// Stops runs started beside at their next call and waits for their workers.
    pub(crate) fn cancel_linear<T: Send + Sync + 'static>(
        &mut self,
        started: Started<T>,
        timeout: Duration,
    ) {
        started.cancel(&mut self.workers, timeout);
    }
}
