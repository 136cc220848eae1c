//! `ratelimit` 0.7.0 → 0.8.0 (panic; a wrong result in release builds): two threads taking
//! the one new token, one of them after the other took it.
//!
//! - Crate: [`ratelimit`](https://crates.io/crates/ratelimit), `Ratelimiter`, a token bucket
//!   shared between threads (`try_wait` is `&self`).
//! - Buggy: `=0.7.0`. Fixed: 0.7.1; the twin uses `=0.8.0` (two semver-compatible versions of
//!   one crate cannot sit in one build).
//! - Upstream: <https://github.com/pelikan-io/rustcommon/issues/72> ("attempt to subtract
//!   with overflow" in `try_wait`, hit from rayon), fixed by
//!   <https://github.com/pelikan-io/rustcommon/pull/73>.
//! - The race: `try_wait` refills the bucket (adding the token that fell due), then loads the
//!   number of tokens available, and takes a refill that succeeded as the promise of a
//!   token: when another thread took the new token in between, it computes `0 - 1`. 0.8.0
//!   refills again in that case, and fails when nothing is due.
//! - Symptom: with overflow checks (a debug build, what `cargo test` runs) a panic, "attempt
//!   to subtract with overflow", at `ratelimit-0.7.0/src/lib.rs`; without them the count
//!   wraps and both threads get a token (leaving `u64::MAX` available), a result no
//!   sequential order gives.
//!
//! The limiters are built with one token falling due at once and the next an hour later, so
//! each instance hands out exactly one token whatever the order of the calls. Racing pair for
//! the hand loop: `try_acquire() ‖ try_acquire()`, then `available() == 0`.

use std::time::Duration;

use ratelimit_0_7 as buggy;
use ratelimit_0_8 as fixed;
use threadsafe_rt::thread_safe;

use crate::{naive, BugKind, Subject};

/// The time between two refills: longer than any check, so each instance has one.
const HOUR: Duration = Duration::from_secs(3600);

/// A limiter of outgoing requests over `ratelimit` 0.7.0: one request may go now, the next
/// in an hour.
pub struct Throttle {
    limiter: buggy::Ratelimiter,
}

#[thread_safe(test = false, statement_points = "always")]
impl Throttle {
    /// One token due at once (the first refill, a nanosecond after building), the next an
    /// hour later.
    pub fn new() -> Self {
        let limiter = buggy::Ratelimiter::builder(1, Duration::from_nanos(1))
            .max_tokens(1)
            .build()
            .expect("valid limiter");
        limiter.set_refill_interval(HOUR).expect("an hour fits");
        Throttle { limiter }
    }

    /// Whether a request may go now (taking its token).
    pub fn try_acquire(&self) -> bool {
        self.limiter.try_wait().is_ok()
    }
}

impl Throttle {
    /// Tokens available now. Left out of the checked methods: a refill and a take are two
    /// steps even in the fixed version, so a thread can see the token that another thread's
    /// `try_wait` added and is about to take, which no sequential order shows.
    pub fn available(&self) -> u64 {
        self.limiter.available()
    }
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle::new()
    }
}

/// The twin: the same type over `ratelimit` 0.8.0.
pub struct FixedThrottle {
    limiter: fixed::Ratelimiter,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedThrottle {
    /// One token due at once (the first refill, a nanosecond after building), the next an
    /// hour later.
    pub fn new() -> Self {
        let limiter = fixed::Ratelimiter::builder(1, Duration::from_nanos(1))
            .max_tokens(1)
            .build()
            .expect("valid limiter");
        limiter.set_refill_interval(HOUR).expect("an hour fits");
        FixedThrottle { limiter }
    }

    /// Whether a request may go now (taking its token).
    pub fn try_acquire(&self) -> bool {
        self.limiter.try_wait().is_ok()
    }
}

impl FixedThrottle {
    /// Tokens available now. Left out of the checked methods: a refill and a take are two
    /// steps even in the fixed version, so a thread can see the token that another thread's
    /// `try_wait` added and is about to take, which no sequential order shows.
    pub fn available(&self) -> u64 {
        self.limiter.available()
    }
}

impl Default for FixedThrottle {
    fn default() -> Self {
        FixedThrottle::new()
    }
}

/// The subject, as `id`: a check-then-act split in two (refill, then take). Its find is a
/// panic located in the crate's source, or in a release build the wrong result instead
/// (every wrong result counts under results compared).
pub fn subject(id: &'static str) -> Subject {
    Subject {
        id,
        name: "ratelimit_token",
        original: "ratelimit 0.7.0 Ratelimiter::try_wait (pelikan-io/rustcommon#72), fixed 0.7.1; twin 0.8.0",
        bug: BugKind::Atomicity,
        file: "ratelimit-0.7.0/src/lib.rs",
        check_buggy: threadsafe_rt::check::<Throttle>,
        check_twin: threadsafe_rt::check::<FixedThrottle>,
        naive: |budget| {
            naive::hand_loop(
                budget,
                Throttle::new,
                |t| {
                    t.try_acquire();
                },
                |t| {
                    t.try_acquire();
                },
                |t| t.available() == 0,
            )
        },
    }
}
