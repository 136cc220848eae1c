//! A generated test written back as Rust: the prefix, the threads in a
//! `std::thread::scope`, the post part; and the `#[test]` reproducer around it.

use crate::config::Config;
use crate::subject::assoc_path;
use crate::subject::{Description, InstancePass, Op, ParamKind, Pass, Receiver};
use crate::testcase::{Arg, Call, Made, OpId, Out, Scope, TestCase, VarRef};
use crate::value::Gen;

use super::Failure;

pub(crate) fn scope_name(scope: Scope) -> String {
    match scope {
        Scope::Prefix => "the prefix".to_string(),
        Scope::Thread(t) => format!("thread {}", t + 1),
        Scope::Post => "after the threads joined".to_string(),
    }
}

pub(super) struct Writer<'d, T> {
    desc: &'d Description<T>,
    test: &'d TestCase,
    arc_mode: bool,
    used: Vec<VarRef>,
    /// The instances a call uses, as its receiver or an argument.
    used_instances: Vec<usize>,
}

fn instance_name(i: usize) -> String {
    if i == 0 {
        "cut".to_string()
    } else {
        format!("cut{i}")
    }
}

fn var_name(v: VarRef) -> String {
    match v.scope {
        Scope::Prefix => format!("v{}", v.index),
        Scope::Thread(t) => format!("t{}_v{}", t + 1, v.index),
        Scope::Post => format!("post_v{}", v.index),
    }
}

impl<'d, T> Writer<'d, T> {
    pub(super) fn new(desc: &'d Description<T>, test: &'d TestCase) -> Self {
        let all = || {
            test.prefix
                .iter()
                .chain(test.threads.iter().flatten())
                .chain(&test.post)
        };
        let arc_mode = all().any(|c| {
            let op = desc.op_at(c.op);
            matches!(op.receiver, Receiver::Arc | Receiver::ArcRef)
                || matches!(c.out, Out::Instance(_, Made::Arc))
                || op.params.iter().any(|p| {
                    matches!(
                        p.kind,
                        ParamKind::Instance(InstancePass::Arc | InstancePass::ArcRef)
                    )
                })
        });
        let used = all()
            .flat_map(|c| c.args.iter())
            .filter_map(|a| match a {
                Arg::Var(v) => Some(*v),
                _ => None,
            })
            .collect();
        let used_instances = all()
            .flat_map(|c| {
                c.receiver
                    .into_iter()
                    .chain(c.args.iter().filter_map(|a| match a {
                        Arg::Instance(i) => Some(*i),
                        _ => None,
                    }))
            })
            .collect();
        Writer {
            desc,
            test,
            arc_mode,
            used,
            used_instances,
        }
    }

    pub(super) fn expr(&self, call: &Call) -> String {
        let op = self.desc.op_at(call.op);
        let args: Vec<String> = call
            .args
            .iter()
            .zip(&op.params)
            .map(|(a, p)| match (a, &p.kind) {
                (Arg::Instance(i), ParamKind::Instance(InstancePass::Arc)) => {
                    format!("std::sync::Arc::clone(&{})", instance_name(*i))
                }
                (Arg::Instance(i), _) => format!("&{}", instance_name(*i)),
                (
                    Arg::Fresh(seed),
                    ParamKind::Value {
                        maker: Some(s),
                        pass,
                        ..
                    },
                ) => (s.render)(&mut Gen::from_seed(*seed), *pass)
                    .unwrap_or_else(|| "todo!()".to_string()),
                (Arg::Var(v), ParamKind::Value { pass, .. }) => match pass {
                    Pass::Owned if is_copy(p.ty) => var_name(*v),
                    Pass::Owned => format!("{}.clone()", var_name(*v)),
                    Pass::Ref | Pass::Deref => format!("&{}", var_name(*v)),
                    Pass::RefMut => format!("&mut {}.clone()", var_name(*v)),
                },
                _ => "todo!()".to_string(),
            })
            .collect();
        let args = args.join(", ");
        match (op.receiver, call.receiver) {
            (Receiver::None, _) | (_, None) => {
                let e = driven(
                    op,
                    call.cancel,
                    format!("{}({args})", assoc_path(self.desc.name, op.name)),
                );
                let made = match call.out {
                    Out::Instance(_, m) => m,
                    _ => Made::Value,
                };
                let e = match made {
                    Made::Option => format!("{e}.unwrap()"),
                    Made::Result => format!("{e}.ok().unwrap()"),
                    Made::Value | Made::Arc => e,
                };
                match (self.arc_mode, made) {
                    (true, Made::Arc) | (false, _) => e,
                    (true, _) => format!("std::sync::Arc::new({e})"),
                }
            }
            (Receiver::Exclusive, Some(r)) if self.arc_mode => driven(
                op,
                call.cancel,
                format!(
                    "std::sync::Arc::get_mut(&mut {}).unwrap().{}({args})",
                    instance_name(r),
                    op.name
                ),
            ),
            (Receiver::Arc, Some(r)) => driven(
                op,
                call.cancel,
                format!(
                    "std::sync::Arc::clone(&{}).{}({args})",
                    instance_name(r),
                    op.name
                ),
            ),
            (_, Some(r)) => driven(
                op,
                call.cancel,
                format!("{}.{}({args})", instance_name(r), op.name),
            ),
        }
    }

    pub(super) fn stmt(&self, call: &Call, scope: Scope, indent: &str, out: &mut String) {
        let e = self.expr(call);
        let line = match call.out {
            Out::Instance(i, _) if scope == Scope::Prefix => {
                let exclusive = self.test.prefix.iter().any(|c| {
                    c.receiver == Some(i) && self.desc.op_at(c.op).receiver == Receiver::Exclusive
                });
                let m = if exclusive { "mut " } else { "" };
                // An instance no call uses (the calls went to another one) is still made,
                // and kept to the end as in the check, under a name that does not warn.
                let unused = if self.used_instances.contains(&i) {
                    ""
                } else {
                    "_"
                };
                format!("let {m}{unused}{} = {e};", instance_name(i))
            }
            Out::Var(index) => {
                let v = VarRef { scope, index };
                if self.used.contains(&v) {
                    format!("let {} = {e};", var_name(v))
                } else {
                    format!("let _ = {e};")
                }
            }
            _ => format!("{e};"),
        };
        out.push_str(indent);
        out.push_str(&line);
        out.push('\n');
    }

    /// A call as a statement that keeps its return value, for the results a reproducer
    /// compares: the expression of the kept value (`name`, or the call's output variable
    /// cloned when later calls use it; a returned reference is made owned).
    pub(super) fn stmt_kept(
        &self,
        call: &Call,
        scope: Scope,
        name: &str,
        indent: &str,
        out: &mut String,
    ) -> String {
        let e = self.expr(call);
        let owned = |v: &str| match self.desc.op_at(call.op).returns {
            Some(ty) if ty.starts_with('&') => format!("{v}.to_owned()"),
            _ => v.to_string(),
        };
        let (binding, kept) = match call.out {
            Out::Var(index) if self.used.contains(&VarRef { scope, index }) => {
                let v = var_name(VarRef { scope, index });
                let kept = format!("{v}.clone()");
                (v, kept)
            }
            _ => (name.to_string(), owned(name)),
        };
        out.push_str(&format!("{indent}let {binding} = {e};\n"));
        kept
    }

    /// The calls of one part of the test, a statement each.
    pub(super) fn stmts(&self, calls: &[Call], scope: Scope, indent: &str, out: &mut String) {
        for c in calls {
            self.stmt(c, scope, indent, out);
        }
    }

    /// Each thread's calls in a `spawn` block opened by `open(t)` (`s.spawn(|| {`), inside
    /// a scope whose body is at `indent`.
    pub(super) fn spawns(&self, indent: &str, open: impl Fn(usize) -> String, out: &mut String) {
        for (t, calls) in self.test.threads.iter().enumerate() {
            out.push_str(&format!("{indent}    {}\n", open(t)));
            self.stmts(calls, Scope::Thread(t), &format!("{indent}        "), out);
            out.push_str(&format!("{indent}    }});\n"));
        }
    }

    /// The body of the test: prefix, the threads in a scope, then the post part.
    pub(super) fn body(&self, indent: &str) -> String {
        let mut out = String::new();
        self.stmts(&self.test.prefix, Scope::Prefix, indent, &mut out);
        out.push_str(&format!("{indent}std::thread::scope(|s| {{\n"));
        self.spawns(indent, |_| "s.spawn(|| {".to_string(), &mut out);
        out.push_str(&format!("{indent}}});\n"));
        self.stmts(&self.test.post, Scope::Post, indent, &mut out);
        out
    }

    /// `let start = ...;` at `indent`: a closure each thread of a reproducer calls first,
    /// which waits until all have started, so that their calls overlap (spawning alone
    /// staggers them by tens of microseconds, longer than most race windows).
    pub(super) fn start_together(&self, indent: &str, out: &mut String) {
        let n = self.test.threads.len();
        out.push_str(&format!(
            "{indent}let started = std::sync::atomic::AtomicUsize::new(0);\n\
             {indent}let start = || {{\n\
             {indent}    started.fetch_add(1, std::sync::atomic::Ordering::SeqCst);\n\
             {indent}    while started.load(std::sync::atomic::Ordering::SeqCst) < {n} {{\n\
             {indent}        std::hint::spin_loop();\n\
             {indent}    }}\n\
             {indent}}};\n"
        ));
    }

    /// [`body`](Self::body) with the threads started together (see
    /// [`start_together`](Self::start_together)).
    pub(super) fn body_started_together(&self, indent: &str) -> String {
        let mut out = String::new();
        self.stmts(&self.test.prefix, Scope::Prefix, indent, &mut out);
        self.start_together(indent, &mut out);
        out.push_str(&format!("{indent}std::thread::scope(|s| {{\n"));
        self.spawns(
            indent,
            |_| "s.spawn(|| {\n".to_string() + indent + "        start();",
            &mut out,
        );
        out.push_str(&format!("{indent}}});\n"));
        self.stmts(&self.test.post, Scope::Post, indent, &mut out);
        out
    }
}

/// The test as Rust statements (prefix, scoped threads, post part).
pub(crate) fn render_body<T>(desc: &Description<T>, test: &TestCase, indent: &str) -> String {
    Writer::new(desc, test).body(indent)
}

/// True for a type written with primitives only (`u32`, `(bool, char)`, `Option<i8>`,
/// `[u8; 4]`): a reused variable of it is passed as is, not `.clone()`d.
fn is_copy(ty: &str) -> bool {
    const PRIMITIVES: [&str; 18] = [
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "f32", "f64", "bool", "char", "Option", "",
    ];
    ty.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .all(|word| PRIMITIVES.contains(&word) || word.chars().all(|c| c.is_ascii_digit()))
}

/// A `#[test]` that runs the scenario `repeat` times (a race needs a lucky schedule). A
/// deadlock's runs in [`crate::contain`], so that it fails the test instead of hanging it.
pub(crate) fn render_reproducer<T>(
    desc: &Description<T>,
    test: &TestCase,
    failure: &Failure,
    config: &Config,
    repeat: u64,
    replay: Option<&str>,
) -> String {
    let fn_name = format!("{}_thread_safety_violation", snake(desc.name));
    let contained = matches!(failure, Failure::Deadlock { .. });
    let mut out = String::new();
    out.push_str(&format!(
        "/// Found by threadsafe (seed {}): {failure}.\n",
        config.seed
    ));
    match replay {
        Some(token) => out.push_str(&format!(
            "/// Found under the controlled scheduler: `THREADSAFE_REPLAY={token}` replays that exact\n\
             /// interleaving; free-running threads, as here, need luck, so the scenario is repeated.\n"
        )),
        None => out.push_str(
            "/// The failure needs an unlucky schedule, so the scenario is repeated.\n",
        ),
    }
    if contained {
        out.push_str(
            "/// It runs in a child process (`threadsafe_rt::contain`): the deadlock fails this test\n\
             /// instead of hanging it, and leaves no thread blocked in the test binary.\n",
        );
    }
    out.push_str("#[test]\n");
    out.push_str(&format!("fn {fn_name}() {{\n"));
    out.push_str(&repeated(desc, test, repeat, contained));
    out.push_str("}\n");
    out
}

/// The body of a reproducer: the scenario in a loop of `repeat`, inside
/// A call expression as the reproducer runs it: an async function's future driven to
/// completion on the calling thread, or dropped at its cancellation point, as the check
/// drove it.
fn driven<T>(op: &Op<T>, cancel: Option<u32>, call: String) -> String {
    match (op.asynchronous, cancel) {
        (true, Some(n)) => format!("::threadsafe_rt::cancel_at({call}, {n})"),
        (true, None) => format!("::threadsafe_rt::block_on({call})"),
        (false, _) => call,
    }
}

/// `::threadsafe_rt::contain` if `contained`, indented for a function body.
fn repeated<T>(desc: &Description<T>, test: &TestCase, repeat: u64, contained: bool) -> String {
    let (open, indent, close) = if contained {
        ("    ::threadsafe_rt::contain(|| {\n", "    ", "    });\n")
    } else {
        ("", "", "")
    };
    format!(
        "{open}{indent}    for _ in 0..{repeat} {{\n{}{indent}    }}\n{close}",
        Writer::new(desc, test).body_started_together(&format!("{indent}        "))
    )
}

/// `Cache<String, u32>` → `cache_string_u32`.
pub(crate) fn snake(name: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if prev_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = false;
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
            prev_lower = true;
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
            prev_lower = false;
        }
    }
    out.trim_end_matches('_').to_string()
}

/// The method a call site names, for failure messages.
pub(crate) fn method_at<T>(
    desc: &Description<T>,
    test: &TestCase,
    scope: Scope,
    call: usize,
) -> String {
    test.calls(scope)
        .get(call)
        .map(|c| match c.op {
            OpId::Ctor(i) | OpId::Method(i) => {
                let _ = i;
                desc.op_at(c.op).name.to_string()
            }
        })
        .unwrap_or_else(|| "?".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitive_types_are_copy() {
        for t in ["u32", "(bool, char)", "Option<i8>", "[u8; 4]", "usize"] {
            assert!(is_copy(t), "{t}");
        }
        for t in ["String", "Vec<u8>", "Option<String>", "&str", "Key"] {
            assert!(!is_copy(t), "{t}");
        }
    }

    #[test]
    fn snake_case_names() {
        assert_eq!(snake("StringBuffer"), "string_buffer");
        assert_eq!(snake("Cache<String, u32>"), "cache_string_u32");
        assert_eq!(snake("HTTPPool"), "httppool");
    }
}
