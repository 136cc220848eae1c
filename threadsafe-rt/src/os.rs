//! What the operating system says about this process's threads, from `/proc`, and which
//! cores they run on (Linux; on other systems every answer is the cautious one, and no
//! thread is pinned).

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

/// The cores the calling thread may run on (its affinity mask), in increasing order; empty
/// where that cannot be known.
pub(crate) fn allowed_cpus() -> Vec<usize> {
    #[cfg(target_os = "linux")]
    {
        affinity::current().map_or_else(Vec::new, |set| affinity::cpus(&set))
    }
    #[cfg(not(target_os = "linux"))]
    {
        Vec::new()
    }
}

/// The core the calling thread runs on now, if known.
pub(crate) fn current_cpu() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `sched_getcpu` takes no arguments; it returns -1 on failure.
        usize::try_from(unsafe { libc::sched_getcpu() }).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Pins the calling thread to core `cpu` until the returned guard is dropped, which gives
/// the thread back the mask it had; `None` (and nothing changed) where the system refuses.
pub(crate) fn pin_current_thread(cpu: usize) -> Option<Pinned> {
    #[cfg(target_os = "linux")]
    {
        let saved = affinity::current()?;
        affinity::set(&affinity::only(cpu)).then_some(Pinned { saved })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpu;
        None
    }
}

/// A thread pinned to one core by [`pin_current_thread`]; dropped (on that thread), it gives
/// the thread its mask back. Never made where threads are not pinned (not Linux).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) struct Pinned {
    #[cfg(target_os = "linux")]
    saved: libc::cpu_set_t,
}

impl Drop for Pinned {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        affinity::set(&self.saved);
    }
}

/// The calling thread's affinity mask, through `sched_{get,set}affinity`.
#[cfg(target_os = "linux")]
mod affinity {
    use std::mem::{size_of, zeroed};

    use libc::cpu_set_t;

    fn empty() -> cpu_set_t {
        // SAFETY: `cpu_set_t` is plain data, and all zeroes is the empty set.
        unsafe { zeroed() }
    }

    pub(super) fn current() -> Option<cpu_set_t> {
        let mut set = empty();
        // SAFETY: the pointer and the size describe `set`, which outlives the call; pid 0
        // is the calling thread.
        let r = unsafe { libc::sched_getaffinity(0, size_of::<cpu_set_t>(), &mut set) };
        (r == 0).then_some(set)
    }

    pub(super) fn set(set: &cpu_set_t) -> bool {
        // SAFETY: as in `current`; the set is only read.
        unsafe { libc::sched_setaffinity(0, size_of::<cpu_set_t>(), set) == 0 }
    }

    pub(super) fn only(cpu: usize) -> cpu_set_t {
        let mut set = empty();
        // SAFETY: `CPU_SET` writes within `set`, ignoring a `cpu` beyond its size.
        unsafe { libc::CPU_SET(cpu, &mut set) };
        set
    }

    pub(super) fn cpus(set: &cpu_set_t) -> Vec<usize> {
        (0..8 * size_of::<cpu_set_t>())
            // SAFETY: `cpu` is within the set's size; `CPU_ISSET` only reads.
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, set) })
            .collect()
    }
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

    #[test]
    #[cfg(target_os = "linux")]
    fn a_pinned_thread_runs_on_its_core_and_gets_its_mask_back() {
        thread::spawn(|| {
            let allowed = allowed_cpus();
            assert!(!allowed.is_empty(), "a thread may run on some core");
            for &cpu in allowed.iter().rev().take(2) {
                let pinned = pin_current_thread(cpu).expect("a thread may pin itself");
                assert_eq!(allowed_cpus(), vec![cpu]);
                // Where it runs is read after the pin took effect: on that core, always.
                assert_eq!(current_cpu(), Some(cpu));
                drop(pinned);
                assert_eq!(allowed_cpus(), allowed, "the mask given back");
            }
        })
        .join()
        .unwrap();
    }
}
