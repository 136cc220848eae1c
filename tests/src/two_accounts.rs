//! A lock-order deadlock on std locks and nothing else: every test that runs `to_b` on one
//! thread and `to_a` on another may deadlock, no result is wrong and nothing panics. The
//! tests of deadlock reports and of contained reproducers check it.

use std::sync::Mutex;

use threadsafe_rt::thread_safe;

/// Two balances, each behind its own std lock. `to_b` locks `a` then `b`, `to_a` locks `b`
/// then `a`: one thread in each can hold one lock and wait forever for the other.
pub struct TwoAccounts {
    a: Mutex<i64>,
    b: Mutex<i64>,
}

impl Default for TwoAccounts {
    fn default() -> Self {
        TwoAccounts::new()
    }
}

#[thread_safe(test = false)]
impl TwoAccounts {
    /// Both balances at 100.
    pub fn new() -> Self {
        TwoAccounts {
            a: Mutex::new(100),
            b: Mutex::new(100),
        }
    }

    /// Moves `amount` from `a` to `b`.
    pub fn to_b(&self, amount: u8) {
        let mut a = self.a.lock().unwrap();
        let mut b = self.b.lock().unwrap();
        *a -= i64::from(amount);
        *b += i64::from(amount);
    }

    /// Moves `amount` from `b` to `a`, locking in the other order.
    pub fn to_a(&self, amount: u8) {
        let mut b = self.b.lock().unwrap();
        let mut a = self.a.lock().unwrap();
        *b -= i64::from(amount);
        *a += i64::from(amount);
    }
}
