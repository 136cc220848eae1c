//! MAP-coverage of a check, and the guidance it drives (Wang et al., ASE 2019).
//!
//! [`map`] is the pure logic over numbered accesses; this module connects it to
//! the runs of a check:
//!
//! - **Variables and accesses.** A `threadsafe_rt::sync` primitive is a variable, named by
//!   where it was created (its constructor's caller, the same in every execution). A lock,
//!   write-lock, store or read-modify-write of it is a write; a read-lock or load is a read;
//!   waits, notifications, barriers and yields access no variable. A statement point
//!   carries the fields of `self` its statement accesses, as `#[thread_safe]` read them
//!   from the source ([`FieldAccess`](crate::point::FieldAccess)): each such field is a
//!   variable too, with the statement as its site — unless the field *is* a primitive (a
//!   statement naming one field was followed by an operation on one primitive in the
//!   sequential runs): then the primitive's own accesses, at their exact sites, are the
//!   field's, whichever constructor created it. So a type on `std::sync` or `parking_lot`
//!   is measured by its statements, and a type on `threadsafe_rt::sync` by its operations.
//!   Without statement points (`statement_points = false`, or a type checked from outside
//!   its crate's tests) a primitive is known only by where it was created: a field that two
//!   constructors initialize at different lines is then two variables.
//! - **Order.** A controlled run records a step where a thread reaches a point; the
//!   operation runs at once or, if the scheduler switched away there, when the thread gets
//!   the turn back (just before its next step). Executions are read in that order.
//! - **Feasible patterns.** Every concurrent method runs once sequentially (a few tries,
//!   with random arguments, on a random prefix and on a fresh instance of each
//!   constructor) while its accesses are recorded — before the first test when the
//!   coverage steers the check (guide `map`, `stop_when_covered`), after the last one
//!   otherwise: the sites seen per variable give the universe (Algorithm 3
//!   with observed instead of statically analysed instructions) and each method's trace
//!   (for Algorithm 4). Sites first seen in concurrent runs are added and counted. When
//!   the sequential runs see no access at all, the universe is the paper's static
//!   estimate: every statement of the annotated methods with the fields it names.
//! - **Covered patterns.** Every controlled execution is known by a hash of its steps; one
//!   with new steps is converted and, if its access sequence is new too, matched (matching
//!   costs more than running). When the coverage steers the check this happens as each
//!   execution ends; otherwise the executions with new steps are kept and read after the
//!   last test, for at most a quarter of the budget (the report counts any left unread), so
//!   the default check does not slow down on its way to a bug.
//!
//! Files: `names.rs` numbers and names variables and sites; `plan.rs` is Algorithm 4 (the
//! methods of the next test) and `guided.rs` Algorithm 5 (the guided scheduler);
//! `summary.rs` is what the report shows; [`map`] is the pure pattern algebra.

use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, Instant};

// Fast, deterministic hashing: every controlled execution is hashed.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet, FxHasher};

use crate::config::Guide;
use crate::hooks::Recorded;
use crate::point::{PointKind, Step, Where};
use crate::subject::Description;
use crate::testcase::{OpId, TestCase};
use map::{Access, Kind, MethodTrace, PairCoverage, PatternId, PatternKey, Role, Universe};
use names::in_run_order;
use summary::SHAPES;

pub(crate) mod map;
mod names;
mod plan;
mod summary;

pub(crate) use names::{Names, Raw};
pub(crate) use plan::Plan;
pub use summary::{MapCoverage, PatternCount, UniverseSource};

/// The methods each thread of `test` calls, in order.
pub(crate) fn thread_methods(test: &TestCase) -> Vec<Vec<usize>> {
    test.threads
        .iter()
        .map(|calls| {
            calls
                .iter()
                .filter_map(|c| match c.op {
                    OpId::Method(m) => Some(m),
                    OpId::Ctor(_) => None,
                })
                .collect()
        })
        .collect()
}

/// Executions kept for reading at the end, at most.
const MAX_PENDING: usize = 100_000;

/// Distinct traces kept per method for Algorithm 4.
const TRACES_PER_METHOD: usize = 4;

/// MAP-coverage state of one check.
pub(crate) struct Tracker {
    names: Names,
    universe: Universe,
    static_estimate: bool,
    methods_run: usize,
    methods: usize,
    later_sites: usize,
    covered: map::CoveredKeys,
    pairs: PairCoverage,
    /// Concurrent methods, by index into the description's methods.
    concurrent: Vec<usize>,
    traces: Vec<MethodTrace>,
    /// Hashes of the access sequences matched so far.
    seen: HashSet<u64>,
    /// Hashes of the step sequences read so far.
    seen_steps: HashSet<u64>,
    /// Read at the end (see [`defer_reading`](Self::defer_reading)).
    deferred: bool,
    /// Executions with new steps, waiting to be read.
    pending: Vec<Vec<Step>>,
    /// Executions with new steps never read (the time cap, or too many waiting).
    unmatched: u64,
    executions: u64,
    attempts: HashMap<PatternKey, u32>,
    /// [`pair_uncovered`](Self::pair_uncovered)'s lists, by (role `a`'s method, role `b`'s).
    pair_keys: HashMap<(usize, usize), Vec<PatternKey>>,
}

impl Tracker {
    /// A tracker for the concurrent methods `concurrent`.
    pub(crate) fn new(concurrent: Vec<usize>) -> Self {
        Tracker {
            names: Names::default(),
            universe: Universe::new(),
            static_estimate: false,
            methods_run: 0,
            methods: concurrent.len(),
            later_sites: 0,
            covered: map::CoveredKeys::new(),
            pairs: PairCoverage::new(),
            concurrent,
            traces: Vec::new(),
            seen: HashSet::default(),
            seen_steps: HashSet::default(),
            deferred: false,
            pending: Vec::new(),
            unmatched: 0,
            executions: 0,
            attempts: HashMap::default(),
            pair_keys: HashMap::default(),
        }
    }

    /// Takes the sequential runs of the methods: `(method, operations)` per call that ran.
    /// Falls back to the static estimate of `desc` when none accessed a variable.
    pub(crate) fn probed<T>(&mut self, desc: &Description<T>, runs: &[(usize, Vec<Recorded>)]) {
        for (_, ops) in runs {
            self.names.link(ops);
        }
        let mut ran = HashSet::default();
        let mut raw = Vec::new();
        for (m, ops) in runs {
            ran.insert(*m);
            raw.clear();
            for r in ops {
                self.names.raw(r.op, r.var, r.at, &mut raw);
            }
            let accesses: Vec<Access> = raw.iter().map(|r| self.names.number(0, r)).collect();
            self.universe.add_accesses(&accesses);
            let trace: Vec<(u32, u32, Kind)> =
                accesses.iter().map(|a| (a.site, a.var, a.kind)).collect();
            let kept = self.traces.iter().filter(|(k, _)| k == m).count();
            if !trace.is_empty()
                && kept < TRACES_PER_METHOD
                && !self.traces.iter().any(|(k, t)| k == m && *t == trace)
            {
                self.traces.push((*m, trace));
            }
        }
        self.methods_run = ran.len();
        if self.universe.size() == 0 {
            for p in desc.statements {
                let mut raw = Vec::new();
                self.names
                    .raw(PointKind::Statement, None, Where::Statement(p), &mut raw);
                for r in &raw {
                    let a = self.names.number(0, r);
                    self.universe.add_site(a.var, a.site, a.kind);
                }
            }
            self.static_estimate = self.universe.size() > 0;
        }
    }

    /// A read-only copy of the numbering, for the guided schedules of a batch.
    pub(crate) fn names(&self) -> Arc<Names> {
        Arc::new(self.names.clone())
    }

    /// Reads one controlled execution.
    pub(crate) fn add_trace(&mut self, trace: Vec<Step>) {
        self.executions += 1;
        // Most executions repeat an earlier one step for step: know them by the steps
        // themselves (pointers, no numbering) before converting anything.
        let mut h = FxHasher::default();
        for s in &trace {
            let at = match s.at {
                Where::Code(l) => l as *const _ as usize,
                Where::Statement(p) => p as *const _ as usize,
            };
            let var = s.var.map_or(0, |v| v as *const _ as usize);
            (s.thread, s.op as u8, var, at, s.held).hash(&mut h);
        }
        if !self.seen_steps.insert(h.finish()) {
            return;
        }
        if self.deferred {
            if self.pending.len() < MAX_PENDING {
                self.pending.push(trace);
            } else {
                self.unmatched += 1;
            }
            return;
        }
        self.read(&trace);
    }

    /// Converts, and matches if its access sequence is new, one execution's steps.
    fn read(&mut self, trace: &[Step]) {
        let mut raw = Vec::new();
        let mut accesses = Vec::new();
        for s in in_run_order(trace) {
            raw.clear();
            self.names.raw(s.op, s.var, s.at, &mut raw);
            for r in &raw {
                let a = self.names.number(s.thread, r);
                accesses.push(a);
            }
        }
        let mut h = FxHasher::default();
        accesses.hash(&mut h);
        if !self.seen.insert(h.finish()) {
            return;
        }
        self.later_sites += self.universe.add_accesses(&accesses);
        self.covered.add_execution(&accesses);
    }

    /// Reading waits for [`finish`](Self::finish), and the sequential runs may come after
    /// the executions (guides that do not plan by coverage: the executions then do not
    /// wait for it). Executions are still known by their steps as they come.
    pub(crate) fn defer_reading(&mut self) {
        self.deferred = true;
    }

    /// Whether reading waits for [`finish`](Self::finish).
    pub(crate) fn is_deferred(&self) -> bool {
        self.deferred
    }

    /// Reads the executions deferred so far, for at most `cap`; those left are counted in
    /// the report.
    pub(crate) fn finish(&mut self, cap: Duration) {
        let start = Instant::now();
        let pending = std::mem::take(&mut self.pending);
        let total = pending.len();
        for (i, trace) in pending.iter().enumerate() {
            if start.elapsed() >= cap {
                self.unmatched += (total - i) as u64;
                break;
            }
            self.read(trace);
        }
    }

    /// Counts the method pairs of a test that ran (each call of one thread against each of
    /// another's).
    pub(crate) fn add_test(&mut self, test: &TestCase) {
        let methods = thread_methods(test);
        let mut pairs = HashSet::default();
        for (i, a) in methods.iter().enumerate() {
            for b in &methods[i + 1..] {
                for &x in a {
                    for &y in b {
                        pairs.insert((x.min(y), x.max(y)));
                    }
                }
            }
        }
        for (x, y) in pairs {
            self.pairs.record(x, y);
        }
    }

    /// The method pairs that ran concurrently, without a trace (free-running tests count):
    /// how many of all, and how many tests the least-run of them ran in, in words.
    pub(crate) fn pairs_run(&self) -> String {
        let least = self.pairs.least();
        format!(
            "method pairs run concurrently: {}/{} (the least-run pair in {least} test{})",
            self.pairs.covered(),
            PairCoverage::total(self.methods),
            if least == 1 { "" } else { "s" }
        )
    }

    /// Every feasible pattern is covered (and there is at least one).
    pub(crate) fn all_covered(&self) -> bool {
        let size = self.universe.size();
        size > 0 && self.covered.covered_in(&self.universe) >= size
    }

    /// The methods of the next test under `guide` (`None` for random, or when there is
    pub(crate) fn summary(&self) -> MapCoverage {
        let sizes = self.universe.sizes();
        let mut covered = [0u64; PatternId::COUNT];
        for key in self.covered.keys() {
            if self.universe.contains(key) {
                covered[key.id().index()] += 1;
            }
        }
        let per_pattern = PatternId::all()
            .map(|id| PatternCount {
                pattern: id.get(),
                shape: SHAPES[id.index()],
                covered: covered[id.index()],
                feasible: sizes[id.index()],
            })
            .collect();
        let uncovered = self
            .covered
            .uncovered(&self.universe, 5)
            .iter()
            .map(|k| self.describe(k))
            .collect();
        let vars: Vec<u32> = (0..self.names.var_count())
            .filter(|&v| {
                !self.universe.sites(v, Kind::Read).is_empty()
                    || !self.universe.sites(v, Kind::Write).is_empty()
            })
            .collect();
        MapCoverage {
            covered: covered.iter().sum(),
            feasible: sizes.iter().fold(0, |a, &b| a.saturating_add(b)),
            universe: if self.static_estimate {
                UniverseSource::StaticEstimate
            } else {
                UniverseSource::SequentialRuns {
                    methods_run: self.methods_run,
                    methods: self.methods,
                    later_sites: self.later_sites,
                }
            },
            per_pattern,
            uncovered,
            variables: vars.iter().map(|&v| self.names.var_name(v)).collect(),
            pairs_covered: self.pairs.covered(),
            pairs_total: PairCoverage::total(self.methods),
            executions: self.executions,
            distinct_executions: self.seen.len() as u64,
            unmatched: self.unmatched,
        }
    }

    /// `#4 (a:R x, b:W x, a:R x) on self.count: a reads at src/c.rs:10 (in `get`), ...`.
    fn describe(&self, key: &PatternKey) -> String {
        let (x, y) = key.vars();
        let mut vars = self.names.var_name(x);
        if let Some(y) = y {
            vars = format!("{vars} (x) and {} (y)", self.names.var_name(y));
        }
        let steps: Vec<String> = key
            .shaped_steps()
            .map(|(s, sv)| {
                let who = match s.role {
                    Role::A => "a",
                    Role::B => "b",
                };
                let what = match s.kind {
                    Kind::Read => "reads",
                    Kind::Write => "writes",
                };
                let var = if y.is_some() {
                    if sv.var == x {
                        " x"
                    } else {
                        " y"
                    }
                } else {
                    ""
                };
                format!("{who} {what}{var} at {}", self.names.site_name(sv.site))
            })
            .collect();
        format!("#{} on {vars}: {}", key.id().get(), steps.join(", then "))
    }
}

#[cfg(test)]
mod tests;
