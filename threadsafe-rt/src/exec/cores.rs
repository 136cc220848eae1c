//! Which cores the threads of a free-running round run on.
//!
//! A race needs its threads to run at the same time. On an idle machine the operating
//! system gives each thread a core of its own. Beside a busy process it often does not: a
//! parked thread is woken onto its peer's core, and the two then take turns there while the
//! other core runs the busy process, so no execution of the round overlaps. Threads pinned
//! apart find such races beside a busy process, where unpinned ones often miss them within
//! a check's budget (see decision 0024).
//!
//! But pinning every round cost time on an idle machine (decision 0024 too), and while a
//! thread is pinned, the code it runs sees one core: `available_parallelism()` says 1, and
//! a thread it spawns inherits the pin. So threads are pinned only where it pays, and only
//! for the calls of a round:
//! - each thread notes its core when the round starts; threads that started on one core
//!   share it ([`Cores::note_start`], [`Cores::shared`]), and the batch pins the rest of its
//!   rounds ([`Cores::pin`]: thread `t` on the `t`-th core from the one the leader
//!   prepared the round on, [`Cores::aim`], among the cores the thread may use: the leader
//!   stays where it is, and a thread moves only when it must);
//! - the process remembers that the machine is busy ([`BUSY`]), so that the next batches
//!   pin from their first round; one batch in [`PROBE_EVERY`] starts unpinned anyway, and
//!   clears the mark when its threads start on cores of their own;
//! - prefixes, post parts and evaluations run unpinned: the instance is made, and results
//!   read, as the sequential runs that judge them make and read them.
//!
//! One round on one core is enough, though an idle machine has such rounds too (rarely, often
//! the process's first): waiting for three in a row pinned far less there, but found the
//! papers' subjects no sooner, rather later (see decision 0026).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::padded::Padded;
use crate::os::{allowed_cpus, current_cpu, pin_current_thread, Pinned};

/// Whether threads of a recent free-running round started on one core (process-wide: a
/// machine property, shared by the checks running at once).
static BUSY: AtomicBool = AtomicBool::new(false);

/// One batch in this many starts unpinned while the machine is marked busy, to see whether
/// it still is.
const PROBE_EVERY: u64 = 8;

/// A core not known.
const UNKNOWN: usize = usize::MAX;

/// The cores of one free-running batch's threads.
pub(super) struct Cores {
    /// The cores the threads may use, from the one the batch started on; empty where fewer
    /// than two are known (then nothing is pinned).
    cpus: Vec<usize>,
    /// Whether the rounds from now on pin their threads.
    apart: AtomicBool,
    /// Whether this batch started unpinned while the machine was marked busy.
    probe: bool,
    /// Rounds that started unpinned, and whose threads each had a core of their own.
    alone: AtomicUsize,
    /// The mark that the machine is busy ([`BUSY`], but for tests).
    busy: &'static AtomicBool,
    /// Per thread, the core it started the current round on.
    started_on: Vec<Padded<AtomicUsize>>,
    /// Where in `cpus` the current round's threads are pinned from ([`Cores::aim`]).
    base: AtomicUsize,
}

impl Cores {
    /// The cores of a free-running batch of `n` threads, seeded by `seed` (which batches
    /// probe).
    pub(super) fn new(n: usize, seed: u64) -> Cores {
        Cores::marked(n, seed, &BUSY)
    }

    /// [`new`](Self::new), with `busy` as the mark that the machine is busy.
    fn marked(n: usize, seed: u64, busy: &'static AtomicBool) -> Cores {
        let allowed = if n >= 2 { allowed_cpus() } else { Vec::new() };
        let cpus = if allowed.len() >= 2 {
            let here = current_cpu()
                .and_then(|c| allowed.iter().position(|&x| x == c))
                .unwrap_or(0);
            (0..allowed.len())
                .map(|i| allowed[(here + i) % allowed.len()])
                .collect()
        } else {
            Vec::new()
        };
        let marked = !cpus.is_empty() && busy.load(Ordering::Relaxed);
        let probe = marked && seed % PROBE_EVERY == 0;
        Cores {
            cpus,
            apart: AtomicBool::new(marked && !probe),
            probe,
            alone: AtomicUsize::new(0),
            busy,
            started_on: (0..n).map(|_| Padded(AtomicUsize::new(UNKNOWN))).collect(),
            base: AtomicUsize::new(0),
        }
    }

    /// Leader, preparing a round: the round's threads are pinned from the core it is on
    /// now, so that it stays where it is and only its peers move, if they must (a move
    /// to another core is most of what pinning costs).
    pub(super) fn aim(&self) {
        if !self.apart() {
            return;
        }
        if let Some(i) = current_cpu().and_then(|c| self.cpus.iter().position(|&x| x == c)) {
            self.base.store(i, Ordering::Relaxed);
        }
    }

    /// Whether the batch's rounds pin their threads apart now.
    pub(super) fn apart(&self) -> bool {
        !self.cpus.is_empty() && self.apart.load(Ordering::Relaxed)
    }

    /// Thread `t` about to run its calls of a round: pinned until the guard is dropped, if
    /// the batch pins, to the `t`-th core from the one [`aim`](Self::aim) chose.
    pub(super) fn pin(&self, t: usize) -> Option<Pinned> {
        if !self.apart() {
            return None;
        }
        let base = self.base.load(Ordering::Relaxed);
        pin_current_thread(self.cpus[(base + t) % self.cpus.len()])
    }

    /// Thread `t` starts the calls of a round (after the start barrier).
    pub(super) fn note_start(&self, t: usize) {
        if !self.cpus.is_empty() {
            let cpu = current_cpu().unwrap_or(UNKNOWN);
            self.started_on[t].store(cpu, Ordering::Relaxed);
        }
    }

    /// Leader, after every thread has finished the round: whether its threads started it on
    /// fewer cores than they could have (two on one core, with a core to spare); if so, the
    /// next rounds pin and the machine is marked busy.
    pub(super) fn shared(&self) -> bool {
        if self.cpus.is_empty() || self.apart.load(Ordering::Relaxed) {
            return false;
        }
        let on: Vec<usize> = self
            .started_on
            .iter()
            .map(|c| c.swap(UNKNOWN, Ordering::Relaxed))
            .collect();
        if on.contains(&UNKNOWN) {
            return false;
        }
        // More threads than cores share some core anyway: only fewer cores than both is
        // a sign of a busy machine.
        let distinct = on
            .iter()
            .enumerate()
            .filter(|&(i, c)| !on[..i].contains(c))
            .count();
        let shared = distinct < on.len().min(self.cpus.len());
        if shared {
            self.apart.store(true, Ordering::Relaxed);
            self.busy.store(true, Ordering::Relaxed);
        } else {
            self.alone.fetch_add(1, Ordering::Relaxed);
        }
        shared
    }

    /// The batch is over: a probe whose rounds all had a core per thread clears the mark.
    pub(super) fn finish(&self) {
        if self.probe
            && !self.apart.load(Ordering::Relaxed)
            && self.alone.load(Ordering::Relaxed) > 0
        {
            self.busy.store(false, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::{Cores, PROBE_EVERY};
    use crate::os::{allowed_cpus, current_cpu, pin_current_thread};

    /// Threads `0..n` note their start of a round, each pinned to `on(t)` meanwhile.
    fn start_round(cores: &Cores, n: usize, on: impl Fn(usize) -> usize + Sync) {
        std::thread::scope(|s| {
            for t in 0..n {
                let on = &on;
                s.spawn(move || {
                    let _pinned = pin_current_thread(on(t)).expect("pin");
                    cores.note_start(t);
                });
            }
        });
    }

    #[test]
    fn threads_that_start_a_round_on_one_core_are_pinned_apart_and_the_mark_lasts_until_a_probe() {
        let allowed = allowed_cpus();
        if allowed.len() < 2 {
            // Nothing to spread over: nothing is ever pinned.
            let cores = Cores::new(2, 1);
            assert!(cores.pin(0).is_none() && !cores.shared());
            return;
        }
        static BUSY: AtomicBool = AtomicBool::new(false);
        let (a, b) = (allowed[0], allowed[1]);
        let cores = Cores::marked(2, 1, &BUSY);
        assert!(cores.pin(0).is_none(), "an idle machine: not pinned");
        // A round on cores of their own: nothing changes.
        start_round(&cores, 2, |t| [a, b][t]);
        assert!(!cores.shared());
        assert!(cores.pin(0).is_none() && !BUSY.load(Ordering::Relaxed));
        // Three threads on as many cores as there are, up to three (on two cores, two share
        // one): no sign of a busy machine.
        let three = Cores::marked(3, 1, &BUSY);
        start_round(&three, 3, |t| allowed[t % allowed.len()]);
        assert!(!three.shared() && !BUSY.load(Ordering::Relaxed));
        // Both on one core: the next rounds pin them apart, and the machine is marked.
        start_round(&cores, 2, |_| a);
        assert!(cores.shared());
        assert!(BUSY.load(Ordering::Relaxed));
        let on: Vec<usize> = (0..2)
            .map(|t| {
                std::thread::scope(|s| {
                    s.spawn(|| {
                        let _pinned = cores.pin(t).expect("pinned apart");
                        assert_eq!(allowed_cpus().len(), 1);
                        current_cpu().expect("known")
                    })
                    .join()
                    .unwrap()
                })
            })
            .collect();
        assert_ne!(on[0], on[1]);
        cores.finish();
        assert!(BUSY.load(Ordering::Relaxed), "not a probe: the mark stays");
        // The next batch pins from its first round, unless it probes.
        assert!(Cores::marked(2, 1, &BUSY).pin(0).is_some());
        let probe = Cores::marked(2, PROBE_EVERY, &BUSY);
        assert!(probe.pin(0).is_none(), "a probe starts unpinned");
        start_round(&probe, 2, |t| [a, b][t]);
        assert!(!probe.shared());
        probe.finish();
        assert!(
            !BUSY.load(Ordering::Relaxed),
            "the probe had cores of its own"
        );
        // A probe that finds them sharing keeps the mark.
        BUSY.store(true, Ordering::Relaxed);
        let probe = Cores::marked(2, 2 * PROBE_EVERY, &BUSY);
        start_round(&probe, 2, |_| b);
        assert!(probe.shared());
        probe.finish();
        assert!(BUSY.load(Ordering::Relaxed));
    }

    #[test]
    fn a_pinned_round_keeps_its_leader_on_the_core_it_prepared_on_and_moves_its_peers() {
        let allowed = allowed_cpus();
        if allowed.len() < 2 {
            return; // nothing is ever pinned (see the test above)
        }
        static BUSY: AtomicBool = AtomicBool::new(true);
        // Marked busy, not a probe: every round pins.
        let cores = Cores::marked(2, 1, &BUSY);
        for (i, &here) in allowed.iter().enumerate() {
            // The leader prepares the round on `here`...
            std::thread::scope(|s| {
                s.spawn(|| {
                    let _on = pin_current_thread(here).expect("pin");
                    cores.aim();
                });
            });
            // ...and the round's threads are pinned from there.
            let next = allowed[(i + 1) % allowed.len()];
            for (t, want) in [(0, here), (1, next)] {
                let mask = std::thread::scope(|s| {
                    s.spawn(|| {
                        let _pinned = cores.pin(t).expect("pinned");
                        allowed_cpus()
                    })
                    .join()
                    .unwrap()
                });
                assert_eq!(mask, vec![want], "thread {t}, leader on {here}");
            }
        }
    }
}
