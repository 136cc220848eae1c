//! How long a lock-order deadlock takes to report, shrinking included, and what it leaves
//! behind: bug 9 of Pradel & Gross (`a.eq(&b)` beside `b.eq(&a)`) with `threadsafe_rt::sync`
//! locks (controlled: the scheduler sees the wait), with `std::sync` and `parking_lot` locks
//! (free-running: the threads wait in the kernel), and MAPTest's V8, the same bug in a larger
//! type. Each is checked with `Config::default()`, seeds `0..N` and a budget of `B`, in this
//! process (as `check` runs; the generated test runs the same check in a child process).
//! For each check: what was found, the time to find it, the time shrinking took, the two
//! together (the time to the report), and the threads of this process that the check left
//! behind (counted in `/proc/self/task` before and after).
//!
//! ```sh
//! cargo run --release -p threadsafe-bench --example deadlock_reports
//! cargo run --release -p threadsafe-bench --example deadlock_reports -- --seeds 3 --only std
//! ```

use std::time::Duration;

use threadsafe_bench::cli::settings_or_exit;
use threadsafe_bench::median;
use threadsafe_corpus::contege::{parking_lot_locks, std_locks, sync_locks};
use threadsafe_rt::{check, Config, Failure, Report};

/// What `--help` prints.
const USAGE: &str = "\
how long a lock-order deadlock takes to report (find and shrink) and what it leaves behind

usage: cargo run --release -p threadsafe-bench --example deadlock_reports -- [options]

  --seeds N           seeds 0..N per subject (default: 10)
  --budget DURATION   budget of each check (default: 10s)
  --only NAME         only the subjects whose name starts with NAME (sync, std, parking_lot, V8)
  --help              this text

DURATION: a number and a unit (ms, s, m or min), e.g. 500ms, 2s, 1.5s, 10m.";

struct Settings {
    seeds: u64,
    budget: Duration,
    only: Option<String>,
}

/// A check of a buggy type.
type Check = fn(&Config) -> Report;

/// The subjects: a name and the check of the buggy type.
const SUBJECTS: [(&str, Check); 4] = [
    (
        "sync",
        check::<sync_locks::synchronized_map::SynchronizedMap>,
    ),
    ("std", check::<std_locks::synchronized_map::SynchronizedMap>),
    (
        "parking_lot",
        check::<parking_lot_locks::synchronized_map::SynchronizedMap>,
    ),
    (
        "V8",
        check::<threadsafe_corpus::jdk::synchronized_map::SynchronizedMap>,
    ),
];

/// The threads of this process now.
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, Iterator::count)
}

fn main() {
    let s = settings_or_exit(
        "deadlock_reports",
        USAGE,
        &["--seeds", "--budget", "--only"],
        &[],
        |o| {
            Ok(Settings {
                seeds: o.count("--seeds", 10)? as u64,
                budget: o.duration("--budget", Duration::from_secs(10))?,
                only: o.text("--only"),
            })
        },
    );
    println!(
        "{:<12} {:>4} {:<10} {:>9} {:>9} {:>9} {:>6} {:>8}",
        "subject", "seed", "found", "find s", "shrink s", "report s", "calls", "threads"
    );
    for (name, check_buggy) in SUBJECTS {
        if s.only.as_deref().is_some_and(|o| !name.starts_with(o)) {
            continue;
        }
        let mut reports = Vec::new();
        let mut found = 0;
        for seed in 0..s.seeds {
            let mut config = Config::default();
            config.seed = seed;
            config.budget = s.budget;
            let before = threads();
            let report = check_buggy(&config);
            let left = threads().saturating_sub(before);
            let Some(v) = report.violation() else {
                println!("{name:<12} {seed:>4} {:<10}", "nothing");
                continue;
            };
            let kind = match v.failure {
                Failure::Deadlock { .. } => "deadlock",
                Failure::Panic { .. } => "panic",
                _ => "results",
            };
            let shrink = v.shrunk.as_ref().map_or(Duration::ZERO, |s| s.time);
            let report_time = v.time_to_bug + shrink;
            let calls = v.shrunk.as_ref().map_or(String::new(), |s| {
                format!("{}→{}", s.from_calls, s.to_calls)
            });
            println!(
                "{name:<12} {seed:>4} {kind:<10} {:>9.3} {:>9.3} {:>9.3} {calls:>6} {left:>8}",
                v.time_to_bug.as_secs_f64(),
                shrink.as_secs_f64(),
                report_time.as_secs_f64(),
            );
            if kind == "deadlock" {
                found += 1;
                reports.push(report_time.as_secs_f64());
            }
        }
        println!(
            "{name:<12} deadlocks found {found}/{}; median time to the report {}",
            s.seeds,
            median(&reports).map_or("-".to_string(), |m| format!("{m:.3} s"))
        );
    }
}
