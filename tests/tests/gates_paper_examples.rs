//! The three examples of Vainer & Yehudai ("Taming the concurrency", §4.1), as gated tests
//! that do the same thing in 100 runs out of 100, with no change to the code under test: the
//! gates stand at the statement points `#[thread_safe]` inserts (this file is compiled with
//! `cfg(test)`), at `sync` operations, at the end of a thread, or on a condition over state.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use threadsafe_rt::gates::{
    self, passed, reached, wait, BarrierGate, Condition, Gate, Loc, Schedule,
};
use threadsafe_rt::thread_safe;

const SOURCE: &str = include_str!("gates_paper_examples.rs");
const RUNS: usize = 100;

/// The line of the first statement of this file that contains `needle`: the types come
/// before the tests, whose strings contain the needles too.
fn line_of(needle: &str) -> u32 {
    let i = SOURCE
        .lines()
        .position(|l| l.contains(needle) && !l.contains("line_of("))
        .unwrap_or_else(|| panic!("no line contains {needle:?}"));
    u32::try_from(i + 1).expect("a short file")
}

// ---------------------------------------------------------------------------------------
// 4.1.1 Unspecified time: a task that runs on a thread of its own for a time nobody knows.
// ---------------------------------------------------------------------------------------

/// A job that `start` runs on a thread it spawns itself; it takes as long as it takes.
pub struct LongRunningTask {
    done: AtomicBool,
    result: AtomicU64,
}

impl Default for LongRunningTask {
    fn default() -> Self {
        LongRunningTask::new()
    }
}

#[thread_safe(test = false)]
impl LongRunningTask {
    /// A task not started yet.
    pub fn new() -> Self {
        LongRunningTask {
            done: AtomicBool::new(false),
            result: AtomicU64::new(0),
        }
    }

    /// Starts the job on a new thread: `rounds` rounds of arithmetic.
    pub fn start(self: &Arc<Self>, rounds: u64) -> std::thread::JoinHandle<()> {
        let task = Arc::clone(self);
        std::thread::spawn(move || task.work(rounds))
    }

    fn work(&self, rounds: u64) {
        let mut x = 1u64;
        for i in 0..rounds {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
        self.result.store(x, Ordering::SeqCst);
        self.done.store(true, Ordering::SeqCst);
    }

    /// Whether the job has finished.
    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::SeqCst)
    }
}

/// The sleep-based test sleeps for the task's maximal time and hopes; the gated one waits at
/// the check until the task is done, so it takes as long as the task: the condition is over
/// the task's own state (a custom gate), and the job's thread, which the task spawns itself,
/// needs no name.
#[test]
fn long_running_task_awaited_without_sleep() {
    let mut slowest = Duration::ZERO;
    for run in 0..RUNS {
        let task = Arc::new(LongRunningTask::new());
        let seen = Arc::clone(&task);
        let done = Gate::when(
            "task done",
            Condition::when("the task says it is done", move || seen.is_done()),
        );
        let schedule = Schedule::new().gate(wait("main: check").on(&done));
        // From 10k to 100k rounds, varying by run.
        let rounds = 10_000 * (1 + (run as u64 * 7) % 10);
        let start = Instant::now();
        let outcome = gates::run(schedule, |_| {
            let handle = task.start(rounds);
            gates::point("check");
            assert!(task.is_done(), "checked before the task was done");
            handle.join().unwrap();
        });
        slowest = slowest.max(start.elapsed());
        outcome.unwrap();
    }
    println!("slowest of {RUNS} runs: {slowest:?}");
}

// ---------------------------------------------------------------------------------------
// 4.1.2 StringBuffer: append(&other) reads other's length, then copies that many chars.
// ---------------------------------------------------------------------------------------

/// A `java.lang.StringBuffer`-like buffer: each method locks, but `append(&other)` takes
/// `other`'s length and its characters in two calls.
pub struct StrBuf {
    chars: Mutex<Vec<char>>,
}

#[thread_safe(test = false)]
impl StrBuf {
    /// A buffer holding `s`.
    pub fn new(s: &str) -> Self {
        StrBuf {
            chars: Mutex::new(s.chars().collect()),
        }
    }

    /// The length.
    pub fn len(&self) -> usize {
        self.chars.lock().unwrap().len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Truncates, or pads with NULs, to `n` characters.
    pub fn set_len(&self, n: usize) {
        self.chars.lock().unwrap().resize(n, '\0');
    }

    /// Copies characters `from..to` into `dst` at `at`.
    pub fn get_chars(&self, from: usize, to: usize, dst: &mut [char], at: usize) {
        let chars = self.chars.lock().unwrap();
        dst[at..at + (to - from)].copy_from_slice(&chars[from..to]);
    }

    /// Appends `other`, as `AbstractStringBuilder.append(StringBuffer)` does.
    pub fn append(&self, other: &StrBuf) {
        let len = other.len();
        let count = self.len();
        let mut value = vec!['\0'; count + len];
        other.get_chars(0, len, &mut value, count);
        let mut chars = self.chars.lock().unwrap();
        chars.extend_from_slice(&value[count..]);
    }
}

/// The paper's two gates: the test thread waits before `set_len` until the worker has read
/// the length (it reached the next statement), and the worker waits before the copy until
/// the test thread is done with `set_len` (its body ended). The copy then indexes past the
/// end of the shortened buffer, every run.
#[test]
fn string_buffer_append_races_set_len_every_run() {
    let after_len = line_of("let count = self.len();");
    let copy = line_of("other.get_chars(0, len, &mut value, count);");
    let schedule = Schedule::new()
        .gate(wait(Loc::method("set_len").thread("main")).until(reached(
            Loc::statement("append", after_len).thread("worker"),
        )))
        .gate(wait(Loc::statement("append", copy).thread("worker")).until(reached("main: end")));
    let panic_line = line_of("dst[at..at + (to - from)].copy_from_slice(&chars[from..to]);");
    for _ in 0..RUNS {
        let sb1 = StrBuf::new("original data");
        let sb2 = StrBuf::new("appended data");
        let outcome = gates::run(schedule.clone(), |s| {
            s.spawn("worker", || sb1.append(&sb2));
            sb2.set_len(3);
        });
        assert!(outcome.deadlock.is_none(), "{outcome}");
        let [p] = &outcome.panics[..] else {
            panic!("expected one panic, got: {outcome}");
        };
        assert_eq!(p.thread, "worker");
        assert!(p.message.contains("out of range"), "{outcome}");
        assert!(
            p.location
                .contains(&format!("gates_paper_examples.rs:{panic_line}:")),
            "{outcome}"
        );
        // The copy panicked holding `sb2`'s lock, which is poisoned now.
        let left = sb2.chars.lock().unwrap_or_else(|e| e.into_inner()).len();
        assert_eq!(left, 3);
    }
}

/// The same schedule in the ordering notation.
#[test]
fn string_buffer_with_the_ordering_notation() {
    let after_len = line_of("let count = self.len();");
    let copy = line_of("other.get_chars(0, len, &mut value, count);");
    let schedule = threadsafe_rt::schedule!(
        (format!("worker: fn append@{after_len}"))
        -> "main: fn set_len"
        -> "main: end"
        -> (format!("worker: fn append@{copy}"))
    );
    for _ in 0..RUNS {
        let sb1 = StrBuf::new("original data");
        let sb2 = StrBuf::new("appended data");
        let outcome = gates::run(schedule.clone(), |s| {
            s.spawn("worker", || sb1.append(&sb2));
            sb2.set_len(3);
        });
        assert_eq!(outcome.panics.len(), 1, "{outcome}");
        assert_eq!(outcome.panics[0].thread, "worker");
    }
}

// ---------------------------------------------------------------------------------------
// 4.1.3 ArrayList.addAll: copy at `size`, then bump `size`, in two lock sections.
// ---------------------------------------------------------------------------------------

/// A `java.util.ArrayList`-like list: elements and size under locks of their own;
/// `add_all` copies at the current size, then bumps the size.
pub struct List {
    data: threadsafe_rt::sync::Mutex<Vec<Option<i32>>>,
    size: threadsafe_rt::sync::Mutex<usize>,
}

impl Default for List {
    fn default() -> Self {
        List::new()
    }
}

#[thread_safe(test = false)]
impl List {
    /// An empty list.
    pub fn new() -> Self {
        List {
            data: threadsafe_rt::sync::Mutex::new(Vec::new()),
            size: threadsafe_rt::sync::Mutex::new(0),
        }
    }

    /// Appends `items`, as `ArrayList.addAll` does.
    pub fn add_all(&self, items: &[i32]) {
        let at = *self.size.lock().unwrap();
        {
            let mut data = self.data.lock().unwrap();
            if data.len() < at + items.len() {
                data.resize(at + items.len(), None);
            }
            for (i, x) in items.iter().enumerate() {
                data[at + i] = Some(*x);
            }
        }
        *self.size.lock().unwrap() += items.len();
    }

    /// The elements below the size (`None` where none was stored).
    pub fn to_vec(&self) -> Vec<Option<i32>> {
        let size = *self.size.lock().unwrap();
        let data = self.data.lock().unwrap();
        (0..size).map(|i| data.get(i).copied().flatten()).collect()
    }
}

/// Runs two threads' `add_all` with `gate` at `at` and returns the list's contents.
fn add_all_twice(schedule: Schedule) -> Vec<Option<i32>> {
    let list = List::new();
    let outcome = gates::run(schedule, |s| {
        s.spawn("a", || list.add_all(&[1, 2, 3]));
        s.spawn("b", || list.add_all(&[4, 5, 6]));
    });
    outcome.unwrap();
    list.to_vec()
}

/// A `BarrierGate` for two threads before the size is bumped, placed at the statement: both
/// threads have copied at the same index, then both bump the size; the list claims six
/// elements and holds three, every run.
#[test]
fn array_list_add_all_corrupted_by_a_barrier_gate_at_a_statement() {
    let bump = line_of("*self.size.lock().unwrap() += items.len();");
    for _ in 0..RUNS {
        let both = BarrierGate::new("both copied", 2);
        let contents =
            add_all_twice(Schedule::new().gate(wait(Loc::statement("add_all", bump)).on(&both)));
        assert_eq!(contents.len(), 6);
        assert_eq!(
            contents.iter().filter(|x| x.is_none()).count(),
            3,
            "{contents:?}"
        );
    }
}

/// The same gate placed at an operation of a `threadsafe_rt::sync` primitive instead: "the
/// third `lock()` in `add_all`" (size, data, size).
#[test]
fn array_list_add_all_corrupted_by_a_barrier_gate_at_the_third_lock() {
    for _ in 0..RUNS {
        let both = BarrierGate::new("both copied", 2);
        let contents = add_all_twice(Schedule::new().gate(wait("lock in add_all#3").on(&both)));
        assert_eq!(
            contents.iter().filter(|x| x.is_none()).count(),
            3,
            "{contents:?}"
        );
    }
}

/// The correct order, enforced: `b` starts only after `a` has passed the bump, so nothing
/// is lost. (Without gates the list is right almost always, which is the problem.)
#[test]
fn array_list_add_all_in_order_is_correct() {
    let schedule = Schedule::new().gate(wait("b: fn add_all").until(passed("a: end")));
    for _ in 0..RUNS {
        let contents = add_all_twice(schedule.clone());
        assert_eq!(
            contents,
            [1, 2, 3, 4, 5, 6].map(Some),
            "a then b appends both"
        );
    }
}
