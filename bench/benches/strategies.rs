//! Executions-to-bug and time-to-bug of each scheduling mode: free-running stress, and the
//! controlled scheduler with a random walk, PCT depth 2, PCT depth 3 and DFS with at most 2
//! preemptions, on two races and a lock-order deadlock of Pradel & Gross.
//!
//! For each buggy type and mode, `threadsafe_rt::check` runs with seeds `0..N` and a budget
//! `B` per check; the same seeds generate the same tests in every mode (paired comparison),
//! and the modes take turns seed by seed so that a change in the machine's load hits all of
//! them alike. The correct twins are then checked in every mode with seeds `0..N` and budget
//! `T`: a report on a twin is a false positive, and the benchmark exits non-zero.
//!
//! ```sh
//! cargo bench -p threadsafe-bench --bench strategies               # N = 20, B = 10 s, T = 1 s
//! cargo bench -p threadsafe-bench --bench strategies -- --quick    # N = 3,  B = 2 s,  T = 0.5 s
//! cargo bench -p threadsafe-bench --bench strategies -- --seeds 50 --budget 30s --twin-budget 2s
//! ```

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use threadsafe_bench::cli::settings_or_exit;
use threadsafe_bench::{cores, load_line, secs, Bound, CpuMeter, OtherCpu, Run, Stats};
use threadsafe_corpus::contege::sync_locks::concurrent_hash_map::{
    ConcurrentHashMap, FixedConcurrentHashMap,
};
use threadsafe_corpus::contege::sync_locks::string_buffer::{FixedStringBuffer, StringBuffer};
use threadsafe_corpus::contege::sync_locks::synchronized_map::{
    FixedSynchronizedMap, SynchronizedMap,
};
use threadsafe_rt::{check, Config, Failure, Report, ScheduleMode, Strategy, Subject, Verdict};

/// How a check schedules the threads of its executions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Stress,
    Random,
    Pct(usize),
    Dfs(usize),
}

const MODES: [Mode; 5] = [
    Mode::Stress,
    Mode::Random,
    Mode::Pct(2),
    Mode::Pct(3),
    Mode::Dfs(2),
];

impl Mode {
    fn name(self) -> String {
        match self {
            Mode::Stress => "stress".to_string(),
            Mode::Random => "controlled random".to_string(),
            Mode::Pct(d) => format!("controlled PCT d={d}"),
            Mode::Dfs(k) => format!("controlled DFS k={k}"),
        }
    }

    fn config(self, seed: u64, budget: Duration) -> Config {
        let mut c = Config::default();
        c.seed = seed;
        c.budget = budget;
        match self {
            Mode::Stress => c.schedule = ScheduleMode::Stress,
            Mode::Random => {
                c.schedule = ScheduleMode::Controlled;
                c.strategy = Strategy::Random;
            }
            Mode::Pct(depth) => {
                c.schedule = ScheduleMode::Controlled;
                c.strategy = Strategy::Pct { depth };
            }
            Mode::Dfs(preemptions) => {
                c.schedule = ScheduleMode::Controlled;
                c.strategy = Strategy::Dfs { preemptions };
            }
        }
        c
    }
}

/// What one check of a buggy type came to: the run (time to bug, or the budget for a miss)
/// and the failure, when a violation was found.
struct Hunt {
    run: Run,
    failure: Option<Failure>,
}

/// A check of `T` with `mode`, `seed` and `budget`; a progress line on stderr.
fn run<T: Subject>(label: &str, mode: Mode, seed: u64, budget: Duration) -> Report {
    let report = check::<T>(&mode.config(seed, budget));
    let what = match &report.verdict {
        Verdict::Violation(v) => format!(
            "found after {} tests, {} executions, {}",
            v.tests_until_found,
            v.executions_until_found,
            secs(v.time_to_bug.as_secs_f64())
        ),
        Verdict::NoViolationFound => format!(
            "nothing in {} tests, {} executions, {}",
            report.tests,
            report.executions,
            secs(report.elapsed.as_secs_f64())
        ),
        Verdict::CannotCheck(why) => format!("cannot check: {why}"),
        _ => format!("unknown verdict: {report}"),
    };
    eprintln!("  {label:<24} {:<20} seed {seed:>3}: {what}", mode.name());
    let _ = std::io::stderr().flush();
    report
}

fn hunt<T: Subject>(label: &str, mode: Mode, seed: u64, budget: Duration) -> Hunt {
    let report = run::<T>(label, mode, seed, budget);
    match &report.verdict {
        Verdict::Violation(v) => Hunt {
            run: Run::found(
                seed,
                v.time_to_bug.as_secs_f64(),
                Some(v.tests_until_found),
                Some(v.executions_until_found),
            ),
            failure: Some(v.failure.clone()),
        },
        Verdict::NoViolationFound => Hunt {
            run: Run::missed(seed, budget),
            failure: None,
        },
        _ => panic!("`{label}` was not checked:\n{report}"),
    }
}

/// The statistics of the hunts' runs: misses count at the budget, and a time a miss enters
/// is marked `≥`.
fn stats(hunts: &[Hunt]) -> Stats {
    let runs: Vec<Run> = hunts.iter().map(|h| h.run.clone()).collect();
    Stats::of(&runs).expect("one hunt per seed, and at least one seed")
}

/// A median count over the found runs, or `-` when none was found.
fn count(median: Option<f64>) -> String {
    median.map_or_else(|| "-".to_string(), |m| format!("{m:.0}"))
}

/// The median time of `hunts` as a multiple of `stress`'s: a lower bound (`≥`) when this
/// median is censored, an upper bound (`≤`) when stress's is, unknown when both are.
fn ratio(hunts: &[Hunt], stress: &[Hunt]) -> String {
    if std::ptr::eq(hunts, stress) {
        return "1 (baseline)".to_string();
    }
    let r = stats(hunts).median.ratio(stats(stress).median);
    match r.bound {
        Bound::Unknown => "n/a (both miss)".to_string(),
        bound => format!("{}{:.2}×", bound.mark(), r.value),
    }
}

/// One buggy type: its name, how to hunt it in a mode with a seed, and the panic message its
/// race produces.
struct Bug {
    name: &'static str,
    hunt: fn(&str, Mode, u64, Duration) -> Hunt,
    expected: &'static str,
}

/// One correct twin: its name, and how to check it.
struct Twin {
    name: &'static str,
    run: fn(&str, Mode, u64, Duration) -> Report,
}

/// What `--help` prints.
const USAGE: &str = "\
time to bug of each scheduling mode on three bugs of Pradel & Gross, and their twins

usage: cargo bench -p threadsafe-bench --bench strategies -- [options]

  --seeds N               seeds 0..N per type and mode (default: 20; quick: 3)
  --budget DURATION       budget of each check of a buggy type (default: 10s; quick: 2s)
  --twin-budget DURATION  budget of each check of a twin (default: 1s; quick: 0.5s)
  --quick                 a short smoke run
  --help                  this text

DURATION: a number and a unit (ms, s, m or min), e.g. 500ms, 2s, 1.5s, 10m.";

fn main() -> ExitCode {
    let (quick, seeds, budget, twin_budget) = settings_or_exit(
        "strategies",
        USAGE,
        &["--seeds", "--budget", "--twin-budget"],
        &["--quick"],
        |o| {
            let quick = o.has("--quick");
            Ok((
                quick,
                o.count("--seeds", if quick { 3 } else { 20 })?,
                o.duration("--budget", Duration::from_secs(if quick { 2 } else { 10 }))?,
                o.duration(
                    "--twin-budget",
                    Duration::from_millis(if quick { 500 } else { 1000 }),
                )?,
            ))
        },
    );
    let bugs = [
        Bug {
            name: "StringBuffer",
            hunt: hunt::<StringBuffer>,
            // `char_at` past the end of the shrunk source.
            expected: "index out of bounds",
        },
        Bug {
            name: "ConcurrentHashMap",
            hunt: hunt::<ConcurrentHashMap>,
            expected: "a key listed by `keys` has a value",
        },
        Bug {
            name: "SynchronizedMap",
            hunt: hunt::<SynchronizedMap>,
            expected: "deadlock",
        },
    ];
    let twins = [
        Twin {
            name: "FixedStringBuffer",
            run: run::<FixedStringBuffer>,
        },
        Twin {
            name: "FixedConcurrentHashMap",
            run: run::<FixedConcurrentHashMap>,
        },
        Twin {
            name: "FixedSynchronizedMap",
            run: run::<FixedSynchronizedMap>,
        },
    ];

    let load_before = load_line();
    let start = Instant::now();
    eprintln!(
        "strategies: {seeds} seeds, budget {} per check, twins {} per check{}; {load_before}",
        secs(budget.as_secs_f64()),
        secs(twin_budget.as_secs_f64()),
        if quick { " (quick mode)" } else { "" }
    );

    // hunts[bug][mode] = one hunt per seed; the modes take turns seed by seed.
    let mut hunts: Vec<Vec<Vec<Hunt>>> = bugs
        .iter()
        .map(|_| MODES.iter().map(|_| Vec::new()).collect())
        .collect();
    // others[bug][mode] = the CPU time other processes used over its checks.
    let mut others = vec![[OtherCpu::default(); MODES.len()]; bugs.len()];
    for (b, bug) in bugs.iter().enumerate() {
        for seed in 0..seeds as u64 {
            for (m, &mode) in MODES.iter().enumerate() {
                let meter = CpuMeter::start();
                hunts[b][m].push((bug.hunt)(bug.name, mode, seed, budget));
                if let Some(used) = meter.and_then(|m| m.others()) {
                    others[b][m] += used;
                }
            }
        }
    }

    // The twins: every report is a false positive.
    let mut twin_rows = Vec::new();
    let mut twin_reports = 0;
    let mut cannot = Vec::new();
    for twin in &twins {
        for &mode in &MODES {
            let (mut reported, mut tests, mut executions) = (0, 0, 0);
            for seed in 0..seeds as u64 {
                let report = (twin.run)(twin.name, mode, seed, twin_budget);
                tests += report.tests;
                executions += report.executions;
                match &report.verdict {
                    Verdict::Violation(_) => {
                        reported += 1;
                        eprintln!("FALSE POSITIVE on {}:\n{report}", twin.name);
                    }
                    Verdict::NoViolationFound => {}
                    _ => cannot.push(format!("{}: {}", twin.name, report.to_string().trim())),
                }
            }
            twin_reports += reported;
            twin_rows.push((twin.name, mode, reported, tests, executions));
        }
    }
    let load_after = load_line();

    println!();
    println!(
        "## strategies: time-to-bug per scheduling mode ({seeds} seeds, budget {} per check{})",
        secs(budget.as_secs_f64()),
        if quick { ", quick mode" } else { "" }
    );
    println!();
    println!("| type | mode | found | median time-to-bug | min | max | median executions to bug | median tests to bug | median time vs stress | other processes' CPU (cores) |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (b, bug) in bugs.iter().enumerate() {
        let stress = &hunts[b][0];
        for (m, &mode) in MODES.iter().enumerate() {
            let h = &hunts[b][m];
            let s = stats(h);
            println!(
                "| {} | {} | {}/{} | {} | {} | {} | {} | {} | {} | {} |",
                bug.name,
                mode.name(),
                s.found,
                s.runs,
                s.median.secs(),
                s.min.secs(),
                s.max.secs(),
                count(s.median_executions),
                count(s.median_tests),
                ratio(h, stress),
                cores(others[b][m].cores()),
            );
        }
    }
    println!();
    println!(
        "Times are per check, from its start to the violation (generation, executions and the oracle included). \
         A miss counts as the budget ({}): a time marked ≥ has a miss among the values it comes from, so it is a lower bound; a ratio marked ≤ is an upper bound because stress's median is. \
         Executions and tests to bug are medians over the found runs only. \
         \"vs stress\" is the row's median time-to-bug divided by stress's median for the same type, measured in this run (<1: faster than stress). \
         \"other processes' CPU\" is the machine's busy time during the row's checks less this process's own, in cores (0.00: nothing else ran; stress needs two free cores).",
        secs(budget.as_secs_f64())
    );

    // What was found: the expected race, or something else.
    println!();
    let mut unexpected = 0;
    for (b, bug) in bugs.iter().enumerate() {
        // Failures by place (method and location), with the first message as an example.
        let mut kinds: BTreeMap<String, (usize, String)> = BTreeMap::new();
        for h in hunts[b].iter().flatten() {
            if let Some(f) = &h.failure {
                let (key, example) = match f {
                    Failure::Panic {
                        method,
                        location,
                        message,
                        ..
                    } => (
                        format!("panic in `{method}` at {location}"),
                        message.chars().take(80).collect(),
                    ),
                    other => (other.to_string(), String::new()),
                };
                if !f.to_string().contains(bug.expected) {
                    unexpected += 1;
                }
                kinds.entry(key).or_insert((0, example)).0 += 1;
            }
        }
        for (kind, (n, example)) in kinds {
            println!("- {}: {n}× {kind} (e.g. \"{example}\")", bug.name);
        }
    }
    if unexpected > 0 {
        println!("- {unexpected} violation(s) were not the expected race (see above)");
    }

    println!();
    println!(
        "### correct twins ({seeds} seeds × {} modes, budget {} per check)",
        MODES.len(),
        secs(twin_budget.as_secs_f64())
    );
    println!();
    println!("| twin | mode | reports | tests | executions |");
    println!("|---|---|---|---|---|");
    for (name, mode, reported, tests, executions) in &twin_rows {
        println!(
            "| {name} | {} | {reported}/{seeds} | {tests} | {executions} |",
            mode.name()
        );
    }
    println!();
    println!("reports on twins: {twin_reports}");
    println!();
    println!("machine: before {load_before}; after {load_after}");
    println!("wall time: {}", secs(start.elapsed().as_secs_f64()));

    if !cannot.is_empty() {
        eprintln!("some checks could not run: {cannot:?}");
        return ExitCode::FAILURE;
    }
    if twin_reports > 0 {
        eprintln!("{twin_reports} report(s) on correct twins: false positives");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
