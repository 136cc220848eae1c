//! `block_on` outside and inside controlled runs, with a hand-written signal future.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use super::block_on;
use crate::point::PointKind;
use crate::sched::{Blocker, Run};
use crate::strategy::RandomWalk;

/// A flag a future waits for: `set` wakes the waiter if it registered.
#[derive(Default)]
struct Signal(Mutex<(bool, Option<Waker>)>);

impl Signal {
    fn set(&self) {
        let waker = {
            let mut s = self.0.lock().unwrap();
            s.0 = true;
            s.1.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }

    fn wait(&self) -> Wait<'_> {
        Wait(self)
    }
}

struct Wait<'a>(&'a Signal);

impl Future for Wait<'_> {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = (self.0).0.lock().unwrap();
        if s.0 {
            Poll::Ready(())
        } else {
            s.1 = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}

type Body = Box<dyn FnOnce() + Send>;

/// Runs `bodies` as the threads of one controlled run; this thread waits for them as the
/// executor's waiting thread does, as one of the runtime's own (a thread in `join` cannot be
/// told from one that may still wake a future).
fn run_threads(seed: u64, bodies: Vec<Body>) -> (Arc<Run>, Vec<bool>) {
    let _own = crate::os::own_thread();
    let run = Run::new(bodies.len(), Box::new(RandomWalk::new(seed)));
    let ok = crate::sched::testing::run_threads(&run, bodies);
    (run, ok)
}

/// [`run_threads`] for a run no thread outside it wakes (`Run::close`).
fn run_closed_threads(seed: u64, bodies: Vec<Body>) -> (Arc<Run>, Vec<bool>) {
    let _own = crate::os::own_thread();
    let run = Run::new(bodies.len(), Box::new(RandomWalk::new(seed)));
    run.close();
    let ok = crate::sched::testing::run_threads(&run, bodies);
    (run, ok)
}

#[test]
fn outside_a_run_the_thread_sleeps_until_the_waker_is_called() {
    let signal = Arc::new(Signal::default());
    let setter = {
        let signal = signal.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            signal.set();
        })
    };
    block_on(signal.wait());
    setter.join().unwrap();
    assert_eq!(block_on(async { 7 }), 7);
}

#[test]
fn under_control_a_pending_future_waits_in_the_scheduler_until_woken() {
    let mut waited = 0;
    for seed in 0..20 {
        let signal = Arc::new(Signal::default());
        let (a, b) = (signal.clone(), signal.clone());
        let (run, ok) = run_threads(
            seed,
            vec![
                Box::new(move || block_on(a.wait())),
                Box::new(move || {
                    crate::thread::yield_now();
                    b.set();
                }),
            ],
        );
        assert_eq!(ok, vec![true, true], "seed {seed}");
        assert!(run.deadlock().is_none(), "seed {seed}");
        waited += usize::from(run.trace().iter().any(|s| s.op == PointKind::Pending));
    }
    assert!(waited > 0, "some schedule awaits before the signal is set");
}

#[test]
fn a_future_nothing_is_left_to_wake_is_a_deadlock_on_its_wake_up() {
    let signal = Arc::new(Signal::default());
    let a = signal.clone();
    // Closed: the other tests of this binary run beside it, and their threads need not
    // sleep for good (`a_wake_from_a_thread_outside_the_run_is_waited_for` is the open case).
    let (run, ok) = run_closed_threads(
        0,
        vec![
            Box::new(move || block_on(a.wait())),
            Box::new(|| crate::thread::yield_now()),
        ],
    );
    assert_eq!(ok, vec![false, true], "the waiting thread is unwound");
    let deadlock = run.deadlock().expect("a lost wake-up is a deadlock");
    assert_eq!(deadlock.len(), 1);
    assert_eq!(deadlock[0].0, 0);
    assert!(matches!(deadlock[0].1, Blocker::Wake(_)));
}

#[test]
fn a_wake_from_a_thread_outside_the_run_is_waited_for() {
    // A background thread of the code under test completes the future: every thread of
    // the run waits meanwhile, and that is not a deadlock.
    for seed in 0..3 {
        let signal = Arc::new(Signal::default());
        let a = signal.clone();
        let background = {
            let signal = signal.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(30));
                signal.set();
            })
        };
        let (run, ok) = run_threads(seed, vec![Box::new(move || block_on(a.wait()))]);
        background.join().unwrap();
        assert_eq!(ok, vec![true], "seed {seed}");
        assert!(run.deadlock().is_none(), "seed {seed}");
    }
}

/// Two steps around an `.await` as `#[thread_safe]` rewrites it, the second after it.
async fn two_steps(done: &std::sync::atomic::AtomicU32, signal: &Signal) {
    done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    super::awaited(signal.wait(), "src/lib.rs", 7).await;
    done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

#[test]
fn a_call_is_dropped_at_its_nth_suspension_an_await_or_a_pending() {
    use std::sync::atomic::{AtomicU32, Ordering};
    // The first suspension is the `.await`, before the awaited future is polled.
    let (done, signal) = (AtomicU32::new(0), Signal::default());
    assert_eq!(super::cancel_at(two_steps(&done, &signal), 1), None);
    assert_eq!(
        done.load(Ordering::SeqCst),
        1,
        "dropped between the two steps"
    );
    // The second is the signal's `Pending`.
    let (done, signal) = (AtomicU32::new(0), Signal::default());
    assert_eq!(super::cancel_at(two_steps(&done, &signal), 2), None);
    assert_eq!(done.load(Ordering::SeqCst), 1);
    // A call with fewer suspensions completes.
    let (done, signal) = (AtomicU32::new(0), Signal::default());
    signal.set();
    assert_eq!(super::cancel_at(two_steps(&done, &signal), 2), Some(()));
    assert_eq!(done.load(Ordering::SeqCst), 2);
}

#[test]
fn the_frame_says_where_the_call_was_dropped() {
    use std::sync::atomic::AtomicU32;
    let place = |at| {
        let (done, signal) = (AtomicU32::new(0), Signal::default());
        let mut frame: crate::subject::Frame<'_, ()> = crate::subject::Frame::new(None, Vec::new());
        frame.cancel = Some(at);
        let r = super::drive_call(&mut frame, two_steps(&done, &signal));
        assert_eq!(r, Err(crate::subject::Unavailable::Cancelled));
        frame.cancelled.expect("where it was dropped")
    };
    assert_eq!(place(1), "its 1st suspension, the `.await` at src/lib.rs:7");
    assert_eq!(place(2), "its 2nd suspension, a `Pending`");
}

#[test]
fn a_block_on_inside_a_cancelled_call_counts_for_nothing() {
    use std::sync::atomic::{AtomicU32, Ordering};
    let (done, signal) = (AtomicU32::new(0), Signal::default());
    signal.set();
    let outer = async {
        // The inner call's `.await` is not a suspension of the outer one.
        block_on(two_steps(&done, &signal));
        std::future::pending::<()>().await;
    };
    assert_eq!(super::cancel_at(outer, 1), None);
    assert_eq!(done.load(Ordering::SeqCst), 2);
}

#[test]
fn ordinals() {
    let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101]
        .into_iter()
        .map(super::ordinal)
        .collect();
    assert_eq!(
        got,
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]
    );
}

#[test]
fn under_control_a_drop_at_a_pending_is_a_scheduling_point() {
    // Nothing sets the signal: the wait's first `Pending` is where it is dropped.
    let signal = Arc::new(Signal::default());
    let a = signal.clone();
    let (run, ok) = run_closed_threads(
        0,
        vec![
            Box::new(move || assert_eq!(super::cancel_at(a.wait(), 1), None)),
            Box::new(|| crate::thread::yield_now()),
        ],
    );
    assert_eq!(ok, vec![true, true]);
    let trace = run.trace();
    let cancel = trace.iter().find(|s| s.op == PointKind::Cancel);
    assert_eq!(cancel.map(|s| s.thread), Some(0), "{trace:?}");
}

#[test]
fn a_call_that_panics_leaves_no_plan_behind() {
    use std::sync::atomic::{AtomicU32, Ordering};
    let panicked = std::panic::catch_unwind(|| {
        super::cancel_at(
            async {
                super::awaited(async {}, "src/lib.rs", 1).await;
                panic!("the call panics before its cancellation point");
            },
            2,
        )
    });
    assert!(panicked.is_err());
    // An `.await` polled afterwards by another executor (by hand here) is not a suspension
    // of the dead call: it completes at its first poll.
    let (done, signal) = (AtomicU32::new(0), Signal::default());
    signal.set();
    let mut steps = std::pin::pin!(two_steps(&done, &signal));
    let mut cx = Context::from_waker(Waker::noop());
    assert!(steps.as_mut().poll(&mut cx).is_ready());
    assert_eq!(done.load(Ordering::SeqCst), 2);
}
