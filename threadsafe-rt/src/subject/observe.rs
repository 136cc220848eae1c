//! Result observation: what a call's return value comes to for the oracle that compares
//! results with those of the linearizations.
//!
//! Which form a return type gets is decided at compile time by autoref specialization, as the
//! argument probes of [`subject`](crate::subject) are, so that no return type fails to
//! compile. After each call the expansion writes
//! `(&&&Observe::new(&r)).observe(frame)` for an owned value and
//! `(&&Observe::new(&r)).observe(frame)` for one that may borrow, which picks
//! - [`ObserveValue`] (`&&Observe<R>`) when `R: PartialEq + Debug + Clone + Send + Sync +
//!   'static`: a clone of the value, compared with `PartialEq`;
//! - else [`ObserveDebug`] (`&Observe<R>`) when `R: PartialEq + Debug`: its `Debug` text;
//! - else [`ObserveNothing`] (`Observe<R>`): not comparable.
//!
//! The value level is never considered for a value that may borrow: lifetimes take no part in
//! trait selection, so `R: 'static` would be selected for `&'a str` and fail the borrow check
//! instead of falling through. Starting two references down skips it.
//!
//! A probe does nothing unless the frame asks for observations (`Frame::observe`): a check
//! that does not compare results pays one branch per call.

use std::any::Any;
use std::fmt::{self, Debug};
use std::sync::{Arc, OnceLock};

use crate::subject::Frame;

/// A value of any type, as observed.
type Erased = dyn Any + Send + Sync;

/// A call's return value as the oracle compares it.
#[derive(Clone)]
pub(crate) struct Observed(Repr);

#[derive(Clone)]
enum Repr {
    /// `R: PartialEq + Debug + Clone + Send + Sync + 'static`: the value itself (a
    /// [`Stored<R>`]), compared with `PartialEq`; its `Debug` text is made only when needed
    /// (report, or as a fallback), once.
    Value {
        value: Arc<Erased>,
        eq: fn(&Erased, &Erased) -> bool,
        text: fn(&Erased) -> &str,
    },
    /// `R: PartialEq + Debug` only (it borrows, or is not `Clone`): its `Debug` text, made at
    /// once.
    Debug(String),
    /// An integer (`usize`, `u64`, `isize`, `i64`) that points into this process's memory:
    /// an address taken as a number, with its `Debug` text. Any two agree: where the
    /// allocator puts a value depends on what every thread allocated and freed before, and
    /// two runs of one order can get different addresses as well as equal ones.
    Address(String),
}

/// An observed value with its `Debug` text, made the first time it is asked for: a value
/// is compared with many (every distinct result the oracle knows), its text made once.
struct Stored<R> {
    value: R,
    text: OnceLock<String>,
}

fn eq_of<R: PartialEq + 'static>(a: &Erased, b: &Erased) -> bool {
    match (a.downcast_ref::<Stored<R>>(), b.downcast_ref::<Stored<R>>()) {
        (Some(a), Some(b)) => a.value == b.value,
        _ => false,
    }
}

fn text_of<R: Debug + 'static>(v: &Erased) -> &str {
    match v.downcast_ref::<Stored<R>>() {
        Some(s) => s.text.get_or_init(|| format!("{:?}", s.value)),
        None => "<?>",
    }
}

impl Observed {
    /// `value`, compared with `PartialEq` (what [`ObserveValue`] records).
    pub(crate) fn value<R: PartialEq + Debug + Send + Sync + 'static>(value: R) -> Self {
        if let Some(n) = as_integer(&value) {
            if is_address(n) {
                return Observed(Repr::Address(format!("{value:?}")));
            }
        }
        Observed(Repr::Value {
            value: Arc::new(Stored {
                value,
                text: OnceLock::new(),
            }),
            eq: eq_of::<R>,
            text: text_of::<R>,
        })
    }

    /// The value's `Debug` text, made once.
    fn text(&self) -> &str {
        match &self.0 {
            Repr::Value { value, text, .. } => text(&**value),
            Repr::Debug(text) | Repr::Address(text) => text,
        }
    }

    /// Equal under `PartialEq`, or with equal `Debug` text (either one: `NaN` is `NaN` by
    /// `Debug`; a `HashSet` whose `Debug` order differs is equal as a set). Conservative on
    /// purpose: a false "different" would be a false positive. Two addresses are the same.
    pub(crate) fn same(&self, other: &Observed) -> bool {
        if let (Repr::Address(_), Repr::Address(_)) = (&self.0, &other.0) {
            return true;
        }
        if let (Repr::Value { value: a, eq, .. }, Repr::Value { value: b, .. }) =
            (&self.0, &other.0)
        {
            if eq(&**a, &**b) {
                return true;
            }
        }
        self.text() == other.text()
    }

    /// Equal under `PartialEq`; by `Debug` text only when a value is not equal to itself
    /// (`NaN`) or when only the text was observed. Stricter than [`same`](Self::same), and
    /// cheap: no text is made for values that `PartialEq` tells apart. It sorts executions
    /// into distinct results, each of which the oracle then judges with `same`, so that
    /// telling two results apart that `same` would not costs one lookup, never a report.
    pub(crate) fn identical(&self, other: &Observed) -> bool {
        if let (Repr::Value { value: a, eq, .. }, Repr::Value { value: b, .. }) =
            (&self.0, &other.0)
        {
            if eq(&**a, &**b) {
                return true;
            }
            if eq(&**a, &**a) && eq(&**b, &**b) {
                return false;
            }
        }
        self.text() == other.text()
    }

    /// The value's `Debug` text, for the report.
    pub(crate) fn debug(&self) -> String {
        self.text().to_string()
    }
}

/// The value of an integer of pointer width, or `None` for any other type.
fn as_integer(value: &dyn Any) -> Option<u64> {
    // Casts on purpose: a negative value becomes a large one that no address is near.
    #[allow(clippy::cast_sign_loss)]
    let n = if let Some(&v) = value.downcast_ref::<usize>() {
        v as u64
    } else if let Some(&v) = value.downcast_ref::<u64>() {
        v
    } else if let Some(&v) = value.downcast_ref::<isize>() {
        v as u64
    } else if let Some(&v) = value.downcast_ref::<i64>() {
        v as u64
    } else {
        return None;
    };
    Some(n)
}

/// How far from a known address of this process a number may be and still be taken for an
/// address (64 GiB): the allocator's arenas, the threads' stacks and the program's own
/// data lie within a few GiB of one of [`anchors`].
const NEAR: u64 = 1 << 36;

/// Whether `n` looks like an address of this process: at least 4 GiB (no count, length or
/// index of a test comes near; a program not built position-independent, whose data lies
/// below 4 GiB, has its heap's addresses compared as numbers) and within [`NEAR`] of one of
/// the [`anchors`]. A number that is not an address (a hash, a random token) lands there
/// with a chance of about 2^-25 (2^-27 per anchor): it is then not compared, which can hide
/// a bug, never report one.
fn is_address(n: u64) -> bool {
    cfg!(target_pointer_width = "64")
        && n >= 1 << 32
        && anchors().iter().any(|&a| n.abs_diff(a) < NEAR)
}

/// Addresses of this process, taken once: its static data (next to the main heap), a small
/// allocation (the heap of the thread that first asks), a large one (mapped on its own,
/// among the other threads' arenas and the shared libraries) and the asking thread's stack.
fn anchors() -> &'static [u64; 4] {
    static ANCHORS: OnceLock<[u64; 4]> = OnceLock::new();
    static DATA: u8 = 0;
    ANCHORS.get_or_init(|| {
        let small = Box::new(0u64);
        let large = vec![0u8; 1 << 20];
        let local = 0u8;
        [
            std::ptr::from_ref(&DATA) as u64,
            std::ptr::from_ref::<u64>(&small) as u64,
            large.as_ptr() as u64,
            std::ptr::from_ref(&local) as u64,
        ]
    })
}

impl Debug for Observed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.debug())
    }
}

/// What a call's return value came to.
#[derive(Clone, Debug)]
pub(crate) enum Observation {
    /// A value the oracle can compare.
    Value(Observed),
    /// The return type is not `PartialEq + Debug`: the call's result is not compared.
    NotComparable,
    /// The call's future was dropped at its cancellation point (here), before it returned.
    Cancelled(String),
}

// ---------------------------------------------------------------------------------------
// The probe.
// ---------------------------------------------------------------------------------------

/// A call's return value, borrowed while `(&&&Observe::new(&r)).observe(frame)` records it.
#[doc(hidden)]
pub struct Observe<'r, R: ?Sized>(&'r R);

impl<'r, R: ?Sized> Observe<'r, R> {
    #[doc(hidden)]
    pub fn new(r: &'r R) -> Self {
        Observe(r)
    }
}

/// The value itself, compared with `PartialEq`.
#[doc(hidden)]
pub trait ObserveValue {
    fn observe<T>(&self, frame: &mut Frame<'_, T>);
}
impl<R: PartialEq + Debug + Clone + Send + Sync + 'static> ObserveValue for &&Observe<'_, R> {
    #[inline]
    fn observe<T>(&self, frame: &mut Frame<'_, T>) {
        if frame.observe {
            let value = R::clone(self.0);
            frame.observed = Some(Observation::Value(Observed::value(value)));
        }
    }
}

/// The value's `Debug` text.
#[doc(hidden)]
pub trait ObserveDebug {
    fn observe<T>(&self, frame: &mut Frame<'_, T>);
}
impl<R: PartialEq + Debug + ?Sized> ObserveDebug for &Observe<'_, R> {
    #[inline]
    fn observe<T>(&self, frame: &mut Frame<'_, T>) {
        if frame.observe {
            let text = format!("{:?}", self.0);
            frame.observed = Some(Observation::Value(Observed(Repr::Debug(text))));
        }
    }
}

/// Not comparable.
#[doc(hidden)]
pub trait ObserveNothing {
    fn observe<T>(&self, frame: &mut Frame<'_, T>);
}
impl<R: ?Sized> ObserveNothing for Observe<'_, R> {
    #[inline]
    fn observe<T>(&self, frame: &mut Frame<'_, T>) {
        if frame.observe {
            frame.observed = Some(Observation::NotComparable);
        }
    }
}

#[cfg(test)]
// The references in front of the probes pick the level: none is needless.
#[allow(clippy::needless_borrow)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// A frame that asks for observations (or not), with no receiver and no arguments.
    fn frame(observe: bool) -> Frame<'static, ()> {
        let mut f = Frame::new(None, Vec::new());
        f.observe = observe;
        f
    }

    /// What the expansion's probe for an owned value records (a macro: the probe chooses by
    /// the concrete type, which a generic function would hide).
    macro_rules! owned {
        ($r:expr) => {{
            #[allow(unused_imports)]
            use super::{ObserveDebug as _, ObserveNothing as _, ObserveValue as _};
            let r = $r;
            let mut f = frame(true);
            (&&&Observe::new(&r)).observe(&mut f);
            f.observed
        }};
    }

    fn value(o: Option<Observation>) -> Observed {
        match o {
            Some(Observation::Value(v)) => v,
            other => panic!("not a value: {other:?}"),
        }
    }

    fn is_value_level(o: &Observed) -> bool {
        matches!(o.0, Repr::Value { .. })
    }

    struct NoEq(#[allow(dead_code)] u32);

    #[derive(Debug, PartialEq)]
    struct NotClone(u32);

    #[test]
    fn owned_values_are_compared_with_partial_eq() {
        let a = value(owned!(7u32));
        assert!(is_value_level(&a));
        assert!(a.same(&value(owned!(7u32))));
        assert!(!a.same(&value(owned!(8u32))));
        assert_eq!(a.debug(), "7");

        let v = |xs: &[&str]| value(owned!(xs.iter().map(|s| s.to_string()).collect::<Vec<_>>()));
        let ab = v(&["a", "b"]);
        assert!(is_value_level(&ab));
        assert!(ab.same(&v(&["a", "b"])));
        assert!(!ab.same(&v(&["b", "a"])));
        assert_eq!(ab.debug(), r#"["a", "b"]"#);
    }

    #[test]
    fn a_type_without_partial_eq_is_not_comparable() {
        assert!(matches!(owned!(NoEq(1)), Some(Observation::NotComparable)));
    }

    #[test]
    fn partial_eq_and_debug_without_clone_is_observed_by_debug() {
        let a = value(owned!(NotClone(1)));
        assert!(!is_value_level(&a));
        assert!(a.same(&value(owned!(NotClone(1)))));
        assert!(!a.same(&value(owned!(NotClone(2)))));
        assert_eq!(a.debug(), "NotClone(1)");
    }

    #[test]
    fn a_borrowed_str_is_observed_by_debug() {
        // All three in scope, as in the expansion: were the value level considered, the
        // `'static` bound on a `&str` borrowed from a local would not compile.
        #[allow(unused_imports)]
        use super::{ObserveDebug as _, ObserveNothing as _, ObserveValue as _};
        let owner = String::from("borrowed");
        let s: &str = &owner;
        let mut f = frame(true);
        // The form the expansion writes for a value that may borrow.
        (&&Observe::new(&s)).observe(&mut f);
        let o = value(f.observed);
        assert!(!is_value_level(&o));
        assert_eq!(o.debug(), r#""borrowed""#);
    }

    #[test]
    fn nan_is_the_same_as_itself() {
        let nan = value(owned!(f64::NAN));
        assert!(nan.same(&value(owned!(f64::NAN))));
        assert!(!nan.same(&value(owned!(1.0f64))));
        assert!(nan.identical(&value(owned!(f64::NAN))));
        assert!(!nan.identical(&value(owned!(1.0f64))));
        assert!(!value(owned!(1.0f64)).identical(&nan));
    }

    /// Equal under `PartialEq` only: its `Debug` text leaves out the field that differs.
    #[derive(Clone, PartialEq)]
    struct Stamped(u32, u64);

    impl Debug for Stamped {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "Stamped({})", self.0)
        }
    }

    #[test]
    fn identical_trusts_partial_eq_where_same_also_takes_equal_text() {
        let a = value(owned!(Stamped(1, 10)));
        let b = value(owned!(Stamped(1, 20)));
        assert!(a.same(&b), "same: equal Debug text");
        assert!(!a.identical(&b), "identical: PartialEq tells them apart");
        assert!(a.identical(&value(owned!(Stamped(1, 10)))));
        assert!(!a.identical(&value(owned!(Stamped(2, 10)))));
        let text = |v: u32| value(owned!(NotClone(v)));
        assert!(text(1).identical(&text(1)), "text only: compared as text");
        assert!(!text(1).identical(&text(2)));
    }

    #[test]
    fn sets_equal_as_sets_are_the_same_whatever_their_debug_order() {
        // Two sets with the same elements, built until their iteration orders differ.
        let a: HashSet<u32> = (0..64).collect();
        let b = (0..100)
            .map(|_| (0..64).rev().collect::<HashSet<u32>>())
            .find(|b| format!("{b:?}") != format!("{a:?}"))
            .expect("two hash sets with different orders");
        let (oa, ob) = (value(owned!(a)), value(owned!(b)));
        assert_ne!(oa.debug(), ob.debug());
        assert!(oa.same(&ob));
    }

    #[test]
    fn addresses_are_the_same_as_any_other_address_and_nothing_else() {
        // Two live boxes, on this thread's heap and on another's: two different addresses.
        let here = Box::new(1u64);
        let there = std::thread::spawn(|| std::ptr::from_ref::<u64>(&Box::new(2u64)) as usize)
            .join()
            .unwrap();
        let here = std::ptr::from_ref::<u64>(&here) as usize;
        assert_ne!(here, there);
        let (a, b) = (value(owned!(here)), value(owned!(there)));
        assert!(matches!(a.0, Repr::Address(_)), "{a:?}");
        assert!(a.same(&b), "two addresses agree");
        assert!(!a.identical(&b), "but are distinct results");
        assert_eq!(a.debug(), here.to_string());
        assert!(value(owned!(here as u64)).same(&value(owned!(there as u64))));
        // A number is compared as a number: small, far from every address, negative.
        for n in [0usize, 7, u32::MAX as usize, 1 << 62, usize::MAX] {
            let o = value(owned!(n));
            assert!(is_value_level(&o), "{n}");
            assert!(!o.same(&a), "{n}");
        }
        assert!(!value(owned!(-1i64)).same(&value(owned!(-2i64))));
        // Other integer types are never addresses, nor is text that reads like one.
        assert!(!value(owned!(here as u128)).same(&value(owned!(there as u128))));
        assert!(!value(owned!(here.to_string())).same(&value(owned!(there.to_string()))));
    }

    #[test]
    fn nothing_is_observed_when_the_frame_does_not_ask() {
        use super::{ObserveDebug as _, ObserveNothing as _, ObserveValue as _};
        let mut f = frame(false);
        (&&&Observe::new(&7u32)).observe(&mut f);
        (&&&Observe::new(&NotClone(1))).observe(&mut f);
        (&&&Observe::new(&NoEq(1))).observe(&mut f);
        (&&Observe::new(&"s")).observe(&mut f);
        assert!(f.observed.is_none());
    }
}
