//! The paper's StringBuffer and ConcurrentHashMap bugs written with `std::sync::Mutex` and
//! defined in this file (an integration test, compiled with `cfg(test)`, so `#[thread_safe]`
//! puts statement points in their methods): under `ScheduleMode::Controlled` the statement
//! points alone make the std code controllable. Every seed of 0..20 finds the panic inside the
//! racy method, every execution stays under control (no std guard is held across a
//! statement), and each find's token replays the same failure in the same interleaving.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;
use std::time::Duration;

use threadsafe_rt::{check, thread_safe, Report, Strategy, Subject};
use threadsafe_tests::controlled::harness::{self, Finds};
use threadsafe_tests::{expect, line_of};

/// This file, as panic locations and statement points name it.
const FILE: &str = file!();
const SOURCE: &str = include_str!("controlled_finds_std_ports_through_statement_points.rs");

/// Every seed of these finds the bug.
const SEEDS: std::ops::Range<u64> = 0..20;

/// MEASURED (debug build, 2 cores shared with a benchmark; identical tests and schedules in
/// every run): time to bug min / median / max in ms, StringBuffer 14 / 109 / 696,
/// ConcurrentHashMap 10 / 113 / 1138. (With both cores taken by two busy loops, the whole
/// file took 81 s instead of 7 and still passed.) The budget only guards against a hang.
const BUDGET: Duration = Duration::from_secs(60);

/// `java.lang.StringBuffer` with a `std::sync::Mutex`: `insert` reads `other`'s length, then
/// copies that many characters one `char_at` at a time; a `delete_char_at` or `truncate`
/// between the two makes `char_at` index past the end.
pub struct StringBuffer {
    chars: Mutex<Vec<char>>,
}

impl Default for StringBuffer {
    fn default() -> Self {
        StringBuffer::new()
    }
}

#[thread_safe(test = false)]
impl StringBuffer {
    pub fn new() -> Self {
        StringBuffer {
            chars: Mutex::new(Vec::new()),
        }
    }

    pub fn with_text(text: &str) -> Self {
        StringBuffer {
            chars: Mutex::new(text.chars().collect()),
        }
    }

    pub fn len(&self) -> usize {
        self.chars.lock().unwrap().len()
    }

    pub fn is_empty(&self) -> bool {
        self.chars.lock().unwrap().is_empty()
    }

    pub fn append(&self, text: &str) {
        self.chars.lock().unwrap().extend(text.chars());
    }

    pub fn char_at(&self, index: usize) -> char {
        self.chars.lock().unwrap()[index]
    }

    pub fn delete_char_at(&self, index: usize) -> char {
        self.chars.lock().unwrap().remove(index)
    }

    pub fn truncate(&self, len: usize) {
        self.chars.lock().unwrap().truncate(len);
    }

    pub fn insert(&self, dst: usize, other: &StringBuffer) {
        let end = other.len();
        // BUG: another thread can shrink `other` before the copy ends.
        let copied: Vec<char> = (0..end).map(|i| other.char_at(i)).collect();
        splice_at(&mut self.chars.lock().unwrap(), dst, copied);
    }

    pub fn contents(&self) -> String {
        self.chars.lock().unwrap().iter().collect()
    }
}

fn splice_at(chars: &mut Vec<char>, dst: usize, copied: Vec<char>) {
    let len = chars.len();
    assert!(
        dst <= len,
        "insert offset {dst} is out of range: the length is {len}"
    );
    chars.splice(dst..dst, copied);
}

/// How many independently locked segments a map has.
const SEGMENTS: usize = 4;

/// `java.util.concurrent.ConcurrentHashMap` with `std::sync::Mutex` segments: `put_all` lists
/// `other`'s keys, then gets each one; a `clear` or `remove` in between leaves a listed key
/// without a value.
pub struct ConcurrentHashMap {
    segments: [Mutex<HashMap<String, i32>>; SEGMENTS],
}

impl Default for ConcurrentHashMap {
    fn default() -> Self {
        ConcurrentHashMap::new()
    }
}

#[thread_safe(test = false)]
impl ConcurrentHashMap {
    pub fn new() -> Self {
        ConcurrentHashMap {
            segments: std::array::from_fn(|_| Mutex::new(HashMap::new())),
        }
    }

    pub fn put(&self, key: String, value: i32) -> Option<i32> {
        self.segment(&key).lock().unwrap().insert(key, value)
    }

    pub fn get(&self, key: &str) -> Option<i32> {
        self.segment(key).lock().unwrap().get(key).copied()
    }

    pub fn remove(&self, key: &str) -> Option<i32> {
        self.segment(key).lock().unwrap().remove(key)
    }

    pub fn len(&self) -> usize {
        self.segments.iter().map(|s| s.lock().unwrap().len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.segments.iter().all(|s| s.lock().unwrap().is_empty())
    }

    pub fn clear(&self) {
        for segment in &self.segments {
            segment.lock().unwrap().clear();
        }
    }

    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .segments
            .iter()
            .flat_map(|s| s.lock().unwrap().keys().cloned().collect::<Vec<_>>())
            .collect();
        keys.sort();
        keys
    }

    pub fn put_all(&self, other: &ConcurrentHashMap) {
        for key in other.keys() {
            // BUG: the entry can be removed between `keys` and `get`.
            let value = other.get(&key).expect("a key listed by `keys` has a value");
            self.put(key, value);
        }
    }
}

impl ConcurrentHashMap {
    fn segment(&self, key: &str) -> &Mutex<HashMap<String, i32>> {
        let mut h = DefaultHasher::new();
        key.hash(&mut h);
        &self.segments[(h.finish() % SEGMENTS as u64) as usize]
    }
}

/// For every seed: the controlled check finds a panic in `method` at `line` of this file
/// whose message contains `message`; all its executions stayed under control; its
/// interleaving is made of statement points only and passes the one at `window` (the
/// statement before the race window); and its token replays it exactly.
fn finds_in_every_seed<T: Subject>(
    name: &str,
    strategy: Strategy,
    (method, line, message): (&str, u32, &str),
    window: u32,
) {
    let mut finds = Finds::new(format!("{name} (std), {strategy:?}"));
    for seed in SEEDS {
        let config = harness::race_hunt(seed, strategy, BUDGET);
        let report: Report = check::<T>(&config);
        if seed == SEEDS.start {
            println!("{report}");
        }
        expect::panic_at(&report, method, FILE, line, message);
        assert_eq!(report.controlled_tests, report.tests, "{report}");
        assert_eq!(
            report.uncontrolled_runs, 0,
            "no std guard is held across a statement, yet control was lost:\n{report}"
        );
        harness::replay_token(&config, &report);
        let interleaving = expect::violation(&report).interleaving.as_deref().unwrap();
        assert!(
            interleaving.contains(&format!("line {window}")),
            "seed {seed}: the interleaving does not pass the statement point at line {window}:\n{report}"
        );
        assert!(
            !interleaving.contains(" at "),
            "seed {seed}: a scheduling point that is not a statement point:\n{report}"
        );
        let replay = harness::replays_exactly::<T>(&config, &report);
        finds.record(seed, &report, &replay);
    }
    eprint!("{}", finds.summary());
}

#[test]
fn string_buffer() {
    finds_in_every_seed::<StringBuffer>(
        "StringBuffer",
        Strategy::Random,
        (
            "insert",
            line_of(SOURCE, concat!("self.chars.lock().unwrap()", "[index]")),
            "index out of bounds",
        ),
        line_of(SOURCE, concat!("let end = ", "other.len();")),
    );
}

#[test]
fn concurrent_hash_map() {
    finds_in_every_seed::<ConcurrentHashMap>(
        "ConcurrentHashMap",
        Strategy::Random,
        (
            "put_all",
            line_of(SOURCE, concat!("other.get(&key)", ".expect(")),
            "a key listed by `keys` has a value",
        ),
        line_of(SOURCE, concat!("let value = ", "other.get(&key)")),
    );
}
