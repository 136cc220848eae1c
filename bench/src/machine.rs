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

/// Load averages as the tables print them: `1.15, 0.80, 0.97`, or `unknown`.
pub fn loads(l: Option<[f64; 3]>) -> String {
    l.map_or_else(
        || "unknown".to_string(),
        |[a, b, c]| format!("{a:.2}, {b:.2}, {c:.2}"),
    )
}

/// The load averages (1, 5, 15 minutes) and the core count, as `uptime` shows them:
/// `load average: 1.15, 0.80, 0.97 (2 cores)`.
pub fn load_line() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("load average: {} ({cores} cores)", loads(load_averages()))
}

/// How much CPU other processes use while a measurement runs: the machine's busy time (from
/// `/proc/stat`) less this process's own (from `/proc/self/stat`). The load average lags by
/// a minute; this says what the machine was doing during the very measurement.
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

    /// The CPU time other processes used since [`start`](Self::start), and the wall time
    /// elapsed; `None` where `/proc` cannot be read.
    pub fn others(&self) -> Option<OtherCpu> {
        let busy = machine_busy_ticks()?.saturating_sub(self.busy);
        let own = own_ticks()?.saturating_sub(self.own);
        Some(OtherCpu {
            cpu: busy.saturating_sub(own) as f64 / TICKS_PER_SECOND,
            wall: self.wall.elapsed().as_secs_f64(),
        })
    }
}

/// The CPU time other processes used during some wall time, both in seconds. Measurements
/// add up (`+=`), so that several spans give one average.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OtherCpu {
    /// CPU seconds: the machine's busy time less this process's own.
    pub cpu: f64,
    /// Wall seconds.
    pub wall: f64,
}

impl OtherCpu {
    /// The cores other processes kept busy on average; `None` for no wall time.
    pub fn cores(self) -> Option<f64> {
        (self.wall > 0.0).then(|| self.cpu / self.wall)
    }
}

impl std::ops::AddAssign for OtherCpu {
    fn add_assign(&mut self, other: OtherCpu) {
        self.cpu += other.cpu;
        self.wall += other.wall;
    }
}

/// Cores as the tables print them: `0.85`, or `?` when unknown.
pub fn cores(cores: Option<f64>) -> String {
    cores.map_or_else(|| "?".to_string(), |c| format!("{c:.2}"))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_load_line_names_the_cores() {
        let line = load_line();
        assert!(line.starts_with("load average: "), "{line}");
        assert!(line.ends_with(" cores)"), "{line}");
    }

    #[test]
    fn the_cpu_meter_reads_proc() {
        if let Some(m) = CpuMeter::start() {
            let o = m.others().expect("readable twice");
            assert!(o.cpu >= 0.0 && o.wall >= 0.0);
        }
    }

    #[test]
    fn other_cpu_adds_up_to_an_average() {
        let mut o = OtherCpu {
            cpu: 1.0,
            wall: 4.0,
        };
        o += OtherCpu {
            cpu: 2.0,
            wall: 2.0,
        };
        assert_eq!(o.cores(), Some(0.5));
        assert_eq!(OtherCpu::default().cores(), None);
        assert_eq!(cores(o.cores()), "0.50");
        assert_eq!(cores(None), "?");
        assert_eq!(loads(Some([1.0, 0.5, 0.25])), "1.00, 0.50, 0.25");
        assert_eq!(loads(None), "unknown");
    }
}
