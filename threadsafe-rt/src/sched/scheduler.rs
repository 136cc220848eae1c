//! Who runs next: the [`Scheduler`] trait every strategy implements (the strategies are in
//! `crate::strategy`).

use crate::point::Step;

/// A strategy: it decides who runs next at each scheduling point. (The *oracle* is
/// something else: it judges an execution, in `oracle/`.)
pub(crate) trait Scheduler: Send {
    /// One of `runnable` (never empty); `current` is the thread at the point, if runnable;
    /// `yielding` when that point is a `yield_now` (the thread waits for another one).
    fn next(&mut self, runnable: &[usize], current: Option<usize>, yielding: bool) -> usize;
    /// Which of `n` waiters a `notify_one` wakes.
    fn pick(&mut self, n: usize) -> usize;
    /// True for a strategy that steers by what each thread does next: it is then asked
    /// with [`next_at`](Self::next_at) and told each operation that [`ran`](Self::ran).
    fn steers(&self) -> bool {
        false
    }
    /// [`next`](Self::next), knowing each thread's upcoming step: `upcoming[t]` is the
    /// step thread `t` is held at (for the current thread, the one it just reached).
    fn next_at(
        &mut self,
        runnable: &[usize],
        current: Option<usize>,
        yielding: bool,
        upcoming: &[Option<Step>],
    ) -> usize {
        let _ = upcoming;
        self.next(runnable, current, yielding)
    }
    /// The operation of `step` ran: at once, or when its thread got the turn back.
    fn ran(&mut self, step: &Step) {
        let _ = step;
    }
}
