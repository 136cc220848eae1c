//! The process-wide lock that checks and gated tests take, so that they never run at the
//! same time: gates would stop a check's threads, and two checks compete for the cores
//! (which hides races and stretches every hand-off).

use std::sync::{Mutex, MutexGuard};

use crate::lock::lock;

static CHECKS: Mutex<()> = Mutex::new(());

/// Holds the process-wide lock until the guard is dropped.
pub(crate) fn one_at_a_time() -> MutexGuard<'static, ()> {
    lock(&CHECKS)
}
