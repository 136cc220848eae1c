//! MAP-coverage: memory-access patterns (Wang et al., "MAP-CoveredKeys: a novel coverage
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
//! - [`CoveredKeys`]: covered keys and the MAP-coverage ratio (Definition 1).
//! - [`PairCoverage`]: method-pair coverage (CovCon), which MAPTest uses to rank methods.
//! - Guidance: [`pair_keys`], [`role_calls`] (Algorithm 4: which methods can cover a
//!   pattern) and [`Steer`] (Algorithm 5: which thread's next step extends a wanted
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

mod covered;
mod matcher;
mod pairs;
mod pattern;
mod steer;
mod universe;

pub(crate) use covered::{CoveredKeys, PairCoverage};
pub(crate) use matcher::patterns;
pub(crate) use pairs::{pair_keys, role_calls, MethodTrace};
pub(crate) use pattern::{Access, Kind, PatternId, PatternKey, Role, SiteVar, VarRole};
pub(crate) use steer::Steer;
pub(crate) use universe::Universe;

#[cfg(test)]
pub(crate) use matcher::Matcher;
#[cfg(test)]
pub(crate) use steer::next_thread;

#[cfg(test)]
mod tests;
