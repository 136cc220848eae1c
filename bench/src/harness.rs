//! What the benchmarks share beyond the corpus's measuring helpers
//! ([`threadsafe_corpus::measure`]: CPU meter, load averages, statistics, durations and
//! numbers as text): their settings from the environment, and the load line they print. No
//! timing happens here.

use std::time::Duration;

use crate::{load_averages, loads, parse_duration};

/// The environment variable that selects the quick mode (a smoke run for CI): any value but
/// empty or `0`.
pub const QUICK_ENV: &str = "BENCH_QUICK";

/// True when [`QUICK_ENV`] is set to something other than empty or `0`.
pub fn quick() -> bool {
    std::env::var(QUICK_ENV).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The `usize` in environment variable `name`, or `default` when it is unset.
///
/// # Panics
/// If the variable is set but is not an unsigned integer.
pub fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?}: expected an unsigned integer")),
        Err(_) => default,
    }
}

/// The duration in environment variable `name` (`500ms`, `2s`, `1.5s`, `10m`, or a number of
/// seconds; positive, as [`parse_duration`] reads it), or `default` when it is unset.
///
/// # Panics
/// If the variable is set but is not a positive duration.
pub fn env_duration(name: &str, default: Duration) -> Duration {
    match std::env::var(name) {
        Ok(v) => parse_duration(&v).unwrap_or_else(|e| panic!("{name}={v:?}: {e}")),
        Err(_) => default,
    }
}

/// The load averages (1, 5, 15 minutes) and the core count, as `uptime` shows them:
/// `load average: 1.15, 0.80, 0.97 (2 cores)`.
pub fn load() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("load average: {} ({cores} cores)", loads(load_averages()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_load_line_names_the_cores() {
        let line = load();
        assert!(line.starts_with("load average: "), "{line}");
        assert!(line.ends_with(" cores)"), "{line}");
    }
}
