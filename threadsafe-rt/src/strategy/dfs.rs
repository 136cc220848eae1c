//! Bounded exhaustive exploration: every schedule of a test with at most `k` preemptions,
//! depth first (CHESS's iterative context bounding, Musuvathi and Qadeer, PLDI 2007).
//!
//! A *preemption* is a switch away from a thread that could go on. Switches where the
//! running thread blocks, ends or yields are free: they are how the threads hand over, and
//! bounding them would leave out schedules every program runs. Which waiter a `notify_one`
//! wakes is a choice too, and free.
//!
//! The schedules of one test form a tree whose nodes are its points. The [`Explorer`] keeps
//! the path of the schedule running; each execution of the batch replays the path up to its
//! last point with an option left, takes the next option there, and the first option at
//! every new point (the running thread goes on, or the lowest-numbered thread). Schedules
//! with fewer preemptions run first (levels, see [`Explorer`]). The same test explores the
//! same schedules in the same order every time: execution `e` of a batch is always the same
//! schedule, and a replay token names it as it names a random one.
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

/// One point of a schedule's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Choice {
    /// The option this schedule takes.
    taken: usize,
    /// The options at this point (a switch the level cannot afford is one too).
    options: usize,
    /// The options this level explores here: 1 where a switch would be a preemption the
    /// level cannot afford (those go to the next level), else all of them.
    open: usize,
}

/// The exploration of one test's schedules, shared by the schedulers of its batch's
/// executions (one at a time: a batch's controlled executions run one after the other).
///
/// Levels of preemptions, as CHESS's iterative context bounding: level 0 runs every schedule
/// without a preemption; a preemption it meets is kept as a *root* of level 1 (the path up
/// to it, and the switch), whose schedules run after every schedule of level 0; and so on up
/// to the bound. Each schedule within the bound runs once, the ones with fewer preemptions
/// first, so that a bug that needs one preemption is met before the schedules that spend
/// two.
#[derive(Debug)]
pub(crate) struct Explorer {
    bound: usize,
    /// Schedules after which the exploration stops.
    limit: usize,
    /// The points of the schedule running, or run last.
    path: Vec<Choice>,
    /// The points of `path` the subtree being explored starts from: never backtracked.
    root: usize,
    /// How far into `path` the schedule running is.
    cursor: usize,
    /// Preemptions the schedule running has taken.
    preemptions: usize,
    /// The preemptions every schedule of this level takes.
    level: usize,
    /// This level's roots still to explore, the last first.
    roots: Vec<Vec<Choice>>,
    /// The next level's roots, in the order met.
    next: Vec<Vec<Choice>>,
    /// A root was not kept: there were more than the limit allows to run.
    overflow: bool,
    /// Points of the schedule running.
    points: usize,
    /// The most points of one schedule.
    longest: usize,
    /// Schedules begun, over every start.
    schedules: usize,
    /// Whether a schedule was begun since the exploration (re)started.
    started: bool,
    /// The points found futile when the exploration (re)started.
    futile: usize,
    /// Every schedule within the bound was begun.
    done: bool,
    /// A point was met again with a different number of options.
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
            root: 0,
            cursor: 0,
            preemptions: 0,
            level: 0,
            roots: Vec::new(),
            next: Vec::new(),
            overflow: false,
            points: 0,
            longest: 0,
            schedules: 0,
            started: false,
            futile: 0,
            done: false,
            diverged: false,
            deep: false,
        }
    }

    /// Starts the next schedule, the test's runs having found `futile` points futile so
    /// far; false when every schedule within the bound was begun, or the limit was reached.
    ///
    /// A point found futile (inside a `std` lock's critical section: the thread switched to
    /// blocked outside the scheduler) is passed over from then on, so the tree the schedules
    /// so far walked is not the test's any more: the exploration starts again, under the
    /// points that are left. The set only grows, so this ends.
    pub(crate) fn begin(&mut self, futile: usize) -> bool {
        if futile != self.futile {
            self.futile = futile;
            self.restart();
        }
        if self.done || self.schedules >= self.limit {
            return false;
        }
        if self.started {
            if self.cursor < self.path.len() {
                // The schedule ended before the points it was to replay.
                self.diverged = true;
                self.path.truncate(self.cursor.max(self.root));
            }
            if !self.backtrack() {
                self.done = true;
                return false;
            }
        }
        self.started = true;
        self.cursor = 0;
        self.preemptions = 0;
        self.points = 0;
        self.schedules += 1;
        true
    }

    /// Forgets the tree walked so far (not the schedules counted).
    fn restart(&mut self) {
        self.path.clear();
        self.root = 0;
        self.level = 0;
        self.roots.clear();
        self.next.clear();
        self.overflow = false;
        self.started = false;
        self.done = false;
        self.diverged = false;
        self.deep = false;
    }

    /// Moves the path to the next schedule: the last point of the subtree with an option
    /// left takes it, and the points after it are forgotten; past the subtree, the next
    /// root, of this level or the next. False when there is none.
    fn backtrack(&mut self) -> bool {
        while self.path.len() > self.root {
            let c = self.path.last_mut().expect("longer than the root");
            if c.taken + 1 < c.open {
                c.taken += 1;
                return true;
            }
            self.path.pop();
        }
        loop {
            if let Some(root) = self.roots.pop() {
                self.root = root.len();
                self.path = root;
                return true;
            }
            if self.next.is_empty() {
                return false;
            }
            self.level += 1;
            self.roots = std::mem::take(&mut self.next);
            self.roots.reverse();
        }
    }

    /// Which of `options` this schedule takes at its next point; `preempting` when taking
    /// any but the first is a preemption.
    fn choose(&mut self, options: usize, preempting: bool) -> usize {
        self.points += 1;
        self.longest = self.longest.max(self.points);
        match self.path.get_mut(self.cursor) {
            Some(c) => {
                if c.options != options {
                    self.diverged = true;
                    *c = Choice {
                        taken: c.taken.min(options - 1),
                        options,
                        open: c.open.min(options),
                    };
                }
            }
            None => {
                let afford = !preempting || self.preemptions < self.level;
                let open = if afford { options } else { 1 };
                if !afford && self.level < self.bound {
                    self.defer(options);
                }
                self.path.push(Choice {
                    taken: 0,
                    options,
                    open,
                });
            }
        }
        let taken = self.path[self.cursor].taken;
        self.cursor += 1;
        if preempting && taken > 0 {
            self.preemptions += 1;
        }
        taken
    }

    /// Keeps each switch at the new point `options` as a root of the next level.
    fn defer(&mut self, options: usize) {
        for taken in 1..options {
            if self.schedules + self.next.len() >= self.limit {
                // More roots than schedules the limit allows: they would not all run.
                self.overflow = true;
                return;
            }
            let mut root = self.path.clone();
            root.push(Choice {
                taken,
                options,
                open: options,
            });
            self.next.push(root);
        }
    }

    /// The most schedules it runs.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// Whether the limit ended the exploration (the schedules after it are sampled), or
    /// would have.
    pub(crate) fn over_limit(&self) -> bool {
        self.overflow || (!self.done && self.schedules >= self.limit)
    }

    /// What the exploration came to.
    pub(crate) fn explored(&self) -> Explored {
        // A root left out for the limit makes the end no proof, even if every kept one ran.
        let end = if self.diverged {
            End::NotDeterministic
        } else if self.deep {
            End::TooLong
        } else if self.over_limit() {
            End::Limit
        } else if self.done {
            End::Exhaustive
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
            // Going on first; a switch is a preemption.
            Some(c) => (std::iter::once(c).chain(others).collect(), true),
            // The thread blocked or ended: any runnable thread, at no cost.
            None => (runnable.to_vec(), false),
        };
        options[ex.choose(options.len(), preempting)]
    }

    fn pick(&mut self, n: usize) -> usize {
        lock(&self.explorer).choose(n, false)
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
        while lock(&explorer).begin(0) {
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

    /// The preemptions of `order`, a schedule of two threads of 3 steps: the switches while
    /// the thread left had steps to go.
    fn preemptions(order: &[usize]) -> usize {
        let mut done = [0; 2];
        let mut n = 0;
        for w in order.windows(2) {
            done[w[0]] += 1;
            if w[0] != w[1] && done[w[0]] < 3 {
                n += 1;
            }
        }
        n
    }

    #[test]
    fn the_bound_counts_switches_away_from_a_thread_that_could_go_on() {
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
    fn schedules_with_fewer_preemptions_run_first() {
        let (schedules, _) = explore(2, 3, 2);
        let counts: Vec<usize> = schedules.iter().map(|s| preemptions(s)).collect();
        assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
        assert_eq!(counts.first(), Some(&0));
        assert_eq!(counts.last(), Some(&2));
    }

    #[test]
    fn the_same_test_explores_the_same_schedules_in_the_same_order() {
        assert_eq!(explore(3, 2, 2).0, explore(3, 2, 2).0);
    }

    #[test]
    fn the_limit_ends_an_exploration_without_proof() {
        let explorer = Arc::new(Mutex::new(Explorer::new(2, 3)));
        let mut begun = 0;
        while lock(&explorer).begin(0) {
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
        assert!(lock(&explorer).begin(0));
        let mut dfs = Dfs::new(explorer.clone());
        assert_eq!(dfs.next(&[0, 1], None, false), 0);
        assert!(lock(&explorer).begin(0));
        let mut dfs = Dfs::new(explorer.clone());
        // The same first choice, now with three threads runnable.
        assert_eq!(dfs.next(&[0, 1, 2], None, false), 1);
        while lock(&explorer).begin(0) {
            let mut dfs = Dfs::new(explorer.clone());
            dfs.next(&[0, 1, 2], None, false);
        }
        assert_eq!(lock(&explorer).explored().end, End::NotDeterministic);
    }

    #[test]
    fn points_found_futile_start_the_exploration_again_under_the_points_left() {
        let explorer = Arc::new(Mutex::new(Explorer::new(2, usize::MAX)));
        // Three points with two runnable threads; then a point is found futile and the
        // runs meet two: the old tree is not the test's any more.
        assert!(lock(&explorer).begin(0));
        let mut dfs = Dfs::new(explorer.clone());
        for _ in 0..3 {
            dfs.next(&[0, 1], None, false);
        }
        let mut runs = 0;
        while lock(&explorer).begin(1) {
            runs += 1;
            let mut dfs = Dfs::new(explorer.clone());
            for _ in 0..2 {
                dfs.next(&[0, 1], None, false);
            }
        }
        assert_eq!(runs, 4, "every schedule of the two points left, once");
        let explored = lock(&explorer).explored();
        assert_eq!(explored.end, End::Exhaustive);
        assert_eq!(explored.schedules, 5, "the run before the restart counts");
    }

    #[test]
    fn yields_and_notifications_are_free_choices() {
        let explorer = Arc::new(Mutex::new(Explorer::new(0, usize::MAX)));
        let mut seen = Vec::new();
        while lock(&explorer).begin(0) {
            let mut dfs = Dfs::new(explorer.clone());
            // Thread 0 yields: 1 or 2 runs, never 0 again; then a notify_one among 2.
            seen.push((dfs.next(&[0, 1, 2], Some(0), true), dfs.pick(2)));
        }
        assert_eq!(seen, [(1, 0), (1, 1), (2, 0), (2, 1)]);
    }

    #[test]
    fn a_schedule_past_the_choices_it_may_branch_runs_round_robin_and_is_no_proof() {
        let explorer = Arc::new(Mutex::new(Explorer::new(2, usize::MAX)));
        assert!(lock(&explorer).begin(0));
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
