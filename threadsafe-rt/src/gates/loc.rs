//! Where a gate stands or an event happens: [`Loc`], its string form, and matching against
//! the place a thread has reached.

use std::fmt;
use std::panic::Location;
use std::str::FromStr;

use crate::point::{PointKind, StatementPoint};

/// An operation of a [`crate::sync`] primitive, as a gate location names it.
///
/// The string form (in [`Loc`]'s grammar) is in parentheses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SyncOp {
    /// `Mutex::lock`, `try_lock`, `RwLock::write`, `try_write` (`lock`).
    Lock,
    /// `RwLock::read`, `try_read` (`read_lock`).
    ReadLock,
    /// An atomic load, `Once::is_completed`, a `OnceLock` read (`load`).
    Load,
    /// An atomic store (`store`).
    Store,
    /// An atomic swap, compare-exchange or fetch-and-modify (`rmw`).
    ReadModifyWrite,
    /// `Condvar::wait` and its variants (`wait`).
    Wait,
    /// `Condvar::notify_one`, `notify_all` (`notify`).
    Notify,
    /// `Barrier::wait` (`barrier`).
    Barrier,
}

impl SyncOp {
    const ALL: [(SyncOp, &'static str); 8] = [
        (SyncOp::Lock, "lock"),
        (SyncOp::ReadLock, "read_lock"),
        (SyncOp::Load, "load"),
        (SyncOp::Store, "store"),
        (SyncOp::ReadModifyWrite, "rmw"),
        (SyncOp::Wait, "wait"),
        (SyncOp::Notify, "notify"),
        (SyncOp::Barrier, "barrier"),
    ];

    /// The name in [`Loc`]'s string form.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(op, _)| *op == self)
            .map_or("?", |(_, n)| n)
    }

    fn from_name(name: &str) -> Option<SyncOp> {
        Self::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(op, _)| *op)
    }

    /// The public name of a scheduler operation; `None` for those a gate cannot name.
    pub(crate) fn of(op: PointKind) -> Option<SyncOp> {
        Some(match op {
            PointKind::Lock => SyncOp::Lock,
            PointKind::ReadLock => SyncOp::ReadLock,
            PointKind::Load => SyncOp::Load,
            PointKind::Store => SyncOp::Store,
            PointKind::ReadModifyWrite => SyncOp::ReadModifyWrite,
            PointKind::Wait => SyncOp::Wait,
            PointKind::Notify => SyncOp::Notify,
            PointKind::Barrier => SyncOp::Barrier,
            PointKind::Yield | PointKind::Pending | PointKind::Cancel | PointKind::Statement => {
                return None
            }
        })
    }
}

/// What a location is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// A named point, `threadsafe_rt::point!("name")`.
    Point(String),
    /// A statement point `#[thread_safe]` inserted in method `method`, at `line` (any
    /// statement of the method when `None`).
    Statement { method: String, line: Option<u32> },
    /// An operation of a `threadsafe_rt::sync` primitive; each filter is optional.
    Sync {
        op: SyncOp,
        method: Option<String>,
        file: Option<String>,
        line: Option<u32>,
    },
    /// The end of a thread's body.
    End,
}

/// A location in the code: where a gate stops threads, or an event a condition waits for.
///
/// A location is one of
/// - a *named point* that you write in code: `threadsafe_rt::point!("after_len")`
///   ([`Loc::point`]);
/// - a *statement point* that `#[thread_safe]` inserted in an annotated method, before the
///   statement at a line ([`Loc::statement`]) or before any statement ([`Loc::method`]):
///   no change to the code under test;
/// - an *operation* of a [`crate::sync`] primitive, optionally only in a method or at a
///   line ([`Loc::sync`]);
/// - the *end* of a thread's body ([`Loc::end`]).
///
/// It can be narrowed to one thread ([`thread`](Loc::thread)) and to the n-th time that
/// thread reaches it ([`nth`](Loc::nth)). "Reaching" a location is arriving there, before
/// the statement or operation that follows runs; a gate at the location holds the thread
/// there.
///
/// # String form
///
/// `[thread ":"] target ["#" n]`, where target is
///
/// | target | location |
/// |---|---|
/// | `after_len` | the named point `point!("after_len")` |
/// | `fn append` | any statement of the annotated method `append` |
/// | `fn append@42` | the statement of `append` at line 42 |
/// | `lock`, `read_lock`, `load`, `store`, `rmw`, `wait`, `notify`, `barrier` | that `sync` operation anywhere |
/// | `lock in append` | a `lock()` while the thread runs `append` (the method of the last statement point it passed) |
/// | `lock@42`, `lock@src/list.rs:42` | a `lock()` called at that line (of that file: a path suffix) |
/// | `end` | the end of the thread's body |
///
/// ```
/// use threadsafe_rt::gates::Loc;
///
/// let loc: Loc = "worker: fn append@42#2".parse().unwrap();
/// assert_eq!(loc, Loc::statement("append", 42).thread("worker").nth(2));
/// assert_eq!(loc.to_string(), "worker: fn append@42#2");
/// assert!("worker: fn".parse::<Loc>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    pub(crate) target: Target,
    pub(crate) thread: Option<String>,
    pub(crate) nth: Option<usize>,
}

impl Loc {
    fn new(target: Target) -> Loc {
        Loc {
            target,
            thread: None,
            nth: None,
        }
    }

    /// The named point `threadsafe_rt::point!(name)`.
    pub fn point(name: &str) -> Loc {
        Loc::new(Target::Point(name.to_string()))
    }

    /// The statement point before the statement at `line` (of the file that defines it) in
    /// the annotated method `method`.
    pub fn statement(method: &str, line: u32) -> Loc {
        Loc::new(Target::Statement {
            method: method.to_string(),
            line: Some(line),
        })
    }

    /// Any statement point of the annotated method `method`: with [`nth`](Loc::nth), the
    /// n-th statement the thread reaches in it.
    pub fn method(method: &str) -> Loc {
        Loc::new(Target::Statement {
            method: method.to_string(),
            line: None,
        })
    }

    /// An operation `op` of a [`crate::sync`] primitive, anywhere; narrow it with
    /// [`in_method`](Loc::in_method) and [`at_line`](Loc::at_line).
    pub fn sync(op: SyncOp) -> Loc {
        Loc::new(Target::Sync {
            op,
            method: None,
            file: None,
            line: None,
        })
    }

    /// The end of a thread's body (for a thread that [`Scope::spawn`](super::Scope::spawn)
    /// started, or the body of [`run`](super::run) itself).
    pub fn end() -> Loc {
        Loc::new(Target::End)
    }

    /// Only in the thread named `name` (see [`Scope::spawn`](super::Scope::spawn); the body
    /// of [`run`](super::run) is `main`).
    pub fn thread(mut self, name: &str) -> Loc {
        self.thread = Some(name.to_string());
        self
    }

    /// Only the `n`-th time (from 1) a thread reaches the location; as a condition, "reached
    /// at least `n` times".
    ///
    /// # Panics
    /// If `n` is 0.
    pub fn nth(mut self, n: usize) -> Loc {
        assert!(n > 0, "Loc::nth counts from 1");
        self.nth = Some(n);
        self
    }

    /// A `sync` operation only while the thread runs method `method` (the method of the last
    /// statement point the thread passed).
    ///
    /// # Panics
    /// If the location is not a [`Loc::sync`] one.
    pub fn in_method(mut self, method: &str) -> Loc {
        match &mut self.target {
            Target::Sync { method: m, .. } => *m = Some(method.to_string()),
            _ => panic!("Loc::in_method narrows a Loc::sync location, not `{self}`"),
        }
        self
    }

    /// A `sync` operation only when called at `line` of a file whose path ends with `file`
    /// (any file when `file` is empty).
    ///
    /// # Panics
    /// If the location is not a [`Loc::sync`] one.
    pub fn at_line(mut self, file: &str, line: u32) -> Loc {
        match &mut self.target {
            Target::Sync {
                file: f, line: l, ..
            } => {
                *f = (!file.is_empty()).then(|| file.to_string());
                *l = Some(line);
            }
            _ => panic!("Loc::at_line narrows a Loc::sync location, not `{self}`"),
        }
        self
    }

    /// Whether a thread named `thread` that reached `site` is at this location (ignoring
    /// [`nth`](Loc::nth), which the engine counts).
    pub(crate) fn matches(&self, site: &Position, thread: &str) -> bool {
        if self.thread.as_deref().is_some_and(|t| t != thread) {
            return false;
        }
        match (&self.target, site) {
            (Target::Point(name), Position::Point(p)) => name == p,
            (Target::Statement { method, line }, Position::Statement(p)) => {
                method == p.method && line.map_or(true, |l| l == p.line)
            }
            (
                Target::Sync {
                    op,
                    method,
                    file,
                    line,
                },
                Position::Sync {
                    op: o,
                    at,
                    method: m,
                },
            ) => {
                op == o
                    && method.as_deref().map_or(true, |x| Some(x) == *m)
                    && line.map_or(true, |l| l == at.line())
                    && file.as_deref().map_or(true, |f| at.file().ends_with(f))
            }
            (Target::End, Position::End) => true,
            _ => false,
        }
    }
}

/// Where a thread is: what the hooks report to the engine.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Position {
    Point(&'static str),
    Statement(&'static StatementPoint),
    Sync {
        op: SyncOp,
        at: &'static Location<'static>,
        method: Option<&'static str>,
    },
    End,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Point(name) => write!(f, "point `{name}`"),
            Position::Statement(p) => write!(f, "`{}` at {}:{}", p.method, p.file, p.line),
            Position::Sync { op, at, .. } => {
                write!(f, "`{}` at {}:{}", op.name(), at.file(), at.line())
            }
            Position::End => f.write_str("the end of its body"),
        }
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(t) = &self.thread {
            write!(f, "{t}: ")?;
        }
        match &self.target {
            Target::Point(name) => f.write_str(name)?,
            Target::Statement { method, line } => {
                write!(f, "fn {method}")?;
                if let Some(l) = line {
                    write!(f, "@{l}")?;
                }
            }
            Target::Sync {
                op,
                method,
                file,
                line,
            } => {
                f.write_str(op.name())?;
                match (file, line) {
                    (Some(file), Some(l)) => write!(f, "@{file}:{l}")?,
                    (None, Some(l)) => write!(f, "@{l}")?,
                    _ => {}
                }
                if let Some(m) = method {
                    write!(f, " in {m}")?;
                }
            }
            Target::End => f.write_str("end")?,
        }
        if let Some(n) = self.nth {
            write!(f, "#{n}")?;
        }
        Ok(())
    }
}

/// A string that is not a [`Loc`]: what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocError {
    input: String,
    why: String,
}

impl fmt::Display for LocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a gate location: {}; expected `[thread:] target[#n]` with target a \
             point name, `fn method`, `fn method@line`, a sync operation (`lock`, `read_lock`, \
             `load`, `store`, `rmw`, `wait`, `notify`, `barrier`) optionally `@line`, \
             `@file:line` or ` in method`, or `end`",
            self.input, self.why
        )
    }
}

impl std::error::Error for LocError {}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':'))
}

impl FromStr for Loc {
    type Err = LocError;

    fn from_str(input: &str) -> Result<Loc, LocError> {
        let err = |why: &str| LocError {
            input: input.to_string(),
            why: why.to_string(),
        };
        let s = input.trim();
        // `thread:` is a name followed by `:` and a space or the target; `file:line` only
        // appears after `@`.
        let (thread, rest) = match s.split_once(':') {
            Some((t, rest)) if !t.contains('@') && !t.contains(' ') => {
                let t = t.trim();
                if !is_name(t) {
                    return Err(err("the thread name is empty or has spaces"));
                }
                (Some(t.to_string()), rest.trim())
            }
            _ => (None, s),
        };
        let (rest, nth) = match rest.rsplit_once('#') {
            Some((r, n)) => match n.trim().parse::<usize>() {
                Ok(n) if n > 0 => (r.trim(), Some(n)),
                _ => return Err(err("`#` takes a count from 1")),
            },
            None => (rest, None),
        };
        let line = |l: &str| {
            l.trim()
                .parse::<u32>()
                .map_err(|_| err("a line is a positive integer"))
        };
        let target = if let Some(f) = rest.strip_prefix("fn ") {
            let f = f.trim();
            match f.split_once('@') {
                Some((m, l)) if is_name(m.trim()) => Target::Statement {
                    method: m.trim().to_string(),
                    line: Some(line(l)?),
                },
                None if is_name(f) => Target::Statement {
                    method: f.to_string(),
                    line: None,
                },
                _ => return Err(err("`fn` takes a method name")),
            }
        } else if rest == "fn" {
            return Err(err("`fn` takes a method name"));
        } else if rest == "end" {
            Target::End
        } else {
            let (head, method) = match rest.split_once(" in ") {
                Some((h, m)) if is_name(m.trim()) => (h.trim(), Some(m.trim().to_string())),
                Some(_) => return Err(err("`in` takes a method name")),
                None => (rest, None),
            };
            let (name, at) = match head.split_once('@') {
                Some((n, at)) => (n.trim(), Some(at.trim())),
                None => (head, None),
            };
            match SyncOp::from_name(name) {
                Some(op) => {
                    let (file, l) = match at {
                        None => (None, None),
                        Some(at) => match at.rsplit_once(':') {
                            Some((file, l)) => (Some(file.to_string()), Some(line(l)?)),
                            None => (None, Some(line(at)?)),
                        },
                    };
                    Target::Sync {
                        op,
                        method,
                        file,
                        line: l,
                    }
                }
                None if at.is_none() && method.is_none() && is_name(name) => {
                    Target::Point(name.to_string())
                }
                None if at.is_some() => {
                    return Err(err(
                        "`@line` follows `fn method` or a sync operation, not a point name",
                    ))
                }
                None => return Err(err("not a point name, `fn ..`, a sync operation or `end`")),
            }
        };
        Ok(Loc {
            target,
            thread,
            nth,
        })
    }
}

/// A location given as a [`Loc`] or as its string form.
///
/// # Panics
/// Converting a string that is not a location panics with the [`LocError`]; parse it with
/// `str::parse` first to handle the error.
pub trait IntoLoc {
    /// The location.
    fn into_loc(self) -> Loc;
}

impl IntoLoc for Loc {
    fn into_loc(self) -> Loc {
        self
    }
}

impl IntoLoc for &Loc {
    fn into_loc(self) -> Loc {
        self.clone()
    }
}

impl IntoLoc for &str {
    #[track_caller]
    fn into_loc(self) -> Loc {
        self.parse().unwrap_or_else(|e: LocError| panic!("{e}"))
    }
}

impl IntoLoc for String {
    #[track_caller]
    fn into_loc(self) -> Loc {
        self.as_str().into_loc()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses_and_prints_back() {
        let cases = [
            ("after_len", Loc::point("after_len")),
            (
                "worker: after_len",
                Loc::point("after_len").thread("worker"),
            ),
            ("fn append", Loc::method("append")),
            (
                "t0: fn append@42#3",
                Loc::statement("append", 42).thread("t0").nth(3),
            ),
            ("lock", Loc::sync(SyncOp::Lock)),
            (
                "lock in append#2",
                Loc::sync(SyncOp::Lock).in_method("append").nth(2),
            ),
            ("rmw@17", Loc::sync(SyncOp::ReadModifyWrite).at_line("", 17)),
            (
                "main: read_lock@src/list.rs:9",
                Loc::sync(SyncOp::ReadLock)
                    .at_line("src/list.rs", 9)
                    .thread("main"),
            ),
            ("worker: end", Loc::end().thread("worker")),
        ];
        for (text, loc) in cases {
            assert_eq!(text.parse::<Loc>(), Ok(loc.clone()), "{text}");
            assert_eq!(loc.to_string(), text);
        }
    }

    #[test]
    fn bad_strings_say_why() {
        for (text, why) in [
            ("", "not a point name"),
            ("fn", "`fn` takes a method name"),
            ("fn a b", "`fn` takes a method name"),
            ("fn append@x", "a line is a positive integer"),
            ("after_len#0", "`#` takes a count from 1"),
            ("after_len@3", "`@line` follows"),
            ("lock in a b", "`in` takes a method name"),
            ("two words", "not a point name"),
        ] {
            let e = text.parse::<Loc>().unwrap_err().to_string();
            assert!(e.contains(why), "{text:?}: {e}");
            assert!(e.contains("expected `[thread:] target[#n]`"), "{e}");
        }
    }

    #[test]
    fn matching_by_thread_method_line_and_file() {
        static P: StatementPoint = StatementPoint {
            method: "append",
            file: "src/buf.rs",
            line: 42,
            fields: &[],
        };
        let site = Position::Statement(&P);
        assert!(Loc::method("append").matches(&site, "worker"));
        assert!(Loc::statement("append", 42).matches(&site, "worker"));
        assert!(!Loc::statement("append", 43).matches(&site, "worker"));
        assert!(!Loc::method("append")
            .thread("main")
            .matches(&site, "worker"));
        let here = Location::caller();
        let op = Position::Sync {
            op: SyncOp::Lock,
            at: here,
            method: Some("append"),
        };
        assert!(Loc::sync(SyncOp::Lock)
            .in_method("append")
            .matches(&op, "t"));
        assert!(!Loc::sync(SyncOp::Lock).in_method("len").matches(&op, "t"));
        assert!(!Loc::sync(SyncOp::Load).matches(&op, "t"));
        assert!(Loc::sync(SyncOp::Lock)
            .at_line("gates/loc.rs", here.line())
            .matches(&op, "t"));
        assert!(!Loc::sync(SyncOp::Lock)
            .at_line("other.rs", here.line())
            .matches(&op, "t"));
    }
}
