//! A test written by hand, by method names, run by the free-running executor alone: what
//! the benchmarks compare with a hand-written stress loop of the same calls (no generator,
//! no oracle, no coverage in the way); and the results oracle's judgement of such a test's
//! executions alone, what the benchmark of the oracle times. Only with the `bench` feature,
//! as `threadsafe_rt::bench`: the project's benchmarks use it, nothing else does.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::Executor;
use crate::exec::{
    serial_order, BatchOutcome, BatchSpec, ConcRunner, ExecOutcome, Results, SeqRunner,
};
use crate::oracle::{Explained, Sequential};
use crate::subject::{description, Description, ParamKind, Subject};
use crate::testcase::{Arg, Call, Made, OpId, Out, TestCase};

/// What [`run_scenario`] did.
#[derive(Clone, Debug)]
pub struct ScenarioRun {
    /// Executions run.
    pub executions: usize,
    /// Wall-clock time of the batch.
    pub elapsed: Duration,
    /// How the batch ended, if not every execution passed (a panic or a hang).
    pub failed: Option<String>,
}

/// Runs, free-running, `executions` times: an instance made by the constructor `ctor`, the
/// calls of `threads[t]` on thread `t` (methods of `T` by name), then the calls of `post`.
/// Every argument is the value its type's generator makes from seed 0 (so two calls with a
/// key take the same key); an argument of type `T` is the instance itself. With `observe`,
/// the return values are kept as the check keeps them. `stride`: executions per round (a
/// check gives a test of cheap calls
/// [`MAX_STRIDE`](crate::bench::MAX_STRIDE)).
///
/// # Errors
/// A name that is not a constructor or method the generator can call.
pub fn run_scenario<T: Subject>(
    ctor: &str,
    threads: &[&[&str]],
    post: &[&str],
    executions: usize,
    observe: bool,
    stride: usize,
) -> Result<ScenarioRun, String> {
    let desc = description::<T>();
    let test = Arc::new(scenario(desc, ctor, threads, post)?);
    let _one_at_a_time = crate::exclusive::one_at_a_time();
    let mut runner = ConcRunner::new(Executor::Workers);
    let start = Instant::now();
    let batch = run_batch(desc, &test, &mut runner, executions, observe, stride)?;
    Ok(ScenarioRun {
        executions: batch.executions,
        elapsed: start.elapsed(),
        failed: match batch.outcome {
            ExecOutcome::Passed => None,
            other => Some(format!("{other:?}")),
        },
    })
}

/// What [`judge_scenario`] did.
#[derive(Clone, Debug)]
pub struct JudgeRun {
    /// Executions run, free-running, results observed.
    pub executions: usize,
    /// Distinct results among them, which the oracle judged.
    pub distinct: usize,
    /// Of those, the results a linearization gives.
    pub explained: usize,
    /// Of those, the results the search could not decide within its bounds.
    pub unknown: usize,
    /// Linearizations of the test.
    pub linearizations: u64,
    /// Sequential runs (whole or partial orders) the oracle made.
    pub runs: usize,
    /// Wall-clock time of the judgement alone (the batch not included).
    pub elapsed: Duration,
}

/// Runs the test of [`run_scenario`] `executions` times, free-running with results
/// observed (stride 1), then asks a fresh results oracle about each distinct result, as a
/// check does after a batch (no confirmation: a result no linearization gives is counted,
/// not confirmed). Without `hint` the oracle is not told the order in which the calls
/// returned, which it tries first in a check: what is timed is then the search alone.
///
/// # Errors
/// A name that is not a constructor or method the generator can call, or a batch that did
/// not pass.
pub fn judge_scenario<T: Subject>(
    ctor: &str,
    threads: &[&[&str]],
    post: &[&str],
    executions: usize,
    hint: bool,
) -> Result<JudgeRun, String> {
    let desc = description::<T>();
    let test = Arc::new(scenario(desc, ctor, threads, post)?);
    let _one_at_a_time = crate::exclusive::one_at_a_time();
    let mut runner = ConcRunner::new(Executor::Workers);
    let batch = run_batch(desc, &test, &mut runner, executions, true, 1)?;
    if !matches!(batch.outcome, ExecOutcome::Passed) {
        return Err(format!("the batch did not pass: {:?}", batch.outcome));
    }
    let start = Instant::now();
    let mut seq = Sequential::new(
        test.clone(),
        HashSet::new(),
        Duration::from_secs(1),
        start + Duration::from_secs(60),
    );
    let mut distinct: Vec<Results> = batch
        .results
        .seen
        .iter()
        .map(|s| s.results.clone())
        .collect();
    if hint {
        seq.run_returned_orders(&distinct, &mut runner, desc);
    } else {
        for r in &mut distinct {
            r.returned.clear();
        }
    }
    let (mut explained, mut unknown) = (0, 0);
    for results in &distinct {
        match seq.explains(results, &mut runner, desc) {
            Explained::Yes => explained += 1,
            Explained::Unknown => unknown += 1,
            Explained::No => {}
        }
    }
    Ok(JudgeRun {
        executions: batch.executions,
        distinct: batch.results.seen.len(),
        explained,
        unknown,
        linearizations: seq.count(),
        runs: seq.runs,
        elapsed: start.elapsed(),
    })
}

/// One batch of `test` on `runner`, after one run a call at a time (as the generator
/// measures a test before its executions).
fn run_batch<T: Send + Sync + 'static>(
    desc: &'static Description<T>,
    test: &Arc<TestCase>,
    runner: &mut ConcRunner,
    executions: usize,
    observe: bool,
    stride: usize,
) -> Result<BatchOutcome, String> {
    let (run, seq_time) = SeqRunner::new()
        .run(
            desc,
            test.clone(),
            serial_order(test),
            true,
            Duration::from_secs(10),
        )
        .ok_or("the calls hang when they run one at a time")?;
    let start = Instant::now();
    Ok(runner.run_batch(
        desc,
        test,
        BatchSpec {
            count: executions,
            timeout: Duration::from_secs(1),
            deadline: start + Duration::from_secs(24 * 3600),
            control: None,
            observe,
            stride,
            seq_time,
            points: run.points,
            // As the first batch of a check with seed 0.
            seed: crate::seed::batch(0, 1),
        },
    ))
}

/// The test [`run_scenario`] runs.
fn scenario<T>(
    desc: &Description<T>,
    ctor: &str,
    threads: &[&[&str]],
    post: &[&str],
) -> Result<TestCase, String> {
    let find = |name: &str, ctor: bool| {
        (0..)
            .map(|i| if ctor { OpId::Ctor(i) } else { OpId::Method(i) })
            .take_while(|&id| match id {
                OpId::Ctor(i) => i < desc.constructor_names().len(),
                OpId::Method(i) => i < desc.method_names().len(),
            })
            .find(|&id| desc.op_at(id).name == name)
            .ok_or_else(|| {
                let kind = if ctor { "constructor" } else { "method" };
                format!(
                    "`{}` has no {kind} `{name}` the generator can call",
                    desc.name()
                )
            })
    };
    let call = |op: OpId, receiver: Option<usize>, out: Out| Call {
        op,
        receiver,
        args: desc
            .op_at(op)
            .params
            .iter()
            .map(|p| match p.kind {
                ParamKind::Instance(_) => Arg::Instance(0),
                ParamKind::Value { .. } => Arg::Fresh(0),
            })
            .collect(),
        out,
        cancel: None,
    };
    let methods = |names: &[&str]| -> Result<Vec<Call>, String> {
        names
            .iter()
            .map(|n| Ok(call(find(n, false)?, Some(0), Out::None)))
            .collect()
    };
    Ok(TestCase {
        prefix: vec![call(find(ctor, true)?, None, Out::Instance(0, Made::Value))],
        threads: threads
            .iter()
            .map(|t| methods(t))
            .collect::<Result<_, _>>()?,
        post: methods(post)?,
    })
}
