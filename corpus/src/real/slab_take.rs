//! `sharded-slab` 0.0.3 → 0.1.7 (wrong result): two threads removing one entry both get its
//! value.
//!
//! - Crate: [`sharded-slab`](https://crates.io/crates/sharded-slab), a lock-free slab whose
//!   `insert`, `get` and `remove` (`take` since 0.0.4) are `&self` methods on a `Sync` type.
//! - Buggy: `=0.0.3`. Fixed in 0.0.4 ("nicer handling of races in remove"); the twin uses
//!   `=0.1.7`, the API's current form.
//! - Upstream: the fix, <https://github.com/hawkw/sharded-slab/commit/476ded12a0e4c2a3de68c285cd0fbda5712d7fad>
//!   ("more correct handling of races in remove"), with the test it added,
//!   <https://github.com/hawkw/sharded-slab/commit/00809a1b5fbda6f068811be7e9e91eb33dcca0da>
//!   (`racy_remove`: "both threads should not have removed the value").
//! - The race: 0.0.3's `remove` checks the slot's generation, then takes the value out of
//!   the slot with a plain `Option::take`, and moves the generation on only at the next
//!   insert. Two removes of one key that both pass the check before either takes both
//!   return the value: once from the slot, once as a copy of the bytes still there. Since
//!   0.0.4 a remove claims the slot with a compare-and-swap on its state first.
//! - Symptom: no panic; `claim() ‖ claim()` both `Some`, which no sequential order gives.
//!
//! The job is a 4 KiB buffer, as a job's payload would be: moving it out of the slot is the
//! window between the check and the take (with a `u64` the window is a few instructions).
//! The slabs are configured small (64 threads, 2 pages of 4 slots), so that a new one takes
//! microseconds (the default configuration allocates 4,096 shards).

use sharded_slab_0_0_3 as buggy;
use sharded_slab_0_1 as fixed;
use threadsafe_rt::thread_safe;

use crate::{naive, BugKind, Subject};

/// The size of a job, in `u64`s (4 KiB).
const WORDS: usize = 512;

/// The job every queue starts with: its first word is its number.
const JOB: [u64; WORDS] = [42; WORDS];

/// A small configuration for 0.0.3.
pub struct SmallOld;

impl buggy::Config for SmallOld {
    const MAX_THREADS: usize = 64;
    const MAX_PAGES: usize = 2;
    const INITIAL_PAGE_SIZE: usize = 4;
}

/// The same configuration for 0.1.7.
pub struct SmallNew;

impl fixed::Config for SmallNew {
    const MAX_THREADS: usize = 64;
    const MAX_PAGES: usize = 2;
    const INITIAL_PAGE_SIZE: usize = 4;
}

/// A job handed to whichever worker claims it first, kept in a `sharded-slab` 0.0.3 slab.
pub struct PendingJob {
    slab: buggy::Slab<[u64; WORDS], SmallOld>,
    key: usize,
}

#[thread_safe(test = false, statement_points = "always")]
impl PendingJob {
    /// One job, pending.
    pub fn new() -> Self {
        let slab = buggy::Slab::new_with_config::<SmallOld>();
        let key = slab.insert(JOB).expect("an empty slab has room");
        PendingJob { slab, key }
    }

    /// Claims the job: its number, or `None` when another worker claimed it.
    pub fn claim(&self) -> Option<u64> {
        self.slab.remove(self.key).map(|job| job[0])
    }

    /// Whether the job is still pending.
    pub fn pending(&self) -> bool {
        self.slab.contains(self.key)
    }
}

impl Default for PendingJob {
    fn default() -> Self {
        PendingJob::new()
    }
}

/// The twin: the same type over `sharded-slab` 0.1.7.
pub struct FixedPendingJob {
    slab: fixed::Slab<[u64; WORDS], SmallNew>,
    key: usize,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedPendingJob {
    /// One job, pending.
    pub fn new() -> Self {
        let slab = fixed::Slab::new_with_config::<SmallNew>();
        let key = slab.insert(JOB).expect("an empty slab has room");
        FixedPendingJob { slab, key }
    }

    /// Claims the job: its number, or `None` when another worker claimed it.
    pub fn claim(&self) -> Option<u64> {
        self.slab.take(self.key).map(|job| job[0])
    }

    /// Whether the job is still pending.
    pub fn pending(&self) -> bool {
        self.slab.contains(self.key)
    }
}

impl Default for FixedPendingJob {
    fn default() -> Self {
        FixedPendingJob::new()
    }
}

/// The subject, as `id`. The hand loop counts the claims that got the job beside the
/// instance and checks after the pair that there was one.
pub fn subject(id: &'static str) -> Subject {
    Subject {
        id,
        name: "slab_take",
        original: "sharded-slab 0.0.3 Slab::remove (racy_remove, fixed 0.0.4); twin 0.1.7",
        bug: BugKind::WrongResult,
        file: file!(),
        check_buggy: threadsafe_rt::check::<PendingJob>,
        check_twin: threadsafe_rt::check::<FixedPendingJob>,
        naive: |budget| {
            use std::sync::atomic::{AtomicU32, Ordering};
            let claim = |(job, claims): &(PendingJob, AtomicU32)| {
                if job.claim().is_some() {
                    claims.fetch_add(1, Ordering::SeqCst);
                }
            };
            naive::hand_loop(
                budget,
                || (PendingJob::new(), AtomicU32::new(0)),
                claim,
                claim,
                |(_, claims)| claims.load(Ordering::SeqCst) == 1,
            )
        },
    }
}
