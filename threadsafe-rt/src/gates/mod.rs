//! Gates: hand-written concurrent tests with a given interleaving, every run, without editing
//! the code under test (Vainer & Yehudai, "Taming the concurrency").
//!
//! A *gate* is a location plus a condition: a thread that reaches the location while the
//! condition does not hold waits there until it does. A [`Schedule`] is the set of gates of
//! one test, written apart from the test's logic; [`run`] runs the test's threads (named,
//! like `worker` and `main`) with the schedule enforced and reports what happened: panics,
//! or a deadlock the gates created, with the gate each thread waits at.
//!
//! Locations ([`Loc`]) need no change to the code under test: the statement points that
//! `#[thread_safe]` inserts in annotated methods (in test builds) are addressed by method
//! and line, the operations of [`crate::sync`] primitives by kind, method and line, and
//! [`point!`](crate::point) marks a place by name where you can edit the code (usually the
//! test itself).
//!
//! # Example: the `StringBuffer.append` race, every time
//!
//! `append(&other)` reads `other.len()`, then copies that many characters with
//! `other.chars(len)`; a `set_len` on `other` in between makes the copy index past the end.
//! Two gates force that order, addressed by the annotated methods' names: `main` waits at
//! the start of `set_len` until `worker` has read the length (it reached `chars`), and
//! `worker` waits in `chars` until `main` is back from `set_len` (it reached the named point
//! after the call). `append` is not changed.
//!
//! ```
//! use std::sync::Mutex;
//! use threadsafe_rt::gates::{self, reached, wait, Loc, Schedule};
//! use threadsafe_rt::thread_safe;
//!
//! pub struct StrBuf(Mutex<Vec<char>>);
//!
//! #[thread_safe(test = false, statement_points = "always")]
//! impl StrBuf {
//!     pub fn new(s: &str) -> Self { StrBuf(Mutex::new(s.chars().collect())) }
//!     pub fn len(&self) -> usize { self.0.lock().unwrap().len() }
//!     pub fn set_len(&self, n: usize) { self.0.lock().unwrap().resize(n, '\0') }
//!     pub fn chars(&self, n: usize) -> Vec<char> { self.0.lock().unwrap()[..n].to_vec() }
//!     pub fn append(&self, other: &StrBuf) {
//!         let len = other.len();
//!         let copied = other.chars(len);
//!         self.0.lock().unwrap().extend(copied);
//!     }
//! }
//!
//! let schedule = Schedule::new()
//!     .gate(wait(Loc::method("set_len").thread("main")).until(reached("worker: fn chars")))
//!     .gate(wait("worker: fn chars").until(reached("main: set_len_done")));
//! let (a, b) = (StrBuf::new("original"), StrBuf::new("appended"));
//! let outcome = gates::run(schedule, |s| {
//!     s.spawn("worker", || a.append(&b));
//!     b.set_len(3);
//!     gates::point("set_len_done");
//! });
//! let panic = &outcome.panics[0];
//! assert_eq!(panic.thread, "worker");
//! assert!(panic.message.contains("out of range"), "{outcome}");
//! ```
//!
//! The same schedule in the ordering notation of IMUnit: each event is a thread reaching a
//! location, and each one waits there for the one before it.
//!
//! ```
//! use threadsafe_rt::schedule;
//!
//! let s = schedule!("worker: fn chars" -> "main: fn set_len" -> "main: set_len_done"
//!     -> "worker: fn chars");
//! assert_eq!(s.gates().len(), 3);
//! ```
//!
//! Here `worker` reaching `chars` lets `main` into `set_len`, whose return lets `worker`
//! through `chars` (a location may appear twice: first as an event, then as a gate). An
//! entry may also be a parenthesized expression, e.g. `(format!("worker: fn append@{line}"))`.
//!
//! # How threads wait, and deadlocks
//!
//! Threads run free (no controlled scheduler): a thread at a closed gate sleeps on a
//! condition variable and re-checks when any thread reaches a location, opens a gate or
//! ends, and every millisecond for conditions over your own state ([`Condition::when`]).
//! If every thread of the test waits at a gate and nothing happens for
//! [`Schedule::settle`] (250 ms) while no other thread of the process runs, or nothing
//! happens for [`Schedule::timeout`] (10 s) while no thread runs (the others are blocked,
//! on a lock a gated thread holds, say),
//! the run is a *gate deadlock*: the waiting threads are unwound and the [`Outcome`] names
//! the gate each one waited at. Threads that the code under test starts itself take part
//! once they reach a location; a location without a thread name matches every thread of the
//! process, so another test running the same code at the same moment can reach it too:
//! name the thread when that matters.

mod engine;
mod loc;
mod outcome;
mod run;
mod watchdog;

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub(crate) use engine::{active, named_point, statement, sync_op};
pub use loc::{IntoLoc, Loc, LocError, SyncOp};
pub use outcome::{GateDeadlock, Outcome, ThreadPanic, Waiting};
pub use run::{run, Scope};

/// A named point in every build: what [`point!`](crate::point) expands to in test builds.
/// A location for gates and conditions ([`Loc::point`]); one relaxed load when no gated
/// test runs.
#[inline]
pub fn point(name: &'static str) {
    named_point(name);
}

/// When a gate opens.
///
/// ```
/// use threadsafe_rt::gates::{passed, reached, Condition, Loc};
///
/// let c = reached("worker: after_len").and(passed(Loc::method("set_len").nth(2)));
/// assert_eq!(c.to_string(), "reached `worker: after_len` and passed `fn set_len#2`");
/// let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
/// let f = flag.clone();
/// let _custom = Condition::when("the flag is set", move || f.load(std::sync::atomic::Ordering::SeqCst));
/// ```
#[derive(Clone)]
pub struct Condition(pub(crate) Cond);

#[derive(Clone)]
pub(crate) enum Cond {
    /// Some thread (the location's, if named) reached the location (at least `nth` times).
    Reached(Loc),
    /// Some thread went past the location (at least `nth` times): reached it and was let
    /// through by every gate there.
    Passed(Loc),
    /// A gate is open.
    Open(Gate),
    /// Your own predicate, polled.
    When(String, Arc<dyn Fn() -> bool + Send + Sync>),
    All(Vec<Cond>),
    Any(Vec<Cond>),
}

/// The condition "some thread reached `loc`" (the thread named in `loc`, and at least
/// [`nth`](Loc::nth) times, if given). A thread held by a gate at `loc` has reached it.
pub fn reached(loc: impl IntoLoc) -> Condition {
    Condition(Cond::Reached(loc.into_loc()))
}

/// The condition "some thread went past `loc`": reached it and was let through by the
/// gates there.
pub fn passed(loc: impl IntoLoc) -> Condition {
    Condition(Cond::Passed(loc.into_loc()))
}

impl Condition {
    /// A condition over any state: `predicate` is called (without any of the engine's
    /// locks held) when a waiting thread re-checks, at least every millisecond. It should
    /// not block: a predicate that locks a mutex a gated thread holds waits with it.
    pub fn when(
        description: &str,
        predicate: impl Fn() -> bool + Send + Sync + 'static,
    ) -> Condition {
        Condition(Cond::When(description.to_string(), Arc::new(predicate)))
    }

    /// Both conditions.
    pub fn and(self, other: Condition) -> Condition {
        Condition(match self.0 {
            Cond::All(mut v) => {
                v.push(other.0);
                Cond::All(v)
            }
            c => Cond::All(vec![c, other.0]),
        })
    }

    /// Either condition.
    pub fn or(self, other: Condition) -> Condition {
        Condition(match self.0 {
            Cond::Any(mut v) => {
                v.push(other.0);
                Cond::Any(v)
            }
            c => Cond::Any(vec![c, other.0]),
        })
    }
}

impl From<&Gate> for Condition {
    fn from(g: &Gate) -> Condition {
        Condition(Cond::Open(g.clone()))
    }
}

impl From<&SimpleGate> for Condition {
    fn from(g: &SimpleGate) -> Condition {
        Condition(Cond::Open(g.0.clone()))
    }
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, v: &[Cond], sep: &str| {
            for (i, c) in v.iter().enumerate() {
                if i > 0 {
                    f.write_str(sep)?;
                }
                match c {
                    Cond::All(_) | Cond::Any(_) => write!(f, "({c})")?,
                    c => write!(f, "{c}")?,
                }
            }
            Ok(())
        };
        match self {
            Cond::Reached(l) => write!(f, "reached `{l}`"),
            Cond::Passed(l) => write!(f, "passed `{l}`"),
            Cond::Open(g) => write!(f, "gate `{}` open", g.name()),
            Cond::When(d, _) => f.write_str(d),
            Cond::All(v) => list(f, v, " and "),
            Cond::Any(v) => list(f, v, " or "),
        }
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Debug for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Condition({self})")
    }
}

/// A gate: a name and what opens it. Place it with [`wait`]`(loc).on(&gate)`; one gate can
/// stand at several locations. Cloning gives another handle to the same gate.
#[derive(Clone)]
pub struct Gate(Arc<GateInner>);

pub(crate) struct GateInner {
    name: String,
    kind: GateKind,
}

pub(crate) enum GateKind {
    Simple(AtomicBool),
    Barrier { n: usize, arrived: AtomicUsize },
    When(Cond),
}

impl Gate {
    /// A gate that opens while `condition` holds (a custom gate).
    pub fn when(name: &str, condition: Condition) -> Gate {
        Gate::new(name, GateKind::When(condition.0))
    }

    fn new(name: &str, kind: GateKind) -> Gate {
        Gate(Arc::new(GateInner {
            name: name.to_string(),
            kind,
        }))
    }

    /// The gate's name, as reports show it.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    pub(crate) fn kind(&self) -> &GateKind {
        &self.0.kind
    }
}

impl fmt::Debug for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Gate({:?})", self.name())
    }
}

/// A gate that is closed until [`open`](SimpleGate::open) is called, and then stays open
/// (the paper's `SimpleGate`: `Wait` and `Open`).
///
/// Open it from the test's code, or when a thread reaches a location with
/// [`Schedule::open_at`] (the paper's "fictitious gate").
///
/// ```
/// use threadsafe_rt::gates::{self, wait, Schedule, SimpleGate};
/// use std::sync::atomic::{AtomicBool, Ordering};
///
/// let done = SimpleGate::new("task done");
/// let flag = AtomicBool::new(false);
/// let schedule = Schedule::new()
///     .gate(wait("main: check").on(&done))
///     .open_at("worker: finished", &done);
/// let outcome = gates::run(schedule, |s| {
///     s.spawn("worker", || {
///         flag.store(true, Ordering::SeqCst);
///         gates::point("finished");
///     });
///     gates::point("check");
///     assert!(flag.load(Ordering::SeqCst));
/// });
/// outcome.unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct SimpleGate(Gate);

impl SimpleGate {
    /// A closed gate.
    pub fn new(name: &str) -> SimpleGate {
        SimpleGate(Gate::new(name, GateKind::Simple(AtomicBool::new(false))))
    }

    /// Opens the gate for good and lets its waiting threads through.
    pub fn open(&self) {
        if let GateKind::Simple(open) = self.0.kind() {
            open.store(true, Ordering::SeqCst);
        }
        engine::wake();
    }

    /// Whether [`open`](SimpleGate::open) was called.
    pub fn is_open(&self) -> bool {
        matches!(self.0.kind(), GateKind::Simple(open) if open.load(Ordering::SeqCst))
    }
}

impl AsRef<Gate> for SimpleGate {
    fn as_ref(&self) -> &Gate {
        &self.0
    }
}

/// A gate that opens once `n` threads have arrived at it (at any of its locations), and
/// then stays open: the paper's `BarrierGate`.
///
/// ```
/// use threadsafe_rt::gates::{self, wait, BarrierGate, Schedule};
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// let both = BarrierGate::new("both copied", 2);
/// let copied = AtomicUsize::new(0);
/// let outcome = gates::run(Schedule::new().gate(wait("between").on(&both)), |s| {
///     for name in ["a", "b"] {
///         s.spawn(name, || {
///             copied.fetch_add(1, Ordering::SeqCst);
///             gates::point("between");
///             // Both threads are past the first section here.
///             assert_eq!(copied.load(Ordering::SeqCst), 2);
///         });
///     }
/// });
/// outcome.unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct BarrierGate(Gate);

impl BarrierGate {
    /// A gate that opens when `n` threads have arrived.
    ///
    /// # Panics
    /// If `n` is 0.
    pub fn new(name: &str, n: usize) -> BarrierGate {
        assert!(n > 0, "a BarrierGate waits for at least one thread");
        BarrierGate(Gate::new(
            name,
            GateKind::Barrier {
                n,
                arrived: AtomicUsize::new(0),
            },
        ))
    }
}

impl AsRef<Gate> for BarrierGate {
    fn as_ref(&self) -> &Gate {
        &self.0
    }
}

impl AsRef<Gate> for Gate {
    fn as_ref(&self) -> &Gate {
        self
    }
}

/// The start of a rule: threads reaching `loc` wait. Finish it with
/// [`until`](Wait::until) or [`on`](Wait::on).
pub fn wait(loc: impl IntoLoc) -> Wait {
    Wait(loc.into_loc())
}

/// A location waiting for its gate; see [`wait`].
#[derive(Clone, Debug)]
pub struct Wait(Loc);

impl Wait {
    /// Threads reaching the location wait until `condition` holds (a gate of its own,
    /// named after the location and the condition).
    pub fn until(self, condition: impl Into<Condition>) -> Rule {
        let condition = condition.into();
        let name = format!("{} until {condition}", self.0);
        Rule {
            at: self.0,
            gate: Gate::when(&name, condition),
        }
    }

    /// Threads reaching the location wait until `gate` opens.
    pub fn on(self, gate: &impl AsRef<Gate>) -> Rule {
        Rule {
            at: self.0,
            gate: gate.as_ref().clone(),
        }
    }
}

/// A gate at a location: threads that reach `at` wait until the gate is open.
#[derive(Clone, Debug)]
pub struct Rule {
    pub(crate) at: Loc,
    pub(crate) gate: Gate,
}

impl Rule {
    /// Where the gate stands.
    pub fn location(&self) -> &Loc {
        &self.at
    }

    /// The gate.
    pub fn gate(&self) -> &Gate {
        &self.gate
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at `{}`: gate `{}`", self.at, self.gate.name())
    }
}

/// The gates of one test: data, written apart from the test's logic, and enforced by
/// [`run`].
///
/// Build it with [`gate`](Schedule::gate) rules (`wait(loc).until(cond)`,
/// `wait(loc).on(&gate)`), [`open_at`](Schedule::open_at) for simple gates that a location
/// opens, or the ordering notation [`schedule!`](crate::schedule) /
/// [`Schedule::sequence`].
#[derive(Clone, Debug)]
pub struct Schedule {
    pub(crate) rules: Vec<Rule>,
    pub(crate) openers: Vec<(Loc, SimpleGate)>,
    pub(crate) settle: Duration,
    pub(crate) timeout: Duration,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule::new()
    }
}

impl Schedule {
    /// A schedule with no gate.
    pub fn new() -> Schedule {
        Schedule {
            rules: Vec::new(),
            openers: Vec::new(),
            settle: Duration::from_millis(250),
            timeout: Duration::from_secs(10),
        }
    }

    /// Adds a gate at a location.
    pub fn gate(mut self, rule: Rule) -> Schedule {
        self.rules.push(rule);
        self
    }

    /// Opens `gate` when a thread reaches `loc` (the paper's fictitious gate that opens a
    /// real one).
    pub fn open_at(mut self, loc: impl IntoLoc, gate: &SimpleGate) -> Schedule {
        self.openers.push((loc.into_loc(), gate.clone()));
        self
    }

    /// The ordering notation: `events[i]` is a thread reaching a location, and each event
    /// waits at its location until the event before it has happened (a gate
    /// `wait(events[i]).until(reached(events[i - 1]))`). The first one waits for nothing.
    ///
    /// # Panics
    /// If a string is not a [`Loc`]; use [`try_sequence`](Schedule::try_sequence) to get the
    /// error.
    #[track_caller]
    pub fn sequence<S: AsRef<str>>(self, events: &[S]) -> Schedule {
        self.try_sequence(events).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`sequence`](Schedule::sequence), with an error for a string that is not a [`Loc`].
    pub fn try_sequence<S: AsRef<str>>(mut self, events: &[S]) -> Result<Schedule, LocError> {
        let locs = events
            .iter()
            .map(|e| e.as_ref().parse::<Loc>())
            .collect::<Result<Vec<_>, _>>()?;
        for pair in locs.windows(2) {
            self = self.gate(wait(&pair[1]).until(reached(&pair[0])));
        }
        Ok(self)
    }

    /// How long every thread must wait at gates with nothing happening before the run is a
    /// gate deadlock (250 ms).
    pub fn settle(mut self, d: Duration) -> Schedule {
        self.settle = d;
        self
    }

    /// How long nothing may happen, with some thread at a gate and no thread of the process
    /// running, before the run is a deadlock even though some threads are not at gates
    /// (10 s).
    pub fn timeout(mut self, d: Duration) -> Schedule {
        self.timeout = d;
        self
    }

    /// The gates, in the order they were added.
    pub fn gates(&self) -> &[Rule] {
        &self.rules
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in &self.rules {
            writeln!(f, "{r}")?;
        }
        for (loc, g) in &self.openers {
            writeln!(f, "at `{loc}`: open gate `{}`", g.0.name())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
