//! The engine behind [`run`]: while a gated test runs, the hooks (named points, statement
//! points, `sync` operations, thread ends) report where each thread is; a thread at a closed
//! gate waits on a condition variable; a watchdog finds gate deadlocks.

use std::cell::Cell;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use super::loc::{Position, Target};
use super::outcome::{GateDeadlock, ThreadPanic, Waiting};
use super::{Cond, Gate, GateKind, Loc, Rule, Schedule, SimpleGate, SyncOp};
use crate::lock::{lock, read, write};
use crate::os::current_tid;
use crate::panics;
use crate::point::{Aborted, PointKind, StatementPoint};

/// True while a gated test runs: the hooks' fast path.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// The engine of the gated test that runs.
static ENGINE: RwLock<Option<Arc<Engine>>> = RwLock::new(None);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// This thread's index in the engine with that id.
    static ME: Cell<Option<(u64, usize)>> = const { Cell::new(None) };
    /// The method of the last statement point this thread passed.
    static METHOD: Cell<Option<&'static str>> = const { Cell::new(None) };
    /// Set while this thread evaluates a user predicate: its own points are not events.
    static EVALUATING: Cell<bool> = const { Cell::new(false) };
    /// Marks a thread that joined the test by reaching a location as ended when it exits.
    static EXIT: ExitGuard = const { ExitGuard };
}

/// How often a waiting thread re-checks predicates over user state.
const POLL: Duration = Duration::from_millis(1);
/// How often the watchdog looks.
pub(super) const WATCH: Duration = Duration::from_millis(2);

/// Whether a gated test runs (one relaxed load).
#[inline]
pub(crate) fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

/// Hook: a statement point, outside controlled runs.
pub(crate) fn statement(p: &'static StatementPoint) {
    let _ = METHOD.try_with(|m| m.set(Some(p.method)));
    arrive(Position::Statement(p));
}

/// Hook: a `sync` operation at `at`, outside controlled runs.
pub(crate) fn sync_op(op: PointKind, at: &'static Location<'static>) {
    if let Some(op) = SyncOp::of(op) {
        let method = METHOD.try_with(Cell::get).ok().flatten();
        arrive(Position::Sync { op, at, method });
    }
}

/// Hook: a named point (`point!`).
pub(crate) fn named_point(name: &'static str) {
    if active() {
        arrive(Position::Point(name));
    }
}

/// Wakes the waiting threads to re-check (a simple gate was opened).
pub(crate) fn wake() {
    if let Some(e) = engine() {
        let mut st = e.state();
        st.events += 1;
        e.cv.notify_all();
    }
}

pub(super) fn engine() -> Option<Arc<Engine>> {
    if !active() {
        return None;
    }
    read(&ENGINE).clone()
}

/// Makes `e` the engine the hooks report to.
pub(super) fn activate(e: &Arc<Engine>) {
    *write(&ENGINE) = Some(Arc::clone(e));
    ACTIVE.store(true, Ordering::SeqCst);
}

/// No gated test runs any more.
pub(super) fn deactivate() {
    ACTIVE.store(false, Ordering::SeqCst);
    *write(&ENGINE) = None;
}

fn arrive(site: Position) {
    if EVALUATING.try_with(Cell::get).unwrap_or(true) {
        return;
    }
    if let Some(e) = engine() {
        if e.interest.wants(&site) {
            e.arrive(site);
        }
    }
}

/// What the locations of a schedule can match: sites outside it are not reported, so a
/// point in a hot loop costs little while a gated test runs.
#[derive(Default)]
struct Interest {
    points: Vec<String>,
    /// Methods of statement locations.
    methods: Vec<String>,
    ops: Vec<SyncOp>,
}

impl Interest {
    fn of(locs: &[Loc]) -> Interest {
        let mut i = Interest::default();
        for l in locs {
            match &l.target {
                Target::Point(p) => i.points.push(p.clone()),
                Target::Statement { method, .. } => i.methods.push(method.clone()),
                Target::Sync { op, .. } => i.ops.push(*op),
                Target::End => {}
            }
        }
        i
    }

    fn wants(&self, site: &Position) -> bool {
        match site {
            Position::Point(p) => self.points.iter().any(|x| x == p),
            Position::Statement(s) => self.methods.iter().any(|m| m == s.method),
            Position::Sync { op, .. } => self.ops.contains(op),
            Position::End => true,
        }
    }
}

pub(super) struct Thread {
    pub(super) name: String,
    pub(super) tid: u64,
    pub(super) live: bool,
    pub(super) waiting: Option<Waiting>,
}

pub(super) struct GateState {
    pub(super) threads: Vec<Thread>,
    /// `reached[loc][thread]`: arrivals of the thread at the location.
    pub(super) reached: Vec<Vec<usize>>,
    /// `passed[loc][thread]`: arrivals let through.
    pub(super) passed: Vec<Vec<usize>>,
    /// Bumped on every arrival, pass, opening and end.
    pub(super) events: u64,
    pub(super) panics: Vec<ThreadPanic>,
    pub(super) deadlock: Option<GateDeadlock>,
}

pub(super) struct Engine {
    pub(super) id: u64,
    pub(super) rules: Vec<Rule>,
    pub(super) openers: Vec<(Loc, SimpleGate)>,
    /// Every location the rules, openers and conditions name, once each.
    pub(super) locs: Vec<Loc>,
    /// The index in `locs` of each rule's location, then of each opener's.
    pub(super) rule_at: Vec<usize>,
    pub(super) opener_at: Vec<usize>,
    interest: Interest,
    pub(super) settle: Duration,
    pub(super) timeout: Duration,
    pub(super) st: Mutex<GateState>,
    pub(super) cv: Condvar,
    pub(super) abort: AtomicBool,
    /// The watchdog thread, woken at a run's first wait.
    watchdog: &'static std::thread::Thread,
}

/// A predicate of a condition, evaluated outside the engine's lock.
type Predicate = Arc<dyn Fn() -> bool + Send + Sync>;

impl Engine {
    /// The engine of a run of `schedule`, watched by `watchdog`.
    pub(super) fn new(schedule: Schedule, watchdog: &'static std::thread::Thread) -> Engine {
        let mut locs: Vec<Loc> = Vec::new();
        let mut add = |l: &Loc| {
            if !locs.contains(l) {
                locs.push(l.clone());
            }
        };
        for r in &schedule.rules {
            add(&r.at);
            gate_locs(&r.gate, &mut add);
        }
        for (l, _) in &schedule.openers {
            add(l);
        }
        let n = locs.len();
        let interest = Interest::of(&locs);
        let index = |l: &Loc| locs.iter().position(|x| x == l).expect("added above");
        let rule_at = schedule.rules.iter().map(|r| index(&r.at)).collect();
        let opener_at = schedule.openers.iter().map(|(l, _)| index(l)).collect();
        Engine {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            rules: schedule.rules,
            openers: schedule.openers,
            locs,
            rule_at,
            opener_at,
            interest,
            settle: schedule.settle,
            timeout: schedule.timeout,
            st: Mutex::new(GateState {
                threads: Vec::new(),
                reached: vec![Vec::new(); n],
                passed: vec![Vec::new(); n],
                events: 0,
                panics: Vec::new(),
                deadlock: None,
            }),
            cv: Condvar::new(),
            abort: AtomicBool::new(false),
            watchdog,
        }
    }

    pub(super) fn state(&self) -> MutexGuard<'_, GateState> {
        lock(&self.st)
    }

    /// Adds a live thread; returns its index.
    pub(super) fn add_thread(&self, st: &mut GateState, name: String, tid: u64) -> usize {
        st.threads.push(Thread {
            name,
            tid,
            live: true,
            waiting: None,
        });
        for v in st.reached.iter_mut().chain(st.passed.iter_mut()) {
            v.push(0);
        }
        st.threads.len() - 1
    }

    /// This thread's index, registering a thread that reaches a location for the first time.
    fn me(&self, st: &mut GateState) -> usize {
        if let Some((id, i)) = ME.with(Cell::get) {
            if id == self.id {
                return i;
            }
        }
        let name = std::thread::current().name().map_or_else(
            || format!("thread {}", st.threads.len() + 1),
            str::to_string,
        );
        let i = self.add_thread(st, name, 0);
        ME.with(|m| m.set(Some((self.id, i))));
        // Registers the destructor that marks the thread ended.
        let _ = EXIT.try_with(|_| ());
        i
    }

    /// Takes slot `i` (reserved by [`Scope::spawn`]) for the calling thread.
    pub(super) fn adopt(&self, i: usize) {
        ME.with(|m| m.set(Some((self.id, i))));
    }

    fn count(counts: &[Vec<usize>], li: usize, nth: Option<usize>) -> bool {
        let need = nth.unwrap_or(1);
        counts[li].iter().any(|&c| c >= need)
    }

    fn loc_index(&self, l: &Loc) -> usize {
        self.locs
            .iter()
            .position(|x| x == l)
            .expect("every named location is indexed")
    }

    fn eval(&self, c: &Cond, st: &GateState, values: &[(usize, bool)]) -> bool {
        match c {
            Cond::Reached(l) => Self::count(&st.reached, self.loc_index(l), l.nth),
            Cond::Passed(l) => Self::count(&st.passed, self.loc_index(l), l.nth),
            Cond::Open(g) => self.is_open(g, st, values),
            Cond::When(_, p) => {
                let key = Arc::as_ptr(p) as *const () as usize;
                values.iter().any(|&(k, v)| k == key && v)
            }
            Cond::All(v) => v.iter().all(|c| self.eval(c, st, values)),
            Cond::Any(v) => v.iter().any(|c| self.eval(c, st, values)),
        }
    }

    fn is_open(&self, g: &Gate, st: &GateState, values: &[(usize, bool)]) -> bool {
        match g.kind() {
            GateKind::Simple(open) => open.load(Ordering::SeqCst),
            GateKind::Barrier { n, arrived } => arrived.load(Ordering::SeqCst) >= *n,
            GateKind::When(c) => self.eval(c, st, values),
        }
    }

    fn arrive(&self, site: Position) {
        let mut st = self.state();
        let me = self.me(&mut st);
        if !st.threads[me].live {
            return;
        }
        let name = st.threads[me].name.clone();
        let mut here = Vec::new();
        for (li, l) in self.locs.iter().enumerate() {
            if l.matches(&site, &name) {
                st.reached[li][me] += 1;
                here.push(li);
            }
        }
        st.events += 1;
        // At location `li` on the arrival its `nth` names (any arrival without one).
        let due =
            |st: &GateState, li: usize| self.locs[li].nth.map_or(true, |n| st.reached[li][me] == n);
        for ((_, g), &li) in self.openers.iter().zip(&self.opener_at) {
            if here.contains(&li) && due(&st, li) {
                if let GateKind::Simple(open) = g.0.kind() {
                    open.store(true, Ordering::SeqCst);
                }
            }
        }
        let gates: Vec<&Gate> = self
            .rules
            .iter()
            .zip(&self.rule_at)
            .filter(|&(_, &li)| here.contains(&li) && due(&st, li))
            .map(|(r, _)| &r.gate)
            .collect();
        for g in &gates {
            if let GateKind::Barrier { arrived, .. } = g.kind() {
                arrived.fetch_add(1, Ordering::SeqCst);
            }
        }
        self.cv.notify_all();
        let mut predicates = Vec::new();
        for g in &gates {
            gate_predicates(g, &mut predicates);
        }
        let mut waited = false;
        loop {
            if self.abort.load(Ordering::SeqCst) {
                st.threads[me].waiting = None;
                drop(st);
                std::panic::resume_unwind(Box::new(Aborted));
            }
            let values = if predicates.is_empty() {
                Vec::new()
            } else {
                drop(st);
                let values = evaluate(&predicates);
                st = self.state();
                values
            };
            let Some(closed) = gates.iter().find(|g| !self.is_open(g, &st, &values)) else {
                break;
            };
            if st.threads[me].waiting.is_none() {
                st.threads[me].waiting = Some(Waiting {
                    thread: name.clone(),
                    gate: closed.name().to_string(),
                    at: site.to_string(),
                });
            }
            if !waited {
                // Only a waiting thread can be part of a gate deadlock: the watchdog looks
                // from the first wait of a run on, and needs the waiting threads' ids.
                if st.threads[me].tid == 0 {
                    st.threads[me].tid = current_tid();
                }
                self.watchdog.unpark();
            }
            waited = true;
            st = self
                .cv
                .wait_timeout(st, POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        if waited {
            st.threads[me].waiting = None;
        }
        for li in here {
            st.passed[li][me] += 1;
        }
        st.events += 1;
        self.cv.notify_all();
    }

    /// The calling thread's body ended: the `end` location, then the thread leaves the test.
    pub(super) fn end_current(&self) {
        self.arrive(Position::End);
        self.leave_current();
    }

    pub(super) fn leave_current(&self) {
        let mut st = self.state();
        if let Some((id, i)) = ME.with(Cell::get) {
            if id == self.id {
                st.threads[i].live = false;
                st.threads[i].waiting = None;
                st.events += 1;
                self.cv.notify_all();
            }
        }
    }

    pub(super) fn record(&self, thread: &str, p: panics::PanicRecord) {
        if !p.aborted {
            self.state().panics.push(ThreadPanic {
                thread: thread.to_string(),
                message: p.message,
                location: p.location,
            });
        }
    }
}

fn evaluate(predicates: &[Predicate]) -> Vec<(usize, bool)> {
    EVALUATING.with(|e| e.set(true));
    let values = predicates
        .iter()
        .map(|p| (Arc::as_ptr(p) as *const () as usize, p()))
        .collect();
    EVALUATING.with(|e| e.set(false));
    values
}

fn gate_locs(g: &Gate, add: &mut impl FnMut(&Loc)) {
    if let GateKind::When(c) = g.kind() {
        cond_locs(c, add);
    }
}

fn cond_locs(c: &Cond, add: &mut impl FnMut(&Loc)) {
    match c {
        Cond::Reached(l) | Cond::Passed(l) => add(l),
        Cond::Open(g) => gate_locs(g, add),
        Cond::When(..) => {}
        Cond::All(v) | Cond::Any(v) => v.iter().for_each(|c| cond_locs(c, add)),
    }
}

fn gate_predicates(g: &Gate, out: &mut Vec<Predicate>) {
    if let GateKind::When(c) = g.kind() {
        cond_predicates(c, out);
    }
}

fn cond_predicates(c: &Cond, out: &mut Vec<Predicate>) {
    match c {
        Cond::When(_, p) => out.push(p.clone()),
        Cond::Open(g) => gate_predicates(g, out),
        Cond::All(v) | Cond::Any(v) => v.iter().for_each(|c| cond_predicates(c, out)),
        Cond::Reached(_) | Cond::Passed(_) => {}
    }
}

struct ExitGuard;

impl Drop for ExitGuard {
    fn drop(&mut self) {
        if let Some(e) = engine() {
            e.leave_current();
        }
    }
}
