//! How the harnesses check a subject: the tool's configuration, which finds are the
//! subject's bug, and what a check that panicked or a long failure says in one line.

use std::time::Duration;

use threadsafe_rt::{Config, Failure};

use super::location::{location_file, same_file};

/// The tool as it ships, with `seed` and `budget`, and the paper's oracle: the subjects'
/// bugs are the papers' panics and deadlocks, and a find counts when it is that panic or
/// deadlock ([`is_the_bug`]). The twins, linearizable, are held to the default oracle by
/// the harness (results compared). The results oracle's own finds are measured on the
/// wrong-result subjects (`tests/tests/finds_wrong_results.rs`).
pub fn tool_config(seed: u64, budget: Duration) -> Config {
    let mut c = Config::default();
    c.seed = seed;
    c.budget = budget;
    c.results = false;
    c
}

/// True when `failure` is the bug of the subject whose buggy type is in `file`: a panic
/// located in that file, or a deadlock.
pub fn is_the_bug(file: &str, failure: &Failure) -> bool {
    match failure {
        Failure::Panic { location, .. } => same_file(location_file(location), file),
        Failure::Deadlock { .. } => true,
        _ => false,
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
        assert!(is_the_bug(file, &panic_at("corpus/src/jdk/logger.rs:10:5")));
        assert!(!is_the_bug(file, &panic_at("library/core/src/x.rs:1:1")));
        assert!(is_the_bug(
            file,
            &Failure::Deadlock {
                blocked: Vec::new()
            }
        ));
        let c = tool_config(3, Duration::from_secs(2));
        assert_eq!(
            (c.seed, c.budget, c.results),
            (3, Duration::from_secs(2), false)
        );
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
}
