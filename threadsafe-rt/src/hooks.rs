//! The one entry the `sync` shims, [`crate::thread::yield_now`], the statement points and
//! [`crate::block_on`] (a pending future, a waker called) call.
//!
//! Each hook dispatches to whoever cares about the point:
//! - the controlled run the calling thread belongs to ([`crate::sched`]), which may switch
//!   threads there;
//! - otherwise, a gated test that runs ([`crate::gates`]), told where the thread is;
//! - recording, while MAP-coverage's sequential runs record what each method accesses;
//! - noise, in free-running executions: now and then a short spin or a yield at a statement
//!   point, which widens race windows between statements (no yield on a busy machine).
//!
//! Outside all of these a hook counts the point (to tell whether a type has any) and
//! returns.

use std::cell::{Cell, RefCell};
use std::panic::Location;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Weak};

use crate::point::{PointKind, StatementPoint, Var, Where};
use crate::sched;

thread_local! {
    /// Scheduling points reached outside controlled runs (to tell whether a type has any).
    static POINTS: Cell<u64> = const { Cell::new(0) };
    /// Stress-mode noise at statement points: xorshift state, 0 when off.
    static NOISE: Cell<u64> = const { Cell::new(0) };
    /// The longest stall of the noise, in `spin_loop` pauses.
    static NOISE_WINDOW: Cell<u32> = const { Cell::new(1) };
    /// The most stalls of the noise in one execution.
    static NOISE_STALLS: Cell<u32> = const { Cell::new(0) };
    /// The stalls the noise has left in this execution.
    static NOISE_LEFT: Cell<u32> = const { Cell::new(0) };
    /// Whether the noise yields the core now and then. Not on a busy machine, where the
    /// threads run pinned apart (`exec/cores.rs`): there a thread's core is shared with
    /// another process, and a yield hands it over for a whole time slice (milliseconds),
    /// while its peer waits. The machine preempts the threads there anyway. Beside a busy
    /// process, checks of a race inside one call of a dependency ran several times as many
    /// executions without the yields, and found it at least as often (see decision 0065).
    static NOISE_YIELDS: Cell<bool> = const { Cell::new(true) };
    /// The operations this thread performed outside controlled runs, while recording.
    static RECORDED: RefCell<Option<Vec<Recorded>>> = const { RefCell::new(None) };
}

/// An operation performed outside a controlled run while [`record`] was on: what a
/// sequential run of a method accesses, for MAP-coverage's feasible patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Recorded {
    pub(crate) op: PointKind,
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
fn note(op: PointKind, var: Var, at: Where) {
    let _ = RECORDED.try_with(|r| {
        if let Ok(mut r) = r.try_borrow_mut() {
            if let Some(r) = r.as_mut() {
                r.push(Recorded { op, var, at });
            }
        }
    });
}

/// Counts a point reached outside controlled runs.
fn count_point() {
    let _ = POINTS.try_with(|c| c.set(c.get() + 1));
}

/// Scheduling points this thread reached outside controlled runs so far.
pub(crate) fn points_seen() -> u64 {
    POINTS.with(Cell::get)
}

/// Turns stress-mode noise at statement points on (a non-zero seed) or off (0), for one
/// execution: the stalls it may make start afresh.
pub(crate) fn set_noise(seed: u64) {
    NOISE.with(|n| n.set(seed));
    NOISE_LEFT.with(|left| left.set(NOISE_STALLS.with(Cell::get)));
}

/// Bounds each of the noise's stalls to `pauses` (about as long as the test's calls take)
/// and their number in one execution to `stalls` (see `exec/offsets.rs`).
pub(crate) fn set_noise_bounds(pauses: u32, stalls: u32) {
    NOISE_WINDOW.with(|w| w.set(pauses));
    NOISE_STALLS.with(|s| s.set(stalls));
}

/// Whether the noise may yield the core (not where threads are pinned apart on a busy
/// machine: see [`NOISE_YIELDS`]).
pub(crate) fn set_noise_yields(on: bool) {
    NOISE_YIELDS.with(|y| y.set(on));
}

/// A statement point of an annotated method.
pub(crate) fn statement(p: &'static StatementPoint) {
    if let Some((run, me)) = sched::current() {
        run.point(me, PointKind::Statement, 0, None, Where::Statement(p));
        return;
    }
    count_point();
    note(PointKind::Statement, None, Where::Statement(p));
    if crate::gates::active() {
        crate::gates::statement(p);
    }
    NOISE.with(|n| {
        let x = n.get();
        if x == 0 {
            return;
        }
        let window = NOISE_WINDOW.with(Cell::get);
        let (x, stall) = next_stall(x, window, NOISE_YIELDS.with(Cell::get));
        n.set(x);
        match NOISE_LEFT.with(|left| within(stall, left)) {
            Stall::Yield => std::thread::yield_now(),
            Stall::Spin(pauses) => {
                for _ in 0..pauses {
                    std::hint::spin_loop();
                }
            }
            Stall::Nothing => {}
        }
    });
}

/// What the noise does at one statement point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stall {
    Nothing,
    /// Leave the core, as a preempted thread does.
    Yield,
    /// Spin this many pauses.
    Spin(u32),
}

/// The noise's next state after `x` (xorshift), and what it does at this point: one point
/// in 32 a yield (where `yields`), four in 32 a stall of up to about `window` pauses.
fn next_stall(mut x: u64, window: u32, yields: bool) -> (u64, Stall) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    let stall = match x % 32 {
        // Now and then the thread leaves its core in the middle of a method, as a
        // preempted thread does.
        0 if yields => Stall::Yield,
        // More often it stalls for up to about as long as the test's calls take.
        1..=4 => {
            let bits = 32 - window.max(1).leading_zeros();
            Stall::Spin(1u32 << ((x >> 8) % u64::from(bits)))
        }
        _ => Stall::Nothing,
    };
    (x, stall)
}

/// `stall`, if the execution has stalls `left` (then one fewer), else nothing.
fn within(stall: Stall, left: &Cell<u32>) -> Stall {
    match (stall, left.get()) {
        (Stall::Nothing, _) | (_, 0) => Stall::Nothing,
        (stall, n) => {
            left.set(n - 1);
            stall
        }
    }
}

/// The `sync` shims' fast path, once per operation: true on a thread of a controlled run that
/// still has control; outside any run it counts the point, tells a gated test, and is true
/// only while recording (the shim then calls the hook, which notes the access).
#[track_caller]
pub(crate) fn shim_controlled(op: PointKind) -> bool {
    // Not `unwrap_or_else`: a closure would hide the caller's location from the gates.
    match sched::controlled_here() {
        Some(controlled) => controlled,
        None => {
            count_point();
            if crate::gates::active() {
                crate::gates::sync_op(op, Location::caller());
            }
            op.accesses() && recording()
        }
    }
}

/// A scheduling point before an operation on `obj`.
pub(crate) fn point(op: PointKind, obj: usize, var: Var, at: Where) {
    match sched::current() {
        Some((run, me)) => run.point(me, op, obj, var, at),
        None => {
            count_point();
            note(op, var, at);
        }
    }
}

/// Blocks (in the scheduler) until lock `obj` can be taken, and takes it.
pub(crate) fn acquire(obj: usize, var: Var, exclusive: bool, at: Where) {
    match sched::current() {
        Some((run, me)) => run.acquire(me, obj, var, exclusive, at),
        None => {
            count_point();
            note(lock_kind(exclusive), var, at);
        }
    }
}

/// Takes lock `obj` if it is free; false otherwise. A scheduling point either way.
pub(crate) fn try_acquire(obj: usize, var: Var, exclusive: bool, at: Where) -> bool {
    match sched::current() {
        Some((run, me)) => run.try_acquire(me, obj, var, exclusive, at),
        None => {
            note(lock_kind(exclusive), var, at);
            true
        }
    }
}

/// Releases lock `obj`; threads blocked on it become runnable.
pub(crate) fn release(obj: usize, exclusive: bool) {
    if let Some((run, _)) = sched::current() {
        run.release(obj, exclusive);
    }
}

/// Condition variable `cv`: releases lock `mutex`, waits for a notification, re-takes the
/// lock. A wait with no notifier left is a deadlock.
pub(crate) fn wait(cv: usize, mutex: usize, mutex_var: Var, at: Where) {
    if let Some((run, me)) = sched::current() {
        run.wait(me, cv, mutex, mutex_var, at);
    }
}

/// Wakes one waiter of `cv` (chosen by the scheduler), or all.
pub(crate) fn notify(cv: usize, all: bool, at: Where) {
    if let Some((run, me)) = sched::current() {
        run.notify(me, cv, all, at);
    }
}

/// A barrier of `n` threads: true for the thread that releases it; `None` outside a
/// controlled run (or once control was given up).
pub(crate) fn barrier(obj: usize, n: usize, at: Where) -> Option<bool> {
    let (run, me) = sched::current()?;
    run.barrier(me, obj, n, at)
}

/// The controlled run a pending future's waker reports to: the run the future's thread
/// belongs to, and the thread. Weak: a waker the code under test keeps outlives its run.
#[derive(Clone)]
pub(crate) struct WakeTarget(Weak<sched::Run>, usize);

/// Where a waker made on this thread reports, if the thread belongs to a controlled run.
pub(crate) fn wake_target() -> Option<WakeTarget> {
    sched::current().map(|(run, me)| WakeTarget(Arc::downgrade(&run), me))
}

impl WakeTarget {
    /// The waker `obj` was called: `woken` is set under the run's books, and the thread
    /// is runnable again if it waits for it. Not a scheduling point: a waker is called from
    /// inside the code under test's primitives, maybe under their own locks. False if the
    /// run is over (the caller then sets `woken` itself).
    pub(crate) fn wake(&self, obj: usize, woken: &AtomicBool) -> bool {
        match self.0.upgrade() {
            Some(run) => {
                run.wake(self.1, obj, woken);
                true
            }
            None => false,
        }
    }
}

/// An async call's future returned `Pending`, its waker `obj`: under control, a scheduling
/// point, then a wait in the scheduler until `woken` (see [`sched::Run::pending`]). True if
/// the future may be polled again; false if the caller must wait for the waker itself
/// (outside a controlled run, or control was given up).
pub(crate) fn pending(obj: usize, woken: &AtomicBool, at: Where) -> bool {
    match sched::current() {
        Some((run, me)) => run.pending(me, obj, woken, at),
        None => {
            count_point();
            false
        }
    }
}

/// The async call this thread drives is about to be dropped at a `Pending` (the test
/// cancels it there): a scheduling point, so that other threads run before the drop, named
/// after the statement that awaits.
pub(crate) fn cancel(at: Where) {
    match sched::current() {
        Some((run, me)) => run.cancel(me, at),
        None => {
            count_point();
            std::thread::yield_now();
        }
    }
}

fn lock_kind(exclusive: bool) -> PointKind {
    if exclusive {
        PointKind::Lock
    } else {
        PointKind::ReadLock
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::{next_stall, within, Stall};

    /// The stalls of `steps` points from seed 1, window 4,096 pauses.
    fn stalls(steps: usize, yields: bool) -> Vec<Stall> {
        let mut x = 1;
        (0..steps)
            .map(|_| {
                let (next, stall) = next_stall(x, 4096, yields);
                x = next;
                stall
            })
            .collect()
    }

    #[test]
    fn without_yields_the_noise_keeps_its_stalls_and_drops_only_its_yields() {
        let with = stalls(10_000, true);
        let without = stalls(10_000, false);
        let yields = with.iter().filter(|s| **s == Stall::Yield).count();
        assert!(
            (200..=450).contains(&yields),
            "about one point in 32: {yields}"
        );
        assert!(!without.contains(&Stall::Yield));
        for (a, b) in with.iter().zip(&without) {
            match a {
                Stall::Yield => assert_eq!(*b, Stall::Nothing),
                _ => assert_eq!(a, b, "the same spins at the same points"),
            }
        }
        let longest = with
            .iter()
            .filter_map(|s| match s {
                Stall::Spin(p) => Some(*p),
                _ => None,
            })
            .max();
        assert_eq!(longest, Some(4096), "up to the window");
    }

    #[test]
    fn an_execution_stalls_as_often_as_it_may_and_then_runs_on() {
        let left = Cell::new(3);
        let kept: Vec<Stall> = stalls(10_000, true)
            .into_iter()
            .map(|s| within(s, &left))
            .collect();
        let made: Vec<Stall> = kept.into_iter().filter(|s| *s != Stall::Nothing).collect();
        let first: Vec<Stall> = stalls(10_000, true)
            .into_iter()
            .filter(|s| *s != Stall::Nothing)
            .take(3)
            .collect();
        assert_eq!(made, first, "the first three stalls, then none");
        assert_eq!(left.get(), 0);
    }
}
