//! The shims under control: each test runs real threads through a controlled run, the way
//! the executor does, and checks what the scheduler saw.

use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering::SeqCst};
use std::sync::PoisonError;
use std::time::{Duration, Instant};

use super::atomic::AtomicUsize;
use super::*;
use crate::point::{PointKind, Step, Where};
use crate::sched::{Blocker, Run};
use crate::strategy::RandomWalk;
use crate::thread::yield_now;

type Body = Box<dyn FnOnce() + Send>;

/// Runs `bodies` as the threads of one controlled run with a random walk of `seed`;
/// whether each thread returned (rather than panicked or was unwound).
fn run_threads(seed: u64, bodies: Vec<Body>) -> (Arc<Run>, Vec<bool>) {
    let run = Run::new(bodies.len(), Box::new(RandomWalk::new(seed)));
    let ok = crate::sched::testing::run_threads(&run, bodies);
    (run, ok)
}

/// The same body on `n` threads, each told its index.
fn bodies<F>(n: usize, f: F) -> Vec<Body>
where
    F: Fn(usize) -> Body,
{
    (0..n).map(f).collect()
}

fn steps_on(trace: &[Step], op: PointKind, obj: usize) -> Vec<Step> {
    trace
        .iter()
        .filter(|s| s.op == op && s.obj == obj)
        .copied()
        .collect()
}

fn line_of(at: Where) -> (&'static str, u32) {
    match at {
        Where::Code(l) => (l.file(), l.line()),
        Where::Statement(p) => (p.file, p.line),
    }
}

#[test]
fn mutex_increments_never_overlap_and_the_count_is_right() {
    let mut contended = false;
    for seed in 0..10 {
        let m = Arc::new(Mutex::new(0usize));
        let inside = Arc::new(StdAtomicUsize::new(0));
        let (run, ok) = run_threads(
            seed,
            bodies(2, |_| {
                let (m, inside) = (m.clone(), inside.clone());
                Box::new(move || {
                    for _ in 0..50 {
                        let mut g = m.lock().unwrap();
                        assert_eq!(inside.fetch_add(1, SeqCst), 0, "two threads in the lock");
                        let v = *g;
                        yield_now(); // the other thread may run while the lock is held
                        *g = v + 1;
                        inside.fetch_sub(1, SeqCst);
                    }
                })
            }),
        );
        assert_eq!(ok, [true, true], "seed {seed}");
        assert!(
            run.deadlock().is_none() && !run.lost_control(),
            "seed {seed}"
        );
        assert_eq!(*m.lock().unwrap(), 100, "seed {seed}");
        let trace = run.trace();
        assert_eq!(
            steps_on(&trace, PointKind::Lock, m.id()).len(),
            100,
            "every lock scheduled"
        );
        // A yield inside the lock followed by the other thread's attempt to lock: the
        // other thread waited in the scheduler.
        contended |= trace.windows(2).any(|w| {
            w[0].op == PointKind::Yield && w[1].op == PointKind::Lock && w[0].thread != w[1].thread
        });
    }
    assert!(contended, "no seed tried to lock while the lock was held");
}

#[test]
fn lock_order_inversion_deadlocks_exactly_and_both_threads_unwind() {
    let lines = Arc::new(std::sync::Mutex::new([0u32; 2]));
    let mut found = false;
    let mut completed = false;
    for seed in 0..50 {
        let (a, b) = (Arc::new(Mutex::new(())), Arc::new(Mutex::new(())));
        let (run, ok) = run_threads(
            seed,
            bodies(2, |t| {
                let (first, second) = if t == 0 {
                    (a.clone(), b.clone())
                } else {
                    (b.clone(), a.clone())
                };
                let lines = lines.clone();
                Box::new(move || {
                    let _g1 = first.lock().unwrap();
                    lines.lock().unwrap()[t] = line!() + 1;
                    let _g2 = second.lock().unwrap();
                })
            }),
        );
        match run.deadlock() {
            Some(d) => {
                found = true;
                assert_eq!(ok, [false, false], "both blocked threads unwound");
                assert_eq!(d.len(), 2);
                let mut on: Vec<_> = d.iter().map(|&(_, b, _)| b).collect();
                on.sort_by_key(|b| format!("{b:?}"));
                let mut want = vec![Blocker::Lock(a.id()), Blocker::Lock(b.id())];
                want.sort_by_key(|b| format!("{b:?}"));
                assert_eq!(on, want);
                // #[track_caller]: the report points at the user's `lock()` line.
                let lines = *lines.lock().unwrap();
                for &(t, _, at) in &d {
                    assert_eq!(line_of(at), (file!(), lines[t]));
                }
            }
            None => {
                completed = true;
                assert_eq!(ok, [true, true]);
            }
        }
    }
    assert!(found, "no seed in 0..50 interleaved the lock pairs");
    assert!(
        completed,
        "no seed in 0..50 ran the lock pairs one after the other"
    );
}

#[test]
fn a_notification_before_the_wait_is_a_deadlock() {
    let (mut missed, mut caught) = (false, false);
    for seed in 0..50 {
        let shared = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
        let (run, ok) = run_threads(
            seed,
            bodies(2, |t| {
                let shared = shared.clone();
                Box::new(move || {
                    let (m, cv) = &*shared;
                    let mut log = m.lock().unwrap();
                    if t == 0 {
                        log.push("notify");
                        cv.notify_one();
                    } else {
                        // The bug: no condition checked, so an earlier notification is lost.
                        log.push("wait");
                        let _log = cv.wait(log).unwrap();
                    }
                })
            }),
        );
        let (m, cv) = &*shared;
        let log = m.lock().unwrap_or_else(PoisonError::into_inner).clone();
        if log[0] == "notify" {
            missed = true;
            let d = run.deadlock().expect("the waiter is never notified");
            assert_eq!(d.len(), 1);
            assert_eq!((d[0].0, d[0].1), (1, Blocker::Condvar(id(cv))));
            assert_eq!(ok, [true, false], "the waiter is unwound");
        } else {
            caught = true;
            assert!(run.deadlock().is_none(), "seed {seed}: {log:?}");
            assert_eq!(ok, [true, true]);
        }
    }
    assert!(missed && caught, "both orders occur in 50 seeds");
}

#[test]
fn the_same_seed_gives_the_same_order_of_atomic_operations() {
    let order = |seed: u64| {
        let counter = Arc::new(AtomicUsize::new(0));
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (run, ok) = run_threads(
            seed,
            bodies(2, |t| {
                let (counter, log) = (counter.clone(), log.clone());
                Box::new(move || {
                    for _ in 0..10 {
                        let v = counter.fetch_add(1, atomic::Ordering::Relaxed);
                        log.lock().unwrap().push((t, v));
                    }
                })
            }),
        );
        assert_eq!(ok, [true, true]);
        let rmw = steps_on(&run.trace(), PointKind::ReadModifyWrite, id(&*counter));
        assert_eq!(rmw.len(), 20, "every fetch_add is a scheduling point");
        let log = log.lock().unwrap().clone();
        log
    };
    let a = order(11);
    let mut values: Vec<usize> = a.iter().map(|&(_, v)| v).collect();
    values.sort_unstable();
    assert_eq!(values, (0..20).collect::<Vec<_>>());
    for _ in 0..20 {
        assert_eq!(order(11), a);
    }
    assert!(
        (0..20).any(|s| order(s) != a),
        "different seeds interleave differently"
    );
}

#[test]
fn once_and_once_lock_do_not_hang_when_the_initializer_yields() {
    let mut contended = false;
    for seed in 0..20 {
        let once = Arc::new(Once::new());
        let cell = Arc::new(OnceLock::new());
        let lazy = Arc::new(LazyLock::new(|| {
            yield_now();
            7u32
        }));
        let calls = Arc::new(StdAtomicUsize::new(0));
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (run, ok) = run_threads(
            seed,
            bodies(3, |t| {
                let (once, cell, lazy) = (once.clone(), cell.clone(), lazy.clone());
                let (calls, seen) = (calls.clone(), seen.clone());
                Box::new(move || {
                    once.call_once(|| {
                        yield_now();
                        calls.fetch_add(1, SeqCst);
                    });
                    assert!(once.is_completed());
                    let v = *cell.get_or_init(|| {
                        yield_now();
                        t
                    });
                    let l = **lazy; // not inside `seen`'s std lock: it yields
                    seen.lock().unwrap().push((v, l));
                })
            }),
        );
        assert_eq!(ok, [true, true, true], "seed {seed}");
        assert!(run.deadlock().is_none(), "seed {seed}");
        assert!(
            !run.lost_control(),
            "seed {seed}: a thread blocked outside the scheduler"
        );
        assert_eq!(calls.load(SeqCst), 1);
        let seen = seen.lock().unwrap();
        assert!(
            seen.iter().all(|&s| s == seen[0]),
            "one value for all: {seen:?}"
        );
        assert_eq!(seen[0].1, 7);
        contended |= steps_on(&run.trace(), PointKind::Lock, id(&*once)).len() > 1;
    }
    assert!(contended, "no seed had two threads initialize at once");
}

#[test]
fn rwlock_lets_two_readers_hold_it_at_once_and_excludes_writers() {
    let readers = |seed: u64, write: bool| {
        let lock = Arc::new(RwLock::new(5));
        let barrier = Arc::new(Barrier::new(2));
        run_threads(
            seed,
            bodies(2, |_| {
                let (lock, barrier) = (lock.clone(), barrier.clone());
                Box::new(move || {
                    if write {
                        let _g = lock.write().unwrap();
                        yield_now();
                        barrier.wait();
                    } else {
                        let g = lock.read().unwrap();
                        yield_now();
                        barrier.wait(); // both read guards are held here
                        assert_eq!(*g, 5);
                    }
                })
            }),
        )
    };
    for seed in 0..20 {
        let (run, ok) = readers(seed, false);
        assert_eq!(ok, [true, true], "seed {seed}");
        assert!(run.deadlock().is_none());
        // The control: with write guards the same program deadlocks, every time.
        let (run, ok) = readers(seed, true);
        assert_eq!(ok, [false, false], "seed {seed}");
        let d = run.deadlock().expect("writers exclude each other");
        let mut on: Vec<_> = d.iter().map(|&(_, b, _)| format!("{b:?}")).collect();
        on.sort();
        assert!(
            on[0].starts_with("Barrier") && on[1].starts_with("Lock"),
            "{on:?}"
        );
    }
}

#[test]
fn try_lock_fails_exactly_while_another_thread_holds_the_lock() {
    let (mut busy, mut free) = (false, false);
    for seed in 0..30 {
        let m = Arc::new(Mutex::new(0));
        let got = Arc::new(std::sync::Mutex::new(None));
        let (run, ok) = run_threads(
            seed,
            bodies(2, |t| {
                let (m, got) = (m.clone(), got.clone());
                Box::new(move || {
                    if t == 0 {
                        let mut g = m.lock().unwrap();
                        *g = 1;
                        yield_now();
                        *g = 2;
                    } else {
                        let r = match m.try_lock() {
                            Ok(g) => Ok(*g),
                            Err(TryLockError::WouldBlock) => Err(()),
                            Err(TryLockError::Poisoned(_)) => unreachable!(),
                        };
                        *got.lock().unwrap() = Some(r);
                    }
                })
            }),
        );
        assert_eq!(ok, [true, true]);
        assert!(run.deadlock().is_none());
        match got.lock().unwrap().expect("thread 1 ran") {
            Err(()) => busy = true,
            // Never the half-written 1: try_lock succeeds only when the lock is free.
            Ok(v) => {
                assert!(v == 0 || v == 2, "saw {v}");
                free = true;
            }
        }
        // Released in the scheduler: the lock is free afterwards.
        assert!(m.try_lock().is_ok());
    }
    assert!(busy && free, "both outcomes occur in 30 seeds");
}

#[test]
fn rwlock_try_read_and_try_write_fail_exactly_while_a_writer_or_readers_hold_it() {
    let (mut busy, mut free) = (false, false);
    for seed in 0..30 {
        let lock = Arc::new(RwLock::new(0));
        let got = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (run, ok) = run_threads(
            seed,
            bodies(2, |t| {
                let (lock, got) = (lock.clone(), got.clone());
                Box::new(move || {
                    if t == 0 {
                        let mut w = lock.write().unwrap();
                        *w += 1;
                        yield_now();
                        *w += 1;
                        drop(w);
                        let _r = lock.read().unwrap();
                        yield_now();
                    } else {
                        let r = lock.try_read().map(|g| *g).ok();
                        let w = lock.try_write().map(|g| *g).ok();
                        got.lock().unwrap().push((r, w));
                        // A failed attempt released nothing: this blocks until thread 0
                        // is done, in the scheduler.
                        *lock.write().unwrap() += 10;
                    }
                })
            }),
        );
        assert_eq!(ok, [true, true], "seed {seed}");
        assert!(
            run.deadlock().is_none() && !run.lost_control(),
            "seed {seed}"
        );
        assert_eq!(*lock.read().unwrap(), 12);
        for &(r, w) in got.lock().unwrap().iter() {
            assert_ne!(r, Some(1), "read a half-written value");
            assert_ne!(w, Some(1), "wrote while the writer held the lock");
            busy |= r.is_none() || w.is_none();
            free |= r.is_some();
        }
    }
    assert!(busy && free, "both outcomes occur in 30 seeds");
}

#[test]
fn a_guard_dropped_by_a_panic_poisons_and_releases_in_the_scheduler() {
    let mut poisoned = false;
    for seed in 0..20 {
        let m = Arc::new(Mutex::new(0));
        let (run, ok) = run_threads(
            seed,
            bodies(2, |t| {
                let m = m.clone();
                Box::new(move || {
                    if t == 0 {
                        let mut g = m.lock().unwrap();
                        *g += 1;
                        yield_now();
                        panic!("boom while holding the lock");
                    }
                    match m.lock() {
                        Ok(mut g) => *g += 10,
                        Err(e) => *e.into_inner() += 100,
                    }
                })
            }),
        );
        assert_eq!(ok, [false, true], "seed {seed}");
        assert!(
            run.deadlock().is_none(),
            "the panicking thread's guard was released"
        );
        assert!(!run.lost_control());
        let v = *m.lock().unwrap_or_else(PoisonError::into_inner);
        assert!(v == 101 || v == 11, "seed {seed}: {v}");
        poisoned |= v == 101;
    }
    assert!(poisoned, "some seed locked after the panic");
}

#[test]
fn condvar_wait_while_and_notify_all_under_control() {
    for seed in 0..30 {
        let shared = Arc::new((Mutex::new(0u32), Condvar::new()));
        let (run, ok) = run_threads(
            seed,
            bodies(3, |t| {
                let shared = shared.clone();
                Box::new(move || {
                    let (m, cv) = &*shared;
                    if t == 0 {
                        *m.lock().unwrap() = 1;
                        cv.notify_all();
                    } else {
                        let g = cv.wait_while(m.lock().unwrap(), |v| *v == 0).unwrap();
                        assert_eq!(*g, 1);
                    }
                })
            }),
        );
        assert_eq!(ok, [true, true, true], "seed {seed}");
        assert!(
            run.deadlock().is_none() && !run.lost_control(),
            "seed {seed}"
        );
    }
}

#[test]
fn a_timed_wait_under_control_times_out_at_once_and_is_never_a_deadlock() {
    let start = Instant::now();
    let shared = Arc::new((Mutex::new(false), Condvar::new()));
    let (run, ok) = run_threads(
        1,
        bodies(1, |_| {
            let shared = shared.clone();
            Box::new(move || {
                let (m, cv) = &*shared;
                let (g, r) = cv
                    .wait_timeout(m.lock().unwrap(), Duration::from_secs(3600))
                    .unwrap();
                assert!(r.timed_out());
                let (g, r) = cv
                    .wait_timeout_while(g, Duration::from_secs(3600), |ready| !*ready)
                    .unwrap();
                assert!(r.timed_out() && !*g);
            })
        }),
    );
    assert_eq!(ok, [true]);
    assert!(run.deadlock().is_none());
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "it did not sleep"
    );
    let trace = run.trace();
    assert_eq!(steps_on(&trace, PointKind::Wait, id(&shared.1)).len(), 2);
    // Between the two waits the mutex was released and taken back in the scheduler.
    assert_eq!(steps_on(&trace, PointKind::Lock, shared.0.id()).len(), 3);

    // With another thread: the condition may become false during the timed wait.
    let mut woke = false;
    for seed in 0..30 {
        let shared = Arc::new((Mutex::new(false), Condvar::new()));
        let result = Arc::new(std::sync::Mutex::new(None));
        let (run, ok) = run_threads(
            seed,
            bodies(2, |t| {
                let (shared, result) = (shared.clone(), result.clone());
                Box::new(move || {
                    let (m, cv) = &*shared;
                    if t == 0 {
                        *m.lock().unwrap() = true;
                        cv.notify_one();
                    } else {
                        let (g, r) = cv
                            .wait_timeout_while(m.lock().unwrap(), Duration::from_secs(3600), |r| {
                                !*r
                            })
                            .unwrap();
                        assert_eq!(r.timed_out(), !*g);
                        *result.lock().unwrap() = Some(*g);
                    }
                })
            }),
        );
        assert_eq!(ok, [true, true]);
        assert!(run.deadlock().is_none());
        woke |= result.lock().unwrap().unwrap();
    }
    assert!(woke, "some seed set the flag during the wait");
}

#[test]
fn barrier_releases_its_threads_with_one_leader_and_too_few_is_a_deadlock() {
    for seed in 0..20 {
        let barrier = Arc::new(Barrier::new(3));
        let leaders = Arc::new(StdAtomicUsize::new(0));
        let (run, ok) = run_threads(
            seed,
            bodies(3, |_| {
                let (barrier, leaders) = (barrier.clone(), leaders.clone());
                Box::new(move || {
                    for _ in 0..2 {
                        if barrier.wait().is_leader() {
                            leaders.fetch_add(1, SeqCst);
                        }
                    }
                })
            }),
        );
        assert_eq!(ok, [true, true, true]);
        assert!(run.deadlock().is_none());
        assert_eq!(leaders.load(SeqCst), 2, "one leader per round");
    }
    let barrier = Arc::new(Barrier::new(3));
    let (run, ok) = run_threads(
        0,
        bodies(2, |_| {
            let barrier = barrier.clone();
            Box::new(move || {
                barrier.wait();
            })
        }),
    );
    assert_eq!(ok, [false, false]);
    let d = run.deadlock().expect("a third thread never comes");
    assert!(d
        .iter()
        .all(|&(_, b, _)| b == Blocker::Barrier(id(&*barrier))));
}

#[test]
fn nested_primitives_at_one_address_have_different_ids() {
    // Today std lays a `OnceLock<Mutex<u64>>`'s value out at its start: two primitives at
    // one address, which the scheduler must not take for one lock.
    let cell = OnceLock::new();
    let m: &Mutex<u64> = cell.get_or_init(|| Mutex::new(0));
    assert_ne!(id(&cell), m.id());
    #[repr(C)]
    struct Outer {
        once: Once,
        more: u64,
    }
    let o = Outer {
        once: Once::new(),
        more: 0,
    };
    assert_eq!(
        std::ptr::addr_of!(o).cast::<u8>(),
        std::ptr::addr_of!(o.once).cast()
    );
    assert_ne!(id(&o), id(&o.once));
    assert_eq!(o.more, 0);
}

#[test]
fn a_guard_taken_under_control_still_works_after_control_is_given_up() {
    // Thread 0 holds a shim lock and a plain std lock across a scheduling point; thread 1
    // blocks on the std lock in the operating system, so the run gives up control.
    let mut lost = false;
    for seed in 0..6 {
        let shim = Arc::new(Mutex::new(0));
        let plain = Arc::new(std::sync::Mutex::new(()));
        let (run, ok) = run_threads(
            seed,
            bodies(2, |t| {
                let (shim, plain) = (shim.clone(), plain.clone());
                Box::new(move || {
                    if t == 0 {
                        let mut g = shim.lock().unwrap();
                        let p = plain.lock().unwrap();
                        yield_now();
                        *g += 1;
                        drop(p);
                    } else {
                        yield_now();
                        drop(plain.lock().unwrap());
                        *shim.lock().unwrap() += 1;
                    }
                })
            }),
        );
        assert_eq!(ok, [true, true], "seed {seed}");
        assert!(run.deadlock().is_none());
        assert_eq!(*shim.lock().unwrap(), 2);
        lost |= run.lost_control();
    }
    assert!(lost, "no seed blocked on the std lock");
}
