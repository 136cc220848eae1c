//! Start offsets of free-running threads: how long a thread waits after the start of an
//! execution before its first call; and how long the noise at statement points may stall
//! a thread ([`noise_window`]), and how many times in one execution ([`noise_stalls`]).
//!
//! Threads released together start their calls at nearly the same moment, and a race
//! window that needs one thread a little ahead of the other is never hit. So half the
//! executions start aligned, and in the other half one thread, drawn from the seed, waits
//! a number of pauses drawn log-uniformly up to the *window*: about as long as the test's
//! calls take when run one after the other. A longer wait would only make the calls miss
//! each other, and would cost every execution its length (a `spin_loop` pause is some
//! tens of nanoseconds; fixed waits of thousands of pauses once made an execution of two
//! cheap calls cost many rounds of a hand-written stress loop of them: see decision 0004).

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The longest wait, in pauses, whatever the calls take.
const MAX_WINDOW: u32 = 1 << 14;

/// Nanoseconds one `spin_loop` pause takes on this machine (measured once).
fn pause_nanos() -> u64 {
    static NANOS: OnceLock<u64> = OnceLock::new();
    *NANOS.get_or_init(|| {
        const PAUSES: u32 = 20_000;
        let start = Instant::now();
        for _ in 0..PAUSES {
            std::hint::spin_loop();
        }
        (start.elapsed().as_nanos() / u128::from(PAUSES)).clamp(1, 1_000) as u64
    })
}

/// The window of a test whose calls, one after the other, took `seq_time`: that time in
/// pauses (at least 1, at most `MAX_WINDOW`).
pub(super) fn window(seq_time: Duration) -> u32 {
    let pauses = seq_time.as_nanos() / u128::from(pause_nanos());
    u32::try_from(pauses)
        .unwrap_or(MAX_WINDOW)
        .clamp(1, MAX_WINDOW)
}

/// Statement points up to which the noise's stalls may each be as long as the window: about
/// the number of points of a test of a few calls.
const NOISE_POINTS: u64 = 32;

/// The longest stall of the noise at one statement point (`hooks.rs`) in a test whose calls,
/// one after the other, took `seq_time` and reached `points` scheduling points: the
/// [`window`] for tests of up to `NOISE_POINTS` points, and a share of it, in proportion,
/// for tests of more (at least one pause).
///
/// About one point in eight stalls, for up to the stall's bound (log-uniform), so the noise
/// of one execution adds up to about `points / 8` times a stall. Bounded by the window
/// alone, a test of many points (a vector grown to tens of thousands of elements, a point
/// per element) spent nearly all its time in the noise, its free-running executions far
/// longer than its sequential run (see decision 0072). Stalls as long as the calls take are
/// there to let a peer run a whole call inside a race window; a test of many points has many
/// windows, and shorter stalls in each do that as well.
pub(super) fn noise_window(seq_time: Duration, points: u64) -> u32 {
    let w = u64::from(window(seq_time));
    let scaled = w * NOISE_POINTS / points.max(NOISE_POINTS);
    u32::try_from(scaled).unwrap_or(MAX_WINDOW).max(1)
}

/// The most stalls (spins and yields) the noise makes on one thread in one execution of a
/// test whose sequential run reached `points` scheduling points: half that many (at least
/// half of `NOISE_POINTS`), some three times the one point in six that stalls on average.
///
/// A concurrent run can reach far more points than the sequential one that sized the
/// window: a test of a vector's `elements()` beside `set_size(capacity())` enumerates nothing
/// when its calls run one after the other, and beside it the vector grows to its capacity,
/// tens of thousands of elements, with points in each. Unbounded, the noise of those points
/// made one such test's batches take a large part of a check's budget (see decision 0075).
pub(super) fn noise_stalls(points: u64) -> u32 {
    u32::try_from(points.max(NOISE_POINTS) / 2).unwrap_or(u32::MAX)
}

/// How many pauses thread `t` of `n` waits before its calls in execution `e` of the batch
/// seeded with `seed`, with waits up to `window` pauses.
pub(super) fn start_delay(seed: u64, e: usize, t: usize, n: usize, window: u32) -> u32 {
    let mut z = seed ^ (e as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 31)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    z ^= z >> 32;
    if z & 1 == 0 || (z >> 1) as usize % n.max(1) != t {
        return 0;
    }
    // Log-uniform: 2^k for k up to log2(window), then a uniform part below it.
    let bits = 32 - window.leading_zeros();
    let k = ((z >> 16) % u64::from(bits)) as u32;
    let base = 1u32 << k;
    (base + ((z >> 40) as u32 & (base - 1))).min(window)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_the_executions_start_aligned_and_one_thread_waits_in_the_others() {
        let (n, window) = (2, 64);
        let mut aligned = 0;
        for e in 0..10_000 {
            let d: Vec<u32> = (0..n).map(|t| start_delay(7, e, t, n, window)).collect();
            assert!(d.iter().filter(|&&d| d > 0).count() <= 1, "{d:?}");
            assert!(d.iter().all(|&d| d <= window), "{d:?}");
            aligned += usize::from(d.iter().all(|&d| d == 0));
        }
        assert!((4_000..6_000).contains(&aligned), "{aligned}");
    }

    #[test]
    fn waits_spread_over_the_window_small_ones_most() {
        let window = 1024;
        let delays: Vec<u32> = (0..20_000)
            .flat_map(|e| (0..2).map(move |t| start_delay(3, e, t, 2, window)))
            .filter(|&d| d > 0)
            .collect();
        let small = delays.iter().filter(|&&d| d < 32).count();
        let large = delays.iter().filter(|&&d| d >= 512).count();
        assert!(small > large, "{small} {large}");
        assert!(large > 0 && delays.iter().all(|&d| d <= window));
    }

    #[test]
    fn the_noise_window_is_the_window_for_a_few_points_and_shrinks_with_many() {
        let seq = Duration::from_millis(2);
        assert_eq!(noise_window(seq, 0), window(seq));
        assert_eq!(noise_window(seq, NOISE_POINTS), window(seq));
        let many = noise_window(seq, 100 * NOISE_POINTS);
        assert!(many >= 1 && many <= window(seq) / 50, "{many}");
        assert_eq!(noise_window(seq, u64::MAX), 1);
        assert_eq!(noise_window(Duration::ZERO, 1_000_000), 1);
    }

    #[test]
    fn the_noise_stalls_half_the_points_at_most_and_a_few_points_some() {
        assert_eq!(noise_stalls(0), 16);
        assert_eq!(noise_stalls(NOISE_POINTS), 16);
        assert_eq!(noise_stalls(1_000), 500);
        assert_eq!(noise_stalls(u64::MAX), u32::MAX);
    }

    #[test]
    fn the_window_is_the_calls_time_in_pauses_within_bounds() {
        assert_eq!(window(Duration::ZERO), 1);
        assert_eq!(window(Duration::from_secs(1)), MAX_WINDOW);
        let w = window(Duration::from_micros(10));
        assert!((1..=MAX_WINDOW).contains(&w));
    }
}
