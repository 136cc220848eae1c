//! `abox` 0.3.0 → 0.4.1 (crash): a roster updated through a lock-free box frees the list that
//! another thread is still reading.
//!
//! - Crate: [`abox`](https://crates.io/crates/abox), `AtomicBox<T>`: a value behind an
//!   `AtomicPtr`, replaced by compare-and-swap.
//! - Buggy: `=0.3.0`. Fixed: `=0.4.1` (0.4.0 took the value out of the box while it is used,
//!   upstream commit 5abe752 "fix concurrent frees by ownership"; 0.4.1 added the `Send` and
//!   `Sync` bounds of RUSTSEC-2020-0121).
//! - Upstream: <https://github.com/SonicFrog/abox/issues/1>, RUSTSEC-2020-0121.
//! - The race: 0.3.0's `replace_with` loads the pointer, makes the new value from the old
//!   one, swaps it in, and frees the old value; a reader (`Deref`) only loads the pointer.
//!   Nothing keeps the old value alive for a thread that loaded it before the swap: a second
//!   `add` cloning the list, or a `contains` walking it, reads freed `String`s.
//! - Symptom: a segfault (in `String::clone` under `add`, or in `contains`).
//!
//! Racing pair for the hand loop: `add("a"); add("b"); len()` ‖ `contains("x"); add("c")`
//! after `add("x")`. The list is extended by a function outside the annotated impl, so that
//! no scheduling point falls inside `replace_with` (0.4.1's box is empty while its closure
//! runs, and a thread switched away there would leave the other spinning).

use abox_0_3::AtomicBox as AtomicBox03;
use abox_0_4::AtomicBox as AtomicBox04;
use threadsafe_rt::thread_safe;

/// `names` and then `name`.
fn extended(names: &[String], name: &str) -> Vec<String> {
    let mut out = names.to_vec();
    out.push(name.to_string());
    out
}

/// Names, kept in `abox` 0.3.0's `AtomicBox`.
pub struct Roster {
    names: AtomicBox03<Vec<String>>,
}

impl Default for Roster {
    fn default() -> Self {
        Roster::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
#[allow(clippy::len_without_is_empty)]
impl Roster {
    /// An empty roster.
    pub fn new() -> Self {
        Roster {
            names: AtomicBox03::new(Vec::new()),
        }
    }

    /// Adds `name`.
    pub fn add(&self, name: &str) {
        self.names.replace_with(|names| extended(names, name));
    }

    /// Whether `name` was added.
    pub fn contains(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// How many names were added.
    pub fn len(&self) -> usize {
        self.names.len()
    }
}

/// The twin: the same roster in `abox` 0.4.1's `AtomicBox`.
pub struct FixedRoster {
    names: AtomicBox04<Vec<String>>,
}

impl Default for FixedRoster {
    fn default() -> Self {
        FixedRoster::new()
    }
}

#[thread_safe(statement_points = "always")]
#[allow(clippy::len_without_is_empty)]
impl FixedRoster {
    /// An empty roster.
    pub fn new() -> Self {
        FixedRoster {
            names: AtomicBox04::new(Vec::new()),
        }
    }

    /// Adds `name`.
    pub fn add(&self, name: &str) {
        self.names.replace_with(|names| extended(&names, name));
    }

    /// Whether `name` was added.
    pub fn contains(&self, name: &str) -> bool {
        self.names.get().iter().any(|n| n == name)
    }

    /// How many names were added.
    pub fn len(&self) -> usize {
        self.names.get().len()
    }
}
