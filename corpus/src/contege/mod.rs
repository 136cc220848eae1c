//! Bugs 1, 2, 8 and 9 of Pradel & Gross (PLDI 2012, Table 1: ConTeGe's JDK subjects) as the
//! end-to-end tests (`threadsafe-tests`) and the benchmarks (`threadsafe-bench`) check them:
//! small ports that keep the paper's failing call pairs, each with a correct twin.
//!
//! Each port exists with the locks its checks need: [`std_locks`] with `std::sync`
//! (free-running stress checks, and the statement points of a test build), [`sync_locks`]
//! with [`threadsafe_rt::sync`] (every lock operation a scheduling point of the controlled
//! scheduler). A bug needed with both is written once, in `both_locks/`, against the `sync`
//! module of the module that includes it, and each lock module includes it
//! (`#[path = "both_locks/…"]`): its source, so its panic locations and the lines the tests
//! search with `line_of`, are one file. A test build that wants the std port with statement
//! points (compiled with `cfg(test)`, which this library is not when other crates use it)
//! includes the same file the same way.
//!
//! | bug | [`std_locks`] | [`sync_locks`] | failure |
//! |---|---|---|---|
//! | 1, `java.lang.StringBuffer` | [`string_buffer`](std_locks::string_buffer) | [`string_buffer`](sync_locks::string_buffer) (`both_locks/`) | index panic in `insert` (in `char_at`) |
//! | 2, `java.util.concurrent.ConcurrentHashMap` | [`concurrent_hash_map`](std_locks::concurrent_hash_map) (`both_locks/`) | the same file | `expect` panic in `put_all` |
//! | 8, `java.util.logging.Logger` | [`logger`](std_locks::logger) | - | `expect` panic in `log` |
//! | 9, `Collections.synchronizedMap` | [`synchronized_map`](std_locks::synchronized_map) (`both_locks/`) | the same file | lock-order deadlock in `eq` |
//!
//! Bug 9 also exists with `parking_lot` locks ([`parking_lot_locks`]), the same file again:
//! a deadlock in a lock crate's own code.
//!
//! `StringBuffer` alone has a port per lock module, on purpose: the two have different method
//! sets, each pinned by tests (see [`std_locks::string_buffer`]).
//!
//! These are not subjects of the time-to-bug harness ([`crate::all`]): the corpus's subjects
//! of the same classes ([`crate::jdk`]: MAPTest's V4, V6, V7 and V8) are larger, with the
//! other bugs MAPTest's table lists, and carry statement points in every build. The ports here
//! keep the attributes their tests were measured with: no statement points outside test
//! builds (`#[thread_safe(test = false)]` on a buggy type), and a plain `#[thread_safe]` on
//! every twin, whose generated `#[test]` runs in this crate's unit tests.

pub mod parking_lot_locks;
pub mod std_locks;
pub mod sync_locks;
