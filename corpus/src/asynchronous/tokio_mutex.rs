//! A counter over tokio 0.2.2's `sync::Mutex`, whose `lock` future, dropped while it waits,
//! leaves its place in the queue behind: the holder's unlock hands the lock to the dropped
//! waiter, and every later `lock` waits forever. No parallelism is needed, only a `lock`
//! cancelled while another call holds the mutex. tokio issue #1898, fixed in 0.2.4 by pull
//! request #1902. The twin is the same counter over tokio 1's `Mutex`.

use threadsafe_rt::thread_safe;

/// The buggy type's file, for the harness.
pub const FILE: &str = file!();

/// A count behind tokio 0.2.2's mutex.
pub struct Counter {
    count: tokio_0_2::sync::Mutex<u32>,
}

#[thread_safe(test = false, statement_points = "always")]
impl Counter {
    /// Zero.
    pub fn new() -> Self {
        Counter {
            count: tokio_0_2::sync::Mutex::new(0),
        }
    }

    /// Adds one; the count before.
    pub async fn add(&self) -> u32 {
        let mut count = self.count.lock().await;
        let before = *count;
        *count += 1;
        before
    }

    /// The count.
    pub async fn get(&self) -> u32 {
        *self.count.lock().await
    }
}

/// The correct twin: the same counter over tokio 1's `Mutex`.
pub struct FixedCounter {
    count: tokio::sync::Mutex<u32>,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedCounter {
    /// Zero.
    pub fn new() -> Self {
        FixedCounter {
            count: tokio::sync::Mutex::new(0),
        }
    }

    /// Adds one; the count before.
    pub async fn add(&self) -> u32 {
        let mut count = self.count.lock().await;
        let before = *count;
        *count += 1;
        before
    }

    /// The count.
    pub async fn get(&self) -> u32 {
        *self.count.lock().await
    }
}
