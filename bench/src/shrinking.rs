//! What the shrinking benchmark (`cargo bench -p threadsafe-bench --bench shrinking`)
//! computes and prints: per find, the calls and reproducer lines before and after shrinking
//! and the time it took; per subject their medians; over all finds the median and the worst.

use std::fmt::Write as _;

use threadsafe_rt::Violation;

use super::header::{title_lines, Meta};
use super::settings::ShrinkSettings;
use super::stats::median;
use super::units::secs;

/// One find and what shrinking made of it.
#[derive(Clone, Debug, PartialEq)]
pub struct ShrinkFind {
    /// The check's seed.
    pub seed: u64,
    /// Whether a smaller test failed the same way.
    pub smaller: bool,
    /// Calls of the test as found (prefix, threads, post part).
    pub calls_before: usize,
    /// Calls of the test the report shows.
    pub calls_after: usize,
    /// Lines of the reproducer of the test as found.
    pub lines_before: usize,
    /// Lines of the reproducer the report shows.
    pub lines_after: usize,
    /// Smaller tests tried.
    pub candidates: usize,
    /// Time to bug, seconds.
    pub time_to_bug: f64,
    /// Time spent shrinking, seconds.
    pub shrink: f64,
}

impl ShrinkFind {
    /// The find of `v` with `seed`; `None` when the violation says nothing of shrinking
    /// (shrinking was off).
    pub fn of(seed: u64, v: &Violation) -> Option<ShrinkFind> {
        let s = v.shrunk.as_ref()?;
        Some(ShrinkFind {
            seed,
            smaller: s.smaller,
            calls_before: s.from_calls,
            calls_after: s.to_calls,
            lines_before: s.original.lines().count(),
            lines_after: v.reproducer.lines().count(),
            candidates: s.candidates,
            time_to_bug: v.time_to_bug.as_secs_f64(),
            shrink: s.time.as_secs_f64(),
        })
    }

    /// Shrinking's share of the time from the check's start to the report: shrink time over
    /// time to bug plus shrink time.
    pub fn share(&self) -> f64 {
        let whole = self.time_to_bug + self.shrink;
        if whole > 0.0 {
            self.shrink / whole
        } else {
            0.0
        }
    }
}

/// What was measured on one subject.
#[derive(Clone, Debug, PartialEq)]
pub struct ShrinkSubject {
    /// The paper's identifier.
    pub id: String,
    /// The subject's short name.
    pub name: String,
    /// Checks run (one per seed).
    pub checks: usize,
    /// The finds of the subject's bug.
    pub finds: Vec<ShrinkFind>,
}

/// A count as the table prints it: `7`, or `7.5` for a median between two.
fn count(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// A share as a percentage: `42%`, `0.4%`.
fn percent(v: f64) -> String {
    let p = v * 100.0;
    if p > 0.0 && p < 1.0 {
        format!("{p:.1}%")
    } else {
        format!("{p:.0}%")
    }
}

/// How the cells of a row come from its finds: medians, or each column's largest value.
#[derive(Clone, Copy)]
enum Pick {
    Median,
    Largest,
}

fn pick(finds: &[&ShrinkFind], how: Pick, f: impl Fn(&ShrinkFind) -> f64) -> Option<f64> {
    let v: Vec<f64> = finds.iter().map(|x| f(x)).collect();
    match how {
        Pick::Median => median(&v),
        Pick::Largest => v.into_iter().reduce(f64::max),
    }
}

/// The cells after the subject's: calls, lines, shrink time and share; `–` with no find.
fn cells(finds: &[&ShrinkFind], how: Pick) -> String {
    let arrow = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => format!("{} → {}", count(a), count(b)),
        _ => "–".to_string(),
    };
    format!(
        "{} | {} | {} | {}",
        arrow(
            pick(finds, how, |f| f.calls_before as f64),
            pick(finds, how, |f| f.calls_after as f64)
        ),
        arrow(
            pick(finds, how, |f| f.lines_before as f64),
            pick(finds, how, |f| f.lines_after as f64)
        ),
        pick(finds, how, |f| f.shrink).map_or_else(|| "–".to_string(), secs),
        pick(finds, how, ShrinkFind::share).map_or_else(|| "–".to_string(), percent),
    )
}

/// The head of the table.
pub fn shrinking_table_head() -> String {
    "| id | subject | found | smaller | calls before → after | reproducer lines before → after | shrink time | shrink share |\n\
     |---|---|---|---|---|---|---|---|\n"
        .to_string()
}

/// One subject's row: its finds and those shrunk smaller, then the medians.
pub fn shrinking_row(s: &ShrinkSubject) -> String {
    let finds: Vec<&ShrinkFind> = s.finds.iter().collect();
    format!(
        "| {} | {} | {}/{} | {}/{} | {} |\n",
        s.id,
        s.name,
        finds.len(),
        s.checks,
        finds.iter().filter(|f| f.smaller).count(),
        finds.len(),
        cells(&finds, Pick::Median)
    )
}

/// The two rows over every find of every subject: the medians, and each column's largest
/// value.
pub fn shrinking_summary_rows(subjects: &[ShrinkSubject]) -> String {
    let finds: Vec<&ShrinkFind> = subjects.iter().flat_map(|s| &s.finds).collect();
    let checks: usize = subjects.iter().map(|s| s.checks).sum();
    let smaller = finds.iter().filter(|f| f.smaller).count();
    format!(
        "|  | **median, all {n} finds** | {n}/{checks} | {smaller}/{n} | {} |\n\
         |  | **worst (largest)** |  |  | {} |\n",
        cells(&finds, Pick::Median),
        cells(&finds, Pick::Largest),
        n = finds.len(),
    )
}

/// The whole table: a row per subject, then the summary rows.
pub fn shrinking_table(subjects: &[ShrinkSubject]) -> String {
    let mut out = shrinking_table_head();
    for s in subjects {
        out.push_str(&shrinking_row(s));
    }
    out.push_str(&shrinking_summary_rows(subjects));
    out
}

/// The summary alone (head and the two rows over all finds), as the README shows it.
pub fn shrinking_summary(subjects: &[ShrinkSubject]) -> String {
    let head = shrinking_table_head().replacen("| id | subject |", "|  |  |", 1);
    format!("{head}{}", shrinking_summary_rows(subjects))
}

/// What the columns mean.
pub fn shrinking_notes() -> String {
    "- found: checks that found the subject's bug (a panic in its file, or a deadlock); \
     smaller: finds for which a smaller test failed the same way (the others keep their test: \
     before = after).\n\
     - calls: of the generated test (prefix, threads, post part), as found → as reported; \
     reproducer lines: of the ready-to-paste `#[test]` of the test as found \
     (`Shrunk::original`) → of the one the report shows (`Violation::reproducer`).\n\
     - shrink time: `Shrunk::time`; shrink share: shrink time / (time to bug + shrink time), \
     the part of the wait for a report that shrinking takes.\n\
     - per subject: medians over its finds; the summary rows: the median over all finds \
     pooled, and each column's largest value (not one find's)."
        .to_string()
}

/// The run's context, printed above the table: [`Meta`] with the benchmark's settings (it
/// writes no JSON).
pub type ShrinkMeta = Meta<ShrinkSettings>;

/// The lines above the table: date, machine, command and settings.
pub fn shrinking_header(meta: &ShrinkMeta) -> String {
    let s = &meta.settings;
    let mut out = title_lines("shrinking", meta);
    let _ = writeln!(
        out,
        "- settings: seeds 0..{}, budget {} per check, the tool = Config::default() with seed and budget, the paper's oracle for the papers' subjects and results compared for the wrong-result ones (as time_to_bug), shrinking on (its default){}",
        s.seeds,
        secs(s.budget.as_secs_f64()),
        if s.quick { "; quick mode" } else { "" }
    );
    let _ = writeln!(out, "- subjects: {}", meta.subjects.join(", "));
    let _ = writeln!(out, "- wall time: {}", secs(meta.wall.as_secs_f64()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(
        seed: u64,
        calls: (usize, usize),
        lines: (usize, usize),
        ttb: f64,
        sh: f64,
    ) -> ShrinkFind {
        ShrinkFind {
            seed,
            smaller: calls.1 < calls.0,
            calls_before: calls.0,
            calls_after: calls.1,
            lines_before: lines.0,
            lines_after: lines.1,
            candidates: 10,
            time_to_bug: ttb,
            shrink: sh,
        }
    }

    fn subjects() -> Vec<ShrinkSubject> {
        vec![
            ShrinkSubject {
                id: "V1".into(),
                name: "one".into(),
                checks: 3,
                finds: vec![
                    find(0, (9, 4), (40, 20), 0.1, 0.3),
                    find(1, (7, 7), (30, 30), 0.2, 0.2),
                ],
            },
            ShrinkSubject {
                id: "V2".into(),
                name: "two".into(),
                checks: 2,
                finds: vec![find(0, (12, 5), (50, 24), 0.5, 0.5)],
            },
            ShrinkSubject {
                id: "V3".into(),
                name: "none".into(),
                checks: 1,
                finds: vec![],
            },
        ]
    }

    #[test]
    fn shares_and_formats() {
        assert_eq!(find(0, (2, 2), (1, 1), 0.1, 0.3).share(), 0.3 / 0.4);
        assert_eq!(find(0, (2, 2), (1, 1), 0.0, 0.0).share(), 0.0);
        assert_eq!(count(7.0), "7");
        assert_eq!(count(7.5), "7.5");
        assert_eq!(percent(0.4231), "42%");
        assert_eq!(percent(0.004), "0.4%");
        assert_eq!(percent(0.0), "0%");
    }

    #[test]
    fn rows_are_medians_and_the_worst_is_each_columns_largest() {
        let s = subjects();
        let rows = shrinking_table(&s);
        let lines: Vec<&str> = rows.lines().collect();
        assert_eq!(lines.len(), 2 + 3 + 2, "{rows}");
        assert_eq!(
            lines[2],
            "| V1 | one | 2/3 | 1/2 | 8 → 5.5 | 35 → 25 | 0.250 s | 62% |"
        );
        assert_eq!(lines[4], "| V3 | none | 0/1 | 0/0 | – | – | – | – |");
        assert_eq!(
            lines[5],
            "|  | **median, all 3 finds** | 3/6 | 2/3 | 9 → 5 | 40 → 24 | 0.300 s | 50% |"
        );
        assert_eq!(
            lines[6],
            "|  | **worst (largest)** |  |  | 12 → 7 | 50 → 30 | 0.500 s | 75% |"
        );
        let summary = shrinking_summary(&s);
        assert!(summary.starts_with("|  |  | found |"), "{summary}");
        assert_eq!(summary.lines().count(), 4, "{summary}");
    }
}
