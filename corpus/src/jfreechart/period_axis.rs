//! V13 of MAPTest (Wang et al., ASE 2019, Table II; bug 13 of Pradel & Gross, Table 1):
//! `org.jfree.chart.axis.PeriodAxis` (JFreeChart 1.0.1), a data race. The first and the last
//! period shown are separate fields that must agree, and `set_range` or `set_time_zone` store
//! them one after the other; `auto_adjust_range` on another thread in between builds the axis
//! range from a first period after the last (Java's `IllegalArgumentException`).

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use threadsafe_rt::thread_safe;

use crate::{BugKind, Subject};

/// Rounds of calls per thread in the naive stress test.
const ITERS: usize = 1_000;

/// Times are hours since 1970-01-01 UTC, within ±`LIMIT`.
const LIMIT: i64 = 1 << 40;
/// The widest time-zone offsets, in hours.
const ZONES: std::ops::RangeInclusive<i64> = -12..=14;
/// The period lengths, in hours, that `set_period_unit` accepts: hour, day, week, 30 days.
const UNITS: [i64; 4] = [1, 24, 168, 720];

/// A time period of the axis: `start..end` in hours (JFreeChart's `RegularTimePeriod`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Period {
    start: i64,
    end: i64,
}

impl Period {
    /// The period of length `unit` hours that contains the hour `t`, with periods aligned to
    /// midnight in a zone `zone` hours east of UTC.
    fn containing(t: i64, unit: i64, zone: i64) -> Period {
        let start = (t + zone).div_euclid(unit) * unit - zone;
        Period {
            start,
            end: start + unit,
        }
    }
}

/// The displayed interval of the axis, in hours (JFreeChart's `Range`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Range {
    lower: i64,
    upper: i64,
}

impl Range {
    /// The range `lower..upper`.
    ///
    /// # Panics
    /// Unless `lower < upper`, as the `IllegalArgumentException` of Java's
    /// `ValueAxis.setRange`.
    fn new(lower: i64, upper: i64) -> Range {
        assert!(
            lower < upper,
            "A positive range length is required: Range[{lower},{upper}]"
        );
        Range { lower, upper }
    }
}

/// An axis that shows time periods, ported from JFreeChart's `PeriodAxis`: the first and the
/// last period shown, the time zone the periods are aligned to, the period unit (hours,
/// days, weeks, months of 30 days) and the displayed range. Every field has its own lock or
/// is atomic, as the Java fields are plain fields.
///
/// `set_range` computes the first period and stores it, then the last, as Java's
/// `setRange` assigns `first` and then `last`; `auto_adjust_range` reads the first period,
/// then the last, to build the range from the first's start to the last's end. With
/// `a.auto_adjust_range()` on one thread and `a.set_range(100, 200)` on another, it can take
/// the new first period with the old last one, which ends before it starts.
pub struct PeriodAxis {
    first: Mutex<Period>,
    last: Mutex<Period>,
    zone: AtomicI64,
    unit: AtomicI64,
    range: Mutex<Range>,
    auto_range: AtomicBool,
}

impl Default for PeriodAxis {
    fn default() -> Self {
        PeriodAxis::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl PeriodAxis {
    /// An axis of hours in UTC, showing the first hour (`0..1`).
    pub fn new() -> Self {
        PeriodAxis::with_unit(0).expect("hours are a unit")
    }

    /// An axis of periods of the unit `kind` (0 hours, 1 days, 2 weeks, 3 months of 30 days)
    /// in UTC, showing the first period from hour 0; `None` for another `kind`.
    pub fn with_unit(kind: u8) -> Option<Self> {
        let unit = *UNITS.get(usize::from(kind))?;
        let period = Period::containing(0, unit, 0);
        Some(PeriodAxis {
            first: Mutex::new(period),
            last: Mutex::new(period),
            zone: AtomicI64::new(0),
            unit: AtomicI64::new(unit),
            range: Mutex::new(Range::new(period.start, period.end)),
            auto_range: AtomicBool::new(true),
        })
    }

    /// An axis of hours in UTC showing the hours `lower..upper`, if `lower < upper` and both
    /// are within ±2^40.
    pub fn with_range(lower: i64, upper: i64) -> Option<Self> {
        let axis = PeriodAxis::new();
        axis.set_range(lower, upper).then_some(axis)
    }

    /// The first period shown, `(start, end)` in hours.
    pub fn first(&self) -> (i64, i64) {
        let p = *self.first.lock().unwrap();
        (p.start, p.end)
    }

    /// The last period shown, `(start, end)` in hours.
    pub fn last(&self) -> (i64, i64) {
        let p = *self.last.lock().unwrap();
        (p.start, p.end)
    }

    /// The displayed range, `(lower, upper)` in hours.
    pub fn range(&self) -> (i64, i64) {
        let r = *self.range.lock().unwrap();
        (r.lower, r.upper)
    }

    /// Shows the hours `lower..upper`: the first period is the one containing `lower`, the
    /// last the one containing `upper - 1`. `false`, and no change, unless `lower < upper`
    /// and both are within ±2^40.
    pub fn set_range(&self, lower: i64, upper: i64) -> bool {
        if !(lower < upper && lower.abs() <= LIMIT && upper.abs() <= LIMIT) {
            return false;
        }
        *self.range.lock().unwrap() = Range::new(lower, upper);
        let unit = self.unit.load(Ordering::SeqCst);
        let zone = self.zone.load(Ordering::SeqCst);
        *self.first.lock().unwrap() = Period::containing(lower, unit, zone);
        // BUG: until the next statement, `first` may lie after `last`.
        *self.last.lock().unwrap() = Period::containing(upper - 1, unit, zone);
        true
    }

    /// Shows from the period containing the hour `t` on, keeping the last period; `false`,
    /// and no change, if that period would not start before the last one ends or `t` is beyond
    /// ±2^40.
    pub fn set_first(&self, t: i64) -> bool {
        if t.abs() > LIMIT {
            return false;
        }
        let period = Period::containing(
            t,
            self.unit.load(Ordering::SeqCst),
            self.zone.load(Ordering::SeqCst),
        );
        if period.start >= self.last.lock().unwrap().end {
            return false;
        }
        *self.first.lock().unwrap() = period;
        true
    }

    /// Shows up to the period containing the hour `t`, keeping the first period; `false`,
    /// and no change, if that period would not end after the first one starts or `t` is beyond
    /// ±2^40.
    pub fn set_last(&self, t: i64) -> bool {
        if t.abs() > LIMIT {
            return false;
        }
        let period = Period::containing(
            t,
            self.unit.load(Ordering::SeqCst),
            self.zone.load(Ordering::SeqCst),
        );
        if period.end <= self.first.lock().unwrap().start {
            return false;
        }
        *self.last.lock().unwrap() = period;
        true
    }

    /// Aligns the periods to the zone `zone` hours east of UTC: the first and last periods
    /// become those of the new zone that contain their starts, and the range follows if
    /// automatic. `false`, and no change, unless `zone` is -12 to 14.
    pub fn set_time_zone(&self, zone: i64) -> bool {
        if !ZONES.contains(&zone) {
            return false;
        }
        self.zone.store(zone, Ordering::SeqCst);
        let unit = self.unit.load(Ordering::SeqCst);
        let first = self.first.lock().unwrap().start;
        *self.first.lock().unwrap() = Period::containing(first, unit, zone);
        let last = self.last.lock().unwrap().start;
        *self.last.lock().unwrap() = Period::containing(last, unit, zone);
        if self.is_auto_range() {
            self.auto_adjust_range();
        }
        true
    }

    /// Sets the period length: 0 hours, 1 days, 2 weeks, 3 months of 30 days. The first and
    /// last periods become those of the new length containing the range's bounds. `false`,
    /// and no change, for another `kind`.
    pub fn set_period_unit(&self, kind: u8) -> bool {
        let Some(&unit) = UNITS.get(usize::from(kind)) else {
            return false;
        };
        self.unit.store(unit, Ordering::SeqCst);
        let zone = self.zone.load(Ordering::SeqCst);
        let range = *self.range.lock().unwrap();
        *self.first.lock().unwrap() = Period::containing(range.lower, unit, zone);
        *self.last.lock().unwrap() = Period::containing(range.upper - 1, unit, zone);
        true
    }

    /// Whether the range follows the periods.
    pub fn is_auto_range(&self) -> bool {
        self.auto_range.load(Ordering::SeqCst)
    }

    /// Turns automatic ranging on or off; on, the range is adjusted at once.
    pub fn set_auto_range(&self, auto: bool) {
        self.auto_range.store(auto, Ordering::SeqCst);
        if auto {
            self.auto_adjust_range();
        }
    }

    /// Sets the range from the start of the first period to the end of the last.
    pub fn auto_adjust_range(&self) {
        let first = *self.first.lock().unwrap();
        let last = *self.last.lock().unwrap();
        *self.range.lock().unwrap() = Range::new(first.start, last.end);
    }

    /// The number of periods from the first to the last, both included.
    pub fn period_count(&self) -> usize {
        let first = self.first.lock().unwrap().start;
        let last = self.last.lock().unwrap().end;
        let count = (last - first) / self.unit.load(Ordering::SeqCst);
        usize::try_from(count).expect("the first period does not come after the last")
    }
}

/// The fields of a [`FixedPeriodAxis`] that must agree, under one lock.
#[derive(Clone, Copy)]
struct Periods {
    first: Period,
    last: Period,
    zone: i64,
    unit: i64,
    range: Range,
}

/// [`PeriodAxis`] fixed: the first and last periods, the zone, the unit and the range live
/// under one lock and change together, so the range is always built from a first period that
/// does not come after the last.
pub struct FixedPeriodAxis {
    periods: Mutex<Periods>,
    auto_range: AtomicBool,
}

impl Default for FixedPeriodAxis {
    fn default() -> Self {
        FixedPeriodAxis::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedPeriodAxis {
    /// An axis of hours in UTC, showing the first hour (`0..1`).
    pub fn new() -> Self {
        FixedPeriodAxis::with_unit(0).expect("hours are a unit")
    }

    /// An axis of periods of the unit `kind` (0 hours, 1 days, 2 weeks, 3 months of 30 days)
    /// in UTC, showing the first period from hour 0; `None` for another `kind`.
    pub fn with_unit(kind: u8) -> Option<Self> {
        let unit = *UNITS.get(usize::from(kind))?;
        let period = Period::containing(0, unit, 0);
        Some(FixedPeriodAxis {
            periods: Mutex::new(Periods {
                first: period,
                last: period,
                zone: 0,
                unit,
                range: Range::new(period.start, period.end),
            }),
            auto_range: AtomicBool::new(true),
        })
    }

    /// An axis of hours in UTC showing the hours `lower..upper`, if `lower < upper` and both
    /// are within ±2^40.
    pub fn with_range(lower: i64, upper: i64) -> Option<Self> {
        let axis = FixedPeriodAxis::new();
        axis.set_range(lower, upper).then_some(axis)
    }

    /// The first period shown, `(start, end)` in hours.
    pub fn first(&self) -> (i64, i64) {
        let p = self.periods.lock().unwrap().first;
        (p.start, p.end)
    }

    /// The last period shown, `(start, end)` in hours.
    pub fn last(&self) -> (i64, i64) {
        let p = self.periods.lock().unwrap().last;
        (p.start, p.end)
    }

    /// The displayed range, `(lower, upper)` in hours.
    pub fn range(&self) -> (i64, i64) {
        let r = self.periods.lock().unwrap().range;
        (r.lower, r.upper)
    }

    /// Shows the hours `lower..upper`: the first period is the one containing `lower`, the
    /// last the one containing `upper - 1`. `false`, and no change, unless `lower < upper`
    /// and both are within ±2^40.
    pub fn set_range(&self, lower: i64, upper: i64) -> bool {
        if !(lower < upper && lower.abs() <= LIMIT && upper.abs() <= LIMIT) {
            return false;
        }
        let mut p = self.periods.lock().unwrap();
        p.range = Range::new(lower, upper);
        p.first = Period::containing(lower, p.unit, p.zone);
        p.last = Period::containing(upper - 1, p.unit, p.zone);
        true
    }

    /// Shows from the period containing the hour `t` on, keeping the last period; `false`,
    /// and no change, if that period would not start before the last one ends or `t` is beyond
    /// ±2^40.
    pub fn set_first(&self, t: i64) -> bool {
        if t.abs() > LIMIT {
            return false;
        }
        let mut p = self.periods.lock().unwrap();
        let period = Period::containing(t, p.unit, p.zone);
        if period.start >= p.last.end {
            return false;
        }
        p.first = period;
        true
    }

    /// Shows up to the period containing the hour `t`, keeping the first period; `false`,
    /// and no change, if that period would not end after the first one starts or `t` is beyond
    /// ±2^40.
    pub fn set_last(&self, t: i64) -> bool {
        if t.abs() > LIMIT {
            return false;
        }
        let mut p = self.periods.lock().unwrap();
        let period = Period::containing(t, p.unit, p.zone);
        if period.end <= p.first.start {
            return false;
        }
        p.last = period;
        true
    }

    /// Aligns the periods to the zone `zone` hours east of UTC: the first and last periods
    /// become those of the new zone that contain their starts, and the range follows if
    /// automatic. `false`, and no change, unless `zone` is -12 to 14.
    pub fn set_time_zone(&self, zone: i64) -> bool {
        if !ZONES.contains(&zone) {
            return false;
        }
        let mut p = self.periods.lock().unwrap();
        p.zone = zone;
        p.first = Period::containing(p.first.start, p.unit, zone);
        p.last = Period::containing(p.last.start, p.unit, zone);
        if self.auto_range.load(Ordering::SeqCst) {
            p.range = Range::new(p.first.start, p.last.end);
        }
        true
    }

    /// Sets the period length: 0 hours, 1 days, 2 weeks, 3 months of 30 days. The first and
    /// last periods become those of the new length containing the range's bounds. `false`,
    /// and no change, for another `kind`.
    pub fn set_period_unit(&self, kind: u8) -> bool {
        let Some(&unit) = UNITS.get(usize::from(kind)) else {
            return false;
        };
        let mut p = self.periods.lock().unwrap();
        p.unit = unit;
        p.first = Period::containing(p.range.lower, unit, p.zone);
        p.last = Period::containing(p.range.upper - 1, unit, p.zone);
        true
    }

    /// Whether the range follows the periods.
    pub fn is_auto_range(&self) -> bool {
        self.auto_range.load(Ordering::SeqCst)
    }

    /// Turns automatic ranging on or off; on, the range is adjusted at once.
    pub fn set_auto_range(&self, auto: bool) {
        self.auto_range.store(auto, Ordering::SeqCst);
        if auto {
            self.auto_adjust_range();
        }
    }

    /// Sets the range from the start of the first period to the end of the last.
    pub fn auto_adjust_range(&self) {
        let mut p = self.periods.lock().unwrap();
        p.range = Range::new(p.first.start, p.last.end);
    }

    /// The number of periods from the first to the last, both included.
    pub fn period_count(&self) -> usize {
        let p = *self.periods.lock().unwrap();
        usize::try_from((p.last.end - p.first.start) / p.unit)
            .expect("the first period does not come after the last")
    }
}

/// The subject: [`PeriodAxis`] and its twin.
pub fn subject() -> Subject {
    Subject {
        id: "V13",
        name: "period_axis",
        original: "org.jfree.chart.axis.PeriodAxis (JFreeChart 1.0.1)",
        bug: BugKind::DataRace,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<PeriodAxis>(c),
        check_twin: |c| threadsafe_rt::check::<FixedPeriodAxis>(c),
        naive: |budget: Duration| {
            crate::naive::race(
                budget,
                ITERS,
                PeriodAxis::new,
                |a| a.auto_adjust_range(),
                |a| {
                    a.set_range(100, 200);
                },
            )
        },
    }
}
