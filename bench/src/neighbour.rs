//! The one busy neighbour of the measurements: processes that keep cores busy beside a
//! measurement and are stopped, with everything they started, after it. What they run
//! ([`Work`]):
//!
//! - [`Work::Spin`]: one core spun flat out per process (`throughput` measures beside one
//!   and two);
//! - [`Work::CpuBound`]: CPU-bound work on a thread per core, as a crate's own test suite
//!   runs beside a `#[thread_safe]` type (each thread counts primes by trial division and
//!   checks the count): `time_to_bug --beside cpu-bound`;
//! - [`Work::Command`]: a shell command run over and over (`time_to_bug --beside COMMAND`).
//!
//! The built-in kinds are the measuring program's own binary run again with
//! [`NEIGHBOUR_ARG`]; a program that starts them calls [`serve`] first thing in `main`. They
//! quit by themselves when the measuring program is gone, should it die without stopping
//! them.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a [`Work::Command`] neighbour runs before the measurement beside it starts, so
/// that it is busy (cargo has started the test binary, say) rather than starting up.
pub const WARM_UP: Duration = Duration::from_millis(1500);

/// The argument that makes a measuring program a built-in neighbour: `--neighbour KIND
/// PARENT`, where KIND is `spin` or `cpu-bound` and PARENT the measuring program's pid.
pub const NEIGHBOUR_ARG: &str = "--neighbour";

/// What a neighbour runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Work {
    /// Spin on one core.
    Spin,
    /// Count primes on a thread per core, over and over.
    CpuBound,
    /// This shell command, in a loop.
    Command(String),
}

impl Work {
    /// `cpu-bound` (or `spin`) is the built-in work of that name; anything else a shell
    /// command.
    pub fn parse(text: &str) -> Work {
        match text.trim() {
            "cpu-bound" => Work::CpuBound,
            "spin" => Work::Spin,
            command => Work::Command(command.to_string()),
        }
    }

    fn builtin(&self) -> Option<&'static str> {
        match self {
            Work::Spin => Some("spin"),
            Work::CpuBound => Some("cpu-bound"),
            Work::Command(_) => None,
        }
    }
}

/// Runs a [`Work::Command`] once, to completion, with its output discarded: builds what it
/// needs before any measurement, so that the neighbour is the command's work, not its
/// compilation (nothing to do for the built-in kinds). An error names the command and how it
/// failed.
pub fn prepare(work: &Work) -> io::Result<()> {
    let Work::Command(command) = work else {
        return Ok(());
    };
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

/// When this process was started as a built-in neighbour (its first argument is
/// [`NEIGHBOUR_ARG`]): does the work until the parent named is gone, and returns true (the
/// caller's `main` then returns). Otherwise returns false at once.
pub fn serve() -> bool {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some(NEIGHBOUR_ARG) {
        return false;
    }
    let parent: u32 = args.get(2).and_then(|p| p.parse().ok()).unwrap_or(0);
    let alive = move || std::os::unix::process::parent_id() == parent;
    match args.get(1).map(String::as_str) {
        Some("cpu-bound") => {
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    std::thread::spawn(move || {
                        while alive() {
                            assert_eq!(primes_below(3_000_000), 216_816);
                        }
                    })
                })
                .collect();
            for w in workers {
                let _ = w.join();
            }
        }
        _ => spin(alive),
    }
    true
}

/// Spins on a core until `alive` says the parent is gone.
fn spin(alive: impl Fn() -> bool) {
    let mut x = 0u64;
    while alive() {
        for _ in 0..1_000_000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
}

/// The primes below `n`, by trial division: deliberately slow, all CPU, no memory traffic.
fn primes_below(n: u64) -> usize {
    (2..n)
        .filter(|&k| (2..).take_while(|d| d * d <= k).all(|d| k % d != 0))
        .count()
}

/// Neighbours that are running; [`stop`](Neighbour::stop) or dropping them ends them and
/// every process they started.
pub struct Neighbour {
    children: Vec<Child>,
}

impl Neighbour {
    /// Starts `processes` neighbours running `work`, each in a process group of its own,
    /// output discarded; returns once they are busy: a built-in one when it has used some
    /// CPU (at most a second), a command after [`WARM_UP`].
    pub fn start(work: &Work, processes: usize) -> io::Result<Neighbour> {
        let mut neighbour = Neighbour {
            children: Vec::new(),
        };
        for _ in 0..processes {
            let mut command = match (work, work.builtin()) {
                (_, Some(kind)) => {
                    let mut c = Command::new(std::env::current_exe()?);
                    c.args([NEIGHBOUR_ARG, kind, &std::process::id().to_string()]);
                    c
                }
                (Work::Command(command), None) => {
                    let mut c = Command::new("sh");
                    c.arg("-c").arg(format!("while :; do {command}\ndone"));
                    c
                }
                _ => unreachable!("only a command has no built-in name"),
            };
            let child = command
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0)
                .spawn()?;
            neighbour.children.push(child);
        }
        if work.builtin().is_some() {
            let t = Instant::now();
            while t.elapsed() < Duration::from_secs(1)
                && neighbour
                    .children
                    .iter()
                    .any(|c| pid_ticks(c.id()).unwrap_or(0) < 2)
            {
                std::thread::sleep(Duration::from_millis(5));
            }
        } else if processes > 0 {
            std::thread::sleep(WARM_UP);
        }
        Ok(neighbour)
    }

    /// CPU ticks (100 per second) the neighbours' own processes used so far.
    pub fn ticks(&self) -> u64 {
        self.children.iter().filter_map(|c| pid_ticks(c.id())).sum()
    }

    /// Kills the neighbours' process groups (a command's loop, cargo, the test binary) and
    /// reaps them.
    pub fn stop(mut self) {
        self.end();
    }

    fn end(&mut self) {
        for mut child in self.children.drain(..) {
            // The group's id is the child's pid (process_group(0)); `kill -- -pgid` signals
            // all of it. If `kill` cannot run, at least the child ends.
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

/// User + system ticks of process `pid` (100 per second), from `/proc/<pid>/stat`.
fn pid_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_work_is_named_or_a_command() {
        assert_eq!(Work::parse(" cpu-bound"), Work::CpuBound);
        assert_eq!(Work::parse("spin"), Work::Spin);
        assert_eq!(
            Work::parse("cargo test -p x"),
            Work::Command("cargo test -p x".into())
        );
    }

    #[test]
    fn the_prime_count_is_right_on_a_small_range() {
        assert_eq!(primes_below(100), 25);
        assert_eq!(primes_below(2), 0);
    }

    #[test]
    fn a_failing_neighbour_is_named() {
        let e = prepare(&Work::Command("exit 3".into())).unwrap_err();
        assert!(
            e.to_string().contains("the neighbour `exit 3` failed"),
            "{e}"
        );
        prepare(&Work::Command("true".into())).expect("a command that succeeds");
        prepare(&Work::CpuBound).expect("nothing to prepare");
    }

    #[test]
    fn stopping_ends_the_whole_group() {
        let dir = std::env::temp_dir().join(format!("neighbour-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pid_file = dir.join("pid");
        // The loop's command starts a grandchild that would outlive a plain kill of `sh`.
        let command = format!("sleep 30 & echo $! > {}; wait", pid_file.display());
        let n = Neighbour::start(&Work::Command(command), 1).expect("sh runs");
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
