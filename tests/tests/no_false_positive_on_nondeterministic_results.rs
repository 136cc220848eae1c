//! Correct types whose results legitimately differ between runs stay quiet with results
//! compared: numbers from `fetch_add` in either order, hash order, clocks, addresses,
//! random tokens, shards chosen by `ThreadId`, a number moved on by a thread of its own (see
//! `threadsafe_tests::nondeterministic`).
//! Each is checked over 20 seeds, with the default settings (its calls run controlled:
//! the types are annotated in this crate, so their statement points exist here) and with
//! free-running threads. `#[thread_safe(nondeterministic)]` keeps a method's results out of
//! the comparison, and the report says so.

use std::time::Duration;

use threadsafe_rt::{check, thread_safe, Config, ScheduleMode, Subject};
use threadsafe_tests::expect;
use threadsafe_tests::nondeterministic::{
    Boxes, Clock, Generations, Registry, ShardedCounter, Tickets, Tokens,
};

/// The budget of each check.
const BUDGET: Duration = Duration::from_millis(75);

/// No report on `T` over seeds `0..20`, controlled and free-running.
fn quiet<T: Subject>() {
    for schedule in [ScheduleMode::Auto, ScheduleMode::Stress] {
        for seed in 0..20 {
            let mut c = Config::default();
            c.seed = seed;
            c.budget = BUDGET;
            c.schedule = schedule;
            let report = check::<T>(&c);
            expect::no_violation(&report);
            assert!(report.results.compared, "{report}");
        }
    }
}

#[test]
fn tickets_from_fetch_add_in_either_order() {
    quiet::<Tickets>();
}

#[test]
fn keys_listed_in_hash_order() {
    quiet::<Registry>();
}

#[test]
fn times_read_from_clocks() {
    quiet::<Clock>();
}

#[test]
fn addresses_of_boxed_values() {
    quiet::<Boxes>();
}

#[test]
fn random_tokens() {
    quiet::<Tokens>();
}

#[test]
fn shards_chosen_by_thread_id() {
    quiet::<ShardedCounter>();
}

/// Free-running threads that straddle a move of the generation give results no sequential
/// order gives, and the test run again gives others that the sequential runs made before the
/// move do not give either: they are taken for the race come back only if a fresh run of
/// every order still does not give them, and that run shows the generation moved.
#[test]
fn a_number_moved_on_by_a_thread_of_its_own() {
    quiet::<Generations>();
}

/// A stamp counter whose `stamp` is marked nondeterministic: its value (a clock reading)
/// is never compared, and the report lists it.
pub struct Stamps(std::sync::atomic::AtomicU64);

#[thread_safe(test = false)]
impl Stamps {
    pub fn new() -> Self {
        Stamps(std::sync::atomic::AtomicU64::new(0))
    }
    #[thread_safe(nondeterministic)]
    pub fn stamp(&self) -> u128 {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    }
    pub fn count(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Default for Stamps {
    fn default() -> Self {
        Stamps::new()
    }
}

#[test]
fn a_method_marked_nondeterministic_is_not_compared_and_the_report_says_so() {
    let mut c = Config::default();
    c.budget = BUDGET;
    let report = check::<Stamps>(&c);
    expect::no_violation(&report);
    assert_eq!(
        report.results.not_compared.get("stamp").map(String::as_str),
        Some("marked `#[thread_safe(nondeterministic)]`"),
        "{report}"
    );
    assert!(
        report
            .to_string()
            .contains("`stamp`: marked `#[thread_safe(nondeterministic)]`"),
        "{report}"
    );
}
