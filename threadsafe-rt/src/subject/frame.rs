//! The receiver, arguments and output of one call, handed to an [`Op`](super::Op)'s call
//! function; and the stash that keeps a call's return value as an output variable.

use std::any::{Any, TypeId};
use std::cell::Cell;
use std::sync::Arc;

use super::Observation;
use crate::testcase::Made;

/// Why a call has no result of its own; not a failure of the code under test.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unavailable {
    /// The receiver or an argument was missing or of the wrong kind.
    Argument,
    /// A constructor returned `None` or `Err`.
    Declined,
    /// An async call's future was dropped at its cancellation point
    /// (the frame says where).
    Cancelled,
}

pub(crate) enum RecvSlot<'a, T> {
    Shared(&'a Arc<T>),
    Exclusive(&'a mut T),
}

pub(crate) enum ArgSlot<'a, T> {
    Value(Box<dyn Any>),
    Instance(&'a Arc<T>),
}

pub(crate) enum Output<T> {
    Value(TypeId, Box<dyn Any + Send + Sync>),
    Instance(Arc<T>, Made),
}

/// The receiver, arguments and output of one call, handed to an [`Op`]'s call function.
#[doc(hidden)]
pub struct Frame<'a, T> {
    pub(crate) recv: Option<RecvSlot<'a, T>>,
    pub(crate) args: Vec<Option<ArgSlot<'a, T>>>,
    pub(crate) out: Option<Output<T>>,
    /// Whether the call's return value is to be observed (false by default: the executor
    /// sets it when results are compared, so that a check without results pays one branch).
    pub(crate) observe: bool,
    /// The return value as observed, when `observe` is set and the call returned a value
    /// other than `()`, `!` or a new instance.
    pub(crate) observed: Option<Observation>,
    /// The suspension of an async call's future to drop it at (the test's cancellation of
    /// this call), when the executor honours it.
    pub(crate) cancel: Option<u32>,
    /// Where the call's future was dropped, when it was, as the report says it.
    pub(crate) cancelled: Option<String>,
}

impl<'a, T> Frame<'a, T> {
    pub(crate) fn new(recv: Option<RecvSlot<'a, T>>, args: Vec<Option<ArgSlot<'a, T>>>) -> Self {
        Frame {
            recv,
            args,
            out: None,
            observe: false,
            observed: None,
            cancel: None,
            cancelled: None,
        }
    }

    /// The receiver of a `&self` method.
    #[doc(hidden)]
    pub fn shared(&self) -> Result<&'a T, Unavailable> {
        match self.recv {
            Some(RecvSlot::Shared(a)) => Ok(&**a),
            _ => Err(Unavailable::Argument),
        }
    }

    /// The receiver of a `self: &Arc<Self>` or `self: Arc<Self>` method.
    #[doc(hidden)]
    pub fn arc(&self) -> Result<&'a Arc<T>, Unavailable> {
        match self.recv {
            Some(RecvSlot::Shared(a)) => Ok(a),
            _ => Err(Unavailable::Argument),
        }
    }

    /// The receiver of a `&mut self` method.
    #[doc(hidden)]
    pub fn exclusive(&mut self) -> Result<&'a mut T, Unavailable> {
        match self.recv.take() {
            Some(RecvSlot::Exclusive(r)) => Ok(r),
            other => {
                self.recv = other;
                Err(Unavailable::Argument)
            }
        }
    }

    /// Moves argument `i`, a value of type `A`, out of the frame.
    #[doc(hidden)]
    pub fn take<A: 'static>(&mut self, i: usize) -> Result<A, Unavailable> {
        match self.args.get_mut(i).and_then(Option::take) {
            Some(ArgSlot::Value(b)) => b
                .downcast::<A>()
                .map(|b| *b)
                .map_err(|_| Unavailable::Argument),
            _ => Err(Unavailable::Argument),
        }
    }

    /// Argument `i`, an instance of the type under test, as `&Self`.
    #[doc(hidden)]
    pub fn instance(&self, i: usize) -> Result<&'a T, Unavailable> {
        self.instance_arc(i).map(|a| &**a)
    }

    /// Argument `i`, an instance of the type under test, as `&Arc<Self>`.
    #[doc(hidden)]
    pub fn instance_arc(&self, i: usize) -> Result<&'a Arc<T>, Unavailable> {
        match self.args.get(i) {
            Some(Some(ArgSlot::Instance(a))) => Ok(a),
            _ => Err(Unavailable::Argument),
        }
    }

    /// Records a new instance returned by a constructor or a method returning `Self`.
    #[doc(hidden)]
    pub fn made(&mut self, value: T) -> Result<(), Unavailable> {
        self.out = Some(Output::Instance(Arc::new(value), Made::Value));
        Ok(())
    }

    /// Records a new instance returned as `Arc<Self>`.
    #[doc(hidden)]
    pub fn made_arc(&mut self, value: Arc<T>) -> Result<(), Unavailable> {
        self.out = Some(Output::Instance(value, Made::Arc));
        Ok(())
    }

    /// Records the instance in a constructor's `Option<Self>`, or declines.
    #[doc(hidden)]
    pub fn made_option(&mut self, value: Option<T>) -> Result<(), Unavailable> {
        match value {
            Some(v) => {
                self.made(v)?;
                self.made_kind(Made::Option)
            }
            None => Err(Unavailable::Declined),
        }
    }

    /// Records the instance in a constructor's `Result<Self, E>`, or declines.
    #[doc(hidden)]
    pub fn made_result<E>(&mut self, value: Result<T, E>) -> Result<(), Unavailable> {
        match value {
            Ok(v) => {
                self.made(v)?;
                self.made_kind(Made::Result)
            }
            Err(_) => Err(Unavailable::Declined),
        }
    }

    fn made_kind(&mut self, kind: Made) -> Result<(), Unavailable> {
        if let Some(Output::Instance(_, k)) = &mut self.out {
            *k = kind;
        }
        Ok(())
    }
}

/// Holds a call's return value until `(&&Stash::new(r)).stash(frame)` keeps it as an
/// output variable (when `Send + Sync + 'static`) or drops it.
#[doc(hidden)]
pub struct Stash<R>(Cell<Option<R>>);

impl<R> Stash<R> {
    #[doc(hidden)]
    pub fn new(r: R) -> Self {
        Stash(Cell::new(Some(r)))
    }
}

#[doc(hidden)]
pub trait StashKeep {
    fn stash<T>(&self, frame: &mut Frame<'_, T>);
}
impl<R: Send + Sync + 'static> StashKeep for &Stash<R> {
    fn stash<T>(&self, frame: &mut Frame<'_, T>) {
        if let Some(r) = self.0.take() {
            if TypeId::of::<R>() != TypeId::of::<()>() {
                frame.out = Some(Output::Value(TypeId::of::<R>(), Box::new(r)));
            }
        }
    }
}

#[doc(hidden)]
pub trait StashDrop {
    fn stash<T>(&self, frame: &mut Frame<'_, T>);
}
impl<R> StashDrop for Stash<R> {
    fn stash<T>(&self, _frame: &mut Frame<'_, T>) {
        drop(self.0.take());
    }
}
