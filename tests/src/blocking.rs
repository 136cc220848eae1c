//! Types whose calls block until another thread acts: a queue whose `pop` waits for a
//! `push`, with a lost wake-up ([`LostWakeQueue`]) and without ([`BlockingQueue`]), and a
//! countdown latch ([`Latch`]); and a one-shot event whose `wait` parks the thread until a
//! `set` flags the event and unparks it, with a lost wake-up ([`LostWakeEvent`]) and
//! without ([`Event`]). The oracle judges their hangs with blocking semantics: an
//! order that puts `pop` before the `push` that feeds it waits for it, so only a hang that
//! no order explains is reported.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::thread::Thread;

use threadsafe_rt::thread_safe;

/// A queue whose `pop` waits for an item, and misses the wake-up of a `push` that comes
/// between its look at the queue and its wait.
pub struct LostWakeQueue {
    items: Mutex<VecDeque<u32>>,
    ready: Condvar,
}

impl Default for LostWakeQueue {
    fn default() -> Self {
        LostWakeQueue::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl LostWakeQueue {
    /// An empty queue.
    pub fn new() -> Self {
        LostWakeQueue {
            items: Mutex::new(VecDeque::new()),
            ready: Condvar::new(),
        }
    }

    /// Adds `item` and wakes a waiting `pop`.
    pub fn push(&self, item: u32) {
        self.items.lock().unwrap().push_back(item);
        self.ready.notify_one();
    }

    /// Takes the oldest item, waiting for one if there is none.
    pub fn pop(&self) -> u32 {
        loop {
            if let Some(item) = self.items.lock().unwrap().pop_front() {
                return item;
            }
            // BUG: the lock is free between the look above and the wait below: a `push`
            // there notifies nobody, and this wait, which does not look again, misses it.
            let items = self.items.lock().unwrap();
            drop(self.ready.wait(items).unwrap());
        }
    }
}

/// [`LostWakeQueue`] with the look and the wait in one critical section.
pub struct BlockingQueue {
    items: Mutex<VecDeque<u32>>,
    ready: Condvar,
}

impl Default for BlockingQueue {
    fn default() -> Self {
        BlockingQueue::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl BlockingQueue {
    /// An empty queue.
    pub fn new() -> Self {
        BlockingQueue {
            items: Mutex::new(VecDeque::new()),
            ready: Condvar::new(),
        }
    }

    /// Adds `item` and wakes a waiting `pop`.
    pub fn push(&self, item: u32) {
        self.items.lock().unwrap().push_back(item);
        self.ready.notify_one();
    }

    /// Takes the oldest item, waiting for one if there is none.
    pub fn pop(&self) -> u32 {
        let mut items = self.items.lock().unwrap();
        loop {
            if let Some(item) = items.pop_front() {
                return item;
            }
            items = self.ready.wait(items).unwrap();
        }
    }

    /// How many items wait.
    pub fn len(&self) -> usize {
        self.items.lock().unwrap().len()
    }

    /// Whether no item waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A countdown latch: `wait` blocks until `count_down` was called as many times as the
/// latch was made with.
pub struct Latch {
    left: Mutex<u32>,
    zero: Condvar,
}

#[thread_safe(test = false, statement_points = "always")]
impl Latch {
    /// A latch that opens after `count` count-downs (at most 3).
    pub fn new(count: u8) -> Self {
        Latch {
            left: Mutex::new(u32::from(count % 4)),
            zero: Condvar::new(),
        }
    }

    /// One count down; the last one opens the latch.
    pub fn count_down(&self) {
        let mut left = self.left.lock().unwrap();
        if *left > 0 {
            *left -= 1;
            if *left == 0 {
                self.zero.notify_all();
            }
        }
    }

    /// Waits until the latch is open.
    pub fn wait(&self) {
        let mut left = self.left.lock().unwrap();
        while *left > 0 {
            left = self.zero.wait(left).unwrap();
        }
    }

    /// How many count-downs are left.
    pub fn left(&self) -> u32 {
        *self.left.lock().unwrap()
    }
}

/// A one-shot event: `wait` parks the calling thread until `set` flags the event and unparks
/// the waiters; it looks at the flag before it registers as a waiter, and misses a `set` that
/// comes in between.
#[derive(Default)]
pub struct LostWakeEvent {
    set: AtomicBool,
    waiters: Mutex<Vec<Thread>>,
}

#[thread_safe(test = false, statement_points = "always")]
impl LostWakeEvent {
    /// An event not set yet.
    pub fn new() -> Self {
        LostWakeEvent::default()
    }

    /// Flags the event and wakes every waiter.
    pub fn set(&self) {
        self.set.store(true, Ordering::SeqCst);
        for waiter in self.waiters.lock().unwrap().drain(..) {
            waiter.unpark();
        }
    }

    /// Returns once the event is set.
    pub fn wait(&self) {
        if self.set.load(Ordering::SeqCst) {
            return;
        }
        // BUG: a `set` here finds no waiter to unpark, and this thread, registered only
        // now, parks with nobody left to wake it: it looks at the flag only after a wake.
        self.waiters.lock().unwrap().push(std::thread::current());
        loop {
            std::thread::park();
            if self.set.load(Ordering::SeqCst) {
                return;
            }
        }
    }

    /// Whether the event is set.
    pub fn is_set(&self) -> bool {
        self.set.load(Ordering::SeqCst)
    }
}

/// [`LostWakeEvent`] with the waiter registered before it looks at the flag, and looking
/// again after every wake: a `set` either comes before the look, or finds it registered.
#[derive(Default)]
pub struct Event {
    set: AtomicBool,
    waiters: Mutex<Vec<Thread>>,
}

#[thread_safe(test = false, statement_points = "always")]
impl Event {
    /// An event not set yet.
    pub fn new() -> Self {
        Event::default()
    }

    /// Flags the event and wakes every waiter.
    pub fn set(&self) {
        self.set.store(true, Ordering::SeqCst);
        for waiter in self.waiters.lock().unwrap().drain(..) {
            waiter.unpark();
        }
    }

    /// Returns once the event is set.
    pub fn wait(&self) {
        self.waiters.lock().unwrap().push(std::thread::current());
        while !self.set.load(Ordering::SeqCst) {
            std::thread::park();
        }
    }

    /// Whether the event is set.
    pub fn is_set(&self) -> bool {
        self.set.load(Ordering::SeqCst)
    }
}
