//! What a gated test did: its threads' panics, and the gate deadlock that ended it.

use std::fmt;
use std::time::Duration;

/// Which thread waits at which gate, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// The thread's name.
    pub thread: String,
    /// The gate's name.
    pub gate: String,
    /// Where the thread stands, e.g. "`append` at src/buf.rs:12".
    pub at: String,
}

/// A deadlock of a gated test: every thread waits at a gate that cannot open, or waits
/// for a thread that is blocked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateDeadlock {
    /// The threads at closed gates.
    pub waiting: Vec<Waiting>,
    /// The other threads of the test that had not ended: blocked outside the gates (on a
    /// lock a gated thread holds, say).
    pub blocked: Vec<String>,
    /// How long nothing had happened when it was declared.
    pub quiet_for: Duration,
}

impl fmt::Display for GateDeadlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "gate deadlock: nothing happened for {:?}, and no gate can open",
            self.quiet_for
        )?;
        for w in &self.waiting {
            writeln!(
                f,
                "  thread `{}` waits at {} for gate `{}`",
                w.thread, w.at, w.gate
            )?;
        }
        for b in &self.blocked {
            writeln!(f, "  thread `{b}` is blocked outside the gates")?;
        }
        Ok(())
    }
}

/// A panic of one of the test's threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadPanic {
    /// The thread's name (`main` for the body of [`run`](crate::gates::run)).
    pub thread: String,
    /// The panic message.
    pub message: String,
    /// `file:line:col` of the panic.
    pub location: String,
}

/// What a gated test did: the panics of its threads, in the order they happened, and the
/// gate deadlock that ended it, if any.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Outcome {
    /// The threads' panics (not the unwinding of threads released from a deadlock).
    pub panics: Vec<ThreadPanic>,
    /// The gate deadlock, if the gates stopped the test.
    pub deadlock: Option<GateDeadlock>,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
}

impl Outcome {
    /// No panic and no deadlock.
    pub fn is_ok(&self) -> bool {
        self.panics.is_empty() && self.deadlock.is_none()
    }

    /// Panics with the outcome if a thread panicked or the gates deadlocked.
    #[track_caller]
    pub fn unwrap(&self) {
        assert!(self.is_ok(), "{self}");
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_ok() {
            return write!(f, "gated test passed in {:?}", self.elapsed);
        }
        writeln!(f, "gated test failed after {:?}", self.elapsed)?;
        for p in &self.panics {
            writeln!(
                f,
                "  thread `{}` panicked at {}: {}",
                p.thread, p.location, p.message
            )?;
        }
        if let Some(d) = &self.deadlock {
            write!(f, "{d}")?;
        }
        Ok(())
    }
}
