//! Time to bug on the corpus: the tool, the tool in paper mode, and a naive stress test;
//! optionally the tool's three guides against each other.
//!
//! For every selected subject and seed `0..N`, each with budget `B`:
//! 1. the tool: `threadsafe_rt::check` of the buggy type, `Config::default()` with the seed
//!    and the budget; the papers' subjects keep the paper's oracle (`results = false`:
//!    their bugs are panics and deadlocks), the others the shipped one, results compared
//!    (`measure::tool_config`);
//! 2. paper mode: the same with `executor = Paper` and `schedule = Stress` (the paper's
//!    algorithm and parameters on free-running threads spawned per execution: no noise, no
//!    controlled schedule);
//! 3. the naive baseline: the subject's hand-written two-thread stress test.
//!
//! A find counts only if it is the subject's bug: a panic located in the subject's file, or
//! a deadlock; under results compared, a wrong result too (`measure::is_a_find`: the twins
//! stay quiet with results compared). Any other violation is printed as a WRONG FIND and
//! counts as a miss. Then the correct twin of every selected subject is checked with the
//! tool's config but the default oracle (results compared), seeds `0..N` and budget `T`:
//! any report on a twin is a false positive, printed in full, and the harness exits
//! non-zero after printing the table.
//!
//! With `--guides random,pairs,map` (or `all`; `--quick` implies it, `--guides none` turns
//! it off), the tool's guides are compared too: for each seed, the buggy type is checked
//! with the tool's config and `guide` set to each guide in turn (random, pairs, map; then
//! the baselines), budget `B`, a find counting as above. The random guide is the tool's
//! default, so its runs are the tool's runs: nothing runs twice. Each guide also checks the
//! twin for seeds `0..min(N, 3)` with budget `T` (the random guide's are the tool's first
//! twin checks), recording the MAP-coverage it reaches (covered over feasible patterns, the
//! paper's RQ2); a report there is a false positive as well. `THREADSAFE_GUIDE` in the
//! environment would override every guide, so the harness refuses (exit 2) to compare
//! guides while it is set.
//!
//! With `--jobs 1,2` (job counts, at least two), the tool's `jobs` (hunts at once in one
//! check) are compared too: for each seed, the buggy type is checked with the tool's config
//! and `jobs` set to each count in turn, budget `B`, a find counting as above; one job is
//! the tool's default, so its runs are the tool's runs. The twins are checked as always.
//!
//! With `--schedules auto,controlled,stress` (at least two), the scheduling modes are
//! compared the same way: `schedule` set to each in turn, auto's runs being the tool's.
//!
//! With `--oracles`, the two oracles are compared too: for each seed, the buggy type is
//! checked with results compared and with the paper's oracle (panics and deadlocks only),
//! budget `B`; the one the subject is checked with anyway (the paper's for the papers'
//! subjects, results compared for the others) is the tool's run. Under results compared a
//! wrong result counts as a find on every subject (`measure::is_a_find`: the twins stay
//! quiet with results compared, so it is the bug, seen earlier); each find records what it
//! saw.
//!
//! With `--beside COMMAND`, each seed's buggy type is checked a second time with the tool's
//! config while COMMAND runs beside it in a loop (a busy neighbour: a plain `cargo test` of
//! CPU-bound tests, say), started before the check and killed with everything it started
//! after it (`measure::Neighbour`); the command runs once before any measurement, so that
//! it is built. The CPU other processes took is measured during both arms.
//!
//! Output: one progress line per run on stderr; then, on stdout, the date, machine, command
//! and settings, a markdown table (a row per subject, then geometric means), and notes;
//! with `--guides`, a second table "Guides" (per guide: finds, median time to bug, the
//! ratios of the medians, the twin's median MAP-coverage; then geometric means) and its
//! notes; with `--jobs`, a table "Jobs" (per job count: finds, median time to bug, median
//! executions to bug; each count's median over the first's; then geometric means); with
//! `--schedules`, a table "Scheduling modes" (the same per mode); with `--oracles`, a table
//! "Oracles" (per oracle: finds, median time to bug; their ratio; the finds by a wrong
//! result; then geometric means); with `--beside`, a table "Beside a busy neighbour" (alone
//! and beside: finds, median, others' CPU; their ratio). The same data goes to a JSON file
//! (with `--guides`, a `guides` array per subject; with `--jobs`, a `jobs` array; with
//! `--schedules`, a `schedules` array; with `--oracles`, an `oracles` array; with
//! `--beside`, a `beside` object).
//!
//! ```sh
//! cargo bench -p threadsafe-corpus --bench time_to_bug                # all, N = 10, B = 10 s, T = 1 s
//! cargo bench -p threadsafe-corpus --bench time_to_bug -- --quick     # CI smoke run, guides included
//! cargo bench -p threadsafe-corpus --bench time_to_bug -- --subjects string_buffer,V7 \
//!     --seeds 20 --budget 30s --baselines paper --json /tmp/ttb.json
//! cargo bench -p threadsafe-corpus --bench time_to_bug -- --baselines none --guides all \
//!     --seeds 10 --budget 10s --twin-budget 1s --json /tmp/guides.json    # no baselines
//! cargo bench -p threadsafe-corpus --bench time_to_bug -- --subjects V4,C6,V8,V3 \
//!     --seeds 10 --budget 10s --baselines none --guides none --jobs 1,2   # one job vs two
//! cargo bench -p threadsafe-corpus --bench time_to_bug -- --seeds 5 --budget 10s \
//!     --baselines none --guides none --oracles                         # results vs panics
//! cargo bench -p threadsafe-corpus --bench time_to_bug -- --subjects V7,V4,V8,W1,C6 \
//!     --seeds 10 --baselines none --guides none --beside \
//!     'cargo test --release -p threadsafe-corpus --test cpu_bound_neighbour -- --ignored'
//! cargo bench -p threadsafe-corpus --bench time_to_bug -- --help
//! ```
//!
//! Exit codes: 0; 1 when a twin was reported, a check could not run or panicked, or the
//! JSON could not be written; 2 for a bad command line. Without the `--bench` argument that
//! `cargo bench` passes (as under `cargo test --benches`), it runs nothing.

use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime};

use threadsafe_bench::{
    self as measure, BesideResult, Columns, CoverageCounts, CpuMeter, GuideResult, Meta, OracleResult, Run,
    Settings, SubjectResult, TwinCheck, Variant,
};
use threadsafe_corpus::Subject;
use threadsafe_rt::{Config, Executor, Guide, Report, ScheduleMode, Verdict};

/// How the buggy type is checked.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The tool as it ships.
    Tool,
    /// The paper's executor on free-running threads.
    Paper,
    /// The tool with this guide.
    Guided(Guide),
    /// The tool with this many hunts at once (`Config::jobs`).
    Jobs(usize),
    /// The tool with this scheduling mode (`Config::schedule`).
    Schedule(ScheduleMode),
    /// The tool with results compared (true) or the paper's oracle (false).
    Oracle(bool),
    /// The tool, with a busy neighbour beside it (`--beside`).
    Beside,
}

impl Mode {
    fn label(self) -> String {
        match self {
            Mode::Tool => "tool".to_string(),
            Mode::Paper => "paper".to_string(),
            Mode::Guided(g) => measure::guide_name(g).to_string(),
            Mode::Jobs(n) => measure::jobs_label(n),
            Mode::Schedule(m) => measure::schedule_label(m),
            Mode::Oracle(results) => measure::oracle_name(results).to_string(),
            Mode::Beside => "beside".to_string(),
        }
    }

    fn config(self, subject: &Subject, seed: u64, budget: Duration) -> Config {
        // The papers' oracle for the papers' subjects, results compared for the others
        // (see `measure::tool_config`); the twins are all checked with results compared
        // (see `twin`).
        let mut c = measure::tool_config(subject, seed, budget);
        match self {
            Mode::Tool | Mode::Beside => {}
            Mode::Paper => {
                c.executor = Executor::Paper;
                c.schedule = ScheduleMode::Stress;
            }
            Mode::Guided(g) => c.guide = g,
            Mode::Jobs(n) => c.jobs = n,
            Mode::Schedule(m) => c.schedule = m,
            Mode::Oracle(results) => c.results = results,
        }
        c
    }
}

/// Counts the runs for the progress lines, and collects what must be reported at the end.
struct Progress {
    done: usize,
    total: usize,
    /// Wrong finds on buggy subjects, one line each.
    wrong_finds: Vec<String>,
    /// Reports on correct twins, in full.
    twin_reports: Vec<String>,
    /// Checks that could not run or panicked.
    errors: Vec<String>,
}

impl Progress {
    fn line(&mut self, subject: &Subject, what: &str, seed: u64, outcome: &str) {
        self.done += 1;
        let width = self.total.to_string().len();
        eprintln!(
            "[{:>width$}/{}] {:<4} {:<24} {what:<10} seed {seed:>2}: {outcome}",
            self.done, self.total, subject.id, subject.name,
        );
        let _ = std::io::stderr().flush();
    }
}

/// One check of the buggy type.
fn hunt(subject: &Subject, mode: Mode, seed: u64, budget: Duration, p: &mut Progress) -> Run {
    let config = mode.config(subject, seed, budget);
    let report = catch_unwind(AssertUnwindSafe(|| (subject.check_buggy)(&config)));
    let mut run = Run::missed(seed, budget);
    let outcome = match report {
        Err(payload) => {
            let why = format!("the check panicked: {}", measure::panic_message(&*payload));
            p.errors.push(format!(
                "{} {} seed {seed}: {why}",
                subject.name,
                mode.label()
            ));
            run.note = Some(why.clone());
            why
        }
        Ok(report) => match &report.verdict {
            // A find under the oracle the check used: the subject's bug, and with results
            // compared a wrong result too.
            Verdict::Violation(v)
                if measure::is_a_find(subject.bug, subject.file, &v.failure, config.results) =>
            {
                run = Run::found(
                    seed,
                    v.time_to_bug.as_secs_f64(),
                    Some(v.tests_until_found),
                    Some(v.executions_until_found),
                );
                run.symptom = Some(measure::symptom(&v.failure));
                run.controlled = Some(v.controlled);
                format!(
                    "found after {} tests, {} executions, {}, by {}: {}",
                    v.tests_until_found,
                    v.executions_until_found,
                    measure::secs(v.time_to_bug.as_secs_f64()),
                    if v.controlled {
                        "a controlled execution"
                    } else {
                        "free-running threads"
                    },
                    measure::short(&v.failure.to_string()),
                )
            }
            Verdict::Violation(v) => {
                eprintln!(
                    "WRONG FIND on {} ({}, {} seed {seed}): not in {}\n{report}",
                    subject.id,
                    subject.name,
                    mode.label(),
                    subject.file
                );
                p.wrong_finds.push(format!(
                    "{} {} ({}, seed {seed}): {}",
                    subject.id,
                    subject.name,
                    mode.label(),
                    v.failure
                ));
                run.note = Some(format!("wrong find: {}", v.failure));
                format!(
                    "WRONG FIND (counted as a miss): {}",
                    measure::short(&v.failure.to_string())
                )
            }
            Verdict::NoViolationFound => format!(
                "missed: {} tests, {} executions, {}",
                report.tests,
                report.executions,
                measure::secs(report.elapsed.as_secs_f64())
            ),
            other => {
                let why = match other {
                    Verdict::CannotCheck(why) => format!("cannot check: {why}"),
                    _ => format!("unexpected verdict: {report}"),
                };
                p.errors.push(format!(
                    "{} {} seed {seed}: {why}",
                    subject.name,
                    mode.label()
                ));
                run.note = Some(why.clone());
                why
            }
        },
    };
    p.line(subject, &mode.label(), seed, &outcome);
    run
}

/// The runs of each compared variant (`--jobs`, `--schedules`), in the order given: the
/// tool's own for the tool's setting `tool_setting`, the next of `others` (the runs of the
/// other settings, in order) for each other.
fn variants<X: Copy + PartialEq>(
    settings: &[X],
    tool_setting: X,
    label: fn(X) -> String,
    tool: &[Run],
    others: Vec<Vec<Run>>,
) -> Vec<Variant> {
    let mut others = others.into_iter();
    settings
        .iter()
        .map(|&x| Variant {
            label: label(x),
            runs: if x == tool_setting {
                tool.to_vec()
            } else {
                others.next().unwrap_or_default()
            },
        })
        .collect()
}

/// One naive stress test.
fn naive(subject: &Subject, seed: u64, budget: Duration, p: &mut Progress) -> Run {
    let (run, outcome) = match catch_unwind(AssertUnwindSafe(|| (subject.naive)(budget))) {
        Ok(Some(t)) => (
            Run::found(seed, t.as_secs_f64(), None, None),
            format!("failed after {}", measure::secs(t.as_secs_f64())),
        ),
        Ok(None) => (Run::missed(seed, budget), "missed".to_string()),
        Err(payload) => {
            let why = format!(
                "the naive test panicked: {}",
                measure::panic_message(&*payload)
            );
            p.errors
                .push(format!("{} naive run {seed}: {why}", subject.name));
            let mut run = Run::missed(seed, budget);
            run.note = Some(why.clone());
            (run, why)
        }
    };
    p.line(subject, "naive", seed, &outcome);
    run
}

/// One check of the correct twin (`mode` is the tool, or the tool with a guide): whether
/// it reported a violation, and the MAP-coverage it reached.
fn twin(subject: &Subject, mode: Mode, seed: u64, budget: Duration, p: &mut Progress) -> TwinCheck {
    let mut config = mode.config(subject, seed, budget);
    // A twin is held to the default oracle, results compared: nothing may be reported on a
    // correct type, whichever oracle finds the subject's bug.
    config.results = true;
    let what = match mode {
        Mode::Guided(g) => format!("twin {}", measure::guide_name(g)),
        _ => "twin".to_string(),
    };
    let mut check = TwinCheck {
        seed,
        reported: false,
        coverage: None,
        note: None,
    };
    let outcome = match catch_unwind(AssertUnwindSafe(|| (subject.check_twin)(&config))) {
        Err(payload) => {
            let why = format!("the check panicked: {}", measure::panic_message(&*payload));
            p.errors
                .push(format!("{} {what} seed {seed}: {why}", subject.name));
            check.note = Some(why.clone());
            why
        }
        Ok(report) => {
            match report.coverage.measured() {
                Some(c) => check.coverage = Some(CoverageCounts::of(c)),
                None => {
                    if let threadsafe_rt::Coverage::NotMeasured(why) = &report.coverage {
                        check.note = Some(format!("coverage not measured: {why}"));
                    }
                }
            }
            let (reported, outcome) = twin_outcome(subject, &what, seed, &report, p);
            check.reported = reported;
            if reported || matches!(report.verdict, Verdict::CannotCheck(_)) {
                check.note = Some(outcome.clone());
            }
            match check.coverage {
                Some(c) => format!(
                    "{outcome}; MAP-coverage {}/{}{}",
                    c.covered,
                    c.feasible,
                    c.ratio()
                        .map_or_else(String::new, |r| format!(" ({:.1}%)", r * 100.0))
                ),
                None => outcome,
            }
        }
    };
    p.line(subject, &what, seed, &outcome);
    check
}

fn twin_outcome(
    subject: &Subject,
    what: &str,
    seed: u64,
    report: &Report,
    p: &mut Progress,
) -> (bool, String) {
    match &report.verdict {
        Verdict::NoViolationFound => (
            false,
            format!(
                "nothing, as expected: {} tests, {} executions",
                report.tests, report.executions
            ),
        ),
        Verdict::Violation(v) => {
            eprintln!(
                "FALSE POSITIVE on the twin of {} ({}, {what}), seed {seed}:\n{report}",
                subject.id, subject.name
            );
            p.twin_reports.push(format!(
                "{} {} ({what}), seed {seed}:\n{report}",
                subject.id, subject.name
            ));
            (
                true,
                format!("FALSE POSITIVE: {}", measure::short(&v.failure.to_string())),
            )
        }
        Verdict::CannotCheck(why) => {
            let why = format!("cannot check: {why}");
            p.errors
                .push(format!("{} {what} seed {seed}: {why}", subject.name));
            (false, why)
        }
        _ => {
            let why = format!("unexpected verdict: {report}");
            p.errors
                .push(format!("{} {what} seed {seed}: {why}", subject.name));
            (false, why)
        }
    }
}

/// The workspace's target directory: the ancestor of this executable that holds cargo's
/// `CACHEDIR.TAG`, else `target/` beside the corpus crate.
fn target_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.ancestors()
                .find(|d| d.join("CACHEDIR.TAG").is_file())
                .map(Path::to_path_buf)
        })
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

/// Where the JSON goes: the given path, relative to the directory `cargo bench` was run in
/// (cargo runs benches in the package's directory, but keeps `PWD`); by default
/// `time_to_bug.json` in the target directory.
fn json_path(given: Option<&Path>) -> PathBuf {
    match given {
        None => target_dir().join("time_to_bug.json"),
        Some(p) if p.is_absolute() => p.to_path_buf(),
        Some(p) => std::env::var_os("PWD")
            .map(PathBuf::from)
            .filter(|d| d.is_absolute())
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default()
            .join(p),
    }
}

fn write_json(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let settings = match measure::parse_args(args.iter().cloned()) {
        Ok(measure::Command::Run(s)) => s,
        Ok(measure::Command::Help) => {
            println!("{}", measure::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("time_to_bug: {e}\n\n{}", measure::USAGE);
            return ExitCode::from(2);
        }
    };
    if !settings.under_bench {
        eprintln!(
            "time_to_bug: not run by `cargo bench` (no `--bench` argument): nothing to do; \
             run `cargo bench -p threadsafe-corpus --bench time_to_bug`"
        );
        return ExitCode::SUCCESS;
    }

    let registry = threadsafe_corpus::all();
    let keys: Vec<(&str, &str)> = registry.iter().map(|s| (s.id, s.name)).collect();
    let (picked, note) = match measure::select(&keys, &settings.subjects) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("time_to_bug: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(note) = note {
        eprintln!("time_to_bug: {note}");
    }
    let subjects: Vec<Subject> = picked.iter().map(|&i| registry[i]).collect();
    if subjects.is_empty() {
        eprintln!("time_to_bug: no subject to run (none is registered yet)");
        return ExitCode::FAILURE;
    }
    if !settings.guides.is_empty() {
        if let Some(g) = std::env::var_os(threadsafe_rt::GUIDE_ENV) {
            eprintln!(
                "time_to_bug: {}={} is set and would override the guide of every check; \
                 unset it to compare guides",
                threadsafe_rt::GUIDE_ENV,
                g.to_string_lossy()
            );
            return ExitCode::from(2);
        }
    }
    run(&settings, &args, &subjects)
}

fn run(settings: &Settings, args: &[String], subjects: &[Subject]) -> ExitCode {
    let Settings {
        seeds,
        budget,
        twin_budget,
        paper,
        naive: with_naive,
        ..
    } = *settings;
    let cols = Columns {
        paper,
        naive: with_naive,
    };
    let guides = &settings.guides;
    // The guides other than random, which the tool's own runs are.
    let extra: Vec<Guide> = guides
        .iter()
        .copied()
        .filter(|&g| g != Guide::Random)
        .collect();
    let guide_twin_seeds = if guides.is_empty() {
        0
    } else {
        settings.guide_twin_seeds()
    };
    // The job counts other than one, which the tool's own runs are.
    let extra_jobs: Vec<usize> = settings.jobs.iter().copied().filter(|&n| n != 1).collect();
    // The scheduling modes other than the tool's own (auto).
    let tool_schedule = Config::default().schedule;
    let extra_schedules: Vec<ScheduleMode> = settings
        .schedules
        .iter()
        .copied()
        .filter(|&m| m != tool_schedule)
        .collect();
    let per_seed = 2
        + usize::from(paper)
        + usize::from(with_naive)
        + extra.len()
        + extra_jobs.len()
        + extra_schedules.len()
        + usize::from(settings.oracles)
        + usize::from(settings.beside.is_some());
    let mut p = Progress {
        done: 0,
        total: subjects.len()
            * (seeds as usize * per_seed + guide_twin_seeds as usize * extra.len()),
        wrong_finds: Vec::new(),
        twin_reports: Vec::new(),
        errors: Vec::new(),
    };
    if let Some(command) = &settings.beside {
        eprintln!("time_to_bug: preparing the neighbour (running `{command}` once)");
        if let Err(e) = measure::prepare_neighbour(command) {
            eprintln!("time_to_bug: {e}");
            return ExitCode::FAILURE;
        }
    }
    let json = json_path(settings.json.as_deref());
    let load_before = measure::load_averages();
    let whole = CpuMeter::start();
    let start = Instant::now();
    eprintln!(
        "time_to_bug: {} subject(s), seeds 0..{seeds}, budget {}, twin budget {}{}",
        subjects.len(),
        measure::secs(budget.as_secs_f64()),
        measure::secs(twin_budget.as_secs_f64()),
        if settings.quick { " (quick)" } else { "" }
    );

    let mut results = Vec::new();
    for subject in subjects {
        let meter = CpuMeter::start();
        let (mut tool, mut paper_runs, mut naive_runs) = (Vec::new(), Vec::new(), Vec::new());
        let mut guided: Vec<Vec<Run>> = vec![Vec::new(); extra.len()];
        let mut jobs_runs: Vec<Vec<Run>> = vec![Vec::new(); extra_jobs.len()];
        let mut schedule_runs: Vec<Vec<Run>> = vec![Vec::new(); extra_schedules.len()];
        // With `--oracles`, the oracle the tool does not use for this subject; the tool's
        // runs are the other's.
        let tool_results = measure::tool_config(subject, 0, budget).results;
        let mut other_oracle = Vec::new();
        let (mut beside_runs, mut beside_cpu) = (Vec::new(), measure::OtherCpu::default());
        let mut alone_cpu = measure::OtherCpu::default();
        // The modes take turns seed by seed, so that a change in the machine's load hits
        // them alike.
        for seed in 0..seeds {
            let meter = CpuMeter::start();
            tool.push(hunt(subject, Mode::Tool, seed, budget, &mut p));
            if let Some(o) = meter.and_then(|m| m.others()) {
                alone_cpu += o;
            }
            for (runs, &g) in guided.iter_mut().zip(&extra) {
                runs.push(hunt(subject, Mode::Guided(g), seed, budget, &mut p));
            }
            for (runs, &n) in jobs_runs.iter_mut().zip(&extra_jobs) {
                runs.push(hunt(subject, Mode::Jobs(n), seed, budget, &mut p));
            }
            for (runs, &m) in schedule_runs.iter_mut().zip(&extra_schedules) {
                runs.push(hunt(subject, Mode::Schedule(m), seed, budget, &mut p));
            }
            if settings.oracles {
                let mode = Mode::Oracle(!tool_results);
                other_oracle.push(hunt(subject, mode, seed, budget, &mut p));
            }
            if let Some(command) = &settings.beside {
                match measure::Neighbour::start(command) {
                    Ok(neighbour) => {
                        let meter = CpuMeter::start();
                        let run = hunt(subject, Mode::Beside, seed, budget, &mut p);
                        if let Some(o) = meter.and_then(|m| m.others()) {
                            beside_cpu += o;
                        }
                        neighbour.stop();
                        beside_runs.push(run);
                    }
                    Err(e) => {
                        let why = format!("the neighbour did not start: {e}");
                        p.errors
                            .push(format!("{} beside seed {seed}: {why}", subject.name));
                        let mut run = Run::missed(seed, budget);
                        run.note = Some(why);
                        beside_runs.push(run);
                    }
                }
            }
            if paper {
                paper_runs.push(hunt(subject, Mode::Paper, seed, budget, &mut p));
            }
            if with_naive {
                naive_runs.push(naive(subject, seed, budget, &mut p));
            }
        }
        let other_cpu = meter.and_then(|m| m.others()?.cores());
        let mut twins = Vec::new();
        let mut guided_twins: Vec<Vec<TwinCheck>> = vec![Vec::new(); extra.len()];
        for seed in 0..seeds {
            twins.push(twin(subject, Mode::Tool, seed, twin_budget, &mut p));
            if seed < guide_twin_seeds {
                for (checks, &g) in guided_twins.iter_mut().zip(&extra) {
                    checks.push(twin(subject, Mode::Guided(g), seed, twin_budget, &mut p));
                }
            }
        }
        let twin_reports = twins.iter().filter(|t| t.reported).count();
        let guide_results = (!guides.is_empty()).then(|| {
            let (mut guided, mut guided_twins) = (guided.into_iter(), guided_twins.into_iter());
            guides
                .iter()
                .map(|&g| match g {
                    Guide::Random => GuideResult {
                        guide: g,
                        runs: tool.clone(),
                        twin: twins[..guide_twin_seeds as usize].to_vec(),
                    },
                    _ => GuideResult {
                        guide: g,
                        runs: guided.next().unwrap_or_default(),
                        twin: guided_twins.next().unwrap_or_default(),
                    },
                })
                .collect()
        });
        let jobs_results = (!settings.jobs.is_empty())
            .then(|| variants(&settings.jobs, 1, measure::jobs_label, &tool, jobs_runs));
        let schedules = (!settings.schedules.is_empty()).then(|| {
            let label = measure::schedule_label;
            variants(
                &settings.schedules,
                tool_schedule,
                label,
                &tool,
                schedule_runs,
            )
        });
        let oracles = settings.oracles.then(|| {
            let (with, without) = if tool_results {
                (tool.clone(), other_oracle)
            } else {
                (other_oracle, tool.clone())
            };
            vec![
                OracleResult {
                    results: true,
                    runs: with,
                },
                OracleResult {
                    results: false,
                    runs: without,
                },
            ]
        });
        let beside = settings.beside.is_some().then(|| BesideResult {
            runs: beside_runs,
            other_cpu: beside_cpu.cores(),
            alone_other_cpu: alone_cpu.cores(),
        });
        results.push(SubjectResult {
            id: subject.id.to_string(),
            name: subject.name.to_string(),
            original: subject.original.to_string(),
            bug: subject.bug.name().to_string(),
            file: subject.file.to_string(),
            tool,
            paper: paper.then_some(paper_runs),
            naive: with_naive.then_some(naive_runs),
            twin_runs: seeds as usize,
            twin_reports,
            other_cpu,
            guides: guide_results,
            jobs: jobs_results,
            schedules,
            oracles,
            beside,
        });
    }

    let meta = Meta {
        date: measure::utc_date(SystemTime::now()),
        cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu: measure::cpu_model(),
        load_before,
        load_after: measure::load_averages(),
        other_cpu: whole.and_then(|m| m.others()?.cores()),
        command: measure::command_line("time_to_bug", args),
        settings: settings.clone(),
        subjects: subjects.iter().map(|s| s.name.to_string()).collect(),
        json: Some(json.display().to_string()),
        wall: start.elapsed(),
    };
    println!();
    println!("{}", measure::header(&meta));
    print!("{}", measure::table(&results, cols));
    println!();
    println!("{}", measure::table_notes(budget));
    if !guides.is_empty() {
        println!();
        println!("### Guides");
        println!();
        print!("{}", measure::guides_table(&results, guides));
        println!();
        println!("{}", measure::guides_notes(settings));
    }
    if !settings.jobs.is_empty() {
        println!();
        println!("### Jobs");
        println!();
        print!("{}", measure::jobs_table(&results, &settings.jobs));
        println!();
        println!("{}", measure::jobs_notes(settings));
    }
    if !settings.schedules.is_empty() {
        println!();
        println!("### Scheduling modes");
        println!();
        print!(
            "{}",
            measure::schedules_table(&results, &settings.schedules)
        );
        println!();
        println!("{}", measure::schedules_notes(settings));
    }
    if settings.beside.is_some() {
        println!();
        println!("### Beside a busy neighbour");
        println!();
        print!("{}", measure::beside_table(&results));
        println!();
        println!("{}", measure::beside_notes(settings));
    }
    if settings.oracles {
        println!();
        println!("### Oracles");
        println!();
        print!("{}", measure::oracles_table(&results));
        println!();
        println!("{}", measure::oracles_notes(settings));
    }
    if !p.wrong_finds.is_empty() {
        println!();
        println!("### wrong finds (violations not in the subject's file, counted as misses)");
        println!();
        for w in &p.wrong_finds {
            println!("- {w}");
        }
    }
    if !p.twin_reports.is_empty() {
        println!();
        println!("### reports on correct twins (false positives)");
        for r in &p.twin_reports {
            println!();
            println!("```text\n{}\n```", r.trim_end());
        }
    }
    if !p.errors.is_empty() {
        println!();
        println!("### checks that did not run");
        println!();
        for e in &p.errors {
            println!("- {}", measure::short(e));
        }
    }

    let mut code = ExitCode::SUCCESS;
    match write_json(&json, &measure::report_json(&meta, &results).render()) {
        Ok(()) => eprintln!("time_to_bug: wrote {}", json.display()),
        Err(e) => {
            eprintln!("time_to_bug: cannot write {}: {e}", json.display());
            code = ExitCode::FAILURE;
        }
    }
    eprintln!(
        "time_to_bug: done in {}",
        measure::secs(start.elapsed().as_secs_f64())
    );
    if !p.twin_reports.is_empty() {
        eprintln!(
            "time_to_bug: {} report(s) on correct twins: false positives",
            p.twin_reports.len()
        );
        code = ExitCode::FAILURE;
    }
    if !p.errors.is_empty() {
        eprintln!("time_to_bug: {} check(s) did not run", p.errors.len());
        code = ExitCode::FAILURE;
    }
    code
}
