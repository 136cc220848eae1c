//! The settings of a run of the time-to-bug harness and of the shrinking benchmark, as the
//! command line (`cli`) makes them, and which subjects a selection names. Below the tables,
//! which read the settings for their notes; above the model, whose names they use.

use std::path::PathBuf;
use std::time::Duration;

use threadsafe_rt::{Guide, ScheduleMode, Strategy};

use super::model::GUIDE_TWIN_SEEDS;

/// The subjects `--quick` runs, those of them that are registered: a panic, a deadlock, an
/// atomicity violation the paper's oracle sees, and a wrong result.
pub const QUICK_SUBJECTS: [&str; 4] = [
    "string_buffer",
    "synchronized_map",
    "null_appender",
    "counter",
];

/// Which subjects to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Every registered subject.
    All,
    /// These, by name or id, in the order given.
    Named(Vec<String>),
    /// [`QUICK_SUBJECTS`], those that exist (or the first three registered if none does).
    Quick,
}

/// The settings of a run, from the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The subjects.
    pub subjects: Selection,
    /// Seeds `0..seeds` per subject and mode.
    pub seeds: u64,
    /// Budget of each check (and naive test) of a buggy subject.
    pub budget: Duration,
    /// Budget of each check of a correct twin.
    pub twin_budget: Duration,
    /// Run the tool in paper mode as a baseline.
    pub paper: bool,
    /// Run the naive stress test as a baseline.
    pub naive: bool,
    /// The guides to compare, in [`GUIDES`](super::model::GUIDES)' order; empty when not compared.
    pub guides: Vec<Guide>,
    /// The job counts to compare (`Config::jobs`), in the order given, each once; empty when
    /// not compared.
    pub jobs: Vec<usize>,
    /// The scheduling modes to compare (`Config::schedule`), in the order given, each once;
    /// empty when not compared.
    pub schedules: Vec<ScheduleMode>,
    /// The strategies to compare (`Config::strategy`), in the order given, each once; empty
    /// when not compared.
    pub strategies: Vec<Strategy>,
    /// `--oracles`: compare results compared against the paper's oracle.
    pub oracles: bool,
    /// `--beside`: the neighbour's shell command, run beside a second check of each seed.
    pub beside: Option<String>,
    /// The JSON output path as given; `None` for the default.
    pub json: Option<PathBuf>,
    /// `--quick` was given.
    pub quick: bool,
    /// `--bench` was given: the binary runs under `cargo bench` (under `cargo test` it is
    /// not, and the harness does nothing).
    pub under_bench: bool,
}

impl Settings {
    /// The seeds each guide checks the twin with: `0..min(seeds, GUIDE_TWIN_SEEDS)`.
    pub fn guide_twin_seeds(&self) -> u64 {
        self.seeds.min(GUIDE_TWIN_SEEDS)
    }
}

/// The settings of a run, from the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShrinkSettings {
    /// The subjects.
    pub subjects: Selection,
    /// Seeds `0..seeds` per subject.
    pub seeds: u64,
    /// Budget of each check.
    pub budget: Duration,
    /// `--quick` was given.
    pub quick: bool,
    /// `--bench` was given (under `cargo test` it is not, and the benchmark does nothing).
    pub under_bench: bool,
}

/// The indexes of the selected subjects in `available` (`(id, name)` pairs, the registry's
/// order), and a note when `--quick` had to fall back. An unknown name is an error that
/// lists the known ones.
pub fn select(
    available: &[(&str, &str)],
    selection: &Selection,
) -> Result<(Vec<usize>, Option<String>), String> {
    let find = |key: &str| {
        available
            .iter()
            .position(|(id, name)| *name == key || id.eq_ignore_ascii_case(key))
    };
    match selection {
        Selection::All => Ok(((0..available.len()).collect(), None)),
        Selection::Named(names) => {
            let mut picked = Vec::new();
            for n in names {
                let i = find(n).ok_or_else(|| {
                    let known: Vec<&str> = available.iter().map(|(_, name)| *name).collect();
                    if known.is_empty() {
                        format!("unknown subject `{n}`: no subject is registered yet")
                    } else {
                        format!("unknown subject `{n}`; known: {}", known.join(", "))
                    }
                })?;
                if !picked.contains(&i) {
                    picked.push(i);
                }
            }
            Ok((picked, None))
        }
        Selection::Quick => {
            let picked: Vec<usize> = QUICK_SUBJECTS.iter().filter_map(|n| find(n)).collect();
            if picked.is_empty() && !available.is_empty() {
                let n = available.len().min(3);
                return Ok((
                    (0..n).collect(),
                    Some(format!(
                        "none of {} is registered; --quick runs the first {n} subjects instead",
                        QUICK_SUBJECTS.join(", ")
                    )),
                ));
            }
            Ok((picked, None))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection() {
        let avail = [
            ("V1", "string_buffer"),
            ("V5", "pool"),
            ("V9", "null_appender"),
        ];
        assert_eq!(select(&avail, &Selection::All).unwrap().0, vec![0, 1, 2]);
        let named = Selection::Named(vec!["pool".into(), "v1".into(), "pool".into()]);
        assert_eq!(select(&avail, &named).unwrap().0, vec![1, 0]);
        let unknown = Selection::Named(vec!["nope".into()]);
        assert!(select(&avail, &unknown)
            .unwrap_err()
            .contains("known: string_buffer"));
        assert_eq!(
            select(&avail, &Selection::Quick).unwrap(),
            (vec![0, 2], None)
        );
        let (picked, note) = select(&[("V5", "pool")], &Selection::Quick).unwrap();
        assert_eq!(picked, vec![0]);
        assert!(note.is_some());
    }
}
