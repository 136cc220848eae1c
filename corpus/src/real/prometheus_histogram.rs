//! `prometheus` 0.9.0 → 0.13.4 (wrong result): a snapshot taken while a value is recorded
//! can count the value in a bucket but not in the total.
//!
//! - Crate: [`prometheus`](https://crates.io/crates/prometheus), `Histogram`, whose
//!   `observe` and `collect` are `&self` methods on a `Sync` type, shared between threads.
//! - Buggy: `=0.9.0`. Fixed in 0.10.0; the twin uses `=0.13.4`, which keeps the fix and no
//!   longer depends on `regex` (both without the default `protobuf` feature).
//! - Upstream: <https://github.com/tikv/rust-prometheus/pull/314> ("src/histogram: Make
//!   Histogram::observe atomic across collects"), a port of the Go client's fix,
//!   <https://github.com/prometheus/client_golang/pull/457>.
//! - The race: 0.9.0's `observe` increments the value's bucket, then the count, then adds
//!   to the sum, three separate atomics; a snapshot (`Metric::metric`, what `collect`
//!   exposes) reads the sum, then the count, then the buckets. A snapshot that interleaves
//!   with a recording sees part of it: e.g. the count read before the recording and the
//!   buckets after, one value in a bucket and none in the total. Since 0.10.0 a recording
//!   goes into a hot shard, and a snapshot switches shards and waits for the recordings on
//!   the old one.
//! - Symptom: no panic; a snapshot no sequential order of the recordings and the snapshot
//!   gives (`count` ≠ `bucketed`, or a sum without its count).
//!
//! The wrappers record whole milliseconds (`u16`), so sums are exact in `f64` and do not
//! depend on the order of the additions. Racing pair for the hand loop: `record(5) ‖
//! summary()`, the summary consistent.

use prometheus_0_13 as fixed;
use prometheus_0_9 as buggy;
use threadsafe_rt::thread_safe;

use crate::{naive, BugKind, Subject};

/// The upper bounds of the histograms' buckets, in milliseconds: every `u16` value falls in
/// one of them.
const BOUNDS: [f64; 4] = [10.0, 100.0, 1000.0, 65535.0];

/// A histogram's state as a snapshot exposes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// How many values were recorded.
    pub count: u64,
    /// Their sum.
    pub sum: f64,
    /// How many fell in the buckets (the last bucket's cumulative count): every value does,
    /// so a consistent summary has `bucketed == count`.
    pub bucketed: u64,
}

impl Summary {
    /// Whether a summary could come from some set of whole recordings: as many values in the
    /// buckets as in the count, and a sum only when something was counted.
    pub fn consistent(&self) -> bool {
        self.count == self.bucketed && (self.count > 0 || self.sum == 0.0)
    }
}

/// Request latencies over `prometheus` 0.9.0's `Histogram`.
pub struct Latencies {
    histogram: buggy::Histogram,
}

#[thread_safe(test = false, statement_points = "always")]
impl Latencies {
    /// No latency recorded.
    pub fn new() -> Self {
        let opts =
            buggy::HistogramOpts::new("latency_ms", "request latency").buckets(BOUNDS.to_vec());
        Latencies {
            histogram: buggy::Histogram::with_opts(opts).expect("valid histogram options"),
        }
    }

    /// Records one request's latency.
    pub fn record(&self, ms: u16) {
        self.histogram.observe(f64::from(ms));
    }

    /// A snapshot, as a scrape of the histogram sees it.
    pub fn summary(&self) -> Summary {
        use buggy::core::Metric as _;
        let metric = self.histogram.metric();
        let h = metric.get_histogram();
        Summary {
            count: h.get_sample_count(),
            sum: h.get_sample_sum(),
            bucketed: h
                .get_bucket()
                .last()
                .map_or(0, |b| b.get_cumulative_count()),
        }
    }
}

impl Default for Latencies {
    fn default() -> Self {
        Latencies::new()
    }
}

/// The twin: the same type over `prometheus` 0.13.4's `Histogram`.
pub struct FixedLatencies {
    histogram: fixed::Histogram,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedLatencies {
    /// No latency recorded.
    pub fn new() -> Self {
        let opts =
            fixed::HistogramOpts::new("latency_ms", "request latency").buckets(BOUNDS.to_vec());
        FixedLatencies {
            histogram: fixed::Histogram::with_opts(opts).expect("valid histogram options"),
        }
    }

    /// Records one request's latency.
    pub fn record(&self, ms: u16) {
        self.histogram.observe(f64::from(ms));
    }

    /// A snapshot, as a scrape of the histogram sees it.
    pub fn summary(&self) -> Summary {
        use fixed::core::Metric as _;
        let metric = self.histogram.metric();
        let h = metric.get_histogram();
        Summary {
            count: h.get_sample_count(),
            sum: h.get_sample_sum(),
            bucketed: h
                .get_bucket()
                .last()
                .map_or(0, |b| b.get_cumulative_count()),
        }
    }
}

impl Default for FixedLatencies {
    fn default() -> Self {
        FixedLatencies::new()
    }
}

/// The subject, as `id`. The hand loop's second thread checks its own summary: a user's
/// loop would assert it there, where the value is.
pub fn subject(id: &'static str) -> Subject {
    Subject {
        id,
        name: "prometheus_histogram",
        original:
            "prometheus 0.9.0 Histogram observe vs collect (tikv/rust-prometheus#314), fixed 0.10.0; twin 0.13.4",
        bug: BugKind::WrongResult,
        file: file!(),
        check_buggy: threadsafe_rt::check::<Latencies>,
        check_twin: threadsafe_rt::check::<FixedLatencies>,
        naive: |budget| {
            naive::hand_loop(
                budget,
                Latencies::new,
                |l| l.record(5),
                |l| assert!(l.summary().consistent(), "an inconsistent summary"),
                |l| l.summary().consistent(),
            )
        },
    }
}
