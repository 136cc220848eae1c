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
//! core each for the whole measurement (this binary, run again with `--busy-spinner`; they
//! are killed after, and quit by themselves if the benchmark dies). Each measurement runs for
//! about `T` (2 s; `BENCH_QUICK=1`: 0.3 s); within a round every load level runs all rows in
//! turn, for `R` rounds (3; quick: 1). A cell shows the median rate and its ratio to the
//! shuttle rate of the same column: `check_pct`'s for the controlled PCT row (like for
//! like), `check_random`'s for every other row.
//!
//! ```sh
//! cargo bench -p threadsafe-bench --bench throughput
//! BENCH_QUICK=1 cargo bench -p threadsafe-bench --bench throughput
//! BENCH_TIME=5s BENCH_ROUNDS=5 cargo bench -p threadsafe-bench --bench throughput
//! BENCH_ONLY=controlled cargo bench -p threadsafe-bench --bench throughput   # some rows only
//! BENCH_LOADS=0,2 cargo bench -p threadsafe-bench --bench throughput        # some columns only
//! ```

use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use threadsafe_bench::counter::Counter;
use threadsafe_bench::harness;
use threadsafe_bench::{cores, median, thousands, CpuMeter};
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

/// The argument that makes this binary a busy process: it spins until killed, or until the
/// process whose id follows the argument is no longer its parent.
const BUSY_ARG: &str = "--busy-spinner";

/// The columns: how many busy processes run beside the measurement.
const LOADS: [(usize, &str); 3] = [(0, "idle"), (1, "one busy"), (2, "two busy")];

/// Spins on a core until the parent `parent` is gone (then the benchmark died without
/// killing us: quit, rather than burn a core for nobody).
fn busy_spinner(parent: u32) {
    let mut x = 0u64;
    loop {
        for _ in 0..1_000_000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        if std::os::unix::process::parent_id() != parent {
            return;
        }
    }
}

/// Busy processes running beside a measurement; killed when dropped.
struct Busy(Vec<Child>);

impl Busy {
    /// Starts `n` busy processes and waits until each is on a core.
    fn start(n: usize) -> Busy {
        let exe = std::env::current_exe().expect("the benchmark's own path");
        let children: Vec<Child> = (0..n)
            .map(|_| {
                Command::new(&exe)
                    .arg(BUSY_ARG)
                    .arg(std::process::id().to_string())
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("start a busy process")
            })
            .collect();
        let busy = Busy(children);
        // Until each has used some CPU (at most a second): then it is spinning, not starting.
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(1)
            && busy.0.iter().any(|c| pid_ticks(c.id()).unwrap_or(0) < 2)
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        busy
    }

    /// CPU ticks the busy processes used so far.
    fn ticks(&self) -> u64 {
        self.0.iter().filter_map(|c| pid_ticks(c.id())).sum()
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// User + system ticks of process `pid` (100 per second), from `/proc/<pid>/stat`.
fn pid_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
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
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == BUSY_ARG) {
        let parent = args.get(i + 1).and_then(|p| p.parse().ok()).unwrap_or(0);
        busy_spinner(parent);
        return;
    }
    let quick = harness::quick();
    let time = harness::env_duration(
        "BENCH_TIME",
        Duration::from_millis(if quick { 300 } else { 2000 }),
    );
    let rounds = harness::env_usize("BENCH_ROUNDS", if quick { 1 } else { 3 }).max(1);
    // `BENCH_LOADS=0,2`: only these columns (numbers of busy processes).
    let loads: Vec<(usize, &str)> = match std::env::var("BENCH_LOADS") {
        Ok(v) if !v.trim().is_empty() => {
            let wanted: Vec<usize> = v
                .split(',')
                .map(|x| {
                    x.trim()
                        .parse()
                        .unwrap_or_else(|_| panic!("BENCH_LOADS={v:?}: expected e.g. 0,1,2"))
                })
                .collect();
            LOADS
                .into_iter()
                .filter(|(n, _)| wanted.contains(n))
                .collect()
        }
        _ => LOADS.to_vec(),
    };

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
    // `BENCH_ONLY=<text>`: only the rows whose name contains it (to profile one harness).
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    let rows: Vec<Row> = rows
        .into_iter()
        .filter(|r| r.name.contains(only.as_str()))
        .collect();

    let load_before = harness::load();
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
            let busy = Busy::start(n);
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
    let load_after = harness::load();

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
