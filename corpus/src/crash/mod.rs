//! Types whose race ends in a crash: `unsafe impl Sync` over unsynchronised memory, as the
//! RUSTSEC advisories against `Sync` impls and lock-free structures describe them. Each has
//! a correct twin with the same API.
//!
//! | type | what two threads do | how the process dies |
//! |---|---|---|
//! | [`buffer::Buffer`] | both grow one `Vec` at once: two `realloc`s of one block | an abort (`realloc(): invalid pointer`, `double free or corruption`), or a segfault |
//! | [`swap_cell::SwapCell`] | one frees the box the other is reading (no reclamation scheme) | a segfault |
//! | [`slot::Slot`] | both take the one value out of an `Option` and drop it | an abort (`free(): double free detected`) |
//! | [`roster::Roster`] | one replaces the list in a lock-free box and frees the old one while the other still reads it (`abox` 0.3.0, a published version) | a segfault |
//! | [`label::Label`] | one drops the last reference to an interned label while the other interns it again (`internment` 0.3.12, a published version) | a segfault or an abort |
//!
//! They are not subjects of the time-to-bug harness ([`crate::all`]): a crash ends the
//! process that checks them, so they are checked by generated tests, whose check runs in a
//! child process (`tests/tests/finds_crashes.rs`). Their twins carry a plain `#[thread_safe]`,
//! whose generated tests run in this crate's unit tests.

pub mod buffer;
pub mod label;
pub mod roster;
pub mod slot;
pub mod swap_cell;
