//! The harness's JSON file: the context, the settings, and every subject's runs, statistics
//! and guides, with each estimate's bound spelled out.

use threadsafe_rt::Guide;

use super::header::Meta;
use super::json::Json;
use super::model::{
    guide_name, guide_ratios, oracle_name, schedule_label, strategy_label, CoverageCounts,
    GuideResult, SubjectResult, Variant,
};
use super::stats::{Estimate, Run, Stats};

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
                ("symptom", Json::opt(r.symptom, Json::str)),
                (
                    "arm",
                    Json::opt(r.controlled, |c| {
                        Json::str(if c { "controlled" } else { "free-running" })
                    }),
                ),
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

/// Each compared variant's label and runs.
fn variants_json(variants: &[Variant]) -> Json {
    Json::Arr(
        variants
            .iter()
            .map(|v| {
                Json::obj([
                    ("label", Json::str(&v.label)),
                    ("buggy", runs_json(&v.runs)),
                ])
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
        ("jobs", Json::opt(r.jobs.as_deref(), variants_json)),
        (
            "schedules",
            Json::opt(r.schedules.as_deref(), variants_json),
        ),
        (
            "strategies",
            Json::opt(r.strategies.as_deref(), variants_json),
        ),
        (
            "beside",
            Json::opt(r.beside.as_ref(), |b| {
                Json::obj([
                    ("buggy", runs_json(&b.runs)),
                    ("other_cpu_cores", Json::opt(b.other_cpu, Json::Num)),
                    (
                        "alone_other_cpu_cores",
                        Json::opt(b.alone_other_cpu, Json::Num),
                    ),
                ])
            }),
        ),
        (
            "oracles",
            Json::opt(r.oracles.as_deref(), |o| {
                Json::Arr(
                    o.iter()
                        .map(|o| {
                            Json::obj([
                                ("oracle", Json::str(oracle_name(o.results))),
                                ("buggy", runs_json(&o.runs)),
                                ("wrong_results", Json::Num(o.wrong_results() as f64)),
                            ])
                        })
                        .collect(),
                )
            }),
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
                (
                    "jobs",
                    Json::Arr(s.jobs.iter().map(|&n| Json::Num(n as f64)).collect()),
                ),
                (
                    "schedules",
                    Json::Arr(
                        s.schedules
                            .iter()
                            .map(|&m| Json::str(schedule_label(m)))
                            .collect(),
                    ),
                ),
                (
                    "strategies",
                    Json::Arr(
                        s.strategies
                            .iter()
                            .map(|&t| Json::str(strategy_label(t)))
                            .collect(),
                    ),
                ),
                ("oracles", Json::Bool(s.oracles)),
                ("beside", Json::opt(s.beside.as_deref(), Json::str)),
                ("quick", Json::Bool(s.quick)),
                (
                    "subjects",
                    Json::Arr(meta.subjects.iter().map(Json::str).collect()),
                ),
                ("json", Json::opt(meta.json.as_deref(), Json::str)),
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
    use std::time::Duration;

    use super::*;
    use crate::fixtures::{get, meta, miss, sample, settings, with_guides};
    use crate::json::parse;

    #[test]
    fn guides_json_parses_back() {
        let meta = Meta {
            command: "cargo bench -- --guides all".into(),
            ..meta(settings(["--guides", "all", "--seeds", "2"]))
        };
        let value = report_json(&meta, &[with_guides(), sample()]);
        let text = value.render();
        assert_eq!(parse::value(&text).expect("valid JSON"), value);
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

    #[test]
    fn json_of_a_report_parses_back() {
        let meta = Meta {
            cpu: "Some \"CPU\" @ 2.0GHz\\x".into(),
            load_before: Some([1.0, 0.5, 0.25]),
            other_cpu: Some(0.75),
            command: "cargo bench -- --json \"a b\"".into(),
            wall: Duration::from_millis(1500),
            ..meta(settings(["--quick"]))
        };
        let mut weird = sample();
        weird.tool[1].note = Some("wrong find: panic at std/x.rs:1:2: \"boom\"\n\ttab".into());
        let value = report_json(&meta, &[weird]);
        let text = value.render();
        let back = parse::value(&text).expect("valid JSON");
        assert_eq!(back, value);
    }

    #[test]
    fn each_find_names_the_arm_that_found_it_and_a_miss_none() {
        let mut subject = sample();
        subject.tool[0].controlled = Some(true);
        subject.tool[1].controlled = Some(false);
        subject.tool.push(miss());
        let value = report_json(&meta(settings(["--quick"])), &[subject]);
        let Some(Json::Arr(subjects)) = get(&value, "subjects") else {
            panic!("no subjects")
        };
        let tool = get(&subjects[0], "tool").unwrap();
        let Some(Json::Arr(runs)) = get(&tool, "runs") else {
            panic!("no runs")
        };
        let arms: Vec<_> = runs.iter().map(|r| get(r, "arm")).collect();
        assert_eq!(
            arms,
            [
                Some(Json::str("controlled")),
                Some(Json::str("free-running")),
                Some(Json::Null),
                Some(Json::Null),
            ]
        );
    }
}
