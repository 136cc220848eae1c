//! MAP-coverage of a check, and the guidance it drives (Wang et al., ASE 2019).
//!
//! [`map`](crate::map) is the pure logic over numbered accesses; this module connects it to
//! the runs of a check:
//!
//! - **Variables and accesses.** A `threadsafe_rt::sync` primitive is a variable, named by
//!   where it was created (its constructor's caller, the same in every execution). A lock,
//!   write-lock, store or read-modify-write of it is a write; a read-lock or load is a read;
//!   waits, notifications, barriers and yields access no variable. A statement point
//!   carries the fields of `self` its statement accesses, as `#[thread_safe]` read them
//!   from the source ([`FieldAccess`](crate::sched::FieldAccess)): each such field is a
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

use std::collections::BTreeSet;
use std::fmt;
use std::hash::{Hash, Hasher};

// Fast, deterministic hashing: every controlled execution is hashed.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet, FxHasher};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::Rng;
use rand_chacha::ChaCha8Rng;

// Defined with the other settings; `pub(crate)` here too for the modules that import it
// with the coverage.
pub(crate) use crate::config::Guide;
use crate::map::{
    self, Access, Kind, MethodTrace, PairCoverage, PatternId, PatternKey, Role, Universe,
};
use crate::model::{OpId, TestCase};
use crate::sched::{self, Op, Recorded, Step, Var, Where};
use crate::subject::Description;

/// A variable: a primitive by where it was created, or a field of `self` by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum VarKey {
    Created(&'static str, u32, u32),
    Field(&'static str),
}

impl VarKey {
    /// The primitive created at `at`.
    fn created(at: &'static std::panic::Location<'static>) -> Self {
        VarKey::Created(at.file(), at.line(), at.column())
    }
}

/// A site: a `sync` operation's caller, or a statement (file and line).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum SiteKey {
    Code(&'static str, u32, u32),
    Statement(&'static str, u32),
}

/// One access before numbering.
#[derive(Clone, Copy, Debug)]
struct Raw {
    site: SiteKey,
    /// The annotated method of a statement site.
    method: Option<&'static str>,
    var: VarKey,
    kind: Kind,
}

/// The numbering of variables and sites, and which fields are primitives. A snapshot is
/// shared read-only with the guided schedules of a batch.
#[derive(Clone, Debug, Default)]
pub(crate) struct Names {
    vars: HashMap<VarKey, u32>,
    var_list: Vec<VarKey>,
    sites: HashMap<SiteKey, u32>,
    site_list: Vec<(SiteKey, Option<&'static str>)>,
    /// Fields that hold primitives.
    linked: HashSet<&'static str>,
    /// Primitive (by where it was created) → the field that holds it: the primitive's
    /// accesses are the field's (every constructor's primitive for one field is one
    /// variable).
    field_of: HashMap<VarKey, &'static str>,
}

impl Names {
    /// The accesses of one operation, appended to `out`.
    fn raw(&self, op: Op, var: Var, at: Where, out: &mut Vec<Raw>) {
        let kind = match op {
            Op::Lock | Op::Store | Op::ReadModifyWrite => Kind::Write,
            Op::ReadLock | Op::Load => Kind::Read,
            Op::Statement => {
                if let Where::Statement(p) = at {
                    for f in p.fields {
                        if self.linked.contains(f.field) {
                            continue;
                        }
                        out.push(Raw {
                            site: SiteKey::Statement(p.file, p.line),
                            method: Some(p.method),
                            var: VarKey::Field(f.field),
                            kind: if f.write { Kind::Write } else { Kind::Read },
                        });
                    }
                }
                return;
            }
            Op::Wait | Op::Notify | Op::Barrier | Op::Yield => return,
        };
        let Some(created) = var else { return };
        let (site, method) = match at {
            Where::Code(l) => (SiteKey::Code(l.file(), l.line(), l.column()), None),
            Where::Statement(p) => (SiteKey::Statement(p.file, p.line), Some(p.method)),
        };
        let prim = VarKey::created(created);
        out.push(Raw {
            site,
            method,
            var: self.field_of.get(&prim).map_or(prim, |f| VarKey::Field(f)),
            kind,
        });
    }

    fn var_id(&mut self, k: VarKey) -> u32 {
        if let Some(&id) = self.vars.get(&k) {
            return id;
        }
        let id = self.var_list.len() as u32;
        self.vars.insert(k, id);
        self.var_list.push(k);
        id
    }

    fn site_id(&mut self, k: SiteKey, method: Option<&'static str>) -> u32 {
        if let Some(&id) = self.sites.get(&k) {
            if method.is_some() && self.site_list[id as usize].1.is_none() {
                self.site_list[id as usize].1 = method;
            }
            return id;
        }
        let id = self.site_list.len() as u32;
        self.sites.insert(k, id);
        self.site_list.push((k, method));
        id
    }

    /// Numbers `r` (new variables and sites get new numbers).
    fn number(&mut self, thread: usize, r: &Raw) -> Access {
        Access {
            thread,
            site: self.site_id(r.site, r.method),
            var: self.var_id(r.var),
            kind: r.kind,
        }
    }

    /// Numbers `r` if its variable and site are known.
    fn lookup(&self, thread: usize, r: &Raw) -> Option<Access> {
        Some(Access {
            thread,
            site: *self.sites.get(&r.site)?,
            var: *self.vars.get(&r.var)?,
            kind: r.kind,
        })
    }

    /// Learns which fields are primitives from one sequential call's operations: a
    /// statement naming exactly one field, followed (before the next statement) by an
    /// operation on a primitive. A primitive's first link wins.
    fn link(&mut self, ops: &[Recorded]) {
        let mut field: Option<&'static str> = None;
        for r in ops {
            match (r.op, r.at) {
                (Op::Statement, Where::Statement(p)) => {
                    field = match p.fields {
                        [only] => Some(only.field),
                        _ => None,
                    };
                }
                (_, _) => {
                    let (Some(f), Some(c)) = (field, r.var) else {
                        continue;
                    };
                    let prim = VarKey::created(c);
                    if !self.field_of.contains_key(&prim) {
                        self.linked.insert(f);
                        self.field_of.insert(prim, f);
                    }
                    field = None;
                }
            }
        }
    }

    /// How the report names variable `v`.
    fn var_name(&self, v: u32) -> String {
        match self.var_list.get(v as usize) {
            Some(VarKey::Field(f)) => format!("self.{f}"),
            Some(VarKey::Created(file, line, _)) => {
                format!("the primitive created at {file}:{line}")
            }
            None => format!("v{v}"),
        }
    }

    /// How the report names site `s`.
    fn site_name(&self, s: u32) -> String {
        match self.site_list.get(s as usize) {
            Some((SiteKey::Code(file, line, _), m)) | Some((SiteKey::Statement(file, line), m)) => {
                match m {
                    Some(m) => format!("{file}:{line} (in `{m}`)"),
                    None => format!("{file}:{line}"),
                }
            }
            None => format!("s{s}"),
        }
    }
}

/// The steps of a controlled run in the order their operations ran (see the module docs).
fn in_run_order(trace: &[Step]) -> Vec<Step> {
    let mut out = Vec::with_capacity(trace.len());
    let mut pending: Vec<Option<Step>> = Vec::new();
    for s in trace {
        if pending.len() <= s.thread {
            pending.resize(s.thread + 1, None);
        }
        if let Some(p) = pending[s.thread].take() {
            out.push(p);
        }
        if s.held {
            pending[s.thread] = Some(*s);
        } else {
            out.push(*s);
        }
    }
    // Threads that ran their last operation and ended without another point.
    let mut rest: Vec<Step> = pending.into_iter().flatten().collect();
    rest.sort_by_key(|s| trace.iter().position(|t| t == s));
    out.extend(rest);
    out
}

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

/// Where the feasible patterns came from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum UniverseSource {
    /// The sites seen in sequential runs of the concurrent methods (`methods_run` of
    /// `methods` ran), plus `later_sites` sites first seen in concurrent executions.
    SequentialRuns {
        /// Methods whose sequential run was recorded.
        methods_run: usize,
        /// Concurrent methods.
        methods: usize,
        /// Sites added from concurrent executions.
        later_sites: usize,
    },
    /// No sequential run accessed a variable: the paper's static estimate, every statement
    /// of the annotated methods with the fields of `self` it names.
    StaticEstimate,
}

/// Covered and feasible patterns of one kind of Table I.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatternCount {
    /// The pattern, 1 to 17.
    pub pattern: u8,
    /// Its shape, e.g. `a:R x, b:W x, a:R x`.
    pub shape: &'static str,
    /// Feasible instances covered.
    pub covered: u64,
    /// Feasible instances.
    pub feasible: u64,
}

/// The MAP-coverage a check reached: memory-access patterns covered by its controlled
/// executions, over the feasible ones; and CovCon's method-pair coverage.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct MapCoverage {
    /// Feasible patterns covered.
    pub covered: u64,
    /// Feasible patterns (the denominator).
    pub feasible: u64,
    /// Where the feasible patterns came from.
    pub universe: UniverseSource,
    /// The 17 kinds, in order.
    pub per_pattern: Vec<PatternCount>,
    /// Uncovered patterns that involve the most sites (up to five), described.
    pub uncovered: Vec<String>,
    /// The shared variables, named.
    pub variables: Vec<String>,
    /// Pairs of concurrent methods run against each other.
    pub pairs_covered: usize,
    /// Pairs of concurrent methods (a method with itself included).
    pub pairs_total: u64,
    /// Controlled executions read, and how many had an access sequence not seen before.
    pub executions: u64,
    /// Executions with a new access sequence (only those are matched).
    pub distinct_executions: u64,
    /// Executions with new steps that were not read: under guides other than `map` the
    /// check reads them after its last test, for at most a quarter of its budget; their
    /// patterns may be missing from `covered`.
    pub unmatched: u64,
}

impl MapCoverage {
    /// Covered over feasible, `None` when nothing is feasible.
    pub fn ratio(&self) -> Option<f64> {
        (self.feasible > 0).then(|| self.covered as f64 / self.feasible as f64)
    }
}

/// The shapes of Table I, written out.
const SHAPES: [&str; 17] = [
    "a:R x, b:W x",
    "a:W x, b:R x",
    "a:W x, b:W x",
    "a:R x, b:W x, a:R x",
    "a:W x, b:W x, a:R x",
    "a:W x, b:R x, a:W x",
    "a:R x, b:W x, a:W x",
    "a:W x, b:W x, a:W x",
    "a:W x, b:W x, b:W y, a:W y",
    "a:W x, b:W y, b:W x, a:W y",
    "a:W x, b:W y, a:W y, b:W x",
    "a:W x, b:R x, b:R y, a:W y",
    "a:W x, b:R y, b:R x, a:W y",
    "a:R x, b:W x, b:W y, a:R y",
    "a:R x, b:W y, b:W x, a:R y",
    "a:R x, b:W y, a:R y, b:W x",
    "a:W x, b:R y, a:W y, b:R x",
];

impl fmt::Display for MapCoverage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pct = self
            .ratio()
            .map_or("-".to_string(), |r| format!("{:.1}%", r * 100.0));
        writeln!(
            f,
            "  MAP-coverage: {}/{} feasible memory-access patterns ({pct}) over {} shared variable(s)",
            self.covered,
            self.feasible,
            self.variables.len()
        )?;
        match &self.universe {
            UniverseSource::SequentialRuns {
                methods_run,
                methods,
                later_sites,
            } => {
                write!(
                    f,
                    "    feasible: from the sites seen in sequential runs of {methods_run}/{methods} methods"
                )?;
                if *later_sites > 0 {
                    write!(f, ", plus {later_sites} site(s) first seen in concurrent runs")?;
                }
                writeln!(f)?;
            }
            UniverseSource::StaticEstimate => writeln!(
                f,
                "    feasible: static estimate (the statements of the annotated methods and the fields they name)"
            )?,
        }
        if !self.variables.is_empty() {
            writeln!(f, "    variables: {}", self.variables.join(", "))?;
        }
        let kinds: Vec<String> = self
            .per_pattern
            .iter()
            .filter(|p| p.feasible > 0)
            .map(|p| format!("#{} {}/{}", p.pattern, p.covered, p.feasible))
            .collect();
        if !kinds.is_empty() {
            writeln!(f, "    per pattern: {}", kinds.join(", "))?;
        }
        if !self.uncovered.is_empty() {
            writeln!(f, "    uncovered, most sites first:")?;
            for u in &self.uncovered {
                writeln!(f, "      - {u}")?;
            }
        }
        writeln!(
            f,
            "    method pairs run concurrently: {}/{}; {} controlled executions, {} with a new access sequence",
            self.pairs_covered, self.pairs_total, self.executions, self.distinct_executions
        )?;
        if self.unmatched > 0 {
            writeln!(
                f,
                "    note: {} more executions with new steps were not read (time cap after the last test): the coverage may be higher",
                self.unmatched
            )?;
        }
        Ok(())
    }
}

/// What the generator should put in the threads of the next test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    /// The pattern aimed at (guide `map`).
    pub(crate) target: Option<PatternKey>,
    /// The methods of thread 0 and of thread 1, in order.
    pub(crate) threads: [Vec<usize>; 2],
}

/// How many tests aim at one pattern before it is set aside as likely infeasible.
const ATTEMPTS_PER_PATTERN: u32 = 3;

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
    covered: map::Coverage,
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
            covered: map::Coverage::new(),
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
                    .raw(Op::Statement, None, Where::Statement(p), &mut raw);
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

    /// Every feasible pattern is covered (and there is at least one).
    pub(crate) fn all_covered(&self) -> bool {
        let size = self.universe.size();
        size > 0 && self.covered.covered_in(&self.universe) >= size
    }

    /// The methods of the next test under `guide` (`None` for random, or when there is
    /// nothing to aim at).
    pub(crate) fn plan(&mut self, guide: Guide, rng: &mut ChaCha8Rng) -> Option<Plan> {
        match guide {
            Guide::Random => None,
            Guide::Pairs => self.least_run_pair(rng),
            Guide::Map => self
                .pattern_plan(rng)
                .or_else(|| self.call_sequence_plan())
                .or_else(|| self.least_run_pair(rng)),
        }
    }

    /// CovCon: the pair of concurrent methods run least so far (ties at random).
    fn least_run_pair(&self, rng: &mut ChaCha8Rng) -> Option<Plan> {
        let c = &self.concurrent;
        let pairs: Vec<(usize, usize)> = (0..c.len())
            .flat_map(|i| (i..c.len()).map(move |j| (c[i], c[j])))
            .collect();
        let least = pairs.iter().map(|&(a, b)| self.pairs.count(a, b)).min()?;
        let ties: Vec<&(usize, usize)> = pairs
            .iter()
            .filter(|&&(a, b)| self.pairs.count(a, b) == least)
            .collect();
        let &(a, b) = ties[rng.gen_range(0..ties.len())];
        let (a, b) = if rng.gen_bool(0.5) { (a, b) } else { (b, a) };
        Some(Plan {
            target: None,
            threads: [vec![a], vec![b]],
        })
    }

    /// The patterns one call of `a` (role `a`) and one of `b` (role `b`) can cover, not
    /// covered or set aside yet, most sites first. Computed once per pair from the method
    /// traces; covered ones are dropped as they are met, so repeated calls cost little.
    fn pair_uncovered(&mut self, a: usize, b: usize) -> &[PatternKey] {
        if !self.pair_keys.contains_key(&(a, b)) {
            let mut keys = BTreeSet::new();
            for (_, ta) in self.traces.iter().filter(|(m, _)| *m == a) {
                for (_, tb) in self.traces.iter().filter(|(m, _)| *m == b) {
                    keys.extend(map::pair_keys(ta, tb));
                }
            }
            let mut keys: Vec<PatternKey> = keys.into_iter().collect();
            keys.sort_by_key(|k| std::cmp::Reverse(k.distinct_sites()));
            self.pair_keys.insert((a, b), keys);
        }
        let (covered, attempts) = (&self.covered, &self.attempts);
        let keys = self.pair_keys.get_mut(&(a, b)).expect("just inserted");
        keys.retain(|k| {
            !covered.is_covered(k) && attempts.get(k).copied().unwrap_or(0) < ATTEMPTS_PER_PATTERN
        });
        keys
    }

    /// Algorithm 4, ranked by method-pair coverage as MAPTest does: of the pairs of
    /// concurrent methods (in both roles) that can still cover an uncovered pattern with one
    /// call each, the pair run least so far (ties at random); it aims at the pattern with
    /// the most sites among them.
    fn pattern_plan(&mut self, rng: &mut ChaCha8Rng) -> Option<Plan> {
        let c = self.concurrent.clone();
        let mut pairs: Vec<(u64, u64, usize, usize)> = c
            .iter()
            .flat_map(|&a| c.iter().map(move |&b| (a, b)))
            .map(|(a, b)| (self.pairs.count(a, b), rng.gen(), a, b))
            .collect();
        pairs.sort_unstable();
        for (_, _, a, b) in pairs {
            let Some(&key) = self.pair_uncovered(a, b).first() else {
                continue;
            };
            *self.attempts.entry(key).or_default() += 1;
            return Some(Plan {
                target: Some(key),
                threads: [vec![a], vec![b]],
            });
        }
        None
    }

    /// Algorithm 4's longer selections, once no pair of single calls can cover anything
    /// new: an uncovered pattern (most sites first) whose role needs several calls of one
    /// thread (a read in one method, the next in another), with the fewest calls per role
    /// (up to 4 methods in all, as the paper's triples and quadruples).
    fn call_sequence_plan(&mut self) -> Option<Plan> {
        let set_aside = self
            .attempts
            .values()
            .filter(|&&n| n >= ATTEMPTS_PER_PATTERN)
            .count();
        for key in self.covered.uncovered(&self.universe, 48 + set_aside) {
            if self.attempts.get(&key).copied().unwrap_or(0) >= ATTEMPTS_PER_PATTERN {
                continue;
            }
            let (Some(a), Some(b)) = (
                map::role_calls(&key, Role::A, &self.traces),
                map::role_calls(&key, Role::B, &self.traces),
            ) else {
                // No method plays a role: no test can cover it.
                self.attempts.insert(key, ATTEMPTS_PER_PATTERN);
                continue;
            };
            *self.attempts.entry(key).or_default() += 1;
            return Some(Plan {
                target: Some(key),
                threads: [a, b],
            });
        }
        None
    }

    /// Algorithm 5's set `P`: the patterns a test with these threads' methods can cover
    /// (a call of one thread against a call of another), `first` first, up to `limit`.
    pub(crate) fn targets(
        &mut self,
        threads: &[Vec<usize>],
        first: Option<PatternKey>,
        limit: usize,
    ) -> Vec<PatternKey> {
        let mut out: Vec<PatternKey> = first.into_iter().collect();
        for (i, ta) in threads.iter().enumerate() {
            for (j, tb) in threads.iter().enumerate() {
                if i == j {
                    continue;
                }
                for &a in ta {
                    for &b in tb {
                        for &k in self.pair_uncovered(a, b) {
                            if out.len() >= limit {
                                return out;
                            }
                            if !out.contains(&k) {
                                out.push(k);
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The coverage reached, for the report.
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
        let vars: Vec<u32> = (0..self.names.var_list.len() as u32)
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

/// Decisions after which a guided run picks at random only: a thread spinning on a load
/// must not keep a held-back thread from running forever.
const GUIDED_DECISIONS: usize = 10_000;

/// Algorithm 5's scheduler: runs the thread whose next operation extends a partial match of
/// the target pattern. Otherwise it picks at random, but not a thread whose next operation
/// is a step of the target (it would be spent before its turn) while another can run; once
/// the target is covered, at random.
pub(crate) struct Guided {
    random: sched::RandomWalk,
    guide: map::Guide,
    names: Arc<Names>,
    raw: Vec<Raw>,
    decisions: usize,
}

impl Guided {
    pub(crate) fn new(seed: u64, target: PatternKey, names: Arc<Names>) -> Self {
        Guided {
            random: sched::RandomWalk::new(seed),
            guide: map::Guide::new(target),
            names,
            raw: Vec::new(),
            decisions: 0,
        }
    }

    /// The numbered accesses of `step`, if its variables and sites are known.
    fn accesses(&mut self, step: &Step) -> Vec<Access> {
        self.raw.clear();
        self.names.raw(step.op, step.var, step.at, &mut self.raw);
        self.raw
            .iter()
            .filter_map(|r| self.names.lookup(step.thread, r))
            .collect()
    }
}

impl sched::Strategy for Guided {
    fn next(&mut self, runnable: &[usize], current: Option<usize>, yielding: bool) -> usize {
        self.random.next(runnable, current, yielding)
    }

    fn pick(&mut self, n: usize) -> usize {
        self.random.pick(n)
    }

    fn steers(&self) -> bool {
        true
    }

    fn next_at(
        &mut self,
        runnable: &[usize],
        current: Option<usize>,
        yielding: bool,
        upcoming: &[Option<Step>],
    ) -> usize {
        self.decisions += 1;
        if yielding || self.guide.is_covered() || self.decisions > GUIDED_DECISIONS {
            return self.random.next(runnable, current, yielding);
        }
        let mut next = Vec::new();
        for &t in runnable {
            if let Some(step) = upcoming.get(t).copied().flatten() {
                if let Some(&a) = self.accesses(&step).first() {
                    next.push(a);
                }
            }
        }
        if let Some(t) = self.guide.choose(&next) {
            return t;
        }
        let target = self.guide.target();
        let in_target = |a: &Access| {
            target
                .shaped_steps()
                .any(|(s, sv)| (sv.site, sv.var, s.kind) == (a.site, a.var, a.kind))
        };
        let free: Vec<usize> = runnable
            .iter()
            .copied()
            .filter(|t| !next.iter().any(|a| a.thread == *t && in_target(a)))
            .collect();
        if free.is_empty() {
            self.random.next(runnable, current, yielding)
        } else {
            self.random
                .next(&free, current.filter(|c| free.contains(c)), false)
        }
    }

    fn ran(&mut self, step: &Step) {
        for a in self.accesses(step) {
            self.guide.observe(&a);
        }
    }
}

#[cfg(test)]
mod tests;
