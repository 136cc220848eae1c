//! Algorithm 4: the methods of the next test, chosen by method-pair coverage (guide
//! `pairs`) or by the patterns they can still cover (guide `map`); and Algorithm 5's set of
//! patterns a test can cover.

use std::collections::BTreeSet;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::map::{self, PatternKey, Role};
use super::{Guide, Tracker};

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

impl Tracker {
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
    pub(super) fn least_run_pair(&self, rng: &mut ChaCha8Rng) -> Option<Plan> {
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
    pub(super) fn pair_uncovered(&mut self, a: usize, b: usize) -> &[PatternKey] {
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
    pub(super) fn pattern_plan(&mut self, rng: &mut ChaCha8Rng) -> Option<Plan> {
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
    pub(super) fn call_sequence_plan(&mut self) -> Option<Plan> {
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
}
