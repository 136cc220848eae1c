//! V14 of MAPTest (Wang et al., ASE 2019, Table II; bug 10 of Pradel & Gross, Table 1):
//! `org.jfree.data.time.TimeSeries` (JFreeChart 0.9.8), a data race. The item list shrinks
//! under `delete`, `clear` and pruning to a maximum item count or age; `next_time_period`,
//! `update` and `value` count the items or find an index in one lock section and take the
//! item in another, after a concurrent removal (Java's `NullPointerException`).
use std::time::Duration;

use threadsafe_rt::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use threadsafe_rt::sync::Mutex;
use threadsafe_rt::thread_safe;

use crate::whole::Whole;
use crate::{BugKind, Subject};

/// Rounds of calls per thread in the naive stress test.
const ITERS: usize = 1_000;

/// One observation: a time period (a day number, as a `RegularTimePeriod`'s serial index)
/// and its value, possibly missing (Java's `null`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Item {
    period: i32,
    value: Option<f64>,
}

/// A series of values over time periods, ported from JFreeChart's `TimeSeries`: items sorted
/// by period, at most one per period, pruned to a maximum item count (the oldest go first)
/// and to a history of at most so many periods before the latest one.
///
/// `next_time_period` counts the items, then takes the last one by index, as Java's
/// `getTimePeriod(getItemCount() - 1)`; `update(period, value)` looks the period up with a
/// binary search in one lock section, then takes the item at the index found in another, as
/// Java's `getIndex` then `getDataItem(index)`. With `s.next_time_period()` or
/// `s.update(3, None)` on one thread and `s.delete(1)` on another, the item can be gone.
pub struct TimeSeries {
    name: String,
    items: Mutex<Vec<Item>>,
    maximum_item_count: AtomicUsize,
    history_count: AtomicU32,
}

#[thread_safe(test = false, statement_points = "always")]
impl TimeSeries {
    /// An empty series named `name`, with no limit on its items.
    pub fn new(name: &str) -> Self {
        TimeSeries::with_maximum_item_count(name, usize::MAX)
    }

    /// An empty series named `name` that keeps at most `count` items.
    pub fn with_maximum_item_count(name: &str, count: usize) -> Self {
        TimeSeries {
            name: name.to_string(),
            items: Mutex::new(Vec::new()),
            maximum_item_count: AtomicUsize::new(count),
            history_count: AtomicU32::new(0),
        }
    }

    /// A series named `"series"` with an item for each of `values`, for the periods
    /// `start`, `start + 1`, ... (as many as fit below `i32::MAX`).
    pub fn from_values(start: i32, values: Vec<f64>) -> Self {
        let series = TimeSeries::new("series");
        for (period, value) in (start..i32::MAX).zip(values) {
            series.add(period, Some(value));
        }
        series
    }

    /// The series' name.
    pub fn name(&self) -> String {
        self.name.clone()
    }

    /// The number of items.
    pub fn item_count(&self) -> usize {
        self.items.lock().unwrap().len()
    }

    /// Keeps at most `count` items, dropping the oldest ones now.
    pub fn set_maximum_item_count(&self, count: usize) {
        self.maximum_item_count.store(count, Ordering::SeqCst);
        let mut items = self.items.lock().unwrap();
        let excess = items.len().saturating_sub(count);
        items.drain(..excess);
    }

    /// Keeps the items of at most `periods` periods before the latest one (0: no limit),
    /// dropping older ones at the next addition.
    pub fn set_history_count(&self, periods: u32) {
        self.history_count.store(periods, Ordering::SeqCst);
    }

    /// The index of the item for `period`, if there is one.
    pub fn index_of(&self, period: i32) -> Option<usize> {
        self.items
            .lock()
            .unwrap()
            .binary_search_by_key(&period, |i| i.period)
            .ok()
    }

    /// The item at `index`, `(period, value)`, if there is one.
    pub fn data_item(&self, index: usize) -> Option<(i32, Option<f64>)> {
        self.items
            .lock()
            .unwrap()
            .get(index)
            .map(|i| (i.period, i.value))
    }

    /// The period after the latest item's, if there is an item (and it is not the last
    /// period).
    pub fn next_time_period(&self) -> Option<i32> {
        let count = self.item_count();
        if count == 0 {
            return None;
        }
        // BUG: the series may have shrunk since it was counted.
        let (last, _) = self
            .data_item(count - 1)
            .expect("the series has `count` items");
        last.checked_add(1)
    }

    /// The value for `period`: `None` if there is no item for it or its value is missing.
    pub fn value(&self, period: i32) -> Option<f64> {
        let index = self.index_of(period)?;
        // BUG: the item may be gone from `index` since it was found.
        let item = self.items.lock().unwrap().get(index).copied();
        item.expect("index_of found an item for the period").value
    }

    /// Adds an item for `period` and prunes the series; `false`, and no change, if there is
    /// one for `period` already (Java: `SeriesException`).
    pub fn add(&self, period: i32, value: Option<f64>) -> bool {
        {
            let mut items = self.items.lock().unwrap();
            match items.binary_search_by_key(&period, |i| i.period) {
                Ok(_) => return false,
                Err(at) => items.insert(at, Item { period, value }),
            }
        }
        self.prune();
        true
    }

    /// Sets the value for `period`; `false`, and no change, if there is no item for it.
    pub fn update(&self, period: i32, value: Option<f64>) -> bool {
        let Some(index) = self.index_of(period) else {
            return false;
        };
        // BUG: the item may be gone from `index` since it was found.
        let mut items = self.items.lock().unwrap();
        let item = items
            .get_mut(index)
            .expect("index_of found an item for the period");
        item.value = value;
        true
    }

    /// Sets the value for `period`, adding an item if there is none; returns the old value
    /// (`None` if there was no item).
    pub fn add_or_update(&self, period: i32, value: Option<f64>) -> Option<Option<f64>> {
        let old = self
            .items
            .lock()
            .unwrap()
            .iter_mut()
            .find_map(|i| (i.period == period).then(|| std::mem::replace(&mut i.value, value)));
        if old.is_none() {
            self.add(period, value);
        }
        old
    }

    /// Removes the item for `period`; returns whether there was one.
    pub fn delete(&self, period: i32) -> bool {
        let mut items = self.items.lock().unwrap();
        match items.binary_search_by_key(&period, |i| i.period) {
            Ok(index) => {
                items.remove(index);
                true
            }
            Err(_) => false,
        }
    }

    /// Removes the items at indices `start..=end` that exist; returns how many it removed.
    pub fn delete_range(&self, start: usize, end: usize) -> usize {
        let mut items = self.items.lock().unwrap();
        let end = end.saturating_add(1).min(items.len());
        let start = start.min(end);
        items.drain(start..end).count()
    }

    /// Removes every item.
    pub fn clear(&self) {
        self.items.lock().unwrap().clear();
    }

    /// Drops the oldest items beyond the maximum count, and those more than the history
    /// count of periods older than the latest (Java's `add` then `removeAgedItems`).
    fn prune(&self) {
        let max = self.maximum_item_count.load(Ordering::SeqCst);
        {
            let mut items = self.items.lock().unwrap();
            if items.len() > max {
                items.remove(0);
            }
        }
        let history = self.history_count.load(Ordering::SeqCst);
        let count = self.item_count();
        if history > 0 && count > 1 {
            // BUG: the list may have shrunk since it was counted.
            let (latest, _) = self
                .data_item(count - 1)
                .expect("the series has `count` items");
            let oldest_kept = i64::from(latest) - i64::from(history);
            self.items
                .lock()
                .unwrap()
                .retain(|i| i64::from(i.period) >= oldest_kept);
        }
    }
}

/// [`TimeSeries`] fixed: lookups by period find the index and use it under one lock
/// section, and pruning counts and removes under one, so a concurrent removal makes `update`
/// and `value` find the item or not, never an index past the end.
///
/// Every call also holds one lock for its whole length (`whole.rs`): the methods kept from
/// the Java class that work in several lock sections are one step each, so the results
/// oracle has nothing to report on the twin.
pub struct FixedTimeSeries(TimeSeries, Whole);

#[thread_safe(test = false, statement_points = "always")]
impl FixedTimeSeries {
    /// An empty series named `name`, with no limit on its items.
    pub fn new(name: &str) -> Self {
        FixedTimeSeries(TimeSeries::new(name), Whole::default())
    }

    /// An empty series named `name` that keeps at most `count` items.
    pub fn with_maximum_item_count(name: &str, count: usize) -> Self {
        FixedTimeSeries(
            TimeSeries::with_maximum_item_count(name, count),
            Whole::default(),
        )
    }

    /// A series named `"series"` with an item for each of `values`, for the periods
    /// `start`, `start + 1`, ... (as many as fit below `i32::MAX`).
    pub fn from_values(start: i32, values: Vec<f64>) -> Self {
        FixedTimeSeries(TimeSeries::from_values(start, values), Whole::default())
    }

    /// The series' name.
    pub fn name(&self) -> String {
        let _whole = self.1.hold();
        self.0.name()
    }

    /// The number of items.
    pub fn item_count(&self) -> usize {
        let _whole = self.1.hold();
        self.0.item_count()
    }

    /// Keeps at most `count` items, dropping the oldest ones now.
    pub fn set_maximum_item_count(&self, count: usize) {
        let _whole = self.1.hold();
        self.0.set_maximum_item_count(count);
    }

    /// Keeps the items of at most `periods` periods before the latest one (0: no limit),
    /// dropping older ones at the next addition.
    pub fn set_history_count(&self, periods: u32) {
        let _whole = self.1.hold();
        self.0.set_history_count(periods);
    }

    /// The index of the item for `period`, if there is one.
    pub fn index_of(&self, period: i32) -> Option<usize> {
        let _whole = self.1.hold();
        self.0.index_of(period)
    }

    /// The item at `index`, `(period, value)`, if there is one.
    pub fn data_item(&self, index: usize) -> Option<(i32, Option<f64>)> {
        let _whole = self.1.hold();
        self.0.data_item(index)
    }

    /// The period after the latest item's, if there is an item (and it is not the last
    /// period).
    pub fn next_time_period(&self) -> Option<i32> {
        let _whole = self.1.hold();
        let last = self.0.items.lock().unwrap().last().map(|i| i.period)?;
        last.checked_add(1)
    }

    /// The value for `period`: `None` if there is no item for it or its value is missing.
    pub fn value(&self, period: i32) -> Option<f64> {
        let _whole = self.1.hold();
        let items = self.0.items.lock().unwrap();
        let index = items.binary_search_by_key(&period, |i| i.period).ok()?;
        items[index].value
    }

    /// Adds an item for `period` and prunes the series; `false`, and no change, if there is
    /// one for `period` already (Java: `SeriesException`).
    pub fn add(&self, period: i32, value: Option<f64>) -> bool {
        let _whole = self.1.hold();
        self.add_locked(&mut self.0.items.lock().unwrap(), period, value)
    }

    /// Sets the value for `period`; `false`, and no change, if there is no item for it.
    pub fn update(&self, period: i32, value: Option<f64>) -> bool {
        let _whole = self.1.hold();
        let mut items = self.0.items.lock().unwrap();
        match items.binary_search_by_key(&period, |i| i.period) {
            Ok(index) => {
                items[index].value = value;
                true
            }
            Err(_) => false,
        }
    }

    /// Sets the value for `period`, adding an item if there is none; returns the old value
    /// (`None` if there was no item).
    pub fn add_or_update(&self, period: i32, value: Option<f64>) -> Option<Option<f64>> {
        let _whole = self.1.hold();
        let mut items = self.0.items.lock().unwrap();
        match items.binary_search_by_key(&period, |i| i.period) {
            Ok(index) => Some(std::mem::replace(&mut items[index].value, value)),
            Err(_) => {
                self.add_locked(&mut items, period, value);
                None
            }
        }
    }

    /// Removes the item for `period`; returns whether there was one.
    pub fn delete(&self, period: i32) -> bool {
        let _whole = self.1.hold();
        self.0.delete(period)
    }

    /// Removes the items at indices `start..=end` that exist; returns how many it removed.
    pub fn delete_range(&self, start: usize, end: usize) -> usize {
        let _whole = self.1.hold();
        self.0.delete_range(start, end)
    }

    /// Removes every item.
    pub fn clear(&self) {
        let _whole = self.1.hold();
        self.0.clear();
    }
}

impl FixedTimeSeries {
    /// [`add`](Self::add) on the locked items.
    fn add_locked(&self, items: &mut Vec<Item>, period: i32, value: Option<f64>) -> bool {
        match items.binary_search_by_key(&period, |i| i.period) {
            Ok(_) => return false,
            Err(at) => items.insert(at, Item { period, value }),
        }
        if items.len() > self.0.maximum_item_count.load(Ordering::SeqCst) {
            items.remove(0);
        }
        let history = self.0.history_count.load(Ordering::SeqCst);
        if history > 0 && items.len() > 1 {
            let latest = items[items.len() - 1].period;
            let oldest_kept = i64::from(latest) - i64::from(history);
            items.retain(|i| i64::from(i.period) >= oldest_kept);
        }
        true
    }
}

/// The subject: [`TimeSeries`] and its twin.
pub fn subject() -> Subject {
    Subject {
        id: "V14",
        name: "time_series",
        original: "org.jfree.data.time.TimeSeries (JFreeChart 0.9.8)",
        bug: BugKind::DataRace,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<TimeSeries>(c),
        check_twin: |c| threadsafe_rt::check::<FixedTimeSeries>(c),
        naive: |budget: Duration| {
            crate::naive::race(
                budget,
                ITERS,
                || {
                    let s = TimeSeries::new("s");
                    for period in 1..=3 {
                        s.add(period, Some(1.0));
                    }
                    s
                },
                |s| {
                    s.update(3, None);
                },
                |s| {
                    s.delete(1);
                },
            )
        },
    }
}
