//! Bug 1 of Pradel & Gross, Table 1: `java.lang.StringBuffer` (JDK 1.6 and 1.7), an
//! `IndexOutOfBoundsException` when a buffer is inserted into itself while another thread
//! deletes from it.
//!
//! A port of its own rather than the file `sync_locks` includes (`both_locks/string_buffer.rs`),
//! though the bug is the same: this one also has `push` and `insert_range` (`insert` copies
//! through `insert_range`), which the std checks were measured with and which
//! `reproducers/string_buffer.rs` (the generated tests of seed 9) and `correct_twins_pass`
//! (the twin's whole API) pin; the sync port has the smaller API its seeds, measurements and
//! gated reproducer snapshot were made with. One source for both would change the tests the
//! generator makes for one of them.

use std::ops::Range;
use std::sync::Mutex;

use threadsafe_rt::thread_safe;

use super::lock_in_address_order;

/// This file, as panic locations name it.
pub const FILE: &str = file!();
/// The text of this file, to find the line of a statement with `line_of`.
pub const SOURCE: &str = include_str!("string_buffer.rs");

/// A growable string that threads share, ported from `java.lang.StringBuffer` (bug 1 of
/// Pradel & Gross). `insert` reads the source's length in one lock section, then copies that
/// many characters with `char_at`, a lock section each, as the JDK's `insert(int,
/// CharSequence)` does. With `sb.insert(1, &sb)` on one thread and `sb.delete_char_at(0)` on
/// another, the source can shrink in between, and `char_at` panics past its end.
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

    /// Appends one character.
    pub fn push(&self, c: char) {
        self.chars.lock().unwrap().push(c);
    }

    /// The character at `index`.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn char_at(&self, index: usize) -> char {
        self.chars.lock().unwrap()[index]
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
    /// If `dst` is greater than [`len`](Self::len).
    pub fn insert(&self, dst: usize, other: &StringBuffer) {
        let end = other.len();
        // BUG: `other` is not locked from here to the end of the copy: another thread can
        // shrink it, and the copy reads past its end.
        self.insert_range(dst, other, 0, end);
    }

    /// Inserts the characters `start..end` of `other` at character offset `dst`; `other`
    /// may be `self`. Reads the characters with `other.char_at(i)`, as the JDK's loop of
    /// `s.charAt(i)` does, before locking `self` (a std `Mutex` is not reentrant).
    ///
    /// # Panics
    /// If `start..end` is not a range of `other`'s characters, or `dst` is greater than
    /// [`len`](Self::len).
    pub fn insert_range(&self, dst: usize, other: &StringBuffer, start: usize, end: usize) {
        let copied: Vec<char> = (start..end).map(|i| other.char_at(i)).collect();
        splice_at(&mut self.chars.lock().unwrap(), dst, copied);
    }

    /// The text.
    pub fn contents(&self) -> String {
        self.chars.lock().unwrap().iter().collect()
    }
}

/// Inserts `copied` at `dst`, with the JDK's bounds check and message.
fn splice_at(chars: &mut Vec<char>, dst: usize, copied: impl IntoIterator<Item = char>) {
    let len = chars.len();
    assert!(
        dst <= len,
        "insert offset {dst} is out of range: the length is {len}"
    );
    chars.splice(dst..dst, copied);
}

/// [`StringBuffer`] with `insert` fixed: the source and the destination are locked once, the
/// source's characters read and inserted under the same locks (a single lock when they are
/// the same buffer, else both in address order, so that two inserts in opposite directions
/// cannot deadlock). `sb.insert(1, &sb)` racing `sb.delete_char_at(0)` now inserts either the
/// old or the new text, never a torn range.
#[derive(Default)]
pub struct FixedStringBuffer(StringBuffer);

#[thread_safe]
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

    /// Appends one character.
    pub fn push(&self, c: char) {
        self.0.push(c);
    }

    /// The character at `index`.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn char_at(&self, index: usize) -> char {
        self.0.char_at(index)
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
        self.insert_from(dst, other, |len| 0..len);
    }

    /// Inserts the characters `start..end` of `other` at character offset `dst`; `other`
    /// may be `self`.
    ///
    /// # Panics
    /// If `start..end` is not a range of `other`'s characters, or `dst` is greater than
    /// [`len`](Self::len).
    pub fn insert_range(&self, dst: usize, other: &FixedStringBuffer, start: usize, end: usize) {
        self.insert_from(dst, other, |_| start..end);
    }

    /// The text.
    pub fn contents(&self) -> String {
        self.0.contents()
    }
}

impl FixedStringBuffer {
    /// Inserts the range of `other` that `range` picks from its length, all under the locks.
    fn insert_from(
        &self,
        dst: usize,
        other: &FixedStringBuffer,
        range: impl FnOnce(usize) -> Range<usize>,
    ) {
        if std::ptr::eq(self, other) {
            let mut chars = self.0.chars.lock().unwrap();
            let copied = chars[range(chars.len())].to_vec();
            splice_at(&mut chars, dst, copied);
        } else {
            let (mut chars, source) = lock_in_address_order(&self.0.chars, &other.0.chars);
            let copied = source[range(source.len())].to_vec();
            drop(source);
            splice_at(&mut chars, dst, copied);
        }
    }
}
