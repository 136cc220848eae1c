//! Durations and numbers as text: durations as a user writes them, seconds and counts as the
//! tables print them.

use std::time::Duration;

/// Parses `500ms`, `2s`, `1.5s`, `10m` or a bare number of seconds; a duration must be
/// positive and finite.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, scale) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60.0)
    } else {
        (s, 1.0)
    };
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v * scale < 1e9 => {
            Ok(Duration::from_secs_f64(v * scale))
        }
        _ => Err("expected a positive duration such as 500ms, 2s or 10m".to_string()),
    }
}

/// Seconds with a precision that suits their size: `0.0042 s`, `0.153 s`, `12.3 s`.
pub fn secs(s: f64) -> String {
    if s < 0.01 {
        format!("{s:.4} s")
    } else if s < 10.0 {
        format!("{s:.3} s")
    } else {
        format!("{s:.1} s")
    }
}

/// A ratio with three significant digits or so: `0.0042`, `0.153`, `5.20`, `52.1`, `521`.
pub(super) fn ratio_digits(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}")
    } else if r >= 10.0 {
        format!("{r:.1}")
    } else if r >= 0.1 {
        format!("{r:.2}")
    } else if r >= 0.01 {
        format!("{r:.3}")
    } else {
        format!("{r:.4}")
    }
}

/// A count with thousands separators: `1,234,567`.
pub fn thousands(v: f64) -> String {
    let digits = format!("{:.0}", v.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_and_counts() {
        assert_eq!(secs(0.00421), "0.0042 s");
        assert_eq!(secs(0.1534), "0.153 s");
        assert_eq!(secs(12.34), "12.3 s");
        assert_eq!(thousands(1234567.4), "1,234,567");
        assert_eq!(thousands(999.0), "999");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert!(parse_duration("inf").is_err());
    }
}
