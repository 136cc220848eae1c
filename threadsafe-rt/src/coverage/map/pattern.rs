//! Steps, the 17 patterns of Table I, and the key of a pattern instance.

// Fast, deterministic hashing: matching hashes every partial match of every execution.
use std::fmt;

/// Whether a step reads or writes its variable.
///
/// A lock, write-lock, store or read-modify-write is a write; a read-lock or load is a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Kind {
    /// The step reads the variable.
    Read,
    /// The step writes the variable.
    Write,
}

/// One step of an execution: `thread` accesses `var` at `site` (an instruction or source
/// location), reading or writing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Access {
    /// The thread that runs the step.
    pub(crate) thread: usize,
    /// The instruction or location of the step.
    pub(crate) site: u32,
    /// The shared variable accessed.
    pub(crate) var: u32,
    /// Read or write.
    pub(crate) kind: Kind,
}

impl Access {
    /// A read of `var` by `thread` at `site`.
    #[cfg(test)]
    pub(crate) fn read(thread: usize, site: u32, var: u32) -> Self {
        Access {
            thread,
            site,
            var,
            kind: Kind::Read,
        }
    }

    /// A write of `var` by `thread` at `site`.
    #[cfg(test)]
    pub(crate) fn write(thread: usize, site: u32, var: u32) -> Self {
        Access {
            thread,
            site,
            var,
            kind: Kind::Write,
        }
    }
}

/// The thread role of a pattern step: `a` runs the first step, `b` is the other thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Role {
    /// The thread of the first step.
    A,
    /// The other thread.
    B,
}

/// The variable role of a pattern step: `x` is the first variable accessed, `y` the other
/// one (patterns 9–17 only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum VarRole {
    /// The variable of the first step.
    X,
    /// The second, distinct variable.
    Y,
}

/// One step of a pattern's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct StepShape {
    /// Which thread runs it.
    pub(crate) role: Role,
    /// Read or write.
    pub(crate) kind: Kind,
    /// Which variable it accesses.
    pub(crate) var: VarRole,
}

/// A [`StepShape`], briefly, for the table.
const fn step(role: Role, kind: Kind, var: VarRole) -> StepShape {
    StepShape { role, kind, var }
}

/// Table I of the paper (from UNICORN, Park et al.): the shapes of patterns 1 to 17.
static SHAPES: [&[StepShape]; 17] = {
    use Kind::{Read as R, Write as W};
    use Role::{A, B};
    use VarRole::{X, Y};
    [
        &[step(A, R, X), step(B, W, X)],
        &[step(A, W, X), step(B, R, X)],
        &[step(A, W, X), step(B, W, X)],
        &[step(A, R, X), step(B, W, X), step(A, R, X)],
        &[step(A, W, X), step(B, W, X), step(A, R, X)],
        &[step(A, W, X), step(B, R, X), step(A, W, X)],
        &[step(A, R, X), step(B, W, X), step(A, W, X)],
        &[step(A, W, X), step(B, W, X), step(A, W, X)],
        &[step(A, W, X), step(B, W, X), step(B, W, Y), step(A, W, Y)],
        &[step(A, W, X), step(B, W, Y), step(B, W, X), step(A, W, Y)],
        &[step(A, W, X), step(B, W, Y), step(A, W, Y), step(B, W, X)],
        &[step(A, W, X), step(B, R, X), step(B, R, Y), step(A, W, Y)],
        &[step(A, W, X), step(B, R, Y), step(B, R, X), step(A, W, Y)],
        &[step(A, R, X), step(B, W, X), step(B, W, Y), step(A, R, Y)],
        &[step(A, R, X), step(B, W, Y), step(B, W, X), step(A, R, Y)],
        &[step(A, R, X), step(B, W, Y), step(A, R, Y), step(B, W, X)],
        &[step(A, W, X), step(B, R, Y), step(A, W, Y), step(B, R, X)],
    ]
};

/// A pattern of Table I, `1..=17`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct PatternId(u8);

impl PatternId {
    /// The number of patterns.
    pub(crate) const COUNT: usize = 17;

    /// Pattern `id`, if `1 <= id <= 17`.
    #[cfg(test)]
    pub(crate) fn new(id: u8) -> Option<Self> {
        (1..=Self::COUNT as u8)
            .contains(&id)
            .then_some(PatternId(id))
    }

    /// All patterns, 1 to 17.
    pub(crate) fn all() -> impl Iterator<Item = PatternId> {
        (1..=Self::COUNT as u8).map(PatternId)
    }

    /// The number, `1..=17`.
    pub(crate) fn get(self) -> u8 {
        self.0
    }

    /// The index of the pattern in per-pattern arrays: `get() - 1`.
    pub(crate) fn index(self) -> usize {
        usize::from(self.0) - 1
    }

    /// The steps of the pattern (2 to 4).
    pub(crate) fn shape(self) -> &'static [StepShape] {
        SHAPES[self.index()]
    }

    /// Whether the pattern involves two variables (patterns 9–17).
    pub(crate) fn has_two_vars(self) -> bool {
        self.shape().iter().any(|s| s.var == VarRole::Y)
    }
}

/// The site and variable of one step of a pattern instance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct SiteVar {
    /// The instruction or location.
    pub(crate) site: u32,
    /// The variable.
    pub(crate) var: u32,
}

/// A pattern instance without its threads: the pattern and the `(site, var)` of each step.
///
/// Two instances that differ only in their thread identities have the same key (§III.A).
/// The variables are kept: `x` and `y` are actual variables. Ordered by pattern, then steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct PatternKey {
    pub(super) id: PatternId,
    /// The steps; entries past `id.shape().len()` are zero.
    pub(super) steps: [SiteVar; 4],
}

impl PatternKey {
    /// The key of pattern `id` with these steps, if they fit its shape: one entry per step,
    /// the same variable wherever the shape has `x` (and `y`), and `x != y`.
    pub(crate) fn new(id: PatternId, steps: &[SiteVar]) -> Option<Self> {
        let shape = id.shape();
        if steps.len() != shape.len() {
            return None;
        }
        let (mut x, mut y) = (None, None);
        for (s, sv) in shape.iter().zip(steps) {
            let slot = match s.var {
                VarRole::X => &mut x,
                VarRole::Y => &mut y,
            };
            match *slot {
                None => *slot = Some(sv.var),
                Some(v) if v != sv.var => return None,
                Some(_) => {}
            }
        }
        if y.is_some() && x == y {
            return None;
        }
        let mut all = [SiteVar::default(); 4];
        all[..steps.len()].copy_from_slice(steps);
        Some(PatternKey { id, steps: all })
    }

    /// The pattern.
    pub(crate) fn id(&self) -> PatternId {
        self.id
    }

    /// The `(site, var)` of each step, in order.
    pub(crate) fn steps(&self) -> &[SiteVar] {
        &self.steps[..self.id.shape().len()]
    }

    /// Each step with its shape (role, kind, variable role).
    pub(crate) fn shaped_steps(&self) -> impl Iterator<Item = (StepShape, SiteVar)> + '_ {
        self.id
            .shape()
            .iter()
            .copied()
            .zip(self.steps().iter().copied())
    }

    /// The variables: `x`, and `y` for patterns 9–17.
    pub(crate) fn vars(&self) -> (u32, Option<u32>) {
        let y = self
            .shaped_steps()
            .find(|(s, _)| s.var == VarRole::Y)
            .map(|(_, sv)| sv.var);
        (self.steps[0].var, y)
    }

    /// How many distinct sites the steps involve (1 to 4).
    pub(crate) fn distinct_sites(&self) -> usize {
        let steps = self.steps();
        (0..steps.len())
            .filter(|&i| steps[..i].iter().all(|s| s.site != steps[i].site))
            .count()
    }

    /// The `(site, var, kind)` of the steps of `role`, in order.
    pub(crate) fn role_steps(&self, role: Role) -> Vec<(u32, u32, Kind)> {
        self.shaped_steps()
            .filter(|(s, _)| s.role == role)
            .map(|(s, sv)| (sv.site, sv.var, s.kind))
            .collect()
    }
}

/// `P4[a R s4@v0, b W s9@v0, a R s5@v0]`.
impl fmt::Display for PatternKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "P{}[", self.id.get())?;
        for (i, (s, sv)) in self.shaped_steps().enumerate() {
            let role = match s.role {
                Role::A => 'a',
                Role::B => 'b',
            };
            let kind = match s.kind {
                Kind::Read => 'R',
                Kind::Write => 'W',
            };
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{role} {kind} s{}@v{}", sv.site, sv.var)?;
        }
        f.write_str("]")
    }
}
