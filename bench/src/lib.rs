//! Every measuring program of `threadsafe`, and the library they share. The programs are
//! bench targets (`cargo bench -p threadsafe-bench --bench <name> -- [flags]`) and examples
//! (`cargo run --release -p threadsafe-bench --example <name> -- [flags]`); `bench/README.md`
//! lists them with their commands. Each takes its settings as flags (`--help` lists them;
//! `--quick` is a short smoke run), read by one parser ([`cli`]), with durations in
//! `threadsafe-knobs`' grammar, and accepts the `--bench` argument `cargo bench` passes.
//!
//! The library, bottom to top (a module imports only modules above it in this list, none
//! below, so there is no import circle):
//!
//! - leaves: numbers as text (`units`); statistics of runs that may miss (`stats`: medians
//!   with misses counted at the budget, ratios, geometric means); what the machine was doing
//!   (`machine`: CPU model, load averages, other processes' CPU); JSON (`json`); where a
//!   panic is (`location`) and which finds are a subject's bug (`checks`); the one busy
//!   neighbour ([`neighbour`]); the subjects of the throughput and gates benchmarks
//!   ([`counter`], [`gated`]);
//! - the model: what the time-to-bug harness measured on a subject and the names of the
//!   settings it compares (`model`), the settings of a run and which subjects they select
//!   (`settings`);
//! - tables and JSON built on the model: the main table (`table`), the guides (`guides`),
//!   job counts, scheduling modes and strategies (`variants`), the oracles (`oracles`),
//!   beside a busy neighbour (`beside`), the lines above the tables (`header`), the JSON
//!   file (`report_json`), the shrinking benchmark's table (`shrinking`);
//! - the command line ([`cli`]);
//! - the time-to-bug harness itself ([`time_to_bug`]), one module per compared experiment.
//!
//! A time that a miss enters is only a bound: a miss counts as the budget, and the bug
//! would have taken at least that long. [`Estimate`] carries the value with its [`Bound`],
//! and every rendering marks a lower bound `≥` and an upper bound `≤`.

pub mod counter;

pub mod gated;

mod beside;
mod checks;
pub mod cli;
#[cfg(test)]
mod fixtures;
mod guides;
mod header;
mod json;
mod location;
mod machine;
mod model;
pub mod neighbour;
mod oracles;
mod report_json;
mod settings;
mod shrinking;
mod stats;
mod table;
pub mod time_to_bug;
mod units;
mod variants;

pub use beside::{beside_geomean_row, beside_notes, beside_row, beside_table, beside_table_head};
pub use checks::{is_a_find, is_the_bug, panic_message, short, symptom, tool_config};
pub use cli::{corpus_run, parse_args, parse_shrinking_args, Options, SHRINKING_USAGE, USAGE};
pub use guides::{guides_geomean_row, guides_notes, guides_row, guides_table, guides_table_head};
pub use header::{command_line, header, machine_line, utc_date, Meta};
pub use json::{escape, Json};
pub use location::{location_file, same_file};
pub use machine::{cores, cpu_model, load_averages, load_line, loads, CpuMeter, OtherCpu};
pub use model::{
    guide_name, jobs_label, oracle_name, schedule_label, strategy_label, BesideResult,
    CoverageCounts, GuideResult, OracleResult, SubjectResult, TwinCheck, Variant, GUIDES,
    GUIDE_RATIOS, GUIDE_TWIN_SEEDS,
};
pub use oracles::{
    oracles_geomean_row, oracles_notes, oracles_row, oracles_table, oracles_table_head,
};
pub use report_json::{report_json, subject_json};
pub use settings::{select, Selection, Settings, ShrinkSettings, QUICK_SUBJECTS};
pub use shrinking::{
    shrinking_header, shrinking_notes, shrinking_row, shrinking_summary, shrinking_summary_rows,
    shrinking_table, shrinking_table_head, ShrinkFind, ShrinkMeta, ShrinkSubject,
};
pub use stats::{geomean, median, Bound, Estimate, Run, Stats};
pub use table::{geomean_row, table, table_head, table_notes, table_row, Columns};
pub use units::{secs, thousands};
pub use variants::{
    jobs_notes, jobs_table, schedules_notes, schedules_table, strategies_notes, strategies_table,
    variants_geomean_row, variants_row, variants_table, variants_table_head, Compared,
};
