//! The regressions file as text: a versioned, line-oriented format, written to be read and
//! committed. Comments (`#`) and blank lines go anywhere; the first other line names the
//! format and its version, the second the type; then come the entries:
//!
//! ```text
//! threadsafe-regressions 1
//! type Stack
//!
//! entry
//!   seed: 7
//!   settings: threads=2 conc_execs=100 schedule=auto strategy=random guide=random executor=workers results=true
//!   failure: panic in thread 2, in `pop`, at src/lib.rs:11:38: checked non-empty
//!   prefix:
//!     i0 = new()
//!     i0.push(v: u32 = seed 1234)
//!   thread 1:
//!     v0 = i0.pop()
//!   thread 2:
//!     v0 = i0.pop()
//!   schedule: batch 993412 execution 12
//! end
//! ```
//!
//! A call is `[out =] [receiver.]name(param: type = value, ...)`: `iN` is instance `N` of
//! the prefix, `pN` output `N` of the prefix, `vN` output `N` of the call's own thread (or
//! post part), and `seed N` a fresh value made from seed `N`. This module knows nothing of
//! the type: names are resolved against its description in `text.rs`.

use std::fmt::{self, Write as _};
use std::time::Duration;

use threadsafe_knobs as knobs;

use crate::config::{Config, Executor, Guide, ScheduleMode, Strategy, REGRESSIONS_ENV};

/// The first line of every file: the format's name, then its version.
pub(super) const MAGIC: &str = "threadsafe-regressions";
/// The version this threadsafe writes and reads.
pub(super) const VERSION: u32 = 1;

/// A file: the type it is for and its entries, each with the line of its `entry`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct File {
    pub(super) type_name: String,
    pub(super) entries: Vec<(usize, Entry)>,
}

/// One violation: what generated it, the test, and its schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    /// The seed of the hunt that found it.
    pub(super) seed: u64,
    pub(super) settings: Settings,
    /// The failure as the report worded it (for people; not read back).
    pub(super) failure: String,
    pub(super) test: NamedTest,
    /// The failing controlled execution, when it can be replayed exactly.
    pub(super) schedule: Option<ControlledRun>,
}

/// The settings that decide which tests are generated and how they run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Settings {
    pub(super) threads: usize,
    pub(super) conc_execs: usize,
    pub(super) schedule: ScheduleMode,
    pub(super) strategy: Strategy,
    pub(super) guide: Guide,
    pub(super) executor: Executor,
    pub(super) results: bool,
    pub(super) prefixes: usize,
    pub(super) suffixes: usize,
    pub(super) state_changer_tries: usize,
    pub(super) cut_call_tries: usize,
    pub(super) post_calls: usize,
    pub(super) deadlock_timeout: Option<Duration>,
}

/// A controlled execution: the seed of its batch and its number in the batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ControlledRun {
    pub(super) batch: u64,
    pub(super) execution: usize,
}

/// A test by names: the calls of the prefix, of each thread, and of the post part.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct NamedTest {
    pub(super) prefix: Vec<NamedCall>,
    pub(super) threads: Vec<Vec<NamedCall>>,
    pub(super) post: Vec<NamedCall>,
}

/// A call by name. No receiver: a constructor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct NamedCall {
    pub(super) out: NamedOut,
    pub(super) receiver: Option<usize>,
    pub(super) name: String,
    pub(super) args: Vec<NamedArg>,
    /// An async call's cancellation: ` cancelled at N` after the call, its future dropped at
    /// its `N`-th suspension.
    pub(super) cancel: Option<u32>,
}

/// What a call's result becomes: nothing, instance `N` (prefix only), or output `N` of the
/// call's part (`pN` in the prefix, `vN` in a thread or the post part).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NamedOut {
    None,
    Instance(usize),
    Var(usize),
}

/// One argument: the parameter's name and type as the description gives them, and where
/// the value comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct NamedArg {
    pub(super) param: String,
    pub(super) ty: String,
    pub(super) value: ArgValue,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ArgValue {
    /// `seed N`: a fresh value made from this seed.
    Seed(u64),
    /// `iN`
    Instance(usize),
    /// `pN`
    PrefixVar(usize),
    /// `vN`
    OwnVar(usize),
}

/// What is wrong with a file, and at which line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ParseError {
    pub(super) line: usize,
    pub(super) message: String,
}

impl Settings {
    pub(super) fn of(c: &Config) -> Self {
        Settings {
            threads: c.threads,
            conc_execs: c.conc_execs,
            schedule: c.schedule,
            strategy: c.strategy,
            guide: c.guide,
            executor: c.executor,
            results: c.results,
            prefixes: c.prefixes,
            suffixes: c.suffixes,
            state_changer_tries: c.state_changer_tries,
            cut_call_tries: c.cut_call_tries,
            post_calls: c.post_calls,
            deadlock_timeout: c.deadlock_timeout,
        }
    }

    /// `config` with these settings (its budget, seed and the rest kept).
    pub(super) fn apply(&self, config: &Config) -> Config {
        let mut c = config.clone();
        c.threads = self.threads;
        c.conc_execs = self.conc_execs;
        c.schedule = self.schedule;
        c.strategy = self.strategy;
        c.guide = self.guide;
        c.executor = self.executor;
        c.results = self.results;
        c.prefixes = self.prefixes;
        c.suffixes = self.suffixes;
        c.state_changer_tries = self.state_changer_tries;
        c.cut_call_tries = self.cut_call_tries;
        c.post_calls = self.post_calls;
        c.deadlock_timeout = self.deadlock_timeout;
        c
    }

    /// Sets `key` from its text.
    pub(super) fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        // `post_calls` and `state_changer_tries` may be 0; the other counts may not.
        let may_be_zero = matches!(key, "post_calls" | "state_changer_tries");
        let count = |v: &str| -> Result<usize, String> {
            let digits = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
            match digits.then(|| v.parse::<usize>().ok()).flatten() {
                Some(n) if n > 0 || may_be_zero => Ok(n),
                _ => Err(format!(
                    "setting `{key}`: `{value}` is not a positive count"
                )),
            }
        };
        let word = |e: crate::config::ConfigError| format!("setting `{key}`: {e}");
        match key {
            "threads" => self.threads = count(value)?,
            "conc_execs" => self.conc_execs = count(value)?,
            "schedule" => self.schedule = value.parse().map_err(word)?,
            "strategy" => self.strategy = value.parse().map_err(word)?,
            "guide" => self.guide = value.parse().map_err(word)?,
            "executor" => self.executor = value.parse().map_err(word)?,
            "results" => {
                self.results = match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("setting `results`: `{value}` is not `true` or `false`")),
                }
            }
            "prefixes" => self.prefixes = count(value)?,
            "suffixes" => self.suffixes = count(value)?,
            "state_changer_tries" => self.state_changer_tries = count(value)?,
            "cut_call_tries" => self.cut_call_tries = count(value)?,
            "post_calls" => self.post_calls = count(value)?,
            "deadlock_timeout" => {
                let d = knobs::parse_duration(value).map_err(|e| format!("setting `{key}`: {e}"))?;
                self.deadlock_timeout = Some(d);
            }
            _ => {
                return Err(format!(
                    "unknown setting `{key}`; the settings are threads, conc_execs, schedule, strategy, guide, executor, results, prefixes, suffixes, state_changer_tries, cut_call_tries, post_calls and deadlock_timeout"
                ))
            }
        }
        Ok(())
    }
}

impl fmt::Display for Settings {
    /// How the tests ran, always; how they were generated, where not the default.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "threads={} conc_execs={} schedule={} strategy={} guide={} executor={} results={}",
            self.threads,
            self.conc_execs,
            self.schedule,
            self.strategy,
            self.guide,
            self.executor,
            self.results
        )?;
        let d = Config::default();
        for (key, value, default) in [
            ("prefixes", self.prefixes, d.prefixes),
            ("suffixes", self.suffixes, d.suffixes),
            (
                "state_changer_tries",
                self.state_changer_tries,
                d.state_changer_tries,
            ),
            ("cut_call_tries", self.cut_call_tries, d.cut_call_tries),
            ("post_calls", self.post_calls, d.post_calls),
        ] {
            if value != default {
                write!(f, " {key}={value}")?;
            }
        }
        if let Some(t) = self.deadlock_timeout {
            write!(f, " deadlock_timeout={}", knobs::format_duration(t))?;
        }
        Ok(())
    }
}

/// The start of a new file for `type_name`: what it is, how to read it, and the two lines
/// that name the format and the type.
pub(super) fn header(type_name: &str) -> String {
    format!(
        "# threadsafe regressions of `{type_name}`: concurrent tests that made its check fail.\n\
         #\n\
         # Every check of `{type_name}` replays these entries before it generates any test, so\n\
         # a bug that comes back is found at once. Commit this file. A check appends an entry\n\
         # for each violation it finds; delete an entry (from `entry` to `end`) to drop it.\n\
         # {REGRESSIONS_ENV}=off checks without this file.\n\
         #\n\
         # An entry: the `seed` and `settings` of the check that found it; its `failure` (for\n\
         # reading); the test, by method name: the `prefix` (run first, on one thread), each\n\
         # `thread N` (run at once), the `post` part (after they join); and for a find under\n\
         # the controlled scheduler, the `schedule` (the seed of the test's executions and the\n\
         # number of the failing one), which replays it exactly. In a call, `i0` is instance 0\n\
         # of the prefix, `p0` output 0 of the prefix, `v0` output 0 of the call's own thread,\n\
         # and `seed N` a fresh value made from seed N.\n\
         {MAGIC} {VERSION}\n\
         type {type_name}\n"
    )
}

impl fmt::Display for Entry {
    /// The entry from `entry` to `end`, each line ending with a newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "entry")?;
        writeln!(f, "  seed: {}", self.seed)?;
        writeln!(f, "  settings: {}", self.settings)?;
        if !self.failure.is_empty() {
            writeln!(f, "  failure: {}", one_line(&self.failure))?;
        }
        f.write_str(&self.test.to_string())?;
        if let Some(s) = self.schedule {
            writeln!(f, "  schedule: batch {} execution {}", s.batch, s.execution)?;
        }
        writeln!(f, "end")
    }
}

impl fmt::Display for NamedTest {
    /// The sections `prefix:`, `thread N:` and `post:` (when it has calls), one call a line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut section = |head: String, calls: &[NamedCall], own: char| -> fmt::Result {
            writeln!(f, "  {head}:")?;
            for c in calls {
                writeln!(f, "    {}", c.text(own))?;
            }
            Ok(())
        };
        section("prefix".to_string(), &self.prefix, 'p')?;
        for (t, calls) in self.threads.iter().enumerate() {
            section(format!("thread {}", t + 1), calls, 'v')?;
        }
        if !self.post.is_empty() {
            section("post".to_string(), &self.post, 'v')?;
        }
        Ok(())
    }
}

impl NamedCall {
    /// The call as a line; `own` names its part's outputs (`p` in the prefix, else `v`).
    pub(super) fn text(&self, own: char) -> String {
        let mut s = String::new();
        match self.out {
            NamedOut::None => {}
            NamedOut::Instance(i) => {
                let _ = write!(s, "i{i} = ");
            }
            NamedOut::Var(i) => {
                let _ = write!(s, "{own}{i} = ");
            }
        }
        if let Some(r) = self.receiver {
            let _ = write!(s, "i{r}.");
        }
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| {
                let value = match a.value {
                    ArgValue::Seed(n) => format!("seed {n}"),
                    ArgValue::Instance(i) => format!("i{i}"),
                    ArgValue::PrefixVar(i) => format!("p{i}"),
                    ArgValue::OwnVar(i) => format!("v{i}"),
                };
                format!("{}: {} = {value}", one_line(&a.param), one_line(&a.ty))
            })
            .collect();
        let _ = write!(s, "{}({})", self.name, args.join(", "));
        if let Some(n) = self.cancel {
            let _ = write!(s, "{CANCELLED_AT}{n}");
        }
        s
    }
}

/// What follows a cancelled call, before its suspension's number.
pub(super) const CANCELLED_AT: &str = " cancelled at ";

/// `text` on one line (newlines become spaces).
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}
