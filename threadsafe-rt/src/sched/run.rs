//! One controlled run: threads enter, take turns at scheduling points, and finish.
//!
//! **Hand-off.** The thread that gives the turn stores the receiver's index in `turn`, then
//! unparks the receiver. The receiver spins on `turn` only while spinning has been paying off
//! on its thread ([`wait::spin`]: on an idle machine the giver runs on another core and the
//! turn comes in a microsecond), then parks. No wake-up is lost: the store comes before the
//! unpark, and an unpark that comes before the park makes the park return at once (std's
//! parking token); the receiver looks at `turn` again after every return from `park`.
//! Nothing ever yields: on a busy machine `yield_now` hands the core to another process for
//! a whole time slice, while the thread we wait for may be queued behind us.
//!
//! **Bounded wait.** A holder of the turn that blocked outside the scheduler would leave
//! the parked threads waiting forever; the process's watchdog thread (`watchdog.rs`) watches
//! the runs that have a parked thread and sets such a holder aside.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::state::{State, Status};
use super::{current_index, watchdog, Blocker, Futile, Run, Scheduler, CALL, CURRENT};
use crate::lock::lock;
use crate::os::{current_tid, outside_asleep_for_good};
use crate::parker::Parker;
use crate::point::{Aborted, PointKind, Step, Var, Where};
use crate::wait;

const NOBODY: usize = usize::MAX;

/// How long a run whose threads all wait, one for a pending future's wake-up, waits for a
/// thread outside it to call the waker or to sleep for good (`outside_wake`) before it gives
/// up control; and how often it looks meanwhile.
const OUTSIDE_WAKE: Duration = Duration::from_secs(1);
const OUTSIDE_LOOK_GAP: Duration = Duration::from_millis(1);

/// Scheduling points one controlled run takes at most; at the next, it gives up control and
/// its threads run the rest free. Tests of the papers' bugs take tens to hundreds; a call
/// that walks a large collection point by point (a vector grown to 65,536 elements, a lock
/// per element) would take seconds per run under control and hold up the whole check.
pub(crate) const MAX_STEPS: usize = 10_000;

/// Marks a thread as inside the scheduler's own code while alive.
pub(super) struct Inside<'a>(&'a AtomicUsize);

impl Drop for Inside<'_> {
    fn drop(&mut self) {
        // Only the thread itself changes its depth.
        self.0
            .store(self.0.load(Ordering::Relaxed) - 1, Ordering::Release);
    }
}

thread_local! {
    static TID: u64 = current_tid();
}

impl Run {
    #[cfg(test)]
    pub(crate) fn new(n: usize, scheduler: Box<dyn Scheduler>) -> Arc<Run> {
        Run::with_futile(n, scheduler, Arc::default())
    }

    /// A run that passes over the points `futile` holds, and adds those it finds.
    pub(crate) fn with_futile(
        n: usize,
        scheduler: Box<dyn Scheduler>,
        futile: Arc<Futile>,
    ) -> Arc<Run> {
        Arc::new(Run {
            n,
            turn: AtomicUsize::new(NOBODY),
            abort: AtomicBool::new(false),
            free: AtomicBool::new(false),
            cut: AtomicBool::new(false),
            partial: AtomicBool::new(false),
            progress: AtomicUsize::new(0),
            threads: (0..n).map(|_| OnceLock::new()).collect(),
            inside: (0..n).map(|_| AtomicUsize::new(0)).collect(),
            parked: AtomicUsize::new(0),
            watched: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            state: Mutex::new(State {
                scheduler,
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

    pub(super) fn state(&self) -> std::sync::MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Thread `me` is inside the scheduler's own code until the guard is dropped.
    pub(super) fn inside(&self, me: usize) -> Inside<'_> {
        let depth = &self.inside[me];
        depth.store(depth.load(Ordering::Relaxed) + 1, Ordering::Release);
        Inside(depth)
    }

    /// [`inside`](Self::inside) for the calling thread, if it belongs to a run.
    pub(super) fn inside_here(&self) -> Option<Inside<'_>> {
        current_index()
            .filter(|&me| me < self.n)
            .map(|me| self.inside(me))
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

    /// True while the run still controls its threads: neither deadlocked (aborted) nor
    /// given up (free).
    pub(crate) fn has_control(&self) -> bool {
        !self.free.load(Ordering::Acquire) && !self.abort.load(Ordering::Acquire)
    }

    /// True if the run reached [`MAX_STEPS`]: it ran free from there.
    pub(crate) fn cut(&self) -> bool {
        self.cut.load(Ordering::Acquire)
    }

    /// True if a thread blocked outside the scheduler (code using std locks), or the run
    /// was [`cut`](Self::cut): the run was then partly or wholly free-running.
    pub(crate) fn lost_control(&self) -> bool {
        self.free.load(Ordering::Acquire) || self.partial.load(Ordering::Acquire)
    }

    /// Thread `me` reached a scheduling point (or finished) after being set aside as blocked
    /// outside the scheduler: it becomes runnable again and waits for its turn, unless nobody
    /// holds the turn, in which case it takes it.
    fn rejoin(self: &Arc<Self>, me: usize) {
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

    /// The thread holding the turn is blocked outside the scheduler (seen so while the
    /// progress count stood at `progress`): set it aside and give the turn to another
    /// runnable thread; with none, give up control for this run.
    pub(super) fn set_aside(&self, holder: usize, progress: usize) {
        let mut st = self.state();
        if self.turn.load(Ordering::Acquire) != holder
            || st.status[holder] != Status::Runnable
            || self.progress() != progress
            || self.inside[holder].load(Ordering::Acquire) != 0
        {
            return;
        }
        st.status[holder] = Status::Outside;
        self.partial.store(true, Ordering::Release);
        if let Some(at) = lock(&self.last_switch).take() {
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

    /// Nobody can run: a deadlock (the blocked threads are unwound), unless a thread set
    /// aside outside the scheduler may still come back (then the turn waits for it), or a
    /// pending future may still be woken from outside the run ([`outside_wake`]
    /// (Self::outside_wake)).
    fn nobody_runnable(self: &Arc<Self>, mut st: std::sync::MutexGuard<'_, State>) {
        if st.status.contains(&Status::Outside) {
            self.turn.store(NOBODY, Ordering::Release);
            return;
        }
        let blocked = st.blocked();
        if blocked
            .iter()
            .any(|(_, b, _)| matches!(b, Blocker::Wake(_)))
        {
            self.turn.store(NOBODY, Ordering::Release);
            drop(st);
            self.outside_wake();
            return;
        }
        st.deadlock = Some(blocked);
        drop(st);
        self.abort_all();
    }

    /// Every thread of the run waits, one of them for a pending future's wake-up. Only the
    /// run's threads can make a lock free or notify a `sync` condition variable, but a waker
    /// may be called by any thread: one of the code under test's own (a background worker
    /// completing a request, a timer). So the lost wake-up is declared only when every
    /// thread of the process outside the run sleeps for good
    /// ([`outside_asleep_for_good`]); a wake that comes first gives the turn to the woken
    /// thread; and when neither happened within [`OUTSIDE_WAKE`], control is given up and the
    /// run goes on free, where a hang is judged as any hang is.
    fn outside_wake(self: &Arc<Self>) {
        let me = TID.with(|t| *t);
        let ours: Vec<u64> = (0..self.n).map(|t| self.tid(t)).collect();
        let deadline = Instant::now() + OUTSIDE_WAKE;
        loop {
            let asleep = self.closed.load(Ordering::Acquire) || outside_asleep_for_good(me, &ours);
            let mut st = self.state();
            let runnable = st.runnable();
            if !runnable.is_empty() {
                let next = st.choose(&runnable, None, false, None);
                drop(st);
                self.give_turn(next);
                return;
            }
            if asleep {
                st.deadlock = Some(st.blocked());
                drop(st);
                self.abort_all();
                return;
            }
            drop(st);
            if Instant::now() >= deadline {
                self.release_control();
                return;
            }
            Parker::current().park_timeout(OUTSIDE_LOOK_GAP);
        }
    }

    /// Declares that no thread outside the run calls its futures' wakers (a unit test's
    /// run, whose process runs other tests at the same time).
    #[cfg(test)]
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
    }

    pub(crate) fn progress(&self) -> usize {
        self.progress.load(Ordering::Acquire)
    }

    /// Runs `f` as thread `t` of this run: waits until the strategy gives `t` the turn, and
    /// hands the turn on when `f` returns. A deadlock of the run unwinds `f` with [`Aborted`]
    /// (caught by the caller's `catch_unwind`).
    pub(crate) fn enter<R>(self: &Arc<Self>, t: usize, f: impl FnOnce() -> R) -> R {
        let inside = self.inside(t);
        let _ = self.threads[t].set((Parker::current(), TID.with(|t| *t)));
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
            // The first to arrive chooses who starts, among all the threads: one that has
            // not arrived yet takes the turn when it does. Waiting for all to arrive first
            // costs a hand-off there and back whenever the first arriver is chosen to start
            // (a context switch each way on a busy machine).
            if st.arrived == 1 {
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
        drop(inside);
        let r = f();
        drop(exit);
        r
    }

    fn finish(self: &Arc<Self>, t: usize) {
        if self.abort.load(Ordering::Acquire) || self.free.load(Ordering::Acquire) {
            return;
        }
        let _inside = self.inside(t);
        self.rejoin(t);
        *lock(&self.last_switch) = None;
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
                } else {
                    self.nobody_runnable(st);
                    return;
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

    /// Waits until thread `me` has the turn (or the run was aborted or freed): spins while
    /// that pays off, then parks until the giver unparks it (no timeout: the watchdog looks
    /// after a holder that blocked outside the scheduler).
    fn wait_for_turn(self: &Arc<Self>, me: usize) {
        let ready = || {
            self.turn.load(Ordering::Acquire) == me
                || self.free.load(Ordering::Acquire)
                || self.abort.load(Ordering::Acquire)
        };
        if !wait::spin(wait::WaitKind::Controlled, ready) {
            self.parked.fetch_add(1, Ordering::AcqRel);
            if !self.watched.swap(true, Ordering::AcqRel) {
                watchdog::watch(self);
            }
            let parker = Parker::current();
            while !ready() {
                parker.park();
            }
            self.parked.fetch_sub(1, Ordering::AcqRel);
        }
        if self.abort.load(Ordering::Acquire) && !std::thread::panicking() {
            std::panic::resume_unwind(Box::new(Aborted));
        }
    }

    /// Whether a thread is parked waiting for its turn.
    pub(super) fn has_parked_waiter(&self) -> bool {
        self.parked.load(Ordering::Acquire) > 0
    }

    /// The thread holding the turn, if any.
    pub(super) fn holder(&self) -> Option<usize> {
        Some(self.turn.load(Ordering::Acquire)).filter(|&t| t != NOBODY)
    }

    /// Whether thread `t` is inside the scheduler's own code.
    pub(super) fn is_inside(&self, t: usize) -> bool {
        self.inside[t].load(Ordering::Acquire) != 0
    }

    /// The kernel's id of thread `t` (0 before it entered, or where unknown).
    pub(super) fn tid(&self, t: usize) -> u64 {
        self.threads[t].get().map_or(0, |(_, tid)| *tid)
    }

    /// A scheduling point of thread `me`: record the step, let the strategy choose.
    pub(crate) fn point(
        self: &Arc<Self>,
        me: usize,
        op: PointKind,
        obj: usize,
        var: Var,
        at: Where,
    ) {
        if self.free.load(Ordering::Acquire) || self.abort.load(Ordering::Acquire) {
            return;
        }
        let _inside = self.inside(me);
        self.rejoin(me);
        if self.futile.contains(at) {
            return;
        }
        let next = {
            let mut st = self.state();
            if st.trace.len() >= MAX_STEPS {
                drop(st);
                self.cut.store(true, Ordering::Release);
                self.release_control();
                return;
            }
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
            let next = st.choose(&runnable, Some(me), op == PointKind::Yield, Some(&step));
            step.held = next != me;
            st.trace.push(step);
            if step.held {
                st.pending[me] = Some(step);
            } else {
                st.scheduler.ran(&step);
            }
            next
        };
        if next != me {
            *lock(&self.last_switch) = Some(at);
            self.give_turn(next);
            self.wait_for_turn(me);
        } else {
            self.progress.fetch_add(1, Ordering::Release);
        }
    }

    /// Thread `me` cannot go on until woken: hand the turn to someone else, or declare the
    /// deadlock if nobody can run.
    pub(super) fn block(
        self: &Arc<Self>,
        me: usize,
        mut st: std::sync::MutexGuard<'_, State>,
        why: Blocker,
        at: Where,
    ) {
        st.status[me] = Status::Blocked(why, at);
        *lock(&self.last_switch) = None;
        let runnable = st.runnable();
        if runnable.is_empty() {
            self.nobody_runnable(st);
            self.wait_for_turn(me);
            return;
        }
        let next = st.scheduler.next(&runnable, None, false);
        drop(st);
        self.give_turn(next);
        self.wait_for_turn(me);
    }
}
