//! The controlled scheduler, driven through the hooks as the shims drive it.

use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::testing::run_threads;
use super::*;
use crate::hooks::{acquire, point, release, wait};
use crate::point::{PointKind, Where};

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
