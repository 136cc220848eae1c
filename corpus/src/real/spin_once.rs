//! `spin` 0.9.2's `Once::call_once` (fixed in 0.9.3; the twin uses 0.12.3, because two
//! semver-compatible versions of one crate cannot sit in one build).
//!
//! Upstream: <https://github.com/mvdnes/spin-rs/issues/117>, fixed by
//! <https://github.com/mvdnes/spin-rs/pull/118> (commit `02d9ee8`, "Fix `call_once`").
//! 0.9.2 is yanked: the workspace's `Cargo.lock` holds it, put there with `cargo update
//! spin@0.9.9 --precise 0.9.2` (a requirement of `=0.9.2` alone does not resolve to a yanked
//! version).
//!
//! The race: 0.9.2 stored `Once`'s state in a byte and wrapped its `compare_exchange` so that a
//! failed exchange came back as `Ok` too. Two threads calling `call_once` on a fresh `Once`
//! both try to move it from "incomplete" to "running"; the one that loses is told it won, so
//! both run the initializer and both write the value. Symptom: the initializer runs twice (a
//! second connection opened, a second id drawn), and the two callers can be handed different
//! values; no sequential order of two `get`s does either.

use std::sync::atomic::{AtomicU32, Ordering};

use spin_0_12_3 as fixed;
use spin_0_9_2 as buggy;
use threadsafe_rt::thread_safe;

/// A connection opened on first use and shared after: `get` gives the number of the
/// connection, opening one (drawing the next number) the first time. Over `spin` 0.9.2, whose
/// `Once` can run the opening twice.
pub struct LazyConnection {
    connection: buggy::Once<u32>,
    opened: AtomicU32,
}

#[thread_safe(test = false, statement_points = "always")]
impl LazyConnection {
    /// Nothing opened yet.
    pub fn new() -> Self {
        LazyConnection {
            connection: buggy::Once::new(),
            opened: AtomicU32::new(0),
        }
    }

    /// The connection's number, opening it on the first call.
    pub fn get(&self) -> u32 {
        *self
            .connection
            .call_once(|| self.opened.fetch_add(1, Ordering::SeqCst) + 1)
    }

    /// How many connections were opened.
    pub fn opened(&self) -> u32 {
        self.opened.load(Ordering::SeqCst)
    }
}

/// The twin: the same type over `spin` 0.12.3, whose `call_once` runs the opening once and
/// makes the other callers wait for it.
pub struct FixedLazyConnection {
    connection: fixed::Once<u32>,
    opened: AtomicU32,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedLazyConnection {
    /// Nothing opened yet.
    pub fn new() -> Self {
        FixedLazyConnection {
            connection: fixed::Once::new(),
            opened: AtomicU32::new(0),
        }
    }

    /// The connection's number, opening it on the first call.
    pub fn get(&self) -> u32 {
        *self
            .connection
            .call_once(|| self.opened.fetch_add(1, Ordering::SeqCst) + 1)
    }

    /// How many connections were opened.
    pub fn opened(&self) -> u32 {
        self.opened.load(Ordering::SeqCst)
    }
}

/// The subject: `get ‖ get`, then `opened`. The hand loop checks after each pair that one
/// connection was opened.
pub fn subject(id: &'static str) -> crate::Subject {
    crate::Subject {
        id,
        name: "spin_once",
        original: "spin 0.9.2 Once::call_once (fixed in 0.9.3; twin 0.12.3)",
        bug: crate::BugKind::WrongResult,
        file: file!(),
        check_buggy: threadsafe_rt::check::<LazyConnection>,
        check_twin: threadsafe_rt::check::<FixedLazyConnection>,
        naive: |budget| {
            crate::naive::hand_loop(
                budget,
                LazyConnection::new,
                |c| {
                    c.get();
                },
                |c| {
                    c.get();
                },
                |c| c.opened() == 1,
            )
        },
    }
}
