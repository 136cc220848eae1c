//! A test of this test binary run again in a child process: the generated test's check
//! (`check/isolate.rs`) and a contained reproducer ([`crate::contain`]) both run their work
//! there, so that a crash or a hang of the code under test ends the child, not the binary
//! and the user's other tests. The child is the binary filtered to the one test (`<name>
//! --exact`, as nextest and rusty-fork do), with a variable that tells it it is the child.

use std::ffi::OsStr;
use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The name libtest runs the current test under (it names each test's thread so), or
/// `None` on a thread libtest did not start for a test (`main`, a thread of the test's own).
pub(crate) fn current_test_name() -> Option<String> {
    let thread = std::thread::current();
    let name = thread.name()?;
    (name != "main").then(|| name.to_string())
}

/// How a child ended.
pub(crate) struct Ended {
    /// Its exit status; `None` when it outlived its bound and was killed.
    pub(crate) status: Option<ExitStatus>,
    /// What it wrote to stderr.
    pub(crate) stderr: String,
    /// How long it ran.
    pub(crate) elapsed: Duration,
}

/// Runs the test `name` of this test binary alone in a child process, with the variables
/// `vars` set (and its stdout dropped: libtest's lines and the code under test's prints),
/// and waits for it to end, killing it once it has run for `bound`. `Err` says why no child
/// could be started.
pub(crate) fn run(name: &str, vars: &[(&str, &OsStr)], bound: Duration) -> Result<Ended, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the test binary: {e}"))?;
    let mut child = Command::new(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .envs(vars.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the test binary: {e}"))?;
    // Its stderr (a crash's last words) is drained as the child writes, or a child that
    // prints much would block.
    let stderr = child.stderr.take().map(|mut pipe| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = pipe.read_to_end(&mut out);
            out
        })
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() < bound => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let stderr = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    Ok(Ended {
        status,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        elapsed: start.elapsed(),
    })
}

impl Ended {
    /// The exit code, if the child exited (rather than died by a signal or was killed).
    pub(crate) fn code(&self) -> Option<i32> {
        self.status.and_then(|s| s.code())
    }

    /// The last `n` lines the child wrote to stderr, without libtest's own lines and blank
    /// ones.
    pub(crate) fn last_words(&self, n: usize) -> Vec<&str> {
        let words: Vec<&str> = self
            .stderr
            .lines()
            .filter(|l| !l.trim().is_empty() && !is_harness_line(l))
            .collect();
        words[words.len().saturating_sub(n)..].to_vec()
    }
}

/// How a process ended, for a report: the signal by name where there is one.
pub(crate) fn describe(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                4 => " (SIGILL)",
                6 => " (SIGABRT: an abort)",
                7 => " (SIGBUS)",
                8 => " (SIGFPE)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV: a segmentation fault)",
                _ => "",
            };
            return format!("the process was killed by signal {signal}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("the process exited with code {code}"),
        None => "the process ended".to_string(),
    }
}

/// libtest's own lines in a child's output, which say nothing about how it ended.
fn is_harness_line(line: &str) -> bool {
    line.starts_with("running ")
        || line.starts_with("test ")
        || line.starts_with("error: test failed")
        || line.starts_with("note: run with `RUST_BACKTRACE=1`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn signals_are_named() {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            describe(ExitStatus::from_raw(6)),
            "the process was killed by signal 6 (SIGABRT: an abort)"
        );
        assert_eq!(
            describe(ExitStatus::from_raw(3 << 8)),
            "the process exited with code 3"
        );
    }

    #[test]
    fn last_words_leave_out_the_harness() {
        let ended = Ended {
            status: None,
            stderr: "running 1 test\n\nfree(): double free detected in tcache 2\n\
                     test x ... FAILED\nabc\n"
                .to_string(),
            elapsed: Duration::ZERO,
        };
        assert_eq!(
            ended.last_words(8),
            ["free(): double free detected in tcache 2", "abc"]
        );
        assert_eq!(ended.last_words(1), ["abc"]);
    }

    #[test]
    fn the_test_name_is_the_thread_name() {
        let named = |name: &str| {
            std::thread::Builder::new()
                .name(name.to_string())
                .spawn(current_test_name)
                .unwrap()
                .join()
                .unwrap()
        };
        assert_eq!(
            named("cache::tests::lookup").as_deref(),
            Some("cache::tests::lookup")
        );
        assert_eq!(named("main"), None);
        assert_eq!(std::thread::spawn(current_test_name).join().unwrap(), None);
    }
}
