//! Bug 1 of Pradel & Gross (`java.lang.StringBuffer`), written once against the including
//! module's `sync`: `sb.insert(1, &sb)` reads `sb`'s length in one lock section and copies
//! that many characters in others, so a `delete_char_at` or `truncate` that runs in between
//! makes `char_at` index past the end. `sync_locks` includes it, and so does a std test.

use super::sync::Mutex;
use threadsafe_rt::thread_safe;

use super::lock_in_address_order;

/// This file, as panic locations name it.
pub const FILE: &str = file!();
/// The text of this file, to find the line of a statement with `line_of`.
pub const SOURCE: &str = include_str!("string_buffer.rs");

/// A growable string that threads share, ported from `java.lang.StringBuffer` with the
/// including module's `Mutex`. `insert` reads the source's length in one lock section,
/// then copies that many characters with `char_at`, a lock section each, as the JDK's
/// `insert(int, CharSequence)` does: the source can shrink in between, and `char_at` panics
/// past its end.
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
    /// Reads the characters with `other.char_at(i)`, as the JDK's loop of `s.charAt(i)` does,
    /// before locking `self` (the mutex is not reentrant).
    ///
    /// # Panics
    /// If `dst` is greater than [`len`](Self::len).
    pub fn insert(&self, dst: usize, other: &StringBuffer) {
        let end = other.len();
        // BUG: `other` is not locked from here to the end of the copy: another thread can
        // shrink it, and the copy reads past its end.
        let copied: Vec<char> = (0..end).map(|i| other.char_at(i)).collect();
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

/// [`StringBuffer`] with `insert` fixed: the source's characters are read and inserted under
/// one lock section (a single lock when source and destination are the same buffer, else
/// both, in address order).
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
        self.insert_all(dst, other);
    }

    /// The text.
    pub fn contents(&self) -> String {
        self.0.contents()
    }
}

impl FixedStringBuffer {
    /// Inserts all of `other`, read under the same lock section as the insertion.
    fn insert_all(&self, dst: usize, other: &FixedStringBuffer) {
        if std::ptr::eq(self, other) {
            let mut chars = self.0.chars.lock().unwrap();
            let copied = chars.clone();
            splice_at(&mut chars, dst, copied);
        } else {
            let (mut chars, source) = lock_in_address_order(&self.0.chars, &other.0.chars);
            let copied = source.clone();
            drop(source);
            splice_at(&mut chars, dst, copied);
        }
    }
}
