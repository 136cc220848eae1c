//! The scheduler's view of one controlled run: each thread's status, the locks, condition
//! variables and barriers it tracks, the trace, and the points found futile.

use std::collections::HashMap;
use std::panic::Location;
use std::sync::Mutex;

use super::Scheduler;
use crate::lock::lock;
use crate::point::{StatementPoint, Step, Where};

/// Why a thread cannot run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blocker {
    Lock(usize),
    Condvar(usize),
    Barrier(usize),
    /// An async call's future returned `Pending`: its thread waits for the future's waker.
    Wake(usize),
}

impl Blocker {
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Blocker::Lock(_) => "waiting for a lock",
            Blocker::Condvar(_) => "waiting for a notification",
            Blocker::Barrier(_) => "waiting at a barrier",
            Blocker::Wake(_) => "its future pending, waiting for a wake-up",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Status {
    /// Has not entered the run yet: runnable (its first step is its entry), but not set
    /// aside by the watchdog, which has no thread of it to look at.
    Absent,
    Runnable,
    Blocked(Blocker, Where),
    /// Had the turn but blocked outside the scheduler (a std lock held by another thread,
    /// a sleep): set aside until it reaches its next scheduling point.
    Outside,
    Finished,
}

#[derive(Default)]
pub(super) struct LockState {
    pub(super) writer: Option<usize>,
    pub(super) readers: usize,
}

pub(super) struct State {
    pub(super) scheduler: Box<dyn Scheduler>,
    pub(super) status: Vec<Status>,
    pub(super) arrived: usize,
    pub(super) locks: HashMap<usize, LockState>,
    pub(super) condvars: HashMap<usize, Vec<usize>>,
    pub(super) barriers: HashMap<usize, usize>,
    pub(super) trace: Vec<Step>,
    /// Per thread, the step it was switched away at: its operation has not run yet.
    pub(super) pending: Vec<Option<Step>>,
    /// Set when the run deadlocked: each blocked thread, what it waits for, and where.
    pub(super) deadlock: Option<Vec<(usize, Blocker, Where)>>,
}

impl State {
    /// The strategy's choice among `runnable`; `step` is the current thread's new step.
    pub(super) fn choose(
        &mut self,
        runnable: &[usize],
        current: Option<usize>,
        yielding: bool,
        step: Option<&Step>,
    ) -> usize {
        if !self.scheduler.steers() {
            return self.scheduler.next(runnable, current, yielding);
        }
        let mut upcoming = self.pending.clone();
        if let (Some(me), Some(step)) = (current, step) {
            upcoming[me] = Some(*step);
        }
        self.scheduler
            .next_at(runnable, current, yielding, &upcoming)
    }

    /// Thread `t` has the turn again (or is done): the operation it was held at ran.
    pub(super) fn resumed(&mut self, t: usize) {
        if let Some(step) = self.pending.get_mut(t).and_then(Option::take) {
            self.scheduler.ran(&step);
        }
    }

    pub(super) fn runnable(&self) -> Vec<usize> {
        (0..self.status.len())
            .filter(|&t| matches!(self.status[t], Status::Runnable | Status::Absent))
            .collect()
    }

    pub(super) fn wake(&mut self, pred: impl Fn(Blocker) -> bool) {
        for s in &mut self.status {
            if let Status::Blocked(b, _) = *s {
                if pred(b) {
                    *s = Status::Runnable;
                }
            }
        }
    }

    pub(super) fn blocked(&self) -> Vec<(usize, Blocker, Where)> {
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

    pub(super) fn contains(&self, at: Where) -> bool {
        lock(&self.0).contains(&Self::key(at))
    }

    pub(super) fn insert(&self, at: Where) {
        lock(&self.0).insert(Self::key(at));
    }

    /// How many points were found futile: it only grows, and the points a run passes over
    /// change with it.
    pub(crate) fn len(&self) -> usize {
        lock(&self.0).len()
    }

    /// Holds the lock of the set (a test of a thread waiting inside the scheduler).
    #[cfg(test)]
    pub(super) fn hold(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<usize>> {
        lock(&self.0)
    }
}
