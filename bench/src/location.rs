//! Whether a violation is the subject's bug: the file of a panic location, compared with the
//! subject's file however each path was written.

/// True when two source paths name the same file: equal, or one is the other with more
/// leading directories (`/work/main/corpus/src/jdk/x.rs` and `corpus/src/jdk/x.rs`).
/// Backslashes count as slashes.
pub fn same_file(a: &str, b: &str) -> bool {
    let (a, b) = (a.replace('\\', "/"), b.replace('\\', "/"));
    let (a, b) = (a.trim_start_matches("./"), b.trim_start_matches("./"));
    let suffix = |long: &str, short: &str| {
        long.strip_suffix(short)
            .is_some_and(|head| head.is_empty() || head.ends_with('/'))
    };
    !a.is_empty() && !b.is_empty() && (suffix(a, b) || suffix(b, a))
}

/// The file of a panic location `file:line:col` (the location with the two trailing numbers
/// removed; anything else is returned as it is).
pub fn location_file(location: &str) -> &str {
    let mut file = location;
    for _ in 0..2 {
        match file.rsplit_once(':') {
            Some((head, n)) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => {
                file = head
            }
            _ => return location,
        }
    }
    file
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_compare_by_suffix() {
        let f = "corpus/src/jdk/string_buffer.rs";
        assert!(same_file(f, f));
        assert!(same_file("/work/main/corpus/src/jdk/string_buffer.rs", f));
        assert!(same_file(f, "src\\jdk\\string_buffer.rs"));
        assert!(!same_file(
            "corpus/src/jdk/my_string_buffer.rs",
            "string_buffer.rs"
        ));
        assert!(!same_file("corpus/src/jdk/other.rs", f));
        assert!(!same_file("", f));
        assert_eq!(
            location_file("corpus/src/jdk/x.rs:12:5"),
            "corpus/src/jdk/x.rs"
        );
        assert_eq!(location_file("C:\\x.rs:1:2"), "C:\\x.rs");
        assert_eq!(location_file("weird"), "weird");
    }
}
