//! Derived seeds: every random choice of a check (a round's generator, a batch's start
//! delays, an execution's schedule) comes from the check's seed through these mixes, so the
//! same seed makes the same choices.

/// Seed number `n` derived from `seed` (splitmix64 of the two).
pub(crate) fn derive(seed: u64, n: u32) -> u64 {
    let mut z = seed ^ (u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of batch number `n` (from 1) of a check whose seed is `seed`: its free-running
/// threads' start delays derive from it, and under control the schedules ([`schedule`]).
/// The batch's number is its test's in the check, which a replay token names.
pub(crate) fn batch(seed: u64, n: u64) -> u64 {
    seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The schedule seed of execution `e` of a batch whose seed is `batch`.
pub(crate) fn schedule(batch: u64, e: usize) -> u64 {
    derive(batch, e as u32 ^ 0x5eed_0000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_and_repeatable() {
        assert_ne!(derive(0, 0), derive(0, 1));
        assert_ne!(derive(0, 1), derive(1, 1));
        assert_eq!(derive(5, 3), derive(5, 3));
    }
}
