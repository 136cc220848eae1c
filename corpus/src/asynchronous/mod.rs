//! Async subjects: types whose methods are `async fn`, with the bug at an `.await`. The same
//! atomicity violations as the synchronous subjects, with the window at an await point (a
//! cache that checks under a read lock and inserts under the write lock, a transfer that
//! debits and credits around a remote call, a ticket read and written around one), and the
//! hangs only async code has: a permit checked for and then awaited, a wake-up sent before
//! anybody listened. Each has a correct twin with the same API. They use `tokio::sync`,
//! which needs no runtime: the check drives each call's future on its own thread
//! (`threadsafe_rt::block_on`).
//!
//! A call may also be cancelled: its future dropped at an await, as a `select!` that lost
//! or a timeout drops it. A ledger whose transfer is not cancel-safe, a published tokio
//! version whose `Mutex` mishandles a dropped `lock`, and a published moka version whose
//! cache mishandles a dropped load, are cancellation bugs.
//!
//! A remote call, a disk read, a message to another task: each is an await that may return
//! `Pending` before the call goes on. [`remote`] stands for one: it returns `Pending` once
//! and wakes itself.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use threadsafe_rt::{block_on, cancel_at};

use crate::{naive, BugKind, Subject};

pub mod bank;
pub mod cache;
pub mod latch;
pub mod ledger;
pub mod moka_load;
pub mod slots;
pub mod tickets;
pub mod tokio_mutex;

/// An await that stands for a remote call: `Pending` once (waking itself at once), then
/// ready. Another task may run at that point, as it may at any real I/O.
pub fn remote() -> Remote {
    Remote(false)
}

/// The future [`remote`] returns.
pub struct Remote(bool);

impl Future for Remote {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

default_is_new!(
    bank::Bank,
    bank::FixedBank,
    cache::Cache,
    cache::FixedCache,
    latch::Latch,
    latch::FixedLatch,
    ledger::Ledger,
    ledger::FixedLedger,
    moka_load::Profiles,
    moka_load::FixedProfiles,
    slots::Slots,
    slots::FixedSlots,
    tickets::Tickets,
    tickets::FixedTickets,
    tokio_mutex::Counter,
    tokio_mutex::FixedCounter,
);

/// One call per thread and round in the naive tests.
const ONCE: usize = 1;

/// The async subjects (`A1` …), for the time-to-bug harness. Their `file` is the buggy
/// type's (for A8, whose bug is a panic inside moka, moka's file the panic is in); the naive tests drive each call with `block_on` on two threads.
pub fn subjects() -> Vec<Subject> {
    vec![
        Subject {
            id: "A1",
            name: "async_cache",
            original: "a cache over tokio's RwLock that checks under the read lock and inserts under the write lock, loading in between",
            bug: BugKind::WrongResult,
            file: cache::FILE,
            check_buggy: threadsafe_rt::check::<cache::Cache>,
            check_twin: threadsafe_rt::check::<cache::FixedCache>,
            naive: |budget| {
                naive::race_checked(
                    budget,
                    ONCE,
                    cache::Cache::new,
                    |c| {
                        block_on(c.get(1));
                    },
                    |c| {
                        block_on(c.get(1));
                    },
                    |c| c.loads() == 1,
                )
            },
        },
        Subject {
            id: "A2",
            name: "async_bank",
            original: "a bank over tokio's Mutex whose transfer debits, awaits a remote call, then credits",
            bug: BugKind::WrongResult,
            file: bank::FILE,
            check_buggy: threadsafe_rt::check::<bank::Bank>,
            check_twin: threadsafe_rt::check::<bank::FixedBank>,
            naive: naive_bank,
        },
        Subject {
            id: "A3",
            name: "async_tickets",
            original: "a ticket dispenser that loads the next number, awaits, then stores it advanced",
            bug: BugKind::WrongResult,
            file: tickets::FILE,
            check_buggy: threadsafe_rt::check::<tickets::Tickets>,
            check_twin: threadsafe_rt::check::<tickets::FixedTickets>,
            naive: |budget| {
                naive::race_checked(
                    budget,
                    ONCE,
                    tickets::Tickets::new,
                    |t| {
                        block_on(t.take());
                    },
                    |t| {
                        block_on(t.take());
                    },
                    |t| t.peek() == 2,
                )
            },
        },
        Subject {
            id: "A4",
            name: "async_slots",
            original: "a pool that checks tokio's Semaphore for a permit, then awaits one: the last permit is awaited forever",
            bug: BugKind::Deadlock,
            file: slots::FILE,
            check_buggy: threadsafe_rt::check::<slots::Slots>,
            check_twin: threadsafe_rt::check::<slots::FixedSlots>,
            naive: |budget| {
                naive::race(
                    budget,
                    ONCE,
                    slots::Slots::new,
                    |s| {
                        block_on(s.reserve());
                    },
                    |s| {
                        block_on(s.reserve());
                    },
                )
            },
        },
        Subject {
            id: "A5",
            name: "async_latch",
            original: "a latch over tokio's Notify that checks its flag, then listens: notify_waiters in between is lost",
            bug: BugKind::Deadlock,
            file: latch::FILE,
            check_buggy: threadsafe_rt::check::<latch::Latch>,
            check_twin: threadsafe_rt::check::<latch::FixedLatch>,
            naive: |budget| {
                naive::race(
                    budget,
                    ONCE,
                    latch::Latch::new,
                    |l| block_on(l.wait()),
                    |l| l.open(),
                )
            },
        },
        Subject {
            id: "A6",
            name: "async_ledger",
            original: "a ledger whose transfer holds tokio's Mutex across an audit between debit and credit: not cancel-safe, a cancelled transfer loses the money",
            bug: BugKind::WrongResult,
            file: ledger::FILE,
            check_buggy: threadsafe_rt::check::<ledger::Ledger>,
            check_twin: threadsafe_rt::check::<ledger::FixedLedger>,
            naive: |budget| {
                naive::race_checked(
                    budget,
                    ONCE,
                    ledger::Ledger::new,
                    |l| {
                        cancel_at(l.transfer(true, 10), 2);
                    },
                    |l| {
                        block_on(l.transfer(false, 10));
                    },
                    |l| block_on(l.total()) == 200,
                )
            },
        },
        Subject {
            id: "A7",
            name: "tokio_0_2_mutex",
            original: "tokio 0.2.2's Mutex (tokio #1898): a lock future dropped while waiting keeps its place, and the mutex is never free again",
            bug: BugKind::Deadlock,
            file: tokio_mutex::FILE,
            check_buggy: threadsafe_rt::check::<tokio_mutex::Counter>,
            check_twin: threadsafe_rt::check::<tokio_mutex::FixedCounter>,
            naive: |budget| {
                naive::race(
                    budget,
                    ONCE,
                    tokio_mutex::Counter::new,
                    |c| {
                        block_on(c.add());
                    },
                    |c| {
                        cancel_at(c.add(), 2);
                        block_on(c.get());
                    },
                )
            },
        },
        Subject {
            id: "A8",
            name: "moka_0_6_load",
            original: "moka 0.6.2's future::Cache (moka #59): a get_or_insert_with cancelled while it loads leaves the key loading for good, and every later call for it panics",
            bug: BugKind::Atomicity,
            file: moka_load::PANICS_IN,
            check_buggy: threadsafe_rt::check::<moka_load::Profiles>,
            check_twin: threadsafe_rt::check::<moka_load::FixedProfiles>,
            naive: |budget| {
                naive::race(
                    budget,
                    ONCE,
                    moka_load::Profiles::new,
                    |p| {
                        cancel_at(p.get(1), 2);
                    },
                    |p| {
                        block_on(p.get(1));
                    },
                )
            },
        },
    ]
}

fn naive_bank(budget: Duration) -> Option<Duration> {
    naive::race_checked(
        budget,
        ONCE,
        bank::Bank::new,
        |b| {
            block_on(b.transfer(true, 10));
        },
        |b| {
            assert_eq!(block_on(b.total()), 200, "money in flight");
        },
        |b| block_on(b.total()) == 200,
    )
}
