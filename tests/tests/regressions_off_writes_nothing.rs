//! The test `#[thread_safe]` generates uses the regressions file by default, beside the
//! crate (`$CARGO_MANIFEST_DIR/threadsafe-regressions/`), and `THREADSAFE_REGRESSIONS=off`
//! turns it off: nothing is written. Environment variables are the process's, so the
//! generated test's entry point runs in a child process (this test binary again, running
//! only `child`), with `CARGO_MANIFEST_DIR` pointing at a temporary folder.

use std::process::Command;
use std::time::Duration;

use threadsafe_corpus::contege::sync_locks::string_buffer::StringBuffer;
use threadsafe_rt::{Config, ScheduleMode, Strategy, REGRESSIONS_DIR, REGRESSIONS_ENV};
use threadsafe_tests::temp::TempDir;

/// Set in the child's environment: only then does `child` run the check.
const CHILD: &str = "THREADSAFE_TESTS_CHILD";

/// In the child: what the generated `#[test]` of `StringBuffer` would run (it panics with
/// the report, as the bug is found). In this test binary's own run: nothing.
#[test]
fn child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let mut config = Config::default();
    config.schedule = ScheduleMode::Controlled;
    config.strategy = Strategy::Random;
    config.conc_execs = 4;
    config.post_calls = 0;
    config.budget = Duration::from_secs(60);
    threadsafe_rt::__private::run_test::<StringBuffer>(config);
}

/// Runs `child` in a new process with the crate folder `dir` and `THREADSAFE_REGRESSIONS` as
/// given; its output.
fn run_child(dir: &TempDir, regressions: Option<&str>) -> String {
    let mut cmd = Command::new(std::env::current_exe().expect("this test binary"));
    cmd.args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("CARGO_MANIFEST_DIR", dir.path());
    for var in [
        "THREADSAFE_SEED",
        "THREADSAFE_BUDGET",
        "THREADSAFE_GUIDE",
        "THREADSAFE_REPLAY",
        "THREADSAFE_JOBS",
        "THREADSAFE_SHARD",
        REGRESSIONS_ENV,
    ] {
        cmd.env_remove(var);
    }
    if let Some(value) = regressions {
        cmd.env(REGRESSIONS_ENV, value);
    }
    let out = cmd.output().expect("the child runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "the child finds the bug:\n{text}");
    assert!(text.contains("`StringBuffer` is not thread-safe"), "{text}");
    text
}

#[test]
fn off_writes_nothing_and_on_is_the_default() {
    let off = TempDir::new("regressions-off");
    let text = run_child(&off, Some("off"));
    assert!(!text.contains("regressions:"), "{text}");
    assert_eq!(
        std::fs::read_dir(off.path()).unwrap().count(),
        0,
        "nothing written under {}",
        off.path().display()
    );

    let on = TempDir::new("regressions-default");
    let text = run_child(&on, None);
    let file = on.path().join(REGRESSIONS_DIR).join("StringBuffer.txt");
    assert!(
        text.contains(&format!("regressions: written to {}", file.display())),
        "{text}"
    );
    assert!(file.is_file());
    // The next run replays it first.
    let text = run_child(&on, Some("on"));
    assert!(
        text.contains("regressions: found again by the entry at line"),
        "{text}"
    );

    let bad = TempDir::new("regressions-bad-switch");
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    let out = cmd
        .args(["--exact", "child", "--nocapture"])
        .env(CHILD, "1")
        .env("CARGO_MANIFEST_DIR", bad.path())
        .env(REGRESSIONS_ENV, "no")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("threadsafe: THREADSAFE_REGRESSIONS: `\"no\"` is not a switch: write `\"on\"` (the default) or `\"off\"`"),
        "{text}"
    );
}
