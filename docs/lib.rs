// The threadsafe book, compiled: each chapter of `src/` is the documentation of one empty
// module, so `cargo test -p threadsafe-book --doc` builds every Rust block in the book.
#![doc = include_str!("src/introduction.md")]

#[doc = include_str!("src/getting-started.md")]
pub mod getting_started {}

#[doc = include_str!("src/writing-types.md")]
pub mod writing_types {}

#[doc = include_str!("src/reading-a-report.md")]
pub mod reading_a_report {}

#[doc = include_str!("src/auto-mode.md")]
pub mod auto_mode {}

#[doc = include_str!("src/sync.md")]
pub mod sync {}

#[doc = include_str!("src/async.md")]
pub mod asynchronous {}

#[doc = include_str!("src/gates.md")]
pub mod gates {}

#[doc = include_str!("src/strategies.md")]
pub mod strategies {}

#[doc = include_str!("src/map-coverage.md")]
pub mod map_coverage {}

#[doc = include_str!("src/shrinking.md")]
pub mod shrinking {}

#[doc = include_str!("src/ci.md")]
pub mod ci {}

#[doc = include_str!("src/configuration.md")]
pub mod configuration {}

#[doc = include_str!("src/troubleshooting.md")]
pub mod troubleshooting {}

#[doc = include_str!("src/comparison.md")]
pub mod comparison {}

#[doc = include_str!("src/design.md")]
pub mod design {}

#[doc = include_str!("src/results.md")]
pub mod results {}
