use std::panic::Location;
use std::sync::Arc;

use super::*;
use rand_chacha::ChaCha8Rng;

use super::names::{SiteKey, VarKey};
use crate::point::{FieldAccess, StatementPoint, Var};
use crate::sched::testing::run_threads;
use crate::sched::Run;
use crate::strategy::{Guided, RandomWalk};
use crate::sync::atomic::{AtomicUsize, Ordering};

static ITEMS_LOCK: StatementPoint = StatementPoint {
    method: "push",
    file: "src/list.rs",
    line: 10,
    fields: &[FieldAccess {
        field: "items",
        write: true,
    }],
};

static TWO_FIELDS: StatementPoint = StatementPoint {
    method: "move_all",
    file: "src/list.rs",
    line: 20,
    fields: &[
        FieldAccess {
            field: "len",
            write: false,
        },
        FieldAccess {
            field: "items",
            write: true,
        },
    ],
};

fn step(thread: usize, op: PointKind, var: Var, at: Where, held: bool) -> Step {
    Step {
        thread,
        call: 0,
        op,
        obj: 1,
        var,
        at,
        held,
    }
}

#[track_caller]
fn code() -> Where {
    Where::Code(Location::caller())
}

#[test]
fn operations_map_to_reads_and_writes_as_documented() {
    let names = Names::default();
    let var = Some(Location::caller());
    let kind = |op| {
        let mut out = Vec::new();
        names.raw(op, var, code(), &mut out);
        out.first().map(|r| r.kind)
    };
    assert_eq!(kind(PointKind::Lock), Some(Kind::Write));
    assert_eq!(kind(PointKind::Store), Some(Kind::Write));
    assert_eq!(kind(PointKind::ReadModifyWrite), Some(Kind::Write));
    assert_eq!(kind(PointKind::ReadLock), Some(Kind::Read));
    assert_eq!(kind(PointKind::Load), Some(Kind::Read));
    for op in [
        PointKind::Wait,
        PointKind::Notify,
        PointKind::Barrier,
        PointKind::Yield,
    ] {
        assert_eq!(kind(op), None, "{op:?} accesses no variable");
    }
    // A statement: one access per field it names, in order, at the statement.
    let mut out = Vec::new();
    names.raw(
        PointKind::Statement,
        None,
        Where::Statement(&TWO_FIELDS),
        &mut out,
    );
    let got: Vec<(VarKey, Kind)> = out.iter().map(|r| (r.var, r.kind)).collect();
    assert_eq!(
        got,
        [
            (VarKey::Field("len"), Kind::Read),
            (VarKey::Field("items"), Kind::Write)
        ]
    );
    assert!(out
        .iter()
        .all(|r| r.site == SiteKey::Statement("src/list.rs", 20) && r.method == Some("move_all")));
}

#[test]
fn a_field_followed_by_one_primitive_is_that_primitive() {
    let mut names = Names::default();
    let created = Location::caller();
    let lock = Recorded {
        op: PointKind::Lock,
        var: Some(created),
        at: code(),
    };
    // Two fields named: no link.
    names.link(&[
        Recorded {
            op: PointKind::Statement,
            var: None,
            at: Where::Statement(&TWO_FIELDS),
        },
        lock,
    ]);
    assert!(names.linked.is_empty());
    names.link(&[
        Recorded {
            op: PointKind::Statement,
            var: None,
            at: Where::Statement(&ITEMS_LOCK),
        },
        lock,
    ]);
    let prim = VarKey::Created(created.file(), created.line(), created.column());
    assert!(names.linked.contains("items"));
    assert_eq!(names.field_of.get(&prim), Some(&"items"));
    // Its statement-level access is left to the primitive's, which is the field's.
    let mut out = Vec::new();
    names.raw(
        PointKind::Statement,
        None,
        Where::Statement(&TWO_FIELDS),
        &mut out,
    );
    assert_eq!(out.len(), 1, "only `len` is left: {out:?}");
    out.clear();
    names.raw(PointKind::Lock, Some(created), code(), &mut out);
    assert_eq!(out[0].var, VarKey::Field("items"));
    let id = names.var_id(out[0].var);
    assert_eq!(names.var_name(id), "self.items");
}

#[test]
fn a_held_operation_runs_when_its_thread_gets_the_turn_back() {
    let var = Some(Location::caller());
    let (a1, b1, a2) = (code(), code(), code());
    // Thread 0 reaches a1 and is switched away; thread 1 runs b1 at once; thread 0 comes
    // back (its a1 runs now) and reaches a2.
    let trace = [
        step(0, PointKind::Load, var, a1, true),
        step(1, PointKind::Store, var, b1, false),
        step(0, PointKind::Load, var, a2, false),
    ];
    let order: Vec<Where> = in_run_order(&trace).iter().map(|s| s.at).collect();
    assert_eq!(order, [b1, a1, a2]);
    // A thread held at its last step runs it after the others' steps recorded before.
    let trace = [
        step(0, PointKind::Load, var, a1, true),
        step(1, PointKind::Store, var, b1, false),
    ];
    let order: Vec<Where> = in_run_order(&trace).iter().map(|s| s.at).collect();
    assert_eq!(order, [b1, a1]);
}

fn reader(x: &AtomicUsize) -> usize {
    let first = x.load(Ordering::SeqCst);
    first + x.load(Ordering::SeqCst)
}

fn writer(x: &AtomicUsize) {
    x.store(1, Ordering::SeqCst);
}

/// The sequential runs of `reader` (method 0) and `writer` (method 1), recorded.
fn recorded(x: &AtomicUsize) -> Vec<(usize, Vec<Recorded>)> {
    let mut runs = Vec::new();
    crate::hooks::record(true);
    reader(x);
    runs.push((0, crate::hooks::take_recorded()));
    writer(x);
    runs.push((1, crate::hooks::take_recorded()));
    crate::hooks::record(false);
    runs
}

/// A tracker that took the sequential runs of `reader` and `writer`.
fn probed(x: &AtomicUsize) -> Tracker {
    let mut t = Tracker::new(vec![0, 1]);
    t.probed(&Description::<u8>::new("Pair"), &recorded(x));
    t
}

#[test]
fn deferred_reading_reaches_the_same_coverage_at_the_end() {
    let x = Arc::new(AtomicUsize::new(0));
    let mut now = probed(&x);
    let mut later = Tracker::new(vec![0, 1]);
    later.defer_reading();
    let mut capped = Tracker::new(vec![0, 1]);
    capped.defer_reading();
    for seed in 0..10 {
        let trace = run_once(&x, Box::new(RandomWalk::new(seed)));
        now.add_trace(trace.clone());
        later.add_trace(trace.clone());
        capped.add_trace(trace);
    }
    assert!(later.covered.is_empty(), "nothing is read before the end");
    // The sequential runs may come after the executions.
    later.probed(&Description::<u8>::new("Pair"), &recorded(&x));
    later.finish(Duration::from_secs(60));
    let (a, b) = (now.summary(), later.summary());
    assert_eq!((a.covered, a.feasible), (b.covered, b.feasible));
    assert_eq!(
        (a.executions, a.distinct_executions, b.unmatched),
        (b.executions, b.distinct_executions, 0)
    );
    assert!(a.covered > 0);
    // Out of time at once: every execution with new steps is counted as not read.
    capped.probed(&Description::<u8>::new("Pair"), &recorded(&x));
    capped.finish(Duration::ZERO);
    let c = capped.summary();
    assert_eq!(c.covered, 0);
    assert_eq!(c.unmatched, capped.seen_steps.len() as u64);
    assert!(c.to_string().contains("were not read"), "{c}");
}

/// `a:R x, b:W x, a:R x` with reader's two loads: the stale-read pattern.
fn stale_read(t: &Tracker) -> PatternKey {
    t.universe
        .keys_of(PatternId::new(4).expect("pattern 4"))
        .find(|k| k.distinct_sites() == 3)
        .expect("reader's two loads and writer's store make one instance")
}

fn run_once(x: &Arc<AtomicUsize>, strategy: Box<dyn crate::sched::Scheduler>) -> Vec<Step> {
    let run = Run::new(2, strategy);
    let (r, w) = (x.clone(), x.clone());
    let bodies: Vec<Box<dyn FnOnce() + Send>> = vec![
        Box::new(move || {
            reader(&r);
        }),
        Box::new(move || writer(&w)),
    ];
    assert_eq!(run_threads(&run, bodies), [true, true]);
    run.trace()
}

#[test]
fn sequential_runs_give_the_universe_and_the_method_traces() {
    let x = AtomicUsize::new(0);
    let t = probed(&x);
    // One variable, read at 2 sites, written at 1: T_C = 1·2 + 1·2 + 1 + 2·1·2 + 1·1·2
    // + 1·2·1 + 2·1·1 + 1 = 16 (the formula of Definition 1 with |R| = 2, |W| = 1).
    assert_eq!(t.universe.size(), 16);
    assert_eq!(t.traces.len(), 2);
    let s = t.summary();
    assert_eq!((s.covered, s.feasible), (0, 16));
    assert_eq!(s.variables.len(), 1);
    assert!(
        s.variables[0].starts_with("the primitive created at ")
            && s.variables[0].contains("src/coverage/tests.rs:"),
        "{:?}",
        s.variables
    );
    assert_eq!(
        s.universe,
        UniverseSource::SequentialRuns {
            methods_run: 2,
            methods: 2,
            later_sites: 0
        }
    );
}

#[test]
fn algorithm_4_picks_the_methods_that_play_each_role() {
    let x = AtomicUsize::new(0);
    let mut t = probed(&x);
    let key = stale_read(&t);
    let mut rng = <ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
    let plan = t.pattern_plan(&mut rng).expect("something to aim at");
    assert!(plan.target.is_some());
    // The stale read needs reader as `a` and writer as `b`.
    assert_eq!(
        map::role_calls(&key, Role::A, &t.traces),
        Some(vec![0]),
        "reader plays a"
    );
    assert_eq!(map::role_calls(&key, Role::B, &t.traces), Some(vec![1]));
    let targets = t.targets(&[vec![0], vec![1]], None, 64);
    assert!(targets.contains(&key), "{targets:?}");
    // A test of two writers cannot cover it.
    assert!(!t.targets(&[vec![1], vec![1]], None, 64).contains(&key));
}

#[test]
fn algorithm_5_schedules_the_stale_read_in_every_seed() {
    let x = Arc::new(AtomicUsize::new(0));
    let mut guided = probed(&x);
    let key = stale_read(&guided);
    let mut random = probed(&x);
    let mut random_hits = 0;
    for seed in 0..20 {
        let trace = run_once(&x, Box::new(Guided::new(seed, key, guided.names())));
        let before = guided.covered.len();
        guided.add_trace(trace);
        assert!(
            guided.covered.is_covered(&key),
            "seed {seed}: guided run did not cover {key}"
        );
        assert!(seed > 0 || guided.covered.len() > before);
        guided.covered = map::CoveredKeys::new();
        guided.seen.clear();
        guided.seen_steps.clear();

        random.add_trace(run_once(&x, Box::new(RandomWalk::new(seed))));
        random_hits += usize::from(random.covered.is_covered(&key));
        random.covered = map::CoveredKeys::new();
        random.seen.clear();
        random.seen_steps.clear();
    }
    // Random scheduling switches at the right two points only sometimes.
    assert!(
        random_hits < 20,
        "random covered it in {random_hits}/20 seeds"
    );
}

#[test]
fn an_access_sequence_seen_before_is_not_matched_again() {
    let x = Arc::new(AtomicUsize::new(0));
    let mut t = probed(&x);
    for _ in 0..5 {
        t.add_trace(run_once(&x, Box::new(RandomWalk::new(3))));
    }
    let s = t.summary();
    assert_eq!((s.executions, s.distinct_executions), (5, 1));
}

#[test]
fn without_sequential_accesses_the_static_estimate_is_used() {
    static TABLE: [StatementPoint; 2] = [
        StatementPoint {
            method: "get",
            file: "src/c.rs",
            line: 3,
            fields: &[FieldAccess {
                field: "n",
                write: false,
            }],
        },
        StatementPoint {
            method: "set",
            file: "src/c.rs",
            line: 7,
            fields: &[FieldAccess {
                field: "n",
                write: true,
            }],
        },
    ];
    let desc = Description::<u8>::new("C").statements(&TABLE);
    let mut t = Tracker::new(vec![0, 1]);
    t.probed(&desc, &[]);
    let s = t.summary();
    assert_eq!(s.universe, UniverseSource::StaticEstimate);
    // |R| = |W| = 1: 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 = 8.
    assert_eq!(s.feasible, 8);
    assert_eq!(s.variables, ["self.n"]);
    assert!(s.uncovered[0].contains("src/c.rs:3 (in `get`)"), "{s}");
}

#[test]
fn pairs_guidance_runs_the_least_run_pair() {
    let mut t = Tracker::new(vec![0, 1, 2]);
    let mut rng = <ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
    let mut seen = HashSet::default();
    for _ in 0..6 {
        let plan = t.plan(Guide::Pairs, &mut rng).expect("a pair");
        let (a, b) = (plan.threads[0][0], plan.threads[1][0]);
        assert!(seen.insert((a.min(b), a.max(b))), "{a},{b} ran twice first");
        t.pairs.record(a, b);
    }
    // All 6 pairs of 3 methods (with themselves) ran once.
    assert_eq!(t.pairs.covered(), 6);
    assert!(t.plan(Guide::Random, &mut rng).is_none());
}

#[test]
fn a_pattern_no_pair_of_single_calls_covers_gets_a_longer_selection() {
    let x = AtomicUsize::new(0);
    let mut t = probed(&x);
    let eight = PatternId::new(8).expect("pattern 8");
    // Everything covered but `a:W x, b:W x, a:W x`: `writer` writes once per call, so `a`
    // needs two calls of it.
    let others: Vec<PatternKey> = t.universe.keys().filter(|k| k.id() != eight).collect();
    t.covered.add_keys(others);
    let mut rng = <ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
    assert_eq!(
        t.pattern_plan(&mut rng),
        None,
        "no pair of single calls can"
    );
    let plan = t.plan(Guide::Map, &mut rng).expect("a longer selection");
    assert_eq!(plan.threads, [vec![1, 1], vec![1]]);
    assert_eq!(plan.target.map(|k| k.id()), Some(eight));
}
