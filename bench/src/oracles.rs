//! The two oracles side by side (`--oracles`): results compared against the paper's (panics
//! and deadlocks only), same subjects, same seeds. Per oracle the finds and the median time
//! to bug, the ratio of the medians, and how many of the finds under results compared were
//! wrong results (seen before any panic or deadlock of the same check); then geometric means.

use super::model::{OracleResult, SubjectResult};
use super::settings::Settings;
use super::stats::Stats;
use super::table::{
    cells, found, found_sum, geomean_of_medians, geomean_of_ratios, rows_then_geomean,
};
use super::units::secs;

fn stats_of(results: &[&SubjectResult], oracle: bool) -> Vec<Option<Stats>> {
    results
        .iter()
        .map(|r| r.oracle(oracle).and_then(OracleResult::stats))
        .collect()
}

/// The header and separator lines of the oracles table.
pub fn oracles_table_head() -> String {
    let h = [
        "id",
        "subject",
        "results found",
        "results median",
        "panics found",
        "panics median",
        "results / panics",
        "finds by a wrong result",
    ];
    format!("| {} |\n|{}\n", h.join(" | "), "---|".repeat(h.len()))
}

/// One subject's row of the oracles table.
pub fn oracles_row(r: &SubjectResult) -> String {
    let stats = |oracle: bool| r.oracle(oracle).and_then(OracleResult::stats);
    let mut c = vec![r.id.clone(), r.name.clone()];
    for oracle in [true, false] {
        let s = stats(oracle);
        c.push(found(&s));
        c.push(s.map_or_else(|| "-".to_string(), |s| s.median.secs()));
    }
    c.push(match (stats(true), stats(false)) {
        (Some(a), Some(b)) => a.median.ratio(b.median).times(),
        _ => "-".to_string(),
    });
    c.push(match r.oracle(true) {
        Some(o) => format!(
            "{}/{}",
            o.wrong_results(),
            o.runs.iter().filter(|r| r.found).count()
        ),
        None => "-".to_string(),
    });
    cells(&c)
}

/// The last row of the oracles table: the finds added up, the geometric means of the
/// medians and of the ratios, the wrong-result finds added up.
pub fn oracles_geomean_row(label: &str, results: &[&SubjectResult]) -> String {
    let mut c = vec![String::new(), format!("**{label}**")];
    let (with, without) = (stats_of(results, true), stats_of(results, false));
    c.extend([found_sum(&with), geomean_of_medians(&with)]);
    c.extend([found_sum(&without), geomean_of_medians(&without)]);
    c.push(geomean_of_ratios(&with, &without));
    let (wrong, finds) = results
        .iter()
        .filter_map(|r| r.oracle(true))
        .fold((0, 0), |(w, f), o| {
            (
                w + o.wrong_results(),
                f + o.runs.iter().filter(|r| r.found).count(),
            )
        });
    c.push(format!("{wrong}/{finds}"));
    cells(&c)
}

/// The oracles table: a row per subject, then the geometric means over all of them.
pub fn oracles_table(results: &[SubjectResult]) -> String {
    rows_then_geomean(
        oracles_table_head(),
        results,
        oracles_row,
        oracles_geomean_row,
    )
}

/// What the oracles table's columns mean, for below it.
pub fn oracles_notes(settings: &Settings) -> String {
    format!(
        "Each subject's buggy type is checked with the tool's config twice per seed, seeds \
         0..{}, each with the budget {}, the two oracles taking turns: `results` compares \
         return values and the post part's observations with those of every sequential \
         order (Config::results = true), `panics` is the paper's oracle (panics and \
         deadlocks only). Under `panics` a find counts as in the table above; under \
         `results` a wrong result counts too, on every subject: the twins, which differ \
         from the buggy types only in the bug, stay quiet with results compared, so a wrong \
         result on a buggy type is its bug seen earlier. The run with the oracle the harness \
         uses for the subject (results for W subjects, panics otherwise) is the tool's run \
         of the table above. Found and median as above: a miss counts as the budget, ≥ \
         marks a median with a miss in it. results / panics: the first's median over the \
         second's, below 1 when comparing results finds the bug sooner (≥, ≤, ~ carry the \
         bounds). Finds by a wrong result: of the finds under `results`, those whose first \
         violation was a wrong result rather than the panic or deadlock. Last row: \
         geometric means of the medians and of the ratios, the counts added up.",
        settings.seeds,
        secs(settings.budget.as_secs_f64()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{get, hit, meta, miss, sample, settings};
    use crate::header::header;
    use crate::json::{parse, Json};
    use crate::report_json::report_json;
    use crate::stats::Run;

    fn wrong_at(seconds: f64) -> Run {
        let mut r = hit(seconds);
        r.symptom = Some("wrong result");
        r
    }

    /// `sample()` with the panic oracle at the tool's runs (median 0.2 s) and results
    /// compared finding twice by a wrong result and once by the panic (median 0.1 s).
    fn with_oracles() -> SubjectResult {
        let mut r = sample();
        r.oracles = Some(vec![
            OracleResult {
                results: true,
                runs: vec![wrong_at(0.05), hit(0.1), wrong_at(0.3)],
            },
            OracleResult {
                results: false,
                runs: r.tool.clone(),
            },
        ]);
        r
    }

    #[test]
    fn an_oracles_row() {
        assert_eq!(
            oracles_row(&with_oracles()),
            "| V1 | string_buffer | 3/3 | 0.100 s | 3/3 | 0.200 s | 0.50× | 2/3 |"
        );
        let head = oracles_table_head();
        assert_eq!(
            head.lines().next().unwrap(),
            "| id | subject | results found | results median | panics found | panics median \
             | results / panics | finds by a wrong result |"
        );
        assert_eq!(
            oracles_row(&sample()),
            "| V1 | string_buffer | - | - | - | - | - | - |"
        );
    }

    #[test]
    fn the_oracles_table_ends_with_geometric_means() {
        let mut other = with_oracles();
        other.id = "W1".into();
        // A wrong-result subject: the panic oracle never finds it.
        other.oracles = Some(vec![
            OracleResult {
                results: true,
                runs: vec![wrong_at(0.4); 3],
            },
            OracleResult {
                results: false,
                runs: vec![miss(); 3],
            },
        ]);
        let t = oracles_table(&[with_oracles(), other]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 2 + 2 + 1);
        assert!(
            lines[3].ends_with("| 3/3 | 0.400 s | 0/3 | ≥10.0 s | ≤0.040× | 3/3 |"),
            "{}",
            lines[3]
        );
        // results: 0.1 s and 0.4 s → 0.2 s; panics: 0.2 s and ≥10 s → ≥1.41 s.
        assert!(
            lines[4].starts_with("|  | **geo-mean, all 2 subject(s)** | 6/6 | 0.200 s | 3/6 |"),
            "{}",
            lines[4]
        );
        assert!(lines[4].ends_with("| 5/6 |"), "{}", lines[4]);
    }

    #[test]
    fn the_oracles_are_described_and_in_the_json() {
        let s = settings(["--oracles", "--seeds", "4"]);
        let notes = oracles_notes(&s);
        assert!(
            notes.contains("seeds 0..4, each with the budget 10.0 s"),
            "{notes}"
        );
        let meta = meta(s);
        assert!(
            header(&meta).contains("; oracles compared: results, panics"),
            "{}",
            header(&meta)
        );
        let value = report_json(&meta, &[with_oracles(), sample()]);
        assert_eq!(parse::value(&value.render()).expect("valid JSON"), value);
        let settings = get(&value, "settings").unwrap();
        assert_eq!(get(&settings, "oracles"), Some(Json::Bool(true)));
        let Some(Json::Arr(subjects)) = get(&value, "subjects") else {
            panic!("no subjects")
        };
        let Some(Json::Arr(oracles)) = get(&subjects[0], "oracles") else {
            panic!("no oracles")
        };
        assert_eq!(get(&oracles[0], "oracle"), Some(Json::str("results")));
        assert_eq!(get(&oracles[0], "wrong_results"), Some(Json::Num(2.0)));
        let Some(Json::Obj(buggy)) = get(&oracles[0], "buggy") else {
            panic!("no runs")
        };
        let Some((_, Json::Arr(runs))) = buggy.iter().find(|(k, _)| k == "runs") else {
            panic!("no runs")
        };
        assert_eq!(get(&runs[0], "symptom"), Some(Json::str("wrong result")));
        assert_eq!(
            get(&subjects[1], "oracles"),
            Some(Json::Null),
            "not compared"
        );
    }
}
