//! One check of a subject and what it counts as: the tool (or a variant of it) on the buggy
//! type, the naive test, the correct twin; and the progress lines and the problems collected
//! for the end of the output.

use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use threadsafe_corpus::Subject;
use threadsafe_rt::{Config, Executor, Guide, Report, ScheduleMode, Strategy, Verdict};

use crate as measure;
use crate::{CoverageCounts, Run, TwinCheck};

/// How the buggy type is checked.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// The tool as it ships.
    Tool,
    /// The paper's executor on free-running threads.
    Paper,
    /// The tool with this guide.
    Guided(Guide),
    /// The tool with this many hunts at once (`Config::jobs`).
    Jobs(usize),
    /// The tool with this scheduling mode (`Config::schedule`).
    Schedule(ScheduleMode),
    /// The tool with this strategy of controlled executions (`Config::strategy`).
    Strategy(Strategy),
    /// The tool with results compared (true) or the paper's oracle (false).
    Oracle(bool),
    /// The tool, with a busy neighbour beside it (`--beside`).
    Beside,
}

impl Mode {
    pub(super) fn label(self) -> String {
        match self {
            Mode::Tool => "tool".to_string(),
            Mode::Paper => "paper".to_string(),
            Mode::Guided(g) => measure::guide_name(g).to_string(),
            Mode::Jobs(n) => measure::jobs_label(n),
            Mode::Schedule(m) => measure::schedule_label(m),
            Mode::Strategy(s) => measure::strategy_label(s),
            Mode::Oracle(results) => measure::oracle_name(results).to_string(),
            Mode::Beside => "beside".to_string(),
        }
    }

    pub(super) fn config(self, subject: &Subject, seed: u64, budget: Duration) -> Config {
        // The papers' oracle for the papers' subjects, results compared for the others
        // (see `tool_config`); the twins are all checked with results compared
        // (see `twin`).
        let mut c = measure::tool_config(subject, seed, budget);
        match self {
            Mode::Tool | Mode::Beside => {}
            Mode::Paper => {
                c.executor = Executor::Paper;
                c.schedule = ScheduleMode::Stress;
            }
            Mode::Guided(g) => c.guide = g,
            Mode::Jobs(n) => c.jobs = n,
            Mode::Schedule(m) => c.schedule = m,
            Mode::Strategy(s) => c.strategy = s,
            Mode::Oracle(results) => c.results = results,
        }
        c
    }
}

/// Counts the runs for the progress lines, and collects what must be reported at the end.
pub(super) struct Progress {
    pub(super) done: usize,
    pub(super) total: usize,
    /// Wrong finds on buggy subjects, one line each.
    pub(super) wrong_finds: Vec<String>,
    /// Reports on correct twins, in full.
    pub(super) twin_reports: Vec<String>,
    /// Checks that could not run or panicked.
    pub(super) errors: Vec<String>,
}

impl Progress {
    /// Records that a check of `subject` (`what`: its mode, `seed`) did not run, and why;
    /// returns the why.
    pub(super) fn error(
        &mut self,
        subject: &Subject,
        what: &str,
        seed: u64,
        why: String,
    ) -> String {
        self.errors
            .push(format!("{} {what} seed {seed}: {why}", subject.name));
        why
    }

    pub(super) fn line(&mut self, subject: &Subject, what: &str, seed: u64, outcome: &str) {
        self.done += 1;
        let width = self.total.to_string().len();
        eprintln!(
            "[{:>width$}/{}] {:<4} {:<24} {what:<10} seed {seed:>2}: {outcome}",
            self.done, self.total, subject.id, subject.name,
        );
        let _ = std::io::stderr().flush();
    }
}

/// One check of the buggy type.
pub(super) fn hunt(
    subject: &Subject,
    mode: Mode,
    seed: u64,
    budget: Duration,
    p: &mut Progress,
) -> Run {
    let config = mode.config(subject, seed, budget);
    let report = catch_unwind(AssertUnwindSafe(|| (subject.check_buggy)(&config)));
    let mut run = Run::missed(seed, budget);
    let outcome = match report {
        Err(payload) => {
            let why = format!("the check panicked: {}", measure::panic_message(&*payload));
            run.note = Some(why.clone());
            p.error(subject, &mode.label(), seed, why)
        }
        Ok(report) => match &report.verdict {
            // A find under the oracle the check used: the subject's bug, and with results
            // compared a wrong result too.
            Verdict::Violation(v)
                if measure::is_a_find(subject.bug, subject.file, &v.failure, config.results) =>
            {
                run = Run::found(
                    seed,
                    v.time_to_bug.as_secs_f64(),
                    Some(v.tests_until_found),
                    Some(v.executions_until_found),
                );
                run.symptom = Some(measure::symptom(&v.failure));
                run.controlled = Some(v.controlled);
                format!(
                    "found after {} tests, {} executions, {}, by {}: {}",
                    v.tests_until_found,
                    v.executions_until_found,
                    measure::secs(v.time_to_bug.as_secs_f64()),
                    if v.controlled {
                        "a controlled execution"
                    } else {
                        "free-running threads"
                    },
                    measure::short(&v.failure.to_string()),
                )
            }
            Verdict::Violation(v) => {
                eprintln!(
                    "WRONG FIND on {} ({}, {} seed {seed}): not in {}\n{report}",
                    subject.id,
                    subject.name,
                    mode.label(),
                    subject.file
                );
                p.wrong_finds.push(format!(
                    "{} {} ({}, seed {seed}): {}",
                    subject.id,
                    subject.name,
                    mode.label(),
                    v.failure
                ));
                run.note = Some(format!("wrong find: {}", v.failure));
                format!(
                    "WRONG FIND (counted as a miss): {}",
                    measure::short(&v.failure.to_string())
                )
            }
            Verdict::NoViolationFound => format!(
                "missed: {} tests, {} executions, {}",
                report.tests,
                report.executions,
                measure::secs(report.elapsed.as_secs_f64())
            ),
            other => {
                let why = match other {
                    Verdict::CannotCheck(why) => format!("cannot check: {why}"),
                    _ => format!("unexpected verdict: {report}"),
                };
                run.note = Some(why.clone());
                p.error(subject, &mode.label(), seed, why)
            }
        },
    };
    p.line(subject, &mode.label(), seed, &outcome);
    run
}

/// One naive stress test.
pub(super) fn naive(subject: &Subject, seed: u64, budget: Duration, p: &mut Progress) -> Run {
    let (run, outcome) = match catch_unwind(AssertUnwindSafe(|| (subject.naive)(budget))) {
        Ok(Some(t)) => (
            Run::found(seed, t.as_secs_f64(), None, None),
            format!("failed after {}", measure::secs(t.as_secs_f64())),
        ),
        Ok(None) => (Run::missed(seed, budget), "missed".to_string()),
        Err(payload) => {
            let why = format!(
                "the naive test panicked: {}",
                measure::panic_message(&*payload)
            );
            p.errors
                .push(format!("{} naive run {seed}: {why}", subject.name));
            let mut run = Run::missed(seed, budget);
            run.note = Some(why.clone());
            (run, why)
        }
    };
    p.line(subject, "naive", seed, &outcome);
    run
}

/// One check of the correct twin (`mode` is the tool, or the tool with a guide): whether
/// it reported a violation, and the MAP-coverage it reached.
pub(super) fn twin(
    subject: &Subject,
    mode: Mode,
    seed: u64,
    budget: Duration,
    p: &mut Progress,
) -> TwinCheck {
    let mut config = mode.config(subject, seed, budget);
    // A twin is held to the default oracle, results compared: nothing may be reported on a
    // correct type, whichever oracle finds the subject's bug.
    config.results = true;
    let what = match mode {
        Mode::Guided(g) => format!("twin {}", measure::guide_name(g)),
        _ => "twin".to_string(),
    };
    let mut check = TwinCheck {
        seed,
        reported: false,
        coverage: None,
        note: None,
    };
    let outcome = match catch_unwind(AssertUnwindSafe(|| (subject.check_twin)(&config))) {
        Err(payload) => {
            let why = format!("the check panicked: {}", measure::panic_message(&*payload));
            check.note = Some(why.clone());
            p.error(subject, &what, seed, why)
        }
        Ok(report) => {
            match report.coverage.measured() {
                Some(c) => check.coverage = Some(CoverageCounts::of(c)),
                None => {
                    if let threadsafe_rt::Coverage::NotMeasured(why) = &report.coverage {
                        check.note = Some(format!("coverage not measured: {why}"));
                    }
                }
            }
            let (reported, outcome) = twin_outcome(subject, &what, seed, &report, p);
            check.reported = reported;
            if reported || matches!(report.verdict, Verdict::CannotCheck(_)) {
                check.note = Some(outcome.clone());
            }
            match check.coverage {
                Some(c) => format!(
                    "{outcome}; MAP-coverage {}/{}{}",
                    c.covered,
                    c.feasible,
                    c.ratio()
                        .map_or_else(String::new, |r| format!(" ({:.1}%)", r * 100.0))
                ),
                None => outcome,
            }
        }
    };
    p.line(subject, &what, seed, &outcome);
    check
}

fn twin_outcome(
    subject: &Subject,
    what: &str,
    seed: u64,
    report: &Report,
    p: &mut Progress,
) -> (bool, String) {
    match &report.verdict {
        Verdict::NoViolationFound => (
            false,
            format!(
                "nothing, as expected: {} tests, {} executions",
                report.tests, report.executions
            ),
        ),
        Verdict::Violation(v) => {
            eprintln!(
                "FALSE POSITIVE on the twin of {} ({}, {what}), seed {seed}:\n{report}",
                subject.id, subject.name
            );
            p.twin_reports.push(format!(
                "{} {} ({what}), seed {seed}:\n{report}",
                subject.id, subject.name
            ));
            (
                true,
                format!("FALSE POSITIVE: {}", measure::short(&v.failure.to_string())),
            )
        }
        Verdict::CannotCheck(why) => (
            false,
            p.error(subject, what, seed, format!("cannot check: {why}")),
        ),
        _ => {
            let why = format!("unexpected verdict: {report}");
            (false, p.error(subject, what, seed, why))
        }
    }
}
