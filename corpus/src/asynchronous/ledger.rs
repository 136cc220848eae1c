//! A ledger whose transfer holds its lock across an audit call, between the debit and the
//! credit: no other call sees the money in flight, but a transfer cancelled at the audit
//! (a `select!` that lost, a timeout) keeps the debit and never makes the credit. The
//! method is not cancel-safe; the money is gone in every later `total`.

use threadsafe_rt::thread_safe;
use tokio::sync::Mutex;

use super::remote;

/// The buggy type's file, for the harness.
pub const FILE: &str = file!();

/// Two accounts of 100 each.
pub struct Ledger {
    accounts: Mutex<(u32, u32)>,
}

#[thread_safe(test = false, statement_points = "always")]
impl Ledger {
    /// Two accounts of 100 each.
    pub fn new() -> Self {
        Ledger {
            accounts: Mutex::new((100, 100)),
        }
    }

    /// Moves `amount` from `a` to `b` (or from `b` to `a`); false if the source has less.
    pub async fn transfer(&self, a_to_b: bool, amount: u8) -> bool {
        let amount = u32::from(amount);
        let mut guard = self.accounts.lock().await;
        let accounts = &mut *guard;
        let (from, to) = if a_to_b {
            (&mut accounts.0, &mut accounts.1)
        } else {
            (&mut accounts.1, &mut accounts.0)
        };
        if *from < amount {
            return false;
        }
        *from -= amount;
        remote().await;
        *to += amount;
        true
    }

    /// The money in both accounts.
    pub async fn total(&self) -> u32 {
        let accounts = self.accounts.lock().await;
        accounts.0 + accounts.1
    }
}

/// The correct twin: the audit comes first, and both accounts change after the last await,
/// so a cancelled transfer changed nothing.
pub struct FixedLedger {
    accounts: Mutex<(u32, u32)>,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedLedger {
    /// Two accounts of 100 each.
    pub fn new() -> Self {
        FixedLedger {
            accounts: Mutex::new((100, 100)),
        }
    }

    /// Moves `amount` from `a` to `b` (or from `b` to `a`); false if the source has less.
    pub async fn transfer(&self, a_to_b: bool, amount: u8) -> bool {
        let amount = u32::from(amount);
        let mut guard = self.accounts.lock().await;
        remote().await;
        let accounts = &mut *guard;
        let (from, to) = if a_to_b {
            (&mut accounts.0, &mut accounts.1)
        } else {
            (&mut accounts.1, &mut accounts.0)
        };
        if *from < amount {
            return false;
        }
        *from -= amount;
        *to += amount;
        true
    }

    /// The money in both accounts.
    pub async fn total(&self) -> u32 {
        let accounts = self.accounts.lock().await;
        accounts.0 + accounts.1
    }
}
