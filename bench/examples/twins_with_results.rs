//! The corpus's correct twins checked with the default config, results oracle on (or with
//! another strategy: `--strategy dfs`): every report is printed in full, then one line per
//! twin with the number of seeds reported (under DFS, with what its passes explored: tests
//! explored to the end, and those only sampled, with why).
//!
//! The time-to-bug harness checks the subjects with `results = false` (their bugs are the
//! papers' panics and deadlocks); this shows what the results oracle says about the twins,
//! which keep the Java classes' methods that work in several lock sections. The README's
//! "Wrong results" section has the reading of each report.
//!
//! ```sh
//! cargo run --release -p threadsafe-bench --example twins_with_results             # seeds 0..5, 0.3 s
//! cargo run --release -p threadsafe-bench --example twins_with_results -- --seeds 20 --budget 1s \
//!     --subjects V4,V10
//! cargo run --release -p threadsafe-bench --example twins_with_results -- --strategy dfs --budget 1s
//! ```

use std::time::Duration;

use threadsafe_bench::cli::settings_or_exit;
use threadsafe_rt::{Config, Exploration, Strategy, Verdict};

/// What `--help` prints.
const USAGE: &str = "\
the corpus's correct twins checked with the default config, results oracle on

usage: cargo run --release -p threadsafe-bench --example twins_with_results -- [options]

  --seeds N              seeds 0..N per twin (default: 5)
  --budget DURATION      budget of each check (default: 0.3s)
  --subjects ID,NAME,..  only these subjects' twins (default: all)
  --strategy WORD        the controlled strategy: random (default), pct, pct2, dfs, dfs3, ...
  --help                 this text

DURATION: a number and a unit (ms, s, m or min), e.g. 500ms, 2s, 1.5s, 10m.";

fn main() {
    let (seeds, budget, only, strategy) = settings_or_exit(
        "twins_with_results",
        USAGE,
        &["--seeds", "--budget", "--subjects", "--strategy"],
        &[],
        |o| {
            Ok((
                o.count("--seeds", 5)? as u64,
                o.duration("--budget", Duration::from_millis(300))?,
                o.text("--subjects").map_or_else(Vec::new, |v| {
                    v.split(',')
                        .map(|s| s.trim().to_string())
                        .collect::<Vec<_>>()
                }),
                match o.text("--strategy") {
                    Some(word) => word
                        .parse::<Strategy>()
                        .map_err(|e| format!("--strategy: {e}"))?,
                    None => Config::default().strategy,
                },
            ))
        },
    );
    let mut lines = Vec::new();
    for s in threadsafe_corpus::all() {
        if !only.is_empty() && !only.iter().any(|o| o == s.name || o == s.id) {
            continue;
        }
        let mut reported = 0;
        let mut explored = Exploration::default();
        for seed in 0..seeds {
            let mut c = Config::default();
            c.seed = seed;
            c.budget = budget;
            c.strategy = strategy;
            let report = (s.check_twin)(&c);
            match &report.verdict {
                Verdict::Violation(_) => {
                    reported += 1;
                    println!("==== {} {} seed {seed}\n{report}", s.id, s.name);
                }
                Verdict::CannotCheck(why) => panic!("{} cannot be checked: {why}", s.id),
                _ => explored.merge(&report.exploration),
            }
        }
        // Under DFS, what its passes explored, as a passing report says it (nothing else).
        lines.push(format!(
            "{:4} {:28} reported in {reported}/{seeds} seeds {}",
            s.id,
            s.name,
            explored.to_string().trim()
        ));
    }
    println!("{}", lines.join("\n"));
}
