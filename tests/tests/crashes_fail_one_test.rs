//! The test `#[thread_safe]` generates runs its check in a child process of the test binary:
//! a crash of the code under test fails that test with a report (the signal, the seed, the
//! test that was running) instead of killing the binary, and the binary's other tests go on.
//! Both tests below stand for generated tests (their names start with `thread_safe_`, as a
//! generated test's do) and call the generated test's entry point; this binary running to
//! its end with both results is the "other tests go on" part.

#![allow(clippy::new_without_default)]

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use threadsafe_rt::{thread_safe, Config};
use threadsafe_tests::expect;
use threadsafe_tests::temp::TempDir;

/// A counter whose `bump` aborts the process when two calls overlap: what a race in
/// `unsafe` code ends in (a double free, a corrupted heap), made deterministic. Alone, and
/// in any sequential order, nothing aborts.
pub struct Aborter {
    busy: AtomicBool,
    n: AtomicU32,
}

#[thread_safe(test = false, statement_points = "always")]
impl Aborter {
    pub fn new() -> Self {
        Aborter {
            busy: AtomicBool::new(false),
            n: AtomicU32::new(0),
        }
    }

    pub fn bump(&self) -> u32 {
        if self.busy.swap(true, Ordering::SeqCst) {
            std::process::abort();
        }
        let v = self.n.fetch_add(1, Ordering::SeqCst);
        self.busy.store(false, Ordering::SeqCst);
        v
    }
}

/// The same counter without the race: one atomic step a call.
pub struct Counter(AtomicU32);

#[thread_safe(test = false, statement_points = "always")]
impl Counter {
    pub fn new() -> Self {
        Counter(AtomicU32::new(0))
    }

    pub fn bump(&self) -> u32 {
        self.0.fetch_add(1, Ordering::SeqCst)
    }
}

/// [`Aborter`] that also aborts in the crash oracle's child process, whose sequential runs
/// are then the ones that crash: it stands for a type whose calls crash one after the other
/// too (in the orders the oracle tries, not in the order the generator runs them), so that
/// the oracle's answer is tested both ways.
pub struct AbortsSequentially(Aborter);

#[thread_safe(test = false, statement_points = "always")]
impl AbortsSequentially {
    pub fn new() -> Self {
        AbortsSequentially(Aborter::new())
    }

    pub fn bump(&self) -> u32 {
        if std::env::var_os("THREADSAFE_CHILD_JUDGE").is_some() {
            std::process::abort();
        }
        self.0.bump()
    }
}

/// How the report of `Aborter`'s crash begins: a thread-safety violation, judged.
const ABORTER_CRASHED: &str =
    "\nthreadsafe: `Aborter` is not thread-safe: it crashed the process that checked it";

/// What the generated test passes its entry point, with the regressions file in a folder
/// of the test's own.
fn config(dir: &TempDir) -> Config {
    let mut config = Config::default();
    config.budget = Duration::from_secs(10);
    config.regressions = Some(dir.path().to_path_buf());
    config
}

#[test]
fn thread_safe_aborter_fails_its_test_with_a_report() {
    let dir = TempDir::new("crash");
    // In the child this aborts the process; in this process it is the child's death.
    let text = expect::failed_generated_test::<Aborter>(config(&dir));
    assert!(
        text.contains("killed by signal 6 (SIGABRT: an abort)"),
        "{text}"
    );
    assert!(text.starts_with(ABORTER_CRASHED), "{text}");
    assert!(
        text.contains("oracle:  none of the ")
            && text.contains(
                " sequential orders of the same calls crashes (run in a child process of their \
                 own)"
            ),
        "{text}"
    );
    assert!(text.contains("seed:    0"), "{text}");
    assert!(text.contains("The test that was running, test "), "{text}");
    assert!(
        text.contains("fn aborter_crash() {"),
        "the test as Rust:\n{text}"
    );
    assert!(text.contains("cut.bump()"), "the test as Rust:\n{text}");
    // The crashing test is in the regressions file, with the crash as its failure, and the
    // next check replays it first (it crashes again, and is judged again).
    assert!(text.contains("regressions: written to "), "{text}");
    let file = std::fs::read_to_string(dir.path().join("Aborter.txt")).expect("the file");
    assert!(
        file.contains("  failure: crash: the process was killed by signal 6 (SIGABRT: an abort)"),
        "{file}"
    );
    let again = expect::failed_generated_test::<Aborter>(config(&dir));
    assert!(again.starts_with(ABORTER_CRASHED), "{again}");
    assert!(again.contains("  regressions: "), "{again}");
}

#[test]
fn thread_safe_aborts_sequentially_is_not_called_a_thread_safety_violation() {
    let dir = TempDir::new("crash-sequential");
    let text = expect::failed_generated_test::<AbortsSequentially>(config(&dir));
    assert!(
        text.starts_with(
            "\nthreadsafe: cannot check `AbortsSequentially`: its calls crash the process when \
             they run one after the other too (a bug, but not a thread-safety violation)"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "oracle:  a sequential order of the same calls crashes too (the process was killed \
             by signal 6 (SIGABRT: an abort)): not a thread-safety violation"
        ),
        "{text}"
    );
    assert!(!text.contains("is not thread-safe"), "{text}");
}

/// With two hunts at once in the child, each writes down its own running test: the crash is
/// judged against them all, never taken for a sequential one because the other hunt was
/// between tests.
#[test]
fn thread_safe_aborter_with_two_hunts_is_judged() {
    let dir = TempDir::new("crash-jobs");
    let mut config = config(&dir);
    config.jobs = 2;
    let text = expect::failed_generated_test::<Aborter>(config);
    assert!(text.starts_with(ABORTER_CRASHED), "{text}");
    assert!(text.contains("fn aborter_crash() {"), "{text}");
}

#[test]
fn thread_safe_counter_in_the_same_binary_passes() {
    let dir = TempDir::new("crash-twin");
    let mut config = config(&dir);
    config.budget = Duration::from_millis(300);
    threadsafe_rt::__private::run_test::<Counter>(config);
}
