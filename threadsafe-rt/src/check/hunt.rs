//! A check's search for a violation: the generated tests, round after round, each run as a
//! batch of concurrent executions (controlled when the test reaches scheduling points), and
//! every failed execution put to the oracle.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::control::{control, TARGETS_PER_TEST};
use crate::config::{Config, Guide, ReplayToken, ScheduleMode};
use crate::coverage::{thread_methods, Tracker};
use crate::exec::{BatchSpec, ConcRunner, ExecOutcome, SeqRunner};
use crate::generate::{ReadyTest, Rounds};
use crate::lock::lock;
use crate::oracle;
use crate::report::{violation, Coverage, Ended, FailingTest, Found, Report, Verdict};
use crate::subject::Description;

/// The state of one check's search.
pub(super) struct Hunt<'c, T: 'static> {
    desc: &'static Description<T>,
    config: &'c Config,
    start: Instant,
    deadline: Instant,
    seq: SeqRunner,
    conc: ConcRunner,
    tracker: Arc<Mutex<Tracker>>,
    /// Shared by the hunts of one check (`jobs`): set by the first to end the check early,
    /// and the others end at their next test.
    stop: Option<Arc<AtomicBool>>,
}

impl<'c, T: Send + Sync + 'static> Hunt<'c, T> {
    pub(super) fn new(desc: &'static Description<T>, config: &'c Config, start: Instant) -> Self {
        Hunt {
            desc,
            config,
            start,
            deadline: start + config.budget,
            seq: SeqRunner::new(),
            conc: ConcRunner::new(config.executor, config.seed),
            tracker: Arc::new(Mutex::new(Tracker::new(desc.concurrent_methods()))),
            stop: None,
        }
    }

    /// Ends this hunt at its next test once `stop` is set, and sets it when this hunt ends
    /// the check early (a violation, or every pattern covered).
    pub(super) fn stop_with(mut self, stop: Arc<AtomicBool>) -> Self {
        self.stop = Some(stop);
        self
    }

    /// Runs tests until a violation, the budget, or the generator's end; fills `report`.
    pub(super) fn run(mut self, report: &mut Report) {
        if self.config.guide != Guide::Map && !self.config.stop_when_covered {
            // Nothing reads the coverage during the check: the sequential runs and the
            // reading of the executions come after the last test, off the path to a bug.
            lock(&self.tracker).defer_reading();
        } else {
            self.probe_coverage();
        }
        let mut rounds =
            Rounds::new(self.desc, self.config).guided(self.config.guide, self.tracker.clone());
        let mut halted = false;
        while let Some(ready) = rounds.next(&mut self.seq, self.deadline) {
            if self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Acquire))
            {
                halted = true;
                break;
            }
            report.tests += 1;
            // The seed `run_test` gives the batch's schedules, kept with a violation.
            let batch_seed = self.conc.next_batch_seed();
            if let Some(ended) = self.run_test(&ready, report) {
                if ended == Ended::Violation {
                    let test = ready.test.clone();
                    report.failing = Some(FailingTest { test, batch_seed });
                }
                if let Some(stop) = &self.stop {
                    stop.store(true, Ordering::Release);
                }
                report.ended = ended;
                break;
            }
        }
        if let Some(why) = rounds.cannot_instantiate() {
            report.verdict = Verdict::CannotCheck(why);
        }
        if report.ended == Ended::Exhausted && Instant::now() >= self.deadline {
            report.ended = Ended::Budget;
        }
        report.coverage = if halted {
            Coverage::NotMeasured("another job ended the check first".to_string())
        } else {
            self.coverage(report.controlled_tests)
        };
        report.abandoned_threads = self.seq.abandoned() + self.conc.abandoned();
    }

    /// Runs one test's executions; what ended the check, if this test did.
    fn run_test(&mut self, ready: &ReadyTest, report: &mut Report) -> Option<Ended> {
        let config = self.config;
        let timeout = config.hang_timeout(Some(ready.seq_time));
        let controlled = match config.schedule {
            ScheduleMode::Controlled => true,
            ScheduleMode::Stress => false,
            _ => ready.points > 0,
        };
        report.controlled_tests += u64::from(controlled);
        let control = controlled.then(|| {
            let targets = (config.guide == Guide::Map).then(|| {
                let mut t = lock(&self.tracker);
                let methods = thread_methods(&ready.test);
                (
                    t.names(),
                    t.targets(&methods, ready.target, TARGETS_PER_TEST),
                )
            });
            let tracker = self.tracker.clone();
            control(config, self.conc.next_batch_seed(), targets)
                .with_trace_sink(Box::new(move |trace| lock(&tracker).add_trace(trace)))
        });
        let spec = BatchSpec {
            count: config.conc_execs,
            timeout,
            deadline: self.deadline,
            control,
        };
        let batch = self.conc.run_batch(self.desc, &ready.test, spec);
        lock(&self.tracker).add_test(&ready.test);
        report.executions += batch.executions as u64;
        if config.stop_when_covered
            && matches!(batch.outcome, ExecOutcome::Passed)
            && lock(&self.tracker).all_covered()
        {
            return Some(Ended::AllPatternsCovered);
        }
        report.uncontrolled_runs += batch.uncontrolled as u64;
        let failure = match batch.outcome {
            ExecOutcome::Passed | ExecOutcome::Invalid => return None,
            failure @ (ExecOutcome::Panicked(_) | ExecOutcome::Deadlock(_)) => failure,
        };
        let linearizations =
            oracle::judge(self.desc, &ready.test, &failure, &mut self.seq, timeout)?;
        // Under guide `map` a test depends on the coverage of every execution before it,
        // which a replay does not re-run: no token.
        let replay = batch
            .trace
            .as_ref()
            .filter(|_| config.guide != Guide::Map)
            .map(|_| {
                ReplayToken {
                    seed: config.seed,
                    test: report.tests,
                    execution: batch.executions - 1,
                    strategy: config.strategy,
                    guide: config.guide,
                }
                .to_string()
            });
        let found = Found {
            tests: report.tests,
            executions: report.executions,
            time_to_bug: self.start.elapsed(),
            replay,
        };
        report.verdict = Verdict::Violation(Box::new(violation(
            self.desc,
            &ready.test,
            &failure,
            linearizations,
            batch.trace.as_deref(),
            config,
            found,
        )));
        Some(Ended::Violation)
    }

    /// MAP-coverage's sequential runs of the methods, handed to the tracker.
    fn probe_coverage(&mut self) {
        let probe = crate::generate::probe(self.desc, self.config, &mut self.seq);
        lock(&self.tracker).probed(self.desc, &probe);
    }

    /// The coverage the controlled executions reached, read now if reading was deferred
    /// (for at most a quarter of the budget).
    fn coverage(&mut self, controlled_tests: u64) -> Coverage {
        if controlled_tests == 0 {
            return Coverage::NotMeasured(
                "no controlled execution: free-running threads give no order of steps to match"
                    .to_string(),
            );
        }
        if lock(&self.tracker).is_deferred() {
            self.probe_coverage();
        }
        let mut t = lock(&self.tracker);
        t.finish(self.config.budget / 4);
        Coverage::Measured(Box::new(t.summary()))
    }
}
