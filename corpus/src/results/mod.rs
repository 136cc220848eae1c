//! Subjects whose only symptom is a wrong result: a lost update, one ticket handed out
//! twice, both threads told they inserted a key first, money created by two transfers, one
//! name given two ids, a torn snapshot, a bounded queue over its capacity. None of them
//! panics or deadlocks; only the results oracle (return values and the post part's
//! observations against those of every sequential order) finds them. Each has a correct
//! twin with the same API.

pub mod bank;
pub mod counter;
pub mod ids;
pub mod queue;
pub mod set;
pub mod stats;
pub mod tickets;

/// `Default` as `new()`, for the types whose `new` takes nothing.
macro_rules! default_is_new {
    ($($t:ty),* $(,)?) => {$(
        impl Default for $t {
            fn default() -> Self {
                <$t>::new()
            }
        }
    )*};
}

default_is_new!(
    bank::Bank,
    bank::FixedBank,
    counter::HitCounter,
    counter::FixedHitCounter,
    ids::IdTable,
    ids::FixedIdTable,
    queue::BoundedQueue,
    queue::FixedBoundedQueue,
    set::ConcurrentSet,
    set::FixedConcurrentSet,
    stats::Stats,
    stats::FixedStats,
    tickets::TicketDispenser,
    tickets::FixedTicketDispenser,
);
