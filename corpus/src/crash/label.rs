//! `internment` 0.3.12 → 0.4.0 (crash): a label interned by one thread while another drops
//! its last reference is freed under the first one's feet.
//!
//! - Crate: [`internment`](https://crates.io/crates/internment), `ArcIntern`: values
//!   interned in one global table and counted, removed when the last reference goes.
//! - Buggy: `=0.3.12`. Fixed: `=0.4.0` (0.3.13's fix is partial: it still crashes).
//! - Upstream: <https://github.com/droundy/internment/issues/11>, RUSTSEC-2020-0017.
//! - The race: `ArcIntern::drop` takes the count from 1 to 0 before it locks the table. In
//!   between, `ArcIntern::new` of the same value finds the entry, counts it 1 again and
//!   returns it; the dropping thread then removes the entry and frees it, and the new
//!   reference points at freed memory.
//! - Symptom: a segfault or an abort of the allocator, in `is` or `get` or a later drop.
//!
//! Racing pair for the hand loop: `set("a"); set("b")` ‖ `is("a")`.

use std::sync::Mutex;

use internment_0_3::ArcIntern as ArcIntern03;
use internment_0_4::ArcIntern as ArcIntern04;
use threadsafe_rt::thread_safe;

/// The current label of something, interned with `internment` 0.3.12.
pub struct Label {
    current: Mutex<ArcIntern03<String>>,
}

impl Default for Label {
    fn default() -> Self {
        Label::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl Label {
    /// An empty label.
    pub fn new() -> Self {
        Label {
            current: Mutex::new(ArcIntern03::new(String::new())),
        }
    }

    /// Replaces the label; the old one is released once the lock is.
    pub fn set(&self, label: &str) {
        let new = ArcIntern03::new(label.to_string());
        let old = std::mem::replace(&mut *self.current.lock().unwrap(), new);
        drop(old);
    }

    /// Whether the label is `label` (interned to compare the pointers).
    pub fn is(&self, label: &str) -> bool {
        let probe = ArcIntern03::new(label.to_string());
        *self.current.lock().unwrap() == probe
    }

    /// The label.
    pub fn get(&self) -> String {
        (**self.current.lock().unwrap()).clone()
    }
}

/// The twin: the same label interned with `internment` 0.4.0.
pub struct FixedLabel {
    current: Mutex<ArcIntern04<String>>,
}

impl Default for FixedLabel {
    fn default() -> Self {
        FixedLabel::new()
    }
}

#[thread_safe(statement_points = "always")]
impl FixedLabel {
    /// An empty label.
    pub fn new() -> Self {
        FixedLabel {
            current: Mutex::new(ArcIntern04::new(String::new())),
        }
    }

    /// Replaces the label; the old one is released once the lock is.
    pub fn set(&self, label: &str) {
        let new = ArcIntern04::new(label.to_string());
        let old = std::mem::replace(&mut *self.current.lock().unwrap(), new);
        drop(old);
    }

    /// Whether the label is `label` (interned to compare the pointers).
    pub fn is(&self, label: &str) -> bool {
        let probe = ArcIntern04::new(label.to_string());
        *self.current.lock().unwrap() == probe
    }

    /// The label.
    pub fn get(&self) -> String {
        (**self.current.lock().unwrap()).clone()
    }
}
