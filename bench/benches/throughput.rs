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
//! Every row is measured at three loads, the table's columns: *idle* (nothing of ours but
//! the measurement), *one busy* and *two busy*: one or two other processes that spin on a
//! core each for the whole measurement (the busy neighbour of `threadsafe_bench::neighbour`; they
//! are killed after, and quit by themselves if the benchmark dies). Each measurement runs for
//! about `T` (`--time`, 2 s; `--quick`: 0.3 s); within a round every load level runs all
//! rows in turn, for `R` rounds (`--rounds`, 3; quick: 1). A cell shows the median rate and its ratio to the
//! shuttle rate of the same column: `check_pct`'s for the controlled PCT row (like for
//! like), `check_random`'s for every other row.
//!
//! ```sh
//! cargo bench -p threadsafe-bench --bench throughput
//! cargo bench -p threadsafe-bench --bench throughput -- --quick
//! cargo bench -p threadsafe-bench --bench throughput -- --time 5s --rounds 5
//! cargo bench -p threadsafe-bench --bench throughput -- --only controlled   # some rows only
//! cargo bench -p threadsafe-bench --bench throughput -- --loads 0,2         # some columns only
//! ```

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use threadsafe_bench::cli::{settings_or_exit, Options};
use threadsafe_bench::counter::Counter;
use threadsafe_bench::neighbour::{self, Neighbour, Work};
use threadsafe_bench::{cores, load_line, median, thousands, CpuMeter};
use threadsafe_rt::{check, generated_tests, Config, ScheduleMode, Strategy, Verdict};

/// The most executions of the one test: large, so that one batch fills the budget.
const CONC_EXECS: usize = 100_000;

/// A row of the table: what it measures, the shuttle row its ratios are taken to, and one
/// measurement of about `time`, returning the executions per second and a note.
struct Row {
    name: &'static str,
    versus: &'static str,
    measure: Box<dyn Fn(Duration) -> (f64, String)>,
}

const SHUTTLE_RANDOM: &str = "shuttle check_random";
const SHUTTLE_PCT: &str = "shuttle check_pct d=3";

/// The columns: how many busy processes run beside the measurement.
const LOADS: [(usize, &str); 3] = [(0, "idle"), (1, "one busy"), (2, "two busy")];

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

/// What `--help` prints.
const USAGE: &str = "\
executions per second of one two-thread scenario: threadsafe, shuttle and std threads,
idle and beside one and two busy processes

usage: cargo bench -p threadsafe-bench --bench throughput -- [options]

  --time DURATION   each measurement's time (default: 2s; quick: 0.3s)
  --rounds N        rounds, every load and row in turn (default: 3; quick: 1)
  --only TEXT       only the rows whose name contains TEXT (to profile one harness)
  --loads N,M       only these columns, by number of busy processes (e.g. 0,2)
  --quick           a short smoke run
  --help            this text

DURATION: a number and a unit (ms, s, m or min), e.g. 500ms, 2s, 1.5s, 10m.";

/// The columns of `--loads`, in the table's order.
fn parse_loads(value: &str) -> Result<Vec<(usize, &'static str)>, String> {
    let wanted = value
        .split(',')
        .map(|x| x.trim().parse::<usize>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| "expected numbers of busy processes, e.g. 0,1,2".to_string())?;
    Ok(LOADS
        .into_iter()
        .filter(|(n, _)| wanted.contains(n))
        .collect())
}

/// The settings of a run, from the command line.
struct Settings {
    quick: bool,
    time: Duration,
    rounds: usize,
    /// Only the rows whose name contains this.
    only: String,
    /// The columns measured.
    loads: Vec<(usize, &'static str)>,
}

fn settings(o: &Options) -> Result<Settings, String> {
    let quick = o.has("--quick");
    Ok(Settings {
        quick,
        time: o.duration(
            "--time",
            Duration::from_millis(if quick { 300 } else { 2000 }),
        )?,
        rounds: o.count("--rounds", if quick { 1 } else { 3 })?,
        only: o.text("--only").unwrap_or_default(),
        loads: o
            .get("--loads", parse_loads)?
            .unwrap_or_else(|| LOADS.to_vec()),
    })
}

fn main() {
    if neighbour::serve() {
        return;
    }
    let Settings {
        quick,
        time,
        rounds,
        only,
        loads,
    } = settings_or_exit(
        "throughput",
        USAGE,
        &["--time", "--rounds", "--only", "--loads"],
        &["--quick"],
        settings,
    );

    // The test threadsafe generates: exactly the scenario.
    let shape = config(time, ScheduleMode::Controlled, Strategy::Random);
    let tests = generated_tests::<Counter>(&shape, 1);

    let rows = [
        Row {
            name: "threadsafe controlled, random",
            versus: SHUTTLE_RANDOM,
            measure: Box::new(|t| {
                threadsafe_rate(&config(t, ScheduleMode::Controlled, Strategy::Random))
            }),
        },
        Row {
            name: "threadsafe controlled, PCT d=3",
            versus: SHUTTLE_PCT,
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
            versus: SHUTTLE_RANDOM,
            measure: Box::new(|t| {
                threadsafe_rate(&config(t, ScheduleMode::Stress, Strategy::Random))
            }),
        },
        Row {
            name: SHUTTLE_RANDOM,
            versus: SHUTTLE_RANDOM,
            measure: Box::new(|t| {
                iterations_rate(t, |n| shuttle::check_random(shuttle_scenario, n))
            }),
        },
        Row {
            name: SHUTTLE_PCT,
            versus: SHUTTLE_RANDOM,
            measure: Box::new(|t| {
                iterations_rate(t, |n| shuttle::check_pct(shuttle_scenario, n, 3))
            }),
        },
        Row {
            name: "std::thread::spawn + join",
            versus: SHUTTLE_RANDOM,
            measure: Box::new(std_rate),
        },
    ];
    // `--only <text>`: only the rows whose name contains it (to profile one harness).
    let rows: Vec<Row> = rows
        .into_iter()
        .filter(|r| r.name.contains(only.as_str()))
        .collect();

    let load_before = load_line();
    eprintln!(
        "throughput: {rounds} round(s) of about {:.1} s per row and load{}; {load_before}",
        time.as_secs_f64(),
        if quick { " (quick mode)" } else { "" }
    );
    // Per load, then row: the rates of the rounds.
    let mut rates: Vec<Vec<Vec<f64>>> = loads
        .iter()
        .map(|_| rows.iter().map(|_| Vec::new()).collect())
        .collect();
    // Per load: the cores other processes (beyond our busy ones) used, per measurement.
    let mut others: Vec<Vec<f64>> = loads.iter().map(|_| Vec::new()).collect();
    for round in 0..rounds {
        for (l, &(n, label)) in loads.iter().enumerate() {
            let busy = Neighbour::start(&Work::Spin, n).expect("start the busy processes");
            for (i, row) in rows.iter().enumerate() {
                let meter = CpuMeter::start();
                let busy_before = busy.ticks();
                let (rate, note) = (row.measure)(time);
                let busy_used = busy.ticks().saturating_sub(busy_before) as f64 / 100.0;
                let used = meter
                    .and_then(|m| m.others())
                    .map(|o| ((o.cpu - busy_used).max(0.0), o.wall));
                eprintln!(
                    "  round {round}, {label:<8}: {:<32} {:>12} /s  ({note}; busy processes: {:.2} cores; others: {} cores)",
                    row.name,
                    thousands(rate),
                    used.map_or(0.0, |(_, wall)| busy_used / wall),
                    cores(used.map(|(cpu, wall)| cpu / wall))
                );
                rates[l][i].push(rate);
                if let Some((cpu, wall)) = used {
                    others[l].push(cpu / wall);
                }
            }
            drop(busy);
        }
    }
    let load_after = load_line();

    println!();
    println!(
        "## throughput: executions per second, 2 threads × (lock, increment, unlock, fetch_add){}",
        if quick { ", quick mode" } else { "" }
    );
    println!();
    let mut header = "| harness |".to_string();
    let mut rule = "|---|".to_string();
    for (_, label) in &loads {
        header.push_str(&format!(" {label} | vs shuttle |"));
        rule.push_str("---|---|");
    }
    println!("{header}");
    println!("{rule}");
    for (i, row) in rows.iter().enumerate() {
        let versus = rows.iter().position(|r| r.name == row.versus);
        let mut line = format!("| {} |", row.name);
        for column in &rates {
            let r = &column[i];
            let m = median(r).expect("measured");
            let range = if r.len() > 1 {
                let lo = r.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = r.iter().copied().fold(0.0, f64::max);
                format!(" ({}–{})", thousands(lo), thousands(hi))
            } else {
                String::new()
            };
            let ratio = versus
                .and_then(|v| median(&column[v]))
                .map_or_else(|| "-".to_string(), |s| format!("{:.2}×", m / s));
            line.push_str(&format!(" {}{range} | {ratio} |", thousands(m)));
        }
        println!("{line}");
    }
    let mut line = "| *other processes' CPU, cores (median)* |".to_string();
    for o in &others {
        line.push_str(&format!(
            " {} | |",
            median(o).map_or_else(|| "?".to_string(), |c| format!("{c:.2}"))
        ));
    }
    println!("{line}");
    println!();
    println!(
        "Executions per second, median of {rounds} round(s) of about {:.1} s per row and column (range in brackets); \
         columns: no busy process of ours, then one and two processes spinning on a core each beside the measurement. \
         \"vs shuttle\": the rate over shuttle's in the same column, check_pct's for the controlled PCT row and check_random's for the others. \
         \"other processes' CPU\": the machine's busy time during a measurement less this process's and the busy processes', in cores (0.00: nothing else ran).",
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
