//! The corpus's correct twins checked with the default config, results oracle on: every
//! report is printed in full, then one line per twin with the number of seeds reported.
//!
//! The time-to-bug harness checks the subjects with `results = false` (their bugs are the
//! papers' panics and deadlocks); this shows what the results oracle says about the twins,
//! which keep the Java classes' methods that work in several lock sections. The README's
//! "Wrong results" section has the reading of each report.
//!
//! ```sh
//! cargo run --release -p threadsafe-corpus --example twins_with_results             # seeds 0..5, 0.3 s
//! cargo run --release -p threadsafe-corpus --example twins_with_results -- 20 1s V4 V10
//! ```

use std::time::Duration;

use threadsafe_rt::{Config, Verdict};

fn main() {
    let mut args = std::env::args().skip(1);
    let seeds: u64 = args
        .next()
        .map_or(5, |s| s.parse().expect("seeds: a number"));
    let budget = args.next().map_or(Duration::from_millis(300), |s| {
        threadsafe_bench::parse_duration(&s).expect("budget: e.g. 300ms or 1s")
    });
    let only: Vec<String> = args.collect();
    let mut lines = Vec::new();
    for s in threadsafe_corpus::all() {
        if !only.is_empty() && !only.iter().any(|o| o == s.name || o == s.id) {
            continue;
        }
        let mut reported = 0;
        for seed in 0..seeds {
            let mut c = Config::default();
            c.seed = seed;
            c.budget = budget;
            let report = (s.check_twin)(&c);
            match &report.verdict {
                Verdict::Violation(_) => {
                    reported += 1;
                    println!("==== {} {} seed {seed}\n{report}", s.id, s.name);
                }
                Verdict::CannotCheck(why) => panic!("{} cannot be checked: {why}", s.id),
                _ => {}
            }
        }
        lines.push(format!(
            "{:4} {:28} reported in {reported}/{seeds} seeds",
            s.id, s.name
        ));
    }
    println!("{}", lines.join("\n"));
}
