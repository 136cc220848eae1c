//! `metrics-util` 0.3.2 → 0.20.4 (wrong result): a snapshot taken right after a push can
//! miss the value pushed.
//!
//! - Crate: [`metrics-util`](https://crates.io/crates/metrics-util), `AtomicBucket`, an
//!   append-only list that histograms push samples into while a scrape reads them, all
//!   through `&self`.
//! - Buggy: `=0.3.2`. Fixed in 0.4.0; the twin uses `=0.20.4` (`storage::AtomicBucket`).
//! - Upstream: <https://github.com/metrics-rs/metrics/issues/126>, fixed by
//!   <https://github.com/metrics-rs/metrics/pull/130> ("fix concurrent writer/uninitialized
//!   memory bug with AtomicBucket") and <https://github.com/metrics-rs/metrics/pull/136>
//!   (in-flight writes missed during iteration).
//! - The race: 0.3.2's block counts finished writes with one counter and a reader takes
//!   that many slots from the front. Two pushes reserve slots 1 and 2; when the second
//!   finishes first, the count says 2 and covers slot 1, not yet written (zero), while the
//!   second's own value, in slot 2, is left out. Since 0.4.0 each slot has its own ready bit
//!   and a reader waits for the writes in flight.
//! - Symptom: no panic; `push_then_contains` returns `false`: the snapshot after a push
//!   lacks the value, which no sequential order gives.
//!
//! The wrappers store `value + 1`, so that a slot not yet written (zero) is never taken for
//! a value pushed. A new bucket holds one sample, so that its first block exists.

use metrics_util_0_20 as fixed;
use metrics_util_0_3 as buggy;
use threadsafe_rt::thread_safe;

use crate::{naive, BugKind, Subject};

/// The sample every new bucket holds.
const FIRST: u32 = 100;

/// Latency samples over `metrics-util` 0.3.2's `AtomicBucket`.
pub struct Samples {
    bucket: buggy::AtomicBucket<u64>,
}

#[thread_safe(test = false, statement_points = "always")]
impl Samples {
    /// One sample, `FIRST` (100).
    pub fn new() -> Self {
        let bucket = buggy::AtomicBucket::new();
        bucket.push(u64::from(FIRST) + 1);
        Samples { bucket }
    }

    /// Adds a sample.
    pub fn push(&self, v: u32) {
        self.bucket.push(u64::from(v) + 1);
    }

    /// Adds a sample, then whether a snapshot has it and only samples pushed.
    pub fn push_then_contains(&self, v: u32) -> bool {
        let x = u64::from(v) + 1;
        self.bucket.push(x);
        let data = self.bucket.data();
        data.contains(&x) && !data.contains(&0)
    }

    /// The samples, sorted (a slot read before it was written shows as `u64::MAX`).
    pub fn snapshot(&self) -> Vec<u64> {
        let mut data: Vec<u64> = self
            .bucket
            .data()
            .iter()
            .map(|x| x.wrapping_sub(1))
            .collect();
        data.sort_unstable();
        data
    }
}

impl Default for Samples {
    fn default() -> Self {
        Samples::new()
    }
}

impl Drop for Samples {
    /// 0.3.2's bucket does not free its blocks when dropped; `clear` hands them to the
    /// epoch collector.
    fn drop(&mut self) {
        self.bucket.clear();
    }
}

/// The twin: the same type over `metrics-util` 0.20.4's `AtomicBucket`.
pub struct FixedSamples {
    bucket: fixed::storage::AtomicBucket<u64>,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedSamples {
    /// One sample, `FIRST` (100).
    pub fn new() -> Self {
        let bucket = fixed::storage::AtomicBucket::new();
        bucket.push(u64::from(FIRST) + 1);
        FixedSamples { bucket }
    }

    /// Adds a sample.
    pub fn push(&self, v: u32) {
        self.bucket.push(u64::from(v) + 1);
    }

    /// Adds a sample, then whether a snapshot has it and only samples pushed.
    pub fn push_then_contains(&self, v: u32) -> bool {
        let x = u64::from(v) + 1;
        self.bucket.push(x);
        let data = self.bucket.data();
        data.contains(&x) && !data.contains(&0)
    }

    /// The samples, sorted (a slot read before it was written shows as `u64::MAX`).
    pub fn snapshot(&self) -> Vec<u64> {
        let mut data: Vec<u64> = self
            .bucket
            .data()
            .iter()
            .map(|x| x.wrapping_sub(1))
            .collect();
        data.sort_unstable();
        data
    }
}

impl Default for FixedSamples {
    fn default() -> Self {
        FixedSamples::new()
    }
}

impl Drop for FixedSamples {
    fn drop(&mut self) {
        self.bucket.clear();
    }
}

/// The subject, as `id`: `push_then_contains(1) ‖ push_then_contains(2)`. The hand loop's
/// threads assert their own results, where the values are, and the check after the pair
/// that the bucket holds the three samples.
pub fn subject(id: &'static str) -> Subject {
    Subject {
        id,
        name: "bucket_push",
        original:
            "metrics-util 0.3.2 AtomicBucket push vs data (metrics-rs/metrics#126), fixed 0.4.0; twin 0.20.4",
        bug: BugKind::WrongResult,
        file: file!(),
        check_buggy: threadsafe_rt::check::<Samples>,
        check_twin: threadsafe_rt::check::<FixedSamples>,
        naive: |budget| {
            naive::hand_loop(
                budget,
                Samples::new,
                |s| assert!(s.push_then_contains(1), "a snapshot without its push"),
                |s| assert!(s.push_then_contains(2), "a snapshot without its push"),
                |s| s.snapshot() == [1, 2, u64::from(FIRST)],
            )
        },
    }
}
