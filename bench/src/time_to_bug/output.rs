//! What the harness prints after the runs: the header, the main table, a table per
//! experiment, the problems collected; and the JSON file and the exit code.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use super::hunt::Progress;
use super::write_json;
use crate as measure;
use crate::{Columns, Meta, SubjectResult};

/// Prints the tables and notes on stdout.
pub(super) fn print(meta: &Meta, results: &[SubjectResult], cols: Columns, p: &Progress) {
    println!();
    println!("{}", measure::header(meta));
    print!("{}", measure::table(results, cols));
    println!();
    println!("{}", measure::table_notes(meta.settings.budget));
    if !meta.settings.guides.is_empty() {
        println!();
        println!("### Guides");
        println!();
        print!("{}", measure::guides_table(results, &meta.settings.guides));
        println!();
        println!("{}", measure::guides_notes(&meta.settings));
    }
    if !meta.settings.jobs.is_empty() {
        println!();
        println!("### Jobs");
        println!();
        print!("{}", measure::jobs_table(results, &meta.settings.jobs));
        println!();
        println!("{}", measure::jobs_notes(&meta.settings));
    }
    if !meta.settings.schedules.is_empty() {
        println!();
        println!("### Scheduling modes");
        println!();
        print!(
            "{}",
            measure::schedules_table(results, &meta.settings.schedules)
        );
        println!();
        println!("{}", measure::schedules_notes(&meta.settings));
    }
    if !meta.settings.strategies.is_empty() {
        println!();
        println!("### Strategies");
        println!();
        print!(
            "{}",
            measure::strategies_table(results, &meta.settings.strategies)
        );
        println!();
        println!("{}", measure::strategies_notes(&meta.settings));
    }
    if meta.settings.beside.is_some() {
        println!();
        println!("### Beside a busy neighbour");
        println!();
        print!("{}", measure::beside_table(results));
        println!();
        println!("{}", measure::beside_notes(&meta.settings));
    }
    if meta.settings.oracles {
        println!();
        println!("### Oracles");
        println!();
        print!("{}", measure::oracles_table(results));
        println!();
        println!("{}", measure::oracles_notes(&meta.settings));
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
}

/// Writes the JSON, says on stderr how the run went, and returns the exit code: a failure
/// when a twin was reported, a check did not run or the JSON could not be written.
pub(super) fn finish(
    meta: &Meta,
    results: &[SubjectResult],
    json: &Path,
    p: &Progress,
    start: Instant,
) -> ExitCode {
    let mut code = ExitCode::SUCCESS;
    match write_json(json, &measure::report_json(meta, results).render()) {
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
