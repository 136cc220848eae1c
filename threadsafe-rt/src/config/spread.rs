//! How a long hunt spreads: over the cores ([`Config::jobs`]), over the machines of a CI
//! matrix ([`Config::shard`], [`Shard`]), both through one seed stream
//! ([`Config::hunt_seeds`]); and where the regressions file lives
//! ([`Config::regressions`]).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use threadsafe_knobs as knobs;

use super::{Config, ConfigError, JOBS_ENV, REGRESSIONS_DIR, REGRESSIONS_ENV, SHARD_ENV};

/// This machine's part of the seed stream: shard `index` of `count` (from 1), written `k/n`
/// (its `FromStr` and `Display`), as `THREADSAFE_SHARD` takes it. See [`Config::hunt_seeds`].
///
/// ```
/// use threadsafe_rt::Shard;
///
/// assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
/// assert_eq!(Shard { index: 1, count: 2 }.to_string(), "1/2");
/// assert!("3/2".parse::<Shard>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    /// Which part, from 1 to `count`.
    pub index: usize,
    /// How many parts the stream is split into, at least 1.
    pub count: usize,
}

impl FromStr for Shard {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let knobs::Shard { index, count } = s.parse()?;
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        knobs::Shard {
            index: self.index,
            count: self.count,
        }
        .fmt(f)
    }
}

impl Config {
    /// The overrides of `THREADSAFE_JOBS`, `THREADSAFE_SHARD` and `THREADSAFE_REGRESSIONS`
    /// (`on` keeps a folder already set, else takes [`Config::default_regressions_dir`]).
    pub(crate) fn with_spread_overrides(
        mut self,
        jobs: Option<&str>,
        shard: Option<&str>,
        regressions: Option<&str>,
    ) -> Result<Self, ConfigError> {
        let in_var = |var: &'static str| move |e: knobs::Error| ConfigError(format!("{var}: {e}"));
        if let Some(j) = jobs {
            self.jobs = knobs::parse_jobs(j).map_err(in_var(JOBS_ENV))?;
        }
        if let Some(s) = shard {
            let knobs::Shard { index, count } = s.parse().map_err(in_var(SHARD_ENV))?;
            self.shard = Some(Shard { index, count });
        }
        if let Some(r) = regressions {
            match r.parse().map_err(in_var(REGRESSIONS_ENV))? {
                knobs::Switch::On => {
                    self.regressions
                        .get_or_insert_with(Config::default_regressions_dir);
                }
                knobs::Switch::Off => self.regressions = None,
            }
        }
        self.validate()?;
        Ok(self)
    }

    /// `threadsafe-regressions` in the folder of the crate under test: `CARGO_MANIFEST_DIR`
    /// when it is set (`cargo test` and `cargo nextest` set it), else the current directory.
    pub fn default_regressions_dir() -> PathBuf {
        std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default()
            .join(REGRESSIONS_DIR)
    }

    /// The seeds of the hunts this check runs, in job order.
    ///
    /// All of them come from one *seed stream* of the base seed [`seed`](Config::seed):
    /// the seed at index 0 is the base seed itself, and the seed at index `i > 0` is derived
    /// from the base seed and `i` (a splitmix64 mix). Job `j` (from 0) of shard `k` of `n`
    /// (from 1) takes index `i = (k - 1) + n * j`; without a shard, `n = 1` and job `j` takes
    /// index `j`. So the default check (one job, no shard) hunts with the base seed, as it
    /// always did; the shards of a CI matrix take disjoint indices, and together the `n`
    /// shards of `m` jobs each hunt exactly the seeds one machine with `n * m` jobs would.
    /// A hunt's seed alone (`THREADSAFE_SEED=<seed>`, one job, no shard) replays that hunt.
    ///
    /// ```
    /// use threadsafe_rt::{Config, Shard};
    ///
    /// let mut config = Config::default();
    /// config.seed = 7;
    /// config.jobs = 4;
    /// let all = config.hunt_seeds();
    /// assert_eq!(all[0], 7);
    ///
    /// config.jobs = 2;
    /// config.shard = Some(Shard { index: 1, count: 2 });
    /// assert_eq!(config.hunt_seeds(), [all[0], all[2]]);
    /// config.shard = Some(Shard { index: 2, count: 2 });
    /// assert_eq!(config.hunt_seeds(), [all[1], all[3]]);
    /// ```
    pub fn hunt_seeds(&self) -> Vec<u64> {
        let (k, n) = self.shard.map_or((1, 1), |s| (s.index, s.count));
        (0..self.jobs)
            .map(|j| stream_seed(self.seed, ((k - 1) + n * j) as u64))
            .collect()
    }
}

/// The seed at `index` of the seed stream of `base` (see [`Config::hunt_seeds`]).
fn stream_seed(base: u64, index: u64) -> u64 {
    /// Keeps the stream apart from the other seeds derived from a base (rounds, schedules).
    const STREAM: u32 = 0x5eed_57e0;
    if index == 0 {
        return base;
    }
    crate::seed::derive(base ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03), STREAM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_overrides_are_strict() {
        let c = Config::default()
            .with_spread_overrides(Some("3"), Some(" 2/4\n"), Some("on"))
            .unwrap();
        assert_eq!(c.jobs, 3);
        assert_eq!(c.shard, Some(Shard { index: 2, count: 4 }));
        assert_eq!(c.regressions, Some(Config::default_regressions_dir()));
        let custom = Config {
            regressions: Some(PathBuf::from("/elsewhere")),
            ..Config::default()
        };
        let on = custom.clone().with_spread_overrides(None, None, Some("on"));
        assert_eq!(
            on.unwrap().regressions,
            custom.regressions,
            "on keeps a folder"
        );
        let off = custom.with_spread_overrides(None, None, Some("off"));
        assert_eq!(off.unwrap().regressions, None);
        for (jobs, shard, switch, message) in [
            (Some("0"), None, None, "THREADSAFE_JOBS: `\"0\"` is no job: write a positive number of hunts to run at once, e.g. `\"4\"`"),
            (None, Some("0/2"), None, "THREADSAFE_SHARD: `\"0/2\"`: shards are numbered from 1: write `k/n` with k from 1 to n, e.g. `\"1/4\"`"),
            (None, Some("3/2"), None, "THREADSAFE_SHARD: `\"3/2\"`: there is no shard 3 of 2: write `k/n` with k from 1 to n, e.g. `\"1/4\"`"),
            (None, Some("a/b"), None, "THREADSAFE_SHARD: `\"a/b\"` is not a shard: write `k/n` with k from 1 to n, e.g. `\"1/4\"`"),
            (None, None, Some("no"), "THREADSAFE_REGRESSIONS: `\"no\"` is not a switch: write `\"on\"` (the default) or `\"off\"`"),
        ] {
            let e = Config::default()
                .with_spread_overrides(jobs, shard, switch)
                .unwrap_err();
            assert_eq!(e.to_string(), message);
        }
        for &text in knobs::samples::JOBS {
            let env = Config::default().with_spread_overrides(Some(text), None, None);
            match knobs::parse_jobs(text) {
                Ok(n) => assert_eq!(env.map(|c| c.jobs), Ok(n), "{text:?}"),
                Err(e) => assert_eq!(env.unwrap_err().to_string(), format!("{JOBS_ENV}: {e}")),
            }
        }
        for &text in knobs::samples::SHARDS {
            let env = Config::default().with_spread_overrides(None, Some(text), None);
            match text.parse::<Shard>() {
                Ok(s) => assert_eq!(env.map(|c| c.shard), Ok(Some(s)), "{text:?}"),
                Err(e) => assert_eq!(env.unwrap_err().to_string(), format!("{SHARD_ENV}: {e}")),
            }
        }
        for &text in knobs::samples::SWITCHES {
            let env = Config::default().with_spread_overrides(None, None, Some(text));
            assert_eq!(
                env.is_ok(),
                text.parse::<knobs::Switch>().is_ok(),
                "{text:?}"
            );
        }
    }

    /// The shards of a stream take disjoint seeds, which together are the seeds of one
    /// machine running all their jobs; index 0 is the base seed.
    #[test]
    fn shards_split_the_seed_stream() {
        let base = Config {
            seed: 42,
            ..Config::default()
        };
        assert_eq!(
            base.hunt_seeds(),
            [42],
            "the default check hunts with its seed"
        );
        let whole = Config {
            jobs: 12,
            ..base.clone()
        }
        .hunt_seeds();
        let unique: std::collections::HashSet<u64> = whole.iter().copied().collect();
        assert_eq!(unique.len(), 12);
        let mut union = Vec::new();
        for k in 1..=3 {
            let shard = Config {
                jobs: 4,
                shard: Some(Shard { index: k, count: 3 }),
                ..base.clone()
            }
            .hunt_seeds();
            assert_eq!(shard[0], whole[k - 1]);
            union.extend(shard);
        }
        union.sort_unstable();
        let mut all = whole.clone();
        all.sort_unstable();
        assert_eq!(union, all);
        assert_ne!(
            stream_seed(0, 1),
            crate::seed::derive(0, 1),
            "apart from the rounds' seeds"
        );
    }
}
