//! Algorithm 5's scheduler: steers a controlled run towards one target pattern.

use std::sync::Arc;

use super::random::RandomWalk;
use crate::coverage::map::{self, Access, PatternKey};
use crate::coverage::{Names, Raw};
use crate::point::Step;
use crate::sched::Scheduler;

/// Decisions after which a guided run picks at random only: a thread spinning on a load
/// must not keep a held-back thread from running forever.
const GUIDED_DECISIONS: usize = 10_000;

/// Algorithm 5's scheduler: runs the thread whose next operation extends a partial match of
/// the target pattern. Otherwise it picks at random, but not a thread whose next operation
/// is a step of the target (it would be spent before its turn) while another can run; once
/// the target is covered, at random.
pub(crate) struct Guided {
    random: RandomWalk,
    guide: map::Steer,
    names: Arc<Names>,
    raw: Vec<Raw>,
    decisions: usize,
}

impl Guided {
    pub(crate) fn new(seed: u64, target: PatternKey, names: Arc<Names>) -> Self {
        Guided {
            random: RandomWalk::new(seed),
            guide: map::Steer::new(target),
            names,
            raw: Vec::new(),
            decisions: 0,
        }
    }

    /// The numbered accesses of `step`, if its variables and sites are known.
    fn accesses(&mut self, step: &Step) -> Vec<Access> {
        self.raw.clear();
        self.names.raw(step.op, step.var, step.at, &mut self.raw);
        self.raw
            .iter()
            .filter_map(|r| self.names.lookup(step.thread, r))
            .collect()
    }
}

impl Scheduler for Guided {
    fn next(&mut self, runnable: &[usize], current: Option<usize>, yielding: bool) -> usize {
        self.random.next(runnable, current, yielding)
    }

    fn pick(&mut self, n: usize) -> usize {
        self.random.pick(n)
    }

    fn steers(&self) -> bool {
        true
    }

    fn next_at(
        &mut self,
        runnable: &[usize],
        current: Option<usize>,
        yielding: bool,
        upcoming: &[Option<Step>],
    ) -> usize {
        self.decisions += 1;
        if yielding || self.guide.is_covered() || self.decisions > GUIDED_DECISIONS {
            return self.random.next(runnable, current, yielding);
        }
        let mut next = Vec::new();
        for &t in runnable {
            if let Some(step) = upcoming.get(t).copied().flatten() {
                if let Some(&a) = self.accesses(&step).first() {
                    next.push(a);
                }
            }
        }
        if let Some(t) = self.guide.choose(&next) {
            return t;
        }
        let target = self.guide.target();
        let in_target = |a: &Access| {
            target
                .shaped_steps()
                .any(|(s, sv)| (sv.site, sv.var, s.kind) == (a.site, a.var, a.kind))
        };
        let free: Vec<usize> = runnable
            .iter()
            .copied()
            .filter(|t| !next.iter().any(|a| a.thread == *t && in_target(a)))
            .collect();
        if free.is_empty() {
            self.random.next(runnable, current, yielding)
        } else {
            self.random
                .next(&free, current.filter(|c| free.contains(c)), false)
        }
    }

    fn ran(&mut self, step: &Step) {
        for a in self.accesses(step) {
            self.guide.observe(&a);
        }
    }
}
