//! Generated tests: a prefix run by one thread, suffixes run concurrently, and a post part
//! run after the suffix threads join. Calls refer to instances and output variables by index;
//! argument values are seeds, made again in every execution.

use std::any::TypeId;

mod edit;

/// Where a variable lives: the prefix, one suffix thread, or the post part. (The public
/// `gates::Scope` is another thing, a gated test's spawner, named after
/// `std::thread::Scope` because it plays that part; the two never meet in one module.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Scope {
    Prefix,
    Thread(usize),
    Post,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct VarRef {
    pub(crate) scope: Scope,
    pub(crate) index: usize,
}

/// Where an argument comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Arg {
    /// A fresh value made by the parameter's strategy from this seed.
    Fresh(u64),
    /// A clone of an earlier output.
    Var(VarRef),
    /// An instance of the type under test, from the prefix's pool.
    Instance(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum OpId {
    Ctor(usize),
    Method(usize),
}

/// How a call returned a new instance, for the reproducer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Made {
    Value,
    Arc,
    Option,
    Result,
}

/// What a call's result becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Out {
    /// Dropped.
    None,
    /// Instance number `i` of the prefix pool.
    Instance(usize, Made),
    /// Variable `i` of the call's scope.
    Var(usize),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Call {
    pub(crate) op: OpId,
    /// The receiver: an instance of the pool (`None` for a constructor).
    pub(crate) receiver: Option<usize>,
    pub(crate) args: Vec<Arg>,
    pub(crate) out: Out,
    /// An async call's cancellation: its future is dropped at this suspension (counted from
    /// 1) in the concurrent executions. The oracle's orders run the call whole or not at all.
    pub(crate) cancel: Option<u32>,
}

/// One generated test.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct TestCase {
    pub(crate) prefix: Vec<Call>,
    pub(crate) threads: Vec<Vec<Call>>,
    pub(crate) post: Vec<Call>,
}

impl TestCase {
    pub(crate) fn calls(&self, scope: Scope) -> &[Call] {
        match scope {
            Scope::Prefix => &self.prefix,
            Scope::Thread(t) => &self.threads[t],
            Scope::Post => &self.post,
        }
    }

    /// The suffix call the test cancels, as (thread, index of the call), if any: a test
    /// cancels one call at most.
    pub(crate) fn cancelled(&self) -> Option<(usize, usize)> {
        self.threads.iter().enumerate().find_map(|(t, calls)| {
            calls
                .iter()
                .position(|c| c.cancel.is_some())
                .map(|k| (t, k))
        })
    }

    /// `order` (an order of this test's calls) with the cancelled call left out
    /// ([`entry`]); as it is when the test cancels none.
    pub(crate) fn leaving_out_cancelled(&self, mut order: Vec<usize>) -> Vec<usize> {
        if let Some((t, k)) = self.cancelled() {
            if let Some(e) = order.iter_mut().filter(|e| **e == t).nth(k) {
                *e = t + self.threads.len();
            }
        }
        order
    }

    pub(crate) fn instance_count(&self) -> usize {
        self.prefix
            .iter()
            .filter(|c| matches!(c.out, Out::Instance(..)))
            .count()
    }

    pub(crate) fn var_count(&self, scope: Scope) -> usize {
        self.calls(scope)
            .iter()
            .filter(|c| matches!(c.out, Out::Var(_)))
            .count()
    }

    /// Constructor 0 makes instance 0, then each of `threads` threads calls method 0 on it
    /// once, without arguments: the smallest concurrent test, for the executors' unit tests.
    #[cfg(test)]
    pub(crate) fn one_call_per_thread(threads: usize) -> TestCase {
        let call = Call {
            op: OpId::Method(0),
            receiver: Some(0),
            args: Vec::new(),
            out: Out::None,
            cancel: None,
        };
        TestCase {
            prefix: vec![Call {
                op: OpId::Ctor(0),
                receiver: None,
                args: Vec::new(),
                out: Out::Instance(0, Made::Value),
                cancel: None,
            }],
            threads: vec![vec![call]; threads],
            post: Vec::new(),
        }
    }
}

/// An entry of an order (a linearization, a thread id per call): thread `t`'s next call is
/// `t`, made whole; `t + threads` is the same call left out, which only the test's
/// cancelled call can be (it took effect entirely or not at all). Returns the thread and
/// whether the call is left out.
pub(crate) fn entry(e: usize, threads: usize) -> (usize, bool) {
    (e % threads.max(1), e >= threads)
}

/// The type of each output variable, for the parameter task's reuse.
#[derive(Clone, Debug, Default)]
pub(crate) struct VarTypes(pub(crate) Vec<(VarRef, TypeId)>);

impl VarTypes {
    pub(crate) fn matching(&self, ty: TypeId, visible: impl Fn(Scope) -> bool) -> Vec<VarRef> {
        self.0
            .iter()
            .filter(|(v, t)| *t == ty && visible(v.scope))
            .map(|(v, _)| *v)
            .collect()
    }
}
