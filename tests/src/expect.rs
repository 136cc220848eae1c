//! Assertions on reports, shared by the integration tests. Each one prints the whole report
//! when it fails.

use threadsafe_rt::{Failure, Report, Verdict, Violation};

/// The violation `report` found.
///
/// # Panics
/// If it found none.
pub fn violation(report: &Report) -> &Violation {
    report
        .violation()
        .unwrap_or_else(|| panic!("expected a thread-safety violation, got:\n{report}"))
}

/// Asserts that `report` found no violation and could run the check.
pub fn no_violation(report: &Report) {
    assert!(
        matches!(report.verdict, Verdict::NoViolationFound),
        "expected no violation, got:\n{report}"
    );
    assert!(report.tests > 0, "the check ran no test:\n{report}");
}

/// Asserts that the violation of `report` is a panic in a suffix thread, in `method`, at line
/// `line` of `file`, with a message containing `message`.
pub fn panic_at(report: &Report, method: &str, file: &str, line: u32, message: &str) {
    let Failure::Panic {
        thread,
        method: m,
        location,
        message: msg,
    } = &violation(report).failure
    else {
        panic!("expected a panic, got:\n{report}");
    };
    assert!(
        thread.starts_with("thread "),
        "panic outside the threads:\n{report}"
    );
    assert_eq!(m, method, "panic in another method:\n{report}");
    let at = format!("{file}:{line}:");
    assert!(location.starts_with(&at), "panic not at {at}:\n{report}");
    assert!(
        msg.contains(message),
        "panic message without {message:?}:\n{report}"
    );
}

/// Asserts that the violation of `report` is a wrong result: at least one call marked as
/// giving a result no sequential order gives, the report explaining it beside what the
/// sequential orders give, and a reproducer that compares the results with the sequential
/// ones. Returns the marked calls and the failure table.
pub fn wrong_results(report: &Report) -> (&[String], &str) {
    let v = violation(report);
    let Failure::Results { calls, table } = &v.failure else {
        panic!("expected wrong results, got: {}\n{report}", v.failure);
    };
    assert!(
        !calls.is_empty(),
        "no call marked as giving a result no sequential order gives:\n{report}"
    );
    let printed = report.to_string();
    for part in [
        "results that no sequential order of the same calls gives",
        "the sequential orders of these calls give instead",
        table.as_str(),
    ] {
        assert!(
            printed.contains(part),
            "the report shows {part:?}:\n{report}"
        );
    }
    for part in [
        "let sequential = [",
        "sequential.contains(&results)",
        "#[test]",
    ] {
        assert!(
            v.reproducer.contains(part),
            "the reproducer has {part:?}:\n{}",
            v.reproducer
        );
    }
    (calls, table)
}

/// Asserts that the violation of `report` is a deadlock of two threads, both in `method`.
pub fn deadlock_in(report: &Report, method: &str) {
    let Failure::Deadlock { blocked } = &violation(report).failure else {
        panic!("expected a deadlock, got:\n{report}");
    };
    let mut blocked = blocked.clone();
    blocked.sort();
    assert_eq!(
        blocked,
        [
            format!("thread 1 in `{method}`"),
            format!("thread 2 in `{method}`")
        ],
        "{report}"
    );
}

/// Asserts that the printed report ends with a reproducer: a `#[test]` that builds the
/// instance with one of the type's constructors, runs threads in `std::thread::scope`, and
/// contains each snippet of `calls` (such as `".insert("`).
pub fn reproducer(report: &Report, calls: &[&str]) {
    let text = report.to_string();
    let (_, code) = text
        .split_once("Reproducer")
        .unwrap_or_else(|| panic!("no reproducer in:\n{text}"));
    let needles = [
        "#[test]".to_string(),
        "std::thread::scope(|s| {".to_string(),
        "s.spawn(|| {".to_string(),
        format!("let cut = {}::", report.type_name),
    ];
    for needle in needles
        .iter()
        .map(String::as_str)
        .chain(calls.iter().copied())
    {
        assert!(
            code.contains(needle),
            "reproducer without {needle:?}:\n{text}"
        );
    }
}

/// The report with which the generated test's entry (`run_test`, in a child process of the
/// test binary when called from a test named `thread_safe_…`) fails for `T` under `config`.
///
/// # Panics
/// If the generated test passes, or fails with something other than its report.
pub fn failed_generated_test<T: threadsafe_rt::Subject>(config: threadsafe_rt::Config) -> String {
    let failure = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        threadsafe_rt::__private::run_test::<T>(config)
    }))
    .expect_err("the generated test fails");
    failure
        .downcast_ref::<String>()
        .expect("the failure is the report")
        .clone()
}
