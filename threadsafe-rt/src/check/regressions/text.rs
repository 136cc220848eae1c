//! A generated test by names, and back. [`name`] writes a [`TestCase`] with the
//! constructor, method and parameter names and types of the description; [`resolve`] finds
//! them again in the type as it is now, or says why the test no longer fits it: a method
//! that is gone, skipped, or now `&mut self`, or arguments of another number or type.

use super::format::{ArgValue, NamedArg, NamedCall, NamedOut, NamedTest};
use crate::subject::{Description, Op, ParamKind};
use crate::testcase::{Arg, Call, Made, OpId, Out, Scope, TestCase, VarRef};

/// `test` by names.
pub(super) fn name<T>(desc: &Description<T>, test: &TestCase) -> NamedTest {
    let calls = |calls: &[Call]| calls.iter().map(|c| name_call(desc, c)).collect();
    NamedTest {
        prefix: calls(&test.prefix),
        threads: test.threads.iter().map(|t| calls(t)).collect(),
        post: calls(&test.post),
    }
}

fn name_call<T>(desc: &Description<T>, c: &Call) -> NamedCall {
    let op = desc.op_at(c.op);
    NamedCall {
        out: match c.out {
            Out::None => NamedOut::None,
            Out::Instance(i, _) => NamedOut::Instance(i),
            Out::Var(i) => NamedOut::Var(i),
        },
        receiver: c.receiver,
        name: op.name.to_string(),
        args: c
            .args
            .iter()
            .zip(&op.params)
            .map(|(a, p)| NamedArg {
                param: p.name.to_string(),
                ty: p.ty.to_string(),
                value: match *a {
                    Arg::Fresh(seed) => ArgValue::Seed(seed),
                    Arg::Instance(i) => ArgValue::Instance(i),
                    Arg::Var(VarRef {
                        scope: Scope::Prefix,
                        index,
                    }) => ArgValue::PrefixVar(index),
                    Arg::Var(v) => ArgValue::OwnVar(v.index),
                },
            })
            .collect(),
        cancel: c.cancel,
    }
}

/// The test `named` describes, in the type as `desc` describes it now; or why it no longer
/// fits. Instances are recorded as made by value: the sequential run that validates the
/// test tells how each really is made.
pub(super) fn resolve<T>(desc: &Description<T>, named: &NamedTest) -> Result<TestCase, String> {
    let calls = |calls: &[NamedCall], scope: Scope| -> Result<Vec<Call>, String> {
        calls.iter().map(|c| resolve_call(desc, c, scope)).collect()
    };
    let mut threads = Vec::new();
    for (t, thread) in named.threads.iter().enumerate() {
        threads.push(calls(thread, Scope::Thread(t))?);
    }
    Ok(TestCase {
        prefix: calls(&named.prefix, Scope::Prefix)?,
        threads,
        post: calls(&named.post, Scope::Post)?,
    })
}

fn resolve_call<T>(desc: &Description<T>, c: &NamedCall, scope: Scope) -> Result<Call, String> {
    let shown = c.text(if scope == Scope::Prefix { 'p' } else { 'v' });
    let name = &c.name;
    let ops: &[Op<T>] = match c.receiver {
        None => &desc.constructors,
        Some(_) => &desc.methods,
    };
    let Some(index) = ops.iter().position(|o| o.name == name.as_str()) else {
        return Err(format!("`{shown}`: {}", gone(desc, c)));
    };
    let op_id = match c.receiver {
        None => OpId::Ctor(index),
        Some(_) => OpId::Method(index),
    };
    let op = &ops[index];
    if scope != Scope::Prefix && !op.receiver.is_concurrent() {
        return Err(format!(
            "`{shown}`: `{name}` takes `&mut self` now, so it cannot run in a thread"
        ));
    }
    if op.params.len() != c.args.len() {
        return Err(format!(
            "`{shown}`: `{name}` takes {} argument(s) now",
            op.params.len()
        ));
    }
    let mut args = Vec::with_capacity(c.args.len());
    for (a, p) in c.args.iter().zip(&op.params) {
        if a.ty != p.ty {
            return Err(format!(
                "`{shown}`: argument `{}` of `{name}` is a `{}` now, not a `{}`",
                p.name, p.ty, a.ty
            ));
        }
        let var = |index| {
            let scope = match a.value {
                ArgValue::PrefixVar(_) => Scope::Prefix,
                _ => scope,
            };
            Arg::Var(VarRef { scope, index })
        };
        args.push(match (a.value, &p.kind) {
            (ArgValue::Instance(i), ParamKind::Instance(_)) => Arg::Instance(i),
            (ArgValue::Seed(seed), ParamKind::Value { .. }) => Arg::Fresh(seed),
            (
                ArgValue::PrefixVar(i) | ArgValue::OwnVar(i),
                ParamKind::Value {
                    clone: Some(_), ..
                },
            ) => var(i),
            (ArgValue::PrefixVar(_) | ArgValue::OwnVar(_), ParamKind::Value { .. }) => {
                return Err(format!(
                    "`{shown}`: argument `{}` of `{name}` cannot reuse an earlier output now (its type is not `Clone`)",
                    p.name
                ))
            }
            (ArgValue::Instance(_), ParamKind::Value { .. }) => {
                return Err(format!(
                    "`{shown}`: argument `{}` of `{name}` takes no instance of the type now",
                    p.name
                ))
            }
            (_, ParamKind::Instance(_)) => {
                return Err(format!(
                    "`{shown}`: argument `{}` of `{name}` takes an instance of the type now",
                    p.name
                ))
            }
        });
    }
    Ok(Call {
        op: op_id,
        receiver: c.receiver,
        args,
        out: match c.out {
            NamedOut::None => Out::None,
            NamedOut::Instance(i) => Out::Instance(i, Made::Value),
            NamedOut::Var(i) => Out::Var(i),
        },
        cancel: c.cancel,
    })
}

/// Why the description has no operation of the call's kind and name.
fn gone<T>(desc: &Description<T>, c: &NamedCall) -> String {
    let name = &c.name;
    if let Some(s) = desc.skipped.iter().find(|s| &s.method == name) {
        return format!("`{name}` is left out now: {}", s.reason);
    }
    let (kind, other, others) = match c.receiver {
        None => ("constructor", "a method", &desc.methods),
        Some(_) => ("method", "a constructor", &desc.constructors),
    };
    if others.iter().any(|o| o.name == name.as_str()) {
        return format!("`{name}` is {other} now, not a {kind}");
    }
    format!("the type has no {kind} `{name}` any more (or none the generator can call)")
}
