//! A [`Violation`] built from a failed execution: the failure in words, the reproducer, and
//! for a controlled execution its interleaving and the gated test that enforces it.

use std::time::Duration;

use super::gated::{gated_entries, render_gated};
use super::interleaving::render_interleaving;
use super::results::{self, WrongResults};
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
    /// Whether the failing execution ran under control (else free-running).
    pub(crate) controlled: bool,
}

/// What the oracle found in an execution.
pub(crate) enum Finding<'a> {
    /// It failed (a panic or a deadlock) in a way no sequential order does.
    Failed(&'a ExecOutcome),
    /// Its results are not those of any sequential order.
    Results(WrongResults<'a>),
}

/// The violation shown by `finding` in an execution of `test` (`trace`: its steps, when it
/// was controlled), which `linearizations` sequential orders did not reproduce.
pub(crate) fn violation<T>(
    desc: &Description<T>,
    test: &TestCase,
    finding: Finding<'_>,
    linearizations: usize,
    trace: Option<&[Step]>,
    config: &Config,
    found: Found,
) -> Violation {
    let failure = match &finding {
        Finding::Failed(outcome) => describe_failure(desc, test, outcome),
        Finding::Results(wrong) => results::describe(desc, test, wrong),
    };
    // A deadlock ends its contained reproducer at the first repetition that hangs, so its
    // repetitions cost time only once the bug is gone; a thousand missed it too often on a
    // busy machine (decision 0085).
    let fewest = if matches!(failure, Failure::Deadlock { .. }) {
        10_000
    } else {
        1_000
    };
    let repeat = (found.executions * 2).clamp(fewest, 100_000);
    let replay = found.replay.as_deref();
    let schedule = match (trace, &failure) {
        (Some(t), Failure::Panic { .. } | Failure::Results { .. }) => {
            Some(gated_entries(t)).filter(|e| !e.is_empty())
        }
        _ => None,
    };
    let (reproducer, gated) = match &finding {
        Finding::Results(wrong) => (
            results::render_reproducer(desc, test, &failure, wrong, config.seed, repeat, replay),
            schedule
                .as_deref()
                .and_then(|e| results::render_gated(desc, test, &failure, wrong, config.seed, e)),
        ),
        Finding::Failed(_) => (
            None,
            schedule
                .as_deref()
                .map(|e| render_gated(desc, test, &failure, config, e)),
        ),
    };
    let reproducer = reproducer
        .unwrap_or_else(|| render_reproducer(desc, test, &failure, config, repeat, replay));
    Violation {
        gated,
        schedule,
        reproducer,
        interleaving: trace.map(|t| render_interleaving(desc, test, t)),
        replay: found.replay,
        failure,
        linearizations,
        tests_until_found: found.tests,
        executions_until_found: found.executions,
        time_to_bug: found.time_to_bug,
        controlled: found.controlled,
        shrunk: None,
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
