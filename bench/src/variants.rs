//! Variants of the tool's config against each other on every subject, taking turns seed by
//! seed: job counts (`--jobs 1,2`: `Config::jobs`, hunts at once in one check), scheduling
//! modes (`--schedules auto,controlled,stress`: `Config::schedule`) and strategies
//! (`--strategies random,pct,dfs`: `Config::strategy`). Per variant the finds, the median
//! time to bug and the median executions to bug, the ratio of each variant's median to the
//! first's; then geometric means.
//!
//! `Config::jobs = n` runs `n` independent hunts of the type in one check, each with its own
//! seed of the seed stream (job 0 hunts with the base seed, as one job does), and stops at
//! the first violation; its executions to bug are all hunts' executions.

use threadsafe_rt::{ScheduleMode, Strategy};

use super::model::{jobs_label, schedule_label, strategy_label, SubjectResult, Variant};
use super::settings::Settings;
use super::stats::Stats;
use super::table::{
    cells, found, found_sum, geomean_of_medians, geomean_of_ratios, rows_then_geomean,
};
use super::units::{secs, thousands};

/// Which variants a table compares: the subject's runs of them, and their labels.
#[derive(Clone, Copy)]
pub struct Compared<'a> {
    /// The subject's variants of this kind, if they were compared.
    pub of: fn(&SubjectResult) -> Option<&[Variant]>,
    /// The labels, in the order given; the first is the base of the ratios.
    pub labels: &'a [String],
}

impl Compared<'_> {
    fn stats(&self, r: &SubjectResult, label: &str) -> Option<Stats> {
        (self.of)(r)?
            .iter()
            .find(|v| v.label == label)
            .and_then(Variant::stats)
    }

    fn stats_of(&self, results: &[&SubjectResult], label: &str) -> Vec<Option<Stats>> {
        results.iter().map(|r| self.stats(r, label)).collect()
    }
}

/// The header and separator lines of a variants table: per variant found, median and
/// executions to bug, then each later variant's median over the first's.
pub fn variants_table_head(labels: &[String]) -> String {
    let mut h = vec!["id".to_string(), "subject".to_string()];
    for l in labels {
        h.push(format!("{l} found"));
        h.push(format!("{l} median"));
        h.push(format!("{l} executions to bug"));
    }
    if let Some((first, rest)) = labels.split_first() {
        for l in rest {
            h.push(format!("{l} / {first}"));
        }
    }
    format!("| {} |\n|{}\n", h.join(" | "), "---|".repeat(h.len()))
}

/// One subject's row of a variants table.
pub fn variants_row(r: &SubjectResult, compared: Compared) -> String {
    let labels = compared.labels;
    let mut c = vec![r.id.clone(), r.name.clone()];
    for l in labels {
        let s = compared.stats(r, l);
        c.push(found(&s));
        c.push(
            s.as_ref()
                .map_or_else(|| "-".to_string(), |s| s.median.secs()),
        );
        c.push(
            s.and_then(|s| s.median_executions)
                .map_or_else(|| "-".to_string(), thousands),
        );
    }
    if let Some((first, rest)) = labels.split_first() {
        for l in rest {
            c.push(match (compared.stats(r, l), compared.stats(r, first)) {
                (Some(a), Some(b)) => a.median.ratio(b.median).times(),
                _ => "-".to_string(),
            });
        }
    }
    cells(&c)
}

/// The last row of a variants table: per variant the finds added up and the geometric mean
/// of the medians; the geometric means of the ratios.
pub fn variants_geomean_row(label: &str, results: &[&SubjectResult], compared: Compared) -> String {
    let mut c = vec![String::new(), format!("**{label}**")];
    for l in compared.labels {
        let s = compared.stats_of(results, l);
        c.extend([found_sum(&s), geomean_of_medians(&s), String::new()]);
    }
    if let Some((first, rest)) = compared.labels.split_first() {
        let under = compared.stats_of(results, first);
        for l in rest {
            c.push(geomean_of_ratios(&compared.stats_of(results, l), &under));
        }
    }
    cells(&c)
}

/// A variants table: a row per subject, then the geometric means over all of them.
pub fn variants_table(results: &[SubjectResult], compared: Compared) -> String {
    rows_then_geomean(
        variants_table_head(compared.labels),
        results,
        |r| variants_row(r, compared),
        |label, all| variants_geomean_row(label, all, compared),
    )
}

/// The jobs table (`--jobs`).
pub fn jobs_table(results: &[SubjectResult], jobs: &[usize]) -> String {
    let labels: Vec<String> = jobs.iter().map(|&n| jobs_label(n)).collect();
    variants_table(
        results,
        Compared {
            of: |r| r.jobs.as_deref(),
            labels: &labels,
        },
    )
}

/// The schedules table (`--schedules`).
pub fn schedules_table(results: &[SubjectResult], modes: &[ScheduleMode]) -> String {
    let labels: Vec<String> = modes.iter().map(|&m| schedule_label(m)).collect();
    variants_table(
        results,
        Compared {
            of: |r| r.schedules.as_deref(),
            labels: &labels,
        },
    )
}

/// The strategies table (`--strategies`).
pub fn strategies_table(results: &[SubjectResult], strategies: &[Strategy]) -> String {
    let labels: Vec<String> = strategies.iter().map(|&s| strategy_label(s)).collect();
    variants_table(
        results,
        Compared {
            of: |r| r.strategies.as_deref(),
            labels: &labels,
        },
    )
}

/// The ratios' reading and the last row's, shared by the notes.
const READING: &str = "Found and median as above: a miss counts as the budget, ≥ marks a \
     median with a miss in it. Executions to bug: median over the finds. A ratio M / N is \
     M's median over N's, below 1 when M finds the bug sooner: ≥ when M's median is censored, \
     ≤ when N's is, ~ when both are. Last row: geometric means of the medians and of the \
     ratios, the finds added up.";

/// What the jobs table's columns mean, for below it.
pub fn jobs_notes(settings: &Settings) -> String {
    let counts: Vec<String> = settings.jobs.iter().map(|n| n.to_string()).collect();
    format!(
        "Each job count is the tool's config (Config::default() with seed and budget) with \
         `jobs` set ({}): that many independent hunts in one check, each with its own seed \
         of the seed stream (job 0's is the check's seed, so one job is the tool's run above), \
         the first violation stopping them all. On each subject the job counts take turns \
         seed by seed, seeds 0..{}, each with the budget {}; a find counts as in the table \
         above. {READING} Executions to bug add up all hunts' executions. The hunts of a \
         check share the machine's cores: on fewer cores than hunts × the threads each hunt \
         runs, more jobs do not add throughput, only more independent seeds.",
        counts.join(", "),
        settings.seeds,
        secs(settings.budget.as_secs_f64()),
    )
}

/// What the schedules table's columns mean, for below it.
pub fn schedules_notes(settings: &Settings) -> String {
    let modes: Vec<String> = settings
        .schedules
        .iter()
        .map(|&m| schedule_label(m))
        .collect();
    format!(
        "Each scheduling mode is the tool's config (Config::default() with seed and budget) \
         with `schedule` set ({}): `auto`, the default, runs a test free-running when its \
         calls reach at most one scheduling point each, else a controlled batch of a fifth of \
         the executions followed by a free-running batch of all of them, the free executions \
         getting an adaptive share of the time \
         (what does not fit after the controlled batches goes to free-running tests of their \
         own); `controlled` only under the controlled scheduler; `stress` only free-running. \
         `auto`'s runs are the tool's runs above. On each subject the modes take turns seed \
         by seed, seeds 0..{}, each with the budget {}; a find counts as in the table above. \
         {READING}",
        modes.join(", "),
        settings.seeds,
        secs(settings.budget.as_secs_f64()),
    )
}

/// What the strategies table's columns mean, for below it.
pub fn strategies_notes(settings: &Settings) -> String {
    let strategies: Vec<String> = settings
        .strategies
        .iter()
        .map(|&s| strategy_label(s))
        .collect();
    format!(
        "Each strategy is the tool's config (Config::default() with seed and budget, \
         `schedule = auto`) with `strategy` set ({}): who runs next at each scheduling point \
         of a controlled execution. `random`, the default, picks uniformly among the runnable \
         threads; `pctD` is PCT for bugs of depth D (random priorities, D - 1 change points); \
         `dfsK` runs every schedule of a test with at most K preemptions, depth first, and \
         then ends the test's controlled batch (past a limit of schedules per test, random \
         ones follow), so its controlled batches are as long as the tests' explorations, not \
         a fixed count. Only `auto`'s controlled arm differs: a test whose calls reach \
         at most one scheduling point each runs free-running only, alike under every \
         strategy. `random`'s runs are the tool's runs above. On each subject the strategies \
         take turns seed by seed, seeds 0..{}, each with the budget {}; a find counts as in \
         the table above. {READING} Executions to bug count the controlled and the \
         free-running executions alike.",
        strategies.join(", "),
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

    fn labels(jobs: &[usize]) -> Vec<String> {
        jobs.iter().map(|&n| jobs_label(n)).collect()
    }

    fn jobs_row(r: &SubjectResult, jobs: &[usize]) -> String {
        let labels = labels(jobs);
        let compared = Compared {
            of: |r| r.jobs.as_deref(),
            labels: &labels,
        };
        variants_row(r, compared)
    }

    /// `sample()` with one job at the tool's runs (median 0.2 s) and two jobs at 0.1 s,
    /// 0.1 s and a miss (median 0.1 s).
    fn with_jobs() -> SubjectResult {
        let mut r = sample();
        r.jobs = Some(vec![
            Variant {
                label: jobs_label(1),
                runs: r.tool.clone(),
            },
            Variant {
                label: jobs_label(2),
                runs: vec![hit(0.1), miss(), hit(0.1)],
            },
        ]);
        r
    }

    #[test]
    fn a_jobs_row() {
        let r = with_jobs();
        assert_eq!(
            jobs_row(&r, &[1, 2]),
            "| V1 | string_buffer | 3/3 | 0.200 s | 300 | 2/3 | 0.100 s | 300 | 0.50× |"
        );
        let head = variants_table_head(&labels(&[1, 2]));
        assert_eq!(
            head.lines().next().unwrap(),
            "| id | subject | jobs=1 found | jobs=1 median | jobs=1 executions to bug \
             | jobs=2 found | jobs=2 median | jobs=2 executions to bug | jobs=2 / jobs=1 |"
        );
        assert_eq!(
            head.lines().nth(1).unwrap(),
            format!("|{}", "---|".repeat(9))
        );
        // A count that did not run is `-`, and so is its ratio.
        assert_eq!(
            jobs_row(&r, &[1, 4]),
            "| V1 | string_buffer | 3/3 | 0.200 s | 300 | - | - | - | - |"
        );
        assert_eq!(
            jobs_row(&sample(), &[1, 2]),
            "| V1 | string_buffer | - | - | - | - | - | - | - |"
        );
    }

    #[test]
    fn ratios_carry_the_bounds() {
        let mut r = with_jobs();
        // Two jobs miss twice: their median is censored, so the ratio is at least.
        r.jobs.as_mut().unwrap()[1].runs = vec![hit(0.1), miss(), miss()];
        let row = jobs_row(&r, &[1, 2]);
        assert!(row.ends_with("| 1/3 | ≥10.0 s | 300 | ≥50.0× |"), "{row}");
    }

    #[test]
    fn the_jobs_table_ends_with_geometric_means() {
        let mut other = with_jobs();
        other.id = "V2".into();
        // Here two jobs are 2 times slower: 0.4 s against 0.2 s.
        other.jobs.as_mut().unwrap()[1].runs = vec![hit(0.4); 3];
        let t = jobs_table(&[with_jobs(), other], &[1, 2]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 2 + 2 + 1);
        // jobs=1: 0.2 s twice; jobs=2: 0.1 s and 0.4 s → 0.2 s; ratios 0.5 and 2 → 1.
        assert_eq!(
            lines[4],
            "|  | **geo-mean, all 2 subject(s)** | 6/6 | 0.200 s |  | 5/6 | 0.200 s |  | 1.00× |"
        );
        assert_eq!(jobs_table(&[], &[1, 2]).lines().count(), 2);
    }

    #[test]
    fn the_jobs_are_described() {
        let s = settings(["--jobs", "1,2", "--seeds", "4"]);
        let notes = jobs_notes(&s);
        assert!(notes.contains("`jobs` set (1, 2)"), "{notes}");
        assert!(
            notes.contains("seeds 0..4, each with the budget 10.0 s"),
            "{notes}"
        );
        let meta = meta(s);
        assert!(header(&meta).contains("; job counts compared: 1, 2\n"));
        // The JSON has the counts in the settings and each count's runs per subject.
        let value = report_json(&meta, &[with_jobs(), sample()]);
        assert_eq!(parse::value(&value.render()).expect("valid JSON"), value);
        let settings = get(&value, "settings").unwrap();
        assert_eq!(
            get(&settings, "jobs"),
            Some(Json::Arr(vec![Json::Num(1.0), Json::Num(2.0)]))
        );
        let Some(Json::Arr(subjects)) = get(&value, "subjects") else {
            panic!("no subjects")
        };
        let Some(Json::Arr(jobs)) = get(&subjects[0], "jobs") else {
            panic!("no jobs")
        };
        assert_eq!(get(&jobs[1], "label"), Some(Json::str("jobs=2")));
        let buggy = get(&jobs[1], "buggy").unwrap();
        assert_eq!(get(&buggy, "found"), Some(Json::Num(2.0)));
        assert_eq!(get(&subjects[1], "jobs"), Some(Json::Null), "not compared");
    }

    #[test]
    fn schedules_compare_like_job_counts() {
        let mut r = sample();
        r.schedules = Some(vec![
            Variant {
                label: schedule_label(ScheduleMode::Auto),
                runs: r.tool.clone(),
            },
            Variant {
                label: schedule_label(ScheduleMode::Stress),
                runs: vec![hit(0.4); 3],
            },
        ]);
        let t = schedules_table(&[r], &[ScheduleMode::Auto, ScheduleMode::Stress]);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].contains("| auto found |") && lines[0].ends_with("| stress / auto |"));
        assert_eq!(
            lines[2],
            "| V1 | string_buffer | 3/3 | 0.200 s | 300 | 3/3 | 0.400 s | 300 | 2.00× |"
        );
        let s = settings(["--schedules", "auto,stress", "--seeds", "4"]);
        let notes = schedules_notes(&s);
        assert!(notes.contains("`schedule` set (auto, stress)"), "{notes}");
        assert!(header(&meta(s)).contains("; scheduling modes compared: auto, stress"));
    }

    #[test]
    fn strategies_compare_like_job_counts() {
        let (random, dfs) = (Strategy::Random, Strategy::Dfs { preemptions: 2 });
        let mut r = sample();
        r.strategies = Some(vec![
            Variant {
                label: strategy_label(random),
                runs: r.tool.clone(),
            },
            Variant {
                label: strategy_label(dfs),
                runs: vec![
                    Run::found(0, 0.1, Some(1), Some(40)),
                    miss(),
                    Run::found(2, 0.05, Some(1), Some(20)),
                ],
            },
        ]);
        let t = strategies_table(&[r.clone()], &[random, dfs]);
        let lines: Vec<&str> = t.lines().collect();
        assert!(
            lines[0].contains("| random found | random median | random executions to bug |")
                && lines[0].ends_with("| dfs2 executions to bug | dfs2 / random |"),
            "{}",
            lines[0]
        );
        // dfs2: 0.05 s, 0.1 s and a miss → 0.1 s, half random's; 20 and 40 executions → 30.
        assert_eq!(
            lines[2],
            "| V1 | string_buffer | 3/3 | 0.200 s | 300 | 2/3 | 0.100 s | 30 | 0.50× |"
        );
        let s = settings(["--strategies", "random,dfs", "--seeds", "4"]);
        let notes = strategies_notes(&s);
        assert!(notes.contains("`strategy` set (random, dfs2)"), "{notes}");
        assert!(
            notes.contains("seeds 0..4, each with the budget 10.0 s"),
            "{notes}"
        );
        let meta = meta(s);
        assert!(header(&meta).contains("; strategies compared: random, dfs2"));
        // The JSON has the strategies in the settings and each one's runs per subject.
        let value = report_json(&meta, &[r, sample()]);
        assert_eq!(parse::value(&value.render()).expect("valid JSON"), value);
        let settings = get(&value, "settings").unwrap();
        assert_eq!(
            get(&settings, "strategies"),
            Some(Json::Arr(vec![Json::str("random"), Json::str("dfs2")]))
        );
        let Some(Json::Arr(subjects)) = get(&value, "subjects") else {
            panic!("no subjects")
        };
        let Some(Json::Arr(strategies)) = get(&subjects[0], "strategies") else {
            panic!("no strategies")
        };
        assert_eq!(get(&strategies[1], "label"), Some(Json::str("dfs2")));
        let buggy = get(&strategies[1], "buggy").unwrap();
        assert_eq!(get(&buggy, "median_executions"), Some(Json::Num(30.0)));
        assert_eq!(
            get(&subjects[1], "strategies"),
            Some(Json::Null),
            "not compared"
        );
    }
}
