//! The runtime's layering: every `use crate::` edge between its top-level modules points
//! down the order of `ARCHITECTURE.md`, so the import graph has no cycle; and every module
//! file stays small (one concept per file). The order is `RANKS`, top to bottom: a module
//! may import only modules of a lower rank; the facade, `lib.rs`, imports anything.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Ranks, highest first. A new top-level module must be placed here.
const RANKS: &[(&str, u32)] = &[
    // The driver.
    ("check", 90),
    // Where an execution's outcome becomes a verdict.
    ("oracle", 85),
    // The verdict and how it reads.
    ("report", 80),
    // Algorithm 1: the tests.
    ("generate", 70),
    // The strategies: who runs next at a controlled execution's points, and where each is
    // chosen.
    ("strategy", 65),
    // MAP-coverage: tracking, planning, the pattern algebra.
    ("coverage", 60),
    // Running tests: calls, sequential runs, batches, workers.
    ("exec", 50),
    // The std-shaped shims users write, and the hooks they call.
    ("sync", 45),
    ("thread", 45),
    // Async calls driven to completion: a pending future waits through the hooks.
    ("drive", 45),
    ("hooks", 40),
    // What the hooks dispatch to.
    ("sched", 30),
    ("gates", 30),
    // The type under test, as the expansion describes it.
    ("subject", 20),
    // A scenario run in a child process of the test binary, watched.
    ("contain", 15),
    // Leaves.
    ("child", 10),
    ("config", 10),
    ("exclusive", 10),
    ("panics", 10),
    // Waiting without taking the core from the thread waited for.
    ("wait", 5),
    ("lock", 0),
    ("os", 0),
    ("parker", 0),
    ("point", 0),
    ("seed", 0),
    ("testcase", 0),
    ("value", 0),
];

/// Non-test lines a module file may have.
const MAX_LINES: usize = 600;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir` that is not a test file.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the source folder is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(path);
        }
    }
}

/// The top-level module a source file belongs to (`exec/batch.rs` → `exec`).
fn top_module(path: &Path) -> String {
    let rel = path.strip_prefix(src()).expect("under src");
    let first = rel.components().next().expect("a file").as_os_str();
    first.to_string_lossy().trim_end_matches(".rs").to_string()
}

/// The file's code before its `#[cfg(test)] mod tests`, without comments.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("a source file is readable");
    let end = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
    text[..end]
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules a file's code names through `crate::`.
fn imports(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let before = code[..i].chars().last();
        // `$crate::` in macros, and paths inside other crates' names, are not edges.
        if before.is_some_and(|c| c == '$' || c.is_alphanumeric() || c == '_') {
            continue;
        }
        let name: String = code[i + "crate::".len()..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}

#[test]
fn every_import_points_down_the_layers() {
    let ranks: BTreeMap<&str, u32> = RANKS.iter().copied().collect();
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let mut wrong = Vec::new();
    for file in &files {
        let from = top_module(file);
        if from == "lib" {
            continue;
        }
        let Some(&rank) = ranks.get(from.as_str()) else {
            wrong.push(format!(
                "{from} (in {}) has no rank: place it in RANKS",
                file.display()
            ));
            continue;
        };
        for to in imports(&code(file)) {
            if to == from || to == "__private" {
                continue;
            }
            match ranks.get(to.as_str()) {
                Some(&r) if r < rank => {}
                Some(&r) => wrong.push(format!(
                    "{} imports {to} (rank {r}) from {from} (rank {rank})",
                    file.display()
                )),
                None => wrong.push(format!("{} imports unknown module {to}", file.display())),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layering:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn module_files_stay_small() {
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let big: Vec<String> = files
        .iter()
        .map(|f| (f, code(f).lines().count()))
        .filter(|(_, n)| *n > MAX_LINES)
        .map(|(f, n)| format!("{}: {n} lines", f.display()))
        .collect();
    assert!(
        big.is_empty(),
        "files over {MAX_LINES} non-test lines:\n{}",
        big.join("\n")
    );
}

#[test]
fn imports_are_read_from_paths_not_from_lookalikes() {
    let code = "use crate::exec::{A, B};\nlet x = $crate::gates::point;\nmycrate::x();\ncrate::sched::current()";
    assert_eq!(imports(code), vec!["exec", "sched"]);
}

/// The module path of a source file: `check/regressions/run.rs` → `check::regressions::run`,
/// `check/regressions/mod.rs` → `check::regressions`.
fn module_path(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src()).expect("under src");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The module paths a file's code names (`crate::x::y`, `super::y`, `super::super::y`, and in
/// a folder's `mod.rs` its own files by their bare names), each as far as `modules` has it:
/// the module, not the item in it.
fn module_imports(code: &str, me: &[String], modules: &[Vec<String>]) -> Vec<Vec<String>> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    for (i, _) in code.match_indices("::") {
        // The whole path this `::` is part of, read from its first segment.
        let start = code[..i]
            .rfind(|c: char| !(is_ident(c) || c == ':'))
            .map_or(0, |j| j + 1);
        if code[start..].find("::").map(|k| start + k) != Some(i) || code[..start].ends_with('$') {
            continue;
        }
        let path: Vec<&str> = code[start..]
            .split("::")
            .map(|seg| &seg[..seg.find(|c: char| !is_ident(c)).unwrap_or(seg.len())])
            .take_while(|seg| !seg.is_empty())
            .collect();
        // From the crate's root, or from this module (`self::`, `super::`, a bare name).
        let (mut base, mut rest) = match path.split_first() {
            Some((&"crate", rest)) => (Vec::new(), rest),
            Some((&"self", rest)) => (me.to_vec(), rest),
            _ => (me.to_vec(), &path[..]),
        };
        while rest.first() == Some(&"super") {
            base.pop();
            rest = &rest[1..];
        }
        let mut target = base.clone();
        let mut found = None;
        for seg in rest {
            target.push((*seg).to_string());
            if modules.contains(&target) {
                found = Some(target.clone());
            } else {
                break;
            }
        }
        if let Some(t) = found {
            out.push(t);
        }
    }
    out
}

/// A circle in `edges`, as the names along it, if there is one.
fn circle(edges: &BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, Vec<String>>,
        path: &mut Vec<String>,
        done: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.iter().any(|n| n == node) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, edges, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.push(node.to_string());
        None
    }
    let mut done = Vec::new();
    edges
        .keys()
        .find_map(|n| visit(n, edges, &mut Vec::new(), &mut done))
}

#[test]
fn the_files_of_a_module_import_each_other_without_a_circle() {
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let modules: Vec<Vec<String>> = files.iter().map(|f| module_path(f)).collect();
    let mut edges: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in &files {
        let me = module_path(file);
        if me.len() < 2 {
            // The facade and the top-level modules: `every_import_points_down_the_layers`.
            continue;
        }
        let out = edges.entry(me.join("::")).or_default();
        for to in module_imports(&code(file), &me, &modules) {
            // Within one top-level module; a file naming its own folder's facade or one of
            // its ancestors is not an edge (the facade declares its files).
            if to[0] != me[0] || me.starts_with(&to) {
                continue;
            }
            out.push(to.join("::"));
        }
    }
    let found = circle(&edges);
    assert!(
        found.is_none(),
        "files that import each other in a circle: {}",
        found.unwrap_or_default().join(" → ")
    );
}

#[test]
fn a_circle_is_found_and_a_chain_is_not() {
    let graph = |pairs: &[(&str, &str)]| {
        let mut edges: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (a, b) in pairs {
            edges.entry(a.to_string()).or_default().push(b.to_string());
        }
        edges
    };
    assert_eq!(
        circle(&graph(&[("hunt", "shrink"), ("shrink", "hunt")])),
        Some(vec![
            "hunt".to_string(),
            "shrink".to_string(),
            "hunt".to_string()
        ])
    );
    assert_eq!(
        circle(&graph(&[("hunt", "shrink"), ("shrink", "control")])),
        None
    );
    let m = |p: &str| p.split("::").map(str::to_string).collect::<Vec<_>>();
    let modules = [
        m("check"),
        m("check::hunt"),
        m("check::control"),
        m("check::regressions"),
        m("check::regressions::format"),
    ];
    // As `check/regressions/run.rs` names them; `std::sync` and `$crate::x` are not modules.
    let code = "use super::format::Entry;\nuse crate::check::control::X;\n\
                super::super::hunt::Hunt::new();\nuse std::sync::Arc;\n$crate::check::y";
    assert_eq!(
        module_imports(code, &m("check::regressions::run"), &modules),
        vec![
            m("check::regressions::format"),
            m("check::control"),
            m("check::hunt")
        ]
    );
}
