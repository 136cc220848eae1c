//! What the scheduler does at each kind of operation of a `threadsafe_rt::sync` primitive:
//! locks are taken and released in its books, a thread that would block is taken off the
//! runnable set, and condition variables and barriers wake threads there. Each operation
//! marks its thread as inside the scheduler while it runs (`Run::inside`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::state::Status;
use super::{Blocker, Run};
use crate::point::{PointKind, Var, Where};

impl Run {
    /// Blocks (in the scheduler) until lock `obj` can be taken, and takes it.
    pub(crate) fn acquire(
        self: &Arc<Self>,
        me: usize,
        obj: usize,
        var: Var,
        exclusive: bool,
        at: Where,
    ) {
        let _inside = self.inside(me);
        let op = if exclusive {
            PointKind::Lock
        } else {
            PointKind::ReadLock
        };
        self.point(me, op, obj, var, at);
        loop {
            if !self.has_control() {
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

    /// Releases lock `obj`; threads blocked on it become runnable.
    pub(crate) fn release(&self, obj: usize, exclusive: bool) {
        if !self.has_control() {
            return;
        }
        let _inside = self.inside_here();
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

    /// Takes lock `obj` if it is free; false otherwise. A scheduling point either way.
    pub(crate) fn try_acquire(
        self: &Arc<Self>,
        me: usize,
        obj: usize,
        var: Var,
        exclusive: bool,
        at: Where,
    ) -> bool {
        let _inside = self.inside(me);
        let op = if exclusive {
            PointKind::Lock
        } else {
            PointKind::ReadLock
        };
        self.point(me, op, obj, var, at);
        if !self.has_control() {
            return true;
        }
        let mut st = self.state();
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

    /// Condition variable `cv`: releases lock `mutex`, waits for a notification, re-takes
    /// the lock. A wait with no notifier left is a deadlock.
    pub(crate) fn wait(
        self: &Arc<Self>,
        me: usize,
        cv: usize,
        mutex: usize,
        mutex_var: Var,
        at: Where,
    ) {
        let _inside = self.inside(me);
        self.point(me, PointKind::Wait, cv, None, at);
        if !self.has_control() {
            return;
        }
        {
            let mut st = self.state();
            if let Some(l) = st.locks.get_mut(&mutex) {
                l.writer = None;
            }
            st.wake(|b| b == Blocker::Lock(mutex));
            st.condvars.entry(cv).or_default().push(me);
            self.block(me, st, Blocker::Condvar(cv), at);
        }
        self.acquire(me, mutex, mutex_var, true, at);
    }

    /// Wakes one waiter of `cv` (chosen by the scheduler), or all.
    pub(crate) fn notify(self: &Arc<Self>, me: usize, cv: usize, all: bool, at: Where) {
        let _inside = self.inside(me);
        self.point(me, PointKind::Notify, cv, None, at);
        if !self.has_control() {
            return;
        }
        let mut st = self.state();
        let mut waiters = st.condvars.remove(&cv).unwrap_or_default();
        let woken: Vec<usize> = if all || waiters.is_empty() {
            std::mem::take(&mut waiters)
        } else {
            let i = st.scheduler.pick(waiters.len());
            vec![waiters.swap_remove(i)]
        };
        if !waiters.is_empty() {
            st.condvars.insert(cv, waiters);
        }
        for t in woken {
            st.status[t] = Status::Runnable;
        }
    }

    /// A barrier of `n` threads: true for the thread that releases it; `None` once control
    /// was given up.
    pub(crate) fn barrier(
        self: &Arc<Self>,
        me: usize,
        obj: usize,
        n: usize,
        at: Where,
    ) -> Option<bool> {
        let _inside = self.inside(me);
        self.point(me, PointKind::Barrier, obj, None, at);
        if !self.has_control() {
            return None;
        }
        let mut st = self.state();
        let count = st.barriers.entry(obj).or_insert(0);
        *count += 1;
        if *count >= n {
            *count = 0;
            st.wake(|b| b == Blocker::Barrier(obj));
            return Some(true);
        }
        self.block(me, st, Blocker::Barrier(obj), at);
        Some(false)
    }

    /// Thread `me`'s async call got `Pending` from the future whose waker is `obj`: a
    /// scheduling point, then, unless the waker was called meanwhile (`woken`), the thread
    /// waits in the scheduler until it is. A pending future that nothing is left to wake is
    /// a deadlock: a lost wake-up. `at` names the statement of the call that awaits, if one
    /// was reached. False once control was given up: the caller then waits for the waker
    /// itself.
    pub(crate) fn pending(
        self: &Arc<Self>,
        me: usize,
        obj: usize,
        woken: &AtomicBool,
        at: Where,
    ) -> bool {
        let _inside = self.inside(me);
        let at = self.awaiting_at(me).unwrap_or(at);
        self.point(me, PointKind::Pending, obj, None, at);
        if !self.has_control() {
            return false;
        }
        let st = self.state();
        if woken.load(Ordering::Acquire) {
            return true;
        }
        self.block(me, st, Blocker::Wake(obj), at);
        self.has_control()
    }

    /// Thread `me`'s async call is about to be dropped at a `Pending`: a point at the
    /// statement that awaits.
    pub(crate) fn cancel(self: &Arc<Self>, me: usize, at: Where) {
        let _inside = self.inside(me);
        let at = self.awaiting_at(me).unwrap_or(at);
        self.point(me, PointKind::Cancel, 0, None, at);
    }

    /// The waker `obj` of thread `t`'s pending future was called (by any thread): `woken`
    /// is set, and the thread is runnable again if it waits for it.
    pub(crate) fn wake(&self, t: usize, obj: usize, woken: &AtomicBool) {
        let _inside = self.inside_here();
        let mut st = self.state();
        woken.store(true, Ordering::Release);
        if matches!(st.status[t], Status::Blocked(Blocker::Wake(o), _) if o == obj) {
            st.status[t] = Status::Runnable;
        }
    }

    /// The last statement point thread `me` reached in the call it runs: where its future
    /// awaits.
    fn awaiting_at(&self, me: usize) -> Option<Where> {
        let call = super::CALL.with(std::cell::Cell::get);
        self.state()
            .trace
            .iter()
            .rev()
            .filter(|s| s.thread == me)
            .take_while(|s| s.call == call)
            .find(|s| matches!(s.at, Where::Statement(_)))
            .map(|s| s.at)
    }
}
