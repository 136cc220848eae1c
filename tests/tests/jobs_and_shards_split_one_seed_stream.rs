//! `THREADSAFE_JOBS` runs several hunts at once and `THREADSAFE_SHARD` gives a machine its
//! part of the same seed stream: the shards of a CI matrix hunt disjoint seeds, together the
//! seeds of one machine running all their jobs, and whichever hunt finds a violation, its
//! report names the seed that replays that hunt alone. The type is the `threadsafe_rt::sync`
//! port of `StringBuffer` (every execution controlled, so a hunt does the same thing every
//! time, whatever runs beside it).

use std::collections::HashSet;
use std::time::Duration;

use threadsafe_corpus::contege::sync_locks::string_buffer::{FixedStringBuffer, StringBuffer};
use threadsafe_rt::{check, Config, Report, Shard, Strategy};
use threadsafe_tests::expect;
use threadsafe_tests::harness;

/// Only a guard against a hang (see `regressions_file_replays_a_find_first`).
const BUDGET: Duration = Duration::from_secs(60);

fn config(seed: u64, jobs: usize, shard: Option<(usize, usize)>) -> Config {
    let mut config = harness::race_hunt(seed, Strategy::Random, BUDGET);
    config.jobs = jobs;
    config.shard = shard.map(|(index, count)| Shard { index, count });
    config
}

/// Asserts that `a` and `b` report the same violation, found by the same hunt in the same
/// way: the same failure, test, interleaving, token, and counts until found.
fn same_find(a: &Report, b: &Report) {
    let (va, vb) = (expect::violation(a), expect::violation(b));
    let context = format!("\n{a}\nand\n{b}");
    assert_eq!(va.failure, vb.failure, "{context}");
    assert_eq!(va.reproducer, vb.reproducer, "{context}");
    assert_eq!(va.interleaving, vb.interleaving, "{context}");
    assert_eq!(va.replay, vb.replay, "{context}");
    assert_eq!(
        (va.tests_until_found, va.executions_until_found),
        (vb.tests_until_found, vb.executions_until_found),
        "{context}"
    );
    assert_eq!(a.seed, b.seed, "{context}");
}

#[test]
fn shards_hunt_disjoint_seeds_which_together_are_one_machines() {
    let mut correct = config(5, 2, Some((1, 2)));
    correct.budget = Duration::from_millis(300);
    let first = check::<FixedStringBuffer>(&correct);
    correct.shard = Some(Shard { index: 2, count: 2 });
    let second = check::<FixedStringBuffer>(&correct);
    for r in [&first, &second] {
        expect::no_violation(r);
        assert_eq!(r.hunts.seeds.len(), 2, "{r}");
    }
    let a: HashSet<u64> = first.hunts.seeds.iter().copied().collect();
    let b: HashSet<u64> = second.hunts.seeds.iter().copied().collect();
    assert!(a.is_disjoint(&b), "{a:?} {b:?}");
    let whole: HashSet<u64> = config(5, 4, None).hunt_seeds().into_iter().collect();
    assert_eq!(&a | &b, whole);
    assert!(a.contains(&5), "shard 1 takes the base seed");
    assert!(
        first.to_string().contains(&format!(
            "  hunts:   2 at once in shard 1/2 of the seed stream, seeds 5, {}",
            first.hunts.seeds[1]
        )),
        "{first}"
    );
}

#[test]
fn two_shards_find_what_one_job_finds_and_each_find_replays_alone() {
    let alone = check::<StringBuffer>(&config(0, 1, None));
    let first = check::<StringBuffer>(&config(0, 1, Some((1, 2))));
    let second = check::<StringBuffer>(&config(0, 1, Some((2, 2))));
    // Shard 1 of 2 hunts the base seed: the one job's find, exactly.
    same_find(&alone, &first);
    // Shard 2 hunts another seed, and its report names it: replayed alone, the same find.
    let seed = second.seed;
    assert_ne!(seed, 0);
    assert_eq!(second.hunts.seeds, [seed]);
    let replayed = check::<StringBuffer>(&config(seed, 1, None));
    same_find(&second, &replayed);
    // Together, the seeds of one machine with two jobs.
    assert_eq!(
        config(0, 2, None).hunt_seeds(),
        [first.hunts.seeds[0], second.hunts.seeds[0]]
    );
}

#[test]
fn two_jobs_find_the_bug_and_name_the_seed_that_replays_it_alone() {
    let both = check::<StringBuffer>(&config(0, 2, None));
    let v = expect::violation(&both);
    let j = both.hunts.found_by.expect("a job found it");
    assert_eq!(both.hunts.seeds, config(0, 2, None).hunt_seeds());
    assert_eq!(both.seed, both.hunts.seeds[j], "{both}");
    assert!(both.tests >= v.tests_until_found, "{both}");
    let shown = both.to_string();
    assert!(
        shown.contains(&format!(
            "  hunts:   job {} of 2 found it; THREADSAFE_SEED={} with one job and no shard",
            j + 1,
            both.seed
        )),
        "{shown}"
    );
    // `THREADSAFE_SEED=<seed>` with one job: the same hunt, the same find.
    let alone = check::<StringBuffer>(&config(both.seed, 1, None));
    same_find(&both, &alone);
    // The token replays it too, jobs or not.
    let again = harness::replays_exactly::<StringBuffer>(&config(0, 2, None), &both);
    assert_eq!(again.seed, both.seed);
}
