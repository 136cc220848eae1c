//! What the machine was doing: its CPU model, its load averages, and the CPU time other
//! processes took while a measurement ran. Numbers mean little without them: a stress run
//! needs two free cores.

/// The CPU model from `/proc/cpuinfo` (`model name`, or `Hardware`/`Processor` on some
/// ARM machines); `unknown` where it cannot be read.
pub fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    ["model name", "Hardware", "Processor", "cpu model"]
        .iter()
        .find_map(|key| {
            info.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == *key && !v.trim().is_empty()).then(|| v.trim().to_string())
            })
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// The load averages (1, 5, 15 minutes) from `/proc/loadavg`.
pub fn load_averages() -> Option<[f64; 3]> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = s.split_whitespace().map(|x| x.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

pub(super) fn loads(l: Option<[f64; 3]>) -> String {
    l.map_or_else(
        || "unknown".to_string(),
        |[a, b, c]| format!("{a:.2}, {b:.2}, {c:.2}"),
    )
}

/// How much CPU other processes use while the harness runs: the machine's busy time (from
/// `/proc/stat`) less this process's own (from `/proc/self/stat`).
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

    /// The cores other processes kept busy on average since [`start`](Self::start).
    pub fn others(&self) -> Option<f64> {
        let busy = machine_busy_ticks()?.saturating_sub(self.busy);
        let own = own_ticks()?.saturating_sub(self.own);
        let wall = self.wall.elapsed().as_secs_f64();
        (wall > 0.0).then(|| busy.saturating_sub(own) as f64 / TICKS_PER_SECOND / wall)
    }
}

/// Busy ticks of all CPUs: `/proc/stat`'s `cpu` line but idle and iowait.
fn machine_busy_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let v: Vec<u64> = line
        .split_whitespace()
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    // user nice system idle iowait irq softirq steal (guest time is in user already)
    Some(v.iter().take(8).sum::<u64>() - v.get(3)? - v.get(4)?)
}

/// This process's user + system ticks, all threads.
fn own_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // After the command name (in parentheses, may hold spaces): utime and stime are the
    // 12th and 13th fields.
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}
