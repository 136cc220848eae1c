//! A correct type whose methods panic on bad input (`pop` on an empty stack, `push` on a
//! full one, `get` and `swap` out of range) is not blamed: whenever a concurrent run panics,
//! some sequential order of the same calls panics at the same place, and the oracle drops it.

use std::time::Duration;

use threadsafe_rt::{check, Config};
use threadsafe_tests::bounded_stack::BoundedStack;
use threadsafe_tests::expect;

#[test]
fn no_violation_in_a_type_whose_methods_panic_sequentially() {
    let mut config = Config::default();
    config.budget = Duration::from_secs(3);
    let report = check::<BoundedStack>(&config);
    println!("{report}");
    expect::no_violation(&report);
}

#[test]
#[should_panic(expected = "pop on an empty stack")]
fn pop_on_an_empty_stack_panics_sequentially() {
    BoundedStack::new(1).pop();
}

#[test]
#[should_panic(expected = "push on a full stack")]
fn push_on_a_full_stack_panics_sequentially() {
    let stack = BoundedStack::new(1);
    stack.push(1);
    stack.push(2);
}
