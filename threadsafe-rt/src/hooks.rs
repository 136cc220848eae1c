//! The one entry the `sync` shims, [`crate::thread::yield_now`] and the statement points call.
//!
//! Each hook dispatches to whoever cares about the point:
//! - the controlled run the calling thread belongs to ([`crate::sched`]), which may switch
//!   threads there;
//! - otherwise, a gated test that runs ([`crate::gates`]), told where the thread is;
//! - recording, while MAP-coverage's sequential runs record what each method accesses;
//! - noise, in free-running executions: now and then a short spin or a yield at a statement
//!   point, which widens race windows between statements.
//!
//! Outside all of these a hook counts the point (to tell whether a type has any) and
//! returns.

use std::cell::{Cell, RefCell};
use std::panic::Location;

use crate::point::{PointKind, StatementPoint, Var, Where};
use crate::sched;

thread_local! {
    /// Scheduling points reached outside controlled runs (to tell whether a type has any).
    static POINTS: Cell<u64> = const { Cell::new(0) };
    /// Stress-mode noise at statement points: xorshift state, 0 when off.
    static NOISE: Cell<u64> = const { Cell::new(0) };
    /// The longest stall of the noise, in `spin_loop` pauses.
    static NOISE_WINDOW: Cell<u32> = const { Cell::new(1) };
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

/// Turns stress-mode noise at statement points on (a non-zero seed) or off (0).
pub(crate) fn set_noise(seed: u64) {
    NOISE.with(|n| n.set(seed));
}

/// Bounds the noise's stalls to `pauses` (about as long as the test's calls take; see
/// `exec/offsets.rs`).
pub(crate) fn set_noise_window(pauses: u32) {
    NOISE_WINDOW.with(|w| w.set(pauses));
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
        let mut x = n.get();
        if x == 0 {
            return;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        n.set(x);
        match x % 32 {
            // Now and then the thread leaves its core in the middle of a method, as a
            // preempted thread does.
            0 => std::thread::yield_now(),
            // More often it stalls for up to about as long as the test's calls take.
            1..=4 => {
                let window = NOISE_WINDOW.with(Cell::get).max(1);
                let bits = 32 - window.leading_zeros();
                for _ in 0..(1u32 << ((x >> 8) % u64::from(bits))) {
                    std::hint::spin_loop();
                }
            }
            _ => {}
        }
    });
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

fn lock_kind(exclusive: bool) -> PointKind {
    if exclusive {
        PointKind::Lock
    } else {
        PointKind::ReadLock
    }
}
