//! The knobs of a check: [`Config`], its defaults, the environment overrides, and the
//! replay token. Every value written as text (an environment variable, a setting's
//! `FromStr`, the token) is parsed by the grammar of `threadsafe-knobs`, which the
//! `#[thread_safe(..)]` attribute parses with too: both accept exactly the same inputs.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use threadsafe_knobs as knobs;

mod spread;
mod words;

pub use spread::Shard;

/// Environment variable that overrides [`Config::seed`] (a `u64`, or `random`).
pub const SEED_ENV: &str = "THREADSAFE_SEED";
/// Environment variable that overrides [`Config::budget`] (a duration such as `500ms`, `30s`, `10m`).
pub const BUDGET_ENV: &str = "THREADSAFE_BUDGET";
/// Environment variable that overrides [`Config::guide`] (`random`, `pairs` or `map`).
pub const GUIDE_ENV: &str = "THREADSAFE_GUIDE";
/// Environment variable that overrides [`Config::strategy`] (`random`, `pct`, `pct2`, `dfs`,
/// `dfs3`, ...).
pub const STRATEGY_ENV: &str = "THREADSAFE_STRATEGY";
/// Environment variable that replays one controlled execution: the token a report printed.
pub const REPLAY_ENV: &str = "THREADSAFE_REPLAY";
/// Environment variable that overrides [`Config::jobs`]: how many hunts run at once (a
/// positive integer, at most 256).
pub const JOBS_ENV: &str = "THREADSAFE_JOBS";
/// Environment variable that sets [`Config::shard`]: `k/n`, this machine's part of the seed
/// stream (a CI matrix's job `k` of `n`).
pub const SHARD_ENV: &str = "THREADSAFE_SHARD";
/// Environment variable that turns the regressions file ([`Config::regressions`]) `on` or
/// `off`.
pub const REGRESSIONS_ENV: &str = "THREADSAFE_REGRESSIONS";
/// Environment variable that runs the generated test's check in a child process (`on`, the
/// default where processes can be re-executed) or in the test's own process (`off`: for a
/// debugger). See [`Config::isolation`].
pub const ISOLATION_ENV: &str = "THREADSAFE_ISOLATION";
/// Environment variable that shows the MAP-coverage detail in the report ([`Config::verbose`]):
/// `on` or `off`.
pub const VERBOSE_ENV: &str = "THREADSAFE_VERBOSE";
/// The folder of the regressions files, beside the crate: `threadsafe-regressions/<Type>.txt`.
pub const REGRESSIONS_DIR: &str = "threadsafe-regressions";

// `Executor`, `ScheduleMode`, `Strategy`, `Guide` and `Shard` share their names with types of
// `threadsafe_knobs` on purpose: the knobs crate holds the written form, the one grammar the
// attribute and the environment parse; these are the settings as a check uses them
// (`#[non_exhaustive]`, values resolved, e.g. PCT's depth), each converted in one place.

/// What runs a test's executions. Written `workers` or `paper` (its `FromStr` and
/// `Display`); `stress`, the word `workers` had before, is still read.
///
/// ```
/// use threadsafe_rt::Executor;
///
/// assert_eq!("paper".parse(), Ok(Executor::Paper));
/// assert_eq!(Executor::Workers.to_string(), "workers");
/// assert_eq!("stress".parse(), Ok(Executor::Workers));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Executor {
    /// Persistent worker threads that run the executions back to back, controlled or
    /// free-running (released together by a spin barrier): the default.
    Workers,
    /// The original tool's way, for comparison: a new thread per suffix per execution,
    /// started with `std::sync::Barrier`.
    Paper,
}

/// How the threads of an execution are scheduled. Written `auto`, `controlled` or `stress`
/// (its `FromStr` and `Display`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScheduleMode {
    /// Per test: free-running when its calls reach at most one scheduling point each (a
    /// controlled execution of such a test is a sequential order of whole calls); else a
    /// controlled batch of a fifth of [`Config::conc_execs`] (points: `threadsafe_rt::sync`
    /// primitives, or statements of methods annotated in a test build) followed by a
    /// free-running batch of all of it, for races in code the scheduler cannot see. The
    /// free-running executions also get an adaptive share of the controlled batches' time;
    /// what the batch beside each one does not use goes to tests that run free-running only.
    Auto,
    /// One thread at a time, switching at scheduling points as the strategy decides: a seed
    /// and an execution number replay the same interleaving.
    Controlled,
    /// Free-running threads (with noise at statement points).
    Stress,
}

/// Who runs next at a scheduling point of a controlled execution. Written `random`, `pct`
/// and the depth (`pct3`; `pct` alone is depth 3), or `dfs` and the bound on preemptions
/// (`dfs2`; `dfs` alone is 2), as in a replay token (its `FromStr` and `Display`).
///
/// ```
/// use threadsafe_rt::Strategy;
///
/// assert_eq!("pct".parse(), Ok(Strategy::Pct { depth: 3 }));
/// assert_eq!(Strategy::Pct { depth: 2 }.to_string(), "pct2");
/// assert_eq!("dfs".parse(), Ok(Strategy::Dfs { preemptions: 2 }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Strategy {
    /// Uniformly random among the runnable threads, at every point.
    Random,
    /// Probabilistic Concurrency Testing (Burckhardt et al., ASPLOS 2010) for bugs of the
    /// given depth: random thread priorities and `depth - 1` random priority change points.
    Pct {
        /// The bug depth aimed at (the number of ordering constraints), at least 1.
        depth: usize,
    },
    /// Depth-first exploration of every schedule of a test with at most `preemptions`
    /// preemptions (a switch away from a thread that could go on; CHESS, Musuvathi and
    /// Qadeer, PLDI 2007), up to a limit of schedules per test, then random ones. A passing
    /// report says which tests were explored to the end.
    Dfs {
        /// The bound on preemptions of a schedule (0: switches only where a thread blocks,
        /// yields or ends).
        preemptions: usize,
    },
}

/// How the generator and the scheduler choose (the `guide` setting). Written `random`,
/// `pairs` or `map` (its `FromStr` and `Display`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Guide {
    /// Random methods (the feedback-directed generator) and random schedules.
    #[default]
    Random,
    /// CovCon: the first two threads of each test start with the pair of methods run
    /// concurrently least so far (then random calls, as random suffixes have); random
    /// schedules.
    Pairs,
    /// MAPTest: the same, among the pairs that can still cover an uncovered memory-access
    /// pattern with one call each (Algorithm 4, ranked by method-pair coverage); each
    /// execution eagerly schedules the thread whose next step extends one of the patterns
    /// the test can cover (Algorithm 5).
    Map,
}

/// Parameters of a check. Start from [`Config::default`] and set fields; the defaults are
/// the paper's (Pradel & Gross, PLDI 2012) with a one-second budget.
///
/// ```
/// use std::time::Duration;
/// use threadsafe_rt::Config;
///
/// let mut config = Config::default();
/// config.seed = 7;
/// config.budget = Duration::from_millis(200);
/// assert_eq!(config.prefixes, 25);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// Most prefixes kept per round (the paper's `maxPrefixes`, 25).
    pub prefixes: usize,
    /// Most suffixes per prefix (500).
    pub suffixes: usize,
    /// Attempts to append a state-changing call to a new prefix (5); the second prefix of
    /// each round gets none, so that races of first use meet an untouched instance.
    pub state_changer_tries: usize,
    /// Attempts to append a call to a new suffix (2).
    pub cut_call_tries: usize,
    /// Concurrent executions of each test (`maxConcExecs`, 100).
    pub conc_execs: usize,
    /// Number of suffixes run at once, 2 to 4 (2).
    pub threads: usize,
    /// Attempts to append a sequential call after the threads join (1): state corrupted by a
    /// race often fails only on the next call.
    pub post_calls: usize,
    /// Seed of the generator; the same seed generates the same tests (0).
    pub seed: u64,
    /// Wall-clock bound of the whole check (1 s).
    pub budget: Duration,
    /// Most generated tests per hunt (`None`, the default: as many as the budget allows).
    /// A check that ends here rather than at its budget runs the same tests every time; under
    /// `strategy = "dfs"` it explores each of them the same way, so that its pass states the
    /// same coverage every run.
    pub tests: Option<u64>,
    /// How long a run may make no progress before it counts as a deadlock; `None` derives
    /// it from the sequential run time of each test, at least 250 ms.
    pub deadlock_timeout: Option<Duration>,
    /// How the suffixes run concurrently when they run free.
    pub executor: Executor,
    /// Controlled or free-running threads.
    pub schedule: ScheduleMode,
    /// The strategy of controlled executions.
    pub strategy: Strategy,
    /// Replays one controlled execution from the token a report printed (see
    /// [`REPLAY_ENV`]); `None` runs the check.
    pub replay: Option<String>,
    /// How tests and controlled schedules are chosen: at random (the default), by
    /// method-pair coverage, or by memory-access-pattern coverage (see [`Guide`]).
    pub guide: Guide,
    /// End the check once every feasible memory-access pattern is covered, before the
    /// budget (false). The report says which ended it.
    pub stop_when_covered: bool,
    /// Whether the methods' return values count (true): results are compared by the oracle,
    /// except those of methods marked `#[thread_safe(nondeterministic)]`. `false` is the
    /// paper's oracle: panics and deadlocks only.
    pub results: bool,
    /// Whether a test may cancel a call of an async method (true): drop its future at an
    /// `.await` or a `Pending`, as a `select!` that lost or a timeout would. The oracle
    /// then accepts the call having taken effect entirely or not at all. Methods marked
    /// `#[thread_safe(not_cancel_safe)]` are never cancelled.
    pub cancel: bool,
    /// After a violation, look for a smaller test that fails the same way (true), for at
    /// most half the budget (0.3 s to 10 s); the report shows the smallest one found.
    pub shrink: bool,
    /// Show the MAP-coverage detail in the report (false: one line). `THREADSAFE_VERBOSE=on`
    /// sets it.
    pub verbose: bool,
    /// Hunts of the type run at once (1), each with its own seed of the seed stream and its
    /// own threads, each deterministic on its own; the first violation stops them all, and
    /// its report names the seed that replays it alone. See [`Config::hunt_seeds`].
    pub jobs: usize,
    /// The part of the seed stream this check hunts in, for a CI matrix: shard `k` of `n`
    /// takes the seeds no other shard takes (`None`: the whole stream, as `1/1`). See
    /// [`Config::hunt_seeds`].
    pub shard: Option<Shard>,
    /// The folder of the regressions file (`<folder>/<Type>.txt`): the check replays its
    /// entries before generating any test, and writes each violation it finds there. `None`
    /// (the default of `Config::default()`): no file is read or written. The test that
    /// `#[thread_safe]` generates sets [`Config::default_regressions_dir`]; the
    /// `THREADSAFE_REGRESSIONS` variable (`on`, `off`) overrides both.
    pub regressions: Option<PathBuf>,
    /// Whether the test `#[thread_safe]` generates runs its check in a child process of the
    /// test binary (true, on Unix): a crash of the code under test (a segfault, an abort)
    /// then fails that test with a report instead of killing the binary, and threads
    /// blocked in a deadlock die with the child. `THREADSAFE_ISOLATION=off` runs it in the
    /// test's own process, for a debugger. [`check`](crate::check) itself always runs in
    /// the calling process.
    pub isolation: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            prefixes: 25,
            suffixes: 500,
            state_changer_tries: 5,
            cut_call_tries: 2,
            conc_execs: 100,
            tests: None,
            threads: 2,
            post_calls: 1,
            seed: 0,
            budget: Duration::from_secs(1),
            deadlock_timeout: None,
            executor: Executor::Workers,
            schedule: ScheduleMode::Auto,
            strategy: Strategy::Random,
            replay: None,
            guide: Guide::Random,
            stop_when_covered: false,
            results: true,
            cancel: true,
            shrink: true,
            verbose: false,
            jobs: 1,
            shard: None,
            regressions: None,
            isolation: cfg!(unix),
        }
    }
}

/// A bad value in an environment override or a config field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

impl From<knobs::Error> for ConfigError {
    fn from(e: knobs::Error) -> Self {
        ConfigError(e.to_string())
    }
}

impl Config {
    /// Applies `THREADSAFE_SEED`, `THREADSAFE_BUDGET`, `THREADSAFE_GUIDE`,
    /// `THREADSAFE_STRATEGY`, `THREADSAFE_REPLAY`,
    /// `THREADSAFE_JOBS`, `THREADSAFE_SHARD` and `THREADSAFE_REGRESSIONS` from the
    /// environment, strictly: a value that does not parse is an error that says what was
    /// expected.
    ///
    /// ```
    /// let config = threadsafe_rt::Config::default().with_env().unwrap();
    /// assert!(config.threads >= 2);
    /// ```
    pub fn with_env(mut self) -> Result<Self, ConfigError> {
        if let Ok(token) = std::env::var(REPLAY_ENV) {
            self.replay = Some(token);
        }
        self.with_overrides(
            std::env::var(SEED_ENV).ok().as_deref(),
            std::env::var(BUDGET_ENV).ok().as_deref(),
            std::env::var(GUIDE_ENV).ok().as_deref(),
            std::env::var(STRATEGY_ENV).ok().as_deref(),
        )?
        .with_spread_overrides(
            std::env::var(JOBS_ENV).ok().as_deref(),
            std::env::var(SHARD_ENV).ok().as_deref(),
            std::env::var(REGRESSIONS_ENV).ok().as_deref(),
        )?
        .with_switch_overrides(
            std::env::var(VERBOSE_ENV).ok().as_deref(),
            std::env::var(ISOLATION_ENV).ok().as_deref(),
        )
    }

    /// The switches of the environment, when set: `THREADSAFE_VERBOSE` and
    /// `THREADSAFE_ISOLATION`, each `on` or `off`. Isolation `on` where a child process cannot
    /// be had (not Unix) still runs in process.
    pub(crate) fn with_switch_overrides(
        mut self,
        verbose: Option<&str>,
        isolation: Option<&str>,
    ) -> Result<Self, ConfigError> {
        let on = |var: &'static str, text: &str| match text.parse::<knobs::Switch>() {
            Ok(switch) => Ok(switch == knobs::Switch::On),
            Err(e) => Err(ConfigError(format!("{var}: {e}"))),
        };
        if let Some(v) = verbose {
            self.verbose = on(VERBOSE_ENV, v)?;
        }
        if let Some(v) = isolation {
            self.isolation = on(ISOLATION_ENV, v)? && cfg!(unix);
        }
        Ok(self)
    }

    pub(crate) fn with_overrides(
        mut self,
        seed: Option<&str>,
        budget: Option<&str>,
        guide: Option<&str>,
        strategy: Option<&str>,
    ) -> Result<Self, ConfigError> {
        let in_var = |var: &'static str| move |e: knobs::Error| ConfigError(format!("{var}: {e}"));
        if let Some(s) = seed {
            self.seed = match s.parse().map_err(in_var(SEED_ENV))? {
                knobs::Seed::Fixed(n) => n,
                knobs::Seed::Random => random_seed(),
            };
        }
        if let Some(b) = budget {
            self.budget = knobs::parse_duration(b).map_err(in_var(BUDGET_ENV))?;
        }
        if let Some(g) = guide {
            self.guide = g
                .parse()
                .map_err(|e: ConfigError| ConfigError(format!("{GUIDE_ENV}: {e}")))?;
        }
        if let Some(t) = strategy {
            self.strategy = t
                .parse()
                .map_err(|e: ConfigError| ConfigError(format!("{STRATEGY_ENV}: {e}")))?;
        }
        self.validate()?;
        Ok(self)
    }

    /// Checks that the values are in range.
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        let positive = [
            ("prefixes", self.prefixes),
            ("suffixes", self.suffixes),
            ("cut_call_tries", self.cut_call_tries),
            ("conc_execs", self.conc_execs),
        ];
        for (name, v) in positive {
            if v == 0 {
                return Err(ConfigError(format!("config `{name}` must be at least 1")));
            }
        }
        if let Strategy::Pct { depth: 0 } = self.strategy {
            return Err(ConfigError(
                "config `strategy`: PCT depth must be at least 1".to_string(),
            ));
        }
        if !(1..=knobs::MAX_JOBS).contains(&self.jobs) {
            return Err(ConfigError(format!(
                "config `jobs` must be from 1 to {}, not {}",
                knobs::MAX_JOBS,
                self.jobs
            )));
        }
        if let Some(s) = self.shard {
            if s.count == 0 || !(1..=s.count).contains(&s.index) {
                return Err(ConfigError(format!(
                    "config `shard`: there is no shard {s}: write `k/n` with k from 1 to n"
                )));
            }
        }
        if !(2..=4).contains(&self.threads) {
            return Err(ConfigError(format!(
                "config `threads` must be 2, 3 or 4, not {}",
                self.threads
            )));
        }
        Ok(())
    }
}

/// Where a controlled execution can be found again: the generator's seed, the test's
/// number, the execution's number in its batch, the strategy, and (when not random) the
/// guide that chose the tests: `<seed>.<test>.<execution>.<strategy>[.pairs]`, e.g.
/// `7.12.3.random` or `7.12.3.pct3.pairs`. Guide `map` has no token. The parts are
/// [`Strategy`]'s and the seed's grammar, with decimal numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ReplayToken {
    pub(crate) seed: u64,
    pub(crate) test: u64,
    pub(crate) execution: usize,
    pub(crate) strategy: Strategy,
    pub(crate) guide: Guide,
}

impl fmt::Display for ReplayToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{}.{}.{}",
            self.seed, self.test, self.execution, self.strategy
        )?;
        match self.guide {
            Guide::Pairs => write!(f, ".{}", self.guide),
            _ => Ok(()),
        }
    }
}

impl FromStr for ReplayToken {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!("{REPLAY_ENV}={s:?} is not a replay token: use the one a report printed, e.g. `7.12.3.random`")
        };
        if s.trim().contains(char::is_whitespace) {
            return Err(bad());
        }
        let parts: Vec<&str> = s.trim().split('.').collect();
        let (seed, test, execution, strategy, guide) = match parts[..] {
            [seed, test, execution, strategy] => (seed, test, execution, strategy, Guide::Random),
            [seed, test, execution, strategy, guide] if guide.parse() == Ok(Guide::Pairs) => {
                (seed, test, execution, strategy, Guide::Pairs)
            }
            _ => return Err(bad()),
        };
        fn number<N: FromStr>(part: &str) -> Option<N> {
            let digits = !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
            digits.then(|| part.parse().ok()).flatten()
        }
        Ok(ReplayToken {
            seed: number(seed).ok_or_else(bad)?,
            test: number(test).ok_or_else(bad)?,
            execution: number(execution).ok_or_else(bad)?,
            strategy: strategy.parse().map_err(|_| bad())?,
            guide,
        })
    }
}

/// A seed drawn from the clock and the process's hash keys (`THREADSAFE_SEED=random`,
/// `seed = "random"`).
pub(crate) fn random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.finish()
}

/// The shortest time a run may make no progress before it counts as hung.
const TIMEOUT_FLOOR: Duration = Duration::from_millis(250);

/// How many times the deadlock timeout exceeds a test's sequential run time.
const TIMEOUT_FACTOR: u32 = 50;

impl Config {
    /// How long a run may make no progress before it counts as hung: `deadlock_timeout` if
    /// set, else 50 times the test's sequential run time (`seq_time`; `None` before the test
    /// was measured), at least 250 ms.
    pub(crate) fn hang_timeout(&self, seq_time: Option<Duration>) -> Duration {
        self.deadlock_timeout.unwrap_or_else(|| {
            TIMEOUT_FLOOR.max(seq_time.unwrap_or(Duration::ZERO) * TIMEOUT_FACTOR)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbose_and_isolation_are_switches() {
        let on = Config::default()
            .with_switch_overrides(Some("on\n"), Some("off"))
            .unwrap();
        assert!(on.verbose);
        assert!(!on.isolation);
        let off = on
            .clone()
            .with_switch_overrides(Some("off"), Some("on"))
            .unwrap();
        assert!(!off.verbose);
        assert_eq!(off.isolation, cfg!(unix));
        let unset = on.clone().with_switch_overrides(None, None).unwrap();
        assert!(unset.verbose && !unset.isolation);
        for (verbose, isolation, var) in [
            (Some("1"), None, "THREADSAFE_VERBOSE"),
            (None, Some("yes"), "THREADSAFE_ISOLATION"),
        ] {
            let e = Config::default()
                .with_switch_overrides(verbose, isolation)
                .unwrap_err();
            assert!(e.to_string().starts_with(&format!("{var}: ")), "{e}");
            assert!(e.to_string().contains("`\"on\"`"), "{e}");
        }
    }

    #[test]
    fn env_overrides_are_strict() {
        let c = Config::default()
            .with_overrides(Some("42"), Some("250ms"), Some("map"), None)
            .unwrap();
        assert_eq!(c.seed, 42);
        assert_eq!(c.budget, Duration::from_millis(250));
        assert_eq!(c.guide, Guide::Map);
        let c = Config::default()
            .with_overrides(None, None, None, Some("dfs"))
            .unwrap();
        assert_eq!(c.strategy, Strategy::Dfs { preemptions: 2 });
        let e = Config::default()
            .with_overrides(Some("-1"), None, None, None)
            .unwrap_err();
        assert!(e.to_string().contains("THREADSAFE_SEED"), "{e}");
        let e = Config::default()
            .with_overrides(None, Some("fast"), None, None)
            .unwrap_err();
        assert!(e.to_string().contains("THREADSAFE_BUDGET"), "{e}");
        let c = Config::default()
            .with_overrides(Some("random"), None, None, None)
            .unwrap();
        let _ = c.seed;
        for (written, guide) in [
            ("random", Guide::Random),
            ("pairs", Guide::Pairs),
            (" map\n", Guide::Map),
        ] {
            let c = Config::default()
                .with_overrides(None, None, Some(written), None)
                .unwrap();
            assert_eq!(c.guide, guide, "{written:?}");
        }
        let c = Config {
            guide: Guide::Pairs,
            ..Config::default()
        }
        .with_overrides(None, None, None, None)
        .unwrap();
        assert_eq!(c.guide, Guide::Pairs, "no override keeps the field");
        for bad in ["covcon", "Map", ""] {
            let e = Config::default()
                .with_overrides(None, None, Some(bad), None)
                .unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "THREADSAFE_GUIDE: `{bad:?}` is not a guide: write `\"random\"` (the default), `\"pairs\"` (CovCon: method-pair coverage) or `\"map\"` (MAPTest: memory-access-pattern coverage)"
                )
            );
        }
        let e = Config::default()
            .with_overrides(None, Some("0s"), None, None)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "THREADSAFE_BUDGET: `\"0s\"` is zero: give a positive duration, e.g. `\"500ms\"`"
        );
    }

    /// The environment variables accept exactly what the grammar accepts (and so what the
    /// attribute accepts: threadsafe-derive's tests run the same samples), with its value.
    #[test]
    fn env_overrides_follow_the_grammar() {
        for &text in knobs::samples::DURATIONS {
            let env = Config::default().with_overrides(None, Some(text), None, None);
            match knobs::parse_duration(text) {
                Ok(d) => assert_eq!(env.map(|c| c.budget), Ok(d), "{text:?}"),
                Err(e) => assert_eq!(
                    env.unwrap_err().to_string(),
                    format!("{BUDGET_ENV}: {e}"),
                    "{text:?}"
                ),
            }
        }
        for &text in knobs::samples::SEEDS {
            let env = Config::default().with_overrides(Some(text), None, None, None);
            match text.parse::<knobs::Seed>() {
                Ok(knobs::Seed::Fixed(n)) => assert_eq!(env.map(|c| c.seed), Ok(n), "{text:?}"),
                Ok(knobs::Seed::Random) => assert!(env.is_ok(), "{text:?}"),
                Err(e) => assert_eq!(
                    env.unwrap_err().to_string(),
                    format!("{SEED_ENV}: {e}"),
                    "{text:?}"
                ),
            }
        }
        for &text in knobs::samples::WORDS {
            let env = Config::default().with_overrides(None, None, None, Some(text));
            match text.parse::<knobs::Strategy>() {
                Ok(_) => assert_eq!(env.map(|c| c.strategy), text.parse(), "{text:?}"),
                Err(e) => assert_eq!(
                    env.unwrap_err().to_string(),
                    format!("{STRATEGY_ENV}: {e}"),
                    "{text:?}"
                ),
            }
            let env = Config::default().with_overrides(None, None, Some(text), None);
            match text.parse::<knobs::Guide>() {
                Ok(g) => assert_eq!(env.map(|c| c.guide.knob()), Ok(g), "{text:?}"),
                Err(e) => assert_eq!(
                    env.unwrap_err().to_string(),
                    format!("{GUIDE_ENV}: {e}"),
                    "{text:?}"
                ),
            }
        }
    }

    /// `FromStr` of each setting accepts exactly the grammar's words, and `Display` writes
    /// what `FromStr` reads back.
    #[test]
    fn settings_as_text() {
        fn same<R, K>(text: &str, rt: Result<R, ConfigError>, knob: Result<K, knobs::Error>)
        where
            R: fmt::Display + FromStr<Err = ConfigError> + PartialEq + fmt::Debug,
        {
            match (rt, knob) {
                (Ok(v), Ok(_)) => assert_eq!(v.to_string().parse::<R>(), Ok(v), "{text:?}"),
                (Err(e), Err(k)) => assert_eq!(e.to_string(), k.to_string(), "{text:?}"),
                (rt, knob) => panic!("{text:?}: {:?} but the grammar says {}", rt, knob.is_ok()),
            }
        }
        for &text in knobs::samples::WORDS {
            same(
                text,
                text.parse::<Executor>(),
                text.parse::<knobs::Executor>(),
            );
            same(
                text,
                text.parse::<ScheduleMode>(),
                text.parse::<knobs::ScheduleMode>(),
            );
            same(
                text,
                text.parse::<Strategy>(),
                text.parse::<knobs::Strategy>(),
            );
            same(text, text.parse::<Guide>(), text.parse::<knobs::Guide>());
        }
        for v in [Executor::Workers, Executor::Paper] {
            assert_eq!(v.to_string().parse(), Ok(v));
        }
        for v in [
            ScheduleMode::Auto,
            ScheduleMode::Controlled,
            ScheduleMode::Stress,
        ] {
            assert_eq!(v.to_string().parse(), Ok(v));
        }
        for v in [
            Strategy::Random,
            Strategy::Pct { depth: 1 },
            Strategy::Pct { depth: 3 },
            Strategy::Dfs { preemptions: 0 },
            Strategy::Dfs { preemptions: 2 },
        ] {
            assert_eq!(v.to_string().parse(), Ok(v));
        }
        for v in [Guide::Random, Guide::Pairs, Guide::Map] {
            assert_eq!(v.to_string().parse(), Ok(v));
        }
        assert_eq!(Strategy::Pct { depth: 4 }.to_string(), "pct4");
        assert_eq!("pct".parse(), Ok(Strategy::Pct { depth: 3 }));
        assert_eq!(ScheduleMode::Controlled.to_string(), "controlled");
    }

    #[test]
    fn replay_tokens() {
        let token = ReplayToken {
            seed: 7,
            test: 12,
            execution: 3,
            strategy: Strategy::Random,
            guide: Guide::Random,
        };
        assert_eq!(token.to_string(), "7.12.3.random");
        let pairs = ReplayToken {
            seed: u64::MAX,
            strategy: Strategy::Pct { depth: 2 },
            guide: Guide::Pairs,
            ..token
        };
        assert_eq!(pairs.to_string(), "18446744073709551615.12.3.pct2.pairs");
        for t in [token, pairs] {
            assert_eq!(t.to_string().parse(), Ok(t));
        }
        assert_eq!(
            " 7.12.3.pct\n".parse(),
            Ok(ReplayToken {
                strategy: Strategy::Pct { depth: 3 },
                ..token
            })
        );
        assert_eq!(
            "7.12.3.dfs2".parse(),
            Ok(ReplayToken {
                strategy: Strategy::Dfs { preemptions: 2 },
                ..token
            })
        );
        for bad in [
            "",
            "7.12.3",
            "7.12.3.bfs",
            "7.12.3.pct0",
            "7.12.3.random.map",
            "7.12.3.random.random",
            "7.12.3.random.pairs.x",
            "-7.12.3.random",
            "+7.12.3.random",
            "7.12.x.random",
            "7.12.3. random",
        ] {
            assert_eq!(
                bad.parse::<ReplayToken>(),
                Err(format!("{REPLAY_ENV}={bad:?} is not a replay token: use the one a report printed, e.g. `7.12.3.random`")),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn ranges_are_checked() {
        let c = Config {
            threads: 5,
            ..Config::default()
        };
        assert!(c.validate().unwrap_err().to_string().contains("threads"));
        for bad in [
            Config {
                jobs: 0,
                ..Config::default()
            },
            Config {
                shard: Some(Shard { index: 3, count: 2 }),
                ..Config::default()
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
    }
}
