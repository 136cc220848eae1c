//! Benchmarks of `threadsafe`, run with `cargo bench -p threadsafe-bench --bench <name>`.
//!
//! - `strategies`: how soon each way of scheduling finds a bug. For two bugs of Pradel &
//!   Gross (PLDI 2012) written with [`threadsafe_rt::sync`], the corpus's ports that the
//!   controlled end-to-end tests check ([`threadsafe_corpus::contege::sync_locks`]:
//!   `StringBuffer`'s `insert` racing `delete_char_at`/`truncate`, `ConcurrentHashMap`'s
//!   `put_all` racing `clear`), it runs [`threadsafe_rt::check`] with `N` seeds and a budget
//!   `B` per check in four modes (free-running stress; controlled with a random walk, PCT
//!   depth 2, PCT depth 3) and prints, per type and mode: bugs found out of `N`, the
//!   median/min/max time-to-bug (a miss counts as `B`), the median executions and tests to
//!   the bug (found runs only), and the median time-to-bug as a multiple of stress's in the
//!   same run. The correct twins are checked in every mode too; any report on them is a
//!   false positive and fails the benchmark.
//! - `throughput`: executions per second of one scenario, two threads each locking a mutex,
//!   incrementing, unlocking and `fetch_add`ing an atomic ([`counter::Counter::step`]), run
//!   side by side by threadsafe's controlled scheduler (random walk and PCT 3), its stress
//!   executor, shuttle's `check_random` (and `check_pct`) on a hand-written harness, and
//!   plain `std::thread::spawn` + `join`, with each rate's ratio to shuttle's.
//!
//! - `gates`: the cost of gates. The paper's `StringBuffer` and `ArrayList` tests
//!   ([`gated`]) run as plain two-thread tests and as gated tests (two gates; a
//!   `BarrierGate`), and an empty schedule measures the harness alone; time per test and
//!   the ratios, side by side (Vainer & Yehudai report x1.05 against IMUnit).
//!
//! - `results_oracle`: what the results oracle costs: executions per second of checks of
//!   three correct types with `results` on and off, controlled and free-running, side by
//!   side; and the oracle's judgement of one four-thread × three-call test alone.
//!
//! They print a markdown table and the machine's load. `BENCH_QUICK=1` runs a short smoke
//! version. See `bench/README.md` for the knobs.

pub mod counter;

pub mod gated;
pub mod hand_loop;
pub mod harness;

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
mod model;
mod neighbour;
mod oracles;
mod report_json;
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
pub use model::{CoverageCounts, GuideResult, SubjectResult, TwinCheck};
pub use neighbour::{prepare as prepare_neighbour, Neighbour, WARM_UP};
pub use oracles::{
    oracle_name, oracles_geomean_row, oracles_notes, oracles_row, oracles_table,
    oracles_table_head, OracleResult,
};
pub use report_json::{report_json, subject_json};
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
