//! What users see when they misuse `#[thread_safe]` (one file per error family in `ui/`, with
//! the compiler's output in the `.stderr` beside it), and code that must compile cleanly
//! (`ui/pass/`). Regenerate the `.stderr` files with `TRYBUILD=overwrite`, then read them.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/*.rs");
}
