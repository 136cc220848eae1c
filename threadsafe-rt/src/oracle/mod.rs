//! The oracle: a concurrent execution is a thread-safety violation only if no
//! *linearization* of its calls gives the same outcome.
//!
//! A linearization runs the test's calls one at a time, each thread's in its order, after
//! the same prefix and followed by the same post part (`orders.rs` enumerates them).
//!
//! This module is the one place where an execution's outcome becomes a verdict. It asks of
//! the rest of the check only to run things: sequential orders on a [`SeqRunner`] or the
//! batch's workers, the test again through [`Rerun`], a process through the crash judge's
//! caller. There is one entry for each kind of outcome:
//!
//! - A failed execution (Algorithm 2 of Pradel & Gross, `failures.rs`, [`judge`]): every linearization is
//!   tried, each under the watchdog, as one may hang; the failure is a violation if none
//!   fails "the same way": a hang for a deadlock, a panic at the same `file:line:col` for a
//!   panic. Types that panic or deadlock sequentially are therefore never reported. For a
//!   hang, a call that blocks in an order waits while the later calls of the other threads
//!   run (`exec/blocking.rs`): an order hangs only if its blocked calls are never released,
//!   so a lost wake-up is not explained away by the order that puts the `pop` first.
//! - A crash (the process died by a signal while a test ran in the generated test's child
//!   process, [`run_every_order`]): every linearization runs in a child process of its own
//!   making; the crash is a violation only if that process survives them all. Any crash
//!   there explains it: a signal says too little to tell two crashes apart. [`Crash`]
//!   (`crash.rs`) is the verdict, told from how that child ended.
//! - Results ([`ResultsOracle`] in `batch.rs` over a batch's distinct results, the
//!   linearizations' results learned in `results.rs`, the confirmation in `confirm.rs`,
//!   what the report says was not compared in `notes.rs`): an execution whose calls returned values (and
//!   the post part's observations) that no linearization gives is a violation too, as
//!   JetBrains' lincheck checks with the class as its own sequential specification. Results
//!   legitimately differ between runs (hash order, clocks, addresses, random values,
//!   thread identity): values that differ between runs of one linearization are not
//!   compared, every call of a linearization runs on the thread that made it in the
//!   concurrent run, and before a report the linearizations run many more times.

mod batch;
mod confirm;
mod crash;
mod failures;
mod notes;
mod orders;
mod results;

#[cfg(doc)]
use crate::exec::SeqRunner;

pub(crate) use batch::{BatchRun, ResultsOracle};
pub(crate) use confirm::Rerun;
pub(crate) use crash::Crash;
pub(crate) use failures::{judge, run_every_order};
#[cfg(feature = "bench")]
pub(crate) use results::{Explained, Sequential};
