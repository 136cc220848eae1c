//! What a check found, and the generated test written back as Rust.

use std::fmt;
use std::time::Duration;

use crate::config::Config;
use crate::coverage::MapCoverage;
use crate::generate::{assoc_path, Gen};
use crate::model::{Arg, Call, Made, OpId, Out, Scope, TestCase, VarRef};
use crate::point::{Step, Where};
use crate::subject::{Description, InstancePass, ParamKind, Pass, Receiver, Skipped};

/// The outcome of [`check`](crate::check).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Report {
    /// The checked type, as the reproducer writes it.
    pub type_name: String,
    /// The generator's seed.
    pub seed: u64,
    /// What was found.
    pub verdict: Verdict,
    /// Generated tests run.
    pub tests: u64,
    /// Concurrent executions run.
    pub executions: u64,
    /// Wall-clock time of the check.
    pub elapsed: Duration,
    /// Methods left out, with the reason.
    pub skipped: Vec<Skipped>,
    /// Tests whose executions ran under the controlled scheduler.
    pub controlled_tests: u64,
    /// Controlled executions that had to give up control (something blocked outside the
    /// scheduler, e.g. on a `std::sync::Mutex`): they ran free from that point.
    pub uncontrolled_runs: u64,
    /// Worker threads this check left blocked in deadlocked code (std locks cannot be
    /// broken; the threads stay blocked until the process exits).
    pub abandoned_threads: usize,
    /// The memory-access-pattern coverage its controlled executions reached.
    pub coverage: Coverage,
    /// What ended the check.
    pub ended: Ended,
}

/// The MAP-coverage of a check, when it could be measured.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Coverage {
    /// Measured over the controlled executions.
    Measured(Box<MapCoverage>),
    /// Not measured, and why (e.g. free-running executions have no order of steps).
    NotMeasured(String),
}

impl Coverage {
    /// The coverage, if measured.
    pub fn measured(&self) -> Option<&MapCoverage> {
        match self {
            Coverage::Measured(c) => Some(c),
            Coverage::NotMeasured(_) => None,
        }
    }
}

/// What ended a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ended {
    /// A violation was found.
    Violation,
    /// The time budget ran out.
    Budget,
    /// Every feasible memory-access pattern was covered (with
    /// [`Config::stop_when_covered`]).
    AllPatternsCovered,
    /// The generator made every test its limits allow, or the check could not run.
    Exhausted,
}

/// The verdict of a check.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Verdict {
    /// A concurrent execution failed in a way no sequential order of its calls does.
    Violation(Box<Violation>),
    /// The budget ran out without a violation (which proves nothing either way).
    NoViolationFound,
    /// The check could not run; the reason says how to fix it.
    CannotCheck(String),
}

/// A thread-safety violation: the failure, the test that shows it, and a reproducer.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Violation {
    /// What went wrong.
    pub failure: Failure,
    /// How many sequential orders (linearizations) of the same calls were run, none of
    /// which fails the same way.
    pub linearizations: usize,
    /// Generated tests run until the violation.
    pub tests_until_found: u64,
    /// Concurrent executions run until the violation.
    pub executions_until_found: u64,
    /// Time until the violation.
    pub time_to_bug: Duration,
    /// A `#[test]` function that re-creates the prefix and runs the suffixes on threads.
    pub reproducer: String,
    /// The failing schedule, step by step, when the execution was controlled.
    pub interleaving: Option<String>,
    /// `THREADSAFE_REPLAY` token that re-runs exactly this execution (controlled only).
    pub replay: Option<String>,
    /// The failing interleaving as a `#[test]` whose [gates](crate::gates) enforce it on
    /// free-running threads, so it fails every run: the regression test to keep (a panic
    /// found under control only).
    pub gated: Option<String>,
    /// The [`schedule!`](crate::schedule) entries of [`gated`](Violation::gated).
    pub schedule: Option<Vec<String>>,
}

/// How a concurrent execution failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// A call panicked.
    Panic {
        /// Where it ran: `thread 1`, `thread 2`, ... or `after the threads joined`.
        thread: String,
        /// The method that panicked.
        method: String,
        /// `file:line:col` of the panic.
        location: String,
        /// The panic message.
        message: String,
    },
    /// Threads stopped making progress.
    Deadlock {
        /// Each blocked thread and the method it was in, e.g. `thread 1 in `eq``.
        blocked: Vec<String>,
    },
}

impl Report {
    /// The violation, if one was found.
    pub fn violation(&self) -> Option<&Violation> {
        match &self.verdict {
            Verdict::Violation(v) => Some(v),
            _ => None,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Panic {
                thread,
                method,
                location,
                message,
            } => {
                // "panic in thread 2, in `pop`", but "panic after the threads joined, in
                // `pop`".
                let at = if thread.starts_with("thread ") {
                    "in "
                } else {
                    ""
                };
                write!(
                    f,
                    "panic {at}{thread}, in `{method}`, at {location}: {message}"
                )
            }
            Failure::Deadlock { blocked } => write!(f, "deadlock: {}", blocked.join("; ")),
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &self.type_name;
        let seconds = self.elapsed.as_secs_f64();
        match &self.verdict {
            Verdict::Violation(v) => {
                writeln!(f, "threadsafe: `{name}` is not thread-safe")?;
                writeln!(f, "  failure: {}", v.failure)?;
                writeln!(
                    f,
                    "  oracle:  none of the {} sequential orders of the same calls fails this way",
                    v.linearizations
                )?;
                writeln!(
                    f,
                    "  seed:    {} (set THREADSAFE_SEED={} to generate the same tests)",
                    self.seed, self.seed
                )?;
                writeln!(
                    f,
                    "  found:   after {} tests, {} executions, {:.3} s",
                    v.tests_until_found,
                    v.executions_until_found,
                    v.time_to_bug.as_secs_f64()
                )?;
                if let Some(token) = &v.replay {
                    writeln!(
                        f,
                        "  replay:  THREADSAFE_REPLAY={token} re-runs exactly this execution"
                    )?;
                }
                if let Some(table) = &v.interleaving {
                    writeln!(f, "\n  The failing interleaving (one thread at a time):")?;
                    write!(f, "{table}")?;
                }
            }
            Verdict::NoViolationFound => {
                writeln!(
                    f,
                    "threadsafe: no thread-safety violation found in `{name}`: {} tests, {} executions, {seconds:.3} s (seed {})",
                    self.tests, self.executions, self.seed
                )?;
            }
            Verdict::CannotCheck(why) => {
                writeln!(f, "threadsafe: cannot check `{name}`: {why}")?;
            }
        }
        if !self.skipped.is_empty() {
            writeln!(f, "  skipped methods:")?;
            for s in &self.skipped {
                writeln!(f, "    - `{}`: {}", s.method, s.reason)?;
            }
        }
        match (&self.coverage, &self.verdict) {
            (_, Verdict::CannotCheck(_)) => {}
            (Coverage::Measured(c), _) => write!(f, "{c}")?,
            (Coverage::NotMeasured(why), _) => {
                writeln!(f, "  MAP-coverage: not measured ({why})")?;
            }
        }
        match self.ended {
            Ended::AllPatternsCovered => writeln!(
                f,
                "  ended: every feasible memory-access pattern was covered"
            )?,
            Ended::Budget => writeln!(f, "  ended: the time budget ran out")?,
            Ended::Exhausted | Ended::Violation => {}
        }
        if self.uncontrolled_runs > 0 {
            writeln!(
                f,
                "  note: {} controlled execution(s) blocked outside the scheduler (a std lock?) and finished free-running",
                self.uncontrolled_runs
            )?;
        }
        if self.abandoned_threads > 0 {
            writeln!(
                f,
                "  note: {} worker thread(s) stayed blocked in deadlocked code and were left behind",
                self.abandoned_threads
            )?;
        }
        if let Verdict::Violation(v) = &self.verdict {
            writeln!(
                f,
                "\nReproducer (paste it into a test module that sees `{name}`):\n"
            )?;
            writeln!(f, "{}", v.reproducer)?;
            if let Some(gated) = &v.gated {
                writeln!(
                    f,
                    "The failing interleaving as a deterministic test (gates enforce it; it fails \
                     every run until the bug is fixed):\n"
                )?;
                writeln!(f, "{gated}")?;
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Writing a test as Rust.
// ---------------------------------------------------------------------------------------

pub(crate) fn scope_name(scope: Scope) -> String {
    match scope {
        Scope::Prefix => "the prefix".to_string(),
        Scope::Thread(t) => format!("thread {}", t + 1),
        Scope::Post => "after the threads joined".to_string(),
    }
}

struct Writer<'d, T> {
    desc: &'d Description<T>,
    test: &'d TestCase,
    arc_mode: bool,
    used: Vec<VarRef>,
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
    fn new(desc: &'d Description<T>, test: &'d TestCase) -> Self {
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
        Writer {
            desc,
            test,
            arc_mode,
            used,
        }
    }

    fn expr(&self, call: &Call) -> String {
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
                        strategy: Some(s),
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
                let e = format!("{}({args})", assoc_path(self.desc.name, op.name));
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
            (Receiver::Exclusive, Some(r)) if self.arc_mode => format!(
                "std::sync::Arc::get_mut(&mut {}).unwrap().{}({args})",
                instance_name(r),
                op.name
            ),
            (Receiver::Arc, Some(r)) => {
                format!(
                    "std::sync::Arc::clone(&{}).{}({args})",
                    instance_name(r),
                    op.name
                )
            }
            (_, Some(r)) => format!("{}.{}({args})", instance_name(r), op.name),
        }
    }

    fn stmt(&self, call: &Call, scope: Scope, indent: &str, out: &mut String) {
        let e = self.expr(call);
        let line = match call.out {
            Out::Instance(i, _) if scope == Scope::Prefix => {
                let exclusive = self.test.prefix.iter().any(|c| {
                    c.receiver == Some(i) && self.desc.op_at(c.op).receiver == Receiver::Exclusive
                });
                let m = if exclusive { "mut " } else { "" };
                format!("let {m}{} = {e};", instance_name(i))
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

    /// The calls of one part of the test, a statement each.
    fn stmts(&self, calls: &[Call], scope: Scope, indent: &str, out: &mut String) {
        for c in calls {
            self.stmt(c, scope, indent, out);
        }
    }

    /// Each thread's calls in a `spawn` block opened by `open(t)` (`s.spawn(|| {`), inside
    /// a scope whose body is at `indent`.
    fn spawns(&self, indent: &str, open: impl Fn(usize) -> String, out: &mut String) {
        for (t, calls) in self.test.threads.iter().enumerate() {
            out.push_str(&format!("{indent}    {}\n", open(t)));
            self.stmts(calls, Scope::Thread(t), &format!("{indent}        "), out);
            out.push_str(&format!("{indent}    }});\n"));
        }
    }

    /// The body of the test: prefix, the threads in a scope, then the post part.
    fn body(&self, indent: &str) -> String {
        let mut out = String::new();
        self.stmts(&self.test.prefix, Scope::Prefix, indent, &mut out);
        out.push_str(&format!("{indent}std::thread::scope(|s| {{\n"));
        self.spawns(indent, |_| "s.spawn(|| {".to_string(), &mut out);
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

/// A `#[test]` that runs the scenario `repeat` times (a race needs a lucky schedule).
pub(crate) fn render_reproducer<T>(
    desc: &Description<T>,
    test: &TestCase,
    failure: &Failure,
    config: &Config,
    repeat: u64,
    replay: Option<&str>,
) -> String {
    let fn_name = format!("{}_thread_safety_violation", snake(desc.name));
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
            "/// The failure needs an unlucky schedule, so the scenario is repeated; a deadlock hangs.\n",
        ),
    }
    out.push_str("#[test]\n");
    out.push_str(&format!("fn {fn_name}() {{\n"));
    out.push_str(&format!("    for _ in 0..{repeat} {{\n"));
    out.push_str(&render_body(desc, test, "        "));
    out.push_str("    }\n}\n");
    out
}

/// The [`schedule!`](crate::schedule) entries that make free-running threads take the
/// interleaving of `trace`.
///
/// A step is logged when a thread that has the turn *reaches* a point; the scheduler then
/// lets it run the operation there, or switches away (the step is `held`) and the thread
/// runs it when it gets the turn again. The trace cuts into segments, one thread's
/// consecutive steps each. A segment ends with its thread held at its last step, or with
/// the thread running on from there until it ended or blocked on a lock. Each segment's
/// thread waits where it was held (or at the segment's first step) until the thread of the
/// segment before has reached where that segment ended (its last step, or `end`). After the
/// last step the threads ran with no point left: the threads still held wait for the last
/// segment's thread to stop, and if it stopped held, it waits for them to end. Steps at
/// locations a gate cannot name (yields) are left out.
pub(crate) fn gated_entries(trace: &[Step]) -> Vec<String> {
    use std::collections::HashMap;
    let mut seen: HashMap<(usize, String), usize> = HashMap::new();
    let mut steps: Vec<(usize, String, bool)> = Vec::new();
    for s in trace {
        let loc = match s.at {
            Where::Statement(p) => format!("fn {}@{}", p.method, p.line),
            Where::Code(l) => match crate::gates::SyncOp::of(s.op) {
                Some(op) => format!("{}@{}:{}", op.name(), l.file(), l.line()),
                None => continue,
            },
        };
        let n = seen.entry((s.thread, loc.clone())).or_insert(0);
        *n += 1;
        steps.push((s.thread, format!("{loc}#{n}"), s.held));
    }
    struct Segment<'a> {
        thread: usize,
        first: &'a str,
        last: &'a str,
        held: bool,
    }
    let mut segments: Vec<Segment<'_>> = Vec::new();
    for (t, loc, held) in &steps {
        match segments.last_mut() {
            Some(s) if s.thread == *t => {
                s.last = loc;
                s.held = *held;
            }
            _ => segments.push(Segment {
                thread: *t,
                first: loc,
                last: loc,
                held: *held,
            }),
        }
    }
    let name = |t: usize| format!("t{}", t + 1);
    let mut held_at: HashMap<usize, &str> = HashMap::new();
    let mut entries = Vec::new();
    for (k, pair) in segments.windows(2).enumerate() {
        let [x, y] = pair else {
            unreachable!("windows of 2")
        };
        let x_runs_again = segments[k + 2..].iter().any(|s| s.thread == x.thread);
        let x_stop = if x.held || x_runs_again {
            x.last
        } else {
            "end"
        };
        // `x` was the previous `y`, so it is not in `held_at` now.
        if x.held {
            held_at.insert(x.thread, x.last);
        }
        let resume = held_at.get(&y.thread).copied().unwrap_or(y.first);
        entries.push(format!("{}: {x_stop}", name(x.thread)));
        entries.push(format!("{}: {resume}", name(y.thread)));
        held_at.remove(&y.thread);
    }
    // After the last step, the threads ran with no point left: the ones held earlier wait
    // until the last segment's thread has stopped, and if it was held, it waits until they
    // have ended.
    if let Some(last) = segments.last() {
        let stop = if last.held { last.last } else { "end" };
        let mut waiting: Vec<(usize, &str)> = held_at
            .into_iter()
            .filter(|(t, _)| *t != last.thread)
            .collect();
        waiting.sort_unstable();
        for (t, at) in &waiting {
            entries.push(format!("{}: {stop}", name(last.thread)));
            entries.push(format!("{}: {at}", name(*t)));
        }
        if last.held {
            let mut others: Vec<usize> = segments
                .iter()
                .map(|s| s.thread)
                .filter(|t| *t != last.thread)
                .collect();
            others.sort_unstable();
            others.dedup();
            for t in others {
                entries.push(format!("{}: end", name(t)));
                entries.push(format!("{}: {}", name(last.thread), last.last));
            }
        }
    }
    entries
}

/// The failing interleaving as a gated `#[test]` (see [`gated_entries`]).
pub(crate) fn render_gated<T>(
    desc: &Description<T>,
    test: &TestCase,
    failure: &Failure,
    config: &Config,
    entries: &[String],
) -> String {
    let w = Writer::new(desc, test);
    let fn_name = format!("{}_gated", snake(desc.name));
    let mut out = format!(
        "/// Found by threadsafe (seed {}): {failure}.\n\
         /// The gates hold each thread where the failing controlled run switched away from it.\n\
         #[test]\nfn {fn_name}() {{\n",
        config.seed
    );
    w.stmts(&test.prefix, Scope::Prefix, "    ", &mut out);
    out.push_str("    let schedule = threadsafe_rt::schedule!(\n");
    for (i, e) in entries.iter().enumerate() {
        let arrow = if i == 0 { "" } else { "-> " };
        out.push_str(&format!("        {arrow}{e:?}\n"));
    }
    out.push_str("    );\n");
    out.push_str("    let outcome = threadsafe_rt::gates::run(schedule, |s| {\n");
    w.spawns(
        "    ",
        |t| format!("s.spawn(\"t{}\", || {{", t + 1),
        &mut out,
    );
    out.push_str("    });\n    outcome.unwrap();\n");
    w.stmts(&test.post, Scope::Post, "    ", &mut out);
    out.push_str("}\n");
    out
}

/// The steps of a controlled execution as a table: consecutive steps of one thread in one
/// call are collapsed into a row.
pub(crate) fn render_interleaving<T>(
    desc: &Description<T>,
    test: &TestCase,
    trace: &[Step],
) -> String {
    let mut rows: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for step in trace {
        let op = match step.at {
            Where::Statement(p) => format!("line {}", p.line),
            Where::Code(l) => format!(
                "{} at {}:{}",
                step.op.name(),
                short_file(l.file()),
                l.line()
            ),
        };
        match rows.last_mut() {
            Some((t, c, ops)) if *t == step.thread && *c == step.call => ops.push(op),
            _ => rows.push((step.thread, step.call, vec![op])),
        }
    }
    let mut out = String::new();
    for (t, c, ops) in rows {
        let method = method_at(desc, test, Scope::Thread(t), c);
        let shown: Vec<&str> = ops.iter().take(6).map(String::as_str).collect();
        let more = if ops.len() > 6 {
            format!(", … (+{})", ops.len() - 6)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "    thread {}  {:<20} {}{more}\n",
            t + 1,
            format!("{method}()"),
            shown.join(", ")
        ));
    }
    out
}

fn short_file(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
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
    fn a_post_call_panic_reads_as_english() {
        let panic = |thread: &str| Failure::Panic {
            thread: thread.to_string(),
            method: "pop".to_string(),
            location: "src/lib.rs:3:9".to_string(),
            message: "empty".to_string(),
        };
        assert_eq!(
            panic("thread 2").to_string(),
            "panic in thread 2, in `pop`, at src/lib.rs:3:9: empty"
        );
        assert_eq!(
            panic("after the threads joined").to_string(),
            "panic after the threads joined, in `pop`, at src/lib.rs:3:9: empty"
        );
    }

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
