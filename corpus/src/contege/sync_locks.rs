//! The ports with [`threadsafe_rt::sync`] locks: every lock operation is a scheduling point
//! of the controlled scheduler, so a controlled check runs their threads one at a time, finds
//! the race or the deadlock with a seeded schedule, and replays that interleaving from a
//! token.
//!
//! Checked from another crate, they have no statement points (this library is compiled
//! without `cfg(test)` there): the `sync` shims are their only scheduling points, which is
//! how a user's type that imports `threadsafe_rt::sync` looks to the check.

// The lock module of the ports written once for both (`both_locks/`).
use threadsafe_rt::sync;

#[allow(clippy::duplicate_mod)] // one source, one module per lock module
#[path = "both_locks/concurrent_hash_map.rs"]
pub mod concurrent_hash_map;
#[allow(clippy::duplicate_mod)] // one source, one module per lock module
#[path = "both_locks/lock_order.rs"]
mod lock_order;
#[allow(clippy::duplicate_mod)] // one source, one module per lock module
#[path = "both_locks/string_buffer.rs"]
pub mod string_buffer;
#[allow(clippy::duplicate_mod)] // one source, one module per lock module
#[path = "both_locks/synchronized_map.rs"]
pub mod synchronized_map;

pub use lock_order::lock_in_address_order;

#[cfg(test)]
mod tests {
    use super::concurrent_hash_map::{ConcurrentHashMap, FixedConcurrentHashMap};
    use super::string_buffer::{FixedStringBuffer, StringBuffer};

    #[test]
    fn insert_into_itself_doubles_the_text() {
        let sb = StringBuffer::with_text("ab");
        sb.insert(1, &sb);
        assert_eq!(sb.contents(), "aabb");
        let fixed = FixedStringBuffer::with_text("ab");
        fixed.insert(1, &fixed);
        assert_eq!(fixed.contents(), "aabb");
    }

    #[test]
    fn insert_from_another_buffer_in_either_address_order() {
        let (x, y) = (
            FixedStringBuffer::with_text("xy"),
            FixedStringBuffer::with_text("z"),
        );
        x.insert(2, &y);
        y.insert(0, &x);
        assert_eq!((x.contents(), y.contents()), ("xyz".into(), "xyzz".into()));
    }

    /// What `insert` does when the source shrinks after its length was read: `char_at`
    /// indexes past the end, the panic the tests and the `strategies` benchmark expect.
    #[test]
    fn shrinking_between_the_two_sections_panics_in_char_at() {
        let sb = StringBuffer::with_text("abc");
        let end = sb.len();
        sb.truncate(1);
        let e = std::panic::catch_unwind(|| (0..end).map(|i| sb.char_at(i)).collect::<String>())
            .expect_err("out of range");
        let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains("index out of bounds"), "{msg}");
    }

    #[test]
    fn put_all_copies_and_tolerates_itself() {
        let (a, b) = (ConcurrentHashMap::new(), ConcurrentHashMap::new());
        a.put("x".into(), 1);
        a.put("y".into(), 2);
        b.put_all(&a);
        b.put_all(&b);
        assert_eq!(b.keys(), ["x", "y"]);
        assert_eq!(b.get("y"), Some(2));

        let (c, d) = (FixedConcurrentHashMap::new(), FixedConcurrentHashMap::new());
        c.put("x".into(), 1);
        d.put_all(&c);
        d.put_all(&d);
        assert_eq!((d.len(), d.get("x")), (1, Some(1)));
        d.clear();
        assert!(d.is_empty());
    }
}
