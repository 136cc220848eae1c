//! The expansion compiles without a warning in a crate that denies them, with `cfg(test)` on:
//! the generated `#[test]` functions compile here and run with the rest of the tests.
//! (The `ui/pass/` files are also trybuild pass cases, compiled there without `cfg(test)`;
//! `cargo clippy --all-targets` lints them here, with the generated tests.)
#![deny(warnings)]

#[path = "ui/pass/all_kinds.rs"]
mod all_kinds;

#[path = "ui/pass/async_kinds.rs"]
mod async_kinds;

#[path = "ui/pass/strict_lints.rs"]
mod strict_lints;

#[test]
fn every_kind_is_described() {
    all_kinds::main();
}

#[test]
fn every_kind_of_async_function_is_called() {
    async_kinds::main();
}

#[test]
fn strict_lints_hold() {
    strict_lints::main();
}
