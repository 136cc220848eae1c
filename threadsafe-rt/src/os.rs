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

/// Whether every thread of this process but `me` sleeps for good: nothing but a signal can
/// ever wake any of them again. Each sleeps in a wait on a private futex (std's and
/// `parking_lot`'s locks, condition variables and parks wait so) at two looks, one after the
/// other, and none ran in between. The waits have no timeout, but for the process's main
/// thread (libtest's waits for its test threads so, and touches no lock of the code under
/// test) and for the thread `between` names, asked between the two looks: a thread whose
/// timed wakes, the caller knows, can change nothing while the others sleep. Then when the
/// first look ended no thread was running or runnable, so none could wake another, and no
/// timer that could: the threads wait for each other, or for `me`.
///
/// The answer is `false` wherever it cannot be known: a thread that sleeps otherwise (a
/// `thread::sleep`, a read from a pipe, a timed wait), runs or is runnable, a thread that came
/// or went between the looks, or no `/proc` with `syscall` and `schedstat` files (not Linux,
/// or a kernel without them, or an architecture whose futex number is not known here).
pub(crate) fn asleep_for_good(me: u64, between: impl FnOnce() -> Option<u64>) -> bool {
    let Some(first) = look_at_threads(&[me], Look::First) else {
        return false;
    };
    let may_time_out: Vec<u64> = [Some(u64::from(std::process::id())), between()]
        .into_iter()
        .flatten()
        .collect();
    let Some(second) = look_at_threads(&[me], Look::Second) else {
        return false;
    };
    slept_through(&first, &second, &may_time_out)
}

/// Whether the threads of `first` are those of `second`, and none ran between the two
/// looks, each in an untimed wait at both unless `may_time_out` names it.
fn slept_through(first: &[Still], second: &[Still], may_time_out: &[u64]) -> bool {
    first.len() == second.len()
        && first.iter().zip(second).all(|(a, b)| {
            a.tid == b.tid
                && a.runs == b.runs
                && (a.wait == FutexWait::Untimed && b.wait == FutexWait::Untimed
                    || may_time_out.contains(&a.tid))
        })
}

/// The runtime's own threads that sleep with a timeout and call nothing of the code under
/// test: the thread waiting for a batch's jobs, the controlled runs' watchdog.
static OWN: std::sync::Mutex<Vec<u64>> = std::sync::Mutex::new(Vec::new());

/// The list of the runtime's own threads (a poisoned lock is taken: nothing panics under it).
fn own() -> std::sync::MutexGuard<'static, Vec<u64>> {
    OWN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Marks the calling thread as one of the runtime's own (see [`outside_asleep_for_good`])
/// while the guard lives.
pub(crate) fn own_thread() -> OwnThread {
    let tid = current_tid();
    own().push(tid);
    OwnThread(tid)
}

/// Unmarks the thread [`own_thread`] marked.
pub(crate) struct OwnThread(u64);

impl Drop for OwnThread {
    fn drop(&mut self) {
        let mut own = own();
        if let Some(i) = own.iter().position(|&t| t == self.0) {
            own.swap_remove(i);
        }
    }
}

/// Whether every thread of this process sleeps for good (as in [`asleep_for_good`]), but
/// `me`, the threads `ours` (whose waits the caller knows) and the runtime's own
/// ([`own_thread`]) and main threads: then no thread outside `ours` can call a waker any
/// more. `false` wherever it cannot be known.
pub(crate) fn outside_asleep_for_good(me: u64, ours: &[u64]) -> bool {
    let mut skip: Vec<u64> = ours.to_vec();
    skip.extend(own().iter());
    skip.push(u64::from(std::process::id()));
    skip.push(me);
    let (Some(first), Some(second)) = (
        look_at_threads(&skip, Look::First),
        look_at_threads(&skip, Look::Second),
    ) else {
        return false;
    };
    can_tell_waits() && slept_through(&first, &second, &[])
}

/// Which of the two looks of [`asleep_for_good`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Look {
    /// Reads a thread's run count before its state: if the thread is asleep at the state
    /// and has the same count at the second look, it did not run from this look on.
    First,
    /// Reads the run count after the state: a thread made runnable before this look began
    /// is seen runnable, or has run by the time its count is read.
    Second,
}

/// A thread seen asleep in a futex wait: how, and how much it had run.
struct Still {
    tid: u64,
    wait: FutexWait,
    runs: (u64, u64),
}

/// Every thread of this process but those in `skip`, if each sleeps in a futex wait (see
/// [`asleep_for_good`]); `None` at the first that does not.
fn look_at_threads(skip: &[u64], look: Look) -> Option<Vec<Still>> {
    let mut tids: Vec<u64> = std::fs::read_dir("/proc/self/task")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|t| !skip.contains(t))
        .collect();
    tids.sort_unstable();
    tids.into_iter().map(|tid| look_at(tid, look)).collect()
}

/// Thread `tid`, if it sleeps in a futex wait.
fn look_at(tid: u64, look: Look) -> Option<Still> {
    let before = if look == Look::First {
        Some(thread_runs(tid)?)
    } else {
        None
    };
    if thread_state(tid) != ThreadState::Sleeping {
        return None;
    }
    let syscall = std::fs::read_to_string(format!("/proc/self/task/{tid}/syscall")).ok()?;
    let wait = futex_wait(&syscall)?;
    let runs = match before {
        Some(runs) => runs,
        None => thread_runs(tid)?,
    };
    Some(Still { tid, wait, runs })
}

/// Whether thread `tid` of this process waits for another thread: it sleeps in an untimed
/// wait on a private futex at two looks and did not run in between, so only a thread of
/// this process can end the wait (as in [`asleep_for_good`], for one thread). `None` where
/// that cannot be known here (see [`can_tell_waits`]).
pub(crate) fn waits_for_another(tid: u64) -> Option<bool> {
    if !can_tell_waits() {
        return None;
    }
    let untimed = |s: &Still| s.wait == FutexWait::Untimed;
    let Some(first) = look_at(tid, Look::First).filter(untimed) else {
        return Some(false);
    };
    Some(
        look_at(tid, Look::Second)
            .is_some_and(|second| untimed(&second) && second.runs == first.runs),
    )
}

/// Whether this system says how threads wait: `/proc/thread-self` with `schedstat` and
/// `syscall` files, on an architecture whose futex number is known here.
pub(crate) fn can_tell_waits() -> bool {
    static CAN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CAN.get_or_init(|| {
        let tid = current_tid();
        FUTEX.is_some()
            && thread_runs(tid).is_some()
            && std::fs::metadata(format!("/proc/self/task/{tid}/syscall")).is_ok()
    })
}

/// The number of the `futex` system call on the architectures this knows.
const FUTEX: Option<u64> = if cfg!(target_arch = "x86_64") {
    Some(202)
} else if cfg!(target_arch = "aarch64") {
    Some(98)
} else {
    None
};

/// A futex wait, as `/proc/<tid>/syscall` shows it.
#[derive(Debug, PartialEq, Eq)]
enum FutexWait {
    /// No timeout: it ends only when another thread wakes it.
    Untimed,
    /// It ends by itself at the latest when its time is up.
    Timed,
}

/// The futex wait a `/proc/<tid>/syscall` line shows (`<number> <arguments…> <sp> <pc>`, in
/// hexadecimal after the number): `FUTEX_WAIT` or `FUTEX_WAIT_BITSET` on a private futex,
/// which only threads of this process can wake. `None` for anything else: another system
/// call, a shared futex, `running`, a line this cannot read.
fn futex_wait(syscall: &str) -> Option<FutexWait> {
    const PRIVATE: u64 = 128;
    const CLOCK_REALTIME: u64 = 256;
    const WAIT: u64 = 0;
    const WAIT_BITSET: u64 = 9;
    let mut fields = syscall.split_whitespace();
    let number: u64 = fields.next()?.parse().ok()?;
    if Some(number) != FUTEX {
        return None;
    }
    let hex = |f: Option<&str>| u64::from_str_radix(f?.strip_prefix("0x")?, 16).ok();
    let _address = hex(fields.next())?;
    let op = hex(fields.next())?;
    let _value = hex(fields.next())?;
    let timeout = hex(fields.next())?;
    let command = op & !(PRIVATE | CLOCK_REALTIME);
    if op & PRIVATE == 0 || !matches!(command, WAIT | WAIT_BITSET) {
        return None;
    }
    Some(if timeout == 0 {
        FutexWait::Untimed
    } else {
        FutexWait::Timed
    })
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

/// Runs the unit test `test` of this test binary alone in a child process, with `var` set to
/// `case`, and fails unless it passes there: for tests that look at every thread of the
/// process, which the other tests' threads would disturb.
#[cfg(test)]
pub(crate) fn in_a_child(test: &str, var: &str, case: &str) {
    let exe = std::env::current_exe().expect("the test binary");
    let out = std::process::Command::new(exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(var, case)
        .output()
        .expect("the test binary runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "case {case} of {test} in a child: {stdout}{stderr}"
    );
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
    fn futex_waits_are_read_from_the_syscall_line() {
        let Some(futex) = FUTEX else {
            return;
        };
        let line = |op: &str, timeout: &str| {
            format!("{futex} 0x7f0a 0x{op} 0x2 0x{timeout} 0x0 0xffffffff 0x7ffc 0x7f1b")
        };
        // std's lock and condition variable: FUTEX_WAIT_BITSET | FUTEX_PRIVATE, no timeout.
        assert_eq!(futex_wait(&line("89", "0")), Some(FutexWait::Untimed));
        // parking_lot's: FUTEX_WAIT | FUTEX_PRIVATE, with and without a timeout.
        assert_eq!(futex_wait(&line("80", "0")), Some(FutexWait::Untimed));
        assert_eq!(futex_wait(&line("80", "7ffd10")), Some(FutexWait::Timed));
        assert_eq!(futex_wait(&line("189", "7ffd10")), Some(FutexWait::Timed));
        // A shared futex (another process may wake it), a wake, another system call.
        assert_eq!(futex_wait(&line("0", "0")), None);
        assert_eq!(futex_wait(&line("81", "0")), None);
        assert_eq!(
            futex_wait("230 0x1 0x0 0x7ffc 0x7ffc 0x0 0x0 0x7ffc 0x7f1b"),
            None
        );
        assert_eq!(futex_wait("running"), None);
        assert_eq!(futex_wait("-1 0x7ffc 0x7f1b"), None);
        assert_eq!(futex_wait(""), None);
    }

    /// The variable that makes a run of this test binary a child running one case of
    /// [`threads_waiting_for_each_other_are_asleep_for_good_and_others_are_not`].
    const CASE: &str = "THREADSAFE_OS_ASLEEP_CASE";

    /// `asleep_for_good` looks at every thread of the process, so each case runs in a child
    /// process of the test binary, where no other test runs: a deadlock of two std locks is
    /// seen asleep for good; a thread that waits for a lock held by a sleeping thread, or a
    /// thread in a timed wait, never is, though every thread sleeps.
    #[test]
    #[cfg(target_os = "linux")]
    fn threads_waiting_for_each_other_are_asleep_for_good_and_others_are_not() {
        if let Ok(case) = std::env::var(CASE) {
            return child_case(&case);
        }
        for case in ["deadlock", "sleeper", "timed"] {
            in_a_child(
                "os::tests::threads_waiting_for_each_other_are_asleep_for_good_and_others_are_not",
                CASE,
                case,
            );
        }
    }

    fn child_case(case: &str) {
        use std::sync::{Barrier, Condvar};
        let me = current_tid();
        if me == 0 || thread_runs(me).is_none() || FUTEX.is_none() {
            return; // no /proc to read, or a futex number not known here
        }
        let (a, b) = (Arc::new(Mutex::new(())), Arc::new(Mutex::new(())));
        let both_hold = Arc::new(Barrier::new(2));
        let spawn = |first: Arc<Mutex<()>>, second: Arc<Mutex<()>>, nap: Option<Duration>| {
            let both_hold = both_hold.clone();
            let (tx, rx) = std::sync::mpsc::channel();
            thread::spawn(move || {
                tx.send(current_tid()).unwrap();
                let _held = first.lock().unwrap();
                both_hold.wait();
                match nap {
                    Some(nap) => thread::sleep(nap),
                    None => drop(second.lock().unwrap()),
                }
            });
            rx.recv().unwrap()
        };
        let tids = match case {
            // Each holds one lock and waits for the other's.
            "deadlock" => vec![
                spawn(a.clone(), b.clone(), None),
                spawn(b.clone(), a.clone(), None),
            ],
            // One holds `b` and sleeps; the other holds `a` and waits for `b`.
            "sleeper" => vec![
                spawn(a.clone(), b.clone(), None),
                spawn(b.clone(), a.clone(), Some(Duration::from_secs(60))),
            ],
            // One waits for a condition variable with a timeout.
            _ => {
                let (tx, rx) = std::sync::mpsc::channel();
                thread::spawn(move || {
                    tx.send(current_tid()).unwrap();
                    let pair = (Mutex::new(()), Condvar::new());
                    let guard = pair.0.lock().unwrap();
                    drop(pair.1.wait_timeout(guard, Duration::from_secs(60)));
                });
                vec![rx.recv().unwrap()]
            }
        };
        let start = std::time::Instant::now();
        while !tids
            .iter()
            .all(|&t| thread_state(t) == ThreadState::Sleeping)
        {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "the threads never slept"
            );
            thread::sleep(Duration::from_millis(1));
        }
        if case == "deadlock" {
            while !asleep_for_good(me, || None) {
                assert!(
                    start.elapsed() < Duration::from_secs(30),
                    "a deadlock never seen asleep for good"
                );
                thread::sleep(Duration::from_millis(1));
            }
        } else {
            for _ in 0..50 {
                assert!(
                    !asleep_for_good(me, || None),
                    "{case}: seen asleep for good"
                );
                thread::sleep(Duration::from_millis(2));
            }
        }
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
