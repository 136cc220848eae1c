//! A violation found under the controlled scheduler comes with its interleaving as a gated
//! test: the same prefix and threads, with a `schedule!` that holds each thread where the
//! controlled run switched away from it. `reproducers/gated_string_buffer.rs` is the one the
//! StringBuffer port (with `threadsafe_rt::sync` locks) gets for seed 0; this file checks that
//! it is current and runs it: free-running, it fails the same way in 100 runs out of 100.
//! `UPDATE_SNAPSHOTS=1 cargo test -p threadsafe-tests --test gated_reproducer` rewrites it.

use std::path::PathBuf;
use std::time::Duration;

use threadsafe_corpus::contege::sync_locks::string_buffer::{self, StringBuffer};
use threadsafe_rt::{check, Strategy};
use threadsafe_tests::harness;
use threadsafe_tests::{expect, line_of};

#[rustfmt::skip]
#[path = "reproducers/gated_string_buffer.rs"]
mod gated_string_buffer;

const SNAPSHOT: &str = "gated_string_buffer.rs";
const HEADER: &str =
    "// Generated: the gated test of a violation of the StringBuffer port (seed 0).\n\
                      use threadsafe_corpus::contege::sync_locks::string_buffer::StringBuffer;\n\n";

/// The gated test as the check prints it, as a public `fn` (this file runs it).
fn current() -> (String, Vec<String>) {
    let config = harness::race_hunt(0, Strategy::Random, Duration::from_secs(60));
    let report = check::<StringBuffer>(&config);
    let v = expect::violation(&report);
    let gated = v
        .gated
        .clone()
        .unwrap_or_else(|| panic!("no gated test:\n{report}"));
    assert!(
        report.to_string().contains(&gated),
        "the report prints it:\n{report}"
    );
    let schedule = v.schedule.clone().expect("the entries");
    // Public, for this file to call it.
    let gated = gated.replace("#[test]\nfn ", "pub fn ");
    (gated, schedule)
}

#[test]
fn the_snapshot_is_what_the_check_prints() {
    let (gated, schedule) = current();
    assert!(schedule.len() >= 2, "{schedule:?}");
    assert!(gated.contains("threadsafe_rt::schedule!("), "{gated}");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/reproducers")
        .join(SNAPSHOT);
    let want = format!("{HEADER}{gated}");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(have, want, "stale snapshot: rerun with UPDATE_SNAPSHOTS=1");
}

#[test]
fn the_gated_test_fails_the_same_way_every_run() {
    let line = line_of(string_buffer::SOURCE, "self.chars.lock().unwrap()[index]");
    let at = format!("{}:{line}:", string_buffer::FILE);
    for run in 0..100 {
        let err = std::panic::catch_unwind(gated_string_buffer::string_buffer_gated)
            .expect_err("the gated test fails");
        let text = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(
            text.contains("index out of bounds") && text.contains(&at),
            "run {run}: {text}"
        );
    }
}
