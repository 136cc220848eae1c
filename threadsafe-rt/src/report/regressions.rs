//! What a check did with its regressions file ([`Regressions`]), and what the file is written
//! from ([`FailingTest`]). The file's format and its replay are the driver's
//! (`check/regressions/`).

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::testcase::TestCase;

/// What a check did with its regressions file (`threadsafe-regressions/<Type>.txt`): the
/// entries it replayed before generating any test, those it could not replay and why, the
/// entry whose failure came back, and where it wrote the violation it found.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Regressions {
    /// The file.
    pub path: PathBuf,
    /// Entries in the file when the check started.
    pub entries: usize,
    /// Entries replayed (each a test run again, with its schedule when it has one).
    pub replayed: usize,
    /// Entries not replayed because the type changed under them, each with its line and why.
    pub skipped: Vec<SkippedEntry>,
    /// The line of the entry whose failure came back: the violation came from the file.
    pub found_by: Option<usize>,
    /// What became of the violation this check found by generating tests (`None`: it found
    /// none, or it came from the file).
    pub written: Option<Written>,
}

/// An entry of the regressions file that could not be replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkippedEntry {
    /// The line of its `entry`.
    pub line: usize,
    /// Why, e.g. "`pop` is no longer a method the generator can call".
    pub reason: String,
}

/// What became of a violation found by generating tests.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Written {
    /// Appended as the entry at this line.
    Appended(usize),
    /// The same test is already the entry at this line.
    AlreadyThere(usize),
    /// Not written, and why (the file could not be read or written).
    Failed(String),
}

/// The generated test of a violation and the seed of its batch: what the regressions file
/// keeps of it.
#[derive(Clone, Debug)]
pub(crate) struct FailingTest {
    pub(crate) test: Arc<TestCase>,
    /// The seed of the batch whose execution failed (its schedules derive from it).
    pub(crate) batch_seed: u64,
}

impl Regressions {
    /// No entry replayed, skipped or written yet.
    pub(crate) fn new(path: PathBuf, entries: usize) -> Self {
        Regressions {
            path,
            entries,
            replayed: 0,
            skipped: Vec::new(),
            found_by: None,
            written: None,
        }
    }
}

impl fmt::Display for Regressions {
    /// The report's lines, each starting `  regressions:`; nothing when there is nothing to
    /// say (no entry, nothing written).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match self.found_by {
            Some(line) => writeln!(
                f,
                "  regressions: found again by the entry at line {line} of {path}, replayed before any new test"
            )?,
            None if self.replayed > 0 => writeln!(
                f,
                "  regressions: replayed {} entr{} of {path} first; none failed again",
                self.replayed,
                if self.replayed == 1 { "y" } else { "ies" }
            )?,
            None => {}
        }
        for s in &self.skipped {
            writeln!(
                f,
                "  regressions: skipped the entry at line {} of {path}: {} (delete it, or restore what it calls)",
                s.line, s.reason
            )?;
        }
        match &self.written {
            Some(Written::Appended(line)) => writeln!(
                f,
                "  regressions: written to {path} (entry at line {line}): commit it, and every check replays it first"
            )?,
            Some(Written::AlreadyThere(line)) => writeln!(
                f,
                "  regressions: already in {path} (entry at line {line})"
            )?,
            Some(Written::Failed(why)) => writeln!(f, "  regressions: not written: {why}")?,
            None => {}
        }
        Ok(())
    }
}
