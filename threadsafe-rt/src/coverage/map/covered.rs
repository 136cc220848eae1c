//! Covered keys (Definition 1) and method-pair coverage (CovCon).

use std::collections::{BTreeMap, BTreeSet};

// Fast, deterministic hashing: matching hashes every partial match of every execution.

use super::*;

/// The keys covered by a set of executions (Definition 1).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct CoveredKeys {
    /// The covered keys.
    covered: BTreeSet<PatternKey>,
}

impl CoveredKeys {
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

    /// How many times the least-run of the pairs that ran did (0: none ran).
    pub(crate) fn least(&self) -> u64 {
        self.counts.values().copied().min().unwrap_or(0)
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
