//! A value on a cache line of its own, for counters that different threads write.

/// A value on a cache line of its own: the threads write their own counters at every call,
/// and counters that share a line would make every such write a miss for the peers.
#[repr(align(128))]
pub(super) struct Padded<T>(pub(super) T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}
