//! Tests planned by coverage guidance (guides `pairs` and `map`): the first threads call
//! the plan's methods.

use super::{rescope, Generator, ReadyTest};
use crate::coverage::Plan;
use crate::exec::SeqRunner;
use crate::lock::lock;
use crate::testcase::{Scope, TestCase};

impl<T: Send + Sync + 'static> Generator<'_, T> {
    /// The guidance's plan for the next test, if guided.
    pub(super) fn plan(&mut self) -> Option<Plan> {
        let (guide, tracker) = self.guidance.as_ref()?;
        let guide = *guide;
        let tracker = tracker.clone();
        let mut tracker = lock(&tracker);
        tracker.plan(guide, &mut self.rng)
    }

    /// A test on prefix `p` whose first two threads call the plan's methods, in order, each
    /// followed by random calls up to `cut_call_tries` calls in all, as random suffixes
    /// have (a call that does not run sequentially there is left out); further threads get
    /// new random suffixes.
    pub(super) fn planned_test(
        &mut self,
        p: usize,
        plan: &Plan,
        runner: &mut SeqRunner,
    ) -> Option<ReadyTest> {
        let concurrent = self.desc.concurrent_methods();
        let mut threads = Vec::with_capacity(self.config.threads);
        for methods in &plan.threads {
            let mut choices: Vec<Vec<usize>> = methods.iter().map(|&m| vec![m]).collect();
            while choices.len() < self.config.cut_call_tries {
                choices.push(concurrent.clone());
            }
            let (suffix, _, _) = self.build_suffix(p, &choices, runner, false)?;
            threads.push(rescope(&suffix, Scope::Thread(threads.len())));
        }
        while threads.len() < self.config.threads {
            let choices = vec![concurrent.clone(); self.config.cut_call_tries];
            let (suffix, _, _) = self.build_suffix(p, &choices, runner, false)?;
            threads.push(rescope(&suffix, Scope::Thread(threads.len())));
        }
        let test = TestCase {
            prefix: self.prefixes[p].calls.clone(),
            threads,
            post: Vec::new(),
        };
        let mut ready = self.with_post(p, test, runner, false)?;
        ready.target = plan.target;
        Some(ready)
    }
}
