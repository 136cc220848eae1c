//! The coverage a check reached, as the report shows it.

use std::fmt;

/// Where the feasible patterns came from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum UniverseSource {
    /// The sites seen in sequential runs of the concurrent methods (`methods_run` of
    /// `methods` ran), plus `later_sites` sites first seen in concurrent executions.
    SequentialRuns {
        /// Methods whose sequential run was recorded.
        methods_run: usize,
        /// Concurrent methods.
        methods: usize,
        /// Sites added from concurrent executions.
        later_sites: usize,
    },
    /// No sequential run accessed a variable: the paper's static estimate, every statement
    /// of the annotated methods with the fields of `self` it names.
    StaticEstimate,
}

/// Covered and feasible patterns of one kind of Table I.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatternCount {
    /// The pattern, 1 to 17.
    pub pattern: u8,
    /// Its shape, e.g. `a:R x, b:W x, a:R x`.
    pub shape: &'static str,
    /// Feasible instances covered.
    pub covered: u64,
    /// Feasible instances.
    pub feasible: u64,
}

/// The MAP-coverage a check reached: memory-access patterns covered by its controlled
/// executions, over the feasible ones; and CovCon's method-pair coverage.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct MapCoverage {
    /// Feasible patterns covered.
    pub covered: u64,
    /// Feasible patterns (the denominator).
    pub feasible: u64,
    /// Where the feasible patterns came from.
    pub universe: UniverseSource,
    /// The 17 kinds, in order.
    pub per_pattern: Vec<PatternCount>,
    /// Uncovered patterns that involve the most sites (up to five), described.
    pub uncovered: Vec<String>,
    /// The shared variables, named.
    pub variables: Vec<String>,
    /// Pairs of concurrent methods run against each other.
    pub pairs_covered: usize,
    /// Pairs of concurrent methods (a method with itself included).
    pub pairs_total: u64,
    /// Controlled executions read, and how many had an access sequence not seen before.
    pub executions: u64,
    /// Executions with a new access sequence (only those are matched).
    pub distinct_executions: u64,
    /// Executions with new steps that were not read: under guides other than `map` the
    /// check reads them after its last test, for at most a quarter of its budget; their
    /// patterns may be missing from `covered`.
    pub unmatched: u64,
}

impl MapCoverage {
    /// The coverage in one line, for a report that is not verbose.
    pub fn one_line(&self) -> String {
        let pct = self
            .ratio()
            .map_or("-".to_string(), |r| format!("{:.1}%", r * 100.0));
        format!(
            "  MAP-coverage: {}/{} feasible memory-access patterns ({pct}); method pairs run concurrently: {}/{}; {} controlled executions (THREADSAFE_VERBOSE=on for the detail)",
            self.covered, self.feasible, self.pairs_covered, self.pairs_total, self.executions
        )
    }

    /// Covered over feasible, `None` when nothing is feasible.
    pub fn ratio(&self) -> Option<f64> {
        (self.feasible > 0).then(|| self.covered as f64 / self.feasible as f64)
    }
}

/// The shapes of Table I, written out.
pub(super) const SHAPES: [&str; 17] = [
    "a:R x, b:W x",
    "a:W x, b:R x",
    "a:W x, b:W x",
    "a:R x, b:W x, a:R x",
    "a:W x, b:W x, a:R x",
    "a:W x, b:R x, a:W x",
    "a:R x, b:W x, a:W x",
    "a:W x, b:W x, a:W x",
    "a:W x, b:W x, b:W y, a:W y",
    "a:W x, b:W y, b:W x, a:W y",
    "a:W x, b:W y, a:W y, b:W x",
    "a:W x, b:R x, b:R y, a:W y",
    "a:W x, b:R y, b:R x, a:W y",
    "a:R x, b:W x, b:W y, a:R y",
    "a:R x, b:W y, b:W x, a:R y",
    "a:R x, b:W y, a:R y, b:W x",
    "a:W x, b:R y, a:W y, b:R x",
];

impl fmt::Display for MapCoverage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pct = self
            .ratio()
            .map_or("-".to_string(), |r| format!("{:.1}%", r * 100.0));
        writeln!(
            f,
            "  MAP-coverage: {}/{} feasible memory-access patterns ({pct}) over {} shared variable(s)",
            self.covered,
            self.feasible,
            self.variables.len()
        )?;
        match &self.universe {
            UniverseSource::SequentialRuns {
                methods_run,
                methods,
                later_sites,
            } => {
                write!(
                    f,
                    "    feasible: from the sites seen in sequential runs of {methods_run}/{methods} methods"
                )?;
                if *later_sites > 0 {
                    write!(f, ", plus {later_sites} site(s) first seen in concurrent runs")?;
                }
                writeln!(f)?;
            }
            UniverseSource::StaticEstimate => writeln!(
                f,
                "    feasible: static estimate (the statements of the annotated methods and the fields they name)"
            )?,
        }
        if !self.variables.is_empty() {
            writeln!(f, "    variables: {}", self.variables.join(", "))?;
        }
        let kinds: Vec<String> = self
            .per_pattern
            .iter()
            .filter(|p| p.feasible > 0)
            .map(|p| format!("#{} {}/{}", p.pattern, p.covered, p.feasible))
            .collect();
        if !kinds.is_empty() {
            writeln!(f, "    per pattern: {}", kinds.join(", "))?;
        }
        if !self.uncovered.is_empty() {
            writeln!(f, "    uncovered, most sites first:")?;
            for u in &self.uncovered {
                writeln!(f, "      - {u}")?;
            }
        }
        writeln!(
            f,
            "    method pairs run concurrently: {}/{}; {} controlled executions, {} with a new access sequence",
            self.pairs_covered, self.pairs_total, self.executions, self.distinct_executions
        )?;
        if self.unmatched > 0 {
            writeln!(
                f,
                "    note: {} more executions with new steps were not read (time cap after the last test): the coverage may be higher",
                self.unmatched
            )?;
        }
        Ok(())
    }
}
