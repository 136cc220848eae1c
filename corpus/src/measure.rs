//! What the time-to-bug harness (`cargo bench -p threadsafe-corpus --bench time_to_bug`)
//! computes and prints, apart from running the checks: its command line, the statistics of
//! the runs (medians with misses counted at the budget, ratios, geometric means), the
//! markdown table, the JSON file, and what it says about the machine. Kept here, in the
//! library, so that it is unit-tested.
//!
//! A time that a miss enters is only a bound: a miss counts as the budget, and the bug
//! would have taken at least that long. [`Estimate`] carries the value with its [`Bound`],
//! and every rendering marks a lower bound `≥` and an upper bound `≤`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use threadsafe_rt::{Guide, MapCoverage};

// ---------------------------------------------------------------------------------------
// The command line.
// ---------------------------------------------------------------------------------------

/// The subjects `--quick` runs, those of them that are registered.
pub const QUICK_SUBJECTS: [&str; 3] = ["string_buffer", "synchronized_map", "null_appender"];

/// What `--help` prints.
pub const USAGE: &str = "\
time to bug of threadsafe, its paper mode and a naive stress test, on the corpus

usage: cargo bench -p threadsafe-corpus --bench time_to_bug -- [options]

  --subjects NAME,NAME|all   subjects by name or id (default: all)
  --seeds N                  seeds 0..N per subject and mode (default: 10)
  --budget DURATION          budget of each check of a buggy subject (default: 10s)
  --twin-budget DURATION     budget of each check of a correct twin (default: 1s)
  --baselines paper,naive|none
                             the baselines run beside the tool (default: paper,naive)
  --guides random,pairs,map|all|none
                             also compare the tool's guides on each subject: time to bug
                             with `guide` set, and the MAP-coverage each reaches on the
                             twin (seeds 0..min(N,3)); the tool's runs are the random
                             guide's (default: none; with --quick, all)
  --json PATH                where the JSON goes (default: target/time_to_bug.json)
  --quick                    CI smoke run: string_buffer, synchronized_map, null_appender,
                             2 seeds, budget 5s, twin budget 0.3s, guides all (flags given
                             override)
  --help                     this text

DURATION: 500ms, 2s, 1.5s, 10m, or a number of seconds.";

/// Which subjects to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Every registered subject.
    All,
    /// These, by name or id, in the order given.
    Named(Vec<String>),
    /// [`QUICK_SUBJECTS`], those that exist (or the first three registered if none does).
    Quick,
}

/// The settings of a run, from the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The subjects.
    pub subjects: Selection,
    /// Seeds `0..seeds` per subject and mode.
    pub seeds: u64,
    /// Budget of each check (and naive test) of a buggy subject.
    pub budget: Duration,
    /// Budget of each check of a correct twin.
    pub twin_budget: Duration,
    /// Run the tool in paper mode as a baseline.
    pub paper: bool,
    /// Run the naive stress test as a baseline.
    pub naive: bool,
    /// The guides to compare, in [`GUIDES`]' order; empty when not compared.
    pub guides: Vec<Guide>,
    /// The JSON output path as given; `None` for the default.
    pub json: Option<PathBuf>,
    /// `--quick` was given.
    pub quick: bool,
    /// `--bench` was given: the binary runs under `cargo bench` (under `cargo test` it is
    /// not, and the harness does nothing).
    pub under_bench: bool,
}

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Run the measurements.
    Run(Settings),
    /// Print [`USAGE`].
    Help,
}

/// Parses the arguments (without the program name). `--flag value` and `--flag=value` are
/// both accepted; a flag given twice keeps its last value; `--quick` sets defaults that the
/// other flags override. The error says what is wrong, for a usage error (exit code 2).
pub fn parse_args<I, S>(args: I) -> Result<Command, String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut subjects = None;
    let (mut seeds, mut budget, mut twin_budget) = (None, None, None);
    let (mut baselines, mut guides, mut json) = (None, None, None);
    let (mut quick, mut under_bench) = (false, false);
    let mut args = args.into_iter().map(Into::into);
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let takes_value = matches!(
            flag.as_str(),
            "--subjects"
                | "--seeds"
                | "--budget"
                | "--twin-budget"
                | "--baselines"
                | "--guides"
                | "--json"
        );
        if !takes_value {
            if inline.is_some() {
                return Err(format!("`{flag}` takes no value, in `{arg}`"));
            }
            match flag.as_str() {
                "--quick" => quick = true,
                "--bench" => under_bench = true,
                "--help" | "-h" => return Ok(Command::Help),
                _ => return Err(format!("unknown argument `{arg}`")),
            }
            continue;
        }
        let value = match inline.or_else(|| args.next()) {
            Some(v) if !v.starts_with("--") => v,
            _ => return Err(format!("`{flag}` needs a value")),
        };
        let bad = |what: &str| format!("`{flag} {value}`: {what}");
        match flag.as_str() {
            "--subjects" => subjects = Some(parse_selection(&value).map_err(|e| bad(&e))?),
            "--seeds" => match value.trim().parse::<u64>() {
                Ok(n) if n > 0 => seeds = Some(n),
                _ => return Err(bad("expected a positive number of seeds")),
            },
            "--budget" => budget = Some(parse_duration(&value).map_err(|e| bad(&e))?),
            "--twin-budget" => twin_budget = Some(parse_duration(&value).map_err(|e| bad(&e))?),
            "--baselines" => baselines = Some(parse_baselines(&value).map_err(|e| bad(&e))?),
            "--guides" => guides = Some(parse_guides(&value).map_err(|e| bad(&e))?),
            _ => {
                if value.trim().is_empty() {
                    return Err(bad("expected a path"));
                }
                json = Some(PathBuf::from(value));
            }
        }
    }
    let (paper, naive) = baselines.unwrap_or((true, true));
    Ok(Command::Run(Settings {
        subjects: subjects.unwrap_or(if quick {
            Selection::Quick
        } else {
            Selection::All
        }),
        seeds: seeds.unwrap_or(if quick { 2 } else { 10 }),
        budget: budget.unwrap_or(Duration::from_secs(if quick { 5 } else { 10 })),
        twin_budget: twin_budget.unwrap_or(Duration::from_millis(if quick { 300 } else { 1000 })),
        paper,
        naive,
        guides: guides.unwrap_or_else(|| {
            if quick {
                GUIDES.iter().map(|(g, _)| *g).collect()
            } else {
                Vec::new()
            }
        }),
        json,
        quick,
        under_bench,
    }))
}

fn parse_selection(value: &str) -> Result<Selection, String> {
    if value.trim() == "all" {
        return Ok(Selection::All);
    }
    let names: Vec<String> = value.split(',').map(|s| s.trim().to_string()).collect();
    if names.iter().any(String::is_empty) {
        return Err("expected subject names separated by commas, or `all`".to_string());
    }
    Ok(Selection::Named(names))
}

/// `(paper, naive)`.
fn parse_baselines(value: &str) -> Result<(bool, bool), String> {
    if value.trim() == "none" {
        return Ok((false, false));
    }
    let (mut paper, mut naive) = (false, false);
    for b in value.split(',').map(str::trim) {
        match b {
            "paper" => paper = true,
            "naive" => naive = true,
            _ => {
                return Err(format!(
                    "unknown baseline `{b}`: expected `paper`, `naive` or `none`"
                ))
            }
        }
    }
    Ok((paper, naive))
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

/// The guides of `--guides`, in [`GUIDES`]' order, each once; empty for `none`.
fn parse_guides(value: &str) -> Result<Vec<Guide>, String> {
    let picked: Vec<Guide> = match value.trim() {
        "all" => GUIDES.iter().map(|(g, _)| *g).collect(),
        "none" => Vec::new(),
        _ => value
            .split(',')
            .map(str::trim)
            .map(|name| match GUIDES.iter().find(|(_, n)| *n == name) {
                Some((g, _)) => Ok(*g),
                None if name.is_empty() => {
                    Err("expected guide names separated by commas, `all` or `none`".to_string())
                }
                None => Err(format!(
                    "unknown guide `{name}`: expected `random`, `pairs`, `map`, `all` or `none`"
                )),
            })
            .collect::<Result<_, _>>()?,
    };
    Ok(GUIDES
        .iter()
        .map(|(g, _)| *g)
        .filter(|g| picked.contains(g))
        .collect())
}

impl Settings {
    /// The seeds each guide checks the twin with: `0..min(seeds, GUIDE_TWIN_SEEDS)`.
    pub fn guide_twin_seeds(&self) -> u64 {
        self.seeds.min(GUIDE_TWIN_SEEDS)
    }
}

/// Parses `500ms`, `2s`, `1.5s`, `10m` or a bare number of seconds; a duration must be
/// positive and finite.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, scale) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60.0)
    } else {
        (s, 1.0)
    };
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v * scale < 1e9 => {
            Ok(Duration::from_secs_f64(v * scale))
        }
        _ => Err("expected a positive duration such as 500ms, 2s or 10m".to_string()),
    }
}

/// The indexes of the selected subjects in `available` (`(id, name)` pairs, the registry's
/// order), and a note when `--quick` had to fall back. An unknown name is an error that
/// lists the known ones.
pub fn select(
    available: &[(&str, &str)],
    selection: &Selection,
) -> Result<(Vec<usize>, Option<String>), String> {
    let find = |key: &str| {
        available
            .iter()
            .position(|(id, name)| *name == key || id.eq_ignore_ascii_case(key))
    };
    match selection {
        Selection::All => Ok(((0..available.len()).collect(), None)),
        Selection::Named(names) => {
            let mut picked = Vec::new();
            for n in names {
                let i = find(n).ok_or_else(|| {
                    let known: Vec<&str> = available.iter().map(|(_, name)| *name).collect();
                    if known.is_empty() {
                        format!("unknown subject `{n}`: no subject is registered yet")
                    } else {
                        format!("unknown subject `{n}`; known: {}", known.join(", "))
                    }
                })?;
                if !picked.contains(&i) {
                    picked.push(i);
                }
            }
            Ok((picked, None))
        }
        Selection::Quick => {
            let picked: Vec<usize> = QUICK_SUBJECTS.iter().filter_map(|n| find(n)).collect();
            if picked.is_empty() && !available.is_empty() {
                let n = available.len().min(3);
                return Ok((
                    (0..n).collect(),
                    Some(format!(
                        "none of {} is registered; --quick runs the first {n} subjects instead",
                        QUICK_SUBJECTS.join(", ")
                    )),
                ));
            }
            Ok((picked, None))
        }
    }
}

/// True when two source paths name the same file: equal, or one is the other with more
/// leading directories (`/work/main/corpus/src/jdk/x.rs` and `corpus/src/jdk/x.rs`).
/// Backslashes count as slashes.
pub fn same_file(a: &str, b: &str) -> bool {
    let (a, b) = (a.replace('\\', "/"), b.replace('\\', "/"));
    let (a, b) = (a.trim_start_matches("./"), b.trim_start_matches("./"));
    let suffix = |long: &str, short: &str| {
        long.strip_suffix(short)
            .is_some_and(|head| head.is_empty() || head.ends_with('/'))
    };
    !a.is_empty() && !b.is_empty() && (suffix(a, b) || suffix(b, a))
}

/// The file of a panic location `file:line:col` (the location with the two trailing numbers
/// removed; anything else is returned as it is).
pub fn location_file(location: &str) -> &str {
    let mut file = location;
    for _ in 0..2 {
        match file.rsplit_once(':') {
            Some((head, n)) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => {
                file = head
            }
            _ => return location,
        }
    }
    file
}

// ---------------------------------------------------------------------------------------
// Statistics.
// ---------------------------------------------------------------------------------------

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

/// Seconds with a precision that suits their size: `0.0042 s`, `0.153 s`, `12.3 s`.
pub fn secs(s: f64) -> String {
    if s < 0.01 {
        format!("{s:.4} s")
    } else if s < 10.0 {
        format!("{s:.3} s")
    } else {
        format!("{s:.1} s")
    }
}

/// A ratio with three significant digits or so: `0.0042`, `0.153`, `5.20`, `52.1`, `521`.
fn ratio_digits(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}")
    } else if r >= 10.0 {
        format!("{r:.1}")
    } else if r >= 0.1 {
        format!("{r:.2}")
    } else if r >= 0.01 {
        format!("{r:.3}")
    } else {
        format!("{r:.4}")
    }
}

/// A count with thousands separators: `1,234,567`.
pub fn thousands(v: f64) -> String {
    let digits = format!("{:.0}", v.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

// ---------------------------------------------------------------------------------------
// Results and the table.
// ---------------------------------------------------------------------------------------

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
    /// Each compared guide's runs, in [`GUIDES`]' order; `None` when guides were not
    /// compared.
    pub guides: Option<Vec<GuideResult>>,
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

/// Which baseline columns the table has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Columns {
    /// Paper mode ran.
    pub paper: bool,
    /// The naive test ran.
    pub naive: bool,
}

/// The header and separator lines of the table.
pub fn table_head(cols: Columns) -> String {
    let mut h = vec![
        "id",
        "subject",
        "bug",
        "tool found",
        "tool median",
        "min",
        "max",
        "tests to bug",
        "executions to bug",
    ];
    if cols.paper {
        h.extend(["paper found", "paper median"]);
    }
    if cols.naive {
        h.extend(["naive found", "naive median"]);
    }
    if cols.paper {
        h.push("paper / tool");
    }
    if cols.naive {
        h.push("naive / tool");
    }
    h.push("twin reports");
    format!("| {} |\n|{}\n", h.join(" | "), "---|".repeat(h.len()))
}

fn cells(cells: &[String]) -> String {
    format!("| {} |", cells.join(" | "))
}

fn found(s: &Option<Stats>) -> String {
    s.as_ref()
        .map_or_else(|| "-".to_string(), |s| format!("{}/{}", s.found, s.runs))
}

fn count(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), thousands)
}

/// One subject's row of the table.
pub fn table_row(r: &SubjectResult, cols: Columns) -> String {
    let tool = r.tool_stats();
    let time = |s: &Option<Stats>, f: fn(&Stats) -> Estimate| {
        s.as_ref().map_or_else(|| "-".to_string(), |s| f(s).secs())
    };
    let ratio = |base: &Option<Stats>| match (base, &tool) {
        (Some(b), Some(t)) => b.median.ratio(t.median).times(),
        _ => "-".to_string(),
    };
    let mut c = vec![
        r.id.clone(),
        r.name.clone(),
        r.bug.clone(),
        found(&tool),
        time(&tool, |s| s.median),
        time(&tool, |s| s.min),
        time(&tool, |s| s.max),
        count(tool.as_ref().and_then(|s| s.median_tests)),
        count(tool.as_ref().and_then(|s| s.median_executions)),
    ];
    let (paper, naive) = (r.paper_stats(), r.naive_stats());
    if cols.paper {
        c.extend([found(&paper), time(&paper, |s| s.median)]);
    }
    if cols.naive {
        c.extend([found(&naive), time(&naive, |s| s.median)]);
    }
    if cols.paper {
        c.push(ratio(&paper));
    }
    if cols.naive {
        c.push(ratio(&naive));
    }
    c.push(format!("{}/{}", r.twin_reports, r.twin_runs));
    cells(&c)
}

/// The found runs over the runs, summed over the subjects that have statistics; `-` when
/// none has.
fn found_sum(stats: &[Option<Stats>]) -> String {
    let (mut found, mut runs, mut any) = (0, 0, false);
    for s in stats.iter().flatten() {
        (found, runs, any) = (found + s.found, runs + s.runs, true);
    }
    if any {
        format!("{found}/{runs}")
    } else {
        "-".to_string()
    }
}

/// The geometric mean of the estimates, rendered; `-` when one is missing or none is there.
fn geomean_cell(v: Vec<Option<Estimate>>, render: fn(Estimate) -> String) -> String {
    v.into_iter()
        .collect::<Option<Vec<_>>>()
        .and_then(|v| geomean(&v))
        .map_or_else(|| "-".to_string(), render)
}

/// The geometric mean of the subjects' median times to bug, as seconds.
fn geomean_of_medians(stats: &[Option<Stats>]) -> String {
    geomean_cell(
        stats.iter().map(|s| s.as_ref().map(|s| s.median)).collect(),
        Estimate::secs,
    )
}

/// The geometric mean of the subjects' ratios of medians `over / under`, as a ratio.
fn geomean_of_ratios(over: &[Option<Stats>], under: &[Option<Stats>]) -> String {
    geomean_cell(
        over.iter()
            .zip(under)
            .map(|(o, u)| Some(o.as_ref()?.median.ratio(u.as_ref()?.median)))
            .collect(),
        Estimate::times,
    )
}

/// The geometric means over `results`: of each mode's median time to bug, and of the
/// per-subject ratios; the found columns add up.
pub fn geomean_row(label: &str, results: &[&SubjectResult], cols: Columns) -> String {
    // stats[mode][subject], modes in the order tool, paper, naive.
    let stats: [Vec<Option<Stats>>; 3] = [
        results.iter().map(|r| r.tool_stats()).collect(),
        results.iter().map(|r| r.paper_stats()).collect(),
        results.iter().map(|r| r.naive_stats()).collect(),
    ];
    let sum = |mode: usize| found_sum(&stats[mode]);
    let medians = |mode: usize| geomean_of_medians(&stats[mode]);
    let ratios = |mode: usize| geomean_of_ratios(&stats[mode], &stats[0]);
    let mut c = vec![
        String::new(),
        format!("**{label}**"),
        String::new(),
        sum(0),
        medians(0),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    ];
    if cols.paper {
        c.extend([sum(1), medians(1)]);
    }
    if cols.naive {
        c.extend([sum(2), medians(2)]);
    }
    if cols.paper {
        c.push(ratios(1));
    }
    if cols.naive {
        c.push(ratios(2));
    }
    let twins: usize = results.iter().map(|r| r.twin_reports).sum();
    let twin_runs: usize = results.iter().map(|r| r.twin_runs).sum();
    c.push(format!("{twins}/{twin_runs}"));
    cells(&c)
}

/// The whole table: a row per subject, then the geometric means over the subjects paper
/// mode finds at least once (when it ran) and over all subjects.
pub fn table(results: &[SubjectResult], cols: Columns) -> String {
    let mut out = table_head(cols);
    for r in results {
        out.push_str(&table_row(r, cols));
        out.push('\n');
    }
    if results.is_empty() {
        return out;
    }
    if cols.paper {
        let paper_finds: Vec<&SubjectResult> = results
            .iter()
            .filter(|r| r.paper_stats().is_some_and(|s| s.found > 0))
            .collect();
        let label = format!(
            "geo-mean, the {} subject(s) paper mode finds",
            paper_finds.len()
        );
        out.push_str(&geomean_row(&label, &paper_finds, cols));
        out.push('\n');
    }
    let all: Vec<&SubjectResult> = results.iter().collect();
    let label = format!("geo-mean, all {} subject(s)", all.len());
    out.push_str(&geomean_row(&label, &all, cols));
    out.push('\n');
    out
}

/// What the table's columns and marks mean, for below it.
pub fn table_notes(budget: Duration) -> String {
    format!(
        "Times are per check, from its start to the violation (generation, executions and the \
         oracle included), or the naive test's time to its first failure. A miss counts as the \
         budget ({}): a time marked ≥ has a miss among the values it comes from, so the true \
         value is at least that. A ratio is the baseline's median over the tool's: ≥ when \
         the baseline's median is censored, ≤ when the tool's is, ~ when both are (no bound). \
         Tests and executions to bug are medians over the tool's finds. \"twin reports\": \
         checks of the correct twin that reported a violation (any is a false positive).",
        secs(budget.as_secs_f64())
    )
}

// ---------------------------------------------------------------------------------------
// The guides table.
// ---------------------------------------------------------------------------------------

/// The ratios of [`GUIDE_RATIOS`] whose two guides are among `guides`.
fn guide_ratios(guides: &[Guide]) -> Vec<(Guide, Guide)> {
    GUIDE_RATIOS
        .into_iter()
        .filter(|(a, b)| guides.contains(a) && guides.contains(b))
        .collect()
}

/// A ratio as a percentage: `41.2%`.
fn percent(r: f64) -> String {
    format!("{:.1}%", r * 100.0)
}

/// The header and separator lines of the guides table: per guide found and median, the
/// ratios, per guide the twin's MAP-coverage, and the twin reports.
pub fn guides_table_head(guides: &[Guide]) -> String {
    let mut h = vec!["id".to_string(), "subject".to_string()];
    for &g in guides {
        h.push(format!("{} found", guide_name(g)));
        h.push(format!("{} median", guide_name(g)));
    }
    for (a, b) in guide_ratios(guides) {
        h.push(format!("{} / {}", guide_name(a), guide_name(b)));
    }
    for &g in guides {
        h.push(format!("{} twin MAP-cov", guide_name(g)));
    }
    h.push("twin reports".to_string());
    format!("| {} |\n|{}\n", h.join(" | "), "---|".repeat(h.len()))
}

/// One subject's row of the guides table.
pub fn guides_row(r: &SubjectResult, guides: &[Guide]) -> String {
    let stats = |g: Guide| r.guide(g).and_then(GuideResult::stats);
    let mut c = vec![r.id.clone(), r.name.clone()];
    for &g in guides {
        let s = stats(g);
        c.push(found(&s));
        c.push(s.map_or_else(|| "-".to_string(), |s| s.median.secs()));
    }
    for (a, b) in guide_ratios(guides) {
        c.push(match (stats(a), stats(b)) {
            (Some(a), Some(b)) => a.median.ratio(b.median).times(),
            _ => "-".to_string(),
        });
    }
    for &g in guides {
        c.push(
            r.guide(g)
                .and_then(GuideResult::twin_coverage)
                .map_or_else(|| "-".to_string(), percent),
        );
    }
    let twins = || guides.iter().filter_map(|&g| r.guide(g));
    c.push(format!(
        "{}/{}",
        twins().map(GuideResult::twin_reports).sum::<usize>(),
        twins().map(|g| g.twin.len()).sum::<usize>()
    ));
    cells(&c)
}

/// The last row of the guides table: per guide, the finds added up and the geometric mean
/// of the median times; the geometric means of the ratios; per guide, the mean of the
/// subjects' median twin coverage.
pub fn guides_geomean_row(label: &str, results: &[&SubjectResult], guides: &[Guide]) -> String {
    let stats = |g: Guide| -> Vec<Option<Stats>> {
        results
            .iter()
            .map(|r| r.guide(g).and_then(GuideResult::stats))
            .collect()
    };
    let mut c = vec![String::new(), format!("**{label}**")];
    for &g in guides {
        let s = stats(g);
        c.extend([found_sum(&s), geomean_of_medians(&s)]);
    }
    for (a, b) in guide_ratios(guides) {
        c.push(geomean_of_ratios(&stats(a), &stats(b)));
    }
    for &g in guides {
        let v: Vec<f64> = results
            .iter()
            .filter_map(|r| r.guide(g)?.twin_coverage())
            .collect();
        c.push(if v.is_empty() {
            "-".to_string()
        } else {
            percent(v.iter().sum::<f64>() / v.len() as f64)
        });
    }
    let twins = || {
        results
            .iter()
            .flat_map(|r| guides.iter().filter_map(|&g| r.guide(g)))
    };
    c.push(format!(
        "{}/{}",
        twins().map(GuideResult::twin_reports).sum::<usize>(),
        twins().map(|g| g.twin.len()).sum::<usize>()
    ));
    cells(&c)
}

/// The guides table: a row per subject, then the geometric means over all of them.
pub fn guides_table(results: &[SubjectResult], guides: &[Guide]) -> String {
    let mut out = guides_table_head(guides);
    for r in results {
        out.push_str(&guides_row(r, guides));
        out.push('\n');
    }
    if results.is_empty() {
        return out;
    }
    let all: Vec<&SubjectResult> = results.iter().collect();
    let label = format!("geo-mean, all {} subject(s)", all.len());
    out.push_str(&guides_geomean_row(&label, &all, guides));
    out.push('\n');
    out
}

/// What the guides table's columns mean, for below it.
pub fn guides_notes(settings: &Settings) -> String {
    let twin_seeds = settings.guide_twin_seeds();
    format!(
        "Each guide is the tool's config (Config::default() with seed and budget) with `guide` \
         set: random is the default (random methods and schedules; its runs are the tool's \
         runs above), pairs is CovCon's method-pair coverage (each test runs the pair of \
         methods run concurrently least so far), map is MAPTest's memory-access-pattern \
         guidance (each test aims at an uncovered pattern, each execution schedules towards \
         it). On each subject the guides take turns seed by seed, seeds 0..{}, each with the \
         budget {}; a find counts as in the table above. Found and median as above: a miss \
         counts as the budget, ≥ marks a median with a miss in it. A ratio X / Y is X's \
         median over Y's, below 1 when X finds the bug sooner: ≥ when X's median is \
         censored, ≤ when Y's is, ~ when both are. \"twin MAP-cov\": the memory-access \
         patterns covered over the feasible ones on the correct twin in a check of {} with \
         that guide, median over seeds 0..{twin_seeds} (the paper's RQ2, coverage \
         achieved; the feasible patterns include sites a check first reaches concurrently, \
         so the denominator can differ between checks: the JSON has both counts of each); \
         \"twin reports\": those checks that reported a violation (any is a \
         false positive). Last row: geometric means of the medians and of the ratios, the \
         finds added up, and the arithmetic mean of the subjects' median coverage. The \
         MAPTest paper (Wang et al., ASE 2019) reports MAP guidance finding the bugs 17× \
         faster than CovCon on average: map / pairs about 0.06 here.",
        settings.seeds,
        secs(settings.budget.as_secs_f64()),
        secs(settings.twin_budget.as_secs_f64()),
    )
}

// ---------------------------------------------------------------------------------------
// The machine and the date.
// ---------------------------------------------------------------------------------------

/// The run's context, printed above the table and written to the JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    /// The date (UTC, `YYYY-MM-DD`).
    pub date: String,
    /// Logical cores.
    pub cores: usize,
    /// The CPU model.
    pub cpu: String,
    /// Load averages (1, 5, 15 minutes) at the start.
    pub load_before: Option<[f64; 3]>,
    /// Load averages at the end.
    pub load_after: Option<[f64; 3]>,
    /// CPU other processes used over the whole run, in cores.
    pub other_cpu: Option<f64>,
    /// The command as typed.
    pub command: String,
    /// The settings.
    pub settings: Settings,
    /// The subjects run, by name.
    pub subjects: Vec<String>,
    /// Where the JSON goes.
    pub json: String,
    /// Wall time of the whole run.
    pub wall: Duration,
}

/// `YYYY-MM-DD` (UTC) of `time`.
pub fn utc_date(time: SystemTime) -> String {
    let days = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The CPU model from `/proc/cpuinfo` (`model name`, or `Hardware`/`Processor` on some
/// ARM machines); `unknown` where it cannot be read.
pub fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    ["model name", "Hardware", "Processor", "cpu model"]
        .iter()
        .find_map(|key| {
            info.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == *key && !v.trim().is_empty()).then(|| v.trim().to_string())
            })
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// The load averages (1, 5, 15 minutes) from `/proc/loadavg`.
pub fn load_averages() -> Option<[f64; 3]> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = s.split_whitespace().map(|x| x.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

fn loads(l: Option<[f64; 3]>) -> String {
    l.map_or_else(
        || "unknown".to_string(),
        |[a, b, c]| format!("{a:.2}, {b:.2}, {c:.2}"),
    )
}

/// How much CPU other processes use while the harness runs: the machine's busy time (from
/// `/proc/stat`) less this process's own (from `/proc/self/stat`).
#[derive(Clone, Copy, Debug)]
pub struct CpuMeter {
    wall: std::time::Instant,
    busy: u64,
    own: u64,
}

/// `/proc/stat` and `/proc/self/stat` count in USER_HZ ticks, 100 per second on Linux.
const TICKS_PER_SECOND: f64 = 100.0;

impl CpuMeter {
    /// Starts measuring; `None` where `/proc` cannot be read.
    pub fn start() -> Option<CpuMeter> {
        Some(CpuMeter {
            wall: std::time::Instant::now(),
            busy: machine_busy_ticks()?,
            own: own_ticks()?,
        })
    }

    /// The cores other processes kept busy on average since [`start`](Self::start).
    pub fn others(&self) -> Option<f64> {
        let busy = machine_busy_ticks()?.saturating_sub(self.busy);
        let own = own_ticks()?.saturating_sub(self.own);
        let wall = self.wall.elapsed().as_secs_f64();
        (wall > 0.0).then(|| busy.saturating_sub(own) as f64 / TICKS_PER_SECOND / wall)
    }
}

/// Busy ticks of all CPUs: `/proc/stat`'s `cpu` line but idle and iowait.
fn machine_busy_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let v: Vec<u64> = line
        .split_whitespace()
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    // user nice system idle iowait irq softirq steal (guest time is in user already)
    Some(v.iter().take(8).sum::<u64>() - v.get(3)? - v.get(4)?)
}

/// This process's user + system ticks, all threads.
fn own_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // After the command name (in parentheses, may hold spaces): utime and stime are the
    // 12th and 13th fields.
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// The lines above the table: date, machine, command and settings.
pub fn header(meta: &Meta) -> String {
    let s = &meta.settings;
    let mut out = String::new();
    let _ = writeln!(out, "## time to bug ({})", meta.date);
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "- machine: {} cores, {}; load average {} before, {} after; other processes' CPU during the run: {} cores",
        meta.cores,
        meta.cpu,
        loads(meta.load_before),
        loads(meta.load_after),
        meta.other_cpu
            .map_or_else(|| "?".to_string(), |c| format!("{c:.2}"))
    );
    let _ = writeln!(out, "- command: `{}`", meta.command);
    let mut baselines = Vec::new();
    if s.paper {
        baselines.push("paper mode (executor = paper, schedule = stress)");
    }
    if s.naive {
        baselines.push("naive two-thread stress test");
    }
    let _ = writeln!(
        out,
        "- settings: seeds 0..{}, budget {} per run, twin budget {} per check, tool = Config::default() with seed and budget; baselines: {}{}{}",
        s.seeds,
        secs(s.budget.as_secs_f64()),
        secs(s.twin_budget.as_secs_f64()),
        if baselines.is_empty() {
            "none".to_string()
        } else {
            baselines.join(", ")
        },
        if s.guides.is_empty() {
            String::new()
        } else {
            format!(
                "; guides compared: {} (twin coverage over seeds 0..{})",
                s.guides
                    .iter()
                    .map(|&g| guide_name(g))
                    .collect::<Vec<_>>()
                    .join(", "),
                s.guide_twin_seeds()
            )
        },
        if s.quick { "; quick mode" } else { "" }
    );
    let _ = writeln!(out, "- subjects: {}", meta.subjects.join(", "));
    let _ = writeln!(out, "- wall time: {}", secs(meta.wall.as_secs_f64()));
    out
}

// ---------------------------------------------------------------------------------------
// JSON.
// ---------------------------------------------------------------------------------------

/// A JSON value, rendered by [`Json::render`].
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number; not finite is written `null`.
    Num(f64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object, its keys in this order.
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// A string value.
    pub fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    /// An object from `(key, value)` pairs.
    pub fn obj<const N: usize>(pairs: [(&str, Json); N]) -> Json {
        Json::Obj(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    /// `Some(x)` as `x`'s value, `None` as `null`.
    pub fn opt<T>(v: Option<T>, f: impl FnOnce(T) -> Json) -> Json {
        v.map_or(Json::Null, f)
    }

    /// The value as JSON text, indented by two spaces per level.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out.push('\n');
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        let pad = |out: &mut String, d: usize| {
            out.push('\n');
            out.push_str(&"  ".repeat(d));
        };
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Num(n) if !n.is_finite() => out.push_str("null"),
            Json::Num(n) if n.fract() == 0.0 && n.abs() < 1e15 => {
                let _ = write!(out, "{}", *n as i64);
            }
            Json::Num(n) => {
                let _ = write!(out, "{n}");
            }
            Json::Str(s) => escape_into(out, s),
            Json::Arr(items) if items.is_empty() => out.push_str("[]"),
            Json::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    pad(out, depth + 1);
                    item.write(out, depth + 1);
                }
                pad(out, depth);
                out.push(']');
            }
            Json::Obj(pairs) if pairs.is_empty() => out.push_str("{}"),
            Json::Obj(pairs) => {
                out.push('{');
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    pad(out, depth + 1);
                    escape_into(out, k);
                    out.push_str(": ");
                    v.write(out, depth + 1);
                }
                pad(out, depth);
                out.push('}');
            }
        }
    }
}

/// `s` as a JSON string literal, quotes included.
pub fn escape(s: &str) -> String {
    let mut out = String::new();
    escape_into(&mut out, s);
    out
}

fn escape_into(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn estimate_json(e: Estimate) -> Json {
    Json::obj([
        ("value", Json::Num(e.value)),
        ("bound", Json::str(e.bound.name())),
    ])
}

fn runs_json(runs: &[Run]) -> Json {
    let stats = Stats::of(runs);
    let each = runs
        .iter()
        .map(|r| {
            Json::obj([
                ("seed", Json::Num(r.seed as f64)),
                ("found", Json::Bool(r.found)),
                ("seconds", Json::Num(r.seconds)),
                ("tests", Json::opt(r.tests, |t| Json::Num(t as f64))),
                (
                    "executions",
                    Json::opt(r.executions, |t| Json::Num(t as f64)),
                ),
                ("note", Json::opt(r.note.clone(), Json::Str)),
            ])
        })
        .collect();
    let s = stats.as_ref();
    Json::obj([
        ("found", Json::Num(s.map_or(0, |s| s.found) as f64)),
        ("runs_count", Json::Num(runs.len() as f64)),
        ("median_s", Json::opt(s.map(|s| s.median), estimate_json)),
        ("min_s", Json::opt(s.map(|s| s.min), estimate_json)),
        ("max_s", Json::opt(s.map(|s| s.max), estimate_json)),
        (
            "median_tests",
            Json::opt(s.and_then(|s| s.median_tests), Json::Num),
        ),
        (
            "median_executions",
            Json::opt(s.and_then(|s| s.median_executions), Json::Num),
        ),
        ("runs", Json::Arr(each)),
    ])
}

fn coverage_json(c: CoverageCounts) -> Json {
    Json::obj([
        ("covered", Json::Num(c.covered as f64)),
        ("feasible", Json::Num(c.feasible as f64)),
        ("ratio", Json::opt(c.ratio(), Json::Num)),
        ("pairs_covered", Json::Num(c.pairs_covered as f64)),
        ("pairs_total", Json::Num(c.pairs_total as f64)),
        ("executions", Json::Num(c.executions as f64)),
        (
            "distinct_executions",
            Json::Num(c.distinct_executions as f64),
        ),
    ])
}

fn guide_json(g: &GuideResult) -> Json {
    let twin = g
        .twin
        .iter()
        .map(|t| {
            Json::obj([
                ("seed", Json::Num(t.seed as f64)),
                ("reported", Json::Bool(t.reported)),
                ("coverage", Json::opt(t.coverage, coverage_json)),
                ("note", Json::opt(t.note.clone(), Json::Str)),
            ])
        })
        .collect();
    Json::obj([
        ("guide", Json::str(guide_name(g.guide))),
        ("buggy", runs_json(&g.runs)),
        (
            "twin",
            Json::obj([
                ("runs_count", Json::Num(g.twin.len() as f64)),
                ("reports", Json::Num(g.twin_reports() as f64)),
                ("median_coverage", Json::opt(g.twin_coverage(), Json::Num)),
                ("runs", Json::Arr(twin)),
            ]),
        ),
    ])
}

/// The ratios of the guides' medians, `map_over_pairs` and so on, of the guides compared.
fn guide_ratios_json(r: &SubjectResult, guides: &[GuideResult]) -> Json {
    let compared: Vec<Guide> = guides.iter().map(|g| g.guide).collect();
    let stats = |g: Guide| r.guide(g).and_then(GuideResult::stats);
    Json::Obj(
        guide_ratios(&compared)
            .into_iter()
            .map(|(a, b)| {
                let key = format!("{}_over_{}", guide_name(a), guide_name(b));
                let value = match (stats(a), stats(b)) {
                    (Some(a), Some(b)) => estimate_json(a.median.ratio(b.median)),
                    _ => Json::Null,
                };
                (key, value)
            })
            .collect(),
    )
}

/// The JSON of one subject's results.
pub fn subject_json(r: &SubjectResult) -> Json {
    let tool = r.tool_stats();
    let ratio = |base: Option<Stats>| match (base, &tool) {
        (Some(b), Some(t)) => estimate_json(b.median.ratio(t.median)),
        _ => Json::Null,
    };
    Json::obj([
        ("id", Json::str(&r.id)),
        ("name", Json::str(&r.name)),
        ("original", Json::str(&r.original)),
        ("bug", Json::str(&r.bug)),
        ("file", Json::str(&r.file)),
        ("tool", runs_json(&r.tool)),
        ("paper", Json::opt(r.paper.as_deref(), runs_json)),
        ("naive", Json::opt(r.naive.as_deref(), runs_json)),
        ("paper_over_tool", ratio(r.paper_stats())),
        ("naive_over_tool", ratio(r.naive_stats())),
        (
            "twin",
            Json::obj([
                ("runs", Json::Num(r.twin_runs as f64)),
                ("reports", Json::Num(r.twin_reports as f64)),
            ]),
        ),
        ("other_cpu_cores", Json::opt(r.other_cpu, Json::Num)),
        (
            "guides",
            Json::opt(r.guides.as_deref(), |g| {
                Json::Arr(g.iter().map(guide_json).collect())
            }),
        ),
        (
            "guide_ratios",
            Json::opt(r.guides.as_deref(), |g| guide_ratios_json(r, g)),
        ),
    ])
}

/// The whole JSON file: the context, the settings, and every subject's results.
pub fn report_json(meta: &Meta, results: &[SubjectResult]) -> Json {
    let s = &meta.settings;
    let loads = |l: Option<[f64; 3]>| Json::opt(l, |l| Json::Arr(l.map(Json::Num).to_vec()));
    let mut baselines = Vec::new();
    if s.paper {
        baselines.push(Json::str("paper"));
    }
    if s.naive {
        baselines.push(Json::str("naive"));
    }
    Json::obj([
        ("date", Json::str(&meta.date)),
        (
            "machine",
            Json::obj([
                ("cores", Json::Num(meta.cores as f64)),
                ("cpu", Json::str(&meta.cpu)),
                ("load_before", loads(meta.load_before)),
                ("load_after", loads(meta.load_after)),
                ("other_cpu_cores", Json::opt(meta.other_cpu, Json::Num)),
            ]),
        ),
        ("command", Json::str(&meta.command)),
        (
            "settings",
            Json::obj([
                ("seeds", Json::Num(s.seeds as f64)),
                ("budget_s", Json::Num(s.budget.as_secs_f64())),
                ("twin_budget_s", Json::Num(s.twin_budget.as_secs_f64())),
                ("baselines", Json::Arr(baselines)),
                (
                    "guides",
                    Json::Arr(s.guides.iter().map(|&g| Json::str(guide_name(g))).collect()),
                ),
                ("guide_twin_seeds", Json::Num(s.guide_twin_seeds() as f64)),
                ("quick", Json::Bool(s.quick)),
                (
                    "subjects",
                    Json::Arr(meta.subjects.iter().map(Json::str).collect()),
                ),
                ("json", Json::str(&meta.json)),
            ]),
        ),
        ("wall_s", Json::Num(meta.wall.as_secs_f64())),
        (
            "subjects",
            Json::Arr(results.iter().map(subject_json).collect()),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(seconds: f64) -> Run {
        Run::found(0, seconds, Some(3), Some(300))
    }

    fn miss() -> Run {
        Run::missed(0, Duration::from_secs(10))
    }

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

    #[test]
    fn seconds_and_counts() {
        assert_eq!(secs(0.00421), "0.0042 s");
        assert_eq!(secs(0.1534), "0.153 s");
        assert_eq!(secs(12.34), "12.3 s");
        assert_eq!(thousands(1234567.4), "1,234,567");
        assert_eq!(thousands(999.0), "999");
    }

    fn sample() -> SubjectResult {
        SubjectResult {
            id: "V1".into(),
            name: "string_buffer".into(),
            original: "java.lang.StringBuffer \"1.6\"".into(),
            bug: "atomicity".into(),
            file: "corpus/src/jdk/string_buffer.rs".into(),
            tool: vec![hit(0.1), hit(0.3), hit(0.2)],
            paper: Some(vec![hit(1.0), miss(), hit(3.0)]),
            naive: Some(vec![miss(), miss(), Run::found(2, 4.0, None, None)]),
            twin_runs: 3,
            twin_reports: 0,
            other_cpu: Some(0.5),
            guides: None,
        }
    }

    fn twin_check(seed: u64, covered: u64, feasible: u64) -> TwinCheck {
        TwinCheck {
            seed,
            reported: false,
            coverage: Some(CoverageCounts {
                covered,
                feasible,
                pairs_covered: 3,
                pairs_total: 6,
                executions: 400,
                distinct_executions: 40,
            }),
            note: None,
        }
    }

    /// `sample()` with the three guides: random is the tool's runs (0.2 s), pairs takes
    /// 2 s, 1 s and a miss (median 2 s), map 0.1 s; the twin's coverage is 50%, 25% and 75%.
    fn with_guides() -> SubjectResult {
        let mut r = sample();
        let mut reported = twin_check(1, 3, 4);
        reported.reported = true;
        r.guides = Some(vec![
            GuideResult {
                guide: Guide::Random,
                runs: r.tool.clone(),
                twin: vec![twin_check(0, 1, 2), twin_check(1, 2, 4)],
            },
            GuideResult {
                guide: Guide::Pairs,
                runs: vec![hit(2.0), hit(1.0), miss()],
                twin: vec![twin_check(0, 1, 4), twin_check(1, 1, 4)],
            },
            GuideResult {
                guide: Guide::Map,
                runs: vec![hit(0.1), hit(0.1), hit(0.2)],
                twin: vec![twin_check(0, 3, 4), reported],
            },
        ]);
        r
    }

    const ALL_GUIDES: [Guide; 3] = [Guide::Random, Guide::Pairs, Guide::Map];

    #[test]
    fn a_guides_row() {
        let r = with_guides();
        assert_eq!(
            guides_row(&r, &ALL_GUIDES),
            "| V1 | string_buffer | 3/3 | 0.200 s | 2/3 | 2.000 s | 3/3 | 0.100 s \
             | 0.050× | 0.50× | 10.0× | 50.0% | 25.0% | 75.0% | 1/6 |"
        );
        let head = guides_table_head(&ALL_GUIDES);
        let names = head.lines().next().unwrap();
        assert_eq!(
            names,
            "| id | subject | random found | random median | pairs found | pairs median \
             | map found | map median | map / pairs | map / random | pairs / random \
             | random twin MAP-cov | pairs twin MAP-cov | map twin MAP-cov | twin reports |"
        );
        assert_eq!(
            head.lines().nth(1).unwrap(),
            format!("|{}", "---|".repeat(15))
        );
        // Two guides: only their ratio, only their columns; a guide that did not run is `-`.
        let two = [Guide::Pairs, Guide::Map];
        assert_eq!(
            guides_row(&r, &two),
            "| V1 | string_buffer | 2/3 | 2.000 s | 3/3 | 0.100 s | 0.050× | 25.0% | 75.0% | 1/4 |"
        );
        assert_eq!(
            guides_table_head(&two)
                .lines()
                .next()
                .unwrap()
                .matches(" | ")
                .count()
                + 1,
            10
        );
        let mut no_map = with_guides();
        no_map.guides.as_mut().unwrap().pop();
        assert_eq!(
            guides_row(&no_map, &two),
            "| V1 | string_buffer | 2/3 | 2.000 s | - | - | - | 25.0% | - | 0/2 |"
        );
    }

    #[test]
    fn the_guides_are_described() {
        let settings = match parse_args(["--guides", "pairs,map", "--seeds", "2"]).unwrap() {
            Command::Run(s) => s,
            Command::Help => unreachable!(),
        };
        let notes = guides_notes(&settings);
        assert!(
            notes.contains("seeds 0..2, each with the budget 10.0 s"),
            "{notes}"
        );
        assert!(notes.contains("a check of 1.000 s with that guide, median over seeds 0..2"));
        assert!(notes.contains("17× faster than CovCon"));
        let meta = Meta {
            date: "2026-11-21".into(),
            cores: 2,
            cpu: "cpu".into(),
            load_before: None,
            load_after: None,
            other_cpu: None,
            command: "cargo bench".into(),
            settings,
            subjects: vec![],
            json: "x.json".into(),
            wall: Duration::from_secs(1),
        };
        assert!(header(&meta)
            .contains("; guides compared: pairs, map (twin coverage over seeds 0..2)\n"));
    }

    #[test]
    fn guide_medians_and_ratios_carry_the_bounds() {
        let mut r = with_guides();
        // Pairs misses twice: its median is censored, so map / pairs is at most, pairs /
        // random at least.
        r.guides.as_mut().unwrap()[1].runs = vec![hit(2.0), miss(), miss()];
        let row = guides_row(&r, &ALL_GUIDES);
        assert!(
            row.contains("| 1/3 | ≥10.0 s |") && row.contains("| ≤0.010× | 0.50× | ≥50.0× |"),
            "{row}"
        );
    }

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

    #[test]
    fn the_guides_table_ends_with_geometric_means() {
        let mut other = with_guides();
        other.id = "V2".into();
        // Here map is 4 times slower than pairs (0.4 s against 0.1 s), and covers 25%.
        let g = other.guides.as_mut().unwrap();
        g[1].runs = vec![hit(0.1); 3];
        g[2].runs = vec![hit(0.4); 3];
        g[2].twin = vec![twin_check(0, 1, 4)];
        let t = guides_table(&[with_guides(), other], &ALL_GUIDES);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 2 + 2 + 1);
        // map / pairs: 0.05 and 4 → √0.2; map / random: 0.5 and 2 → 1; pairs / random: 10
        // and 0.5 → √5. Coverage: means of the medians, (75% + 25%) / 2 for map.
        assert_eq!(
            lines[4],
            "|  | **geo-mean, all 2 subject(s)** | 6/6 | 0.200 s | 5/6 | 0.447 s | 6/6 | 0.200 s \
             | 0.45× | 1.00× | 2.24× | 50.0% | 25.0% | 50.0% | 1/11 |"
        );
        assert_eq!(guides_table(&[], &ALL_GUIDES).lines().count(), 2);
    }

    #[test]
    fn guides_json_parses_back() {
        let meta = Meta {
            date: "2026-11-21".into(),
            cores: 2,
            cpu: "cpu".into(),
            load_before: None,
            load_after: None,
            other_cpu: None,
            command: "cargo bench -- --guides all".into(),
            settings: match parse_args(["--guides", "all", "--seeds", "2"]).unwrap() {
                Command::Run(s) => s,
                Command::Help => unreachable!(),
            },
            subjects: vec!["string_buffer".into()],
            json: "/tmp/x.json".into(),
            wall: Duration::from_secs(1),
        };
        let value = report_json(&meta, &[with_guides(), sample()]);
        let text = value.render();
        assert_eq!(parse::value(&text).expect("valid JSON"), value);
        let get = |v: &Json, key: &str| match v {
            Json::Obj(pairs) => pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()),
            _ => None,
        };
        let settings = get(&value, "settings").unwrap();
        assert_eq!(
            get(&settings, "guides"),
            Some(Json::Arr(vec![
                Json::str("random"),
                Json::str("pairs"),
                Json::str("map")
            ]))
        );
        assert_eq!(get(&settings, "guide_twin_seeds"), Some(Json::Num(2.0)));
        let Some(Json::Arr(subjects)) = get(&value, "subjects") else {
            panic!("no subjects")
        };
        let ratios = get(&subjects[0], "guide_ratios").unwrap();
        let map_over_pairs = get(&ratios, "map_over_pairs").unwrap();
        assert_eq!(get(&map_over_pairs, "value"), Some(Json::Num(0.05)));
        assert_eq!(get(&map_over_pairs, "bound"), Some(Json::str("exact")));
        let Some(Json::Arr(guides)) = get(&subjects[0], "guides") else {
            panic!("no guides")
        };
        assert_eq!(get(&guides[2], "guide"), Some(Json::str("map")));
        let twin = get(&guides[2], "twin").unwrap();
        assert_eq!(get(&twin, "median_coverage"), Some(Json::Num(0.75)));
        assert_eq!(get(&twin, "reports"), Some(Json::Num(1.0)));
        assert_eq!(
            get(&subjects[1], "guides"),
            Some(Json::Null),
            "not compared"
        );
    }

    const BOTH: Columns = Columns {
        paper: true,
        naive: true,
    };

    #[test]
    fn a_markdown_row() {
        assert_eq!(
            table_row(&sample(), BOTH),
            "| V1 | string_buffer | atomicity | 3/3 | 0.200 s | 0.100 s | 0.300 s | 3 | 300 \
             | 2/3 | 3.000 s | 1/3 | ≥10.0 s | 15.0× | ≥50.0× | 0/3 |"
        );
        let none = Columns {
            paper: false,
            naive: false,
        };
        assert_eq!(
            table_row(&sample(), none),
            "| V1 | string_buffer | atomicity | 3/3 | 0.200 s | 0.100 s | 0.300 s | 3 | 300 | 0/3 |"
        );
        let head = table_head(none);
        assert_eq!(head.lines().count(), 2);
        assert_eq!(
            head.lines().next().unwrap().matches(" | ").count() + 1,
            10,
            "as many header cells as the row has"
        );
    }

    #[test]
    fn the_table_ends_with_geometric_means() {
        let mut missed = sample();
        missed.id = "V2".into();
        missed.paper = Some(vec![miss(), miss(), miss()]);
        let t = table(&[sample(), missed], BOTH);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 2 + 2 + 2);
        assert!(
            lines[4].starts_with(
                "|  | **geo-mean, the 1 subject(s) paper mode finds** |  | 3/3 | 0.200 s |"
            ),
            "{}",
            lines[4]
        );
        assert!(
            lines[4].ends_with("| 15.0× | ≥50.0× | 0/3 |"),
            "{}",
            lines[4]
        );
        // Over both: paper 3 s and ≥10 s → ≥√30 s; ratios 15 and ≥50 → ≥√750.
        assert!(
            lines[5].contains("| 2/6 | ≥5.477 s |") && lines[5].contains("| ≥27.4× |"),
            "{}",
            lines[5]
        );
    }

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(escape("plain"), "\"plain\"");
        assert_eq!(escape("a \"q\" \\ b"), r#""a \"q\" \\ b""#);
        assert_eq!(escape("l1\nl2\tx\r"), r#""l1\nl2\tx\r""#);
        assert_eq!(escape("\u{1}≥"), "\"\\u0001≥\"");
    }

    #[test]
    fn json_rendering() {
        let v = Json::obj([
            ("n", Json::Num(3.0)),
            ("x", Json::Num(0.25)),
            ("inf", Json::Num(f64::INFINITY)),
            ("a", Json::Arr(vec![Json::Bool(true), Json::Null])),
            ("e", Json::Arr(vec![])),
            ("s", Json::str("say \"hi\"")),
        ]);
        assert_eq!(
            v.render(),
            "{\n  \"n\": 3,\n  \"x\": 0.25,\n  \"inf\": null,\n  \"a\": [\n    true,\n    null\n  ],\n  \"e\": [],\n  \"s\": \"say \\\"hi\\\"\"\n}\n"
        );
    }

    #[test]
    fn json_of_a_report_parses_back() {
        let meta = Meta {
            date: "2026-11-21".into(),
            cores: 2,
            cpu: "Some \"CPU\" @ 2.0GHz\\x".into(),
            load_before: Some([1.0, 0.5, 0.25]),
            load_after: None,
            other_cpu: Some(0.75),
            command: "cargo bench -- --json \"a b\"".into(),
            settings: match parse_args(["--quick"]).unwrap() {
                Command::Run(s) => s,
                Command::Help => unreachable!(),
            },
            subjects: vec!["string_buffer".into()],
            json: "/tmp/x.json".into(),
            wall: Duration::from_millis(1500),
        };
        let mut weird = sample();
        weird.tool[1].note = Some("wrong find: panic at std/x.rs:1:2: \"boom\"\n\ttab".into());
        let value = report_json(&meta, &[weird]);
        let text = value.render();
        let back = parse::value(&text).expect("valid JSON");
        assert_eq!(back, value);
    }

    /// A minimal JSON reader, enough to check that the rendering is valid and lossless.
    mod parse {
        use super::super::Json;

        pub fn value(s: &str) -> Result<Json, String> {
            let mut p = P {
                s: s.as_bytes(),
                i: 0,
            };
            let v = p.value()?;
            p.ws();
            if p.i != p.s.len() {
                return Err(format!("trailing text at {}", p.i));
            }
            Ok(v)
        }

        struct P<'a> {
            s: &'a [u8],
            i: usize,
        }

        impl P<'_> {
            fn ws(&mut self) {
                while self.i < self.s.len() && b" \n\r\t".contains(&self.s[self.i]) {
                    self.i += 1;
                }
            }

            fn eat(&mut self, lit: &str) -> bool {
                if self.s[self.i..].starts_with(lit.as_bytes()) {
                    self.i += lit.len();
                    true
                } else {
                    false
                }
            }

            fn value(&mut self) -> Result<Json, String> {
                self.ws();
                let c = *self.s.get(self.i).ok_or("unexpected end")?;
                match c {
                    b'n' if self.eat("null") => Ok(Json::Null),
                    b't' if self.eat("true") => Ok(Json::Bool(true)),
                    b'f' if self.eat("false") => Ok(Json::Bool(false)),
                    b'"' => self.string().map(Json::Str),
                    b'[' => {
                        self.i += 1;
                        let mut items = Vec::new();
                        self.ws();
                        if self.eat("]") {
                            return Ok(Json::Arr(items));
                        }
                        loop {
                            items.push(self.value()?);
                            self.ws();
                            if self.eat("]") {
                                return Ok(Json::Arr(items));
                            }
                            if !self.eat(",") {
                                return Err(format!("expected , or ] at {}", self.i));
                            }
                        }
                    }
                    b'{' => {
                        self.i += 1;
                        let mut pairs = Vec::new();
                        self.ws();
                        if self.eat("}") {
                            return Ok(Json::Obj(pairs));
                        }
                        loop {
                            self.ws();
                            let k = self.string()?;
                            self.ws();
                            if !self.eat(":") {
                                return Err(format!("expected : at {}", self.i));
                            }
                            pairs.push((k, self.value()?));
                            self.ws();
                            if self.eat("}") {
                                return Ok(Json::Obj(pairs));
                            }
                            if !self.eat(",") {
                                return Err(format!("expected , or }} at {}", self.i));
                            }
                        }
                    }
                    b'-' | b'0'..=b'9' => {
                        let start = self.i;
                        while self.i < self.s.len() && b"+-.eE0123456789".contains(&self.s[self.i])
                        {
                            self.i += 1;
                        }
                        let t = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                        t.parse()
                            .map(Json::Num)
                            .map_err(|_| format!("bad number {t}"))
                    }
                    _ => Err(format!("unexpected {:?} at {}", c as char, self.i)),
                }
            }

            fn string(&mut self) -> Result<String, String> {
                if !self.eat("\"") {
                    return Err(format!("expected a string at {}", self.i));
                }
                let mut out = Vec::new();
                loop {
                    let c = *self.s.get(self.i).ok_or("unterminated string")?;
                    self.i += 1;
                    match c {
                        b'"' => return String::from_utf8(out).map_err(|e| e.to_string()),
                        b'\\' => {
                            let e = *self.s.get(self.i).ok_or("bad escape")?;
                            self.i += 1;
                            let ch = match e {
                                b'"' => '"',
                                b'\\' => '\\',
                                b'/' => '/',
                                b'n' => '\n',
                                b'r' => '\r',
                                b't' => '\t',
                                b'b' => '\u{8}',
                                b'f' => '\u{c}',
                                b'u' => {
                                    let hex = std::str::from_utf8(&self.s[self.i..self.i + 4])
                                        .map_err(|e| e.to_string())?;
                                    self.i += 4;
                                    let n =
                                        u32::from_str_radix(hex, 16).map_err(|e| e.to_string())?;
                                    char::from_u32(n).ok_or("surrogate")?
                                }
                                _ => return Err(format!("bad escape at {}", self.i)),
                            };
                            let mut buf = [0; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        c if c < 0x20 => return Err("raw control character".to_string()),
                        c => out.push(c),
                    }
                }
            }
        }
    }

    #[test]
    fn arguments() {
        let run = |a: &[&str]| match parse_args(a.iter().copied()) {
            Ok(Command::Run(s)) => s,
            other => panic!("{other:?}"),
        };
        let d = run(&["--bench"]);
        assert!(d.under_bench && !d.quick && d.paper && d.naive && d.guides.is_empty());
        assert_eq!((d.seeds, d.subjects.clone()), (10, Selection::All));
        assert_eq!(
            (d.budget, d.twin_budget),
            (Duration::from_secs(10), Duration::from_secs(1))
        );
        let q = run(&["--quick", "--seeds=3"]);
        assert_eq!((q.seeds, q.subjects), (3, Selection::Quick));
        assert_eq!(q.guides, [Guide::Random, Guide::Pairs, Guide::Map]);
        assert_eq!(run(&["--quick", "--guides", "none"]).guides, []);
        assert_eq!(
            (q.budget, q.twin_budget),
            (Duration::from_secs(5), Duration::from_millis(300))
        );
        let s = run(&[
            "--subjects",
            "a, b",
            "--budget",
            "2s",
            "--baselines",
            "naive",
            "--json",
            "x.json",
        ]);
        assert_eq!(s.subjects, Selection::Named(vec!["a".into(), "b".into()]));
        assert_eq!(
            (s.budget, s.paper, s.naive),
            (Duration::from_secs(2), false, true)
        );
        assert_eq!(s.json, Some(PathBuf::from("x.json")));
        assert_eq!(parse_args(["--help"]), Ok(Command::Help));
        let all = [Guide::Random, Guide::Pairs, Guide::Map];
        assert_eq!(run(&["--guides", "all"]).guides, all);
        assert_eq!(
            run(&["--guides=map, random,map"]).guides,
            [Guide::Random, Guide::Map]
        );
        assert_eq!(run(&["--guides", "all", "--guides", "none"]).guides, []);
        let g = run(&["--baselines", "none", "--guides", "pairs", "--seeds", "5"]);
        assert_eq!(
            (g.paper, g.naive, g.guides.clone(), g.guide_twin_seeds()),
            (false, false, vec![Guide::Pairs], 3)
        );
        assert_eq!(
            run(&["--seeds", "2", "--guides", "all"]).guide_twin_seeds(),
            2
        );
        for bad in [
            &["--guides", "covcon"][..],
            &["--guides", "map,,pairs"],
            &["--guides"],
        ] {
            let e = parse_args(bad.iter().copied()).unwrap_err();
            assert!(e.starts_with("`--guides"), "{e}");
        }
        assert!(parse_args(["--guides", "fast"])
            .unwrap_err()
            .contains("expected `random`, `pairs`, `map`, `all` or `none`"));
        for bad in [
            &["--frobnicate"][..],
            &["--seeds", "0"],
            &["--seeds"],
            &["--seeds", "--quick"],
            &["--budget", "fast"],
            &["--budget", "-1s"],
            &["--twin-budget", "0"],
            &["--baselines", "paper,magic"],
            &["--subjects", "a,,b"],
            &["--quick=yes"],
            &["positional"],
        ] {
            assert!(parse_args(bad.iter().copied()).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert!(parse_duration("inf").is_err());
    }

    #[test]
    fn selection() {
        let avail = [
            ("V1", "string_buffer"),
            ("V5", "pool"),
            ("V9", "null_appender"),
        ];
        assert_eq!(select(&avail, &Selection::All).unwrap().0, vec![0, 1, 2]);
        let named = Selection::Named(vec!["pool".into(), "v1".into(), "pool".into()]);
        assert_eq!(select(&avail, &named).unwrap().0, vec![1, 0]);
        let unknown = Selection::Named(vec!["nope".into()]);
        assert!(select(&avail, &unknown)
            .unwrap_err()
            .contains("known: string_buffer"));
        assert_eq!(
            select(&avail, &Selection::Quick).unwrap(),
            (vec![0, 2], None)
        );
        let (picked, note) = select(&[("V5", "pool")], &Selection::Quick).unwrap();
        assert_eq!(picked, vec![0]);
        assert!(note.is_some());
    }

    #[test]
    fn files_compare_by_suffix() {
        let f = "corpus/src/jdk/string_buffer.rs";
        assert!(same_file(f, f));
        assert!(same_file("/work/main/corpus/src/jdk/string_buffer.rs", f));
        assert!(same_file(f, "src\\jdk\\string_buffer.rs"));
        assert!(!same_file(
            "corpus/src/jdk/my_string_buffer.rs",
            "string_buffer.rs"
        ));
        assert!(!same_file("corpus/src/jdk/other.rs", f));
        assert!(!same_file("", f));
        assert_eq!(
            location_file("corpus/src/jdk/x.rs:12:5"),
            "corpus/src/jdk/x.rs"
        );
        assert_eq!(location_file("C:\\x.rs:1:2"), "C:\\x.rs");
        assert_eq!(location_file("weird"), "weird");
    }

    #[test]
    fn dates() {
        let at = |secs: u64| utc_date(UNIX_EPOCH + Duration::from_secs(secs));
        assert_eq!(at(0), "1970-01-01");
        assert_eq!(at(951_782_400), "2000-02-29");
        assert_eq!(at(1_704_067_199), "2023-12-31");
        assert_eq!(at(1_709_164_800), "2024-02-29");
        assert_eq!(at(1_795_132_800), "2026-11-20");
    }
}
