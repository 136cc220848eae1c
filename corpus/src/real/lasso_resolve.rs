//! `lasso` 0.6.0 → 0.7.2 (panic): a key handed out before its string is stored panics
//! "Key out of bounds" when resolved.
//!
//! - Crate: [`lasso`](https://crates.io/crates/lasso), `ThreadedRodeo`, a concurrent string
//!   interner over two `DashMap`s (string → key, key → string).
//! - Buggy: `=0.6.0`. Fixed: `=0.7.2`.
//! - Upstream: <https://github.com/Kixiron/lasso/pull/40> ("Update `try_get_or_intern` and
//!   `try_get_or_intern_static` to update both ThreadRodeo maps under a write lock"), released
//!   in 0.7.1/0.7.2.
//! - The race: `try_get_or_intern` inserts the new key into the string → key map (through its
//!   entry), and only then the string into the key → string map. A second thread that looks
//!   the string up in between (`get`, or `get_or_intern`, which returns at once when the
//!   first map has it) is given the key; its `resolve(key)` looks in the second map, finds
//!   nothing and panics.
//! - Symptom: a panic, `Key out of bounds`, at `lasso-0.6.0/src/multi_threaded.rs`
//!   (`ThreadedRodeo::resolve`).
//!
//! Racing pair for the hand loop: `intern("a") ‖ lookup("a")`, where `lookup` gets the key
//! and resolves it, as code that keeps the table's copy does. (A resolving call that interns
//! too, `get_or_intern` then `resolve`, has the same bug, but every call of it interns, and
//! the tool found it less often: in a probe of seeds 0..3 at 10 s each, run twice, in 2 of 6
//! checks, against 4 of 6 with this wrapper.)

use lasso_0_6::ThreadedRodeo as Rodeo06;
use lasso_0_7::ThreadedRodeo as Rodeo07;
use threadsafe_rt::thread_safe;

use crate::{naive, BugKind, Subject};

/// A name table over `lasso` 0.6.0's `ThreadedRodeo`.
pub struct Names {
    rodeo: Rodeo06,
}

#[thread_safe(test = false, statement_points = "always")]
impl Names {
    /// An empty table.
    pub fn new() -> Self {
        Names {
            rodeo: Rodeo06::default(),
        }
    }

    /// Interns `name` (a no-op when it is interned already).
    pub fn intern(&self, name: &str) {
        self.rodeo.get_or_intern(name);
    }

    /// The table's copy of `name`, if it is interned: its key, resolved.
    pub fn lookup(&self, name: &str) -> Option<String> {
        let key = self.rodeo.get(name)?;
        Some(self.rodeo.resolve(&key).to_string())
    }
}

impl Default for Names {
    fn default() -> Self {
        Names::new()
    }
}

/// The twin: the same table over `lasso` 0.7.2's `ThreadedRodeo`.
pub struct FixedNames {
    rodeo: Rodeo07,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedNames {
    /// An empty table.
    pub fn new() -> Self {
        FixedNames {
            rodeo: Rodeo07::default(),
        }
    }

    /// Interns `name` (a no-op when it is interned already).
    pub fn intern(&self, name: &str) {
        self.rodeo.get_or_intern(name);
    }

    /// The table's copy of `name`, if it is interned: its key, resolved.
    pub fn lookup(&self, name: &str) -> Option<String> {
        let key = self.rodeo.get(name)?;
        Some(self.rodeo.resolve(&key).to_string())
    }
}

impl Default for FixedNames {
    fn default() -> Self {
        FixedNames::new()
    }
}

/// The subject, as `id`.
pub fn subject(id: &'static str) -> Subject {
    Subject {
        id,
        name: "lasso_resolve",
        original: "lasso 0.6.0 ThreadedRodeo::get then resolve (Kixiron/lasso#40), fixed 0.7.2",
        bug: BugKind::DataRace,
        file: "lasso-0.6.0/src/multi_threaded.rs",
        check_buggy: threadsafe_rt::check::<Names>,
        check_twin: threadsafe_rt::check::<FixedNames>,
        naive: |budget| {
            naive::hand_loop(
                budget,
                Names::new,
                |n| n.intern("a"),
                |n| {
                    n.lookup("a");
                },
                |_| true,
            )
        },
    }
}
