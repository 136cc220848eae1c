//! One call of a test: its fresh argument values, its argument slots, the receiver, and
//! what it produced. Prefix calls may take `&mut self` and make instances; suffix and post
//! calls share the prefix's pool.

use std::any::{Any, TypeId};
use std::sync::Arc;

use crate::panics::{self, PanicRecord};
use crate::subject::{
    ArgSlot, Description, Frame, Observation, Output, ParamKind, Receiver, RecvSlot,
};
use crate::testcase::{Arg, Call, Made, Out, Scope, TestCase};
use crate::value::Gen;

pub(super) type Value = Box<dyn Any + Send + Sync>;

/// Fresh argument values of one call, by parameter.
pub(super) type FreshArgs = Vec<Option<Box<dyn Any>>>;

/// The instances and output variables the prefix made.
pub(crate) struct Pool<T> {
    pub(crate) instances: Vec<Option<Arc<T>>>,
    pub(crate) vars: Vec<Option<Value>>,
}

impl<T> Pool<T> {
    pub(super) fn new(test: &TestCase) -> Self {
        Pool {
            instances: (0..test.instance_count()).map(|_| None).collect(),
            vars: (0..test.var_count(Scope::Prefix)).map(|_| None).collect(),
        }
    }
}

/// What a call returned, as far as the generator cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Produced {
    Nothing,
    Instance(Made),
    Value(TypeId),
}

/// What a call came to.
#[derive(Clone, Debug)]
pub(crate) enum CallOutcome {
    /// It returned: what it made, and its return value when observed.
    Ok(Produced, Option<Observation>),
    /// It could not be made (an argument was missing, a constructor declined).
    Unavailable,
    /// It panicked.
    Panic(PanicRecord),
}

/// Fresh argument values of one call, made ahead of it.
pub(crate) fn materialize<T>(desc: &Description<T>, call: &Call) -> FreshArgs {
    let op = desc.op_at(call.op);
    call.args
        .iter()
        .zip(&op.params)
        .map(|(a, p)| match (a, &p.kind) {
            (Arg::Fresh(seed), ParamKind::Value { maker: Some(s), .. }) => {
                (s.make)(&mut Gen::from_seed(*seed))
            }
            _ => None,
        })
        .collect()
}

/// Builds the argument slots of a call; `None` if one is missing.
fn arg_slots<'a, T>(
    desc: &Description<T>,
    call: &Call,
    instances: &'a [Option<Arc<T>>],
    vars: &dyn Fn(Scope, usize) -> Option<&'a Value>,
    mut fresh: Vec<Option<Box<dyn Any>>>,
) -> Option<Vec<Option<ArgSlot<'a, T>>>> {
    let op = desc.op_at(call.op);
    call.args
        .iter()
        .zip(&op.params)
        .enumerate()
        .map(|(i, (a, p))| {
            Some(Some(match (a, &p.kind) {
                (Arg::Fresh(_), _) => ArgSlot::Value(fresh.get_mut(i)?.take()?),
                (Arg::Instance(ix), _) => ArgSlot::Instance(instances.get(*ix)?.as_ref()?),
                (
                    Arg::Var(v),
                    ParamKind::Value {
                        clone: Some(clone),
                        type_id,
                        ..
                    },
                ) => {
                    let value = vars(v.scope, v.index)?;
                    if (**value).type_id() != *type_id {
                        return None;
                    }
                    ArgSlot::Value(clone(&**value))
                }
                (Arg::Var(_), _) => return None,
            }))
        })
        .collect()
}

fn finish_call<T>(
    out: Option<Output<T>>,
    result: Result<(), crate::subject::Unavailable>,
    call: &Call,
    instances: Option<&mut Vec<Option<Arc<T>>>>,
    vars: &mut [Option<Value>],
) -> CallOutcome {
    if result.is_err() {
        return CallOutcome::Unavailable;
    }
    match out {
        None => CallOutcome::Ok(Produced::Nothing, None),
        Some(Output::Instance(a, made)) => {
            if let (Out::Instance(ix, _), Some(pool)) = (call.out, instances) {
                if let Some(slot) = pool.get_mut(ix) {
                    *slot = Some(a);
                }
            }
            CallOutcome::Ok(Produced::Instance(made), None)
        }
        Some(Output::Value(ty, v)) => {
            if let Out::Var(ix) = call.out {
                if let Some(slot) = vars.get_mut(ix) {
                    *slot = Some(v);
                }
            }
            CallOutcome::Ok(Produced::Value(ty), None)
        }
    }
}

/// Runs a prefix call, which may take `&mut self` and makes instances.
pub(crate) fn call_in_prefix<T>(
    desc: &Description<T>,
    call: &Call,
    pool: &mut Pool<T>,
) -> CallOutcome {
    let op = desc.op_at(call.op);
    let run = || {
        let fresh = materialize(desc, call);
        let Pool { instances, vars } = pool;
        let mut taken = None;
        let recv = match (op.receiver, call.receiver) {
            (Receiver::None, _) => None,
            (Receiver::Exclusive, Some(r)) => {
                taken = instances.get_mut(r).and_then(Option::take);
                None
            }
            (_, Some(r)) => Some(r),
            (_, None) => return CallOutcome::Unavailable,
        };
        let outcome = {
            let mut exclusive = taken.as_mut().and_then(Arc::get_mut);
            let recv_slot = match (op.receiver, recv) {
                (Receiver::Exclusive, _) => match exclusive.take() {
                    Some(r) => Some(RecvSlot::Exclusive(r)),
                    None => None,
                },
                (_, Some(r)) => match instances.get(r).and_then(Option::as_ref) {
                    Some(a) => Some(RecvSlot::Shared(a)),
                    None => None,
                },
                _ => None,
            };
            let needs_recv = op.receiver != Receiver::None;
            let vars_ro: &[Option<Value>] = vars;
            let lookup = |s: Scope, i: usize| match s {
                Scope::Prefix => vars_ro.get(i).and_then(Option::as_ref),
                _ => None,
            };
            match (recv_slot, arg_slots(desc, call, instances, &lookup, fresh)) {
                (r, Some(args)) if r.is_some() || !needs_recv => {
                    let mut frame = Frame::new(r, args);
                    let result = (op.call)(&mut frame);
                    Some((frame.out.take(), result))
                }
                _ => None,
            }
        };
        if let (Some(r), Some(a)) = (call.receiver, taken) {
            instances[r] = Some(a);
        }
        match outcome {
            None => CallOutcome::Unavailable,
            Some((out, result)) => finish_call(out, result, call, Some(instances), vars),
        }
    };
    panics::catch(run).unwrap_or_else(CallOutcome::Panic)
}

/// How a shared call is made.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Calling {
    /// Its return value is observed for the oracle (unless the method's results are never
    /// compared).
    pub(crate) observe: bool,
    /// Its cancellation, if the test gives it one, is made: a concurrent execution's call.
    /// A sequential run makes the call whole (its orders leave out a call not made at all).
    pub(crate) cancel: bool,
}

impl Calling {
    /// A call of a sequential run, observed or not.
    pub(crate) fn whole(observe: bool) -> Calling {
        Calling {
            observe,
            cancel: false,
        }
    }
}

/// What a call an order leaves out comes to: the cancelled call, taking no effect.
pub(crate) fn left_out() -> CallOutcome {
    let place = "left out: cancelled before it took effect".to_string();
    CallOutcome::Ok(Produced::Nothing, Some(Observation::Cancelled(place)))
}

/// Runs a call of a suffix thread or of the post part against the shared pool, as `how`
/// says. A call whose future was dropped at its cancellation point comes to
/// `Ok(Nothing, Cancelled)`: it did not fail, and it has no result of its own.
pub(crate) fn call_shared<T>(
    desc: &Description<T>,
    call: &Call,
    pool: &Pool<T>,
    scope: Scope,
    local: &mut [Option<Value>],
    fresh: Vec<Option<Box<dyn Any>>>,
    how: Calling,
) -> CallOutcome {
    let op = desc.op_at(call.op);
    let run = || {
        let recv = match (op.receiver, call.receiver) {
            (Receiver::Shared | Receiver::Arc | Receiver::ArcRef, Some(r)) => {
                match pool.instances.get(r).and_then(Option::as_ref) {
                    Some(a) => RecvSlot::Shared(a),
                    None => return CallOutcome::Unavailable,
                }
            }
            _ => return CallOutcome::Unavailable,
        };
        let (out, result, observed) = {
            let local_ro: &[Option<Value>] = local;
            let lookup = |s: Scope, i: usize| {
                if s == Scope::Prefix {
                    pool.vars.get(i).and_then(Option::as_ref)
                } else if s == scope {
                    local_ro.get(i).and_then(Option::as_ref)
                } else {
                    None
                }
            };
            let Some(args) = arg_slots(desc, call, &pool.instances, &lookup, fresh) else {
                return CallOutcome::Unavailable;
            };
            let mut frame = Frame::new(Some(recv), args);
            frame.observe = how.observe && !op.nondeterministic;
            frame.cancel = call.cancel.filter(|_| how.cancel);
            let result = (op.call)(&mut frame);
            if let Some(place) = frame.cancelled.take() {
                return CallOutcome::Ok(Produced::Nothing, Some(Observation::Cancelled(place)));
            }
            (frame.out.take(), result, frame.observed.take())
        };
        match finish_call(out, result, call, None, local) {
            CallOutcome::Ok(produced, _) => CallOutcome::Ok(produced, observed),
            other => other,
        }
    };
    panics::catch(run).unwrap_or_else(CallOutcome::Panic)
}
