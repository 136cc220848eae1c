//! A busy neighbour for a measurement: a shell command (typically a plain `cargo test` of a
//! crate with CPU-bound tests) run over and over, in its own process group, while some
//! checks run, and stopped with everything it started afterwards. The time-to-bug harness's
//! `--beside` compares time to bug with and without it.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// How long a neighbour runs before the measurement beside it starts, so that it is busy
/// (cargo has started the test binary) rather than starting up.
pub const WARM_UP: Duration = Duration::from_millis(1500);

/// Runs `command` once through `sh -c`, to completion, with its output discarded: builds
/// what it needs before any measurement, so that the neighbour is the command's work, not
/// its compilation. An error names the command and how it failed.
pub fn prepare(command: &str) -> io::Result<()> {
    let status = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "the neighbour `{command}` failed ({status}); run it by hand to see why"
        )))
    }
}

/// A neighbour that is running; [`stop`](Neighbour::stop) or dropping it ends it and every
/// process it started.
pub struct Neighbour {
    child: Option<Child>,
}

impl Neighbour {
    /// Starts `command` in a loop (`while :; do command; done`) in a new process group,
    /// output discarded, and waits [`WARM_UP`].
    pub fn start(command: &str) -> io::Result<Neighbour> {
        let child = Command::new("sh")
            .arg("-c")
            .arg(format!("while :; do {command}\ndone"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()?;
        std::thread::sleep(WARM_UP);
        Ok(Neighbour { child: Some(child) })
    }

    /// Kills the neighbour's process group (the loop, cargo, the test binary) and reaps the
    /// loop.
    pub fn stop(mut self) {
        self.end();
    }

    fn end(&mut self) {
        if let Some(mut child) = self.child.take() {
            // The group's id is the loop's pid (process_group(0)); `kill -- -pgid` signals
            // all of it. If `kill` cannot run, at least the loop ends.
            let group = format!("-{}", child.id());
            let killed = Command::new("kill")
                .args(["-KILL", "--", &group])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if !killed {
                let _ = child.kill();
            }
            let _ = child.wait();
        }
    }
}

impl Drop for Neighbour {
    fn drop(&mut self) {
        self.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failing_neighbour_is_named() {
        let e = prepare("exit 3").unwrap_err();
        assert!(
            e.to_string().contains("the neighbour `exit 3` failed"),
            "{e}"
        );
        prepare("true").expect("a command that succeeds");
    }

    #[test]
    fn stopping_ends_the_whole_group() {
        let dir = std::env::temp_dir().join(format!("neighbour-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pid_file = dir.join("pid");
        // The loop's command starts a grandchild that would outlive a plain kill of `sh`.
        let command = format!("sleep 30 & echo $! > {}; wait", pid_file.display());
        let n = Neighbour::start(&command).expect("sh runs");
        let grandchild = std::fs::read_to_string(&pid_file).expect("the command ran");
        let alive = |pid: &str| std::path::Path::new(&format!("/proc/{}", pid.trim())).exists();
        assert!(alive(&grandchild));
        n.stop();
        // A killed process may linger as a zombie until its parent (gone) is reaped by
        // init; its state then is `Z`. Either way it no longer runs.
        // A signal takes effect when the process is next scheduled: look for up to 5 s.
        let stat = || {
            std::fs::read_to_string(format!("/proc/{}/stat", grandchild.trim())).unwrap_or_default()
        };
        let running = |state: &str| {
            state
                .rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z'))
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while running(&stat()) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let state = stat();
        assert!(!running(&state), "the grandchild still runs: {state}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
