//! The description of a type under test: what `#[thread_safe]` emits and the engine reads.
//!
//! The attribute implements [`Subject`] for the annotated type. The implementation lists the
//! type's constructors and methods, the parameters of each, and a plain `fn` that calls the
//! method with arguments taken from a [`Frame`]. Everything in this module except [`Subject`]
//! and [`Description`]'s accessors is an implementation detail of the expansion and is
//! re-exported only through `__private`.

//!
//! Files: `op.rs` describes one constructor or method and its parameters; `probe.rs` finds,
//! for each parameter type, how its values are made (the autoref probes the expansion
//! calls); `frame.rs` carries one call's receiver, arguments and output; `observe.rs`
//! records what a call returned, for the oracle; `construct.rs` builds values of other
//! checked types through their constructors and caches each type's description.

use crate::point::StatementPoint;
use crate::testcase::OpId;

mod construct;
mod frame;
mod observe;
mod op;
mod probe;

pub(crate) use construct::{assoc_path, description};
pub(crate) use frame::{ArgSlot, Output, RecvSlot};
pub use frame::{Frame, Stash, StashDrop, StashKeep, Unavailable};
pub(crate) use observe::{Observation, Observed};
pub use observe::{Observe, ObserveDebug, ObserveNothing, ObserveValue};
pub(crate) use op::ParamKind;
pub use op::{CloneFn, InstancePass, Op, Param, Pass, Receiver};
pub use probe::{CloneNo, CloneYes, Maker, Probe, ViaGenerate, ViaNothing, ViaSubject};

/// A type that `threadsafe` can check: implemented by `#[thread_safe]` on an impl block.
///
/// You normally never implement this trait by hand; write `#[thread_safe]` on the type's
/// impl block instead. Having it lets other code run the check directly with
/// [`check`](crate::check), and lets the generator build values of this type through its
/// constructors when another checked type takes it as an argument.
///
/// ```
/// use threadsafe_rt::{thread_safe, Subject};
/// use std::sync::atomic::{AtomicU32, Ordering};
///
/// pub struct Hits(AtomicU32);
///
/// #[thread_safe(budget = "50ms")]
/// impl Hits {
///     pub fn new() -> Self { Hits(AtomicU32::new(0)) }
///     pub fn hit(&self) -> u32 { self.0.fetch_add(1, Ordering::SeqCst) }
/// }
///
/// let d = Hits::describe();
/// assert_eq!(d.name(), "Hits");
/// assert_eq!(d.method_names(), vec!["hit"]);
/// ```
pub trait Subject: Sized + Send + Sync + 'static {
    /// The constructors, methods and skipped methods of the type.
    fn describe() -> Description<Self>;
}

/// What the generator knows of a [`Subject`]: its constructors, its callable methods, and
/// the methods it leaves out with the reason.
pub struct Description<T> {
    pub(crate) name: &'static str,
    pub(crate) constructors: Vec<Op<T>>,
    pub(crate) methods: Vec<Op<T>>,
    pub(crate) skipped: Vec<Skipped>,
    /// Every statement point of the annotated methods, as written in the source: the
    /// static estimate of which statements access which fields.
    pub(crate) statements: &'static [StatementPoint],
}

/// A method the generator does not call, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The method's name.
    pub method: String,
    /// Why it is not called, e.g. "takes `self` by value".
    pub reason: String,
}

impl<T> Description<T> {
    #[doc(hidden)]
    pub fn new(name: &'static str) -> Self {
        Description {
            name,
            constructors: Vec::new(),
            methods: Vec::new(),
            skipped: Vec::new(),
            statements: &[],
        }
    }

    /// Records the statement points `#[thread_safe]` inserted in the annotated methods (the
    /// same data as the points' own statics, gathered in one table).
    #[doc(hidden)]
    pub fn statements(mut self, table: &'static [StatementPoint]) -> Self {
        self.statements = table;
        self
    }

    /// Adds a constructor or method; an operation with a parameter that nothing can
    /// generate is moved to the skipped list instead, with the parameter named.
    #[doc(hidden)]
    pub fn op(mut self, op: Op<T>) -> Self {
        if let Some(p) = op.params.iter().find(|p| !p.is_generable()) {
            self.skipped.push(Skipped {
                method: op.name.to_string(),
                reason: format!(
                    "no generator for argument `{}: {}` (implement `threadsafe_rt::Generate` for it, or give it a #[thread_safe] impl)",
                    p.name, p.ty
                ),
            });
        } else if op.receiver == Receiver::None {
            self.constructors.push(op);
        } else {
            self.methods.push(op);
        }
        self
    }

    #[doc(hidden)]
    pub fn skip(mut self, method: &str, reason: &str) -> Self {
        self.skipped.push(Skipped {
            method: method.to_string(),
            reason: reason.to_string(),
        });
        self
    }

    /// The methods that can be called concurrently (by index into the methods).
    pub(crate) fn concurrent_methods(&self) -> Vec<usize> {
        (0..self.methods.len())
            .filter(|&m| self.methods[m].receiver.is_concurrent())
            .collect()
    }

    /// The concurrent methods that observe the state: no argument beyond the receiver, and
    /// a return value the oracle can look at (`len`, `total`, `snapshot`, `is_empty`).
    pub(crate) fn observers(&self) -> Vec<usize> {
        self.concurrent_methods()
            .into_iter()
            .filter(|&m| self.methods[m].params.is_empty() && self.methods[m].returns.is_some())
            .collect()
    }

    pub(crate) fn op_at(&self, id: OpId) -> &Op<T> {
        match id {
            OpId::Ctor(i) => &self.constructors[i],
            OpId::Method(i) => &self.methods[i],
        }
    }

    /// The type's name as the reproducer writes it (e.g. `Cache<String, u32>`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Names of the constructors the generator can call.
    pub fn constructor_names(&self) -> Vec<&'static str> {
        self.constructors.iter().map(|o| o.name).collect()
    }

    /// Names of the methods the generator can call (`&self`, `&mut self`, `self: &Arc<Self>`).
    pub fn method_names(&self) -> Vec<&'static str> {
        self.methods.iter().map(|o| o.name).collect()
    }

    /// The methods left out, each with the reason.
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }
}
