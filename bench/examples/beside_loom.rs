//! threadsafe's bounded DFS beside loom, on the same small types: a lost-update counter, a
//! check-then-act registry, a lock-order deadlock between two accounts, and a correct twin
//! of each. Each type is written twice, once with `loom::sync` (for a hand-written loom
//! test) and once with `threadsafe_rt::sync` (for `#[thread_safe]`, which writes its tests
//! itself).
//!
//! - loom: `loom::model` of the hand-written test, with loom's default exploration and with
//!   a preemption bound of 2; how many iterations (schedules) it ran to the bug or to the end
//!   of its exploration, and how long.
//! - threadsafe: `check` with `schedule = "controlled"`, `strategy = "dfs2"`, seeds `0..N`:
//!   how many schedules the failing generated test took (its execution number + 1: DFS
//!   explores a test's schedules in order), the executions of the whole check to the find
//!   (every generated test before it too), and the time to the find (shrinking off). On a
//!   twin, a check of `--tests` generated tests: how many were explored to the end, their
//!   schedules per test, and the time.
//!
//! ```sh
//! cargo run --release -p threadsafe-bench --example beside_loom
//! cargo run --release -p threadsafe-bench --example beside_loom -- --seeds 3 --tests 100
//! ```

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use threadsafe_bench::cli::settings_or_exit;
use threadsafe_bench::median;
use threadsafe_rt::{check, Config, Report, ScheduleMode, Strategy, Subject};

/// What `--help` prints.
const USAGE: &str = "\
threadsafe's bounded DFS beside loom on the same small types

usage: cargo run --release -p threadsafe-bench --example beside_loom -- [options]

  --seeds N    threadsafe's seeds 0..N per buggy type (default: 10)
  --tests N    generated tests of each twin's check (default: 200)
  --help       this text";

/// The types with loom's primitives, and their hand-written loom tests.
mod on_loom {
    use loom::sync::atomic::{AtomicUsize, Ordering};
    use loom::sync::{Arc, Mutex};
    use std::collections::BTreeMap;

    /// `increment` loads and stores: two at once can lose one.
    pub struct Counter {
        n: AtomicUsize,
        fixed: bool,
    }

    impl Counter {
        pub fn new(fixed: bool) -> Self {
            Counter {
                n: AtomicUsize::new(0),
                fixed,
            }
        }

        pub fn increment(&self) {
            if self.fixed {
                self.n.fetch_add(1, Ordering::SeqCst);
            } else {
                let seen = self.n.load(Ordering::SeqCst);
                self.n.store(seen + 1, Ordering::SeqCst);
            }
        }

        pub fn get(&self) -> usize {
            self.n.load(Ordering::SeqCst)
        }
    }

    /// `register` checks, lets go of the lock, then inserts: two at once both register.
    pub struct Registry {
        names: Mutex<BTreeMap<u8, u32>>,
        fixed: bool,
    }

    impl Registry {
        pub fn new(fixed: bool) -> Self {
            Registry {
                names: Mutex::new(BTreeMap::new()),
                fixed,
            }
        }

        pub fn register(&self, key: u8) -> bool {
            if self.fixed {
                let mut names = self.names.lock().unwrap();
                return names.insert(key, 1).is_none();
            }
            if self.names.lock().unwrap().contains_key(&key) {
                return false;
            }
            self.names.lock().unwrap().insert(key, 1);
            true
        }
    }

    /// `transfer_to` locks its own balance, then the other's: two opposite transfers wait
    /// for each other. The twin locks the account made first first.
    pub struct Account {
        id: usize,
        balance: Mutex<i64>,
        fixed: bool,
    }

    impl Account {
        pub fn new(id: usize, fixed: bool) -> Self {
            Account {
                id,
                balance: Mutex::new(10),
                fixed,
            }
        }

        pub fn transfer_to(&self, to: &Account, amount: i64) {
            if self.fixed && to.id < self.id {
                let mut theirs = to.balance.lock().unwrap();
                let mut mine = self.balance.lock().unwrap();
                *mine -= amount;
                *theirs += amount;
            } else {
                let mut mine = self.balance.lock().unwrap();
                let mut theirs = to.balance.lock().unwrap();
                *mine -= amount;
                *theirs += amount;
            }
        }
    }

    /// The hand-written test of each type, as loom's users write it: the two calls that
    /// race, and the assertion that the race breaks.
    pub fn counter(fixed: bool) {
        let c = Arc::new(Counter::new(fixed));
        let c2 = c.clone();
        let t = loom::thread::spawn(move || c2.increment());
        c.increment();
        t.join().unwrap();
        assert_eq!(c.get(), 2, "a lost update");
    }

    pub fn registry(fixed: bool) {
        let r = Arc::new(Registry::new(fixed));
        let r2 = r.clone();
        let t = loom::thread::spawn(move || r2.register(1));
        let mine = r.register(1);
        let theirs = t.join().unwrap();
        assert!(!(mine && theirs), "registered twice");
    }

    pub fn accounts(fixed: bool) {
        let a = Arc::new(Account::new(0, fixed));
        let b = Arc::new(Account::new(1, fixed));
        let (a2, b2) = (a.clone(), b.clone());
        let t = loom::thread::spawn(move || b2.transfer_to(&a2, 1));
        a.transfer_to(&b, 1);
        t.join().unwrap();
    }
}

/// The same types with `threadsafe_rt::sync`, for the generator.
mod on_threadsafe {
    use std::collections::BTreeMap;
    use std::sync::atomic::AtomicUsize as StdAtomicUsize;

    use threadsafe_rt::sync::atomic::{AtomicUsize, Ordering};
    use threadsafe_rt::sync::Mutex;
    use threadsafe_rt::thread_safe;

    pub struct Counter {
        n: AtomicUsize,
    }

    #[thread_safe(test = false)]
    impl Counter {
        pub fn new() -> Self {
            Counter {
                n: AtomicUsize::new(0),
            }
        }

        pub fn increment(&self) {
            let seen = self.n.load(Ordering::SeqCst);
            self.n.store(seen + 1, Ordering::SeqCst);
        }

        pub fn get(&self) -> usize {
            self.n.load(Ordering::SeqCst)
        }
    }

    pub struct FixedCounter {
        n: AtomicUsize,
    }

    #[thread_safe(test = false)]
    impl FixedCounter {
        pub fn new() -> Self {
            FixedCounter {
                n: AtomicUsize::new(0),
            }
        }

        pub fn increment(&self) {
            self.n.fetch_add(1, Ordering::SeqCst);
        }

        pub fn get(&self) -> usize {
            self.n.load(Ordering::SeqCst)
        }
    }

    pub struct Registry {
        names: Mutex<BTreeMap<u8, u32>>,
    }

    #[thread_safe(test = false)]
    impl Registry {
        pub fn new() -> Self {
            Registry {
                names: Mutex::new(BTreeMap::new()),
            }
        }

        pub fn register(&self, key: u8) -> bool {
            if self.names.lock().unwrap().contains_key(&key) {
                return false;
            }
            self.names.lock().unwrap().insert(key, 1);
            true
        }

        pub fn len(&self) -> usize {
            self.names.lock().unwrap().len()
        }
    }

    pub struct FixedRegistry {
        names: Mutex<BTreeMap<u8, u32>>,
    }

    #[thread_safe(test = false)]
    impl FixedRegistry {
        pub fn new() -> Self {
            FixedRegistry {
                names: Mutex::new(BTreeMap::new()),
            }
        }

        pub fn register(&self, key: u8) -> bool {
            self.names.lock().unwrap().insert(key, 1).is_none()
        }

        pub fn len(&self) -> usize {
            self.names.lock().unwrap().len()
        }
    }

    /// Numbers accounts in the order they are made: the twin locks the older first (an
    /// order by address would make a test's schedules depend on the allocator, and DFS
    /// would say it is not deterministic).
    static NEXT_ID: StdAtomicUsize = StdAtomicUsize::new(0);

    pub struct Account {
        balance: Mutex<i64>,
    }

    #[thread_safe(test = false)]
    impl Account {
        pub fn new() -> Self {
            Account {
                balance: Mutex::new(10),
            }
        }

        pub fn transfer_to(&self, to: &Account, amount: u8) {
            if std::ptr::eq(self, to) {
                return;
            }
            let mut mine = self.balance.lock().unwrap();
            let mut theirs = to.balance.lock().unwrap();
            *mine -= i64::from(amount);
            *theirs += i64::from(amount);
        }

        pub fn balance(&self) -> i64 {
            *self.balance.lock().unwrap()
        }
    }

    pub struct FixedAccount {
        id: usize,
        balance: Mutex<i64>,
    }

    #[thread_safe(test = false)]
    impl FixedAccount {
        pub fn new() -> Self {
            FixedAccount {
                id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                balance: Mutex::new(10),
            }
        }

        pub fn transfer_to(&self, to: &FixedAccount, amount: u8) {
            if std::ptr::eq(self, to) {
                return;
            }
            let (mut mine, mut theirs) = if self.id < to.id {
                let mine = self.balance.lock().unwrap();
                (mine, to.balance.lock().unwrap())
            } else {
                let theirs = to.balance.lock().unwrap();
                (self.balance.lock().unwrap(), theirs)
            };
            *mine -= i64::from(amount);
            *theirs += i64::from(amount);
        }

        pub fn balance(&self) -> i64 {
            *self.balance.lock().unwrap()
        }
    }
}

/// What one loom model came to.
struct LoomRun {
    iterations: usize,
    elapsed: Duration,
    failed: bool,
}

/// The variable that makes a run of this program a loom model's child:
/// `<test> <fixed> <bound>` (loom aborts the process on a deadlock: a child keeps the table).
const CHILD: &str = "BESIDE_LOOM_CHILD";

/// A hand-written loom test and its name; its argument: the correct twin.
type LoomTest = (&'static str, fn(bool));

/// The hand-written loom tests, by name.
const LOOM_TESTS: [LoomTest; 3] = [
    ("counter", on_loom::counter),
    ("registry", on_loom::registry),
    ("accounts", on_loom::accounts),
];

/// In the child: runs the model [`CHILD`] names, printing `iteration <n> <ns>` as each
/// iteration starts and `end <n> <ns> <passed|failed>` when the model returns or panics.
fn loom_child(spec: &str) -> ! {
    let parts: Vec<&str> = spec.split_whitespace().collect();
    let [name, fixed, bound] = parts[..] else {
        panic!("{CHILD} is `<test> <fixed> <bound>`, not `{spec}`");
    };
    let test = LOOM_TESTS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, t)| t)
        .unwrap_or_else(|| panic!("no loom test `{name}`"));
    let fixed = fixed == "true";
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = bound.parse().ok();
    static ITERATIONS: AtomicUsize = AtomicUsize::new(0);
    let start = Instant::now();
    std::panic::set_hook(Box::new(|_| {}));
    let passed = std::panic::catch_unwind(AssertUnwindSafe(|| {
        builder.check(move || {
            let n = ITERATIONS.fetch_add(1, Ordering::SeqCst) + 1;
            println!("iteration {n} {}", start.elapsed().as_nanos());
            test(fixed);
        })
    }))
    .is_ok();
    println!(
        "end {} {} {}",
        ITERATIONS.load(Ordering::SeqCst),
        start.elapsed().as_nanos(),
        if passed { "passed" } else { "failed" }
    );
    std::process::exit(0);
}

/// The loom test `name` under `loom::model` with `preemption_bound`, in a child: the
/// iterations and time to the model's end; on an abort (a deadlock), to the start of the
/// iteration that aborted.
fn loom_run(name: &str, fixed: bool, preemption_bound: Option<usize>) -> LoomRun {
    let bound = preemption_bound.map_or("none".to_string(), |b| b.to_string());
    let out = std::process::Command::new(std::env::current_exe().expect("this program"))
        .env(CHILD, format!("{name} {fixed} {bound}"))
        .output()
        .expect("the child runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let last: Vec<&str> = text
        .lines()
        .last()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    let number = |i: usize| last.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    LoomRun {
        iterations: number(1) as usize,
        elapsed: Duration::from_nanos(number(2)),
        failed: last.first() != Some(&"end") || last.get(3) == Some(&"failed"),
    }
}

/// The controlled DFS check of `seed`: shrinking off, so that the time is the find's.
fn dfs_config(seed: u64) -> Config {
    let mut config = Config::default();
    config.schedule = ScheduleMode::Controlled;
    config.strategy = Strategy::Dfs { preemptions: 2 };
    config.seed = seed;
    config.budget = Duration::from_secs(10);
    config.shrink = false;
    config
}

/// The schedules the failing test took: its execution number in the token, plus one.
fn schedules_of_failing_test(report: &Report) -> Option<usize> {
    let token = report.violation()?.replay.as_deref()?;
    let execution: usize = token.split('.').nth(2)?.parse().ok()?;
    Some(execution + 1)
}

/// threadsafe's finds on a buggy type over seeds `0..seeds`: how many seeds found it, and
/// the medians of the failing test's schedules, the check's executions and the time.
struct Finds {
    found: usize,
    schedules: f64,
    executions: f64,
    seconds: f64,
}

/// A buggy type's row: its name, its loom test's name, and threadsafe's finds on it.
type BugRow = (&'static str, &'static str, fn(u64) -> Finds);

/// What threadsafe's check of a correct twin explored, how long it took, whether it passed.
type TwinRun = (String, Duration, bool);

/// A twin's row: its name, its loom test's name, and threadsafe's check of it.
type TwinRow = (&'static str, &'static str, fn(u64) -> TwinRun);

/// [`Finds`] of `T` over seeds `0..seeds`.
fn threadsafe_finds<T: Subject>(seeds: u64) -> Finds {
    let (mut schedules, mut executions, mut times) = (Vec::new(), Vec::new(), Vec::new());
    for seed in 0..seeds {
        let report = check::<T>(&dfs_config(seed));
        let Some(v) = report.violation() else {
            eprintln!("seed {seed}: not found\n{report}");
            continue;
        };
        eprintln!("seed {seed}: {}", v.failure);
        if let Some(s) = schedules_of_failing_test(&report) {
            schedules.push(s as f64);
        }
        executions.push(report.executions as f64);
        times.push(v.time_to_bug.as_secs_f64());
    }
    let m = |v: &[f64]| median(v).unwrap_or(f64::NAN);
    Finds {
        found: times.len(),
        schedules: m(&schedules),
        executions: m(&executions),
        seconds: m(&times),
    }
}

/// threadsafe's check of the twin `T` over `tests` generated tests: tests explored to the
/// end, their schedules per test, the time; whether it reported nothing.
fn threadsafe_twin<T: Subject>(tests: u64) -> TwinRun {
    let mut config = dfs_config(0);
    config.tests = Some(tests);
    config.budget = Duration::from_secs(60);
    let report = check::<T>(&config);
    let e = &report.exploration;
    let per_test = e.exhaustive_schedules as f64 / e.exhaustive_tests.max(1) as f64;
    (
        format!(
            "{} of {} tests to the end, {:.1} schedules per test",
            e.exhaustive_tests, report.tests, per_test
        ),
        report.elapsed,
        report.violation().is_none(),
    )
}

fn main() {
    if let Ok(spec) = std::env::var(CHILD) {
        loom_child(&spec);
    }
    let (seeds, tests) =
        settings_or_exit("beside_loom", USAGE, &["--seeds", "--tests"], &[], |o| {
            let number = |v: &str| v.trim().parse::<u64>().map_err(|e| e.to_string());
            Ok((
                o.get("--seeds", number)?.unwrap_or(10),
                o.get("--tests", number)?.unwrap_or(200),
            ))
        });
    println!("# threadsafe's DFS (2 preemptions) beside loom 0.7\n");
    println!("machine: {}", threadsafe_bench::load_line());
    println!("threadsafe: seeds 0..{seeds}, medians; loom: one model of the hand-written test\n");
    println!("| type | loom (default) | loom (2 preemptions) | threadsafe: failing test's schedules | threadsafe: executions of the check | threadsafe: time to bug |");
    println!("|---|---|---|---|---|---|");
    let bugs: [BugRow; 3] = [
        ("lost-update counter", "counter", |s| {
            threadsafe_finds::<on_threadsafe::Counter>(s)
        }),
        ("check-then-act registry", "registry", |s| {
            threadsafe_finds::<on_threadsafe::Registry>(s)
        }),
        ("lock-order deadlock", "accounts", |s| {
            threadsafe_finds::<on_threadsafe::Account>(s)
        }),
    ];
    let loom_cell = |r: &LoomRun| {
        format!(
            "{} after {} iterations, {:.4} s",
            if r.failed { "found" } else { "NOT FOUND" },
            r.iterations,
            r.elapsed.as_secs_f64()
        )
    };
    for (name, test, ours) in bugs {
        let full = loom_run(test, false, None);
        let bounded = loom_run(test, false, Some(2));
        let f = ours(seeds);
        println!(
            "| {name} | {} | {} | {:.0} ({}/{seeds} seeds found) | {:.0} | {:.4} s |",
            loom_cell(&full),
            loom_cell(&bounded),
            f.schedules,
            f.found,
            f.executions,
            f.seconds,
        );
    }
    println!("\n| correct twin | loom (default) | loom (2 preemptions) | threadsafe: {tests} generated tests | threadsafe: time |");
    println!("|---|---|---|---|---|");
    let twins: [TwinRow; 3] = [
        ("counter", "counter", |t| {
            threadsafe_twin::<on_threadsafe::FixedCounter>(t)
        }),
        ("registry", "registry", |t| {
            threadsafe_twin::<on_threadsafe::FixedRegistry>(t)
        }),
        ("accounts", "accounts", |t| {
            threadsafe_twin::<on_threadsafe::FixedAccount>(t)
        }),
    ];
    let loom_twin = |r: &LoomRun| {
        format!(
            "{} in {} iterations, {:.4} s",
            if r.failed { "FAILED" } else { "explored" },
            r.iterations,
            r.elapsed.as_secs_f64()
        )
    };
    let mut quiet = true;
    for (name, test, ours) in twins {
        let full = loom_run(test, true, None);
        let bounded = loom_run(test, true, Some(2));
        let (explored, time, passed) = ours(tests);
        quiet &= passed && !full.failed && !bounded.failed;
        println!(
            "| {name} | {} | {} | {}{explored} | {:.3} s |",
            loom_twin(&full),
            loom_twin(&bounded),
            if passed { "" } else { "REPORTED: " },
            time.as_secs_f64()
        );
    }
    if !quiet {
        eprintln!("a correct twin was reported");
        std::process::exit(1);
    }
}
