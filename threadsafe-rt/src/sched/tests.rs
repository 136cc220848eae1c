//! The controlled scheduler, driven through the hooks as the shims drive it.

use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::testing::run_threads;
use super::*;
use crate::hooks::{acquire, point, release, wait};
use crate::point::{PointKind, Where};
use crate::strategy::{Pct, RandomWalk};

fn here() -> Where {
    Where::Code(Location::caller())
}

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
                        point(PointKind::Yield, 0, None, here());
                    }
                }) as Box<dyn FnOnce() + Send>
            })
            .collect();
        assert_eq!(run_threads(&run, bodies), vec![true, true]);
        assert!(
            !run.lost_control(),
            "no std lock, no sleep: never set aside"
        );
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
        let scheduler: Box<dyn Scheduler> = if seed % 2 == 0 {
            Box::new(Pct::new(seed, 2, 2, 20))
        } else {
            Box::new(RandomWalk::new(seed))
        };
        let run = Run::new(2, scheduler);
        let flag = Arc::new(AtomicBool::new(false));
        let bodies: Vec<Box<dyn FnOnce() + Send>> = (0..2)
            .map(|t| {
                let flag = flag.clone();
                Box::new(move || {
                    if t == 0 {
                        while !flag.load(Ordering::SeqCst) {
                            point(PointKind::Yield, 0, None, here());
                        }
                    } else {
                        point(PointKind::Statement, 0, None, here());
                        flag.store(true, Ordering::SeqCst);
                    }
                }) as Box<dyn FnOnce() + Send>
            })
            .collect();
        assert_eq!(run_threads(&run, bodies), vec![true, true], "seed {seed}");
        assert!(run.steps() < 100, "seed {seed}: {} steps", run.steps());
    }
}

/// Two threads that take turns at `points` yields each; `work(t, i)` runs between them.
fn take_turns(
    seed: u64,
    points: usize,
    work: impl Fn(usize, usize) + Send + Sync + 'static,
) -> Arc<Run> {
    let run = Run::new(2, Box::new(RandomWalk::new(seed)));
    let work = Arc::new(work);
    let bodies: Vec<Box<dyn FnOnce() + Send>> = (0..2)
        .map(|t| {
            let work = work.clone();
            Box::new(move || {
                for i in 0..points {
                    work(t, i);
                    point(PointKind::Yield, 0, None, here());
                }
            }) as Box<dyn FnOnce() + Send>
        })
        .collect();
    assert_eq!(run_threads(&run, bodies), vec![true, true]);
    run
}

#[test]
fn a_holder_that_runs_long_between_points_is_not_set_aside() {
    // Runnable all along (on a busy machine maybe waiting for a core): never blocked.
    let run = take_turns(3, 3, |_, _| {
        let t = std::time::Instant::now();
        while t.elapsed() < std::time::Duration::from_millis(20) {
            std::hint::spin_loop();
        }
    });
    assert!(!run.lost_control());
}

/// Runs `f` on a thread of its own; panics if it does not return within a minute.
fn within_a_minute(f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("the run hung (or panicked)");
}

#[test]
fn a_holder_waiting_inside_the_scheduler_is_not_set_aside() {
    // Set aside there, it would be left waiting for a turn nobody gives it: a hang.
    within_a_minute(a_holder_waiting_inside_the_scheduler);
}

fn a_holder_waiting_inside_the_scheduler() {
    // The thread with the turn reaches a point while a lock of the scheduler's own (the
    // futile points') is held elsewhere for a long while: it sleeps, does not run and makes
    // no progress, but in the scheduler's code.
    let futile = Arc::new(Futile::default());
    let run = Run::with_futile(2, Box::new(RandomWalk::new(1)), futile.clone());
    let stage = Arc::new(AtomicUsize::new(0));
    let holder = {
        let stage = stage.clone();
        std::thread::spawn(move || {
            while stage.load(Ordering::SeqCst) != 1 {
                std::thread::yield_now();
            }
            let guard = futile.hold();
            stage.store(2, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(50));
            drop(guard);
        })
    };
    let bodies: Vec<Box<dyn FnOnce() + Send>> = (0..2)
        .map(|t| {
            let stage = stage.clone();
            Box::new(move || {
                if stage.swap(1, Ordering::SeqCst) == 0 {
                    // The first to run: the other waits for its turn meanwhile.
                    while stage.load(Ordering::SeqCst) != 2 {
                        std::hint::spin_loop();
                    }
                }
                point(PointKind::Yield, 0, None, here());
                let _ = t;
            }) as Box<dyn FnOnce() + Send>
        })
        .collect();
    assert_eq!(run_threads(&run, bodies), vec![true, true]);
    holder.join().unwrap();
    assert!(!run.lost_control());
}

#[test]
fn a_holder_blocked_on_a_std_lock_the_waiting_thread_holds_is_set_aside() {
    // A std mutex held across a point: when the other thread gets the turn there and locks
    // it, it blocks outside the scheduler; set aside, it lets the first thread go on and
    // release the lock, and the run completes, not fully controlled.
    let mut lost = 0;
    for seed in 0..20 {
        let lock = Arc::new(std::sync::Mutex::new(0u32));
        let run = take_turns(seed, 2, move |_, i| {
            if i == 0 {
                let mut g = lock.lock().unwrap();
                *g += 1;
                point(PointKind::Yield, 0, None, here());
                *g += 1;
            }
        });
        lost += usize::from(run.lost_control());
    }
    assert!(lost > 0, "no seed switched inside the critical section");
}

#[test]
fn a_run_past_the_step_bound_lets_its_threads_finish_free() {
    let run = Run::new(2, Box::new(RandomWalk::new(3)));
    let done = Arc::new(AtomicUsize::new(0));
    let bodies: Vec<Box<dyn FnOnce() + Send>> = (0..2)
        .map(|_| {
            let done = done.clone();
            Box::new(move || {
                // Each thread alone stays under the bound; the two together pass it.
                for _ in 0..MAX_STEPS * 3 / 4 {
                    acquire(9, None, true, here());
                    release(9, true);
                }
                done.fetch_add(1, Ordering::SeqCst);
            }) as Box<dyn FnOnce() + Send>
        })
        .collect();
    assert_eq!(run_threads(&run, bodies), vec![true, true]);
    assert_eq!(
        done.load(Ordering::SeqCst),
        2,
        "both threads ran all their calls"
    );
    assert!(run.cut() && run.lost_control());
    assert_eq!(run.steps(), MAX_STEPS, "no step is taken past the bound");
    assert!(run.deadlock().is_none());

    let short = Run::new(2, Box::new(RandomWalk::new(3)));
    let bodies: Vec<Box<dyn FnOnce() + Send>> = (0..2)
        .map(|_| {
            Box::new(|| {
                for _ in 0..10 {
                    point(PointKind::Yield, 0, None, here());
                }
            }) as Box<dyn FnOnce() + Send>
        })
        .collect();
    assert_eq!(run_threads(&short, bodies), vec![true, true]);
    assert!(!short.cut());
}

/// Always the lowest runnable thread: no switch while thread 0 can run.
struct Lowest;

impl Scheduler for Lowest {
    fn next(&mut self, runnable: &[usize], _: Option<usize>, _: bool) -> usize {
        runnable[0]
    }
    fn pick(&mut self, _: usize) -> usize {
        0
    }
}

#[test]
fn the_first_thread_chosen_runs_before_the_others_enter_and_hands_them_the_turn_when_they_do() {
    // Thread 0 is chosen at every point: it must run its whole part before thread 1 has
    // entered the run (waiting for every thread to enter first costs a hand-off there and
    // back), and thread 1, entering afterwards, finds the turn waiting for it.
    let run = Run::new(2, Box::new(Lowest));
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let first = {
        let run = run.clone();
        std::thread::spawn(move || {
            run.enter(0, || {
                point(PointKind::Yield, 0, None, here());
                point(PointKind::Yield, 0, None, here());
            });
            done_tx.send(()).unwrap();
        })
    };
    assert_eq!(
        done_rx.recv_timeout(std::time::Duration::from_secs(60)),
        Ok(()),
        "thread 0 waited for thread 1 to enter"
    );
    first.join().unwrap();
    let second = {
        let run = run.clone();
        std::thread::spawn(move || run.enter(1, || point(PointKind::Yield, 0, None, here())))
    };
    second.join().unwrap();
    let threads: Vec<usize> = run.trace().iter().map(|s| s.thread).collect();
    assert_eq!(threads, vec![0, 0, 1]);
    assert!(run.deadlock().is_none() && !run.lost_control());
}
