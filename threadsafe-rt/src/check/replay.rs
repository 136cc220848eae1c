//! Replay: re-runs exactly the controlled execution a token names. The same seed
//! generates the same tests, and the same batch seed makes the same scheduling choices;
//! the execution is judged, and shrunk, as the check did.

use std::time::Instant;

use super::hunt::Hunt;
use crate::config::{Config, ReplayToken};
use crate::report::{Report, Verdict};
use crate::subject::Description;

/// Runs the execution `token` names and fills `report` as the check that found it did.
pub(super) fn replay<T: Send + Sync + 'static>(
    desc: &'static Description<T>,
    config: &Config,
    token: &str,
    report: &mut Report,
) {
    let token: ReplayToken = match token.parse() {
        Ok(t) => t,
        Err(e) => {
            report.verdict = Verdict::CannotCheck(e);
            return;
        }
    };
    let mut config = config.clone();
    config.seed = token.seed;
    config.strategy = token.strategy;
    config.guide = token.guide;
    report.seed = token.seed;
    Hunt::new(desc, &config, Instant::now()).replay(token, report);
}
