//! The one watchdog thread of the process, which finds gate deadlocks.

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::engine::{engine, Engine, Thread, WATCH};
use super::outcome::GateDeadlock;
use crate::os::{current_tid, others_running};

/// The watchdog's view of the engine it watches.
struct Watch {
    /// The engine's id.
    id: u64,
    /// The watchdog's own thread id.
    me: u64,
    last: u64,
    quiet_since: Instant,
    still_since: Instant,
    declared: Option<Instant>,
}

/// The one watchdog thread of the process: parked while no gated test runs, it looks at
/// the running one every [`WATCH`]. Started by the first [`run`].
pub(super) fn watchdog() -> &'static std::thread::Thread {
    static WATCHDOG: std::sync::OnceLock<std::thread::Thread> = std::sync::OnceLock::new();
    WATCHDOG.get_or_init(|| {
        std::thread::Builder::new()
            .name("threadsafe-gates-watchdog".into())
            .spawn(|| {
                let me = current_tid();
                let mut w: Option<Watch> = None;
                loop {
                    let Some(e) = engine() else {
                        w = None;
                        std::thread::park();
                        continue;
                    };
                    let w = match &mut w {
                        Some(w) if w.id == e.id => w,
                        _ => w.insert(Watch {
                            id: e.id,
                            me,
                            last: u64::MAX,
                            quiet_since: Instant::now(),
                            still_since: Instant::now(),
                            declared: None,
                        }),
                    };
                    e.watch(w);
                    drop(e);
                    std::thread::park_timeout(WATCH);
                }
            })
            .expect("the OS starts the watchdog thread")
            .thread()
            .clone()
    })
}

impl Engine {
    /// One look of the watchdog at this engine. Declares a gate deadlock when every live
    /// thread waits at a gate and nothing happened for `settle` while no other thread of
    /// the process ran, or when nothing happened for `timeout` while no thread of the process
    /// ran (those not at gates are blocked); aborts the process if threads are still stuck `timeout` after
    /// that (they wait outside the gates, where nothing can unwind them).
    fn watch(&self, w: &mut Watch) {
        if let Some(at) = w.declared {
            if at.elapsed() > self.timeout {
                let st = self.state();
                eprintln!(
                    "threadsafe: {}threads blocked outside the gates never returned; aborting",
                    st.deadlock
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default()
                );
                std::process::abort();
            }
            return;
        }
        let mut st = self.state();
        if st.events != w.last {
            w.last = st.events;
            w.quiet_since = Instant::now();
            w.still_since = Instant::now();
        }
        let live: Vec<&Thread> = st.threads.iter().filter(|t| t.live).collect();
        let all_waiting = !live.is_empty() && live.iter().all(|t| t.waiting.is_some());
        let waiting_tids: Vec<u64> = live
            .iter()
            .filter(|t| t.waiting.is_some())
            .map(|t| t.tid)
            .collect();
        let exact = all_waiting && {
            if others_running(w.me, &waiting_tids) {
                w.still_since = Instant::now();
            }
            w.still_since.elapsed() >= self.settle
        };
        let stuck = !exact
            && w.quiet_since.elapsed() >= self.timeout
            && !others_running(w.me, &waiting_tids);
        if exact || stuck {
            st.deadlock = Some(GateDeadlock {
                waiting: live.iter().filter_map(|t| t.waiting.clone()).collect(),
                blocked: live
                    .iter()
                    .filter(|t| t.waiting.is_none())
                    .map(|t| t.name.clone())
                    .collect(),
                quiet_for: w.quiet_since.elapsed(),
            });
            self.abort.store(true, Ordering::SeqCst);
            self.cv.notify_all();
            w.declared = Some(Instant::now());
        }
    }
}
