//! What both benchmarks share: settings from the environment, the machine's load, and small
//! statistics. No timing happens here.

use std::time::Duration;

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

/// The duration in environment variable `name` (`500ms`, `2s`, `1.5`: seconds when no
/// unit), or `default` when it is unset.
///
/// # Panics
/// If the variable is set but is not a duration.
pub fn env_duration(name: &str, default: Duration) -> Duration {
    match std::env::var(name) {
        Ok(v) => parse_duration(&v)
            .unwrap_or_else(|| panic!("{name}={v:?}: expected a duration such as 500ms or 2s")),
        Err(_) => default,
    }
}

/// Parses `500ms`, `2s`, `1.5` (seconds).
pub fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    let (num, scale) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1.0)
    } else {
        (s, 1.0)
    };
    let v: f64 = num.trim().parse().ok()?;
    (v.is_finite() && v >= 0.0).then(|| Duration::from_secs_f64(v * scale))
}

/// The load averages (1, 5, 15 minutes) and the core count, as `uptime` shows them:
/// `load average: 1.15, 0.80, 0.97 (2 cores)`.
pub fn load() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let avg = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(", "))
        .unwrap_or_else(|| "unknown".to_string());
    format!("load average: {avg} ({cores} cores)")
}

/// How much CPU other processes use while a measurement runs: the machine's busy time (from
/// `/proc/stat`) less this process's own (from `/proc/self/stat`), in cores. The load average
/// lags by a minute; this says what the machine was doing during the very measurement.
#[derive(Clone, Copy, Debug)]
pub struct CpuMeter {
    wall: std::time::Instant,
    busy: u64,
    own: u64,
}

/// `/proc/stat` and `/proc/self/stat` count in USER_HZ ticks, 100 per second on Linux.
const TICKS_PER_SECOND: f64 = 100.0;

impl CpuMeter {
    /// Starts measuring; `None` where `/proc` cannot be read.
    pub fn start() -> Option<CpuMeter> {
        Some(CpuMeter {
            wall: std::time::Instant::now(),
            busy: machine_busy_ticks()?,
            own: own_ticks()?,
        })
    }

    /// The CPU time other processes used since [`start`](Self::start), in seconds, and
    /// the wall time elapsed.
    pub fn others(&self) -> Option<(f64, f64)> {
        let busy = machine_busy_ticks()?.saturating_sub(self.busy);
        let own = own_ticks()?.saturating_sub(self.own);
        Some((
            busy.saturating_sub(own) as f64 / TICKS_PER_SECOND,
            self.wall.elapsed().as_secs_f64(),
        ))
    }
}

/// Busy ticks of all CPUs: everything in `/proc/stat`'s `cpu` line but idle and iowait.
fn machine_busy_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let v: Vec<u64> = line
        .split_whitespace()
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    // user nice system idle iowait irq softirq steal (guest time is in user already)
    let busy = v.iter().take(8).sum::<u64>() - v.get(3)? - v.get(4)?;
    Some(busy)
}

/// This process's user + system ticks, all threads.
fn own_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) in parentheses: state is
    // field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// Other processes' CPU use over a measurement in cores (`0.85`); `?` when unknown.
pub fn cores(others: Option<(f64, f64)>) -> String {
    match others {
        Some((cpu, wall)) if wall > 0.0 => format!("{:.2}", cpu / wall),
        _ => "?".to_string(),
    }
}

/// The median of `values` (the mean of the two middle ones for an even count); `None` when
/// empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// Seconds with a precision that suits their size: `0.0042 s`, `0.153 s`, `12.3 s`.
pub fn secs(s: f64) -> String {
    if s < 0.01 {
        format!("{s:.4} s")
    } else if s < 10.0 {
        format!("{s:.3} s")
    } else {
        format!("{s:.1} s")
    }
}

/// A rate with thousands separators: `1,234,567`.
pub fn thousands(v: f64) -> String {
    let digits = format!("{:.0}", v.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("2s"), Some(Duration::from_secs(2)));
        assert_eq!(parse_duration("1.5"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_duration("fast"), None);
        assert_eq!(parse_duration("-1s"), None);
    }

    #[test]
    fn the_cpu_meter_reads_proc() {
        if let Some(m) = CpuMeter::start() {
            let (cpu, wall) = m.others().expect("readable twice");
            assert!(cpu >= 0.0 && wall >= 0.0);
        }
        assert_eq!(cores(None), "?");
        assert_eq!(cores(Some((1.0, 2.0))), "0.50");
    }

    #[test]
    fn formatting() {
        assert_eq!(thousands(1234567.4), "1,234,567");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(secs(0.1534), "0.153 s");
        assert_eq!(secs(12.34), "12.3 s");
    }
}
