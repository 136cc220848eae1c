//! CPU-bound tests, the kind a crate's own test suite holds beside a `#[thread_safe]` type:
//! each counts primes by trial division and checks the count. They are ignored by default
//! (they prove nothing about threadsafe); the time-to-bug harness runs them as the busy
//! neighbour of its `--beside` comparison:
//!
//! ```sh
//! cargo test --release -p threadsafe-corpus --test cpu_bound_neighbour -- --ignored
//! ```
//!
//! libtest runs them on as many threads as the machine has cores, as a plain `cargo test`
//! of a crate does.

/// The primes below `n`, by trial division: deliberately slow, all CPU, no memory traffic.
fn primes_below(n: u64) -> usize {
    (2..n)
        .filter(|&k| (2..).take_while(|d| d * d <= k).all(|d| k % d != 0))
        .count()
}

macro_rules! cpu_bound {
    ($($name:ident),* $(,)?) => {$(
        #[test]
        #[ignore = "a CPU-bound neighbour for `time_to_bug --beside`, not a check of threadsafe"]
        fn $name() {
            assert_eq!(primes_below(3_000_000), 216_816);
        }
    )*};
}

cpu_bound!(primes_a, primes_b, primes_c, primes_d, primes_e, primes_f, primes_g, primes_h);

#[test]
fn the_count_is_right_on_a_small_range() {
    assert_eq!(primes_below(100), 25);
    assert_eq!(primes_below(2), 0);
}
