//! What the time-to-bug harness measured on a subject: the runs of each mode, the twin's
//! checks, and the guides' runs with the MAP-coverage each reached, the runs of each job
//! count, scheduling mode, strategy and oracle, and beside a busy neighbour; with the names the
//! command line, the tables and the JSON give the settings compared. The tables and the JSON
//! are built on this model; it imports only the statistics.

use threadsafe_rt::{Guide, MapCoverage, ScheduleMode, Strategy};

use super::stats::{median, Run, Stats};

/// Everything measured on one subject.
#[derive(Clone, Debug, PartialEq)]
pub struct SubjectResult {
    /// The paper's identifier (`V1`, `C6`).
    pub id: String,
    /// The short name.
    pub name: String,
    /// The original class and version.
    pub original: String,
    /// The bug kind's name.
    pub bug: String,
    /// The source file of the buggy type.
    pub file: String,
    /// The tool's runs, one per seed.
    pub tool: Vec<Run>,
    /// Paper mode's runs, if that baseline ran.
    pub paper: Option<Vec<Run>>,
    /// The naive test's runs, if that baseline ran.
    pub naive: Option<Vec<Run>>,
    /// Checks of the correct twin.
    pub twin_runs: usize,
    /// Of those, the ones that reported a violation (false positives).
    pub twin_reports: usize,
    /// CPU other processes used while this subject's buggy runs ran, in cores.
    pub other_cpu: Option<f64>,
    /// Each compared guide's runs, in [`GUIDES`]' order; `None` when guides
    /// were not compared.
    pub guides: Option<Vec<GuideResult>>,
    /// Each compared job count's runs, in `--jobs`' order; `None` when job counts were not
    /// compared.
    pub jobs: Option<Vec<Variant>>,
    /// Each compared scheduling mode's runs, in `--schedules`' order; `None` when the modes
    /// were not compared.
    pub schedules: Option<Vec<Variant>>,
    /// Each compared strategy's runs, in `--strategies`' order; `None` when the strategies
    /// were not compared.
    pub strategies: Option<Vec<Variant>>,
    /// The runs under each oracle, results compared first; `None` when the oracles were not
    /// compared.
    pub oracles: Option<Vec<OracleResult>>,
    /// The runs beside a busy neighbour; `None` when there was none (`--beside`).
    pub beside: Option<BesideResult>,
}

impl SubjectResult {
    /// The tool's statistics.
    pub fn tool_stats(&self) -> Option<Stats> {
        Stats::of(&self.tool)
    }

    /// Paper mode's statistics, if it ran.
    pub fn paper_stats(&self) -> Option<Stats> {
        self.paper.as_deref().and_then(Stats::of)
    }

    /// The naive test's statistics, if it ran.
    pub fn naive_stats(&self) -> Option<Stats> {
        self.naive.as_deref().and_then(Stats::of)
    }

    /// The runs of `guide`, if it was compared.
    pub fn guide(&self, guide: Guide) -> Option<&GuideResult> {
        self.guides.as_deref()?.iter().find(|g| g.guide == guide)
    }

    /// The runs under the oracle with `results` compared or not, if the oracles were
    /// compared.
    pub fn oracle(&self, results: bool) -> Option<&OracleResult> {
        self.oracles
            .as_deref()?
            .iter()
            .find(|o| o.results == results)
    }
}

/// The counts of a [`MapCoverage`], kept for the table and the JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoverageCounts {
    /// Feasible memory-access patterns covered.
    pub covered: u64,
    /// Feasible memory-access patterns.
    pub feasible: u64,
    /// Pairs of concurrent methods run against each other.
    pub pairs_covered: u64,
    /// Pairs of concurrent methods.
    pub pairs_total: u64,
    /// Controlled executions read.
    pub executions: u64,
    /// Of those, executions with an access sequence not seen before.
    pub distinct_executions: u64,
}

impl CoverageCounts {
    /// The counts of `c`.
    pub fn of(c: &MapCoverage) -> CoverageCounts {
        CoverageCounts {
            covered: c.covered,
            feasible: c.feasible,
            pairs_covered: c.pairs_covered as u64,
            pairs_total: c.pairs_total,
            executions: c.executions,
            distinct_executions: c.distinct_executions,
        }
    }

    /// Covered over feasible (as [`MapCoverage::ratio`]); `None` when nothing is feasible.
    pub fn ratio(&self) -> Option<f64> {
        (self.feasible > 0).then(|| self.covered as f64 / self.feasible as f64)
    }
}

/// One check of a correct twin.
#[derive(Clone, Debug, PartialEq)]
pub struct TwinCheck {
    /// The seed.
    pub seed: u64,
    /// It reported a violation: a false positive.
    pub reported: bool,
    /// The MAP-coverage it reached; `None` when it was not measured or the check did not
    /// run.
    pub coverage: Option<CoverageCounts>,
    /// Why the coverage is missing, or what went wrong.
    pub note: Option<String>,
}

/// One guide's checks of one subject.
#[derive(Clone, Debug, PartialEq)]
pub struct GuideResult {
    /// The guide.
    pub guide: Guide,
    /// Checks of the buggy type, one per seed; for the random guide, the tool's runs.
    pub runs: Vec<Run>,
    /// Checks of the correct twin, seeds `0..min(N, GUIDE_TWIN_SEEDS)`; for the random
    /// guide, the first of the tool's twin checks.
    pub twin: Vec<TwinCheck>,
}

impl GuideResult {
    /// The statistics of the buggy runs.
    pub fn stats(&self) -> Option<Stats> {
        Stats::of(&self.runs)
    }

    /// The median MAP-coverage ratio over the twin checks that measured it.
    pub fn twin_coverage(&self) -> Option<f64> {
        let ratios: Vec<f64> = self
            .twin
            .iter()
            .filter_map(|t| t.coverage?.ratio())
            .collect();
        median(&ratios)
    }

    /// Twin checks that reported a violation.
    pub fn twin_reports(&self) -> usize {
        self.twin.iter().filter(|t| t.reported).count()
    }
}

/// The guides `--guides` compares, with their names on the command line, in the tables and
/// in the JSON; in this order.
pub const GUIDES: [(Guide, &str); 3] = [
    (Guide::Random, "random"),
    (Guide::Pairs, "pairs"),
    (Guide::Map, "map"),
];

/// The ratios of medians the guides table shows, numerator over denominator, when both ran.
pub const GUIDE_RATIOS: [(Guide, Guide); 3] = [
    (Guide::Map, Guide::Pairs),
    (Guide::Map, Guide::Random),
    (Guide::Pairs, Guide::Random),
];

/// The twin of each subject is checked with each guide for seeds `0..min(N, this)`.
pub const GUIDE_TWIN_SEEDS: u64 = 3;

/// A guide's name: `random`, `pairs` or `map`.
pub fn guide_name(guide: Guide) -> &'static str {
    GUIDES
        .iter()
        .find(|(g, _)| *g == guide)
        .map_or("?", |(_, name)| name)
}

/// The ratios of [`GUIDE_RATIOS`] whose two guides are among `guides`.
pub fn guide_ratios(guides: &[Guide]) -> Vec<(Guide, Guide)> {
    GUIDE_RATIOS
        .into_iter()
        .filter(|(a, b)| guides.contains(a) && guides.contains(b))
        .collect()
}

/// The checks of one subject beside the neighbour.
#[derive(Clone, Debug, PartialEq)]
pub struct BesideResult {
    /// Checks of the buggy type with the neighbour running, one per seed (the tool's
    /// config, as its runs alone).
    pub runs: Vec<Run>,
    /// The cores other processes (the neighbour, and anything else) kept busy during those
    /// checks, on average; `None` where `/proc` cannot be read.
    pub other_cpu: Option<f64>,
    /// The same during the tool's runs alone.
    pub alone_other_cpu: Option<f64>,
}

impl BesideResult {
    /// The statistics of the runs.
    pub fn stats(&self) -> Option<Stats> {
        Stats::of(&self.runs)
    }
}

/// One oracle's checks of one subject.
#[derive(Clone, Debug, PartialEq)]
pub struct OracleResult {
    /// `Config::results`: true for results compared, false for the paper's oracle.
    pub results: bool,
    /// Checks of the buggy type, one per seed; for the oracle the subject is checked with
    /// by default ([`tool_config`](super::tool_config)), the tool's runs.
    pub runs: Vec<Run>,
}

impl OracleResult {
    /// The statistics of the runs.
    pub fn stats(&self) -> Option<Stats> {
        Stats::of(&self.runs)
    }

    /// The finds whose symptom was a wrong result.
    pub fn wrong_results(&self) -> usize {
        self.runs
            .iter()
            .filter(|r| r.found && r.symptom == Some("wrong result"))
            .count()
    }
}

/// The oracle's name in the tables: `results` or `panics`.
pub fn oracle_name(results: bool) -> &'static str {
    if results {
        "results"
    } else {
        "panics"
    }
}

/// One variant's checks of one subject.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    /// The variant as the columns name it: `jobs=2`, `stress`.
    pub label: String,
    /// Checks of the buggy type, one per seed; for the tool's own setting, the tool's runs.
    pub runs: Vec<Run>,
}

impl Variant {
    /// The statistics of the runs.
    pub fn stats(&self) -> Option<Stats> {
        Stats::of(&self.runs)
    }
}

/// `jobs=2`, as the columns name a job count.
pub fn jobs_label(jobs: usize) -> String {
    format!("jobs={jobs}")
}

/// `auto`, `controlled`, `stress`: a scheduling mode as `schedule = "..."` writes it.
pub fn schedule_label(mode: ScheduleMode) -> String {
    mode.to_string()
}

/// `random`, `pct3`, `dfs2`: a strategy as `strategy = "..."` writes it, with its parameter,
/// so that `pct` and `pct2` are told apart.
pub fn strategy_label(strategy: Strategy) -> String {
    strategy.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{twin_check, with_guides};

    #[test]
    fn twin_coverage_is_a_median_over_the_measured_checks() {
        let mut g = with_guides().guides.unwrap().remove(0);
        assert_eq!(g.twin_coverage(), Some(0.5));
        g.twin.push(TwinCheck {
            seed: 2,
            reported: false,
            coverage: None,
            note: Some("coverage not measured".into()),
        });
        g.twin.push(twin_check(3, 0, 0));
        assert_eq!(
            g.twin_coverage(),
            Some(0.5),
            "unmeasured and empty checks left out"
        );
        g.twin.push(twin_check(4, 4, 4));
        assert_eq!(g.twin_coverage(), Some(0.5));
        assert_eq!(g.twin_reports(), 0);
        g.twin.clear();
        assert_eq!(g.twin_coverage(), None);
    }
}
