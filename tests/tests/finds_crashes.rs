//! Races in `unsafe` code that end in a crash, found by the generated test: the check runs in
//! a child process, the child dies by a signal, the crash oracle runs the crashing test's
//! sequential orders in another child that survives them, and the test fails with a report
//! that names the signal and prints the test as a reproducer (`threadsafe_corpus::crash`: a
//! reallocation race, a use after free in a lock-free cell, a double drop; and two published
//! crates' uses after free, `internment` 0.3.12's and `abox` 0.3.0's). Each test below
//! stands for a generated test (its name starts with `thread_safe_`) and calls the generated
//! test's entry; the twins' generated tests run in the corpus's unit tests and pass.
//!
//! Free-running finds: each test's budget found its crash in 100 runs of 100 beside a busy
//! process, and seeds 0–9 in 10 of 10 (`THREADSAFE_SEED=k`, decision 0086).

use std::time::Duration;

use threadsafe_corpus::crash::{
    buffer::Buffer, label::Label, roster::Roster, slot::Slot, swap_cell::SwapCell,
};
use threadsafe_rt::{Config, Subject};
use threadsafe_tests::expect;
use threadsafe_tests::temp::TempDir;

/// The report of the generated test of `T`, which must fail.
fn failed_check<T: Subject>(name: &str) -> String {
    let dir = TempDir::new(name);
    let mut config = Config::default();
    config.budget = Duration::from_secs(10);
    config.regressions = Some(dir.path().to_path_buf());
    expect::failed_generated_test::<T>(config)
}

/// Asserts what every crash report says: a thread-safety violation that crashed the
/// process, by a signal; the oracle's verdict; the test as a contained reproducer.
fn assert_crash_report(text: &str, type_name: &str, calls: &[&str]) {
    assert!(
        text.starts_with(&format!(
            "\nthreadsafe: `{type_name}` is not thread-safe: it crashed the process that checked it\n  \
             failure: the process was killed by signal "
        )),
        "{text}"
    );
    assert!(
        text.contains("(SIGABRT: an abort)") || text.contains("(SIGSEGV: a segmentation fault)"),
        "the signal named:\n{text}"
    );
    assert!(
        text.contains("sequential orders of the same calls crashes (run in a child process"),
        "{text}"
    );
    assert!(text.contains("::threadsafe_rt::contain(|| {"), "{text}");
    for call in calls {
        assert!(
            text.contains(call),
            "no `{call}` in the reproducer:\n{text}"
        );
    }
}

#[test]
fn thread_safe_buffer_reallocation_race() {
    let text = failed_check::<Buffer>("crash-buffer");
    assert_crash_report(&text, "Buffer", &["cut.write("]);
}

#[test]
fn thread_safe_swap_cell_use_after_free() {
    let text = failed_check::<SwapCell>("crash-swap-cell");
    assert_crash_report(&text, "SwapCell", &["cut.set(", "cut.get()"]);
}

#[test]
fn thread_safe_slot_double_drop() {
    let text = failed_check::<Slot>("crash-slot");
    assert_crash_report(&text, "Slot", &["cut."]);
}

#[test]
fn thread_safe_label_use_after_free_in_internment() {
    let text = failed_check::<Label>("crash-label");
    assert_crash_report(&text, "Label", &["cut."]);
}

/// `abox` 0.3.0's race reads a freed list: the process mostly dies of it, and sometimes a
/// `contains` first reads the freed list as not holding a name added before, a result no
/// sequential order gives, which is reported as such (decision 0090 has the split by seed).
#[test]
fn thread_safe_roster_use_after_free_in_abox() {
    let text = failed_check::<Roster>("crash-roster");
    if text.contains("it crashed the process that checked it") {
        assert_crash_report(&text, "Roster", &["cut.add("]);
    } else {
        assert!(
            text.starts_with(
                "\nthreadsafe: `Roster` is not thread-safe\n  failure: results that no \
                 sequential order of the same calls gives"
            ),
            "a crash or wrong results:\n{text}"
        );
        assert!(text.contains("cut.add("), "{text}");
    }
}
