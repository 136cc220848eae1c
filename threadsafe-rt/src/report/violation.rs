//! A [`Violation`] built from a failed execution: the failure in words, the reproducer, and
//! for a controlled execution its interleaving and the gated test that enforces it.

use std::time::Duration;

use super::gated::{gated_entries, render_gated};
use super::interleaving::render_interleaving;
use super::rust::{method_at, render_reproducer, scope_name};
use super::{Failure, Violation};
use crate::config::Config;
use crate::exec::{Blocked, ExecOutcome};
use crate::point::Step;
use crate::subject::Description;
use crate::testcase::TestCase;

/// How the violation was found: the tests and executions until it, the time it took, and
/// the token that replays it (controlled executions only).
pub(crate) struct Found {
    pub(crate) tests: u64,
    pub(crate) executions: u64,
    pub(crate) time_to_bug: Duration,
    pub(crate) replay: Option<String>,
}

/// The violation shown by the failed execution `failure` of `test` (`trace`: its steps,
/// when it was controlled), which `linearizations` sequential orders did not reproduce.
pub(crate) fn violation<T>(
    desc: &Description<T>,
    test: &TestCase,
    failure: &ExecOutcome,
    linearizations: usize,
    trace: Option<&[Step]>,
    config: &Config,
    found: Found,
) -> Violation {
    let failure = describe_failure(desc, test, failure);
    let repeat = (found.executions * 2).clamp(1_000, 100_000);
    let schedule = match (trace, &failure) {
        (Some(t), Failure::Panic { .. }) => Some(gated_entries(t)).filter(|e| !e.is_empty()),
        _ => None,
    };
    Violation {
        gated: schedule
            .as_deref()
            .map(|e| render_gated(desc, test, &failure, config, e)),
        schedule,
        reproducer: render_reproducer(
            desc,
            test,
            &failure,
            config,
            repeat,
            found.replay.as_deref(),
        ),
        interleaving: trace.map(|t| render_interleaving(desc, test, t)),
        replay: found.replay,
        failure,
        linearizations,
        tests_until_found: found.tests,
        executions_until_found: found.executions,
        time_to_bug: found.time_to_bug,
    }
}

fn describe_failure<T>(desc: &Description<T>, test: &TestCase, outcome: &ExecOutcome) -> Failure {
    let at = |b: &Blocked| {
        let s = &b.site;
        let waiting = b
            .waiting
            .as_ref()
            .map(|w| format!(", {w}"))
            .unwrap_or_default();
        format!(
            "{} in `{}`{waiting}",
            scope_name(s.scope),
            method_at(desc, test, s.scope, s.call)
        )
    };
    match outcome {
        ExecOutcome::Panicked(panics) => {
            let (site, p) = &panics[0];
            Failure::Panic {
                thread: scope_name(site.scope),
                method: method_at(desc, test, site.scope, site.call),
                location: p.location.clone(),
                message: p.message.clone(),
            }
        }
        ExecOutcome::Deadlock(stuck) => Failure::Deadlock {
            blocked: stuck.iter().map(at).collect(),
        },
        _ => Failure::Deadlock {
            blocked: Vec::new(),
        },
    }
}
