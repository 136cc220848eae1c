//! How far shrinking takes the corpus's finds, and what it costs.
//!
//! For every selected subject and seed `0..N` (default 5), the buggy type is checked as
//! `time_to_bug` checks it (`tool_config`: `Config::default()` with the seed and
//! budget `B`, default 10 s, and the papers' oracle for the papers' subjects, results
//! compared for the others), shrinking on as it ships. For each find of the subject's bug
//! (a panic in its file, or a deadlock; under results compared, a wrong result too;
//! anything else is printed as a WRONG FIND and left out): the calls of the generated test
//! before and after shrinking, the lines of the reproducer before (`Shrunk::original`) and
//! after (`Violation::reproducer`), the shrink time, and its share of time to bug plus
//! shrink time.
//!
//! Output: one progress line per check on stderr; then, on stdout, the date, machine, command
//! and settings, a markdown table (a row per subject with its medians, then the median over
//! all finds and each column's largest value), and what the columns mean.
//!
//! ```sh
//! cargo bench -p threadsafe-bench --bench shrinking                 # all, N = 5, B = 10 s
//! cargo bench -p threadsafe-bench --bench shrinking -- --quick      # a short run
//! cargo bench -p threadsafe-bench --bench shrinking -- --subjects V7,logger --seeds 10 --budget 5s
//! ```
//!
//! Exit codes: 0; 1 when a check could not run, panicked, or found something that was not
//! the subject's bug; 2 for a bad command line. Without the `--bench` argument that
//! `cargo bench` passes (as under `cargo test --benches`), it runs nothing.

use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::ExitCode;
use std::time::{Instant, SystemTime};

use threadsafe_bench::{
    self as measure, CpuMeter, ShrinkFind, ShrinkMeta, ShrinkSettings, ShrinkSubject,
};
use threadsafe_corpus::Subject;
use threadsafe_rt::Verdict;

/// One check of `subject`'s buggy type with `seed`: the find and its shrinking, or why
/// there is none (`Err` when that is a problem to report).
fn hunt(
    subject: &Subject,
    seed: u64,
    settings: &ShrinkSettings,
) -> Result<Option<ShrinkFind>, String> {
    let config = measure::tool_config(subject, seed, settings.budget);
    let report = catch_unwind(AssertUnwindSafe(|| (subject.check_buggy)(&config)))
        .map_err(|payload| format!("the check panicked: {}", measure::panic_message(&*payload)))?;
    match &report.verdict {
        Verdict::Violation(v)
            if measure::is_a_find(subject.bug, subject.file, &v.failure, config.results) =>
        {
            ShrinkFind::of(seed, v)
                .map(Some)
                .ok_or_else(|| format!("a find without `shrunk` (is shrinking off?):\n{report}"))
        }
        Verdict::Violation(v) => {
            eprintln!(
                "WRONG FIND on {} seed {seed}: not in {}\n{report}",
                subject.id, subject.file
            );
            Err(format!(
                "wrong find: {}",
                measure::short(&v.failure.to_string())
            ))
        }
        Verdict::NoViolationFound => Ok(None),
        Verdict::CannotCheck(why) => Err(format!("cannot check: {why}")),
        _ => Err(format!("unexpected verdict: {report}")),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (settings, subjects) = match measure::corpus_run(
        "shrinking",
        measure::SHRINKING_USAGE,
        measure::parse_shrinking_args(args.iter().cloned()),
        |s| s.under_bench,
        |s| &s.subjects,
    ) {
        Ok(run) => run,
        Err(code) => return code,
    };

    let load_before = measure::load_averages();
    let whole = CpuMeter::start();
    let start = Instant::now();
    let total = subjects.len() * settings.seeds as usize;
    let mut done = 0;
    let mut errors = Vec::new();
    let mut results = Vec::new();
    for subject in &subjects {
        let mut finds = Vec::new();
        for seed in 0..settings.seeds {
            done += 1;
            let outcome = match hunt(subject, seed, &settings) {
                Ok(Some(f)) => {
                    let line = format!(
                        "found after {}, {} calls → {}, {} lines → {}, shrunk in {} ({} tried)",
                        measure::secs(f.time_to_bug),
                        f.calls_before,
                        f.calls_after,
                        f.lines_before,
                        f.lines_after,
                        measure::secs(f.shrink),
                        f.candidates
                    );
                    finds.push(f);
                    line
                }
                Ok(None) => "missed".to_string(),
                Err(why) => {
                    errors.push(format!(
                        "{} {} seed {seed}: {}",
                        subject.id,
                        subject.name,
                        measure::short(&why)
                    ));
                    why
                }
            };
            let width = total.to_string().len();
            eprintln!(
                "[{done:>width$}/{total}] {:<4} {:<24} seed {seed:>2}: {}",
                subject.id,
                subject.name,
                measure::short(&outcome)
            );
            let _ = std::io::stderr().flush();
        }
        results.push(ShrinkSubject {
            id: subject.id.to_string(),
            name: subject.name.to_string(),
            checks: settings.seeds as usize,
            finds,
        });
    }

    let meta = ShrinkMeta {
        date: measure::utc_date(SystemTime::now()),
        cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu: measure::cpu_model(),
        load_before,
        load_after: measure::load_averages(),
        other_cpu: whole.and_then(|m| m.others()?.cores()),
        command: measure::command_line("shrinking", &args),
        settings: settings.clone(),
        subjects: subjects.iter().map(|s| s.name.to_string()).collect(),
        json: None,
        wall: start.elapsed(),
    };
    println!();
    println!("{}", measure::shrinking_header(&meta));
    print!("{}", measure::shrinking_table(&results));
    println!();
    println!("{}", measure::shrinking_notes());
    if !errors.is_empty() {
        println!();
        println!("### checks left out (not counted as finds)");
        println!();
        for e in &errors {
            println!("- {e}");
        }
        eprintln!(
            "shrinking: {} check(s) did not give a find of the subject's bug",
            errors.len()
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
