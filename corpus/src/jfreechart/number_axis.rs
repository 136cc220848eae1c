//! V12 of MAPTest (Wang et al., ASE 2019, Table II; bug 12 of Pradel & Gross, Table 1):
//! `org.jfree.chart.axis.NumberAxis` (JFreeChart 0.9.12), an atomicity violation.
//! `set_lower_bound` checks that the new lower bound is below the upper one, then reads the
//! upper bound again to build the new range; a `set_range` or `set_upper_bound` in between
//! makes it build a reversed or empty range (Java's `IllegalArgumentException`).

use std::cmp::Ordering as CmpOrdering;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use parking_lot::Mutex;
use threadsafe_rt::thread_safe;

use crate::whole::Whole;
use crate::{BugKind, Subject};

/// Rounds of calls per thread in the naive stress test.
const ITERS: usize = 1_000;

/// An interval of values, as JFreeChart's `Range`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Range {
    lower: f64,
    upper: f64,
}

impl Range {
    /// The range `lower..=upper`.
    ///
    /// # Panics
    /// If `lower > upper`, as the Java constructor's `IllegalArgumentException`.
    fn new(lower: f64, upper: f64) -> Range {
        assert!(
            lower.partial_cmp(&upper) != Some(CmpOrdering::Greater),
            "Range(double, double): require lower ({lower}) <= upper ({upper})"
        );
        Range { lower, upper }
    }

    fn length(self) -> f64 {
        self.upper - self.lower
    }
}

/// `range`, checked as Java's `ValueAxis.setRange` does before showing it.
///
/// # Panics
/// If its length is zero or less (Java's `IllegalArgumentException`).
fn positive(range: Range) -> Range {
    assert!(
        !matches!(
            range.length().partial_cmp(&0.0),
            Some(CmpOrdering::Less | CmpOrdering::Equal)
        ),
        "ValueAxis.setRange(...): the length must be positive"
    );
    range
}

/// The range an axis starts with.
const DEFAULT_RANGE: Range = Range {
    lower: 0.0,
    upper: 1.0,
};

/// The settings of automatic ranging, which change together.
#[derive(Clone, Copy)]
struct AutoRange {
    includes_zero: bool,
    minimum_size: f64,
    fixed: f64,
    lower_margin: f64,
    upper_margin: f64,
}

/// A numerical axis, ported from JFreeChart's `NumberAxis` with the parts of `ValueAxis` it
/// inherits: a displayed range, automatic ranging from the data the plot reports, and a tick
/// unit. Every field has its own lock or is atomic.
///
/// `set_lower_bound` is `ValueAxis.setLowerBound`: `if (range.getUpperBound() > min)
/// setRange(new Range(min, range.getUpperBound()))`, two reads of the range. With
/// `a.set_lower_bound(0.5)` on one thread and `a.set_upper_bound(0.0)` on another, the upper
/// bound can drop below `0.5` in between, and the new range is reversed.
pub struct NumberAxis {
    range: Mutex<Range>,
    auto_range: AtomicBool,
    auto: Mutex<AutoRange>,
    data: Mutex<Option<Range>>,
    tick_unit: Mutex<f64>,
}

impl Default for NumberAxis {
    fn default() -> Self {
        NumberAxis::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl NumberAxis {
    /// An axis showing `0..=1`, with automatic ranging on and a tick every 1.
    pub fn new() -> Self {
        NumberAxis {
            range: Mutex::new(DEFAULT_RANGE),
            auto_range: AtomicBool::new(true),
            auto: Mutex::new(AutoRange {
                includes_zero: true,
                minimum_size: 1e-8,
                fixed: 0.0,
                lower_margin: 0.05,
                upper_margin: 0.05,
            }),
            data: Mutex::new(None),
            tick_unit: Mutex::new(1.0),
        }
    }

    /// An axis showing `lower..=upper` with automatic ranging off, if `lower < upper`.
    pub fn with_range(lower: f64, upper: f64) -> Option<Self> {
        let axis = NumberAxis::new();
        axis.set_range(lower, upper).then_some(axis)
    }

    /// An axis showing `0..=1`, with automatic ranging on and a tick every `size`, if
    /// `size` is positive and finite.
    pub fn with_tick_unit(size: f64) -> Option<Self> {
        let axis = NumberAxis::new();
        axis.set_tick_unit(size).then_some(axis)
    }

    /// The displayed range, `(lower, upper)`.
    pub fn range(&self) -> (f64, f64) {
        let r = *self.range.lock();
        (r.lower, r.upper)
    }

    /// Shows `lower..=upper` and turns automatic ranging off; `false`, and no change, unless
    /// `lower < upper` (Java: "Range must have positive length").
    pub fn set_range(&self, lower: f64, upper: f64) -> bool {
        if lower.partial_cmp(&upper) != Some(CmpOrdering::Less) {
            return false;
        }
        *self.range.lock() = Range::new(lower, upper);
        self.auto_range.store(false, Ordering::SeqCst);
        true
    }

    /// Sets the lower bound, keeping the upper one if it is above, else showing
    /// `min..=min + 1`; turns automatic ranging off.
    pub fn set_lower_bound(&self, min: f64) {
        let range = if self.range.lock().upper > min {
            // BUG: the upper bound is read again; another thread may have lowered it.
            Range::new(min, self.range.lock().upper)
        } else {
            Range::new(min, min + 1.0)
        };
        *self.range.lock() = positive(range);
        self.auto_range.store(false, Ordering::SeqCst);
    }

    /// Sets the upper bound, keeping the lower one if it is below, else showing
    /// `max - 1..=max`; turns automatic ranging off.
    pub fn set_upper_bound(&self, max: f64) {
        let range = if self.range.lock().lower < max {
            // BUG: the lower bound is read again; another thread may have raised it.
            Range::new(self.range.lock().lower, max)
        } else {
            Range::new(max - 1.0, max)
        };
        *self.range.lock() = positive(range);
        self.auto_range.store(false, Ordering::SeqCst);
    }

    /// Shows the range of length `length` centred on `value`; `false` unless `length > 0`.
    pub fn set_range_about_value(&self, value: f64, length: f64) -> bool {
        self.set_range(value - length / 2.0, value + length / 2.0)
    }

    /// Turns automatic ranging on or off; on, the range is adjusted to the data at once.
    pub fn set_auto_range(&self, auto: bool) {
        self.auto_range.store(auto, Ordering::SeqCst);
        if auto {
            self.auto_adjust_range();
        }
    }

    /// Sets whether the automatic range always includes zero.
    pub fn set_auto_range_includes_zero(&self, include: bool) {
        self.auto.lock().includes_zero = include;
    }

    /// Sets the fixed length of the automatic range (it then ends at the data's upper
    /// bound); zero or less means none.
    pub fn set_fixed_auto_range(&self, length: f64) {
        self.auto.lock().fixed = length;
    }

    /// Reports the data's bounds, as the plot does, and adjusts the range if automatic;
    /// `false`, and no change, unless `lower <= upper`.
    pub fn set_data_bounds(&self, lower: f64, upper: f64) -> bool {
        if lower > upper || lower.is_nan() || upper.is_nan() {
            return false;
        }
        *self.data.lock() = Some(Range::new(lower, upper));
        if self.auto_range.load(Ordering::SeqCst) {
            self.auto_adjust_range();
        }
        true
    }

    /// Sets the range from the data's bounds, with the margins, the minimum size, the fixed
    /// length and zero included as configured (`NumberAxis.autoAdjustRange`).
    pub fn auto_adjust_range(&self) {
        let data = self.data.lock().unwrap_or(DEFAULT_RANGE);
        let auto = *self.auto.lock();
        let (mut lower, mut upper) = (data.lower, data.upper);
        if auto.includes_zero {
            lower = lower.min(0.0);
            upper = upper.max(0.0);
        }
        let length = upper - lower;
        if auto.fixed > 0.0 {
            lower = upper - auto.fixed;
        } else {
            if length < auto.minimum_size {
                let expand = (auto.minimum_size - length) / 2.0;
                upper += expand;
                lower -= expand;
            }
            upper += auto.upper_margin * length;
            lower -= auto.lower_margin * length;
        }
        *self.range.lock() = Range::new(lower, upper);
    }

    /// Sets the tick size; `false`, and no change, unless it is positive and finite.
    pub fn set_tick_unit(&self, size: f64) -> bool {
        if !(size > 0.0 && size.is_finite()) {
            return false;
        }
        *self.tick_unit.lock() = size;
        true
    }

    /// The number of ticks the displayed range holds.
    pub fn visible_tick_count(&self) -> usize {
        let length = self.range.lock().length();
        let unit = *self.tick_unit.lock();
        ((length / unit).floor() as usize).saturating_add(1)
    }

    /// Where `value` falls on an axis drawn `length` units long.
    pub fn value_to_java2d(&self, value: f64, length: f64) -> f64 {
        let range = *self.range.lock();
        (value - range.lower) / range.length() * length
    }
}

/// [`NumberAxis`] with `set_lower_bound` and `set_upper_bound` fixed: each reads the range and
/// stores the new one under one lock section, so a concurrent change of the other bound is
/// either kept or overwritten, never turned into a reversed range.
///
/// Every call also holds one lock for its whole length (`whole.rs`): the methods kept from
/// the Java class that work in several lock sections are one step each, so the results
/// oracle has nothing to report on the twin.
#[derive(Default)]
pub struct FixedNumberAxis(NumberAxis, Whole);

#[thread_safe(test = false, statement_points = "always")]
impl FixedNumberAxis {
    /// An axis showing `0..=1`, with automatic ranging on and a tick every 1.
    pub fn new() -> Self {
        FixedNumberAxis(NumberAxis::new(), Whole::default())
    }

    /// An axis showing `lower..=upper` with automatic ranging off, if `lower < upper`.
    pub fn with_range(lower: f64, upper: f64) -> Option<Self> {
        NumberAxis::with_range(lower, upper).map(|axis| FixedNumberAxis(axis, Whole::default()))
    }

    /// An axis showing `0..=1`, with automatic ranging on and a tick every `size`, if
    /// `size` is positive and finite.
    pub fn with_tick_unit(size: f64) -> Option<Self> {
        NumberAxis::with_tick_unit(size).map(|axis| FixedNumberAxis(axis, Whole::default()))
    }

    /// The displayed range, `(lower, upper)`.
    pub fn range(&self) -> (f64, f64) {
        let _whole = self.1.hold();
        self.0.range()
    }

    /// Shows `lower..=upper` and turns automatic ranging off; `false`, and no change, unless
    /// `lower < upper` (Java: "Range must have positive length").
    pub fn set_range(&self, lower: f64, upper: f64) -> bool {
        let _whole = self.1.hold();
        self.0.set_range(lower, upper)
    }

    /// Sets the lower bound, keeping the upper one if it is above, else showing
    /// `min..=min + 1`; turns automatic ranging off.
    pub fn set_lower_bound(&self, min: f64) {
        let _whole = self.1.hold();
        {
            let mut range = self.0.range.lock();
            *range = positive(if range.upper > min {
                Range::new(min, range.upper)
            } else {
                Range::new(min, min + 1.0)
            });
        }
        self.0.auto_range.store(false, Ordering::SeqCst);
    }

    /// Sets the upper bound, keeping the lower one if it is below, else showing
    /// `max - 1..=max`; turns automatic ranging off.
    pub fn set_upper_bound(&self, max: f64) {
        let _whole = self.1.hold();
        {
            let mut range = self.0.range.lock();
            *range = positive(if range.lower < max {
                Range::new(range.lower, max)
            } else {
                Range::new(max - 1.0, max)
            });
        }
        self.0.auto_range.store(false, Ordering::SeqCst);
    }

    /// Shows the range of length `length` centred on `value`; `false` unless `length > 0`.
    pub fn set_range_about_value(&self, value: f64, length: f64) -> bool {
        let _whole = self.1.hold();
        self.0.set_range_about_value(value, length)
    }

    /// Turns automatic ranging on or off; on, the range is adjusted to the data at once.
    pub fn set_auto_range(&self, auto: bool) {
        let _whole = self.1.hold();
        self.0.set_auto_range(auto);
    }

    /// Sets whether the automatic range always includes zero.
    pub fn set_auto_range_includes_zero(&self, include: bool) {
        let _whole = self.1.hold();
        self.0.set_auto_range_includes_zero(include);
    }

    /// Sets the fixed length of the automatic range (it then ends at the data's upper
    /// bound); zero or less means none.
    pub fn set_fixed_auto_range(&self, length: f64) {
        let _whole = self.1.hold();
        self.0.set_fixed_auto_range(length);
    }

    /// Reports the data's bounds, as the plot does, and adjusts the range if automatic;
    /// `false`, and no change, unless `lower <= upper`.
    pub fn set_data_bounds(&self, lower: f64, upper: f64) -> bool {
        let _whole = self.1.hold();
        self.0.set_data_bounds(lower, upper)
    }

    /// Sets the range from the data's bounds, with the margins, the minimum size, the fixed
    /// length and zero included as configured (`NumberAxis.autoAdjustRange`).
    pub fn auto_adjust_range(&self) {
        let _whole = self.1.hold();
        self.0.auto_adjust_range();
    }

    /// Sets the tick size; `false`, and no change, unless it is positive and finite.
    pub fn set_tick_unit(&self, size: f64) -> bool {
        let _whole = self.1.hold();
        self.0.set_tick_unit(size)
    }

    /// The number of ticks the displayed range holds.
    pub fn visible_tick_count(&self) -> usize {
        let _whole = self.1.hold();
        self.0.visible_tick_count()
    }

    /// Where `value` falls on an axis drawn `length` units long.
    pub fn value_to_java2d(&self, value: f64, length: f64) -> f64 {
        let _whole = self.1.hold();
        self.0.value_to_java2d(value, length)
    }
}

/// The subject: [`NumberAxis`] and its twin.
pub fn subject() -> Subject {
    Subject {
        id: "V12",
        name: "number_axis",
        original: "org.jfree.chart.axis.NumberAxis (JFreeChart 0.9.12)",
        bug: BugKind::Atomicity,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<NumberAxis>(c),
        check_twin: |c| threadsafe_rt::check::<FixedNumberAxis>(c),
        naive: |budget: Duration| {
            crate::naive::race(
                budget,
                ITERS,
                NumberAxis::new,
                |a| a.set_lower_bound(0.5),
                |a| a.set_upper_bound(0.0),
            )
        },
    }
}
