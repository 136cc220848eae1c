//! The stress loop a user who knows the racing pair writes by hand, kept lean so that it is
//! a fair yardstick: two persistent threads, the calling one and one helper, each run its
//! call on a fresh instance per round. The calling thread makes the instance, releases the
//! helper by a spin flag, makes its own call, waits for the helper's, and runs the
//! state-reading call after. Two threads for two cores, so that neither spinner takes a core
//! from a caller; no lock on the hot path beyond the hand-over of the instance, no
//! allocation beyond the instance itself.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// What a hand loop did.
#[derive(Clone, Copy, Debug)]
pub struct LoopRun {
    /// Rounds completed.
    pub rounds: u64,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// Whether a round's check failed (the loop stops at the first).
    pub failed: bool,
}

impl LoopRun {
    /// Rounds per second.
    pub fn rate(&self) -> f64 {
        self.rounds as f64 / self.elapsed.as_secs_f64()
    }
}

/// The round's instance, handed to the callers by pointer through an `Arc` slot.
struct Shared<S> {
    instance: Mutex<Option<Arc<S>>>,
    round: AtomicUsize,
    done: AtomicUsize,
    stop: AtomicBool,
}

/// Runs rounds for `time`: `make` a fresh instance, `a` and `b` on it from two threads
/// released together, then `check` on the main thread (false stops the loop as a find).
pub fn run<S, A, B, C>(time: Duration, make: impl Fn() -> S, a: A, b: B, check: C) -> LoopRun
where
    S: Send + Sync + 'static,
    A: Fn(&S),
    B: Fn(&S) + Send + 'static,
    C: Fn(&S) -> bool,
{
    let shared = Arc::new(Shared {
        instance: Mutex::new(None),
        round: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
    });
    let helper = {
        let shared = shared.clone();
        std::thread::spawn(move || {
            let mut seen = 0;
            loop {
                while shared.round.load(Ordering::Acquire) == seen {
                    if shared.stop.load(Ordering::Relaxed) {
                        return;
                    }
                    std::hint::spin_loop();
                }
                seen += 1;
                let s = shared
                    .instance
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone()
                    .expect("the round's instance is set before the round starts");
                b(&s);
                drop(s);
                shared.done.store(seen, Ordering::Release);
            }
        })
    };
    let start = Instant::now();
    let mut rounds = 0u64;
    let mut failed = false;
    while start.elapsed() < time {
        let s = Arc::new(make());
        *shared
            .instance
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(s.clone());
        rounds += 1;
        shared.round.store(rounds as usize, Ordering::Release);
        a(&s);
        while shared.done.load(Ordering::Acquire) < rounds as usize {
            std::hint::spin_loop();
        }
        if !check(&s) {
            failed = true;
            break;
        }
    }
    let elapsed = start.elapsed();
    shared.stop.store(true, Ordering::Relaxed);
    helper.join().expect("the helper panicked");
    LoopRun {
        rounds,
        elapsed,
        failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn every_round_runs_both_calls_before_the_check() {
        let run = run(
            Duration::from_millis(50),
            || AtomicU64::new(0),
            |c| {
                c.fetch_add(1, Ordering::SeqCst);
            },
            |c| {
                c.fetch_add(1, Ordering::SeqCst);
            },
            |c| c.load(Ordering::SeqCst) == 2,
        );
        assert!(!run.failed, "{run:?}");
        assert!(run.rounds > 0);
    }

    #[test]
    fn a_failing_check_stops_the_loop() {
        let run = run(
            Duration::from_secs(10),
            || AtomicU64::new(0),
            |_| {},
            |_| {},
            |c| c.load(Ordering::SeqCst) == 1,
        );
        assert!(run.failed);
        assert_eq!(run.rounds, 1);
    }
}
