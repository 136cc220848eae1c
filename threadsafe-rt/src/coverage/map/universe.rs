//! The feasible keys (§III.B, Algorithm 3).

use std::collections::BTreeMap;

// Fast, deterministic hashing: matching hashes every partial match of every execution.

use super::*;

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
