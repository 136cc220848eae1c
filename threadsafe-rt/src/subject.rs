//! The description of a type under test: what `#[thread_safe]` emits and the engine reads.
//!
//! The attribute implements [`Subject`] for the annotated type. The implementation lists the
//! type's constructors and methods, the parameters of each, and a plain `fn` that calls the
//! method with arguments taken from a [`Frame`]. Everything in this module except [`Subject`]
//! and [`Description`]'s accessors is an implementation detail of the expansion and is
//! re-exported only through `__private`.

use std::any::{Any, TypeId};
use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::observe::Observation;
use crate::point::StatementPoint;
use crate::testcase::{Made, OpId};
use crate::value::{Gen, Generate};

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
    // Read by the results oracle, the next step (as `nondeterministic`).
    #[allow(dead_code)]
    pub(crate) returns: Option<&'static str>,
    /// `#[thread_safe(nondeterministic)]`: the results of this method are never compared.
    #[allow(dead_code)]
    pub(crate) nondeterministic: bool,
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
    /// A value of another type: fresh from a strategy, or an earlier output of the same type.
    Value {
        pass: Pass,
        type_id: TypeId,
        strategy: Option<Strategy>,
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

    /// A parameter of owned type `A`, with the strategy and cloner found by the probes.
    #[doc(hidden)]
    pub fn value<A: 'static>(
        name: &'static str,
        ty: &'static str,
        pass: Pass,
        strategy: Option<Strategy>,
        clone: Option<CloneFn>,
    ) -> Self {
        Param {
            name,
            ty,
            kind: ParamKind::Value {
                pass,
                type_id: TypeId::of::<A>(),
                strategy,
                clone,
            },
        }
    }

    fn is_generable(&self) -> bool {
        match &self.kind {
            ParamKind::Instance(_) => true,
            ParamKind::Value { strategy, .. } => strategy.is_some(),
        }
    }
}

/// Makes values of one type, and writes them as Rust code for the reproducer. Both functions
/// are deterministic in the generator's random stream, so the code written is the value made.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Strategy {
    pub(crate) make: fn(&mut Gen) -> Option<Box<dyn Any>>,
    pub(crate) render: fn(&mut Gen, Pass) -> Option<String>,
}

impl Strategy {
    fn of_generate<A: Generate>() -> Self {
        Strategy {
            make: |g| Some(Box::new(A::generate(g))),
            render: |g, pass| {
                let v = A::generate(g);
                Some(match pass {
                    Pass::Owned => v.to_code(),
                    Pass::Ref => format!("&{}", v.to_code()),
                    Pass::RefMut => format!("&mut {}", v.to_code()),
                    Pass::Deref => v.to_code_deref(),
                })
            },
        }
    }

    fn of_subject<A: Subject>() -> Self {
        Strategy {
            make: |g| crate::construct::construct::<A>(g).map(|a| Box::new(a) as Box<dyn Any>),
            render: |g, pass| {
                let code = crate::construct::render_construct::<A>(g)?;
                Some(match pass {
                    Pass::Owned => code,
                    Pass::Ref | Pass::Deref => format!("&{code}"),
                    Pass::RefMut => format!("&mut {code}"),
                })
            },
        }
    }
}

// ---------------------------------------------------------------------------------------
// Autoref probes: the expansion asks, for each concrete argument type, which strategy
// applies, without a compile error when none does (the method is then skipped).
// `(&&&Probe::<A>::new()).strategy()` picks `ViaSubject` if `A: Subject`, else
// `ViaGenerate` if `A: Generate`, else `ViaNothing`.
// ---------------------------------------------------------------------------------------

#[doc(hidden)]
pub struct Probe<A>(PhantomData<fn() -> A>);

impl<A> Probe<A> {
    #[doc(hidden)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Probe(PhantomData)
    }
}

#[doc(hidden)]
pub trait ViaSubject {
    fn strategy(&self) -> Option<Strategy>;
}
impl<A: Subject> ViaSubject for &&Probe<A> {
    fn strategy(&self) -> Option<Strategy> {
        Some(Strategy::of_subject::<A>())
    }
}

#[doc(hidden)]
pub trait ViaGenerate {
    fn strategy(&self) -> Option<Strategy>;
}
impl<A: Generate> ViaGenerate for &Probe<A> {
    fn strategy(&self) -> Option<Strategy> {
        Some(Strategy::of_generate::<A>())
    }
}

#[doc(hidden)]
pub trait ViaNothing {
    fn strategy(&self) -> Option<Strategy>;
}
impl<A> ViaNothing for Probe<A> {
    fn strategy(&self) -> Option<Strategy> {
        None
    }
}

/// `(&&Probe::<A>::new()).cloner()`: a cloner when `A: Clone + Send + Sync`, so an earlier
/// output of type `A` can be passed again.
#[doc(hidden)]
pub trait CloneYes {
    fn cloner(&self) -> Option<CloneFn>;
}
impl<A: Clone + Send + Sync + 'static> CloneYes for &Probe<A> {
    fn cloner(&self) -> Option<CloneFn> {
        Some(|v| Box::new(v.downcast_ref::<A>().expect("output type checked").clone()))
    }
}

#[doc(hidden)]
pub trait CloneNo {
    fn cloner(&self) -> Option<CloneFn>;
}
impl<A> CloneNo for Probe<A> {
    fn cloner(&self) -> Option<CloneFn> {
        None
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

// ---------------------------------------------------------------------------------------
// The frame: receiver, arguments and output of one call.
// ---------------------------------------------------------------------------------------

/// Why a call could not be made; not a failure of the code under test.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unavailable {
    /// The receiver or an argument was missing or of the wrong kind.
    Argument,
    /// A constructor returned `None` or `Err`.
    Declined,
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
    // Read by the results oracle, the next step.
    #[allow(dead_code)]
    pub(crate) observed: Option<Observation>,
}

impl<'a, T> Frame<'a, T> {
    pub(crate) fn new(recv: Option<RecvSlot<'a, T>>, args: Vec<Option<ArgSlot<'a, T>>>) -> Self {
        Frame {
            recv,
            args,
            out: None,
            observe: false,
            observed: None,
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
