//! The crash oracle's verdict. After the checking process died while concurrent tests ran,
//! every linearization of each of them ran in a process of its own ([`run_every_order`]):
//! the crash is a violation only if each of those processes survived them all.
//!
//! [`run_every_order`]: super::run_every_order

use std::process::ExitStatus;

use crate::child::describe;

/// What the crash oracle said of a crash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Crash {
    /// No linearization crashed: this many ran, in a child process of their own.
    Unexplained(usize),
    /// A linearization crashed too (how its process ended).
    Explained(String),
    /// Not judged (why).
    NotJudged(&'static str),
}

impl Crash {
    /// The verdict told from how the process that ran the linearizations of one test ended:
    /// `report`, what it left (whether it could read the test, and the count it ran), and
    /// `status`, how it ended (`None`: it did not end and was killed).
    pub(crate) fn from_run(report: Option<(bool, String)>, status: Option<ExitStatus>) -> Crash {
        match report {
            Some((true, n)) => n.trim().parse().map_or(
                Crash::NotJudged("the oracle's child left no count"),
                Crash::Unexplained,
            ),
            Some((false, _)) => Crash::NotJudged("the oracle's child could not read the test"),
            None => Crash::Explained(match status {
                Some(status) => describe(status),
                None => "it did not end and was killed".to_string(),
            }),
        }
    }

    /// The verdict on a crash in one of two tests that ran at once: unexplained only if
    /// neither test's sequential orders crash.
    pub(crate) fn and(self, other: Crash) -> Crash {
        match (self, other) {
            (Crash::Unexplained(a), Crash::Unexplained(b)) => Crash::Unexplained(a + b),
            (e @ Crash::Explained(_), _) | (_, e @ Crash::Explained(_)) => e,
            (n @ Crash::NotJudged(_), _) | (_, n @ Crash::NotJudged(_)) => n,
        }
    }

    /// The report's first line for a crash of `type_name`'s check.
    pub(crate) fn headline(&self, type_name: &str) -> String {
        match self {
            Crash::Unexplained(_) => format!(
                "threadsafe: `{type_name}` is not thread-safe: it crashed the process that \
                 checked it"
            ),
            Crash::Explained(_) => format!(
                "threadsafe: cannot check `{type_name}`: its calls crash the process when they \
                 run one after the other too (a bug, but not a thread-safety violation)"
            ),
            Crash::NotJudged(_) => {
                format!("threadsafe: `{type_name}` crashed the process that checked it")
            }
        }
    }

    /// What the oracle did, in words, for the report's `oracle:` line.
    pub(crate) fn said(&self) -> String {
        match self {
            Crash::Unexplained(n) => format!(
                "none of the {n} sequential orders of the same calls crashes (run in a child \
                 process of their own)"
            ),
            Crash::Explained(how) => format!(
                "a sequential order of the same calls crashes too ({how}): not a thread-safety \
                 violation"
            ),
            Crash::NotJudged(why) => format!("not judged: {why}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_crashing_order_explains_the_crash_of_either_test() {
        let explained = Crash::Explained("killed by signal 6".to_string());
        assert_eq!(
            Crash::Unexplained(2).and(explained.clone()),
            explained.clone()
        );
        assert_eq!(explained.clone().and(Crash::NotJudged("why")), explained);
        assert_eq!(
            Crash::Unexplained(2).and(Crash::Unexplained(6)),
            Crash::Unexplained(8)
        );
        assert_eq!(
            Crash::Unexplained(2).and(Crash::NotJudged("why")),
            Crash::NotJudged("why")
        );
    }

    #[test]
    fn the_verdict_is_told_from_what_the_child_left() {
        assert_eq!(
            Crash::from_run(Some((true, "6\n".to_string())), None),
            Crash::Unexplained(6)
        );
        assert!(matches!(
            Crash::from_run(Some((true, "six".to_string())), None),
            Crash::NotJudged(_)
        ));
        assert!(matches!(
            Crash::from_run(Some((false, String::new())), None),
            Crash::NotJudged(_)
        ));
        assert_eq!(
            Crash::from_run(None, None),
            Crash::Explained("it did not end and was killed".to_string())
        );
    }
}
