//! The ports with `std::sync` locks. A check sees their threads only where they interact
//! through the OS: free-running stress, or, in a test build, the statement points
//! `#[thread_safe]` inserts.

// The lock module of the ports written once for both (`both_locks/`).
use std::sync;

#[allow(clippy::duplicate_mod)] // one source, one module per lock module
#[path = "both_locks/concurrent_hash_map.rs"]
pub mod concurrent_hash_map;
#[allow(clippy::duplicate_mod)] // one source, one module per lock module
#[path = "both_locks/lock_order.rs"]
mod lock_order;
pub mod logger;
pub mod string_buffer;
#[allow(clippy::duplicate_mod)] // one source, one module per lock module
#[path = "both_locks/synchronized_map.rs"]
pub mod synchronized_map;

pub use lock_order::lock_in_address_order;
