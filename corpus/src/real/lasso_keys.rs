//! `lasso` 0.4.1 → 0.7.2 (wrong result): one new string interned by two threads at once
//! gets two keys.
//!
//! - Crate: [`lasso`](https://crates.io/crates/lasso), `ThreadedRodeo`, a concurrent string
//!   interner over two `DashMap`s (string → key, key → string).
//! - Buggy: `=0.4.1`. Fixed: `=0.7.2` (0.6.0 already inserts through the map's entry, which
//!   closes this race but opens R2's; 0.7.1 and 0.7.2 hold the shard's write lock over both
//!   maps).
//! - Upstream: <https://github.com/Kixiron/lasso/issues/18> ("Possible race condition in
//!   ThreadedRodeo").
//! - The race: `try_get_or_intern` looks the string up under the shard's read lock, and when
//!   it is missing draws a new key and inserts into both maps without looking again. Two
//!   threads interning the same new string both miss, both draw a key, and both insert: the
//!   string → key map keeps the last, the key → string map keeps both.
//! - Symptom: no panic; `len()` counts 2 strings where one was interned (and the two
//!   callers hold keys that are not equal), a result no sequential order gives.
//!
//! The wrappers keep the keys inside: the fixed version draws keys from one counter for all
//! shards, so which string got which number is not linearizable with `len` (a thread can be
//! given key 1 and count one string while key 0 is not yet stored); what `intern` and `len`
//! show is. Racing pair for the hand loop: `intern("a") ‖ intern("a")`, then `len() == 1`.

use lasso_0_4::ThreadedRodeo as Rodeo04;
use lasso_0_7::ThreadedRodeo as Rodeo07;
use threadsafe_rt::thread_safe;

use crate::{naive, BugKind, Subject};

/// A symbol table over `lasso` 0.4.1's `ThreadedRodeo`.
pub struct Symbols {
    rodeo: Rodeo04,
}

#[thread_safe(test = false, statement_points = "always")]
#[allow(clippy::len_without_is_empty)]
impl Symbols {
    /// An empty table.
    pub fn new() -> Self {
        Symbols {
            rodeo: Rodeo04::default(),
        }
    }

    /// Interns `name` (a no-op when it is interned already).
    pub fn intern(&self, name: &str) {
        self.rodeo.get_or_intern(name);
    }

    /// How many strings are interned.
    pub fn len(&self) -> usize {
        self.rodeo.len()
    }
}

impl Default for Symbols {
    fn default() -> Self {
        Symbols::new()
    }
}

/// The twin: the same table over `lasso` 0.7.2's `ThreadedRodeo`.
pub struct FixedSymbols {
    rodeo: Rodeo07,
}

#[thread_safe(test = false, statement_points = "always")]
#[allow(clippy::len_without_is_empty)]
impl FixedSymbols {
    /// An empty table.
    pub fn new() -> Self {
        FixedSymbols {
            rodeo: Rodeo07::default(),
        }
    }

    /// Interns `name` (a no-op when it is interned already).
    pub fn intern(&self, name: &str) {
        self.rodeo.get_or_intern(name);
    }

    /// How many strings are interned.
    pub fn len(&self) -> usize {
        self.rodeo.len()
    }
}

impl Default for FixedSymbols {
    fn default() -> Self {
        FixedSymbols::new()
    }
}

/// The subject, as `id`.
pub fn subject(id: &'static str) -> Subject {
    Subject {
        id,
        name: "lasso_keys",
        original: "lasso 0.4.1 ThreadedRodeo::get_or_intern (Kixiron/lasso#18), fixed 0.7.2",
        bug: BugKind::WrongResult,
        file: file!(),
        check_buggy: threadsafe_rt::check::<Symbols>,
        check_twin: threadsafe_rt::check::<FixedSymbols>,
        naive: |budget| {
            naive::hand_loop(
                budget,
                Symbols::new,
                |s| s.intern("a"),
                |s| s.intern("a"),
                |s| s.len() == 1,
            )
        },
    }
}
