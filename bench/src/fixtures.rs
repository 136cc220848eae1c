//! Runs and results the tests of these modules share.

use std::time::Duration;

use threadsafe_rt::Guide;

use super::cli::parse_args;
use super::header::Meta;
use super::json::Json;
use super::model::{CoverageCounts, GuideResult, SubjectResult, TwinCheck};
use super::settings::Settings;
use super::stats::Run;

/// The value of `key` in the JSON object `v` (`None` if `v` is not an object or lacks it).
pub(super) fn get(v: &Json, key: &str) -> Option<Json> {
    match v {
        Json::Obj(pairs) => pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()),
        _ => None,
    }
}

pub(super) fn hit(seconds: f64) -> Run {
    Run::found(0, seconds, Some(3), Some(300))
}

pub(super) fn miss() -> Run {
    Run::missed(0, Duration::from_secs(10))
}

pub(super) fn sample() -> SubjectResult {
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
        jobs: None,
        schedules: None,
        strategies: None,
        oracles: None,
        beside: None,
    }
}

pub(super) fn twin_check(seed: u64, covered: u64, feasible: u64) -> TwinCheck {
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
pub(super) fn with_guides() -> SubjectResult {
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

/// The settings `args` give.
pub(super) fn settings<const N: usize>(args: [&str; N]) -> Settings {
    match parse_args(args).unwrap() {
        Some(s) => s,
        None => unreachable!(),
    }
}

/// The context of a run with `settings`, on a plain machine.
pub(super) fn meta(settings: Settings) -> Meta {
    Meta {
        date: "2026-11-21".into(),
        cores: 2,
        cpu: "cpu".into(),
        load_before: None,
        load_after: None,
        other_cpu: None,
        command: "cargo bench".into(),
        settings,
        subjects: vec!["string_buffer".into()],
        json: Some("/tmp/x.json".into()),
        wall: Duration::from_secs(1),
    }
}
