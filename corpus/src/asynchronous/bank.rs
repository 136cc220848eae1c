//! A bank whose transfer debits one account, awaits a remote call, then credits the other:
//! a `total` in between sees the money in flight, which no sequential order shows.

use threadsafe_rt::thread_safe;
use tokio::sync::Mutex;

use super::remote;

/// The buggy type's file, for the harness.
pub const FILE: &str = file!();

/// Two accounts of 100 each.
pub struct Bank {
    a: Mutex<u32>,
    b: Mutex<u32>,
}

#[thread_safe(test = false, statement_points = "always")]
impl Bank {
    /// Two accounts of 100 each.
    pub fn new() -> Self {
        Bank {
            a: Mutex::new(100),
            b: Mutex::new(100),
        }
    }

    /// Moves `amount` from `a` to `b` (or from `b` to `a`); false if the source has less.
    pub async fn transfer(&self, a_to_b: bool, amount: u8) -> bool {
        let (from, to) = if a_to_b {
            (&self.a, &self.b)
        } else {
            (&self.b, &self.a)
        };
        let amount = u32::from(amount);
        {
            let mut from = from.lock().await;
            if *from < amount {
                return false;
            }
            *from -= amount;
        }
        remote().await;
        *to.lock().await += amount;
        true
    }

    /// The money in both accounts.
    pub async fn total(&self) -> u32 {
        let a = *self.a.lock().await;
        let b = *self.b.lock().await;
        a + b
    }
}

/// The correct twin: both accounts under one lock, held across the remote call.
pub struct FixedBank {
    accounts: Mutex<(u32, u32)>,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedBank {
    /// Two accounts of 100 each.
    pub fn new() -> Self {
        FixedBank {
            accounts: Mutex::new((100, 100)),
        }
    }

    /// Moves `amount` from `a` to `b` (or from `b` to `a`); false if the source has less.
    pub async fn transfer(&self, a_to_b: bool, amount: u8) -> bool {
        let amount = u32::from(amount);
        let mut accounts = self.accounts.lock().await;
        let (from, to) = if a_to_b {
            (accounts.0, accounts.1)
        } else {
            (accounts.1, accounts.0)
        };
        if from < amount {
            return false;
        }
        remote().await;
        let (from, to) = (from - amount, to + amount);
        *accounts = if a_to_b { (from, to) } else { (to, from) };
        true
    }

    /// The money in both accounts.
    pub async fn total(&self) -> u32 {
        let accounts = self.accounts.lock().await;
        accounts.0 + accounts.1
    }
}
