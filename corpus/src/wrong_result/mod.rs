//! Subjects whose only symptom is a wrong result: a lost update, one ticket handed out
//! twice, both threads told they inserted a key first, money created by two transfers, one
//! name given two ids, a torn snapshot, a bounded queue over its capacity. None of them
//! panics or deadlocks; only the results oracle (return values and the post part's
//! observations against those of every sequential order) finds them. Each has a correct
//! twin with the same API.

use std::time::Duration;

use threadsafe_rt::{Config, Report};

use crate::{naive, BugKind, Subject};

pub mod bank;
pub mod counter;
pub mod ids;
pub mod queue;
pub mod set;
pub mod stats;
pub mod tickets;

default_is_new!(
    bank::Bank,
    bank::FixedBank,
    counter::HitCounter,
    counter::FixedHitCounter,
    ids::IdTable,
    ids::FixedIdTable,
    queue::BoundedQueue,
    queue::FixedBoundedQueue,
    set::ConcurrentSet,
    set::FixedConcurrentSet,
    stats::Stats,
    stats::FixedStats,
    tickets::TicketDispenser,
    tickets::FixedTicketDispenser,
);

/// One call per thread and round in the naive tests: the racing pair once, on a fresh
/// instance, then the look at what it left (see [`naive::race_checked`]).
const ONCE: usize = 1;

/// The wrong-result subjects (`W1` … `W7`), for the time-to-bug harness. Their `file` is
/// this module's (a wrong result has no location); a find counts when it is a wrong result
/// ([`BugKind::WrongResult`]), and the harness checks them with results compared. Each naive
/// test runs the racing pair on two threads, a fresh instance per round, and then checks
/// what a sequential order would guarantee, as an `assert!` after the threads join.
pub fn subjects() -> Vec<Subject> {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Mutex;

    fn subject(
        id: &'static str,
        name: &'static str,
        original: &'static str,
        check_buggy: fn(&Config) -> Report,
        check_twin: fn(&Config) -> Report,
        naive: fn(Duration) -> Option<Duration>,
    ) -> Subject {
        Subject {
            id,
            name,
            original,
            bug: BugKind::WrongResult,
            file: file!(),
            check_buggy,
            check_twin,
            naive,
        }
    }
    vec![
        subject(
            "W1",
            "counter",
            "a hit counter whose increment is a load then a store (lincheck's first example)",
            threadsafe_rt::check::<counter::HitCounter>,
            threadsafe_rt::check::<counter::FixedHitCounter>,
            |budget| {
                naive::race_checked(
                    budget,
                    ONCE,
                    counter::HitCounter::new,
                    |c| {
                        c.hit();
                    },
                    |c| {
                        c.hit();
                    },
                    |c| c.get() == 2,
                )
            },
        ),
        subject(
            "W2",
            "tickets",
            "a ticket dispenser that reads and advances the next number in two lock sections",
            threadsafe_rt::check::<tickets::TicketDispenser>,
            threadsafe_rt::check::<tickets::FixedTicketDispenser>,
            |budget| {
                naive::race_checked(
                    budget,
                    ONCE,
                    tickets::TicketDispenser::new,
                    |d| {
                        d.take();
                    },
                    |d| {
                        d.take();
                    },
                    |d| d.peek() == 3,
                )
            },
        ),
        subject(
            "W3",
            "set",
            "a set whose insert checks and inserts in two lock sections (synchronizedSet's contains-then-add)",
            threadsafe_rt::check::<set::ConcurrentSet>,
            threadsafe_rt::check::<set::FixedConcurrentSet>,
            |budget| {
                let insert = |s: &(set::ConcurrentSet, AtomicU32)| {
                    if s.0.insert("k") {
                        s.1.fetch_add(1, Ordering::SeqCst);
                    }
                };
                naive::race_checked(
                    budget,
                    ONCE,
                    || (set::ConcurrentSet::new(), AtomicU32::new(0)),
                    insert,
                    insert,
                    |s| s.1.load(Ordering::SeqCst) == 1,
                )
            },
        ),
        subject(
            "W4",
            "ids",
            "an interner that draws a new id without looking again under the write lock",
            threadsafe_rt::check::<ids::IdTable>,
            threadsafe_rt::check::<ids::FixedIdTable>,
            |budget| {
                let id = |t: &(ids::IdTable, Mutex<Vec<u32>>)| {
                    let id = t.0.id("n");
                    t.1.lock().unwrap().push(id);
                };
                naive::race_checked(
                    budget,
                    ONCE,
                    || (ids::IdTable::new(), Mutex::new(Vec::new())),
                    id,
                    id,
                    |t| {
                        let seen = t.1.lock().unwrap();
                        seen.iter().all(|&i| t.0.get("n") == Some(i))
                    },
                )
            },
        ),
        subject(
            "W5",
            "bank",
            "a bank whose transfer reads both balances in one lock section and writes them in another",
            threadsafe_rt::check::<bank::Bank>,
            threadsafe_rt::check::<bank::FixedBank>,
            |budget| {
                naive::race_checked(
                    budget,
                    ONCE,
                    bank::Bank::new,
                    |b| {
                        b.transfer(0, 1, 10);
                    },
                    |b| {
                        b.transfer(1, 2, 10);
                    },
                    |b| b.total() == 300,
                )
            },
        ),
        subject(
            "W6",
            "queue",
            "a bounded queue whose offer checks the length and pushes in two lock sections",
            threadsafe_rt::check::<queue::BoundedQueue>,
            threadsafe_rt::check::<queue::FixedBoundedQueue>,
            |budget| {
                naive::race_checked(
                    budget,
                    ONCE,
                    || queue::BoundedQueue::with_capacity(1),
                    |q| {
                        q.offer(1);
                    },
                    |q| {
                        q.offer(2);
                    },
                    |q| q.len() <= 1,
                )
            },
        ),
        subject(
            "W7",
            "stats",
            "running statistics whose record and snapshot touch the count and the sum one after the other",
            threadsafe_rt::check::<stats::Stats>,
            threadsafe_rt::check::<stats::FixedStats>,
            |budget| {
                naive::race_checked(
                    budget,
                    ONCE,
                    || (stats::Stats::new(), Mutex::new(None)),
                    |s| s.0.record(5),
                    |s| *s.1.lock().unwrap() = Some(s.0.snapshot()),
                    |s| matches!(*s.1.lock().unwrap(), Some((0, 0)) | Some((1, 5))),
                )
            },
        ),
    ]
}
