//! Time to bug beside a busy neighbour (`--beside cpu-bound|COMMAND`): each subject's tool runs alone
//! against the same checks with a neighbour running (see [`neighbour`](super::neighbour)),
//! taking turns seed by seed. Per arm the finds and the median time to bug, their ratio, and
//! the CPU the other processes took during the runs beside the neighbour.

use super::machine::cores;
use super::model::{BesideResult, SubjectResult};
use super::neighbour::{Work, WARM_UP};
use super::settings::Settings;
use super::stats::Stats;
use super::table::{
    cells, found, found_sum, geomean_of_medians, geomean_of_ratios, rows_then_geomean,
};
use super::units::secs;

/// The header and separator lines of the beside table.
pub fn beside_table_head() -> String {
    let h = [
        "id",
        "subject",
        "alone found",
        "alone median",
        "alone, others' CPU (cores)",
        "beside found",
        "beside median",
        "beside, others' CPU (cores)",
        "beside / alone",
    ];
    format!("| {} |\n|{}\n", h.join(" | "), "---|".repeat(h.len()))
}

/// One subject's row of the beside table.
pub fn beside_row(r: &SubjectResult) -> String {
    let alone = r.tool_stats();
    let beside = r.beside.as_ref().and_then(BesideResult::stats);
    let median = |s: &Option<Stats>| {
        s.as_ref()
            .map_or_else(|| "-".to_string(), |s| s.median.secs())
    };
    let c = vec![
        r.id.clone(),
        r.name.clone(),
        found(&alone),
        median(&alone),
        r.beside
            .as_ref()
            .map_or_else(|| "-".to_string(), |b| cores(b.alone_other_cpu)),
        found(&beside),
        median(&beside),
        r.beside
            .as_ref()
            .map_or_else(|| "-".to_string(), |b| cores(b.other_cpu)),
        match (&beside, &alone) {
            (Some(b), Some(a)) => b.median.ratio(a.median).times(),
            _ => "-".to_string(),
        },
    ];
    cells(&c)
}

/// The last row of the beside table: the geometric means (of the medians and of the
/// ratios), the finds added up.
pub fn beside_geomean_row(label: &str, results: &[&SubjectResult]) -> String {
    let alone: Vec<Option<Stats>> = results.iter().map(|r| r.tool_stats()).collect();
    let beside: Vec<Option<Stats>> = results
        .iter()
        .map(|r| r.beside.as_ref().and_then(BesideResult::stats))
        .collect();
    let c = vec![
        String::new(),
        format!("**{label}**"),
        found_sum(&alone),
        geomean_of_medians(&alone),
        String::new(),
        found_sum(&beside),
        geomean_of_medians(&beside),
        String::new(),
        geomean_of_ratios(&beside, &alone),
    ];
    cells(&c)
}

/// The beside table: a row per subject, then the geometric means.
pub fn beside_table(results: &[SubjectResult]) -> String {
    rows_then_geomean(beside_table_head(), results, beside_row, beside_geomean_row)
}

/// What the beside table's columns mean, for below it.
pub fn beside_notes(settings: &Settings) -> String {
    let neighbour = match Work::parse(settings.beside.as_deref().unwrap_or("(none)")) {
        Work::Command(command) => format!(
            "`{command}` runs in a loop in its own process group, started {} before the check",
            secs(WARM_UP.as_secs_f64())
        ),
        Work::CpuBound => "CPU-bound work runs on a thread per core (`cpu-bound`: primes by \
                           trial division, as a crate's own tests would), started before the \
                           check once it is busy"
            .to_string(),
        Work::Spin => "a process spins on one core (`spin`), started before the check once it \
                       is busy"
            .to_string(),
    };
    format!(
        "Beside: each subject's buggy type checked again with the tool's config while \
         {neighbour} and killed (with everything it started) after it; alone: the tool's \
         runs of the table above. The two take turns seed by seed, seeds 0..{}, each with the \
         budget {}; a find counts as above, a miss counts as the budget (≥). Others' CPU: the \
         cores other processes kept busy during the checks (the machine's busy time less \
         this process's), on average. beside / alone: the ratio of the medians, above 1 when \
         the neighbour slows the find (≥, ≤, ~ carry the bounds). Last row: geometric means, \
         the finds added up.",
        settings.seeds,
        secs(settings.budget.as_secs_f64()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{hit, miss, sample, settings};

    fn with_beside() -> SubjectResult {
        let mut r = sample();
        r.beside = Some(BesideResult {
            runs: vec![hit(0.4), hit(0.6), miss()],
            other_cpu: Some(1.9),
            alone_other_cpu: Some(0.05),
        });
        r
    }

    #[test]
    fn a_beside_row() {
        // Alone 0.1, 0.3, 0.2 → 0.2 s; beside 0.4, 0.6, ≥10 → 0.6 s.
        assert_eq!(
            beside_row(&with_beside()),
            "| V1 | string_buffer | 3/3 | 0.200 s | 0.05 | 2/3 | 0.600 s | 1.90 | 3.00× |"
        );
        assert_eq!(
            beside_row(&sample()),
            "| V1 | string_buffer | 3/3 | 0.200 s | - | - | - | - | - |"
        );
        let t = beside_table(&[with_beside()]);
        let last = t.lines().last().unwrap();
        assert!(
            last.starts_with("|  | **geo-mean, all 1 subject(s)** | 3/3 | 0.200 s |"),
            "{last}"
        );
        assert!(last.ends_with("| 3.00× |"), "{last}");
    }

    #[test]
    fn the_neighbour_is_named_in_the_notes() {
        let s = settings(["--beside", "cargo test -p x", "--seeds", "3"]);
        let notes = beside_notes(&s);
        assert!(notes.contains("while `cargo test -p x` runs"), "{notes}");
        assert!(notes.contains("seeds 0..3"), "{notes}");
        let s = settings(["--beside", "cpu-bound"]);
        assert!(beside_notes(&s).contains("thread per core"));
    }
}
