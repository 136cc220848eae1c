//! The main table: a row per subject (the tool's finds and times, the baselines', their
//! ratios, the twin's reports), then geometric means, and what its columns mean.

use std::time::Duration;

use super::model::SubjectResult;
use super::stats::{geomean, Estimate, Stats};
use super::units::{secs, thousands};

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

pub(super) fn cells(cells: &[String]) -> String {
    format!("| {} |", cells.join(" | "))
}

pub(super) fn found(s: &Option<Stats>) -> String {
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
pub(super) fn found_sum(stats: &[Option<Stats>]) -> String {
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
pub(super) fn geomean_of_medians(stats: &[Option<Stats>]) -> String {
    geomean_cell(
        stats.iter().map(|s| s.as_ref().map(|s| s.median)).collect(),
        Estimate::secs,
    )
}

/// The geometric mean of the subjects' ratios of medians `over / under`, as a ratio.
pub(super) fn geomean_of_ratios(over: &[Option<Stats>], under: &[Option<Stats>]) -> String {
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

/// A side table (guides, variants, oracles, beside): `head`, a row per subject, then, when
/// there are subjects, the last row over all of them, made by `last` with its label.
pub(super) fn rows_then_geomean(
    head: String,
    results: &[SubjectResult],
    row: impl Fn(&SubjectResult) -> String,
    last: impl Fn(&str, &[&SubjectResult]) -> String,
) -> String {
    let mut out = head;
    for r in results {
        out.push_str(&row(r));
        out.push('\n');
    }
    if results.is_empty() {
        return out;
    }
    let all: Vec<&SubjectResult> = results.iter().collect();
    let label = format!("geo-mean, all {} subject(s)", all.len());
    out.push_str(&last(&label, &all));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{miss, sample};

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
}
