//! How often the real-crate subjects' find tests find their bug within their budget: `N`
//! checks of each subject (`R1` … `R6`) with the seed of its find test in
//! `tests/tests/finds_real_crate_bugs.rs` (free-running, the same seed does not run the same
//! executions), `Config::default()` with that seed and a budget of `B` (the tests' 10 s),
//! and the times to bug. A find counts when it is the subject's bug as the time-to-bug
//! harness counts it (a wrong result, or a panic located in the dependency's file); any other
//! violation is printed and counts as a miss.
//!
//! A find test stays in CI only if this finds its bug `N` times in `N`, on the machine as it
//! is when tests run (run it beside a busy neighbour too, e.g. `cargo bench -p
//! threadsafe-bench --bench time_to_bug -- --subjects R4 --beside cpu-bound`).
//!
//! ```sh
//! cargo run -p threadsafe-bench --example real_crate_budgets                   # debug, as tests
//! cargo run --release -p threadsafe-bench --example real_crate_budgets -- --only R2
//! cargo run -p threadsafe-bench --example real_crate_budgets -- --runs 30 --many-seeds
//! ```

use std::time::{Duration, Instant};

use threadsafe_bench::cli::settings_or_exit;
use threadsafe_bench::{is_a_find, short, tool_config};
use threadsafe_corpus::Subject;

/// Each subject's find test's seed, as `tests/tests/finds_real_crate_bugs.rs` sets it.
const SEEDS: [(&str, u64); 6] = [
    ("R1", 7),
    ("R2", 3),
    ("R3", 1),
    ("R4", 4),
    ("R5", 0),
    ("R6", 0),
];

/// What `--help` prints.
const USAGE: &str = "\
how often the real-crate subjects' find tests find their bug within their budget

usage: cargo run -p threadsafe-bench --example real_crate_budgets -- [options]

  --runs N            checks per subject (default: 100)
  --budget DURATION   budget of each check (default: 10s, the find tests')
  --only ID           only the subjects whose id starts with ID (e.g. R2)
  --many-seeds        seeds 0..N, once each, instead of the find test's seed N times
  --help              this text

DURATION: a number and a unit (ms, s, m or min), e.g. 500ms, 2s, 1.5s, 10m.";

struct Settings {
    runs: u64,
    budget: Duration,
    only: Option<String>,
    many_seeds: bool,
}

fn measure(subject: &Subject, seed: u64, s: &Settings) {
    let mut times = Vec::new();
    let start = Instant::now();
    for i in 0..s.runs {
        let config = tool_config(subject, if s.many_seeds { i } else { seed }, s.budget);
        let report = (subject.check_buggy)(&config);
        if let Some(v) = report.violation() {
            if is_a_find(subject.bug, subject.file, &v.failure, config.results) {
                times.push(v.time_to_bug);
            } else {
                eprintln!(
                    "{}: WRONG FIND (counted as a miss): {}",
                    subject.id,
                    short(&v.failure.to_string())
                );
            }
        }
    }
    times.sort();
    let at = |q: usize| times.get(q * times.len().saturating_sub(1) / 100);
    println!(
        "{} {}: found {}/{}, time to bug min {:?} median {:?} p90 {:?} max {:?} ({:.0?} in all)",
        subject.id,
        subject.original,
        times.len(),
        s.runs,
        at(0),
        at(50),
        at(90),
        at(100),
        start.elapsed()
    );
}

fn main() {
    let settings = settings_or_exit(
        "real_crate_budgets",
        USAGE,
        &["--runs", "--budget", "--only"],
        &["--many-seeds"],
        |o| {
            Ok(Settings {
                runs: o.count("--runs", 100)? as u64,
                budget: o.duration("--budget", Duration::from_secs(10))?,
                only: o.text("--only"),
                many_seeds: o.has("--many-seeds"),
            })
        },
    );
    let all = threadsafe_corpus::all();
    for (id, seed) in SEEDS {
        if settings.only.as_deref().is_some_and(|o| !id.starts_with(o)) {
            continue;
        }
        let subject = all
            .iter()
            .find(|s| s.id == id)
            .unwrap_or_else(|| panic!("{id} is in the corpus"));
        measure(subject, seed, &settings);
    }
}
