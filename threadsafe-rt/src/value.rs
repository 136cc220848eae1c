//! Argument values: the [`Generate`] trait, its random source [`Gen`], and the literal pools.
//!
//! Pools are small on purpose, as in Randoop and the original ConTeGe tool: two threads that
//! draw keys from `{"", "a", "b", "ab", ...}` or integers from `{-100, -3, ..., 3, 100}` often
//! pick the same one, which is what makes them race. Edge values (`MAX`, `MIN`, `NaN`) are
//! drawn rarely.

use std::sync::Arc;
use std::time::Duration;

use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A seeded source of choices for [`Generate`] implementations.
///
/// Every value is generated from its own seed, so the generator can make the same value
/// again in every execution of a test, and write it as code in the reproducer.
///
/// ```
/// use threadsafe_rt::Gen;
///
/// let mut a = Gen::from_seed(7);
/// let mut b = Gen::from_seed(7);
/// assert!(a.below(10) < 10);
/// b.below(10);
/// let (x, y): (u8, u8) = (a.make(), b.make());
/// assert_eq!(x, y, "the same seed makes the same choices");
/// ```
pub struct Gen {
    rng: ChaCha8Rng,
    /// How deep the value being made is nested in constructor calls (see `construct`).
    pub(crate) depth: u32,
}

impl Gen {
    /// A generator whose choices are fixed by `seed`.
    pub fn from_seed(seed: u64) -> Self {
        Gen {
            rng: ChaCha8Rng::seed_from_u64(seed),
            depth: 0,
        }
    }

    /// A number in `0..n` (`0` when `n` is `0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.rng.gen_range(0..n)
        }
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u32, den: u32) -> bool {
        self.rng.gen_ratio(num.min(den), den.max(1))
    }

    /// One element of a non-empty slice.
    ///
    /// # Panics
    /// If `items` is empty.
    pub fn pick<'a, X>(&mut self, items: &'a [X]) -> &'a X {
        assert!(!items.is_empty(), "Gen::pick on an empty slice");
        &items[self.below(items.len())]
    }

    /// 64 random bits.
    pub fn u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// A value of any [`Generate`] type.
    pub fn make<T: Generate>(&mut self) -> T {
        T::generate(self)
    }
}

/// A type the generator can make arguments of, and write back as Rust code.
///
/// Implemented for integers, floats, `bool`, `char`, `String`, `Option`, `Vec`, `Box`, `Arc`,
/// tuples, arrays and `Duration`. Implement it for your own argument types; types with their
/// own `#[thread_safe]` impl need nothing, they are built through their constructors.
///
/// ```
/// use threadsafe_rt::{Gen, Generate};
///
/// #[derive(Debug, PartialEq)]
/// pub struct UserId(u32);
///
/// impl Generate for UserId {
///     fn generate(g: &mut Gen) -> Self {
///         UserId(*g.pick(&[1, 2, 3]))
///     }
///     fn to_code(&self) -> String {
///         format!("UserId({})", self.0)
///     }
/// }
///
/// let id = UserId::generate(&mut Gen::from_seed(1));
/// assert!(matches!(id.0, 1..=3));
/// assert_eq!(UserId(2).to_code(), "UserId(2)");
/// ```
pub trait Generate: Sized + 'static {
    /// Makes a value from the generator's choices (the same choices give the same value).
    fn generate(g: &mut Gen) -> Self;

    /// Rust code that evaluates to this value, for the reproducer.
    fn to_code(&self) -> String;

    /// Code for a reference to the value's deref target, where the parameter is `&str` for a
    /// `String` or `&[T]` for a `Vec<T>`. The default borrows [`to_code`](Self::to_code).
    fn to_code_deref(&self) -> String {
        format!("&{}", self.to_code())
    }
}

macro_rules! signed {
    ($($t:ident)*) => {$(
        impl Generate for $t {
            fn generate(g: &mut Gen) -> Self {
                if g.chance(1, 16) {
                    *g.pick(&[$t::MIN, $t::MAX])
                } else {
                    *g.pick(&[-100, -3, -2, -1, 0, 1, 2, 3, 100])
                }
            }
            fn to_code(&self) -> String {
                match *self {
                    $t::MIN => concat!(stringify!($t), "::MIN").to_string(),
                    $t::MAX => concat!(stringify!($t), "::MAX").to_string(),
                    v => format!(concat!("{}", stringify!($t)), v),
                }
            }
        }
    )*};
}
signed!(i8 i16 i32 i64 i128 isize);

macro_rules! unsigned {
    ($($t:ident)*) => {$(
        impl Generate for $t {
            fn generate(g: &mut Gen) -> Self {
                if g.chance(1, 16) {
                    $t::MAX
                } else {
                    *g.pick(&[0, 1, 2, 3, 100])
                }
            }
            fn to_code(&self) -> String {
                match *self {
                    $t::MAX => concat!(stringify!($t), "::MAX").to_string(),
                    v => format!(concat!("{}", stringify!($t)), v),
                }
            }
        }
    )*};
}
unsigned!(u8 u16 u32 u64 u128 usize);

macro_rules! float {
    ($($t:ident)*) => {$(
        impl Generate for $t {
            fn generate(g: &mut Gen) -> Self {
                if g.chance(1, 16) {
                    *g.pick(&[$t::NAN, $t::INFINITY, $t::MAX])
                } else {
                    *g.pick(&[0.0, 1.0, -1.0, 0.5, 100.0])
                }
            }
            fn to_code(&self) -> String {
                let v = *self;
                if v.is_nan() {
                    concat!(stringify!($t), "::NAN").to_string()
                } else if v == $t::INFINITY {
                    concat!(stringify!($t), "::INFINITY").to_string()
                } else if v == $t::MAX {
                    concat!(stringify!($t), "::MAX").to_string()
                } else {
                    format!(concat!("{:?}", stringify!($t)), v)
                }
            }
        }
    )*};
}
float!(f32 f64);

impl Generate for bool {
    fn generate(g: &mut Gen) -> Self {
        g.chance(1, 2)
    }
    fn to_code(&self) -> String {
        self.to_string()
    }
}

impl Generate for char {
    fn generate(g: &mut Gen) -> Self {
        *g.pick(&['a', 'b', 'z', '0', ' ', 'é', '\0'])
    }
    fn to_code(&self) -> String {
        format!("{self:?}")
    }
}

impl Generate for String {
    fn generate(g: &mut Gen) -> Self {
        g.pick(&["", "a", "b", "ab", "abc", "hello world", "é"])
            .to_string()
    }
    fn to_code(&self) -> String {
        format!("String::from({self:?})")
    }
    fn to_code_deref(&self) -> String {
        format!("{self:?}")
    }
}

impl Generate for () {
    fn generate(_: &mut Gen) -> Self {}
    fn to_code(&self) -> String {
        "()".to_string()
    }
}

impl Generate for Duration {
    fn generate(g: &mut Gen) -> Self {
        Duration::from_millis(*g.pick(&[0, 1, 10]))
    }
    fn to_code(&self) -> String {
        format!("std::time::Duration::from_millis({})", self.as_millis())
    }
}

impl<T: Generate> Generate for Option<T> {
    fn generate(g: &mut Gen) -> Self {
        if g.chance(1, 4) {
            None
        } else {
            Some(T::generate(g))
        }
    }
    fn to_code(&self) -> String {
        match self {
            None => "None".to_string(),
            Some(v) => format!("Some({})", v.to_code()),
        }
    }
}

impl<T: Generate> Generate for Vec<T> {
    fn generate(g: &mut Gen) -> Self {
        let n = g.below(4);
        (0..n).map(|_| T::generate(g)).collect()
    }
    fn to_code(&self) -> String {
        if self.is_empty() {
            "Vec::new()".to_string()
        } else {
            format!("vec![{}]", join(self.iter().map(T::to_code)))
        }
    }
    fn to_code_deref(&self) -> String {
        format!("&[{}]", join(self.iter().map(T::to_code)))
    }
}

impl<T: Generate> Generate for Box<T> {
    fn generate(g: &mut Gen) -> Self {
        Box::new(T::generate(g))
    }
    fn to_code(&self) -> String {
        format!("Box::new({})", (**self).to_code())
    }
}

impl<T: Generate> Generate for Arc<T> {
    fn generate(g: &mut Gen) -> Self {
        Arc::new(T::generate(g))
    }
    fn to_code(&self) -> String {
        format!("std::sync::Arc::new({})", (**self).to_code())
    }
}

impl<T: Generate, const N: usize> Generate for [T; N] {
    fn generate(g: &mut Gen) -> Self {
        std::array::from_fn(|_| T::generate(g))
    }
    fn to_code(&self) -> String {
        format!("[{}]", join(self.iter().map(T::to_code)))
    }
}

macro_rules! tuple {
    ($(($($n:tt $t:ident),+))*) => {$(
        impl<$($t: Generate),+> Generate for ($($t,)+) {
            fn generate(g: &mut Gen) -> Self {
                ($($t::generate(g),)+)
            }
            fn to_code(&self) -> String {
                let parts = [$(self.$n.to_code()),+];
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
        }
    )*};
}
tuple! {
    (0 A)
    (0 A, 1 B)
    (0 A, 1 B, 2 C)
    (0 A, 1 B, 2 C, 3 D)
}

fn join(parts: impl Iterator<Item = String>) -> String {
    parts.collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_value_and_code() {
        for seed in 0..50 {
            let a: Vec<(i32, String)> = Gen::from_seed(seed).make();
            let b: Vec<(i32, String)> = Gen::from_seed(seed).make();
            assert_eq!(a, b);
            assert_eq!(a.to_code(), b.to_code());
        }
    }

    #[test]
    fn code_is_rust_for_edge_values() {
        assert_eq!(i32::MIN.to_code(), "i32::MIN");
        assert_eq!((-3i64).to_code(), "-3i64");
        assert_eq!(u8::MAX.to_code(), "u8::MAX");
        assert_eq!(f64::NAN.to_code(), "f64::NAN");
        assert_eq!(0.5f32.to_code(), "0.5f32");
        assert_eq!(String::from("a\"b").to_code(), "String::from(\"a\\\"b\")");
        assert_eq!(String::from("ab").to_code_deref(), "\"ab\"");
        assert_eq!(vec![1u8, 2].to_code_deref(), "&[1u8, 2u8]");
        assert_eq!(Vec::<u8>::new().to_code(), "Vec::new()");
        assert_eq!((1u8,).to_code(), "(1u8,)");
        assert_eq!(Some('x').to_code(), "Some('x')");
        assert_eq!([true, false].to_code(), "[true, false]");
    }

    #[test]
    fn pools_collide_often() {
        let mut g = Gen::from_seed(3);
        let keys: std::collections::HashSet<String> = (0..200).map(|_| g.make()).collect();
        assert!(keys.len() <= 7, "string pool is small: {keys:?}");
        assert!(keys.contains(""), "the empty string is an edge value");
    }
}
