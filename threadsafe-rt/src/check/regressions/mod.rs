//! The regressions file, `threadsafe-regressions/<Type>.txt` beside the crate: every
//! violation a check finds is written there as an entry (the seed and settings, the test by
//! method names, and for a controlled find the schedule), and the next check replays those
//! entries before it generates any test, so a bug that comes back is found at once (as
//! proptest keeps `proptest-regressions/`).
//!
//! - `file.rs`: the file on disk, and the one-entry files of the generated test's child;
//! - `format.rs`: the file's text, and `parse.rs` reading it back with the line of any error;
//! - `text.rs`: a generated test by names, and back in the type as it is now;
//! - `run.rs`: replaying one entry.
//!
//! Writes never corrupt the file when two processes write at once (as under `cargo
//! nextest`): a new file is made complete under a temporary name and linked into place, and
//! an entry is appended with a single `write` of the whole entry to a file opened for
//! appending. The file is read again just before appending, so a test already there is not
//! written twice; two processes that find the same test at the same moment may both append
//! it, and the next check replays it once and reports the other as a duplicate.

use std::collections::HashMap;
use std::time::Instant;

use crate::config::{Config, ReplayToken};
use crate::exec::SeqRunner;
use crate::report::{Regressions, Report, SkippedEntry, Verdict};
use crate::subject::Description;

pub(super) mod file;
mod format;
mod parse;
mod run;
mod text;

use file::{append, path, read};
use format::{ControlledRun, Entry, Settings};
use run::{Replayed, Replayer};

/// Replays the entries of `desc`'s regressions file, if `config` has one, before any test
/// is generated. True when that ended the check: a failure came back (`report` holds the
/// violation), or the file cannot be read (`report` says where and why).
pub(super) fn replay_first<T: Send + Sync + 'static>(
    desc: &'static Description<T>,
    config: &Config,
    start: Instant,
    report: &mut Report,
) -> bool {
    let Some(dir) = &config.regressions else {
        return false;
    };
    let path = path(dir, desc.name);
    let file = match read(&path, desc.name) {
        Ok(file) => file,
        Err(why) => {
            report.regressions = Some(Regressions::new(path, 0));
            report.verdict = Verdict::CannotCheck(why);
            return true;
        }
    };
    let mut summary = Regressions::new(path, file.entries.len());
    let mut replayer = Replayer {
        desc,
        config,
        start,
        deadline: start + config.budget,
        seq: SeqRunner::new(),
    };
    let mut first_of: HashMap<String, usize> = HashMap::new();
    let mut found = false;
    for (line, entry) in &file.entries {
        let skip = |reason: String| SkippedEntry {
            line: *line,
            reason,
        };
        let key = entry.test.to_string();
        if let Some(first) = first_of.get(&key) {
            summary.skipped.push(skip(format!(
                "the same test as the entry at line {first}, replayed once"
            )));
            continue;
        }
        first_of.insert(key, *line);
        if found || Instant::now() >= replayer.deadline {
            let why = match found {
                true => "a failure of an entry before it came back first",
                false => "the budget ran out before it",
            };
            summary.skipped.push(skip(why.to_string()));
            continue;
        }
        let outcome = match text::resolve(desc, &entry.test) {
            Ok(test) => replayer.replay(entry, test, report),
            Err(why) => Replayed::Skipped(why),
        };
        match outcome {
            Replayed::Skipped(why) => summary.skipped.push(skip(why)),
            Replayed::Passed => summary.replayed += 1,
            Replayed::Found => {
                summary.replayed += 1;
                summary.found_by = Some(*line);
                found = true;
            }
        }
    }
    report.abandoned_threads += replayer.seq.abandoned();
    report.regressions = Some(summary);
    if found {
        report.ended = crate::report::Ended::Violation;
        report.coverage = crate::report::Coverage::NotMeasured(
            "found by the regressions file, before any new test".to_string(),
        );
    }
    found
}

/// Writes the violation the check found by generating tests to the regressions file, if
/// `config` has one; says in `report` what became of it.
pub(super) fn record<T>(desc: &Description<T>, config: &Config, report: &mut Report) {
    let Some(dir) = &config.regressions else {
        return;
    };
    let (Some(failing), Some(violation)) = (report.failing.clone(), report.violation()) else {
        return;
    };
    let schedule = violation
        .replay
        .as_deref()
        .and_then(|t| t.parse::<ReplayToken>().ok())
        .map(|token| ControlledRun {
            batch: failing.batch_seed,
            execution: token.execution,
        });
    let entry = Entry {
        seed: report.seed,
        settings: Settings::of(config),
        failure: violation.failure.to_string(),
        test: text::name(desc, &failing.test),
        schedule,
    };
    let path = path(dir, desc.name);
    let written = append(&path, desc.name, &entry);
    report
        .regressions
        .get_or_insert_with(|| Regressions::new(path, 0))
        .written = Some(written);
}

#[cfg(test)]
mod tests;
