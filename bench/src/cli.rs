//! The harness's command line: its flags, their defaults, `--quick`, and which subjects a
//! selection names.

use std::path::PathBuf;
use std::time::Duration;

use threadsafe_rt::{Guide, ScheduleMode};

use super::guides::{GUIDES, GUIDE_TWIN_SEEDS};
use super::units::parse_duration;

/// The subjects `--quick` runs, those of them that are registered: a panic, a deadlock, an
/// atomicity violation the paper's oracle sees, and a wrong result.
pub const QUICK_SUBJECTS: [&str; 4] = [
    "string_buffer",
    "synchronized_map",
    "null_appender",
    "counter",
];

/// What `--help` prints.
pub const USAGE: &str = "\
time to bug of threadsafe, its paper mode and a naive stress test, on the corpus

usage: cargo bench -p threadsafe-corpus --bench time_to_bug -- [options]

  --subjects NAME,NAME|all   subjects by name or id (default: all)
  --seeds N                  seeds 0..N per subject and mode (default: 10)
  --budget DURATION          budget of each check of a buggy subject (default: 10s)
  --twin-budget DURATION     budget of each check of a correct twin (default: 1s)
  --baselines paper,naive|none
                             the baselines run beside the tool (default: paper,naive)
  --guides random,pairs,map|all|none
                             also compare the tool's guides on each subject: time to bug
                             with `guide` set, and the MAP-coverage each reaches on the
                             twin (seeds 0..min(N,3)); the tool's runs are the random
                             guide's (default: none; with --quick, all)
  --jobs N,M                 also compare job counts (Config::jobs: hunts at once in one
                             check) on each subject, taking turns seed by seed; one job's
                             runs are the tool's (default: not compared)
  --schedules auto,controlled,stress
                             also compare scheduling modes (Config::schedule) on each
                             subject, taking turns seed by seed; auto's runs are the
                             tool's (default: not compared)
  --oracles                  also compare the two oracles on each subject, taking turns
                             seed by seed: results compared (a wrong result counts as a
                             find, as does the subject's panic or deadlock) and the
                             paper's (panics and deadlocks only); the run with the
                             oracle the tool uses for the subject is the tool's
  --beside COMMAND           also check each buggy type with COMMAND running beside it
                             in a loop (a busy neighbour, e.g. `cargo test --release -p
                             threadsafe-corpus --test cpu_bound_neighbour -- --ignored`),
                             taking turns with the tool's runs alone seed by seed
  --json PATH                where the JSON goes (default: target/time_to_bug.json)
  --quick                    CI smoke run: string_buffer, synchronized_map, null_appender,
                             2 seeds, budget 5s, twin budget 0.3s, guides all (flags given
                             override)
  --help                     this text

DURATION: 500ms, 2s, 1.5s, 10m, or a number of seconds.";

/// Which subjects to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Every registered subject.
    All,
    /// These, by name or id, in the order given.
    Named(Vec<String>),
    /// [`QUICK_SUBJECTS`], those that exist (or the first three registered if none does).
    Quick,
}

/// The settings of a run, from the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The subjects.
    pub subjects: Selection,
    /// Seeds `0..seeds` per subject and mode.
    pub seeds: u64,
    /// Budget of each check (and naive test) of a buggy subject.
    pub budget: Duration,
    /// Budget of each check of a correct twin.
    pub twin_budget: Duration,
    /// Run the tool in paper mode as a baseline.
    pub paper: bool,
    /// Run the naive stress test as a baseline.
    pub naive: bool,
    /// The guides to compare, in [`GUIDES`]' order; empty when not compared.
    pub guides: Vec<Guide>,
    /// The job counts to compare (`Config::jobs`), in the order given, each once; empty when
    /// not compared.
    pub jobs: Vec<usize>,
    /// The scheduling modes to compare (`Config::schedule`), in the order given, each once;
    /// empty when not compared.
    pub schedules: Vec<ScheduleMode>,
    /// `--oracles`: compare results compared against the paper's oracle.
    pub oracles: bool,
    /// `--beside`: the neighbour's shell command, run beside a second check of each seed.
    pub beside: Option<String>,
    /// The JSON output path as given; `None` for the default.
    pub json: Option<PathBuf>,
    /// `--quick` was given.
    pub quick: bool,
    /// `--bench` was given: the binary runs under `cargo bench` (under `cargo test` it is
    /// not, and the harness does nothing).
    pub under_bench: bool,
}

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Run the measurements.
    Run(Settings),
    /// Print [`USAGE`].
    Help,
}

/// Parses the arguments (without the program name). `--flag value` and `--flag=value` are
/// both accepted; a flag given twice keeps its last value; `--quick` sets defaults that the
/// other flags override. The error says what is wrong, for a usage error (exit code 2).
pub fn parse_args<I, S>(args: I) -> Result<Command, String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut subjects = None;
    let (mut seeds, mut budget, mut twin_budget) = (None, None, None);
    let (mut baselines, mut guides, mut jobs, mut json) = (None, None, None, None);
    let (mut beside, mut schedules) = (None, None);
    let (mut quick, mut under_bench, mut oracles) = (false, false, false);
    let with_value = [
        "--subjects",
        "--seeds",
        "--budget",
        "--twin-budget",
        "--baselines",
        "--guides",
        "--jobs",
        "--schedules",
        "--beside",
        "--json",
    ];
    for flag in flags(args, &with_value)? {
        let Some(value) = flag.value else {
            match flag.name.as_str() {
                "--quick" => quick = true,
                "--oracles" => oracles = true,
                "--bench" => under_bench = true,
                "--help" | "-h" => return Ok(Command::Help),
                _ => return Err(format!("unknown argument `{}`", flag.name)),
            }
            continue;
        };
        let bad = |what: &str| format!("`{} {value}`: {what}", flag.name);
        match flag.name.as_str() {
            "--subjects" => subjects = Some(parse_selection(&value).map_err(|e| bad(&e))?),
            "--seeds" => seeds = Some(parse_seeds(&value).map_err(|e| bad(&e))?),
            "--budget" => budget = Some(parse_duration(&value).map_err(|e| bad(&e))?),
            "--twin-budget" => twin_budget = Some(parse_duration(&value).map_err(|e| bad(&e))?),
            "--baselines" => baselines = Some(parse_baselines(&value).map_err(|e| bad(&e))?),
            "--guides" => guides = Some(parse_guides(&value).map_err(|e| bad(&e))?),
            "--jobs" => jobs = Some(parse_jobs(&value).map_err(|e| bad(&e))?),
            "--schedules" => schedules = Some(parse_schedules(&value).map_err(|e| bad(&e))?),
            "--beside" => match value.trim() {
                "" => return Err(bad("expected a shell command")),
                command => beside = Some(command.to_string()),
            },
            _ => {
                if value.trim().is_empty() {
                    return Err(bad("expected a path"));
                }
                json = Some(PathBuf::from(value));
            }
        }
    }
    let (paper, naive) = baselines.unwrap_or((true, true));
    Ok(Command::Run(Settings {
        subjects: subjects.unwrap_or(if quick {
            Selection::Quick
        } else {
            Selection::All
        }),
        seeds: seeds.unwrap_or(if quick { 2 } else { 10 }),
        budget: budget.unwrap_or(Duration::from_secs(if quick { 5 } else { 10 })),
        twin_budget: twin_budget.unwrap_or(Duration::from_millis(if quick { 300 } else { 1000 })),
        paper,
        naive,
        guides: guides.unwrap_or_else(|| {
            if quick {
                GUIDES.iter().map(|(g, _)| *g).collect()
            } else {
                Vec::new()
            }
        }),
        jobs: jobs.unwrap_or_default(),
        schedules: schedules.unwrap_or_default(),
        oracles,
        beside,
        json,
        quick,
        under_bench,
    }))
}

/// One flag of a command line, with its value if it takes one.
pub(super) struct Flag {
    /// `--seeds`, `--quick`, or whatever else was given.
    pub(super) name: String,
    /// The value of a flag that takes one.
    pub(super) value: Option<String>,
}

/// Splits a command line into flags: `--flag value` and `--flag=value` for the flags named
/// in `with_value`, a bare `--flag` for the others (an unknown one is returned as it is, for
/// the caller to refuse). The error says what is wrong: a value given to a flag that takes
/// none, or a value missing.
pub(super) fn flags<I, S>(args: I, with_value: &[&str]) -> Result<Vec<Flag>, String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut out = Vec::new();
    let mut args = args.into_iter().map(Into::into);
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        if !with_value.contains(&name.as_str()) {
            if inline.is_some() {
                return Err(format!("`{name}` takes no value, in `{arg}`"));
            }
            out.push(Flag { name, value: None });
            continue;
        }
        match inline.or_else(|| args.next()) {
            Some(v) if !v.starts_with("--") => out.push(Flag {
                name,
                value: Some(v),
            }),
            _ => return Err(format!("`{name}` needs a value")),
        }
    }
    Ok(out)
}

/// The number of seeds of `--seeds`: a positive number.
pub(super) fn parse_seeds(value: &str) -> Result<u64, String> {
    match value.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("expected a positive number of seeds".to_string()),
    }
}

pub(super) fn parse_selection(value: &str) -> Result<Selection, String> {
    if value.trim() == "all" {
        return Ok(Selection::All);
    }
    let names: Vec<String> = value.split(',').map(|s| s.trim().to_string()).collect();
    if names.iter().any(String::is_empty) {
        return Err("expected subject names separated by commas, or `all`".to_string());
    }
    Ok(Selection::Named(names))
}

/// `(paper, naive)`.
fn parse_baselines(value: &str) -> Result<(bool, bool), String> {
    if value.trim() == "none" {
        return Ok((false, false));
    }
    let (mut paper, mut naive) = (false, false);
    for b in value.split(',').map(str::trim) {
        match b {
            "paper" => paper = true,
            "naive" => naive = true,
            _ => {
                return Err(format!(
                    "unknown baseline `{b}`: expected `paper`, `naive` or `none`"
                ))
            }
        }
    }
    Ok((paper, naive))
}

/// The guides of `--guides`, in [`GUIDES`]' order, each once; empty for `none`.
fn parse_guides(value: &str) -> Result<Vec<Guide>, String> {
    let picked: Vec<Guide> = match value.trim() {
        "all" => GUIDES.iter().map(|(g, _)| *g).collect(),
        "none" => Vec::new(),
        _ => value
            .split(',')
            .map(str::trim)
            .map(|name| match GUIDES.iter().find(|(_, n)| *n == name) {
                Some((g, _)) => Ok(*g),
                None if name.is_empty() => {
                    Err("expected guide names separated by commas, `all` or `none`".to_string())
                }
                None => Err(format!(
                    "unknown guide `{name}`: expected `random`, `pairs`, `map`, `all` or `none`"
                )),
            })
            .collect::<Result<_, _>>()?,
    };
    Ok(GUIDES
        .iter()
        .map(|(g, _)| *g)
        .filter(|g| picked.contains(g))
        .collect())
}

/// The job counts of `--jobs`: at least two distinct positive counts, in the order given.
fn parse_jobs(value: &str) -> Result<Vec<usize>, String> {
    let mut jobs = Vec::new();
    for n in value.split(',').map(str::trim) {
        match n.parse::<usize>() {
            Ok(n) if n > 0 => {
                if jobs.contains(&n) {
                    return Err(format!("job count {n} given twice"));
                }
                jobs.push(n);
            }
            _ => {
                return Err(format!(
                    "`{n}` is not a job count: expected positive numbers separated by commas, \
                     such as `1,2`"
                ))
            }
        }
    }
    if jobs.len() < 2 {
        return Err("expected at least two job counts to compare, such as `1,2`".to_string());
    }
    Ok(jobs)
}

/// The scheduling modes of `--schedules`: at least two distinct of `auto`, `controlled`,
/// `stress`, in the order given.
fn parse_schedules(value: &str) -> Result<Vec<ScheduleMode>, String> {
    let mut modes = Vec::new();
    for name in value.split(',').map(str::trim) {
        let mode = name.parse::<ScheduleMode>().map_err(|e| {
            format!("`{name}` is not a scheduling mode ({e}); separate modes by commas")
        })?;
        if modes.contains(&mode) {
            return Err(format!("scheduling mode `{name}` given twice"));
        }
        modes.push(mode);
    }
    if modes.len() < 2 {
        return Err(
            "expected at least two scheduling modes to compare, such as `auto,stress`".to_string(),
        );
    }
    Ok(modes)
}

impl Settings {
    /// The seeds each guide checks the twin with: `0..min(seeds, GUIDE_TWIN_SEEDS)`.
    pub fn guide_twin_seeds(&self) -> u64 {
        self.seeds.min(GUIDE_TWIN_SEEDS)
    }
}

/// The indexes of the selected subjects in `available` (`(id, name)` pairs, the registry's
/// order), and a note when `--quick` had to fall back. An unknown name is an error that
/// lists the known ones.
pub fn select(
    available: &[(&str, &str)],
    selection: &Selection,
) -> Result<(Vec<usize>, Option<String>), String> {
    let find = |key: &str| {
        available
            .iter()
            .position(|(id, name)| *name == key || id.eq_ignore_ascii_case(key))
    };
    match selection {
        Selection::All => Ok(((0..available.len()).collect(), None)),
        Selection::Named(names) => {
            let mut picked = Vec::new();
            for n in names {
                let i = find(n).ok_or_else(|| {
                    let known: Vec<&str> = available.iter().map(|(_, name)| *name).collect();
                    if known.is_empty() {
                        format!("unknown subject `{n}`: no subject is registered yet")
                    } else {
                        format!("unknown subject `{n}`; known: {}", known.join(", "))
                    }
                })?;
                if !picked.contains(&i) {
                    picked.push(i);
                }
            }
            Ok((picked, None))
        }
        Selection::Quick => {
            let picked: Vec<usize> = QUICK_SUBJECTS.iter().filter_map(|n| find(n)).collect();
            if picked.is_empty() && !available.is_empty() {
                let n = available.len().min(3);
                return Ok((
                    (0..n).collect(),
                    Some(format!(
                        "none of {} is registered; --quick runs the first {n} subjects instead",
                        QUICK_SUBJECTS.join(", ")
                    )),
                ));
            }
            Ok((picked, None))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments() {
        let run = |a: &[&str]| match parse_args(a.iter().copied()) {
            Ok(Command::Run(s)) => s,
            other => panic!("{other:?}"),
        };
        let d = run(&["--bench"]);
        assert!(d.under_bench && !d.quick && d.paper && d.naive && d.guides.is_empty());
        assert_eq!((d.seeds, d.subjects.clone()), (10, Selection::All));
        assert_eq!(
            (d.budget, d.twin_budget),
            (Duration::from_secs(10), Duration::from_secs(1))
        );
        let q = run(&["--quick", "--seeds=3"]);
        assert_eq!((q.seeds, q.subjects), (3, Selection::Quick));
        assert_eq!(q.guides, [Guide::Random, Guide::Pairs, Guide::Map]);
        assert_eq!(run(&["--quick", "--guides", "none"]).guides, []);
        assert_eq!(
            (q.budget, q.twin_budget),
            (Duration::from_secs(5), Duration::from_millis(300))
        );
        let s = run(&[
            "--subjects",
            "a, b",
            "--budget",
            "2s",
            "--baselines",
            "naive",
            "--json",
            "x.json",
        ]);
        assert_eq!(s.subjects, Selection::Named(vec!["a".into(), "b".into()]));
        assert_eq!(
            (s.budget, s.paper, s.naive),
            (Duration::from_secs(2), false, true)
        );
        assert_eq!(s.json, Some(PathBuf::from("x.json")));
        assert_eq!(parse_args(["--help"]), Ok(Command::Help));
        let all = [Guide::Random, Guide::Pairs, Guide::Map];
        assert_eq!(run(&["--guides", "all"]).guides, all);
        assert_eq!(
            run(&["--guides=map, random,map"]).guides,
            [Guide::Random, Guide::Map]
        );
        assert_eq!(run(&["--guides", "all", "--guides", "none"]).guides, []);
        let g = run(&["--baselines", "none", "--guides", "pairs", "--seeds", "5"]);
        assert_eq!(
            (g.paper, g.naive, g.guides.clone(), g.guide_twin_seeds()),
            (false, false, vec![Guide::Pairs], 3)
        );
        assert_eq!(
            run(&["--seeds", "2", "--guides", "all"]).guide_twin_seeds(),
            2
        );
        for bad in [
            &["--guides", "covcon"][..],
            &["--guides", "map,,pairs"],
            &["--guides"],
        ] {
            let e = parse_args(bad.iter().copied()).unwrap_err();
            assert!(e.starts_with("`--guides"), "{e}");
        }
        assert!(parse_args(["--guides", "fast"])
            .unwrap_err()
            .contains("expected `random`, `pairs`, `map`, `all` or `none`"));
        for bad in [
            &["--frobnicate"][..],
            &["--seeds", "0"],
            &["--seeds"],
            &["--seeds", "--quick"],
            &["--budget", "fast"],
            &["--budget", "-1s"],
            &["--twin-budget", "0"],
            &["--baselines", "paper,magic"],
            &["--subjects", "a,,b"],
            &["--quick=yes"],
            &["positional"],
        ] {
            assert!(parse_args(bad.iter().copied()).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn job_counts() {
        let run = |a: &[&str]| match parse_args(a.iter().copied()) {
            Ok(Command::Run(s)) => s,
            other => panic!("{other:?}"),
        };
        assert_eq!(run(&["--bench"]).jobs, Vec::<usize>::new());
        assert_eq!(run(&["--jobs", "1,2"]).jobs, [1, 2]);
        assert_eq!(run(&["--jobs=4, 1,2"]).jobs, [4, 1, 2]);
        assert_eq!(run(&["--quick", "--jobs", "1,2"]).jobs, [1, 2]);
        for (bad, why) in [
            (&["--jobs", "2"][..], "at least two job counts"),
            (&["--jobs", "1,1"], "given twice"),
            (&["--jobs", "0,2"], "`0` is not a job count"),
            (&["--jobs", "1,,2"], "`` is not a job count"),
            (&["--jobs", "1,two"], "`two` is not a job count"),
            (&["--jobs"], "needs a value"),
        ] {
            let e = parse_args(bad.iter().copied()).unwrap_err();
            assert!(e.starts_with("`--jobs") && e.contains(why), "{bad:?}: {e}");
        }
    }

    #[test]
    fn scheduling_modes() {
        let run = |a: &[&str]| match parse_args(a.iter().copied()) {
            Ok(Command::Run(s)) => s,
            other => panic!("{other:?}"),
        };
        assert!(run(&["--bench"]).schedules.is_empty());
        assert_eq!(
            run(&["--schedules", "stress, auto,controlled"]).schedules,
            [
                ScheduleMode::Stress,
                ScheduleMode::Auto,
                ScheduleMode::Controlled
            ]
        );
        for (bad, why) in [
            (
                &["--schedules", "auto"][..],
                "at least two scheduling modes",
            ),
            (&["--schedules", "auto,auto"], "given twice"),
            (
                &["--schedules", "auto,pct"],
                "`pct` is not a scheduling mode",
            ),
            (&["--schedules"], "needs a value"),
        ] {
            let e = parse_args(bad.iter().copied()).unwrap_err();
            assert!(
                e.starts_with("`--schedules") && e.contains(why),
                "{bad:?}: {e}"
            );
        }
    }

    #[test]
    fn oracles_are_compared_on_request() {
        let run = |a: &[&str]| match parse_args(a.iter().copied()) {
            Ok(Command::Run(s)) => s,
            other => panic!("{other:?}"),
        };
        assert!(!run(&["--bench"]).oracles);
        assert!(!run(&["--quick"]).oracles, "not part of the smoke run");
        assert!(run(&["--oracles", "--seeds", "3"]).oracles);
        let e = parse_args(["--oracles=yes"]).unwrap_err();
        assert!(e.contains("takes no value"), "{e}");
        assert_eq!(run(&["--bench"]).beside, None);
        assert_eq!(
            run(&["--beside", "cargo test -p x"]).beside.as_deref(),
            Some("cargo test -p x")
        );
        let e = parse_args(["--beside", " "]).unwrap_err();
        assert!(e.contains("expected a shell command"), "{e}");
        assert!(parse_args(["--beside"]).is_err());
    }

    #[test]
    fn selection() {
        let avail = [
            ("V1", "string_buffer"),
            ("V5", "pool"),
            ("V9", "null_appender"),
        ];
        assert_eq!(select(&avail, &Selection::All).unwrap().0, vec![0, 1, 2]);
        let named = Selection::Named(vec!["pool".into(), "v1".into(), "pool".into()]);
        assert_eq!(select(&avail, &named).unwrap().0, vec![1, 0]);
        let unknown = Selection::Named(vec!["nope".into()]);
        assert!(select(&avail, &unknown)
            .unwrap_err()
            .contains("known: string_buffer"));
        assert_eq!(
            select(&avail, &Selection::Quick).unwrap(),
            (vec![0, 2], None)
        );
        let (picked, note) = select(&[("V5", "pool")], &Selection::Quick).unwrap();
        assert_eq!(picked, vec![0]);
        assert!(note.is_some());
    }
}
