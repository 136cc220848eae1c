//! A correct type that deadlocks sequentially: the oracle must not blame a hang that a
//! sequential order of the same calls also produces.

use std::sync::Mutex;

use threadsafe_corpus::contege::std_locks::lock_in_address_order;
use threadsafe_rt::thread_safe;

/// A bank account. Operations on two accounts lock both in address order, so two threads
/// moving money in opposite directions cannot deadlock. But they lock both even when the two
/// are one account, and a std `Mutex` is not reentrant: `a.merge(&a)` and `a.transfer(&a, 1)`
/// never return, on one thread as on many (documented precondition: two distinct accounts).
/// `sweep_into` returns early on an empty account, so `a.sweep_into(&a)` hangs only once `a`
/// has money: racing `a.deposit(5)`, it hangs exactly when the deposit comes first, as in the
/// sequential order deposit-then-sweep. Withdrawing more than the balance panics.
#[derive(Default)]
pub struct Account {
    balance: Mutex<u64>,
}

#[thread_safe(budget = "3s")]
impl Account {
    /// An empty account.
    pub fn new() -> Self {
        Account::default()
    }

    /// An account holding `amount`.
    pub fn with_balance(amount: u32) -> Self {
        Account {
            balance: Mutex::new(u64::from(amount)),
        }
    }

    /// The balance.
    pub fn balance(&self) -> u64 {
        *self.balance.lock().unwrap()
    }

    /// Adds `amount`; returns the new balance.
    pub fn deposit(&self, amount: u32) -> u64 {
        let mut balance = self.balance.lock().unwrap();
        *balance += u64::from(amount);
        *balance
    }

    /// Takes `amount` out; returns the new balance.
    ///
    /// # Panics
    /// If the balance is less than `amount`.
    pub fn withdraw(&self, amount: u32) -> u64 {
        let mut balance = self.balance.lock().unwrap();
        *balance = balance
            .checked_sub(u64::from(amount))
            .expect("insufficient funds");
        *balance
    }

    /// Moves `amount` to `to` if this account holds it; returns whether it did. `to` must be
    /// another account: `a.transfer(&a, n)` never returns.
    pub fn transfer(&self, to: &Account, amount: u32) -> bool {
        let (mut from, mut to) = lock_in_address_order(&self.balance, &to.balance);
        match from.checked_sub(u64::from(amount)) {
            Some(left) => {
                *from = left;
                *to += u64::from(amount);
                true
            }
            None => false,
        }
    }

    /// Moves the whole balance of `other` here; returns the amount moved. `other` must be
    /// another account: `a.merge(&a)` never returns.
    pub fn merge(&self, other: &Account) -> u64 {
        let (mut mine, mut theirs) = lock_in_address_order(&self.balance, &other.balance);
        let moved = std::mem::take(&mut *theirs);
        *mine += moved;
        moved
    }

    /// Moves the whole balance of this account to `to`; returns the amount moved. Returns 0
    /// at once when the account is empty; otherwise `to` must be another account.
    pub fn sweep_into(&self, to: &Account) -> u64 {
        if self.balance() == 0 {
            return 0;
        }
        let (mut mine, mut theirs) = lock_in_address_order(&self.balance, &to.balance);
        let moved = std::mem::take(&mut *mine);
        *theirs += moved;
        moved
    }
}
