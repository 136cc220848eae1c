//! The counterpart of `std::thread::yield_now` that the controlled scheduler can see.
//!
//! Switch the import as for [`crate::sync`]:
//!
//! ```
//! #[cfg(test)]
//! use threadsafe_rt::thread::yield_now;
//! #[cfg(not(test))]
//! use std::thread::yield_now;
//!
//! yield_now();
//! ```

use std::panic::Location;

use crate::hooks;
use crate::point::{PointKind, Where};

/// Gives other threads a chance to run: [`std::thread::yield_now`], visible to the
/// controlled scheduler.
///
/// Outside a controlled run, std's `yield_now`. Inside one, a scheduling point where the
/// strategy may hand the turn to another thread, which makes a spin loop
/// (`while !ready.load(..) { yield_now() }`) explorable instead of a hang.
///
/// ```
/// use threadsafe_rt::sync::atomic::{AtomicBool, Ordering};
/// use threadsafe_rt::sync::Arc;
/// use threadsafe_rt::thread::yield_now;
///
/// let ready = Arc::new(AtomicBool::new(false));
/// let r = Arc::clone(&ready);
/// let t = std::thread::spawn(move || r.store(true, Ordering::Release));
/// while !ready.load(Ordering::Acquire) {
///     yield_now();
/// }
/// t.join().unwrap();
/// ```
#[track_caller]
pub fn yield_now() {
    if hooks::shim_controlled(PointKind::Yield) {
        hooks::point(PointKind::Yield, 0, None, Where::Code(Location::caller()));
    } else {
        std::thread::yield_now();
    }
}
