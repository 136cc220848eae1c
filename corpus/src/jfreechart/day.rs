//! V11 of MAPTest (Wang et al., ASE 2019, Table II; bug 15 of Pradel & Gross, Table 1):
//! `org.jfree.data.time.Day` (JFreeChart 1.0.13), a data race. The date and its pegged first
//! and last milliseconds are fields that must agree, stored one by one as Java's `peg` does;
//! `duration_ms` can read the first millisecond of the new day with the last of the old one
//! while `next`, `add_days` or `peg` runs on another thread (a negative duration).

use std::sync::atomic::{AtomicI32, AtomicI64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use threadsafe_rt::thread_safe;

use crate::{BugKind, Subject};

/// Rounds of calls per thread in the naive stress test.
const ITERS: usize = 1_000;

/// The serial index of 1900-01-01, the first day (JFreeChart's `SerialDate` numbering).
const SERIAL_LOWER_BOUND: i32 = 2;
/// The serial index of 9999-12-31, the last day.
const SERIAL_UPPER_BOUND: i32 = 2_958_465;
/// Days from 1970-01-01 to 1900-01-01.
const EPOCH_1900: i64 = -25_567;
/// Milliseconds in a day and in an hour.
const DAY_MS: i64 = 86_400_000;
const HOUR_MS: i64 = 3_600_000;
/// The widest time-zone offsets, in hours.
const ZONES: std::ops::RangeInclusive<i32> = -12..=14;

/// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: u8, day: u8) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date `(year, month, day)` of a number of days since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u8, u8) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The serial index of 2000-01-01, the day [`Day::new`] makes.
fn y2k() -> i32 {
    (days_from_civil(2000, 1, 1) - EPOCH_1900) as i32 + SERIAL_LOWER_BOUND
}

/// Days since 1970-01-01 of a serial index.
fn epoch_days(serial: i32) -> i64 {
    i64::from(serial - SERIAL_LOWER_BOUND) + EPOCH_1900
}

/// The first millisecond of day `serial` in a zone `zone` hours east of UTC.
fn first_ms(serial: i32, zone: i32) -> i64 {
    epoch_days(serial) * DAY_MS - i64::from(zone) * HOUR_MS
}

/// The last millisecond of day `serial` in a zone `zone` hours east of UTC.
fn last_ms(serial: i32, zone: i32) -> i64 {
    first_ms(serial, zone) + DAY_MS - 1
}

/// Whether `serial` is a day from 1900-01-01 to 9999-12-31.
fn in_range(serial: i32) -> bool {
    (SERIAL_LOWER_BOUND..=SERIAL_UPPER_BOUND).contains(&serial)
}

/// A day pegged to a time zone, ported from JFreeChart's `Day`: the date (a serial index, as
/// `SerialDate`) and the first and last milliseconds of the day in the zone, which Java's
/// `peg(Calendar)` computes and stores field by field. Unlike JFreeChart's immutable `Day`,
/// this one can move (`next`, `previous`, `add_days`), as the time periods a chart steps
/// through.
///
/// Each field is an atomic of its own. Moving or pegging stores the date, then the first
/// millisecond, then the last; `duration_ms` reads the first and the last millisecond and
/// expects them to span a day. With `d.duration_ms()` on one thread and `d.next()` on
/// another, it can read a first millisecond a day after the last.
pub struct Day {
    serial: AtomicI32,
    zone: AtomicI32,
    first: AtomicI64,
    last: AtomicI64,
}

impl Default for Day {
    fn default() -> Self {
        Day::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl Day {
    /// 2000-01-01 in UTC (JFreeChart's `Day()` is today; a fixed day keeps runs repeatable).
    pub fn new() -> Self {
        Day::at(y2k(), 0)
    }

    /// The day of serial index `serial` (2 is 1900-01-01) in UTC, if in range.
    pub fn from_serial(serial: i32) -> Option<Self> {
        in_range(serial).then(|| Day::at(serial, 0))
    }

    /// 2000-01-01 in a zone `zone` hours east of UTC, if it is a zone (-12 to 14).
    pub fn in_zone(zone: i32) -> Option<Self> {
        let serial = y2k();
        ZONES.contains(&zone).then(|| Day::at(serial, zone))
    }

    /// The serial index: 2 is 1900-01-01, one more per day.
    pub fn serial_index(&self) -> i32 {
        self.serial.load(Ordering::SeqCst)
    }

    /// The day of the month, 1 to 31.
    pub fn day_of_month(&self) -> u8 {
        civil_from_days(epoch_days(self.serial_index())).2
    }

    /// The day of the week, 1 (Sunday) to 7 (Saturday), as `SerialDate`.
    pub fn day_of_week(&self) -> u8 {
        // 1900-01-01 (serial 2) was a Monday.
        ((self.serial_index() - SERIAL_LOWER_BOUND + 1).rem_euclid(7) + 1) as u8
    }

    /// The time zone the day is pegged to, in hours east of UTC.
    pub fn zone(&self) -> i32 {
        self.zone.load(Ordering::SeqCst)
    }

    /// Pegs the day to the zone `zone` hours east of UTC: recomputes its first and last
    /// milliseconds. Returns `false`, and changes nothing, if `zone` is not -12 to 14.
    pub fn peg(&self, zone: i32) -> bool {
        if !ZONES.contains(&zone) {
            return false;
        }
        self.zone.store(zone, Ordering::SeqCst);
        let serial = self.serial.load(Ordering::SeqCst);
        self.first.store(first_ms(serial, zone), Ordering::SeqCst);
        // BUG: readers can see the new first millisecond with the old last one.
        self.last.store(last_ms(serial, zone), Ordering::SeqCst);
        true
    }

    /// Moves to the next day; `false` on 9999-12-31.
    pub fn next(&self) -> bool {
        self.add_days(1)
    }

    /// Moves to the previous day; `false` on 1900-01-01.
    pub fn previous(&self) -> bool {
        self.add_days(-1)
    }

    /// Moves `days` days forward (back if negative); `false`, and no move, if that leaves
    /// 1900 to 9999.
    pub fn add_days(&self, days: i32) -> bool {
        let serial = self.serial.load(Ordering::SeqCst);
        let target = match serial.checked_add(days) {
            Some(t) if in_range(t) => t,
            _ => return false,
        };
        let zone = self.zone.load(Ordering::SeqCst);
        self.serial.store(target, Ordering::SeqCst);
        self.first.store(first_ms(target, zone), Ordering::SeqCst);
        // BUG: readers can see the new first millisecond with the old last one.
        self.last.store(last_ms(target, zone), Ordering::SeqCst);
        true
    }

    /// The first millisecond of the day (since 1970-01-01 UTC).
    pub fn first_millisecond(&self) -> i64 {
        self.first.load(Ordering::SeqCst)
    }

    /// The last millisecond of the day.
    pub fn last_millisecond(&self) -> i64 {
        self.last.load(Ordering::SeqCst)
    }

    /// The middle millisecond of the day.
    pub fn middle_millisecond(&self) -> i64 {
        let first = self.first.load(Ordering::SeqCst);
        first + (self.duration_ms() / 2) as i64
    }

    /// The number of milliseconds in the day.
    ///
    /// # Panics
    /// If the last millisecond comes before the first (as Java's `IllegalArgumentException`
    /// for a reversed range).
    pub fn duration_ms(&self) -> u64 {
        let first = self.first.load(Ordering::SeqCst);
        let last = self.last.load(Ordering::SeqCst);
        u64::try_from(last - first + 1).expect("the day's last millisecond is not before its first")
    }

    /// Whether the millisecond `ms` falls in the day.
    pub fn contains(&self, ms: i64) -> bool {
        let first = self.first.load(Ordering::SeqCst);
        let duration = self.duration_ms();
        ms.checked_sub(first)
            .and_then(|offset| u64::try_from(offset).ok())
            .is_some_and(|offset| offset < duration)
    }

    /// The date as `yyyy-mm-dd`, as `Day.toString`.
    pub fn label(&self) -> String {
        let (year, month, day) = civil_from_days(epoch_days(self.serial_index()));
        format!("{year:04}-{month:02}-{day:02}")
    }
}

impl Day {
    /// The day `serial` pegged to `zone`.
    fn at(serial: i32, zone: i32) -> Self {
        Day {
            serial: AtomicI32::new(serial),
            zone: AtomicI32::new(zone),
            first: AtomicI64::new(first_ms(serial, zone)),
            last: AtomicI64::new(last_ms(serial, zone)),
        }
    }
}

/// The fields of a [`FixedDay`], which change together.
#[derive(Clone, Copy)]
struct DayState {
    serial: i32,
    zone: i32,
    first: i64,
    last: i64,
}

impl DayState {
    fn at(serial: i32, zone: i32) -> Self {
        DayState {
            serial,
            zone,
            first: first_ms(serial, zone),
            last: last_ms(serial, zone),
        }
    }
}

/// [`Day`] fixed: the date, the zone and the pegged milliseconds live under one lock and
/// change together, so every reader sees a first and a last millisecond of the same day.
pub struct FixedDay {
    state: Mutex<DayState>,
}

impl Default for FixedDay {
    fn default() -> Self {
        FixedDay::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl FixedDay {
    /// 2000-01-01 in UTC (JFreeChart's `Day()` is today; a fixed day keeps runs repeatable).
    pub fn new() -> Self {
        FixedDay::at(y2k(), 0)
    }

    /// The day of serial index `serial` (2 is 1900-01-01) in UTC, if in range.
    pub fn from_serial(serial: i32) -> Option<Self> {
        in_range(serial).then(|| FixedDay::at(serial, 0))
    }

    /// 2000-01-01 in a zone `zone` hours east of UTC, if it is a zone (-12 to 14).
    pub fn in_zone(zone: i32) -> Option<Self> {
        let serial = y2k();
        ZONES.contains(&zone).then(|| FixedDay::at(serial, zone))
    }

    /// The serial index: 2 is 1900-01-01, one more per day.
    pub fn serial_index(&self) -> i32 {
        self.get().serial
    }

    /// The day of the month, 1 to 31.
    pub fn day_of_month(&self) -> u8 {
        civil_from_days(epoch_days(self.serial_index())).2
    }

    /// The day of the week, 1 (Sunday) to 7 (Saturday), as `SerialDate`.
    pub fn day_of_week(&self) -> u8 {
        ((self.serial_index() - SERIAL_LOWER_BOUND + 1).rem_euclid(7) + 1) as u8
    }

    /// The time zone the day is pegged to, in hours east of UTC.
    pub fn zone(&self) -> i32 {
        self.get().zone
    }

    /// Pegs the day to the zone `zone` hours east of UTC: recomputes its first and last
    /// milliseconds. Returns `false`, and changes nothing, if `zone` is not -12 to 14.
    pub fn peg(&self, zone: i32) -> bool {
        if !ZONES.contains(&zone) {
            return false;
        }
        let mut state = self.state.lock().unwrap();
        *state = DayState::at(state.serial, zone);
        true
    }

    /// Moves to the next day; `false` on 9999-12-31.
    pub fn next(&self) -> bool {
        self.add_days(1)
    }

    /// Moves to the previous day; `false` on 1900-01-01.
    pub fn previous(&self) -> bool {
        self.add_days(-1)
    }

    /// Moves `days` days forward (back if negative); `false`, and no move, if that leaves
    /// 1900 to 9999.
    pub fn add_days(&self, days: i32) -> bool {
        let mut state = self.state.lock().unwrap();
        match state.serial.checked_add(days) {
            Some(target) if in_range(target) => {
                *state = DayState::at(target, state.zone);
                true
            }
            _ => false,
        }
    }

    /// The first millisecond of the day (since 1970-01-01 UTC).
    pub fn first_millisecond(&self) -> i64 {
        self.get().first
    }

    /// The last millisecond of the day.
    pub fn last_millisecond(&self) -> i64 {
        self.get().last
    }

    /// The middle millisecond of the day.
    pub fn middle_millisecond(&self) -> i64 {
        let state = self.get();
        state.first + ((state.last - state.first + 1) / 2)
    }

    /// The number of milliseconds in the day.
    ///
    /// # Panics
    /// If the last millisecond comes before the first (as Java's `IllegalArgumentException`
    /// for a reversed range).
    pub fn duration_ms(&self) -> u64 {
        let state = self.get();
        u64::try_from(state.last - state.first + 1)
            .expect("the day's last millisecond is not before its first")
    }

    /// Whether the millisecond `ms` falls in the day.
    pub fn contains(&self, ms: i64) -> bool {
        let state = self.get();
        ms.checked_sub(state.first)
            .is_some_and(|offset| offset >= 0 && offset <= state.last - state.first)
    }

    /// The date as `yyyy-mm-dd`, as `Day.toString`.
    pub fn label(&self) -> String {
        let (year, month, day) = civil_from_days(epoch_days(self.serial_index()));
        format!("{year:04}-{month:02}-{day:02}")
    }
}

impl FixedDay {
    /// The day `serial` pegged to `zone`.
    fn at(serial: i32, zone: i32) -> Self {
        FixedDay {
            state: Mutex::new(DayState::at(serial, zone)),
        }
    }

    /// A copy of the state, taken under the lock.
    fn get(&self) -> DayState {
        *self.state.lock().unwrap()
    }
}

/// The subject: [`Day`] and its twin.
pub fn subject() -> Subject {
    Subject {
        id: "V11",
        name: "day",
        original: "org.jfree.data.time.Day (JFreeChart 1.0.13)",
        bug: BugKind::DataRace,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<Day>(c),
        check_twin: |c| threadsafe_rt::check::<FixedDay>(c),
        naive: |budget: Duration| {
            crate::naive::race(
                budget,
                ITERS,
                Day::new,
                |d| {
                    d.duration_ms();
                },
                |d| {
                    d.next();
                },
            )
        },
    }
}
