//! What bounded exhaustive exploration (`strategy = "dfs"`) covered: the tests whose every
//! schedule within the bound ran, and the ones it could not finish, with why.

use std::fmt;

use crate::strategy::{End, Explored};

/// What the check's explorations covered (`strategy = "dfs"`): a passing check says how many
/// tests were explored to the end, so that the pass is a proof for them, within the bound.
///
/// A schedule is counted as the controlled run sees it: a point is a statement point of the
/// annotated methods or an operation of a `threadsafe_rt::sync` shim; the code between two
/// points (a dependency's, a std lock's) is one step.
///
/// ```
/// let nothing = threadsafe_rt::Exploration::default();
/// assert_eq!(nothing.preemptions, None);
/// assert_eq!(nothing.sampled_tests(), 0);
/// assert_eq!(nothing.to_string(), "", "a check that explored nothing says nothing of it");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Exploration {
    /// The bound on preemptions (`None`: no test was explored).
    pub preemptions: Option<usize>,
    /// Tests whose every schedule within the bound ran.
    pub exhaustive_tests: u64,
    /// The schedules those tests ran.
    pub exhaustive_schedules: u64,
    /// The most scheduling points of one of those schedules.
    pub longest: usize,
    /// Tests with more schedules than the limit per test: explored up to it, then sampled.
    pub over_limit: u64,
    /// Tests that did not make the same choices when given the same schedule (a lock
    /// outside the scheduler, time, a random state): explored, but no proof.
    pub not_deterministic: u64,
    /// Tests with a schedule too long to branch all the way (a wait that spins without
    /// yielding): explored, but no proof.
    pub too_long: u64,
    /// Tests whose exploration stopped at a failure that a sequential order has too (a
    /// batch ends at its first failure).
    pub failed: u64,
    /// Tests whose exploration the check stopped first (its budget, a run cut at the bound
    /// on steps).
    pub stopped: u64,
}

impl Exploration {
    /// Counts one test's exploration; `failed` when its batch ended at a failure.
    pub(crate) fn add(&mut self, e: Explored, failed: bool) {
        self.preemptions = Some(e.bound);
        match e.end {
            End::Exhaustive => {
                self.exhaustive_tests += 1;
                self.exhaustive_schedules += e.schedules as u64;
                self.longest = self.longest.max(e.longest);
            }
            End::Limit => self.over_limit += 1,
            End::NotDeterministic => self.not_deterministic += 1,
            End::TooLong => self.too_long += 1,
            End::Stopped if failed => self.failed += 1,
            End::Stopped => self.stopped += 1,
        }
    }

    /// Adds another hunt's or check's explorations (the hunts of one check are merged so).
    ///
    /// ```
    /// use threadsafe_rt::Exploration;
    ///
    /// let mut all = Exploration::default();
    /// all.merge(&Exploration::default());
    /// assert_eq!(all, Exploration::default());
    /// ```
    pub fn merge(&mut self, other: &Exploration) {
        self.preemptions = self.preemptions.or(other.preemptions);
        self.exhaustive_tests += other.exhaustive_tests;
        self.exhaustive_schedules += other.exhaustive_schedules;
        self.longest = self.longest.max(other.longest);
        self.over_limit += other.over_limit;
        self.not_deterministic += other.not_deterministic;
        self.too_long += other.too_long;
        self.failed += other.failed;
        self.stopped += other.stopped;
    }

    /// Tests explored but not to the end.
    pub fn sampled_tests(&self) -> u64 {
        self.over_limit + self.not_deterministic + self.too_long + self.failed + self.stopped
    }
}

impl fmt::Display for Exploration {
    /// One line, e.g. "explored exhaustively: 812 tests, every schedule with at most 2
    /// preemptions (143220 schedules of up to 37 points); 3 tests sampled (2 over the limit
    /// of schedules, 1 not deterministic)"; nothing when no test was explored.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(k) = self.preemptions else {
            return Ok(());
        };
        write!(
            f,
            "  explored exhaustively: {} tests, every schedule with at most {k} preemption{} ({} schedules of up to {} points)",
            self.exhaustive_tests,
            if k == 1 { "" } else { "s" },
            self.exhaustive_schedules,
            self.longest
        )?;
        let sampled = self.sampled_tests();
        if sampled > 0 {
            let why: Vec<String> = [
                (self.over_limit, "over the limit of schedules per test"),
                (self.not_deterministic, "not deterministic"),
                (self.too_long, "too long to branch all the way"),
                (
                    self.failed,
                    "stopped at a failure a sequential order has too",
                ),
                (self.stopped, "stopped by the check's end"),
            ]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, why)| format!("{n} {why}"))
            .collect();
            write!(f, "; {sampled} tests sampled ({})", why.join(", "))?;
        }
        writeln!(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explored(end: End, schedules: usize, longest: usize) -> Explored {
        Explored {
            bound: 2,
            schedules,
            longest,
            end,
        }
    }

    #[test]
    fn a_pass_states_what_was_explored_to_the_end_and_what_was_not() {
        let mut e = Exploration::default();
        assert_eq!(e.to_string(), "");
        e.add(explored(End::Exhaustive, 40, 12), false);
        e.add(explored(End::Exhaustive, 2, 30), false);
        assert_eq!(
            e.to_string(),
            "  explored exhaustively: 2 tests, every schedule with at most 2 preemptions (42 schedules of up to 30 points)\n"
        );
        let mut other = Exploration::default();
        other.add(explored(End::Limit, 2000, 400), false);
        other.add(explored(End::NotDeterministic, 7, 9), false);
        other.add(explored(End::Stopped, 3, 9), true);
        other.add(explored(End::Stopped, 1, 9), false);
        e.merge(&other);
        assert_eq!(e.sampled_tests(), 4);
        assert_eq!(
            e.to_string(),
            "  explored exhaustively: 2 tests, every schedule with at most 2 preemptions (42 schedules of up to 30 points); 4 tests sampled (1 over the limit of schedules per test, 1 not deterministic, 1 stopped at a failure a sequential order has too, 1 stopped by the check's end)\n"
        );
    }
}
