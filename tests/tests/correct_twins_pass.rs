//! The correct twins of the buggy types pass with another seed and the other executor (a new
//! thread per suffix, started by `std::sync::Barrier`, as the paper's tool did), and the
//! generator calls every method of every correct type: a pass covers the whole API, not a part
//! that happened to be supported; a pass that ran free-running only still says which method
//! pairs ran concurrently. (Their generated `#[test]`s run the default check in the
//! library's unit tests; `no_false_positive_on_*` check `BoundedStack` and `Account`.)

use std::time::Duration;

use threadsafe_corpus::contege::std_locks::concurrent_hash_map::FixedConcurrentHashMap;
use threadsafe_corpus::contege::std_locks::logger::FixedLogger;
use threadsafe_corpus::contege::std_locks::string_buffer::FixedStringBuffer;
use threadsafe_corpus::contege::std_locks::synchronized_map::FixedSynchronizedMap;
use threadsafe_rt::{check, Config, Executor, Subject};
use threadsafe_tests::account::Account;
use threadsafe_tests::bounded_stack::BoundedStack;
use threadsafe_tests::expect;

/// Asserts that the generator calls exactly `methods` of `T` and skips none.
fn describes_every_method<T: Subject>(methods: &[&str]) {
    let description = T::describe();
    let name = description.name();
    assert!(
        description.skipped().is_empty(),
        "{name}: skipped {:?}",
        description.skipped()
    );
    assert_eq!(description.method_names(), methods, "{name}");
}

/// Asserts that the generator calls exactly `methods` of `T`, and that `T` passes a check
/// with seed 1 and the paper's executor.
fn passes<T: Subject>(methods: &[&str]) {
    describes_every_method::<T>(methods);
    let mut config = Config::default();
    config.seed = 1;
    config.executor = Executor::Paper;
    config.budget = Duration::from_secs(1);
    let report = check::<T>(&config);
    println!("{report}");
    expect::no_violation(&report);
    if report.controlled_tests == 0 {
        // Free-running only: no MAP-coverage, but the pass still says which methods met.
        let text = report.to_string();
        let pairs = text
            .split("method pairs run concurrently: ")
            .nth(1)
            .unwrap_or_else(|| panic!("a free-running pass without its method pairs:\n{text}"));
        let (covered, _) = pairs.split_once('/').expect("covered/total");
        assert!(covered.parse::<u32>().unwrap() > 0, "{text}");
    }
}

#[test]
fn fixed_string_buffer() {
    passes::<FixedStringBuffer>(&[
        "len",
        "is_empty",
        "append",
        "push",
        "char_at",
        "delete_char_at",
        "truncate",
        "insert",
        "insert_range",
        "contents",
    ]);
}

#[test]
fn fixed_concurrent_hash_map() {
    passes::<FixedConcurrentHashMap>(&[
        "put",
        "get",
        "remove",
        "contains_key",
        "len",
        "is_empty",
        "clear",
        "keys",
        "put_all",
    ]);
}

#[test]
fn fixed_synchronized_map() {
    passes::<FixedSynchronizedMap>(&[
        "insert",
        "get",
        "remove",
        "len",
        "is_empty",
        "clear",
        "extend_from",
        "eq",
    ]);
}

#[test]
fn fixed_logger() {
    passes::<FixedLogger>(&[
        "name",
        "set_level",
        "level",
        "set_handler",
        "remove_handler",
        "has_handler",
        "handler_name",
        "log",
        "published",
    ]);
}

#[test]
fn bounded_stack_describes_every_method() {
    describes_every_method::<BoundedStack>(&[
        "push", "pop", "peek", "get", "swap", "len", "is_empty", "is_full", "clear",
    ]);
}

#[test]
fn account_describes_every_method() {
    describes_every_method::<Account>(&[
        "balance",
        "deposit",
        "withdraw",
        "transfer",
        "merge",
        "sweep_into",
    ]);
}
