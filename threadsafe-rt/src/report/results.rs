//! Wrong results, as the report shows them (in the spirit of lincheck's failure table):
//! each thread's calls with what they returned, the post part, then what the sequential
//! orders give where they differ.

use std::collections::HashSet;
use std::fmt::Write as _;

use super::rust::{scope_name, Writer};
use super::Failure;
use crate::exec::{Res, Results, Site};
use crate::subject::Description;
use crate::testcase::{entry, Call, Scope, TestCase};

/// Results no sequential order gives: the `observed` ones, and those the sequential orders
/// give, each with an order that gives it (values at the calls in `varying` differ between
/// sequential runs: not compared).
#[derive(Clone, Copy)]
pub(crate) struct WrongResults<'a> {
    pub(crate) observed: &'a Results,
    pub(crate) sequential: &'a [(Results, Vec<usize>)],
    pub(crate) varying: &'a HashSet<Site>,
}

/// Sequential results shown at most (the nearest first).
const SHOWN: usize = 4;

/// How a result reads in the table.
fn show(res: &Res, varying: bool) -> String {
    match res {
        Res::Value(v) if varying => format!("{v:?} (varies between sequential runs: not compared)"),
        Res::Value(v) => format!("{v:?}"),
        Res::Returned => "returned".to_string(),
        Res::NotComparable => "returned (not comparable)".to_string(),
        Res::Panicked(at) => format!("panicked at {at}"),
        Res::Cancelled(at) => format!("cancelled at {at}"),
    }
}

/// The calls of `test` a site names, as the reproducer writes them.
fn call_text<T>(w: &Writer<'_, T>, test: &TestCase, site: Site) -> String {
    let call = match site.scope {
        Scope::Thread(t) => &test.threads[t][site.call],
        Scope::Post => &test.post[site.call],
        Scope::Prefix => return String::new(),
    };
    w.expr(call)
}

/// The sites at which `seq` differs from `observed` (compared values and panics), or
/// `None` when they ran different calls.
fn differences(observed: &Results, seq: &Results, varying: &HashSet<Site>) -> Option<Vec<Site>> {
    if !observed.same_shape(seq) {
        return None;
    }
    Some(
        observed
            .iter()
            .zip(seq.iter())
            .filter(|((site, a), (_, b))| !Res::agree(a, b, varying.contains(site)))
            .map(|((site, _), _)| site)
            .collect(),
    )
}

/// The failure: the calls whose results no sequential order gives (those that differ from
/// the nearest sequential results), and the table.
pub(super) fn describe<T>(
    desc: &Description<T>,
    test: &TestCase,
    wrong: &WrongResults<'_>,
) -> Failure {
    let WrongResults {
        observed,
        sequential,
        varying,
    } = *wrong;
    let w = Writer::new(desc, test);
    let mut nearest: Vec<(usize, &Results, Option<Vec<Site>>)> = sequential
        .iter()
        .map(|(s, _)| {
            let d = differences(observed, s, varying);
            (d.as_ref().map_or(usize::MAX, Vec::len), s, d)
        })
        .collect();
    nearest.sort_by_key(|(n, _, _)| *n);
    let wrong: Vec<Site> = nearest
        .first()
        .and_then(|(_, _, d)| d.clone())
        .unwrap_or_default();
    let line = |site: Site, res: &Res| {
        format!(
            "{} {} -> {}",
            scope_name(site.scope),
            call_text(&w, test, site),
            show(res, varying.contains(&site))
        )
    };
    let calls = observed
        .iter()
        .filter(|(site, _)| wrong.contains(site))
        .map(|(site, res)| line(site, res))
        .collect();
    let mut table = String::new();
    for (t, calls) in observed.threads.iter().enumerate() {
        for (k, res) in calls.iter().enumerate() {
            let site = Site::thread(t, k);
            let head = if k == 0 {
                format!("thread {}", t + 1)
            } else {
                String::new()
            };
            let mark = if wrong.contains(&site) { "   ✗" } else { "" };
            let _ = writeln!(
                table,
                "    {head:<9} {} -> {}{mark}",
                call_text(&w, test, site),
                show(res, varying.contains(&site))
            );
        }
    }
    for (k, res) in observed.post.iter().enumerate() {
        let site = Site::post(k);
        let head = if k == 0 { "after" } else { "" };
        let mark = if wrong.contains(&site) { "   ✗" } else { "" };
        let _ = writeln!(
            table,
            "    {head:<9} {} -> {}{mark}",
            call_text(&w, test, site),
            show(res, varying.contains(&site))
        );
    }
    let _ = writeln!(
        table,
        "  the sequential orders of these calls give instead ({} distinct result{}{}):",
        sequential.len(),
        if sequential.len() == 1 { "" } else { "s" },
        if sequential.len() > SHOWN {
            format!(", the {SHOWN} nearest shown")
        } else {
            String::new()
        }
    );
    // Two results that differ only where the observed ones are not compared (a cancelled
    // call made whole or left out) read the same: each line once.
    let mut lines: Vec<String> = Vec::new();
    for (_, seq, diff) in &nearest {
        let parts: Vec<String> = match diff {
            Some(sites) => sites
                .iter()
                .filter_map(|&site| {
                    let res = seq.iter().find(|(s, _)| *s == site)?.1;
                    Some(line(site, res))
                })
                .collect(),
            None => seq
                .iter()
                .filter(|(_, r)| matches!(r, Res::Panicked(_)))
                .map(|(site, res)| line(site, res))
                .chain(std::iter::once("(other calls ran)".to_string()))
                .collect(),
        };
        let text = parts.join("; ");
        if !lines.contains(&text) {
            lines.push(text);
        }
    }
    for text in lines.iter().take(SHOWN) {
        let _ = writeln!(table, "    - {text}");
    }
    Failure::Results { calls, table }
}

/// The calls whose results a reproducer compares: those the oracle compared.
fn compared_sites(observed: &Results, varying: &HashSet<Site>) -> HashSet<Site> {
    observed
        .iter()
        .filter(|(site, r)| matches!(r, Res::Value(_)) && !varying.contains(site))
        .map(|(site, _)| site)
        .collect()
}

/// The name a reproducer gives a kept result.
fn result_name(site: Site) -> String {
    match site.scope {
        Scope::Thread(t) => format!("t{}_{}", t + 1, site.call),
        _ => format!("after_{}", site.call),
    }
}

/// A tuple expression of `parts` (`()`, `(a,)`, `(a, b)`).
fn tuple(parts: &[String]) -> String {
    match parts {
        [] => "()".to_string(),
        [one] => format!("({one},)"),
        _ => format!("({})", parts.join(", ")),
    }
}

/// Writes the calls of one part (thread `t`'s, or the post part's when `t` is `None`) at
/// `indent`, keeping the compared results; the tuple of those results.
fn kept_part<T>(
    w: &Writer<'_, T>,
    test: &TestCase,
    t: Option<usize>,
    compared: &HashSet<Site>,
    indent: &str,
    out: &mut String,
) -> String {
    let (calls, scope) = match t {
        Some(t) => (&test.threads[t], Scope::Thread(t)),
        None => (&test.post, Scope::Post),
    };
    let mut kept = Vec::new();
    for (k, call) in calls.iter().enumerate() {
        let site = match t {
            Some(t) => Site::thread(t, k),
            None => Site::post(k),
        };
        if compared.contains(&site) {
            kept.push(w.stmt_kept(call, scope, &result_name(site), indent, out));
        } else {
            w.stmt(call, scope, indent, out);
        }
    }
    tuple(&kept)
}

/// One sequential order as a block whose value is the tuple of its compared results.
fn sequential_block<T>(
    w: &Writer<'_, T>,
    test: &TestCase,
    order: &[usize],
    compared: &HashSet<Site>,
    out: &mut String,
) {
    let n = test.threads.len();
    let names: Vec<String> = order
        .iter()
        .map(|&e| match entry(e, n) {
            (t, false) => format!("thread {}", t + 1),
            (t, true) => format!("(thread {}'s cancelled call left out)", t + 1),
        })
        .collect();
    let inner = "            ";
    out.push_str(&format!(
        "        {{
{inner}// {}
",
        names.join(", ")
    ));
    w.stmts(&test.prefix, Scope::Prefix, inner, out);
    let mut next = vec![0usize; test.threads.len()];
    let mut kept: Vec<Vec<String>> = vec![Vec::new(); test.threads.len()];
    for &e in order {
        let (t, left) = entry(e, n);
        let k = next[t];
        next[t] += 1;
        if left {
            continue;
        }
        let site = Site::thread(t, k);
        // In a sequential order, a cancelled call is made whole.
        let call = &Call {
            cancel: None,
            ..test.threads[t][k].clone()
        };
        if compared.contains(&site) {
            let e = w.stmt_kept(call, Scope::Thread(t), &result_name(site), inner, out);
            kept[t].push(e);
        } else {
            w.stmt(call, Scope::Thread(t), inner, out);
        }
    }
    let post = kept_part(w, test, None, compared, inner, out);
    let parts: Vec<String> = kept
        .iter()
        .map(|k| tuple(k))
        .chain(std::iter::once(post))
        .collect();
    out.push_str(&format!(
        "{inner}{}
        }},
",
        tuple(&parts)
    ));
}

/// A `#[test]` for wrong results: the results of the sequential orders (one order per
/// distinct result), then the scenario run `repeat` times, each time asserting that the
/// threads' and the post part's results are among them. It fails on the bug and passes
/// once it is fixed. `None` when the observed results hold a panic (the plain reproducer
/// serves then).
pub(super) fn render_reproducer<T>(
    desc: &Description<T>,
    test: &TestCase,
    failure: &Failure,
    wrong: &WrongResults<'_>,
    seed: u64,
    repeat: u64,
    replay: Option<&str>,
) -> Option<String> {
    let WrongResults {
        observed,
        sequential,
        varying,
    } = *wrong;
    if observed.iter().any(|(_, r)| matches!(r, Res::Panicked(_))) {
        return None;
    }
    let w = Writer::new(desc, test);
    let compared = compared_sites(observed, varying);
    let mut out = format!("/// Found by threadsafe (seed {seed}): {failure}.\n");
    if let Some(token) = replay {
        out.push_str(&format!(
            "/// Found under the controlled scheduler: `THREADSAFE_REPLAY={token}` replays that exact\n\
             /// interleaving; free-running threads, as here, need luck, so the scenario is repeated.\n"
        ));
    }
    out.push_str(&format!(
        "/// It fails when the results are none of those the sequential orders of the same calls\n\
         /// give (one order is written out for each distinct result).\n\
         #[test]\nfn {}_thread_safety_violation() {{\n    let sequential = [\n",
        super::rust::snake(desc.name)
    ));
    for (_, order) in sequential {
        sequential_block(&w, test, order, &compared, &mut out);
    }
    out.push_str(&format!("    ];\n    for _ in 0..{repeat} {{\n"));
    let indent = "        ";
    w.stmts(&test.prefix, Scope::Prefix, indent, &mut out);
    w.start_together(indent, &mut out);
    let n = test.threads.len();
    let handles: Vec<String> = (0..n).map(|t| format!("t{}", t + 1)).collect();
    out.push_str(&format!(
        "{indent}let {} = std::thread::scope(|s| {{\n",
        tuple(&handles)
    ));
    for t in 0..n {
        out.push_str(&format!(
            "{indent}    let t{} = s.spawn(|| {{\n{indent}        start();\n",
            t + 1
        ));
        let mut body = String::new();
        let kept = kept_part(
            &w,
            test,
            Some(t),
            &compared,
            &format!("{indent}        "),
            &mut body,
        );
        out.push_str(&body);
        out.push_str(&format!("{indent}        {kept}\n{indent}    }});\n"));
    }
    let joins: Vec<String> = (0..n)
        .map(|t| format!("t{}.join().unwrap()", t + 1))
        .collect();
    out.push_str(&format!("{indent}    {}\n{indent}}});\n", tuple(&joins)));
    let post = kept_part(&w, test, None, &compared, indent, &mut out);
    let all: Vec<String> = handles
        .iter()
        .cloned()
        .chain(std::iter::once(post))
        .collect();
    out.push_str(&format!(
        "{indent}let results = {};\n\
         {indent}assert!(\n\
         {indent}    sequential.contains(&results),\n\
         {indent}    \"no sequential order gives {{results:?}}; they give {{sequential:?}}\"\n\
         {indent});\n    }}\n}}\n",
        tuple(&all)
    ));
    Some(out)
}

/// The failing interleaving of wrong results as a gated `#[test]`: the sequential results,
/// then the test with the schedule's gates, asserting that its results are among them.
pub(super) fn render_gated<T>(
    desc: &Description<T>,
    test: &TestCase,
    failure: &Failure,
    wrong: &WrongResults<'_>,
    seed: u64,
    entries: &[String],
) -> Option<String> {
    let WrongResults {
        observed,
        sequential,
        varying,
    } = *wrong;
    if observed.iter().any(|(_, r)| matches!(r, Res::Panicked(_))) {
        return None;
    }
    let w = Writer::new(desc, test);
    let compared = compared_sites(observed, varying);
    let mut out = format!(
        "/// Found by threadsafe (seed {seed}): {failure}.\n\
         /// The gates hold each thread where the failing controlled run switched away from it;\n\
         /// the results must be among those of the sequential orders.\n\
         #[test]\nfn {}_gated() {{\n    let sequential = [\n",
        super::rust::snake(desc.name)
    );
    for (_, order) in sequential {
        sequential_block(&w, test, order, &compared, &mut out);
    }
    out.push_str("    ];\n");
    w.stmts(&test.prefix, Scope::Prefix, "    ", &mut out);
    let n = test.threads.len();
    let cells: Vec<String> = (0..n).map(|t| format!("t{}", t + 1)).collect();
    for cell in &cells {
        out.push_str(&format!("    let {cell} = std::sync::OnceLock::new();\n"));
    }
    super::gated::schedule_block(entries, &mut out);
    out.push_str("    let outcome = threadsafe_rt::gates::run(schedule, |s| {\n");
    for t in 0..n {
        out.push_str(&format!("        s.spawn(\"t{}\", || {{\n", t + 1));
        let kept = kept_part(&w, test, Some(t), &compared, "            ", &mut out);
        out.push_str(&format!(
            "            let _ = t{}.set({kept});\n        }});\n",
            t + 1
        ));
    }
    out.push_str("    });\n    outcome.unwrap();\n");
    let post = kept_part(&w, test, None, &compared, "    ", &mut out);
    let all: Vec<String> = cells
        .iter()
        .map(|c| format!("{c}.into_inner().unwrap()"))
        .chain(std::iter::once(post))
        .collect();
    out.push_str(&format!(
        "    let results = {};\n    assert!(\n        sequential.contains(&results),\n        \"no sequential order gives {{results:?}}; they give {{sequential:?}}\"\n    );\n}}\n",
        tuple(&all)
    ));
    Some(out)
}
