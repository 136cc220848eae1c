//! Replaying one entry: its test is run once sequentially (it must still run, and the run
//! says how long it takes and whether it reaches scheduling points), then concurrently with
//! the entry's settings: under control, first the one execution its schedule names, then,
//! if that passed, its whole batch again; free-running, a batch of `conc_execs` executions.
//! A failure goes to the oracle, as in a hunt.

use std::sync::Arc;
use std::time::Instant;

use super::format::Entry;
use crate::check::control::{control, exactly};
use crate::config::{Config, ScheduleMode};
use crate::exec::{
    serial_order, BatchSpec, CallOutcome, ConcRunner, ExecOutcome, Produced, SeqRunner,
};
use crate::oracle;
use crate::report::{violation, Found, Report, Verdict};
use crate::subject::Description;
use crate::testcase::{Out, Scope, TestCase};

/// What replaying an entry came to.
pub(super) enum Replayed {
    /// Its failure came back: `report` holds the violation.
    Found,
    /// It ran and passed.
    Passed,
    /// It could not run as written, and why.
    Skipped(String),
}

/// The state the entries of one check share.
pub(super) struct Replayer<'c, T: 'static> {
    pub(super) desc: &'static Description<T>,
    pub(super) config: &'c Config,
    pub(super) start: Instant,
    pub(super) deadline: Instant,
    pub(super) seq: SeqRunner,
}

impl<T: Send + Sync + 'static> Replayer<'_, T> {
    /// Replays `entry`, whose test is `test` in the type as it is now.
    pub(super) fn replay(
        &mut self,
        entry: &Entry,
        test: TestCase,
        report: &mut Report,
    ) -> Replayed {
        let mut config = entry.settings.apply(self.config);
        config.seed = entry.seed;
        let desc = self.desc;
        let (test, seq_time, points) = match self.validate(&config, test) {
            Ok(validated) => validated,
            Err(why) => return Replayed::Skipped(why),
        };
        let test = Arc::new(test);
        let timeout = config.hang_timeout(Some(seq_time));
        let controlled = entry.schedule.is_some()
            || match config.schedule {
                ScheduleMode::Controlled => true,
                ScheduleMode::Stress => false,
                _ => points > 0,
            };
        report.tests += 1;
        report.controlled_tests += u64::from(controlled);
        let mut conc = ConcRunner::new(config.executor, config.seed);
        // Under control: the failing execution alone, then its batch again (which replays
        // the executions before it too: PCT learns from them); free-running: one batch.
        let mut batches = Vec::new();
        match (controlled, entry.schedule) {
            (true, Some(s)) => {
                batches.push((1, Some(exactly(&config, s.batch, s.execution))));
                let count = config.conc_execs.max(s.execution + 1);
                batches.push((count, Some(control(&config, s.batch, None))));
            }
            (true, None) => {
                let batch = conc.next_batch_seed();
                batches.push((config.conc_execs, Some(control(&config, batch, None))));
            }
            (false, _) => batches.push((config.conc_execs, None)),
        }
        let mut found = Replayed::Passed;
        for (count, control) in batches {
            let spec = BatchSpec {
                count,
                timeout,
                deadline: self.deadline,
                control,
            };
            let batch = conc.run_batch(desc, &test, spec);
            report.executions += batch.executions as u64;
            report.uncontrolled_runs += batch.uncontrolled as u64;
            let failure = match batch.outcome {
                ExecOutcome::Passed | ExecOutcome::Invalid => continue,
                failure @ (ExecOutcome::Panicked(_) | ExecOutcome::Deadlock(_)) => failure,
            };
            let Some(linearizations) = oracle::judge(desc, &test, &failure, &mut self.seq, timeout)
            else {
                continue;
            };
            let found_at = Found {
                tests: report.tests,
                executions: report.executions,
                time_to_bug: self.start.elapsed(),
                replay: None,
            };
            report.seed = entry.seed;
            report.verdict = Verdict::Violation(Box::new(violation(
                desc,
                &test,
                &failure,
                linearizations,
                batch.trace.as_deref(),
                &config,
                found_at,
            )));
            found = Replayed::Found;
            break;
        }
        report.abandoned_threads += conc.abandoned();
        found
    }

    /// Runs `test` once sequentially, its threads one after the other, as the generator
    /// does before it runs a test: the prefix must still run, every call must still be
    /// possible (a call whose method, instance or argument no longer fits is not), and
    /// nothing may hang; a panic in a thread is allowed, as it is for generated tests.
    /// Returns the test with how each instance is made, the run's time, and the scheduling
    /// points it reached; or why it no longer runs.
    fn validate(
        &mut self,
        config: &Config,
        mut test: TestCase,
    ) -> Result<(TestCase, std::time::Duration, u64), String> {
        let timeout = config.hang_timeout(None);
        let order = serial_order(&test);
        let Some((run, time)) =
            self.seq
                .run(self.desc, Arc::new(test.clone()), order, true, timeout)
        else {
            return Err(format!(
                "its calls hang when they run one at a time now (no progress in {} ms)",
                timeout.as_millis()
            ));
        };
        for (scope, k, outcome) in &run.steps {
            let name = self.desc.op_at(test.calls(*scope)[*k].op).name;
            let place = match scope {
                Scope::Prefix => "the prefix".to_string(),
                Scope::Thread(t) => format!("thread {}", t + 1),
                Scope::Post => "the post part".to_string(),
            };
            match outcome {
                CallOutcome::Unavailable => {
                    return Err(format!(
                        "call {} of {place} (`{name}`) cannot be made now: an instance or an earlier output it takes is missing or of another type, or a constructor declined",
                        k + 1
                    ))
                }
                CallOutcome::Panic(p) if *scope == Scope::Prefix => {
                    return Err(format!(
                        "its prefix fails now: `{name}` panics at {}: {}",
                        p.location, p.message
                    ))
                }
                CallOutcome::Ok(_) | CallOutcome::Panic(_) => {}
            }
        }
        // How each instance of the prefix is made, as the run found it.
        for (scope, k, outcome) in &run.steps {
            if let (Scope::Prefix, CallOutcome::Ok(Produced::Instance(made))) = (scope, outcome) {
                if let Out::Instance(i, _) = test.prefix[*k].out {
                    test.prefix[*k].out = Out::Instance(i, *made);
                }
            }
        }
        Ok((test, time, run.points))
    }
}
