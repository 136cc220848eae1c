//! Running a gated test: [`run`] and its [`Scope`].

use std::sync::Arc;
use std::time::Instant;

use super::engine::{activate, deactivate, Engine};
use super::outcome::Outcome;
use super::watchdog::watchdog;
use super::Schedule;
use crate::panics;

/// The threads of a gated test; see [`run`].
pub struct Scope<'scope, 'env: 'scope> {
    inner: &'scope std::thread::Scope<'scope, 'env>,
    engine: Arc<Engine>,
}

impl<'scope> Scope<'scope, '_> {
    /// Starts a thread named `name` that runs `body`; [`run`] joins it. Locations can name
    /// the thread (`"worker: fn append"`); its panic is recorded in the [`Outcome`].
    ///
    /// # Panics
    /// If the operating system cannot start a thread.
    pub fn spawn<F>(&self, name: &str, body: F)
    where
        F: FnOnce() + Send + 'scope,
    {
        let engine = Arc::clone(&self.engine);
        let slot = {
            let mut st = engine.state();
            engine.add_thread(&mut st, name.to_string(), 0)
        };
        let name = name.to_string();
        std::thread::Builder::new()
            .name(name.clone())
            .spawn_scoped(self.inner, move || {
                engine.adopt(slot);
                if let Err(p) = panics::catch(body) {
                    engine.record(&name, p);
                }
                if let Err(p) = panics::catch(|| engine.end_current()) {
                    engine.record(&name, p);
                }
                engine.leave_current();
            })
            .expect("the OS starts a thread for the gated test");
    }
}

/// Runs a gated test: `body` runs on the calling thread as thread `main` and starts the
/// other threads with [`Scope::spawn`]; the gates of `schedule` hold threads as they reach
/// their locations. Returns when every thread has ended, with their panics, or with the
/// gate deadlock that stopped them (see the [module docs](super)).
///
/// Gated tests of one process run one at a time (and never beside a
/// [`check`](crate::check)).
///
/// ```
/// use threadsafe_rt::gates::{self, Schedule};
///
/// // A gate that never opens: reported as a deadlock, not a hang.
/// let outcome = gates::run(threadsafe_rt::schedule!("never" -> "main: stuck"), |_| {
///     gates::point("stuck");
/// });
/// let deadlock = outcome.deadlock.expect("reported");
/// assert_eq!(deadlock.waiting[0].thread, "main");
/// assert!(deadlock.waiting[0].gate.contains("until reached `never`"));
/// ```
pub fn run<'env, F>(schedule: Schedule, body: F) -> Outcome
where
    F: for<'scope> FnOnce(&Scope<'scope, 'env>),
{
    let _one_at_a_time = crate::exclusive::one_at_a_time();
    let engine = Arc::new(Engine::new(schedule, watchdog()));
    activate(&engine);
    let start = Instant::now();
    std::thread::scope(|s| {
        let scope = Scope {
            inner: s,
            engine: Arc::clone(&engine),
        };
        {
            let mut st = engine.state();
            let main = engine.add_thread(&mut st, "main".to_string(), 0);
            drop(st);
            engine.adopt(main);
        }
        if let Err(p) = panics::catch(|| body(&scope)) {
            engine.record("main", p);
        }
        if let Err(p) = panics::catch(|| engine.end_current()) {
            engine.record("main", p);
        }
        engine.leave_current();
    });
    let elapsed = start.elapsed();
    deactivate();
    let mut st = engine.state();
    Outcome {
        panics: std::mem::take(&mut st.panics),
        deadlock: st.deadlock.take(),
        elapsed,
    }
}
