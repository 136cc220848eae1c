//! A controlled execution's interleaving as a gated `#[test]`: a
//! [`schedule!`](crate::schedule) that makes free-running threads take it on every run.

use std::collections::HashMap;

use super::rust::{snake, Writer};
use super::Failure;
use crate::config::Config;
use crate::point::{PointKind, Step, Where};
use crate::subject::Description;
use crate::testcase::{Scope, TestCase};

/// The [`schedule!`](crate::schedule) entries that make free-running threads take the
/// interleaving of `trace`; none when the trace does not say which thread ran where.
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
///
/// A thread held at a step whose next step is its own again gave the turn to a thread
/// that reached no point before the turn came back. When exactly one other thread was
/// held, at a statement or an operation that cannot block, and has no later step, that
/// thread ran on from there to its end: a segment the trace does not show, which is put
/// in (the held thread waits until the other has ended). Otherwise the trace cannot say:
/// the other thread may have blocked at once (at a lock the held one holds) or run to its
/// end, or another of several threads ran; the segment goes on as the trace shows it, as
/// if nobody ran, which is right when the other thread blocked (on the corpus, such a gated
/// test fails in some finds and passes or ends in a gate deadlock in others: see decision
/// 0055).
pub(crate) fn gated_entries(trace: &[Step]) -> Vec<String> {
    let mut seen: HashMap<(usize, String), usize> = HashMap::new();
    // Each step: its index in the trace, its thread, its location, whether it was held,
    // whether its operation can block.
    let mut steps: Vec<(usize, usize, String, bool, bool)> = Vec::new();
    for (k, s) in trace.iter().enumerate() {
        let loc = match s.at {
            Where::Statement(p) => format!("fn {}@{}", p.method, p.line),
            Where::Code(l) => match crate::gates::SyncOp::of(s.op) {
                Some(op) => format!("{}@{}:{}", op.name(), l.file(), l.line()),
                None => continue,
            },
        };
        let n = seen.entry((s.thread, loc.clone())).or_insert(0);
        *n += 1;
        let blocks = matches!(
            s.op,
            PointKind::Lock | PointKind::ReadLock | PointKind::Wait | PointKind::Barrier
        );
        steps.push((k, s.thread, format!("{loc}#{n}"), s.held, blocks));
    }
    struct Segment<'a> {
        thread: usize,
        first: &'a str,
        last: &'a str,
        /// The index in the trace of the step at `last`.
        last_index: usize,
        held: bool,
        /// The operation at `last` can block.
        blocks: bool,
    }
    /// Appends `seg`: the thread of the segment before is held if it stopped held, and
    /// `seg`'s thread no longer is.
    fn push<'a>(
        segments: &mut Vec<Segment<'a>>,
        held: &mut HashMap<usize, (&'a str, bool)>,
        seg: Segment<'a>,
    ) {
        if let Some(prev) = segments.last().filter(|p| p.held) {
            held.insert(prev.thread, (prev.last, prev.blocks));
        }
        held.remove(&seg.thread);
        segments.push(seg);
    }
    /// The thread that ran, reaching no point, while `s`'s thread was held at its last
    /// step, and where it had been held; `None` when nobody did (`s` was not held) or the
    /// trace cannot say.
    fn ran_unseen<'a>(
        s: &Segment<'a>,
        held: &HashMap<usize, (&'a str, bool)>,
        trace: &[Step],
    ) -> Option<(usize, &'a str)> {
        if !s.held {
            return None;
        }
        let others: Vec<(usize, (&str, bool))> = held
            .iter()
            .filter(|(u, _)| **u != s.thread)
            .map(|(u, h)| (*u, *h))
            .collect();
        let [(u, (at, false))] = others[..] else {
            return None;
        };
        let later = trace[s.last_index + 1..].iter().any(|x| x.thread == u);
        (!later).then_some((u, at))
    }
    let mut segments: Vec<Segment<'_>> = Vec::new();
    // The threads held at the end of their last segment: where, and whether that can block.
    let mut held: HashMap<usize, (&str, bool)> = HashMap::new();
    for (k, t, loc, is_held, blocks) in &steps {
        let seg = Segment {
            thread: *t,
            first: loc,
            last: loc,
            last_index: *k,
            held: *is_held,
            blocks: *blocks,
        };
        match segments.last_mut() {
            Some(s) if s.thread == *t => match ran_unseen(s, &held, trace) {
                Some((u, at)) => {
                    let ran = Segment {
                        thread: u,
                        first: at,
                        last: at,
                        last_index: s.last_index + 1,
                        held: false,
                        blocks: false,
                    };
                    push(&mut segments, &mut held, ran);
                    push(&mut segments, &mut held, seg);
                }
                None => {
                    s.last = loc;
                    s.last_index = *k;
                    s.held = *is_held;
                    s.blocks = *blocks;
                }
            },
            _ => push(&mut segments, &mut held, seg),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::point::StatementPoint;

    static WARN: StatementPoint = StatementPoint {
        method: "warning",
        file: "l.rs",
        line: 163,
        fields: &[],
    };
    static COUNT: StatementPoint = StatementPoint {
        method: "log",
        file: "l.rs",
        line: 138,
        fields: &[],
    };
    static PUBLISH: StatementPoint = StatementPoint {
        method: "log",
        file: "l.rs",
        line: 143,
        fields: &[],
    };
    static REMOVE: StatementPoint = StatementPoint {
        method: "remove_handler",
        file: "l.rs",
        line: 109,
        fields: &[],
    };

    fn step(thread: usize, at: &'static StatementPoint, held: bool) -> Step {
        Step {
            thread,
            call: 0,
            op: PointKind::Statement,
            obj: 0,
            var: None,
            at: Where::Statement(at),
            held,
        }
    }

    fn lock(thread: usize, held: bool) -> Step {
        Step {
            op: PointKind::Lock,
            at: Where::Code(std::panic::Location::caller()),
            ..step(thread, &REMOVE, held)
        }
    }

    #[test]
    fn segments_follow_the_switches() {
        // t1 held at `warning`, t2 runs `remove_handler` to its end, t1 goes on.
        let trace = [step(0, &WARN, true), step(1, &REMOVE, false)];
        assert_eq!(
            gated_entries(&trace),
            [
                "t1: fn warning@163#1",
                "t2: fn remove_handler@109#1",
                "t2: end",
                "t1: fn warning@163#1"
            ]
        );
    }

    /// The Logger's race: t2 is held before it counts, t1 before it removes; t2 counts, is
    /// held before it publishes, and the turn goes to t1, which removes and ends with no
    /// point on the way, so that the trace goes on with t2. The gated test must hold t2
    /// before it publishes until t1 has ended (not let t1 remove only after t2 ended).
    #[test]
    fn a_thread_that_ran_to_its_end_unseen_is_put_in() {
        let trace = [
            step(1, &WARN, true),
            step(0, &REMOVE, true),
            step(1, &COUNT, true),
            step(1, &PUBLISH, false),
        ];
        let entries = gated_entries(&trace);
        assert_eq!(
            entries,
            [
                "t2: fn warning@163#1",
                "t1: fn remove_handler@109#1",
                "t1: fn remove_handler@109#1",
                "t2: fn warning@163#1",
                "t2: fn log@138#1",
                "t1: fn remove_handler@109#1",
                "t1: end",
                "t2: fn log@138#1",
            ]
        );
    }

    /// When the other thread was held at a lock, it may have blocked there rather than run
    /// to its end; when it has later steps, it did not end; when nobody else was held, the
    /// trace does not say who ran. The segment then goes on as the trace shows it.
    #[test]
    fn the_trace_as_it_is_when_it_does_not_say_who_ran() {
        let at_a_lock = [
            step(1, &WARN, true),
            lock(0, true),
            step(1, &COUNT, true),
            step(1, &PUBLISH, false),
        ];
        let Where::Code(l) = at_a_lock[1].at else {
            unreachable!("a lock")
        };
        let lock_at = format!("t1: lock@{}:{}#1", l.file(), l.line());
        let warn = "t2: fn warning@163#1".to_string();
        assert_eq!(
            gated_entries(&at_a_lock),
            [
                warn.clone(),
                lock_at.clone(),
                lock_at.clone(),
                warn,
                "t2: end".to_string(),
                lock_at,
            ]
        );
        let runs_again = [
            step(1, &WARN, true),
            step(0, &REMOVE, true),
            step(1, &COUNT, true),
            step(1, &PUBLISH, true),
            step(0, &REMOVE, false),
        ];
        let mut as_shown = runs_again;
        as_shown[2].held = false;
        assert_eq!(gated_entries(&runs_again), gated_entries(&as_shown));
        let nobody_held = [step(1, &COUNT, true), step(1, &PUBLISH, false)];
        assert!(gated_entries(&nobody_held).is_empty());
    }
}
