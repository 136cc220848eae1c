//! Algorithm 1: the keys of every pattern instance in an execution.

use std::collections::BTreeSet;

// Fast, deterministic hashing: matching hashes every partial match of every execution.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::*;

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
