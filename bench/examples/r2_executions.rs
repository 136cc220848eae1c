//! R2 (`lasso` 0.6.0, `intern(k) ‖ lookup(k)` on a new key) without the generator: how many
//! executions the free-running executor needs, told the racing pair, to make `resolve` panic,
//! against the rounds the hand loop needs.
//!
//! Each trial runs, one after the other: the hand loop of the check's naive baseline
//! (`naive::tight_loop`, a fresh table per round, rounds counted), then the executor alone on
//! the test `new(); [intern] ‖ [lookup]` (`threadsafe_rt::bench::run_scenario`, both keys made from seed
//! 0, results observed as a check observes them) in batches of 20,000 executions until one
//! panics. Each side stops at 10 s. The table gives both sides' medians and means over the
//! trials: when the executor's executions to the panic are many times the loop's rounds, its
//! gap to the loop is in how often an execution lands in the race window, not in what one
//! costs.
//!
//! ```sh
//! cargo run --release -p threadsafe-bench --example r2_executions                  # 20 trials, stride 32
//! cargo run --release -p threadsafe-bench --example r2_executions -- --trials 30 --stride 1
//! ```

use std::time::{Duration, Instant};

use threadsafe_bench::cli::settings_or_exit;
use threadsafe_bench::median;
use threadsafe_corpus::naive;
use threadsafe_corpus::real::lasso_resolve::Names;

/// Each side's budget in one trial.
const BUDGET: Duration = Duration::from_secs(10);

/// One side of one trial: the time to the panic (`None`: not within `BUDGET`), and the
/// rounds or executions run until then.
struct Side {
    time: Option<Duration>,
    runs: usize,
}

fn hand_loop() -> Side {
    let run = naive::tight_loop(
        BUDGET,
        Names::new,
        |n| n.intern("a"),
        |n| {
            n.lookup("a");
        },
        |_| true,
    );
    Side {
        time: run.failed_at,
        runs: run.rounds as usize,
    }
}

fn executor(stride: usize) -> Side {
    let start = Instant::now();
    let mut runs = 0;
    while start.elapsed() < BUDGET {
        let run = threadsafe_rt::bench::run_scenario::<Names>(
            "new",
            &[&["intern"], &["lookup"]],
            &[],
            20_000,
            true,
            stride,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        runs += run.executions;
        if run.failed.is_some() {
            return Side {
                time: Some(start.elapsed()),
                runs,
            };
        }
    }
    Side { time: None, runs }
}

/// `| found | median time | median runs | mean runs |` of one side over the trials.
fn columns(sides: &[Side]) -> String {
    let found = sides.iter().filter(|s| s.time.is_some()).count();
    let times: Vec<f64> = sides
        .iter()
        .map(|s| s.time.unwrap_or(BUDGET).as_secs_f64())
        .collect();
    let runs: Vec<f64> = sides.iter().map(|s| s.runs as f64).collect();
    let mean = runs.iter().sum::<f64>() / runs.len().max(1) as f64;
    format!(
        "{found}/{} | {:.4} s | {:.0} | {mean:.0}",
        sides.len(),
        median(&times).unwrap_or(0.0),
        median(&runs).unwrap_or(0.0),
    )
}

/// What `--help` prints.
const USAGE: &str = "\
R2 without the generator: the executor's executions to the panic against the hand loop's rounds

usage: cargo run --release -p threadsafe-bench --example r2_executions -- [options]

  --trials N   trials, each side once per trial (default: 20)
  --stride N   the executor's executions per round (default: 32, a check's)
  --help       this text";

fn main() {
    let (trials, stride) = settings_or_exit(
        "r2_executions",
        USAGE,
        &["--trials", "--stride"],
        &[],
        |o| Ok((o.count("--trials", 20)?, o.count("--stride", 32)?)),
    );
    // Every panic here is the one looked for; their messages would drown the table.
    std::panic::set_hook(Box::new(|_| {}));
    let (mut hand, mut ours) = (Vec::new(), Vec::new());
    for t in 0..trials {
        hand.push(hand_loop());
        ours.push(executor(stride));
        let (h, o) = (&hand[t], &ours[t]);
        eprintln!(
            "trial {t}: hand loop {:?} after {} rounds; executor {:?} after {} executions",
            h.time, h.runs, o.time, o.runs
        );
    }
    println!("| side | found | median time | median rounds or executions | mean |");
    println!("|---|---|---|---|---|");
    println!("| hand loop | {} |", columns(&hand));
    println!("| executor, stride {stride} | {} |", columns(&ours));
}
