//! The guides compared (`--guides`), and their table: per guide the finds and the median time
//! to bug, the ratios of the medians, the twin's MAP-coverage; then geometric means.

use threadsafe_rt::Guide;

use super::model::{guide_name, guide_ratios, GuideResult, SubjectResult};
use super::settings::Settings;
use super::stats::Stats;
use super::table::{
    cells, found, found_sum, geomean_of_medians, geomean_of_ratios, rows_then_geomean,
};
use super::units::secs;

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
    rows_then_geomean(
        guides_table_head(guides),
        results,
        |r| guides_row(r, guides),
        |label, all| guides_geomean_row(label, all, guides),
    )
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{hit, meta, miss, settings, twin_check, with_guides};
    use crate::header::header;

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
        let settings = settings(["--guides", "pairs,map", "--seeds", "2"]);
        let notes = guides_notes(&settings);
        assert!(
            notes.contains("seeds 0..2, each with the budget 10.0 s"),
            "{notes}"
        );
        assert!(notes.contains("a check of 1.000 s with that guide, median over seeds 0..2"));
        assert!(notes.contains("17× faster than CovCon"));
        let meta = meta(settings);
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
}
