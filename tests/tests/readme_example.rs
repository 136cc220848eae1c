//! The README's example is the tool's real output: its `Stack` is `threadsafe_tests::
//! readme_stack`, line for line, and the report's opening lines, its interleaving and its
//! reproducer are what the README shows. A change to what the report says fails here, so
//! the front door cannot drift from the tool. The book's first chapters show the same type and
//! report, held to the README here.

use threadsafe_rt::{check, Config};
use threadsafe_tests::readme_stack::Stack;

const README: &str = include_str!("../../README.md");
const STACK: &str = include_str!("../src/readme_stack.rs");

/// The fenced block of `lang` that follows the first line of the README starting with
/// `after` (the line itself included in the search).
fn block_after(after: &str, lang: &str) -> String {
    let start = README
        .find(after)
        .unwrap_or_else(|| panic!("the README has no line starting {after:?}"));
    let fence = format!("```{lang}\n");
    let open = README[start..]
        .find(&fence)
        .unwrap_or_else(|| panic!("no ```{lang} block after {after:?} in the README"))
        + start
        + fence.len();
    let close = README[open..].find("\n```").expect("an unclosed block") + open;
    README[open..=close].to_string()
}

/// The report as the README shows it: the file a panic is in as a user's `src/lib.rs`, and
/// no trailing spaces.
fn as_in_the_readme(report: &str) -> String {
    report
        .replace("tests/src/readme_stack.rs", "src/lib.rs")
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `line` with its figures that vary from run to run (times in seconds, the executions the
/// free-running batches ran) replaced by `#`.
fn without_timings(line: &str) -> String {
    let mut out = Vec::new();
    let words: Vec<&str> = line.split(' ').collect();
    for (i, w) in words.iter().enumerate() {
        let next = words.get(i + 1).copied().unwrap_or("");
        let figure = w
            .trim_end_matches(',')
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.');
        if figure
            && (next.starts_with("s,") || next.starts_with("s)") || next.starts_with("executions"))
        {
            out.push("#".to_string() + if w.ends_with(',') { "," } else { "" });
        } else {
            out.push(w.to_string());
        }
    }
    out.join(" ")
}

#[test]
fn the_readme_stack_is_the_checked_stack() {
    let readme = block_after("```rust\nuse std::sync::Mutex;", "rust");
    // The checked copy says `test = false` (this crate checks it below, not in a generated
    // test that must fail) and `statement_points = "always"` (it is compiled as a library
    // here, where a user's own crate is compiled as a test build).
    let checked = STACK.replace(
        "#[thread_safe(test = false, statement_points = \"always\")]",
        "#[thread_safe]",
    );
    assert_eq!(
        readme, checked,
        "README.md's Stack and tests/src/readme_stack.rs differ"
    );
}

#[test]
fn the_readme_shows_what_the_report_says() {
    let shown = block_after("`cargo test` then fails with", "text");
    let shown_lines: Vec<&str> = shown.lines().collect();
    // The README shows a find by a controlled execution, with its interleaving and replay
    // token. Auto's free-running batch of the same test wins that race now and then (see
    // decision 0081), and which tests go to which arm depends on their timing, so the first
    // find is now and then another test's, with the panic in the other thread. Every run
    // shows the same bug, and one of 20 runs must read exactly as the README does.
    let thread = |l: &str| {
        l.replace("thread 1,", "thread #,")
            .replace("thread 2,", "thread #,")
    };
    for _ in 0..20 {
        let report = as_in_the_readme(&check::<Stack>(&Config::default()).to_string());
        let lines: Vec<&str> = report.lines().collect();
        for i in [0, 1, 2, 3] {
            assert_eq!(
                thread(shown_lines[i]),
                thread(lines[i]),
                "line {} of the report changed:\n{report}",
                i + 1
            );
        }
        let want: Vec<String> = shown_lines.iter().map(|l| without_timings(l)).collect();
        let got: Vec<String> = lines
            .iter()
            .take(want.len())
            .map(|l| without_timings(l))
            .collect();
        if want == got {
            return;
        }
    }
    panic!("none of 20 checks of the README's Stack read as the README shows it");
}

#[test]
fn the_book_shows_the_readme_stack_and_its_report() {
    let book = |chapter: &str| {
        let path = format!("{}/../docs/src/{chapter}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let code = block_after("```rust\nuse std::sync::Mutex;", "rust");
    let report = block_after("`cargo test` then fails with", "text");
    let header: String = report.lines().take(7).map(|l| format!("{l}\n")).collect();
    let started = book("getting-started.md");
    assert!(
        started.contains(&code),
        "getting-started.md's Stack is not the README's"
    );
    assert!(
        started.contains(&report),
        "getting-started.md's report is not the README's"
    );
    assert!(
        book("reading-a-report.md").contains(&header),
        "reading-a-report.md's header is not the README's"
    );
}
