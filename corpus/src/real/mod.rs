//! Subjects over published crate versions with known concurrency bugs that were fixed
//! upstream (`R1`, `R2`, …): each file wraps the buggy version in a small `#[thread_safe]`
//! type, names the upstream issue, pull request or advisory, and wraps the fixed version of
//! the same crate in the same way as its twin. The race is inside the dependency, which has
//! no scheduling point, so the tool finds it with free-running threads (`schedule =
//! "auto"`).
//!
//! Their naive test is [`naive::hand_loop`](crate::naive::hand_loop): the tight two-thread
//! loop a user who knows the racing pair writes by hand, with a check after each round. A
//! panic subject's `file` is the dependency's source file the panic is located in (a path
//! suffix, matched as the time-to-bug harness's `is_the_bug` does); a wrong-result
//! subject's is its own.

use crate::Subject;

pub mod bucket_push;
pub mod lasso_keys;
pub mod lasso_resolve;
pub mod prometheus_histogram;
pub mod slab_take;
pub mod spin_once;

impl Default for spin_once::LazyConnection {
    fn default() -> Self {
        Self::new()
    }
}

impl Default for spin_once::FixedLazyConnection {
    fn default() -> Self {
        Self::new()
    }
}

/// The real-crate subjects, in order.
pub fn subjects() -> Vec<Subject> {
    vec![
        lasso_keys::subject("R1"),
        lasso_resolve::subject("R2"),
        spin_once::subject("R3"),
        prometheus_histogram::subject("R4"),
        slab_take::subject("R5"),
        bucket_push::subject("R6"),
    ]
}
