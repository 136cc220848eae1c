//! Correct async types whose results legitimately vary with the order of the calls: which
//! caller's value a `OnceCell` keeps, which message a receiver gets first, and one whose
//! `recv` waits for a `send` that may come from the other thread. Nothing may be reported on
//! them. Their generated tests run in this crate's unit tests; `tests/async_methods.rs` runs
//! them over more seeds.

use tokio::sync::{mpsc, Mutex, OnceCell};

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
