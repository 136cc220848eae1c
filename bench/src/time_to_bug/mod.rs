//! The time-to-bug harness (`cargo bench -p threadsafe-bench --bench time_to_bug`): time to
//! bug on the corpus of the tool, the tool in paper mode, and a naive stress test; optionally
//! one or more experiments against the tool's runs (`experiments`: the guides, job counts,
//! scheduling modes, strategies, the oracles, a busy neighbour). One check is in `hunt`, the
//! output in `output`.
//!
//! For every selected subject and seed `0..N`, each with budget `B`:
//! 1. the tool: `threadsafe_rt::check` of the buggy type, `Config::default()` with the seed
//!    and the budget; the papers' subjects keep the paper's oracle (`results = false`:
//!    their bugs are panics and deadlocks), the others the shipped one, results compared
//!    (`tool_config`);
//! 2. paper mode: the same with `executor = Paper` and `schedule = Stress` (the paper's
//!    algorithm and parameters on free-running threads spawned per execution: no noise, no
//!    controlled schedule);
//! 3. the naive baseline: the subject's hand-written two-thread stress test.
//!
//! A find counts only if it is the subject's bug: a panic located in the subject's file, or
//! a deadlock; under results compared, a wrong result too (`is_a_find`: the twins
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
//! With `--strategies random,pct,dfs` (at least two; `pct2`, `dfs0` and the like choose the
//! parameter), the strategies of controlled executions are compared the same way: `strategy`
//! set to each in turn under the tool's `schedule = auto`, random's runs being the tool's.
//!
//! With `--oracles`, the two oracles are compared too: for each seed, the buggy type is
//! checked with results compared and with the paper's oracle (panics and deadlocks only),
//! budget `B`; the one the subject is checked with anyway (the paper's for the papers'
//! subjects, results compared for the others) is the tool's run. Under results compared a
//! wrong result counts as a find on every subject (`is_a_find`: the twins stay
//! quiet with results compared, so it is the bug, seen earlier); each find records what it
//! saw.
//!
//! With `--beside cpu-bound` or `--beside COMMAND`, each seed's buggy type is checked a
//! second time with the tool's config beside a busy neighbour (CPU-bound work on a thread
//! per core, as a crate's own tests run; or COMMAND in a loop), started before the check and
//! killed with everything it started after it ([`crate::neighbour`]); a command runs once
//! before any measurement, so that it is built. The CPU other processes took is measured during both arms.
//!
//! Output: one progress line per run on stderr; then, on stdout, the date, machine, command
//! and settings, a markdown table (a row per subject, then geometric means), and notes;
//! with `--guides`, a second table "Guides" (per guide: finds, median time to bug, the
//! ratios of the medians, the twin's median MAP-coverage; then geometric means) and its
//! notes; with `--jobs`, a table "Jobs" (per job count: finds, median time to bug, median
//! executions to bug; each count's median over the first's; then geometric means); with
//! `--schedules`, a table "Scheduling modes" (the same per mode); with `--strategies`, a
//! table "Strategies" (the same per strategy); with `--oracles`, a table "Oracles" (per
//! oracle: finds, median time to bug; their ratio; the finds by a wrong result; then
//! geometric means); with `--beside`, a table "Beside a busy neighbour" (alone and beside:
//! finds, median, others' CPU; their ratio). The same data goes to a JSON file
//! (with `--guides`, a `guides` array per subject; with `--jobs`, a `jobs` array; with
//! `--schedules`, a `schedules` array; with `--strategies`, a `strategies` array; with
//! `--oracles`, an `oracles` array; with `--beside`, a `beside` object).
//!
//! ```sh
//! cargo bench -p threadsafe-bench --bench time_to_bug                # all, N = 10, B = 10 s, T = 1 s
//! cargo bench -p threadsafe-bench --bench time_to_bug -- --quick     # CI smoke run, guides included
//! cargo bench -p threadsafe-bench --bench time_to_bug -- --subjects string_buffer,V7 \
//!     --seeds 20 --budget 30s --baselines paper --json /tmp/ttb.json
//! cargo bench -p threadsafe-bench --bench time_to_bug -- --baselines none --guides all \
//!     --seeds 10 --budget 10s --twin-budget 1s --json /tmp/guides.json    # no baselines
//! cargo bench -p threadsafe-bench --bench time_to_bug -- --subjects V4,C6,V8,V3 \
//!     --seeds 10 --budget 10s --baselines none --guides none --jobs 1,2   # one job vs two
//! cargo bench -p threadsafe-bench --bench time_to_bug -- --seeds 10 --budget 10s \
//!     --baselines none --guides none --strategies random,pct,dfs   # walk vs PCT vs DFS
//! cargo bench -p threadsafe-bench --bench time_to_bug -- --seeds 5 --budget 10s \
//!     --baselines none --guides none --oracles                         # results vs panics
//! cargo bench -p threadsafe-bench --bench time_to_bug -- --subjects V7,V4,V8,W1,C6 \
//!     --seeds 10 --baselines none --guides none --beside cpu-bound
//! cargo bench -p threadsafe-bench --bench time_to_bug -- --help
//! ```
//!
//! Exit codes: 0; 1 when a twin was reported, a check could not run or panicked, or the
//! JSON could not be written; 2 for a bad command line. Without the `--bench` argument that
//! `cargo bench` passes (as under `cargo test --benches`), it runs nothing.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Instant, SystemTime};

use threadsafe_corpus::Subject;

use crate as measure;
use crate::neighbour::{self, Work};
use crate::{Columns, CpuMeter, Meta, OtherCpu, Settings, SubjectResult};
use experiments::{experiments, Tool};
use hunt::{hunt, naive, twin, Mode, Progress};

mod experiments;
mod hunt;
mod output;

/// The harness: reads the command line, runs, prints; the exit code says how it went.
pub fn main() -> ExitCode {
    if neighbour::serve() {
        return ExitCode::SUCCESS;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (settings, subjects) = match measure::corpus_run(
        "time_to_bug",
        measure::USAGE,
        measure::parse_args(args.iter().cloned()),
        |s| s.under_bench,
        |s| &s.subjects,
    ) {
        Ok(run) => run,
        Err(code) => return code,
    };
    if subjects.is_empty() {
        eprintln!("time_to_bug: no subject to run (none is registered yet)");
        return ExitCode::FAILURE;
    }
    let compared = [
        (
            !settings.guides.is_empty(),
            threadsafe_rt::GUIDE_ENV,
            "guide",
        ),
        (
            !settings.strategies.is_empty(),
            threadsafe_rt::STRATEGY_ENV,
            "strategy",
        ),
    ];
    for (comparing, var, setting) in compared {
        if let Some(value) = std::env::var_os(var).filter(|_| comparing) {
            eprintln!(
                "time_to_bug: {var}={} is set and would override the {setting} of every check; \
                 unset it to compare them",
                value.to_string_lossy()
            );
            return ExitCode::from(2);
        }
    }
    run(&settings, &args, &subjects)
}

/// Every selected subject, seed by seed: the tool, each experiment, the baselines; then
/// the twins; then the output.
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
    let mut p = Progress {
        done: 0,
        total: 0,
        wrong_finds: Vec::new(),
        twin_reports: Vec::new(),
        errors: Vec::new(),
    };
    let sample = experiments(settings, &subjects[0]);
    let per_seed = 2
        + usize::from(paper)
        + usize::from(with_naive)
        + sample.iter().map(|e| e.per_seed()).sum::<usize>();
    let twin_checks: usize = sample.iter().map(|e| e.twin_checks()).sum();
    p.total = subjects.len() * (seeds as usize * per_seed + twin_checks);
    if let Some(command) = &settings.beside {
        eprintln!("time_to_bug: preparing the neighbour (`{command}`)");
        if let Err(e) = neighbour::prepare(&Work::parse(command)) {
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
        let mut experiments = experiments(settings, subject);
        let (mut tool, mut paper_runs, mut naive_runs) = (Vec::new(), Vec::new(), Vec::new());
        let mut alone_cpu = OtherCpu::default();
        // The modes take turns seed by seed, so that a change in the machine's load hits
        // them alike.
        for seed in 0..seeds {
            let meter = CpuMeter::start();
            tool.push(hunt(subject, Mode::Tool, seed, budget, &mut p));
            if let Some(o) = meter.and_then(|m| m.others()) {
                alone_cpu += o;
            }
            for e in &mut experiments {
                e.seed(subject, seed, budget, &mut p);
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
        for seed in 0..seeds {
            twins.push(twin(subject, Mode::Tool, seed, twin_budget, &mut p));
            for e in &mut experiments {
                e.twin(subject, seed, twin_budget, &mut p);
            }
        }
        let mut result = SubjectResult {
            id: subject.id.to_string(),
            name: subject.name.to_string(),
            original: subject.original.to_string(),
            bug: subject.bug.name().to_string(),
            file: subject.file.to_string(),
            tool: Vec::new(),
            paper: paper.then_some(paper_runs),
            naive: with_naive.then_some(naive_runs),
            twin_runs: seeds as usize,
            twin_reports: twins.iter().filter(|t| t.reported).count(),
            other_cpu,
            guides: None,
            jobs: None,
            schedules: None,
            strategies: None,
            oracles: None,
            beside: None,
        };
        let own = Tool {
            runs: &tool,
            twins: &twins,
            other_cpu: alone_cpu,
        };
        for e in experiments {
            e.finish(&own, &mut result);
        }
        result.tool = tool;
        results.push(result);
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
    output::print(&meta, &results, cols, &p);
    output::finish(&meta, &results, &json, &p, start)
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

pub(super) fn write_json(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)
}
