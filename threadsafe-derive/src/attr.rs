//! The arguments of `#[thread_safe(..)]` on the impl block and of `#[thread_safe(skip)]` on a
//! method. Every keyword is spelled in this file and nowhere else: [`Key`] and [`MethodKey`].
//!
//! Parsing is in two steps, as in tokio-macros: [`RawArgs`] (darling's `FromMeta` over
//! `NestedMeta::parse_meta_list`) keeps each value as written with its span and rejects unknown
//! and repeated keys; [`Args::from_raw`] then types and range-checks every value, with messages
//! that name the key and show a valid value. Values written as strings (durations, seeds, the
//! settings' words) follow the grammar of `threadsafe-knobs`, the one the runtime's
//! environment variables follow: its error text becomes the compile error, at the string.

use std::time::Duration;

use threadsafe_knobs::{self as knobs, Setting};

use darling::ast::NestedMeta;
use darling::{FromAttributes, FromMeta};
use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Lit, LitStr, Meta, Path};

use crate::ctxt::Ctxt;

/// The attribute's name; also the name of the method-level helper attribute.
pub(crate) const ATTR: &str = "thread_safe";

/// An argument of `#[thread_safe(..)]` on the impl block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    Prefixes,
    Suffixes,
    StateChangerTries,
    CutCallTries,
    ConcExecs,
    Threads,
    PostCalls,
    Seed,
    Budget,
    DeadlockTimeout,
    Executor,
    Schedule,
    Strategy,
    Depth,
    Guide,
    StopWhenCovered,
    Results,
    Cancel,
    Instantiate,
    Crate,
    Test,
    StatementPoints,
}

impl Key {
    pub(crate) const ALL: [Key; 22] = [
        Key::Prefixes,
        Key::Suffixes,
        Key::StateChangerTries,
        Key::CutCallTries,
        Key::ConcExecs,
        Key::Threads,
        Key::PostCalls,
        Key::Seed,
        Key::Budget,
        Key::DeadlockTimeout,
        Key::Executor,
        Key::Schedule,
        Key::Strategy,
        Key::Depth,
        Key::Guide,
        Key::StopWhenCovered,
        Key::Results,
        Key::Cancel,
        Key::Instantiate,
        Key::Crate,
        Key::Test,
        Key::StatementPoints,
    ];

    /// The keyword; for the knobs of the check, also the name of the `Config` field it sets
    /// (`depth` is part of `strategy`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Key::Prefixes => "prefixes",
            Key::Suffixes => "suffixes",
            Key::StateChangerTries => "state_changer_tries",
            Key::CutCallTries => "cut_call_tries",
            Key::ConcExecs => "conc_execs",
            Key::Threads => "threads",
            Key::PostCalls => "post_calls",
            Key::Seed => "seed",
            Key::Budget => "budget",
            Key::DeadlockTimeout => "deadlock_timeout",
            Key::Executor => "executor",
            Key::Schedule => "schedule",
            Key::Strategy => "strategy",
            Key::Depth => "depth",
            Key::Guide => "guide",
            Key::StopWhenCovered => "stop_when_covered",
            Key::Results => "results",
            Key::Cancel => "cancel",
            Key::Instantiate => "instantiate",
            Key::Crate => "crate",
            Key::Test => "test",
            Key::StatementPoints => "statement_points",
        }
    }

    /// What the value must be, with an example.
    fn expects(self) -> String {
        let fixed = match self {
            Key::Prefixes => "a positive integer, e.g. `prefixes = 25`",
            Key::Suffixes => "a positive integer, e.g. `suffixes = 500`",
            Key::StateChangerTries => "an integer, e.g. `state_changer_tries = 5`",
            Key::CutCallTries => "a positive integer, e.g. `cut_call_tries = 2`",
            Key::ConcExecs => "a positive integer, e.g. `conc_execs = 100`",
            Key::Threads => "2, 3 or 4 (the number of suffixes run at once), e.g. `threads = 3`",
            Key::PostCalls => "an integer, e.g. `post_calls = 1`",
            Key::Seed => {
                "an unsigned 64-bit integer, e.g. `seed = 7`, or `\"random\"` (a new seed each run)"
            }
            Key::Budget => "a duration in a string, e.g. `budget = \"500ms\"`, `\"2s\"`, `\"1.5s\"` or `\"10m\"`",
            Key::DeadlockTimeout => {
                "a duration in a string, e.g. `deadlock_timeout = \"250ms\"`, `\"2s\"` or `\"1m\"`"
            }
            Key::Executor => {
                return format!("{}, e.g. `executor = \"paper\"`", knobs::Executor::expected())
            }
            Key::Schedule => {
                return format!(
                    "{}, e.g. `schedule = \"controlled\"`",
                    knobs::ScheduleMode::expected()
                )
            }
            Key::Strategy => {
                "`\"random\"` (the default), `\"pct\"` with a bug depth, e.g. `strategy = \"pct\", depth = 2` or `strategy = \"pct2\"`, or `\"dfs\"` with a bound on preemptions, e.g. `strategy = \"dfs3\"`"
            }
            Key::Depth => {
                "a positive integer, the bug depth `strategy = \"pct\"` aims at, e.g. `depth = 2`"
            }
            Key::Guide => {
                return format!("{}, e.g. `guide = \"map\"`", knobs::Guide::expected())
            }
            Key::StopWhenCovered => {
                "`true` or `false` (the default), e.g. `stop_when_covered = true`"
            }
            Key::Results => {
                "`true` (the default: results are compared) or `false` (panics and deadlocks only), e.g. `results = false`"
            }
            Key::Cancel => {
                "`true` (the default: tests may cancel calls of async methods) or `false`, e.g. `cancel = false`"
            }
            Key::Instantiate => {
                "a concrete type in a string, e.g. `instantiate = \"Cache<String, u32>\"`"
            }
            Key::Crate => {
                "the path of the runtime crate in a string, e.g. `crate = \"::my_threadsafe\"`"
            }
            Key::Test => "`true` or `false`, e.g. `test = false`",
            Key::StatementPoints => {
                "`true` (in test builds, the default), `false` or `\"always\"`, e.g. `statement_points = false`"
            }
        };
        fixed.to_string()
    }

    fn from_path(path: &Path) -> Option<Key> {
        let ident = path.get_ident()?.to_string();
        Key::ALL.into_iter().find(|k| k.name() == ident)
    }

    /// The list of keywords, for messages.
    fn list() -> String {
        let names: Vec<String> = Key::ALL.iter().map(|k| format!("`{}`", k.name())).collect();
        names.join(", ")
    }
}

/// A keyword of the method-level attribute `#[thread_safe(..)]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MethodKey {
    Skip,
    Nondeterministic,
    NotCancelSafe,
}

impl MethodKey {
    const ALL: [MethodKey; 3] = [
        MethodKey::Skip,
        MethodKey::Nondeterministic,
        MethodKey::NotCancelSafe,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            MethodKey::Skip => "skip",
            MethodKey::Nondeterministic => "nondeterministic",
            MethodKey::NotCancelSafe => "not_cancel_safe",
        }
    }

    /// What the keyword does, for messages.
    fn usage(self) -> &'static str {
        match self {
            MethodKey::Skip => "`#[thread_safe(skip)]` leaves a method out of the check",
            MethodKey::Nondeterministic => {
                "`#[thread_safe(nondeterministic)]` calls it but never compares its results"
            }
            MethodKey::NotCancelSafe => {
                "`#[thread_safe(not_cancel_safe)]` never cancels an async method's calls"
            }
        }
    }

    /// The keywords with what each does, for messages.
    fn usages() -> String {
        let all: Vec<&str> = MethodKey::ALL.iter().map(|k| k.usage()).collect();
        all.join("; ")
    }
}

// ---------------------------------------------------------------------------------------
// Raw arguments: each key with its value as written.
// ---------------------------------------------------------------------------------------

/// One `key = value` as written.
pub(crate) struct Entry {
    pub(crate) key: Key,
    /// The key as written, for errors about the key itself.
    pub(crate) path: Path,
    pub(crate) value: Expr,
}

/// The arguments as written: known keys, each at most once.
pub(crate) struct RawArgs {
    pub(crate) entries: Vec<Entry>,
}

impl FromMeta for RawArgs {
    fn from_list(items: &[NestedMeta]) -> darling::Result<Self> {
        let mut errors = darling::Error::accumulator();
        let raw = RawArgs::collect(items, &mut errors);
        errors.finish_with(raw)
    }
}

impl RawArgs {
    /// The valid entries of `items`; the errors go to `errors`, so that the entries that are
    /// well-formed still get their values checked.
    fn collect(items: &[NestedMeta], errors: &mut darling::error::Accumulator) -> RawArgs {
        let mut entries: Vec<Entry> = Vec::new();
        for item in items {
            let meta = match item {
                NestedMeta::Meta(meta) => meta,
                NestedMeta::Lit(lit) => {
                    errors.push(
                        darling::Error::custom(
                            "expected `key = value` arguments, e.g. `#[thread_safe(budget = \"5s\", seed = 7)]`",
                        )
                        .with_span(lit),
                    );
                    continue;
                }
            };
            let path = meta.path();
            let Some(key) = Key::from_path(path) else {
                errors.push(unknown_key(path));
                continue;
            };
            if entries.iter().any(|e| e.key == key) {
                errors.push(
                    darling::Error::custom(format!("`{}` is given twice", key.name()))
                        .with_span(path),
                );
                continue;
            }
            match meta {
                Meta::NameValue(nv) => entries.push(Entry {
                    key,
                    path: path.clone(),
                    value: ungroup(&nv.value).clone(),
                }),
                _ => errors.push(
                    darling::Error::custom(format!(
                        "`{}` needs a value: {}",
                        key.name(),
                        key.expects()
                    ))
                    .with_span(meta),
                ),
            }
        }
        RawArgs { entries }
    }
}

fn unknown_key(path: &Path) -> darling::Error {
    let written = path_text(path);
    let hint = Key::ALL
        .iter()
        .map(|k| (edit_distance(&written, k.name()), k.name()))
        .filter(|(d, name)| *d <= 2.max(name.len() / 3))
        .min()
        .map(|(_, name)| format!(" (did you mean `{name}`?)"))
        .unwrap_or_default();
    darling::Error::custom(format!(
        "unknown argument `{written}` of `#[thread_safe]`{hint}; the arguments are {}",
        Key::list()
    ))
    .with_span(path)
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => items.concat(),
    }
}

fn path_text(path: &Path) -> String {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    segments.join("::")
}

/// Levenshtein distance, for "did you mean".
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// `expr` without the invisible groups `macro_rules!` wraps around substituted fragments.
fn ungroup(expr: &Expr) -> &Expr {
    match expr {
        Expr::Group(g) => ungroup(&g.expr),
        e => e,
    }
}

fn lit_str(expr: &Expr) -> Option<&LitStr> {
    match ungroup(expr) {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------
// Final arguments: typed and checked.
// ---------------------------------------------------------------------------------------

/// The value of one `Config` field set by the attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConfigValue {
    Usize(usize),
    /// The seed: a number, or one drawn when the test runs.
    Seed(knobs::Seed),
    Duration(Duration),
    /// `Some(duration)`, for an `Option<Duration>` field.
    SomeDuration(Duration),
    /// The runtime's `Executor` of the same name.
    Executor(knobs::Executor),
    /// The runtime's `ScheduleMode` of the same name.
    Schedule(knobs::ScheduleMode),
    /// The runtime's `Strategy` of the same name, its number resolved (PCT's depth, DFS's
    /// bound: always `Some`).
    Strategy(knobs::Strategy),
    /// The runtime's `Guide` of the same name.
    Guide(knobs::Guide),
    /// A `bool` field.
    Bool(bool),
}

/// The checked arguments of `#[thread_safe(..)]`.
pub(crate) struct Args {
    /// `Config` fields to set, by key, in the order written (`strategy`, which `depth`
    /// completes, last).
    pub(crate) config: Vec<(Key, ConfigValue)>,
    /// `instantiate = ".."`: the type parsed (`None` if it does not parse, an error already
    /// reported), and the string as written.
    pub(crate) instantiate: Option<(Option<syn::Type>, LitStr)>,
    /// The path of the runtime crate in emitted code (`crate = ".."`).
    pub(crate) krate: Path,
    /// Emit the `#[test]` function.
    pub(crate) test: bool,
    /// Where statement points go in the methods' bodies.
    pub(crate) statement_points: PointsIn,
}

/// Where `#[thread_safe]` inserts statement points (`statement_points = ..`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PointsIn {
    /// `false`: nowhere.
    Nowhere,
    /// `true`, the default: in test builds (`#[cfg(test)]`).
    TestBuilds,
    /// `"always"`: in every build, for harnesses that check a library from outside its
    /// tests (benchmarks, examples); a point costs one thread-local read when nothing runs.
    Always,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            config: Vec::new(),
            instantiate: None,
            krate: syn::parse_quote!(::threadsafe_rt),
            test: true,
            statement_points: PointsIn::TestBuilds,
        }
    }
}

impl Args {
    /// Parses and checks the attribute's argument tokens; errors go to `cx`, and what could
    /// not be parsed keeps its default.
    pub(crate) fn parse(cx: &Ctxt, tokens: TokenStream) -> Args {
        match NestedMeta::parse_meta_list(tokens) {
            Ok(items) => {
                let mut errors = darling::Error::accumulator();
                let raw = RawArgs::collect(&items, &mut errors);
                for e in errors.into_inner() {
                    cx.darling_error(e);
                }
                Args::from_raw(cx, raw)
            }
            Err(e) => {
                cx.syn_error(e);
                Args::default()
            }
        }
    }

    pub(crate) fn from_raw(cx: &Ctxt, raw: RawArgs) -> Args {
        let mut args = Args::default();
        // `strategy` and `depth` make one value, checked together after the other keys:
        // `Some(None)` is a strategy written with a bad value (already reported).
        let mut strategy: Option<Option<knobs::Strategy>> = None;
        let mut depth: Option<(usize, &Path)> = None;
        for entry in &raw.entries {
            let key = entry.key;
            let value = &entry.value;
            let bad = |why: &str| {
                cx.error_spanned_by(
                    value,
                    format!("`{}` takes {}{why}", key.name(), key.expects()),
                )
            };
            // A string value read with the knobs' grammar, whose error goes at the string.
            let knob = |s: &LitStr, e: knobs::Error| {
                cx.error_spanned_by(s, format!("`{}`: {e}", key.name()))
            };
            match key {
                Key::Prefixes
                | Key::Suffixes
                | Key::StateChangerTries
                | Key::CutCallTries
                | Key::ConcExecs
                | Key::Threads
                | Key::PostCalls => {
                    let Ok(n) = usize::from_expr(value) else {
                        bad("");
                        continue;
                    };
                    let ok = match key {
                        Key::Threads => (2..=4).contains(&n),
                        Key::StateChangerTries | Key::PostCalls => true,
                        _ => n >= 1,
                    };
                    if ok {
                        args.config.push((key, ConfigValue::Usize(n)));
                    } else {
                        bad(&format!(", not {n}"));
                    }
                }
                Key::Seed => match (lit_str(value), u64::from_expr(value)) {
                    (Some(s), _) => match s.value().parse::<knobs::Seed>() {
                        Ok(seed) => args.config.push((key, ConfigValue::Seed(seed))),
                        Err(e) => knob(s, e),
                    },
                    (None, Ok(n)) => args
                        .config
                        .push((key, ConfigValue::Seed(knobs::Seed::Fixed(n)))),
                    (None, Err(_)) => bad(""),
                },
                Key::Budget | Key::DeadlockTimeout => {
                    let Some(s) = lit_str(value) else {
                        bad("");
                        continue;
                    };
                    match knobs::parse_duration(&s.value()) {
                        Ok(d) if key == Key::Budget => {
                            args.config.push((key, ConfigValue::Duration(d)))
                        }
                        Ok(d) => args.config.push((key, ConfigValue::SomeDuration(d))),
                        Err(e) => knob(s, e),
                    }
                }
                Key::Executor | Key::Schedule | Key::Guide => {
                    let Some(s) = lit_str(value) else {
                        bad("");
                        continue;
                    };
                    let text = s.value();
                    let parsed = match key {
                        Key::Executor => text.parse().map(ConfigValue::Executor),
                        Key::Schedule => text.parse().map(ConfigValue::Schedule),
                        _ => text.parse().map(ConfigValue::Guide),
                    };
                    match parsed {
                        Ok(v) => args.config.push((key, v)),
                        Err(e) => knob(s, e),
                    }
                }
                Key::Strategy => {
                    let parsed = match lit_str(value) {
                        Some(s) => s.value().parse().map_err(|e| knob(s, e)).ok(),
                        None => {
                            bad("");
                            None
                        }
                    };
                    strategy = Some(parsed);
                }
                Key::Depth => match usize::from_expr(value) {
                    Ok(0) => bad(", not 0"),
                    Ok(n) => depth = Some((n, &entry.path)),
                    Err(_) => bad(""),
                },
                Key::StopWhenCovered | Key::Results | Key::Cancel => match (
                    bool::from_expr(value),
                    lit_str(value).map(LitStr::value).as_deref(),
                ) {
                    (Ok(b), _) => args.config.push((key, ConfigValue::Bool(b))),
                    (_, Some(other)) => bad(&format!(", not `\"{other}\"`")),
                    _ => bad(""),
                },
                Key::Instantiate => {
                    let Some(s) = lit_str(value) else {
                        bad("");
                        continue;
                    };
                    let parsed = s.parse::<syn::Type>();
                    args.instantiate = Some((parsed.as_ref().ok().cloned(), s.clone()));
                    match parsed {
                        Ok(_) => {}
                        Err(e) => cx.error_spanned_by(
                            s,
                            format!(
                                "`instantiate = \"{}\"` is not a type ({e}): {}",
                                s.value(),
                                key.expects()
                            ),
                        ),
                    }
                }
                Key::Crate => {
                    let path = match lit_str(value) {
                        Some(s) => s.parse::<Path>().ok(),
                        None => Path::from_expr(value).ok(),
                    };
                    match path {
                        Some(p) => args.krate = p,
                        None => bad(""),
                    }
                }
                Key::Test => match bool::from_expr(value) {
                    Ok(b) => args.test = b,
                    Err(_) => bad(""),
                },
                Key::StatementPoints => match (
                    bool::from_expr(value),
                    lit_str(value).map(LitStr::value).as_deref(),
                ) {
                    (Ok(true), _) => args.statement_points = PointsIn::TestBuilds,
                    (Ok(false), _) => args.statement_points = PointsIn::Nowhere,
                    (_, Some("always")) => args.statement_points = PointsIn::Always,
                    (_, Some(other)) => bad(&format!(", not `\"{other}\"`")),
                    _ => bad(""),
                },
            }
        }
        match (strategy, depth) {
            (Some(Some(s)), None) => args
                .config
                .push((Key::Strategy, ConfigValue::Strategy(s.resolved()))),
            (Some(Some(knobs::Strategy::Pct { depth: None })), Some((n, _))) => args.config.push((
                Key::Strategy,
                ConfigValue::Strategy(knobs::Strategy::Pct { depth: Some(n) }),
            )),
            (Some(Some(pct @ knobs::Strategy::Pct { depth: Some(_) })), Some((_, path))) => cx
                .error_spanned_by(
                    path,
                    format!(
                        "`depth` is given twice: `strategy = \"{pct}\"` already says the bug depth; write `strategy = \"pct\", depth = ..` or `strategy = \"{pct}\"` alone"
                    ),
                ),
            (Some(Some(knobs::Strategy::Random)), Some((_, path))) => cx.error_spanned_by(
                path,
                "`depth` is the bug depth of `strategy = \"pct\"`, and the strategy here is `\"random\"`: write `strategy = \"pct\"`, or remove `depth`",
            ),
            (Some(Some(dfs @ knobs::Strategy::Dfs { .. })), Some((_, path))) => cx.error_spanned_by(
                path,
                format!("`depth` is the bug depth of `strategy = \"pct\"`, and the strategy here is `\"{dfs}\"`: its bound on preemptions is written in the word (`\"dfs3\"`); remove `depth`"),
            ),
            (None, Some((_, path))) => cx.error_spanned_by(
                path,
                "`depth` is the bug depth of `strategy = \"pct\"`, and no strategy is given (the default is `\"random\"`): add `strategy = \"pct\"`, or remove `depth`",
            ),
            (Some(None), _) | (None, None) => {}
        }
        args
    }
}

// ---------------------------------------------------------------------------------------
// Method-level attribute.
// ---------------------------------------------------------------------------------------

/// Whether `attr` is the helper `#[thread_safe(..)]` (the macro strips these from the output).
pub(crate) fn is_helper(attr: &Attribute) -> bool {
    attr.path().segments.last().is_some_and(|s| s.ident == ATTR)
}

/// The arguments of the helper attributes on one method.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MethodAttrs {
    /// `#[thread_safe(skip)]`: leave the method out of the check.
    pub(crate) skip: bool,
    /// `#[thread_safe(nondeterministic)]`, at the keyword: never compare the method's results
    /// (`valid.rs` checks that it has results to compare).
    pub(crate) nondeterministic: Option<Span>,
    /// `#[thread_safe(not_cancel_safe)]`, at the keyword: never cancel the async method's
    /// calls (`valid.rs` checks that it is async and called).
    pub(crate) not_cancel_safe: Option<Span>,
}

impl FromAttributes for MethodAttrs {
    fn from_attributes(attrs: &[Attribute]) -> darling::Result<Self> {
        let mut errors = darling::Error::accumulator();
        let mut out = MethodAttrs::default();
        let usage = MethodKey::usages();
        for attr in attrs.iter().filter(|a| is_helper(a)) {
            let list = match &attr.meta {
                Meta::List(list) => list,
                other => {
                    errors.push(
                        darling::Error::custom(format!(
                            "`#[thread_safe]` on a method needs an argument: {usage}"
                        ))
                        .with_span(other),
                    );
                    continue;
                }
            };
            let Some(items) = errors.handle(
                NestedMeta::parse_meta_list(list.tokens.clone()).map_err(darling::Error::from),
            ) else {
                continue;
            };
            if items.is_empty() {
                errors.push(
                    darling::Error::custom(format!(
                        "`#[thread_safe()]` on a method needs an argument: {usage}"
                    ))
                    .with_span(&list.path),
                );
            }
            for item in &items {
                let (path, has_value) = match item {
                    NestedMeta::Meta(Meta::Path(p)) => (p, false),
                    NestedMeta::Meta(m) => (m.path(), true),
                    NestedMeta::Lit(lit) => {
                        errors.push(
                            darling::Error::custom(format!(
                                "unexpected literal in `#[thread_safe(..)]` on a method: {usage}"
                            ))
                            .with_span(lit),
                        );
                        continue;
                    }
                };
                match MethodKey::ALL.into_iter().find(|k| path.is_ident(k.name())) {
                    Some(key) if has_value => errors.push(
                        darling::Error::custom(format!(
                            "`{}` takes no value: write `#[thread_safe({})]`",
                            key.name(),
                            key.name()
                        ))
                        .with_span(item),
                    ),
                    Some(MethodKey::Skip) => out.skip = true,
                    Some(MethodKey::Nondeterministic) => out.nondeterministic = Some(path.span()),
                    Some(MethodKey::NotCancelSafe) => out.not_cancel_safe = Some(path.span()),
                    None => errors.push(unknown_method_key(path)),
                }
            }
        }
        errors.finish_with(out)
    }
}

fn unknown_method_key(path: &Path) -> darling::Error {
    let written = path_text(path);
    let hint = MethodKey::ALL
        .iter()
        .map(|k| (edit_distance(&written, k.name()), k.name()))
        .filter(|(d, name)| *d <= 2.max(name.len() / 3))
        .min()
        .map(|(_, name)| format!(" (did you mean `{name}`?)"))
        .unwrap_or_default();
    let names: Vec<String> = MethodKey::ALL
        .iter()
        .map(|k| format!("`{}`", k.name()))
        .collect();
    darling::Error::custom(format!(
        "unknown argument `{written}` of `#[thread_safe]` on a method{hint}; the arguments are {}: {}",
        and_list(&names),
        MethodKey::usages()
    ))
    .with_span(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse(tokens: TokenStream) -> (Args, Vec<String>) {
        let cx = Ctxt::new();
        let args = Args::parse(&cx, tokens);
        let errors = match cx.check() {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        };
        (args, errors)
    }

    fn pct(depth: usize) -> ConfigValue {
        ConfigValue::Strategy(knobs::Strategy::Pct { depth: Some(depth) })
    }

    #[test]
    fn empty_is_defaults() {
        let (args, errors) = parse(quote!());
        assert!(errors.is_empty());
        assert!(args.config.is_empty());
        assert!(args.test);
        assert!(args.instantiate.is_none());
        assert_eq!(args.statement_points, PointsIn::TestBuilds);
        let krate = args.krate;
        assert_eq!(
            quote!(#krate).to_string(),
            quote!(::threadsafe_rt).to_string()
        );
    }

    #[test]
    fn every_argument() {
        let (args, errors) = parse(quote!(
            prefixes = 3,
            suffixes = 40,
            state_changer_tries = 0,
            cut_call_tries = 1,
            conc_execs = 7,
            threads = 4,
            post_calls = 0,
            seed = 18446744073709551615,
            budget = "1.5s",
            deadlock_timeout = "250ms",
            executor = "paper",
            schedule = "controlled",
            strategy = "pct",
            depth = 5,
            guide = "map",
            stop_when_covered = true,
            instantiate = "Cache<String, u32>",
            crate = "::my_rt",
            test = false,
            statement_points = false
        ));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            args.config,
            vec![
                (Key::Prefixes, ConfigValue::Usize(3)),
                (Key::Suffixes, ConfigValue::Usize(40)),
                (Key::StateChangerTries, ConfigValue::Usize(0)),
                (Key::CutCallTries, ConfigValue::Usize(1)),
                (Key::ConcExecs, ConfigValue::Usize(7)),
                (Key::Threads, ConfigValue::Usize(4)),
                (Key::PostCalls, ConfigValue::Usize(0)),
                (Key::Seed, ConfigValue::Seed(knobs::Seed::Fixed(u64::MAX))),
                (
                    Key::Budget,
                    ConfigValue::Duration(Duration::from_millis(1500))
                ),
                (
                    Key::DeadlockTimeout,
                    ConfigValue::SomeDuration(Duration::from_millis(250))
                ),
                (Key::Executor, ConfigValue::Executor(knobs::Executor::Paper)),
                (
                    Key::Schedule,
                    ConfigValue::Schedule(knobs::ScheduleMode::Controlled)
                ),
                (Key::Guide, ConfigValue::Guide(knobs::Guide::Map)),
                (Key::StopWhenCovered, ConfigValue::Bool(true)),
                (Key::Strategy, pct(5)),
            ]
        );
        assert_eq!(args.statement_points, PointsIn::Nowhere);
        let ty = args.instantiate.unwrap().0.unwrap();
        assert_eq!(quote!(#ty).to_string(), "Cache < String , u32 >");
        let krate = args.krate;
        assert_eq!(quote!(#krate).to_string(), ":: my_rt");
        assert!(!args.test);
    }

    #[test]
    fn every_key_is_a_keyword_of_the_list() {
        for key in Key::ALL {
            let path: Path =
                syn::parse_str(key.name()).unwrap_or_else(|_| syn::parse_quote!(crate));
            assert_eq!(Key::from_path(&path), Some(key), "{}", key.name());
        }
    }

    #[test]
    fn unknown_key_lists_the_keys_and_suggests() {
        let (_, errors) = parse(quote!(thread = 3, bogus = 1));
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors[0].starts_with(
                "unknown argument `thread` of `#[thread_safe]` (did you mean `threads`?)"
            ),
            "{}",
            errors[0]
        );
        assert!(
            errors[0].contains("`prefixes`, `suffixes`"),
            "{}",
            errors[0]
        );
        assert!(!errors[1].contains("did you mean"), "{}", errors[1]);
    }

    #[test]
    fn all_errors_at_once() {
        let (args, errors) = parse(quote!(
            prefixes = 0,
            threads = 5,
            seed = -1,
            budget = "3h",
            executor = "fast",
            test = "no",
            conc_execs = "x",
            budget = "1s",
            instantiate = "Cache<",
            deadlock_timeout,
            suffixes = 9
        ));
        let expected = [
            "`budget` is given twice",
            "`deadlock_timeout` needs a value: a duration in a string",
            "`prefixes` takes a positive integer, e.g. `prefixes = 25`, not 0",
            "`threads` takes 2, 3 or 4 (the number of suffixes run at once), e.g. `threads = 3`, not 5",
            "`seed` takes an unsigned 64-bit integer, e.g. `seed = 7`",
            "`budget`: unknown unit `h` in `\"3h\"`",
            "`executor`: `\"fast\"` is not an executor: write `\"workers\"` (the default) or `\"paper\"`",
            "`test` takes `true` or `false`",
            "`conc_execs` takes a positive integer",
            "`instantiate = \"Cache<\"` is not a type",
        ];
        assert_eq!(errors.len(), expected.len(), "{errors:#?}");
        for (e, want) in errors.iter().zip(expected) {
            assert!(e.starts_with(want), "{e}\n  does not start with\n{want}");
        }
        // The good values are still read.
        assert_eq!(args.config, vec![(Key::Suffixes, ConfigValue::Usize(9))]);
    }

    #[test]
    fn schedule_strategy_and_depth() {
        let (args, errors) = parse(quote!(schedule = "auto", strategy = "random"));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            args.config,
            [
                (
                    Key::Schedule,
                    ConfigValue::Schedule(knobs::ScheduleMode::Auto)
                ),
                (
                    Key::Strategy,
                    ConfigValue::Strategy(knobs::Strategy::Random)
                ),
            ]
        );
        let (args, errors) = parse(quote!(depth = 2, schedule = "stress", strategy = "pct"));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            args.config,
            [
                (
                    Key::Schedule,
                    ConfigValue::Schedule(knobs::ScheduleMode::Stress)
                ),
                (Key::Strategy, pct(2)),
            ]
        );
        let (args, _) = parse(quote!(strategy = "pct"));
        assert_eq!(
            args.config,
            [(Key::Strategy, pct(knobs::DEFAULT_PCT_DEPTH))]
        );

        let (args, errors) = parse(quote!(
            schedule = "controled",
            strategy = "bfs",
            depth = 0,
            statement_points = "no"
        ));
        assert!(args.config.is_empty());
        let expected = [
            "`schedule`: `\"controled\"` is not a schedule: write `\"auto\"` (the default), `\"controlled\"` or `\"stress\"`",
            "`strategy`: `\"bfs\"` is not a strategy: write `\"random\"` (the default), `\"pct\"` (bug depth 3) or `\"pct\"` and a bug depth of at least 1, e.g. `\"pct2\"`, or `\"dfs\"` (at most 2 preemptions) or `\"dfs\"` and a bound on preemptions, e.g. `\"dfs3\"`",
            "`depth` takes a positive integer, the bug depth `strategy = \"pct\"` aims at, e.g. `depth = 2`, not 0",
            "`statement_points` takes `true` (in test builds, the default), `false` or `\"always\"`, e.g. `statement_points = false`, not `\"no\"`",
        ];
        assert_eq!(errors, expected);

        let (_, errors) = parse(quote!(depth = 2));
        assert_eq!(errors, ["`depth` is the bug depth of `strategy = \"pct\"`, and no strategy is given (the default is `\"random\"`): add `strategy = \"pct\"`, or remove `depth`"]);
        let (_, errors) = parse(quote!(depth = 2, strategy = "random"));
        assert_eq!(errors, ["`depth` is the bug depth of `strategy = \"pct\"`, and the strategy here is `\"random\"`: write `strategy = \"pct\"`, or remove `depth`"]);
        let (_, errors) = parse(quote!(strategy = 3, depth = 2));
        assert_eq!(errors.len(), 1, "no second error about `depth`: {errors:?}");
    }

    #[test]
    fn guide_and_stop_when_covered() {
        for (written, variant) in [
            ("random", knobs::Guide::Random),
            ("pairs", knobs::Guide::Pairs),
            ("map", knobs::Guide::Map),
        ] {
            let (args, errors) = parse(quote!(guide = #written));
            assert!(errors.is_empty(), "{errors:?}");
            assert_eq!(args.config, [(Key::Guide, ConfigValue::Guide(variant))]);
        }
        let (args, errors) = parse(quote!(stop_when_covered = false, guide = "pairs"));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            args.config,
            [
                (Key::StopWhenCovered, ConfigValue::Bool(false)),
                (Key::Guide, ConfigValue::Guide(knobs::Guide::Pairs)),
            ]
        );

        let (args, errors) = parse(quote!(
            guide = "covcon",
            stop_when_covered = "yes",
            guide = "map"
        ));
        assert!(args.config.is_empty());
        let expected = [
            "`guide` is given twice",
            "`guide`: `\"covcon\"` is not a guide: write `\"random\"` (the default), `\"pairs\"` (CovCon: method-pair coverage) or `\"map\"` (MAPTest: memory-access-pattern coverage)",
            "`stop_when_covered` takes `true` or `false` (the default), e.g. `stop_when_covered = true`, not `\"yes\"`",
        ];
        assert_eq!(errors, expected);

        let (_, errors) = parse(quote!(guide = map, stop_when_covered = 1));
        let expected = [
            "`guide` takes `\"random\"` (the default), `\"pairs\"` (CovCon: method-pair coverage) or `\"map\"` (MAPTest: memory-access-pattern coverage), e.g. `guide = \"map\"`",
            "`stop_when_covered` takes `true` or `false` (the default), e.g. `stop_when_covered = true`",
        ];
        assert_eq!(errors, expected);
        let (_, errors) = parse(quote!(stop_when_covered));
        assert_eq!(errors, ["`stop_when_covered` needs a value: `true` or `false` (the default), e.g. `stop_when_covered = true`"]);

        let (_, errors) = parse(quote!(guid = "map", stop_when_coverd = true));
        assert!(
            errors[0]
                .starts_with("unknown argument `guid` of `#[thread_safe]` (did you mean `guide`?)"),
            "{}",
            errors[0]
        );
        assert!(
            errors[1].starts_with(
                "unknown argument `stop_when_coverd` of `#[thread_safe]` (did you mean `stop_when_covered`?)"
            ),
            "{}",
            errors[1]
        );
        assert!(
            errors[1].contains(
                "`depth`, `guide`, `stop_when_covered`, `results`, `cancel`, `instantiate`"
            ),
            "{}",
            errors[1]
        );
    }

    #[test]
    fn literal_and_word_arguments() {
        let (_, errors) = parse(quote!("fast", budget));
        assert_eq!(errors.len(), 2);
        assert!(errors[0].starts_with("expected `key = value` arguments"));
        assert!(errors[1].starts_with("`budget` needs a value: a duration"));
    }

    #[test]
    fn crate_path_bare_or_quoted() {
        let (args, errors) = parse(quote!(crate = my::rt));
        assert!(errors.is_empty(), "{errors:?}");
        let krate = args.krate;
        assert_eq!(quote!(#krate).to_string(), "my :: rt");
    }

    /// The attribute accepts exactly the strings the grammar accepts (and so the strings the
    /// runtime's environment variables accept: threadsafe-rt's tests run the same samples),
    /// with the same value, and rejects the others with the grammar's message, at the string.
    #[test]
    fn string_values_follow_the_grammar() {
        fn one(key: &str, text: &str) -> (Vec<(Key, ConfigValue)>, Vec<String>) {
            let key = syn::Ident::new(key, proc_macro2::Span::call_site());
            let (args, errors) = parse(quote!(#key = #text));
            (args.config, errors)
        }
        fn expect<T>(
            key: &str,
            text: &str,
            grammar: Result<T, knobs::Error>,
            value: impl FnOnce(T) -> ConfigValue,
        ) {
            let (config, errors) = one(key, text);
            match grammar {
                Ok(v) => {
                    assert!(errors.is_empty(), "{key} = {text:?}: {errors:?}");
                    assert_eq!(config.len(), 1, "{key} = {text:?}");
                    assert_eq!(config[0].1, value(v), "{key} = {text:?}");
                }
                Err(e) => {
                    assert!(config.is_empty(), "{key} = {text:?}");
                    assert_eq!(errors, [format!("`{key}`: {e}")], "{key} = {text:?}");
                }
            }
        }
        for &text in knobs::samples::DURATIONS {
            expect(
                "budget",
                text,
                knobs::parse_duration(text),
                ConfigValue::Duration,
            );
            expect(
                "deadlock_timeout",
                text,
                knobs::parse_duration(text),
                ConfigValue::SomeDuration,
            );
        }
        for &text in knobs::samples::SEEDS {
            expect("seed", text, text.parse(), ConfigValue::Seed);
        }
        for &text in knobs::samples::WORDS {
            expect("executor", text, text.parse(), ConfigValue::Executor);
            expect("schedule", text, text.parse(), ConfigValue::Schedule);
            expect("guide", text, text.parse(), ConfigValue::Guide);
            expect("strategy", text, text.parse(), |s: knobs::Strategy| {
                ConfigValue::Strategy(s.resolved())
            });
        }
    }

    #[test]
    fn seeds() {
        let (args, errors) = parse(quote!(seed = 7));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            args.config,
            [(Key::Seed, ConfigValue::Seed(knobs::Seed::Fixed(7)))]
        );
        let (args, _) = parse(quote!(seed = "random"));
        assert_eq!(
            args.config,
            [(Key::Seed, ConfigValue::Seed(knobs::Seed::Random))]
        );
        let (_, errors) = parse(quote!(seed = random));
        assert_eq!(errors, ["`seed` takes an unsigned 64-bit integer, e.g. `seed = 7`, or `\"random\"` (a new seed each run)"]);
    }

    #[test]
    fn depth_in_the_strategy() {
        let (args, errors) = parse(quote!(strategy = "pct4"));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(args.config, [(Key::Strategy, pct(4))]);
        let (args, errors) = parse(quote!(strategy = "dfs"));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            args.config,
            [(
                Key::Strategy,
                ConfigValue::Strategy(knobs::Strategy::Dfs {
                    preemptions: Some(knobs::DEFAULT_PREEMPTIONS)
                })
            )]
        );
        let (args, errors) = parse(quote!(strategy = "dfs3", depth = 2));
        assert!(args.config.is_empty());
        assert_eq!(errors, ["`depth` is the bug depth of `strategy = \"pct\"`, and the strategy here is `\"dfs3\"`: its bound on preemptions is written in the word (`\"dfs3\"`); remove `depth`"]);
        let (args, errors) = parse(quote!(strategy = "pct4", depth = 2));
        assert!(args.config.is_empty());
        assert_eq!(errors, ["`depth` is given twice: `strategy = \"pct4\"` already says the bug depth; write `strategy = \"pct\", depth = ..` or `strategy = \"pct4\"` alone"]);
        let (_, errors) = parse(quote!(strategy = "pct0"));
        assert_eq!(
            errors,
            ["`strategy`: `\"pct0\"`: the bug depth of PCT is at least 1, e.g. `\"pct2\"`"]
        );
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("thread", "threads"), 1);
        assert_eq!(edit_distance("prefix", "prefixes"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("budget", "budget"), 0);
    }

    fn method_attrs(attrs: Vec<Attribute>) -> darling::Result<MethodAttrs> {
        MethodAttrs::from_attributes(&attrs)
    }

    #[test]
    fn method_skip_and_nondeterministic() {
        let attrs: Vec<Attribute> = vec![
            syn::parse_quote!(#[doc = "x"]),
            syn::parse_quote!(#[thread_safe(skip)]),
        ];
        let a = method_attrs(attrs).unwrap();
        assert!(a.skip && a.nondeterministic.is_none());
        let attrs: Vec<Attribute> = vec![syn::parse_quote!(#[inline])];
        let a = method_attrs(attrs).unwrap();
        assert!(!a.skip && a.nondeterministic.is_none());
        let attrs: Vec<Attribute> = vec![syn::parse_quote!(#[threadsafe_rt::thread_safe(skip)])];
        assert!(method_attrs(attrs).unwrap().skip);
        let attrs: Vec<Attribute> = vec![syn::parse_quote!(#[thread_safe(nondeterministic)])];
        let a = method_attrs(attrs).unwrap();
        assert!(!a.skip && a.nondeterministic.is_some());
        // Both can be written; `valid.rs` rejects the pair.
        let attrs: Vec<Attribute> = vec![syn::parse_quote!(#[thread_safe(skip, nondeterministic)])];
        let a = method_attrs(attrs).unwrap();
        assert!(a.skip && a.nondeterministic.is_some());
    }

    #[test]
    fn method_errors() {
        let attrs: Vec<Attribute> = vec![
            syn::parse_quote!(#[thread_safe(skp, "x")]),
            syn::parse_quote!(#[thread_safe]),
            syn::parse_quote!(#[thread_safe()]),
            syn::parse_quote!(#[thread_safe(skip = true)]),
            syn::parse_quote!(#[thread_safe(nondeterministic = true)]),
            syn::parse_quote!(#[thread_safe(nondeterminstic, deterministic, bogus)]),
        ];
        let err = method_attrs(attrs).unwrap_err();
        let msgs: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        let usage = "`#[thread_safe(skip)]` leaves a method out of the check; `#[thread_safe(nondeterministic)]` calls it but never compares its results; `#[thread_safe(not_cancel_safe)]` never cancels an async method's calls";
        assert_eq!(
            msgs,
            [
                format!("unknown argument `skp` of `#[thread_safe]` on a method (did you mean `skip`?); the arguments are `skip`, `nondeterministic` and `not_cancel_safe`: {usage}"),
                format!("unexpected literal in `#[thread_safe(..)]` on a method: {usage}"),
                format!("`#[thread_safe]` on a method needs an argument: {usage}"),
                format!("`#[thread_safe()]` on a method needs an argument: {usage}"),
                "`skip` takes no value: write `#[thread_safe(skip)]`".to_string(),
                "`nondeterministic` takes no value: write `#[thread_safe(nondeterministic)]`".to_string(),
                format!("unknown argument `nondeterminstic` of `#[thread_safe]` on a method (did you mean `nondeterministic`?); the arguments are `skip`, `nondeterministic` and `not_cancel_safe`: {usage}"),
                format!("unknown argument `deterministic` of `#[thread_safe]` on a method (did you mean `nondeterministic`?); the arguments are `skip`, `nondeterministic` and `not_cancel_safe`: {usage}"),
                format!("unknown argument `bogus` of `#[thread_safe]` on a method; the arguments are `skip`, `nondeterministic` and `not_cancel_safe`: {usage}"),
            ]
        );
    }

    #[test]
    fn cancel() {
        let (args, errors) = parse(quote!(cancel = false));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(args.config, [(Key::Cancel, ConfigValue::Bool(false))]);
        let (_, errors) = parse(quote!(cancel = "never"));
        assert_eq!(
            errors,
            ["`cancel` takes `true` (the default: tests may cancel calls of async methods) or `false`, e.g. `cancel = false`, not `\"never\"`"]
        );
    }

    #[test]
    fn results() {
        let (args, errors) = parse(quote!(results = false));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(args.config, [(Key::Results, ConfigValue::Bool(false))]);
        let (args, errors) = parse(quote!(results = true));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(args.config, [(Key::Results, ConfigValue::Bool(true))]);
        let (args, errors) = parse(quote!(results = "no", results));
        assert!(args.config.is_empty());
        let expects = "`true` (the default: results are compared) or `false` (panics and deadlocks only), e.g. `results = false`";
        assert_eq!(
            errors,
            [
                "`results` is given twice".to_string(),
                format!("`results` takes {expects}, not `\"no\"`"),
            ]
        );
        let (_, errors) = parse(quote!(results));
        assert_eq!(errors, [format!("`results` needs a value: {expects}")]);
        let (_, errors) = parse(quote!(results = 0));
        assert_eq!(errors, [format!("`results` takes {expects}")]);
    }
}
