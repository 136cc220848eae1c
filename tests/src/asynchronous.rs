//! Correct async types whose results legitimately vary with the order of the calls: which
//! caller's value a `OnceCell` keeps, which message a receiver gets first, and one whose
//! `recv` waits for a `send` that may come from the other thread. Nothing may be reported on
//! them. Their generated tests run in this crate's unit tests; `tests/async_methods.rs` runs
//! them over more seeds.

use tokio::sync::{mpsc, Mutex, Notify, OnceCell};

use threadsafe_rt::thread_safe;

/// The first caller's value, kept for good: which caller is first varies.
pub struct Claim {
    owner: OnceCell<u8>,
}

#[thread_safe]
impl Claim {
    /// Nobody has claimed it yet.
    pub fn new() -> Self {
        Claim {
            owner: OnceCell::new(),
        }
    }

    /// Claims it for `who`, unless somebody did first; returns the owner.
    pub async fn claim(&self, who: u8) -> u8 {
        *self.owner.get_or_init(|| async move { who }).await
    }

    /// The owner, if claimed.
    pub fn owner(&self) -> Option<u8> {
        self.owner.get().copied()
    }
}

impl Default for Claim {
    fn default() -> Self {
        Claim::new()
    }
}

/// A channel of messages: `recv` waits for one, so a `recv` with no `send` before it on
/// any thread waits forever, in every order (not a bug of the type).
pub struct Mailbox {
    tx: mpsc::UnboundedSender<u8>,
    rx: Mutex<mpsc::UnboundedReceiver<u8>>,
}

#[thread_safe]
impl Mailbox {
    /// An empty mailbox.
    pub fn new() -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        Mailbox {
            tx,
            rx: Mutex::new(rx),
        }
    }

    /// Posts `message`.
    pub fn send(&self, message: u8) {
        self.tx
            .send(message)
            .expect("the receiver lives as long as the mailbox");
    }

    /// The oldest message, waiting for one if there is none.
    pub async fn recv(&self) -> u8 {
        let mut rx = self.rx.lock().await;
        rx.recv()
            .await
            .expect("the sender lives as long as the mailbox")
    }

    /// How many messages wait.
    pub async fn waiting(&self) -> usize {
        self.rx.lock().await.len()
    }
}

impl Default for Mailbox {
    fn default() -> Self {
        Mailbox::new()
    }
}

/// A ledger whose transfer is not cancel-safe (the debit and the credit around an audit
/// call, under one lock), and says so: `#[thread_safe(not_cancel_safe)]` keeps the check
/// from cancelling it. Under the lock, no other call sees the money in flight, so nothing
/// may be reported.
pub struct Escrow {
    accounts: Mutex<(u32, u32)>,
}

#[thread_safe(test = false)]
impl Escrow {
    /// Two accounts of 100 each.
    pub fn new() -> Self {
        Escrow {
            accounts: Mutex::new((100, 100)),
        }
    }

    /// Moves `amount` from `a` to `b`; false if `a` has less. Not cancel-safe: cancelled
    /// at the audit, the money is gone.
    #[thread_safe(not_cancel_safe)]
    pub async fn transfer(&self, amount: u8) -> bool {
        let amount = u32::from(amount);
        let mut accounts = self.accounts.lock().await;
        if accounts.0 < amount {
            return false;
        }
        accounts.0 -= amount;
        audit().await;
        accounts.1 += amount;
        true
    }

    /// The money in both accounts.
    pub async fn total(&self) -> u32 {
        let accounts = self.accounts.lock().await;
        accounts.0 + accounts.1
    }
}

impl Default for Escrow {
    fn default() -> Self {
        Escrow::new()
    }
}

/// An audit call: `Pending` once, waking itself, as any I/O may be.
async fn audit() {
    let mut polled = false;
    std::future::poll_fn(|cx| {
        if std::mem::replace(&mut polled, true) {
            std::task::Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await;
}

/// A beacon: a flash wakes the waiters waiting now (`notify_waiters`), and nobody who comes
/// later. A `wait` returns only when a flash comes while it waits: every order run one call
/// after the other waits for good, and only with blocking semantics (the `wait` waiting
/// while the other thread's flash goes on) does an order give the results an execution
/// gives. Nothing may be reported.
pub struct Beacon {
    light: Notify,
}

#[thread_safe(test = false)]
impl Beacon {
    /// Dark.
    pub fn new() -> Self {
        Beacon {
            light: Notify::new(),
        }
    }

    /// Waits for the next flash.
    pub async fn wait(&self) {
        self.light.notified().await;
    }

    /// Wakes every waiter waiting now.
    pub fn flash(&self) {
        self.light.notify_waiters();
    }
}

impl Default for Beacon {
    fn default() -> Self {
        Beacon::new()
    }
}
