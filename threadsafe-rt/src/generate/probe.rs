//! MAP-coverage's sequential runs of the methods (the feasible patterns' source).

use std::collections::HashSet;
use std::sync::Arc;

use super::{Generator, Prefix};
use crate::config::Config;
use crate::exec::{CallOutcome, SeqRunner};
use crate::hooks::Recorded;
use crate::subject::Description;
use crate::testcase::{Scope, TestCase};

/// The sequential runs of MAP-coverage: on a random prefix, and on a fresh instance from
/// each constructor (whose primitives may be created at other lines), each concurrent
/// method called once (up to three tries for one that runs through), its operations
/// recorded. Uses its own random numbers: the tests of the check are the same with or
/// without.
pub(crate) fn probe<T: Send + Sync + 'static>(
    desc: &'static Description<T>,
    config: &Config,
    runner: &mut SeqRunner,
) -> Vec<(usize, Vec<Recorded>)> {
    let mut gen = Generator::new(desc, config, u32::MAX, HashSet::new());
    let mut out = Vec::new();
    let mut prefixes: Vec<Prefix> = gen.new_prefix(runner, false).into_iter().collect();
    for c in 0..desc.constructors.len() {
        let mut prefix = Prefix::empty();
        if gen.append_ctor(&mut prefix, c, runner) {
            prefixes.push(prefix);
        }
    }
    let methods = desc.concurrent_methods();
    for (prefix, m) in prefixes
        .iter()
        .flat_map(|p| methods.iter().map(move |&m| (p, m)))
    {
        for _ in 0..3 {
            let Some(call) = gen.call_cut(&[m], prefix.instances, Scope::Thread(0), &prefix.vars)
            else {
                continue;
            };
            let test = TestCase {
                prefix: prefix.calls.clone(),
                threads: vec![vec![call]],
                post: Vec::new(),
            };
            let Some(mut run) = runner.run_recorded(desc, Arc::new(test), gen.seq_timeout) else {
                break;
            };
            let Some(i) = run
                .steps
                .iter()
                .position(|(s, _, _)| *s == Scope::Thread(0))
            else {
                continue;
            };
            let ok = matches!(run.steps[i].2, CallOutcome::Ok(..));
            out.push((m, std::mem::take(&mut run.recorded[i])));
            if ok {
                break;
            }
        }
    }
    out
}
