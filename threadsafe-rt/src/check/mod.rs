//! The check's driver: [`check`], [`generated_tests`], and the entry point of the
//! generated `#[test]`. The search itself is in `hunt.rs`, shrinking a find in `shrink.rs`,
//! the replay of one controlled execution in `replay.rs`, and how executions are controlled
//! in `control.rs`; what each execution comes to is for the oracle (`crate::oracle`).

use std::time::{Duration, Instant};

use crate::config::Config;
use crate::exec::SeqRunner;
use crate::generate::Rounds;
use crate::report::{render_body, Report, Verdict};
use crate::subject::description;
use crate::subject::{Description, Subject};

mod auto;
mod control;
mod hunt;
mod isolate;
mod jobs;
mod regressions;
mod replay;
mod rerun;
#[cfg(feature = "bench")]
mod scenario;
mod shrink;

#[cfg(feature = "bench")]
pub use scenario::{judge_scenario, run_scenario, JudgeRun, ScenarioRun};

/// Checks `T` for thread-safety violations with `config` (environment variables are not
/// read here; see [`Config::with_env`]).
///
/// ```
/// use std::sync::Mutex;
/// use threadsafe_rt::{check, thread_safe, Config};
///
/// pub struct Counter(Mutex<u64>);
///
/// #[thread_safe(test = false)]
/// impl Counter {
///     pub fn new() -> Self { Counter(Mutex::new(0)) }
///     pub fn add(&self, n: u8) -> u64 {
///         let mut c = self.0.lock().unwrap();
///         *c += u64::from(n);
///         *c
///     }
/// }
///
/// let mut config = Config::default();
/// config.budget = std::time::Duration::from_millis(100);
/// let report = check::<Counter>(&config);
/// assert!(report.violation().is_none(), "{report}");
/// ```
pub fn check<T: Subject>(config: &Config) -> Report {
    let desc = description::<T>();
    // One check at a time in a process: two stress runs on the same cores slow each other
    // down and hide races. The budget starts once this check has the machine.
    let _one_at_a_time = crate::exclusive::one_at_a_time();
    let start = Instant::now();
    let mut report = Report::new(desc.name(), config.seed, desc.skipped().to_vec());
    report.verbose = config.verbose;
    if let Some(why) = cannot_check(desc, config) {
        report.verdict = Verdict::CannotCheck(why);
        return report;
    }
    match &config.replay {
        Some(token) => replay::replay(desc, config, token, &mut report),
        None => {
            // The regressions file's entries first; new tests only if none fails again.
            if !regressions::replay_first(desc, config, start, &mut report) {
                jobs::hunt(desc, config, start, &mut report);
                regressions::record(desc, config, &mut report);
            }
        }
    }
    report.elapsed = start.elapsed();
    report
}

fn cannot_check<T>(desc: &Description<T>, config: &Config) -> Option<String> {
    if let Err(e) = config.validate() {
        return Some(e.to_string());
    }
    if desc.constructors.is_empty() {
        return Some(format!(
            "no constructor the generator can call (see the skipped methods); `{}` needs an associated function returning `Self`, `Option<Self>`, `Result<Self, _>` or `Arc<Self>` whose arguments can be generated",
            desc.name
        ));
    }
    if !desc.methods.iter().any(|m| m.receiver.is_concurrent()) {
        return Some(
            "no method that can be called concurrently (`&self`, `self: &Arc<Self>` or `self: Arc<Self>`)".to_string(),
        );
    }
    None
}

/// The tests the generator makes for `T` with `config`, written as Rust, in the order it
/// makes them: the same seed gives the same tests.
///
/// ```
/// use std::sync::atomic::{AtomicI32, Ordering};
/// use threadsafe_rt::{generated_tests, thread_safe, Config};
///
/// pub struct Gauge(AtomicI32);
///
/// #[thread_safe(test = false)]
/// impl Gauge {
///     pub fn new() -> Self { Gauge(AtomicI32::new(0)) }
///     pub fn set(&self, v: i32) { self.0.store(v, Ordering::SeqCst) }
///     pub fn get(&self) -> i32 { self.0.load(Ordering::SeqCst) }
/// }
///
/// let tests = generated_tests::<Gauge>(&Config::default(), 3);
/// assert_eq!(tests.len(), 3);
/// assert!(tests[0].contains("Gauge::new()"));
/// assert_eq!(tests, generated_tests::<Gauge>(&Config::default(), 3));
/// ```
pub fn generated_tests<T: Subject>(config: &Config, count: usize) -> Vec<String> {
    let desc = description::<T>();
    let mut out = Vec::new();
    if cannot_check(desc, config).is_some() {
        return out;
    }
    let mut seq = SeqRunner::new();
    let deadline = Instant::now() + Duration::from_secs(3600);
    let mut rounds = Rounds::new(desc, config).at_most(32);
    while out.len() < count {
        let Some(ready) = rounds.next(&mut seq, deadline) else {
            break;
        };
        out.push(render_body(desc, &ready.test, ""));
    }
    out
}

/// Entry point of the `#[test]` that `#[thread_safe]` generates: turns the regressions file
/// on (`threadsafe-regressions/` beside the crate), applies the environment overrides, runs
/// the check (in a child process of the test binary unless [`Config::isolation`] is off:
/// `isolate.rs`) and panics with the report unless it passed.
#[doc(hidden)]
pub fn run_test<T: Subject>(mut config: Config) {
    config
        .regressions
        .get_or_insert_with(Config::default_regressions_dir);
    let config = match config.with_env() {
        Ok(c) => c,
        Err(e) => panic!("threadsafe: {e}"),
    };
    if let Some(entry) = isolate::judge_request() {
        return isolate::judge(description::<T>(), &config, &entry);
    }
    if config.isolation && !isolate::in_child() {
        if let Some(name) = isolate::generated_test_name() {
            // The child's check runs alone on the machine, as checks in one process do.
            let _one_at_a_time = crate::exclusive::one_at_a_time();
            match isolate::run_child(description::<T>().name(), &name, &config) {
                isolate::Child::Ended {
                    passed: true,
                    report,
                } => return println!("{report}"),
                isolate::Child::Ended { report, .. } => panic!("\n{report}"),
                isolate::Child::Died(failure) => panic!("\n{failure}"),
                isolate::Child::NotStarted(why) => {
                    println!("threadsafe: the check runs in this process: {why}");
                }
            }
        }
    }
    let mut report = check::<T>(&config);
    let passed = matches!(report.verdict, Verdict::NoViolationFound);
    if isolate::in_child() {
        // Threads blocked in deadlocked code die with the child: none is left behind.
        report.abandoned_threads = 0;
        // The parent prints the report and passes or fails; this run only hands it over.
        return isolate::leave_report(passed, &report.to_string());
    }
    if passed {
        println!("{report}");
    } else {
        panic!("\n{report}");
    }
}
