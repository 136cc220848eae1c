//! The knobs of a check: [`Config`], its defaults, and the environment overrides.

use std::fmt;
use std::time::Duration;

pub use crate::coverage::Guide;

/// Environment variable that overrides [`Config::seed`] (a `u64`, or `random`).
pub const SEED_ENV: &str = "THREADSAFE_SEED";
/// Environment variable that overrides [`Config::budget`] (a duration such as `500ms`, `30s`, `10m`).
pub const BUDGET_ENV: &str = "THREADSAFE_BUDGET";
/// Environment variable that overrides [`Config::guide`] (`random`, `pairs` or `map`).
pub const GUIDE_ENV: &str = "THREADSAFE_GUIDE";
/// Environment variable that replays one controlled execution: the token a report printed.
pub const REPLAY_ENV: &str = "THREADSAFE_REPLAY";

/// How the suffixes of a test are run concurrently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Executor {
    /// Persistent worker threads released together by a spin barrier, executions back to
    /// back: the harness that makes races show up (the default).
    Stress,
    /// The original tool's way, for comparison: a new thread per suffix per execution,
    /// started with `std::sync::Barrier`.
    Paper,
}

/// How the threads of an execution are scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScheduleMode {
    /// Controlled when the type reaches scheduling points (a `threadsafe_rt::sync`
    /// primitive, or statements of methods annotated in a test build), stress otherwise.
    Auto,
    /// One thread at a time, switching at scheduling points as the strategy decides: a seed
    /// and an execution number replay the same interleaving.
    Controlled,
    /// Free-running threads (with noise at statement points).
    Stress,
}

/// Who runs next at a scheduling point of a controlled execution.
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
    /// Attempts to append a state-changing call to a new prefix (5).
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
}

impl Default for Config {
    fn default() -> Self {
        Config {
            prefixes: 25,
            suffixes: 500,
            state_changer_tries: 5,
            cut_call_tries: 2,
            conc_execs: 100,
            threads: 2,
            post_calls: 1,
            seed: 0,
            budget: Duration::from_secs(1),
            deadlock_timeout: None,
            executor: Executor::Stress,
            schedule: ScheduleMode::Auto,
            strategy: Strategy::Random,
            replay: None,
            guide: Guide::Random,
            stop_when_covered: false,
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

impl Config {
    /// Applies `THREADSAFE_SEED`, `THREADSAFE_BUDGET` and `THREADSAFE_GUIDE` from the
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
        )
    }

    pub(crate) fn with_overrides(
        mut self,
        seed: Option<&str>,
        budget: Option<&str>,
        guide: Option<&str>,
    ) -> Result<Self, ConfigError> {
        if let Some(s) = seed {
            let s = s.trim();
            self.seed = if s == "random" {
                random_seed()
            } else {
                s.parse().map_err(|_| {
                    ConfigError(format!(
                        "{SEED_ENV}={s:?} is not a seed: expected an unsigned 64-bit integer or `random`"
                    ))
                })?
            };
        }
        if let Some(b) = budget {
            self.budget =
                parse_duration(b).map_err(|e| ConfigError(format!("{BUDGET_ENV}={b:?}: {e}")))?;
        }
        if let Some(g) = guide {
            self.guide = match g.trim() {
                "random" => Guide::Random,
                "pairs" => Guide::Pairs,
                "map" => Guide::Map,
                _ => {
                    return Err(ConfigError(format!(
                        "{GUIDE_ENV}={g:?} is not a guide: expected `random`, `pairs` or `map`"
                    )))
                }
            };
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
        if !(2..=4).contains(&self.threads) {
            return Err(ConfigError(format!(
                "config `threads` must be 2, 3 or 4, not {}",
                self.threads
            )));
        }
        Ok(())
    }
}

fn random_seed() -> u64 {
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

/// Parses `500ms`, `2s`, `1.5s`, `10m`: a number and a unit (`ms`, `s`, `m`).
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(|| format!("`{s}` has no unit: write e.g. `500ms`, `2s` or `10m`"))?;
    let (num, unit) = s.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a duration: write e.g. `500ms`, `2s` or `10m`"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" | "min" => n * 60.0,
        _ => {
            return Err(format!(
                "unknown unit `{unit}` in `{s}`: use `ms`, `s` or `m`"
            ))
        }
    };
    Ok(Duration::from_secs_f64(secs))
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
    fn durations() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert!(parse_duration("10").unwrap_err().contains("no unit"));
        assert!(parse_duration("3h").unwrap_err().contains("unknown unit"));
        assert!(parse_duration("s").is_err());
    }

    #[test]
    fn env_overrides_are_strict() {
        let c = Config::default()
            .with_overrides(Some("42"), Some("250ms"), Some("map"))
            .unwrap();
        assert_eq!(c.seed, 42);
        assert_eq!(c.budget, Duration::from_millis(250));
        assert_eq!(c.guide, Guide::Map);
        let e = Config::default()
            .with_overrides(Some("-1"), None, None)
            .unwrap_err();
        assert!(e.to_string().contains("THREADSAFE_SEED"), "{e}");
        let e = Config::default()
            .with_overrides(None, Some("fast"), None)
            .unwrap_err();
        assert!(e.to_string().contains("THREADSAFE_BUDGET"), "{e}");
        let c = Config::default()
            .with_overrides(Some("random"), None, None)
            .unwrap();
        let _ = c.seed;
        for (written, guide) in [
            ("random", Guide::Random),
            ("pairs", Guide::Pairs),
            (" map\n", Guide::Map),
        ] {
            let c = Config::default()
                .with_overrides(None, None, Some(written))
                .unwrap();
            assert_eq!(c.guide, guide, "{written:?}");
        }
        let c = Config {
            guide: Guide::Pairs,
            ..Config::default()
        }
        .with_overrides(None, None, None)
        .unwrap();
        assert_eq!(c.guide, Guide::Pairs, "no override keeps the field");
        for bad in ["covcon", "Map", ""] {
            let e = Config::default()
                .with_overrides(None, None, Some(bad))
                .unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "THREADSAFE_GUIDE={bad:?} is not a guide: expected `random`, `pairs` or `map`"
                )
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
    }
}
