//! The engine driven by a hand-written `Subject` impl, independent of the macro.
#![allow(clippy::needless_borrow)] // the autoref probes, written as the expansion writes them
use std::sync::Mutex;
use threadsafe_rt::__private::StatementPoint;
use threadsafe_rt::__private::*;
use threadsafe_rt::{check, Config, ScheduleMode, Subject, Verdict};

pub struct Stack {
    items: Mutex<Vec<u8>>,
    checked: bool,
}

impl Stack {
    pub fn new(checked: bool) -> Self {
        Stack {
            items: Mutex::new(Vec::new()),
            checked,
        }
    }
    pub fn push(&self, v: u8) {
        self.items.lock().unwrap().push(v);
    }
    /// Check-then-act across two lock sections unless `checked`.
    pub fn pop_or_zero(&self) -> u8 {
        if self.checked {
            return self.items.lock().unwrap().pop().unwrap_or(0);
        }
        if self.items.lock().unwrap().is_empty() {
            return 0;
        }
        self.items
            .lock()
            .unwrap()
            .pop()
            .expect("non-empty after the check")
    }
}

pub struct Buggy(Stack);
pub struct Correct(Stack);

macro_rules! describe {
    ($t:ident, $checked:expr) => {
        impl Subject for $t {
            fn describe() -> Description<Self> {
                #[allow(unused_imports)]
                use threadsafe_rt::__private::{
                    CloneNo as _, CloneYes as _, StashDrop as _, StashKeep as _, ViaGenerate as _,
                    ViaNothing as _, ViaSubject as _,
                };
                Description::new(stringify!($t))
                    .op(Op::new("new", Receiver::None, vec![], |f| {
                        f.made($t(Stack::new($checked)))
                    }))
                    .op(Op::new(
                        "push",
                        Receiver::Shared,
                        vec![Param::value::<u8>(
                            "v",
                            "u8",
                            Pass::Owned,
                            (&&&Probe::<u8>::new()).maker(),
                            (&&Probe::<u8>::new()).cloner(),
                        )],
                        |f| {
                            let a0 = f.take::<u8>(0)?;
                            f.shared()?.0.push(a0);
                            Ok(())
                        },
                    ))
                    .op(Op::new("pop_or_zero", Receiver::Shared, vec![], |f| {
                        let r = f.shared()?.0.pop_or_zero();
                        (&&Stash::new(r)).stash(f);
                        Ok(())
                    }))
            }
        }
    };
}
describe!(Buggy, false);
describe!(Correct, true);

#[test]
fn finds_check_then_act_and_not_in_the_twin() {
    let mut c = Config::default();
    // MEASURED: 100/100 runs found it (median 0.12 s, slowest 1.5 s; debug build, 2 cores,
    // quiet machine). Under a saturating parallel load it fell to 55/100 in 10 s: checks
    // serialize within a process, but CI must not run other CPU hogs beside the tests.
    c.budget = std::time::Duration::from_secs(10);
    let r = check::<Buggy>(&c);
    println!("{r}");
    let v = r.violation().expect("violation");
    assert!(
        matches!(&v.failure, threadsafe_rt::Failure::Panic { message, .. } if message.contains("non-empty"))
    );
    c.budget = std::time::Duration::from_millis(500);
    let r = check::<Correct>(&c);
    println!("{r}");
    assert!(matches!(r.verdict, Verdict::NoViolationFound));
}

/// The hook the oracle's benchmark times: four threads of three calls of the correct stack
/// (369,600 linearizations, the search's ground), every distinct result explained, with the
/// order the calls returned in tried first and with the search alone.
#[cfg(feature = "bench")]
#[test]
fn the_oracle_alone_explains_a_correct_stack() {
    let calls = &["push", "pop_or_zero", "pop_or_zero"][..];
    for hint in [true, false] {
        let r = threadsafe_rt::bench::judge_scenario::<Correct>("new", &[calls; 4], &[], 20, hint)
            .unwrap();
        assert_eq!((r.linearizations, r.executions), (369_600, 20), "{r:?}");
        assert!(r.distinct >= 1, "{r:?}");
        assert_eq!((r.explained, r.unknown), (r.distinct, 0), "{r:?}");
        // With the order the calls returned in, one run of it can explain a result alone
        // (a second is made only for results it does not give); the search runs at least
        // the first call of each thread.
        let least = if hint { r.distinct } else { 4 };
        assert!(r.runs >= least, "{r:?}");
    }
    let e = threadsafe_rt::bench::judge_scenario::<Correct>("new", &[&["nope"][..]], &[], 1, true)
        .unwrap_err();
    assert!(e.contains("`nope`"), "{e}");
}

/// `eq` locks self then other: two instances compared from both sides deadlock; `a.eq(&a)`
/// deadlocks sequentially (std Mutex is not reentrant), which the oracle must not report.
pub struct Pair(Mutex<u8>);

impl Subject for Pair {
    fn describe() -> Description<Self> {
        #[allow(unused_imports)]
        use threadsafe_rt::__private::{
            CloneNo as _, CloneYes as _, StashDrop as _, StashKeep as _, ViaGenerate as _,
            ViaNothing as _, ViaSubject as _,
        };
        Description::new("Pair")
            .op(Op::new("new", Receiver::None, vec![], |f| {
                f.made(Pair(Mutex::new(0)))
            }))
            .op(Op::new(
                "eq",
                Receiver::Shared,
                vec![Param::instance("other", "&Pair", InstancePass::Ref)],
                |f| {
                    let o = f.instance(0)?;
                    let me = f.shared()?;
                    let a = me.0.lock().unwrap();
                    std::thread::yield_now();
                    let b = o.0.lock().unwrap();
                    let r = *a == *b;
                    (&&Stash::new(r)).stash(f);
                    Ok(())
                },
            ))
    }
}

#[test]
fn finds_lock_order_deadlock_between_two_instances() {
    let mut c = Config::default();
    c.budget = std::time::Duration::from_secs(20);
    let r = check::<Pair>(&c);
    println!("{r}");
    match &r.violation().expect("violation").failure {
        threadsafe_rt::Failure::Deadlock { blocked } => assert_eq!(blocked.len(), 2, "{blocked:?}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn paper_mode_runs_spawned_threads_and_reports_nothing_on_the_correct_twin() {
    let mut c = Config::default();
    c.executor = threadsafe_rt::Executor::Paper;
    c.budget = std::time::Duration::from_millis(300);
    let r = check::<Correct>(&c);
    assert!(matches!(r.verdict, Verdict::NoViolationFound), "{r}");
    assert!(r.executions > 0, "{r}");
}

#[test]
fn paper_mode_finds_the_lock_order_deadlock() {
    let mut c = Config::default();
    c.executor = threadsafe_rt::Executor::Paper;
    // MEASURED: 100/100 runs found it (median 1.36 s, slowest 1.43 s; debug build, 2 cores):
    // every hang, the sequential `a.eq(&a)` ones included, costs two 250 ms watchdog periods.
    c.budget = std::time::Duration::from_secs(20);
    let r = check::<Pair>(&c);
    println!("{r}");
    assert!(
        matches!(
            &r.violation().expect("violation").failure,
            threadsafe_rt::Failure::Deadlock { .. }
        ),
        "{r}"
    );
}

#[test]
fn three_threads_run_three_suffixes() {
    let mut c = Config::default();
    c.threads = 3;
    c.budget = std::time::Duration::from_millis(300);
    let r = check::<Correct>(&c);
    assert!(matches!(r.verdict, Verdict::NoViolationFound), "{r}");
    let tests = threadsafe_rt::generated_tests::<Correct>(&c, 5);
    assert!(
        tests.iter().all(|t| t.matches("s.spawn(").count() == 3),
        "{tests:#?}"
    );
}

/// The same check-then-act stack, with the statement points `#[thread_safe]` inserts in
/// annotated methods of a test build, and no widened window.
pub struct PointedStack(Mutex<Vec<u8>>);

static P_CHECK: StatementPoint = StatementPoint {
    method: "pop_or_zero",
    file: file!(),
    line: 1001,
    fields: &[],
};
static P_ACT: StatementPoint = StatementPoint {
    method: "pop_or_zero",
    file: file!(),
    line: 1002,
    fields: &[],
};

impl PointedStack {
    fn pop_or_zero(&self) -> u8 {
        threadsafe_rt::__private::statement(&P_CHECK);
        if self.0.lock().unwrap().is_empty() {
            return 0;
        }
        threadsafe_rt::__private::statement(&P_ACT);
        self.0
            .lock()
            .unwrap()
            .pop()
            .expect("non-empty after the check")
    }
}

impl Subject for PointedStack {
    fn describe() -> Description<Self> {
        #[allow(unused_imports)]
        use threadsafe_rt::__private::{
            CloneNo as _, CloneYes as _, StashDrop as _, StashKeep as _, ViaGenerate as _,
            ViaNothing as _, ViaSubject as _,
        };
        Description::new("PointedStack")
            .op(Op::new("new", Receiver::None, vec![], |f| {
                f.made(PointedStack(Mutex::new(Vec::new())))
            }))
            .op(Op::new(
                "push",
                Receiver::Shared,
                vec![Param::value::<u8>(
                    "v",
                    "u8",
                    Pass::Owned,
                    (&&&Probe::<u8>::new()).maker(),
                    (&&Probe::<u8>::new()).cloner(),
                )],
                |f| {
                    let a0 = f.take::<u8>(0)?;
                    f.shared()?.0.lock().unwrap().push(a0);
                    Ok(())
                },
            ))
            .op(Op::new("pop_or_zero", Receiver::Shared, vec![], |f| {
                let r = f.shared()?.pop_or_zero();
                (&&Stash::new(r)).stash(f);
                Ok(())
            }))
    }
}

#[test]
fn controlled_mode_finds_the_narrow_window_in_every_seed_and_replays_it() {
    for seed in 0..20 {
        let mut c = Config::default();
        c.seed = seed;
        c.budget = std::time::Duration::from_secs(20);
        // The find as first made, replayed 20 times: shrinking (a second each time, the same
        // result under control) is what `replays_exactly` in threadsafe-tests covers.
        c.shrink = false;
        // Controlled only: under auto the free-running share may find it first, with no
        // token to replay.
        c.schedule = ScheduleMode::Controlled;
        let r = check::<PointedStack>(&c);
        let v = r.violation().unwrap_or_else(|| panic!("seed {seed}: {r}"));
        assert!(r.controlled_tests > 0, "{r}");
        let token = v
            .replay
            .clone()
            .expect("a controlled find prints a replay token");
        assert!(
            v.interleaving
                .as_ref()
                .is_some_and(|t| t.contains("line 1002")),
            "{r}"
        );
        if seed < 3 {
            println!("{r}");
        }
        for _ in 0..20 {
            let mut again = Config::default();
            again.shrink = false;
            again.replay = Some(token.clone());
            let r2 = check::<PointedStack>(&again);
            let v2 = r2
                .violation()
                .unwrap_or_else(|| panic!("replay {token}: {r2}"));
            assert_eq!(v2.failure, v.failure, "replay {token}");
            assert_eq!(v2.interleaving, v.interleaving, "replay {token}");
        }
    }
}
