//! Algorithm 5: which thread's next step extends a wanted pattern.

// Fast, deterministic hashing: matching hashes every partial match of every execution.

use super::*;

/// A partial match of the guide's target: `len` steps matched, with the threads bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct GuideState {
    /// How many steps of the target are matched.
    len: usize,
    /// The thread of role `a`, once it has a step.
    a: Option<usize>,
    /// The thread of role `b`, once it has a step.
    b: Option<usize>,
}

/// Steers a controlled run towards one target pattern (Algorithm 5): it follows the steps
/// taken and says which thread's next step extends a partial match of the target, so the
/// scheduler can eagerly run that thread (and pick at random when it says `None`).
#[derive(Clone, Debug)]
pub(crate) struct Steer {
    /// The pattern instance wanted.
    target: PatternKey,
    /// Every distinct partial match so far, including the empty one.
    states: Vec<GuideState>,
    /// The target has been matched completely.
    covered: bool,
}

impl Steer {
    /// A guide towards `target`, before any step.
    pub(crate) fn new(target: PatternKey) -> Self {
        Steer {
            target,
            states: vec![GuideState {
                len: 0,
                a: None,
                b: None,
            }],
            covered: false,
        }
    }

    /// The target.
    pub(crate) fn target(&self) -> &PatternKey {
        &self.target
    }

    /// Whether the steps so far contain the target.
    pub(crate) fn is_covered(&self) -> bool {
        self.covered
    }

    /// The partial match `state` extended by `e`, if `e` is its next step.
    fn advance(&self, state: &GuideState, e: &Access) -> Option<GuideState> {
        let (shape, want) = self.target.shaped_steps().nth(state.len)?;
        if e.site != want.site || e.var != want.var || e.kind != shape.kind {
            return None;
        }
        let mut next = GuideState {
            len: state.len + 1,
            ..*state
        };
        match (shape.role, state.a, state.b) {
            (Role::A, None, _) => next.a = Some(e.thread),
            (Role::A, Some(a), _) if a == e.thread => {}
            (Role::B, Some(a), None) if a != e.thread => next.b = Some(e.thread),
            (Role::B, _, Some(b)) if b == e.thread => {}
            _ => return None,
        }
        Some(next)
    }

    /// Follows one step of the run.
    pub(crate) fn observe(&mut self, e: &Access) {
        let full = self.target.steps().len();
        let grown: Vec<GuideState> = self
            .states
            .iter()
            .filter_map(|s| self.advance(s, e))
            .collect();
        for s in grown {
            if s.len == full {
                self.covered = true;
            } else if !self.states.contains(&s) {
                self.states.push(s);
            }
        }
    }

    /// Of the runnable threads' next steps, the thread whose step makes the most progress:
    /// it extends the longest partial match of the target into one not seen yet (the first
    /// candidate on ties). `None` once the target is covered or if no step helps.
    pub(crate) fn choose(&self, next: &[Access]) -> Option<usize> {
        if self.covered {
            return None;
        }
        let full = self.target.steps().len();
        let mut best: Option<(usize, usize)> = None;
        for c in next {
            for s in &self.states {
                let Some(grown) = self.advance(s, c) else {
                    continue;
                };
                let progress = grown.len == full || !self.states.contains(&grown);
                if progress && best.map_or(true, |(len, _)| grown.len > len) {
                    best = Some((grown.len, c.thread));
                }
            }
        }
        best.map(|(_, thread)| thread)
    }
}

/// [`Steer::choose`] after the steps `so_far`: which of the candidate next steps (one per
/// runnable thread) extends a partial match of `target`.
#[cfg(test)]
pub(crate) fn next_thread(
    target: &PatternKey,
    so_far: &[Access],
    next: &[Access],
) -> Option<usize> {
    let mut guide = Steer::new(*target);
    for e in so_far {
        guide.observe(e);
    }
    guide.choose(next)
}
