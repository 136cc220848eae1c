//! What the results oracle costs: executions per second of a check with `results = true`
//! against `results = false` (the paper's oracle: panics and deadlocks only), side by side
//! in one run; and the oracle's judgement of one 4-thread × 3-call test alone.
//!
//! Three correct types written with `threadsafe_rt::sync` (so that controlled executions
//! have scheduling points), so that no check is cut short by a find:
//!
//! - `Counter`: `inc() -> u64` (a `fetch_add`), `add(n)`, `get()`;
//! - `Registry`: a `Mutex<HashMap>`: `insert(k, v) -> Option<v>`, `get(k)`, `remove(k)`,
//!   `len()`;
//! - `Stack`: a `Mutex<Vec>`: `push(v)`, `pop() -> Option<v>`, `peek()`, `len()`.
//!
//! **Rates.** `threadsafe_rt::check` of each type with `Config::default()`, seed 0, budget
//! `T` (`--time`, 1 s; `--quick`: 0.3 s), shrinking off, and `schedule` controlled or stress
//! (free-running); rate = `report.executions / report.elapsed` (generation, executions and
//! the oracle included). Each round measures every type, schedule and setting of `results`
//! in turn, off and on back to back (which goes first alternates by round), for `R` rounds
//! (`--rounds`, 3; quick: 1), after one check of each type and schedule that is not counted (the first
//! checks of a process pay for its workers); a cell is the median rate, the ratio is on's median over off's, and the
//! last rows are the geometric means of the ratios. The issue's target is ≥ 0.8×. The
//! last column: results no linearization gave, even after the confirmation runs, that did
//! not come back when the test ran again (`report.results.not_reproduced`), median per
//! check; each cost the oracle its confirmation and the rerun.
//!
//! **Judging one test.** `threadsafe_rt::bench::judge_scenario`: `new()`, then three calls on each of
//! four threads (369,600 linearizations: the depth-first search, not the enumeration), run
//! free-running `E` times (`--executions`, 200; quick: 50) with results observed; then a fresh oracle judges
//! each distinct result, as a check does after a batch: trying first the order in which the
//! calls returned; and again with that order withheld, the depth-first search alone (each
//! order extended only while its results agree). The table shows the distinct results, how
//! many a linearization explains, the oracle's sequential runs, and the time per distinct
//! result (median over the `R` rounds).
//!
//! ```sh
//! cargo bench -p threadsafe-bench --bench results_oracle
//! cargo bench -p threadsafe-bench --bench results_oracle -- --quick
//! cargo bench -p threadsafe-bench --bench results_oracle -- --time 3s --rounds 5
//! ```

#![allow(clippy::new_without_default, clippy::len_without_is_empty)]

use std::collections::HashMap;
use std::time::Duration;

use threadsafe_bench::cli::settings_or_exit;
use threadsafe_bench::load_line;
use threadsafe_bench::{geomean, median, thousands, Estimate};
use threadsafe_rt::sync::atomic::{AtomicU64, Ordering};
use threadsafe_rt::sync::Mutex;
use threadsafe_rt::{check, thread_safe, Config, ScheduleMode, Subject, Verdict};

/// A counter over one atomic.
pub struct Counter(AtomicU64);

#[thread_safe(test = false)]
impl Counter {
    pub fn new() -> Self {
        Counter(AtomicU64::new(0))
    }
    pub fn inc(&self) -> u64 {
        self.0.fetch_add(1, Ordering::SeqCst)
    }
    pub fn add(&self, n: u8) -> u64 {
        self.0.fetch_add(u64::from(n), Ordering::SeqCst)
    }
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// A map behind one lock.
pub struct Registry(Mutex<HashMap<u8, u32>>);

#[thread_safe(test = false)]
impl Registry {
    pub fn new() -> Self {
        Registry(Mutex::new(HashMap::new()))
    }
    pub fn insert(&self, k: u8, v: u32) -> Option<u32> {
        self.0.lock().unwrap().insert(k, v)
    }
    pub fn get(&self, k: u8) -> Option<u32> {
        self.0.lock().unwrap().get(&k).copied()
    }
    pub fn remove(&self, k: u8) -> Option<u32> {
        self.0.lock().unwrap().remove(&k)
    }
    pub fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

/// A stack behind one lock.
pub struct Stack(Mutex<Vec<u32>>);

#[thread_safe(test = false)]
impl Stack {
    pub fn new() -> Self {
        Stack(Mutex::new(Vec::new()))
    }
    pub fn push(&self, v: u32) {
        self.0.lock().unwrap().push(v);
    }
    pub fn pop(&self) -> Option<u32> {
        self.0.lock().unwrap().pop()
    }
    pub fn peek(&self) -> Option<u32> {
        self.0.lock().unwrap().last().copied()
    }
    pub fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

/// One type: its name, a check of it, and its 4-thread × 3-call test judged alone.
struct Subj {
    name: &'static str,
    check: fn(&Config) -> threadsafe_rt::Report,
    /// The calls of each of the four threads of the judged test.
    calls: [&'static str; 3],
    judge: fn(usize, bool) -> threadsafe_rt::bench::JudgeRun,
}

fn judge<T: Subject>(
    calls: [&str; 3],
    executions: usize,
    hint: bool,
) -> threadsafe_rt::bench::JudgeRun {
    let threads = [&calls[..]; 4];
    threadsafe_rt::bench::judge_scenario::<T>("new", &threads, &[], executions, hint)
        .unwrap_or_else(|e| panic!("{e}"))
}

const COUNTER_CALLS: [&str; 3] = ["inc", "inc", "get"];
const REGISTRY_CALLS: [&str; 3] = ["insert", "remove", "len"];
const STACK_CALLS: [&str; 3] = ["push", "pop", "len"];

fn subjects() -> [Subj; 3] {
    [
        Subj {
            name: "Counter",
            check: check::<Counter>,
            calls: COUNTER_CALLS,
            judge: |n, hint| judge::<Counter>(COUNTER_CALLS, n, hint),
        },
        Subj {
            name: "Registry",
            check: check::<Registry>,
            calls: REGISTRY_CALLS,
            judge: |n, hint| judge::<Registry>(REGISTRY_CALLS, n, hint),
        },
        Subj {
            name: "Stack",
            check: check::<Stack>,
            calls: STACK_CALLS,
            judge: |n, hint| judge::<Stack>(STACK_CALLS, n, hint),
        },
    ]
}

/// How the judged test's oracle starts: as a check's, with the order the calls returned in;
/// or the search alone.
const HOW: [(bool, &str); 2] = [
    (true, "returned order first (a check's)"),
    (false, "search alone"),
];

const SCHEDULES: [(ScheduleMode, &str); 2] = [
    (ScheduleMode::Controlled, "controlled"),
    (ScheduleMode::Stress, "free-running"),
];

/// One check: executions/s over the whole check, tests, and the results no linearization
/// gave even after the confirmation runs that did not come back when the test ran again
/// (`report.results.not_reproduced`; one that came back would be a report).
fn rate(s: &Subj, schedule: ScheduleMode, results: bool, time: Duration) -> [f64; 3] {
    let mut c = Config::default();
    c.budget = time;
    c.schedule = schedule;
    c.results = results;
    c.shrink = false;
    let report = (s.check)(&c);
    assert!(
        matches!(report.verdict, Verdict::NoViolationFound),
        "{} is correct:\n{report}",
        s.name
    );
    [
        report.executions as f64 / report.elapsed.as_secs_f64(),
        report.tests as f64,
        report.results.not_reproduced as f64,
    ]
}

/// What `--help` prints.
const USAGE: &str = "\
what the results oracle costs: checks with results on and off, and the oracle alone

usage: cargo bench -p threadsafe-bench --bench results_oracle -- [options]

  --time DURATION   budget of each check (default: 1s; quick: 0.3s)
  --rounds N        rounds taking turns (default: 3; quick: 1)
  --executions N    executions of the test the oracle judges alone (default: 200; quick: 50)
  --quick           a short smoke run
  --help            this text

DURATION: a number and a unit (ms, s, m or min), e.g. 500ms, 2s, 1.5s, 10m.";

fn main() {
    let (time, rounds, executions) = settings_or_exit(
        "results_oracle",
        USAGE,
        &["--time", "--rounds", "--executions"],
        &["--quick"],
        |o| {
            let quick = o.has("--quick");
            Ok((
                o.duration(
                    "--time",
                    Duration::from_millis(if quick { 300 } else { 1000 }),
                )?,
                o.count("--rounds", if quick { 1 } else { 3 })?,
                o.count("--executions", if quick { 50 } else { 200 })?,
            ))
        },
    );
    println!(
        "<!-- cargo bench -p threadsafe-bench --bench results_oracle; {}; {rounds} round(s) of {:.2} s per check -->",
        load_line(),
        time.as_secs_f64()
    );
    println!();
    println!("| type | schedule | results off executions/s | results on executions/s | on / off | tests off | tests on | not reproduced, on |");
    println!("|---|---|---|---|---|---|---|---|");
    let subjects = subjects();
    // The first check of a process pays for its workers and first allocations: one check of
    // each type and schedule first, not counted.
    for s in &subjects {
        for &(schedule, _) in &SCHEDULES {
            rate(s, schedule, true, time / 3);
        }
    }
    // rates[subject][schedule][off, on], tests likewise, one value per round.
    let mut rates = vec![vec![[Vec::new(), Vec::new()]; SCHEDULES.len()]; subjects.len()];
    let (mut tests, mut unexplained) = (rates.clone(), rates.clone());
    for round in 0..rounds {
        for (i, s) in subjects.iter().enumerate() {
            for (j, &(schedule, _)) in SCHEDULES.iter().enumerate() {
                let order = if round % 2 == 0 {
                    [false, true]
                } else {
                    [true, false]
                };
                for results in order {
                    let [r, t, u] = rate(s, schedule, results, time);
                    rates[i][j][usize::from(results)].push(r);
                    tests[i][j][usize::from(results)].push(t);
                    unexplained[i][j][usize::from(results)].push(u);
                }
            }
        }
    }
    let mut ratios: Vec<Vec<Estimate>> = vec![Vec::new(); SCHEDULES.len()];
    for (i, s) in subjects.iter().enumerate() {
        for (j, &(_, schedule)) in SCHEDULES.iter().enumerate() {
            let m = |v: &Vec<f64>| median(v).unwrap_or(0.0);
            let (off, on) = (m(&rates[i][j][0]), m(&rates[i][j][1]));
            let ratio = Estimate::exact(on / off);
            ratios[j].push(ratio);
            println!(
                "| {} | {schedule} | {} | {} | {} | {} | {} | {} |",
                s.name,
                thousands(off),
                thousands(on),
                ratio.times(),
                thousands(m(&tests[i][j][0])),
                thousands(m(&tests[i][j][1])),
                thousands(m(&unexplained[i][j][1])),
            );
        }
    }
    let times = |v: &[Estimate]| geomean(v).map_or_else(|| "-".to_string(), Estimate::times);
    for (j, &(_, schedule)) in SCHEDULES.iter().enumerate() {
        println!(
            "| **geometric mean** | {schedule} | | | {} | | | |",
            times(&ratios[j])
        );
    }
    let all: Vec<Estimate> = ratios.concat();
    println!("| **geometric mean** | both | | | {} | | | |", times(&all));
    println!();

    println!(
        "| type | each of 4 threads | oracle | linearizations | executions | distinct results | explained | not decided | oracle runs | time per distinct result |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (s, (hint, how)) in subjects
        .iter()
        .flat_map(|s| HOW.iter().map(move |&h| (s, h)))
    {
        let runs: Vec<_> = (0..rounds).map(|_| (s.judge)(executions, hint)).collect();
        let per: Vec<f64> = runs
            .iter()
            .map(|r| r.elapsed.as_secs_f64() / r.distinct.max(1) as f64)
            .collect();
        let m = |f: fn(&threadsafe_rt::bench::JudgeRun) -> f64| {
            median(&runs.iter().map(f).collect::<Vec<_>>()).unwrap_or(0.0)
        };
        println!(
            "| {} | `{}` | {how} | {} | {} | {} | {} | {} | {} | {:.1} µs |",
            s.name,
            s.calls.join("; "),
            thousands(runs[0].linearizations as f64),
            thousands(m(|r| r.executions as f64)),
            thousands(m(|r| r.distinct as f64)),
            thousands(m(|r| r.explained as f64)),
            thousands(m(|r| r.unknown as f64)),
            thousands(m(|r| r.runs as f64)),
            median(&per).unwrap_or(0.0) * 1e6,
        );
    }
    println!();
    println!("{}", load_line());
}
