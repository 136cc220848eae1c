//! V10 of MAPTest: `java.util.Vector` (JDK 1.4.2), an atomicity violation. The bulk methods
//! inherited from `AbstractCollection` (`containsAll`, `removeAll`, `retainAll`) walk a list
//! with an iterator whose `hasNext()` (`cursor != size()`) and `next()` (`get(cursor)`) lock
//! separately; a thread that removes elements between the two makes `next()` read past the
//! end, and the iterator throws `ConcurrentModificationException`.

use std::sync::Mutex;

use threadsafe_rt::thread_safe;

use crate::whole::Whole;
use crate::{BugKind, Subject};

/// Iterations per thread and round of the naive stress test.
const ITERS: usize = 200;

/// The most elements a vector may hold (Java would throw `OutOfMemoryError` sooner or
/// later).
pub const MAX_LEN: usize = 1 << 16;

/// A growable list of integers that threads share, after JDK 1.4.2's `java.util.Vector`.
/// Every method locks the list, but `contains_all`, `remove_all` and `retain_all` walk a list
/// (the argument, or `self`) with a cursor that checks `cursor != len()` and then calls
/// `get(cursor)`, each in its own lock section, so that they never hold two locks (the
/// argument may be `self`). With `v.contains_all(&v)` on one thread and `v.remove_at(0)` on
/// another, the list can shrink between the check and the `get`, and the walk panics on the
/// missing element.
pub struct Vector {
    data: Mutex<Vec<i32>>,
}

impl Default for Vector {
    fn default() -> Self {
        Vector::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl Vector {
    /// An empty vector.
    pub fn new() -> Self {
        Vector::with_capacity(10)
    }

    /// An empty vector with room for `capacity` elements (at most [`MAX_LEN`]).
    pub fn with_capacity(capacity: usize) -> Self {
        Vector {
            data: Mutex::new(Vec::with_capacity(capacity.min(MAX_LEN))),
        }
    }

    /// A vector holding `elements`.
    pub fn from_vec(elements: Vec<i32>) -> Self {
        Vector {
            data: Mutex::new(elements),
        }
    }

    /// Appends `e`.
    pub fn add(&self, e: i32) {
        push(&mut self.data.lock().unwrap(), e);
    }

    /// Inserts `e` at `index`, shifting the later elements up.
    ///
    /// # Panics
    /// If `index` is greater than [`len`](Self::len).
    pub fn insert(&self, index: usize, e: i32) {
        insert(&mut self.data.lock().unwrap(), index, e);
    }

    /// The element at `index`, `None` past the end.
    pub fn get(&self, index: usize) -> Option<i32> {
        self.data.lock().unwrap().get(index).copied()
    }

    /// Replaces the element at `index` with `e`; returns the old element.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn set(&self, index: usize, e: i32) -> i32 {
        set(&mut self.data.lock().unwrap(), index, e)
    }

    /// Removes the element at `index`; returns it.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn remove_at(&self, index: usize) -> i32 {
        remove_at(&mut self.data.lock().unwrap(), index)
    }

    /// Removes the first occurrence of `e`; returns whether there was one.
    pub fn remove_item(&self, e: i32) -> bool {
        remove_item(&mut self.data.lock().unwrap(), e)
    }

    /// Removes the elements `from..to`.
    ///
    /// # Panics
    /// If `from..to` is not a range of the elements.
    pub fn remove_range(&self, from: usize, to: usize) {
        remove_range(&mut self.data.lock().unwrap(), from, to);
    }

    /// Removes every element.
    pub fn clear(&self) {
        self.data.lock().unwrap().clear();
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.data.lock().unwrap().len()
    }

    /// Whether there is no element.
    pub fn is_empty(&self) -> bool {
        self.data.lock().unwrap().is_empty()
    }

    /// Whether `e` is an element.
    pub fn contains(&self, e: i32) -> bool {
        self.data.lock().unwrap().contains(&e)
    }

    /// The index of the first occurrence of `e`.
    pub fn index_of(&self, e: i32) -> Option<usize> {
        self.data.lock().unwrap().iter().position(|x| *x == e)
    }

    /// The index of the last occurrence of `e`.
    pub fn last_index_of(&self, e: i32) -> Option<usize> {
        self.data.lock().unwrap().iter().rposition(|x| *x == e)
    }

    /// A copy of the elements `from..to` (Java's `subList`, copied).
    ///
    /// # Panics
    /// If `from..to` is not a range of the elements.
    pub fn sub_list(&self, from: usize, to: usize) -> Vec<i32> {
        sub_list(&self.data.lock().unwrap(), from, to)
    }

    /// A copy of the elements.
    pub fn to_vec(&self) -> Vec<i32> {
        self.data.lock().unwrap().clone()
    }

    /// Appends the elements of `other`; `other` may be `self`.
    pub fn add_all(&self, other: &Vector) {
        let copied = other.to_vec();
        extend(&mut self.data.lock().unwrap(), copied);
    }

    /// Whether every element of `other` is an element of this vector; `other` may be
    /// `self`.
    pub fn contains_all(&self, other: &Vector) -> bool {
        let mut cursor = 0;
        while cursor != other.len() {
            // BUG: `other` can shrink between `len` and `get`.
            let e = other.get(cursor).expect(CME);
            if !self.contains(e) {
                return false;
            }
            cursor += 1;
        }
        true
    }

    /// Removes every element that is also an element of `other`; returns whether any was
    /// removed. `other` may be `self`.
    pub fn remove_all(&self, other: &Vector) -> bool {
        self.filter(other, false)
    }

    /// Removes every element that is not an element of `other`; returns whether any was
    /// removed. `other` may be `self`.
    pub fn retain_all(&self, other: &Vector) -> bool {
        self.filter(other, true)
    }

    /// Java's `toString()`: `[1, 2, 3]`.
    pub fn render(&self) -> String {
        render(&self.data.lock().unwrap())
    }

    /// Removes the elements whose membership in `other` is not `keep`, walking `self` with
    /// a cursor (Java's `AbstractCollection.removeAll` and `retainAll`).
    fn filter(&self, other: &Vector, keep: bool) -> bool {
        let mut modified = false;
        let mut cursor = 0;
        while cursor != self.len() {
            // BUG: `self` can shrink between `len` and `get`.
            let e = self.get(cursor).expect(CME);
            if other.contains(e) == keep {
                cursor += 1;
            } else {
                self.remove_at(cursor);
                modified = true;
            }
        }
        modified
    }
}

/// What a cursor that reads past the end reports.
const CME: &str = "ConcurrentModificationException: the list shrank under its iterator";

/// Appends `e`.
fn push(data: &mut Vec<i32>, e: i32) {
    assert!(data.len() < MAX_LEN, "OutOfMemoryError");
    data.push(e);
}

/// Appends `copied`.
fn extend(data: &mut Vec<i32>, copied: Vec<i32>) {
    assert!(data.len() + copied.len() <= MAX_LEN, "OutOfMemoryError");
    data.extend(copied);
}

/// Java's bounds check of an element index.
fn check_index(data: &[i32], index: usize) {
    let len = data.len();
    assert!(
        index < len,
        "ArrayIndexOutOfBoundsException: Array index out of range: {index}"
    );
}

/// Inserts `e` at `index`.
fn insert(data: &mut Vec<i32>, index: usize, e: i32) {
    let len = data.len();
    assert!(
        index <= len,
        "ArrayIndexOutOfBoundsException: {index} > {len}"
    );
    push(data, e);
    data[index..].rotate_right(1);
}

/// Replaces `data[index]`; returns the old element.
fn set(data: &mut [i32], index: usize, e: i32) -> i32 {
    check_index(data, index);
    std::mem::replace(&mut data[index], e)
}

/// Removes `data[index]`.
fn remove_at(data: &mut Vec<i32>, index: usize) -> i32 {
    check_index(data, index);
    data.remove(index)
}

/// Removes the first `e`.
fn remove_item(data: &mut Vec<i32>, e: i32) -> bool {
    let found = data.iter().position(|x| *x == e);
    found.map(|i| data.remove(i)).is_some()
}

/// Java's bounds check of a range.
fn check_range(data: &[i32], from: usize, to: usize) {
    let len = data.len();
    assert!(
        from <= to && to <= len,
        "IndexOutOfBoundsException: range {from}..{to} of {len} elements"
    );
}

/// Removes `data[from..to]`.
fn remove_range(data: &mut Vec<i32>, from: usize, to: usize) {
    check_range(data, from, to);
    data.drain(from..to);
}

/// A copy of `data[from..to]`.
fn sub_list(data: &[i32], from: usize, to: usize) -> Vec<i32> {
    check_range(data, from, to);
    data[from..to].to_vec()
}

/// `[1, 2, 3]`.
fn render(data: &[i32]) -> String {
    let parts: Vec<String> = data.iter().map(i32::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// [`Vector`] with the bulk methods fixed: they lock both lists (in address order, so two
/// calls in opposite directions cannot deadlock; a list given itself takes its one lock) and
/// walk them under the locks, so a concurrent removal comes before or after the walk.
///
/// Every call also holds one lock for its whole length (`whole.rs`): the methods kept from
/// the Java class that work in several lock sections are one step each, so the results
/// oracle has nothing to report on the twin.
#[derive(Default)]
pub struct FixedVector(Vector, Whole);

#[thread_safe(test = false, statement_points = "always")]
impl FixedVector {
    /// An empty vector.
    pub fn new() -> Self {
        FixedVector(Vector::new(), Whole::default())
    }

    /// An empty vector with room for `capacity` elements (at most [`MAX_LEN`]).
    pub fn with_capacity(capacity: usize) -> Self {
        FixedVector(Vector::with_capacity(capacity), Whole::default())
    }

    /// A vector holding `elements`.
    pub fn from_vec(elements: Vec<i32>) -> Self {
        FixedVector(Vector::from_vec(elements), Whole::default())
    }

    /// Appends `e`.
    pub fn add(&self, e: i32) {
        let _whole = self.1.hold();
        self.0.add(e);
    }

    /// Inserts `e` at `index`, shifting the later elements up.
    ///
    /// # Panics
    /// If `index` is greater than [`len`](Self::len).
    pub fn insert(&self, index: usize, e: i32) {
        let _whole = self.1.hold();
        self.0.insert(index, e);
    }

    /// The element at `index`, `None` past the end.
    pub fn get(&self, index: usize) -> Option<i32> {
        let _whole = self.1.hold();
        self.0.get(index)
    }

    /// Replaces the element at `index` with `e`; returns the old element.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn set(&self, index: usize, e: i32) -> i32 {
        let _whole = self.1.hold();
        self.0.set(index, e)
    }

    /// Removes the element at `index`; returns it.
    ///
    /// # Panics
    /// If `index` is not less than [`len`](Self::len).
    pub fn remove_at(&self, index: usize) -> i32 {
        let _whole = self.1.hold();
        self.0.remove_at(index)
    }

    /// Removes the first occurrence of `e`; returns whether there was one.
    pub fn remove_item(&self, e: i32) -> bool {
        let _whole = self.1.hold();
        self.0.remove_item(e)
    }

    /// Removes the elements `from..to`.
    ///
    /// # Panics
    /// If `from..to` is not a range of the elements.
    pub fn remove_range(&self, from: usize, to: usize) {
        let _whole = self.1.hold();
        self.0.remove_range(from, to);
    }

    /// Removes every element.
    pub fn clear(&self) {
        let _whole = self.1.hold();
        self.0.clear();
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        let _whole = self.1.hold();
        self.0.len()
    }

    /// Whether there is no element.
    pub fn is_empty(&self) -> bool {
        let _whole = self.1.hold();
        self.0.is_empty()
    }

    /// Whether `e` is an element.
    pub fn contains(&self, e: i32) -> bool {
        let _whole = self.1.hold();
        self.0.contains(e)
    }

    /// The index of the first occurrence of `e`.
    pub fn index_of(&self, e: i32) -> Option<usize> {
        let _whole = self.1.hold();
        self.0.index_of(e)
    }

    /// The index of the last occurrence of `e`.
    pub fn last_index_of(&self, e: i32) -> Option<usize> {
        let _whole = self.1.hold();
        self.0.last_index_of(e)
    }

    /// A copy of the elements `from..to` (Java's `subList`, copied).
    ///
    /// # Panics
    /// If `from..to` is not a range of the elements.
    pub fn sub_list(&self, from: usize, to: usize) -> Vec<i32> {
        let _whole = self.1.hold();
        self.0.sub_list(from, to)
    }

    /// A copy of the elements.
    pub fn to_vec(&self) -> Vec<i32> {
        let _whole = self.1.hold();
        self.0.to_vec()
    }

    /// Appends the elements of `other`; `other` may be `self`.
    pub fn add_all(&self, other: &FixedVector) {
        let _whole = self.1.hold_both(&other.1);
        self.0.add_all(&other.0);
    }

    /// Whether every element of `other` is an element of this vector; `other` may be
    /// `self`.
    pub fn contains_all(&self, other: &FixedVector) -> bool {
        let _whole = self.1.hold_both(&other.1);
        if std::ptr::eq(self, other) {
            return true;
        }
        with_both(&self.0.data, &other.0.data, |mine, theirs| {
            contains_all(mine, theirs)
        })
    }

    /// Removes every element that is also an element of `other`; returns whether any was
    /// removed. `other` may be `self`.
    pub fn remove_all(&self, other: &FixedVector) -> bool {
        let _whole = self.1.hold_both(&other.1);
        if std::ptr::eq(self, other) {
            return retain(&mut self.0.data.lock().unwrap(), &[], true);
        }
        with_both(&self.0.data, &other.0.data, |mine, theirs| {
            retain(mine, theirs, false)
        })
    }

    /// Removes every element that is not an element of `other`; returns whether any was
    /// removed. `other` may be `self`.
    pub fn retain_all(&self, other: &FixedVector) -> bool {
        let _whole = self.1.hold_both(&other.1);
        if std::ptr::eq(self, other) {
            return false;
        }
        with_both(&self.0.data, &other.0.data, |mine, theirs| {
            retain(mine, theirs, true)
        })
    }

    /// Java's `toString()`: `[1, 2, 3]`.
    pub fn render(&self) -> String {
        let _whole = self.1.hold();
        self.0.render()
    }
}

/// Runs `f` on two different vectors, both locked, the one at the lower address first:
/// every thread takes any two of them in the same order.
fn with_both<R>(
    mine: &Mutex<Vec<i32>>,
    theirs: &Mutex<Vec<i32>>,
    f: impl FnOnce(&mut Vec<i32>, &[i32]) -> R,
) -> R {
    if std::ptr::from_ref(mine) < std::ptr::from_ref(theirs) {
        let mut mine = mine.lock().unwrap();
        f(&mut mine, &theirs.lock().unwrap())
    } else {
        let theirs = theirs.lock().unwrap();
        f(&mut mine.lock().unwrap(), &theirs)
    }
}

/// Whether every element of `theirs` is in `mine`.
fn contains_all(mine: &[i32], theirs: &[i32]) -> bool {
    theirs.iter().all(|e| mine.contains(e))
}

/// Keeps the elements whose membership in `theirs` is `keep`; returns whether any was
/// removed.
fn retain(mine: &mut Vec<i32>, theirs: &[i32], keep: bool) -> bool {
    let before = mine.len();
    mine.retain(|e| theirs.contains(e) == keep);
    mine.len() != before
}

/// The V10 subject.
pub fn subject() -> Subject {
    Subject {
        id: "V10",
        name: "vector_1_4",
        original: "java.util.Vector (JDK 1.4.2)",
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
                    v.contains_all(v);
                },
                |v| {
                    v.remove_at(0);
                    v.add(1);
                },
            )
        },
    }
}
