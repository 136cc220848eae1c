//! What the operating system says about this process's threads, from `/proc` (Linux; on
//! other systems every answer is the cautious one).

/// The kernel's id of the calling thread, from `/proc/thread-self/stat` (0 elsewhere).
pub(crate) fn current_tid() -> u64 {
    std::fs::read_to_string("/proc/thread-self/stat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// What `/proc` says thread `tid` of this process is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ThreadState {
    /// `R`: running, or runnable and waiting for a core.
    Running,
    /// `S`: asleep until something wakes it (a futex, a sleep, a pipe).
    Sleeping,
    /// Anything else: `D` (in the kernel, a page fault or disk I/O: over by itself), stopped
    /// by a debugger, exiting.
    Other,
    /// Not known (no `/proc`, or no such thread).
    Unknown,
}

/// The state of thread `tid` of this process, from `/proc/self/task/<tid>/stat`.
pub(crate) fn thread_state(tid: u64) -> ThreadState {
    if tid == 0 {
        return ThreadState::Unknown;
    }
    let Ok(stat) = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")) else {
        return ThreadState::Unknown;
    };
    // The state is the first field after the parenthesised thread name.
    match stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next())
    {
        Some("R") => ThreadState::Running,
        Some("S") => ThreadState::Sleeping,
        Some(_) => ThreadState::Other,
        None => ThreadState::Unknown,
    }
}

/// False when `/proc` says thread `tid` of this process is runnable (`R`); true when it
/// sleeps or waits, or when that cannot be known.
pub(crate) fn thread_is_blocked(tid: u64) -> bool {
    thread_state(tid) != ThreadState::Running
}

/// How much thread `tid` of this process has run: its CPU time in nanoseconds and the
/// number of times it got a core, from `/proc/self/task/<tid>/schedstat`; `None` where that
/// cannot be read. Unchanged between two looks: the thread did not run in between.
pub(crate) fn thread_runs(tid: u64) -> Option<(u64, u64)> {
    if tid == 0 {
        return None;
    }
    let s = std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")).ok()?;
    let mut f = s.split_whitespace();
    let cpu = f.next()?.parse().ok()?;
    let slices = f.nth(1)?.parse().ok()?;
    Some((cpu, slices))
}

/// Whether a thread of this process other than `me` and `waiting` is running (`R` in
/// `/proc`): then something may still change what the waiting threads wait for.
pub(crate) fn others_running(me: u64, waiting: &[u64]) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return false;
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u64>().ok())
        .filter(|t| *t != me && !waiting.contains(t))
        .any(|t| !thread_is_blocked(t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    use std::thread;
    use std::time::Duration;

    #[test]
    fn a_thread_blocked_on_a_lock_is_seen_blocked_and_a_spinning_one_is_not() {
        let lock = Arc::new(Mutex::new(()));
        let guard = lock.lock().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let l = lock.clone();
        let blocked = thread::spawn(move || {
            tx.send(current_tid()).unwrap();
            drop(l.lock().unwrap());
        });
        let tid = rx.recv().unwrap();
        thread::sleep(Duration::from_millis(50));
        assert!(thread_is_blocked(tid));
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel();
        let s = stop.clone();
        let spinning = thread::spawn(move || {
            tx.send(current_tid()).unwrap();
            while !s.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        });
        let spin_tid = rx.recv().unwrap();
        if spin_tid != 0 {
            // Runnable, whether on a core or waiting for one.
            assert!(!thread_is_blocked(spin_tid));
            assert_eq!(thread_state(spin_tid), ThreadState::Running);
            // And it runs: its CPU time grows.
            if let Some(before) = thread_runs(spin_tid) {
                let t = std::time::Instant::now();
                while thread_runs(spin_tid) == Some(before) && t.elapsed() < Duration::from_secs(10)
                {
                    thread::sleep(Duration::from_millis(1));
                }
                assert_ne!(thread_runs(spin_tid), Some(before));
            }
        }
        if tid != 0 {
            assert_eq!(thread_state(tid), ThreadState::Sleeping);
            // Blocked: it does not run between two looks.
            let before = thread_runs(tid);
            thread::sleep(Duration::from_millis(20));
            assert_eq!(thread_runs(tid), before);
        }
        stop.store(true, Ordering::Relaxed);
        drop(guard);
        blocked.join().unwrap();
        spinning.join().unwrap();
    }
}
