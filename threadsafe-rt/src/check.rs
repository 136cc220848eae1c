//! The check: generate tests, run each concurrently many times, and ask the oracle about
//! every failure (Algorithm 2 of Pradel & Gross).

use std::collections::HashSet;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::config::{Config, Guide, ReplayToken, ScheduleMode};
use crate::coverage::{thread_methods, Tracker};
use crate::exec::{BatchSpec, Blocked, ConcRunner, Control, ExecOutcome, SeqRunner};
use crate::generate::description;
use crate::generator::Generator;
use crate::model::{linearizations, TestCase};
use crate::report::{
    gated_entries, method_at, render_body, render_gated, render_interleaving, render_reproducer,
    scope_name, Coverage, Ended, Failure, Report, Verdict, Violation,
};
use crate::sched::Step;
use crate::subject::{Description, Subject};

static CHECKS: Mutex<()> = Mutex::new(());

/// Holds the process-wide lock that checks and gated tests take, so that they never run at
/// the same time (gates would stop a check's threads, and checks compete for the cores).
pub(crate) fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    CHECKS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The shortest time a run may make no progress before it counts as hung.
pub(crate) const TIMEOUT_FLOOR: Duration = Duration::from_millis(250);

/// How many times the deadlock timeout exceeds a test's sequential run time.
const TIMEOUT_FACTOR: u32 = 50;

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
    let _one_at_a_time = one_at_a_time();
    let start = Instant::now();
    let mut report = Report {
        type_name: desc.name.to_string(),
        seed: config.seed,
        verdict: Verdict::NoViolationFound,
        tests: 0,
        executions: 0,
        elapsed: Duration::ZERO,
        skipped: desc.skipped.clone(),
        controlled_tests: 0,
        uncontrolled_runs: 0,
        abandoned_threads: 0,
        coverage: Coverage::NotMeasured("the check did not run".to_string()),
        ended: Ended::Exhausted,
    };
    if let Some(why) = cannot_check(desc, config) {
        report.verdict = Verdict::CannotCheck(why);
        return report;
    }
    if let Some(token) = &config.replay {
        replay(desc, config, token, &mut report);
        report.elapsed = start.elapsed();
        return report;
    }
    let deadline = start + config.budget;
    let mut seq = SeqRunner::new();
    let mut conc = ConcRunner::new(config.executor, config.seed);
    let mut round = 0;
    let mut hung = HashSet::new();
    let tracker = Arc::new(Mutex::new(Tracker::new(desc.concurrent_methods())));
    if config.guide != Guide::Map && !config.stop_when_covered {
        // Nothing reads the coverage during the check: the sequential runs and the reading
        // of the executions come after the last test, off the path to a bug.
        lock(&tracker).defer_reading();
    } else {
        let probe = Generator::probe(desc, config, &mut seq);
        lock(&tracker).probed(desc, &probe);
    }
    'rounds: while Instant::now() < deadline {
        let mut gen = Generator::new(desc, config, round, std::mem::take(&mut hung))
            .guided(config.guide, tracker.clone());
        while let Some(ready) = gen.next_test(&mut seq, deadline) {
            report.tests += 1;
            let timeout = config
                .deadlock_timeout
                .unwrap_or_else(|| TIMEOUT_FLOOR.max(ready.seq_time * TIMEOUT_FACTOR));
            let controlled = match config.schedule {
                ScheduleMode::Controlled => true,
                ScheduleMode::Stress => false,
                _ => ready.points > 0,
            };
            report.controlled_tests += u64::from(controlled);
            let mut control = controlled.then(|| control(config, conc.next_batch_seed(), 0));
            if let Some(c) = &mut control {
                c.coverage = Some(tracker.clone());
                if config.guide == Guide::Map {
                    let mut t = lock(&tracker);
                    let methods = thread_methods(&ready.test);
                    c.targets = Some((
                        t.names(),
                        t.targets(&methods, ready.target, TARGETS_PER_TEST),
                    ));
                }
            }
            let spec = BatchSpec {
                count: config.conc_execs,
                timeout,
                deadline,
                control,
            };
            let batch = conc.run_batch(desc, &ready.test, spec);
            lock(&tracker).add_test(&ready.test);
            report.executions += batch.executions as u64;
            if config.stop_when_covered
                && matches!(batch.outcome, ExecOutcome::Passed)
                && lock(&tracker).all_covered()
            {
                report.ended = Ended::AllPatternsCovered;
                break 'rounds;
            }
            report.uncontrolled_runs += batch.uncontrolled as u64;
            let failure = match batch.outcome {
                ExecOutcome::Passed | ExecOutcome::Invalid => continue,
                failure @ (ExecOutcome::Panicked(_) | ExecOutcome::Deadlock(_)) => failure,
            };
            if let Some(v) = oracle(desc, &ready.test, &failure, &mut seq, timeout) {
                // Under guide `map` a test depends on the coverage of every execution before
                // it, which a replay does not re-run: no token.
                let replayable = config.guide != Guide::Map;
                let replay = batch.trace.as_ref().filter(|_| replayable).map(|_| {
                    ReplayToken {
                        seed: config.seed,
                        test: report.tests,
                        execution: batch.executions - 1,
                        strategy: config.strategy,
                        guide: config.guide,
                    }
                    .to_string()
                });
                report.verdict = Verdict::Violation(Box::new(violation(
                    desc,
                    &ready.test,
                    &failure,
                    v,
                    batch.trace.as_deref(),
                    replay,
                    config,
                    &report,
                    start,
                )));
                report.ended = Ended::Violation;
                break 'rounds;
            }
            if Instant::now() >= deadline {
                break 'rounds;
            }
        }
        if let Some(why) = gen.cannot_instantiate.take() {
            report.verdict = Verdict::CannotCheck(why);
            break;
        }
        hung = gen.hung;
        round += 1;
    }
    if report.ended == Ended::Exhausted && Instant::now() >= deadline {
        report.ended = Ended::Budget;
    }
    report.coverage = if report.controlled_tests > 0 {
        if lock(&tracker).is_deferred() {
            let probe = Generator::probe(desc, config, &mut seq);
            lock(&tracker).probed(desc, &probe);
        }
        let mut t = lock(&tracker);
        t.finish(config.budget / 4);
        Coverage::Measured(Box::new(t.summary()))
    } else {
        Coverage::NotMeasured(
            "no controlled execution: free-running threads give no order of steps to match"
                .to_string(),
        )
    };
    report.elapsed = start.elapsed();
    report.abandoned_threads = seq.abandoned() + conc.abandoned();
    report
}

/// Patterns one test's executions aim at in turn, under guide `map`.
const TARGETS_PER_TEST: usize = 8;

fn lock(tracker: &Mutex<Tracker>) -> std::sync::MutexGuard<'_, Tracker> {
    tracker.lock().unwrap_or_else(|e| e.into_inner())
}

fn control(config: &Config, base: u64, first: usize) -> Control {
    Control {
        strategy: config.strategy,
        base,
        first,
        max_steps: AtomicUsize::new(INITIAL_STEP_ESTIMATE),
        futile: Arc::default(),
        coverage: None,
        targets: None,
    }
}

/// PCT's first guess of a run's length, before a run has been measured.
const INITIAL_STEP_ESTIMATE: usize = 20;

#[allow(clippy::too_many_arguments)]
fn violation<T>(
    desc: &Description<T>,
    test: &TestCase,
    failure: &ExecOutcome,
    linearizations: usize,
    trace: Option<&[Step]>,
    replay: Option<String>,
    config: &Config,
    report: &Report,
    start: Instant,
) -> Violation {
    let failure = describe_failure(desc, test, failure);
    let repeat = (report.executions * 2).clamp(1_000, 100_000);
    let schedule = match (trace, &failure) {
        (Some(t), Failure::Panic { .. }) => Some(gated_entries(t)).filter(|e| !e.is_empty()),
        _ => None,
    };
    Violation {
        gated: schedule
            .as_deref()
            .map(|e| render_gated(desc, test, &failure, config, e)),
        schedule,
        reproducer: render_reproducer(desc, test, &failure, config, repeat, replay.as_deref()),
        interleaving: trace.map(|t| render_interleaving(desc, test, t)),
        replay,
        failure,
        linearizations,
        tests_until_found: report.tests,
        executions_until_found: report.executions,
        time_to_bug: start.elapsed(),
    }
}

/// Re-runs exactly the controlled execution a token names: the same seed generates the
/// same tests, and the same schedule seed makes the same choices.
fn replay<T: Subject>(
    desc: &'static Description<T>,
    config: &Config,
    token: &str,
    report: &mut Report,
) {
    let token: ReplayToken = match token.parse() {
        Ok(t) => t,
        Err(e) => {
            report.verdict = Verdict::CannotCheck(e);
            return;
        }
    };
    let mut config = config.clone();
    config.seed = token.seed;
    config.strategy = token.strategy;
    config.guide = token.guide;
    report.seed = token.seed;
    let mut seq = SeqRunner::new();
    let mut conc = ConcRunner::new(config.executor, config.seed);
    let far = Instant::now() + Duration::from_secs(24 * 3600);
    let mut hung = HashSet::new();
    let mut number = 0;
    // Guide `pairs` plans each test from the tests before it: count them as the check did.
    let tracker = Arc::new(Mutex::new(Tracker::new(desc.concurrent_methods())));
    for round in 0.. {
        let mut gen = Generator::new(desc, &config, round, std::mem::take(&mut hung))
            .guided(config.guide, tracker.clone());
        while let Some(ready) = gen.next_test(&mut seq, far) {
            number += 1;
            lock(&tracker).add_test(&ready.test);
            if number < token.test {
                conc.skip_batch();
                continue;
            }
            let timeout = config
                .deadlock_timeout
                .unwrap_or_else(|| TIMEOUT_FLOOR.max(ready.seq_time * TIMEOUT_FACTOR));
            // The batch runs again up to the execution: what earlier runs of the test learned
            // (PCT's step estimate, futile points) is then learned again, identically.
            let spec = BatchSpec {
                count: token.execution + 1,
                timeout,
                deadline: far,
                control: Some(control(&config, conc.next_batch_seed(), 0)),
            };
            let start = Instant::now();
            let batch = conc.run_batch(desc, &ready.test, spec);
            report.tests = number;
            report.executions = batch.executions as u64;
            let failure @ (ExecOutcome::Panicked(_) | ExecOutcome::Deadlock(_)) = batch.outcome
            else {
                report.verdict = Verdict::CannotCheck(format!(
                    "replay {token}: the execution passed this time (has the code or the seed changed?)"
                ));
                return;
            };
            let v = oracle(desc, &ready.test, &failure, &mut seq, timeout).unwrap_or(0);
            report.verdict = Verdict::Violation(Box::new(violation(
                desc,
                &ready.test,
                &failure,
                v,
                batch.trace.as_deref(),
                Some(token.to_string()),
                &config,
                report,
                start,
            )));
            return;
        }
        if gen.cannot_instantiate.is_some() || round > 64 {
            break;
        }
        hung = gen.hung;
    }
    report.verdict = Verdict::CannotCheck(format!(
        "replay {token}: the generator made fewer tests than that"
    ));
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

/// Algorithm 2's check of a failed execution: run every linearization of the suffixes
/// after the prefix (each with the watchdog, as one may hang); the failure is a violation
/// only if none fails the same way: a hang for a deadlock, a panic at the same location for
/// a panic. Returns the number of linearizations run when it is a violation.
fn oracle<T: Send + Sync + 'static>(
    desc: &'static Description<T>,
    test: &Arc<TestCase>,
    failure: &ExecOutcome,
    seq: &mut SeqRunner,
    timeout: Duration,
) -> Option<usize> {
    let lens: Vec<usize> = test.threads.iter().map(Vec::len).collect();
    let orders = linearizations(&lens);
    for order in &orders {
        let same = match (
            seq.run(desc, test.clone(), order.clone(), true, timeout),
            failure,
        ) {
            (None, ExecOutcome::Deadlock(_)) => true,
            (None, _) => false,
            (Some((run, _)), ExecOutcome::Panicked(panics)) => {
                let location = &panics[0].1.location;
                run.panic_locations().any(|l| l == location)
            }
            (Some(_), _) => false,
        };
        if same {
            return None;
        }
    }
    Some(orders.len())
}

fn describe_failure<T>(desc: &Description<T>, test: &TestCase, outcome: &ExecOutcome) -> Failure {
    let at = |b: &Blocked| {
        let s = &b.site;
        let waiting = b
            .waiting
            .as_ref()
            .map(|w| format!(", {w}"))
            .unwrap_or_default();
        format!(
            "{} in `{}`{waiting}",
            scope_name(s.scope),
            method_at(desc, test, s.scope, s.call)
        )
    };
    match outcome {
        ExecOutcome::Panicked(panics) => {
            let (site, p) = &panics[0];
            Failure::Panic {
                thread: scope_name(site.scope),
                method: method_at(desc, test, site.scope, site.call),
                location: p.location.clone(),
                message: p.message.clone(),
            }
        }
        ExecOutcome::Deadlock(stuck) => Failure::Deadlock {
            blocked: stuck.iter().map(at).collect(),
        },
        _ => Failure::Deadlock {
            blocked: Vec::new(),
        },
    }
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
    let mut round = 0;
    let mut hung = HashSet::new();
    while out.len() < count && round < 32 {
        let mut gen = Generator::new(desc, config, round, std::mem::take(&mut hung));
        while let Some(ready) = gen.next_test(&mut seq, deadline) {
            out.push(render_body(desc, &ready.test, ""));
            if out.len() == count {
                break;
            }
        }
        if gen.cannot_instantiate.is_some() {
            break;
        }
        hung = gen.hung;
        round += 1;
    }
    out
}

/// Entry point of the `#[test]` that `#[thread_safe]` generates: applies the environment
/// overrides, runs the check and panics with the report unless it passed.
#[doc(hidden)]
pub fn run_test<T: Subject>(config: Config) {
    let config = match config.with_env() {
        Ok(c) => c,
        Err(e) => panic!("threadsafe: {e}"),
    };
    let report = check::<T>(&config);
    match report.verdict {
        Verdict::NoViolationFound => println!("{report}"),
        _ => panic!("\n{report}"),
    }
}
