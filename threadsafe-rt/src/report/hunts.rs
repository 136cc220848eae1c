//! The hunts a check ran at once ([`Hunts`]): `THREADSAFE_JOBS` of them, in
//! `THREADSAFE_SHARD`'s part of the seed stream.

use std::fmt;

use crate::config::{Shard, JOBS_ENV, SEED_ENV, SHARD_ENV};

/// The hunts a check ran at once: the shard of the seed stream they came from, the seed of
/// each (see [`Config::hunt_seeds`](crate::Config::hunt_seeds)), and which one found the
/// violation.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Hunts {
    /// The part of the seed stream (`None`: the whole stream).
    pub shard: Option<Shard>,
    /// The seed of each hunt, in job order; one hunt, with the check's seed, by default.
    pub seeds: Vec<u64>,
    /// The hunt (an index into `seeds`) that found the violation.
    pub found_by: Option<usize>,
}

impl Hunts {
    /// One hunt, with `seed`, over the whole stream: the default check.
    pub(crate) fn single(seed: u64) -> Self {
        Hunts {
            shard: None,
            seeds: vec![seed],
            found_by: None,
        }
    }

    /// True for more than the default check: several jobs, or a shard.
    pub(crate) fn spread(&self) -> bool {
        self.seeds.len() > 1 || self.shard.is_some()
    }
}

impl fmt::Display for Hunts {
    /// The report's line `  hunts:`, only for several jobs or a shard.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.spread() {
            return Ok(());
        }
        let shard = self
            .shard
            .map(|s| format!(" in shard {s} of the seed stream"))
            .unwrap_or_default();
        let n = self.seeds.len();
        match self.found_by {
            Some(j) => writeln!(
                f,
                "  hunts:   job {} of {n}{shard} found it; {SEED_ENV}={} with one job and no shard \
                 (unset {JOBS_ENV} and {SHARD_ENV}) replays that hunt alone; the MAP-coverage \
                 below is that job's",
                j + 1,
                self.seeds[j]
            ),
            None => {
                let seeds: Vec<String> = self.seeds.iter().map(u64::to_string).collect();
                writeln!(
                    f,
                    "  hunts:   {n} at once{shard}, seeds {}; the MAP-coverage below is job 1's",
                    seeds.join(", ")
                )
            }
        }
    }
}
