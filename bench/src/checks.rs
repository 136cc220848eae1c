//! How the harnesses check a subject: the tool's configuration, which finds are the
//! subject's bug, and what a check that panicked or a long failure says in one line.

use std::time::Duration;

use threadsafe_rt::{Config, Failure};

use threadsafe_corpus::{BugKind, Subject};

use super::location::{location_file, same_file};

/// The tool as it ships, with `seed` and `budget`, and with the papers' oracle (panics and
/// deadlocks) for the papers' subjects ([`Subject::from_the_papers`]), whose finds count
/// when they are the subject's panic or deadlock ([`is_the_bug`]), as in the papers'
/// tables; every other subject (the wrong-result and the real-crate ones) keeps the
/// shipped oracle, results compared, under which a wrong result is a find too
/// ([`is_a_find`]). The harness holds every twin to results compared.
pub fn tool_config(subject: &Subject, seed: u64, budget: Duration) -> Config {
    let mut c = Config::default();
    c.seed = seed;
    c.budget = budget;
    c.results = !subject.from_the_papers();
    c
}

/// True when `failure` is the bug of the subject of kind `bug` whose buggy type is in
/// `file`: a panic located in that file, or a deadlock; for a wrong-result subject, results
/// no sequential order gives.
pub fn is_the_bug(bug: BugKind, file: &str, failure: &Failure) -> bool {
    match failure {
        Failure::Results { .. } => bug == BugKind::WrongResult,
        _ if bug == BugKind::WrongResult => false,
        Failure::Panic { location, .. } => same_file(location_file(location), file),
        Failure::Deadlock { .. } => true,
        _ => false,
    }
}

/// True when `failure` counts as a find of the subject under the oracle a check used: with
/// results compared (`results`), a wrong result counts on every subject besides the
/// subject's own bug ([`is_the_bug`]). Every twin stays quiet with results compared, so a
/// wrong result on a buggy type shows its bug (the one thing the two types differ in), often
/// before the panic it would lead to; under the paper's oracle (`!results`) only the bug
/// itself counts.
pub fn is_a_find(bug: BugKind, file: &str, failure: &Failure, results: bool) -> bool {
    let wrong_result = matches!(failure, Failure::Results { .. });
    match results {
        true => wrong_result || is_the_bug(bug, file, failure),
        false => !wrong_result && is_the_bug(bug, file, failure),
    }
}

/// What a find saw, for the tables: `"wrong result"`, `"panic"`, `"deadlock"`, or
/// `"other"`.
pub fn symptom(failure: &Failure) -> &'static str {
    match failure {
        Failure::Results { .. } => "wrong result",
        Failure::Panic { .. } => "panic",
        Failure::Deadlock { .. } => "deadlock",
        _ => "other",
    }
}

/// The message of a caught panic.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic".to_string())
}

/// The first line of `s`, at most 100 characters.
pub fn short(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    if line.chars().count() > 100 {
        format!("{}…", line.chars().take(100).collect::<String>())
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_subjects_bug() {
        let file = "corpus/src/jdk/logger.rs";
        let panic_at = |location: &str| Failure::Panic {
            thread: "thread 1".into(),
            method: "log".into(),
            location: location.into(),
            message: "boom".into(),
        };
        assert!(is_the_bug(
            BugKind::Atomicity,
            file,
            &panic_at("corpus/src/jdk/logger.rs:10:5")
        ));
        assert!(!is_the_bug(
            BugKind::Atomicity,
            file,
            &panic_at("library/core/src/x.rs:1:1")
        ));
        assert!(is_the_bug(
            BugKind::Deadlock,
            file,
            &Failure::Deadlock {
                blocked: Vec::new()
            }
        ));
    }

    #[test]
    fn one_line() {
        assert_eq!(short("a\nb"), "a");
        assert_eq!(short(&"x".repeat(120)).chars().count(), 101);
        let payload: Box<dyn std::any::Any + Send> = Box::new("static");
        assert_eq!(panic_message(&*payload), "static");
        let payload: Box<dyn std::any::Any + Send> = Box::new(String::from("owned"));
        assert_eq!(panic_message(&*payload), "owned");
    }

    fn panic_at(location: &str) -> Failure {
        Failure::Panic {
            thread: "thread 1".into(),
            method: "m".into(),
            location: location.into(),
            message: "boom".into(),
        }
    }

    fn wrong_results() -> Failure {
        Failure::Results {
            calls: vec!["after the threads joined cut.get() -> 1".into()],
            table: String::new(),
        }
    }

    #[test]
    fn a_find_counts_when_it_is_the_kind_of_bug_the_subject_has() {
        let file = "corpus/src/jdk/string_buffer.rs";
        let here = panic_at("corpus/src/jdk/string_buffer.rs:67:35");
        let elsewhere = panic_at("corpus/src/jdk/vector_1_4.rs:10:5");
        assert!(is_the_bug(BugKind::Atomicity, file, &here));
        assert!(!is_the_bug(BugKind::Atomicity, file, &elsewhere));
        assert!(!is_the_bug(BugKind::Atomicity, file, &wrong_results()));
        assert!(is_the_bug(BugKind::WrongResult, file, &wrong_results()));
        assert!(!is_the_bug(BugKind::WrongResult, file, &here));
    }

    #[test]
    fn with_results_compared_a_wrong_result_is_a_find_on_every_subject() {
        let file = "corpus/src/jdk/string_buffer.rs";
        let elsewhere = panic_at("corpus/src/jdk/vector_1_4.rs:10:5");
        for bug in [BugKind::Atomicity, BugKind::DataRace, BugKind::Deadlock] {
            assert!(is_a_find(bug, file, &wrong_results(), true), "{bug:?}");
            assert!(!is_a_find(bug, file, &wrong_results(), false), "{bug:?}");
            assert!(!is_a_find(bug, file, &elsewhere, true), "{bug:?}");
        }
        let here = panic_at("corpus/src/jdk/string_buffer.rs:67:35");
        assert!(is_a_find(BugKind::Atomicity, file, &here, false));
        assert!(is_a_find(BugKind::Atomicity, file, &here, true));
        assert!(!is_a_find(
            BugKind::WrongResult,
            file,
            &wrong_results(),
            false
        ));
        assert_eq!(symptom(&wrong_results()), "wrong result");
        assert_eq!(symptom(&here), "panic");
        let stuck = Failure::Deadlock {
            blocked: Vec::new(),
        };
        assert_eq!(symptom(&stuck), "deadlock");
    }

    #[test]
    fn only_the_papers_subjects_are_checked_with_the_papers_oracle() {
        for s in threadsafe_corpus::all() {
            let config = tool_config(&s, 1, Duration::from_secs(1));
            let papers = s.id.starts_with('V') || s.id.starts_with('C');
            assert_eq!(config.results, !papers, "{}", s.id);
            assert_eq!((config.seed, config.budget), (1, Duration::from_secs(1)));
        }
        // Every wrong-result subject is among those with results compared.
        assert!(threadsafe_corpus::all()
            .iter()
            .filter(|s| s.bug == BugKind::WrongResult)
            .all(|s| tool_config(s, 0, Duration::from_secs(1)).results));
    }
}
