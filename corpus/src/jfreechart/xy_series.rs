//! V16 of MAPTest (Wang et al., ASE 2019, Table II; bug 11 of Pradel & Gross, Table 1):
//! `org.jfree.data.XYSeries` (JFreeChart 0.9.8), a data race. `update`, `remove` and
//! `add_or_update` find the index of an x value in one lock section and use it in another;
//! a `remove`, `delete` or `clear` on another thread in between shrinks the list under them
//! (Java's `ConcurrentModificationException` / `IndexOutOfBoundsException`).

use std::cmp::Ordering as CmpOrdering;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use threadsafe_rt::thread_safe;

use crate::whole::Whole;
use crate::{BugKind, Subject};

/// Rounds of calls per thread in the naive stress test.
const ITERS: usize = 1_000;

/// One data item: an x value and a y value, possibly missing (Java's `null`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct XYDataItem {
    x: f64,
    y: Option<f64>,
}

/// The items and the rules that keep them, under the series' lock.
struct Items {
    list: Vec<XYDataItem>,
    auto_sort: bool,
    allow_duplicate_x: bool,
}

impl Items {
    /// The index of the first item with `x`: a binary search when sorted (x values are
    /// ordered by `f64::total_cmp`), else a scan.
    fn find(&self, x: f64) -> Option<usize> {
        if self.auto_sort {
            let at = self
                .list
                .partition_point(|i| i.x.total_cmp(&x) == CmpOrdering::Less);
            self.list
                .get(at)
                .is_some_and(|i| i.x.total_cmp(&x).is_eq())
                .then_some(at)
        } else {
            self.list.iter().position(|i| i.x.total_cmp(&x).is_eq())
        }
    }

    /// Adds an item (after those with the same x when sorted), then drops the first item if
    /// there are more than `max`; `false` if `x` is taken and duplicates are not allowed.
    fn add(&mut self, x: f64, y: Option<f64>, max: usize) -> bool {
        if !self.allow_duplicate_x && self.find(x).is_some() {
            return false;
        }
        let at = if self.auto_sort {
            self.list
                .partition_point(|i| i.x.total_cmp(&x) != CmpOrdering::Greater)
        } else {
            self.list.len()
        };
        self.list.insert(at, XYDataItem { x, y });
        if self.list.len() > max {
            self.list.remove(0);
        }
        true
    }

    /// Keeps the last `max` items.
    fn truncate_front(&mut self, max: usize) {
        let excess = self.list.len().saturating_sub(max);
        self.list.drain(..excess);
    }

    /// Removes the item at `index`, if there is one.
    fn remove_at(&mut self, index: usize) -> Option<(f64, Option<f64>)> {
        (index < self.list.len()).then(|| {
            let item = self.list.remove(index);
            (item.x, item.y)
        })
    }

    /// Removes the items at indices `start..=end` that exist; returns how many.
    fn delete(&mut self, start: usize, end: usize) -> usize {
        let end = end.saturating_add(1).min(self.list.len());
        let start = start.min(end);
        self.list.drain(start..end).count()
    }
}

/// A series of (x, y) items, ported from JFreeChart's `XYSeries`: kept sorted by x or in
/// insertion order, with or without duplicate x values, pruned to a maximum item count (the
/// first items go first).
///
/// `update(x, y)` calls `index_of(x)`, one lock section, then sets the item at that index in
/// another, as Java's `indexOf` then `getDataItem(index).setY(y)`: with `s.update(1.0, None)`
/// on one thread and `s.remove(0.0)` on another, the list can be shorter than the index.
pub struct XYSeries {
    items: Mutex<Items>,
    maximum_item_count: AtomicUsize,
}

impl Default for XYSeries {
    fn default() -> Self {
        XYSeries::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl XYSeries {
    /// An empty series, sorted, allowing duplicate x values.
    pub fn new() -> Self {
        XYSeries::with_options(true, true)
    }

    /// An empty series, sorted by x if `auto_sort`, allowing duplicate x values if
    /// `allow_duplicate_x`.
    pub fn with_options(auto_sort: bool, allow_duplicate_x: bool) -> Self {
        XYSeries {
            items: Mutex::new(Items {
                list: Vec::new(),
                auto_sort,
                allow_duplicate_x,
            }),
            maximum_item_count: AtomicUsize::new(usize::MAX),
        }
    }

    /// A sorted series holding `points`.
    pub fn from_points(points: Vec<(f64, f64)>) -> Self {
        let series = XYSeries::new();
        for (x, y) in points {
            series.add(x, Some(y));
        }
        series
    }

    /// The number of items.
    pub fn item_count(&self) -> usize {
        self.items.lock().unwrap().list.len()
    }

    /// Keeps at most `count` items, dropping the first ones now.
    pub fn set_maximum_item_count(&self, count: usize) {
        self.maximum_item_count.store(count, Ordering::SeqCst);
        self.items.lock().unwrap().truncate_front(count);
    }

    /// Adds an item (after those with the same x when sorted), then drops the first item if
    /// there are more than the maximum; `false`, and no change, if `x` is taken and duplicates
    /// are not allowed (Java: `SeriesException`).
    pub fn add(&self, x: f64, y: Option<f64>) -> bool {
        let max = self.maximum_item_count.load(Ordering::SeqCst);
        self.items.lock().unwrap().add(x, y, max)
    }

    /// The index of the first item with `x`, if there is one.
    pub fn index_of(&self, x: f64) -> Option<usize> {
        self.items.lock().unwrap().find(x)
    }

    /// The y value of the item at `index` (`None` if there is no item or its y is missing).
    pub fn y_value(&self, index: usize) -> Option<f64> {
        self.items.lock().unwrap().list.get(index).and_then(|i| i.y)
    }

    /// Sets the y value of the first item with `x`; `false`, and no change, if there is none
    /// (Java: `SeriesException`).
    pub fn update(&self, x: f64, y: Option<f64>) -> bool {
        let Some(index) = self.index_of(x) else {
            return false;
        };
        // BUG: the list may have shrunk since the index was found.
        self.items.lock().unwrap().list[index].y = y;
        true
    }

    /// Sets the y value of the first item with `x`, adding an item if there is none; returns
    /// the old y value (`None` if there was no item).
    pub fn add_or_update(&self, x: f64, y: Option<f64>) -> Option<Option<f64>> {
        match self.index_of(x) {
            Some(index) => {
                // BUG: the list may have shrunk since the index was found.
                let old = self.items.lock().unwrap().list[index].y;
                self.items.lock().unwrap().list[index].y = y;
                Some(old)
            }
            None => {
                self.add(x, y);
                None
            }
        }
    }

    /// Removes the first item with `x`; returns its y value (`None` if there was no item).
    pub fn remove(&self, x: f64) -> Option<Option<f64>> {
        let index = self.index_of(x)?;
        // BUG: the list may have shrunk since the index was found.
        let item = self.items.lock().unwrap().list.remove(index);
        Some(item.y)
    }

    /// Removes the item at `index`; returns it, `(x, y)`, if there was one.
    pub fn remove_at(&self, index: usize) -> Option<(f64, Option<f64>)> {
        self.items.lock().unwrap().remove_at(index)
    }

    /// Removes the items at indices `start..=end` that exist; returns how many it removed.
    pub fn delete(&self, start: usize, end: usize) -> usize {
        self.items.lock().unwrap().delete(start, end)
    }

    /// Removes every item.
    pub fn clear(&self) {
        self.items.lock().unwrap().list.clear();
    }

    /// The x values, in order.
    pub fn x_values(&self) -> Vec<f64> {
        self.items
            .lock()
            .unwrap()
            .list
            .iter()
            .map(|i| i.x)
            .collect()
    }
}

/// [`XYSeries`] fixed: `update`, `add_or_update` and `remove` find the index and use it
/// under one lock section, so a concurrent removal makes them find the item or not, never an
/// index past the end.
///
/// Every call also holds one lock for its whole length (`whole.rs`): the methods kept from
/// the Java class that work in several lock sections are one step each, so the results
/// oracle has nothing to report on the twin.
#[derive(Default)]
pub struct FixedXYSeries(XYSeries, Whole);

#[thread_safe(test = false, statement_points = "always")]
impl FixedXYSeries {
    /// An empty series, sorted, allowing duplicate x values.
    pub fn new() -> Self {
        FixedXYSeries(XYSeries::new(), Whole::default())
    }

    /// An empty series, sorted by x if `auto_sort`, allowing duplicate x values if
    /// `allow_duplicate_x`.
    pub fn with_options(auto_sort: bool, allow_duplicate_x: bool) -> Self {
        FixedXYSeries(
            XYSeries::with_options(auto_sort, allow_duplicate_x),
            Whole::default(),
        )
    }

    /// A sorted series holding `points`.
    pub fn from_points(points: Vec<(f64, f64)>) -> Self {
        FixedXYSeries(XYSeries::from_points(points), Whole::default())
    }

    /// The number of items.
    pub fn item_count(&self) -> usize {
        let _whole = self.1.hold();
        self.0.item_count()
    }

    /// Keeps at most `count` items, dropping the first ones now.
    pub fn set_maximum_item_count(&self, count: usize) {
        let _whole = self.1.hold();
        self.0.set_maximum_item_count(count);
    }

    /// Adds an item (after those with the same x when sorted), then drops the first item if
    /// there are more than the maximum; `false`, and no change, if `x` is taken and duplicates
    /// are not allowed (Java: `SeriesException`).
    pub fn add(&self, x: f64, y: Option<f64>) -> bool {
        let _whole = self.1.hold();
        self.0.add(x, y)
    }

    /// The index of the first item with `x`, if there is one.
    pub fn index_of(&self, x: f64) -> Option<usize> {
        let _whole = self.1.hold();
        self.0.index_of(x)
    }

    /// The y value of the item at `index` (`None` if there is no item or its y is missing).
    pub fn y_value(&self, index: usize) -> Option<f64> {
        let _whole = self.1.hold();
        self.0.y_value(index)
    }

    /// Sets the y value of the first item with `x`; `false`, and no change, if there is none
    /// (Java: `SeriesException`).
    pub fn update(&self, x: f64, y: Option<f64>) -> bool {
        let _whole = self.1.hold();
        let mut items = self.0.items.lock().unwrap();
        match items.find(x) {
            Some(index) => {
                items.list[index].y = y;
                true
            }
            None => false,
        }
    }

    /// Sets the y value of the first item with `x`, adding an item if there is none; returns
    /// the old y value (`None` if there was no item).
    pub fn add_or_update(&self, x: f64, y: Option<f64>) -> Option<Option<f64>> {
        let _whole = self.1.hold();
        let max = self.0.maximum_item_count.load(Ordering::SeqCst);
        let mut items = self.0.items.lock().unwrap();
        match items.find(x) {
            Some(index) => Some(std::mem::replace(&mut items.list[index].y, y)),
            None => {
                items.add(x, y, max);
                None
            }
        }
    }

    /// Removes the first item with `x`; returns its y value (`None` if there was no item).
    pub fn remove(&self, x: f64) -> Option<Option<f64>> {
        let _whole = self.1.hold();
        let mut items = self.0.items.lock().unwrap();
        let index = items.find(x)?;
        Some(items.list.remove(index).y)
    }

    /// Removes the item at `index`; returns it, `(x, y)`, if there was one.
    pub fn remove_at(&self, index: usize) -> Option<(f64, Option<f64>)> {
        let _whole = self.1.hold();
        self.0.remove_at(index)
    }

    /// Removes the items at indices `start..=end` that exist; returns how many it removed.
    pub fn delete(&self, start: usize, end: usize) -> usize {
        let _whole = self.1.hold();
        self.0.delete(start, end)
    }

    /// Removes every item.
    pub fn clear(&self) {
        let _whole = self.1.hold();
        self.0.clear();
    }

    /// The x values, in order.
    pub fn x_values(&self) -> Vec<f64> {
        let _whole = self.1.hold();
        self.0.x_values()
    }
}

/// The subject: [`XYSeries`] and its twin.
pub fn subject() -> Subject {
    Subject {
        id: "V16",
        name: "xy_series",
        original: "org.jfree.data.XYSeries (JFreeChart 0.9.8)",
        bug: BugKind::DataRace,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<XYSeries>(c),
        check_twin: |c| threadsafe_rt::check::<FixedXYSeries>(c),
        naive: |budget: Duration| {
            crate::naive::race(
                budget,
                ITERS,
                || XYSeries::from_points(vec![(0.0, 1.0), (1.0, 2.0)]),
                |s| {
                    s.update(1.0, None);
                },
                |s| {
                    s.remove(0.0);
                },
            )
        },
    }
}
