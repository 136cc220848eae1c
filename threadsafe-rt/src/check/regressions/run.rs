//! Replaying one entry: its test is run once sequentially (it must still run, and the run
//! says how long it takes and whether it reaches scheduling points), then concurrently with
//! the entry's settings: under control, first the one execution its schedule names, then,
//! if that passed, its whole batch again; free-running, a batch of `conc_execs` executions.
//! The batches are the hunt's ([`Hunt::run_batch`]): judged by the same oracle, panics,
//! deadlocks and wrong results alike.

use std::sync::Arc;
use std::time::Instant;

use super::format::Entry;
use crate::check::control::Schedules;
use crate::check::hunt::Hunt;
use crate::config::Config;
use crate::exec::{serial_order, CallOutcome, Produced, SeqRunner};
use crate::generate::ReadyTest;
use crate::report::{Ended, Report};
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
        let (test, seq_time, (points, call_points)) = match self.validate(&config, test) {
            Ok(validated) => validated,
            Err(why) => return Replayed::Skipped(why),
        };
        let ready = ReadyTest {
            test: Arc::new(test),
            seq_time,
            points,
            call_points,
            target: None,
        };
        let mut hunt = Hunt::new(self.desc, &config, self.start);
        hunt.deadline = self.deadline;
        // An entry's find is replayed from the file, not from a token of this check's tests.
        hunt.replayable = false;
        let controlled = entry.schedule.is_some() || hunt.controlled(&ready);
        report.tests += 1;
        // In the generated test's child, a crash while the entry runs is the entry's.
        super::super::isolate::started(self.desc, &config, &ready.test, report.tests);
        // Under control: the failing execution alone, then its batch again (which replays
        // the executions before it too: PCT learns from them); free-running: one batch.
        let batches = match (controlled, entry.schedule) {
            (true, Some(s)) => vec![
                (
                    1,
                    Some(Schedules::Exactly {
                        batch: s.batch,
                        execution: s.execution,
                    }),
                ),
                (
                    config.conc_execs.max(s.execution + 1),
                    Some(Schedules::Batch(s.batch)),
                ),
            ],
            (true, None) => vec![(
                config.conc_execs,
                Some(Schedules::Batch(hunt.next_batch_seed())),
            )],
            (false, _) => vec![(config.conc_execs, None)],
        };
        let mut found = Replayed::Passed;
        for (count, schedules) in batches {
            if hunt.run_batch(&ready, schedules, count, report) == Some(Ended::Violation) {
                report.seed = entry.seed;
                // The entry keeps the test as first found; the report leads with the
                // smallest that fails the same way, as the check's own finds do.
                hunt.shrink_found(&ready, report);
                found = Replayed::Found;
                break;
            }
        }
        if !matches!(found, Replayed::Found) {
            super::super::isolate::finished();
        }
        report.abandoned_threads += hunt.abandoned();
        found
    }

    /// Runs `test` once sequentially, its threads one after the other, as the generator
    /// does before it runs a test: the prefix must still run, every call must still be
    /// possible (a call whose method, instance or argument no longer fits is not), and
    /// nothing may hang; a panic in a thread is allowed, as it is for generated tests.
    /// Returns the test with how each instance is made, the run's time, and the scheduling
    /// points it reached (in all, and the most in one call); or why it no longer runs.
    fn validate(
        &mut self,
        config: &Config,
        mut test: TestCase,
    ) -> Result<(TestCase, std::time::Duration, (u64, u64)), String> {
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
                CallOutcome::Ok(..) | CallOutcome::Panic(_) => {}
            }
        }
        // How each instance of the prefix is made, as the run found it.
        for (scope, k, outcome) in &run.steps {
            if let (Scope::Prefix, CallOutcome::Ok(Produced::Instance(made), _)) = (scope, outcome)
            {
                if let Out::Instance(i, _) = test.prefix[*k].out {
                    test.prefix[*k].out = Out::Instance(i, *made);
                }
            }
        }
        Ok((test, time, (run.points, run.call_points)))
    }
}
