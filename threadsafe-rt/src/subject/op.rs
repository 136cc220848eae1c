//! One constructor or method of a subject: how it receives the instance, its parameters,
//! and a type-erased way to call it.

use std::any::{Any, TypeId};

use super::{Frame, Maker, Unavailable};

/// How an operation receives the instance.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receiver {
    /// An associated function that returns the type: a constructor.
    None,
    /// `&self`: called concurrently.
    Shared,
    /// `&mut self`: called in the prefix only.
    Exclusive,
    /// `self: &Arc<Self>`: called concurrently.
    ArcRef,
    /// `self: Arc<Self>`: called concurrently with a clone of the shared `Arc`.
    Arc,
}

impl Receiver {
    pub(crate) fn is_concurrent(self) -> bool {
        matches!(self, Receiver::Shared | Receiver::ArcRef | Receiver::Arc)
    }
}

/// One constructor or method of a [`Subject`], with a type-erased way to call it.
#[doc(hidden)]
pub struct Op<T> {
    pub(crate) name: &'static str,
    pub(crate) receiver: Receiver,
    pub(crate) params: Vec<Param>,
    pub(crate) call: CallFn<T>,
    /// The return type as written, for a method whose results can be compared (not `()`,
    /// `!` or a new instance), e.g. `Option<u32>` or `Iter<'_, u32>`: the report names it
    /// when its results are not compared.
    pub(crate) returns: Option<&'static str>,
    /// `#[thread_safe(nondeterministic)]`: the results of this method are never compared.
    pub(crate) nondeterministic: bool,
    /// An `async fn` (or a method returning `impl Future`): the call drives its future to
    /// completion with [`crate::block_on`], and a reproducer writes it so.
    pub(crate) asynchronous: bool,
    /// `#[thread_safe(not_cancel_safe)]`: the async method's calls are never cancelled.
    pub(crate) not_cancel_safe: bool,
}

/// Calls an operation with the receiver and arguments in the frame.
#[doc(hidden)]
pub type CallFn<T> = fn(&mut Frame<'_, T>) -> Result<(), Unavailable>;

impl<T> Op<T> {
    #[doc(hidden)]
    pub fn new(
        name: &'static str,
        receiver: Receiver,
        params: Vec<Param>,
        call: CallFn<T>,
    ) -> Self {
        Op {
            name,
            receiver,
            params,
            call,
            returns: None,
            nondeterministic: false,
            asynchronous: false,
            not_cancel_safe: false,
        }
    }

    /// Records the return type as written (a method whose results can be compared).
    #[doc(hidden)]
    pub fn returns(mut self, ty: &'static str) -> Self {
        self.returns = Some(ty);
        self
    }

    /// Marks the method's results as never compared (`#[thread_safe(nondeterministic)]`).
    #[doc(hidden)]
    pub fn nondeterministic(mut self) -> Self {
        self.nondeterministic = true;
        self
    }

    /// Marks the function as async: its call drives a future to completion.
    #[doc(hidden)]
    pub fn asynchronous(mut self) -> Self {
        self.asynchronous = true;
        self
    }

    /// Marks the async method's calls as never cancelled (`#[thread_safe(not_cancel_safe)]`).
    #[doc(hidden)]
    pub fn not_cancel_safe(mut self) -> Self {
        self.not_cancel_safe = true;
        self
    }

    /// Whether a test may cancel a call of this method: an async method, not marked
    /// `not_cancel_safe`.
    pub(crate) fn cancellable(&self) -> bool {
        self.asynchronous && !self.not_cancel_safe && self.receiver.is_concurrent()
    }
}

/// How a generated value is passed to the parameter.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// `x: A`
    Owned,
    /// `x: &A`
    Ref,
    /// `x: &mut A`
    RefMut,
    /// `x: &str` or `x: &[E]`, generated as `String` / `Vec<E>`.
    Deref,
}

/// How an instance of the type under test is passed to the parameter.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstancePass {
    /// `x: &Self`
    Ref,
    /// `x: Arc<Self>`
    Arc,
    /// `x: &Arc<Self>`
    ArcRef,
}

/// One parameter of an operation.
#[doc(hidden)]
pub struct Param {
    pub(crate) name: &'static str,
    pub(crate) ty: &'static str,
    pub(crate) kind: ParamKind,
}

#[doc(hidden)]
pub enum ParamKind {
    /// An instance of the type under test, from the pool.
    Instance(InstancePass),
    /// A value of another type: fresh from its maker, or an earlier output of the same type.
    Value {
        pass: Pass,
        type_id: TypeId,
        maker: Option<Maker>,
        clone: Option<CloneFn>,
    },
}

/// Clones an output variable into a fresh argument value.
#[doc(hidden)]
pub type CloneFn = fn(&(dyn Any + Send + Sync)) -> Box<dyn Any>;

impl Param {
    #[doc(hidden)]
    pub fn instance(name: &'static str, ty: &'static str, pass: InstancePass) -> Self {
        Param {
            name,
            ty,
            kind: ParamKind::Instance(pass),
        }
    }

    /// A parameter of owned type `A`, with the maker and cloner found by the probes.
    #[doc(hidden)]
    pub fn value<A: 'static>(
        name: &'static str,
        ty: &'static str,
        pass: Pass,
        maker: Option<Maker>,
        clone: Option<CloneFn>,
    ) -> Self {
        Param {
            name,
            ty,
            kind: ParamKind::Value {
                pass,
                type_id: TypeId::of::<A>(),
                maker,
                clone,
            },
        }
    }

    pub(super) fn is_generable(&self) -> bool {
        match &self.kind {
            ParamKind::Instance(_) => true,
            ParamKind::Value { maker, .. } => maker.is_some(),
        }
    }
}
