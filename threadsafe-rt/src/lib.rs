//! Finds thread-safety bugs in `Sync` types with no input but the type.
//!
//! Write `#[thread_safe]` on an impl block and run `cargo test`. The generated test builds an
//! instance, shares it between threads, calls its `&self` methods concurrently, and fails
//! only on a real bug: a panic or a deadlock that no sequential order of the same calls
//! produces. The failure message is a ready-to-paste Rust test that reproduces it.
//!
//! The approach is that of Pradel & Gross, "Fully automatic and precise detection of thread
//! safety violations" (PLDI 2012): random, feedback-directed generation of concurrent tests
//! (a prefix that builds the instance, then suffixes run on threads at once), and an oracle
//! that reports a failing concurrent run only if no *linearization* (an order of the same
//! calls, one thread at a time) fails the same way.
//!
//! # Tutorial
//!
//! (Compiled, not run here: how soon a free-running race shows up depends on the machine;
//! the finds that CI checks are in the repository's `tests/` crate.)
//!
//! ```no_run
//! use std::sync::Mutex;
//! use threadsafe_rt::thread_safe;
//!
//! /// A stack whose `pop_or_zero` checks emptiness and pops in two lock sections.
//! pub struct Stack(Mutex<Vec<u32>>);
//!
//! #[thread_safe(test = false)] // the doc example calls the check itself
//! impl Stack {
//!     pub fn new() -> Self {
//!         Stack(Mutex::new(Vec::new()))
//!     }
//!     pub fn push(&self, v: u32) {
//!         self.0.lock().unwrap().push(v);
//!     }
//!     pub fn pop_or_zero(&self) -> u32 {
//!         if self.0.lock().unwrap().is_empty() {
//!             return 0;
//!         }
//!         // Another thread may pop between the two lock sections.
//!         self.0.lock().unwrap().pop().expect("checked non-empty")
//!     }
//! }
//!
//! let mut config = threadsafe_rt::Config::default();
//! config.budget = std::time::Duration::from_secs(20);
//! let report = threadsafe_rt::check::<Stack>(&config);
//! let violation = report.violation().expect("the race is found");
//! assert!(violation.failure.to_string().contains("checked non-empty"));
//! assert!(violation.reproducer.contains("std::thread::scope"));
//! ```
//!
//! In a real crate you write only the attribute; `#[thread_safe]` adds a
//! `#[test] fn thread_safe_stack()` that runs the same check and panics with the report.
//!
//! What the generator calls:
//! - *constructors*: associated functions returning `Self`, `Option<Self>`,
//!   `Result<Self, E>` or `Arc<Self>`;
//! - `&self`, `self: &Arc<Self>` and `self: Arc<Self>` methods, concurrently;
//! - `&mut self` methods, in the prefix only (before the instance is shared).
//!
//! Arguments are generated from small pools with edge values (see [`Generate`]); `&Self`
//! and `Arc<Self>` arguments get an instance of the pool, often the shared instance itself
//! (`sb.insert(0, &sb)`), or a second one (which is how lock-order deadlocks between two
//! instances show up). Methods it cannot call (generic, `unsafe`, `self` by value, an
//! argument type without a generator, or marked `#[thread_safe(skip)]`) are listed in the
//! report with the reason.
//!
//! # Controlled schedules
//!
//! Free-running threads hit a race only when the operating system happens to switch inside
//! its window. So in test builds `#[thread_safe]` puts a *scheduling point* before every
//! statement of the annotated methods, and every operation of the [`sync`] primitives is one
//! too. When a test reaches scheduling points, its executions run *controlled*: the suffix
//! threads are real threads, but one runs at a time, and at each point a seeded strategy
//! (uniformly random, or PCT) picks who continues. Deadlocks are then exact (every live
//! thread blocked on a [`sync`] primitive) and the blocked threads are unwound; the report
//! shows the failing interleaving and a token that replays exactly that execution:
//! `THREADSAFE_REPLAY=<token> cargo test thread_safe_`.
//!
//! Code that blocks outside the scheduler (a `std::sync::Mutex` held across a statement
//! point) is handled: the blocked thread is set aside until it comes back, the point is
//! passed over from then on, and such runs are counted in the report as not fully
//! controlled. For exact control, switch the type's primitives in tests, as with loom and
//! shuttle:
//!
//! ```
//! #[cfg(test)]
//! use threadsafe_rt::sync::Mutex;
//! #[cfg(not(test))]
//! use std::sync::Mutex;
//! # let _ = Mutex::new(1);
//! ```
//!
//! Outside a run the [`sync`] types are std's behind one thread-local check.
//!
//! # Gates: a known interleaving as a test
//!
//! When you know the bad interleaving, [`gates`] enforces it on every run: a [`gates::Schedule`]
//! of gates (a location and a condition) held apart from the test's logic, at the statement
//! points of annotated methods, at [`sync`] operations, or at [`point!`]s, with no edit to the
//! code under test; gate deadlocks are reported, not hung on. A violation found under control
//! is printed as such a gated test too, so the bug becomes a deterministic regression test.
//!
//! # MAP-coverage
//!
//! Each report of a controlled check gives its memory-access-pattern coverage ([`Coverage`],
//! [`MapCoverage`]; Wang et al., ASE 2019): of the 17 patterns in which two threads read and
//! write one or two shared variables (a [`sync`] primitive, by where it was created, or a
//! field of `self` that a statement of an annotated method accesses), how many feasible
//! instances its executions covered, which remain, and which method pairs ran concurrently.
//! `guide = "pairs"` or `"map"` ([`Guide`]) lets that coverage choose the methods of each
//! test and, for `"map"`, steer each controlled schedule towards an uncovered pattern;
//! `stop_when_covered = true` ends the check at full coverage ([`Ended`]).
//!
//! # Regressions: failures that stay found
//!
//! The test `#[thread_safe]` generates writes every violation it finds to
//! `threadsafe-regressions/<Type>.txt` beside the crate, a versioned text file meant to be
//! committed (as proptest's `proptest-regressions/`), and replays its entries before it
//! generates any test: a bug that comes back is found at once, a controlled find in one
//! execution. An entry keeps the test itself, by method names (not just the seed that made
//! it), so a change to the generator does not lose it; an entry the type no longer fits is
//! listed in the report as skipped, with the reason; a file that cannot be read stops the
//! check with its line. [`check`] uses a file only when [`Config::regressions`] names a
//! folder; `THREADSAFE_REGRESSIONS=off` turns it off. The report says what happened
//! ([`Regressions`]).
//!
//! # Long hunts: every core, every CI machine
//!
//! `THREADSAFE_JOBS=N` ([`Config::jobs`]) runs N hunts of the type at once, each with its own
//! seed and threads, deterministic on its own; the first violation stops them all and the
//! report names the seed that replays that hunt alone. `THREADSAFE_SHARD=k/n`
//! ([`Config::shard`], [`Shard`]) gives this machine its part of the same seed stream, so
//! the `n` jobs of a CI matrix hunt disjoint seeds ([`Config::hunt_seeds`] documents the
//! stream; [`Hunts`] is what the report says of it).
//!
//! # Knobs
//!
//! Attribute arguments, all optional: `prefixes` (25), `suffixes` (500),
//! `state_changer_tries` (5), `cut_call_tries` (2), `conc_execs` (100), `threads` (2, up
//! to 4), `post_calls` (1), `seed` (0), `budget` (`"1s"`), `deadlock_timeout` (derived),
//! `executor` (`"stress"` or `"paper"`), `schedule` (`"auto"`, `"controlled"`,
//! `"stress"`), `strategy` (`"random"` or `"pct"`, with `depth`, 3), `statement_points`
//! (true, or `"always"` for every build), `instantiate` (for generic impls, e.g. `instantiate = "Cache<String, u32>"`),
//! `guide` (`"random"`, `"pairs"` or `"map"`), `stop_when_covered` (false), `results`
//! (true; `false` keeps return values out of the verdict: panics and deadlocks only),
//! `test = false`, `crate = "path"`. See [`Config`]. On a method, `#[thread_safe(skip)]`
//! leaves it out, and `#[thread_safe(nondeterministic)]` keeps calling it but never compares
//! its results (a clock, an address, hash order).
//!
//! At run time, `THREADSAFE_SEED` (a `u64`, or `random`), `THREADSAFE_BUDGET` (`500ms`,
//! `30s`, `10m`), `THREADSAFE_GUIDE` (`random`, `pairs`, `map`), `THREADSAFE_STRATEGY`
//! (`random`, `pct`, `dfs`, ...) and `THREADSAFE_REPLAY` (a token from a report) override the
//! attribute: a
//! long hunt is one variable away, `THREADSAFE_BUDGET=10m cargo test thread_safe_`.
//! `THREADSAFE_JOBS` (1), `THREADSAFE_SHARD` (`k/n`) and `THREADSAFE_REGRESSIONS` (`on`,
//! `off`) spread a hunt and switch the regressions file (above). The
//! attribute's strings and these variables follow one grammar (the `threadsafe-knobs`
//! crate): what one accepts, the other accepts, and [`Executor`], [`ScheduleMode`],
//! [`Strategy`] and [`Guide`] parse and print it (`FromStr`, `Display`).
//!
//! # Debugging a failure
//!
//! The report gives the verdict, the failure (panic message and `file:line:col`, or for a
//! deadlock the method each blocked thread was in), how many sequential orders the oracle
//! ran, the seed, how many tests and executions it took, and a `#[test]` that re-creates
//! the prefix and runs the suffixes on `std::thread::scope` threads. Paste that test next to
//! the type. The race needs an unlucky schedule, so the reproducer repeats the scenario;
//! a deadlock reproducer hangs when it hits.
//!
//! - The same seed generates the same tests: `THREADSAFE_SEED=<seed>` replays the
//!   generation. Under the controlled scheduler the replay token re-runs the very
//!   execution; free-running, which execution hits the race is up to the OS scheduler.
//! - A deadlock under std locks cannot be broken: the blocked worker threads are left
//!   behind (the report counts them) and the check goes on with new ones.
//! - The oracle assumes sequential determinism: methods that depend on the clock or on
//!   global state changed by other tests can make it report what is not a thread-safety
//!   bug. Exclude them with `#[thread_safe(skip)]`.
//!
//! # Running the check from code
//!
//! The attribute always implements [`Subject`], so [`check`] works from benches, examples
//! and other crates, with a [`Config`] of your choosing; [`generated_tests`] shows the tests
//! the generator makes for a seed.
#![deny(missing_docs)]

// The unit tests write `#[thread_safe]` types, whose expansion names `::threadsafe_rt`.
#[cfg(test)]
extern crate self as threadsafe_rt;

mod check;
mod child;
mod config;
mod contain;
mod coverage;
mod drive;
mod exclusive;
mod exec;
pub mod gates;
mod generate;
mod hooks;
mod lock;
mod oracle;
mod os;
mod panics;
mod parker;
mod point;
mod report;
mod sched;

mod seed;
mod strategy;
mod subject;
pub mod sync;
mod testcase;
pub mod thread;
mod value;
mod wait;

pub use check::{check, generated_tests};
pub use config::{
    Config, ConfigError, Executor, Guide, ScheduleMode, Shard, Strategy, BUDGET_ENV, GUIDE_ENV,
    ISOLATION_ENV, JOBS_ENV, REGRESSIONS_DIR, REGRESSIONS_ENV, REPLAY_ENV, SEED_ENV, SHARD_ENV,
    STRATEGY_ENV, VERBOSE_ENV,
};
pub use contain::contain;
pub use coverage::{MapCoverage, PatternCount, UniverseSource};
pub use drive::{block_on, cancel_at};
pub use report::{
    Coverage, Ended, Exploration, Failure, Hunts, Regressions, Report, ResultsNotes, Shrunk,
    SkippedEntry, Verdict, Violation, Written,
};
pub use subject::{Description, Skipped, Subject};
pub use threadsafe_derive::thread_safe;
pub use value::{Gen, Generate};

/// A named point: a location that a [gate](gates) can stand at or a condition can wait for,
/// e.g. `point!("after_len")`.
///
/// It compiles to nothing outside test builds (`cfg(test)` of the crate that writes it), and
/// costs one relaxed load in test builds when no gated test runs. The name must be a string
/// literal. [`gates::point`] is the same point in every build (doc tests, examples,
/// benchmarks, or under a `cfg` of your own).
///
/// ```
/// pub struct Buf(std::sync::Mutex<Vec<u8>>);
///
/// impl Buf {
///     pub fn append(&self, other: &Buf) {
///         let len = other.0.lock().unwrap().len();
///         threadsafe_rt::point!("after_len");
///         let copy = other.0.lock().unwrap()[..len].to_vec();
///         self.0.lock().unwrap().extend(copy);
///     }
/// }
/// # let (a, b) = (Buf(Default::default()), Buf(Default::default()));
/// # a.append(&b);
/// ```
#[macro_export]
macro_rules! point {
    ($name:literal) => {{
        #[cfg(test)]
        $crate::__private::named_point($name);
    }};
    ($($other:tt)*) => {
        ::core::compile_error!(
            "`point!` takes the point's name as a string literal, e.g. `point!(\"after_len\")`"
        )
    };
}

/// The ordering notation for a [`gates::Schedule`]: `schedule!("worker: after_len" ->
/// "main: fn set_len" -> ...)`. Each entry is a [`gates::Loc`] in its string form (a string
/// literal, or a parenthesized expression that gives a string), and each waits at its
/// location until the entry before it has been reached; see [`gates::Schedule::sequence`].
///
/// # Panics
/// If an entry is not a location (with the reason and the grammar).
///
/// ```
/// use threadsafe_rt::schedule;
///
/// let s = schedule!("worker: after_len" -> "main: fn set_len" -> "worker: fn chars");
/// assert_eq!(s.gates().len(), 2);
/// assert_eq!(s.gates()[0].to_string(),
///     "at `main: fn set_len`: gate `main: fn set_len until reached `worker: after_len``");
/// ```
#[macro_export]
macro_rules! schedule {
    ($($event:tt)->+) => {
        $crate::gates::Schedule::new().sequence(&[$(::std::string::ToString::to_string(&$event)),+])
    };
    ($($other:tt)*) => {
        ::core::compile_error!(
            "`schedule!` takes locations joined by `->`, each a string literal or a parenthesized \
             expression, e.g. `schedule!(\"worker: after_len\" -> \"main: fn set_len\")`"
        )
    };
}

/// Entry points for the project's own benchmarks (`threadsafe-bench`), behind the cargo
/// feature `bench` (off by default): a test written by hand, by method names, run by the
/// free-running executor alone ([`run_scenario`](bench::run_scenario)), and the results
/// oracle's judgement of such a test's executions alone
/// ([`judge_scenario`](bench::judge_scenario)). Unstable, not for users: they change with
/// the benchmarks, and `#[thread_safe]`'s expansion does not use them.
#[cfg(feature = "bench")]
pub mod bench {
    pub use crate::check::{judge_scenario, run_scenario, JudgeRun, ScenarioRun};
    /// The most executions a free-running round runs back to back (a check's stride for a
    /// test of cheap calls).
    pub const MAX_STRIDE: usize = crate::exec::MAX_STRIDE;
}

/// Used by the code `#[thread_safe]` expands to; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::check::run_test;
    pub use crate::drive::{awaited, drive_call as drive};
    pub use crate::point::{FieldAccess, StatementPoint};

    /// A seed drawn when the test runs (`#[thread_safe(seed = "random")]`).
    #[inline]
    pub fn random_seed() -> u64 {
        crate::config::random_seed()
    }

    /// A named point (what [`point!`](crate::point) expands to in test builds).
    #[inline]
    pub fn named_point(name: &'static str) {
        crate::gates::named_point(name);
    }

    /// A statement point of an annotated method (inserted by the expansion in test builds).
    #[inline]
    pub fn statement(p: &'static StatementPoint) {
        crate::hooks::statement(p);
    }
    pub use crate::subject::{
        CloneNo, CloneYes, Description, Frame, InstancePass, Observe, ObserveDebug, ObserveNothing,
        ObserveValue, Op, Param, Pass, Probe, Receiver, Stash, StashDrop, StashKeep, Unavailable,
        ViaGenerate, ViaNothing, ViaSubject,
    };
}

// What users rely on from the public types, checked at compile time.
static_assertions::assert_impl_all!(Config: Send, Sync, Clone);
static_assertions::assert_impl_all!(Report: Send, Sync, Clone, std::fmt::Display);
static_assertions::assert_impl_all!(Gen: Send);
