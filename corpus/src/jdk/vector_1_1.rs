//! V9 of MAPTest: `java.util.Vector` (JDK 1.1.7), an atomicity violation. `lastIndexOf(e)`
//! is not synchronized: it reads `elementCount` and calls the synchronized
//! `lastIndexOf(e, elementCount - 1)`; a thread that removes an element in between makes the
//! start index reach past the end, and the call throws `IndexOutOfBoundsException`.

use std::sync::Mutex;

use threadsafe_rt::thread_safe;

use crate::{BugKind, Subject};

/// Iterations per thread and round of the naive stress test.
const ITERS: usize = 200;

/// Java's default capacity.
pub const DEFAULT_CAPACITY: usize = 10;

/// The most elements a vector may hold (Java would throw `OutOfMemoryError` sooner or
/// later).
pub const MAX_CAPACITY: usize = 1 << 16;

/// The elements and Java's capacity bookkeeping.
struct Elements {
    data: Vec<i32>,
    /// Java's `elementData.length`.
    capacity: usize,
    /// Java's `capacityIncrement`: 0 doubles the capacity.
    increment: usize,
}

impl Elements {
    fn new(capacity: usize, increment: usize) -> Self {
        let capacity = capacity.min(MAX_CAPACITY);
        Elements {
            data: Vec::with_capacity(capacity),
            capacity,
            increment,
        }
    }

    /// Java's `ensureCapacityHelper`.
    fn ensure_capacity(&mut self, min: usize) {
        assert!(min <= MAX_CAPACITY, "OutOfMemoryError: capacity {min}");
        if min > self.capacity {
            let grown = if self.increment > 0 {
                self.capacity.saturating_add(self.increment)
            } else {
                self.capacity.saturating_mul(2)
            };
            self.capacity = grown.max(min).min(MAX_CAPACITY);
        }
    }

    fn push(&mut self, e: i32) {
        self.ensure_capacity(self.data.len() + 1);
        self.data.push(e);
    }

    fn insert(&mut self, e: i32, index: usize) {
        let len = self.data.len();
        assert!(
            index <= len,
            "ArrayIndexOutOfBoundsException: {index} > {len}"
        );
        self.ensure_capacity(len + 1);
        self.data.insert(index, e);
    }

    fn check_index(&self, index: usize) {
        let len = self.data.len();
        assert!(
            index < len,
            "ArrayIndexOutOfBoundsException: {index} >= {len}"
        );
    }

    fn at(&self, index: usize) -> i32 {
        self.check_index(index);
        self.data[index]
    }

    fn set(&mut self, e: i32, index: usize) {
        self.check_index(index);
        self.data[index] = e;
    }

    fn remove_at(&mut self, index: usize) -> i32 {
        self.check_index(index);
        self.data.remove(index)
    }

    fn remove_element(&mut self, e: i32) -> bool {
        match self.data.iter().position(|x| *x == e) {
            Some(i) => {
                self.data.remove(i);
                true
            }
            None => false,
        }
    }

    fn set_size(&mut self, size: usize) {
        self.ensure_capacity(size);
        self.data.resize(size, 0);
    }

    fn trim(&mut self) {
        self.capacity = self.data.len();
        self.data.shrink_to_fit();
    }

    fn index_of(&self, e: i32, from: usize) -> Option<usize> {
        let from = from.min(self.data.len());
        self.data[from..]
            .iter()
            .position(|x| *x == e)
            .map(|i| i + from)
    }

    /// Java's `lastIndexOf(elem, index)`: searches backwards from `index`, which must be an
    /// index of an element.
    fn last_index_of(&self, e: i32, index: usize) -> Option<usize> {
        let len = self.data.len();
        assert!(index < len, "IndexOutOfBoundsException: {index} >= {len}");
        self.data[..=index].iter().rposition(|x| *x == e)
    }
}

/// A growable array of integers that threads share, after JDK 1.1.7's `java.util.Vector`:
/// every method locks the elements, except `last_index_of`, which reads the length and then
/// calls `last_index_of_from(e, len - 1)`, and `elements`, which enumerates them as JDK 1.1's
/// `VectorEnumerator` does (check the length, then take the next element). With
/// `v.last_index_of(1)` on one thread and `v.remove_element_at(0)` (or any removal) on
/// another, the vector can shrink in between, and `last_index_of_from` panics on a start
/// index past the end (`elements` on the missing element).
pub struct Vector {
    elements: Mutex<Elements>,
}

impl Default for Vector {
    fn default() -> Self {
        Vector::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl Vector {
    /// An empty vector with Java's default capacity.
    pub fn new() -> Self {
        Vector::with_capacity(DEFAULT_CAPACITY)
    }

    /// An empty vector with room for `capacity` elements (at most [`MAX_CAPACITY`]).
    pub fn with_capacity(capacity: usize) -> Self {
        Vector::with_capacity_increment(capacity, 0)
    }

    /// An empty vector with room for `capacity` elements that grows by `increment` (0
    /// doubles it).
    pub fn with_capacity_increment(capacity: usize, increment: usize) -> Self {
        Vector {
            elements: Mutex::new(Elements::new(capacity, increment)),
        }
    }

    /// A vector holding `elements`.
    pub fn from_vec(elements: Vec<i32>) -> Self {
        let v = Vector::with_capacity(elements.len());
        v.elements.lock().unwrap().data = elements;
        v
    }

    /// Appends `e`.
    pub fn add_element(&self, e: i32) {
        self.elements.lock().unwrap().push(e);
    }

    /// Inserts `e` at `index`, shifting the later elements up.
    ///
    /// # Panics
    /// If `index` is greater than [`len`](Self::len).
    pub fn insert_element_at(&self, e: i32, index: usize) {
        self.elements.lock().unwrap().insert(e, index);
    }

    /// Removes the first occurrence of `e`; returns whether there was one.
    pub fn remove_element(&self, e: i32) -> bool {
        self.elements.lock().unwrap().remove_element(e)
    }

    /// Removes the element at `index`; returns it.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn remove_element_at(&self, index: usize) -> i32 {
        self.elements.lock().unwrap().remove_at(index)
    }

    /// Removes every element.
    pub fn remove_all_elements(&self) {
        self.elements.lock().unwrap().data.clear();
    }

    /// Replaces the element at `index` with `e`.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn set_element_at(&self, e: i32, index: usize) {
        self.elements.lock().unwrap().set(e, index);
    }

    /// The element at `index`.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn element_at(&self, index: usize) -> i32 {
        self.elements.lock().unwrap().at(index)
    }

    /// The first element.
    pub fn first_element(&self) -> Option<i32> {
        self.elements.lock().unwrap().data.first().copied()
    }

    /// The last element.
    pub fn last_element(&self) -> Option<i32> {
        self.elements.lock().unwrap().data.last().copied()
    }

    /// The index of the first occurrence of `e`.
    pub fn index_of(&self, e: i32) -> Option<usize> {
        self.elements.lock().unwrap().index_of(e, 0)
    }

    /// The index of the last occurrence of `e`.
    pub fn last_index_of(&self, e: i32) -> Option<usize> {
        let count = self.len();
        let last = count.checked_sub(1)?;
        // BUG: the vector is not locked between `len` and the search: another thread can
        // remove elements, and `last` is no longer an index.
        self.last_index_of_from(e, last)
    }

    /// The index of the last occurrence of `e` at `index` or earlier.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn last_index_of_from(&self, e: i32, index: usize) -> Option<usize> {
        self.elements.lock().unwrap().last_index_of(e, index)
    }

    /// Whether `e` is an element.
    pub fn contains(&self, e: i32) -> bool {
        self.index_of(e).is_some()
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.elements.lock().unwrap().data.len()
    }

    /// Whether there is no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Java's capacity: how many elements fit before the next growth.
    pub fn capacity(&self) -> usize {
        self.elements.lock().unwrap().capacity
    }

    /// Grows the capacity to at least `min`.
    ///
    /// # Panics
    /// If `min` is greater than [`MAX_CAPACITY`].
    pub fn ensure_capacity(&self, min: usize) {
        self.elements.lock().unwrap().ensure_capacity(min);
    }

    /// Truncates, or pads with zeros, to `size` elements.
    ///
    /// # Panics
    /// If `size` is greater than [`MAX_CAPACITY`].
    pub fn set_size(&self, size: usize) {
        self.elements.lock().unwrap().set_size(size);
    }

    /// Shrinks the capacity to the length.
    pub fn trim_to_size(&self) {
        self.elements.lock().unwrap().trim();
    }

    /// The elements, in the order Java's `elements()` enumeration hands them out: while
    /// `hasMoreElements()` (`count < elementCount`, no lock), `nextElement()` (locked).
    pub fn elements(&self) -> Vec<i32> {
        let mut enumerated = Vec::new();
        let mut count = 0;
        while count < self.len() {
            // BUG: the vector can shrink between `hasMoreElements` and `nextElement`.
            let e = self.next_element(count);
            enumerated.push(e);
            count += 1;
        }
        enumerated
    }
}

impl Vector {
    /// The `nextElement()` of Java's `VectorEnumerator`: the element at `count`, which
    /// `hasMoreElements()` saw below the length.
    fn next_element(&self, count: usize) -> i32 {
        let elements = self.elements.lock().unwrap();
        *elements
            .data
            .get(count)
            .expect("NoSuchElementException: VectorEnumerator")
    }
}

/// [`Vector`] with `last_index_of` and `elements` fixed: each reads the length and the
/// elements under one lock section, as the later JDKs' `synchronized lastIndexOf(Object)`
/// does.
#[derive(Default)]
pub struct FixedVector(Vector);

#[thread_safe(test = false, statement_points = "always")]
impl FixedVector {
    /// An empty vector with Java's default capacity.
    pub fn new() -> Self {
        FixedVector(Vector::new())
    }

    /// An empty vector with room for `capacity` elements (at most [`MAX_CAPACITY`]).
    pub fn with_capacity(capacity: usize) -> Self {
        FixedVector(Vector::with_capacity(capacity))
    }

    /// An empty vector with room for `capacity` elements that grows by `increment` (0
    /// doubles it).
    pub fn with_capacity_increment(capacity: usize, increment: usize) -> Self {
        FixedVector(Vector::with_capacity_increment(capacity, increment))
    }

    /// A vector holding `elements`.
    pub fn from_vec(elements: Vec<i32>) -> Self {
        FixedVector(Vector::from_vec(elements))
    }

    /// Appends `e`.
    pub fn add_element(&self, e: i32) {
        self.0.add_element(e);
    }

    /// Inserts `e` at `index`, shifting the later elements up.
    ///
    /// # Panics
    /// If `index` is greater than [`len`](Self::len).
    pub fn insert_element_at(&self, e: i32, index: usize) {
        self.0.insert_element_at(e, index);
    }

    /// Removes the first occurrence of `e`; returns whether there was one.
    pub fn remove_element(&self, e: i32) -> bool {
        self.0.remove_element(e)
    }

    /// Removes the element at `index`; returns it.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn remove_element_at(&self, index: usize) -> i32 {
        self.0.remove_element_at(index)
    }

    /// Removes every element.
    pub fn remove_all_elements(&self) {
        self.0.remove_all_elements();
    }

    /// Replaces the element at `index` with `e`.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn set_element_at(&self, e: i32, index: usize) {
        self.0.set_element_at(e, index);
    }

    /// The element at `index`.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn element_at(&self, index: usize) -> i32 {
        self.0.element_at(index)
    }

    /// The first element.
    pub fn first_element(&self) -> Option<i32> {
        self.0.first_element()
    }

    /// The last element.
    pub fn last_element(&self) -> Option<i32> {
        self.0.last_element()
    }

    /// The index of the first occurrence of `e`.
    pub fn index_of(&self, e: i32) -> Option<usize> {
        self.0.index_of(e)
    }

    /// The index of the last occurrence of `e`.
    pub fn last_index_of(&self, e: i32) -> Option<usize> {
        last_index_of(&self.0.elements.lock().unwrap(), e)
    }

    /// The index of the last occurrence of `e` at `index` or earlier.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn last_index_of_from(&self, e: i32, index: usize) -> Option<usize> {
        self.0.last_index_of_from(e, index)
    }

    /// Whether `e` is an element.
    pub fn contains(&self, e: i32) -> bool {
        self.0.contains(e)
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is no element.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Java's capacity: how many elements fit before the next growth.
    pub fn capacity(&self) -> usize {
        self.0.capacity()
    }

    /// Grows the capacity to at least `min`.
    ///
    /// # Panics
    /// If `min` is greater than [`MAX_CAPACITY`].
    pub fn ensure_capacity(&self, min: usize) {
        self.0.ensure_capacity(min);
    }

    /// Truncates, or pads with zeros, to `size` elements.
    ///
    /// # Panics
    /// If `size` is greater than [`MAX_CAPACITY`].
    pub fn set_size(&self, size: usize) {
        self.0.set_size(size);
    }

    /// Shrinks the capacity to the length.
    pub fn trim_to_size(&self) {
        self.0.trim_to_size();
    }

    /// The elements, in order, copied under the lock.
    pub fn elements(&self) -> Vec<i32> {
        self.0.elements.lock().unwrap().data.clone()
    }
}

/// `lastIndexOf(e, elementCount - 1)` under the caller's lock.
fn last_index_of(elements: &Elements, e: i32) -> Option<usize> {
    let last = elements.data.len().checked_sub(1)?;
    elements.last_index_of(e, last)
}

/// The V9 subject.
pub fn subject() -> Subject {
    Subject {
        id: "V9",
        name: "vector_1_1",
        original: "java.util.Vector (JDK 1.1.7)",
        bug: BugKind::Atomicity,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<Vector>(c),
        check_twin: |c| threadsafe_rt::check::<FixedVector>(c),
        naive: |budget| {
            crate::naive::race(
                budget,
                ITERS,
                || Vector::from_vec(vec![1, 2, 3]),
                |v| {
                    v.last_index_of(1);
                },
                |v| {
                    v.remove_element_at(0);
                    v.insert_element_at(1, 0);
                },
            )
        },
    }
}
