//! The statistics of runs that may miss: a miss counts as the budget, so a median, a minimum
//! or a maximum that a miss enters is only a lower bound, and [`Estimate`] carries each value
//! with its [`Bound`] through ratios and geometric means.

use std::time::Duration;

use super::units::{ratio_digits, secs};

/// What one check (or one naive stress test) of a buggy subject with one seed came to.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The seed (for the naive test, the run's number).
    pub seed: u64,
    /// The bug was found.
    pub found: bool,
    /// Time to bug in seconds; for a miss, the budget.
    pub seconds: f64,
    /// Generated tests until the bug (the tool; `None` for the naive test or a miss).
    pub tests: Option<u64>,
    /// Concurrent executions until the bug (the tool; `None` for the naive test or a
    /// miss).
    pub executions: Option<u64>,
    /// Why a run that ended otherwise than with nothing found is a miss: a violation not
    /// located in the subject (a wrong find), or a check that could not run.
    pub note: Option<String>,
    /// What a find of the tool saw: `"wrong result"`, `"panic"` or `"deadlock"`; `None` for
    /// a miss or a naive test.
    pub symptom: Option<&'static str>,
    /// Whether a find of the tool came from a controlled execution (`Some(false)`: from
    /// free-running threads); `None` for a miss or a naive test.
    pub controlled: Option<bool>,
}

impl Run {
    /// A find after `seconds`, with the tool's counts if known.
    pub fn found(seed: u64, seconds: f64, tests: Option<u64>, executions: Option<u64>) -> Run {
        Run {
            seed,
            found: true,
            seconds,
            tests,
            executions,
            note: None,
            symptom: None,
            controlled: None,
        }
    }

    /// A miss, counted at `budget`.
    pub fn missed(seed: u64, budget: Duration) -> Run {
        Run {
            seed,
            found: false,
            seconds: budget.as_secs_f64(),
            tests: None,
            executions: None,
            note: None,
            symptom: None,
            controlled: None,
        }
    }
}

/// Which side of the true value an [`Estimate`] is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// No miss involved: the value is the measurement.
    Exact,
    /// A miss counted at the budget is involved: the true value is at least this (`≥`).
    AtLeast,
    /// The value is at most this (`≤`): a ratio whose denominator is a lower bound.
    AtMost,
    /// Bounds in both directions are involved: neither (`~`).
    Unknown,
}

impl Bound {
    /// The bound of a value computed from values with bounds `self` and `other`, both
    /// increasing it (a product, a mean).
    pub fn and(self, other: Bound) -> Bound {
        match (self, other) {
            (a, b) if a == b => a,
            (Bound::Exact, b) => b,
            (a, Bound::Exact) => a,
            _ => Bound::Unknown,
        }
    }

    /// The bound of the reciprocal.
    pub fn flip(self) -> Bound {
        match self {
            Bound::AtLeast => Bound::AtMost,
            Bound::AtMost => Bound::AtLeast,
            b => b,
        }
    }

    /// `""`, `"≥"`, `"≤"` or `"~"`.
    pub fn mark(self) -> &'static str {
        match self {
            Bound::Exact => "",
            Bound::AtLeast => "≥",
            Bound::AtMost => "≤",
            Bound::Unknown => "~",
        }
    }

    /// `"exact"`, `"at_least"`, `"at_most"` or `"unknown"`, for the JSON.
    pub fn name(self) -> &'static str {
        match self {
            Bound::Exact => "exact",
            Bound::AtLeast => "at_least",
            Bound::AtMost => "at_most",
            Bound::Unknown => "unknown",
        }
    }
}

/// A value and how it relates to the true one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The value (seconds, or a ratio).
    pub value: f64,
    /// Which side of the true value it is on.
    pub bound: Bound,
}

impl Estimate {
    /// An exact value.
    pub fn exact(value: f64) -> Estimate {
        Estimate {
            value,
            bound: Bound::Exact,
        }
    }

    /// `self / other`, with the bound that follows (`≥` over exact is `≥`; exact over `≥`
    /// is `≤`; `≥` over `≥` is `~`).
    pub fn ratio(self, other: Estimate) -> Estimate {
        Estimate {
            value: self.value / other.value,
            bound: self.bound.and(other.bound.flip()),
        }
    }

    /// As seconds, marked: `≥10.0 s`.
    pub fn secs(self) -> String {
        format!("{}{}", self.bound.mark(), secs(self.value))
    }

    /// As a ratio, marked: `≥52.1×`.
    pub fn times(self) -> String {
        format!("{}{}×", self.bound.mark(), ratio_digits(self.value))
    }
}

/// The summary of the runs of one subject in one mode.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// Runs.
    pub runs: usize,
    /// Runs that found the bug.
    pub found: usize,
    /// Median time to bug, misses at the budget; a lower bound if a miss is among the
    /// middle values.
    pub median: Estimate,
    /// Shortest time; a lower bound if it is a miss (every run missed).
    pub min: Estimate,
    /// Longest time; a lower bound if any run missed.
    pub max: Estimate,
    /// Median tests to bug over the runs that found it and counted them.
    pub median_tests: Option<f64>,
    /// Median executions to bug over the runs that found it and counted them.
    pub median_executions: Option<f64>,
}

impl Stats {
    /// The summary of `runs`; `None` when there are none.
    pub fn of(runs: &[Run]) -> Option<Stats> {
        let mut v: Vec<(f64, bool)> = runs.iter().map(|r| (r.seconds, !r.found)).collect();
        // Ties: a find before a miss, so a miss is in the middle only if it must be.
        v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let n = v.len();
        if n == 0 {
            return None;
        }
        let middle = if n % 2 == 1 {
            &v[n / 2..=n / 2]
        } else {
            &v[n / 2 - 1..=n / 2]
        };
        let at_least = |missed: bool| {
            if missed {
                Bound::AtLeast
            } else {
                Bound::Exact
            }
        };
        let counts = |f: fn(&Run) -> Option<u64>| {
            let c: Vec<f64> = runs
                .iter()
                .filter(|r| r.found)
                .filter_map(|r| f(r).map(|x| x as f64))
                .collect();
            median(&c)
        };
        Some(Stats {
            runs: n,
            found: runs.iter().filter(|r| r.found).count(),
            median: Estimate {
                value: middle.iter().map(|m| m.0).sum::<f64>() / middle.len() as f64,
                bound: at_least(middle.iter().any(|m| m.1)),
            },
            min: Estimate {
                value: v[0].0,
                bound: at_least(v[0].1),
            },
            max: Estimate {
                value: v[n - 1].0,
                bound: at_least(v.iter().any(|m| m.1)),
            },
            median_tests: counts(|r| r.tests),
            median_executions: counts(|r| r.executions),
        })
    }
}

/// The median of `values` (the mean of the two middle ones for an even count); `None` when
/// empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// The geometric mean of positive estimates, with the bound that follows from theirs;
/// `None` when there are none or one is not positive.
pub fn geomean(values: &[Estimate]) -> Option<Estimate> {
    if values.is_empty()
        || values
            .iter()
            .any(|e| !(e.value > 0.0 && e.value.is_finite()))
    {
        return None;
    }
    let log = values.iter().map(|e| e.value.ln()).sum::<f64>() / values.len() as f64;
    Some(Estimate {
        value: log.exp(),
        bound: values.iter().fold(Bound::Exact, |b, e| b.and(e.bound)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{hit, miss};

    #[test]
    fn stats_without_misses_are_exact() {
        let s = Stats::of(&[hit(2.0), hit(1.0), hit(4.0)]).unwrap();
        assert_eq!((s.found, s.runs), (3, 3));
        assert_eq!(s.median, Estimate::exact(2.0));
        assert_eq!(s.min, Estimate::exact(1.0));
        assert_eq!(s.max, Estimate::exact(4.0));
        assert_eq!(s.median_tests, Some(3.0));
        assert_eq!(s.median_executions, Some(300.0));
        assert_eq!(Stats::of(&[]), None);
    }

    #[test]
    fn a_miss_counts_at_the_budget_and_bounds_what_it_enters() {
        // 1, 2, 10(miss): the median is a find; the max is a lower bound.
        let s = Stats::of(&[hit(1.0), miss(), hit(2.0)]).unwrap();
        assert_eq!(s.found, 2);
        assert_eq!(s.median, Estimate::exact(2.0));
        assert_eq!(s.min, Estimate::exact(1.0));
        assert_eq!(
            s.max,
            Estimate {
                value: 10.0,
                bound: Bound::AtLeast
            }
        );
        // 1, 10(miss): the even median takes the miss in.
        let s = Stats::of(&[hit(1.0), miss()]).unwrap();
        assert_eq!(
            s.median,
            Estimate {
                value: 5.5,
                bound: Bound::AtLeast
            }
        );
        // All misses: everything is a lower bound, and nothing to count.
        let s = Stats::of(&[miss(), miss()]).unwrap();
        assert_eq!(s.min.bound, Bound::AtLeast);
        assert_eq!(s.median.secs(), "≥10.0 s");
        assert_eq!(s.median_tests, None);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }

    #[test]
    fn geometric_means_carry_the_bounds() {
        let g = geomean(&[Estimate::exact(1.0), Estimate::exact(4.0)]).unwrap();
        assert!((g.value - 2.0).abs() < 1e-12);
        assert_eq!(g.bound, Bound::Exact);
        let at_least = Estimate {
            value: 10.0,
            bound: Bound::AtLeast,
        };
        let g = geomean(&[Estimate::exact(0.1), at_least]).unwrap();
        assert!((g.value - 1.0).abs() < 1e-12);
        assert_eq!(g.bound, Bound::AtLeast);
        let at_most = Estimate {
            value: 1.0,
            bound: Bound::AtMost,
        };
        assert_eq!(geomean(&[at_least, at_most]).unwrap().bound, Bound::Unknown);
        assert_eq!(geomean(&[]), None);
        assert_eq!(geomean(&[Estimate::exact(0.0)]), None);
    }

    #[test]
    fn ratios_are_marked_by_which_side_missed() {
        let t = Estimate::exact(0.2);
        let budget = Estimate {
            value: 10.0,
            bound: Bound::AtLeast,
        };
        assert_eq!(Estimate::exact(1.0).ratio(t).times(), "5.00×");
        assert_eq!(budget.ratio(t).times(), "≥50.0×");
        assert_eq!(Estimate::exact(1.0).ratio(budget).times(), "≤0.10×");
        assert_eq!(budget.ratio(budget).times(), "~1.00×");
        assert_eq!(Estimate::exact(2000.0).times(), "2000×");
        assert_eq!(Estimate::exact(0.0042).times(), "0.0042×");
    }
}
