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
    let (run, ok) = run_threads(
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
