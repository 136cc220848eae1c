//! A ticket dispenser that loads the next number, awaits, then stores it advanced: two
//! callers get the same ticket.

use std::sync::atomic::{AtomicU32, Ordering};

use threadsafe_rt::thread_safe;

use super::remote;

/// The buggy type's file, for the harness.
pub const FILE: &str = file!();

/// Hands out numbered tickets, the first 1.
pub struct Tickets {
    next: AtomicU32,
}

#[thread_safe(test = false, statement_points = "always")]
impl Tickets {
    /// A dispenser whose first ticket is 1.
    pub fn new() -> Self {
        Tickets {
            next: AtomicU32::new(1),
        }
    }

    /// Takes the next ticket, after recording it remotely.
    pub async fn take(&self) -> u32 {
        let ticket = self.next.load(Ordering::SeqCst);
        remote().await;
        self.next.store(ticket + 1, Ordering::SeqCst);
        ticket
    }

    /// The ticket the next `take` returns.
    pub fn peek(&self) -> u32 {
        self.next.load(Ordering::SeqCst)
    }
}

/// The correct twin: the ticket is taken with one `fetch_add`, then recorded. Which caller
/// gets which ticket still depends on the order.
pub struct FixedTickets {
    next: AtomicU32,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedTickets {
    /// A dispenser whose first ticket is 1.
    pub fn new() -> Self {
        FixedTickets {
            next: AtomicU32::new(1),
        }
    }

    /// Takes the next ticket, then records it remotely.
    pub async fn take(&self) -> u32 {
        let ticket = self.next.fetch_add(1, Ordering::SeqCst);
        remote().await;
        ticket
    }

    /// The ticket the next `take` returns.
    pub fn peek(&self) -> u32 {
        self.next.load(Ordering::SeqCst)
    }
}
