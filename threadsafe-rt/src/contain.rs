//! [`contain`]: a scenario run where its deadlock or crash fails the test that runs it
//! instead of hanging the test binary or taking it down. The reproducers of deadlocks and
//! crashes run their scenario so.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::child;
use crate::config::{Config, ISOLATION_ENV};
use crate::os::{asleep_for_good, current_tid};
use crate::panics::payload_message;

/// The variable that makes a run of the test binary the child of a contained scenario.
const CONTAINED_ENV: &str = "THREADSAFE_CONTAINED";

/// The exit code of a child whose scenario deadlocked.
const DEADLOCKED: i32 = 87;

/// The exit code of a child whose scenario panicked (the panic hook printed the message).
/// The child exits rather than unwinds, so that what the test does around `contain` (a
/// `catch_unwind`, `#[should_panic]`) is judged in the parent only.
const PANICKED: i32 = 88;

/// The exit code of a child whose scenario outlived [`BOUND`].
const HUNG: i32 = 89;

/// How long a contained scenario may run before it is taken for hung: a hang the operating
/// system cannot vouch for (a spinning livelock, a thread asleep with a timeout in a loop)
/// is cut off here.
const BOUND: Duration = Duration::from_secs(120);

/// Runs `scenario` so that a deadlock or a crash in it fails the calling test with a
/// message, instead of hanging the test binary or killing it with the other tests.
///
/// Called from a `#[test]`, it runs that test again in a child process of the test binary
/// (`<test name> --exact`, as nextest does), where `scenario` runs on a thread of its own.
/// The child is watched, and the test fails:
/// - when every thread of the scenario waits for another for good (the operating system
///   says that no thread of the child can run again: a deadlock, seen at once, on Linux; a
///   hang nothing can vouch for is cut off after 120 s);
/// - when the child dies by a signal (a segmentation fault, an abort, a double free);
/// - when `scenario` panics.
///
/// A deadlock's blocked threads die with the child, so nothing is left behind in the test
/// binary. Outside a test libtest started (a doctest, a thread of one's own), or with
/// `THREADSAFE_ISOLATION=off` (to debug the scenario in process) or where there is no child
/// process to be had, `scenario` runs in this process on a watched thread instead: a
/// deadlock still fails the test, but its threads stay blocked here, and a crash ends the
/// process.
///
/// The reproducers `threadsafe` prints for deadlocks and crashes call it.
///
/// ```
/// use std::sync::Mutex;
///
/// let total = Mutex::new(0);
/// // Passes: the scenario ends.
/// threadsafe_rt::contain(move || {
///     std::thread::scope(|s| {
///         s.spawn(|| *total.lock().unwrap() += 1);
///         s.spawn(|| *total.lock().unwrap() += 2);
///     });
///     assert_eq!(*total.lock().unwrap(), 3);
/// });
/// ```
///
/// # Panics
///
/// When the scenario deadlocks, crashes, panics or outlives its bound, with a message that
/// says which; and when `THREADSAFE_ISOLATION` is set to a word other than `on` or `off`.
pub fn contain<F: FnOnce() + Send + 'static>(scenario: F) {
    if std::env::var_os(CONTAINED_ENV).is_some() {
        return in_child(scenario);
    }
    let isolation = match Config::default()
        .with_switch_overrides(None, std::env::var(ISOLATION_ENV).ok().as_deref())
    {
        Ok(config) => config.isolation,
        Err(e) => panic!("threadsafe: {e}"),
    };
    if let (true, Some(name)) = (isolation, child::current_test_name()) {
        // The child ends itself at its bound; this one is for a child that cannot.
        let bound = BOUND + Duration::from_secs(10);
        match child::run(&name, &[(CONTAINED_ENV, "1".as_ref())], bound) {
            Ok(ended) => return judge(&ended),
            Err(why) => eprintln!("threadsafe: the scenario runs in this process: {why}"),
        }
    }
    match watch(scenario) {
        Watched::Ended(Ok(())) => {}
        Watched::Ended(Err(panic)) => std::panic::resume_unwind(panic),
        Watched::Deadlocked(after) => panic!(
            "threadsafe: the scenario deadlocked: {} (its threads stay blocked in this \
             process)",
            deadlocked(after)
        ),
        Watched::Hung => panic!(
            "threadsafe: the scenario did not end within {} s (its threads are left running \
             in this process)",
            BOUND.as_secs()
        ),
    }
}

/// How a watched scenario ended.
enum Watched {
    /// It returned, or panicked (the payload).
    Ended(std::thread::Result<()>),
    /// Every other thread of the process waits for good, this long after the start.
    Deadlocked(Duration),
    /// It outlived [`BOUND`].
    Hung,
}

/// Runs `scenario` on a thread of its own and watches it: ended, deadlocked or hung.
fn watch<F: FnOnce() + Send + 'static>(scenario: F) -> Watched {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("threadsafe-contained".to_string())
        .spawn(move || {
            let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(
                scenario,
            )));
        });
    if let Err(e) = spawned {
        panic!("threadsafe: cannot start a thread for the scenario: {e}");
    }
    let me = current_tid();
    let start = Instant::now();
    // Asked after a short wait, then after twice as long each time while the scenario runs.
    let mut gap = Duration::from_millis(2);
    loop {
        match rx.recv_timeout(gap) {
            Ok(result) => return Watched::Ended(result),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Watched::Ended(Ok(())),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if asleep_for_good(me, || None) {
            // Asleep for good, or gone: a scenario that ended left its result before its
            // thread went, and is not a deadlock.
            return match rx.try_recv() {
                Ok(result) => Watched::Ended(result),
                Err(mpsc::TryRecvError::Disconnected) => Watched::Ended(Ok(())),
                Err(mpsc::TryRecvError::Empty) => Watched::Deadlocked(start.elapsed()),
            };
        }
        if start.elapsed() >= BOUND {
            return Watched::Hung;
        }
        gap = (gap * 2).min(Duration::from_millis(64));
    }
}

/// What a deadlock message says after "deadlocked: ".
fn deadlocked(after: Duration) -> String {
    format!(
        "after {:.3} s every thread of it waits for another for good (the operating system \
         says none can run again)",
        after.as_secs_f64()
    )
}

/// In the child: runs `scenario`; returns if it ended, and ends the process with a code
/// that says how otherwise.
fn in_child<F: FnOnce() + Send + 'static>(scenario: F) {
    match watch(scenario) {
        Watched::Ended(Ok(())) => {}
        Watched::Ended(Err(payload)) => {
            // The message last, where the parent reads the child's last words: with
            // `RUST_BACKTRACE` set, the panic's own line is far above them.
            eprintln!(
                "threadsafe: the scenario panicked: {}",
                payload_message(&*payload)
            );
            std::process::exit(PANICKED);
        }
        Watched::Deadlocked(after) => {
            eprintln!("threadsafe: the scenario deadlocked: {}", deadlocked(after));
            std::process::exit(DEADLOCKED);
        }
        Watched::Hung => std::process::exit(HUNG),
    }
}

/// In the parent: passes if the child passed, panics with how it failed otherwise.
fn judge(ended: &child::Ended) {
    let words = ended.last_words(12).join("\n    ");
    match (ended.status, ended.code()) {
        (Some(status), _) if status.success() => {}
        (_, Some(DEADLOCKED)) => panic!(
            "threadsafe: the scenario deadlocked in a child process of this test, which was \
             ended (nothing is left blocked here):\n    {words}"
        ),
        (_, Some(PANICKED)) => panic!(
            "threadsafe: the scenario panicked in a child process of this test:\n    {words}"
        ),
        (_, Some(HUNG)) | (None, _) => panic!(
            "threadsafe: the scenario did not end within {} s in a child process of this \
             test, which was ended:\n    {words}",
            BOUND.as_secs()
        ),
        (Some(status), Some(_)) => panic!(
            "threadsafe: the scenario failed in a child process of this test ({}):\n    {words}",
            child::describe(status)
        ),
        (Some(status), None) => panic!(
            "threadsafe: the scenario crashed the child process of this test that ran it: \
             {}\n    {words}",
            child::describe(status)
        ),
    }
}
