//! Atomic types: [`std::sync::atomic`]'s, visible to the controlled scheduler.
//!
//! Outside a controlled run each operation is std's. Inside one, each operation is first a
//! scheduling point (a load, a store, or a read-modify-write: `swap`, `compare_exchange*`,
//! `fetch_*`; `fetch_update` is a load and then one read-modify-write per attempt, as std
//! implements it), so the strategy can interleave the threads between any two atomic
//! accesses, and the same seed replays the same order of accesses. Only one thread runs at
//! a time, so every ordering behaves as `SeqCst` there: weak-memory reorderings are not
//! explored.
//!
//! [`Ordering`], [`fence`] and [`compiler_fence`] are std's own, re-exported: a fence
//! orders memory accesses, and one thread at a time is already sequentially consistent.
//! Accesses through `as_ptr` bypass the scheduler.
//!
//! ```
//! use threadsafe_rt::sync::atomic::{AtomicUsize, Ordering};
//!
//! static NEXT_ID: AtomicUsize = AtomicUsize::new(1);
//!
//! let a = NEXT_ID.fetch_add(1, Ordering::Relaxed);
//! let b = NEXT_ID.fetch_add(1, Ordering::Relaxed);
//! assert_eq!((a, b), (1, 2));
//! ```

use std::fmt;
use std::panic::Location;

pub use std::sync::atomic::{compiler_fence, fence, Ordering};

use super::{here, id, Origin};
use crate::hooks;
use crate::point::PointKind;

/// An atomic that knows where it was created.
trait Created {
    fn origin(&self) -> Origin;
}

/// A scheduling point before an access to `obj`, under control.
#[track_caller]
#[inline]
fn before<T: Created>(op: PointKind, obj: &T) {
    if hooks::shim_controlled(op) {
        hooks::point(op, id(obj), Some(obj.origin()), here());
    }
}

/// The operations every atomic type has: `$t` is the value type.
macro_rules! common_ops {
    ($t:ty) => {
        /// A mutable reference to the value: no synchronization needed, the borrow is
        /// exclusive.
        #[inline]
        pub fn get_mut(&mut self) -> &mut $t {
            self.inner.get_mut()
        }

        /// Consumes the atomic and returns the value.
        #[inline]
        pub const fn into_inner(self) -> $t {
            self.inner.into_inner()
        }

        /// Loads the value. Panics if `order` is `Release` or `AcqRel`.
        #[track_caller]
        #[inline]
        pub fn load(&self, order: Ordering) -> $t {
            before(PointKind::Load, self);
            self.inner.load(order)
        }

        /// Stores `val`. Panics if `order` is `Acquire` or `AcqRel`.
        #[track_caller]
        #[inline]
        pub fn store(&self, val: $t, order: Ordering) {
            before(PointKind::Store, self);
            self.inner.store(val, order)
        }

        /// Stores `val`, returning the previous value.
        #[track_caller]
        #[inline]
        pub fn swap(&self, val: $t, order: Ordering) -> $t {
            before(PointKind::ReadModifyWrite, self);
            self.inner.swap(val, order)
        }

        /// Stores `new` if the value is `current`: `Ok(previous)` if it did,
        /// `Err(actual)` if not.
        #[track_caller]
        #[inline]
        pub fn compare_exchange(
            &self,
            current: $t,
            new: $t,
            success: Ordering,
            failure: Ordering,
        ) -> Result<$t, $t> {
            before(PointKind::ReadModifyWrite, self);
            self.inner.compare_exchange(current, new, success, failure)
        }

        /// As [`compare_exchange`](Self::compare_exchange), but may fail spuriously (even
        /// when the value is `current`); for use in a loop.
        #[track_caller]
        #[inline]
        pub fn compare_exchange_weak(
            &self,
            current: $t,
            new: $t,
            success: Ordering,
            failure: Ordering,
        ) -> Result<$t, $t> {
            before(PointKind::ReadModifyWrite, self);
            self.inner
                .compare_exchange_weak(current, new, success, failure)
        }

        /// Applies `f` to the value until it returns `None` or the new value is stored
        /// (a `compare_exchange_weak` loop, as std's): `Ok(previous)` if stored,
        /// `Err(previous)` if `f` returned `None`. Under control another thread may run
        /// between the load and each attempt.
        #[track_caller]
        pub fn fetch_update<F>(
            &self,
            set_order: Ordering,
            fetch_order: Ordering,
            mut f: F,
        ) -> Result<$t, $t>
        where
            F: FnMut($t) -> Option<$t>,
        {
            let mut prev = self.load(fetch_order);
            while let Some(next) = f(prev) {
                match self.compare_exchange_weak(prev, next, set_order, fetch_order) {
                    x @ Ok(_) => return x,
                    Err(next_prev) => prev = next_prev,
                }
            }
            Err(prev)
        }

        /// A raw pointer to the value. Accesses through it are not scheduling points.
        #[inline]
        pub const fn as_ptr(&self) -> *mut $t {
            self.inner.as_ptr()
        }
    };
}

/// A read-modify-write operation `fetch_$op(val, order) -> previous`.
macro_rules! fetch_ops {
    ($t:ty; $($op:ident: $doc:literal),* $(,)?) => {
        $(
            #[doc = $doc]
            #[doc = ""]
            #[doc = "Returns the previous value."]
            #[track_caller]
            #[inline]
            pub fn $op(&self, val: $t, order: Ordering) -> $t {
                before(PointKind::ReadModifyWrite, self);
                self.inner.$op(val, order)
            }
        )*
    };
}

/// An integer atomic type: `$name` wraps `std::sync::atomic::$name` of `$t`.
macro_rules! atomic_int {
    ($($width:literal $name:ident $t:ty;)*) => {
        $(
            #[cfg(target_has_atomic = $width)]
            #[doc = concat!(
                "An integer shared between threads: [`std::sync::atomic::", stringify!($name),
                "`], visible to the controlled scheduler (see the [module docs](self)).\n\n",
                "```\n",
                "use threadsafe_rt::sync::atomic::{", stringify!($name), ", Ordering};\n\n",
                "static HITS: ", stringify!($name), " = ", stringify!($name), "::new(0);\n\n",
                "assert_eq!(HITS.fetch_add(5, Ordering::SeqCst), 0);\n",
                "assert_eq!(HITS.fetch_max(3, Ordering::SeqCst), 5);\n",
                "assert_eq!(HITS.compare_exchange(5, 7, Ordering::SeqCst, Ordering::SeqCst), Ok(5));\n",
                "assert_eq!(HITS.load(Ordering::SeqCst), 7);\n",
                "```"
            )]
            pub struct $name {
                origin: Origin,
                inner: std::sync::atomic::$name,
            }

            #[cfg(target_has_atomic = $width)]
            impl Created for $name {
                fn origin(&self) -> Origin {
                    self.origin
                }
            }

            #[cfg(target_has_atomic = $width)]
            impl Default for $name {
                #[doc = concat!("A new `", stringify!($name), "` holding 0.")]
                #[track_caller]
                fn default() -> Self {
                    $name::new(0)
                }
            }

            #[cfg(target_has_atomic = $width)]
            impl $name {
                /// Creates a new atomic integer; `const`, for statics.
                #[inline]
                #[must_use]
                #[track_caller]
                pub const fn new(v: $t) -> Self {
                    $name {
                        origin: Location::caller(),
                        inner: std::sync::atomic::$name::new(v),
                    }
                }

                common_ops!($t);

                fetch_ops!($t;
                    fetch_add: "Adds `val` (wrapping around on overflow).",
                    fetch_sub: "Subtracts `val` (wrapping around on overflow).",
                    fetch_and: "Bitwise \"and\" with `val`.",
                    fetch_nand: "Bitwise \"nand\" with `val`.",
                    fetch_or: "Bitwise \"or\" with `val`.",
                    fetch_xor: "Bitwise \"xor\" with `val`.",
                    fetch_max: "Sets the value to the maximum of it and `val`.",
                    fetch_min: "Sets the value to the minimum of it and `val`.",
                );
            }

            #[cfg(target_has_atomic = $width)]
            impl From<$t> for $name {
                #[doc = concat!("A new `", stringify!($name), "` holding `v`.")]
                #[inline]
                #[track_caller]
                fn from(v: $t) -> Self {
                    $name::new(v)
                }
            }

            #[cfg(target_has_atomic = $width)]
            impl fmt::Debug for $name {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    fmt::Debug::fmt(&self.inner, f)
                }
            }
        )*
    };
}

atomic_int! {
    "8" AtomicI8 i8;
    "8" AtomicU8 u8;
    "16" AtomicI16 i16;
    "16" AtomicU16 u16;
    "32" AtomicI32 i32;
    "32" AtomicU32 u32;
    "64" AtomicI64 i64;
    "64" AtomicU64 u64;
    "ptr" AtomicIsize isize;
    "ptr" AtomicUsize usize;
}

/// A boolean shared between threads: [`std::sync::atomic::AtomicBool`], visible to the
/// controlled scheduler (see the [module docs](self)).
///
/// ```
/// use threadsafe_rt::sync::atomic::{AtomicBool, Ordering};
///
/// static STOP: AtomicBool = AtomicBool::new(false);
///
/// assert!(!STOP.swap(true, Ordering::SeqCst));
/// assert!(STOP.load(Ordering::SeqCst));
/// ```
#[cfg(target_has_atomic = "8")]
pub struct AtomicBool {
    origin: Origin,
    inner: std::sync::atomic::AtomicBool,
}

#[cfg(target_has_atomic = "8")]
impl Created for AtomicBool {
    fn origin(&self) -> Origin {
        self.origin
    }
}

#[cfg(target_has_atomic = "8")]
impl Default for AtomicBool {
    /// A new `AtomicBool` holding `false`.
    #[track_caller]
    fn default() -> Self {
        AtomicBool::new(false)
    }
}

#[cfg(target_has_atomic = "8")]
impl AtomicBool {
    /// Creates a new atomic boolean; `const`, for statics.
    #[inline]
    #[must_use]
    #[track_caller]
    pub const fn new(v: bool) -> AtomicBool {
        AtomicBool {
            origin: Location::caller(),
            inner: std::sync::atomic::AtomicBool::new(v),
        }
    }

    common_ops!(bool);

    fetch_ops!(bool;
        fetch_and: "Logical \"and\" with `val`.",
        fetch_nand: "Logical \"nand\" with `val`.",
        fetch_or: "Logical \"or\" with `val`.",
        fetch_xor: "Logical \"xor\" with `val`.",
    );
}

#[cfg(target_has_atomic = "8")]
impl From<bool> for AtomicBool {
    /// A new `AtomicBool` holding `b`.
    #[inline]
    #[track_caller]
    fn from(b: bool) -> Self {
        AtomicBool::new(b)
    }
}

#[cfg(target_has_atomic = "8")]
impl fmt::Debug for AtomicBool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

/// A raw pointer shared between threads: [`std::sync::atomic::AtomicPtr`], visible to the
/// controlled scheduler (see the [module docs](self)).
///
/// ```
/// use threadsafe_rt::sync::atomic::{AtomicPtr, Ordering};
///
/// let mut a = 1;
/// let mut b = 2;
/// let p = AtomicPtr::new(&mut a as *mut i32);
/// let old = p.swap(&mut b, Ordering::SeqCst);
/// assert_eq!(unsafe { *old }, 1);
/// assert_eq!(unsafe { *p.load(Ordering::SeqCst) }, 2);
/// ```
#[cfg(target_has_atomic = "ptr")]
pub struct AtomicPtr<T> {
    origin: Origin,
    inner: std::sync::atomic::AtomicPtr<T>,
}

#[cfg(target_has_atomic = "ptr")]
impl<T> Created for AtomicPtr<T> {
    fn origin(&self) -> Origin {
        self.origin
    }
}

#[cfg(target_has_atomic = "ptr")]
impl<T> AtomicPtr<T> {
    /// Creates a new atomic pointer; `const`, for statics.
    #[inline]
    #[must_use]
    #[track_caller]
    pub const fn new(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr {
            origin: Location::caller(),
            inner: std::sync::atomic::AtomicPtr::new(p),
        }
    }

    common_ops!(*mut T);
}

#[cfg(target_has_atomic = "ptr")]
impl<T> Default for AtomicPtr<T> {
    /// A null `AtomicPtr`.
    #[track_caller]
    fn default() -> AtomicPtr<T> {
        AtomicPtr::new(std::ptr::null_mut())
    }
}

#[cfg(target_has_atomic = "ptr")]
impl<T> From<*mut T> for AtomicPtr<T> {
    /// A new `AtomicPtr` holding `p`.
    #[inline]
    #[track_caller]
    fn from(p: *mut T) -> Self {
        AtomicPtr::new(p)
    }
}

#[cfg(target_has_atomic = "ptr")]
impl<T> fmt::Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

#[cfg(target_has_atomic = "ptr")]
impl<T> fmt::Pointer for AtomicPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Pointer::fmt(&self.inner, f)
    }
}
