//! Outside a controlled run, `threadsafe_rt::sync` behaves exactly as `std::sync`: the same
//! results, blocking, poisoning, trait impls and auto traits. (The behaviour under control
//! is tested inside the crate, in `src/sync/tests.rs`: controlled runs are crate-private.)

use std::fmt::Debug;
use std::sync::atomic::Ordering::{self, Relaxed, SeqCst};
use std::thread;
use std::time::{Duration, Instant};

use static_assertions::{assert_impl_all, assert_not_impl_any};
use threadsafe_rt::sync::atomic::{self, AtomicBool, AtomicPtr, AtomicUsize};
use threadsafe_rt::sync::{
    Arc, Barrier, Condvar, LazyLock, Mutex, MutexGuard, Once, OnceLock, PoisonError, RwLock,
    RwLockReadGuard, RwLockWriteGuard, TryLockError,
};

// Every constructor std has as `const` is `const` here too: statics work.
static STATIC_MUTEX: Mutex<Vec<u32>> = Mutex::new(Vec::new());
static STATIC_RWLOCK: RwLock<u32> = RwLock::new(0);
static STATIC_CONDVAR: Condvar = Condvar::new();
static STATIC_ONCE: Once = Once::new();
static STATIC_CELL: OnceLock<String> = OnceLock::new();
static STATIC_LAZY: LazyLock<Vec<u32>> = LazyLock::new(|| vec![1, 2, 3]);
static STATIC_BARRIER: Barrier = Barrier::new(1);
static STATIC_COUNTER: AtomicUsize = AtomicUsize::new(0);
static STATIC_FLAG: AtomicBool = AtomicBool::new(false);
static STATIC_PTR: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());

#[test]
fn statics_work() {
    STATIC_MUTEX.lock().unwrap().push(1);
    *STATIC_RWLOCK.write().unwrap() += 1;
    STATIC_CONDVAR.notify_all();
    STATIC_ONCE.call_once(|| {});
    assert_eq!(STATIC_CELL.get_or_init(|| "x".into()), "x");
    assert_eq!(*STATIC_LAZY, [1, 2, 3]);
    assert!(STATIC_BARRIER.wait().is_leader());
    assert_eq!(STATIC_COUNTER.fetch_add(1, SeqCst), 0);
    assert!(!STATIC_FLAG.swap(true, SeqCst));
    assert!(STATIC_PTR.load(SeqCst).is_null());
}

#[test]
fn mutex_locks_unlocks_and_try_lock_fails_while_held() {
    let m = Mutex::new(1);
    {
        let mut g = m.lock().unwrap();
        *g += 1;
        assert!(matches!(m.try_lock(), Err(TryLockError::WouldBlock)));
    }
    assert_eq!(*m.try_lock().unwrap(), 2);

    // Held by another thread: try_lock fails there, lock blocks until it is released.
    let m = Arc::new(Mutex::new(0));
    let g = m.lock().unwrap();
    let m2 = Arc::clone(&m);
    let t = thread::spawn(move || {
        assert!(matches!(m2.try_lock(), Err(TryLockError::WouldBlock)));
        *m2.lock().unwrap() += 1;
    });
    thread::sleep(Duration::from_millis(20));
    assert_eq!(*g, 0, "the other thread waited");
    drop(g);
    t.join().unwrap();
    assert_eq!(*m.lock().unwrap(), 1);

    let mut m = Mutex::from(vec![1]);
    m.get_mut().unwrap().push(2);
    assert_eq!(m.into_inner().unwrap(), [1, 2]);
    assert_eq!(*Mutex::<u8>::default().lock().unwrap(), 0);
}

#[test]
fn mutex_poisoning_is_std_s_and_the_error_carries_our_guard() {
    let m = Arc::new(Mutex::new(1));
    let m2 = Arc::clone(&m);
    let r = thread::spawn(move || {
        let mut g = m2.lock().unwrap();
        *g = 2;
        panic!("poison");
    })
    .join();
    assert!(r.is_err());
    assert!(m.is_poisoned());
    let e: PoisonError<MutexGuard<'_, i32>> = m.lock().unwrap_err();
    let mut g = e.into_inner();
    *g += 1;
    drop(g);
    match m.try_lock() {
        Err(TryLockError::Poisoned(e)) => assert_eq!(*e.into_inner(), 3),
        _ => panic!("try_lock reports the poison"),
    }
    m.clear_poison();
    assert!(!m.is_poisoned());
    assert_eq!(*m.lock().unwrap(), 3);

    let mut m = Mutex::new(5);
    let _ = thread::scope(|s| {
        s.spawn(|| {
            let _g = m.lock().unwrap();
            panic!("poison");
        })
        .join()
    });
    assert_eq!(*m.get_mut().unwrap_err().into_inner(), 5);
    assert_eq!(m.into_inner().unwrap_err().into_inner(), 5);
}

#[test]
fn condvar_wait_and_notify_across_two_threads() {
    let pair = Arc::new((Mutex::new(0u32), Condvar::new()));
    let p2 = Arc::clone(&pair);
    let t = thread::spawn(move || {
        let (m, cv) = &*p2;
        for i in 1..=3 {
            thread::sleep(Duration::from_millis(5));
            *m.lock().unwrap() = i;
            cv.notify_one();
        }
    });
    let (m, cv) = &*pair;
    let mut g = m.lock().unwrap();
    while *g < 3 {
        g = cv.wait(g).unwrap();
    }
    drop(g);
    t.join().unwrap();

    // wait_while, and notify_all waking two waiters.
    let pair = Arc::new((Mutex::new(false), Condvar::new()));
    let waiters: Vec<_> = (0..2)
        .map(|_| {
            let p = Arc::clone(&pair);
            thread::spawn(move || {
                let (m, cv) = &*p;
                *cv.wait_while(m.lock().unwrap(), |go| !*go).unwrap()
            })
        })
        .collect();
    thread::sleep(Duration::from_millis(10));
    *pair.0.lock().unwrap() = true;
    pair.1.notify_all();
    for w in waiters {
        assert!(w.join().unwrap());
    }
}

#[test]
fn condvar_timed_waits_really_wait_outside_a_run() {
    let (m, cv) = (Mutex::new(false), Condvar::new());
    let start = Instant::now();
    let (g, r) = cv
        .wait_timeout(m.lock().unwrap(), Duration::from_millis(30))
        .unwrap();
    assert!(r.timed_out() && !*g);
    assert!(start.elapsed() >= Duration::from_millis(30));
    let (g, r) = cv
        .wait_timeout_while(g, Duration::from_millis(10), |ready| !*ready)
        .unwrap();
    assert!(r.timed_out() && !*g);
    let (_g, r) = cv
        .wait_timeout_while(g, Duration::from_secs(60), |ready| *ready)
        .unwrap();
    assert!(!r.timed_out(), "the condition was already false");

    let pair = Arc::new((Mutex::new(false), Condvar::new()));
    let p2 = Arc::clone(&pair);
    let t = thread::spawn(move || {
        thread::sleep(Duration::from_millis(10));
        *p2.0.lock().unwrap() = true;
        p2.1.notify_one();
    });
    let (g, r) = pair
        .1
        .wait_timeout_while(pair.0.lock().unwrap(), Duration::from_secs(60), |r| !*r)
        .unwrap();
    assert!(!r.timed_out() && *g);
    drop(g);
    t.join().unwrap();
}

#[test]
fn rwlock_readers_share_writers_exclude() {
    let lock = Arc::new(RwLock::new(1));
    {
        let r1: RwLockReadGuard<'_, i32> = lock.read().unwrap();
        let r2 = lock.try_read().unwrap();
        assert_eq!(*r1 + *r2, 2);
        assert!(matches!(lock.try_write(), Err(TryLockError::WouldBlock)));
    }
    {
        let mut w: RwLockWriteGuard<'_, i32> = lock.write().unwrap();
        *w = 2;
        assert!(matches!(lock.try_read(), Err(TryLockError::WouldBlock)));
    }
    // A reader on another thread waits for the writer.
    let w = lock.write().unwrap();
    let l2 = Arc::clone(&lock);
    let t = thread::spawn(move || *l2.read().unwrap());
    thread::sleep(Duration::from_millis(20));
    drop(w);
    assert_eq!(t.join().unwrap(), 2);

    // Poisoned by a panic while writing; not by one while reading.
    let l2 = Arc::clone(&lock);
    let _ = thread::spawn(move || {
        let _r = l2.read().unwrap();
        panic!("reader");
    })
    .join();
    assert!(!lock.is_poisoned());
    let l2 = Arc::clone(&lock);
    let _ = thread::spawn(move || {
        let _w = l2.write().unwrap();
        panic!("writer");
    })
    .join();
    assert!(lock.is_poisoned());
    assert_eq!(*lock.read().unwrap_err().into_inner(), 2);
    lock.clear_poison();
    assert_eq!(*lock.read().unwrap(), 2);
    let mut lock = RwLock::from(3);
    *lock.get_mut().unwrap() += 1;
    assert_eq!(lock.into_inner().unwrap(), 4);
}

#[test]
fn once_lock_initializes_once_under_four_threads() {
    let cell = Arc::new(OnceLock::new());
    let calls = Arc::new(AtomicUsize::new(0));
    let start = Arc::new(Barrier::new(4));
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let (cell, calls, start) = (cell.clone(), calls.clone(), start.clone());
            thread::spawn(move || {
                start.wait();
                *cell.get_or_init(|| {
                    calls.fetch_add(1, SeqCst);
                    thread::sleep(Duration::from_millis(20)); // the others arrive meanwhile
                    i
                })
            })
        })
        .collect();
    let values: Vec<usize> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(calls.load(SeqCst), 1);
    assert!(values.iter().all(|&v| v == values[0]), "{values:?}");
    assert_eq!(cell.get(), Some(&values[0]));
    assert_eq!(cell.set(99), Err(99));

    let mut cell = OnceLock::new();
    assert_eq!(cell.get(), None);
    assert_eq!(cell.set(1), Ok(()));
    *cell.get_mut().unwrap() += 1;
    assert_eq!(cell.clone().into_inner(), Some(2));
    assert_eq!(cell.take(), Some(2));
    assert_eq!(cell, OnceLock::default());
    assert_eq!(OnceLock::from(3).into_inner(), Some(3));

    // A panicking initializer leaves the cell empty.
    let cell = OnceLock::<u8>::new();
    let r = std::panic::catch_unwind(|| cell.get_or_init(|| panic!("init")));
    assert!(r.is_err());
    assert_eq!(*cell.get_or_init(|| 4), 4);
}

#[test]
fn once_runs_once_under_four_threads_and_poisons_like_std() {
    let once = Arc::new(Once::new());
    let calls = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let (once, calls) = (once.clone(), calls.clone());
            thread::spawn(move || {
                once.call_once(|| {
                    thread::sleep(Duration::from_millis(10));
                    calls.fetch_add(1, SeqCst);
                });
                // Whoever returns sees the initialization done.
                assert_eq!(calls.load(SeqCst), 1);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert!(once.is_completed());

    let once = Once::new();
    assert!(std::panic::catch_unwind(|| once.call_once(|| panic!("init"))).is_err());
    assert!(!once.is_completed());
    assert!(
        std::panic::catch_unwind(|| once.call_once(|| {})).is_err(),
        "poisoned"
    );
    let mut forced = false;
    once.call_once_force(|state| forced = state.is_poisoned());
    assert!(forced && once.is_completed());
}

#[test]
fn lazy_lock_initializes_once_and_poisons_like_std() {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    static LAZY: LazyLock<usize> = LazyLock::new(|| {
        thread::sleep(Duration::from_millis(10));
        CALLS.fetch_add(1, SeqCst) + 40
    });
    let handles: Vec<_> = (0..4).map(|_| thread::spawn(|| *LAZY)).collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), 40);
    }
    assert_eq!(CALLS.load(SeqCst), 1);
    assert_eq!(*LazyLock::force(&LAZY), 40);
    assert_eq!(*LazyLock::<Vec<u8>>::default(), Vec::<u8>::new());

    let lazy: LazyLock<u8> = LazyLock::new(|| panic!("init"));
    assert!(std::panic::catch_unwind(|| *lazy).is_err());
    let again = std::panic::catch_unwind(|| *lazy).unwrap_err();
    let msg = again.downcast_ref::<&str>().copied().unwrap_or_default();
    let std_lazy: std::sync::LazyLock<u8> = std::sync::LazyLock::new(|| panic!("init"));
    assert!(std::panic::catch_unwind(|| *std_lazy).is_err());
    let std_again = std::panic::catch_unwind(|| *std_lazy).unwrap_err();
    let std_msg = std_again
        .downcast_ref::<&str>()
        .copied()
        .unwrap_or_default();
    assert_eq!(msg, std_msg);
}

#[test]
fn barrier_of_three_releases_together_with_one_leader_per_round() {
    let barrier = Arc::new(Barrier::new(3));
    let arrived = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let (barrier, arrived) = (barrier.clone(), arrived.clone());
            thread::spawn(move || {
                let mut leader = 0;
                for round in 1..=2 {
                    arrived.fetch_add(1, SeqCst);
                    let r = barrier.wait();
                    assert!(arrived.load(SeqCst) >= round * 3, "released early");
                    leader += usize::from(r.is_leader());
                    barrier.wait(); // nobody starts the next round before all checked
                }
                leader
            })
        })
        .collect();
    let leaders: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(leaders, 2, "one leader per round");
    assert!(Barrier::new(0).wait().is_leader());
}

/// Runs the same operations on ours and std's atomic of one integer type; every result
/// must match.
macro_rules! same_as_std {
    ($($ours:ident $std:ident $t:ty;)*) => {$({
        let (a, b) = (atomic::$ours::new(5), std::sync::atomic::$std::new(5));
        assert_eq!(a.load(SeqCst), b.load(SeqCst));
        a.store(7, Relaxed);
        b.store(7, Relaxed);
        assert_eq!(a.swap(9, SeqCst), b.swap(9, SeqCst));
        assert_eq!(a.compare_exchange(9, 3, SeqCst, SeqCst), b.compare_exchange(9, 3, SeqCst, SeqCst));
        assert_eq!(a.compare_exchange(9, 4, SeqCst, Relaxed), b.compare_exchange(9, 4, SeqCst, Relaxed));
        // The weak form may fail spuriously: retry, a bounded number of times.
        assert_eq!(
            (0..100).find_map(|_| a.compare_exchange_weak(3, 6, SeqCst, SeqCst).ok()),
            (0..100).find_map(|_| b.compare_exchange_weak(3, 6, SeqCst, SeqCst).ok()),
        );
        assert_eq!(a.fetch_add(<$t>::MAX, SeqCst), b.fetch_add(<$t>::MAX, SeqCst), "wraps");
        assert_eq!(a.fetch_sub(2, SeqCst), b.fetch_sub(2, SeqCst));
        assert_eq!(a.fetch_and(0b1011, SeqCst), b.fetch_and(0b1011, SeqCst));
        assert_eq!(a.fetch_nand(0b0110, SeqCst), b.fetch_nand(0b0110, SeqCst));
        assert_eq!(a.fetch_or(0b0100, SeqCst), b.fetch_or(0b0100, SeqCst));
        assert_eq!(a.fetch_xor(0b0011, SeqCst), b.fetch_xor(0b0011, SeqCst));
        assert_eq!(a.fetch_max(1, SeqCst), b.fetch_max(1, SeqCst));
        assert_eq!(a.fetch_min(0, SeqCst), b.fetch_min(0, SeqCst));
        let inc = |x: $t| x.checked_add(1);
        assert_eq!(a.fetch_update(SeqCst, SeqCst, inc), b.fetch_update(SeqCst, SeqCst, inc));
        let none = |_: $t| None;
        assert_eq!(a.fetch_update(SeqCst, SeqCst, none), b.fetch_update(SeqCst, SeqCst, none));
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        let (mut a, mut b) = (a, b);
        *a.get_mut() += 1;
        *b.get_mut() += 1;
        assert_eq!(unsafe { *a.as_ptr() }, unsafe { *b.as_ptr() });
        assert_eq!(a.into_inner(), b.into_inner());
        assert_eq!(atomic::$ours::default().into_inner(), 0);
        assert_eq!(atomic::$ours::from(3).into_inner(), 3);
    })*};
}

#[test]
fn atomics_give_std_s_results() {
    same_as_std! {
        AtomicI8 AtomicI8 i8;
        AtomicU8 AtomicU8 u8;
        AtomicI16 AtomicI16 i16;
        AtomicU16 AtomicU16 u16;
        AtomicI32 AtomicI32 i32;
        AtomicU32 AtomicU32 u32;
        AtomicI64 AtomicI64 i64;
        AtomicU64 AtomicU64 u64;
        AtomicIsize AtomicIsize isize;
        AtomicUsize AtomicUsize usize;
    }

    let (a, b) = (
        AtomicBool::new(true),
        std::sync::atomic::AtomicBool::new(true),
    );
    assert_eq!(a.fetch_and(false, SeqCst), b.fetch_and(false, SeqCst));
    assert_eq!(a.fetch_nand(true, SeqCst), b.fetch_nand(true, SeqCst));
    assert_eq!(a.fetch_or(false, SeqCst), b.fetch_or(false, SeqCst));
    assert_eq!(a.fetch_xor(true, SeqCst), b.fetch_xor(true, SeqCst));
    assert_eq!(a.swap(true, SeqCst), b.swap(true, SeqCst));
    assert_eq!(
        a.compare_exchange(true, false, SeqCst, SeqCst),
        b.compare_exchange(true, false, SeqCst, SeqCst)
    );
    let flip = |x: bool| Some(!x);
    assert_eq!(
        a.fetch_update(SeqCst, SeqCst, flip),
        b.fetch_update(SeqCst, SeqCst, flip)
    );
    assert_eq!(a.load(Relaxed), b.load(Relaxed));
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    assert!(!AtomicBool::default().into_inner());
    assert!(AtomicBool::from(true).into_inner());

    let (mut x, mut y) = (1u8, 2u8);
    let (px, py) = (&mut x as *mut u8, &mut y as *mut u8);
    let (a, b) = (AtomicPtr::new(px), std::sync::atomic::AtomicPtr::new(px));
    assert_eq!(a.swap(py, SeqCst), b.swap(py, SeqCst));
    assert_eq!(
        a.compare_exchange(px, px, SeqCst, SeqCst),
        b.compare_exchange(px, px, SeqCst, SeqCst)
    );
    assert_eq!(
        a.compare_exchange(py, px, SeqCst, SeqCst),
        b.compare_exchange(py, px, SeqCst, SeqCst)
    );
    assert_eq!(a.load(SeqCst), b.load(SeqCst));
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    assert_eq!(format!("{a:p}"), format!("{b:p}"));
    assert!(AtomicPtr::<u8>::default().into_inner().is_null());
    assert_eq!(AtomicPtr::from(px).into_inner(), px);
    atomic::fence(Ordering::SeqCst);
}

#[test]
fn atomics_count_right_across_threads() {
    let n = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let n = n.clone();
            thread::spawn(move || {
                for _ in 0..1000 {
                    n.fetch_add(1, Relaxed);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(n.load(SeqCst), 4000);
}

#[test]
fn debug_output_is_std_s() {
    fn same<A: Debug, B: Debug>(a: A, b: B) {
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }
    same(Mutex::new(1), std::sync::Mutex::new(1));
    let (m, sm) = (Mutex::new(1), std::sync::Mutex::new(1));
    let (_g, _sg) = (m.lock().unwrap(), sm.lock().unwrap());
    same(&m, &sm); // locked
    same(m.try_lock().unwrap_err(), sm.try_lock().unwrap_err());
    same(RwLock::new("a"), std::sync::RwLock::new("a"));
    same(Condvar::new(), std::sync::Condvar::new());
    same(Once::new(), std::sync::Once::new());
    same(OnceLock::from(2), std::sync::OnceLock::from(2));
    same(OnceLock::<u8>::new(), std::sync::OnceLock::<u8>::new());
    same(Barrier::new(2), std::sync::Barrier::new(2));
    same(Barrier::new(1).wait(), std::sync::Barrier::new(1).wait());
    let lazy = LazyLock::new(|| 5);
    let std_lazy = std::sync::LazyLock::new(|| 5);
    same(&lazy, &std_lazy);
    let _ = (*lazy, *std_lazy);
    same(&lazy, &std_lazy);
    let (m, sm) = (Mutex::new(vec![1]), std::sync::Mutex::new(vec![1]));
    same(m.lock().unwrap(), sm.lock().unwrap());
    assert_eq!(
        Mutex::new("x").lock().unwrap().to_string(),
        std::sync::Mutex::new("x").lock().unwrap().to_string()
    );
}

#[test]
fn yield_now_outside_a_run_is_std_s() {
    for _ in 0..3 {
        threadsafe_rt::thread::yield_now();
    }
}

// The auto traits are std's, for the same type arguments.
type Unsend = std::rc::Rc<u8>; // neither Send nor Sync
type SendOnly = std::cell::Cell<u8>; // Send, not Sync
type SyncOnly = std::sync::MutexGuard<'static, u8>; // Sync, not Send

assert_impl_all!(Mutex<SendOnly>: Send, Sync);
assert_impl_all!(std::sync::Mutex<SendOnly>: Send, Sync);
assert_not_impl_any!(Mutex<Unsend>: Send, Sync);
assert_not_impl_any!(Mutex<SyncOnly>: Send, Sync);
assert_impl_all!(MutexGuard<'static, SyncOnly>: Sync);
assert_impl_all!(std::sync::MutexGuard<'static, SyncOnly>: Sync);
assert_not_impl_any!(MutexGuard<'static, u8>: Send);
assert_not_impl_any!(MutexGuard<'static, SendOnly>: Sync);

assert_impl_all!(RwLock<u8>: Send, Sync);
assert_impl_all!(RwLock<SendOnly>: Send);
assert_not_impl_any!(RwLock<SendOnly>: Sync);
assert_not_impl_any!(std::sync::RwLock<SendOnly>: Sync);
assert_impl_all!(RwLockReadGuard<'static, SyncOnly>: Sync);
assert_impl_all!(RwLockWriteGuard<'static, SyncOnly>: Sync);
assert_not_impl_any!(RwLockReadGuard<'static, u8>: Send);
assert_not_impl_any!(RwLockWriteGuard<'static, u8>: Send);

assert_impl_all!(Condvar: Send, Sync, Default);
assert_impl_all!(Once: Send, Sync);
assert_not_impl_any!(Once: Default, Clone);
assert_not_impl_any!(std::sync::Once: Default, Clone);
assert_impl_all!(Barrier: Send, Sync);
assert_impl_all!(OnceLock<u8>: Send, Sync, Clone, Default, PartialEq, Eq);
assert_impl_all!(OnceLock<SendOnly>: Send);
assert_not_impl_any!(OnceLock<SendOnly>: Sync);
assert_not_impl_any!(std::sync::OnceLock<SendOnly>: Sync);
assert_not_impl_any!(OnceLock<SyncOnly>: Send, Sync);
assert_not_impl_any!(std::sync::OnceLock<SyncOnly>: Send, Sync);
assert_impl_all!(LazyLock<u8>: Send, Sync);
assert_not_impl_any!(LazyLock<SendOnly>: Sync);
assert_not_impl_any!(std::sync::LazyLock<SendOnly>: Sync);

assert_impl_all!(AtomicUsize: Send, Sync, Default, Debug, From<usize>);
assert_impl_all!(AtomicBool: Send, Sync, Default, Debug, From<bool>);
assert_impl_all!(AtomicPtr<Unsend>: Send, Sync, Default, Debug);
assert_impl_all!(Mutex<u8>: std::panic::UnwindSafe, std::panic::RefUnwindSafe);
assert_impl_all!(AtomicUsize: std::panic::RefUnwindSafe);

// std's layout plus one pointer: where the primitive was created (its name as a shared
// variable in MAP-coverage).
const WORD: usize = std::mem::size_of::<&std::panic::Location<'static>>();
static_assertions::const_assert_eq!(
    std::mem::size_of::<AtomicUsize>(),
    std::mem::size_of::<std::sync::atomic::AtomicUsize>() + WORD
);
static_assertions::const_assert_eq!(
    std::mem::size_of::<Mutex<u64>>(),
    std::mem::size_of::<std::sync::Mutex<u64>>() + WORD
);
static_assertions::const_assert!(std::mem::size_of::<atomic::AtomicU8>() <= 2 * WORD);
