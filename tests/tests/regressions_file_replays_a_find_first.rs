//! The regressions file: a violation a check finds is written to
//! `threadsafe-regressions/<Type>.txt`, and the next check replays it before generating
//! anything, finding it again in one test and one execution when it was found under the
//! controlled scheduler. The types are the `threadsafe_rt::sync` ports of
//! `threadsafe_corpus::contege::sync_locks` (every execution controlled, so every find here is
//! deterministic); each test writes into a folder of its own, set through the `Config`.

use std::time::Duration;

use threadsafe_corpus::contege::sync_locks::string_buffer::{FixedStringBuffer, StringBuffer};
use threadsafe_rt::{check, Config, Guide, Report, ScheduleMode, Strategy, Verdict, Written};
use threadsafe_tests::expect;
use threadsafe_tests::harness;
use threadsafe_tests::temp::TempDir;

/// Only a guard against a hang: the controlled finds of `StringBuffer` take well under a
/// second of the budget in every seed of `controlled_finds_sync_ports_in_every_seed`.
const BUDGET: Duration = Duration::from_secs(60);

/// A controlled hunt of `StringBuffer`'s race with seed `seed`, writing into `dir`.
fn config(seed: u64, dir: &TempDir) -> Config {
    let mut config = harness::race_hunt(seed, Strategy::Random, BUDGET);
    config.regressions = Some(dir.path().join("threadsafe-regressions"));
    // An entry holds the test as first found, and these tests compare the replayed
    // execution with the first check's: neither shrinks (shrinking has tests of its own).
    config.shrink = false;
    config
}

/// The regressions file of `StringBuffer` in `dir`.
fn file(dir: &TempDir) -> std::path::PathBuf {
    dir.path()
        .join("threadsafe-regressions")
        .join("StringBuffer.txt")
}

/// The line of the entry the first check wrote.
fn written(report: &Report) -> usize {
    match report.regressions.as_ref().and_then(|r| r.written.clone()) {
        Some(Written::Appended(line)) => line,
        other => panic!("the violation was not appended ({other:?}):\n{report}"),
    }
}

#[test]
fn a_controlled_find_comes_back_first_in_one_execution() {
    let dir = TempDir::new("regressions-first");
    let first = check::<StringBuffer>(&config(0, &dir));
    let found = expect::violation(&first);
    let line = written(&first);
    assert!(found.replay.is_some(), "a controlled find:\n{first}");
    let text = std::fs::read_to_string(file(&dir)).expect("the file was written");
    assert!(
        text.contains("threadsafe-regressions 1\ntype StringBuffer\n")
            && text.contains("  schedule: batch ")
            && text.contains(".insert(dst: usize = "),
        "{text}"
    );
    // Another seed: the generator would make other tests; the file's entry comes first.
    let second = check::<StringBuffer>(&config(9, &dir));
    let again = expect::violation(&second);
    let regressions = second.regressions.as_ref().expect("the file was read");
    assert_eq!(regressions.found_by, Some(line), "{second}");
    assert_eq!(
        (regressions.entries, regressions.replayed),
        (1, 1),
        "{second}"
    );
    assert_eq!(
        regressions.written, None,
        "a find from the file is not written again"
    );
    assert_eq!((second.tests, second.executions), (1, 1), "{second}");
    assert_eq!(
        (again.tests_until_found, again.executions_until_found),
        (1, 1),
        "{second}"
    );
    assert_eq!(
        again.failure, found.failure,
        "{second}\nThe first:\n{first}"
    );
    assert_eq!(again.interleaving, found.interleaving, "the same schedule");
    assert_eq!(second.seed, first.seed, "the entry's seed");
    let shown = second.to_string();
    assert!(
        shown.contains(&format!(
            "  regressions: found again by the entry at line {line} of {}",
            file(&dir).display()
        )),
        "{shown}"
    );
    assert_eq!(
        std::fs::read_to_string(file(&dir)).unwrap(),
        text,
        "the file is unchanged"
    );
}

#[test]
fn a_fixed_type_replays_the_entry_and_goes_on_generating() {
    let dir = TempDir::new("regressions-fixed");
    let first = check::<StringBuffer>(&config(0, &dir));
    written(&first);
    // The same entry, for the fixed twin: same methods and arguments, no failure.
    let text = std::fs::read_to_string(file(&dir)).unwrap();
    let fixed = file(&dir).with_file_name("FixedStringBuffer.txt");
    std::fs::write(&fixed, text.replace("StringBuffer", "FixedStringBuffer")).unwrap();
    let mut c = config(0, &dir);
    c.budget = Duration::from_millis(300);
    let report = check::<FixedStringBuffer>(&c);
    expect::no_violation(&report);
    let r = report.regressions.as_ref().unwrap();
    assert_eq!((r.replayed, r.found_by, &r.skipped[..]), (1, None, &[][..]));
    assert!(report.tests > 1, "it went on generating:\n{report}");
    assert!(
        report
            .to_string()
            .contains("regressions: replayed 1 entry of "),
        "{report}"
    );
}

#[test]
fn an_entry_the_type_no_longer_fits_is_reported_as_skipped() {
    let dir = TempDir::new("regressions-stale");
    let first = check::<StringBuffer>(&config(0, &dir));
    let line = written(&first);
    let text = std::fs::read_to_string(file(&dir)).unwrap();
    // One entry whose method is gone, one whose argument changed type, one duplicate.
    let renamed = text.replace(".insert(dst: usize", ".insert_at(dst: usize");
    let entry = &renamed[renamed.find("\nentry\n").unwrap() + 1..];
    let retyped = entry
        .replace(".insert_at(dst: usize", ".insert(dst: u64")
        .replace("seed: ", "seed: 1");
    let stale = format!("{renamed}\n{retyped}\n{retyped}");
    std::fs::write(file(&dir), &stale).unwrap();
    let at = |n: usize| {
        stale
            .lines()
            .enumerate()
            .filter(|(_, l)| *l == "entry")
            .nth(n)
            .unwrap()
            .0
            + 1
    };
    let report = check::<StringBuffer>(&config(0, &dir));
    let r = report.regressions.as_ref().unwrap();
    assert_eq!((r.entries, r.replayed), (3, 0), "{report}");
    let skipped: Vec<(usize, &str)> = r
        .skipped
        .iter()
        .map(|s| (s.line, s.reason.as_str()))
        .collect();
    assert_eq!(skipped.len(), 3, "{report}");
    assert_eq!(skipped[0].0, line);
    assert!(
        skipped[0].1.ends_with(
            "the type has no method `insert_at` any more (or none the generator can call)"
        ),
        "{report}"
    );
    assert_eq!(skipped[1].0, at(1));
    assert!(
        skipped[1]
            .1
            .ends_with("argument `dst` of `insert` is a `usize` now, not a `u64`"),
        "{report}"
    );
    assert_eq!(
        skipped[2],
        (
            at(2),
            format!(
                "the same test as the entry at line {}, replayed once",
                at(1)
            )
            .as_str()
        )
    );
    // Nothing came back, so the check generated tests, found the race again, and wrote it.
    expect::violation(&report);
    assert!(matches!(
        r.written,
        Some(Written::Appended(l)) if l > at(2)
    ));
    assert!(
        report.to_string().contains(&format!(
            "  regressions: skipped the entry at line {line} of {}: ",
            file(&dir).display()
        )),
        "{report}"
    );
}

/// A find with no exact schedule (under guide `map`, whose schedules depend on the coverage
/// of every execution before them) is written without one, and replayed as its test's
/// batch of executions; so is an entry that ran free (`schedule=stress`).
#[test]
fn an_entry_without_a_schedule_is_rerun_with_its_executions() {
    let dir = TempDir::new("regressions-unscheduled");
    let mut c = config(0, &dir);
    c.guide = Guide::Map;
    // The replay is one batch under a schedule seed of its own: 20 executions, not the
    // harness's 4, so that the race comes back in it (with 4, the test this seed finds
    // first, on a fresh instance since the generator makes such prefixes, did not).
    c.conc_execs = 20;
    let first = check::<StringBuffer>(&c);
    assert_eq!(expect::violation(&first).replay, None, "{first}");
    written(&first);
    let text = std::fs::read_to_string(file(&dir)).unwrap();
    assert!(
        text.contains(" guide=map ") && !text.contains("  schedule: batch"),
        "{text}"
    );
    let second = check::<StringBuffer>(&c);
    let r = second.regressions.as_ref().unwrap();
    assert_eq!(
        (r.replayed, r.found_by),
        (1, Some(written(&first))),
        "{second}"
    );
    assert_eq!(second.tests, 1, "{second}");
    // The same entry, run free.
    let free = text.replace("schedule=controlled", "schedule=stress");
    std::fs::write(file(&dir), free).unwrap();
    c.schedule = ScheduleMode::Stress;
    c.budget = Duration::from_millis(200);
    let third = check::<StringBuffer>(&c);
    let r = third.regressions.as_ref().unwrap();
    assert_eq!((r.replayed, &r.skipped[..]), (1, &[][..]), "{third}");
    assert!(third.executions >= 1, "{third}");
}

#[test]
fn without_a_folder_nothing_is_read_or_written() {
    let dir = TempDir::new("regressions-none");
    let mut c = config(0, &dir);
    c.regressions = None;
    let report = check::<StringBuffer>(&c);
    expect::violation(&report);
    assert!(report.regressions.is_none());
    assert!(!dir.path().join("threadsafe-regressions").exists());
    assert!(!matches!(report.verdict, Verdict::CannotCheck(_)));
}

/// With shrinking on (the default), a find from the file is shrunk as a check's own find is:
/// the report leads with a smaller test, the entry keeps the test as first found.
#[test]
fn a_find_from_the_file_is_shrunk_like_a_new_one() {
    let dir = TempDir::new("regressions-shrunk");
    let shrinking = |seed| {
        let mut c = config(seed, &dir);
        c.shrink = true;
        c
    };
    let first = check::<StringBuffer>(&shrinking(0));
    let found = expect::violation(&first);
    let shrunk = found
        .shrunk
        .as_ref()
        .expect("seed 0's find has calls to spare");
    let second = check::<StringBuffer>(&shrinking(9));
    let again = expect::violation(&second);
    let regressions = second.regressions.as_ref().expect("the file was read");
    assert!(regressions.found_by.is_some(), "{second}");
    let again_shrunk = again
        .shrunk
        .as_ref()
        .expect("the find from the file was shrunk");
    assert_eq!(again_shrunk.from_calls, shrunk.from_calls, "{second}");
    assert!(again_shrunk.to_calls < again_shrunk.from_calls, "{second}");
}
