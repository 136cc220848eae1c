//! What a check found ([`Report`], [`Verdict`], [`Violation`], [`Failure`]) and how it
//! reads. The generated test written back as Rust is in `rust.rs`; the failing
//! interleaving as a table in `interleaving.rs` and as a gated test in `gated.rs`;
//! `violation.rs` builds a [`Violation`] from a failed execution.

use std::fmt;
use std::time::Duration;

use crate::coverage::MapCoverage;
use crate::subject::Skipped;

mod explored;
mod gated;
mod hunts;
mod interleaving;
mod regressions;
mod results;
mod rust;
mod violation;

pub use explored::Exploration;
pub use hunts::Hunts;
pub(crate) use regressions::FailingTest;
pub use regressions::{Regressions, SkippedEntry, Written};
pub(crate) use results::WrongResults;
pub(crate) use rust::{render_body, snake};
pub(crate) use violation::{violation, Finding, Found};

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
    /// How the results of calls were compared.
    pub results: ResultsNotes,
    /// Tests whose executions ran under the controlled scheduler.
    pub controlled_tests: u64,
    /// Controlled executions that had to give up control (something blocked outside the
    /// scheduler, e.g. on a `std::sync::Mutex`): they ran free from that point.
    pub uncontrolled_runs: u64,
    /// Controlled executions that reached the bound on scheduling points (10,000) and ran
    /// free from there; their tests' other controlled executions were skipped.
    pub cut_runs: u64,
    /// Worker threads this check left blocked in deadlocked code (std locks cannot be
    /// broken; the threads stay blocked until the process exits).
    pub abandoned_threads: usize,
    /// The memory-access-pattern coverage its controlled executions reached.
    pub coverage: Coverage,
    /// What bounded exhaustive exploration covered (`strategy = "dfs"`).
    pub exploration: Exploration,
    /// What ended the check.
    pub ended: Ended,
    /// Show the coverage's detail ([`Config::verbose`](crate::Config::verbose)), not one
    /// line.
    pub verbose: bool,
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
    /// [`Config::stop_when_covered`](crate::Config::stop_when_covered)).
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
    /// Whether the failing execution ran under the controlled scheduler (false: on
    /// free-running threads). Under `schedule = "auto"` a test whose calls have scheduling
    /// points inside runs both ways, and this says which found the bug.
    pub controlled: bool,
    /// A `#[test]` function that re-creates the prefix and runs the suffixes on threads.
    pub reproducer: String,
    /// The failing schedule, step by step, when the execution was controlled.
    pub interleaving: Option<String>,
    /// `THREADSAFE_REPLAY` token that re-runs exactly this execution (controlled only).
    pub replay: Option<String>,
    /// The failing interleaving as a `#[test]` whose [gates](crate::gates) enforce it on
    /// free-running threads, so it fails every run: the regression test to keep (a panic
    /// or wrong results found under control only). Where the trace cannot tell which thread
    /// ran (one held at a lock may have blocked there or run on unseen), it follows the
    /// trace as it is and may not fail.
    pub gated: Option<String>,
    /// The [`schedule!`](crate::schedule) entries of [`gated`](Violation::gated).
    pub schedule: Option<Vec<String>>,
    /// What shrinking did ([`Config::shrink`](crate::Config::shrink); `None` when it is
    /// off): how many smaller tests it tried, for how long, and whether one fails the same
    /// way. When one does ([`Shrunk::smaller`]), the failure, interleaving and reproducers
    /// above are the smallest such test's, and the counts, time and replay token the
    /// find's; [`Shrunk::original`] keeps the reproducer of the test as first found.
    pub shrunk: Option<Shrunk>,
}

/// How a violation's test was shrunk.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Shrunk {
    /// Whether a smaller test fails the same way (else the violation is the find as it
    /// was, and [`to_calls`](Shrunk::to_calls) is [`from_calls`](Shrunk::from_calls)).
    pub smaller: bool,
    /// Calls of the test as first found (prefix, threads, post part).
    pub from_calls: usize,
    /// Calls of the smallest test that fails the same way.
    pub to_calls: usize,
    /// Smaller tests tried.
    pub candidates: usize,
    /// Time spent shrinking.
    pub time: Duration,
    /// The reproducer of the test as first found.
    pub original: String,
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
    /// The calls returned results that no sequential order of the same calls gives.
    Results {
        /// The calls whose results differ from those of the nearest sequential order, e.g.
        /// ``after the threads joined cut.total() -> 203``.
        calls: Vec<String>,
        /// Each thread's calls with what they returned, the post part, and what the
        /// sequential orders give instead.
        table: String,
    },
}

/// How a check compared the results of calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResultsNotes {
    /// Whether return values were compared ([`Config::results`](crate::Config::results)).
    pub compared: bool,
    /// Methods whose results were not compared, each with the reason.
    pub not_compared: std::collections::BTreeMap<String, String>,
    /// Executions whose results were not judged: too many sequential orders to search.
    pub unjudged: u64,
    /// Results no sequential order gave that did not come back when the same controlled
    /// execution ran again, or, seen by free-running threads, when the test ran on for a
    /// while (something outside the calls decided them, or a race too rare to come back
    /// soon, as on a busy machine): not reported.
    pub not_reproduced: u64,
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
            results: ResultsNotes::default(),
            controlled_tests: 0,
            uncontrolled_runs: 0,
            cut_runs: 0,
            abandoned_threads: 0,
            coverage: Coverage::NotMeasured("the check did not run".to_string()),
            exploration: Exploration::default(),
            ended: Ended::Exhausted,
            verbose: false,
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
            Failure::Results { calls, .. } => write!(
                f,
                "results that no sequential order of the same calls gives: {}",
                calls.join("; ")
            ),
        }
    }
}

impl fmt::Display for ResultsNotes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.compared {
            return writeln!(
                f,
                "  results: not compared (`results = false`): panics and deadlocks only"
            );
        }
        if !self.not_compared.is_empty() {
            writeln!(f, "  results not compared:")?;
            for (method, why) in &self.not_compared {
                writeln!(f, "    - `{method}`: {why}")?;
            }
        }
        if self.unjudged > 0 {
            writeln!(
                f,
                "  note: the results of {} execution(s) were not judged: too many sequential orders to search",
                self.unjudged
            )?;
        }
        if self.not_reproduced > 0 {
            writeln!(
                f,
                "  note: {} result(s) that no sequential order gave did not come back when the same execution (controlled) or the same test (free-running) ran again (not reported)",
                self.not_reproduced
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for Report {
    /// A violation leads with the failure, the interleaving and the reproducers; the
    /// coverage (one line unless [`Report::verbose`]), the methods left out and the notes
    /// come after; the test as first found, when shrunk, last.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &self.type_name;
        match &self.verdict {
            Verdict::Violation(v) => {
                writeln!(f, "threadsafe: `{name}` is not thread-safe")?;
                v.fmt_failure(f, self.seed)?;
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
                write!(f, "{}", self.hunts)?;
                if let Some(r) = &self.regressions {
                    write!(f, "{r}")?;
                }
            }
            Verdict::NoViolationFound => {
                writeln!(
                    f,
                    "threadsafe: no thread-safety violation found in `{name}`: {} tests, {} executions, {:.3} s (seed {})",
                    self.tests,
                    self.executions,
                    self.elapsed.as_secs_f64(),
                    self.seed
                )?;
                write!(f, "{}", self.exploration)?;
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
        self.fmt_notes(f)?;
        if let Some(s) = self
            .violation()
            .and_then(|v| v.shrunk.as_ref())
            .filter(|s| s.smaller)
        {
            writeln!(
                f,
                "\nThe test as first found ({} calls; the reproducer above is the smallest that \
                 fails the same way):\n",
                s.from_calls
            )?;
            for line in s.original.lines() {
                writeln!(f, "    {line}")?;
            }
        }
        Ok(())
    }
}

impl Violation {
    /// The failure, the oracle's verdict, where it was found and how to replay it, the
    /// shrinking, and the interleaving.
    fn fmt_failure(&self, f: &mut fmt::Formatter<'_>, seed: u64) -> fmt::Result {
        match &self.failure {
            Failure::Results { table, .. } => {
                writeln!(
                    f,
                    "  failure: results that no sequential order of the same calls gives"
                )?;
                write!(f, "{table}")?;
                writeln!(
                    f,
                    "  oracle:  none of the {} sequential orders of the same calls gives these results",
                    self.linearizations
                )?;
            }
            failure => {
                writeln!(f, "  failure: {failure}")?;
                writeln!(
                    f,
                    "  oracle:  none of the {} sequential orders of the same calls fails this way",
                    self.linearizations
                )?;
            }
        }
        writeln!(
            f,
            "  seed:    {seed} (set THREADSAFE_SEED={seed} to generate the same tests)"
        )?;
        writeln!(
            f,
            "  found:   after {} tests, {} executions, {:.3} s, by {}",
            self.tests_until_found,
            self.executions_until_found,
            self.time_to_bug.as_secs_f64(),
            if self.controlled {
                "a controlled execution"
            } else {
                "free-running threads"
            }
        )?;
        match &self.shrunk {
            Some(s) if s.smaller => writeln!(
                f,
                "  shrunk:  from {} calls to {} ({} smaller tests tried, {:.3} s); the test as first found is below",
                s.from_calls,
                s.to_calls,
                s.candidates,
                s.time.as_secs_f64()
            )?,
            Some(s) => writeln!(
                f,
                "  shrunk:  no smaller test fails the same way ({} calls; {} smaller tests tried, {:.3} s)",
                s.from_calls,
                s.candidates,
                s.time.as_secs_f64()
            )?,
            None => {}
        }
        if let Some(token) = &self.replay {
            let what = if self.shrunk.as_ref().is_some_and(|s| s.smaller) {
                "the execution as first found"
            } else {
                "exactly this execution"
            };
            writeln!(f, "  replay:  THREADSAFE_REPLAY={token} re-runs {what}")?;
        }
        if let Some(table) = &self.interleaving {
            writeln!(f, "\n  The failing interleaving (one thread at a time):")?;
            write!(f, "{table}")?;
        }
        Ok(())
    }
}

impl Report {
    /// What comes after the verdict: the coverage, the methods left out, how results were
    /// compared, what ended the check, and notes.
    fn fmt_notes(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let checked = !matches!(self.verdict, Verdict::CannotCheck(_));
        match &self.coverage {
            _ if !checked => {}
            Coverage::Measured(c) if self.verbose => write!(f, "{c}")?,
            Coverage::Measured(c) => writeln!(f, "{}", c.one_line())?,
            Coverage::NotMeasured(why) => writeln!(f, "  MAP-coverage: not measured ({why})")?,
        }
        if !self.skipped.is_empty() {
            writeln!(f, "  skipped methods:")?;
            for s in &self.skipped {
                writeln!(f, "    - `{}`: {}", s.method, s.reason)?;
            }
        }
        if checked {
            write!(f, "{}", self.results)?;
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
        if self.cut_runs > 0 {
            writeln!(
                f,
                "  note: {} controlled execution(s) reached {} scheduling points and finished free-running (their tests' other controlled executions were skipped)",
                self.cut_runs,
                crate::sched::MAX_STEPS
            )?;
        }
        if self.abandoned_threads > 0 {
            writeln!(
                f,
                "  note: {} worker thread(s) stayed blocked in deadlocked code and were left behind",
                self.abandoned_threads
            )?;
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
