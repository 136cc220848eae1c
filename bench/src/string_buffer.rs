//! A `StringBuffer` whose `insert(dst, &other)` reads `other`'s length in one lock section
//! and copies in another (bug 1 of Pradel & Gross, `java.lang.StringBuffer`), and its
//! correct twin. Both use [`threadsafe_rt::sync::Mutex`], so every lock is a scheduling point
//! of a controlled run.

use threadsafe_rt::sync::Mutex;
use threadsafe_rt::thread_safe;

/// The message of the buggy copy's panic, to tell the bug from anything else.
pub const COPY_PANIC: &str = "range end index";

/// A growable string shared by threads. `insert(dst, &other)` reads `other.len()` under one
/// lock and copies `other[..len]` under another: with `sb.insert(0, &sb)` on one thread and
/// `sb.delete_char_at(0)` (or `sb.truncate(0)`) on another, the source can shrink in
/// between, and the copy panics with "range end index .. out of range".
pub struct StringBuffer {
    chars: Mutex<Vec<char>>,
}

impl Default for StringBuffer {
    fn default() -> Self {
        StringBuffer::new()
    }
}

#[thread_safe(test = false)]
impl StringBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        StringBuffer {
            chars: Mutex::new(Vec::new()),
        }
    }

    /// A buffer holding `text`.
    pub fn with_text(text: &str) -> Self {
        StringBuffer {
            chars: Mutex::new(text.chars().collect()),
        }
    }

    /// The number of characters.
    pub fn len(&self) -> usize {
        self.chars.lock().unwrap().len()
    }

    /// Whether the buffer holds no character.
    pub fn is_empty(&self) -> bool {
        self.chars.lock().unwrap().is_empty()
    }

    /// Appends `text`.
    pub fn append(&self, text: &str) {
        self.chars.lock().unwrap().extend(text.chars());
    }

    /// Removes the character at `index` and returns it.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn delete_char_at(&self, index: usize) -> char {
        self.chars.lock().unwrap().remove(index)
    }

    /// Shortens the buffer to `len` characters; no effect if it is not longer.
    pub fn truncate(&self, len: usize) {
        self.chars.lock().unwrap().truncate(len);
    }

    /// Inserts the characters of `other` at character offset `dst`; `other` may be `self`.
    ///
    /// # Panics
    /// If `dst` is greater than [`len`](Self::len); and, the bug, if `other` shrinks while
    /// this runs.
    pub fn insert(&self, dst: usize, other: &StringBuffer) {
        let end = other.len();
        // BUG: `other` is unlocked between reading its length and copying: another thread
        // can shrink it, and the slice below is then out of range.
        let copied: Vec<char> = other.chars.lock().unwrap()[..end].to_vec();
        splice_at(&mut self.chars.lock().unwrap(), dst, copied);
    }

    /// The text.
    pub fn contents(&self) -> String {
        self.chars.lock().unwrap().iter().collect()
    }
}

/// Inserts `copied` at `dst`, with a bounds check that panics on a bad offset.
fn splice_at(chars: &mut Vec<char>, dst: usize, copied: Vec<char>) {
    let len = chars.len();
    assert!(
        dst <= len,
        "insert offset {dst} is out of range: the length is {len}"
    );
    chars.splice(dst..dst, copied);
}

/// [`StringBuffer`] with `insert` fixed: the source is read and the destination written
/// under the same locks (one lock when they are the same buffer, else both, in address
/// order, so two inserts in opposite directions cannot deadlock).
#[derive(Default)]
pub struct FixedStringBuffer(StringBuffer);

#[thread_safe(test = false)]
impl FixedStringBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        FixedStringBuffer(StringBuffer::new())
    }

    /// A buffer holding `text`.
    pub fn with_text(text: &str) -> Self {
        FixedStringBuffer(StringBuffer::with_text(text))
    }

    /// The number of characters.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the buffer holds no character.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Appends `text`.
    pub fn append(&self, text: &str) {
        self.0.append(text);
    }

    /// Removes the character at `index` and returns it.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn delete_char_at(&self, index: usize) -> char {
        self.0.delete_char_at(index)
    }

    /// Shortens the buffer to `len` characters; no effect if it is not longer.
    pub fn truncate(&self, len: usize) {
        self.0.truncate(len);
    }

    /// Inserts the characters of `other` at character offset `dst`; `other` may be `self`.
    ///
    /// # Panics
    /// If `dst` is greater than [`len`](Self::len).
    pub fn insert(&self, dst: usize, other: &FixedStringBuffer) {
        if std::ptr::eq(self, other) {
            let mut chars = self.0.chars.lock().unwrap();
            let copied = chars.clone();
            splice_at(&mut chars, dst, copied);
            return;
        }
        let (a, b) = (&self.0.chars, &other.0.chars);
        let (mut chars, source) = if std::ptr::from_ref(a) < std::ptr::from_ref(b) {
            let first = a.lock().unwrap();
            (first, b.lock().unwrap())
        } else {
            let first = b.lock().unwrap();
            (a.lock().unwrap(), first)
        };
        let copied = source.clone();
        drop(source);
        splice_at(&mut chars, dst, copied);
    }

    /// The text.
    pub fn contents(&self) -> String {
        self.0.contents()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn shrinking_between_the_two_sections_is_the_panic_the_bench_expects() {
        let sb = StringBuffer::with_text("abc");
        let end = sb.len();
        sb.truncate(1);
        let e = std::panic::catch_unwind(|| sb.chars.lock().unwrap()[..end].to_vec())
            .expect_err("out of range");
        let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains(COPY_PANIC), "{msg}");
    }
}
