//! Guards on the project's form, so that it stays the way a newcomer can read it: the README
//! is a front door, not a lab notebook; no source file grows past one concept; the map of
//! the runtime names every file; the decision log's index lists every record; the runtime's
//! comments name decisions instead of quoting figures that go stale; and every relative link
//! in the README and the book leads somewhere.

use std::fs;
use std::path::{Path, PathBuf};

/// The workspace's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the workspace")
        .to_path_buf()
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every file under `dir` (relative to the root) whose name ends with `ext`, sorted.
fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    walk(&path, ext, out);
                }
            } else if path.to_string_lossy().ends_with(ext) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join(dir), ext, &mut out);
    out.sort();
    out
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Whether `word` looks like an abbreviated or full commit hash: 7 to 40 hex digits with at
/// least one letter and one digit.
fn looks_like_a_hash(word: &str) -> bool {
    (7..=40).contains(&word.len())
        && word
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        && word.chars().any(|c| c.is_ascii_digit())
        && word.chars().any(|c| c.is_ascii_alphabetic())
}

#[test]
fn the_readme_is_a_front_door() {
    let readme = read(&root().join("README.md"));
    let lines = readme.lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines; it is the user's front door (at most 300): depth goes \
         to the book in docs/src/, measurements to docs/decisions/"
    );
    let hashes: Vec<String> = readme
        .lines()
        .enumerate()
        .flat_map(|(i, line)| {
            line.split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| looks_like_a_hash(w))
                .map(move |w| format!("line {}: {w}", i + 1))
        })
        .collect();
    assert!(
        hashes.is_empty(),
        "README.md names commits; history belongs in docs/decisions/:\n{}",
        hashes.join("\n")
    );
}

/// Source files allowed more than [`MAX_LINES`] lines of code, each with the reason.
const LONG_FILES: &[(&str, &str)] = &[
    (
        "threadsafe-derive/src/attr.rs",
        "every keyword of the attribute and its checks in one place, as darling and tokio-macros \
         keep them (splitting the keywords from their validation would name each one twice)",
    ),
    (
        "threadsafe-derive/src/ast.rs",
        "the typed model of the impl block: each callable's receiver, parameters and return \
         shape are classified together, with the spans the errors point at",
    ),
];

/// Lines of code a source file may have outside its tests.
const MAX_LINES: usize = 600;

/// The lines of `text` before its `#[cfg(test)] mod tests`.
fn code_lines(text: &str) -> usize {
    let end = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
    text[..end].lines().count()
}

#[test]
fn no_source_file_grows_past_one_concept() {
    let mut big = Vec::new();
    for path in files("", ".rs") {
        let rel = relative(&path);
        // Tests and the expansion snapshots are not module files.
        let is_test = rel.starts_with("tests/tests/")
            || rel.starts_with("ui-tests/")
            || rel.contains("/tests/")
            || rel.ends_with("/tests.rs");
        if is_test || LONG_FILES.iter().any(|(f, _)| *f == rel) {
            continue;
        }
        let n = code_lines(&read(&path));
        if n > MAX_LINES {
            big.push(format!("{rel}: {n} lines"));
        }
    }
    assert!(
        big.is_empty(),
        "files over {MAX_LINES} lines of code outside their tests (split them, or name them \
         in LONG_FILES with the reason):\n{}",
        big.join("\n")
    );
    for (file, _) in LONG_FILES {
        assert!(
            root().join(file).exists(),
            "LONG_FILES names {file}, which is gone: drop it"
        );
    }
}

#[test]
fn the_architecture_names_every_runtime_file() {
    let map = read(&root().join("ARCHITECTURE.md"));
    let src = root().join("threadsafe-rt/src");
    let missing: Vec<String> = files("threadsafe-rt/src", ".rs")
        .iter()
        .map(|p| {
            p.strip_prefix(&src)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/")
        })
        .filter(|rel| !rel.ends_with("tests.rs") && !rel.contains("/tests/"))
        .filter(|rel| !map.contains(&format!("`{rel}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not name these files of threadsafe-rt/src (write each as \
         `folder/file.rs` in the module table):\n{}",
        missing.join("\n")
    );
}

/// The records of the decision log, as (file name, number, title, date, verdict).
fn records() -> Vec<(String, String, String, String, String)> {
    files("docs/decisions", ".md")
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let text = read(&path);
            let field = |key: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(&format!("- {key}: ")))
                    .unwrap_or_else(|| panic!("docs/decisions/{name} has no `- {key}:` line"))
                    .trim()
                    .to_string()
            };
            let number = name.split('-').next().unwrap_or("").to_string();
            let title = text
                .lines()
                .next()
                .and_then(|l| l.strip_prefix(&format!("# {number}. ")))
                .unwrap_or_else(|| {
                    panic!("docs/decisions/{name} does not open with `# {number}. <title>`")
                })
                .to_string();
            let (date, verdict) = (field("Date"), field("Verdict"));
            (name, number, title, date, verdict)
        })
        .collect()
}

#[test]
fn the_decision_index_lists_every_record() {
    let records = records();
    assert!(!records.is_empty(), "docs/decisions/ holds no record");
    let index = read(&root().join("docs/decisions/README.md"));
    let mut wrong = Vec::new();
    let mut numbers = std::collections::BTreeSet::new();
    for (name, number, _, date, verdict) in &records {
        if number.len() != 4 || !number.chars().all(|c| c.is_ascii_digit()) {
            wrong.push(format!("{name}: not named NNNN-short-title.md"));
        }
        if !numbers.insert(number.clone()) {
            wrong.push(format!("{name}: number {number} is taken twice"));
        }
        if !["landed", "tried and dropped", "measurement"].contains(&verdict.as_str()) {
            wrong.push(format!(
                "{name}: verdict {verdict:?} is none of landed, tried and dropped, measurement"
            ));
        }
        if date.len() != 10 || !date.starts_with("20") {
            wrong.push(format!("{name}: date {date:?} is not YYYY-MM-DD"));
        }
        if !index.contains(&format!("({name})")) {
            wrong.push(format!("{name}: not linked from docs/decisions/README.md"));
        }
    }
    assert!(wrong.is_empty(), "the decision log:\n{}", wrong.join("\n"));
}

/// Whether a comment quotes a measured figure: a statistic beside a number (a median, a
/// geometric mean, a load average, a rate), a measured ratio (`0.8×`, `1.7 times as long`:
/// a rule's factor is a whole number, `50×`) or a count of seeds (`in 9 of 10 seeds`).
fn quotes_a_figure(comment: &str) -> bool {
    let lower = comment.to_lowercase();
    if !lower.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let statistic = ["median", "geometric mean", "load average", "executions/s"];
    let words: Vec<&str> = lower.split_whitespace().collect();
    let number = |w: &str| {
        let w = w.trim_start_matches(['(', '≥', '~']);
        w.starts_with(|c: char| c.is_ascii_digit())
            && w.chars().all(|c| c.is_ascii_digit() || ",./".contains(c))
    };
    let measured = |w: &str| number(w) && w.contains('.') && !w.ends_with('.');
    let ratio = words.iter().any(|w| {
        w.trim_end_matches([',', ';', ')'])
            .strip_suffix('×')
            .is_some_and(measured)
    }) || words.windows(2).any(|p| measured(p[0]) && p[1] == "times");
    let seeds = words
        .windows(2)
        .any(|p| number(p[0]) && p[1].trim_end_matches([',', '.', ')', ';']) == "seeds");
    statistic.iter().any(|s| lower.contains(s)) || ratio || seeds
}

#[test]
fn runtime_comments_name_decisions_not_figures() {
    let mut quoted = Vec::new();
    for path in files("threadsafe-rt/src", ".rs") {
        for (i, line) in read(&path).lines().enumerate() {
            let Some((_, comment)) = line.split_once("//") else {
                continue;
            };
            if quotes_a_figure(comment) {
                quoted.push(format!("{}:{}: {}", relative(&path), i + 1, line.trim()));
            }
        }
    }
    assert!(
        quoted.is_empty(),
        "comments in threadsafe-rt/src quote measurements, which go stale with the next \
         change; name the decision record instead (`see decision 0012`):\n{}",
        quoted.join("\n")
    );
}

#[test]
fn a_figure_is_told_from_a_rule() {
    assert!(quotes_a_figure("made a median 3,955 executions/s with"));
    assert!(quotes_a_figure("stress / auto was 0.32 over 30 seeds"));
    assert!(quotes_a_figure("the papers' subjects 0.98× side by side"));
    assert!(!quotes_a_figure(
        "the seeds no other shard takes (`None`: as `1/1`)"
    ));
    assert!(!quotes_a_figure("`RAN_FACTOR` times as long"));
    assert!(quotes_a_figure(
        "auto took 1.7 times as long as `stress` there"
    ));
    assert!(!quotes_a_figure(
        "50× the test's sequential time, at least 250 ms"
    ));
    assert!(!quotes_a_figure(
        "(20 times as long as its batch took, 50 ms to 2 s)"
    ));
}

#[test]
fn relative_links_in_the_readme_and_the_book_lead_somewhere() {
    let mut pages = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    pages.extend(files("docs", ".md"));
    let mut broken = Vec::new();
    for page in &pages {
        let text = read(page);
        let dir = page.parent().expect("a folder");
        for (i, _) in text.match_indices("](") {
            let target: String = text[i + 2..].chars().take_while(|&c| c != ')').collect();
            let target = target.split('#').next().unwrap_or("");
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            if !dir.join(target).exists() {
                broken.push(format!("{}: {target}", relative(page)));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to files that do not exist:\n{}",
        broken.join("\n")
    );
}

#[test]
fn a_hash_is_told_from_a_word() {
    assert!(looks_like_a_hash("e3ea7f0"));
    assert!(looks_like_a_hash("9b61fc9"));
    assert!(!looks_like_a_hash("deadbeef"), "no digit: a word");
    assert!(!looks_like_a_hash("1234567"), "no letter: a number");
    assert!(!looks_like_a_hash("e3ea7f"), "too short");
    assert!(!looks_like_a_hash("threadsafe"));
}

#[test]
fn every_chapter_is_in_the_book_and_compiled() {
    let summary = read(&root().join("docs/src/SUMMARY.md"));
    let lib = read(&root().join("docs/lib.rs"));
    let mut wrong = Vec::new();
    for path in files("docs/src", ".md") {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name == "SUMMARY.md" {
            continue;
        }
        if !summary.contains(&format!("]({name})")) {
            wrong.push(format!("{name} is not listed in docs/src/SUMMARY.md"));
        }
        if !lib.contains(&format!("include_str!(\"src/{name}\")")) {
            wrong.push(format!(
                "{name} is not included by docs/lib.rs, so its Rust blocks are not compiled"
            ));
        }
    }
    assert!(wrong.is_empty(), "the book:\n{}", wrong.join("\n"));
}
