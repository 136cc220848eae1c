//! Correct types whose results legitimately differ from run to run: the results oracle must
//! not report them. Each has a plain `#[thread_safe]`, so its generated test runs in
//! `cargo test` too, and `tests/no_false_positive_on_nondeterministic_results.rs` checks each
//! one over 20 seeds.
//!
//! | type | what varies | why it is still correct |
//! |---|---|---|
//! | [`Tickets`] | which thread gets which number | `fetch_add`: each order of the takes gives one of the outcomes |
//! | [`Registry`] | the order of `keys()` | hash order: every `HashMap` has its own random hasher |
//! | [`Clock`] | times read from a clock | time passes; nothing is shared but the start |
//! | [`Boxes`] | addresses of boxed values | the allocator decides |
//! | [`Tokens`] | random tokens | random by design |
//! | [`ShardedCounter`] | the shard a thread counts in | chosen by `ThreadId` |
//! | [`Generations`] | a number a thread of its own moves on, now and then | nothing the calls do moves it |

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, Once, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use threadsafe_rt::thread_safe;

/// Numbered tickets from one `fetch_add`: two threads get different numbers, in either order.
pub struct Tickets(AtomicU64);

#[thread_safe(budget = "300ms")]
impl Tickets {
    /// Tickets from 0.
    pub fn new() -> Self {
        Tickets(AtomicU64::new(0))
    }
    /// The next ticket.
    pub fn take(&self) -> u64 {
        self.0.fetch_add(1, Ordering::SeqCst)
    }
    /// How many were taken.
    pub fn issued(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// A map whose `keys()` lists the keys in hash order, which differs between instances.
pub struct Registry(RwLock<HashMap<String, u32>>);

#[thread_safe(budget = "300ms")]
impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Registry(RwLock::new(HashMap::new()))
    }
    /// A registry holding `key`.
    pub fn with(key: &str) -> Self {
        let r = Registry::new();
        r.insert(key.to_string(), 1);
        r
    }
    /// Sets `key` to `value`; the value before.
    pub fn insert(&self, key: String, value: u32) -> Option<u32> {
        self.0.write().unwrap().insert(key, value)
    }
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<u32> {
        self.0.read().unwrap().get(key).copied()
    }
    /// Every key, in the map's (hash) order.
    pub fn keys(&self) -> Vec<String> {
        self.0.read().unwrap().keys().cloned().collect()
    }
    /// How many keys there are.
    pub fn len(&self) -> usize {
        self.0.read().unwrap().len()
    }
    /// Whether there is no key.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Reads clocks: how long since it was made, the wall clock, and the last time it was
/// touched.
pub struct Clock {
    started: Instant,
    touched: Mutex<Option<Instant>>,
    touches: AtomicU64,
}

#[thread_safe(budget = "300ms")]
impl Clock {
    /// A clock started now.
    pub fn new() -> Self {
        Clock {
            started: Instant::now(),
            touched: Mutex::new(None),
            touches: AtomicU64::new(0),
        }
    }
    /// Milliseconds since the clock was made.
    pub fn elapsed_ms(&self) -> u128 {
        self.started.elapsed().as_millis()
    }
    /// Nanoseconds since the clock was made.
    pub fn elapsed_ns(&self) -> u128 {
        self.started.elapsed().as_nanos()
    }
    /// Seconds since the Unix epoch.
    pub fn unix_seconds(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    }
    /// Marks the clock touched; how many times it was.
    pub fn touch(&self) -> u64 {
        *self.touched.lock().unwrap() = Some(Instant::now());
        self.touches.fetch_add(1, Ordering::SeqCst) + 1
    }
    /// Microseconds since the last touch, if any.
    pub fn since_touch_us(&self) -> Option<u128> {
        self.touched
            .lock()
            .unwrap()
            .map(|t| t.elapsed().as_micros())
    }
}

/// Keeps boxed values and tells their addresses (each value is boxed on purpose: its
/// address is what `keep` returns).
#[allow(clippy::vec_box)]
pub struct Boxes(Mutex<Vec<Box<u64>>>);

#[thread_safe(budget = "300ms")]
impl Boxes {
    /// No box.
    pub fn new() -> Self {
        Boxes(Mutex::new(Vec::new()))
    }
    /// Boxes `value` and keeps it; the box's address.
    pub fn keep(&self, value: u64) -> usize {
        let b = Box::new(value);
        let addr = std::ptr::from_ref::<u64>(&b) as usize;
        self.0.lock().unwrap().push(b);
        addr
    }
    /// The address of a value boxed and dropped at once.
    pub fn scratch(&self) -> usize {
        let b = Box::new(0u64);
        std::ptr::from_ref::<u64>(&b) as usize
    }
    /// How many boxes are kept.
    pub fn count(&self) -> usize {
        self.0.lock().unwrap().len()
    }
    /// The sum of the kept values.
    pub fn sum(&self) -> u64 {
        self.0.lock().unwrap().iter().map(|b| **b).sum()
    }
}

/// Hands out random tokens.
pub struct Tokens {
    issued: AtomicUsize,
}

#[thread_safe(budget = "300ms")]
impl Tokens {
    /// No token issued yet.
    pub fn new() -> Self {
        Tokens {
            issued: AtomicUsize::new(0),
        }
    }
    /// A fresh random token.
    pub fn token(&self) -> u64 {
        self.issued.fetch_add(1, Ordering::SeqCst);
        let mut h = RandomState::new().build_hasher();
        h.write_usize(self.issued.load(Ordering::SeqCst));
        h.finish()
    }
    /// How many tokens were issued.
    pub fn issued(&self) -> usize {
        self.issued.load(Ordering::SeqCst)
    }
}

/// Shards of a counter, one chosen per thread by its `ThreadId`, so that threads rarely
/// touch the same cache line; `incr` returns the shard it counted in.
pub struct ShardedCounter {
    shards: [AtomicU64; 8],
}

#[thread_safe(budget = "300ms")]
impl ShardedCounter {
    /// All shards at zero.
    pub fn new() -> Self {
        ShardedCounter {
            shards: Default::default(),
        }
    }
    /// The shard of the calling thread.
    fn shard() -> usize {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::thread::current().id().hash(&mut h);
        (h.finish() % 8) as usize
    }
    /// Counts one in this thread's shard; which shard.
    pub fn incr(&self) -> usize {
        let s = Self::shard();
        self.shards[s].fetch_add(1, Ordering::SeqCst);
        s
    }
    /// This thread's shard's count.
    pub fn mine(&self) -> u64 {
        self.shards[Self::shard()].load(Ordering::SeqCst)
    }
    /// The sum of all shards.
    pub fn total(&self) -> u64 {
        self.shards.iter().map(|s| s.load(Ordering::SeqCst)).sum()
    }
}

/// The generation a thread of its own moves on every [`GENERATION_TICK`]: the calls only
/// read it. Rarely does it move while the sequential runs of one test go (they take
/// microseconds), so their results mostly agree; free-running threads that straddle a move
/// read two generations, which no sequential order gives, and the test run again after it
/// gives results that none of the earlier sequential runs gave either. Only running the
/// sequential orders again shows that the generation moves by itself.
pub struct Generations {
    reads: AtomicU64,
}

/// How often the generation moves.
pub const GENERATION_TICK: Duration = Duration::from_millis(20);

/// The generation, moved on by the ticker thread that the first [`Generations`] starts.
static GENERATION: AtomicU64 = AtomicU64::new(0);

#[thread_safe(budget = "300ms")]
impl Generations {
    /// A reader; the first one made starts the ticker thread, which runs until the process
    /// ends.
    pub fn new() -> Self {
        static TICKER: Once = Once::new();
        TICKER.call_once(|| {
            std::thread::spawn(|| loop {
                std::thread::sleep(GENERATION_TICK);
                GENERATION.fetch_add(1, Ordering::SeqCst);
            });
        });
        Generations {
            reads: AtomicU64::new(0),
        }
    }
    /// The generation now.
    pub fn generation(&self) -> u64 {
        self.reads.fetch_add(1, Ordering::SeqCst);
        GENERATION.load(Ordering::SeqCst)
    }
    /// How many times `generation` was read.
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::SeqCst)
    }
}

macro_rules! default_is_new {
    ($($t:ty),*) => {$(
        impl Default for $t {
            fn default() -> Self {
                <$t>::new()
            }
        }
    )*};
}
default_is_new!(
    Tickets,
    Registry,
    Clock,
    Boxes,
    Tokens,
    ShardedCounter,
    Generations
);
