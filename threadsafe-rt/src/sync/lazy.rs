use std::fmt;
use std::ops::Deref;
use std::sync::PoisonError;

use super::OnceLock;

/// A value initialized on first access: [`std::sync::LazyLock`], visible to the controlled
/// scheduler.
///
/// Built on [`OnceLock`]: outside a controlled run it behaves as std's `LazyLock`; inside
/// one, the first access is serialized by the scheduler, so a thread that arrives while
/// another is still initializing waits there. If the initializer panics, the value stays
/// uninitialized and every later access panics, as with std.
///
/// # Examples
///
/// ```
/// use std::collections::HashMap;
/// use threadsafe_rt::sync::LazyLock;
///
/// static SQUARES: LazyLock<HashMap<u32, u32>> =
///     LazyLock::new(|| (0..10).map(|i| (i, i * i)).collect());
///
/// assert_eq!(SQUARES[&3], 9);
/// assert_eq!(*LazyLock::force(&SQUARES).get(&9).unwrap(), 81);
/// ```
pub struct LazyLock<T, F = fn() -> T> {
    cell: OnceLock<T>,
    // Taken once, by the initializing thread; a std mutex only to make the type `Sync`
    // safely (it is never contended: the cell serializes initialization).
    init: std::sync::Mutex<Option<F>>,
}

impl<T, F: FnOnce() -> T> LazyLock<T, F> {
    /// Creates a new lazy value with the given initializer; `const`, for statics.
    pub const fn new(f: F) -> LazyLock<T, F> {
        LazyLock {
            cell: OnceLock::new(),
            init: std::sync::Mutex::new(Some(f)),
        }
    }

    /// Forces the evaluation of this lazy value and returns a reference to the result;
    /// the same as dereferencing it.
    #[track_caller]
    pub fn force(this: &LazyLock<T, F>) -> &T {
        this.cell.get_or_init(|| {
            let init = this
                .init
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            match init {
                Some(f) => f(),
                None => panic!("LazyLock instance has previously been poisoned"),
            }
        })
    }
}

impl<T, F: FnOnce() -> T> Deref for LazyLock<T, F> {
    type Target = T;

    #[track_caller]
    fn deref(&self) -> &T {
        LazyLock::force(self)
    }
}

impl<T: Default> Default for LazyLock<T> {
    /// A lazy value initialized with `T::default()`.
    fn default() -> LazyLock<T> {
        LazyLock::new(T::default)
    }
}

impl<T: fmt::Debug, F> fmt::Debug for LazyLock<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_tuple("LazyLock");
        match self.cell.inner.get() {
            Some(v) => d.field(v),
            None => d.field(&format_args!("<uninit>")),
        };
        d.finish()
    }
}
