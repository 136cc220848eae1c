//! The scenarios of the `gates` benchmark: the paper's `StringBuffer.append` race and
//! `ArrayList.addAll` corruption, as types with statement points in every build (the
//! benchmark is not a test build), and each scenario as a plain test and as a gated one.

use std::sync::Mutex;

use threadsafe_rt::gates::{self, reached, wait, BarrierGate, Loc, Outcome, Schedule};
use threadsafe_rt::thread_safe;

/// A `StringBuffer` whose `append(&other)` takes `other`'s length and characters in two
/// calls.
pub struct StrBuf {
    chars: Mutex<Vec<char>>,
}

#[thread_safe(test = false, statement_points = "always")]
impl StrBuf {
    /// A buffer holding `s`.
    pub fn new(s: &str) -> Self {
        StrBuf {
            chars: Mutex::new(s.chars().collect()),
        }
    }

    /// The length.
    pub fn len(&self) -> usize {
        self.chars.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Truncates, or pads with NULs, to `n` characters.
    pub fn set_len(&self, n: usize) {
        self.chars
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .resize(n, '\0');
    }

    /// Characters `0..n`.
    pub fn prefix(&self, n: usize) -> Vec<char> {
        self.chars.lock().unwrap_or_else(|e| e.into_inner())[..n].to_vec()
    }

    /// Appends `other`: its length, then its characters.
    pub fn append(&self, other: &StrBuf) {
        let len = other.len();
        let copied = other.prefix(len);
        self.chars
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(copied);
    }
}

/// An `ArrayList` whose `add_all` copies at the size, then bumps the size, in two sections.
pub struct List {
    data: Mutex<Vec<Option<i32>>>,
    size: Mutex<usize>,
}

impl Default for List {
    fn default() -> Self {
        List::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl List {
    /// An empty list.
    pub fn new() -> Self {
        List {
            data: Mutex::new(Vec::new()),
            size: Mutex::new(0),
        }
    }

    /// Appends `items`.
    pub fn add_all(&self, items: &[i32]) {
        let at = *self.size.lock().unwrap();
        let mut data = self.data.lock().unwrap();
        let len = data.len().max(at + items.len());
        data.resize(len, None);
        for (i, x) in items.iter().enumerate() {
            data[at + i] = Some(*x);
        }
        drop(data);
        *self.size.lock().unwrap() += items.len();
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        *self.size.lock().unwrap()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The `StringBuffer` test: `append` on a worker while the test thread shortens the source.
/// Without gates it almost always passes; with `gated`, the copy panics every run.
pub fn string_buffer(gated: bool) -> bool {
    let a = StrBuf::new("original data");
    let b = StrBuf::new("appended data");
    if !gated {
        let r = std::thread::scope(|s| {
            let w = s.spawn(|| std::panic::catch_unwind(|| a.append(&b)).is_err());
            b.set_len(3);
            w.join().unwrap_or(true)
        });
        return r;
    }
    let schedule = Schedule::new()
        .gate(wait(Loc::method("set_len").thread("main")).until(reached("worker: fn prefix")))
        .gate(wait("worker: fn prefix").until(reached("main: end")));
    let outcome = gates::run(schedule, |s| {
        s.spawn("worker", || a.append(&b));
        b.set_len(3);
    });
    failed(&outcome)
}

/// The `ArrayList` test: two threads `add_all` three elements each; with `gated`, a
/// `BarrierGate` before the size bump makes the list lose three elements every run.
/// Returns whether elements were lost.
pub fn array_list(gated: bool) -> bool {
    let list = List::new();
    if !gated {
        std::thread::scope(|s| {
            s.spawn(|| list.add_all(&[1, 2, 3]));
            s.spawn(|| list.add_all(&[4, 5, 6]));
        });
    } else {
        let both = BarrierGate::new("both copied", 2);
        let bump = Loc::statement("add_all", first_line("*self.size.lock().unwrap() +="));
        let outcome = gates::run(Schedule::new().gate(wait(bump).on(&both)), |s| {
            s.spawn("a", || list.add_all(&[1, 2, 3]));
            s.spawn("b", || list.add_all(&[4, 5, 6]));
        });
        assert!(outcome.is_ok(), "{outcome}");
    }
    let data = list.data.lock().unwrap();
    data.iter().filter(|x| x.is_some()).count() < 6
}

/// The line of the first line of this file that contains `needle` (the types come first).
fn first_line(needle: &str) -> u32 {
    let i = include_str!("gated.rs")
        .lines()
        .position(|l| l.contains(needle))
        .expect("the statement is in this file");
    u32::try_from(i + 1).expect("a short file")
}

fn failed(outcome: &Outcome) -> bool {
    assert!(outcome.deadlock.is_none(), "{outcome}");
    !outcome.panics.is_empty()
}
