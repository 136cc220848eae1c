//! The command line of every measuring program: one grammar of flags ([`Options`]: `--flag
//! value`, `--flag=value`, bare switches, `--bench` from `cargo bench` accepted and `--help`),
//! durations as `threadsafe-knobs` reads them, counts; and on top of it the flags of the
//! time-to-bug harness ([`parse_args`]) and of the shrinking benchmark
//! ([`parse_shrinking_args`]). The top of the library: it makes the settings the rest reads.

use std::path::PathBuf;
use std::process::{exit, ExitCode};
use std::time::Duration;

use threadsafe_rt::{Guide, ScheduleMode, Strategy};

use super::model::GUIDES;
use threadsafe_corpus::Subject;

use super::settings::{select, Selection, Settings, ShrinkSettings};

/// A command line split into flags: each flag named in `with_value` takes a value
/// (`--time 2s` or `--time=2s`), each named in `switches` takes none; `--bench` (which
/// `cargo bench` passes to a target with `harness = false`) and `--help`/`-h` are always
/// accepted. A flag given twice keeps its last value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    flags: Vec<Flag>,
}

impl Options {
    /// Splits `args` (without the program name). The error says what is wrong: an unknown
    /// argument, a value given to a switch, a value missing.
    pub fn parse<I, S>(args: I, with_value: &[&str], switches: &[&str]) -> Result<Options, String>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let flags = flags(args, with_value)?;
        for f in &flags {
            let known = ["--bench", "--help", "-h"].contains(&f.name.as_str())
                || switches.contains(&f.name.as_str());
            if f.value.is_none() && !known {
                return Err(format!("unknown argument `{}`", f.name));
            }
        }
        Ok(Options { flags })
    }

    /// Whether the switch `name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.flags
            .iter()
            .any(|f| f.name == name && f.value.is_none())
    }

    /// `--help` or `-h` was given.
    pub fn help(&self) -> bool {
        self.has("--help") || self.has("-h")
    }

    /// `--bench` was given: the program runs under `cargo bench` (under `cargo test
    /// --benches` it is not).
    pub fn under_bench(&self) -> bool {
        self.has("--bench")
    }

    /// The last value of `name`, read by `parse`; `None` when the flag was not given. The
    /// error names the flag and its value.
    pub fn get<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, String> {
        match self.flags.iter().rev().find(|f| f.name == name) {
            Some(Flag {
                value: Some(value), ..
            }) => parse(value)
                .map(Some)
                .map_err(|e| format!("`{name} {value}`: {e}")),
            _ => Ok(None),
        }
    }

    /// The duration of `name` (see [`parse_duration`]), or `default`.
    pub fn duration(&self, name: &str, default: Duration) -> Result<Duration, String> {
        Ok(self.get(name, parse_duration)?.unwrap_or(default))
    }

    /// The positive count of `name`, or `default`.
    pub fn count(&self, name: &str, default: usize) -> Result<usize, String> {
        Ok(self.get(name, parse_count)?.unwrap_or(default))
    }

    /// The text of `name`, if given.
    pub fn text(&self, name: &str) -> Option<String> {
        self.get(name, |v| Ok(v.to_string())).ok().flatten()
    }
}

/// The options of a measuring program from its command line, or the end of the program:
/// `--help` prints `usage` (exit 0), a bad command line prints what is wrong and `usage`
/// (exit 2). `read` turns the options into the program's settings.
pub fn settings_or_exit<T>(
    program: &str,
    usage: &str,
    with_value: &[&str],
    switches: &[&str],
    read: impl Fn(&Options) -> Result<T, String>,
) -> T {
    let args = std::env::args().skip(1);
    match Options::parse(args, with_value, switches).and_then(|o| {
        if o.help() {
            println!("{usage}");
            exit(0);
        }
        read(&o)
    }) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("{program}: {e}\n\n{usage}");
            exit(2);
        }
    }
}

/// A duration as `threadsafe-knobs` reads it (the grammar of the attribute and of
/// `THREADSAFE_BUDGET`): a number and a unit, `500ms`, `2s`, `1.5s`, `10m`; positive.
pub fn parse_duration(value: &str) -> Result<Duration, String> {
    threadsafe_knobs::parse_duration(value).map_err(|e| e.to_string())
}

/// A positive count.
pub fn parse_count(value: &str) -> Result<usize, String> {
    match value.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("expected a positive number".to_string()),
    }
}

/// What `--help` prints.
pub const USAGE: &str = "\
time to bug of threadsafe, its paper mode and a naive stress test, on the corpus

usage: cargo bench -p threadsafe-bench --bench time_to_bug -- [options]

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
  --strategies random,pct,dfs
                             also compare strategies of controlled executions
                             (Config::strategy: random, pct or pctD for PCT of depth D,
                             dfs or dfsK for DFS of at most K preemptions) on each
                             subject, taking turns seed by seed; random's runs are the
                             tool's (default: not compared)
  --oracles                  also compare the two oracles on each subject, taking turns
                             seed by seed: results compared (a wrong result counts as a
                             find, as does the subject's panic or deadlock) and the
                             paper's (panics and deadlocks only); the run with the
                             oracle the tool uses for the subject is the tool's
  --beside cpu-bound|COMMAND also check each buggy type beside a busy neighbour, taking
                             turns with the tool's runs alone seed by seed: `cpu-bound`,
                             CPU-bound work on a thread per core (as a crate's own tests
                             run), or a shell COMMAND run in a loop
  --json PATH                where the JSON goes (default: target/time_to_bug.json)
  --quick                    CI smoke run: string_buffer, synchronized_map, null_appender,
                             2 seeds, budget 5s, twin budget 0.3s, guides all (flags given
                             override)
  --help                     this text

DURATION: a number and a unit (ms, s, m or min), e.g. 500ms, 2s, 1.5s, 10m.";

/// What `--help` prints.
pub const SHRINKING_USAGE: &str = "\
how far shrinking takes the corpus's finds, and what it costs

usage: cargo bench -p threadsafe-bench --bench shrinking -- [options]

  --subjects NAME,NAME|all   subjects by name or id (default: all)
  --seeds N                  seeds 0..N per subject (default: 5)
  --budget DURATION          budget of each check (default: 10s; shrinking gets half of
                             it, 0.3 s to 10 s, on top of the time to bug)
  --quick                    short run: string_buffer, synchronized_map, null_appender,
                             2 seeds, budget 2s (flags given override)
  --help                     this text

DURATION: a number and a unit (ms, s, m or min), e.g. 500ms, 2s, 1.5s, 10m.";

/// Parses the time-to-bug harness's arguments (without the program name): the settings, or
/// `None` for `--help`. `--quick` sets defaults that the other flags override. The error says what is wrong, for a usage error
/// (exit code 2).
pub fn parse_args<I, S>(args: I) -> Result<Option<Settings>, String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let with_value = [
        "--subjects",
        "--seeds",
        "--budget",
        "--twin-budget",
        "--baselines",
        "--guides",
        "--jobs",
        "--schedules",
        "--strategies",
        "--beside",
        "--json",
    ];
    let o = Options::parse(args, &with_value, &["--quick", "--oracles"])?;
    if o.help() {
        return Ok(None);
    }
    let quick = o.has("--quick");
    let (paper, naive) = o
        .get("--baselines", parse_baselines)?
        .unwrap_or((true, true));
    let beside = o.get("--beside", |v| match v.trim() {
        "" => Err("expected `cpu-bound` or a shell command".to_string()),
        command => Ok(command.to_string()),
    })?;
    let json = o.get("--json", |v| match v.trim() {
        "" => Err("expected a path".to_string()),
        _ => Ok(PathBuf::from(v)),
    })?;
    Ok(Some(Settings {
        subjects: subjects(&o, quick)?,
        seeds: o
            .get("--seeds", parse_seeds)?
            .unwrap_or(if quick { 2 } else { 10 }),
        budget: o.duration("--budget", Duration::from_secs(if quick { 5 } else { 10 }))?,
        twin_budget: o.duration(
            "--twin-budget",
            Duration::from_millis(if quick { 300 } else { 1000 }),
        )?,
        paper,
        naive,
        guides: o.get("--guides", parse_guides)?.unwrap_or_else(|| {
            if quick {
                GUIDES.iter().map(|(g, _)| *g).collect()
            } else {
                Vec::new()
            }
        }),
        jobs: o.get("--jobs", parse_jobs)?.unwrap_or_default(),
        schedules: o.get("--schedules", parse_schedules)?.unwrap_or_default(),
        strategies: o.get("--strategies", parse_strategies)?.unwrap_or_default(),
        oracles: o.has("--oracles"),
        beside,
        json,
        quick,
        under_bench: o.under_bench(),
    }))
}

/// The subjects of `--subjects`; by default all, or with `--quick` the quick ones.
fn subjects(o: &Options, quick: bool) -> Result<Selection, String> {
    Ok(o.get("--subjects", parse_selection)?.unwrap_or(if quick {
        Selection::Quick
    } else {
        Selection::All
    }))
}

/// The settings of a harness over the corpus's subjects (`time_to_bug`, `shrinking`) and the
/// subjects they select, or the end of the run: `--help` prints `usage`, a bad command line
/// or an unknown subject ends it with exit code 2, and so does nothing at all outside `cargo
/// bench` (no `--bench` argument, as under `cargo test --benches`) with exit code 0.
pub fn corpus_run<T>(
    program: &str,
    usage: &str,
    parsed: Result<Option<T>, String>,
    under_bench: impl Fn(&T) -> bool,
    selection: impl Fn(&T) -> &Selection,
) -> Result<(T, Vec<Subject>), ExitCode> {
    let settings = match parsed {
        Ok(Some(s)) => s,
        Ok(None) => {
            println!("{usage}");
            return Err(ExitCode::SUCCESS);
        }
        Err(e) => {
            eprintln!("{program}: {e}\n\n{usage}");
            return Err(ExitCode::from(2));
        }
    };
    if !under_bench(&settings) {
        eprintln!(
            "{program}: not run by `cargo bench` (no `--bench` argument): nothing to do; \
             run `cargo bench -p threadsafe-bench --bench {program}`"
        );
        return Err(ExitCode::SUCCESS);
    }
    let registry = threadsafe_corpus::all();
    let keys: Vec<(&str, &str)> = registry.iter().map(|s| (s.id, s.name)).collect();
    let (picked, note) = select(&keys, selection(&settings)).map_err(|e| {
        eprintln!("{program}: {e}");
        ExitCode::from(2)
    })?;
    if let Some(note) = note {
        eprintln!("{program}: {note}");
    }
    let subjects = picked.iter().map(|&i| registry[i]).collect();
    Ok((settings, subjects))
}

/// Parses the shrinking benchmark's arguments: the settings, or `None` for `--help`. The
/// error says what is wrong (exit code 2).
pub fn parse_shrinking_args<I, S>(args: I) -> Result<Option<ShrinkSettings>, String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let o = Options::parse(args, &["--subjects", "--seeds", "--budget"], &["--quick"])?;
    if o.help() {
        return Ok(None);
    }
    let quick = o.has("--quick");
    Ok(Some(ShrinkSettings {
        subjects: subjects(&o, quick)?,
        seeds: o
            .get("--seeds", parse_seeds)?
            .unwrap_or(if quick { 2 } else { 5 }),
        budget: o.duration("--budget", Duration::from_secs(if quick { 2 } else { 10 }))?,
        quick,
        under_bench: o.under_bench(),
    }))
}

/// One flag of a command line, with its value if it takes one.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Flag {
    /// `--seeds`, `--quick`, or whatever else was given.
    name: String,
    /// The value of a flag that takes one.
    value: Option<String>,
}

/// Splits a command line into flags: `--flag value` and `--flag=value` for the flags named
/// in `with_value`, a bare `--flag` for the others (an unknown one is returned as it is, for
/// the caller to refuse). The error says what is wrong: a value given to a flag that takes
/// none, or a value missing.
fn flags<I, S>(args: I, with_value: &[&str]) -> Result<Vec<Flag>, String>
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
fn parse_seeds(value: &str) -> Result<u64, String> {
    match value.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("expected a positive number of seeds".to_string()),
    }
}

fn parse_selection(value: &str) -> Result<Selection, String> {
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
    parse_distinct(value, "scheduling mode", "scheduling modes", "auto,stress")
}

/// The strategies of `--strategies`: at least two distinct, each as `strategy = "..."`
/// writes it (`random`, `pct`, `pct2`, `dfs`, `dfs0`), in the order given. `pct` and `pct3`
/// are one strategy, so giving both is giving it twice.
fn parse_strategies(value: &str) -> Result<Vec<Strategy>, String> {
    parse_distinct(value, "strategy", "strategies", "random,pct,dfs")
}

/// At least two distinct settings of one kind, separated by commas, each read by its
/// `FromStr`, in the order given; `one` and `many` name the kind, `example` is a list of
/// them. A setting given twice is named as it reads back (`pct` is `pct3`).
fn parse_distinct<T>(value: &str, one: &str, many: &str, example: &str) -> Result<Vec<T>, String>
where
    T: std::str::FromStr + PartialEq + std::fmt::Display,
    T::Err: std::fmt::Display,
{
    let mut all: Vec<T> = Vec::new();
    for name in value.split(',').map(str::trim) {
        let setting = name
            .parse::<T>()
            .map_err(|e| format!("`{name}` is not a {one} ({e}); separate {many} by commas"))?;
        if all.contains(&setting) {
            return Err(format!("{one} `{setting}` given twice"));
        }
        all.push(setting);
    }
    if all.len() < 2 {
        return Err(format!(
            "expected at least two {many} to compare, such as `{example}`"
        ));
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments() {
        let run = |a: &[&str]| match parse_args(a.iter().copied()) {
            Ok(Some(s)) => s,
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
        assert_eq!(parse_args(["--help"]), Ok(None));
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
            Ok(Some(s)) => s,
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
            Ok(Some(s)) => s,
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
    fn strategies() {
        let run = |a: &[&str]| match parse_args(a.iter().copied()) {
            Ok(Some(s)) => s,
            other => panic!("{other:?}"),
        };
        assert!(run(&["--bench"]).strategies.is_empty());
        assert!(
            run(&["--quick"]).strategies.is_empty(),
            "not part of the smoke run"
        );
        assert_eq!(
            run(&["--strategies", "dfs0, random,pct2"]).strategies,
            [
                Strategy::Dfs { preemptions: 0 },
                Strategy::Random,
                Strategy::Pct { depth: 2 }
            ]
        );
        // A bare `pct` or `dfs` has the runtime's default parameter.
        assert_eq!(
            run(&["--strategies=random,pct,dfs"]).strategies,
            [
                Strategy::Random,
                Strategy::Pct { depth: 3 },
                Strategy::Dfs { preemptions: 2 }
            ]
        );
        for (bad, why) in [
            (&["--strategies", "random"][..], "at least two strategies"),
            (
                &["--strategies", "pct,random,pct"],
                "strategy `pct3` given twice",
            ),
            (&["--strategies", "pct,pct3"], "strategy `pct3` given twice"),
            (&["--strategies", "random,fast"], "`fast` is not a strategy"),
            (&["--strategies", "random,pct0"], "`pct0` is not a strategy"),
            (&["--strategies", "random,,dfs"], "`` is not a strategy"),
            (&["--strategies"], "needs a value"),
        ] {
            let e = parse_args(bad.iter().copied()).unwrap_err();
            assert!(
                e.starts_with("`--strategies") && e.contains(why),
                "{bad:?}: {e}"
            );
        }
    }

    #[test]
    fn oracles_are_compared_on_request() {
        let run = |a: &[&str]| match parse_args(a.iter().copied()) {
            Ok(Some(s)) => s,
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
        assert!(e.contains("a shell command"), "{e}");
        assert!(parse_args(["--beside"]).is_err());
    }

    #[test]
    fn shrinking_arguments() {
        let run = |a: &[&str]| parse_shrinking_args(a.iter().copied()).unwrap().unwrap();
        let d = run(&["--bench"]);
        assert!(d.under_bench && !d.quick);
        assert_eq!(
            (d.subjects, d.seeds, d.budget),
            (Selection::All, 5, Duration::from_secs(10))
        );
        let q = run(&["--quick", "--seeds=3"]);
        assert_eq!(
            (q.subjects, q.seeds, q.budget),
            (Selection::Quick, 3, Duration::from_secs(2))
        );
        let s = run(&["--subjects", "V7,logger", "--budget", "3s"]);
        assert_eq!(
            s.subjects,
            Selection::Named(vec!["V7".into(), "logger".into()])
        );
        assert_eq!(s.budget, Duration::from_secs(3));
        assert_eq!(parse_shrinking_args(["--help"]), Ok(None));
        for bad in [
            &["--twin-budget", "1s"][..],
            &["--seeds", "0"],
            &["--budget"],
            &["--quick=yes"],
            &["--subjects", "a,,b"],
        ] {
            assert!(
                parse_shrinking_args(bad.iter().copied()).is_err(),
                "{bad:?}"
            );
        }
    }
}
