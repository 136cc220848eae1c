//! Executions per second of one two-thread scenario, measured side by side in one run.
//!
//! The scenario: a mutex-protected count and an atomic; each of two threads locks the
//! mutex, increments, unlocks, and `fetch_add`s the atomic. One execution is a fresh
//! instance and both threads' work.
//!
//! - threadsafe, controlled (random walk; PCT depth 3): `check::<Counter>` with
//!   `schedule = Controlled`, one test (`new()`, then `step()` on each thread: one call per
//!   suffix, no state changers, no post call) run up to 100,000 times, so generation is
//!   negligible; rate = `report.executions / report.elapsed`.
//! - threadsafe, stress: the same check with `schedule = Stress`.
//! - shuttle `check_random` (and `check_pct` depth 3): a hand-written harness of the same
//!   scenario with `shuttle::sync::Mutex`, `shuttle::sync::atomic::AtomicUsize`,
//!   `shuttle::thread::spawn` and `join`; rate = iterations / wall time.
//! - std: `std::thread::spawn` of two threads per execution and `join`, std types.
//!
//! Each measurement runs for about `T` (2 s; `BENCH_QUICK=1`: 0.3 s); the rows take turns
//! for `R` rounds (3; quick: 1) and the table shows the median rate, its range, and its
//! ratio to shuttle `check_random`'s.
//!
//! ```sh
//! cargo bench -p threadsafe-bench --bench throughput
//! BENCH_QUICK=1 cargo bench -p threadsafe-bench --bench throughput
//! BENCH_TIME=5s BENCH_ROUNDS=5 cargo bench -p threadsafe-bench --bench throughput
//! BENCH_ONLY=controlled cargo bench -p threadsafe-bench --bench throughput   # some rows only
//! ```

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use threadsafe_bench::counter::Counter;
use threadsafe_bench::harness;
use threadsafe_corpus::measure::{cores, median, thousands, CpuMeter};
use threadsafe_rt::{check, generated_tests, Config, ScheduleMode, Strategy, Verdict};

/// The most executions of the one test: large, so that one batch fills the budget.
const CONC_EXECS: usize = 100_000;

/// A row of the table: what it measures, and one measurement of about `time`, returning
/// the executions per second and a note.
struct Row {
    name: &'static str,
    measure: Box<dyn Fn(Duration) -> (f64, String)>,
}

fn config(time: Duration, schedule: ScheduleMode, strategy: Strategy) -> Config {
    let mut c = Config::default();
    c.budget = time;
    c.conc_execs = CONC_EXECS;
    c.cut_call_tries = 1;
    c.state_changer_tries = 0;
    c.post_calls = 0;
    c.schedule = schedule;
    c.strategy = strategy;
    c
}

fn threadsafe_rate(c: &Config) -> (f64, String) {
    let report = check::<Counter>(c);
    assert!(
        matches!(report.verdict, Verdict::NoViolationFound),
        "the counter is correct:\n{report}"
    );
    let rate = report.executions as f64 / report.elapsed.as_secs_f64();
    let note = format!(
        "{} tests, {} executions in {:.2} s{}",
        report.tests,
        report.executions,
        report.elapsed.as_secs_f64(),
        if report.uncontrolled_runs > 0 {
            format!(", {} not fully controlled", report.uncontrolled_runs)
        } else {
            String::new()
        }
    );
    (rate, note)
}

/// The scenario under shuttle: spawn two threads that each lock, increment, unlock and
/// `fetch_add`, then join them.
fn shuttle_scenario() {
    use shuttle::sync::atomic::AtomicUsize;
    use shuttle::sync::Mutex;
    let shared = Arc::new((Mutex::new(0u64), AtomicUsize::new(0)));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let s = Arc::clone(&shared);
            shuttle::thread::spawn(move || {
                *s.0.lock().unwrap() += 1;
                s.1.fetch_add(1, Ordering::SeqCst);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(*shared.0.lock().unwrap(), 2);
}

/// Iterations of `run(iterations)` per second, for about `time`: calibrated on a short run.
fn iterations_rate(time: Duration, run: impl Fn(usize)) -> (f64, String) {
    let probe = 200;
    let t = Instant::now();
    run(probe);
    let per = t.elapsed().as_secs_f64() / probe as f64;
    let n = ((time.as_secs_f64() / per) as usize).max(probe);
    let t = Instant::now();
    run(n);
    let elapsed = t.elapsed().as_secs_f64();
    (
        n as f64 / elapsed,
        format!("{n} iterations in {elapsed:.2} s"),
    )
}

/// Executions of the scenario on fresh std threads, for about `time`.
fn std_rate(time: Duration) -> (f64, String) {
    use std::sync::atomic::AtomicUsize;
    use std::sync::Mutex;
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < time {
        let shared = Arc::new((Mutex::new(0u64), AtomicUsize::new(0)));
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let s = Arc::clone(&shared);
                std::thread::spawn(move || {
                    *s.0.lock().unwrap() += 1;
                    s.1.fetch_add(1, Ordering::SeqCst);
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(*shared.0.lock().unwrap(), 2);
        n += 1;
    }
    let elapsed = start.elapsed().as_secs_f64();
    (
        n as f64 / elapsed,
        format!("{n} executions in {elapsed:.2} s"),
    )
}

fn main() {
    let quick = harness::quick();
    let time = harness::env_duration(
        "BENCH_TIME",
        Duration::from_millis(if quick { 300 } else { 2000 }),
    );
    let rounds = harness::env_usize("BENCH_ROUNDS", if quick { 1 } else { 3 }).max(1);

    // The test threadsafe generates: exactly the scenario.
    let shape = config(time, ScheduleMode::Controlled, Strategy::Random);
    let tests = generated_tests::<Counter>(&shape, 1);

    let rows = [
        Row {
            name: "threadsafe controlled, random",
            measure: Box::new(|t| {
                threadsafe_rate(&config(t, ScheduleMode::Controlled, Strategy::Random))
            }),
        },
        Row {
            name: "threadsafe controlled, PCT d=3",
            measure: Box::new(|t| {
                threadsafe_rate(&config(
                    t,
                    ScheduleMode::Controlled,
                    Strategy::Pct { depth: 3 },
                ))
            }),
        },
        Row {
            name: "threadsafe stress",
            measure: Box::new(|t| {
                threadsafe_rate(&config(t, ScheduleMode::Stress, Strategy::Random))
            }),
        },
        Row {
            name: "shuttle check_random",
            measure: Box::new(|t| {
                iterations_rate(t, |n| shuttle::check_random(shuttle_scenario, n))
            }),
        },
        Row {
            name: "shuttle check_pct d=3",
            measure: Box::new(|t| {
                iterations_rate(t, |n| shuttle::check_pct(shuttle_scenario, n, 3))
            }),
        },
        Row {
            name: "std::thread::spawn + join",
            measure: Box::new(std_rate),
        },
    ];
    const SHUTTLE: &str = "shuttle check_random";
    // `BENCH_ONLY=<text>`: only the rows whose name contains it (to profile one harness).
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    let rows: Vec<Row> = rows
        .into_iter()
        .filter(|r| r.name.contains(only.as_str()))
        .collect();

    let load_before = harness::load();
    eprintln!(
        "throughput: {rounds} round(s) of about {:.1} s per row{}; {load_before}",
        time.as_secs_f64(),
        if quick { " (quick mode)" } else { "" }
    );
    let mut rates: Vec<Vec<f64>> = rows.iter().map(|_| Vec::new()).collect();
    // Per row and round: the cores other processes used during the measurement.
    let mut others: Vec<Vec<f64>> = rows.iter().map(|_| Vec::new()).collect();
    for round in 0..rounds {
        for (i, row) in rows.iter().enumerate() {
            let meter = CpuMeter::start();
            let (rate, note) = (row.measure)(time);
            let used = meter.and_then(|m| m.others()?.cores());
            eprintln!(
                "  round {round}: {:<32} {:>12} /s  ({note}; other processes: {} cores)",
                row.name,
                thousands(rate),
                cores(used)
            );
            rates[i].push(rate);
            others[i].extend(used);
        }
    }
    let load_after = harness::load();

    let shuttle = rows
        .iter()
        .position(|r| r.name == SHUTTLE)
        .and_then(|i| median(&rates[i]));
    println!();
    println!(
        "## throughput: executions per second, 2 threads × (lock, increment, unlock, fetch_add){}",
        if quick { ", quick mode" } else { "" }
    );
    println!();
    println!("| harness | executions/s (median) | range | vs shuttle check_random | other processes' CPU (cores, per round) |");
    println!("|---|---|---|---|---|");
    for ((row, r), o) in rows.iter().zip(&rates).zip(&others) {
        let m = median(r).expect("measured");
        let lo = r.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = r.iter().copied().fold(0.0, f64::max);
        let ratio = shuttle.map_or_else(|| "-".to_string(), |s| format!("{:.2}×", m / s));
        let o: Vec<String> = o.iter().map(|c| format!("{c:.2}")).collect();
        println!(
            "| {} | {} | {}–{} | {ratio} | {} |",
            row.name,
            thousands(m),
            thousands(lo),
            thousands(hi),
            o.join(", ")
        );
    }
    println!();
    println!(
        "{rounds} round(s) of about {:.1} s per row, rows taking turns; \"vs shuttle\" is the row's median over shuttle check_random's; \
         \"other processes' CPU\" is the machine's busy time during each round less this process's own, in cores (0.00: nothing else ran).",
        time.as_secs_f64()
    );
    println!(
        "threadsafe rows: executions / elapsed of one `check` (conc_execs = {CONC_EXECS}, one call per suffix, no state changers, no post call); the test it runs:"
    );
    println!();
    println!("```rust");
    for t in &tests {
        print!("{t}");
    }
    println!("```");
    println!();
    println!("machine: before {load_before}; after {load_after}");
}
