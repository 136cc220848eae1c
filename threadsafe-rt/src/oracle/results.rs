//! The results oracle: which results the linearizations of one test give, learned as they
//! are needed and kept for the test's lifetime, so that judging an execution is a lookup.
//!
//! [`Sequential::run_returned_orders`] first runs, once each and all in one hand-over, the
//! orders in which the calls of a batch's distinct results returned: most results of a
//! correct type are known after it. [`Sequential::explains`] looks the results up among
//! those known; when they are not there it runs their returned order again, then more
//! linearizations, a few at a time, each [`REPEATS`] times on fresh
//! instances, until one gives them or none is left. A value that differs between the runs
//! of one linearization (hash order, a clock, an address, a random token) is not compared
//! from then on, at that call. Before a violation is reported, the confirmation
//! ([`Sequential::start_confirm`]) runs every linearization [`CONFIRM_RUNS`] more times
//! looking for the results, a fifth of them with pauses before the calls (a result that
//! depends on the time taken varies then). The paced runs, which mostly sleep, start first,
//! spread over sets of workers (at most [`PACED_WORKERS`] threads) that go at once, so their
//! pauses overlap, and go on while the unpaced runs go on the first lane's workers, and
//! after them, while the caller uses those workers for something else, until
//! [`Sequential::finish_confirm`] waits for them.
//!
//! With more linearizations than [`MAX_ENUMERATED`] (4 threads of 3 calls have 369,600),
//! the search builds them call by call instead, depth first: a partial order is extended
//! only while the results of its calls so far are those of the execution, so orders that
//! already disagree are never completed (Wing & Gong's search, pruned by results; without
//! a model of the state to compare, Lowe's cache has nothing to key on). A search that
//! would need more than [`MAX_SEARCH_RUNS`] runs, or runs past the check's deadline, gives
//! up: the results are then not judged (never reported), and the report counts them.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::orders::{count_orders, orders_of};
use crate::exec::{run_blocking, ConcRunner, Pace, Res, Results, SeqRunner, Site, Started};
use crate::subject::Description;
use crate::testcase::{entry, TestCase};

/// Runs of each linearization, on fresh instances, to see which values vary.
pub(crate) const REPEATS: usize = 2;

/// Runs of each linearization before a violation is reported (fewer when there are more
/// than [`CONFIRM_BUDGET`] / 20 linearizations, at least [`REPEATS`]).
pub(crate) const CONFIRM_RUNS: usize = 20;

/// Runs the confirmation takes at most, over all linearizations.
pub(crate) const CONFIRM_BUDGET: usize = 2_000;

/// Linearizations enumerated at most; beyond, the pruned search.
pub(crate) const MAX_ENUMERATED: u64 = 720;

/// Runs (partial or whole orders) one search may take.
pub(crate) const MAX_SEARCH_RUNS: usize = 20_000;

/// Orders run at once (one hand-over of the workers).
const CHUNK: usize = 2;

/// Workers the confirmation's paced runs are spread over, at most: as many lanes (sets of
/// one worker per thread of the test, each running its share of the runs) as fit. Those
/// runs mostly sleep, so lanes cost threads, not cores.
const PACED_WORKERS: usize = 64;

/// Where a confirmation ([`Sequential::start_confirm`]) stands once its unpaced runs are
/// through.
pub(crate) enum Confirmation<T: 'static> {
    /// Decided without waiting: a run gave the results (`Yes`), or the search decided.
    Decided(Explained),
    /// No unpaced run gave the results; the paced runs are still going.
    Pacing(Paced<T>),
}

/// A confirmation's paced runs, going on their own workers.
pub(crate) struct Paced<T: 'static> {
    started: Started<T>,
    /// Each order run, with its number of runs (as [`runs_of`] lists them).
    each: Vec<(Vec<usize>, usize)>,
}

impl<T: Send + Sync + 'static> Paced<T> {
    /// Whether every paced run is through: [`Sequential::finish_confirm`] then does not wait.
    pub(crate) fn is_through(&self) -> bool {
        self.started.is_through()
    }
}

/// What the oracle says of some results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Explained {
    /// A linearization gives them.
    Yes,
    /// No linearization gives them: every one was run.
    No,
    /// Too many linearizations to decide within the search's bound: not judged.
    Unknown,
}

/// The results of one test's linearizations, as far as they were needed.
pub(crate) struct Sequential {
    test: Arc<TestCase>,
    /// Every linearization, in the order they are tried (enumerated only when few).
    orders: Option<Vec<Vec<usize>>>,
    /// How many of `orders` have run.
    tried: usize,
    /// Orders run because an execution's calls returned in that order, with how many
    /// times each ran.
    hinted: HashMap<Vec<usize>, usize>,
    /// The distinct results seen, each with an order that gave it.
    known: Vec<(Results, Vec<usize>)>,
    /// The first results of each order run, which later runs of it are compared with.
    first: HashMap<Vec<usize>, Results>,
    /// Calls whose value differed between runs of one linearization.
    varying: HashSet<Site>,
    /// Linearization runs made (whole or partial orders).
    pub(crate) runs: usize,
    /// Orders that gave no results run one call after the other (a call in them waits for
    /// a later call of another thread), not yet run with blocking semantics.
    hung: Vec<Vec<usize>>,
    /// Orders run with blocking semantics.
    blocked: HashSet<Vec<usize>>,
    /// The watched worker of the blocking runs, made at the first one.
    blocking: Option<SeqRunner>,
    timeout: Duration,
    deadline: Instant,
}

impl Sequential {
    /// The oracle of `test`, with the calls at `varying` not compared from the start (their
    /// methods' results varied in earlier tests); a run that makes no progress for
    /// `timeout` is given up, and a search that goes on past `deadline` gives up.
    pub(crate) fn new(
        test: Arc<TestCase>,
        varying: HashSet<Site>,
        timeout: Duration,
        deadline: Instant,
    ) -> Self {
        let orders = (count_orders(&test) <= MAX_ENUMERATED).then(|| orders_of(&test));
        Sequential {
            test,
            orders,
            tried: 0,
            hinted: HashMap::new(),
            known: Vec::new(),
            first: HashMap::new(),
            varying,
            runs: 0,
            hung: Vec::new(),
            blocked: HashSet::new(),
            blocking: None,
            timeout,
            deadline,
        }
    }

    /// The number of orders of the test: its linearizations (twice over when it cancels a
    /// call).
    pub(crate) fn count(&self) -> u64 {
        count_orders(&self.test)
    }

    /// The calls whose values are not compared because they varied between runs.
    pub(crate) fn varying(&self) -> &HashSet<Site> {
        &self.varying
    }

    /// The distinct results the linearizations gave, each with an order that gave it.
    pub(crate) fn known(&self) -> &[(Results, Vec<usize>)] {
        &self.known
    }

    /// Whether results the known ones already give `r`.
    fn lookup(&self, r: &Results) -> bool {
        self.known
            .iter()
            .any(|(k, _)| r.same(k, |s| self.varying.contains(&s)))
    }

    /// Whether no linearization gives `r`, by what has run: only once every linearization
    /// has run (none of them gave `r`), so false whenever there are too many to enumerate.
    /// Runs nothing.
    pub(crate) fn rules_out(&self, r: &Results) -> bool {
        self.all_run() && !self.lookup(r)
    }

    /// Whether every linearization has run (at least [`REPEATS`] times).
    fn all_run(&self) -> bool {
        self.orders.as_ref().is_some_and(|o| self.tried >= o.len())
    }

    /// Whether no linearization gives any of `rs` (see [`rules_out`](Self::rules_out)) after
    /// every linearization runs once more now: something outside the calls that moved since
    /// the last runs (a clock past a boundary, a counter shared by all instances) then shows
    /// in them as values that vary, or as the results of `rs`.
    pub(crate) fn rules_out_afresh<T: Send + Sync + 'static>(
        &mut self,
        rs: &[&Results],
        conc: &mut ConcRunner,
        desc: &'static Description<T>,
    ) -> bool {
        if !self.all_run() {
            return false;
        }
        let Some(orders) = self.orders.clone() else {
            return false;
        };
        self.run_orders(&orders, 1, conc, desc);
        rs.iter().all(|r| !self.lookup(r))
    }

    /// Keeps `r`, which `order` gave, unless it is known (varying values aside). A call
    /// left out and the same call made whole are different results, either way round.
    fn keep(&mut self, r: &Results, order: &[usize]) {
        let ignore = |s| self.varying.contains(&s);
        if !self
            .known
            .iter()
            .any(|(k, _)| k.same(r, ignore) && r.same(k, ignore))
        {
            self.known.push((r.clone(), order.to_vec()));
        }
    }

    /// Whether a linearization gives `r`, running more of them as needed.
    pub(crate) fn explains<T: Send + Sync + 'static>(
        &mut self,
        r: &Results,
        conc: &mut ConcRunner,
        desc: &'static Description<T>,
    ) -> Explained {
        if self.lookup(r) {
            return Explained::Yes;
        }
        // The order in which the calls returned explains a correct execution more often
        // than not: it runs first, `REPEATS` times in all, so that a value that varies
        // between its runs is seen. `run_returned_orders` may have made one run of it
        // already (which did not give `r`); the runs left go with the first other orders,
        // in one hand-over, when the others are enumerated.
        let mut hint = Vec::new();
        if !r.returned.is_empty() {
            let ran = self.hinted.get(&r.returned).copied().unwrap_or(0);
            if ran < REPEATS {
                self.hinted.insert(r.returned.clone(), REPEATS);
                hint.push((r.returned.clone(), REPEATS - ran));
            }
        }
        let Some(orders) = self.orders.clone() else {
            if !hint.is_empty() {
                self.run_each(&hint, conc, desc);
                if self.lookup(r) {
                    return Explained::Yes;
                }
            }
            return self.search(r, conc, desc, 1);
        };
        while self.tried < orders.len() || !hint.is_empty() {
            let end = (self.tried + CHUNK).min(orders.len());
            let mut each = std::mem::take(&mut hint);
            each.extend(
                orders[self.tried..end]
                    .iter()
                    .filter(|o| !self.hinted.contains_key(*o))
                    .map(|o| (o.clone(), REPEATS)),
            );
            self.tried = end;
            self.run_each(&each, conc, desc);
            if self.lookup(r) {
                return Explained::Yes;
            }
        }
        self.after_blocking(r, desc)
    }

    /// Whether the orders that hung, run with blocking semantics, give `r`: `Unknown` when
    /// some could not run before the deadline.
    fn after_blocking<T: Send + Sync + 'static>(
        &mut self,
        r: &Results,
        desc: &'static Description<T>,
    ) -> Explained {
        self.run_hung_blocking(desc);
        if self.lookup(r) {
            Explained::Yes
        } else if self.hung.is_empty() {
            Explained::No
        } else {
            Explained::Unknown
        }
    }

    /// Runs the orders that hung one call after the other with blocking semantics (a call
    /// that waits lets the other threads' later calls go on, as lincheck's suspended
    /// operations do), and learns the results of those that complete: a `wait` ordered
    /// before the `notify_waiters` that wakes it returns once it runs.
    fn run_hung_blocking<T: Send + Sync + 'static>(&mut self, desc: &'static Description<T>) {
        let hung = std::mem::take(&mut self.hung);
        for order in hung {
            if Instant::now() >= self.deadline {
                self.hung.push(order);
                continue;
            }
            if !self.blocked.insert(order.clone()) {
                continue;
            }
            let seq = self.blocking.get_or_insert_with(SeqRunner::new);
            let run = run_blocking(desc, &self.test, &order, self.timeout, seq);
            self.runs += 1;
            if let Some(results) = run.and_then(|r| r.results) {
                self.keep(&results, &order);
            }
        }
    }

    /// Runs once each order in which the calls of `results` returned, all at once (one
    /// hand-over of the workers), for the results that the known ones do not give. Most
    /// results of a correct type are then known before [`explains`](Self::explains) is asked:
    /// a run that gives them explains them whatever runs follow, so the second run that
    /// would show a varying value is made only for results still unexplained.
    pub(crate) fn run_returned_orders<'r, T: Send + Sync + 'static>(
        &mut self,
        results: impl IntoIterator<Item = &'r Results>,
        conc: &mut ConcRunner,
        desc: &'static Description<T>,
    ) {
        let mut orders: Vec<Vec<usize>> = Vec::new();
        for r in results {
            if !r.returned.is_empty()
                && !self.hinted.contains_key(&r.returned)
                && !orders.contains(&r.returned)
                && !self.lookup(r)
            {
                orders.push(r.returned.clone());
            }
        }
        if orders.is_empty() {
            return;
        }
        for o in &orders {
            self.hinted.insert(o.clone(), 1);
        }
        self.run_orders(&orders, 1, conc, desc);
    }

    /// The check before a report: every linearization runs [`CONFIRM_RUNS`] more times
    /// (the search, once more per run), looking for `r`. The unpaced runs go at once; the
    /// paced ones, started first, may still be going when they are through: then the
    /// confirmation is [`Pacing`](Confirmation::Pacing), and
    /// [`finish_confirm`](Self::finish_confirm) waits for them. Meanwhile the batch's
    /// workers are free for other runs (the paced runs have workers of their own).
    pub(crate) fn start_confirm<T: Send + Sync + 'static>(
        &mut self,
        r: &Results,
        conc: &mut ConcRunner,
        desc: &'static Description<T>,
    ) -> Confirmation<T> {
        let Some(orders) = self.orders.clone() else {
            return Confirmation::Decided(self.search(r, conc, desc, 3));
        };
        let runs = (CONFIRM_BUDGET / orders.len().max(1)).clamp(REPEATS, CONFIRM_RUNS);
        // A fifth of them with pauses before the calls: a result that depends on the time
        // taken then varies. They mostly sleep: they start first, all at once, spread over
        // lanes beside the unpaced runs' workers, and go on while the unpaced runs go.
        let paced = (runs / 5).max(1);
        let pace = Pace {
            seed: 0,
            lanes: (PACED_WORKERS / self.test.threads.len().max(1)).max(1),
        };
        let each: Vec<(Vec<usize>, usize)> = orders.iter().map(|o| (o.clone(), paced)).collect();
        let started = conc.start_linear_beside(desc, &self.test, &runs_of(&each), pace);
        for chunk in orders.chunks(CHUNK) {
            self.run_orders(chunk, runs - paced, conc, desc);
            if self.lookup(r) {
                conc.cancel_linear(started, self.timeout);
                return Confirmation::Decided(Explained::Yes);
            }
        }
        Confirmation::Pacing(Paced { started, each })
    }

    /// Waits for a confirmation's paced runs: whether one of them gives `r` after all (or an
    /// order that hung, run with blocking semantics).
    pub(crate) fn finish_confirm<T: Send + Sync + 'static>(
        &mut self,
        paced: Paced<T>,
        r: &Results,
        conc: &mut ConcRunner,
        desc: &'static Description<T>,
    ) -> Explained {
        let results = conc.finish_linear(paced.started, self.timeout);
        self.learn_each(&paced.each, results);
        if self.lookup(r) {
            Explained::Yes
        } else {
            self.after_blocking(r, desc)
        }
    }

    /// Runs each of `orders` `repeats` times and learns from the results.
    fn run_orders<T: Send + Sync + 'static>(
        &mut self,
        orders: &[Vec<usize>],
        repeats: usize,
        conc: &mut ConcRunner,
        desc: &'static Description<T>,
    ) {
        let each: Vec<(Vec<usize>, usize)> = orders.iter().map(|o| (o.clone(), repeats)).collect();
        self.run_each(&each, conc, desc);
    }

    /// Runs each order its number of times, all in one hand-over of the workers, and
    /// learns from the results.
    fn run_each<T: Send + Sync + 'static>(
        &mut self,
        each: &[(Vec<usize>, usize)],
        conc: &mut ConcRunner,
        desc: &'static Description<T>,
    ) {
        let runs = runs_of(each);
        let results = conc.run_linear(desc, &self.test, &runs, self.timeout);
        self.learn_each(each, results);
    }

    /// Learns from the results of runs made as [`runs_of`] lists them for `each`.
    fn learn_each(&mut self, each: &[(Vec<usize>, usize)], results: Vec<Option<Results>>) {
        self.runs += results.len();
        let mut results = results.into_iter();
        for (order, times) in each {
            let same_order: Vec<Option<Results>> = results.by_ref().take(*times).collect();
            if same_order.iter().all(Option::is_none)
                && !self.blocked.contains(order)
                && !self.hung.contains(order)
            {
                self.hung.push(order.clone());
            }
            self.learn(order, same_order.iter().flatten());
        }
    }

    /// Takes the results of runs of `order`: values that differ from those of its first
    /// run vary; each distinct result is known.
    fn learn<'r>(&mut self, order: &[usize], runs: impl Iterator<Item = &'r Results>) {
        for r in runs {
            match self.first.get(order) {
                Some(first) if first.same_shape(r) => {
                    let differing = first.differing(r);
                    self.varying.extend(differing);
                }
                Some(_) => {}
                None => {
                    self.first.insert(order.to_vec(), r.clone());
                }
            }
            self.keep(r, order);
        }
    }

    /// Marks the calls at which `r` differs from the nearest results the linearizations
    /// gave as varying: `r` did not come back, so something outside the calls decided
    /// them (a clock crossing a boundary, a reused address).
    pub(crate) fn vary_where_differs(&mut self, r: &Results) {
        let nearest = self
            .known
            .iter()
            .filter(|(k, _)| k.same_shape(r))
            .map(|(k, _)| r.differing(k))
            .filter(|d| d.iter().any(|s| !self.varying.contains(s)))
            .min_by_key(Vec::len);
        if let Some(sites) = nearest {
            self.varying.extend(sites);
        }
    }

    /// The search over partial orders (too many linearizations to enumerate), `passes`
    /// times (each with fresh instances), depth first: a partial order's extensions by one
    /// call of each thread that has calls left run together, and the search goes into each
    /// one whose results so far are those of `r`, in turn; a complete order whose post part
    /// also gives `r`'s explains it. Gives up past [`MAX_SEARCH_RUNS`] runs or the deadline.
    fn search<T: Send + Sync + 'static>(
        &mut self,
        r: &Results,
        conc: &mut ConcRunner,
        desc: &'static Description<T>,
        passes: usize,
    ) -> Explained {
        for _ in 0..passes {
            let mut spent = 0;
            match self.search_from(&[], r, conc, desc, &mut spent) {
                Explained::No => {}
                found => return found,
            }
        }
        Explained::No
    }

    fn search_from<T: Send + Sync + 'static>(
        &mut self,
        partial: &[usize],
        r: &Results,
        conc: &mut ConcRunner,
        desc: &'static Description<T>,
        spent: &mut usize,
    ) -> Explained {
        let lens: Vec<usize> = self.test.threads.iter().map(Vec::len).collect();
        let n = lens.len();
        let total: usize = lens.iter().sum();
        let cancelled = self.test.cancelled();
        let mut next: Vec<Vec<usize>> = Vec::new();
        for (t, &len) in lens.iter().enumerate() {
            let made = partial.iter().filter(|&&e| entry(e, n).0 == t).count();
            if made == len {
                continue;
            }
            // The cancelled call is also left out, as in the enumerated orders.
            let left = cancelled == Some((t, made));
            for e in std::iter::once(t).chain(left.then_some(t + n)) {
                let mut q = partial.to_vec();
                q.push(e);
                next.push(q);
            }
        }
        *spent += next.len();
        if *spent > MAX_SEARCH_RUNS || Instant::now() >= self.deadline {
            return Explained::Unknown;
        }
        let results = conc.run_linear(desc, &self.test, &next, self.timeout);
        self.runs += next.len();
        let mut agreeing = Vec::new();
        for (q, res) in next.into_iter().zip(results) {
            let Some(res) = res else { continue };
            if q.len() == total {
                self.keep(&res, &q);
                if r.same(&res, |s| self.varying.contains(&s)) {
                    return Explained::Yes;
                }
            } else if agrees_so_far(r, &res, &q, &self.varying) {
                agreeing.push(q);
            }
        }
        for q in agreeing {
            match self.search_from(&q, r, conc, desc, spent) {
                Explained::No => {}
                found => return found,
            }
        }
        Explained::No
    }
}

/// Whether the calls that partial order `q` ran gave the results `r` has at the same calls.
fn agrees_so_far(r: &Results, partial: &Results, q: &[usize], varying: &HashSet<Site>) -> bool {
    let n = r.threads.len();
    let mut done = vec![0usize; n];
    for &e in q {
        done[entry(e, n).0] += 1;
    }
    (0..r.threads.len()).all(|t| {
        let want = &r.threads[t];
        let got = &partial.threads[t];
        // A thread that stopped (panicked) early in the partial run stops in `r` too.
        got.len() == done[t].min(want.len())
            && got
                .iter()
                .zip(want)
                .enumerate()
                .all(|(k, (g, w))| Res::agree(w, g, varying.contains(&Site::thread(t, k))))
    })
}

/// The runs of `each` (an order with its number of runs), in one list: each order's runs
/// together, in the order of `each`.
fn runs_of(each: &[(Vec<usize>, usize)]) -> Vec<Vec<usize>> {
    each.iter()
        .flat_map(|(o, times)| std::iter::repeat(o.clone()).take(*times))
        .collect()
}
