//! The regressions file on disk: where a type's file is, reading it with errors that name
//! the file and line, appending an entry without corrupting the file when two processes
//! write at once; and the one-entry files by which the generated test's child process hands
//! the test it is running to its parent, for the crash oracle.

use std::fs::OpenOptions;
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

use super::format::{self, Entry, File, Settings};
use super::{parse, text};
use crate::config::{Config, REGRESSIONS_ENV};
use crate::report::{Regressions, Written};
use crate::subject::Description;
use crate::testcase::TestCase;

/// `test` as a regressions file of one entry (seed and settings of `config`, `failure` as
/// its failure line): how the generated test's child process hands the test it is running
/// to its parent, which may have it judged ([`test_of_one_entry`]) after a crash.
pub(in crate::check) fn one_entry<T>(
    desc: &Description<T>,
    config: &Config,
    test: &TestCase,
    failure: &str,
) -> String {
    let entry = Entry {
        seed: config.seed,
        settings: Settings::of(config),
        failure: failure.to_string(),
        test: text::name(desc, test),
        schedule: None,
    };
    format!("{}\n{entry}", format::header(desc.name))
}

/// The test of a file [`one_entry`] wrote, in the type as `desc` describes it; an error
/// says what is wrong with the file.
pub(in crate::check) fn test_of_one_entry<T>(
    desc: &Description<T>,
    text: &str,
) -> Result<TestCase, String> {
    let file = parse::parse(text).map_err(|e| format!("line {}: {}", e.line, e.message))?;
    let [(_, entry)] = file.entries.as_slice() else {
        return Err(format!("{} entries, not one", file.entries.len()));
    };
    text::resolve(desc, &entry.test)
}

/// Writes the test of a file [`one_entry`] wrote to `desc`'s regressions file in `dir`, with
/// `failure` as its failure line: a crash the oracle judged, so that every later check
/// replays its test first. Where the file is, and what became of the entry, as the report
/// says it.
pub(in crate::check) fn record_crash(
    dir: &Path,
    type_name: &str,
    entry_text: &str,
    failure: &str,
) -> Regressions {
    let path = path(dir, type_name);
    let written = match parse::parse(entry_text) {
        Ok(file) => match file.entries.into_iter().next() {
            Some((_, mut entry)) => {
                entry.failure = failure.to_string();
                append(&path, type_name, &entry)
            }
            None => Written::Failed("the crashing test was not written down".to_string()),
        },
        Err(e) => Written::Failed(format!(
            "the crashing test's entry, line {}: {}",
            e.line, e.message
        )),
    };
    Regressions {
        written: Some(written),
        ..Regressions::new(path, 0)
    }
}

/// `<dir>/<Type>.txt`, the type's name made file-safe (`Cache<String, u32>` →
/// `Cache_String_u32.txt`).
pub(super) fn path(dir: &Path, type_name: &str) -> PathBuf {
    let mut name = String::new();
    for c in type_name.chars() {
        if c.is_ascii_alphanumeric() || c == '-' {
            name.push(c);
        } else if !name.ends_with('_') {
            name.push('_');
        }
    }
    let name = name.trim_matches('_');
    dir.join(format!("{}.txt", if name.is_empty() { "_" } else { name }))
}

/// The file's entries (none if it does not exist); an error names the file and the line.
pub(super) fn read(path: &Path, type_name: &str) -> Result<File, String> {
    parse_file(path, &read_text(path)?, type_name)
}

/// The file's text (empty if it does not exist).
fn read_text(path: &Path) -> Result<String, String> {
    let mut text = String::new();
    match std::fs::File::open(path) {
        Ok(mut f) => {
            f.read_to_string(&mut text)
                .map_err(|e| cannot_read(path, &e.to_string()))?;
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(cannot_read(path, &e.to_string())),
    }
    Ok(text)
}

/// The entries of `text`, read from `path`, for `type_name`.
fn parse_file(path: &Path, text: &str, type_name: &str) -> Result<File, String> {
    let file = parse::parse(text)
        .map_err(|e| cannot_read(path, &format!("line {}: {}", e.line, e.message)))?;
    if !file.type_name.is_empty() && file.type_name != type_name {
        return Err(cannot_read(
            path,
            &format!(
                "it holds the entries of `{}`, not of `{type_name}` (two checked types whose names make the same file name?); move it away",
                file.type_name
            ),
        ));
    }
    Ok(file)
}

fn cannot_read(path: &Path, why: &str) -> String {
    format!(
        "cannot read the regressions file {}: {why}. Fix the file, or set {REGRESSIONS_ENV}=off to check without it",
        path.display()
    )
}

/// Appends `entry` unless the file already has its test; a new file gets the header first.
pub(super) fn append(path: &Path, type_name: &str, entry: &Entry) -> Written {
    let failed = |e: std::io::Error| Written::Failed(format!("{}: {e}", path.display()));
    if let Some(dir) = path.parent() {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return failed(e);
        }
    }
    // A new file appears complete: made under another name, then linked into place.
    let header = format::header(type_name);
    match create_complete(path, &format!("{header}\n{entry}")) {
        Ok(true) => return Written::Appended(header.lines().count() + 2),
        Ok(false) => {}
        Err(e) => return failed(e),
    }
    let old = match read_text(path) {
        Ok(text) => text,
        Err(why) => return Written::Failed(why),
    };
    let file = match parse_file(path, &old, type_name) {
        Ok(file) => file,
        Err(why) => return Written::Failed(why),
    };
    let key = entry.test.to_string();
    if let Some((line, _)) = file.entries.iter().find(|(_, e)| e.test.to_string() == key) {
        return Written::AlreadyThere(*line);
    }
    // The header if the file has none yet (it held comments only), a blank line, the entry.
    let mut text = String::new();
    if !old.is_empty() && !old.ends_with('\n') {
        text.push('\n');
    }
    if file.type_name.is_empty() {
        text.push_str(&format::header(type_name));
    }
    text.push('\n');
    let entry = entry.to_string();
    text.push_str(&entry);
    let line = format!("{old}{text}").lines().count() - entry.lines().count() + 1;
    let write = || -> std::io::Result<()> {
        let mut f = OpenOptions::new().append(true).open(path)?;
        // One `write` of the whole entry: appends of other processes land before or after.
        let n = f.write(text.as_bytes())?;
        if n < text.len() {
            return Err(std::io::Error::other(format!(
                "only {n} of {} bytes written: the entry is cut short; delete its remains",
                text.len()
            )));
        }
        Ok(())
    };
    match write() {
        Ok(()) => Written::Appended(line),
        Err(e) => failed(e),
    }
}

/// Creates `path` holding `text` if it does not exist; false if it does.
fn create_complete(path: &Path, text: &str) -> std::io::Result<bool> {
    if path.exists() {
        return Ok(false);
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = path.with_extension(format!("txt.{}.{nanos}.tmp", std::process::id()));
    std::fs::write(&tmp, text)?;
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(false),
        // No hard links here: create it exclusively and write it at once.
        Err(_) => match OpenOptions::new().write(true).create_new(true).open(path) {
            Ok(mut f) => f.write_all(text.as_bytes()).map(|()| true),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        },
    }
}
