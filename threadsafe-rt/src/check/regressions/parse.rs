//! Reading the regressions file: [`parse`] turns its text into entries, or says which line
//! is wrong and how. It checks everything that does not depend on the type: the header,
//! the fields of each entry, the calls' syntax, and that every instance and output a call
//! uses was made before it (so that a hand edit cannot make the engine index past a pool).

use super::format::{
    ArgValue, ControlledRun, Entry, File, NamedArg, NamedCall, NamedOut, NamedTest, ParseError,
    Settings, CANCELLED_AT, MAGIC, VERSION,
};
use crate::config::Config;

/// The part of a test a call belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Prefix,
    Thread,
    Post,
}

/// What a part has made so far: the instances and outputs later calls may use.
#[derive(Default)]
struct Bindings {
    instances: usize,
    prefix_vars: usize,
    own_vars: usize,
}

/// The entries of a regressions file. A file with no line but comments and blanks has none.
pub(super) fn parse(text: &str) -> Result<File, ParseError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let mut file = File {
        type_name: String::new(),
        entries: Vec::new(),
    };
    let Some((n, first)) = lines.next() else {
        return Ok(file);
    };
    header(n, first)?;
    let (n, second) = lines.next().ok_or_else(|| {
        error(
            n,
            "the file ends after its first line: `type <name>` should follow",
        )
    })?;
    file.type_name = second
        .strip_prefix("type ")
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            error(
                n,
                format!("expected `type <name>` (the checked type), found `{second}`"),
            )
        })?
        .to_string();
    while let Some((n, line)) = lines.next() {
        if line != "entry" {
            return Err(error(
                n,
                format!("expected `entry` (the start of an entry), found `{line}`"),
            ));
        }
        let entry = parse_entry(n, &mut lines)?;
        file.entries.push((n, entry));
    }
    Ok(file)
}

fn error(line: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        line,
        message: message.into(),
    }
}

fn header(n: usize, first: &str) -> Result<(), ParseError> {
    let expected = format!("`{MAGIC} {VERSION}`");
    let Some(version) = first.strip_prefix(MAGIC) else {
        return Err(error(
            n,
            format!("expected {expected} (the format and its version) first, found `{first}`: this is not a threadsafe regressions file"),
        ));
    };
    match number::<u32>(version.trim()) {
        Some(v) if v == VERSION => Ok(()),
        Some(v) if v > VERSION => Err(error(
            n,
            format!("the file is in version {v} of the format, and this threadsafe reads version {VERSION}: update threadsafe"),
        )),
        _ => Err(error(
            n,
            format!("`{first}` names no version of the format: expected {expected}"),
        )),
    }
}

/// A decimal number, digits only.
fn number<N: std::str::FromStr>(text: &str) -> Option<N> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    digits.then(|| text.parse().ok()).flatten()
}

/// The fields of the entry whose `entry` is at line `start`, up to its `end`.
fn parse_entry<'a>(
    start: usize,
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
) -> Result<Entry, ParseError> {
    let (mut seed, mut settings, mut failure, mut schedule) = (None, None, None, None);
    let mut test = NamedTest::default();
    let (mut part, mut had_prefix, mut had_post) = (None, false, false);
    let mut made = Bindings::default();
    loop {
        let Some((n, line)) = lines.next() else {
            return Err(error(start, "the entry is not closed: `end` is missing"));
        };
        if line == "end" {
            break;
        }
        if line == "entry" {
            return Err(error(
                n,
                format!("`entry` inside the entry of line {start}: its `end` is missing"),
            ));
        }
        let Some((key, value)) = field(line) else {
            let fields =
                "`seed:`, `settings:`, `failure:`, `prefix:`, `thread N:`, `post:`, `schedule:`";
            let looks_like_a_field = line.split_once(':').is_some_and(|(k, _)| {
                k.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '_')
            });
            if looks_like_a_field {
                return Err(error(
                    n,
                    format!("`{line}` is not a field of an entry: the fields are {fields}"),
                ));
            }
            let Some(p) = part else {
                return Err(error(
                    n,
                    format!("expected a field ({fields}) or `end`, found `{line}`"),
                ));
            };
            let call = parse_call(line, p).map_err(|m| error(n, m))?;
            uses(&call, p, &mut made).map_err(|m| error(n, m))?;
            match p {
                Part::Prefix => test.prefix.push(call),
                Part::Thread => test.threads.last_mut().expect("a thread").push(call),
                Part::Post => test.post.push(call),
            }
            continue;
        };
        part = None;
        let twice = || error(n, format!("a second `{key}:` in the entry of line {start}"));
        let no_value = |section: &str| match value.is_empty() {
            true => Ok(()),
            false => Err(error(
                n,
                format!("`{section}:` is followed by calls on the lines below, not by `{value}`"),
            )),
        };
        match key {
            "seed" => {
                let s = number(value).ok_or_else(|| {
                    error(
                        n,
                        format!("`seed: {value}`: the seed is an unsigned 64-bit integer"),
                    )
                })?;
                if seed.replace(s).is_some() {
                    return Err(twice());
                }
            }
            "settings" => {
                let s = parse_settings(value).map_err(|m| error(n, m))?;
                if settings.replace(s).is_some() {
                    return Err(twice());
                }
            }
            "failure" => {
                if failure.replace(value.to_string()).is_some() {
                    return Err(twice());
                }
            }
            "schedule" => {
                let s = parse_schedule(value).ok_or_else(|| {
                    error(n, format!("`schedule: {value}`: expected `schedule: batch <seed> execution <number>`"))
                })?;
                if schedule.replace(s).is_some() {
                    return Err(twice());
                }
            }
            "prefix" => {
                no_value("prefix")?;
                if had_prefix {
                    return Err(twice());
                }
                had_prefix = true;
                part = Some(Part::Prefix);
            }
            "post" => {
                no_value("post")?;
                if had_post {
                    return Err(twice());
                }
                if test.threads.is_empty() {
                    return Err(error(n, "`post:` comes after the threads"));
                }
                had_post = true;
                made.own_vars = 0;
                part = Some(Part::Post);
            }
            thread => {
                let t: usize = thread["thread ".len()..].parse().unwrap_or(0);
                no_value(thread)?;
                if !had_prefix || had_post {
                    return Err(error(
                        n,
                        format!("`{thread}:` comes after `prefix:` and before `post:`"),
                    ));
                }
                if t != test.threads.len() + 1 {
                    return Err(error(
                        n,
                        format!("`{thread}:` where `thread {}:` was expected (the threads are numbered from 1, in order)", test.threads.len() + 1),
                    ));
                }
                test.threads.push(Vec::new());
                made.own_vars = 0;
                part = Some(Part::Thread);
            }
        }
    }
    let missing = |what: &str| error(start, format!("the entry has no `{what}`"));
    if !had_prefix {
        return Err(missing("prefix:"));
    }
    if test.threads.is_empty() {
        return Err(missing("thread 1:"));
    }
    Ok(Entry {
        seed: seed.ok_or_else(|| missing("seed:"))?,
        settings: settings.ok_or_else(|| missing("settings:"))?,
        failure: failure.unwrap_or_default(),
        test,
        schedule,
    })
}

/// `key: value` for the fields of an entry (`thread N` a key too); `None` for other lines.
fn field(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(':')?;
    let known = matches!(
        key,
        "seed" | "settings" | "failure" | "prefix" | "post" | "schedule"
    ) || key
        .strip_prefix("thread ")
        .is_some_and(|t| number::<usize>(t).is_some());
    known.then(|| (key, value.trim()))
}

fn parse_settings(text: &str) -> Result<Settings, String> {
    let mut settings = Settings::of(&Config::default());
    let mut seen = Vec::new();
    for item in text.split_whitespace() {
        let (key, value) = item
            .split_once('=')
            .ok_or_else(|| format!("`{item}` in `settings:` is not `key=value`"))?;
        if seen.contains(&key) {
            return Err(format!("setting `{key}` is given twice"));
        }
        seen.push(key);
        settings.set(key, value)?;
    }
    Ok(settings)
}

fn parse_schedule(text: &str) -> Option<ControlledRun> {
    match text.split_whitespace().collect::<Vec<_>>()[..] {
        ["batch", batch, "execution", execution] => Some(ControlledRun {
            batch: number(batch)?,
            execution: number(execution)?,
        }),
        _ => None,
    }
}

/// `[out =] [iN.]name(param: type = value, ...) [cancelled at N]`.
fn parse_call(line: &str, part: Part) -> Result<NamedCall, String> {
    let not_a_call =
        || format!("`{line}` is not a call: write `[out =] [iN.]name(param: type = value, ...)`");
    let (mut rest, cancel) = match line.rsplit_once(CANCELLED_AT) {
        Some((call, n)) if call.ends_with(')') => match n.trim().parse::<u32>() {
            Ok(n) if n >= 1 => (call, Some(n)),
            _ => {
                return Err(format!(
                    "`{line}`: `cancelled at` takes a suspension's number, 1 or more, not `{n}`"
                ))
            }
        },
        _ => (line, None),
    };
    let mut out = NamedOut::None;
    if let Some((target, after)) = rest.split_once(" = ") {
        if let Some((letter, n)) = reference(target) {
            out = match (letter, part) {
                ('i', Part::Prefix) => NamedOut::Instance(n),
                ('p', Part::Prefix) => NamedOut::Var(n),
                ('v', Part::Thread | Part::Post) => NamedOut::Var(n),
                ('i', _) => return Err(format!("`{target} =`: instances are made in the prefix only")),
                ('p', _) => return Err(format!("`{target} =`: a thread's outputs are `v0`, `v1`, ...; `p0`, `p1`, ... are the prefix's")),
                _ => return Err(format!("`{target} =`: the prefix's outputs are `p0`, `p1`, ...")),
            };
            rest = after;
        }
    }
    let mut receiver = None;
    if let Some((target, after)) = rest.split_once('.') {
        if let Some(('i', n)) = reference(target) {
            receiver = Some(n);
            rest = after;
        }
    }
    let open = rest.find('(').ok_or_else(not_a_call)?;
    let name = &rest[..open];
    let ident = name.strip_prefix("r#").unwrap_or(name);
    let is_ident = ident.starts_with(|c: char| c.is_alphabetic() || c == '_')
        && ident.chars().all(|c| c.is_alphanumeric() || c == '_');
    let inner = rest[open + 1..].strip_suffix(')').ok_or_else(not_a_call)?;
    if !is_ident || depths(inner).is_none() {
        return Err(not_a_call());
    }
    let mut args = Vec::new();
    if !inner.trim().is_empty() {
        for arg in split_top(inner, ',') {
            args.push(parse_arg(arg.trim()).ok_or_else(|| {
                format!("`{}` in `{line}` is not an argument: write `param: type = value`, the value `seed N`, `iN`, `pN` or `vN`", arg.trim())
            })?);
        }
    }
    Ok(NamedCall {
        out,
        receiver,
        name: name.to_string(),
        args,
        cancel,
    })
}

/// `param: type = value`.
fn parse_arg(arg: &str) -> Option<NamedArg> {
    let colon = find_top(arg, ": ", false)?;
    let eq = find_top(arg, " = ", true)?;
    if eq <= colon {
        return None;
    }
    let (param, ty, value) = (
        arg[..colon].trim(),
        arg[colon + 2..eq].trim(),
        arg[eq + 3..].trim(),
    );
    let value = match value.strip_prefix("seed ") {
        Some(n) => ArgValue::Seed(number(n)?),
        None => match reference(value)? {
            ('i', n) => ArgValue::Instance(n),
            ('p', n) => ArgValue::PrefixVar(n),
            (_, n) => ArgValue::OwnVar(n),
        },
    };
    (!param.is_empty() && !ty.is_empty()).then(|| NamedArg {
        param: param.to_string(),
        ty: ty.to_string(),
        value,
    })
}

/// `iN`, `pN` or `vN`.
fn reference(text: &str) -> Option<(char, usize)> {
    let mut chars = text.chars();
    let letter = chars.next().filter(|c| matches!(c, 'i' | 'p' | 'v'))?;
    Some((letter, number(chars.as_str())?))
}

/// Checks that what `call` uses was made before it, and counts what it makes.
fn uses(call: &NamedCall, part: Part, made: &mut Bindings) -> Result<(), String> {
    let instance = |i: usize| match i < made.instances {
        true => Ok(()),
        false => Err(format!("`i{i}` is used before the prefix makes it")),
    };
    match call.receiver {
        Some(r) => instance(r)?,
        None if part != Part::Prefix => {
            return Err(format!(
                "`{}(..)` has no receiver: constructors are called in the prefix only",
                call.name
            ))
        }
        None if !matches!(call.out, NamedOut::Instance(_)) => {
            return Err(format!(
                "`{}(..)` has no receiver, so it is a constructor: write `i{} = {}(..)`",
                call.name, made.instances, call.name
            ))
        }
        None => {}
    }
    for a in &call.args {
        match a.value {
            ArgValue::Seed(_) => {}
            ArgValue::Instance(i) => instance(i)?,
            ArgValue::PrefixVar(i) if i < made.prefix_vars => {}
            ArgValue::OwnVar(i) if part != Part::Prefix && i < made.own_vars => {}
            ArgValue::OwnVar(_) if part == Part::Prefix => {
                return Err(
                    "the prefix's outputs are `p0`, `p1`, ...: `v` names a thread's".to_string(),
                )
            }
            ArgValue::PrefixVar(i) => {
                return Err(format!("`p{i}` is used before the prefix makes it"))
            }
            ArgValue::OwnVar(i) => return Err(format!("`v{i}` is used before this part makes it")),
        }
    }
    let (count, letter) = match (call.out, part) {
        (NamedOut::None, _) => return Ok(()),
        (NamedOut::Instance(i), _) => (i, 'i'),
        (NamedOut::Var(i), Part::Prefix) => (i, 'p'),
        (NamedOut::Var(i), _) => (i, 'v'),
    };
    let next = match letter {
        'i' => &mut made.instances,
        'p' => &mut made.prefix_vars,
        _ => &mut made.own_vars,
    };
    if count != *next {
        return Err(format!(
            "`{letter}{count} =` where `{letter}{} =` was expected (outputs are numbered from 0, in order)",
            *next
        ));
    }
    *next += 1;
    Ok(())
}

/// The bracket depth before each character of `s` (`->` and `=>` close nothing); `None` if
/// a bracket closes that was not opened, or one stays open.
fn depths(s: &str) -> Option<Vec<(usize, i32)>> {
    let mut out = Vec::with_capacity(s.len());
    let mut depth = 0i32;
    let mut prev = ' ';
    for (i, c) in s.char_indices() {
        out.push((i, depth));
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '>' if prev != '-' && prev != '=' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return None;
        }
        prev = c;
    }
    (depth == 0).then_some(out)
}

/// `s` split at each `sep` outside brackets.
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut from = 0;
    for (i, depth) in depths(s).unwrap_or_default() {
        if depth == 0 && s[i..].starts_with(sep) {
            parts.push(&s[from..i]);
            from = i + sep.len_utf8();
        }
    }
    parts.push(&s[from..]);
    parts
}

/// The first (or `last`) place of `pat` in `s` outside brackets.
fn find_top(s: &str, pat: &str, last: bool) -> Option<usize> {
    let mut hits = depths(s)?
        .into_iter()
        .filter(|&(i, d)| d == 0 && s[i..].starts_with(pat))
        .map(|(i, _)| i);
    if last {
        hits.next_back()
    } else {
        hits.next()
    }
}
