//! The lines above the tables: the date, the machine, the command and the settings of the
//! run, kept in [`Meta`] for the JSON as well.

use std::fmt::Write as _;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::machine::{cores, loads};
use super::model::{guide_name, schedule_label, strategy_label};
use super::settings::Settings;
use super::units::secs;

/// The run's context, printed above the table and written to the JSON: the machine and
/// the command, and the harness's settings `S` (time_to_bug's by default).
#[derive(Clone, Debug, PartialEq)]
pub struct Meta<S = Settings> {
    /// The date (UTC, `YYYY-MM-DD`).
    pub date: String,
    /// Logical cores.
    pub cores: usize,
    /// The CPU model.
    pub cpu: String,
    /// Load averages (1, 5, 15 minutes) at the start.
    pub load_before: Option<[f64; 3]>,
    /// Load averages at the end.
    pub load_after: Option<[f64; 3]>,
    /// CPU other processes used over the whole run, in cores.
    pub other_cpu: Option<f64>,
    /// The command as typed.
    pub command: String,
    /// The settings.
    pub settings: S,
    /// The subjects run, by name.
    pub subjects: Vec<String>,
    /// Where the JSON goes, for a harness that writes one.
    pub json: Option<String>,
    /// Wall time of the whole run.
    pub wall: Duration,
}

/// `YYYY-MM-DD` (UTC) of `time`.
pub fn utc_date(time: SystemTime) -> String {
    let days = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The line that says what the machine was and did: `- machine: 2 cores, <model>; load
/// average … before, … after; other processes' CPU during the run: … cores`.
pub fn machine_line(
    cores_: usize,
    cpu: &str,
    load_before: Option<[f64; 3]>,
    load_after: Option<[f64; 3]>,
    other_cpu: Option<f64>,
) -> String {
    format!(
        "- machine: {cores_} cores, {cpu}; load average {} before, {} after; other processes' CPU during the run: {} cores",
        loads(load_before),
        loads(load_after),
        cores(other_cpu)
    )
}

/// The command as the user typed it: `cargo bench -p threadsafe-bench --bench <bench>`
/// and the arguments after `--` (without the `--bench` that cargo adds), quoted for a
/// shell where needed.
pub fn command_line(bench: &str, args: &[String]) -> String {
    let mut cmd = format!("cargo bench -p threadsafe-bench --bench {bench}");
    let user: Vec<&String> = args.iter().filter(|a| *a != "--bench").collect();
    if !user.is_empty() {
        cmd.push_str(" --");
        for a in user {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_=.,/:@%+".contains(c));
            if plain {
                cmd.push(' ');
                cmd.push_str(a);
            } else {
                cmd.push_str(&format!(" '{}'", a.replace('\'', r"'\''")));
            }
        }
    }
    cmd
}

/// The first lines of a benchmark's output: `## title (date)`, the machine, the command.
pub fn title_lines<S>(title: &str, meta: &Meta<S>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## {title} ({})", meta.date);
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{}",
        machine_line(
            meta.cores,
            &meta.cpu,
            meta.load_before,
            meta.load_after,
            meta.other_cpu
        )
    );
    let _ = writeln!(out, "- command: `{}`", meta.command);
    out
}

/// The lines above the table: date, machine, command and settings.
pub fn header(meta: &Meta) -> String {
    let s = &meta.settings;
    let mut out = title_lines("time to bug", meta);
    let mut baselines = Vec::new();
    if s.paper {
        baselines.push("paper mode (executor = paper, schedule = stress)");
    }
    if s.naive {
        baselines.push("naive two-thread stress test");
    }
    let _ = writeln!(
        out,
        "- settings: seeds 0..{}, budget {} per run, twin budget {} per check, tool = Config::default() with seed and budget; baselines: {}{}{}{}{}{}{}{}",
        s.seeds,
        secs(s.budget.as_secs_f64()),
        secs(s.twin_budget.as_secs_f64()),
        if baselines.is_empty() {
            "none".to_string()
        } else {
            baselines.join(", ")
        },
        if s.guides.is_empty() {
            String::new()
        } else {
            format!(
                "; guides compared: {} (twin coverage over seeds 0..{})",
                s.guides
                    .iter()
                    .map(|&g| guide_name(g))
                    .collect::<Vec<_>>()
                    .join(", "),
                s.guide_twin_seeds()
            )
        },
        compared("job counts", s.jobs.iter().map(|n| n.to_string())),
        compared("scheduling modes", s.schedules.iter().map(|&m| schedule_label(m))),
        compared("strategies", s.strategies.iter().map(|&t| strategy_label(t))),
        if s.oracles {
            "; oracles compared: results, panics"
        } else {
            ""
        },
        s.beside
            .as_deref()
            .map_or_else(String::new, |c| format!("; beside a neighbour: `{c}`")),
        if s.quick { "; quick mode" } else { "" }
    );
    let _ = writeln!(out, "- subjects: {}", meta.subjects.join(", "));
    let _ = writeln!(out, "- wall time: {}", secs(meta.wall.as_secs_f64()));
    out
}

/// `; job counts compared: 1, 2` for the variants compared, or nothing when none was.
fn compared(what: &str, labels: impl Iterator<Item = String>) -> String {
    let labels: Vec<String> = labels.collect();
    if labels.is_empty() {
        String::new()
    } else {
        format!("; {what} compared: {}", labels.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        let at = |secs: u64| utc_date(UNIX_EPOCH + Duration::from_secs(secs));
        assert_eq!(at(0), "1970-01-01");
        assert_eq!(at(951_782_400), "2000-02-29");
        assert_eq!(at(1_704_067_199), "2023-12-31");
        assert_eq!(at(1_709_164_800), "2024-02-29");
        assert_eq!(at(1_795_132_800), "2026-11-20");
    }

    #[test]
    fn commands_as_typed() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            command_line("shrinking", &args(&["--bench"])),
            "cargo bench -p threadsafe-bench --bench shrinking"
        );
        assert_eq!(
            command_line(
                "time_to_bug",
                &args(&["--seeds", "3", "--bench", "a b", "it's"])
            ),
            "cargo bench -p threadsafe-bench --bench time_to_bug -- --seeds 3 'a b' 'it'\\''s'"
        );
        assert!(machine_line(2, "cpu", None, Some([1.0, 0.5, 0.25]), Some(0.5))
            .starts_with("- machine: 2 cores, cpu; load average unknown before, 1.00, 0.50, 0.25 after; other processes' CPU during the run: 0.50 cores"));
    }
}
