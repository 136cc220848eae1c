//! The grammar of [threadsafe](https://docs.rs/threadsafe-rt)'s knobs: durations, seeds, and
//! the words of its settings.
//!
//! threadsafe reads its knobs in two places: the `#[thread_safe(..)]` attribute, at compile
//! time (`budget = "2s"`, `guide = "map"`), and the `THREADSAFE_*` environment variables and
//! the `FromStr` implementations of the runtime's settings, at run time
//! (`THREADSAFE_BUDGET=2s`). Both parse with this crate, so a value accepted in one place is
//! accepted in the other, with the same meaning, and rejected with the same message. The
//! attribute puts the message at the value it rejects; the runtime prefixes the variable's
//! name.
//!
//! | value | grammar | examples |
//! |---|---|---|
//! | duration ([`parse_duration`]) | a decimal number and a unit: `ms`, `s`, `m` or `min`; positive | `500ms`, `2s`, `1.5s`, `.5s`, `10m` |
//! | [`Seed`] | an unsigned 64-bit integer in decimal, or `random` | `7`, `random` |
//! | [`Executor`] | `stress` or `paper` | |
//! | [`ScheduleMode`] | `auto`, `controlled` or `stress` | |
//! | [`Strategy`] | `random`, `pct`, or `pct` and a bug depth of at least 1 | `pct`, `pct2` |
//! | [`Guide`] | `random`, `pairs` or `map` | |
//! | jobs ([`parse_jobs`]) | a positive integer, at most [`MAX_JOBS`] | `1`, `16` |
//! | [`Shard`] | `k/n`, two integers with `1 <= k <= n` | `1/4`, `4/4` |
//! | [`Switch`] | `on` or `off` | |
//!
//! Whitespace around a value is ignored (an environment variable often ends with a newline);
//! inside it, and in letter case, the grammar is strict: `2 s`, `Map` and `1_000` are errors
//! that say what to write instead.
//!
//! ```
//! use std::time::Duration;
//! use threadsafe_knobs::{parse_duration, Guide, Seed, Strategy};
//!
//! assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
//! assert_eq!("random".parse(), Ok(Seed::Random));
//! assert_eq!(" map\n".parse(), Ok(Guide::Map));
//! assert_eq!("pct2".parse(), Ok(Strategy::Pct { depth: Some(2) }));
//!
//! let error = "covcon".parse::<Guide>().unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "`\"covcon\"` is not a guide: write `\"random\"` (the default), `\"pairs\"` \
//!      (CovCon: method-pair coverage) or `\"map\"` (MAPTest: memory-access-pattern coverage)"
//! );
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use std::fmt;
use std::str::FromStr;

mod duration;

pub use duration::{format_duration, parse_duration, DURATION_FORMAT};

/// A value that does not follow its grammar. Its text says what was written, what is wrong,
/// and what to write instead; it does not name the knob (the caller knows which it read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(String);

impl Error {
    fn new(message: impl Into<String>) -> Self {
        Error(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

// ---------------------------------------------------------------------------------------
// Seeds.
// ---------------------------------------------------------------------------------------

/// The seed of the generator as written: a number, or `random` for a new one each run (the
/// report prints the seed it drew, to replay it).
///
/// ```
/// use threadsafe_knobs::Seed;
///
/// assert_eq!("7".parse(), Ok(Seed::Fixed(7)));
/// assert_eq!("18446744073709551615".parse(), Ok(Seed::Fixed(u64::MAX)));
/// assert_eq!("random".parse(), Ok(Seed::Random));
/// assert_eq!(Seed::Fixed(7).to_string(), "7");
/// assert!("-1".parse::<Seed>().is_err());
/// assert!("0x10".parse::<Seed>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Seed {
    /// This seed.
    Fixed(u64),
    /// A seed drawn at run time.
    Random,
}

impl FromStr for Seed {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        let s = text.trim();
        if s == "random" {
            return Ok(Seed::Random);
        }
        let expected = "write an unsigned 64-bit integer, e.g. `\"7\"`, or `\"random\"`";
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Error::new(format!("`{text:?}` is not a seed: {expected}")));
        }
        s.parse().map(Seed::Fixed).map_err(|_| {
            Error::new(format!(
                "`{text:?}` is not a seed: it is above the largest, {}",
                u64::MAX
            ))
        })
    }
}

impl fmt::Display for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Seed::Fixed(n) => write!(f, "{n}"),
            Seed::Random => f.write_str("random"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Settings named by a word.
// ---------------------------------------------------------------------------------------

/// A setting whose values are words: [`Executor`], [`ScheduleMode`], [`Guide`]. `FromStr` and
/// `Display` of each are [`Setting::parse`] and [`Setting::word`].
///
/// ```
/// use threadsafe_knobs::{Executor, Setting};
///
/// assert_eq!(Executor::ALL, [Executor::Workers, Executor::Paper]);
/// assert_eq!(Executor::Paper.word(), "paper");
/// assert_eq!(Executor::expected(), "`\"workers\"` (the default) or `\"paper\"`");
/// // The word it had before, accepted where users wrote it:
/// assert_eq!(Executor::parse("stress"), Ok(Executor::Workers));
/// ```
pub trait Setting: Copy + Sized + 'static {
    /// What a value is, with its article, for messages: `an executor`.
    const WHAT: &'static str;
    /// Every value, the default first.
    const ALL: &'static [Self];
    /// Words a value had before it was renamed, still accepted (never written, never listed
    /// in messages), so that attributes and regressions files written with them go on
    /// working.
    const FORMER: &'static [(&'static str, Self)] = &[];

    /// The value's word.
    fn word(self) -> &'static str;

    /// A short gloss shown after the word in [`Setting::expected`], if any.
    fn gloss(self) -> Option<&'static str> {
        None
    }

    /// The valid values for a message: `` `"workers"` (the default) or `"paper"` ``.
    fn expected() -> String {
        let items: Vec<String> = Self::ALL
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let note = match (i, v.gloss()) {
                    (0, Some(g)) => format!(" (the default; {g})"),
                    (0, None) => " (the default)".to_string(),
                    (_, Some(g)) => format!(" ({g})"),
                    (_, None) => String::new(),
                };
                format!("`\"{}\"`{note}", v.word())
            })
            .collect();
        match items.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => items.concat(),
        }
    }

    /// The value `text` names (surrounding whitespace ignored), or an error that lists the
    /// valid ones.
    fn parse(text: &str) -> Result<Self, Error> {
        let s = text.trim();
        Self::ALL
            .iter()
            .copied()
            .find(|v| v.word() == s)
            .or_else(|| Self::FORMER.iter().find(|(w, _)| *w == s).map(|&(_, v)| v))
            .ok_or_else(|| {
                Error::new(format!(
                    "`{text:?}` is not {}: write {}",
                    Self::WHAT,
                    Self::expected()
                ))
            })
    }
}

macro_rules! word_setting {
    ($ty:ident) => {
        impl FromStr for $ty {
            type Err = Error;

            fn from_str(text: &str) -> Result<Self, Error> {
                <$ty as Setting>::parse(text)
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.word())
            }
        }
    };
}

/// What runs a test's executions: `workers` (the default: persistent worker threads run
/// them back to back, controlled or free-running) or `paper` (threads spawned for each
/// execution, as the paper's tool did). `stress`, its former word, is still read: "stress"
/// now names only the free-running schedule mode ([`ScheduleMode::Stress`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Executor {
    /// `workers`
    Workers,
    /// `paper`
    Paper,
}

impl Setting for Executor {
    const WHAT: &'static str = "an executor";
    const ALL: &'static [Self] = &[Executor::Workers, Executor::Paper];
    const FORMER: &'static [(&'static str, Self)] = &[("stress", Executor::Workers)];

    fn word(self) -> &'static str {
        match self {
            Executor::Workers => "workers",
            Executor::Paper => "paper",
        }
    }
}

word_setting!(Executor);

/// How the threads of an execution are scheduled: `auto` (the default), `controlled` or
/// `stress`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScheduleMode {
    /// `auto`
    Auto,
    /// `controlled`
    Controlled,
    /// `stress`
    Stress,
}

impl Setting for ScheduleMode {
    const WHAT: &'static str = "a schedule";
    const ALL: &'static [Self] = &[
        ScheduleMode::Auto,
        ScheduleMode::Controlled,
        ScheduleMode::Stress,
    ];

    fn word(self) -> &'static str {
        match self {
            ScheduleMode::Auto => "auto",
            ScheduleMode::Controlled => "controlled",
            ScheduleMode::Stress => "stress",
        }
    }
}

word_setting!(ScheduleMode);

/// How tests and controlled schedules are chosen: `random` (the default), `pairs` or `map`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Guide {
    /// `random`
    Random,
    /// `pairs`: CovCon's method-pair coverage.
    Pairs,
    /// `map`: MAPTest's memory-access-pattern coverage.
    Map,
}

impl Setting for Guide {
    const WHAT: &'static str = "a guide";
    const ALL: &'static [Self] = &[Guide::Random, Guide::Pairs, Guide::Map];

    fn word(self) -> &'static str {
        match self {
            Guide::Random => "random",
            Guide::Pairs => "pairs",
            Guide::Map => "map",
        }
    }

    fn gloss(self) -> Option<&'static str> {
        match self {
            Guide::Random => None,
            Guide::Pairs => Some("CovCon: method-pair coverage"),
            Guide::Map => Some("MAPTest: memory-access-pattern coverage"),
        }
    }
}

word_setting!(Guide);

// ---------------------------------------------------------------------------------------
// The strategy: a word and, for PCT a depth, for DFS a bound on preemptions.
// ---------------------------------------------------------------------------------------

/// The bug depth of PCT when none is written.
pub const DEFAULT_PCT_DEPTH: usize = 3;

/// The bound on preemptions of DFS when none is written: most bugs need at most two
/// (CHESS, Musuvathi and Qadeer, PLDI 2007).
pub const DEFAULT_PREEMPTIONS: usize = 2;

/// Who runs next in a controlled execution, as written: `random` (the default), `pct` (PCT
/// for bugs of depth [`DEFAULT_PCT_DEPTH`]) or `pct` and a depth of at least 1 (`pct2`),
/// `dfs` (every schedule with at most [`DEFAULT_PREEMPTIONS`] preemptions) or `dfs` and a
/// bound (`dfs0`, `dfs3`).
///
/// ```
/// use threadsafe_knobs::Strategy;
///
/// assert_eq!("random".parse(), Ok(Strategy::Random));
/// assert_eq!("pct".parse(), Ok(Strategy::Pct { depth: None }));
/// assert_eq!("pct2".parse(), Ok(Strategy::Pct { depth: Some(2) }));
/// assert_eq!(Strategy::Pct { depth: None }.depth(), Some(3));
/// assert_eq!(Strategy::Pct { depth: Some(2) }.to_string(), "pct2");
/// assert!("pct0".parse::<Strategy>().unwrap_err().to_string().contains("at least 1"));
/// assert_eq!("dfs".parse(), Ok(Strategy::Dfs { preemptions: None }));
/// assert_eq!("dfs0".parse(), Ok(Strategy::Dfs { preemptions: Some(0) }));
/// assert_eq!(Strategy::Dfs { preemptions: None }.preemptions(), Some(2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// `random`
    Random,
    /// `pct`, or `pct` and the depth (`pct2`).
    Pct {
        /// The depth if written (at least 1).
        depth: Option<usize>,
    },
    /// `dfs`, or `dfs` and the bound on preemptions (`dfs3`).
    Dfs {
        /// The bound if written (0 or more).
        preemptions: Option<usize>,
    },
}

/// The largest number written after `pct` or `dfs`: more is no small bound.
const MAX_STRATEGY_NUMBER: usize = 1_000;

impl Strategy {
    /// The valid values for a message.
    pub const EXPECTED: &'static str = "`\"random\"` (the default), `\"pct\"` (bug depth 3) or `\"pct\"` and a bug depth of at least 1, e.g. `\"pct2\"`, or `\"dfs\"` (at most 2 preemptions) or `\"dfs\"` and a bound on preemptions, e.g. `\"dfs3\"`";

    /// The bug depth PCT aims at (the written one, or [`DEFAULT_PCT_DEPTH`]); `None` for
    /// another strategy.
    pub fn depth(self) -> Option<usize> {
        match self {
            Strategy::Pct { depth } => Some(depth.unwrap_or(DEFAULT_PCT_DEPTH)),
            _ => None,
        }
    }

    /// The bound on preemptions of DFS (the written one, or [`DEFAULT_PREEMPTIONS`]);
    /// `None` for another strategy.
    pub fn preemptions(self) -> Option<usize> {
        match self {
            Strategy::Dfs { preemptions } => Some(preemptions.unwrap_or(DEFAULT_PREEMPTIONS)),
            _ => None,
        }
    }

    /// The same strategy with its number written out (PCT's depth, DFS's bound), as a
    /// check runs it.
    ///
    /// ```
    /// use threadsafe_knobs::Strategy;
    ///
    /// assert_eq!(Strategy::Pct { depth: None }.resolved(), Strategy::Pct { depth: Some(3) });
    /// assert_eq!(Strategy::Random.resolved(), Strategy::Random);
    /// ```
    pub fn resolved(self) -> Strategy {
        match self {
            Strategy::Random => self,
            Strategy::Pct { .. } => Strategy::Pct {
                depth: self.depth(),
            },
            Strategy::Dfs { .. } => Strategy::Dfs {
                preemptions: self.preemptions(),
            },
        }
    }
}

impl FromStr for Strategy {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        let s = text.trim();
        if s == "random" {
            return Ok(Strategy::Random);
        }
        let not_a_strategy = || {
            Error::new(format!(
                "`{text:?}` is not a strategy: write {}",
                Strategy::EXPECTED
            ))
        };
        let (dfs, digits) = match (s.strip_prefix("pct"), s.strip_prefix("dfs")) {
            (Some(digits), _) => (false, digits),
            (_, Some(digits)) => (true, digits),
            _ => return Err(not_a_strategy()),
        };
        if digits.is_empty() {
            return Ok(if dfs {
                Strategy::Dfs { preemptions: None }
            } else {
                Strategy::Pct { depth: None }
            });
        }
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(not_a_strategy());
        }
        match digits.parse::<usize>() {
            Ok(n) if n > MAX_STRATEGY_NUMBER => Err(too_large(text, dfs)),
            Ok(0) if !dfs => Err(Error::new(format!(
                "`{text:?}`: the bug depth of PCT is at least 1, e.g. `\"pct2\"`"
            ))),
            Ok(n) if dfs => Ok(Strategy::Dfs {
                preemptions: Some(n),
            }),
            Ok(depth) => Ok(Strategy::Pct { depth: Some(depth) }),
            Err(_) => Err(too_large(text, dfs)),
        }
    }
}

fn too_large(text: &str, dfs: bool) -> Error {
    Error::new(if dfs {
        format!("`{text:?}`: the bound on preemptions is too large; DFS explores small bounds, e.g. `\"dfs2\"`")
    } else {
        format!("`{text:?}`: the bug depth is too large; PCT aims at small depths, e.g. `\"pct2\"`")
    })
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Random => f.write_str("random"),
            Strategy::Pct { depth: None } => f.write_str("pct"),
            Strategy::Pct { depth: Some(d) } => write!(f, "pct{d}"),
            Strategy::Dfs { preemptions: None } => f.write_str("dfs"),
            Strategy::Dfs {
                preemptions: Some(k),
            } => write!(f, "dfs{k}"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// How a long hunt spreads: jobs, shards, and the switch of the regressions file.
// ---------------------------------------------------------------------------------------

/// The most hunts one check runs at once.
pub const MAX_JOBS: usize = 256;

/// Parses a number of hunts run at once (`THREADSAFE_JOBS`): a positive decimal integer, at
/// most [`MAX_JOBS`].
///
/// ```
/// use threadsafe_knobs::parse_jobs;
///
/// assert_eq!(parse_jobs("4"), Ok(4));
/// assert_eq!(
///     parse_jobs("0").unwrap_err().to_string(),
///     "`\"0\"` is no job: write a positive number of hunts to run at once, e.g. `\"4\"`"
/// );
/// ```
pub fn parse_jobs(text: &str) -> Result<usize, Error> {
    let s = text.trim();
    let expected = "write a positive number of hunts to run at once, e.g. `\"4\"`";
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::new(format!(
            "`{text:?}` is not a number of jobs: {expected}"
        )));
    }
    match s.parse::<usize>() {
        Ok(0) => Err(Error::new(format!("`{text:?}` is no job: {expected}"))),
        Ok(n) if n <= MAX_JOBS => Ok(n),
        _ => Err(Error::new(format!(
            "`{text:?}` is too many jobs: at most {MAX_JOBS} hunts run at once"
        ))),
    }
}

/// One part of a seed stream split `count` ways: shard `index` of `count`, written `k/n`
/// with `1 <= k <= n` (`THREADSAFE_SHARD`, e.g. a CI matrix's job `k` of `n`).
///
/// ```
/// use threadsafe_knobs::Shard;
///
/// assert_eq!("2/3".parse(), Ok(Shard { index: 2, count: 3 }));
/// assert_eq!(Shard { index: 1, count: 4 }.to_string(), "1/4");
/// assert_eq!(
///     "3/2".parse::<Shard>().unwrap_err().to_string(),
///     "`\"3/2\"`: there is no shard 3 of 2: write `k/n` with k from 1 to n, e.g. `\"1/4\"`"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    /// Which part, from 1.
    pub index: usize,
    /// Of how many parts, at least 1.
    pub count: usize,
}

impl FromStr for Shard {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        let expected = "write `k/n` with k from 1 to n, e.g. `\"1/4\"`";
        let number = |part: &str| {
            let digits = !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
            digits.then(|| part.parse::<usize>().ok()).flatten()
        };
        let parsed = text
            .trim()
            .split_once('/')
            .and_then(|(k, n)| Some((number(k)?, number(n)?)));
        match parsed {
            None => Err(Error::new(format!("`{text:?}` is not a shard: {expected}"))),
            Some((_, 0)) => Err(Error::new(format!(
                "`{text:?}`: the number of shards is at least 1: {expected}"
            ))),
            Some((0, _)) => Err(Error::new(format!(
                "`{text:?}`: shards are numbered from 1: {expected}"
            ))),
            Some((index, count)) if index > count => Err(Error::new(format!(
                "`{text:?}`: there is no shard {index} of {count}: {expected}"
            ))),
            Some((index, count)) => Ok(Shard { index, count }),
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A feature turned `on` (the default) or `off`, e.g. `THREADSAFE_REGRESSIONS=off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Switch {
    /// `on`
    On,
    /// `off`
    Off,
}

impl Setting for Switch {
    const WHAT: &'static str = "a switch";
    const ALL: &'static [Self] = &[Switch::On, Switch::Off];

    fn word(self) -> &'static str {
        match self {
            Switch::On => "on",
            Switch::Off => "off",
        }
    }
}

word_setting!(Switch);

#[doc(hidden)]
pub mod samples;

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn err(r: Result<impl fmt::Debug, Error>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn durations() {
        let ok = |s: &str, nanos: u64| {
            assert_eq!(parse_duration(s), Ok(Duration::from_nanos(nanos)), "{s:?}")
        };
        ok("500ms", 500_000_000);
        ok("2s", 2_000_000_000);
        ok("1.5s", 1_500_000_000);
        ok(".5s", 500_000_000);
        ok("2.s", 2_000_000_000);
        ok("10m", 600_000_000_000);
        ok("2min", 120_000_000_000);
        ok("0.001ms", 1_000);
        ok(" 30s\n", 30_000_000_000);
        ok("1.123456789123s", 1_123_456_789);
        ok("0.0000000001m", 6);
        ok("18446744073s", 18_446_744_073_000_000_000);
        ok("18446744073.709551615s", u64::MAX);

        assert_eq!(
            err(parse_duration("5")),
            format!("`\"5\"` has no unit: {DURATION_FORMAT}")
        );
        assert_eq!(
            err(parse_duration("3h")),
            format!("unknown unit `h` in `\"3h\"`: {DURATION_FORMAT}")
        );
        assert_eq!(
            err(parse_duration("5 s")),
            format!("`\"5 s\"` has a space before its unit: {DURATION_FORMAT}")
        );
        for bad in ["", " ", "s", ".s", "fast", "-1s", "+1s", "1.2.3s", "inf"] {
            assert_eq!(
                err(parse_duration(bad)),
                format!("`{bad:?}` is not a duration: {DURATION_FORMAT}"),
                "{bad:?}"
            );
        }
        for unknown in ["1e3s", "1_000ms", "2S"] {
            assert!(
                err(parse_duration(unknown)).starts_with("unknown unit"),
                "{unknown:?}"
            );
        }
        for zero in ["0s", "0ms", "0.0000000001s", "0.m"] {
            assert_eq!(
                err(parse_duration(zero)),
                format!("`{zero:?}` is zero: give a positive duration, e.g. `\"500ms\"`")
            );
        }
        for long in [
            "18446744074s",
            "18446744073.709551616s",
            "99999999999999999999m",
        ] {
            assert!(
                err(parse_duration(long)).contains("is too long"),
                "{long:?}"
            );
        }
    }

    #[test]
    fn seeds() {
        assert_eq!("0".parse(), Ok(Seed::Fixed(0)));
        assert_eq!(" 42\n".parse(), Ok(Seed::Fixed(42)));
        assert_eq!(" random ".parse(), Ok(Seed::Random));
        for bad in ["", "-1", "+7", "0x10", "1_000", "7.0", "Random", "seven"] {
            assert_eq!(
                err(bad.parse::<Seed>()),
                format!("`{bad:?}` is not a seed: write an unsigned 64-bit integer, e.g. `\"7\"`, or `\"random\"`")
            );
        }
        assert_eq!(
            err("18446744073709551616".parse::<Seed>()),
            "`\"18446744073709551616\"` is not a seed: it is above the largest, 18446744073709551615"
        );
        for seed in [Seed::Fixed(0), Seed::Fixed(u64::MAX), Seed::Random] {
            assert_eq!(seed.to_string().parse(), Ok(seed));
        }
    }

    fn round_trip<S: Setting + FromStr<Err = Error> + fmt::Display + PartialEq + fmt::Debug>() {
        for &v in S::ALL {
            assert_eq!(v.to_string().parse::<S>(), Ok(v));
            assert_eq!(S::parse(&format!(" {v}\n")), Ok(v));
        }
    }

    #[test]
    fn words() {
        round_trip::<Executor>();
        round_trip::<ScheduleMode>();
        round_trip::<Guide>();
        assert_eq!(
            err("fast".parse::<Executor>()),
            "`\"fast\"` is not an executor: write `\"workers\"` (the default) or `\"paper\"`"
        );
        assert_eq!(
            err("controled".parse::<ScheduleMode>()),
            "`\"controled\"` is not a schedule: write `\"auto\"` (the default), `\"controlled\"` or `\"stress\"`"
        );
        assert_eq!(
            err("Map".parse::<Guide>()),
            "`\"Map\"` is not a guide: write `\"random\"` (the default), `\"pairs\"` (CovCon: method-pair coverage) or `\"map\"` (MAPTest: memory-access-pattern coverage)"
        );
    }

    #[test]
    fn strategies() {
        for (text, want) in [
            ("random", Strategy::Random),
            ("pct", Strategy::Pct { depth: None }),
            ("pct1", Strategy::Pct { depth: Some(1) }),
            (" pct10\n", Strategy::Pct { depth: Some(10) }),
            ("dfs", Strategy::Dfs { preemptions: None }),
            (
                "dfs0",
                Strategy::Dfs {
                    preemptions: Some(0),
                },
            ),
            (
                "dfs3",
                Strategy::Dfs {
                    preemptions: Some(3),
                },
            ),
        ] {
            assert_eq!(text.parse(), Ok(want), "{text:?}");
            assert_eq!(want.to_string().parse(), Ok(want));
        }
        for bad in [
            "", "DFS", "Random", "pct-1", "pct 2", "pct2x", "pct:2", "dfs-1", "dfs2x",
        ] {
            assert_eq!(
                err(bad.parse::<Strategy>()),
                format!("`{bad:?}` is not a strategy: write {}", Strategy::EXPECTED)
            );
        }
        assert_eq!(
            err("pct0".parse::<Strategy>()),
            "`\"pct0\"`: the bug depth of PCT is at least 1, e.g. `\"pct2\"`"
        );
        assert!(err("pct99999999999999999999999".parse::<Strategy>()).contains("too large"));
        assert!(err("dfs1001".parse::<Strategy>()).contains("bound on preemptions is too large"));
        assert_eq!(
            "dfs1000".parse::<Strategy>().unwrap().preemptions(),
            Some(1000)
        );
        assert_eq!(
            Strategy::Dfs { preemptions: None }.preemptions(),
            Some(DEFAULT_PREEMPTIONS)
        );
        assert_eq!(Strategy::Dfs { preemptions: None }.depth(), None);
        assert_eq!(Strategy::Pct { depth: None }.preemptions(), None);
        assert!(Strategy::EXPECTED.contains(&format!("(bug depth {DEFAULT_PCT_DEPTH})")));
        assert_eq!(Strategy::Random.depth(), None);
        assert_eq!(Strategy::Pct { depth: Some(5) }.depth(), Some(5));
        assert_eq!(
            Strategy::Pct { depth: None }.depth(),
            Some(DEFAULT_PCT_DEPTH)
        );
    }

    #[test]
    fn jobs_shards_and_switches() {
        assert_eq!(parse_jobs(" 16\n"), Ok(16));
        assert_eq!(parse_jobs("256"), Ok(MAX_JOBS));
        for bad in ["", "-1", "+2", "2.0", "two", "1_000"] {
            assert_eq!(
                err(parse_jobs(bad)),
                format!("`{bad:?}` is not a number of jobs: write a positive number of hunts to run at once, e.g. `\"4\"`")
            );
        }
        assert_eq!(
            err(parse_jobs("257")),
            "`\"257\"` is too many jobs: at most 256 hunts run at once"
        );
        assert!(err(parse_jobs("99999999999999999999999")).contains("too many"));
        let expected = "write `k/n` with k from 1 to n, e.g. `\"1/4\"`";
        assert_eq!(" 3/4\n".parse(), Ok(Shard { index: 3, count: 4 }));
        assert_eq!(
            err("0/2".parse::<Shard>()),
            format!("`\"0/2\"`: shards are numbered from 1: {expected}")
        );
        assert_eq!(
            err("3/2".parse::<Shard>()),
            format!("`\"3/2\"`: there is no shard 3 of 2: {expected}")
        );
        for zero in ["1/0", "0/0"] {
            assert_eq!(
                err(zero.parse::<Shard>()),
                format!("`{zero:?}`: the number of shards is at least 1: {expected}")
            );
        }
        for bad in ["a/b", "1/", "/2", "1 / 2", "1/2/3", "+1/2", "-1/2", "2", ""] {
            assert_eq!(
                err(bad.parse::<Shard>()),
                format!("`{bad:?}` is not a shard: {expected}"),
                "{bad:?}"
            );
        }
        for shard in [Shard { index: 1, count: 1 }, Shard { index: 7, count: 9 }] {
            assert_eq!(shard.to_string().parse(), Ok(shard));
        }
        round_trip::<Switch>();
        assert_eq!(
            err("yes".parse::<Switch>()),
            "`\"yes\"` is not a switch: write `\"on\"` (the default) or `\"off\"`"
        );
        for nanos in [1, 999, 250_000_000, 1_000_000_000, 61_000_000_001, u64::MAX] {
            let d = Duration::from_nanos(nanos);
            assert_eq!(parse_duration(&format_duration(d)), Ok(d), "{d:?}");
        }
        assert_eq!(format_duration(Duration::from_secs(2)), "2s");
    }

    /// Every sample is decided, and the good ones print back to an equal value.
    #[test]
    fn samples_cover_both_sides() {
        let durations: Vec<bool> = samples::DURATIONS
            .iter()
            .map(|s| parse_duration(s).is_ok())
            .collect();
        assert!(durations.contains(&true) && durations.contains(&false));
        let seeds: Vec<bool> = samples::SEEDS
            .iter()
            .map(|s| s.parse::<Seed>().is_ok())
            .collect();
        assert!(seeds.contains(&true) && seeds.contains(&false));
        let jobs: Vec<bool> = samples::JOBS
            .iter()
            .map(|s| parse_jobs(s).is_ok())
            .collect();
        assert!(jobs.contains(&true) && jobs.contains(&false));
        for text in samples::SHARDS {
            if let Ok(s) = text.parse::<Shard>() {
                assert_eq!(s.to_string().parse(), Ok(s));
            }
        }
        let switches: Vec<bool> = samples::SWITCHES
            .iter()
            .map(|s| s.parse::<Switch>().is_ok())
            .collect();
        assert!(switches.contains(&true) && switches.contains(&false));
        for word in samples::WORDS {
            if let Ok(s) = word.parse::<Strategy>() {
                assert_eq!(s.to_string().parse(), Ok(s));
            }
        }
    }
}
