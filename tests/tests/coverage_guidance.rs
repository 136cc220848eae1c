//! MAP-coverage and the guides, end to end.
//!
//! - `guide = map` and `guide = pairs` find the paper's StringBuffer and ConcurrentHashMap
//!   bugs (the `threadsafe_rt::sync` ports, controlled) in every seed of `SEEDS`: the same
//!   panic at the same line as the random guide, with a reproducer; every report carries the
//!   coverage its executions reached, over a universe from the sequential runs, with the
//!   variables named after the fields that hold them. A `pairs` find replays exactly from
//!   its token (which names the guide); a `map` find has no token (its tests depend on the
//!   coverage of all executions before them), as documented.
//! - The correct twins report nothing under either guide, on the same settings.
//! - With `stop_when_covered`, a check of a small correct type ends before its budget, at
//!   full coverage, and says so.
//! - A type on `std::sync` (no `threadsafe_rt::sync` at all) is measured through its
//!   statement points: its variables are its fields.
//!
//! Everything here runs under the controlled scheduler: the generated tests and the
//! schedules are functions of the seed, so which seeds find the bug does not depend on
//! timing (the budgets only guard against a hang).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use threadsafe_corpus::contege::sync_locks::concurrent_hash_map::{
    self, ConcurrentHashMap, FixedConcurrentHashMap,
};
use threadsafe_corpus::contege::sync_locks::string_buffer::{
    self, FixedStringBuffer, StringBuffer,
};
use threadsafe_rt::{
    check, thread_safe, Config, Ended, Guide, MapCoverage, Report, ScheduleMode, Strategy, Subject,
    UniverseSource,
};
use threadsafe_tests::harness;
use threadsafe_tests::{expect, line_of};

/// Every seed of these finds the bug under both guides.
const SEEDS: std::ops::Range<u64> = 0..10;

/// Both guides find both bugs in every seed of [`SEEDS`], the same seeds in every run
/// (controlled; see decision 0081). The budget only guards against a hang.
const BUDGET: Duration = Duration::from_secs(60);

/// The ports use `threadsafe_rt::sync` without statement points (they are checked from
/// outside their crate's tests): their mutexes are named by where they were created, in the
/// source the corpus writes once for both lock modules.
const PRIMITIVE: &str = "the primitive created at corpus/src/contege/both_locks/";

fn config(seed: u64, guide: Guide) -> Config {
    let mut c = harness::race_hunt(seed, Strategy::Random, BUDGET);
    c.guide = guide;
    c
}

/// The coverage of a report whose executions ran under control.
fn measured(report: &Report) -> &MapCoverage {
    report
        .coverage
        .measured()
        .unwrap_or_else(|| panic!("no MAP-coverage measured:\n{report}"))
}

/// A sound coverage figure over a universe from the sequential runs, with a variable whose
/// name starts with `var`.
fn sound(report: &Report, var: &str) {
    let c = measured(report);
    assert!(c.feasible > 0 && c.covered > 0, "{report}");
    assert!(c.covered <= c.feasible, "{report}");
    assert_eq!(
        c.per_pattern.iter().map(|p| p.covered).sum::<u64>(),
        c.covered,
        "{report}"
    );
    assert!(
        matches!(c.universe, UniverseSource::SequentialRuns { methods_run, methods, .. } if methods_run == methods),
        "every method should have run sequentially:\n{report}"
    );
    assert!(
        c.variables.iter().any(|v| v.starts_with(var)),
        "no variable named {var}...:\n{report}"
    );
    assert!(c.distinct_executions <= c.executions, "{report}");
    let text = report.to_string();
    assert!(text.contains("MAP-coverage: "), "{text}");
    assert!(text.contains("method pairs run concurrently: "), "{text}");
}

fn finds_in_every_seed<T: Subject>(guide: Guide, method: &str, file: &str, line: u32, msg: &str) {
    for seed in SEEDS {
        let config = config(seed, guide);
        let report = check::<T>(&config);
        if seed == SEEDS.start {
            println!("{report}");
        }
        expect::panic_at(&report, method, file, line, msg);
        expect::reproducer(&report, &[]);
        assert_eq!(report.ended, Ended::Violation, "{report}");
        sound(&report, PRIMITIVE);
        let v = expect::violation(&report);
        match guide {
            Guide::Map => assert!(v.replay.is_none(), "{report}"),
            _ => {
                let token = v.replay.as_deref().expect("a pairs find has a token");
                assert!(token.ends_with(".random.pairs"), "{token}");
                if seed == SEEDS.start {
                    harness::replays_exactly::<T>(&config, &report);
                }
            }
        }
    }
}

fn string_buffer_line() -> u32 {
    line_of(string_buffer::SOURCE, "self.chars.lock().unwrap()[index]")
}

fn hash_map_line() -> u32 {
    line_of(
        concurrent_hash_map::SOURCE,
        ".expect(\"a key listed by `keys` has a value\")",
    )
}

#[test]
fn map_guidance_finds_string_buffer_in_every_seed() {
    finds_in_every_seed::<StringBuffer>(
        Guide::Map,
        "insert",
        string_buffer::FILE,
        string_buffer_line(),
        "index out of bounds",
    );
}

#[test]
fn pairs_guidance_finds_string_buffer_in_every_seed() {
    finds_in_every_seed::<StringBuffer>(
        Guide::Pairs,
        "insert",
        string_buffer::FILE,
        string_buffer_line(),
        "index out of bounds",
    );
}

#[test]
fn map_guidance_finds_concurrent_hash_map_in_every_seed() {
    finds_in_every_seed_map::<ConcurrentHashMap>(Guide::Map);
}

#[test]
fn pairs_guidance_finds_concurrent_hash_map_in_every_seed() {
    finds_in_every_seed_map::<ConcurrentHashMap>(Guide::Pairs);
}

fn finds_in_every_seed_map<T: Subject>(guide: Guide) {
    for seed in SEEDS {
        let report = check::<T>(&config(seed, guide));
        expect::panic_at(
            &report,
            "put_all",
            concurrent_hash_map::FILE,
            hash_map_line(),
            "a key listed by `keys` has a value",
        );
        expect::reproducer(&report, &[".put_all("]);
        let c = measured(&report);
        assert!(c.covered > 0 && c.covered <= c.feasible, "{report}");
    }
}

#[test]
fn twins_report_nothing_under_either_guide() {
    for guide in [Guide::Map, Guide::Pairs] {
        for seed in 0..3 {
            let mut c = config(seed, guide);
            c.budget = Duration::from_millis(300);
            let report = check::<FixedStringBuffer>(&c);
            expect::no_violation(&report);
            assert_eq!(report.ended, Ended::Budget, "{report}");
            assert!(
                report
                    .to_string()
                    .contains("ended: the time budget ran out"),
                "{report}"
            );
            sound(&report, PRIMITIVE);
            let report = check::<FixedConcurrentHashMap>(&c);
            expect::no_violation(&report);
            assert!(measured(&report).covered > 0, "{report}");
        }
    }
}

/// A correct gauge on a `threadsafe_rt::sync` atomic: one variable, written by `set` and
/// read by `get`, so 8 feasible patterns (one site of each kind).
pub struct Gauge {
    value: threadsafe_rt::sync::atomic::AtomicU64,
}

impl Default for Gauge {
    fn default() -> Self {
        Gauge::new()
    }
}

#[thread_safe(test = false)]
impl Gauge {
    pub fn new() -> Self {
        Gauge {
            value: threadsafe_rt::sync::atomic::AtomicU64::new(0),
        }
    }

    pub fn set(&self, v: u8) {
        self.value.store(u64::from(v), Ordering::SeqCst);
    }

    pub fn get(&self) -> u64 {
        self.value.load(Ordering::SeqCst)
    }
}

#[test]
fn a_check_stops_once_every_feasible_pattern_is_covered() {
    for seed in 0..5 {
        let mut c = Config::default();
        c.seed = seed;
        c.schedule = ScheduleMode::Controlled;
        c.guide = Guide::Map;
        c.stop_when_covered = true;
        c.budget = BUDGET;
        let report = check::<Gauge>(&c);
        expect::no_violation(&report);
        assert_eq!(report.ended, Ended::AllPatternsCovered, "{report}");
        let cov = measured(&report);
        assert_eq!((cov.covered, cov.feasible), (8, 8), "{report}");
        assert!(report.elapsed < BUDGET / 2, "{report}");
        assert!(
            report
                .to_string()
                .contains("ended: every feasible memory-access pattern was covered"),
            "{report}"
        );
        assert_eq!(cov.variables, ["self.value"], "{report}");
    }
}

/// A counter on std primitives only: the scheduler sees its statements, not its locks.
pub struct StdCounter {
    hits: AtomicU64,
    log: Mutex<Vec<u64>>,
}

impl Default for StdCounter {
    fn default() -> Self {
        StdCounter::new()
    }
}

#[thread_safe(test = false)]
impl StdCounter {
    pub fn new() -> Self {
        StdCounter {
            hits: AtomicU64::new(0),
            log: Mutex::new(Vec::new()),
        }
    }

    pub fn hit(&self) {
        let n = self.hits.fetch_add(1, Ordering::SeqCst);
        self.log.lock().unwrap().push(n);
    }

    pub fn total(&self) -> u64 {
        self.hits.load(Ordering::SeqCst)
    }
}

#[test]
fn a_std_type_is_measured_through_its_fields() {
    let mut c = Config::default();
    c.schedule = ScheduleMode::Controlled;
    c.budget = Duration::from_millis(300);
    let report = check::<StdCounter>(&c);
    expect::no_violation(&report);
    let cov = measured(&report);
    let mut vars = cov.variables.clone();
    vars.sort();
    assert_eq!(vars, ["self.hits", "self.log"], "{report}");
    // hits: written by `hit`, read by `total`; log: written by `hit`.
    assert!(cov.covered > 0 && cov.covered <= cov.feasible, "{report}");
}
