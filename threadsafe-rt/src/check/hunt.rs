//! A check's search for a violation: the generated tests, round after round, each run as a
//! batch of concurrent executions (controlled when the test reaches scheduling points), and
//! every failed execution put to the oracle.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::auto::{controlled_count, Arms, FreeArm};
use super::control::{control_of, Schedules};
use super::rerun::Again;
use super::shrink::{shrink_time, RunsCandidates, Shrinker, SHRINK_MAX};
use crate::config::{Config, Guide, ReplayToken, ScheduleMode};
use crate::coverage::Tracker;
use crate::exec::{stride, BatchOutcome, BatchSpec, ConcRunner, Distinct, ExecOutcome, SeqRunner};
use crate::generate::{ReadyTest, Rounds};
use crate::lock::lock;
use crate::oracle::{self, BatchRun, ResultsOracle};
use crate::report::{
    violation, Coverage, Ended, FailingTest, Finding, Found, Report, Verdict, Violation,
};
use crate::subject::Description;

/// The state of one check's search.
pub(super) struct Hunt<'c, T: 'static> {
    desc: &'static Description<T>,
    config: &'c Config,
    start: Instant,
    pub(super) deadline: Instant,
    seq: SeqRunner,
    conc: ConcRunner,
    tracker: Arc<Mutex<Tracker>>,
    /// What the results oracle learned in the tests so far.
    results: ResultsOracle,
    /// Whether a find can be replayed from a token: not while shrinking (a smaller test is
    /// not one the generator made).
    pub(super) replayable: bool,
    /// Executions per batch: `conc_execs`, or up to the execution a replay names.
    batch_size: usize,
    /// A replay: a controlled batch runs exactly `batch_size` executions, even when its
    /// strategy explores (the token names an execution of the exploration).
    exact_count: bool,
    /// How long shrinking a find may take.
    shrink_time: Duration,
    /// Whether a test with points inside its calls also runs free (not in a replay, which
    /// re-runs one controlled execution).
    free_arm: bool,
    /// The free-running arm's share of the time of tests that run both arms.
    free: FreeArm,
    /// The distinct results of the batch run last.
    last_results: Distinct,
    /// The check's batches so far, each a test's (a free-running batch beside a controlled
    /// one is not counted: it runs with the test's seed); the next one's number decides its
    /// seed ([`crate::seed::batch`]), which a replay token names through its test.
    batches: u64,
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
            conc: ConcRunner::new(config.executor),
            batches: 0,
            tracker: Arc::new(Mutex::new(Tracker::new(desc.concurrent_methods()))),
            results: ResultsOracle::default(),
            replayable: true,
            batch_size: config.conc_execs,
            exact_count: false,
            shrink_time: shrink_time(config.budget),
            free_arm: true,
            free: FreeArm::new(),
            last_results: Distinct::default(),
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
        report.results.compared = self.config.results;
        for m in self.desc.methods.iter().filter(|m| m.nondeterministic) {
            report.results.not_compared.insert(
                m.name.to_string(),
                "marked `#[thread_safe(nondeterministic)]`".to_string(),
            );
        }
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
            if self.config.tests.is_some_and(|n| report.tests >= n) {
                break;
            }
            if self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Acquire))
            {
                halted = true;
                break;
            }
            report.tests += 1;
            super::isolate::started(self.desc, self.config, &ready.test, report.tests);
            // The seed `run_test` gives the batch's schedules, kept with a violation.
            let batch_seed = self.next_batch_seed();
            let ended = self.run_test(&ready, report);
            if ended.is_none() {
                super::isolate::finished();
            }
            if let Some(ended) = ended {
                if ended == Ended::Violation {
                    let test = ready.test.clone();
                    report.failing = Some(FailingTest { test, batch_seed });
                }
                if let Some(stop) = &self.stop {
                    stop.store(true, Ordering::Release);
                }
                report.ended = ended;
                self.shrink_found(&ready, report);
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
        report.abandoned_threads = self.abandoned();
    }

    /// Re-runs the execution `token` names: the same tests up to its test (planned the same
    /// way under guide `pairs`), whose batch runs up to the execution; judged and shrunk as
    /// the check did.
    pub(super) fn replay(mut self, token: ReplayToken, report: &mut Report) {
        self.deadline = Instant::now() + Duration::from_secs(24 * 3600);
        self.batch_size = token.execution + 1;
        self.exact_count = true;
        self.free_arm = false;
        self.shrink_time = SHRINK_MAX;
        let mut rounds = Rounds::new(self.desc, self.config)
            .guided(self.config.guide, self.tracker.clone())
            .at_most(66);
        let mut number = 0;
        while let Some(ready) = rounds.next(&mut self.seq, self.deadline) {
            number += 1;
            if number < token.test {
                lock(&self.tracker).add_test(&ready.test);
                self.batches += 1;
                continue;
            }
            report.tests = number;
            if self.run_test(&ready, report) == Some(Ended::Violation) {
                report.ended = Ended::Violation;
                self.shrink_found(&ready, report);
            } else {
                report.verdict = Verdict::CannotCheck(format!(
                    "replay {token}: the execution passed this time (has the code or the seed changed?)"
                ));
            }
            return;
        }
        report.verdict = Verdict::CannotCheck(format!(
            "replay {token}: the generator made fewer tests than that"
        ));
    }

    /// Replaces the violation in `report` (of `ready`'s test) by its shrunk form.
    pub(super) fn shrink_found(&mut self, ready: &ReadyTest, report: &mut Report) {
        if !self.config.shrink {
            return;
        }
        // Candidates run whole batches, as in the check, whatever execution a replay named.
        self.batch_size = self.config.conc_execs;
        self.exact_count = false;
        if let Verdict::Violation(v) =
            std::mem::replace(&mut report.verdict, Verdict::NoViolationFound)
        {
            let shrinker = Shrinker {
                desc: self.desc,
                config: self.config,
                time: self.shrink_time,
            };
            report.verdict = Verdict::Violation(Box::new(shrinker.shrink(self, ready, *v)));
        }
    }

    /// Runs one test's executions; what ended the check, if this test did.
    fn run_test(&mut self, ready: &ReadyTest, report: &mut Report) -> Option<Ended> {
        let arms = self.arms(ready);
        let both = arms == Arms::Both && self.free_arm;
        if both && self.free.owed() {
            // The free arm's owed time goes to tests of its own, a batch each, as under
            // `stress` (see [`FreeArm`]). The batch counts as the test's: the seeds of the
            // controlled batches after it, and so replay tokens, stay as they were.
            let start = Instant::now();
            let ended = self.run_batch(ready, None, self.batch_size, report);
            self.free.spent(start.elapsed());
            return ended;
        }
        let schedules = (arms != Arms::Free).then(|| Schedules::Batch(self.next_batch_seed()));
        // Under both arms, the controlled batch holds a share of the count; the free-running
        // batch after it, all of it.
        let count = if both {
            controlled_count(self.batch_size)
        } else {
            self.batch_size
        };
        let start = Instant::now();
        let ended = self.run_batch(ready, schedules, count, report);
        if ended.is_some() || !both {
            return ended;
        }
        let controlled_seen = std::mem::take(&mut self.last_results);
        self.free.grant(start.elapsed());
        let start = Instant::now();
        let ended = self.run_batch_until(ready, None, self.batch_size, self.deadline, true, report);
        self.free.ran_beside(start.elapsed());
        if ended.is_none() {
            self.free.judge(&controlled_seen, &self.last_results);
        }
        ended
    }

    /// How `ready`'s executions run; see [`Arms`].
    fn arms(&self, ready: &ReadyTest) -> Arms {
        match self.config.schedule {
            ScheduleMode::Controlled => Arms::Controlled,
            ScheduleMode::Stress => Arms::Free,
            _ if ready.points == 0 || ready.call_points <= 1 => Arms::Free,
            _ => Arms::Both,
        }
    }

    /// Whether `ready`'s executions run under control (first, when both arms run).
    pub(super) fn controlled(&self, ready: &ReadyTest) -> bool {
        self.arms(ready) != Arms::Free
    }

    /// The seed the next batch's schedules would take.
    pub(super) fn next_batch_seed(&self) -> u64 {
        crate::seed::batch(self.config.seed, self.batches + 1)
    }

    /// The seed of the batch run last (or running).
    fn batch_seed(&self) -> u64 {
        crate::seed::batch(self.config.seed, self.batches)
    }

    /// Threads the runners gave up on.
    pub(super) fn abandoned(&self) -> usize {
        self.seq.abandoned() + self.conc.abandoned()
    }

    /// Runs `count` executions of `ready` (controlled with `schedules`, else free-running),
    /// judged by the oracle; what ended the check, if they did.
    pub(super) fn run_batch(
        &mut self,
        ready: &ReadyTest,
        schedules: Option<Schedules>,
        count: usize,
        report: &mut Report,
    ) -> Option<Ended> {
        self.run_batch_until(ready, schedules, count, self.deadline, false, report)
    }

    /// [`run_batch`](Self::run_batch) until `deadline`; `extra`: a batch beside the test's
    /// own (the free-running arm), which does not count as one of the check's batches.
    fn run_batch_until(
        &mut self,
        ready: &ReadyTest,
        schedules: Option<Schedules>,
        count: usize,
        deadline: Instant,
        extra: bool,
        report: &mut Report,
    ) -> Option<Ended> {
        let config = self.config;
        let timeout = config.hang_timeout(Some(ready.seq_time));
        let controlled = schedules.is_some();
        report.controlled_tests += u64::from(controlled && !extra);
        let (control, exploration) = schedules
            .map(|s| control_of(config, &self.tracker, ready, s, self.replayable))
            .map_or((None, None), |(control, exploration)| {
                (Some(control), exploration)
            });
        // An exploration runs its schedules first, unless a replay asks for exactly its
        // executions up to the one the token names.
        let count = match &exploration {
            Some(e) if !self.exact_count => e.executions(count),
            _ => count,
        };
        if !extra {
            self.batches += 1;
        }
        let spec = BatchSpec {
            count,
            timeout,
            deadline,
            control,
            observe: config.results,
            stride: stride(ready.seq_time),
            seq_time: ready.seq_time,
            points: ready.points,
            seed: self.batch_seed(),
        };
        let batch_start = Instant::now();
        let batch = self.conc.run_batch(self.desc, &ready.test, spec);
        let batch_time = batch_start.elapsed();
        if !extra {
            lock(&self.tracker).add_test(&ready.test);
        }
        report.executions += batch.executions as u64;
        if let Some(exploration) = exploration {
            let failed = !matches!(batch.outcome, ExecOutcome::Passed);
            report.exploration.add(exploration.explored(), failed);
        }
        if config.stop_when_covered
            && matches!(batch.outcome, ExecOutcome::Passed)
            && lock(&self.tracker).all_covered()
        {
            return Some(Ended::AllPatternsCovered);
        }
        report.uncontrolled_runs += batch.uncontrolled as u64;
        report.cut_runs += batch.cut as u64;
        if let failure @ (ExecOutcome::Panicked(_) | ExecOutcome::Deadlock(_)) = &batch.outcome {
            if let Some(linearizations) =
                oracle::judge(self.desc, &ready.test, failure, &mut self.seq, timeout)
            {
                let found = self.found(report, batch.trace.is_some(), batch.executions - 1);
                report.verdict = Verdict::Violation(Box::new(violation(
                    self.desc,
                    &ready.test,
                    Finding::Failed(failure),
                    linearizations,
                    batch.trace.as_deref(),
                    config,
                    found,
                )));
                return Some(Ended::Violation);
            }
        }
        let run = BatchRun {
            controlled,
            timeout,
            time: batch_time,
            deadline: self.deadline,
        };
        let ended = self.judge_results(ready, &batch, schedules, run, report);
        self.last_results = batch.results;
        ended
    }

    /// The results oracle over the distinct results of a batch run with `schedules` (see
    /// [`ResultsOracle`]); the violation, if it finds one.
    fn judge_results(
        &mut self,
        ready: &ReadyTest,
        batch: &BatchOutcome,
        schedules: Option<Schedules>,
        run: BatchRun,
        report: &mut Report,
    ) -> Option<Ended> {
        let seed = self.batch_seed();
        let mut again = Again {
            desc: self.desc,
            config: self.config,
            ready,
            conc: &mut self.conc,
            tracker: &self.tracker,
            schedules,
            seed,
        };
        let wrong = self.results.judge(
            self.desc,
            &ready.test,
            &batch.results,
            run,
            &mut again,
            report,
        )?;
        let found = self.found(report, wrong.trace().is_some(), wrong.seen.execution);
        let v = wrong.violation(self.desc, &ready.test, self.config, found);
        report.verdict = Verdict::Violation(Box::new(v));
        Some(Ended::Violation)
    }

    /// How a violation in execution `execution` of the current test was found.
    fn found(&self, report: &Report, controlled: bool, execution: usize) -> Found {
        let config = self.config;
        // Under guide `map` a test depends on the coverage of every execution before it,
        // which a replay does not re-run: no token.
        let replay = (controlled && self.replayable && config.guide != Guide::Map).then(|| {
            ReplayToken {
                seed: config.seed,
                test: report.tests,
                execution,
                strategy: config.strategy,
                guide: config.guide,
            }
            .to_string()
        });
        Found {
            tests: report.tests,
            executions: report.executions,
            time_to_bug: self.start.elapsed(),
            replay,
            controlled,
        }
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
            // Which methods met is known without a trace: the tests say it.
            return Coverage::NotMeasured(format!(
                "no controlled execution: free-running threads give no order of steps to match; {}",
                lock(&self.tracker).pairs_run()
            ));
        }
        if lock(&self.tracker).is_deferred() {
            self.probe_coverage();
        }
        let mut t = lock(&self.tracker);
        t.finish(self.config.budget / 4);
        Coverage::Measured(Box::new(t.summary()))
    }
}

impl<T: Send + Sync + 'static> RunsCandidates for Hunt<'_, T> {
    fn seq(&mut self) -> &mut SeqRunner {
        &mut self.seq
    }

    /// A candidate runs as a test of the check with the shrink's deadline, and makes no
    /// replay token (the generator did not make it).
    fn violation_of(
        &mut self,
        ready: &ReadyTest,
        batches: usize,
        until: Instant,
    ) -> Option<Box<Violation>> {
        let mut scratch = Report::new(self.desc.name(), self.config.seed, Vec::new());
        let deadline = std::mem::replace(&mut self.deadline, until);
        self.replayable = false;
        self.free.settle();
        let mut found = None;
        for _ in 0..batches {
            if Instant::now() >= until {
                break;
            }
            scratch.tests += 1;
            if self.run_test(ready, &mut scratch) == Some(Ended::Violation) {
                if let Verdict::Violation(v) = scratch.verdict {
                    found = Some(v);
                }
                break;
            }
        }
        self.deadline = deadline;
        self.replayable = true;
        found
    }
}
