//! How the values of a parameter are made: a [`Maker`] (from [`Generate`], or through the
//! constructors of another checked type), chosen per concrete type by autoref probes that
//! the expansion calls, so that a type without a generator is a skipped method, never a
//! compile error.

use std::any::Any;
use std::marker::PhantomData;

use super::{construct, CloneFn, Pass, Subject};
use crate::value::{Gen, Generate};

/// Makes values of one type, and writes them as Rust code for the reproducer. Both functions
/// are deterministic in the generator's random stream, so the code written is the value made.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Maker {
    pub(crate) make: fn(&mut Gen) -> Option<Box<dyn Any>>,
    pub(crate) render: fn(&mut Gen, Pass) -> Option<String>,
}

impl Maker {
    fn of_generate<A: Generate>() -> Self {
        Maker {
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
        Maker {
            make: |g| construct::construct::<A>(g).map(|a| Box::new(a) as Box<dyn Any>),
            render: |g, pass| {
                let code = construct::render_construct::<A>(g)?;
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
// Autoref probes: the expansion asks, for each concrete argument type, which maker
// applies, without a compile error when none does (the method is then skipped).
// `(&&&Probe::<A>::new()).maker()` picks `ViaSubject` if `A: Subject`, else
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
    fn maker(&self) -> Option<Maker>;
}
impl<A: Subject> ViaSubject for &&Probe<A> {
    fn maker(&self) -> Option<Maker> {
        Some(Maker::of_subject::<A>())
    }
}

#[doc(hidden)]
pub trait ViaGenerate {
    fn maker(&self) -> Option<Maker>;
}
impl<A: Generate> ViaGenerate for &Probe<A> {
    fn maker(&self) -> Option<Maker> {
        Some(Maker::of_generate::<A>())
    }
}

#[doc(hidden)]
pub trait ViaNothing {
    fn maker(&self) -> Option<Maker>;
}
impl<A> ViaNothing for Probe<A> {
    fn maker(&self) -> Option<Maker> {
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
