//! Under `ScheduleMode::Controlled`, the lock-order deadlock of `SynchronizedMap::eq` (bug 9
//! of Pradel & Gross), written with `threadsafe_rt::sync::Mutex`, is exact: the scheduler sees
//! both threads blocked on its locks and reports each one in `eq`, waiting for the lock of its
//! second `lock()` line; no worker thread is abandoned (no watchdog was involved), and once the
//! check returns, every thread the runtime started has exited.
//!
//! The generator seldom pairs `a.eq(&b)` with `b.eq(&a)` on the two threads (the mirrored
//! pair needs two instances and the same method called from both sides), and mostly late.
//! Nearly every such test deadlocks within its 100 executions, with the random strategy and
//! with PCT of depth 2 (which switches only at its one change point, which must fall between
//! the two `lock()`s); see decision 0081. The seeds below make it among their first 10, and
//! the test asserts that they still do, so that a change of the generator shows up as that,
//! not as a missed deadlock.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use threadsafe_corpus::contege::sync_locks::synchronized_map::{SynchronizedMap, FILE, SOURCE};
use threadsafe_rt::{check, generated_tests, Config, Failure, Report, Strategy};
use threadsafe_tests::harness;
use threadsafe_tests::{expect, line_of};

/// Seeds whose tests include the mirrored pair early (the 2nd, 2nd, 9th and 10th test), with
/// the default 100 executions per test: each finds the deadlock in that test, well within
/// the budget, with either strategy (see decision 0081).
const SEEDS: [u64; 4] = [179, 196, 156, 113];
/// The mirrored pair comes among the first this many tests of each seed.
const FIRST_TESTS: usize = 10;

const STRATEGIES: [Strategy; 2] = [Strategy::Random, Strategy::Pct { depth: 2 }];

/// The budget only guards against a hang.
const BUDGET: Duration = Duration::from_secs(30);

/// How long the runtime's threads may take to exit after the check returned (they notice
/// within one 50 ms park).
const EXIT_WAIT: Duration = Duration::from_secs(2);

/// Whether `test` calls `cut.eq(&cut1)` on one thread and `cut1.eq(&cut)` on the other.
fn compares_from_both_sides(test: &str) -> bool {
    let threads: Vec<&str> = test
        .split("s.spawn(|| {")
        .skip(1)
        .map(|t| t.split("});").next().unwrap_or(t))
        .collect();
    let calls = |t: &str, call: &str| t.contains(&format!("{call};"));
    threads.len() == 2
        && (calls(threads[0], "cut.eq(&cut1)") && calls(threads[1], "cut1.eq(&cut)")
            || calls(threads[0], "cut1.eq(&cut)") && calls(threads[1], "cut.eq(&cut1)"))
}

/// The threads of this process, by name (`/proc/self/task/*/comm`, 15 characters at most).
fn threads() -> BTreeMap<String, usize> {
    let mut names = BTreeMap::new();
    for task in std::fs::read_dir("/proc/self/task").expect("Linux /proc") {
        let Ok(task) = task else { continue };
        // A thread that exits while we list is simply not counted.
        if let Ok(name) = std::fs::read_to_string(task.path().join("comm")) {
            *names.entry(name.trim_end().to_string()).or_insert(0) += 1;
        }
    }
    names
}

fn total(threads: &BTreeMap<String, usize>) -> usize {
    threads.values().sum()
}

/// Waits up to [`EXIT_WAIT`] for the process to have `before`'s threads again; returns the
/// threads it has then, and how long that took.
fn threads_back_to(before: &BTreeMap<String, usize>) -> (BTreeMap<String, usize>, Duration) {
    let start = Instant::now();
    loop {
        let now = threads();
        if now == *before || start.elapsed() >= EXIT_WAIT {
            return (now, start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The threads of this process once no thread of the runtime is left (the previous check's
/// may still be on their way out).
fn without_runtime_threads() -> BTreeMap<String, usize> {
    let start = Instant::now();
    loop {
        let now = threads();
        if !now.keys().any(|n| n.starts_with("threadsafe-")) {
            return now;
        }
        assert!(
            start.elapsed() < EXIT_WAIT,
            "runtime threads still running {EXIT_WAIT:?} after the previous check: {now:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Asserts that `report` is a deadlock of both threads in `eq`, each waiting for the lock of
/// `eq`'s second `lock()` line.
fn exact_deadlock_in_eq(report: &Report) {
    let line = line_of(SOURCE, "let theirs = other.entries.lock().unwrap();");
    let Failure::Deadlock { blocked } = &expect::violation(report).failure else {
        panic!("expected a deadlock:\n{report}");
    };
    let mut blocked = blocked.clone();
    blocked.sort();
    assert_eq!(blocked.len(), 2, "{report}");
    for (i, b) in blocked.iter().enumerate() {
        let expected = format!(
            "thread {} in `eq`, waiting for a lock at {FILE}:{line}:",
            i + 1
        );
        assert!(
            b.starts_with(&expected),
            "{b:?} is not {expected:?}…:\n{report}"
        );
    }
}

/// One test, so that no other test of this file starts or stops threads while it counts them.
#[test]
fn deadlocks_are_exact_and_no_thread_outlives_the_check() {
    for seed in SEEDS {
        let mut config = Config::default();
        config.seed = seed;
        let tests = generated_tests::<SynchronizedMap>(&config, FIRST_TESTS);
        assert!(
            tests.iter().any(|t| compares_from_both_sides(t)),
            "the generator changed: seed {seed} no longer makes `a.eq(&b) || b.eq(&a)` among \
             its first {FIRST_TESTS} tests; pick seeds that do"
        );
    }
    for strategy in STRATEGIES {
        for seed in SEEDS {
            let config = harness::controlled(seed, strategy, BUDGET);
            let before = without_runtime_threads();
            let report = check::<SynchronizedMap>(&config);
            let (after, waited) = threads_back_to(&before);
            let found = expect::violation(&report);
            eprintln!(
                "{strategy:?} seed {seed}: deadlock after {} tests in {:.1} ms; threads {} before, {} after (back in {:.1} ms)",
                found.tests_until_found,
                found.time_to_bug.as_secs_f64() * 1000.0,
                total(&before),
                total(&after),
                waited.as_secs_f64() * 1000.0
            );
            if seed == SEEDS[0] {
                println!("{report}");
            }
            exact_deadlock_in_eq(&report);
            assert_eq!(
                report.abandoned_threads, 0,
                "a deadlock under control left threads blocked:\n{report}"
            );
            assert_eq!(report.uncontrolled_runs, 0, "{report}");
            assert_eq!(report.controlled_tests, report.tests, "{report}");
            harness::replay_token(&config, &report);
            assert_eq!(
                after, before,
                "{strategy:?} seed {seed}: the process's threads did not return to what they were \
                 before the check within {EXIT_WAIT:?}"
            );
            // The replay deadlocks the same way, and leaves no thread either.
            let replay = harness::replays_exactly::<SynchronizedMap>(&config, &report);
            exact_deadlock_in_eq(&replay);
            assert_eq!(replay.abandoned_threads, 0, "{replay}");
            let (after, _) = threads_back_to(&before);
            assert_eq!(after, before, "{strategy:?} seed {seed}: after the replay");
        }
    }
}
