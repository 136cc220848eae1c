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
    // What a check concludes from executions: the verdict and how it reads.
    ("report", 80),
    ("oracle", 80),
    // Algorithm 1: the tests.
    ("generate", 70),
    // MAP-coverage: tracking, planning, the guided scheduler, the pattern algebra.
    ("coverage", 60),
    // Running tests: calls, sequential runs, batches, workers.
    ("exec", 50),
    // The std-shaped shims users write, and the hooks they call.
    ("sync", 45),
    ("thread", 45),
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
