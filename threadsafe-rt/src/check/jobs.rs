//! The hunts of one check: `jobs` of them at once (`THREADSAFE_JOBS`), each with its seed
//! of this machine's part of the seed stream (`THREADSAFE_SHARD`; see
//! [`Config::hunt_seeds`]), its own generator, workers and sequential runner, and so each
//! deterministic on its own. The first to find a violation stops the others at their next
//! test; the report is that hunt's, with the counts of all, and names its seed.
//!
//! The hunts run under the check's one process-wide lock (`exclusive::one_at_a_time`): the
//! jobs of one check share the machine with no other check. Job 0 runs on the calling
//! thread, the others on threads of their own, so one job is the check as it always was.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use super::hunt::Hunt;
use crate::config::Config;
use crate::report::{Ended, Hunts, Report, Verdict};
use crate::subject::Description;

/// Runs the check's hunts and folds what they found into `report` (whose counts may hold
/// the regressions file's replays already).
pub(super) fn hunt<T: Send + Sync + 'static>(
    desc: &'static Description<T>,
    config: &Config,
    start: Instant,
    report: &mut Report,
) {
    let seeds = config.hunt_seeds();
    let configs: Vec<Config> = seeds
        .iter()
        .map(|&seed| Config {
            seed,
            jobs: 1,
            shard: None,
            ..config.clone()
        })
        .collect();
    let fresh = |c: &Config| Report::new(desc.name(), c.seed, desc.skipped().to_vec());
    let reports: Vec<Report> = if let [only] = &configs[..] {
        let mut r = fresh(only);
        Hunt::new(desc, only, start).run(&mut r);
        vec![r]
    } else {
        let stop = Arc::new(AtomicBool::new(false));
        let run = |c: &Config| {
            let mut r = fresh(c);
            Hunt::new(desc, c, start)
                .stop_with(stop.clone())
                .run(&mut r);
            r
        };
        std::thread::scope(|s| {
            let others: Vec<_> = configs[1..]
                .iter()
                .enumerate()
                .map(|(j, c)| {
                    std::thread::Builder::new()
                        .name(format!("threadsafe-job-{}", j + 1))
                        .spawn_scoped(s, move || run(c))
                        .expect("the threads of a check's jobs can be spawned")
                })
                .collect();
            let mut all = vec![run(&configs[0])];
            for h in others {
                all.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
            }
            all
        })
    };
    merge(report, reports, config, seeds);
}

/// Folds the hunts' reports into `report`: the verdict, coverage, end and seed of the hunt
/// that found a violation first (else of job 0), and the counts of all.
fn merge(report: &mut Report, reports: Vec<Report>, config: &Config, seeds: Vec<u64>) {
    let first_find = reports
        .iter()
        .enumerate()
        .filter_map(|(j, r)| r.violation().map(|v| (v.time_to_bug, j)))
        .min()
        .map(|(_, j)| j);
    let chosen = first_find
        .or_else(|| {
            reports
                .iter()
                .position(|r| matches!(r.verdict, Verdict::CannotCheck(_)))
        })
        .or_else(|| {
            reports
                .iter()
                .position(|r| r.ended == Ended::AllPatternsCovered)
        })
        .unwrap_or(0);
    for r in &reports {
        report.tests += r.tests;
        report.executions += r.executions;
        report.controlled_tests += r.controlled_tests;
        report.uncontrolled_runs += r.uncontrolled_runs;
        report.cut_runs += r.cut_runs;
        report.exploration.merge(&r.exploration);
        report.abandoned_threads += r.abandoned_threads;
        let notes = &mut report.results;
        notes.compared |= r.results.compared;
        for (method, why) in &r.results.not_compared {
            notes
                .not_compared
                .entry(method.clone())
                .or_insert_with(|| why.clone());
        }
        notes.unjudged += r.results.unjudged;
        notes.not_reproduced += r.results.not_reproduced;
    }
    let Some(r) = reports.into_iter().nth(chosen) else {
        return;
    };
    report.verdict = r.verdict;
    report.coverage = r.coverage;
    report.ended = r.ended;
    report.failing = r.failing;

    report.seed = if first_find.is_some() || seeds.len() == 1 {
        r.seed
    } else {
        config.seed
    };
    report.hunts = Hunts {
        shard: config.shard,
        seeds,
        found_by: first_find,
    };
}
