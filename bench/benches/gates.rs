//! The cost of gates: the same test with and without a schedule, side by side in one run.
//!
//! Rows (each a two-thread test on fresh instances, `N` runs, rounds taking turns):
//! - `StringBuffer`, plain: `append` on a worker thread while the test thread calls
//!   `set_len`, in `std::thread::scope`; the race almost never shows.
//! - `StringBuffer`, gated: the same in `gates::run` with the paper's two gates; the copy
//!   panics in every run.
//! - `ArrayList`, plain / gated (a `BarrierGate` for both threads before the size bump;
//!   three elements lost in every run).
//! - empty schedule: the plain `StringBuffer` test run by `gates::run` with no gate, the
//!   harness alone (registration, hooks, panic capture).
//! - sleep-based: the plain `StringBuffer` test with a 200 µs sleep before `set_len`, the
//!   usual attempt at ordering threads without gates.
//!
//! ```sh
//! cargo bench -p threadsafe-bench --bench gates
//! cargo bench -p threadsafe-bench --bench gates -- --quick
//! cargo bench -p threadsafe-bench --bench gates -- --runs 5000 --rounds 5
//! ```

use std::time::Instant;

use threadsafe_bench::cli::settings_or_exit;
use threadsafe_bench::gated::{array_list, string_buffer, StrBuf};
use threadsafe_bench::{load_line, median};
use threadsafe_rt::gates::{self, Schedule};

struct Row {
    name: &'static str,
    run: fn() -> bool,
}

fn empty_schedule() -> bool {
    let a = StrBuf::new("original data");
    let b = StrBuf::new("appended data");
    let outcome = gates::run(Schedule::new(), |s| {
        s.spawn("worker", || a.append(&b));
        b.set_len(3);
    });
    !outcome.panics.is_empty()
}

/// How a developer without gates tries to order the threads: a sleep before `set_len`, so
/// that the worker is "probably" inside `append` by then.
fn sleep_based() -> bool {
    let a = StrBuf::new("original data");
    let b = StrBuf::new("appended data");
    std::thread::scope(|s| {
        let w = s.spawn(|| std::panic::catch_unwind(|| a.append(&b)).is_err());
        std::thread::sleep(std::time::Duration::from_micros(SLEEP_US));
        b.set_len(3);
        w.join().unwrap_or(true)
    })
}

/// The sleep of [`sleep_based`].
const SLEEP_US: u64 = 200;

/// What `--help` prints.
const USAGE: &str = "\
the cost of gates: the same test with and without a schedule

usage: cargo bench -p threadsafe-bench --bench gates -- [options]

  --runs N     runs per measurement (default: 2000; quick: 100)
  --rounds N   rounds taking turns (default: 3; quick: 1)
  --quick      a short smoke run
  --help       this text";

fn main() {
    let (runs, rounds) =
        settings_or_exit("gates", USAGE, &["--runs", "--rounds"], &["--quick"], |o| {
            let quick = o.has("--quick");
            Ok((
                o.count("--runs", if quick { 100 } else { 2000 })?,
                o.count("--rounds", if quick { 1 } else { 3 })?,
            ))
        });
    let rows = [
        Row {
            name: "StringBuffer, plain",
            run: || string_buffer(false),
        },
        Row {
            name: "StringBuffer, gated (2 gates)",
            run: || string_buffer(true),
        },
        Row {
            name: "StringBuffer, empty schedule",
            run: empty_schedule,
        },
        Row {
            name: "StringBuffer, 200 µs sleep before set_len",
            run: sleep_based,
        },
        Row {
            name: "ArrayList, plain",
            run: || array_list(false),
        },
        Row {
            name: "ArrayList, gated (BarrierGate)",
            run: || array_list(true),
        },
    ];
    println!("# Gates: the same test with and without a schedule\n");
    println!(
        "{} runs per measurement, {rounds} rounds taking turns; {}\n",
        runs,
        load_line()
    );
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); rows.len()];
    let mut failures = vec![0usize; rows.len()];
    for _ in 0..rounds {
        for (i, row) in rows.iter().enumerate() {
            let start = Instant::now();
            for _ in 0..runs {
                failures[i] += usize::from((row.run)());
            }
            times[i].push(start.elapsed().as_secs_f64() / runs as f64);
        }
    }
    let per_test: Vec<f64> = times
        .iter()
        .map(|t| median(t).expect("at least one round"))
        .collect();
    println!("| test | time per test (median) | failing runs | vs plain |");
    println!("|---|---:|---:|---:|");
    for (i, row) in rows.iter().enumerate() {
        let plain = if i < 4 { per_test[0] } else { per_test[4] };
        println!(
            "| {} | {:.1} µs | {} / {} | ×{:.2} |",
            row.name,
            per_test[i] * 1e6,
            failures[i],
            runs * rounds,
            per_test[i] / plain
        );
    }
    println!("\n{}", load_line());
}
