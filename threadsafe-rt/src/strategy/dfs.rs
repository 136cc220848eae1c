//! Bounded exhaustive exploration: every schedule of a test with at most `k` preemptions,
//! depth first (CHESS's iterative context bounding, Musuvathi and Qadeer, PLDI 2007).
//!
//! A *preemption* is a switch away from a thread that could go on. Switches where the
//! running thread blocks, ends or yields are free: they are how the threads hand over, and
//! bounding them would leave out schedules every program runs. Which waiter a `notify_one`
//! wakes is a choice too, and free.
//!
//! The schedules of one test form a tree whose nodes are the choices with more than one
//! option. The [`Explorer`] keeps the path of the schedule running; each execution of the
//! batch replays the path up to its last choice with an option left, takes the next option
//! there, and the first option at every new choice (the running thread goes on, or the
//! lowest-numbered thread), so the same test explores the same schedules in the same order
//! every time: execution `e` of a batch is always the same schedule, and a replay token
//! names it as it names a random one.
//!
//! The tree is the test's only if the test makes the same choices whenever it is given the
//! same schedule. A choice met again with a different number of options says otherwise
//! (a lock outside the scheduler, a point the watchdog set aside, time or a random state in
//! the code): the exploration goes on, but its end is no proof, and the report says so.

use std::sync::{Arc, Mutex};

use crate::lock::lock;
use crate::sched::Scheduler;

/// Choices after which a schedule stops branching and runs the rest round-robin: a thread
/// that spins without yielding would otherwise take every choice of the tree's first path
/// (the running thread goes on) until the run is cut; round-robin lets the thread it waits
/// for run. A test that gets this deep is not explored to the end (see decision 0093).
const MAX_CHOICES: usize = 1_000;

/// One choice with more than one option, in the path of a schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Choice {
    taken: usize,
    options: usize,
}

/// The exploration of one test's schedules, shared by the schedulers of its batch's
/// executions (one at a time: a batch's controlled executions run one after the other).
#[derive(Debug)]
pub(crate) struct Explorer {
    bound: usize,
    /// Schedules after which the exploration stops.
    limit: usize,
    /// The choices of the schedule running, or run last.
    path: Vec<Choice>,
    /// How far into `path` the schedule running is.
    cursor: usize,
    /// Preemptions the schedule running has taken.
    preemptions: usize,
    /// Points (all choices, one option or more) of the schedule running.
    points: usize,
    /// The most points of one schedule.
    longest: usize,
    /// Schedules begun.
    schedules: usize,
    /// Every schedule within the bound was begun.
    done: bool,
    /// A choice was met again with a different number of options.
    diverged: bool,
    /// A schedule went past [`MAX_CHOICES`] and ran its tail round-robin.
    deep: bool,
}

/// What an exploration came to, for the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Explored {
    /// The bound on preemptions.
    pub(crate) bound: usize,
    /// Schedules run.
    pub(crate) schedules: usize,
    /// The most scheduling points of one of them.
    pub(crate) longest: usize,
    /// Whether the exploration went to the end, or why not.
    pub(crate) end: End,
}

/// How an exploration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// Every schedule within the bound ran: a proof for this test, within the bound.
    Exhaustive,
    /// The limit of schedules per test was reached first.
    Limit,
    /// The test did not make the same choices for the same schedule.
    NotDeterministic,
    /// A schedule was too long to branch all the way.
    TooLong,
    /// The batch ended first: a failure, the budget, or a run cut at the bound on steps.
    Stopped,
}

impl Explorer {
    /// The exploration of schedules with at most `bound` preemptions, `limit` at most.
    pub(crate) fn new(bound: usize, limit: usize) -> Self {
        Explorer {
            bound,
            limit,
            path: Vec::new(),
            cursor: 0,
            preemptions: 0,
            points: 0,
            longest: 0,
            schedules: 0,
            done: false,
            diverged: false,
            deep: false,
        }
    }

    /// Starts the next schedule; false when every schedule within the bound was begun, or
    /// the limit was reached.
    pub(crate) fn begin(&mut self) -> bool {
        if self.done || self.schedules >= self.limit {
            return false;
        }
        if self.schedules > 0 {
            if self.cursor < self.path.len() {
                // The schedule ended before the choices it was to replay.
                self.diverged = true;
                self.path.truncate(self.cursor);
            }
            if !self.backtrack() {
                self.done = true;
                return false;
            }
        }
        self.cursor = 0;
        self.preemptions = 0;
        self.points = 0;
        self.schedules += 1;
        true
    }

    /// Moves the path to the next schedule: the last choice with an option left takes it,
    /// and the choices after it are forgotten. False when there is none.
    fn backtrack(&mut self) -> bool {
        while let Some(c) = self.path.last_mut() {
            if c.taken + 1 < c.options {
                c.taken += 1;
                return true;
            }
            self.path.pop();
        }
        false
    }

    /// Which of `options` this schedule takes at its next choice.
    fn choose(&mut self, options: usize) -> usize {
        self.points += 1;
        self.longest = self.longest.max(self.points);
        if options <= 1 {
            return 0;
        }
        match self.path.get_mut(self.cursor) {
            Some(c) if c.options == options => {}
            Some(c) => {
                self.diverged = true;
                *c = Choice {
                    taken: c.taken.min(options - 1),
                    options,
                };
            }
            None => self.path.push(Choice { taken: 0, options }),
        }
        self.cursor += 1;
        self.path[self.cursor - 1].taken
    }

    /// Whether the limit ended the exploration (the schedules after it are sampled).
    pub(crate) fn over_limit(&self) -> bool {
        !self.done && self.schedules >= self.limit
    }

    /// What the exploration came to.
    pub(crate) fn explored(&self) -> Explored {
        let end = if self.diverged {
            End::NotDeterministic
        } else if self.deep {
            End::TooLong
        } else if self.done {
            End::Exhaustive
        } else if self.over_limit() {
            End::Limit
        } else {
            End::Stopped
        };
        Explored {
            bound: self.bound,
            schedules: self.schedules,
            longest: self.longest,
            end,
        }
    }
}

/// The scheduler of one schedule of an exploration.
pub(crate) struct Dfs {
    explorer: Arc<Mutex<Explorer>>,
}

impl Dfs {
    /// The scheduler of the schedule `explorer` has just begun.
    pub(crate) fn new(explorer: Arc<Mutex<Explorer>>) -> Self {
        Dfs { explorer }
    }
}

impl Scheduler for Dfs {
    fn next(&mut self, runnable: &[usize], current: Option<usize>, yielding: bool) -> usize {
        let mut ex = lock(&self.explorer);
        let current = current.filter(|c| runnable.contains(c));
        if ex.points >= MAX_CHOICES {
            ex.deep = true;
            ex.points += 1;
            // Round-robin: the next runnable thread after the current one.
            let after = current.map_or(0, |c| c + 1);
            return runnable
                .iter()
                .copied()
                .find(|&t| t >= after)
                .unwrap_or(runnable[0]);
        }
        let others = runnable.iter().copied().filter(|&t| Some(t) != current);
        let (options, preempting): (Vec<usize>, bool) = match current {
            // A yield hands over: to any other thread, at no cost (the yielding thread
            // waits for another, so going on is no schedule of interest).
            Some(c) if yielding => {
                let others: Vec<usize> = others.collect();
                if others.is_empty() {
                    (vec![c], false)
                } else {
                    (others, false)
                }
            }
            // Going on first; a switch is a preemption, while the bound allows one.
            Some(c) if ex.preemptions < ex.bound => {
                (std::iter::once(c).chain(others).collect(), true)
            }
            Some(c) => (vec![c], false),
            // The thread blocked or ended: any runnable thread, at no cost.
            None => (runnable.to_vec(), false),
        };
        let i = ex.choose(options.len());
        if preempting && i > 0 {
            ex.preemptions += 1;
        }
        options[i]
    }

    fn pick(&mut self, n: usize) -> usize {
        lock(&self.explorer).choose(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs every schedule of `threads` threads of `steps` points each (a thread at a point
    /// may be switched away from; none blocks or yields), as the controlled run asks the
    /// scheduler; the order of the threads' steps in each schedule.
    fn explore(threads: usize, steps: usize, bound: usize) -> (Vec<Vec<usize>>, Explored) {
        let explorer = Arc::new(Mutex::new(Explorer::new(bound, usize::MAX)));
        let mut schedules = Vec::new();
        while lock(&explorer).begin() {
            let mut dfs = Dfs::new(explorer.clone());
            let mut left = vec![steps; threads];
            let mut order = Vec::new();
            let mut current = None;
            loop {
                let runnable: Vec<usize> = (0..threads).filter(|&t| left[t] > 0).collect();
                if runnable.is_empty() {
                    break;
                }
                let t = dfs.next(&runnable, current, false);
                order.push(t);
                left[t] -= 1;
                current = Some(t).filter(|&t| left[t] > 0);
            }
            schedules.push(order);
        }
        let explored = lock(&explorer).explored();
        (schedules, explored)
    }

    fn binomial(n: usize, k: usize) -> usize {
        (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
    }

    #[test]
    fn without_a_bound_every_interleaving_runs_once() {
        // Two threads of three steps: C(6, 3) interleavings.
        let (schedules, explored) = explore(2, 3, 100);
        assert_eq!(schedules.len(), binomial(6, 3));
        let mut distinct = schedules.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), schedules.len(), "a schedule ran twice");
        assert_eq!(explored.end, End::Exhaustive);
        assert_eq!(explored.schedules, 20);
        assert_eq!(explored.longest, 6);
    }

    #[test]
    fn the_bound_counts_switches_away_from_a_thread_that_could_go_on() {
        let preemptions = |order: &Vec<usize>| {
            // A switch while the thread left had steps to go (each has 3 here).
            let mut done = [0; 2];
            let mut n = 0;
            for w in order.windows(2) {
                done[w[0]] += 1;
                if w[0] != w[1] && done[w[0]] < 3 {
                    n += 1;
                }
            }
            n
        };
        for bound in 0..=3 {
            let (schedules, explored) = explore(2, 3, bound);
            assert_eq!(explored.end, End::Exhaustive);
            assert!(schedules.iter().all(|s| preemptions(s) <= bound));
            // Every interleaving within the bound is among them.
            let (all, _) = explore(2, 3, 100);
            let within = all.iter().filter(|s| preemptions(s) <= bound).count();
            assert_eq!(schedules.len(), within, "bound {bound}");
        }
        // Bound 0: who starts, then each thread runs to its end.
        assert_eq!(explore(2, 3, 0).0, [[0, 0, 0, 1, 1, 1], [1, 1, 1, 0, 0, 0]]);
    }

    #[test]
    fn the_same_test_explores_the_same_schedules_in_the_same_order() {
        assert_eq!(explore(3, 2, 2).0, explore(3, 2, 2).0);
    }

    #[test]
    fn the_limit_ends_an_exploration_without_proof() {
        let explorer = Arc::new(Mutex::new(Explorer::new(2, 3)));
        let mut begun = 0;
        while lock(&explorer).begin() {
            begun += 1;
            Dfs::new(explorer.clone()).next(&[0, 1, 2, 3], None, false);
        }
        assert_eq!(begun, 3);
        let ex = lock(&explorer);
        assert!(ex.over_limit());
        assert_eq!(ex.explored().end, End::Limit);
        assert_eq!(ex.explored().schedules, 3);
    }

    #[test]
    fn a_choice_met_with_other_options_makes_the_end_no_proof() {
        let explorer = Arc::new(Mutex::new(Explorer::new(2, usize::MAX)));
        assert!(lock(&explorer).begin());
        let mut dfs = Dfs::new(explorer.clone());
        assert_eq!(dfs.next(&[0, 1], None, false), 0);
        assert!(lock(&explorer).begin());
        let mut dfs = Dfs::new(explorer.clone());
        // The same first choice, now with three threads runnable.
        assert_eq!(dfs.next(&[0, 1, 2], None, false), 1);
        while lock(&explorer).begin() {
            let mut dfs = Dfs::new(explorer.clone());
            dfs.next(&[0, 1, 2], None, false);
        }
        assert_eq!(lock(&explorer).explored().end, End::NotDeterministic);
    }

    #[test]
    fn yields_and_notifications_are_free_choices() {
        let explorer = Arc::new(Mutex::new(Explorer::new(0, usize::MAX)));
        let mut seen = Vec::new();
        while lock(&explorer).begin() {
            let mut dfs = Dfs::new(explorer.clone());
            // Thread 0 yields: 1 or 2 runs, never 0 again; then a notify_one among 2.
            seen.push((dfs.next(&[0, 1, 2], Some(0), true), dfs.pick(2)));
        }
        assert_eq!(seen, [(1, 0), (1, 1), (2, 0), (2, 1)]);
    }

    #[test]
    fn a_schedule_past_the_choices_it_may_branch_runs_round_robin_and_is_no_proof() {
        let explorer = Arc::new(Mutex::new(Explorer::new(2, usize::MAX)));
        assert!(lock(&explorer).begin());
        let mut dfs = Dfs::new(explorer.clone());
        // Thread 0 spins at a point without yielding, waiting for thread 1.
        let mut runs = Vec::new();
        for _ in 0..MAX_CHOICES + 2 {
            runs.push(dfs.next(&[0, 1], Some(0), false));
        }
        assert!(runs[..MAX_CHOICES].iter().all(|&t| t == 0));
        assert_eq!(runs[MAX_CHOICES], 1, "round-robin gives thread 1 its turn");
        assert_eq!(lock(&explorer).explored().end, End::TooLong);
    }
}
