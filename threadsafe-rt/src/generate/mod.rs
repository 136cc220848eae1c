//! Test generation: Algorithm 1 of Pradel & Gross (PLDI 2012), feedback-directed.
//!
//! A prefix instantiates the type (and, when methods take another instance, sometimes a
//! second one) and tries `state_changer_tries` more calls; a suffix tries `cut_call_tries`
//! calls of concurrent methods. A call is kept only if the sequence still runs sequentially
//! without panicking, declining or hanging. Each new suffix is paired with every earlier
//! suffix of its prefix and with itself. The check runs in rounds with fresh seeds: the first
//! round tries ten suffixes on two prefixes (the second bare), later rounds more of both.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::config::Config;
use crate::config::Guide;
use crate::coverage::map::PatternKey;
use crate::coverage::Tracker;
use crate::exec::{run_blocking, serial_order, Blocking, CallOutcome, Produced, SeqRunner};
use crate::subject::{Description, ParamKind, Receiver};
use crate::testcase::{Arg, Call, OpId, Out, Scope, TestCase, VarRef, VarTypes};

mod pairing;
mod plan;
mod probe;
mod rounds;

pub(crate) use probe::probe;
pub(crate) use rounds::Rounds;

/// A test ready to run, with what its sequential run took (for the deadlock timeout).
pub(crate) struct ReadyTest {
    pub(crate) test: Arc<TestCase>,
    pub(crate) seq_time: Duration,
    /// Scheduling points its sequential run reached: none means nothing to control.
    pub(crate) points: u64,
    /// The most points one suffix call reached (see `SeqRun::call_points`).
    pub(crate) call_points: u64,
    /// The memory-access pattern it was made for (guide `map`).
    pub(crate) target: Option<PatternKey>,
}

impl ReadyTest {
    /// `test`, whose first thread blocks when its calls run strictly one after the other
    /// (the generator's order, thread 0's calls, then thread 1's), if its calls complete
    /// when the blocked call waits for the other threads' calls (thread 0's `pop` released
    /// by thread 1's `push`), measured by that run.
    pub(crate) fn blocking<T: Send + Sync + 'static>(
        desc: &'static Description<T>,
        test: Arc<TestCase>,
        timeout: Duration,
        seq: &mut SeqRunner,
    ) -> Option<ReadyTest> {
        let run = run_blocking(desc, &test, &serial_order(&test), timeout, seq)?;
        (run.ended == Blocking::Completed).then_some(ReadyTest {
            test,
            seq_time: run.elapsed,
            points: run.points,
            call_points: run.call_points,
            target: None,
        })
    }
}

struct Prefix {
    calls: Vec<Call>,
    vars: VarTypes,
    instances: usize,
    suffixes: Vec<Vec<Call>>,
    /// Output types of each suffix (scope `Thread(0)`).
    suffix_vars: Vec<VarTypes>,
    /// Whether each suffix ends in a call that blocks after the prefix alone (a `pop` on an
    /// empty queue): it runs only beside a suffix that releases it.
    blocks: Vec<bool>,
}

impl Prefix {
    /// No call yet.
    fn empty() -> Self {
        Prefix {
            calls: Vec::new(),
            vars: VarTypes::default(),
            instances: 0,
            suffixes: Vec::new(),
            suffix_vars: Vec::new(),
            blocks: Vec::new(),
        }
    }
}

/// What a sequential run of a test under construction came to.
enum Validated {
    /// Every call ran; what the last one made.
    Ran(Produced),
    /// A call panicked, declined or could not be made.
    Failed,
    /// The run hung (its last call, since the calls before it ran before).
    Hung,
}

/// Suffixes per prefix that may end in a blocking call: each costs a hang when it is made
/// (seen at once where the kernel says so), and a few give the tests a lost wake-up needs.
const BLOCKING_SUFFIXES: usize = 2;

/// The shape of a call: the operation, and for each argument whether it is the receiver
/// itself, another instance, or a value. A call that hung once (a sequential deadlock such
/// as `a.merge(&a)`) is not tried again in that shape, in any round.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct CallShape(OpId, Vec<ArgShape>);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum ArgShape {
    Receiver,
    OtherInstance,
    Value,
}

fn shape(c: &Call) -> CallShape {
    CallShape(
        c.op,
        c.args
            .iter()
            .map(|a| match a {
                Arg::Instance(i) if Some(*i) == c.receiver => ArgShape::Receiver,
                Arg::Instance(_) => ArgShape::OtherInstance,
                _ => ArgShape::Value,
            })
            .collect(),
    )
}

/// The generator of one round.
pub(crate) struct Generator<'c, T: 'static> {
    desc: &'static Description<T>,
    config: &'c Config,
    rng: ChaCha8Rng,
    max_prefixes: usize,
    suffix_tries_left: usize,
    prefixes: Vec<Prefix>,
    ready: Vec<ReadyTest>,
    /// Call shapes that hung, shared by the rounds of a check.
    pub(crate) hung: HashSet<CallShape>,
    seq_timeout: Duration,
    /// Why the type cannot be instantiated, once that is known.
    pub(crate) cannot_instantiate: Option<String>,
    /// Coverage guidance: the tracker that plans the threads of each test.
    guidance: Option<(Guide, Arc<Mutex<Tracker>>)>,
}

/// The limits of round `r`: 2 prefixes and 10 suffixes first, then doubling prefixes and
/// quadrupling suffixes up to the configured maxima. Round 0 has two prefixes, as round 1
/// has, so that its second (bare) one puts a race of first use in the check's first tests.
pub(crate) fn round_limits(config: &Config, round: u32) -> (usize, usize) {
    let prefixes = (1usize << round.min(20)).max(2).min(config.prefixes);
    let suffixes = (10usize.saturating_mul(4usize.saturating_pow(round.min(20))))
        .min(config.suffixes.saturating_mul(prefixes));
    (prefixes, suffixes)
}

impl<'c, T: Send + Sync + 'static> Generator<'c, T> {
    pub(crate) fn new(
        desc: &'static Description<T>,
        config: &'c Config,
        round: u32,
        hung: HashSet<CallShape>,
    ) -> Self {
        let (max_prefixes, suffixes) = round_limits(config, round);
        Generator {
            desc,
            config,
            rng: ChaCha8Rng::seed_from_u64(crate::seed::derive(config.seed, round)),
            max_prefixes,
            suffix_tries_left: suffixes,
            prefixes: Vec::new(),
            ready: Vec::new(),
            hung,
            seq_timeout: config.hang_timeout(None),
            cannot_instantiate: None,
            guidance: None,
        }
    }

    /// Plans the threads of each test with `tracker` under `guide` (no effect for
    /// [`Guide::Random`]).
    pub(crate) fn guided(mut self, guide: Guide, tracker: Arc<Mutex<Tracker>>) -> Self {
        if guide != Guide::Random {
            self.guidance = Some((guide, tracker));
        }
        self
    }

    /// The next test of this round, `None` when the round is over (or the deadline passed).
    pub(crate) fn next_test(
        &mut self,
        runner: &mut SeqRunner,
        deadline: Instant,
    ) -> Option<ReadyTest> {
        loop {
            if !self.ready.is_empty() {
                let i = self.rng.gen_range(0..self.ready.len());
                return Some(self.ready.swap_remove(i));
            }
            if self.suffix_tries_left == 0
                || Instant::now() >= deadline
                || self.cannot_instantiate.is_some()
            {
                return None;
            }
            self.suffix_tries_left -= 1;
            let p = if self.prefixes.len() < self.max_prefixes {
                // The second prefix of a round stops after the instances are made: races of
                // first use (a lazy initialization, the first insert of a key) need the state
                // that any earlier call would have changed.
                let bare = self.prefixes.len() == 1;
                match self.new_prefix(runner, bare) {
                    Some(p) => {
                        self.prefixes.push(p);
                        self.prefixes.len() - 1
                    }
                    None if self.prefixes.is_empty() => {
                        if self.cannot_instantiate.is_none() {
                            self.cannot_instantiate = Some(format!(
                                "no constructor of `{}` ran without panicking or declining in {} attempts",
                                self.desc.name, INSTANTIATE_TRIES
                            ));
                        }
                        return None;
                    }
                    None => self.rng.gen_range(0..self.prefixes.len()),
                }
            } else {
                self.rng.gen_range(0..self.prefixes.len())
            };
            if let Some(plan) = self.plan() {
                if let Some(ready) = self.planned_test(p, &plan, runner) {
                    return Some(ready);
                }
                continue;
            }
            if self.prefixes[p].suffixes.len() >= self.config.suffixes {
                continue;
            }
            let Some((suffix, vars, blocks)) = self.new_suffix(p, runner) else {
                continue;
            };
            self.prefixes[p].suffixes.push(suffix);
            self.prefixes[p].suffix_vars.push(vars);
            self.prefixes[p].blocks.push(blocks);
            self.make_tests(p, runner);
        }
    }

    /// A prefix: the instances, then (unless `bare`) the state changers' tries.
    fn new_prefix(&mut self, runner: &mut SeqRunner, bare: bool) -> Option<Prefix> {
        let mut prefix = Prefix::empty();
        if !self.instantiate(&mut prefix, runner) {
            return None;
        }
        let takes_instances = self.desc.methods.iter().any(|m| {
            m.params
                .iter()
                .any(|p| matches!(p.kind, ParamKind::Instance(_)))
        });
        if takes_instances && self.rng.gen_bool(0.5) {
            self.instantiate(&mut prefix, runner);
        }
        let tries = if bare {
            0
        } else {
            self.config.state_changer_tries
        };
        for _ in 0..tries {
            let methods: Vec<usize> = (0..self.desc.methods.len()).collect();
            if let Some(call) = self.call_cut(
                &methods,
                prefix.instances,
                Scope::Prefix,
                &prefix.vars.clone(),
            ) {
                self.try_append_prefix(&mut prefix, call, runner);
            }
        }
        Some(prefix)
    }

    fn instantiate(&mut self, prefix: &mut Prefix, runner: &mut SeqRunner) -> bool {
        for _ in 0..INSTANTIATE_TRIES {
            let ctors: Vec<usize> = (0..self.desc.constructors.len()).collect();
            let Some(&c) = pick(&mut self.rng, &ctors) else {
                return false;
            };
            if self.append_ctor(prefix, c, runner) {
                return true;
            }
        }
        false
    }

    /// Appends a call of constructor `c` with generated arguments, if the prefix still runs.
    fn append_ctor(&mut self, prefix: &mut Prefix, c: usize, runner: &mut SeqRunner) -> bool {
        let Some(args) = self.args_for(
            OpId::Ctor(c),
            None,
            prefix.instances,
            Scope::Prefix,
            &prefix.vars,
        ) else {
            return false;
        };
        let call = Call {
            op: OpId::Ctor(c),
            receiver: None,
            args,
            out: Out::None,
            cancel: None,
        };
        self.try_append_prefix(prefix, call, runner)
    }

    /// Appends `call` to the prefix if the prefix still runs; records what it made.
    fn try_append_prefix(
        &mut self,
        prefix: &mut Prefix,
        mut call: Call,
        runner: &mut SeqRunner,
    ) -> bool {
        let mut calls = prefix.calls.clone();
        calls.push(call.clone());
        let test = TestCase {
            prefix: calls,
            threads: Vec::new(),
            post: Vec::new(),
        };
        let Some(produced) = self.validate(&test, &call, runner) else {
            return false;
        };
        match produced {
            Produced::Instance(made) => {
                call.out = Out::Instance(prefix.instances, made);
                prefix.instances += 1;
            }
            Produced::Value(ty) => {
                let index = prefix
                    .calls
                    .iter()
                    .filter(|c| matches!(c.out, Out::Var(_)))
                    .count();
                call.out = Out::Var(index);
                prefix.vars.0.push((
                    VarRef {
                        scope: Scope::Prefix,
                        index,
                    },
                    ty,
                ));
            }
            Produced::Nothing => {}
        }
        prefix.calls.push(call);
        true
    }

    /// Runs `test` sequentially; the produced output of its last call if every call ran. A
    /// last call that hangs is remembered by its shape and not tried again.
    fn validate(
        &mut self,
        test: &TestCase,
        last: &Call,
        runner: &mut SeqRunner,
    ) -> Option<Produced> {
        if self.hung.contains(&shape(last)) {
            return None;
        }
        match self.validate_or_hang(test, runner) {
            Validated::Ran(produced) => Some(produced),
            Validated::Failed => None,
            Validated::Hung => {
                self.hung.insert(shape(last));
                None
            }
        }
    }

    /// [`validate`](Self::validate), telling a hang from a failure, remembering neither and
    /// whatever hung before.
    fn validate_or_hang(&mut self, test: &TestCase, runner: &mut SeqRunner) -> Validated {
        let order = serial_order(test);
        match runner.run(
            self.desc,
            Arc::new(test.clone()),
            order,
            true,
            self.seq_timeout,
        ) {
            None => Validated::Hung,
            Some((run, _)) if run.all_ok() => match run.last() {
                Some(CallOutcome::Ok(p, _)) => Validated::Ran(*p),
                _ => Validated::Failed,
            },
            Some(_) => Validated::Failed,
        }
    }

    fn new_suffix(
        &mut self,
        p: usize,
        runner: &mut SeqRunner,
    ) -> Option<(Vec<Call>, VarTypes, bool)> {
        let concurrent = self.desc.concurrent_methods();
        let choices = vec![concurrent; self.config.cut_call_tries];
        self.build_suffix(p, &choices, runner, true)
    }

    /// A suffix on prefix `p`: per entry of `choices`, a call of a random method among the
    /// entry's, kept if the suffix still runs sequentially. With `may_block`, a call that
    /// hangs there instead ends the suffix, which then blocks (at most
    /// `BLOCKING_SUFFIXES` per prefix): another thread's calls may release it. `None` if no
    /// call was kept.
    fn build_suffix(
        &mut self,
        p: usize,
        choices: &[Vec<usize>],
        runner: &mut SeqRunner,
        may_block: bool,
    ) -> Option<(Vec<Call>, VarTypes, bool)> {
        let mut suffix: Vec<Call> = Vec::new();
        let mut vars = self.prefixes[p].vars.clone();
        let scope = Scope::Thread(0);
        let mut blocks = false;
        let may_block =
            may_block && self.prefixes[p].blocks.iter().filter(|b| **b).count() < BLOCKING_SUFFIXES;
        for methods in choices {
            let instances = self.prefixes[p].instances;
            let Some(mut call) = self.call_cut(methods, instances, scope, &vars) else {
                continue;
            };
            let mut calls = suffix.clone();
            calls.push(call.clone());
            let test = TestCase {
                prefix: self.prefixes[p].calls.clone(),
                threads: vec![calls],
                post: Vec::new(),
            };
            // A call that hung before (in a prefix, a post part, or in as many suffixes as may
            // block) is not tried again, unless this suffix may still end in one.
            if !may_block && self.hung.contains(&shape(&call)) {
                continue;
            }
            let produced = match self.validate_or_hang(&test, runner) {
                Validated::Ran(produced) => produced,
                Validated::Failed => continue,
                Validated::Hung if may_block => {
                    suffix.push(call);
                    blocks = true;
                    break;
                }
                Validated::Hung => {
                    self.hung.insert(shape(&call));
                    continue;
                }
            };
            if let Produced::Value(ty) = produced {
                let index = suffix
                    .iter()
                    .filter(|c| matches!(c.out, Out::Var(_)))
                    .count();
                call.out = Out::Var(index);
                vars.0.push((VarRef { scope, index }, ty));
            }
            suffix.push(call);
        }
        if suffix.is_empty() {
            return None;
        }
        vars.0.retain(|(v, _)| v.scope == scope);
        Some((suffix, vars, blocks))
    }

    /// The callCUT task: a random method among `methods`, a receiver from the pool, and
    /// arguments from the parameter task.
    fn call_cut(
        &mut self,
        methods: &[usize],
        instances: usize,
        scope: Scope,
        vars: &VarTypes,
    ) -> Option<Call> {
        if instances == 0 {
            return None;
        }
        let &m = pick(&mut self.rng, methods)?;
        let receiver = self.rng.gen_range(0..instances);
        let args = self.args_for(OpId::Method(m), Some(receiver), instances, scope, vars)?;
        Some(Call {
            op: OpId::Method(m),
            receiver: Some(receiver),
            args,
            out: Out::None,
            cancel: None,
        })
    }

    /// The parameter task for every parameter of `op`: an instance from the pool (never the
    /// receiver of a `&mut self` call), an earlier output of the same type (half the time,
    /// when there is one), or a fresh value.
    fn args_for(
        &mut self,
        op: OpId,
        receiver: Option<usize>,
        instances: usize,
        scope: Scope,
        vars: &VarTypes,
    ) -> Option<Vec<Arg>> {
        let op_ref = self.desc.op_at(op);
        let exclusive = op_ref.receiver == Receiver::Exclusive;
        let mut args = Vec::with_capacity(op_ref.params.len());
        for p in &op_ref.params {
            args.push(match &p.kind {
                ParamKind::Instance(_) => {
                    let choices: Vec<usize> = (0..instances)
                        .filter(|&i| !(exclusive && Some(i) == receiver))
                        .collect();
                    Arg::Instance(*pick(&mut self.rng, &choices)?)
                }
                ParamKind::Value { type_id, clone, .. } => {
                    let reusable = if clone.is_some() {
                        vars.matching(*type_id, |s| s == Scope::Prefix || s == scope)
                    } else {
                        Vec::new()
                    };
                    if !reusable.is_empty() && self.rng.gen_bool(0.5) {
                        Arg::Var(*pick(&mut self.rng, &reusable)?)
                    } else {
                        Arg::Fresh(self.rng.gen())
                    }
                }
            });
        }
        Some(args)
    }
}

const INSTANTIATE_TRIES: usize = 10;

fn pick<'a, X>(rng: &mut ChaCha8Rng, items: &'a [X]) -> Option<&'a X> {
    if items.is_empty() {
        None
    } else {
        Some(&items[rng.gen_range(0..items.len())])
    }
}

/// A suffix generated for thread 0, moved to thread `scope`.
fn rescope(calls: &[Call], scope: Scope) -> Vec<Call> {
    calls
        .iter()
        .map(|c| {
            let mut c = c.clone();
            for a in &mut c.args {
                if let Arg::Var(v) = a {
                    if v.scope == Scope::Thread(0) {
                        v.scope = scope;
                    }
                }
            }
            c
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_start_small_and_grow_to_the_maxima() {
        let c = Config::default();
        assert_eq!(round_limits(&c, 0), (2, 10));
        assert_eq!(round_limits(&c, 1), (2, 40));
        assert_eq!(round_limits(&c, 2), (4, 160));
        assert_eq!(round_limits(&c, 10), (25, 12_500));
    }
}
