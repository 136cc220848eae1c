//! A ticket dispenser that reads the next number in one lock section and advances it in
//! another: two threads can take the same ticket. Nothing panics; the two `take` calls
//! return one number twice, which no sequential order does.

use std::sync::Mutex;

use threadsafe_rt::thread_safe;

/// Hands out numbered tickets. `take` reads and advances under two separate locks.
pub struct TicketDispenser {
    next: Mutex<u32>,
    issued: Mutex<u32>,
}

#[thread_safe(test = false, statement_points = "always")]
impl TicketDispenser {
    /// A dispenser whose first ticket is 1.
    pub fn new() -> Self {
        TicketDispenser::starting_at(1)
    }

    /// A dispenser whose first ticket is `first`.
    pub fn starting_at(first: u16) -> Self {
        TicketDispenser {
            next: Mutex::new(u32::from(first)),
            issued: Mutex::new(0),
        }
    }

    /// Takes the next ticket.
    pub fn take(&self) -> u32 {
        let ticket = *self.next.lock().unwrap();
        *self.next.lock().unwrap() = ticket + 1;
        *self.issued.lock().unwrap() += 1;
        ticket
    }

    /// The ticket the next `take` returns.
    pub fn peek(&self) -> u32 {
        *self.next.lock().unwrap()
    }

    /// How many tickets were taken.
    pub fn issued(&self) -> u32 {
        *self.issued.lock().unwrap()
    }
}

/// The correct twin: the next number and the count of tickets taken live under one lock,
/// and `take` reads and advances them in one section.
pub struct FixedTicketDispenser {
    state: Mutex<(u32, u32)>,
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedTicketDispenser {
    /// A dispenser whose first ticket is 1.
    pub fn new() -> Self {
        FixedTicketDispenser::starting_at(1)
    }

    /// A dispenser whose first ticket is `first`.
    pub fn starting_at(first: u16) -> Self {
        FixedTicketDispenser {
            state: Mutex::new((u32::from(first), 0)),
        }
    }

    /// Takes the next ticket.
    pub fn take(&self) -> u32 {
        let mut state = self.state.lock().unwrap();
        let ticket = state.0;
        *state = (ticket + 1, state.1 + 1);
        ticket
    }

    /// The ticket the next `take` returns.
    pub fn peek(&self) -> u32 {
        self.state.lock().unwrap().0
    }

    /// How many tickets were taken.
    pub fn issued(&self) -> u32 {
        self.state.lock().unwrap().1
    }
}
