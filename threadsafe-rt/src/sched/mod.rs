//! Controlled runs: the suffix threads are real threads, but one runs at a time.
//!
//! Every operation of a `threadsafe_rt::sync` primitive, and every statement point that
//! `#[thread_safe]` puts in the annotated methods, is a *scheduling point*: the running
//! thread asks the scheduler which thread continues, hands the turn over, and waits for it
//! to come back. Locks, condition variables and barriers of `threadsafe_rt::sync` are
//! tracked here, so a thread that would block is taken off the runnable set instead; when no
//! thread is runnable and some are blocked, the run is deadlocked, exactly, and the blocked
//! threads are unwound.
//!
//! The turn is handed over without burning the core the next thread needs: the waiting
//! thread spins only while spinning has been paying off on its thread, then parks, and the
//! thread that gives it the turn unparks it (see `run.rs`).
//!
//! Code that blocks outside the scheduler (a `std::sync::Mutex` held by a thread that is
//! waiting for its turn) would hang a controlled run. The hand-off is bounded: when the
//! thread holding the turn is running the code under test (not the scheduler's own), makes
//! no progress, and the operating system says, look after look, that it sleeps and does not
//! run, for a while that grows with the machine's load, the process's watchdog thread sets it
//! aside until it comes back (or, with nobody else to run, control is given up for the rest
//! of the run, which then completes free-running); either way the run is reported as not
//! fully controlled.
//!
//! The run ([`Run`]) is driven from [`crate::hooks`], which the shims and statement points
//! call: `run.rs` hands the turn from thread to thread, `watchdog.rs` sets aside a holder of
//! the turn that blocked outside the scheduler, `ops.rs` is what the scheduler does
//! at each kind of operation (locks, condition variables, barriers), `state.rs` is what it
//! tracks, and the strategies that choose who runs next implement [`Scheduler`]
//! (`scheduler.rs`: the trait and the random walk; `pct.rs`).

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Arc, Mutex, OnceLock};

use crate::parker::Parker;
use crate::point::Where;

mod ops;
mod run;
mod scheduler;
mod state;
mod watchdog;

pub(crate) use run::MAX_STEPS;
pub(crate) use scheduler::Scheduler;
pub(crate) use state::{Blocker, Futile};
pub(crate) use watchdog::quiet_watchdog;

use state::State;

/// One controlled execution, shared by its threads.
pub(crate) struct Run {
    n: usize,
    turn: AtomicUsize,
    /// Set on a deadlock: blocked threads unwind.
    abort: AtomicBool,
    /// Set when control was given up: scheduling points do nothing any more.
    free: AtomicBool,
    /// Set when the run reached [`MAX_STEPS`] and gave up control for the rest of it.
    cut: AtomicBool,
    /// Set when a thread blocked outside the scheduler and was set aside for a while: the
    /// run is then not exactly replayable.
    partial: AtomicBool,
    /// Grows at every scheduling point.
    progress: AtomicUsize,
    /// Per thread, its parker (the runtime's, not std's token: see `crate::parker`) and its
    /// kernel id, once it entered.
    threads: Vec<OnceLock<(Arc<Parker>, u64)>>,
    /// Per thread, how deep it is inside the scheduler's own code (0: in the code under
    /// test). A thread in the scheduler may wait for the scheduler's lock or be parked for
    /// its turn: never blocked outside the scheduler.
    inside: Vec<AtomicUsize>,
    /// Threads parked waiting for their turn.
    parked: AtomicUsize,
    /// Whether the watchdog was asked to watch this run (at the first park).
    watched: AtomicBool,
    /// No thread outside the run calls its futures' wakers: a lost wake-up is declared at
    /// once (a unit test's run, which cannot vouch for the other tests' threads).
    closed: AtomicBool,
    state: Mutex<State>,
    futile: Arc<Futile>,
    /// The point of the last switch made at a scheduling point: if the thread switched to
    /// blocks outside the scheduler, that point is futile.
    last_switch: Mutex<Option<Where>>,
}

thread_local! {
    static CURRENT: RefCell<Option<(Arc<Run>, usize)>> = const { RefCell::new(None) };
    /// The suffix call this thread is running, for the trace.
    static CALL: Cell<usize> = const { Cell::new(0) };
}

/// Tags the steps this thread takes from now on with suffix call `k`.
pub(crate) fn set_call(k: usize) {
    CALL.with(|c| c.set(k));
}

/// The controlled run this thread belongs to, and its index in it.
pub(crate) fn current() -> Option<(Arc<Run>, usize)> {
    CURRENT.with(|c| c.borrow().clone())
}

/// This thread's index in its controlled run.
fn current_index() -> Option<usize> {
    CURRENT
        .try_with(|c| c.borrow().as_ref().map(|(_, t)| *t))
        .ok()
        .flatten()
}

/// Whether this thread belongs to a controlled run that still has control (`None`: to no
/// run), without cloning the run. Uses `try_with`: a shim may run in a thread-local's
/// destructor, where std's primitives work too.
#[inline]
pub(crate) fn controlled_here() -> Option<bool> {
    CURRENT
        .try_with(|c| c.borrow().as_ref().map(|(run, _)| run.has_control()))
        .ok()
        .flatten()
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
mod tests;
