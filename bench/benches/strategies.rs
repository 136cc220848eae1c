//! Executions-to-bug and time-to-bug of each scheduling mode: free-running stress, and the
//! controlled scheduler with a random walk, PCT depth 2 and PCT depth 3.
//!
//! For each buggy type and mode, `threadsafe_rt::check` runs with seeds `0..N` and a budget
//! `B` per check; the same seeds generate the same tests in every mode (paired comparison),
//! and the modes take turns seed by seed so that a change in the machine's load hits all of
//! them alike. The correct twins are then checked in every mode with seeds `0..N` and budget
//! `T`: a report on a twin is a false positive, and the benchmark exits non-zero.
//!
//! ```sh
//! cargo bench -p threadsafe-bench --bench strategies                 # N = 20, B = 10 s, T = 1 s
//! BENCH_QUICK=1 cargo bench -p threadsafe-bench --bench strategies   # N = 3,  B = 2 s,  T = 0.5 s
//! BENCH_SEEDS=50 BENCH_BUDGET=30s BENCH_TWIN_BUDGET=2s cargo bench -p threadsafe-bench --bench strategies
//! ```

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use threadsafe_bench::concurrent_hash_map::{
    ConcurrentHashMap, FixedConcurrentHashMap, PUT_ALL_PANIC,
};
use threadsafe_bench::harness::{self, cores, median, secs, CpuMeter};
use threadsafe_bench::string_buffer::{FixedStringBuffer, StringBuffer, COPY_PANIC};
use threadsafe_rt::{check, Config, Failure, Report, ScheduleMode, Strategy, Subject, Verdict};

/// How a check schedules the threads of its executions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Stress,
    Random,
    Pct(usize),
}

const MODES: [Mode; 4] = [Mode::Stress, Mode::Random, Mode::Pct(2), Mode::Pct(3)];

impl Mode {
    fn name(self) -> String {
        match self {
            Mode::Stress => "stress".to_string(),
            Mode::Random => "controlled random".to_string(),
            Mode::Pct(d) => format!("controlled PCT d={d}"),
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
        }
        c
    }
}

/// What one check of a buggy type came to.
struct Hunt {
    /// Time to bug, or the budget for a miss.
    seconds: f64,
    missed: bool,
    executions: u64,
    tests: u64,
    /// The failure, when a violation was found.
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
            seconds: v.time_to_bug.as_secs_f64(),
            missed: false,
            executions: v.executions_until_found,
            tests: v.tests_until_found,
            failure: Some(v.failure.clone()),
        },
        Verdict::NoViolationFound => Hunt {
            seconds: budget.as_secs_f64(),
            missed: true,
            executions: report.executions,
            tests: report.tests,
            failure: None,
        },
        _ => panic!("`{label}` was not checked:\n{report}"),
    }
}

/// The median of the hunts' times, and whether it is censored (a miss at the budget is
/// among the middle values).
fn median_time(hunts: &[Hunt]) -> (f64, bool) {
    let mut v: Vec<(f64, bool)> = hunts.iter().map(|h| (h.seconds, h.missed)).collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let n = v.len();
    let middle = if n % 2 == 1 {
        &v[n / 2..=n / 2]
    } else {
        &v[n / 2 - 1..=n / 2]
    };
    let t = middle.iter().map(|m| m.0).sum::<f64>() / middle.len() as f64;
    (t, middle.iter().any(|m| m.1))
}

fn shown(t: f64, censored: bool) -> String {
    if censored {
        format!("≥{}", secs(t))
    } else {
        secs(t)
    }
}

/// The median of the found runs' counts, or `-` when none was found.
fn median_found(hunts: &[Hunt], f: impl Fn(&Hunt) -> u64) -> String {
    let v: Vec<f64> = hunts
        .iter()
        .filter(|h| !h.missed)
        .map(|h| f(h) as f64)
        .collect();
    median(&v).map_or_else(|| "-".to_string(), |m| format!("{m:.0}"))
}

/// The median time of `hunts` as a multiple of `stress`'s: a lower bound (`≥`) when this
/// median is censored, an upper bound (`≤`) when stress's is, unknown when both are.
fn ratio(hunts: &[Hunt], stress: &[Hunt]) -> String {
    if std::ptr::eq(hunts, stress) {
        return "1 (baseline)".to_string();
    }
    let (t, tc) = median_time(hunts);
    let (s, sc) = median_time(stress);
    let r = t / s;
    match (tc, sc) {
        (false, false) => format!("{r:.2}×"),
        (true, false) => format!("≥{r:.2}×"),
        (false, true) => format!("≤{r:.2}×"),
        (true, true) => "n/a (both miss)".to_string(),
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

fn main() -> ExitCode {
    let quick = harness::quick();
    let seeds = harness::env_usize("BENCH_SEEDS", if quick { 3 } else { 20 });
    let budget = harness::env_duration(
        "BENCH_BUDGET",
        Duration::from_secs(if quick { 2 } else { 10 }),
    );
    let twin_budget = harness::env_duration(
        "BENCH_TWIN_BUDGET",
        Duration::from_millis(if quick { 500 } else { 1000 }),
    );
    let bugs = [
        Bug {
            name: "StringBuffer",
            hunt: hunt::<StringBuffer>,
            expected: COPY_PANIC,
        },
        Bug {
            name: "ConcurrentHashMap",
            hunt: hunt::<ConcurrentHashMap>,
            expected: PUT_ALL_PANIC,
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
    ];

    let load_before = harness::load();
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
    // others[bug][mode] = (CPU seconds other processes used, wall seconds) over its checks.
    let mut others = vec![[(0.0f64, 0.0f64); MODES.len()]; bugs.len()];
    for (b, bug) in bugs.iter().enumerate() {
        for seed in 0..seeds as u64 {
            for (m, &mode) in MODES.iter().enumerate() {
                let meter = CpuMeter::start();
                hunts[b][m].push((bug.hunt)(bug.name, mode, seed, budget));
                if let Some((cpu, wall)) = meter.and_then(|m| m.others()) {
                    others[b][m].0 += cpu;
                    others[b][m].1 += wall;
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
    let load_after = harness::load();

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
            let found = h.iter().filter(|x| !x.missed).count();
            let (med, censored) = median_time(h);
            let min = h.iter().map(|x| x.seconds).fold(f64::INFINITY, f64::min);
            let min_missed = h.iter().all(|x| x.missed);
            let max = h.iter().map(|x| x.seconds).fold(0.0, f64::max);
            let max_missed = h.iter().any(|x| x.missed);
            println!(
                "| {} | {} | {found}/{} | {} | {} | {} | {} | {} | {} | {} |",
                bug.name,
                mode.name(),
                h.len(),
                shown(med, censored),
                shown(min, min_missed),
                shown(max, max_missed),
                median_found(h, |x| x.executions),
                median_found(h, |x| x.tests),
                ratio(h, stress),
                cores(Some(others[b][m])),
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
        "### correct twins ({seeds} seeds × 4 modes, budget {} per check)",
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
