//! Durations: the grammar of `budget`, `deadlock_timeout` and `THREADSAFE_BUDGET`.

use std::time::Duration;

use crate::Error;

/// What a duration looks like, for messages.
pub const DURATION_FORMAT: &str = "write a number and a unit (`ms`, `s`, `m` or `min`), e.g. `\"500ms\"`, `\"2s\"`, `\"1.5s\"` or `\"10m\"`";

/// Parses a duration: a decimal number (`2`, `1.5`, `.5`), then at once its unit: `ms`, `s`,
/// or `m` / `min` for minutes. The value is exact to the nanosecond (digits beyond are
/// dropped), positive, and at most `u64::MAX` nanoseconds (about 584 years).
///
/// ```
/// use std::time::Duration;
/// use threadsafe_knobs::parse_duration;
///
/// assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
/// assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
/// assert_eq!(parse_duration(".5s"), Ok(Duration::from_millis(500)));
/// assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
/// assert_eq!(parse_duration(" 2min\n"), Ok(Duration::from_secs(120)));
/// assert_eq!(parse_duration("0.001ms"), Ok(Duration::from_micros(1)));
///
/// let error = parse_duration("3h").unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "unknown unit `h` in `\"3h\"`: write a number and a unit (`ms`, `s`, `m` or `min`), \
///      e.g. `\"500ms\"`, `\"2s\"`, `\"1.5s\"` or `\"10m\"`"
/// );
/// assert!(parse_duration("5").unwrap_err().to_string().contains("has no unit"));
/// assert!(parse_duration("0s").unwrap_err().to_string().contains("is zero"));
/// ```
pub fn parse_duration(text: &str) -> Result<Duration, Error> {
    let s = text.trim();
    let not_a_duration = || Error::new(format!("`{text:?}` is not a duration: {DURATION_FORMAT}"));
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    if num.is_empty() {
        return Err(not_a_duration());
    }
    let unit_nanos: u128 = match unit {
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" | "min" => 60_000_000_000,
        "" => {
            return Err(Error::new(format!(
                "`{text:?}` has no unit: {DURATION_FORMAT}"
            )))
        }
        u if u.starts_with(char::is_whitespace) => {
            return Err(Error::new(format!(
                "`{text:?}` has a space before its unit: {DURATION_FORMAT}"
            )))
        }
        u => {
            return Err(Error::new(format!(
                "unknown unit `{u}` in `{text:?}`: {DURATION_FORMAT}"
            )))
        }
    };
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() && frac.is_empty() || !digits(int) || !digits(frac) {
        return Err(not_a_duration());
    }
    let too_long = || {
        Error::new(format!(
            "`{text:?}` is too long: a duration is at most 2^64 - 1 nanoseconds (about 584 years)"
        ))
    };
    let int: u128 = if int.is_empty() {
        0
    } else {
        int.parse().map_err(|_| too_long())?
    };
    // The fraction, to far below a nanosecond of the largest unit (further digits are dropped).
    let frac = &frac[..frac.len().min(20)];
    let frac_nanos = if frac.is_empty() {
        0
    } else {
        let f: u128 = frac.parse().expect("at most 20 digits");
        f * unit_nanos / 10u128.pow(frac.len() as u32)
    };
    let nanos = int
        .checked_mul(unit_nanos)
        .and_then(|n| n.checked_add(frac_nanos))
        .and_then(|n| u64::try_from(n).ok())
        .ok_or_else(too_long)?;
    if nanos == 0 {
        return Err(Error::new(format!(
            "`{text:?}` is zero: give a positive duration, e.g. `\"500ms\"`"
        )));
    }
    Ok(Duration::from_nanos(nanos))
}

/// Writes a duration so that [`parse_duration`] reads it back exactly: seconds, with as
/// many decimals as the nanoseconds need (`0.25s`, `2s`, `0.000000001s`).
///
/// ```
/// use std::time::Duration;
/// use threadsafe_knobs::{format_duration, parse_duration};
///
/// assert_eq!(format_duration(Duration::from_millis(250)), "0.25s");
/// let d = Duration::from_nanos(1_500_000_001);
/// assert_eq!(parse_duration(&format_duration(d)), Ok(d));
/// ```
pub fn format_duration(d: Duration) -> String {
    let nanos = d.subsec_nanos();
    if nanos == 0 {
        return format!("{}s", d.as_secs());
    }
    let frac = format!("{nanos:09}");
    format!("{}.{}s", d.as_secs(), frac.trim_end_matches('0'))
}
