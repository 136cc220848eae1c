//! A bank whose `transfer` reads both balances in one lock section and writes them in a
//! second: two concurrent transfers can each write balances computed from the same old
//! ones, and money is created or destroyed. Nothing panics; a post-part `total()` shows a
//! sum that no sequential order of the same transfers gives (the example of the issue that
//! asked for the results oracle, on a `parking_lot::Mutex<HashMap<..>>`).

use std::collections::HashMap;

use parking_lot::Mutex;
use threadsafe_rt::thread_safe;

/// Accounts numbered `0..n`, each opened with 100.
pub struct Bank {
    balances: Mutex<HashMap<u8, i64>>,
}

#[thread_safe(test = false, statement_points = "always")]
impl Bank {
    /// A bank with accounts `0`, `1` and `2`.
    pub fn new() -> Self {
        Bank::with_accounts(3)
    }

    /// A bank with accounts `0..n` (at least 2).
    pub fn with_accounts(n: u8) -> Self {
        Bank {
            balances: Mutex::new((0..n.clamp(2, 8)).map(|a| (a, 100)).collect()),
        }
    }

    /// Moves `amount` from `from` to `to`; false if either account does not exist or they
    /// are the same.
    pub fn transfer(&self, from: u8, to: u8, amount: u8) -> bool {
        if from == to {
            return false;
        }
        let read = {
            let b = self.balances.lock();
            b.get(&from).copied().zip(b.get(&to).copied())
        };
        let Some((f, t)) = read else {
            return false;
        };
        let mut b = self.balances.lock();
        b.insert(from, f - i64::from(amount));
        b.insert(to, t + i64::from(amount));
        true
    }

    /// Adds `amount` to `account`; its new balance (`None` if there is no such account).
    pub fn deposit(&self, account: u8, amount: u8) -> Option<i64> {
        let mut b = self.balances.lock();
        let balance = b.get_mut(&account)?;
        *balance += i64::from(amount);
        Some(*balance)
    }

    /// The balance of `account`.
    pub fn balance(&self, account: u8) -> Option<i64> {
        self.balances.lock().get(&account).copied()
    }

    /// The sum of all balances.
    pub fn total(&self) -> i64 {
        self.balances.lock().values().sum()
    }
}

/// The correct twin: `transfer` reads and writes in one lock section.
pub struct FixedBank {
    balances: Mutex<HashMap<u8, i64>>,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedBank {
    /// A bank with accounts `0`, `1` and `2`.
    pub fn new() -> Self {
        FixedBank::with_accounts(3)
    }

    /// A bank with accounts `0..n` (at least 2).
    pub fn with_accounts(n: u8) -> Self {
        FixedBank {
            balances: Mutex::new((0..n.clamp(2, 8)).map(|a| (a, 100)).collect()),
        }
    }

    /// Moves `amount` from `from` to `to`; false if either account does not exist or they
    /// are the same.
    pub fn transfer(&self, from: u8, to: u8, amount: u8) -> bool {
        if from == to {
            return false;
        }
        let mut b = self.balances.lock();
        let (Some(f), Some(t)) = (b.get(&from).copied(), b.get(&to).copied()) else {
            return false;
        };
        b.insert(from, f - i64::from(amount));
        b.insert(to, t + i64::from(amount));
        true
    }

    /// Adds `amount` to `account`; its new balance (`None` if there is no such account).
    pub fn deposit(&self, account: u8, amount: u8) -> Option<i64> {
        let mut b = self.balances.lock();
        let balance = b.get_mut(&account)?;
        *balance += i64::from(amount);
        Some(*balance)
    }

    /// The balance of `account`.
    pub fn balance(&self, account: u8) -> Option<i64> {
        self.balances.lock().get(&account).copied()
    }

    /// The sum of all balances.
    pub fn total(&self) -> i64 {
        self.balances.lock().values().sum()
    }
}
