//! What the controlled-scheduler tests share: their configuration, the replay round trip,
//! and the time-to-bug figures they print.

use std::fmt::Write as _;
use std::time::Duration;

use threadsafe_rt::{check, Config, Report, ScheduleMode, Strategy, Subject};

use crate::expect;

/// A controlled check of seed `seed` with `strategy`: every execution runs one thread at a
/// time, and `budget` bounds the check.
pub fn controlled(seed: u64, strategy: Strategy, budget: Duration) -> Config {
    let mut config = Config::default();
    config.schedule = ScheduleMode::Controlled;
    config.strategy = strategy;
    config.seed = seed;
    config.budget = budget;
    config
}

/// Asserts that `T` passes 100 controlled tests (random schedules, 10 s at most) in each
/// of seeds 0–2: a twin's check.
pub fn quiet_under_control<T: Subject>() {
    for seed in 0..3 {
        let mut config = controlled(seed, Strategy::Random, Duration::from_secs(10));
        config.tests = Some(100);
        expect::no_violation(&check::<T>(&config));
    }
}

/// [`controlled`] tuned for the finds of a panic inside a racy method:
///
/// - `conc_execs = 4`: under control, a generated test that can fail does so within its
///   first few schedules (with the default 100, the failing execution of most seeds is among
///   the first 10), while the generator needs tens to hundreds of tests to pair the racy
///   call with a conflicting one; fewer executions per test find the bug sooner (on the
///   `sync` ports: see decision 0081).
/// - `post_calls = 0`: no sequential call after the threads join, so the only failure is the
///   panic inside the racy method. (With a post call, PCT also finds a lost update of two
///   concurrent `sb.insert(1, &sb)`, which a later `delete_char_at` trips over: a true
///   violation of the same non-atomic `insert`, reported at another line.)
/// - `results = false`: the paper's oracle, panics and deadlocks only. The results oracle
///   finds that lost update from the return values alone (two concurrent `insert`s, then a
///   `len` one short), often before the panic; `finds_wrong_results.rs` is where results
///   are hunted.
pub fn race_hunt(seed: u64, strategy: Strategy, budget: Duration) -> Config {
    let mut config = controlled(seed, strategy, budget);
    config.conc_execs = 4;
    config.post_calls = 0;
    config.results = false;
    config
}

/// The name a replay token gives `strategy` (its last part).
pub fn token_tag(strategy: Strategy) -> String {
    match strategy {
        Strategy::Pct { depth } => format!("pct{depth}"),
        Strategy::Dfs { preemptions } => format!("dfs{preemptions}"),
        _ => "random".to_string(),
    }
}

/// Asserts that the violation of `report` (a controlled check with `config`) carries a
/// replay token naming the check's seed and strategy, and an interleaving; returns the token.
pub fn replay_token<'r>(config: &Config, report: &'r Report) -> &'r str {
    let v = expect::violation(report);
    let token = v
        .replay
        .as_deref()
        .unwrap_or_else(|| panic!("a controlled find without a replay token:\n{report}"));
    assert!(
        token.starts_with(&format!("{}.", config.seed))
            && token.ends_with(&format!(".{}", token_tag(config.strategy))),
        "token {token:?} does not name seed {} and {:?}:\n{report}",
        config.seed,
        config.strategy
    );
    let interleaving = v
        .interleaving
        .as_deref()
        .unwrap_or_else(|| panic!("a controlled find without an interleaving:\n{report}"));
    assert!(
        interleaving.contains("thread 1") && interleaving.contains("thread 2"),
        "the interleaving does not show both threads:\n{report}"
    );
    token
}

/// Replays the violation of `report` with `config` (the generation parameters the check
/// used; seed and strategy come from the token) and asserts that the replay reports the same
/// failure, in the same interleaving, in the same generated test, with the same token.
/// Returns the replay's report.
pub fn replays_exactly<T: Subject>(config: &Config, report: &Report) -> Report {
    let found = expect::violation(report);
    let token = found
        .replay
        .clone()
        .unwrap_or_else(|| panic!("nothing to replay:\n{report}"));
    let mut replay = config.clone();
    replay.replay = Some(token.clone());
    let again = check::<T>(&replay);
    let Some(v) = again.violation() else {
        panic!("replay {token} found nothing:\n{again}\nThe original:\n{report}")
    };
    assert_eq!(
        v.failure, found.failure,
        "replay {token} failed differently:\n{again}\nThe original:\n{report}"
    );
    assert_eq!(
        v.interleaving, found.interleaving,
        "replay {token} interleaved differently:\n{again}\nThe original:\n{report}"
    );
    assert_eq!(v.replay.as_deref(), Some(token.as_str()), "{again}");
    assert_eq!(
        v.tests_until_found, found.tests_until_found,
        "replay {token} ran another test:\n{again}\nThe original:\n{report}"
    );
    assert_eq!(again.seed, report.seed, "{again}");
    again
}

/// Times to bug of one type under one strategy, seed by seed, to print.
#[derive(Debug, Default)]
pub struct Finds {
    label: String,
    /// Seed, time to bug, generated tests until found, replay time.
    rows: Vec<(u64, Duration, u64, Duration)>,
}

impl Finds {
    /// An empty record named `label` (e.g. `"StringBuffer, Random"`).
    pub fn new(label: impl Into<String>) -> Self {
        Finds {
            label: label.into(),
            rows: Vec::new(),
        }
    }

    /// Records the find of seed `seed` (its `report`) and its replay's report.
    pub fn record(&mut self, seed: u64, report: &Report, replay: &Report) {
        let v = expect::violation(report);
        self.rows
            .push((seed, v.time_to_bug, v.tests_until_found, replay.elapsed));
    }

    /// The seeds recorded so far, fewest tests until found first.
    pub fn seeds_by_tests(&self) -> Vec<u64> {
        let mut rows = self.rows.clone();
        rows.sort_by_key(|r| (r.2, r.0));
        rows.iter().map(|r| r.0).collect()
    }

    /// One line per seed, then min / median / max of the time to bug, of the tests until
    /// found, and of the replay time.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for (seed, time, tests, replay) in &self.rows {
            let _ = writeln!(
                out,
                "{}: seed {seed:>2}: found after {tests:>4} tests in {:>8.1} ms; replayed in {:>8.1} ms",
                self.label,
                ms(*time),
                ms(*replay)
            );
        }
        let times = stats(self.rows.iter().map(|r| ms(r.1)));
        let tests = stats(self.rows.iter().map(|r| r.2 as f64));
        let replays = stats(self.rows.iter().map(|r| ms(r.3)));
        let _ = writeln!(
            out,
            "{}: {} seeds: time to bug min/median/max {:.1}/{:.1}/{:.1} ms; tests {:.0}/{:.0}/{:.0}; replay {:.1}/{:.1}/{:.1} ms",
            self.label,
            self.rows.len(),
            times.0,
            times.1,
            times.2,
            tests.0,
            tests.1,
            tests.2,
            replays.0,
            replays.1,
            replays.2
        );
        out
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Min, median (the upper one of an even count) and max; zeros when empty.
fn stats(values: impl Iterator<Item = f64>) -> (f64, f64, f64) {
    let mut v: Vec<f64> = values.collect();
    if v.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    v.sort_by(f64::total_cmp);
    (v[0], v[v.len() / 2], v[v.len() - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_are_min_median_max() {
        assert_eq!(stats([3.0, 1.0, 2.0].into_iter()), (1.0, 2.0, 3.0));
        assert_eq!(stats(std::iter::empty()), (0.0, 0.0, 0.0));
    }

    #[test]
    fn token_tags_match_the_runtime_s() {
        assert_eq!(token_tag(Strategy::Random), "random");
        assert_eq!(token_tag(Strategy::Pct { depth: 3 }), "pct3");
        assert_eq!(token_tag(Strategy::Dfs { preemptions: 2 }), "dfs2");
    }
}
