//! Smaller versions of a test, for shrinking: a call left out, a thread's first call moved
//! into the prefix or its last one into the post part, an argument made from another seed.
//! Each edit keeps the test well formed: instances and output variables are renumbered, and
//! an edit that would leave a call without what it uses is refused (`None`).

use super::{Arg, Call, Out, Scope, TestCase, VarRef};

impl TestCase {
    /// How many calls the test makes (prefix, threads, post part).
    pub(crate) fn len(&self) -> usize {
        self.prefix.len() + self.threads.iter().map(Vec::len).sum::<usize>() + self.post.len()
    }

    /// Every call, mutably.
    fn all_calls_mut(&mut self) -> impl Iterator<Item = &mut Call> {
        self.prefix
            .iter_mut()
            .chain(self.threads.iter_mut().flatten())
            .chain(self.post.iter_mut())
    }

    /// Every call.
    fn all_calls(&self) -> impl Iterator<Item = &Call> {
        self.prefix
            .iter()
            .chain(self.threads.iter().flatten())
            .chain(&self.post)
    }

    fn calls_mut(&mut self, scope: Scope) -> &mut Vec<Call> {
        match scope {
            Scope::Prefix => &mut self.prefix,
            Scope::Thread(t) => &mut self.threads[t],
            Scope::Post => &mut self.post,
        }
    }

    /// Whether some call takes instance `i` (as receiver or argument).
    fn uses_instance(&self, i: usize) -> bool {
        self.all_calls()
            .any(|c| c.receiver == Some(i) || c.args.contains(&Arg::Instance(i)))
    }

    /// Whether some call takes variable `v`.
    pub(crate) fn uses_var(&self, v: VarRef) -> bool {
        self.all_calls().any(|c| c.args.contains(&Arg::Var(v)))
    }

    /// Renumbers every reference to a variable of `scope` with `f`, and the outputs of
    /// `scope`'s calls with it too.
    fn renumber_vars(&mut self, scope: Scope, f: impl Fn(usize) -> usize) {
        for c in self.all_calls_mut() {
            for a in &mut c.args {
                if let Arg::Var(v) = a {
                    if v.scope == scope {
                        v.index = f(v.index);
                    }
                }
            }
        }
        for c in self.calls_mut(scope) {
            if let Out::Var(ix) = &mut c.out {
                *ix = f(*ix);
            }
        }
    }

    /// Removes thread `t` when it has no call left: a test keeps at least two threads.
    fn drop_empty_thread(mut self, t: usize) -> Option<TestCase> {
        if !self.threads[t].is_empty() {
            return Some(self);
        }
        if self.threads.len() <= 2 {
            return None;
        }
        self.threads.remove(t);
        for c in self.threads.iter_mut().flatten() {
            for a in &mut c.args {
                if let Arg::Var(v) = a {
                    if let Scope::Thread(u) = v.scope {
                        if u > t {
                            v.scope = Scope::Thread(u - 1);
                        }
                    }
                }
            }
        }
        Some(self)
    }

    /// The test without thread `th` (its calls make variables only it sees); `None` when
    /// only two threads are left.
    pub(crate) fn without_thread(&self, th: usize) -> Option<TestCase> {
        if self.threads.len() <= 2 || th >= self.threads.len() {
            return None;
        }
        let mut t = self.clone();
        t.threads[th].clear();
        t.drop_empty_thread(th)
    }

    /// The test without call `k` of `scope`; `None` when a later call uses what it made,
    /// or the thread it leaves empty is one of the last two.
    pub(crate) fn without(&self, scope: Scope, k: usize) -> Option<TestCase> {
        let call = self.calls(scope).get(k)?.clone();
        let mut t = self.clone();
        t.calls_mut(scope).remove(k);
        match call.out {
            Out::Instance(i, _) => {
                if t.uses_instance(i) {
                    return None;
                }
                let down = |j: usize| if j > i { j - 1 } else { j };
                for c in t.all_calls_mut() {
                    c.receiver = c.receiver.map(down);
                    for a in &mut c.args {
                        if let Arg::Instance(j) = a {
                            *j = down(*j);
                        }
                    }
                    if let Out::Instance(j, _) = &mut c.out {
                        *j = down(*j);
                    }
                }
            }
            Out::Var(ix) => {
                if t.uses_var(VarRef { scope, index: ix }) {
                    return None;
                }
                t.renumber_vars(scope, |j| if j > ix { j - 1 } else { j });
            }
            Out::None => {}
        }
        match scope {
            Scope::Thread(th) => t.drop_empty_thread(th),
            _ => Some(t),
        }
    }

    /// The test with thread `th`'s first call moved to the end of the prefix.
    pub(crate) fn first_call_to_prefix(&self, th: usize) -> Option<TestCase> {
        let mut t = self.clone();
        let mut call = t.threads.get(th)?.first()?.clone();
        t.threads[th].remove(0);
        // The prefix makes its calls whole.
        call.cancel = None;
        if let Out::Var(ix) = call.out {
            let into = t.var_count(Scope::Prefix);
            let old = VarRef {
                scope: Scope::Thread(th),
                index: ix,
            };
            for c in t.threads[th].iter_mut() {
                for a in &mut c.args {
                    if *a == Arg::Var(old) {
                        *a = Arg::Var(VarRef {
                            scope: Scope::Prefix,
                            index: into,
                        });
                    }
                }
            }
            t.renumber_vars(Scope::Thread(th), |j| if j > ix { j - 1 } else { j });
            call.out = Out::Var(into);
        }
        t.prefix.push(call);
        t.drop_empty_thread(th)
    }

    /// The test with thread `th`'s last call moved to the start of the post part; `None`
    /// when it uses a variable of its thread (the post part cannot see it).
    pub(crate) fn last_call_to_post(&self, th: usize) -> Option<TestCase> {
        let mut t = self.clone();
        let mut call = t.threads.get_mut(th)?.pop()?;
        // The post part makes its calls whole.
        call.cancel = None;
        if call
            .args
            .iter()
            .any(|a| matches!(a, Arg::Var(v) if v.scope == Scope::Thread(th)))
        {
            return None;
        }
        if let Out::Var(_) = call.out {
            t.renumber_vars(Scope::Post, |j| j + 1);
            call.out = Out::Var(0);
        }
        t.post.insert(0, call);
        t.drop_empty_thread(th)
    }

    /// The test with its cancelled call made whole; `None` when it cancels none.
    pub(crate) fn uncancelled(&self) -> Option<TestCase> {
        let (th, k) = self.cancelled()?;
        let mut t = self.clone();
        t.threads[th][k].cancel = None;
        Some(t)
    }

    /// The test with argument `a` of call `k` of `scope` made from `seed`.
    pub(crate) fn with_seed(&self, scope: Scope, k: usize, a: usize, seed: u64) -> TestCase {
        let mut t = self.clone();
        if let Some(arg) = t
            .calls_mut(scope)
            .get_mut(k)
            .and_then(|c| c.args.get_mut(a))
        {
            *arg = Arg::Fresh(seed);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Made, OpId};
    use super::*;

    fn ctor(out: usize) -> Call {
        Call {
            op: OpId::Ctor(0),
            receiver: None,
            args: Vec::new(),
            out: Out::Instance(out, Made::Value),
            cancel: None,
        }
    }

    fn call(receiver: usize, args: Vec<Arg>, out: Out) -> Call {
        Call {
            op: OpId::Method(0),
            receiver: Some(receiver),
            args,
            out,
            cancel: None,
        }
    }

    fn var(scope: Scope, index: usize) -> Arg {
        Arg::Var(VarRef { scope, index })
    }

    /// Two instances, a prefix variable, and two threads that use them.
    fn test() -> TestCase {
        TestCase {
            prefix: vec![ctor(0), ctor(1), call(0, vec![], Out::Var(0))],
            threads: vec![
                vec![
                    call(0, vec![var(Scope::Prefix, 0)], Out::Var(0)),
                    call(0, vec![var(Scope::Thread(0), 0)], Out::None),
                ],
                vec![call(1, vec![Arg::Instance(0)], Out::None)],
            ],
            post: vec![call(0, vec![], Out::Var(0))],
        }
    }

    #[test]
    fn a_call_whose_output_is_used_cannot_go() {
        let t = test();
        assert_eq!(t.without(Scope::Prefix, 0), None, "instance 0 is used");
        assert_eq!(
            t.without(Scope::Prefix, 2),
            None,
            "prefix variable 0 is used"
        );
        assert_eq!(
            t.without(Scope::Thread(0), 0),
            None,
            "its variable is used next"
        );
        assert_eq!(
            t.without(Scope::Thread(1), 0),
            None,
            "the last two threads stay"
        );
    }

    #[test]
    fn a_call_that_goes_takes_its_numbers_with_it() {
        let t = test();
        let post = t
            .without(Scope::Post, 0)
            .expect("nothing uses the post output");
        assert!(post.post.is_empty());
        let second = t
            .without(Scope::Thread(0), 1)
            .expect("the last call of thread 1");
        assert_eq!(second.len(), t.len() - 1);
        // Instance 1 is used by thread 2's receiver; without that thread's call... the
        // constructor of instance 1 still cannot go, but a prefix without instance 1 and
        // its users renumbers nothing else.
        let mut one = t.clone();
        one.threads[1] = vec![call(0, vec![], Out::None)];
        let fewer = one
            .without(Scope::Prefix, 1)
            .expect("nobody uses instance 1 now");
        assert_eq!(fewer.prefix.len(), 2);
        assert_eq!(fewer.prefix[1].receiver, Some(0));
    }

    #[test]
    fn moving_a_first_call_into_the_prefix_makes_its_variable_a_prefix_one() {
        let moved = test().first_call_to_prefix(0).expect("movable");
        assert_eq!(moved.prefix.len(), 4);
        assert_eq!(moved.prefix[3].out, Out::Var(1));
        assert_eq!(moved.threads[0].len(), 1);
        assert_eq!(moved.threads[0][0].args, vec![var(Scope::Prefix, 1)]);
    }

    #[test]
    fn moving_a_last_call_into_the_post_part_needs_no_thread_variable() {
        let t = test();
        assert_eq!(t.last_call_to_post(0), None, "it uses thread 1's variable");
        let mut three = t.clone();
        three.threads.push(vec![
            call(0, vec![], Out::Var(0)),
            call(1, vec![], Out::Var(1)),
        ]);
        let moved = three.last_call_to_post(2).expect("movable");
        assert_eq!(moved.post.len(), 2);
        assert_eq!(moved.post[0].out, Out::Var(0));
        assert_eq!(
            moved.post[1].out,
            Out::Var(1),
            "the post part's own variable moved up"
        );
    }
}
