//! What a concurrent execution came to, and where each thread was.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::call::CallOutcome;
use crate::panics::PanicRecord;
use crate::testcase::Scope;

/// Where a call of a test ran: a suffix thread's call, or a post call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Site {
    pub(crate) scope: Scope,
    pub(crate) call: usize,
}

impl Site {
    /// Call `call` of thread `t`'s suffix.
    pub(crate) fn thread(t: usize, call: usize) -> Self {
        Site {
            scope: Scope::Thread(t),
            call,
        }
    }

    /// Call `call` of the post part.
    pub(crate) fn post(call: usize) -> Self {
        Site {
            scope: Scope::Post,
            call,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) enum ExecOutcome {
    /// Every call returned.
    Passed,
    /// The run did not get going (the prefix or an argument failed): not a finding.
    Invalid,
    /// Calls panicked: all panics, the first one first.
    Panicked(Vec<(Site, PanicRecord)>),
    /// Threads blocked for good: where each one was, and (under control) what it waited for.
    Deadlock(Vec<Blocked>),
}

/// A thread of a deadlocked execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Blocked {
    pub(crate) site: Site,
    /// What it waited for and where, when the scheduler knows (`a lock at src/x.rs:3:9`).
    pub(crate) waiting: Option<String>,
}

pub(super) fn blocked_at(sites: Vec<Site>) -> Vec<Blocked> {
    sites
        .into_iter()
        .map(|site| Blocked {
            site,
            waiting: None,
        })
        .collect()
}

/// Per thread: 0 before its first call, `k + 1` inside call `k`, `IDLE` otherwise.
pub(super) const IDLE: usize = usize::MAX;

/// The call each suffix thread is in, from its progress counter.
pub(super) fn calls_in_progress<'a>(at: impl IntoIterator<Item = &'a AtomicUsize>) -> Vec<Site> {
    at.into_iter()
        .enumerate()
        .filter_map(|(t, a)| match a.load(Ordering::Acquire) {
            IDLE | 0 => None,
            k => Some(Site::thread(t, k - 1)),
        })
        .collect()
}

pub(super) fn evaluate(results: &[(Site, CallOutcome)]) -> ExecOutcome {
    let mut panics: Vec<(Site, PanicRecord)> = results
        .iter()
        .filter_map(|(s, o)| match o {
            CallOutcome::Panic(p) if !p.aborted => Some((*s, p.clone())),
            _ => None,
        })
        .collect();
    if !panics.is_empty() {
        panics.sort_by_key(|(_, p)| p.order);
        ExecOutcome::Panicked(panics)
    } else if results
        .iter()
        .any(|(_, o)| matches!(o, CallOutcome::Unavailable))
    {
        ExecOutcome::Invalid
    } else {
        ExecOutcome::Passed
    }
}
