//! The bounded wait of controlled runs: one thread of the process watches the runs that have
//! a thread parked for its turn, and sets aside a holder of the turn that blocked outside the
//! scheduler.
//!
//! A holder that blocked outside the scheduler (a `std` lock held by a thread waiting for its
//! turn, a sleep) would hang the run. The waiting threads park without a timeout (a timed
//! park costs a timer, about as much again as the hand-off itself on a virtual machine), so
//! this thread looks instead: every `MAX_POLL` while the runs it watches move, every
//! `MIN_POLL` while one of them may be stuck. It is started by the first run that needs it
//! and ends `LINGER` after the last one is over, so a check leaves no thread behind.
//!
//! The decision must never take a thread that is merely slow for a blocked one, since a
//! set-aside makes the run inexact (and the futile point it records changes the later runs of
//! the test). The holder is set aside only when, at every one of `LOOKS` looks spread over a
//! while:
//! - it is running the code under test, not the scheduler's own code (where it may wait for
//!   the scheduler's lock or be parked for its turn: set aside there, it would wait forever
//!   for a turn nobody gives it),
//! - no scheduling point was passed and the turn did not move,
//! - `/proc` says it sleeps (`S`: a futex, a sleep), not runnable (`R`, maybe waiting for a
//!   core) nor in the kernel (`D`: a page fault, disk I/O);
//!
//! and the while is at least `HANDOFF_BOUND` and grows with the machine's load (`LAG_FACTOR`
//! times the lateness of this thread's own wake-ups), so that a thread of the process that
//! holds a lock the holder waits for (the allocator's, the unwinder's), queued for a core on a
//! busy machine, has had its turn to run and release it. A holder that ran at all between the
//! looks (its CPU time or count of time slices changed: it sleeps in a loop, or works with
//! pauses) gets `RAN_FACTOR` times as long.

use std::sync::{Arc, Mutex, Weak};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use super::Run;
use crate::lock::lock;
use crate::os::{current_tid, own_thread, thread_runs, thread_state, ThreadState};

/// The least time the thread holding the turn must be seen blocked outside the scheduler,
/// without progress, before it is set aside.
const HANDOFF_BOUND: Duration = Duration::from_micros(200);

/// Looks at the holder, all saying it is blocked, before it is set aside.
const LOOKS: u32 = 3;

/// On a busy machine the time before a set-aside is at least this many times the lateness
/// of the watchdog's own wake-ups.
const LAG_FACTOR: u32 = 4;

/// A holder that ran between looks, though asleep at each, is set aside only after this
/// many times as long.
const RAN_FACTOR: u32 = 10;

/// How long the watchdog sleeps between looks: short while a holder may be blocked, longer
/// (doubling up to `MAX_POLL`) while every watched run moves.
const MIN_POLL: Duration = Duration::from_micros(100);
const MAX_POLL: Duration = Duration::from_millis(1);

/// A holder seen blocked: the progress count and the turn then, since when, how much it had
/// run, and how many looks said so.
#[derive(Clone, Copy)]
pub(super) struct Suspect {
    progress: usize,
    holder: usize,
    since: Instant,
    runs: Option<(u64, u64)>,
    looks: u32,
    /// Whether the holder ran between two looks.
    ran: bool,
}

struct Watched {
    run: Weak<Run>,
    suspect: Option<Suspect>,
}

/// The runs to watch, and the watchdog thread if there is one.
struct Watchdog {
    runs: Vec<Watched>,
    thread: Option<Thread>,
    /// The thread lingers, parked, with no run to watch.
    idle: bool,
    /// The kernel's id of the watchdog thread (0 before it has said).
    tid: u64,
}

static WATCHDOG: Mutex<Watchdog> = Mutex::new(Watchdog {
    runs: Vec::new(),
    thread: None,
    idle: false,
    tid: 0,
});

/// The watchdog thread, if it can wake no thread now: no run it watches has a thread parked
/// for its turn, the only threads it ever wakes (a holder set aside hands its turn to one).
/// Its timed parks then end in looks that change nothing, until a thread that runs parks for
/// a turn; a deadlock outside the scheduler is not kept from being seen at once
/// ([`crate::os::asleep_for_good`]) by a watchdog that lingers.
pub(crate) fn quiet_watchdog() -> Option<u64> {
    let dog = lock(&WATCHDOG);
    let quiet = dog.thread.is_some()
        && dog.tid != 0
        && dog
            .runs
            .iter()
            .all(|w| w.run.upgrade().map_or(true, |run| !run.has_parked_waiter()));
    quiet.then_some(dog.tid)
}

/// How long the watchdog thread stays with nothing to watch before it ends (a check leaves
/// no thread behind; a new one is started when needed).
const LINGER: Duration = Duration::from_millis(100);

/// Watches `run` from now on, until it is over or dropped. Called by a thread of the run
/// about to park for its turn for the first time.
pub(super) fn watch(run: &Arc<Run>) {
    let mut dog = lock(&WATCHDOG);
    dog.runs.push(Watched {
        run: Arc::downgrade(run),
        suspect: None,
    });
    match &dog.thread {
        // Lingering: wake it (a park after the unpark returns at once). Otherwise it is
        // between looks, and sees the run at the next.
        Some(t) if dog.idle => t.unpark(),
        Some(_) => {}
        None => {
            let spawned = thread::Builder::new()
                .name("threadsafe-watchdog".to_string())
                .spawn(watch_loop);
            // Without a watchdog a holder blocked outside the scheduler hangs its run until
            // the batch's own watchdog gives up on it.
            dog.thread = spawned.ok().map(|h| h.thread().clone());
        }
    }
}

fn watch_loop() {
    let _own = own_thread();
    lock(&WATCHDOG).tid = current_tid();
    let mut poll = MAX_POLL;
    // How late this thread's wake-ups come: the worst recent one, decaying.
    let mut lag = Duration::ZERO;
    loop {
        {
            let mut dog = lock(&WATCHDOG);
            if dog.runs.is_empty() {
                dog.idle = true;
                drop(dog);
                thread::park_timeout(LINGER);
                let mut dog = lock(&WATCHDOG);
                dog.idle = false;
                if dog.runs.is_empty() {
                    // Under the lock: a `watch` from now on starts a new thread.
                    dog.thread = None;
                    dog.tid = 0;
                    return;
                }
                continue;
            }
        }
        let slept = Instant::now();
        thread::park_timeout(poll);
        let late = slept.elapsed().saturating_sub(poll);
        lag = late.max(lag - lag / 8);
        // Looked at without the lock: setting a holder aside takes the run's.
        let mut runs = std::mem::take(&mut lock(&WATCHDOG).runs);
        let mut suspicious = false;
        runs.retain_mut(|w| {
            let Some(run) = w.run.upgrade() else {
                return false;
            };
            if !run.has_control() {
                return false;
            }
            w.suspect = run.look(w.suspect, lag);
            suspicious |= w.suspect.is_some();
            true
        });
        // Runs added meanwhile stay.
        lock(&WATCHDOG).runs.append(&mut runs);
        poll = if suspicious {
            MIN_POLL
        } else {
            (poll * 2).min(MAX_POLL)
        };
    }
}

impl Run {
    /// One look at the holder of the turn, given what earlier looks saw (`suspect`) and how
    /// late the watchdog wakes (`lag`): is it blocked outside the scheduler? After enough
    /// looks that say so, it is set aside. What this look saw, for the next.
    fn look(&self, suspect: Option<Suspect>, lag: Duration) -> Option<Suspect> {
        if !self.has_parked_waiter() {
            return None;
        }
        let progress = self.progress();
        let holder = self.holder()?;
        if self.is_inside(holder) {
            return None;
        }
        let tid = self.tid(holder);
        match thread_state(tid) {
            // Asleep; or, where `/proc` cannot tell, possibly so.
            ThreadState::Sleeping | ThreadState::Unknown => {}
            ThreadState::Running | ThreadState::Other => return None,
        }
        let runs = thread_runs(tid);
        let now = Instant::now();
        let suspect = match suspect {
            Some(s) if s.progress == progress && s.holder == holder => Suspect {
                looks: s.looks + 1,
                runs,
                ran: s.ran || s.runs != runs,
                ..s
            },
            _ => Suspect {
                progress,
                holder,
                since: now,
                runs,
                looks: 1,
                ran: false,
            },
        };
        let mut bound = HANDOFF_BOUND.max(lag * LAG_FACTOR);
        if suspect.ran {
            bound *= RAN_FACTOR;
        }
        if suspect.looks >= LOOKS && now - suspect.since >= bound {
            self.set_aside(holder, progress);
            return None;
        }
        Some(suspect)
    }
}
