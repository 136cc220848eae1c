//! How suffixes become tests: each new suffix paired with every earlier one of its prefix
//! (Algorithm 1), a call between two instances also against its mirror, and the post part
//! after the threads.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::Arc;

use rand::Rng;

use super::{rescope, shape, Generator, ReadyTest};
use crate::exec::{serial_order, CallOutcome, Produced, SeqRunner};
use crate::subject::{Description, ParamKind};
use crate::testcase::{Arg, Call, Out, Scope, TestCase, VarRef};

impl<T: Send + Sync + 'static> Generator<'_, T> {
    /// Builds the tests of the newest suffix of prefix `p`: paired with every suffix of
    /// the prefix, itself included (for more threads, with others drawn at random), and
    /// again with the same keys as the other; beside its mirror, if it has one.
    pub(super) fn make_tests(&mut self, p: usize, runner: &mut SeqRunner) {
        let n = self.prefixes[p].suffixes.len();
        let newest = n - 1;
        if self.prefixes[p].blocks[newest] {
            // A suffix that blocks runs first, beside each suffix that does not, which may
            // release it: in the order the generator runs a test (thread 0's calls, then
            // thread 1's) it waits for the other thread (`exec::run_blocking`).
            let releasers: Vec<usize> = (0..newest)
                .filter(|&o| !self.prefixes[p].blocks[o])
                .collect();
            let first = self.prefixes[p].suffixes[newest].clone();
            for other in releasers {
                let second = self.prefixes[p].suffixes[other].clone();
                self.push_pair(p, &first, &second, runner, true);
            }
            return;
        }
        for other in 0..n {
            let first = self.prefixes[p].suffixes[other].clone();
            let second = self.prefixes[p].suffixes[newest].clone();
            self.push_pair(p, &first, &second, runner, false);
            // The same pair again with the newest suffix's fresh values made the same as the
            // other's: two threads on one key (both inserting it, one inserting it while the
            // other looks it up), which suffixes drawing their keys apart rarely are.
            if other != newest {
                if let Some(same) = shared_keys(self.desc, &first, &second) {
                    self.push_pair(p, &first, &same, runner, false);
                }
            }
        }
        // A call between two instances (`a.transfer_to(&b)`) also runs against its mirror
        // (`b.transfer_to(&a)`): the shape of lock-order deadlocks, which pairing suffixes
        // at random rarely builds.
        let prefix = &self.prefixes[p];
        if let Some(mirror) = mirrored(&prefix.suffixes[newest]) {
            let first = prefix.suffixes[newest].clone();
            self.push_pair(p, &first, &mirror, runner, false);
        }
    }

    /// Makes a test of `first` and `second` on the first two threads (more threads run
    /// suffixes of prefix `p` drawn at random) and readies it; `first_blocks`: `first` ends
    /// in a call that blocks until another thread's call releases it.
    fn push_pair(
        &mut self,
        p: usize,
        first: &[Call],
        second: &[Call],
        runner: &mut SeqRunner,
        first_blocks: bool,
    ) {
        let n = self.prefixes[p].suffixes.len();
        let mut threads = vec![
            rescope(first, Scope::Thread(0)),
            rescope(second, Scope::Thread(1)),
        ];
        while threads.len() < self.config.threads {
            let s = self.rng.gen_range(0..n);
            let t = threads.len();
            threads.push(rescope(&self.prefixes[p].suffixes[s], Scope::Thread(t)));
        }
        let mut test = TestCase {
            prefix: self.prefixes[p].calls.clone(),
            threads,
            post: Vec::new(),
        };
        // A blocking call that is cancelled no longer blocks: the test gets a post part, which
        // is where what its drop left behind shows (a wake-up or a permit it lost).
        let ready = if !first_blocks {
            self.cancel_one(&mut test);
            self.with_post(p, test, runner, false)
        } else if self.cancel_blocking(&mut test) {
            self.with_post(p, test, runner, true)
        } else {
            ReadyTest::blocking(self.desc, Arc::new(test), self.seq_timeout, runner)
        };
        if let Some(ready) = ready {
            self.ready.push(ready);
        }
    }

    /// With `cancel` on, half the tests whose threads make a cancellable call (an async
    /// method's, not marked `not_cancel_safe`) cancel one of them, drawn at random, at its
    /// first, second or third suspension: one cancelled call in one schedule is what the
    /// published cancellation bugs need. A call whose output a later call uses is not
    /// cancelled (a cancelled call has none). The generator draws nothing for a test with no
    /// such call, so the tests of a type without async methods are as they were.
    fn cancel_one(&mut self, test: &mut TestCase) {
        if !self.config.cancel {
            return;
        }
        let mut candidates = Vec::new();
        for (t, calls) in test.threads.iter().enumerate() {
            for (k, c) in calls.iter().enumerate() {
                let used = match c.out {
                    Out::Var(index) => test.uses_var(VarRef {
                        scope: Scope::Thread(t),
                        index,
                    }),
                    _ => false,
                };
                if self.desc.op_at(c.op).cancellable() && !used {
                    candidates.push((t, k));
                }
            }
        }
        if candidates.is_empty() || !self.rng.gen_ratio(1, 2) {
            return;
        }
        let (t, k) = candidates[self.rng.gen_range(0..candidates.len())];
        test.threads[t][k].cancel = Some(self.cancellation_point());
    }

    /// With `cancel` on, half the blocking tests whose blocking call (thread 0's last) is
    /// cancellable cancel it; true when it did.
    fn cancel_blocking(&mut self, test: &mut TestCase) -> bool {
        let Some(last) = test.threads[0].last() else {
            return false;
        };
        if !self.config.cancel
            || !self.desc.op_at(last.op).cancellable()
            || !self.rng.gen_ratio(1, 2)
        {
            return false;
        }
        let at = self.cancellation_point();
        if let Some(last) = test.threads[0].last_mut() {
            last.cancel = Some(at);
        }
        true
    }

    /// Where a cancelled call is dropped: its first, second or third suspension.
    fn cancellation_point(&mut self) -> u32 {
        self.rng.gen_range(1..=3)
    }

    /// Tries to append `post_calls` calls after the threads; measures the sequential run.
    /// With `after_cancelled_wait` (a waiting call was cancelled), calls that hung before are
    /// tried too: what the dropped call lost (a wake-up, a permit) shows as a later wait that
    /// hangs where it would return.
    pub(super) fn with_post(
        &mut self,
        p: usize,
        mut test: TestCase,
        runner: &mut SeqRunner,
        after_cancelled_wait: bool,
    ) -> Option<ReadyTest> {
        let concurrent = self.desc.concurrent_methods();
        let observers = self.desc.observers();
        let order = serial_order(&test);
        let (base, mut seq_time) = runner.run(
            self.desc,
            Arc::new(test.clone()),
            order.clone(),
            true,
            self.seq_timeout,
        )?;
        let mut points = base.points;
        if base.all_ok() {
            let mut vars = self.prefixes[p].vars.clone();
            for _ in 0..self.config.post_calls {
                // The post part observes what the threads did: a lost update shows in a
                // `len()` or a `total()` after them. Mostly such a call, when there is one.
                let methods = if !observers.is_empty() && self.rng.gen_ratio(3, 4) {
                    &observers
                } else {
                    &concurrent
                };
                let Some(mut call) =
                    self.call_cut(methods, self.prefixes[p].instances, Scope::Post, &vars)
                else {
                    continue;
                };
                let mut candidate = test.clone();
                candidate.post.push(call.clone());
                if self.hung.contains(&shape(&call)) && !after_cancelled_wait {
                    continue;
                }
                match runner.run(
                    self.desc,
                    Arc::new(candidate.clone()),
                    order.clone(),
                    true,
                    self.seq_timeout,
                ) {
                    Some((run, t)) if run.all_ok() => {
                        if let Some(CallOutcome::Ok(Produced::Value(ty), _)) = run.last() {
                            let index = test.var_count(Scope::Post);
                            call.out = Out::Var(index);
                            vars.0.push((
                                VarRef {
                                    scope: Scope::Post,
                                    index,
                                },
                                *ty,
                            ));
                        }
                        test.post.push(call);
                        seq_time = t;
                        points = run.points;
                    }
                    Some(_) => {}
                    None => {
                        self.hung.insert(shape(&call));
                    }
                }
            }
        }
        Some(ReadyTest {
            test: Arc::new(test),
            seq_time,
            points,
            call_points: base.call_points,
            target: None,
        })
    }
}

/// `to` with its fresh values made the same as those of `from`: the `i`-th fresh value of
/// a type in `to` takes the seed of the `i`-th of that type in `from` (of its last, when
/// `from` has fewer). `None` when that changes nothing.
fn shared_keys<T>(desc: &Description<T>, from: &[Call], to: &[Call]) -> Option<Vec<Call>> {
    let fresh = |calls: &[Call]| -> Vec<(TypeId, u64)> {
        calls
            .iter()
            .flat_map(|c| {
                let params = &desc.op_at(c.op).params;
                c.args
                    .iter()
                    .zip(params)
                    .filter_map(|(a, p)| match (a, &p.kind) {
                        (Arg::Fresh(seed), ParamKind::Value { type_id, .. }) => {
                            Some((*type_id, *seed))
                        }
                        _ => None,
                    })
            })
            .collect()
    };
    let keys = fresh(from);
    // How many fresh values of each type `to` has had so far.
    let mut taken: HashMap<TypeId, usize> = HashMap::new();
    let mut changed = false;
    let mut out = to.to_vec();
    for c in &mut out {
        let params = &desc.op_at(c.op).params;
        for (a, p) in c.args.iter_mut().zip(params) {
            let (Arg::Fresh(seed), ParamKind::Value { type_id, .. }) = (a, &p.kind) else {
                continue;
            };
            let mut same = keys.iter().filter(|(t, _)| t == type_id).map(|&(_, s)| s);
            let i = taken.entry(*type_id).or_insert(0);
            let Some(key) = same.clone().nth(*i).or_else(|| same.next_back()) else {
                continue;
            };
            *i += 1;
            changed |= *seed != key;
            *seed = key;
        }
    }
    changed.then_some(out)
}

/// `calls` with the two instances of its first call between two instances swapped
/// (receiver and argument), or `None` when no call takes another instance.
fn mirrored(calls: &[Call]) -> Option<Vec<Call>> {
    let (a, b) = calls.iter().find_map(|c| {
        let r = c.receiver?;
        c.args.iter().find_map(|arg| match arg {
            Arg::Instance(i) if *i != r => Some((r, *i)),
            _ => None,
        })
    })?;
    let swap = |i: usize| {
        if i == a {
            b
        } else if i == b {
            a
        } else {
            i
        }
    };
    Some(
        calls
            .iter()
            .map(|c| {
                let mut c = c.clone();
                c.receiver = c.receiver.map(swap);
                for arg in &mut c.args {
                    if let Arg::Instance(i) = arg {
                        *i = swap(*i);
                    }
                }
                c
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testcase::OpId;

    #[test]
    fn a_call_between_two_instances_is_mirrored() {
        let call = |receiver, args: Vec<Arg>| Call {
            op: OpId::Method(0),
            receiver: Some(receiver),
            args,
            out: Out::None,
            cancel: None,
        };
        let suffix = vec![
            call(0, vec![Arg::Instance(1), Arg::Fresh(7)]),
            call(1, vec![Arg::Instance(0)]),
            call(2, vec![Arg::Instance(2)]),
        ];
        let mirror = mirrored(&suffix).expect("a call between two instances");
        assert_eq!(mirror[0], call(1, vec![Arg::Instance(0), Arg::Fresh(7)]));
        assert_eq!(mirror[1], call(0, vec![Arg::Instance(1)]));
        assert_eq!(mirror[2], suffix[2], "other instances stay");
        assert_eq!(
            mirrored(&suffix[2..]),
            None,
            "a call on itself has no mirror"
        );
    }
}
