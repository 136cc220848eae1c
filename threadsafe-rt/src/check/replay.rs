//! Replay: re-runs exactly the controlled execution a token names. The same seed
//! generates the same tests, and the same batch seed makes the same scheduling choices.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::control::control;
use crate::config::{Config, ReplayToken};
use crate::coverage::Tracker;
use crate::exec::{BatchSpec, ConcRunner, ExecOutcome, SeqRunner};
use crate::generate::Rounds;
use crate::lock::lock;
use crate::oracle::{self, Explained, Sequential};
use crate::report::{violation, Finding, Found, Report, Verdict, WrongResults};
use crate::subject::Description;

/// Re-runs exactly the controlled execution a token names: the same seed generates the
/// same tests, and the same schedule seed makes the same choices.
pub(super) fn replay<T: Send + Sync + 'static>(
    desc: &'static Description<T>,
    config: &Config,
    token: &str,
    report: &mut Report,
) {
    let token: ReplayToken = match token.parse() {
        Ok(t) => t,
        Err(e) => {
            report.verdict = Verdict::CannotCheck(e);
            return;
        }
    };
    let mut config = config.clone();
    config.seed = token.seed;
    config.strategy = token.strategy;
    config.guide = token.guide;
    report.seed = token.seed;
    let mut seq = SeqRunner::new();
    let mut conc = ConcRunner::new(config.executor, config.seed);
    let far = Instant::now() + Duration::from_secs(24 * 3600);
    // Guide `pairs` plans each test from the tests before it: count them as the check did.
    let tracker = Arc::new(Mutex::new(Tracker::new(desc.concurrent_methods())));
    let mut rounds = Rounds::new(desc, &config)
        .guided(config.guide, tracker.clone())
        .at_most(66);
    let mut number = 0;
    while let Some(ready) = rounds.next(&mut seq, far) {
        number += 1;
        lock(&tracker).add_test(&ready.test);
        if number < token.test {
            conc.skip_batch();
            continue;
        }
        let timeout = config.hang_timeout(Some(ready.seq_time));
        // The batch runs again up to the execution: what earlier runs of the test learned
        // (PCT's step estimate, futile points) is then learned again, identically.
        let spec = BatchSpec {
            count: token.execution + 1,
            timeout,
            deadline: far,
            control: Some(control(&config, conc.next_batch_seed(), None)),
            observe: config.results,
        };
        let start = Instant::now();
        let batch = conc.run_batch(desc, &ready.test, spec);
        report.tests = number;
        report.executions = batch.executions as u64;
        let found = Found {
            tests: report.tests,
            executions: report.executions,
            time_to_bug: start.elapsed(),
            replay: Some(token.to_string()),
        };
        if let failure @ (ExecOutcome::Panicked(_) | ExecOutcome::Deadlock(_)) = &batch.outcome {
            let linearizations =
                oracle::judge(desc, &ready.test, failure, &mut seq, timeout).unwrap_or(0);
            report.verdict = Verdict::Violation(Box::new(violation(
                desc,
                &ready.test,
                Finding::Failed(failure),
                linearizations,
                batch.trace.as_deref(),
                &config,
                found,
            )));
            return;
        }
        let passed = || {
            Verdict::CannotCheck(format!(
                "replay {token}: the execution passed this time (has the code or the seed changed?)"
            ))
        };
        let Some(seen) = batch
            .results
            .seen
            .iter()
            .find(|s| s.execution == token.execution)
        else {
            report.verdict = passed();
            return;
        };
        let mut sequential = Sequential::new(ready.test.clone(), HashSet::new(), timeout, far);
        if sequential.explains(&seen.results, &mut conc, desc) == Explained::Yes {
            report.verdict = passed();
            return;
        }
        report.verdict = Verdict::Violation(Box::new(violation(
            desc,
            &ready.test,
            Finding::Results(WrongResults {
                observed: &seen.results,
                sequential: sequential.known(),
                varying: sequential.varying(),
            }),
            sequential.count() as usize,
            seen.trace.as_deref(),
            &config,
            found,
        )));
        return;
    }
    report.verdict = Verdict::CannotCheck(format!(
        "replay {token}: the generator made fewer tests than that"
    ));
}
