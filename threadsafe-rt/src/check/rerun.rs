//! The test of a judged batch run again, on the check's workers, for the results oracle's
//! confirmation ([`Rerun`]).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::control::{control_of, Schedules};
use crate::config::{Config, Guide};
use crate::coverage::Tracker;
use crate::exec::{stride, BatchOutcome, BatchSpec, ConcRunner, Results};
use crate::generate::ReadyTest;
use crate::oracle::Rerun;
use crate::subject::Description;

/// The test of a batch run again for the results oracle's confirmation, on the check's
/// workers.
pub(super) struct Again<'h, T: 'static> {
    pub(super) desc: &'static Description<T>,
    pub(super) config: &'h Config,
    pub(super) ready: &'h ReadyTest,
    pub(super) conc: &'h mut ConcRunner,
    pub(super) tracker: &'h Arc<Mutex<Tracker>>,
    /// The schedules of the batch judged (`None`: free-running).
    pub(super) schedules: Option<Schedules>,
    /// The seed of the batch judged: its executions run again with it.
    pub(super) seed: u64,
}

impl<T: Send + Sync + 'static> Rerun for Again<'_, T> {
    fn runner(&mut self) -> &mut ConcRunner {
        self.conc
    }

    /// The controlled execution again with the same schedules (its results come back unless
    /// something outside the schedule decides them).
    fn controlled_again(&mut self, execution: usize, same: &dyn Fn(&Results) -> bool) -> bool {
        if self.config.guide == Guide::Map {
            // The schedules aimed at patterns depend on the coverage of every execution
            // so far: they do not come back. The sequential confirmation stands alone.
            return true;
        }
        let Some(schedules) = self.schedules else {
            return false;
        };
        let ready = self.ready;
        let timeout = self.config.hang_timeout(Some(ready.seq_time));
        let spec = BatchSpec {
            count: match schedules {
                Schedules::Batch(_) => execution + 1,
                Schedules::Exactly { .. } => 1,
            },
            timeout,
            deadline: Instant::now() + timeout * 4 + Duration::from_secs(1),
            control: Some(control_of(self.config, self.tracker, ready, schedules, false).0),
            observe: true,
            stride: 1,
            seq_time: ready.seq_time,
            points: ready.points,
            seed: self.seed,
        };
        let again = self.conc.run_batch(self.desc, &ready.test, spec);
        again
            .results
            .seen
            .iter()
            .any(|s| s.execution == execution && same(&s.results))
    }

    fn free_again(&mut self, until: Instant) -> BatchOutcome {
        let ready = self.ready;
        let spec = BatchSpec {
            count: self.config.conc_execs,
            timeout: self.config.hang_timeout(Some(ready.seq_time)),
            deadline: until,
            control: None,
            observe: true,
            stride: stride(ready.seq_time),
            seq_time: ready.seq_time,
            points: ready.points,
            seed: self.seed,
        };
        self.conc.run_batch(self.desc, &ready.test, spec)
    }
}
