//! Inputs on both sides of each grammar. The tests of threadsafe-derive and threadsafe-rt
//! run each one through their own front end (the attribute; the environment variables and
//! `FromStr`) and compare with this crate's parsers, to show that the two accept exactly
//! the same inputs. Not an API.

/// Durations, good and bad.
pub const DURATIONS: &[&str] = &[
    "500ms",
    "2s",
    "1.5s",
    ".5s",
    "2.s",
    "10m",
    "2min",
    "0.001ms",
    "0.0000000001s",
    " 30s\n",
    "1.123456789123s",
    "18446744073s",
    "18446744074s",
    "99999999999999999999m",
    "",
    " ",
    "5",
    "s",
    ".s",
    "3h",
    "5 s",
    "fast",
    "0s",
    "0ms",
    "-1s",
    "+1s",
    "1e3s",
    "1.2.3s",
    "1_000ms",
    "2S",
    "inf",
];

/// Seeds, good and bad.
pub const SEEDS: &[&str] = &[
    "0",
    "7",
    " 42\n",
    "18446744073709551615",
    "18446744073709551616",
    "random",
    " random ",
    "Random",
    "",
    "-1",
    "+7",
    "0x10",
    "1_000",
    "7.0",
    "seven",
];

/// Numbers of jobs, good and bad.
pub const JOBS: &[&str] = &[
    "1",
    "2",
    " 16\n",
    "256",
    "257",
    "0",
    "",
    "-1",
    "+2",
    "2.0",
    "two",
    "1_000",
    "99999999999999999999999",
];

/// Shards, good and bad.
pub const SHARDS: &[&str] = &[
    "1/1",
    "1/2",
    "2/2",
    " 3/4\n",
    "0/2",
    "3/2",
    "1/0",
    "0/0",
    "a/b",
    "1/",
    "/2",
    "1 / 2",
    "1/2/3",
    "+1/2",
    "-1/2",
    "2",
    "",
    "1/99999999999999999999999",
];

/// Switches, good and bad.
pub const SWITCHES: &[&str] = &[
    "on", "off", " off\n", "On", "OFF", "yes", "no", "true", "0", "",
];

/// Words of the settings, good and bad for each: every setting is tried with all.
pub const WORDS: &[&str] = &[
    "stress",
    "paper",
    "auto",
    "controlled",
    "random",
    "pairs",
    "map",
    "pct",
    "pct1",
    "pct2",
    "pct10",
    " map\n",
    "pct0",
    "pct-1",
    "pct 2",
    "pct2x",
    "pct99999999999999999999999",
    "Map",
    "STRESS",
    "",
    "fast",
    "covcon",
    "controled",
    "dfs",
    "dfs0",
    "dfs3",
    "dfs-1",
    "dfs1001",
];
