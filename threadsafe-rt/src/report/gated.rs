//! A controlled execution's interleaving as a gated `#[test]`: a
//! [`schedule!`](crate::schedule) that makes free-running threads take it on every run.

use std::collections::HashMap;

use super::rust::{snake, Writer};
use super::Failure;
use crate::config::Config;
use crate::point::{Step, Where};
use crate::subject::Description;
use crate::testcase::{Scope, TestCase};

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

/// `let schedule = threadsafe_rt::schedule!(...);` with `entries`, in a test's body.
pub(super) fn schedule_block(entries: &[String], out: &mut String) {
    out.push_str("    let schedule = threadsafe_rt::schedule!(\n");
    for (i, e) in entries.iter().enumerate() {
        let arrow = if i == 0 { "" } else { "-> " };
        out.push_str(&format!("        {arrow}{e:?}\n"));
    }
    out.push_str("    );\n");
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
    schedule_block(entries, &mut out);
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
