//! MAP-coverage: memory-access patterns (Wang et al., "MAP-Coverage: a novel coverage
//! criterion for testing thread-safe classes", ASE 2019).
//!
//! An *execution* is a sequence of steps, each one thread reading or writing one shared
//! variable at one site ([`Access`]). A *memory-access pattern* is one of 17 generic shapes
//! of how two threads `a` and `b` access one variable `x`, or two variables `x` and `y`
//! (Table I of the paper, [`PatternId::shape`]). An *instance* of a pattern is a subsequence
//! of an execution of that shape: the steps need not be adjacent, the steps of role `a` are
//! one thread and those of role `b` another. Instances are compared by [`PatternKey`]: the
//! pattern and the `(site, variable)` of each step, without the threads.
//!
//! - [`patterns`] / [`Matcher`]: the keys of every instance in an execution (Algorithm 1).
//! - [`Universe`]: the feasible keys estimated from the sites that read and write each
//!   variable (§III.B, Algorithm 3), and its size (the paper's `T_C`).
//! - [`Coverage`]: covered keys and the MAP-coverage ratio (Definition 1).
//! - [`PairCoverage`]: method-pair coverage (CovCon), which MAPTest uses to rank methods.
//! - Guidance: [`pair_keys`], [`role_calls`] (Algorithm 4: which methods can cover a
//!   pattern) and [`Guide`] (Algorithm 5: which thread's next step extends a wanted
//!   pattern).
//!
//! Pure logic: no I/O, no scheduler. Everything is deterministic (sets are ordered where the
//! order is visible).
//!
//! # The count of two-variable patterns
//!
//! The paper's `T_C` counts each of patterns 9–17 once per *unordered* pair `{x, y}`
//! (`3·|W_x|²·|W_y|²` and `6·|W_x|·|R_x|·|W_y|·|R_y|`). But `x` and `y` are actual variables
//! and play different parts in each shape (`x` is the first variable accessed): the
//! instances with `(x, y) = (u, v)` and with `(x, y) = (v, u)` are different step sequences,
//! and both occur in executions (see the test `both_orientations_of_a_pair_are_distinct`).
//! Algorithm 3 of the paper enumerates ordered pairs too. So [`Universe::size`] counts the
//! keys that [`Universe::contains`] accepts — ordered pairs, twice the paper's terms for
//! patterns 9–17 — which keeps a coverage ratio within `0..=1`; [`Universe::paper_tc`] is
//! the formula as printed. The two agree whenever at most one variable is accessed (the
//! paper's worked example: 16).

use std::collections::{BTreeMap, BTreeSet};

// Fast, deterministic hashing: matching hashes every partial match of every execution.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::fmt;

/// Whether a step reads or writes its variable.
///
/// A lock, write-lock, store or read-modify-write is a write; a read-lock or load is a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Kind {
    /// The step reads the variable.
    Read,
    /// The step writes the variable.
    Write,
}

/// One step of an execution: `thread` accesses `var` at `site` (an instruction or source
/// location), reading or writing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Access {
    /// The thread that runs the step.
    pub(crate) thread: usize,
    /// The instruction or location of the step.
    pub(crate) site: u32,
    /// The shared variable accessed.
    pub(crate) var: u32,
    /// Read or write.
    pub(crate) kind: Kind,
}

impl Access {
    /// A read of `var` by `thread` at `site`.
    #[cfg(test)]
    pub(crate) fn read(thread: usize, site: u32, var: u32) -> Self {
        Access {
            thread,
            site,
            var,
            kind: Kind::Read,
        }
    }

    /// A write of `var` by `thread` at `site`.
    #[cfg(test)]
    pub(crate) fn write(thread: usize, site: u32, var: u32) -> Self {
        Access {
            thread,
            site,
            var,
            kind: Kind::Write,
        }
    }
}

/// The thread role of a pattern step: `a` runs the first step, `b` is the other thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Role {
    /// The thread of the first step.
    A,
    /// The other thread.
    B,
}

/// The variable role of a pattern step: `x` is the first variable accessed, `y` the other
/// one (patterns 9–17 only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum VarRole {
    /// The variable of the first step.
    X,
    /// The second, distinct variable.
    Y,
}

/// One step of a pattern's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct StepShape {
    /// Which thread runs it.
    pub(crate) role: Role,
    /// Read or write.
    pub(crate) kind: Kind,
    /// Which variable it accesses.
    pub(crate) var: VarRole,
}

/// A [`StepShape`], briefly, for the table.
const fn step(role: Role, kind: Kind, var: VarRole) -> StepShape {
    StepShape { role, kind, var }
}

/// Table I of the paper (from UNICORN, Park et al.): the shapes of patterns 1 to 17.
static SHAPES: [&[StepShape]; 17] = {
    use Kind::{Read as R, Write as W};
    use Role::{A, B};
    use VarRole::{X, Y};
    [
        &[step(A, R, X), step(B, W, X)],
        &[step(A, W, X), step(B, R, X)],
        &[step(A, W, X), step(B, W, X)],
        &[step(A, R, X), step(B, W, X), step(A, R, X)],
        &[step(A, W, X), step(B, W, X), step(A, R, X)],
        &[step(A, W, X), step(B, R, X), step(A, W, X)],
        &[step(A, R, X), step(B, W, X), step(A, W, X)],
        &[step(A, W, X), step(B, W, X), step(A, W, X)],
        &[step(A, W, X), step(B, W, X), step(B, W, Y), step(A, W, Y)],
        &[step(A, W, X), step(B, W, Y), step(B, W, X), step(A, W, Y)],
        &[step(A, W, X), step(B, W, Y), step(A, W, Y), step(B, W, X)],
        &[step(A, W, X), step(B, R, X), step(B, R, Y), step(A, W, Y)],
        &[step(A, W, X), step(B, R, Y), step(B, R, X), step(A, W, Y)],
        &[step(A, R, X), step(B, W, X), step(B, W, Y), step(A, R, Y)],
        &[step(A, R, X), step(B, W, Y), step(B, W, X), step(A, R, Y)],
        &[step(A, R, X), step(B, W, Y), step(A, R, Y), step(B, W, X)],
        &[step(A, W, X), step(B, R, Y), step(A, W, Y), step(B, R, X)],
    ]
};

/// A pattern of Table I, `1..=17`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct PatternId(u8);

impl PatternId {
    /// The number of patterns.
    pub(crate) const COUNT: usize = 17;

    /// Pattern `id`, if `1 <= id <= 17`.
    #[cfg(test)]
    pub(crate) fn new(id: u8) -> Option<Self> {
        (1..=Self::COUNT as u8)
            .contains(&id)
            .then_some(PatternId(id))
    }

    /// All patterns, 1 to 17.
    pub(crate) fn all() -> impl Iterator<Item = PatternId> {
        (1..=Self::COUNT as u8).map(PatternId)
    }

    /// The number, `1..=17`.
    pub(crate) fn get(self) -> u8 {
        self.0
    }

    /// The index of the pattern in per-pattern arrays: `get() - 1`.
    pub(crate) fn index(self) -> usize {
        usize::from(self.0) - 1
    }

    /// The steps of the pattern (2 to 4).
    pub(crate) fn shape(self) -> &'static [StepShape] {
        SHAPES[self.index()]
    }

    /// Whether the pattern involves two variables (patterns 9–17).
    pub(crate) fn has_two_vars(self) -> bool {
        self.shape().iter().any(|s| s.var == VarRole::Y)
    }
}

/// The site and variable of one step of a pattern instance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct SiteVar {
    /// The instruction or location.
    pub(crate) site: u32,
    /// The variable.
    pub(crate) var: u32,
}

/// A pattern instance without its threads: the pattern and the `(site, var)` of each step.
///
/// Two instances that differ only in their thread identities have the same key (§III.A).
/// The variables are kept: `x` and `y` are actual variables. Ordered by pattern, then steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct PatternKey {
    id: PatternId,
    /// The steps; entries past `id.shape().len()` are zero.
    steps: [SiteVar; 4],
}

impl PatternKey {
    /// The key of pattern `id` with these steps, if they fit its shape: one entry per step,
    /// the same variable wherever the shape has `x` (and `y`), and `x != y`.
    pub(crate) fn new(id: PatternId, steps: &[SiteVar]) -> Option<Self> {
        let shape = id.shape();
        if steps.len() != shape.len() {
            return None;
        }
        let (mut x, mut y) = (None, None);
        for (s, sv) in shape.iter().zip(steps) {
            let slot = match s.var {
                VarRole::X => &mut x,
                VarRole::Y => &mut y,
            };
            match *slot {
                None => *slot = Some(sv.var),
                Some(v) if v != sv.var => return None,
                Some(_) => {}
            }
        }
        if y.is_some() && x == y {
            return None;
        }
        let mut all = [SiteVar::default(); 4];
        all[..steps.len()].copy_from_slice(steps);
        Some(PatternKey { id, steps: all })
    }

    /// The pattern.
    pub(crate) fn id(&self) -> PatternId {
        self.id
    }

    /// The `(site, var)` of each step, in order.
    pub(crate) fn steps(&self) -> &[SiteVar] {
        &self.steps[..self.id.shape().len()]
    }

    /// Each step with its shape (role, kind, variable role).
    pub(crate) fn shaped_steps(&self) -> impl Iterator<Item = (StepShape, SiteVar)> + '_ {
        self.id
            .shape()
            .iter()
            .copied()
            .zip(self.steps().iter().copied())
    }

    /// The variables: `x`, and `y` for patterns 9–17.
    pub(crate) fn vars(&self) -> (u32, Option<u32>) {
        let y = self
            .shaped_steps()
            .find(|(s, _)| s.var == VarRole::Y)
            .map(|(_, sv)| sv.var);
        (self.steps[0].var, y)
    }

    /// How many distinct sites the steps involve (1 to 4).
    pub(crate) fn distinct_sites(&self) -> usize {
        let steps = self.steps();
        (0..steps.len())
            .filter(|&i| steps[..i].iter().all(|s| s.site != steps[i].site))
            .count()
    }

    /// The `(site, var, kind)` of the steps of `role`, in order.
    pub(crate) fn role_steps(&self, role: Role) -> Vec<(u32, u32, Kind)> {
        self.shaped_steps()
            .filter(|(s, _)| s.role == role)
            .map(|(s, sv)| (sv.site, sv.var, s.kind))
            .collect()
    }
}

/// `P4[a R s4@v0, b W s9@v0, a R s5@v0]`.
impl fmt::Display for PatternKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "P{}[", self.id.get())?;
        for (i, (s, sv)) in self.shaped_steps().enumerate() {
            let role = match s.role {
                Role::A => 'a',
                Role::B => 'b',
            };
            let kind = match s.kind {
                Kind::Read => 'R',
                Kind::Write => 'W',
            };
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{role} {kind} s{}@v{}", sv.site, sv.var)?;
        }
        f.write_str("]")
    }
}

/// The keys of every pattern instance in `execution` (Algorithm 1, for all 17 patterns and
/// all variables at once), in order. See [`Matcher`] for the algorithm and its cost.
pub(crate) fn patterns(execution: &[Access]) -> BTreeSet<PatternKey> {
    let mut matcher = Matcher::new();
    for access in execution {
        matcher.push(access);
    }
    matcher.into_keys()
}

/// Finds pattern instances in an execution fed one step at a time.
///
/// # Algorithm
///
/// For each pattern, the matcher keeps the set of distinct *partial matches* seen so far: a
/// prefix of the pattern's steps matched to a subsequence of the execution, remembered as
/// the `(site, var)` of the matched steps plus the threads bound to `a` and `b`. Which
/// execution steps matched is forgotten: two partial matches with the same sites, variables
/// and threads extend in exactly the same ways later on. Partial matches only ever grow in
/// number (a subsequence stays a subsequence), so each new step `e` extends every earlier
/// partial match whose next pattern step `e` fits, and starts a new one if it fits the first
/// step. A complete match yields its key.
///
/// Partial matches wait in buckets by the constraint on their next step: its kind, the
/// thread it must be (or, for `b`'s first step, must not be) and the variable it must be
/// (or, for `y`'s first step, must not be). A step visits only the compatible buckets, and
/// in each only the partial matches added since the last step with the same
/// `(thread, site, var)`, as that step already made the same extensions.
///
/// # Cost
///
/// With `P` the number of distinct partial matches (at most
/// `Σ_len (sites of the variable and kind at each step) × threads²` per pattern, i.e.
/// bounded by combinations of sites, not of steps) and `G` the number of distinct
/// `(thread, site, var)` in the execution: `O(K·B + P·G)` hash operations for `K` steps,
/// where `B ≤ 17·3·threads·vars` is the number of buckets a step checks (one hash lookup
/// per pattern step in the common case). Memory is `O(P + buckets·G)`. Nothing is
/// quadratic, let alone quartic, in `K`.
#[derive(Debug)]
pub(crate) struct Matcher {
    /// One per pattern, in order.
    per_pattern: Vec<PatternMatcher>,
    /// The keys of the complete matches.
    found: HashSet<PatternKey>,
}

/// A partial match: `len` steps matched, with the threads bound so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Partial {
    /// How many steps are matched (1 to the pattern's length - 1).
    len: usize,
    /// The matched steps; entries from `len` on are zero.
    steps: [SiteVar; 4],
    /// The thread of role `a`.
    a: usize,
    /// The thread of role `b`, once it has a step.
    b: Option<usize>,
}

/// What a step's extension of a partial match depends on, besides the partial match.
type Signature = (usize, u32, u32);

/// Partial matches waiting for the same constraint.
#[derive(Debug, Default)]
struct Bucket {
    /// In order of arrival.
    partials: Vec<Partial>,
    /// For each signature, how many of `partials` a step with it has already extended.
    extended: HashMap<Signature, usize>,
}

/// The partial matches of `len` steps of one pattern, waiting for step `len`.
#[derive(Debug)]
struct Level {
    /// The kind of the step waited for.
    kind: Kind,
    /// The step's thread must equal the bucket's thread (else: must differ from it).
    thread_eq: bool,
    /// The step's variable must equal the bucket's variable (else: must differ from it).
    var_eq: bool,
    /// By (thread, variable) that the next step is compared with.
    buckets: HashMap<(usize, u32), Bucket>,
}

/// The partial matches of one pattern.
#[derive(Debug)]
struct PatternMatcher {
    /// The pattern.
    id: PatternId,
    /// `levels[i]` holds the partial matches of `i + 1` steps.
    levels: Vec<Level>,
    /// Every partial match in `levels`, to add each once.
    seen: HashSet<Partial>,
}

impl PatternMatcher {
    fn new(id: PatternId) -> Self {
        let shape = id.shape();
        let levels = (1..shape.len())
            .map(|len| {
                let next = shape[len];
                Level {
                    kind: next.kind,
                    thread_eq: shape[..len].iter().any(|s| s.role == next.role),
                    var_eq: shape[..len].iter().any(|s| s.var == next.var),
                    buckets: HashMap::default(),
                }
            })
            .collect();
        PatternMatcher {
            id,
            levels,
            seen: HashSet::default(),
        }
    }

    /// The bucket of a partial match: the thread and variable its next step is compared
    /// with.
    fn bucket_of(&self, p: &Partial) -> (usize, u32) {
        let shape = self.id.shape();
        let next = shape[p.len];
        let level = &self.levels[p.len - 1];
        let thread = match (level.thread_eq, next.role) {
            (true, Role::B) => p.b.expect("b is bound once it has a step"),
            _ => p.a,
        };
        let var = if level.var_eq {
            let i = shape[..p.len]
                .iter()
                .position(|s| s.var == next.var)
                .expect("var_eq: the variable has a step");
            p.steps[i].var
        } else {
            p.steps[0].var
        };
        (thread, var)
    }

    /// Feeds one step; complete matches go to `found`. Returns how many keys were new.
    fn push(&mut self, e: &Access, found: &mut HashSet<PatternKey>) -> usize {
        let signature = (e.thread, e.site, e.var);
        let mut fresh = Vec::new();
        for level in &mut self.levels {
            if level.kind != e.kind {
                continue;
            }
            let mut visit = |bucket: &mut Bucket| {
                let start = bucket
                    .extended
                    .insert(signature, bucket.partials.len())
                    .unwrap_or(0);
                for p in &bucket.partials[start..] {
                    let mut next = *p;
                    next.steps[p.len] = SiteVar {
                        site: e.site,
                        var: e.var,
                    };
                    next.len += 1;
                    if p.b.is_none() {
                        next.b = Some(e.thread);
                    }
                    fresh.push(next);
                }
            };
            if level.thread_eq && level.var_eq {
                if let Some(bucket) = level.buckets.get_mut(&(e.thread, e.var)) {
                    visit(bucket);
                }
            } else {
                let (thread_eq, var_eq) = (level.thread_eq, level.var_eq);
                for (&(thread, var), bucket) in &mut level.buckets {
                    if (thread == e.thread) == thread_eq && (var == e.var) == var_eq {
                        visit(bucket);
                    }
                }
            }
        }
        let shape = self.id.shape();
        if shape[0].kind == e.kind {
            let mut steps = [SiteVar::default(); 4];
            steps[0] = SiteVar {
                site: e.site,
                var: e.var,
            };
            fresh.push(Partial {
                len: 1,
                steps,
                a: e.thread,
                b: None,
            });
        }
        let mut new_keys = 0;
        for p in fresh {
            if p.len == shape.len() {
                let key = PatternKey {
                    id: self.id,
                    steps: p.steps,
                };
                if found.insert(key) {
                    new_keys += 1;
                }
            } else if self.seen.insert(p) {
                let bucket = self.bucket_of(&p);
                self.levels[p.len - 1]
                    .buckets
                    .entry(bucket)
                    .or_default()
                    .partials
                    .push(p);
            }
        }
        new_keys
    }
}

impl Default for Matcher {
    fn default() -> Self {
        Self::new()
    }
}

impl Matcher {
    /// A matcher that has seen no step.
    pub(crate) fn new() -> Self {
        Matcher {
            per_pattern: PatternId::all().map(PatternMatcher::new).collect(),
            found: HashSet::default(),
        }
    }

    /// Feeds the next step of the execution. Returns how many keys it completed that were
    /// not found before.
    pub(crate) fn push(&mut self, access: &Access) -> usize {
        let found = &mut self.found;
        self.per_pattern
            .iter_mut()
            .map(|p| p.push(access, found))
            .sum()
    }

    /// How many distinct keys have been found.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.found.len()
    }

    /// The keys found, in order.
    pub(crate) fn into_keys(self) -> BTreeSet<PatternKey> {
        self.found.into_iter().collect()
    }
}

/// The sites that read and that write one variable, sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct VarSites {
    /// Sites that read the variable.
    reads: Vec<u32>,
    /// Sites that write the variable.
    writes: Vec<u32>,
}

/// The feasible keys, over-estimated from the sites that read and write each variable
/// (§III.B and Algorithm 3): every pattern, every variable (ordered pair of distinct
/// variables for patterns 9–17), every choice of a site of the right variable and kind for
/// each step, the same site allowed at several steps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Universe {
    /// The sites of each variable.
    vars: BTreeMap<u32, VarSites>,
}

impl Universe {
    /// An empty universe.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Records that `site` reads (or writes) `var`. Returns whether it was new.
    pub(crate) fn add_site(&mut self, var: u32, site: u32, kind: Kind) -> bool {
        let sites = self.vars.entry(var).or_default();
        let list = match kind {
            Kind::Read => &mut sites.reads,
            Kind::Write => &mut sites.writes,
        };
        match list.binary_search(&site) {
            Ok(_) => false,
            Err(at) => {
                list.insert(at, site);
                true
            }
        }
    }

    /// Records the site of every access. Returns how many were new.
    pub(crate) fn add_accesses(&mut self, accesses: &[Access]) -> usize {
        accesses
            .iter()
            .filter(|a| self.add_site(a.var, a.site, a.kind))
            .count()
    }

    /// The sites that read (or write) `var`, sorted.
    pub(crate) fn sites(&self, var: u32, kind: Kind) -> &[u32] {
        match (self.vars.get(&var), kind) {
            (Some(s), Kind::Read) => &s.reads,
            (Some(s), Kind::Write) => &s.writes,
            (None, _) => &[],
        }
    }

    /// The `(x, y)` choices for a pattern: `(x, x)` for each variable, or each ordered
    /// pair of distinct variables for patterns 9–17.
    fn assignments(&self, id: PatternId) -> Vec<(u32, u32)> {
        let vars = self.vars.keys().copied();
        if id.has_two_vars() {
            vars.clone()
                .flat_map(|x| self.vars.keys().map(move |&y| (x, y)))
                .filter(|(x, y)| x != y)
                .collect()
        } else {
            vars.map(|x| (x, x)).collect()
        }
    }

    /// The site lists of each step of pattern `id` under the assignment `(x, y)`.
    fn step_lists(&self, id: PatternId, (x, y): (u32, u32)) -> ([u32; 4], [&[u32]; 4]) {
        let mut vars = [0; 4];
        let mut lists: [&[u32]; 4] = [&[]; 4];
        for (i, s) in id.shape().iter().enumerate() {
            vars[i] = match s.var {
                VarRole::X => x,
                VarRole::Y => y,
            };
            lists[i] = self.sites(vars[i], s.kind);
        }
        (vars, lists)
    }

    /// The number of feasible keys of pattern `id`.
    pub(crate) fn size_of(&self, id: PatternId) -> u64 {
        let n = id.shape().len();
        self.assignments(id)
            .into_iter()
            .map(|xy| {
                let (_, lists) = self.step_lists(id, xy);
                lists[..n]
                    .iter()
                    .fold(1u64, |acc, l| acc.saturating_mul(l.len() as u64))
            })
            .fold(0u64, u64::saturating_add)
    }

    /// [`size_of`](Self::size_of) each pattern; index `i` is pattern `i + 1`.
    pub(crate) fn sizes(&self) -> [u64; PatternId::COUNT] {
        let mut sizes = [0; PatternId::COUNT];
        for id in PatternId::all() {
            sizes[id.index()] = self.size_of(id);
        }
        sizes
    }

    /// The number of feasible keys: the keys [`contains`](Self::contains) accepts and
    /// [`keys`](Self::keys) lists. The denominator of MAP-coverage.
    ///
    /// Equal to [`paper_tc`](Self::paper_tc) when at most one variable is accessed; with
    /// more, patterns 9–17 count each ordered pair of variables (see the module docs).
    pub(crate) fn size(&self) -> u64 {
        self.sizes().into_iter().fold(0, u64::saturating_add)
    }

    /// The paper's `T_C` formula as printed: patterns 9–17 counted once per unordered pair
    /// of variables, i.e. half their number of keys.
    #[cfg(test)]
    pub(crate) fn paper_tc(&self) -> u64 {
        PatternId::all()
            .map(|id| {
                let size = self.size_of(id);
                if id.has_two_vars() {
                    size / 2
                } else {
                    size
                }
            })
            .fold(0, u64::saturating_add)
    }

    /// Whether `key` is feasible: each step's site reads (or writes, as the pattern says)
    /// the step's variable.
    pub(crate) fn contains(&self, key: &PatternKey) -> bool {
        key.shaped_steps()
            .all(|(s, sv)| self.sites(sv.var, s.kind).binary_search(&sv.site).is_ok())
    }

    /// The feasible keys of pattern `id`, lazily, in order.
    pub(crate) fn keys_of(&self, id: PatternId) -> impl Iterator<Item = PatternKey> + '_ {
        self.assignments(id)
            .into_iter()
            .flat_map(move |xy| Product::new(self, id, xy))
    }

    /// All feasible keys, lazily, by pattern then variables then sites.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> impl Iterator<Item = PatternKey> + '_ {
        PatternId::all().flat_map(move |id| self.keys_of(id))
    }
}

/// The keys of one pattern under one variable assignment: the Cartesian product of the
/// site lists of its steps, last step fastest.
struct Product<'a> {
    /// The pattern.
    id: PatternId,
    /// The variable of each step.
    vars: [u32; 4],
    /// The candidate sites of each step.
    lists: [&'a [u32]; 4],
    /// The index in `lists` of each step's site in the next key.
    next: [usize; 4],
    /// All keys have been produced.
    done: bool,
}

impl<'a> Product<'a> {
    /// The keys of `id` with `(x, y) = xy`.
    fn new(universe: &'a Universe, id: PatternId, xy: (u32, u32)) -> Self {
        let (vars, lists) = universe.step_lists(id, xy);
        let done = lists[..id.shape().len()].iter().any(|l| l.is_empty());
        Product {
            id,
            vars,
            lists,
            next: [0; 4],
            done,
        }
    }
}

impl Iterator for Product<'_> {
    type Item = PatternKey;

    fn next(&mut self) -> Option<PatternKey> {
        if self.done {
            return None;
        }
        let n = self.id.shape().len();
        let mut steps = [SiteVar::default(); 4];
        for (i, step) in steps[..n].iter_mut().enumerate() {
            *step = SiteVar {
                site: self.lists[i][self.next[i]],
                var: self.vars[i],
            };
        }
        self.done = true;
        for i in (0..n).rev() {
            self.next[i] += 1;
            if self.next[i] < self.lists[i].len() {
                self.done = false;
                break;
            }
            self.next[i] = 0;
        }
        Some(PatternKey { id: self.id, steps })
    }
}

/// The keys covered by a set of executions (Definition 1).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Coverage {
    /// The covered keys.
    covered: BTreeSet<PatternKey>,
}

impl Coverage {
    /// Nothing covered.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Adds the patterns of one execution. Returns how many keys were new.
    pub(crate) fn add_execution(&mut self, execution: &[Access]) -> usize {
        self.add_keys(patterns(execution))
    }

    /// Adds keys found otherwise (e.g. by a [`Matcher`]). Returns how many were new.
    pub(crate) fn add_keys(&mut self, keys: impl IntoIterator<Item = PatternKey>) -> usize {
        keys.into_iter().filter(|k| self.covered.insert(*k)).count()
    }

    /// Whether `key` is covered.
    pub(crate) fn is_covered(&self, key: &PatternKey) -> bool {
        self.covered.contains(key)
    }

    /// The covered keys, in order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &PatternKey> + '_ {
        self.covered.iter()
    }

    /// How many keys are covered.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.covered.len()
    }

    /// Whether nothing is covered.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.covered.is_empty()
    }

    /// How many covered keys are in `universe` (the numerator of MAP-coverage; keys outside
    /// it can exist when the universe was estimated from other sites than the executions').
    pub(crate) fn covered_in(&self, universe: &Universe) -> u64 {
        self.covered.iter().filter(|k| universe.contains(k)).count() as u64
    }

    /// MAP-coverage: covered feasible keys / feasible keys; `None` if the universe is empty.
    #[cfg(test)]
    pub(crate) fn ratio(&self, universe: &Universe) -> Option<f64> {
        let size = universe.size();
        (size > 0).then(|| self.covered_in(universe) as f64 / size as f64)
    }

    /// Covered keys per pattern; index `i` is pattern `i + 1`.
    #[cfg(test)]
    pub(crate) fn per_pattern(&self) -> [u64; PatternId::COUNT] {
        let mut counts = [0; PatternId::COUNT];
        for key in &self.covered {
            counts[key.id().index()] += 1;
        }
        counts
    }

    /// Up to `limit` feasible keys not covered yet, those involving the most distinct sites
    /// first (ties in [`Universe::keys`] order, longer patterns first).
    ///
    /// Lazy: it stops as soon as no key left to enumerate can involve more distinct sites
    /// than the `limit` kept so far, so it usually looks at few keys; in the worst case
    /// (nearly everything covered) it walks the whole universe.
    pub(crate) fn uncovered(&self, universe: &Universe, limit: usize) -> Vec<PatternKey> {
        // kept[d - 1]: uncovered keys with d distinct sites.
        let mut kept: [Vec<PatternKey>; 4] = Default::default();
        // Patterns by length, longest first: a key has at most as many distinct sites as
        // steps.
        let mut ids: Vec<PatternId> = PatternId::all().collect();
        ids.sort_by_key(|id| std::cmp::Reverse(id.shape().len()));
        let enough = |kept: &[Vec<PatternKey>; 4], at_least: usize| {
            kept[at_least - 1..].iter().map(Vec::len).sum::<usize>() >= limit
        };
        'ids: for id in ids {
            let len = id.shape().len();
            if enough(&kept, len) {
                break;
            }
            for key in universe.keys_of(id) {
                if self.covered.contains(&key) {
                    continue;
                }
                let slot = &mut kept[key.distinct_sites() - 1];
                if slot.len() < limit {
                    slot.push(key);
                }
                if enough(&kept, len) {
                    break 'ids;
                }
            }
        }
        kept.into_iter().rev().flatten().take(limit).collect()
    }
}

/// Method-pair coverage (CovCon, Choudhary et al., ICSE 2017): which pairs of methods have
/// run concurrently, and how often. Pairs are unordered; a method paired with itself counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PairCoverage {
    /// Runs per pair `(m1, m2)`, `m1 <= m2`.
    counts: BTreeMap<(usize, usize), u64>,
}

/// The pair as stored: smaller method first.
fn unordered(m1: usize, m2: usize) -> (usize, usize) {
    (m1.min(m2), m1.max(m2))
}

impl PairCoverage {
    /// Nothing covered.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Records that methods `m1` and `m2` ran concurrently. Returns whether the pair was
    /// new.
    pub(crate) fn record(&mut self, m1: usize, m2: usize) -> bool {
        let count = self.counts.entry(unordered(m1, m2)).or_insert(0);
        *count += 1;
        *count == 1
    }

    /// How many times the pair ran concurrently.
    pub(crate) fn count(&self, m1: usize, m2: usize) -> u64 {
        self.counts.get(&unordered(m1, m2)).copied().unwrap_or(0)
    }

    /// How many distinct pairs have run.
    pub(crate) fn covered(&self) -> usize {
        self.counts.len()
    }

    /// The number of pairs of `methods` methods: `n·(n+1)/2`.
    pub(crate) fn total(methods: usize) -> u64 {
        let n = methods as u64;
        n * (n + 1) / 2
    }

    /// Covered pairs among methods `0..methods` / all pairs; `None` without methods.
    #[cfg(test)]
    pub(crate) fn ratio(&self, methods: usize) -> Option<f64> {
        let covered = self.counts.keys().filter(|&&(_, m2)| m2 < methods).count();
        let total = Self::total(methods);
        (total > 0).then(|| covered as f64 / total as f64)
    }
}

/// The accesses of one sequential run of a method, in order: `(site, var, kind)`.
pub(crate) type MethodTrace = (usize, Vec<(u32, u32, Kind)>);

/// The patterns one call with trace `a` (role `a`) and one with trace `b` (role `b`) can
/// form when run concurrently: every choice of role-`a` steps in order from `a` and role-`b`
/// steps in order from `b` that fits a shape (any such choice is realized by some
/// interleaving of the two calls). Those with the most distinct sites first.
pub(crate) fn pair_keys(a: &[(u32, u32, Kind)], b: &[(u32, u32, Kind)]) -> Vec<PatternKey> {
    fn go(
        id: PatternId,
        traces: [&[(u32, u32, Kind)]; 2],
        at: usize,
        next: [usize; 2],
        steps: &mut Vec<SiteVar>,
        out: &mut BTreeSet<PatternKey>,
    ) {
        let shape = id.shape();
        if at == shape.len() {
            if let Some(k) = PatternKey::new(id, steps) {
                out.insert(k);
            }
            return;
        }
        let role = match shape[at].role {
            Role::A => 0,
            Role::B => 1,
        };
        for i in next[role]..traces[role].len() {
            let (site, var, kind) = traces[role][i];
            if kind != shape[at].kind {
                continue;
            }
            let mut n = next;
            n[role] = i + 1;
            steps.push(SiteVar { site, var });
            go(id, traces, at + 1, n, steps, out);
            steps.pop();
        }
    }
    let mut out = BTreeSet::new();
    for id in PatternId::all() {
        go(id, [a, b], 0, [0, 0], &mut Vec::with_capacity(4), &mut out);
    }
    let mut keys: Vec<PatternKey> = out.into_iter().collect();
    keys.sort_by_key(|k| std::cmp::Reverse(k.distinct_sites()));
    keys
}

/// How many of `wanted`, from the start, occur in order (not necessarily adjacent) in
/// `trace`.
fn prefix_in(wanted: &[(u32, u32, Kind)], trace: &[(u32, u32, Kind)]) -> usize {
    let mut matched = 0;
    for access in trace {
        if matched < wanted.len() && *access == wanted[matched] {
            matched += 1;
        }
    }
    matched
}

/// The fewest calls, in order, with which one thread performs the steps of `role` in `key`
/// (the paper's up-to-4-method sequences, for patterns no single call covers, e.g. a write
/// then a read by `a` in different methods); `None` if some step is in no method's trace.
///
/// Greedy: each call is the method whose trace covers the longest run of the remaining
/// steps (the first such method on ties), which is optimal since any part of a coverable
/// run is coverable.
pub(crate) fn role_calls(
    key: &PatternKey,
    role: Role,
    methods: &[MethodTrace],
) -> Option<Vec<usize>> {
    let wanted = key.role_steps(role);
    let mut calls = Vec::new();
    let mut done = 0;
    while done < wanted.len() {
        let mut best: Option<(usize, usize)> = None;
        for (m, trace) in methods {
            let reach = prefix_in(&wanted[done..], trace);
            if reach > 0 && best.map_or(true, |(_, r)| reach > r) {
                best = Some((*m, reach));
            }
        }
        let (m, reach) = best?;
        calls.push(m);
        done += reach;
    }
    Some(calls)
}

/// A partial match of the guide's target: `len` steps matched, with the threads bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct GuideState {
    /// How many steps of the target are matched.
    len: usize,
    /// The thread of role `a`, once it has a step.
    a: Option<usize>,
    /// The thread of role `b`, once it has a step.
    b: Option<usize>,
}

/// Steers a controlled run towards one target pattern (Algorithm 5): it follows the steps
/// taken and says which thread's next step extends a partial match of the target, so the
/// scheduler can eagerly run that thread (and pick at random when it says `None`).
#[derive(Clone, Debug)]
pub(crate) struct Guide {
    /// The pattern instance wanted.
    target: PatternKey,
    /// Every distinct partial match so far, including the empty one.
    states: Vec<GuideState>,
    /// The target has been matched completely.
    covered: bool,
}

impl Guide {
    /// A guide towards `target`, before any step.
    pub(crate) fn new(target: PatternKey) -> Self {
        Guide {
            target,
            states: vec![GuideState {
                len: 0,
                a: None,
                b: None,
            }],
            covered: false,
        }
    }

    /// The target.
    pub(crate) fn target(&self) -> &PatternKey {
        &self.target
    }

    /// Whether the steps so far contain the target.
    pub(crate) fn is_covered(&self) -> bool {
        self.covered
    }

    /// The partial match `state` extended by `e`, if `e` is its next step.
    fn advance(&self, state: &GuideState, e: &Access) -> Option<GuideState> {
        let (shape, want) = self.target.shaped_steps().nth(state.len)?;
        if e.site != want.site || e.var != want.var || e.kind != shape.kind {
            return None;
        }
        let mut next = GuideState {
            len: state.len + 1,
            ..*state
        };
        match (shape.role, state.a, state.b) {
            (Role::A, None, _) => next.a = Some(e.thread),
            (Role::A, Some(a), _) if a == e.thread => {}
            (Role::B, Some(a), None) if a != e.thread => next.b = Some(e.thread),
            (Role::B, _, Some(b)) if b == e.thread => {}
            _ => return None,
        }
        Some(next)
    }

    /// Follows one step of the run.
    pub(crate) fn observe(&mut self, e: &Access) {
        let full = self.target.steps().len();
        let grown: Vec<GuideState> = self
            .states
            .iter()
            .filter_map(|s| self.advance(s, e))
            .collect();
        for s in grown {
            if s.len == full {
                self.covered = true;
            } else if !self.states.contains(&s) {
                self.states.push(s);
            }
        }
    }

    /// Of the runnable threads' next steps, the thread whose step makes the most progress:
    /// it extends the longest partial match of the target into one not seen yet (the first
    /// candidate on ties). `None` once the target is covered or if no step helps.
    pub(crate) fn choose(&self, next: &[Access]) -> Option<usize> {
        if self.covered {
            return None;
        }
        let full = self.target.steps().len();
        let mut best: Option<(usize, usize)> = None;
        for c in next {
            for s in &self.states {
                let Some(grown) = self.advance(s, c) else {
                    continue;
                };
                let progress = grown.len == full || !self.states.contains(&grown);
                if progress && best.map_or(true, |(len, _)| grown.len > len) {
                    best = Some((grown.len, c.thread));
                }
            }
        }
        best.map(|(_, thread)| thread)
    }
}

/// [`Guide::choose`] after the steps `so_far`: which of the candidate next steps (one per
/// runnable thread) extends a partial match of `target`.
#[cfg(test)]
pub(crate) fn next_thread(
    target: &PatternKey,
    so_far: &[Access],
    next: &[Access],
) -> Option<usize> {
    let mut guide = Guide::new(*target);
    for e in so_far {
        guide.observe(e);
    }
    guide.choose(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    const X: u32 = 10;
    const Y: u32 = 20;

    fn r(thread: usize, site: u32, var: u32) -> Access {
        Access::read(thread, site, var)
    }

    fn w(thread: usize, site: u32, var: u32) -> Access {
        Access::write(thread, site, var)
    }

    fn key(id: u8, steps: &[(u32, u32)]) -> PatternKey {
        let steps: Vec<SiteVar> = steps
            .iter()
            .map(|&(site, var)| SiteVar { site, var })
            .collect();
        PatternKey::new(PatternId::new(id).unwrap(), &steps).expect("a well-formed key")
    }

    fn ids(keys: &BTreeSet<PatternKey>) -> BTreeSet<u8> {
        keys.iter().map(|k| k.id().get()).collect()
    }

    /// Every instance by brute force over all subsequences: the reference for [`patterns`].
    fn brute_force(execution: &[Access]) -> BTreeSet<PatternKey> {
        fn go(
            execution: &[Access],
            id: PatternId,
            from: usize,
            chosen: &mut Vec<usize>,
            out: &mut BTreeSet<PatternKey>,
        ) {
            let shape = id.shape();
            if chosen.len() == shape.len() {
                let steps: Vec<Access> = chosen.iter().map(|&i| execution[i]).collect();
                let thread = |role| {
                    let mut threads = shape.iter().zip(&steps).filter(|(s, _)| s.role == role);
                    let first = threads.next().unwrap().1.thread;
                    threads.all(|(_, e)| e.thread == first).then_some(first)
                };
                let (Some(a), Some(b)) = (thread(Role::A), thread(Role::B)) else {
                    return;
                };
                if a == b || shape.iter().zip(&steps).any(|(s, e)| s.kind != e.kind) {
                    return;
                }
                let svs: Vec<SiteVar> = steps
                    .iter()
                    .map(|e| SiteVar {
                        site: e.site,
                        var: e.var,
                    })
                    .collect();
                if let Some(k) = PatternKey::new(id, &svs) {
                    out.insert(k);
                }
                return;
            }
            for i in from..execution.len() {
                chosen.push(i);
                go(execution, id, i + 1, chosen, out);
                chosen.pop();
            }
        }
        let mut out = BTreeSet::new();
        for id in PatternId::all() {
            go(execution, id, 0, &mut Vec::new(), &mut out);
        }
        out
    }

    /// A small deterministic generator (xorshift64).
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// `sites` sites, site `s` on variable `s % vars`, reading when `s / vars` is odd; each
    /// step a random thread at a random site.
    fn random_execution(
        seed: u64,
        steps: usize,
        threads: u64,
        sites: u32,
        vars: u32,
    ) -> Vec<Access> {
        let mut rng = Rng(seed);
        (0..steps)
            .map(|_| {
                let thread = rng.below(threads) as usize;
                let site = rng.below(u64::from(sites)) as u32;
                let var = site % vars;
                if (site / vars) % 2 == 1 {
                    r(thread, site, var)
                } else {
                    w(thread, site, var)
                }
            })
            .collect()
    }

    #[test]
    fn table_shapes() {
        let lens: Vec<usize> = PatternId::all().map(|id| id.shape().len()).collect();
        assert_eq!(lens, [2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4]);
        for id in PatternId::all() {
            let shape = id.shape();
            assert_eq!(
                (shape[0].role, shape[0].var),
                (Role::A, VarRole::X),
                "{id:?}"
            );
            assert_eq!(shape[1].role, Role::B, "{id:?}");
            assert_eq!(id.has_two_vars(), id.get() >= 9, "{id:?}");
        }
        assert_eq!(PatternId::new(0), None);
        assert_eq!(PatternId::new(18), None);
    }

    /// For each pattern: an execution that contains it (exactly those steps) and a near
    /// miss that contains no instance of it.
    #[test]
    fn each_pattern_and_a_near_miss() {
        type Case = (u8, Vec<Access>, Vec<(u32, u32)>, Vec<Access>);
        let cases: Vec<Case> = vec![
            // 1: a R x, b W x. Near miss: the other order.
            (
                1,
                vec![r(1, 1, X), w(2, 2, X)],
                vec![(1, X), (2, X)],
                vec![w(2, 2, X), r(1, 1, X)],
            ),
            // 2: a W x, b R x. Near miss: one thread.
            (
                2,
                vec![w(1, 1, X), r(2, 2, X)],
                vec![(1, X), (2, X)],
                vec![w(1, 1, X), r(1, 2, X)],
            ),
            // 3: a W x, b W x. Near miss: different variables.
            (
                3,
                vec![w(1, 1, X), w(2, 2, X)],
                vec![(1, X), (2, X)],
                vec![w(1, 1, X), w(2, 2, Y)],
            ),
            // 4: a R x, b W x, a R x. Near miss: the second read on a third thread.
            (
                4,
                vec![r(1, 1, X), w(2, 2, X), r(1, 3, X)],
                vec![(1, X), (2, X), (3, X)],
                vec![r(1, 1, X), w(2, 2, X), r(3, 3, X)],
            ),
            // 5: a W x, b W x, a R x. Near miss: a's read before b's write.
            (
                5,
                vec![w(1, 1, X), w(2, 2, X), r(1, 3, X)],
                vec![(1, X), (2, X), (3, X)],
                vec![w(1, 1, X), r(1, 3, X), w(2, 2, X)],
            ),
            // 6: a W x, b R x, a W x. Near miss: the last write by b.
            (
                6,
                vec![w(1, 1, X), r(2, 2, X), w(1, 3, X)],
                vec![(1, X), (2, X), (3, X)],
                vec![w(1, 1, X), r(2, 2, X), w(2, 3, X)],
            ),
            // 7: a R x, b W x, a W x. Near miss: b reads.
            (
                7,
                vec![r(1, 1, X), w(2, 2, X), w(1, 3, X)],
                vec![(1, X), (2, X), (3, X)],
                vec![r(1, 1, X), r(2, 2, X), w(1, 3, X)],
            ),
            // 8: a W x, b W x, a W x. Near miss: the last write on another variable.
            (
                8,
                vec![w(1, 1, X), w(2, 2, X), w(1, 3, X)],
                vec![(1, X), (2, X), (3, X)],
                vec![w(1, 1, X), w(2, 2, X), w(1, 3, Y)],
            ),
            // 9: a W x, b W x, b W y, a W y. Near miss: the two writes of y swapped.
            (
                9,
                vec![w(1, 1, X), w(2, 2, X), w(2, 3, Y), w(1, 4, Y)],
                vec![(1, X), (2, X), (3, Y), (4, Y)],
                vec![w(1, 1, X), w(2, 2, X), w(1, 4, Y), w(2, 3, Y)],
            ),
            // 10: a W x, b W y, b W x, a W y. Near miss: a's last write on x.
            (
                10,
                vec![w(1, 1, X), w(2, 2, Y), w(2, 3, X), w(1, 4, Y)],
                vec![(1, X), (2, Y), (3, X), (4, Y)],
                vec![w(1, 1, X), w(2, 2, Y), w(2, 3, X), w(1, 4, X)],
            ),
            // 11: a W x, b W y, a W y, b W x. Near miss: the last write by a.
            (
                11,
                vec![w(1, 1, X), w(2, 2, Y), w(1, 3, Y), w(2, 4, X)],
                vec![(1, X), (2, Y), (3, Y), (4, X)],
                vec![w(1, 1, X), w(2, 2, Y), w(1, 3, Y), w(1, 4, X)],
            ),
            // 12: a W x, b R x, b R y, a W y. Near miss: the read of y by a.
            (
                12,
                vec![w(1, 1, X), r(2, 2, X), r(2, 3, Y), w(1, 4, Y)],
                vec![(1, X), (2, X), (3, Y), (4, Y)],
                vec![w(1, 1, X), r(2, 2, X), r(1, 3, Y), w(1, 4, Y)],
            ),
            // 13: a W x, b R y, b R x, a W y. Near miss: a reads y at the end.
            (
                13,
                vec![w(1, 1, X), r(2, 2, Y), r(2, 3, X), w(1, 4, Y)],
                vec![(1, X), (2, Y), (3, X), (4, Y)],
                vec![w(1, 1, X), r(2, 2, Y), r(2, 3, X), r(1, 4, Y)],
            ),
            // 14: a R x, b W x, b W y, a R y. Near miss: a's read of y before b's write.
            (
                14,
                vec![r(1, 1, X), w(2, 2, X), w(2, 3, Y), r(1, 4, Y)],
                vec![(1, X), (2, X), (3, Y), (4, Y)],
                vec![r(1, 1, X), w(2, 2, X), r(1, 4, Y), w(2, 3, Y)],
            ),
            // 15: a R x, b W y, b W x, a R y. Near miss: the read of y on a third thread.
            (
                15,
                vec![r(1, 1, X), w(2, 2, Y), w(2, 3, X), r(1, 4, Y)],
                vec![(1, X), (2, Y), (3, X), (4, Y)],
                vec![r(1, 1, X), w(2, 2, Y), w(2, 3, X), r(3, 4, Y)],
            ),
            // 16: a R x, b W y, a R y, b W x. Near miss: b's write of x first.
            (
                16,
                vec![r(1, 1, X), w(2, 2, Y), r(1, 3, Y), w(2, 4, X)],
                vec![(1, X), (2, Y), (3, Y), (4, X)],
                vec![w(2, 4, X), r(1, 1, X), w(2, 2, Y), r(1, 3, Y)],
            ),
            // 17: a W x, b R y, a W y, b R x. Near miss: b's last read on y.
            (
                17,
                vec![w(1, 1, X), r(2, 2, Y), w(1, 3, Y), r(2, 4, X)],
                vec![(1, X), (2, Y), (3, Y), (4, X)],
                vec![w(1, 1, X), r(2, 2, Y), w(1, 3, Y), r(2, 4, Y)],
            ),
        ];
        assert_eq!(cases.len(), 17);
        for (id, hit, steps, miss) in cases {
            let found = patterns(&hit);
            assert!(found.contains(&key(id, &steps)), "pattern {id}: {found:?}");
            assert_eq!(found, brute_force(&hit), "pattern {id}");
            let missed = patterns(&miss);
            assert!(
                !ids(&missed).contains(&id),
                "pattern {id} near miss: {missed:?}"
            );
            assert_eq!(missed, brute_force(&miss), "pattern {id} near miss");
            // One thread for both roles: no pattern at all.
            let one_thread: Vec<Access> = hit.iter().map(|e| Access { thread: 1, ..*e }).collect();
            assert!(patterns(&one_thread).is_empty(), "pattern {id}, one thread");
        }
    }

    #[test]
    fn steps_need_not_be_adjacent() {
        // Pattern 4 on x, with unrelated steps (another variable, a third thread) between.
        let execution = [
            r(1, 1, X),
            w(3, 7, Y),
            r(2, 8, Y),
            w(2, 2, X),
            w(3, 7, Y),
            r(1, 3, X),
        ];
        assert!(patterns(&execution).contains(&key(4, &[(1, X), (2, X), (3, X)])));
    }

    #[test]
    fn thread_ids_do_not_matter() {
        let execution = random_execution(7, 40, 2, 6, 2);
        let swapped: Vec<Access> = execution
            .iter()
            .map(|e| Access {
                thread: 1 - e.thread,
                ..*e
            })
            .collect();
        let renamed: Vec<Access> = execution
            .iter()
            .map(|e| Access {
                thread: [42, 7][e.thread],
                ..*e
            })
            .collect();
        let found = patterns(&execution);
        assert!(!found.is_empty());
        assert_eq!(patterns(&swapped), found);
        assert_eq!(patterns(&renamed), found);
        // Two instances differing only by threads have one key.
        let twice = [r(1, 1, X), w(2, 2, X), r(3, 1, X), w(4, 2, X)];
        assert_eq!(patterns(&twice[..2]), patterns(&twice[2..]));
        let one = key(1, &[(1, X), (2, X)]);
        assert!(patterns(&twice).contains(&one));
    }

    #[test]
    fn matches_brute_force_on_random_executions() {
        let mut seen = BTreeSet::new();
        for seed in 1..31 {
            let execution = random_execution(seed * 7919, 20, 3, 5, 2);
            let found = patterns(&execution);
            assert_eq!(found, brute_force(&execution), "seed {seed}");
            seen.extend(ids(&found));
        }
        assert_eq!(seen.len(), 17, "every pattern occurs in some execution");
    }

    #[test]
    fn matcher_counts_new_keys_as_it_goes() {
        let execution = random_execution(3, 60, 3, 6, 2);
        let mut matcher = Matcher::new();
        let mut total = 0;
        for e in &execution {
            total += matcher.push(e);
        }
        assert_eq!(total, matcher.len());
        assert_eq!(matcher.into_keys(), patterns(&execution));
    }

    /// The worked example of §III.B (Fig. 1–3): variable `th` read at lines 4 and 5, written
    /// at line 9.
    #[test]
    fn worked_example_of_the_paper() {
        const TH: u32 = 0;
        let mut universe = Universe::new();
        universe.add_site(TH, 4, Kind::Read);
        universe.add_site(TH, 5, Kind::Read);
        universe.add_site(TH, 9, Kind::Write);
        assert!(!universe.add_site(TH, 9, Kind::Write));
        // 2·2·1 + 1² + 2²·1 + 3·2·1² + 1³
        assert_eq!(universe.paper_tc(), 16);
        assert_eq!(universe.size(), 16);
        assert_eq!(
            universe.sizes(),
            [2, 2, 1, 4, 2, 2, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(universe.keys().count(), 16);
        // Algorithm 3's list for the example is part of the universe.
        for k in [
            key(1, &[(4, TH), (9, TH)]),
            key(1, &[(5, TH), (9, TH)]),
            key(2, &[(9, TH), (4, TH)]),
            key(2, &[(9, TH), (5, TH)]),
            key(4, &[(4, TH), (9, TH), (5, TH)]),
            key(4, &[(5, TH), (9, TH), (4, TH)]),
            key(5, &[(9, TH), (9, TH), (4, TH)]),
        ] {
            assert!(universe.contains(&k), "{k}");
        }
        assert!(!universe.contains(&key(3, &[(4, TH), (9, TH)])));

        // Fig. 2(b): t1 reads th at s4, t2 writes it at s9, t1 reads it at s5.
        let execution = [r(1, 4, TH), w(2, 9, TH), r(1, 5, TH)];
        let mut coverage = Coverage::new();
        assert_eq!(coverage.add_execution(&execution), 3);
        assert_eq!(coverage.add_execution(&execution), 0);
        let covered: Vec<PatternKey> = coverage.keys().copied().collect();
        // Fig. 3.
        assert_eq!(
            covered,
            [
                key(1, &[(4, TH), (9, TH)]),
                key(2, &[(9, TH), (5, TH)]),
                key(4, &[(4, TH), (9, TH), (5, TH)]),
            ]
        );
        assert_eq!(coverage.covered_in(&universe), 3);
        assert_eq!(coverage.ratio(&universe), Some(0.1875));
        let mut per_pattern = [0; 17];
        per_pattern[0] = 1;
        per_pattern[1] = 1;
        per_pattern[3] = 1;
        assert_eq!(coverage.per_pattern(), per_pattern);

        // Uncovered, most distinct sites first: the only 3-site key left is s5, s9, s4.
        assert_eq!(
            coverage.uncovered(&universe, 1),
            [key(4, &[(5, TH), (9, TH), (4, TH)])]
        );
        let uncovered = coverage.uncovered(&universe, 100);
        assert_eq!(uncovered.len(), 13);
        assert!(uncovered
            .iter()
            .all(|k| universe.contains(k) && !coverage.is_covered(k)));
        let sites: Vec<usize> = uncovered.iter().map(PatternKey::distinct_sites).collect();
        assert!(sites.windows(2).all(|w| w[0] >= w[1]), "{sites:?}");
        assert_eq!(sites.iter().filter(|&&d| d == 1).count(), 2); // P3 s9,s9 and P8
        assert_eq!(
            key(4, &[(4, TH), (9, TH), (5, TH)]).to_string(),
            "P4[a R s4@v0, b W s9@v0, a R s5@v0]"
        );
    }

    /// The paper's formula counts patterns 9–17 once per unordered pair of variables, but
    /// both orders of the pair occur as distinct instances.
    #[test]
    fn both_orientations_of_a_pair_are_distinct() {
        let execution = [
            w(1, 1, X),
            w(2, 1, X),
            w(2, 2, Y),
            w(1, 2, Y),
            w(2, 2, Y),
            w(2, 1, X),
            w(1, 1, X),
        ];
        let nine: Vec<PatternKey> = patterns(&execution)
            .into_iter()
            .filter(|k| k.id().get() == 9)
            .collect();
        assert_eq!(
            nine,
            [
                key(9, &[(1, X), (1, X), (2, Y), (2, Y)]),
                key(9, &[(2, Y), (2, Y), (1, X), (1, X)]),
            ]
        );
        let mut universe = Universe::new();
        universe.add_accesses(&execution);
        let nine_id = PatternId::new(9).unwrap();
        assert_eq!(universe.size_of(nine_id), 2);
        // Patterns 3 and 8 on each variable (1 each), and 9–11 with one write site per
        // variable: 3·1²·1² per unordered pair, 6 keys.
        assert_eq!(universe.paper_tc(), 2 * 2 + 3);
        assert_eq!(universe.size(), 2 * 2 + 6);
    }

    #[test]
    fn universe_size_counts_its_keys() {
        let mut universe = Universe::new();
        universe.add_accesses(&random_execution(11, 200, 2, 9, 3));
        let keys: BTreeSet<PatternKey> = universe.keys().collect();
        assert_eq!(keys.len() as u64, universe.size());
        assert_eq!(universe.keys().count() as u64, universe.size());
        for id in PatternId::all() {
            assert_eq!(
                universe.keys_of(id).count() as u64,
                universe.size_of(id),
                "{id:?}"
            );
        }
        assert!(keys.iter().all(|k| universe.contains(k)));
        let two_var: u64 = PatternId::all()
            .filter(|id| id.has_two_vars())
            .map(|id| universe.size_of(id))
            .sum();
        assert!(two_var > 0);
        assert_eq!(universe.paper_tc(), universe.size() - two_var / 2);
        assert_eq!(Universe::new().size(), 0);
        assert_eq!(Coverage::new().ratio(&Universe::new()), None);
    }

    #[test]
    fn two_thousand_steps() {
        let execution = random_execution(2019, 2000, 3, 20, 3);
        let mut universe = Universe::new();
        universe.add_accesses(&execution);
        let found = patterns(&execution);
        assert!(found.iter().all(|k| universe.contains(k)));
        // A long random run over few sites covers every feasible pattern.
        assert_eq!(found.len() as u64, universe.size());
        let mut coverage = Coverage::new();
        coverage.add_keys(found);
        assert_eq!(coverage.ratio(&universe), Some(1.0));
        assert!(coverage.uncovered(&universe, 10).is_empty());
    }

    #[test]
    fn uncovered_stops_early_and_prefers_distinct_sites() {
        let mut universe = Universe::new();
        for site in 0..30 {
            universe.add_site(
                site % 3,
                site,
                if site % 2 == 0 {
                    Kind::Write
                } else {
                    Kind::Read
                },
            );
        }
        assert!(universe.size() > 30_000, "{}", universe.size());
        let uncovered = Coverage::new().uncovered(&universe, 5);
        assert_eq!(uncovered.len(), 5);
        assert!(uncovered.iter().all(|k| k.distinct_sites() == 4));
    }

    #[test]
    fn pair_coverage() {
        let mut pairs = PairCoverage::new();
        assert!(pairs.record(0, 1));
        assert!(!pairs.record(1, 0));
        assert!(pairs.record(2, 2));
        assert_eq!(pairs.count(1, 0), 2);
        assert_eq!(pairs.count(0, 2), 0);
        assert_eq!(pairs.covered(), 2);
        assert_eq!(PairCoverage::total(3), 6);
        assert_eq!(PairCoverage::total(0), 0);
        assert_eq!(pairs.ratio(3), Some(2.0 / 6.0));
        assert_eq!(pairs.ratio(2), Some(1.0 / 3.0));
        assert_eq!(pairs.ratio(0), None);
    }

    /// Fig. 1: method 0 (`isAsSevereAsThreshold`) reads th at s4 then s5; method 1
    /// (`setThreshold`) writes it at s9.
    fn fig1_methods() -> Vec<MethodTrace> {
        vec![
            (0, vec![(4, 0, Kind::Read), (5, 0, Kind::Read)]),
            (1, vec![(9, 0, Kind::Write)]),
        ]
    }

    #[test]
    fn methods_that_can_cover_a_pattern() {
        let methods = fig1_methods();
        // The (a's method, b's method) pairs whose single calls can cover `key`.
        let method_pairs = |key: &PatternKey, methods: &[MethodTrace]| {
            let mut out = Vec::new();
            for (ma, ta) in methods {
                for (mb, tb) in methods {
                    if pair_keys(ta, tb).contains(key) {
                        out.push((*ma, *mb));
                    }
                }
            }
            out
        };
        assert_eq!(method_pairs(&key(1, &[(4, 0), (9, 0)]), &methods), [(0, 1)]);
        assert_eq!(
            method_pairs(&key(4, &[(4, 0), (9, 0), (5, 0)]), &methods),
            [(0, 1)]
        );
        assert_eq!(method_pairs(&key(3, &[(9, 0), (9, 0)]), &methods), [(1, 1)]);
        // a reads at s5 then s4: not in that order in one call.
        let backwards = key(4, &[(5, 0), (9, 0), (4, 0)]);
        assert!(method_pairs(&backwards, &methods).is_empty());
        assert_eq!(role_calls(&backwards, Role::A, &methods), Some(vec![0, 0]));
        // a writes then reads: two calls, as in the paper's Algorithm 4.
        let five = key(5, &[(9, 0), (9, 0), (4, 0)]);
        assert!(method_pairs(&five, &methods).is_empty());
        assert_eq!(role_calls(&five, Role::A, &methods), Some(vec![1, 0]));
        assert_eq!(role_calls(&five, Role::B, &methods), Some(vec![1]));
        assert_eq!(
            role_calls(&key(4, &[(4, 0), (9, 0), (5, 0)]), Role::A, &methods),
            Some(vec![0])
        );
        // A site no method touches.
        assert_eq!(
            role_calls(&key(1, &[(6, 0), (9, 0)]), Role::A, &methods),
            None
        );
    }

    #[test]
    fn guide_schedules_the_pattern_of_the_paper() {
        let target = key(4, &[(4, 0), (9, 0), (5, 0)]);
        let t1_s4 = r(1, 4, 0);
        let t1_s5 = r(1, 5, 0);
        let t2_s9 = w(2, 9, 0);
        // At the start, t1's read at s4 begins the pattern.
        assert_eq!(next_thread(&target, &[], &[t2_s9, t1_s4]), Some(1));
        // After t1 read at s4: t2 must write before t1 reads again (§IV).
        assert_eq!(next_thread(&target, &[t1_s4], &[t1_s5, t2_s9]), Some(2));
        assert_eq!(next_thread(&target, &[t1_s4, t2_s9], &[t1_s5]), Some(1));
        // The same thread cannot play b.
        assert_eq!(next_thread(&target, &[t1_s4], &[w(1, 9, 0)]), None);
        // Nothing helps: a step of no interest.
        assert_eq!(next_thread(&target, &[t1_s4], &[r(2, 4, 1)]), None);
        let mut guide = Guide::new(target);
        for e in [t1_s4, t2_s9, t1_s5] {
            assert!(!guide.is_covered());
            guide.observe(&e);
        }
        assert!(guide.is_covered());
        assert_eq!(guide.choose(&[t1_s4, t2_s9]), None);
        assert_eq!(guide.target(), &target);
    }

    #[test]
    fn guide_prefers_the_longest_partial_match() {
        // Pattern 3 (a W x at s1, b W x at s2); t1 already wrote at s1.
        let target = key(3, &[(1, X), (2, X)]);
        // t3 would start a new match at s1; t2 completes the existing one.
        assert_eq!(
            next_thread(&target, &[w(1, 1, X)], &[w(3, 1, X), w(2, 2, X)]),
            Some(2)
        );
        // A step that only repeats an existing partial match is no progress.
        assert_eq!(next_thread(&target, &[w(1, 1, X)], &[w(1, 1, X)]), None);
    }

    #[test]
    fn keys_reject_malformed_steps() {
        let nine = PatternId::new(9).unwrap();
        let sv = |site, var| SiteVar { site, var };
        assert!(PatternKey::new(nine, &[sv(1, X), sv(2, X), sv(3, Y), sv(4, Y)]).is_some());
        // x == y.
        assert!(PatternKey::new(nine, &[sv(1, X), sv(2, X), sv(3, X), sv(4, X)]).is_none());
        // x steps on two variables.
        assert!(PatternKey::new(nine, &[sv(1, X), sv(2, Y), sv(3, Y), sv(4, Y)]).is_none());
        // Wrong length.
        assert!(PatternKey::new(nine, &[sv(1, X), sv(2, X)]).is_none());
        let k = key(12, &[(1, X), (2, X), (3, Y), (4, Y)]);
        assert_eq!(k.vars(), (X, Some(Y)));
        assert_eq!(
            k.role_steps(Role::B),
            [(2, X, Kind::Read), (3, Y, Kind::Read)]
        );
        assert_eq!(key(3, &[(5, X), (5, X)]).distinct_sites(), 1);
        assert_eq!(key(3, &[(5, X), (5, X)]).vars(), (X, None));
    }

    /// Every interleaving of the two threads' accesses (thread 0 = `a`, thread 1 = `b`).
    fn interleavings(a: &[Access], b: &[Access]) -> Vec<Vec<Access>> {
        if a.is_empty() || b.is_empty() {
            return vec![a.iter().chain(b).copied().collect()];
        }
        let mut out = Vec::new();
        for mut rest in interleavings(&a[1..], b) {
            rest.insert(0, a[0]);
            out.push(rest);
        }
        for mut rest in interleavings(a, &b[1..]) {
            rest.insert(0, b[0]);
            out.push(rest);
        }
        out
    }

    #[test]
    fn pair_keys_are_what_some_interleaving_of_the_two_calls_covers() {
        let a = [r(0, 1, X), w(0, 2, Y), r(0, 3, X), w(0, 4, X)];
        let b = [w(1, 5, X), r(1, 6, Y), w(1, 7, Y)];
        let trace = |t: &[Access]| -> Vec<(u32, u32, Kind)> {
            t.iter().map(|e| (e.site, e.var, e.kind)).collect()
        };
        let got: BTreeSet<PatternKey> = pair_keys(&trace(&a), &trace(&b)).into_iter().collect();
        // Role `a` is thread 0's: the brute force keeps the instances whose first step is
        // thread 0's.
        let mut want = BTreeSet::new();
        for run in interleavings(&a, &b) {
            for k in brute_force(&run) {
                let first = run
                    .iter()
                    .find(|e| e.site == k.steps()[0].site && e.var == k.steps()[0].var)
                    .unwrap();
                if first.thread == 0 {
                    want.insert(k);
                }
            }
        }
        assert_eq!(got, want);
        assert!(got.iter().any(|k| k.id().has_two_vars()));
        let sites: Vec<usize> = pair_keys(&trace(&a), &trace(&b))
            .iter()
            .map(PatternKey::distinct_sites)
            .collect();
        assert!(sites.windows(2).all(|w| w[0] >= w[1]), "most sites first");
    }
}
