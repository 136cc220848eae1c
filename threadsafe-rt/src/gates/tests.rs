use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::*;
use crate::point;

/// The order of side effects, with events after each effect.
#[test]
fn waiting_for_the_point_after_an_effect_orders_the_effects() {
    for _ in 0..100 {
        let log = Mutex::new(Vec::new());
        let schedule = Schedule::new()
            .gate(wait("a: log").until(reached("c: logged")))
            .gate(wait("b: log").until(reached("a: logged")));
        let outcome = run(schedule, |s| {
            for name in ["a", "b", "c"] {
                let log = &log;
                s.spawn(name, move || {
                    point!("log");
                    log.lock().unwrap().push(name);
                    point!("logged");
                });
            }
        });
        outcome.unwrap();
        assert_eq!(*log.lock().unwrap(), ["c", "a", "b"]);
    }
}

#[test]
fn a_gate_that_never_opens_is_a_deadlock_within_a_bounded_time() {
    let start = Instant::now();
    let never = SimpleGate::new("never opened");
    let outcome = run(Schedule::new().gate(wait("main: stuck").on(&never)), |s| {
        s.spawn("worker", || point!("free"));
        point!("stuck");
        unreachable!("the gate never opens");
    });
    let took = start.elapsed();
    let d = outcome.deadlock.clone().expect("a deadlock");
    assert_eq!(
        d.waiting,
        [Waiting {
            thread: "main".into(),
            gate: "never opened".into(),
            at: "point `stuck`".into()
        }]
    );
    assert!(d.blocked.is_empty(), "{d}");
    assert!(
        outcome.panics.is_empty(),
        "unwinding is not a panic: {outcome}"
    );
    // settle is 250 ms; the bound leaves room for a loaded machine.
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(
        outcome
            .to_string()
            .contains("thread `main` waits at point `stuck` for gate `never opened`"),
        "{outcome}"
    );
}

#[test]
fn two_gates_waiting_on_each_other_are_a_deadlock_naming_both() {
    let schedule = Schedule::new()
        .gate(wait("a: x").until(passed("b: y")))
        .gate(wait("b: y").until(passed("a: x")));
    let outcome = run(schedule, |s| {
        s.spawn("a", || point!("x"));
        s.spawn("b", || point!("y"));
    });
    let d = outcome.deadlock.expect("a deadlock");
    let mut who: Vec<_> = d
        .waiting
        .iter()
        .map(|w| (w.thread.as_str(), w.gate.as_str()))
        .collect();
    who.sort_unstable();
    assert_eq!(
        who,
        [
            ("a", "a: x until passed `b: y`"),
            ("b", "b: y until passed `a: x`")
        ]
    );
}

#[test]
fn a_thread_blocked_on_a_lock_that_a_gated_thread_holds_is_found_after_the_timeout() {
    let lock = Mutex::new(0);
    let never = SimpleGate::new("never");
    let schedule = Schedule::new()
        .gate(wait("main: holding").on(&never))
        .timeout(Duration::from_millis(300));
    let outcome = run(schedule, |s| {
        let _g = lock.lock().unwrap();
        s.spawn("worker", || {
            point!("started");
            // Poisoned when `main` is unwound with the guard.
            *lock.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        });
        // Let the worker block on the lock first.
        while !matches!(lock.try_lock(), Err(std::sync::TryLockError::WouldBlock)) {
            std::thread::yield_now();
        }
        std::thread::sleep(Duration::from_millis(20));
        point!("holding");
    });
    let d = outcome.deadlock.expect("a deadlock");
    assert_eq!(d.waiting.len(), 1, "{d}");
    assert_eq!(d.waiting[0].thread, "main");
    assert_eq!(d.blocked, ["worker"]);
    // Unwinding `main` released the lock, so the worker finished.
    assert_eq!(*lock.lock().unwrap_or_else(|e| e.into_inner()), 1);
    assert!(outcome.panics.is_empty(), "{:?}", outcome.panics);
}

#[test]
fn a_barrier_gate_opens_on_the_nth_arrival() {
    for _ in 0..100 {
        let before = AtomicUsize::new(0);
        let gate = BarrierGate::new("three", 3);
        let outcome = run(Schedule::new().gate(wait("mid").on(&gate)), |s| {
            for name in ["a", "b", "c"] {
                let before = &before;
                s.spawn(name, move || {
                    before.fetch_add(1, Ordering::SeqCst);
                    point!("mid");
                    assert_eq!(before.load(Ordering::SeqCst), 3);
                });
            }
        });
        outcome.unwrap();
    }
}

#[test]
fn a_custom_condition_over_user_state() {
    let items = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&items);
    let three = Gate::when(
        "the list holds 3 items",
        Condition::when("3 items", move || seen.lock().unwrap().len() >= 3),
    );
    let outcome = run(Schedule::new().gate(wait("main: check").on(&three)), |s| {
        let items = &items;
        s.spawn("filler", move || {
            for i in 0..3 {
                items.lock().unwrap().push(i);
            }
        });
        point!("check");
        assert_eq!(items.lock().unwrap().len(), 3);
    });
    outcome.unwrap();
}

#[test]
fn nth_arrival_and_openers() {
    let opened = SimpleGate::new("second pass");
    let schedule = Schedule::new()
        .open_at("worker: tick#2", &opened)
        .gate(wait("main: go").on(&opened));
    let ticks = AtomicUsize::new(0);
    let outcome = run(schedule, |s| {
        s.spawn("worker", || {
            for _ in 0..3 {
                ticks.fetch_add(1, Ordering::SeqCst);
                point!("tick");
            }
        });
        point!("go");
        assert!(ticks.load(Ordering::SeqCst) >= 2);
    });
    outcome.unwrap();
    assert!(opened.is_open());
}

#[test]
fn panics_are_recorded_with_the_thread_name() {
    let outcome = run(Schedule::new(), |s| {
        s.spawn("worker", || panic!("boom"));
    });
    assert_eq!(outcome.panics.len(), 1);
    assert_eq!(outcome.panics[0].thread, "worker");
    assert_eq!(outcome.panics[0].message, "boom");
    assert!(outcome.panics[0].location.contains("gates/tests.rs"));
    assert!(!outcome.is_ok());
}

#[test]
fn conditions_print_as_written() {
    let c = reached("a: x").or(passed(Loc::point("y").nth(2)).and(reached("end")));
    assert_eq!(
        c.to_string(),
        "reached `a: x` or (passed `y#2` and reached `end`)"
    );
    let s = crate::schedule!("a: x" -> ("b: y".to_string()));
    assert_eq!(
        s.to_string(),
        "at `b: y`: gate `b: y until reached `a: x``\n"
    );
}

#[test]
#[should_panic(expected = "`two words` is not a gate location")]
fn a_bad_sequence_entry_panics_with_the_grammar() {
    let _ = crate::schedule!("a: x" -> "two words");
}
