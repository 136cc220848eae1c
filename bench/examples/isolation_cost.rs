//! What the child process costs a find: each corpus subject's buggy type checked with the same
//! seeds in this process and in a child process of this program, in turns, each timed from
//! the start of the check (in the child, from the spawn) to its end, shrinking included.
//!
//! The generated test's child is the test binary run again under libtest's filter; this
//! program's child is this program run again, so it measures starting a process and the
//! runtime in it, the check, and the exit, without libtest's own start (about a millisecond).
//!
//! ```sh
//! cargo run --release -p threadsafe-bench --example isolation_cost
//! cargo run --release -p threadsafe-bench --example isolation_cost -- --seeds 3 --subjects V1,W1
//! ```

use std::process::Command;
use std::time::{Duration, Instant};

use threadsafe_bench::cli::settings_or_exit;
use threadsafe_bench::median;
use threadsafe_corpus::Subject;
use threadsafe_rt::Config;

/// What `--help` prints.
const USAGE: &str = "\
what the child process costs a find, subject by subject, the same seeds in and out of it

usage: cargo run --release -p threadsafe-bench --example isolation_cost -- [options]

  --seeds N           seeds 0..N per subject (default: 5)
  --budget DURATION   budget of each check (default: 10s)
  --subjects ID,ID    only these subjects (default: all)
  --help              this text

DURATION: a number and a unit (ms, s, m or min), e.g. 500ms, 2s, 1.5s, 10m.";

/// The variable that makes a run of this program the child: `<subject id> <seed> <budget
/// in ms>`.
const CHILD: &str = "ISOLATION_COST_CHILD";

struct Settings {
    seeds: u64,
    budget: Duration,
    subjects: Option<Vec<String>>,
}

/// The check of `subject` with `seed` and `budget`: whether it found a violation.
fn check(subject: &Subject, seed: u64, budget: Duration) -> bool {
    let mut config = Config::default();
    config.seed = seed;
    config.budget = budget;
    (subject.check_buggy)(&config).violation().is_some()
}

/// In the child: runs the check named by [`CHILD`] and says by the exit code whether it
/// found (0) or not (1).
fn child(spec: &str) -> ! {
    let mut parts = spec.split_whitespace();
    let (Some(id), Some(seed), Some(ms)) = (parts.next(), parts.next(), parts.next()) else {
        panic!("{CHILD} is `<subject id> <seed> <budget in ms>`, not `{spec}`");
    };
    let seed = seed.parse().expect("a seed");
    let budget = Duration::from_millis(ms.parse().expect("a budget in ms"));
    let subject = threadsafe_corpus::all()
        .into_iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("no subject `{id}`"));
    std::process::exit(if check(&subject, seed, budget) { 0 } else { 1 });
}

/// The check in a child process: whether it found, and the time from the spawn to the exit.
fn in_child(id: &str, seed: u64, budget: Duration) -> (bool, Duration) {
    let exe = std::env::current_exe().expect("this program's path");
    let start = Instant::now();
    let status = Command::new(exe)
        .env(CHILD, format!("{id} {seed} {}", budget.as_millis()))
        .status()
        .expect("the child starts");
    (status.success(), start.elapsed())
}

fn main() {
    if let Ok(spec) = std::env::var(CHILD) {
        child(&spec);
    }
    let s = settings_or_exit(
        "isolation_cost",
        USAGE,
        &["--seeds", "--budget", "--subjects"],
        &[],
        |o| {
            Ok(Settings {
                seeds: o.count("--seeds", 5)? as u64,
                budget: o.duration("--budget", Duration::from_secs(10))?,
                subjects: o
                    .text("--subjects")
                    .map(|t| t.split(',').map(str::to_string).collect()),
            })
        },
    );
    println!(
        "{:<5} {:>8} {:>11} {:>11} {:>7}",
        "id", "found", "in process", "in a child", "ratio"
    );
    let mut ratios = Vec::new();
    let mut differ = 0;
    for subject in threadsafe_corpus::all() {
        if s.subjects
            .as_ref()
            .is_some_and(|only| !only.iter().any(|id| id == subject.id))
        {
            continue;
        }
        let (mut inside, mut outside, mut found) = (Vec::new(), Vec::new(), (0, 0));
        for seed in 0..s.seeds {
            // In turns: this process first, then the child, seed by seed.
            let start = Instant::now();
            let here = check(&subject, seed, s.budget);
            inside.push(start.elapsed().as_secs_f64());
            let (there, took) = in_child(subject.id, seed, s.budget);
            outside.push(took.as_secs_f64());
            found.0 += usize::from(here);
            found.1 += usize::from(there);
            differ += usize::from(here != there);
        }
        let (Some(a), Some(b)) = (median(&inside), median(&outside)) else {
            continue;
        };
        ratios.push(b / a);
        println!(
            "{:<5} {:>8} {:>10.4}s {:>10.4}s {:>6.2}×",
            subject.id,
            format!("{}/{}", found.0, found.1),
            a,
            b,
            b / a
        );
    }
    let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len().max(1) as f64).exp();
    println!(
        "geometric mean of the ratios (child over this process, medians over the seeds): \
         {geo:.2}× over {} subjects; seeds where one found and the other did not: {differ}",
        ratios.len()
    );
}
