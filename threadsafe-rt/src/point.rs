//! The vocabulary of scheduling points, shared by the shims, the scheduler, the gates and
//! coverage: where a point is ([`Where`]), what happens there ([`PointKind`]), the step a
//! controlled run records ([`Step`]), and the payload a deadlocked thread unwinds with.

use std::panic::Location;

/// A source location of a scheduling point: a `sync` operation's caller, or a statement
/// point of an annotated method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Where {
    /// The caller of a `threadsafe_rt::sync` operation.
    Code(&'static Location<'static>),
    /// A statement of an annotated method.
    Statement(&'static StatementPoint),
}

/// A statement point inserted by `#[thread_safe]`: the method and the statement's line.
#[doc(hidden)]
#[derive(Debug, PartialEq, Eq)]
pub struct StatementPoint {
    /// The annotated method.
    pub method: &'static str,
    /// The source file.
    pub file: &'static str,
    /// The statement's line.
    pub line: u32,
    /// The fields of `self` the statement accesses, in source order (see [`FieldAccess`]).
    pub fields: &'static [FieldAccess],
}

/// A field of `self` that a statement accesses, as `#[thread_safe]` reads it from the
/// source: a *write* when the field is assigned, borrowed `&mut`, or the receiver of a
/// method that changes or locks it (`lock`, `write`, `store`, `fetch_add`, `insert`,
/// `push`, ...); a *read* otherwise (`read`, `load`, `get`, `len`, passed by reference).
#[doc(hidden)]
#[derive(Debug, PartialEq, Eq)]
pub struct FieldAccess {
    /// The field's name (`"0"` for a tuple struct's first field).
    pub field: &'static str,
    /// True for a write, false for a read.
    pub write: bool,
}

impl std::fmt::Display for Where {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Where::Code(l) => write!(f, "{}:{}:{}", l.file(), l.line(), l.column()),
            Where::Statement(p) => write!(f, "{}:{} (in `{}`)", p.file, p.line, p.method),
        }
    }
}

/// What a thread does at a scheduling point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PointKind {
    Lock,
    ReadLock,
    Load,
    Store,
    ReadModifyWrite,
    Wait,
    Notify,
    Barrier,
    Yield,
    /// An async call's future returned `Pending`.
    Pending,
    /// An async call about to be dropped at a `Pending` (the test cancels it there).
    Cancel,
    Statement,
}

impl PointKind {
    /// True for the kinds that access a shared variable (locks, loads, stores,
    /// read-modify-writes); waits, notifications, barriers, yields and statements do not.
    pub(crate) fn accesses(self) -> bool {
        matches!(
            self,
            PointKind::Lock
                | PointKind::ReadLock
                | PointKind::Load
                | PointKind::Store
                | PointKind::ReadModifyWrite
        )
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            PointKind::Lock => "lock",
            PointKind::ReadLock => "read lock",
            PointKind::Load => "load",
            PointKind::Store => "store",
            PointKind::ReadModifyWrite => "read-modify-write",
            PointKind::Wait => "wait",
            PointKind::Notify => "notify",
            PointKind::Barrier => "barrier wait",
            PointKind::Yield => "yield",
            PointKind::Pending => "pending",
            PointKind::Cancel => "cancel",
            PointKind::Statement => "statement",
        }
    }
}

/// The shared variable an operation accesses: where its primitive was created (none for
/// statement points, condvars, barriers and yields).
pub(crate) type Var = Option<&'static Location<'static>>;

/// One step of a controlled run, for the report's interleaving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    pub(crate) thread: usize,
    /// The call of the thread's suffix that was running (see [`set_call`]).
    pub(crate) call: usize,
    pub(crate) op: PointKind,
    pub(crate) obj: usize,
    /// Where the primitive operated on was created: its name as a shared variable.
    pub(crate) var: Var,
    pub(crate) at: Where,
    /// The scheduler switched away here: the thread runs the operation when it next gets
    /// the turn (otherwise it ran it at once).
    pub(crate) held: bool,
}

/// The payload a blocked thread unwinds with when its run deadlocked.
pub(crate) struct Aborted;
