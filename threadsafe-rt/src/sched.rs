//! Controlled runs: the suffix threads are real threads, but one runs at a time.
//!
//! Every operation of a `threadsafe_rt::sync` primitive, and every statement point that
//! `#[thread_safe]` puts in the annotated methods, is a *scheduling point*: the running
//! thread asks the strategy which thread continues, hands the turn over, and waits for it
//! to come back. Locks, condition variables and barriers of `threadsafe_rt::sync` are
//! tracked here, so a thread that would block is taken off the runnable set instead; when no
//! thread is runnable and some are blocked, the run is deadlocked, exactly, and the blocked
//! threads are unwound.
//!
//! Code that blocks outside the scheduler (a `std::sync::Mutex` held by a thread that is
//! waiting for its turn) would hang a controlled run. The hand-off is bounded: when the
//! thread holding the turn makes no progress for a while and the operating system says it
//! is blocked, control is given up for the rest of the run, which then completes free-running
//! and is reported as not fully controlled.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::worker::{current_tid, thread_is_blocked};

const NOBODY: usize = usize::MAX;

/// How long the thread holding the turn may go without reaching a scheduling point before
/// the others check whether it is blocked outside the scheduler.
const HANDOFF_BOUND: Duration = Duration::from_micros(200);

/// A source location of a scheduling point: a `sync` operation's caller, or a statement
/// point of an annotated method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Where {
    /// The caller of a `threadsafe_rt::sync` operation.
    Code(&'static Location<'static>),
    /// A statement of an annotated method.
    Statement(&'static StatementPoint),
}

/// A statement point inserted by `#[thread_safe]`: the method and the statement's line.
#[doc(hidden)]
#[derive(Debug, PartialEq, Eq)]
pub struct StatementPoint {
    /// The annotated method.
    pub method: &'static str,
    /// The source file.
    pub file: &'static str,
    /// The statement's line.
    pub line: u32,
    /// The fields of `self` the statement accesses, in source order (see [`FieldAccess`]).
    pub fields: &'static [FieldAccess],
}

/// A field of `self` that a statement accesses, as `#[thread_safe]` reads it from the
/// source: a *write* when the field is assigned, borrowed `&mut`, or the receiver of a
/// method that changes or locks it (`lock`, `write`, `store`, `fetch_add`, `insert`,
/// `push`, ...); a *read* otherwise (`read`, `load`, `get`, `len`, passed by reference).
#[doc(hidden)]
#[derive(Debug, PartialEq, Eq)]
pub struct FieldAccess {
    /// The field's name (`"0"` for a tuple struct's first field).
    pub field: &'static str,
    /// True for a write, false for a read.
    pub write: bool,
}

impl std::fmt::Display for Where {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Where::Code(l) => write!(f, "{}:{}:{}", l.file(), l.line(), l.column()),
            Where::Statement(p) => write!(f, "{}:{} (in `{}`)", p.file, p.line, p.method),
        }
    }
}

/// What a thread does at a scheduling point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Lock,
    ReadLock,
    Load,
    Store,
    ReadModifyWrite,
    Wait,
    Notify,
    Barrier,
    Yield,
    Statement,
}

impl Op {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Op::Lock => "lock",
            Op::ReadLock => "read lock",
            Op::Load => "load",
            Op::Store => "store",
            Op::ReadModifyWrite => "read-modify-write",
            Op::Wait => "wait",
            Op::Notify => "notify",
            Op::Barrier => "barrier wait",
            Op::Yield => "yield",
            Op::Statement => "statement",
        }
    }
}

/// The shared variable an operation accesses: where its primitive was created (none for
/// statement points, condvars, barriers and yields).
pub(crate) type Var = Option<&'static Location<'static>>;

/// One step of a controlled run, for the report's interleaving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    pub(crate) thread: usize,
    /// The call of the thread's suffix that was running (see [`set_call`]).
    pub(crate) call: usize,
    pub(crate) op: Op,
    pub(crate) obj: usize,
    /// Where the primitive operated on was created: its name as a shared variable.
    pub(crate) var: Var,
    pub(crate) at: Where,
    /// The scheduler switched away here: the thread runs the operation when it next gets
    /// the turn (otherwise it ran it at once).
    pub(crate) held: bool,
}

/// Why a thread cannot run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blocker {
    Lock(usize),
    Condvar(usize),
    Barrier(usize),
}

impl Blocker {
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Blocker::Lock(_) => "waiting for a lock",
            Blocker::Condvar(_) => "waiting for a notification",
            Blocker::Barrier(_) => "waiting at a barrier",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Absent,
    Runnable,
    Blocked(Blocker, Where),
    /// Had the turn but blocked outside the scheduler (a std lock held by another thread,
    /// a sleep): set aside until it reaches its next scheduling point.
    Outside,
    Finished,
}

// ---------------------------------------------------------------------------------------
// Strategies: who runs next.
// ---------------------------------------------------------------------------------------

/// An oracle that decides who runs next at each scheduling point.
pub(crate) trait Strategy: Send {
    /// One of `runnable` (never empty); `current` is the thread at the point, if runnable;
    /// `yielding` when that point is a `yield_now` (the thread waits for another one).
    fn next(&mut self, runnable: &[usize], current: Option<usize>, yielding: bool) -> usize;
    /// Which of `n` waiters a `notify_one` wakes.
    fn pick(&mut self, n: usize) -> usize;
    /// True for a strategy that steers by what each thread does next: it is then asked
    /// with [`next_at`](Self::next_at) and told each operation that [`ran`](Self::ran).
    fn steers(&self) -> bool {
        false
    }
    /// [`next`](Self::next), knowing each thread's upcoming step: `upcoming[t]` is the
    /// step thread `t` is held at (for the current thread, the one it just reached).
    fn next_at(
        &mut self,
        runnable: &[usize],
        current: Option<usize>,
        yielding: bool,
        upcoming: &[Option<Step>],
    ) -> usize {
        let _ = upcoming;
        self.next(runnable, current, yielding)
    }
    /// The operation of `step` ran: at once, or when its thread got the turn back.
    fn ran(&mut self, step: &Step) {
        let _ = step;
    }
}

/// Uniformly random among the runnable threads at every point.
pub(crate) struct RandomWalk {
    rng: ChaCha8Rng,
}

impl RandomWalk {
    pub(crate) fn new(seed: u64) -> Self {
        RandomWalk {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Strategy for RandomWalk {
    fn next(&mut self, runnable: &[usize], current: Option<usize>, yielding: bool) -> usize {
        let others: Vec<usize> = runnable
            .iter()
            .copied()
            .filter(|&t| Some(t) != current)
            .collect();
        if yielding && !others.is_empty() {
            return others[self.rng.gen_range(0..others.len())];
        }
        runnable[self.rng.gen_range(0..runnable.len())]
    }
    fn pick(&mut self, n: usize) -> usize {
        self.rng.gen_range(0..n)
    }
}

/// Steps after which PCT picks uniformly: its priorities starve a lower thread forever when
/// the higher one spins waiting for it.
const PCT_FAIR_AFTER: usize = 10_000;

/// Probabilistic Concurrency Testing (Burckhardt et al., ASPLOS 2010): random distinct
/// priorities, the highest-priority runnable thread runs, and at `depth - 1` random steps
/// the running thread drops below everyone. A bug of depth `d` among `k` steps and `n`
/// threads is found with probability at least `1 / (n * k^(d-1))` per run.
pub(crate) struct Pct {
    rng: ChaCha8Rng,
    priorities: Vec<usize>,
    change_points: Vec<usize>,
    steps: usize,
}

impl Pct {
    /// `max_steps` estimates the steps of a run (learned from earlier runs).
    pub(crate) fn new(seed: u64, threads: usize, depth: usize, max_steps: usize) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let d = depth.max(1);
        let mut priorities: Vec<usize> = (d..d + threads).collect();
        for i in (1..priorities.len()).rev() {
            let j = rng.gen_range(0..=i);
            priorities.swap(i, j);
        }
        let change_points = (0..d - 1)
            .map(|_| rng.gen_range(1..=max_steps.max(1)))
            .collect();
        Pct {
            rng,
            priorities,
            change_points,
            steps: 0,
        }
    }
}

impl Strategy for Pct {
    fn next(&mut self, runnable: &[usize], current: Option<usize>, yielding: bool) -> usize {
        self.steps += 1;
        if self.steps > PCT_FAIR_AFTER {
            // A run this long is likely a spin loop waiting for a lower-priority thread:
            // from here on every runnable thread gets its chance.
            return runnable[self.rng.gen_range(0..runnable.len())];
        }
        if let Some(c) = current {
            if let Some(i) = self.change_points.iter().position(|&p| p == self.steps) {
                // Change point i: the running thread gets priority i, below all initial ones.
                self.priorities[c] = i;
            } else if yielding {
                // A thread that yields waits for another: it goes below everyone.
                let lowest = self.priorities.iter().copied().min().unwrap_or(0);
                self.priorities[c] = lowest.saturating_sub(1);
                if lowest == 0 {
                    for (t, p) in self.priorities.iter_mut().enumerate() {
                        if t != c {
                            *p += 1;
                        }
                    }
                }
            }
        }
        *runnable
            .iter()
            .max_by_key(|&&t| self.priorities.get(t).copied().unwrap_or(0))
            .expect("runnable is not empty")
    }
    fn pick(&mut self, n: usize) -> usize {
        self.rng.gen_range(0..n)
    }
}

// ---------------------------------------------------------------------------------------
// A controlled run.
// ---------------------------------------------------------------------------------------

#[derive(Default)]
struct LockState {
    writer: Option<usize>,
    readers: usize,
}

struct State {
    strategy: Box<dyn Strategy>,
    status: Vec<Status>,
    arrived: usize,
    locks: HashMap<usize, LockState>,
    condvars: HashMap<usize, Vec<usize>>,
    barriers: HashMap<usize, usize>,
    trace: Vec<Step>,
    /// Per thread, the step it was switched away at: its operation has not run yet.
    pending: Vec<Option<Step>>,
    /// Set when the run deadlocked: each blocked thread, what it waits for, and where.
    deadlock: Option<Vec<(usize, Blocker, Where)>>,
}

impl State {
    /// The strategy's choice among `runnable`; `step` is the current thread's new step.
    fn choose(
        &mut self,
        runnable: &[usize],
        current: Option<usize>,
        yielding: bool,
        step: Option<&Step>,
    ) -> usize {
        if !self.strategy.steers() {
            return self.strategy.next(runnable, current, yielding);
        }
        let mut upcoming = self.pending.clone();
        if let (Some(me), Some(step)) = (current, step) {
            upcoming[me] = Some(*step);
        }
        self.strategy
            .next_at(runnable, current, yielding, &upcoming)
    }

    /// Thread `t` has the turn again (or is done): the operation it was held at ran.
    fn resumed(&mut self, t: usize) {
        if let Some(step) = self.pending.get_mut(t).and_then(Option::take) {
            self.strategy.ran(&step);
        }
    }

    fn runnable(&self) -> Vec<usize> {
        (0..self.status.len())
            .filter(|&t| self.status[t] == Status::Runnable)
            .collect()
    }

    fn wake(&mut self, pred: impl Fn(Blocker) -> bool) {
        for s in &mut self.status {
            if let Status::Blocked(b, _) = *s {
                if pred(b) {
                    *s = Status::Runnable;
                }
            }
        }
    }

    fn blocked(&self) -> Vec<(usize, Blocker, Where)> {
        self.status
            .iter()
            .enumerate()
            .filter_map(|(t, s)| match *s {
                Status::Blocked(b, w) => Some((t, b, w)),
                _ => None,
            })
            .collect()
    }
}

/// Scheduling points where switching threads proved futile: the thread there held a lock
/// the scheduler cannot see (a `std::sync` guard), so the thread switched to blocked outside
/// the scheduler at once. Shared by the runs of one test; such points are passed over.
#[derive(Default)]
pub(crate) struct Futile(Mutex<std::collections::HashSet<usize>>);

impl Futile {
    fn key(at: Where) -> usize {
        match at {
            Where::Code(l) => l as *const Location<'static> as usize,
            Where::Statement(p) => p as *const StatementPoint as usize,
        }
    }

    fn contains(&self, at: Where) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&Self::key(at))
    }

    fn insert(&self, at: Where) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(Self::key(at));
    }
}

/// The payload a blocked thread unwinds with when its run deadlocked.
pub(crate) struct Aborted;

/// One controlled execution, shared by its threads.
pub(crate) struct Run {
    n: usize,
    turn: AtomicUsize,
    /// Set on a deadlock: blocked threads unwind.
    abort: AtomicBool,
    /// Set when control was given up: scheduling points do nothing any more.
    free: AtomicBool,
    /// Set when a thread blocked outside the scheduler and was set aside for a while: the
    /// run is then not exactly replayable.
    partial: AtomicBool,
    /// Grows at every scheduling point.
    progress: AtomicUsize,
    threads: Vec<OnceLock<(Thread, u64)>>,
    state: Mutex<State>,
    futile: Arc<Futile>,
    /// The point of the last switch made at a scheduling point: if the thread switched to
    /// blocks outside the scheduler, that point is futile.
    last_switch: Mutex<Option<Where>>,
}

thread_local! {
    static CURRENT: RefCell<Option<(Arc<Run>, usize)>> = const { RefCell::new(None) };
    static TID: u64 = current_tid();
    /// The suffix call this thread is running, for the trace.
    static CALL: Cell<usize> = const { Cell::new(0) };
    /// Scheduling points reached outside controlled runs (to tell whether a type has any).
    static POINTS: Cell<u64> = const { Cell::new(0) };
    /// Stress-mode noise at statement points: xorshift state, 0 when off.
    static NOISE: Cell<u64> = const { Cell::new(0) };
    /// The operations this thread performed outside controlled runs, while recording.
    static RECORDED: RefCell<Option<Vec<Recorded>>> = const { RefCell::new(None) };
}

/// An operation performed outside a controlled run while [`record`] was on: what a
/// sequential run of a method accesses, for MAP-coverage's feasible patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Recorded {
    pub(crate) op: Op,
    pub(crate) var: Var,
    pub(crate) at: Where,
}

/// Starts (`true`) or stops recording this thread's operations outside controlled runs.
/// Stopping discards what was not taken.
pub(crate) fn record(on: bool) {
    RECORDED.with(|r| *r.borrow_mut() = on.then(Vec::new));
}

/// The operations recorded since the last call (empty when not recording).
pub(crate) fn take_recorded() -> Vec<Recorded> {
    RECORDED.with(|r| {
        r.borrow_mut()
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    })
}

/// Whether this thread records (then the `sync` shims report their accesses).
fn recording() -> bool {
    RECORDED
        .try_with(|r| r.try_borrow().map(|r| r.is_some()).unwrap_or(false))
        .unwrap_or(false)
}

/// Records an operation outside a controlled run, if recording.
fn note(op: Op, var: Var, at: Where) {
    let _ = RECORDED.try_with(|r| {
        if let Ok(mut r) = r.try_borrow_mut() {
            if let Some(r) = r.as_mut() {
                r.push(Recorded { op, var, at });
            }
        }
    });
}

/// Tags the steps this thread takes from now on with suffix call `k`.
pub(crate) fn set_call(k: usize) {
    CALL.with(|c| c.set(k));
}

/// Scheduling points this thread reached outside controlled runs so far.
pub(crate) fn points_seen() -> u64 {
    POINTS.with(Cell::get)
}

/// Turns stress-mode noise at statement points on (a non-zero seed) or off (0).
pub(crate) fn set_noise(seed: u64) {
    NOISE.with(|n| n.set(seed));
}

/// A statement point of an annotated method: a scheduling point in a controlled run; in a
/// free-running one with noise on, now and then a short spin or a yield, which widens race
/// windows between statements.
pub(crate) fn statement(p: &'static StatementPoint) {
    if let Some((run, me)) = current() {
        run.point(me, Op::Statement, 0, None, Where::Statement(p));
        return;
    }
    POINTS.with(|c| c.set(c.get() + 1));
    note(Op::Statement, None, Where::Statement(p));
    if crate::gates::active() {
        crate::gates::statement(p);
    }
    NOISE.with(|n| {
        let mut x = n.get();
        if x == 0 {
            return;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        n.set(x);
        match x % 16 {
            0 => std::thread::yield_now(),
            1..=3 => {
                for _ in 0..(1u32 << ((x >> 8) % 10)) {
                    std::hint::spin_loop();
                }
            }
            _ => {}
        }
    });
}

fn current() -> Option<(Arc<Run>, usize)> {
    CURRENT.with(|c| c.borrow().clone())
}

impl Run {
    #[cfg(test)]
    pub(crate) fn new(n: usize, strategy: Box<dyn Strategy>) -> Arc<Run> {
        Run::with_futile(n, strategy, Arc::default())
    }

    /// A run that passes over the points `futile` holds, and adds those it finds.
    pub(crate) fn with_futile(
        n: usize,
        strategy: Box<dyn Strategy>,
        futile: Arc<Futile>,
    ) -> Arc<Run> {
        Arc::new(Run {
            n,
            turn: AtomicUsize::new(NOBODY),
            abort: AtomicBool::new(false),
            free: AtomicBool::new(false),
            partial: AtomicBool::new(false),
            progress: AtomicUsize::new(0),
            threads: (0..n).map(|_| OnceLock::new()).collect(),
            state: Mutex::new(State {
                strategy,
                status: vec![Status::Absent; n],
                arrived: 0,
                locks: HashMap::new(),
                condvars: HashMap::new(),
                barriers: HashMap::new(),
                trace: Vec::new(),
                pending: vec![None; n],
                deadlock: None,
            }),
            futile,
            last_switch: Mutex::new(None),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The steps taken, in order.
    pub(crate) fn trace(&self) -> Vec<Step> {
        self.state().trace.clone()
    }

    /// Scheduling points the run went through.
    pub(crate) fn steps(&self) -> usize {
        self.state().trace.len()
    }

    /// The blocked threads, if the run deadlocked.
    pub(crate) fn deadlock(&self) -> Option<Vec<(usize, Blocker, Where)>> {
        self.state().deadlock.clone()
    }

    /// True if a thread blocked outside the scheduler (code using std locks): the run was
    /// then partly or, when nobody else could run, wholly free-running.
    pub(crate) fn lost_control(&self) -> bool {
        self.free.load(Ordering::Acquire) || self.partial.load(Ordering::Acquire)
    }

    /// Thread `me` reached a scheduling point (or finished) after being set aside as blocked
    /// outside the scheduler: it becomes runnable again and waits for its turn, unless nobody
    /// holds the turn, in which case it takes it.
    fn rejoin(&self, me: usize) {
        let mut st = self.state();
        if st.status[me] != Status::Outside {
            return;
        }
        st.status[me] = Status::Runnable;
        if self.turn.load(Ordering::Acquire) == NOBODY {
            self.turn.store(me, Ordering::Release);
            self.progress.fetch_add(1, Ordering::Release);
            return;
        }
        drop(st);
        self.wait_for_turn(me);
    }

    /// The thread holding the turn is blocked outside the scheduler: set it aside and give
    /// the turn to another runnable thread; with none, give up control for this run.
    fn set_aside(&self, holder: usize) {
        let mut st = self.state();
        if self.turn.load(Ordering::Acquire) != holder || st.status[holder] != Status::Runnable {
            return;
        }
        st.status[holder] = Status::Outside;
        self.partial.store(true, Ordering::Release);
        if let Some(at) = self
            .last_switch
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            self.futile.insert(at);
        }
        let runnable = st.runnable();
        if runnable.is_empty() {
            drop(st);
            self.release_control();
            return;
        }
        let next = st.choose(&runnable, None, false, None);
        drop(st);
        self.give_turn(next);
    }

    /// Nobody can run: a deadlock, unless a thread set aside outside the scheduler may still
    /// come back (then the turn waits for it).
    fn nobody_runnable(&self, st: &mut State) -> bool {
        if st.status.contains(&Status::Outside) {
            self.turn.store(NOBODY, Ordering::Release);
            return false;
        }
        st.deadlock = Some(st.blocked());
        true
    }

    pub(crate) fn progress(&self) -> usize {
        self.progress.load(Ordering::Acquire)
    }

    /// Runs `f` as thread `t` of this run: waits until all threads arrived and the strategy
    /// gives `t` the turn, and hands the turn on when `f` returns. A deadlock of the run
    /// unwinds `f` with [`Aborted`] (caught by the caller's `catch_unwind`).
    pub(crate) fn enter<R>(self: &Arc<Self>, t: usize, f: impl FnOnce() -> R) -> R {
        let _ = self.threads[t].set((std::thread::current(), TID.with(|t| *t)));
        CURRENT.with(|c| *c.borrow_mut() = Some((self.clone(), t)));
        struct Exit<'a>(&'a Arc<Run>, usize);
        impl Drop for Exit<'_> {
            fn drop(&mut self) {
                CURRENT.with(|c| *c.borrow_mut() = None);
                self.0.finish(self.1);
            }
        }
        let exit = Exit(self, t);
        let first = {
            let mut st = self.state();
            st.status[t] = Status::Runnable;
            st.arrived += 1;
            if st.arrived == self.n {
                let runnable = st.runnable();
                Some(st.choose(&runnable, None, false, None))
            } else {
                None
            }
        };
        if let Some(first) = first {
            self.give_turn(first);
        }
        self.wait_for_turn(t);
        let r = f();
        drop(exit);
        r
    }

    fn finish(&self, t: usize) {
        if self.abort.load(Ordering::Acquire) || self.free.load(Ordering::Acquire) {
            return;
        }
        self.rejoin(t);
        *self.last_switch.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let next = {
            let mut st = self.state();
            st.status[t] = Status::Finished;
            st.resumed(t);
            let runnable = st.runnable();
            if runnable.is_empty() {
                if st.blocked().is_empty() {
                    // All done, or only threads set aside outside left: the turn waits for them.
                    self.turn.store(NOBODY, Ordering::Release);
                    None
                } else if self.nobody_runnable(&mut st) {
                    drop(st);
                    self.abort_all();
                    return;
                } else {
                    None
                }
            } else {
                Some(st.choose(&runnable, None, false, None))
            }
        };
        if let Some(next) = next {
            self.give_turn(next);
        }
    }

    fn give_turn(&self, t: usize) {
        self.progress.fetch_add(1, Ordering::Release);
        if self.turn.load(Ordering::Acquire) == t {
            return;
        }
        self.turn.store(t, Ordering::Release);
        if let Some((th, _)) = self.threads[t].get() {
            th.unpark();
        }
    }

    fn abort_all(&self) {
        self.abort.store(true, Ordering::Release);
        for th in self.threads.iter().filter_map(OnceLock::get) {
            th.0.unpark();
        }
    }

    fn release_control(&self) {
        self.free.store(true, Ordering::Release);
        for th in self.threads.iter().filter_map(OnceLock::get) {
            th.0.unpark();
        }
    }

    /// Waits until thread `me` has the turn (or the run was aborted or freed).
    fn wait_for_turn(&self, me: usize) {
        let mut spins = 0u32;
        let mut since: Option<(usize, usize, Instant)> = None;
        loop {
            if self.abort.load(Ordering::Acquire) {
                if !std::thread::panicking() {
                    std::panic::resume_unwind(Box::new(Aborted));
                }
                return;
            }
            let turn = self.turn.load(Ordering::Acquire);
            if turn == me || self.free.load(Ordering::Acquire) {
                return;
            }
            spins += 1;
            if spins < 256 {
                std::hint::spin_loop();
                continue;
            }
            if spins < 512 {
                std::thread::yield_now();
                continue;
            }
            // Bounded hand-off: is the thread with the turn stuck outside the scheduler?
            let progress = self.progress();
            match since {
                Some((p, t, at)) if p == progress && t == turn => {
                    if at.elapsed() >= HANDOFF_BOUND && turn != NOBODY {
                        let blocked = self.threads[turn]
                            .get()
                            .is_some_and(|(_, tid)| thread_is_blocked(*tid));
                        if blocked {
                            self.set_aside(turn);
                        }
                        since = Some((self.progress(), turn, Instant::now()));
                    }
                }
                _ => since = Some((progress, turn, Instant::now())),
            }
            std::thread::park_timeout(HANDOFF_BOUND / 4);
        }
    }

    /// A scheduling point of thread `me`: record the step, let the strategy choose.
    fn point(self: &Arc<Self>, me: usize, op: Op, obj: usize, var: Var, at: Where) {
        if self.free.load(Ordering::Acquire) || self.abort.load(Ordering::Acquire) {
            return;
        }
        self.rejoin(me);
        if self.futile.contains(at) {
            return;
        }
        let next = {
            let mut st = self.state();
            st.resumed(me);
            let mut step = Step {
                thread: me,
                call: CALL.with(Cell::get),
                op,
                obj,
                var,
                at,
                held: false,
            };
            let runnable = st.runnable();
            let next = st.choose(&runnable, Some(me), op == Op::Yield, Some(&step));
            step.held = next != me;
            st.trace.push(step);
            if step.held {
                st.pending[me] = Some(step);
            } else {
                st.strategy.ran(&step);
            }
            next
        };
        if next != me {
            *self.last_switch.lock().unwrap_or_else(|e| e.into_inner()) = Some(at);
            self.give_turn(next);
            self.wait_for_turn(me);
        } else {
            self.progress.fetch_add(1, Ordering::Release);
        }
    }

    /// Thread `me` cannot go on until woken: hand the turn to someone else, or declare the
    /// deadlock if nobody can run.
    fn block(
        self: &Arc<Self>,
        me: usize,
        mut st: std::sync::MutexGuard<'_, State>,
        why: Blocker,
        at: Where,
    ) {
        st.status[me] = Status::Blocked(why, at);
        *self.last_switch.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let runnable = st.runnable();
        if runnable.is_empty() {
            if self.nobody_runnable(&mut st) {
                drop(st);
                self.abort_all();
            } else {
                drop(st);
            }
            self.wait_for_turn(me);
            return;
        }
        let next = st.strategy.next(&runnable, None, false);
        drop(st);
        self.give_turn(next);
        self.wait_for_turn(me);
    }

    fn acquire(self: &Arc<Self>, me: usize, obj: usize, var: Var, exclusive: bool, at: Where) {
        let op = if exclusive { Op::Lock } else { Op::ReadLock };
        self.point(me, op, obj, var, at);
        loop {
            if self.free.load(Ordering::Acquire) || self.abort.load(Ordering::Acquire) {
                return;
            }
            let mut st = self.state();
            let l = st.locks.entry(obj).or_default();
            let free = l.writer.is_none() && (!exclusive || l.readers == 0);
            if free {
                if exclusive {
                    l.writer = Some(me);
                } else {
                    l.readers += 1;
                }
                return;
            }
            self.block(me, st, Blocker::Lock(obj), at);
        }
    }

    fn release(&self, obj: usize, exclusive: bool) {
        if self.free.load(Ordering::Acquire) || self.abort.load(Ordering::Acquire) {
            return;
        }
        let mut st = self.state();
        if let Some(l) = st.locks.get_mut(&obj) {
            if exclusive {
                l.writer = None;
            } else {
                l.readers = l.readers.saturating_sub(1);
            }
        }
        st.wake(|b| b == Blocker::Lock(obj));
    }
}

// ---------------------------------------------------------------------------------------
// The hooks the `sync` shims and statement points call. Outside a controlled run they
// return at once.
// ---------------------------------------------------------------------------------------

/// A scheduling point before an operation on `obj`.
pub(crate) fn point(op: Op, obj: usize, var: Var, at: Where) {
    match current() {
        Some((run, me)) => run.point(me, op, obj, var, at),
        None => {
            POINTS.with(|c| c.set(c.get() + 1));
            note(op, var, at);
        }
    }
}

/// Blocks (in the scheduler) until lock `obj` can be taken, and takes it.
pub(crate) fn acquire(obj: usize, var: Var, exclusive: bool, at: Where) {
    match current() {
        Some((run, me)) => run.acquire(me, obj, var, exclusive, at),
        None => {
            POINTS.with(|c| c.set(c.get() + 1));
            note(if exclusive { Op::Lock } else { Op::ReadLock }, var, at);
        }
    }
}

/// Takes lock `obj` if it is free; false otherwise. A scheduling point either way.
pub(crate) fn try_acquire(obj: usize, var: Var, exclusive: bool, at: Where) -> bool {
    let Some((run, me)) = current() else {
        note(if exclusive { Op::Lock } else { Op::ReadLock }, var, at);
        return true;
    };
    run.point(
        me,
        if exclusive { Op::Lock } else { Op::ReadLock },
        obj,
        var,
        at,
    );
    if run.free.load(Ordering::Acquire) || run.abort.load(Ordering::Acquire) {
        return true;
    }
    let mut st = run.state();
    let l = st.locks.entry(obj).or_default();
    if l.writer.is_none() && (!exclusive || l.readers == 0) {
        if exclusive {
            l.writer = Some(me);
        } else {
            l.readers += 1;
        }
        true
    } else {
        false
    }
}

/// Releases lock `obj`; threads blocked on it become runnable.
pub(crate) fn release(obj: usize, exclusive: bool) {
    if let Some((run, _)) = current() {
        run.release(obj, exclusive);
    }
}

/// Condition variable `cv`: releases lock `mutex`, waits for a notification, re-takes the
/// lock. A wait with no notifier left is a deadlock.
pub(crate) fn wait(cv: usize, mutex: usize, mutex_var: Var, at: Where) {
    let Some((run, me)) = current() else { return };
    run.point(me, Op::Wait, cv, None, at);
    if run.free.load(Ordering::Acquire) || run.abort.load(Ordering::Acquire) {
        return;
    }
    {
        let mut st = run.state();
        if let Some(l) = st.locks.get_mut(&mutex) {
            l.writer = None;
        }
        st.wake(|b| b == Blocker::Lock(mutex));
        st.condvars.entry(cv).or_default().push(me);
        run.block(me, st, Blocker::Condvar(cv), at);
    }
    run.acquire(me, mutex, mutex_var, true, at);
}

/// Wakes one waiter of `cv` (chosen by the strategy), or all.
pub(crate) fn notify(cv: usize, all: bool, at: Where) {
    let Some((run, me)) = current() else { return };
    run.point(me, Op::Notify, cv, None, at);
    if run.free.load(Ordering::Acquire) || run.abort.load(Ordering::Acquire) {
        return;
    }
    let mut st = run.state();
    let mut waiters = st.condvars.remove(&cv).unwrap_or_default();
    let woken: Vec<usize> = if all || waiters.is_empty() {
        std::mem::take(&mut waiters)
    } else {
        let i = st.strategy.pick(waiters.len());
        vec![waiters.swap_remove(i)]
    };
    if !waiters.is_empty() {
        st.condvars.insert(cv, waiters);
    }
    for t in woken {
        st.status[t] = Status::Runnable;
    }
}

/// A barrier of `n` threads: true for the thread that releases it.
pub(crate) fn barrier(obj: usize, n: usize, at: Where) -> Option<bool> {
    let (run, me) = current()?;
    run.point(me, Op::Barrier, obj, None, at);
    if run.free.load(Ordering::Acquire) || run.abort.load(Ordering::Acquire) {
        return None;
    }
    let mut st = run.state();
    let count = st.barriers.entry(obj).or_insert(0);
    *count += 1;
    if *count >= n {
        *count = 0;
        st.wake(|b| b == Blocker::Barrier(obj));
        return Some(true);
    }
    run.block(me, st, Blocker::Barrier(obj), at);
    Some(false)
}

/// The `sync` shims' fast path, once per operation: true on a thread of a controlled run that
/// still has control (without cloning the run); outside any run it counts a point seen, as
/// the hooks do. Uses `try_with`: a shim may run in a thread-local's destructor, where std's
/// primitives work too.
#[track_caller]
pub(crate) fn shim_controlled(op: Op) -> bool {
    let controlled = CURRENT
        .try_with(|c| {
            c.borrow().as_ref().map(|(run, _)| {
                !run.free.load(Ordering::Acquire) && !run.abort.load(Ordering::Acquire)
            })
        })
        .ok()
        .flatten();
    // Not `unwrap_or_else`: a closure would hide the caller's location from the gates.
    match controlled {
        Some(controlled) => controlled,
        None => {
            let _ = POINTS.try_with(|c| c.set(c.get() + 1));
            if crate::gates::active() {
                crate::gates::sync_op(op, Location::caller());
            }
            // While recording, the shim calls the hook, which notes the access.
            matches!(
                op,
                Op::Lock | Op::ReadLock | Op::Load | Op::Store | Op::ReadModifyWrite
            ) && recording()
        }
    }
}

/// Runs controlled threads by hand, for the scheduler's and the shims' unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::Run;
    use std::sync::Arc;

    /// Runs `bodies` as the threads of `run`, each on its own thread; whether each returned
    /// (rather than panicked or was unwound).
    pub(crate) fn run_threads(run: &Arc<Run>, bodies: Vec<Box<dyn FnOnce() + Send>>) -> Vec<bool> {
        let handles: Vec<_> = bodies
            .into_iter()
            .enumerate()
            .map(|(t, body)| {
                let run = run.clone();
                std::thread::spawn(move || crate::panics::catch(|| run.enter(t, body)).is_ok())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::run_threads;
    use super::*;

    fn here() -> Where {
        Where::Code(Location::caller())
    }

    /// Runs `bodies` as the threads of one controlled run.

    #[test]
    fn one_thread_at_a_time_and_the_same_seed_gives_the_same_interleaving() {
        let order = |seed: u64| {
            let run = Run::new(2, Box::new(RandomWalk::new(seed)));
            let log = Arc::new(Mutex::new(Vec::new()));
            let inside = Arc::new(AtomicUsize::new(0));
            let bodies: Vec<Box<dyn FnOnce() + Send>> = (0..2)
                .map(|t| {
                    let (log, inside) = (log.clone(), inside.clone());
                    Box::new(move || {
                        for i in 0..20 {
                            assert_eq!(
                                inside.fetch_add(1, Ordering::SeqCst),
                                0,
                                "two threads ran at once"
                            );
                            log.lock().unwrap().push((t, i));
                            inside.fetch_sub(1, Ordering::SeqCst);
                            point(Op::Yield, 0, None, here());
                        }
                    }) as Box<dyn FnOnce() + Send>
                })
                .collect();
            assert_eq!(run_threads(&run, bodies), vec![true, true]);
            let v = log.lock().unwrap().clone();
            v
        };
        let a = order(7);
        assert_eq!(a.len(), 40);
        for _ in 0..20 {
            assert_eq!(order(7), a);
        }
        assert!(
            (0..20).any(|s| order(s) != a),
            "different seeds interleave differently"
        );
    }

    #[test]
    fn lock_order_inversion_is_an_exact_deadlock() {
        // PCT with depth 2 and a few seeds: some schedule interleaves the two lock pairs.
        let mut found = false;
        for seed in 0..50 {
            let run = Run::new(2, Box::new(RandomWalk::new(seed)));
            let bodies: Vec<Box<dyn FnOnce() + Send>> = (0..2)
                .map(|t| {
                    Box::new(move || {
                        let (a, b) = if t == 0 { (1, 2) } else { (2, 1) };
                        acquire(a, None, true, here());
                        acquire(b, None, true, here());
                        release(b, true);
                        release(a, true);
                    }) as Box<dyn FnOnce() + Send>
                })
                .collect();
            let ok = run_threads(&run, bodies);
            if let Some(d) = run.deadlock() {
                assert_eq!(ok, vec![false, false], "both blocked threads unwound");
                assert_eq!(d.len(), 2);
                found = true;
                break;
            }
        }
        assert!(found, "no seed in 50 interleaved the lock pairs");
    }

    #[test]
    fn missed_notification_is_a_deadlock() {
        let run = Run::new(1, Box::new(RandomWalk::new(1)));
        let bodies: Vec<Box<dyn FnOnce() + Send>> = vec![Box::new(|| {
            acquire(1, None, true, here());
            wait(2, 1, None, here());
        })];
        assert_eq!(run_threads(&run, bodies), vec![false]);
        let d = run.deadlock().expect("deadlock");
        assert!(matches!(d[0].1, Blocker::Condvar(2)));
    }

    #[test]
    fn pct_prefers_the_highest_priority() {
        let mut p = Pct::new(3, 2, 1, 10);
        let first = p.next(&[0, 1], None, false);
        for _ in 0..10 {
            assert_eq!(
                p.next(&[0, 1], Some(first), false),
                first,
                "no change points with depth 1"
            );
        }
        let other = p.next(&[0, 1], Some(first), true);
        assert_ne!(other, first, "a yielding thread goes last");
        assert_eq!(
            p.next(&[0, 1], Some(other), false),
            other,
            "and stays there"
        );
    }

    #[test]
    fn a_spin_loop_on_yield_does_not_starve_the_thread_it_waits_for() {
        for seed in 0..10 {
            let strategy: Box<dyn Strategy> = if seed % 2 == 0 {
                Box::new(Pct::new(seed, 2, 2, 20))
            } else {
                Box::new(RandomWalk::new(seed))
            };
            let run = Run::new(2, strategy);
            let flag = Arc::new(AtomicBool::new(false));
            let bodies: Vec<Box<dyn FnOnce() + Send>> = (0..2)
                .map(|t| {
                    let flag = flag.clone();
                    Box::new(move || {
                        if t == 0 {
                            while !flag.load(Ordering::SeqCst) {
                                point(Op::Yield, 0, None, here());
                            }
                        } else {
                            point(Op::Statement, 0, None, here());
                            flag.store(true, Ordering::SeqCst);
                        }
                    }) as Box<dyn FnOnce() + Send>
                })
                .collect();
            assert_eq!(run_threads(&run, bodies), vec![true, true], "seed {seed}");
            assert!(run.steps() < 100, "seed {seed}: {} steps", run.steps());
        }
    }
}
