//! The benchmark corpus of `threadsafe`: a Rust counterpart of each of the 20 subjects of
//! MAPTest (Wang et al., ASE 2019, Table II) and of ConTeGe's MedlineSentenceModel (Pradel &
//! Gross, PLDI 2012, Table 1), each with a correct twin; seven subjects whose only symptom
//! is a wrong result ([`wrong_result`], `W1` … `W7`), for the results oracle; and thin wrappers of
//! published crate versions with races fixed upstream, the fixed version as the twin
//! ([`real`], `R1` …), whose races are inside the dependency.
//!
//! Every subject keeps the original's kind of bug (an atomicity violation, a race between
//! separately locked fields, a lock-order deadlock, a failure the code signals itself) and the
//! shape of the interleaving that shows it, in ordinary Rust: std or `parking_lot` locks,
//! atomics, `threadsafe_rt::sync` for some. The types carry `#[thread_safe(test = false,
//! statement_points = "always")]`: the harness checks them from outside this crate's tests,
//! so their statement points must exist in every build.
//!
//! [`all`] lists the subjects; the time-to-bug harness of `threadsafe-bench` (`cargo bench
//! -p threadsafe-bench --bench time_to_bug`) checks each one and its twin. No measuring code
//! lives here: this crate is the subjects and their catalogue.
//!
//! [`crash`] holds races in `unsafe` code that end in a crash, with their twins: a crash
//! ends the process that checks it, so the generated test checks them, in its child process,
//! and they are not in [`all`].
//!
//! [`contege`] is the catalogue's other part: the ports of Pradel & Gross's bugs that the
//! end-to-end tests (`threadsafe-tests`) and the benchmarks check, with `std` locks and with
//! `threadsafe_rt::sync` ones, each with its correct twin. Those crates use them from here
//! rather than keeping copies.

use std::time::Duration;

use threadsafe_rt::{Config, Report};

/// `Default` as `new()`, for the types whose `new` takes nothing.
macro_rules! default_is_new {
    ($($t:ty),* $(,)?) => {$(
        impl Default for $t {
            fn default() -> Self {
                <$t>::new()
            }
        }
    )*};
}

pub mod asynchronous;
pub mod contege;
pub mod crash;
pub mod dbcp;
pub mod jdk;
pub mod jfreechart;
pub mod log4j;
pub mod medline;
pub mod naive;
pub mod real;
pub mod wrong_result;
pub mod xstream;

mod whole;

/// The kind of bug a subject has, as the papers name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BugKind {
    /// A check-then-act or read-then-write sequence split over lock sections.
    Atomicity,
    /// State made of several fields that are each locked (or atomic) on their own and must
    /// agree; Java's data races on unsynchronized fields become this in safe Rust.
    DataRace,
    /// Two locks taken in opposite orders by two threads.
    Deadlock,
    /// Nothing panics or hangs: a result no sequential order gives (`W` subjects).
    WrongResult,
}

impl BugKind {
    /// The name the papers' tables use.
    pub fn name(self) -> &'static str {
        match self {
            BugKind::Atomicity => "atomicity",
            BugKind::DataRace => "data race",
            BugKind::Deadlock => "deadlock",
            BugKind::WrongResult => "wrong result",
        }
    }
}

/// One subject of the corpus: a buggy type, its correct twin, and a naive stress test of the
/// buggy pair of calls.
#[derive(Clone, Copy)]
pub struct Subject {
    /// The paper's identifier: `V1` … `V20` for MAPTest, `C6` for ConTeGe's Medline; `W1` …
    /// `W7` for the wrong-result subjects; `R1`, `R2`, … for the real-crate subjects.
    pub id: &'static str,
    /// A short name for flags and tables, e.g. `string_buffer`.
    pub name: &'static str,
    /// The original class and version, e.g. `java.lang.StringBuffer (JDK 1.6.0)`.
    pub original: &'static str,
    /// The kind of bug.
    pub bug: BugKind,
    /// The source file of the buggy type (`file!()`): a panic the check reports must be
    /// located in it (a deadlock's threads must wait in it).
    pub file: &'static str,
    /// Runs the check on the buggy type.
    pub check_buggy: fn(&Config) -> Report,
    /// Runs the check on the correct twin.
    pub check_twin: fn(&Config) -> Report,
    /// A naive hand-written stress test of the buggy pair: two threads calling the two
    /// methods in loops on shared instances for at most `budget`; the time it took to fail,
    /// or `None` when it did not fail within `budget`.
    pub naive: fn(Duration) -> Option<Duration>,
}

/// Every subject, in the papers' order (`V1` … `V20`, then `C6`), then the wrong-result
/// subjects (`W1` … `W7`), then the real-crate subjects (`R1`, `R2`, …).
pub fn all() -> Vec<Subject> {
    let mut all = Vec::new();
    all.extend(dbcp::subjects());
    all.extend(jdk::subjects());
    all.extend(jfreechart::subjects());
    all.extend(log4j::subjects());
    all.extend(xstream::subjects());
    all.extend(medline::subjects());
    all.extend(wrong_result::subjects());
    all.extend(real::subjects());
    all.extend(asynchronous::subjects());
    all.sort_by_key(|s| order(s.id));
    all
}

impl Subject {
    /// Whether the subject is one of the papers' (`V1` … `V20`, `C6`): the harnesses check
    /// those with the papers' oracle (panics and deadlocks), to compare with the papers'
    /// tables, and every other subject with the tool as it ships (results compared).
    ///
    /// ```
    /// let all = threadsafe_corpus::all();
    /// let v1 = all.iter().find(|s| s.id == "V1").unwrap();
    /// let r1 = all.iter().find(|s| s.id == "R1").unwrap();
    /// assert!(v1.from_the_papers() && !r1.from_the_papers());
    /// ```
    pub fn from_the_papers(&self) -> bool {
        matches!(self.id.as_bytes().first(), Some(b'V' | b'C'))
    }
}

/// `V7` → 7, `C6` → 100 + 6, `W3` → 200 + 3, `R2` → 300 + 2: the papers' order, then ours.
fn order(id: &str) -> u32 {
    let n = id[1..].parse::<u32>().unwrap_or(0);
    match id.as_bytes()[0] {
        b'V' => n,
        b'C' => 100 + n,
        b'R' => 300 + n,
        b'A' => 400 + n,
        _ => 200 + n,
    }
}
