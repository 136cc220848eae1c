//! V7 of MAPTest: `java.lang.StringBuffer` (JDK 1.6.0), an atomicity violation.
//! `append(StringBuffer)` and `insert(int, CharSequence)` read the source's length in one
//! lock section and copy that many characters in another; a thread that shrinks the source
//! in between (`setLength`, `delete`, `deleteCharAt`) makes the copy run past its end, and
//! `getChars` throws `StringIndexOutOfBoundsException`.

use std::sync::Mutex;

use threadsafe_rt::thread_safe;

use crate::contege::std_locks::lock_in_address_order;
use crate::{BugKind, Subject};

/// Iterations per thread and round of the naive stress test.
const ITERS: usize = 200;

/// The longest a buffer may grow (Java would throw `OutOfMemoryError` sooner or later).
pub const MAX_LEN: usize = 1 << 16;

/// A growable string that threads share, after `java.lang.StringBuffer`. Every method locks
/// the buffer, but `append_buffer` and `insert_buffer` read the source buffer's length and
/// its characters in two lock sections, as the JDK's `append(StringBuffer)` calls
/// `sb.length()` and then `sb.getChars(0, len, ..)`. With `sb.append_buffer(&sb)` on one
/// thread and `sb.set_length(0)` on another, the source can shrink in between, and
/// `get_chars` panics on a range past its end.
pub struct StringBuffer {
    chars: Mutex<Vec<char>>,
}

impl Default for StringBuffer {
    fn default() -> Self {
        StringBuffer::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl StringBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        StringBuffer::with_capacity(16)
    }

    /// An empty buffer with room for `capacity` characters (at most [`MAX_LEN`]).
    pub fn with_capacity(capacity: usize) -> Self {
        StringBuffer {
            chars: Mutex::new(Vec::with_capacity(capacity.min(MAX_LEN))),
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
    pub fn append_char(&self, c: char) {
        self.chars.lock().unwrap().push(c);
    }

    /// Appends the characters of `other`; `other` may be `self`.
    pub fn append_buffer(&self, other: &StringBuffer) {
        let len = other.len();
        // BUG: `other` is not locked between `len` and `get_chars`: another thread can
        // shrink it, and the copy reads past its end.
        let copied = other.get_chars(0, len);
        self.chars.lock().unwrap().extend(copied);
    }

    /// Inserts `text` at character offset `dst`.
    ///
    /// # Panics
    /// If `dst` is greater than [`len`](Self::len).
    pub fn insert(&self, dst: usize, text: &str) {
        splice_at(&mut self.chars.lock().unwrap(), dst, text.chars());
    }

    /// Inserts the characters of `other` at character offset `dst`; `other` may be `self`.
    ///
    /// # Panics
    /// If `dst` is greater than [`len`](Self::len).
    pub fn insert_buffer(&self, dst: usize, other: &StringBuffer) {
        let len = other.len();
        // BUG: as in `append_buffer`, `other` can shrink before its characters are copied.
        let copied = other.get_chars(0, len);
        splice_at(&mut self.chars.lock().unwrap(), dst, copied);
    }

    /// The character at `index`.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn char_at(&self, index: usize) -> char {
        char_at(&self.chars.lock().unwrap(), index)
    }

    /// Replaces the character at `index` with `c`.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn set_char_at(&self, index: usize, c: char) {
        set_char_at(&mut self.chars.lock().unwrap(), index, c);
    }

    /// Removes the characters `start..end` (`end` is clamped to the length).
    ///
    /// # Panics
    /// If `start` is greater than `end` or than [`len`](Self::len).
    pub fn delete(&self, start: usize, end: usize) {
        delete(&mut self.chars.lock().unwrap(), start, end);
    }

    /// Removes the character at `index` and returns it.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn delete_char_at(&self, index: usize) -> char {
        delete_char_at(&mut self.chars.lock().unwrap(), index)
    }

    /// Sets the length to `len`: truncates, or pads with `'\0'` as Java does.
    ///
    /// # Panics
    /// If `len` is greater than [`MAX_LEN`].
    pub fn set_length(&self, len: usize) {
        set_length(&mut self.chars.lock().unwrap(), len);
    }

    /// Reverses the characters in place.
    pub fn reverse(&self) {
        self.chars.lock().unwrap().reverse();
    }

    /// The character offset of the first occurrence of `needle`.
    pub fn index_of(&self, needle: &str) -> Option<usize> {
        index_of(&self.chars.lock().unwrap(), needle)
    }

    /// The characters `start..end` as a string.
    ///
    /// # Panics
    /// If `start..end` is not a range of the buffer's characters.
    pub fn substring(&self, start: usize, end: usize) -> String {
        copy_range(&self.chars.lock().unwrap(), start, end)
            .into_iter()
            .collect()
    }

    /// The characters `start..end` (Java's `getChars`).
    ///
    /// # Panics
    /// If `start..end` is not a range of the buffer's characters.
    pub fn get_chars(&self, start: usize, end: usize) -> Vec<char> {
        copy_range(&self.chars.lock().unwrap(), start, end)
    }

    /// The text.
    pub fn contents(&self) -> String {
        self.chars.lock().unwrap().iter().collect()
    }
}

/// The characters `start..end` of `chars`, with the JDK's bounds check and message.
fn copy_range(chars: &[char], start: usize, end: usize) -> Vec<char> {
    let len = chars.len();
    assert!(
        start <= end && end <= len,
        "StringIndexOutOfBoundsException: range {start}..{end} of a buffer of length {len}"
    );
    chars[start..end].to_vec()
}

/// Inserts `copied` at `dst`, with the JDK's bounds check and message.
fn splice_at(chars: &mut Vec<char>, dst: usize, copied: impl IntoIterator<Item = char>) {
    let len = chars.len();
    assert!(
        dst <= len,
        "StringIndexOutOfBoundsException: offset {dst} of a buffer of length {len}"
    );
    chars.splice(dst..dst, copied);
}

/// `chars[index]`, with the JDK's message.
fn char_at(chars: &[char], index: usize) -> char {
    *chars.get(index).unwrap_or_else(|| {
        panic!(
            "StringIndexOutOfBoundsException: index {index} of a buffer of length {}",
            chars.len()
        )
    })
}

/// `chars[index] = c`, with the JDK's message.
fn set_char_at(chars: &mut [char], index: usize, c: char) {
    let len = chars.len();
    match chars.get_mut(index) {
        Some(slot) => *slot = c,
        None => {
            panic!("StringIndexOutOfBoundsException: index {index} of a buffer of length {len}")
        }
    }
}

/// Removes `start..end.min(len)`, with the JDK's bounds check.
fn delete(chars: &mut Vec<char>, start: usize, end: usize) {
    let len = chars.len();
    let end = end.min(len);
    assert!(
        start <= end,
        "StringIndexOutOfBoundsException: delete {start}..{end} of a buffer of length {len}"
    );
    chars.drain(start..end);
}

/// Removes and returns `chars[index]`, with the JDK's message.
fn delete_char_at(chars: &mut Vec<char>, index: usize) -> char {
    let len = chars.len();
    assert!(
        index < len,
        "StringIndexOutOfBoundsException: index {index} of a buffer of length {len}"
    );
    chars.remove(index)
}

/// Truncates or pads with `'\0'` to `len`.
fn set_length(chars: &mut Vec<char>, len: usize) {
    assert!(len <= MAX_LEN, "OutOfMemoryError: length {len}");
    chars.resize(len, '\0');
}

/// The offset of the first occurrence of `needle` in `chars`.
fn index_of(chars: &[char], needle: &str) -> Option<usize> {
    let needle: Vec<char> = needle.chars().collect();
    if needle.is_empty() {
        return Some(0);
    }
    chars.windows(needle.len()).position(|w| w == needle)
}

/// Inserts a copy of `chars` into itself at `dst`, or at the end for `None`, in one lock
/// section.
fn self_insert(chars: &mut Vec<char>, dst: Option<usize>) {
    let copied = chars.clone();
    let dst = dst.unwrap_or(chars.len());
    splice_at(chars, dst, copied);
}

/// [`StringBuffer`] with `append_buffer` and `insert_buffer` fixed: the source's characters
/// are read and written in one lock section (one lock when the source is the destination,
/// else both, taken in address order), so a concurrent `set_length(0)` makes them copy
/// either the old text or the new one, never a range past the end, and no call on either
/// buffer comes between the read and the write. (Reading the source under its lock and
/// then writing under the destination's, as Java's `StringBuffer` does, is not
/// linearizable: `a.set_length(0); b.append("ab")` on one thread beside `b.append_buffer(&a)`
/// can leave `b` with "ab" then the old text, which no order of the three calls gives.)
#[derive(Default)]
pub struct FixedStringBuffer(StringBuffer);

#[thread_safe(test = false, statement_points = "always")]
impl FixedStringBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        FixedStringBuffer(StringBuffer::new())
    }

    /// An empty buffer with room for `capacity` characters (at most [`MAX_LEN`]).
    pub fn with_capacity(capacity: usize) -> Self {
        FixedStringBuffer(StringBuffer::with_capacity(capacity))
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
    pub fn append_char(&self, c: char) {
        self.0.append_char(c);
    }

    /// Appends the characters of `other`; `other` may be `self`.
    pub fn append_buffer(&self, other: &FixedStringBuffer) {
        if std::ptr::eq(self, other) {
            self_insert(&mut self.0.chars.lock().unwrap(), None);
        } else {
            let (mut chars, source) = lock_in_address_order(&self.0.chars, &other.0.chars);
            chars.extend(source.iter().copied());
        }
    }

    /// Inserts `text` at character offset `dst`.
    ///
    /// # Panics
    /// If `dst` is greater than [`len`](Self::len).
    pub fn insert(&self, dst: usize, text: &str) {
        self.0.insert(dst, text);
    }

    /// Inserts the characters of `other` at character offset `dst`; `other` may be `self`.
    ///
    /// # Panics
    /// If `dst` is greater than [`len`](Self::len).
    pub fn insert_buffer(&self, dst: usize, other: &FixedStringBuffer) {
        if std::ptr::eq(self, other) {
            self_insert(&mut self.0.chars.lock().unwrap(), Some(dst));
        } else {
            let (mut chars, source) = lock_in_address_order(&self.0.chars, &other.0.chars);
            let copied = source.clone();
            drop(source);
            splice_at(&mut chars, dst, copied);
        }
    }

    /// The character at `index`.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn char_at(&self, index: usize) -> char {
        self.0.char_at(index)
    }

    /// Replaces the character at `index` with `c`.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn set_char_at(&self, index: usize, c: char) {
        self.0.set_char_at(index, c);
    }

    /// Removes the characters `start..end` (`end` is clamped to the length).
    ///
    /// # Panics
    /// If `start` is greater than `end` or than [`len`](Self::len).
    pub fn delete(&self, start: usize, end: usize) {
        self.0.delete(start, end);
    }

    /// Removes the character at `index` and returns it.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn delete_char_at(&self, index: usize) -> char {
        self.0.delete_char_at(index)
    }

    /// Sets the length to `len`: truncates, or pads with `'\0'` as Java does.
    ///
    /// # Panics
    /// If `len` is greater than [`MAX_LEN`].
    pub fn set_length(&self, len: usize) {
        self.0.set_length(len);
    }

    /// Reverses the characters in place.
    pub fn reverse(&self) {
        self.0.reverse();
    }

    /// The character offset of the first occurrence of `needle`.
    pub fn index_of(&self, needle: &str) -> Option<usize> {
        self.0.index_of(needle)
    }

    /// The characters `start..end` as a string.
    ///
    /// # Panics
    /// If `start..end` is not a range of the buffer's characters.
    pub fn substring(&self, start: usize, end: usize) -> String {
        self.0.substring(start, end)
    }

    /// The characters `start..end` (Java's `getChars`).
    ///
    /// # Panics
    /// If `start..end` is not a range of the buffer's characters.
    pub fn get_chars(&self, start: usize, end: usize) -> Vec<char> {
        self.0.get_chars(start, end)
    }

    /// The text.
    pub fn contents(&self) -> String {
        self.0.contents()
    }
}

/// The V7 subject.
pub fn subject() -> Subject {
    Subject {
        id: "V7",
        name: "string_buffer",
        original: "java.lang.StringBuffer (JDK 1.6.0)",
        bug: BugKind::Atomicity,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<StringBuffer>(c),
        check_twin: |c| threadsafe_rt::check::<FixedStringBuffer>(c),
        naive: |budget| {
            crate::naive::race(
                budget,
                ITERS,
                || StringBuffer::with_text("hello"),
                |sb| {
                    sb.append_buffer(sb);
                    sb.set_length(5);
                },
                |sb| {
                    sb.set_length(0);
                    sb.append("hello");
                },
            )
        },
    }
}
