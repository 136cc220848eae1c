//! threadsafe: finds thread-safety bugs in `Sync` types with no input but the type.
//!
//! (Crate tutorial: see README; filled in below.)
#![deny(missing_docs)]

mod check;
mod config;
mod exec;
mod generate;
mod generator;
mod model;
mod panics;
mod report;
mod subject;
mod worker;

pub use check::{check, generated_tests};
pub use config::{Config, ConfigError, Executor, BUDGET_ENV, SEED_ENV};
pub use generate::{Gen, Generate};
pub use report::{Failure, Report, Verdict, Violation};
pub use subject::{Description, Skipped, Subject};
pub use threadsafe_derive::thread_safe;

/// Used by the code `#[thread_safe]` expands to; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::subject::{
        CloneNo, CloneYes, Description, Frame, InstancePass, Op, Param, Pass, Probe, Receiver,
        Stash, StashDrop, StashKeep, Unavailable, ViaGenerate, ViaNothing, ViaSubject,
    };
    pub use crate::check::run_test;
    pub use static_assertions;

    /// Implemented for every `Send + Sync` type; the expansion asserts it of the type under
    /// test so that a type that cannot be shared fails with this message.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be checked by #[thread_safe]: it is not `Send + Sync`",
        label = "the checked type must be `Send + Sync`: its instance is shared between threads",
        note = "thread-safety is a claim about `Sync` types; wrap interior state in `Mutex`, `RwLock` or atomics"
    )]
    pub trait SharedAcrossThreads {}
    impl<T: Send + Sync + ?Sized> SharedAcrossThreads for T {}
}
