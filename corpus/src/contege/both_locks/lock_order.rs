//! Locking two mutexes in one global order, for the mutexes of the including module's `sync`.

use super::sync::{Mutex, MutexGuard};

/// Locks two mutexes, the one at the lower address first, and returns the guards in argument
/// order: every thread takes any two of them in the same global order, so none waits for a
/// lock held by a thread that waits for one of its own.
///
/// `a` and `b` must be different mutexes: a mutex locked twice by one thread never returns.
/// Callers check for the same instance first, or document it as a precondition.
pub fn lock_in_address_order<'a, T>(
    a: &'a Mutex<T>,
    b: &'a Mutex<T>,
) -> (MutexGuard<'a, T>, MutexGuard<'a, T>) {
    if std::ptr::from_ref(a) < std::ptr::from_ref(b) {
        let first = a.lock().unwrap();
        (first, b.lock().unwrap())
    } else {
        let first = b.lock().unwrap();
        (a.lock().unwrap(), first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_in_address_order_returns_guards_in_argument_order() {
        let (a, b) = (Mutex::new(1), Mutex::new(2));
        let (ga, gb) = lock_in_address_order(&a, &b);
        assert_eq!((*ga, *gb), (1, 2));
        drop((ga, gb));
        let (gb, ga) = lock_in_address_order(&b, &a);
        assert_eq!((*ga, *gb), (1, 2));
    }
}
