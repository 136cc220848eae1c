//! The free-running executor against the hand-written stress loop of the same calls,
//! measured side by side in one run.
//!
//! Each subject has a racing pair and a state-reading call after it (all correct types: no
//! round fails, so both sides run for the whole time):
//!
//! - `Hits`: `hit() ‖ hit()`, then `get()` (an atomic counter);
//! - `Names`: `intern(k) ‖ intern(k)`, then `len()` (a `Mutex<HashMap>` interner);
//! - `DashNames`: the same over `dashmap` 5.5.3 (a thin type over a dependency).
//!
//! - hand loop: [`threadsafe_corpus::naive::tight_loop`], the real-crate subjects' naive
//!   test: two persistent threads (a caller and a helper released by a spin flag), the pair
//!   on a fresh instance per round, the read after; rate = rounds/s.
//! - threadsafe: `threadsafe_rt::bench::run_scenario`, the free-running batch executor on the test
//!   `new(); [a] ‖ [b]; read()` (generation, oracle and coverage left out); rate =
//!   executions/s, in three arms: one execution per round (the executor before strides),
//!   a check's stride with return values not observed, and as a check runs it (stride and
//!   results observed).
//!
//! The table shows the median rate of `R` turns (`--rounds`, 3; quick: 1) of about `T` each
//! (`--time`, 1 s; quick: 0.2 s) and the cost of one execution as a multiple of one hand-loop round.
//!
//! ```sh
//! cargo bench -p threadsafe-bench --bench free_running
//! cargo bench -p threadsafe-bench --bench free_running -- --quick
//! cargo bench -p threadsafe-bench --bench free_running -- --time 3s --rounds 5
//! ```

#![allow(clippy::new_without_default, clippy::len_without_is_empty)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use dashmap::DashMap;
use threadsafe_bench::cli::settings_or_exit;
use threadsafe_bench::load_line;
use threadsafe_bench::{median, thousands};
use threadsafe_corpus::naive::{tight_loop, LoopRun};
use threadsafe_rt::bench::MAX_STRIDE;
use threadsafe_rt::{thread_safe, Subject};

/// An atomic hit counter.
pub struct Hits(AtomicU64);

#[thread_safe(test = false)]
impl Hits {
    pub fn new() -> Self {
        Hits(AtomicU64::new(0))
    }
    pub fn hit(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// An interner over a locked map.
pub struct Names(Mutex<HashMap<String, u32>>);

#[thread_safe(test = false)]
impl Names {
    pub fn new() -> Self {
        Names(Mutex::new(HashMap::new()))
    }
    pub fn intern(&self, name: &str) -> u32 {
        let mut m = self.0.lock().unwrap();
        let next = m.len() as u32;
        *m.entry(name.to_string()).or_insert(next)
    }
    pub fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

/// An interner over a concurrent map from a dependency.
pub struct DashNames(DashMap<String, u32>);

#[thread_safe(test = false)]
impl DashNames {
    pub fn new() -> Self {
        DashNames(DashMap::new())
    }
    pub fn intern(&self, name: &str) -> u32 {
        let next = self.0.len() as u32;
        *self.0.entry(name.to_string()).or_insert(next)
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

/// One subject: its name, the pair and read for the tool, and the hand loop of them.
struct Subj {
    name: &'static str,
    pair: &'static str,
    tool: fn(usize, Arm) -> threadsafe_rt::bench::ScenarioRun,
    hand: fn(Duration) -> LoopRun,
}

/// How the tool's executor runs: executions per round, and whether results are observed.
#[derive(Clone, Copy)]
struct Arm {
    stride: usize,
    observe: bool,
}

/// The columns of the tool: one execution per round as before strides, then a check's
/// stride with results off and on (the last is what a check runs).
const ARMS: [(&str, Arm); 3] = [
    (
        "stride 1",
        Arm {
            stride: 1,
            observe: true,
        },
    ),
    (
        "stride 32, results off",
        Arm {
            stride: MAX_STRIDE,
            observe: false,
        },
    ),
    (
        "stride 32 (a check's)",
        Arm {
            stride: MAX_STRIDE,
            observe: true,
        },
    ),
];

/// The tool's run of `new(); [m] ‖ [m]; read()` on `T`, `executions` times.
fn tool<T: Subject>(
    m: &str,
    read: &str,
    executions: usize,
    arm: Arm,
) -> threadsafe_rt::bench::ScenarioRun {
    let run = threadsafe_rt::bench::run_scenario::<T>(
        "new",
        &[&[m], &[m]],
        &[read],
        executions,
        arm.observe,
        arm.stride,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(run.failed.is_none(), "a correct subject failed: {run:?}");
    run
}

/// The key both threads intern (the tool's arguments come from seed 0; the loop's is fixed).
const KEY: &str = "k";

fn subjects() -> Vec<Subj> {
    vec![
        Subj {
            name: "Hits",
            pair: "hit() ‖ hit(); get()",
            tool: |n, arm| tool::<Hits>("hit", "get", n, arm),
            hand: |t| tight_loop(t, Hits::new, |h| h.hit(), |h| h.hit(), |h| h.get() == 2),
        },
        Subj {
            name: "Names",
            pair: "intern(k) ‖ intern(k); len()",
            tool: |n, arm| tool::<Names>("intern", "len", n, arm),
            hand: |t| {
                tight_loop(
                    t,
                    Names::new,
                    |s| {
                        s.intern(KEY);
                    },
                    |s| {
                        s.intern(KEY);
                    },
                    |s| s.len() == 1,
                )
            },
        },
        Subj {
            name: "DashNames (dashmap 5.5.3)",
            pair: "intern(k) ‖ intern(k); len()",
            tool: |n, arm| tool::<DashNames>("intern", "len", n, arm),
            hand: |t| {
                tight_loop(
                    t,
                    DashNames::new,
                    |s| {
                        s.intern(KEY);
                    },
                    |s| {
                        s.intern(KEY);
                    },
                    |s| s.len() == 1,
                )
            },
        },
    ]
}

/// The tool's rate over about `time`: a short run sizes the batch.
fn tool_rate(s: &Subj, arm: Arm, time: Duration) -> f64 {
    let probe = (s.tool)(500, arm);
    let rate = probe.executions as f64 / probe.elapsed.as_secs_f64();
    let n = ((rate * time.as_secs_f64()) as usize).max(500);
    let run = (s.tool)(n, arm);
    run.executions as f64 / run.elapsed.as_secs_f64()
}

/// What `--help` prints.
const USAGE: &str = "\
the free-running executor against the hand-written stress loop of the same calls

usage: cargo bench -p threadsafe-bench --bench free_running -- [options]

  --time DURATION   each turn's time per side (default: 1s; quick: 0.2s)
  --rounds N        turns (default: 3; quick: 1)
  --quick           a short smoke run
  --help            this text

DURATION: a number and a unit (ms, s, m or min), e.g. 500ms, 2s, 1.5s, 10m.";

fn main() {
    let (time, rounds) = settings_or_exit(
        "free_running",
        USAGE,
        &["--time", "--rounds"],
        &["--quick"],
        |o| {
            let quick = o.has("--quick");
            Ok((
                o.duration(
                    "--time",
                    Duration::from_millis(if quick { 200 } else { 1000 }),
                )?,
                o.count("--rounds", if quick { 1 } else { 3 })?,
            ))
        },
    );
    println!(
        "<!-- cargo bench -p threadsafe-bench --bench free_running; {} -->",
        load_line()
    );
    println!();
    let names: Vec<&str> = ARMS.iter().map(|(name, _)| *name).collect();
    println!(
        "| subject | pair | hand loop rounds/s | {} executions/s | cost of one execution (× a round), {} |",
        names.join(" executions/s | "),
        names.join(", ")
    );
    println!("|---|---|---|{}", "---|".repeat(2 * ARMS.len()));
    for s in subjects() {
        let mut hand = Vec::new();
        let mut ours: Vec<Vec<f64>> = ARMS.iter().map(|_| Vec::new()).collect();
        // Side by side: each turn measures the loop and every arm.
        for _ in 0..rounds {
            let run = (s.hand)(time);
            assert!(
                run.failed_at.is_none(),
                "{}: the hand loop failed on a correct type",
                s.name
            );
            hand.push(run.rate());
            for (rates, (_, arm)) in ours.iter_mut().zip(ARMS) {
                rates.push(tool_rate(&s, arm, time));
            }
        }
        let h = median(&hand).unwrap_or(0.0);
        let o: Vec<f64> = ours.iter().map(|r| median(r).unwrap_or(0.0)).collect();
        println!(
            "| {} | `{}` | {} | {} | {} |",
            s.name,
            s.pair,
            thousands(h),
            o.iter()
                .map(|&o| thousands(o))
                .collect::<Vec<_>>()
                .join(" | "),
            o.iter()
                .map(|&o| format!("{:.2}", h / o))
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    println!();
    println!("{}", load_line());
}
