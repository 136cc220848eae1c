//! The generated test's check in a child process of the test binary ([`Config::isolation`]).
//!
//! The parent is the `#[test]` that `#[thread_safe]` generates: it runs its own test binary
//! again, filtered to that one test (`<name> --exact`, as nextest and rusty-fork do), with
//! [`CHILD_ENV`] naming a folder. The child runs the check as the test always did and
//! writes the report there; the parent prints it and passes or fails as the check said. A
//! child that dies (a signal, an abort, an exit without a report) or outlives its bound is
//! itself the failure: the parent reports how it died, its last words on stderr, and the
//! last test the child started, which the child writes before running each one. Threads the
//! code under test left blocked die with the child, and the other tests of the binary go on.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use std::sync::Arc;

use super::regressions::file::{one_entry, record_crash, test_of_one_entry};
use crate::child::{self, describe};
use crate::config::Config;
use crate::exec::SeqRunner;
use crate::oracle::{self, Crash};
use crate::report::Regressions;
use crate::report::{render_body, snake};
use crate::subject::Description;
use crate::testcase::TestCase;

/// The variable that makes a run of the test binary a child, naming the folder where it
/// writes the report and the test it is running. Not for users.
pub(crate) const CHILD_ENV: &str = "THREADSAFE_CHILD_DIR";

/// The report the child leaves, when the check ended: its verdict on the first line
/// (`pass` or `fail`), the report's text after it.
const REPORT_FILE: &str = "report";
/// The test a hunt of the child started last, as Rust, with its number; there while the
/// test's executions run, gone while the generator runs calls one after the other. One per
/// hunt (`test.<hunt>`): with `THREADSAFE_JOBS`, several hunts run at once.
const TEST_FILE: &str = "test";
/// The same test as a regressions file of one entry, for the crash oracle (`entry.<hunt>`).
const ENTRY_FILE: &str = "entry";

/// The calling thread's hunt, as the child's file names tell hunts apart.
fn hunt_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    thread_local!(static ID: u64 = NEXT.fetch_add(1, Ordering::Relaxed));
    ID.with(|id| *id)
}

/// The variable that makes a child the crash oracle's: it runs every linearization of the
/// test in the file it names (an [`ENTRY_FILE`]) and reports how many, unless one crashes.
const JUDGE_ENV: &str = "THREADSAFE_CHILD_JUDGE";

/// How much longer than its budget a child may take before it counts as hung. A check ends
/// within its budget, then shrinks (at most half the budget, and at most 10 s) and writes
/// its report; what is beyond that is a hang the check could not end.
fn child_bound(config: &Config) -> Duration {
    config.budget * 2 + Duration::from_secs(30)
}

/// The folder this process writes to as a child, if it is one.
fn child_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| std::env::var_os(CHILD_ENV).map(PathBuf::from))
        .as_deref()
}

/// Whether this process is a child running a generated test's check.
pub(super) fn in_child() -> bool {
    child_dir().is_some()
}

/// In a child, records the test a hunt starts (number `n` of the check), so that the
/// parent can show it, and have it judged, if the child dies while running it. Nothing
/// outside a child.
pub(super) fn started<T>(desc: &Description<T>, config: &Config, test: &TestCase, n: u64) {
    let Some(dir) = child_dir() else {
        return;
    };
    let entry = one_entry(
        desc,
        config,
        test,
        &format!("the process crashed (test {n})"),
    );
    // Each written aside and renamed over the last one: the parent never reads half a
    // test. The entry first: a test file always has its entry.
    let id = hunt_id();
    for (file, text) in [
        (ENTRY_FILE, entry),
        (
            TEST_FILE,
            format!("{n}\n{}", render_body(desc, test, "            ")),
        ),
    ] {
        let part = dir.join(format!("{file}.{id}.part"));
        if std::fs::write(&part, text).is_ok() {
            let _ = std::fs::rename(&part, dir.join(format!("{file}.{id}")));
        }
    }
}

/// In a child, records that the test started last is over: a crash from now on is in the
/// generator's sequential runs, until the next test starts.
pub(super) fn finished() {
    if let Some(dir) = child_dir() {
        let _ = std::fs::remove_file(dir.join(format!("{TEST_FILE}.{}", hunt_id())));
    }
}

/// In the crash oracle's child, the file of the test to judge.
pub(super) fn judge_request() -> Option<PathBuf> {
    in_child()
        .then(|| std::env::var_os(JUDGE_ENV).map(PathBuf::from))
        .flatten()
}

/// The crash oracle's child: runs every linearization of the test in `entry` and leaves
/// their number as its report. If one crashes, the process dies here, and the parent knows.
pub(super) fn judge<T: Send + Sync + 'static>(
    desc: &'static Description<T>,
    config: &Config,
    entry: &Path,
) {
    let test = std::fs::read_to_string(entry)
        .map_err(|e| e.to_string())
        .and_then(|text| test_of_one_entry(desc, &text));
    match test {
        Ok(test) => {
            let mut seq = SeqRunner::new();
            let timeout = config.hang_timeout(None);
            let n = oracle::run_every_order(desc, &Arc::new(test), &mut seq, timeout);
            leave_report(true, &n.to_string());
        }
        Err(why) => leave_report(false, &format!("cannot read {}: {why}", entry.display())),
    }
}

/// In a child, leaves the report for the parent.
pub(super) fn leave_report(passed: bool, report: &str) {
    if let Some(dir) = child_dir() {
        let verdict = if passed { "pass" } else { "fail" };
        let part = dir.join(format!("{REPORT_FILE}.part"));
        std::fs::write(&part, format!("{verdict}\n{report}"))
            .and_then(|()| std::fs::rename(&part, dir.join(REPORT_FILE)))
            .unwrap_or_else(|e| panic!("threadsafe: cannot leave the report in {dir:?}: {e}"));
    }
}

/// The name libtest runs the current test under, when it is a test `#[thread_safe]`
/// generated (`thread_safe_<type>`, in its module): libtest names each test's thread so.
pub(super) fn generated_test_name() -> Option<String> {
    let name = child::current_test_name()?;
    let last = name.rsplit("::").next()?;
    last.starts_with("thread_safe_").then_some(name)
}

/// What the child's check came to, as the parent learns it.
pub(super) enum Child {
    /// The check ended: whether it passed, and its report.
    Ended { passed: bool, report: String },
    /// The child died or hung before it left a report: the whole failure, in words.
    Died(String),
    /// No child could be started (the reason); the check runs in this process instead.
    NotStarted(String),
}

/// Runs the test `name` of this test binary in a child process and waits for its report.
pub(super) fn run_child(type_name: &str, name: &str, config: &Config) -> Child {
    let dir = match Folder::new() {
        Ok(dir) => dir,
        Err(why) => return Child::NotStarted(why),
    };
    let bound = child_bound(config);
    let ended = match child::run(name, &[(CHILD_ENV, dir.0.as_os_str())], bound) {
        Ok(ended) => ended,
        Err(why) => return Child::NotStarted(why),
    };
    if let Some((passed, report)) = dir.report() {
        return Child::Ended { passed, report };
    }
    let running = dir.running();
    let crash = match ended.status {
        None => Crash::NotJudged("the check was killed at its bound; it did not crash"),
        Some(_) if running.is_empty() => Crash::NotJudged("no concurrent test was running"),
        // One test per hunt that was running: the crash is a violation only if none of
        // them crashes in a sequential order.
        Some(_) => running
            .iter()
            .map(|(id, _)| judge_crash(name, config, &dir.0.join(format!("{ENTRY_FILE}.{id}"))))
            .fold(Crash::Unexplained(0), Crash::and),
    };
    let recorded = match (&crash, running.as_slice(), &config.regressions) {
        // A crash no sequential order explains, in the one test that was running: its
        // test goes to the regressions file, replayed first by every later check.
        (Crash::Unexplained(_), [(id, _)], Some(regressions)) => {
            std::fs::read_to_string(dir.0.join(format!("{ENTRY_FILE}.{id}")))
                .ok()
                .map(|entry| {
                    let failure = match ended.status {
                        Some(status) => format!("crash: {}", describe(status)),
                        None => "crash".to_string(),
                    };
                    record_crash(regressions, type_name, &entry, &failure)
                })
        }
        _ => None,
    };
    let tests: Vec<String> = running.into_iter().map(|(_, test)| test).collect();
    Child::Died(died(
        type_name,
        config,
        &ended,
        bound,
        &tests,
        &crash,
        recorded.as_ref(),
    ))
}

/// A child's folder in the temporary directory, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new() -> Result<Folder, String> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "threadsafe-child-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot make the folder {dir:?}: {e}"))?;
        Ok(Folder(dir))
    }

    /// The tests the child's hunts were running, with their hunts' ids.
    fn running(&self) -> Vec<(String, String)> {
        let mut found: Vec<(String, String)> = std::fs::read_dir(&self.0)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let id = name.strip_prefix(&format!("{TEST_FILE}."))?;
                (!id.ends_with(".part")).then(|| id.to_string())
            })
            .filter_map(|id| {
                let test = std::fs::read_to_string(self.0.join(format!("{TEST_FILE}.{id}")));
                Some((id, test.ok()?))
            })
            .collect();
        found.sort();
        found
    }

    /// The report the child left: whether it passed, and the text.
    fn report(&self) -> Option<(bool, String)> {
        let text = std::fs::read_to_string(self.0.join(REPORT_FILE)).ok()?;
        let (verdict, report) = text.split_once('\n').unwrap_or((&text, ""));
        Some((verdict == "pass", report.to_string()))
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The crash oracle: runs every linearization of the test in `entry` in a child process of
/// their own ([`judge`]), and says whether one crashed too.
fn judge_crash(name: &str, config: &Config, entry: &Path) -> Crash {
    let Ok(dir) = Folder::new() else {
        return Crash::NotJudged("no folder for the oracle's child process");
    };
    let vars = [
        (CHILD_ENV, dir.0.as_os_str()),
        (JUDGE_ENV, entry.as_os_str()),
    ];
    let Ok(ended) = child::run(name, &vars, child_bound(config)) else {
        return Crash::NotJudged("the oracle's child process could not be started");
    };
    Crash::from_run(dir.report(), ended.status)
}

/// The failure of a child that left no report, in words, with what the crash oracle said.
fn died(
    type_name: &str,
    config: &Config,
    ended: &child::Ended,
    bound: Duration,
    running: &[String],
    crash: &Crash,
    recorded: Option<&Regressions>,
) -> String {
    let mut out = String::new();
    let headline = crash.headline(type_name);
    let _ = writeln!(out, "{headline}");
    let how = match ended.status {
        None => format!(
            "the check did not end within {:.0} s (its budget twice, and 30 s) and was killed",
            bound.as_secs_f64()
        ),
        Some(status) if status.code().is_some() => {
            format!("{} and left no report", describe(status))
        }
        Some(status) => describe(status),
    };
    let _ = writeln!(out, "  failure: {how}");
    for (i, line) in ended.last_words(8).iter().enumerate() {
        let label = if i == 0 { "  stderr: " } else { "          " };
        let _ = writeln!(out, "{label} {line}");
    }
    let oracle = crash.said();
    let _ = writeln!(out, "  oracle:  {oracle}");
    let _ = writeln!(
        out,
        "  seed:    {} (set THREADSAFE_SEED={} to generate the same tests)",
        config.seed, config.seed
    );
    let tests: Vec<(&str, &str)> = running.iter().filter_map(|t| t.split_once('\n')).collect();
    if let Some((n, _)) = tests.first() {
        let also = if tests.len() > 1 {
            format!(" (or in another of the {} hunts' tests below)", tests.len())
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  found:   in test {n}{also}, {:.3} s after its child process started",
            ended.elapsed.as_secs_f64()
        );
    }
    let _ = writeln!(
        out,
        "  debug:   THREADSAFE_ISOLATION=off runs the check in the test's own process (under a \
         debugger, the crash stops there)"
    );
    if let Some(recorded) = recorded {
        let _ = write!(out, "{recorded}");
    }
    for (n, body) in &tests {
        let _ = writeln!(
            out,
            "\nThe test that was running, test {n} of the check (paste it into a test \
             module that sees `{type_name}`):\n\n\
             /// Crashed the process that ran threadsafe's check of `{type_name}` (seed {seed}, \
             test {n}).\n\
             /// It runs in a child process (`threadsafe_rt::contain`): a crash fails this test \
             and\n\
             /// leaves the test binary running.\n\
             #[test]\n\
             fn {name}_crash() {{\n    \
             ::threadsafe_rt::contain(|| {{\n        \
             for _ in 0..1000 {{\n{body}        }}\n    }});\n}}",
            seed = config.seed,
            name = snake(type_name),
        );
    }
    if tests.is_empty() {
        let _ = writeln!(
            out,
            "\nIt died in a sequential run of the generator (calls one after the other, \
             before or between the concurrent tests), which is not a thread-safety \
             violation."
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_child_is_told_in_words() {
        let config = Config::default();
        let hung = child::Ended {
            status: None,
            stderr: "running 1 test\nfree(): double free detected in tcache 2\n".to_string(),
            elapsed: Duration::from_secs(32),
        };
        let text = died(
            "Cell",
            &config,
            &hung,
            Duration::from_secs(32),
            &["12\n            let cut = Cell::new();\n".to_string()],
            &Crash::NotJudged("the check was killed at its bound; it did not crash"),
            None,
        );
        assert!(text.starts_with("threadsafe: `Cell` crashed"), "{text}");
        assert!(text.contains("did not end within 32 s"), "{text}");
        assert!(
            text.contains("stderr:  free(): double free detected"),
            "{text}"
        );
        assert!(!text.contains("running 1 test"), "{text}");
        assert!(text.contains("test 12 of the check"), "{text}");
        assert!(
            text.contains(
                "fn cell_crash() {\n    ::threadsafe_rt::contain(|| {\n        for _ in 0..1000 {\n            \
                 let cut = Cell::new();\n        }\n    });\n}"
            ),
            "{text}"
        );
        let early = died(
            "Cell",
            &config,
            &hung,
            Duration::from_secs(32),
            &[],
            &Crash::NotJudged("no concurrent test was running"),
            None,
        );
        assert!(
            early.contains("in a sequential run of the generator"),
            "{early}"
        );
    }

    #[test]
    fn only_generated_tests_run_in_a_child() {
        let named = |name: &str| {
            std::thread::Builder::new()
                .name(name.to_string())
                .spawn(generated_test_name)
                .unwrap()
                .join()
                .unwrap()
        };
        assert_eq!(
            named("cache::thread_safe_cache").as_deref(),
            Some("cache::thread_safe_cache")
        );
        assert_eq!(
            named("thread_safe_cache").as_deref(),
            Some("thread_safe_cache")
        );
        assert_eq!(named("cache::tests::lookup"), None);
        assert_eq!(named("main"), None);
    }
}
