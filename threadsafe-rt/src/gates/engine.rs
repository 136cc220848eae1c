//! The engine behind [`run`]: while a gated test runs, the hooks (named points, statement
//! points, `sync` operations, thread ends) report where each thread is; a thread at a closed
//! gate waits on a condition variable; a watchdog finds gate deadlocks.

use std::cell::Cell;
use std::fmt;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};
use std::time::{Duration, Instant};

use super::loc::{Site, Target};
use super::{Cond, Gate, GateKind, Loc, Rule, Schedule, SimpleGate, SyncOp};
use crate::lock::{lock, read, write};
use crate::os::{current_tid, others_running};
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
const WATCH: Duration = Duration::from_millis(2);

/// Whether a gated test runs (one relaxed load).
#[inline]
pub(crate) fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

/// Hook: a statement point, outside controlled runs.
pub(crate) fn statement(p: &'static StatementPoint) {
    let _ = METHOD.try_with(|m| m.set(Some(p.method)));
    arrive(Site::Statement(p));
}

/// Hook: a `sync` operation at `at`, outside controlled runs.
pub(crate) fn sync_op(op: PointKind, at: &'static Location<'static>) {
    if let Some(op) = SyncOp::of(op) {
        let method = METHOD.try_with(Cell::get).ok().flatten();
        arrive(Site::Sync { op, at, method });
    }
}

/// Hook: a named point (`point!`).
pub(crate) fn named_point(name: &'static str) {
    if active() {
        arrive(Site::Point(name));
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

fn engine() -> Option<Arc<Engine>> {
    if !active() {
        return None;
    }
    read(&ENGINE).clone()
}

fn set_engine(e: Option<Arc<Engine>>) {
    *write(&ENGINE) = e;
}

fn arrive(site: Site) {
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

    fn wants(&self, site: &Site) -> bool {
        match site {
            Site::Point(p) => self.points.iter().any(|x| x == p),
            Site::Statement(s) => self.methods.iter().any(|m| m == s.method),
            Site::Sync { op, .. } => self.ops.contains(op),
            Site::End => true,
        }
    }
}

/// Which thread waits at which gate, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// The thread's name.
    pub thread: String,
    /// The gate's name.
    pub gate: String,
    /// Where the thread stands, e.g. "`append` at src/buf.rs:12".
    pub at: String,
}

/// A deadlock of a gated test: every thread waits at a gate that cannot open, or waits
/// for a thread that is blocked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateDeadlock {
    /// The threads at closed gates.
    pub waiting: Vec<Waiting>,
    /// The other threads of the test that had not ended: blocked outside the gates (on a
    /// lock a gated thread holds, say).
    pub blocked: Vec<String>,
    /// How long nothing had happened when it was declared.
    pub quiet_for: Duration,
}

impl fmt::Display for GateDeadlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "gate deadlock: nothing happened for {:?}, and no gate can open",
            self.quiet_for
        )?;
        for w in &self.waiting {
            writeln!(
                f,
                "  thread `{}` waits at {} for gate `{}`",
                w.thread, w.at, w.gate
            )?;
        }
        for b in &self.blocked {
            writeln!(f, "  thread `{b}` is blocked outside the gates")?;
        }
        Ok(())
    }
}

/// A panic of one of the test's threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadPanic {
    /// The thread's name (`main` for the body of [`run`]).
    pub thread: String,
    /// The panic message.
    pub message: String,
    /// `file:line:col` of the panic.
    pub location: String,
}

/// What a gated test did: the panics of its threads, in the order they happened, and the
/// gate deadlock that ended it, if any.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Outcome {
    /// The threads' panics (not the unwinding of threads released from a deadlock).
    pub panics: Vec<ThreadPanic>,
    /// The gate deadlock, if the gates stopped the test.
    pub deadlock: Option<GateDeadlock>,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
}

impl Outcome {
    /// No panic and no deadlock.
    pub fn is_ok(&self) -> bool {
        self.panics.is_empty() && self.deadlock.is_none()
    }

    /// Panics with the outcome if a thread panicked or the gates deadlocked.
    #[track_caller]
    pub fn unwrap(&self) {
        assert!(self.is_ok(), "{self}");
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_ok() {
            return write!(f, "gated test passed in {:?}", self.elapsed);
        }
        writeln!(f, "gated test failed after {:?}", self.elapsed)?;
        for p in &self.panics {
            writeln!(
                f,
                "  thread `{}` panicked at {}: {}",
                p.thread, p.location, p.message
            )?;
        }
        if let Some(d) = &self.deadlock {
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

struct Thread {
    name: String,
    tid: u64,
    live: bool,
    waiting: Option<Waiting>,
}

struct State {
    threads: Vec<Thread>,
    /// `reached[loc][thread]`: arrivals of the thread at the location.
    reached: Vec<Vec<usize>>,
    /// `passed[loc][thread]`: arrivals let through.
    passed: Vec<Vec<usize>>,
    /// Bumped on every arrival, pass, opening and end.
    events: u64,
    panics: Vec<ThreadPanic>,
    deadlock: Option<GateDeadlock>,
}

struct Engine {
    id: u64,
    rules: Vec<Rule>,
    openers: Vec<(Loc, SimpleGate)>,
    /// Every location the rules, openers and conditions name, once each.
    locs: Vec<Loc>,
    /// The index in `locs` of each rule's location, then of each opener's.
    rule_at: Vec<usize>,
    opener_at: Vec<usize>,
    interest: Interest,
    settle: Duration,
    timeout: Duration,
    st: Mutex<State>,
    cv: Condvar,
    abort: AtomicBool,
}

/// A predicate of a condition, evaluated outside the engine's lock.
type Predicate = Arc<dyn Fn() -> bool + Send + Sync>;

impl Engine {
    fn new(schedule: Schedule) -> Engine {
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
            st: Mutex::new(State {
                threads: Vec::new(),
                reached: vec![Vec::new(); n],
                passed: vec![Vec::new(); n],
                events: 0,
                panics: Vec::new(),
                deadlock: None,
            }),
            cv: Condvar::new(),
            abort: AtomicBool::new(false),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.st)
    }

    /// Adds a live thread; returns its index.
    fn add_thread(&self, st: &mut State, name: String, tid: u64) -> usize {
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
    fn me(&self, st: &mut State) -> usize {
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
    fn adopt(&self, i: usize) {
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

    fn eval(&self, c: &Cond, st: &State, values: &[(usize, bool)]) -> bool {
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

    fn is_open(&self, g: &Gate, st: &State, values: &[(usize, bool)]) -> bool {
        match g.kind() {
            GateKind::Simple(open) => open.load(Ordering::SeqCst),
            GateKind::Barrier { n, arrived } => arrived.load(Ordering::SeqCst) >= *n,
            GateKind::When(c) => self.eval(c, st, values),
        }
    }

    fn arrive(&self, site: Site) {
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
            |st: &State, li: usize| self.locs[li].nth.map_or(true, |n| st.reached[li][me] == n);
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
                watchdog().unpark();
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
    fn end_current(&self) {
        self.arrive(Site::End);
        self.leave_current();
    }

    fn leave_current(&self) {
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

    fn record(&self, thread: &str, p: panics::PanicRecord) {
        if !p.aborted {
            self.state().panics.push(ThreadPanic {
                thread: thread.to_string(),
                message: p.message,
                location: p.location,
            });
        }
    }

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
fn watchdog() -> &'static std::thread::Thread {
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

/// The threads of a gated test; see [`run`].
pub struct Scope<'scope, 'env: 'scope> {
    inner: &'scope std::thread::Scope<'scope, 'env>,
    engine: Arc<Engine>,
}

impl<'scope> Scope<'scope, '_> {
    /// Starts a thread named `name` that runs `body`; [`run`] joins it. Locations can name
    /// the thread (`"worker: fn append"`); its panic is recorded in the [`Outcome`].
    ///
    /// # Panics
    /// If the operating system cannot start a thread.
    pub fn spawn<F>(&self, name: &str, body: F)
    where
        F: FnOnce() + Send + 'scope,
    {
        let engine = Arc::clone(&self.engine);
        let slot = {
            let mut st = engine.state();
            engine.add_thread(&mut st, name.to_string(), 0)
        };
        let name = name.to_string();
        std::thread::Builder::new()
            .name(name.clone())
            .spawn_scoped(self.inner, move || {
                engine.adopt(slot);
                if let Err(p) = panics::catch(body) {
                    engine.record(&name, p);
                }
                if let Err(p) = panics::catch(|| engine.end_current()) {
                    engine.record(&name, p);
                }
                engine.leave_current();
            })
            .expect("the OS starts a thread for the gated test");
    }
}

/// Runs a gated test: `body` runs on the calling thread as thread `main` and starts the
/// other threads with [`Scope::spawn`]; the gates of `schedule` hold threads as they reach
/// their locations. Returns when every thread has ended, with their panics, or with the
/// gate deadlock that stopped them (see the [module docs](super)).
///
/// Gated tests of one process run one at a time (and never beside a
/// [`check`](crate::check)).
///
/// ```
/// use threadsafe_rt::gates::{self, Schedule};
///
/// // A gate that never opens: reported as a deadlock, not a hang.
/// let outcome = gates::run(threadsafe_rt::schedule!("never" -> "main: stuck"), |_| {
///     gates::point("stuck");
/// });
/// let deadlock = outcome.deadlock.expect("reported");
/// assert_eq!(deadlock.waiting[0].thread, "main");
/// assert!(deadlock.waiting[0].gate.contains("until reached `never`"));
/// ```
pub fn run<'env, F>(schedule: Schedule, body: F) -> Outcome
where
    F: for<'scope> FnOnce(&Scope<'scope, 'env>),
{
    let _one_at_a_time = crate::exclusive::one_at_a_time();
    let engine = Arc::new(Engine::new(schedule));
    set_engine(Some(Arc::clone(&engine)));
    ACTIVE.store(true, Ordering::SeqCst);
    let start = Instant::now();
    std::thread::scope(|s| {
        let scope = Scope {
            inner: s,
            engine: Arc::clone(&engine),
        };
        {
            let mut st = engine.state();
            let main = engine.add_thread(&mut st, "main".to_string(), 0);
            drop(st);
            engine.adopt(main);
        }
        if let Err(p) = panics::catch(|| body(&scope)) {
            engine.record("main", p);
        }
        if let Err(p) = panics::catch(|| engine.end_current()) {
            engine.record("main", p);
        }
        engine.leave_current();
    });
    let elapsed = start.elapsed();
    ACTIVE.store(false, Ordering::SeqCst);
    set_engine(None);
    let mut st = engine.state();
    Outcome {
        panics: std::mem::take(&mut st.panics),
        deadlock: st.deadlock.take(),
        elapsed,
    }
}
