//! Wrong results are violations: types whose only symptom is a result that no sequential
//! order of the same calls gives (a lost update, one ticket handed out twice, both threads
//! told they inserted a key first, money created by two transfers, one name given two ids).
//! None of them panics or deadlocks. The check finds each one as a `Failure::Results`, its
//! report shows each thread's calls with what they returned and what the sequential orders
//! give, and its reproducer asserts the results are among the sequential ones; each correct
//! twin stays quiet over 20 seeds. With `results = false` (the paper's oracle) the same
//! check finds nothing.

use std::time::Duration;

use threadsafe_corpus::wrong_result::{bank, counter, ids, set, tickets};
use threadsafe_rt::{check, Config, Report, Subject};
use threadsafe_tests::expect;

/// The budget of a find: well above what each test's seed takes (see the bank's test).
const BUDGET: Duration = Duration::from_secs(20);

/// The budget of each twin check.
const TWIN_BUDGET: Duration = Duration::from_millis(150);

fn config(seed: u64, budget: Duration) -> Config {
    let mut c = Config::default();
    c.seed = seed;
    c.budget = budget;
    c
}

/// Asserts that `report` found wrong results in a test where `method` ran in a thread,
/// marked at least one call's result as one no sequential order gives, printed the failure
/// table, and wrote a reproducer that compares the results with the sequential ones; the
/// marked calls. (The marked call need not be `method`: a transfer that loses a concurrent
/// deposit shows as a `total()` after the threads joined.)
fn wrong_results(report: &Report, method: &str) -> Vec<String> {
    let (calls, table) = expect::wrong_results(report);
    assert!(
        table
            .lines()
            .any(|l| l.trim_start().starts_with("thread ") && l.contains(method)),
        "no thread ran `{method}` in the failing test:\n{report}"
    );
    let printed = report.to_string();
    for part in ["thread 1", "thread 2"] {
        assert!(
            printed.contains(part),
            "the report shows {part:?}:\n{report}"
        );
    }
    calls.to_vec()
}

/// The check of `T` with `seed` finds wrong results involving `method`; with the
/// panic-only oracle, the same check finds nothing.
fn finds<T: Subject>(seed: u64, method: &str) {
    let report = check::<T>(&config(seed, BUDGET));
    println!("{report}");
    wrong_results(&report, method);
    let mut panic_only = config(seed, Duration::from_millis(500));
    panic_only.results = false;
    let report = check::<T>(&panic_only);
    expect::no_violation(&report);
    assert!(!report.results.compared, "{report}");
}

/// No report on `T` over seeds `0..20`.
fn quiet<T: Subject>() {
    for seed in 0..20 {
        let report = check::<T>(&config(seed, TWIN_BUDGET));
        expect::no_violation(&report);
        assert!(report.results.compared, "{report}");
    }
}

#[test]
fn finds_a_lost_update_in_a_counter_incremented_by_a_load_and_a_store() {
    finds::<counter::HitCounter>(1, "hit()");
}

#[test]
fn finds_one_ticket_handed_out_twice() {
    finds::<tickets::TicketDispenser>(4, "take()");
}

#[test]
fn finds_a_set_that_tells_both_threads_they_inserted_a_key_first() {
    finds::<set::ConcurrentSet>(5, "insert(");
}

#[test]
fn finds_an_id_table_that_gives_one_name_two_ids() {
    finds::<ids::IdTable>(0, "id(");
}

/// Seed 5: found in every run, always by a controlled execution, in a small part of the
/// budget. Seed 0 came close to the budget once `auto` gave free-running threads more of the
/// time of tests whose two arms agree, and some other seeds miss it (see decisions 0022 and
/// 0081).
#[test]
fn finds_money_created_by_two_transfers_in_two_lock_sections() {
    finds::<bank::Bank>(5, "transfer(");
}

#[test]
fn the_correct_twins_stay_quiet() {
    quiet::<counter::FixedHitCounter>();
    quiet::<tickets::FixedTicketDispenser>();
    quiet::<set::FixedConcurrentSet>();
    quiet::<ids::FixedIdTable>();
    quiet::<bank::FixedBank>();
}
