//! The statement points `#[thread_safe]` inserts in test builds are real scheduling points:
//! under `ScheduleMode::Controlled`, a check-then-act race across two `std::sync::Mutex`
//! lock statements (no `threadsafe_rt::sync` primitive anywhere) is found for every seed, with
//! a replay token and an interleaving that names the method's lines. Without the points
//! (`statement_points = false`) a controlled run never switches threads inside a call, so the
//! same race cannot show.
//!
//! This is an integration test, compiled with `cfg(test)`: the points are present.

use std::sync::Mutex;
use std::time::Duration;

use threadsafe_rt::{check, thread_safe, Config, Report, ScheduleMode, Subject};

/// A stack whose `pop_or_zero` checks emptiness and pops in two lock sections.
#[derive(Default)]
pub struct Stack(Mutex<Vec<u32>>);

#[thread_safe(test = false)]
impl Stack {
    pub fn new() -> Self {
        Stack(Mutex::new(Vec::new()))
    }
    pub fn push(&self, v: u32) {
        self.0.lock().unwrap().push(v);
    }
    pub fn pop_or_zero(&self) -> u32 {
        if self.0.lock().unwrap().is_empty() {
            return 0;
        }
        // Another thread may pop between the two lock sections.
        self.0.lock().unwrap().pop().expect("checked non-empty")
    }
}

/// The same stack without statement points.
#[derive(Default)]
pub struct PlainStack(Mutex<Vec<u32>>);

#[thread_safe(test = false, statement_points = false)]
impl PlainStack {
    pub fn new() -> Self {
        PlainStack(Mutex::new(Vec::new()))
    }
    pub fn push(&self, v: u32) {
        self.0.lock().unwrap().push(v);
    }
    pub fn pop_or_zero(&self) -> u32 {
        if self.0.lock().unwrap().is_empty() {
            return 0;
        }
        self.0.lock().unwrap().pop().expect("checked non-empty")
    }
}

/// The line (1-based) of the first line of this file containing `needle`.
fn line_of(needle: &str) -> u32 {
    let source = include_str!("controlled_scheduler_finds_races_between_std_statements.rs");
    let index = source
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` is not in the source"));
    u32::try_from(index + 1).unwrap()
}

fn controlled(seed: u64, budget: Duration) -> Config {
    let mut config = Config::default();
    config.seed = seed;
    config.budget = budget;
    config.schedule = ScheduleMode::Controlled;
    config
}

fn summary(seed: u64, report: &Report) -> String {
    let v = report.violation();
    format!(
        "seed {seed}: found={} time_to_bug={:?} tests_until_found={:?} executions_until_found={:?} \
         controlled_tests={} uncontrolled_runs={} elapsed={:.3}s",
        v.is_some(),
        v.map(|v| v.time_to_bug),
        v.map(|v| v.tests_until_found),
        v.map(|v| v.executions_until_found),
        report.controlled_tests,
        report.uncontrolled_runs,
        report.elapsed.as_secs_f64(),
    )
}

#[test]
fn controlled_runs_switch_threads_at_statement_points() {
    // The lines of `pop_or_zero`'s statements (the first occurrences are in `Stack`).
    let method_lines = [
        line_of("if self.0.lock().unwrap().is_empty() {"),
        line_of("return 0;"),
        line_of("self.0.lock().unwrap().pop().expect(\"checked non-empty\")"),
    ];
    for seed in 0..10 {
        let report = check::<Stack>(&controlled(seed, Duration::from_secs(10)));
        eprintln!("{}", summary(seed, &report));
        if seed == 0 {
            eprintln!("{report}");
        }
        let Some(v) = report.violation() else {
            panic!("seed {seed}: the race is not found under control:\n{report}")
        };
        assert!(
            v.failure.to_string().contains("checked non-empty"),
            "seed {seed}: {report}"
        );
        assert!(report.controlled_tests > 0, "seed {seed}: {report}");
        assert!(v.replay.is_some(), "seed {seed}: no replay token\n{report}");
        let interleaving = v
            .interleaving
            .as_deref()
            .unwrap_or_else(|| panic!("seed {seed}: no interleaving\n{report}"));
        assert!(
            method_lines
                .iter()
                .any(|l| interleaving.contains(&format!("line {l}"))),
            "seed {seed}: the interleaving names none of the lines {method_lines:?} of `pop_or_zero`:\n{interleaving}"
        );
        // The points are at statement lines of the methods, nowhere else (`push`'s one
        // statement is the line after its signature).
        let push_line = line_of("self.0.lock().unwrap().push(v);");
        for (at, _) in interleaving.match_indices("line ") {
            let digits: String = interleaving[at + 5..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            let n: u32 = digits.parse().unwrap();
            assert!(
                method_lines.contains(&n) || n == push_line,
                "seed {seed}: point at line {n}, not a statement line:\n{interleaving}"
            );
        }
    }
}

#[test]
fn without_statement_points_a_controlled_run_cannot_interleave_std_code() {
    assert_eq!(
        PlainStack::describe().method_names(),
        Stack::describe().method_names()
    );
    let report = check::<PlainStack>(&controlled(0, Duration::from_millis(300)));
    eprintln!("{}", summary(0, &report));
    assert!(report.violation().is_none(), "{report}");
    assert!(report.controlled_tests > 0, "{report}");
}
