//! What a check found ([`Report`], [`Verdict`], [`Violation`], [`Failure`]) and how it
//! reads. The generated test written back as Rust is in `rust.rs`; the failing
//! interleaving as a table in `interleaving.rs` and as a gated test in `gated.rs`;
//! `violation.rs` builds a [`Violation`] from a failed execution.

use std::fmt;
use std::time::Duration;

use crate::coverage::MapCoverage;
use crate::subject::Skipped;

mod gated;
mod hunts;
mod interleaving;
mod regressions;
mod rust;
mod violation;

pub use hunts::Hunts;
pub(crate) use regressions::FailingTest;
pub use regressions::{Regressions, SkippedEntry, Written};
pub(crate) use rust::render_body;
pub(crate) use violation::{violation, Found};

/// The outcome of [`check`](crate::check).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Report {
    /// The checked type, as the reproducer writes it.
    pub type_name: String,
    /// The generator's seed.
    pub seed: u64,
    /// What was found.
    pub verdict: Verdict,
    /// Generated tests run.
    pub tests: u64,
    /// Concurrent executions run.
    pub executions: u64,
    /// Wall-clock time of the check.
    pub elapsed: Duration,
    /// Methods left out, with the reason.
    pub skipped: Vec<Skipped>,
    /// Tests whose executions ran under the controlled scheduler.
    pub controlled_tests: u64,
    /// Controlled executions that had to give up control (something blocked outside the
    /// scheduler, e.g. on a `std::sync::Mutex`): they ran free from that point.
    pub uncontrolled_runs: u64,
    /// Worker threads this check left blocked in deadlocked code (std locks cannot be
    /// broken; the threads stay blocked until the process exits).
    pub abandoned_threads: usize,
    /// The memory-access-pattern coverage its controlled executions reached.
    pub coverage: Coverage,
    /// What ended the check.
    pub ended: Ended,
    /// The hunts run at once (`THREADSAFE_JOBS`, `THREADSAFE_SHARD`): their seeds, and which
    /// one found the violation.
    pub hunts: Hunts,
    /// What the check did with its regressions file (`None`: no file, see
    /// [`Config::regressions`](crate::Config::regressions)).
    pub regressions: Option<Regressions>,
    /// The generated test of the violation, for the regressions file.
    pub(crate) failing: Option<FailingTest>,
}

/// The MAP-coverage of a check, when it could be measured.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Coverage {
    /// Measured over the controlled executions.
    Measured(Box<MapCoverage>),
    /// Not measured, and why (e.g. free-running executions have no order of steps).
    NotMeasured(String),
}

impl Coverage {
    /// The coverage, if measured.
    pub fn measured(&self) -> Option<&MapCoverage> {
        match self {
            Coverage::Measured(c) => Some(c),
            Coverage::NotMeasured(_) => None,
        }
    }
}

/// What ended a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ended {
    /// A violation was found.
    Violation,
    /// The time budget ran out.
    Budget,
    /// Every feasible memory-access pattern was covered (with
    /// [`Config::stop_when_covered`]).
    AllPatternsCovered,
    /// The generator made every test its limits allow, or the check could not run.
    Exhausted,
}

/// The verdict of a check.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Verdict {
    /// A concurrent execution failed in a way no sequential order of its calls does.
    Violation(Box<Violation>),
    /// The budget ran out without a violation (which proves nothing either way).
    NoViolationFound,
    /// The check could not run; the reason says how to fix it.
    CannotCheck(String),
}

/// A thread-safety violation: the failure, the test that shows it, and a reproducer.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Violation {
    /// What went wrong.
    pub failure: Failure,
    /// How many sequential orders (linearizations) of the same calls were run, none of
    /// which fails the same way.
    pub linearizations: usize,
    /// Generated tests run until the violation.
    pub tests_until_found: u64,
    /// Concurrent executions run until the violation.
    pub executions_until_found: u64,
    /// Time until the violation.
    pub time_to_bug: Duration,
    /// A `#[test]` function that re-creates the prefix and runs the suffixes on threads.
    pub reproducer: String,
    /// The failing schedule, step by step, when the execution was controlled.
    pub interleaving: Option<String>,
    /// `THREADSAFE_REPLAY` token that re-runs exactly this execution (controlled only).
    pub replay: Option<String>,
    /// The failing interleaving as a `#[test]` whose [gates](crate::gates) enforce it on
    /// free-running threads, so it fails every run: the regression test to keep (a panic
    /// found under control only).
    pub gated: Option<String>,
    /// The [`schedule!`](crate::schedule) entries of [`gated`](Violation::gated).
    pub schedule: Option<Vec<String>>,
}

/// How a concurrent execution failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// A call panicked.
    Panic {
        /// Where it ran: `thread 1`, `thread 2`, ... or `after the threads joined`.
        thread: String,
        /// The method that panicked.
        method: String,
        /// `file:line:col` of the panic.
        location: String,
        /// The panic message.
        message: String,
    },
    /// Threads stopped making progress.
    Deadlock {
        /// Each blocked thread and the method it was in, e.g. `thread 1 in `eq``.
        blocked: Vec<String>,
    },
}

impl Report {
    /// The report of a check of `type_name` with `seed` that has not run yet.
    pub(crate) fn new(type_name: &str, seed: u64, skipped: Vec<Skipped>) -> Self {
        Report {
            type_name: type_name.to_string(),
            seed,
            verdict: Verdict::NoViolationFound,
            tests: 0,
            executions: 0,
            elapsed: Duration::ZERO,
            skipped,
            controlled_tests: 0,
            uncontrolled_runs: 0,
            abandoned_threads: 0,
            coverage: Coverage::NotMeasured("the check did not run".to_string()),
            ended: Ended::Exhausted,
            hunts: Hunts::single(seed),
            regressions: None,
            failing: None,
        }
    }

    /// The violation, if one was found.
    pub fn violation(&self) -> Option<&Violation> {
        match &self.verdict {
            Verdict::Violation(v) => Some(v),
            _ => None,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Panic {
                thread,
                method,
                location,
                message,
            } => {
                // "panic in thread 2, in `pop`", but "panic after the threads joined, in
                // `pop`".
                let at = if thread.starts_with("thread ") {
                    "in "
                } else {
                    ""
                };
                write!(
                    f,
                    "panic {at}{thread}, in `{method}`, at {location}: {message}"
                )
            }
            Failure::Deadlock { blocked } => write!(f, "deadlock: {}", blocked.join("; ")),
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &self.type_name;
        let seconds = self.elapsed.as_secs_f64();
        match &self.verdict {
            Verdict::Violation(v) => {
                writeln!(f, "threadsafe: `{name}` is not thread-safe")?;
                writeln!(f, "  failure: {}", v.failure)?;
                writeln!(
                    f,
                    "  oracle:  none of the {} sequential orders of the same calls fails this way",
                    v.linearizations
                )?;
                writeln!(
                    f,
                    "  seed:    {} (set THREADSAFE_SEED={} to generate the same tests)",
                    self.seed, self.seed
                )?;
                writeln!(
                    f,
                    "  found:   after {} tests, {} executions, {:.3} s",
                    v.tests_until_found,
                    v.executions_until_found,
                    v.time_to_bug.as_secs_f64()
                )?;
                if let Some(token) = &v.replay {
                    writeln!(
                        f,
                        "  replay:  THREADSAFE_REPLAY={token} re-runs exactly this execution"
                    )?;
                }
                write!(f, "{}", self.hunts)?;
                if let Some(r) = &self.regressions {
                    write!(f, "{r}")?;
                }
                if let Some(table) = &v.interleaving {
                    writeln!(f, "\n  The failing interleaving (one thread at a time):")?;
                    write!(f, "{table}")?;
                }
            }
            Verdict::NoViolationFound => {
                writeln!(
                    f,
                    "threadsafe: no thread-safety violation found in `{name}`: {} tests, {} executions, {seconds:.3} s (seed {})",
                    self.tests, self.executions, self.seed
                )?;
                write!(f, "{}", self.hunts)?;
                if let Some(r) = &self.regressions {
                    write!(f, "{r}")?;
                }
            }
            Verdict::CannotCheck(why) => {
                writeln!(f, "threadsafe: cannot check `{name}`: {why}")?;
                if let Some(r) = &self.regressions {
                    write!(f, "{r}")?;
                }
            }
        }
        if !self.skipped.is_empty() {
            writeln!(f, "  skipped methods:")?;
            for s in &self.skipped {
                writeln!(f, "    - `{}`: {}", s.method, s.reason)?;
            }
        }
        match (&self.coverage, &self.verdict) {
            (_, Verdict::CannotCheck(_)) => {}
            (Coverage::Measured(c), _) => write!(f, "{c}")?,
            (Coverage::NotMeasured(why), _) => {
                writeln!(f, "  MAP-coverage: not measured ({why})")?;
            }
        }
        match self.ended {
            Ended::AllPatternsCovered => writeln!(
                f,
                "  ended: every feasible memory-access pattern was covered"
            )?,
            Ended::Budget => writeln!(f, "  ended: the time budget ran out")?,
            Ended::Exhausted | Ended::Violation => {}
        }
        if self.uncontrolled_runs > 0 {
            writeln!(
                f,
                "  note: {} controlled execution(s) blocked outside the scheduler (a std lock?) and finished free-running",
                self.uncontrolled_runs
            )?;
        }
        if self.abandoned_threads > 0 {
            writeln!(
                f,
                "  note: {} worker thread(s) stayed blocked in deadlocked code and were left behind",
                self.abandoned_threads
            )?;
        }
        if let Verdict::Violation(v) = &self.verdict {
            writeln!(
                f,
                "\nReproducer (paste it into a test module that sees `{name}`):\n"
            )?;
            writeln!(f, "{}", v.reproducer)?;
            if let Some(gated) = &v.gated {
                writeln!(
                    f,
                    "The failing interleaving as a deterministic test (gates enforce it; it fails \
                     every run until the bug is fixed):\n"
                )?;
                writeln!(f, "{gated}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_post_call_panic_reads_as_english() {
        let panic = |thread: &str| Failure::Panic {
            thread: thread.to_string(),
            method: "pop".to_string(),
            location: "src/lib.rs:3:9".to_string(),
            message: "empty".to_string(),
        };
        assert_eq!(
            panic("thread 2").to_string(),
            "panic in thread 2, in `pop`, at src/lib.rs:3:9: empty"
        );
        assert_eq!(
            panic("after the threads joined").to_string(),
            "panic after the threads joined, in `pop`, at src/lib.rs:3:9: empty"
        );
    }
}
