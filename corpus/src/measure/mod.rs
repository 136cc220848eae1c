//! What the time-to-bug harness (`cargo bench -p threadsafe-corpus --bench time_to_bug`)
//! computes and prints, apart from running the checks, kept in the library so that it is
//! unit-tested, one concept per module. The benchmarks of `threadsafe-bench` measure with
//! the same helpers (`machine`, `stats`, `units`), so that they exist once.
//!
//! - the harness's command line (`cli`); how a subject is checked and which finds are its
//!   bug (`checks`, `location`);
//! - durations and numbers as text (`units`), and the statistics of runs that may miss
//!   (`stats`: medians with misses counted at the budget, ratios, geometric means);
//! - what was measured on a subject (`results`), the main table (`table`), the guides and
//!   their table (`guides`), job counts and scheduling modes against each other and their tables (`variants`),
//!   results compared against the paper's oracle and their table (`oracles`), time to bug
//!   beside a busy neighbour process (`neighbour`) and its table (`beside`),
//!   and the JSON file (`json`, `report_json`);
//! - what the machine was doing (`machine`: CPU model, load averages, other processes' CPU),
//!   and the lines above the tables (`header`);
//! - what the shrinking benchmark (`--bench shrinking`) computes and prints (`shrinking`).
//!
//! A time that a miss enters is only a bound: a miss counts as the budget, and the bug
//! would have taken at least that long. [`Estimate`] carries the value with its [`Bound`],
//! and every rendering marks a lower bound `≥` and an upper bound `≤`.

mod beside;
mod checks;
mod cli;
#[cfg(test)]
mod fixtures;
mod guides;
mod header;
mod json;
mod location;
mod machine;
mod neighbour;
mod oracles;
mod report_json;
mod results;
mod shrinking;
mod stats;
mod table;
mod units;
mod variants;

pub use beside::{
    beside_geomean_row, beside_notes, beside_row, beside_table, beside_table_head, BesideResult,
};
pub use checks::{is_a_find, is_the_bug, panic_message, short, symptom, tool_config};
pub use cli::{parse_args, select, Command, Selection, Settings, QUICK_SUBJECTS, USAGE};
pub use guides::{
    guide_name, guides_geomean_row, guides_notes, guides_row, guides_table, guides_table_head,
    GUIDES, GUIDE_RATIOS, GUIDE_TWIN_SEEDS,
};
pub use header::{command_line, header, machine_line, utc_date, Meta};
pub use json::{escape, Json};
pub use location::{location_file, same_file};
pub use machine::{cores, cpu_model, load_averages, loads, CpuMeter, OtherCpu};
pub use neighbour::{prepare as prepare_neighbour, Neighbour, WARM_UP};
pub use oracles::{
    oracle_name, oracles_geomean_row, oracles_notes, oracles_row, oracles_table,
    oracles_table_head, OracleResult,
};
pub use report_json::{report_json, subject_json};
pub use results::{CoverageCounts, GuideResult, SubjectResult, TwinCheck};
pub use shrinking::{
    parse_shrinking_args, shrinking_header, shrinking_notes, shrinking_row, shrinking_summary,
    shrinking_summary_rows, shrinking_table, shrinking_table_head, ShrinkFind, ShrinkMeta,
    ShrinkSettings, ShrinkSubject, SHRINKING_USAGE,
};
pub use stats::{geomean, median, Bound, Estimate, Run, Stats};
pub use table::{geomean_row, table, table_head, table_notes, table_row, Columns};
pub use units::{parse_duration, secs, thousands};
pub use variants::{
    jobs_label, jobs_notes, jobs_table, schedule_label, schedules_notes, schedules_table,
    variants_geomean_row, variants_row, variants_table, variants_table_head, Compared, Variant,
};
