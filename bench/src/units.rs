//! Numbers as text: seconds, ratios and counts as the tables print them. (Durations are read
//! with `threadsafe-knobs`' grammar, in `cli`.)

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
pub fn ratio_digits(r: f64) -> String {
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
}
