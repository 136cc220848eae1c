//! The check: generation, concurrent execution and the oracle (stub while the engine lands).
use crate::{Config, Subject};

/// The outcome of a check.
#[derive(Debug)]
pub struct Report {
    /// The type's name.
    pub type_name: String,
}

/// Runs the check of `T` with `config`.
pub fn check<T: Subject>(config: &Config) -> Report {
    let _ = config;
    let d = crate::generate::description::<T>();
    Report { type_name: d.name.to_string() }
}

#[doc(hidden)]
pub fn run_test<T: Subject>(config: Config) {
    let _ = check::<T>(&config);
}
