//! Naming what a controlled run touches: variables (a primitive by where it was created,
//! or a field of `self`) and sites, numbered for the pattern algebra and named for the
//! report; and a run's steps in the order their operations ran.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::map::{Access, Kind};
use crate::hooks::Recorded;
use crate::point::{PointKind, Step, Var, Where};

/// A variable: a primitive by where it was created, or a field of `self` by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum VarKey {
    Created(&'static str, u32, u32),
    Field(&'static str),
}

impl VarKey {
    /// The primitive created at `at`.
    fn created(at: &'static std::panic::Location<'static>) -> Self {
        VarKey::Created(at.file(), at.line(), at.column())
    }
}

/// A site: a `sync` operation's caller, or a statement (file and line).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum SiteKey {
    Code(&'static str, u32, u32),
    Statement(&'static str, u32),
}

/// One access before numbering.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Raw {
    pub(super) site: SiteKey,
    /// The annotated method of a statement site.
    pub(super) method: Option<&'static str>,
    pub(super) var: VarKey,
    pub(super) kind: Kind,
}

/// The numbering of variables and sites, and which fields are primitives. A snapshot is
/// shared read-only with the guided schedules of a batch.
#[derive(Clone, Debug, Default)]
pub(crate) struct Names {
    pub(super) vars: HashMap<VarKey, u32>,
    pub(super) var_list: Vec<VarKey>,
    pub(super) sites: HashMap<SiteKey, u32>,
    pub(super) site_list: Vec<(SiteKey, Option<&'static str>)>,
    /// Fields that hold primitives.
    pub(super) linked: HashSet<&'static str>,
    /// Primitive (by where it was created) → the field that holds it: the primitive's
    /// accesses are the field's (every constructor's primitive for one field is one
    /// variable).
    pub(super) field_of: HashMap<VarKey, &'static str>,
}

impl Names {
    /// The accesses of one operation, appended to `out`.
    pub(crate) fn raw(&self, op: PointKind, var: Var, at: Where, out: &mut Vec<Raw>) {
        let kind = match op {
            PointKind::Lock | PointKind::Store | PointKind::ReadModifyWrite => Kind::Write,
            PointKind::ReadLock | PointKind::Load => Kind::Read,
            PointKind::Statement => {
                if let Where::Statement(p) = at {
                    for f in p.fields {
                        if self.linked.contains(f.field) {
                            continue;
                        }
                        out.push(Raw {
                            site: SiteKey::Statement(p.file, p.line),
                            method: Some(p.method),
                            var: VarKey::Field(f.field),
                            kind: if f.write { Kind::Write } else { Kind::Read },
                        });
                    }
                }
                return;
            }
            PointKind::Wait
            | PointKind::Notify
            | PointKind::Barrier
            | PointKind::Yield
            | PointKind::Pending
            | PointKind::Cancel => return,
        };
        let Some(created) = var else { return };
        let (site, method) = match at {
            Where::Code(l) => (SiteKey::Code(l.file(), l.line(), l.column()), None),
            Where::Statement(p) => (SiteKey::Statement(p.file, p.line), Some(p.method)),
        };
        let prim = VarKey::created(created);
        out.push(Raw {
            site,
            method,
            var: self.field_of.get(&prim).map_or(prim, |f| VarKey::Field(f)),
            kind,
        });
    }

    pub(super) fn var_id(&mut self, k: VarKey) -> u32 {
        if let Some(&id) = self.vars.get(&k) {
            return id;
        }
        let id = self.var_list.len() as u32;
        self.vars.insert(k, id);
        self.var_list.push(k);
        id
    }

    pub(super) fn site_id(&mut self, k: SiteKey, method: Option<&'static str>) -> u32 {
        if let Some(&id) = self.sites.get(&k) {
            if method.is_some() && self.site_list[id as usize].1.is_none() {
                self.site_list[id as usize].1 = method;
            }
            return id;
        }
        let id = self.site_list.len() as u32;
        self.sites.insert(k, id);
        self.site_list.push((k, method));
        id
    }

    /// Numbers `r` (new variables and sites get new numbers).
    pub(super) fn number(&mut self, thread: usize, r: &Raw) -> Access {
        Access {
            thread,
            site: self.site_id(r.site, r.method),
            var: self.var_id(r.var),
            kind: r.kind,
        }
    }

    /// Numbers `r` if its variable and site are known.
    pub(crate) fn lookup(&self, thread: usize, r: &Raw) -> Option<Access> {
        Some(Access {
            thread,
            site: *self.sites.get(&r.site)?,
            var: *self.vars.get(&r.var)?,
            kind: r.kind,
        })
    }

    /// Learns which fields are primitives from one sequential call's operations: a
    /// statement naming exactly one field, followed (before the next statement) by an
    /// operation on a primitive. A primitive's first link wins.
    pub(super) fn link(&mut self, ops: &[Recorded]) {
        let mut field: Option<&'static str> = None;
        for r in ops {
            match (r.op, r.at) {
                (PointKind::Statement, Where::Statement(p)) => {
                    field = match p.fields {
                        [only] => Some(only.field),
                        _ => None,
                    };
                }
                (_, _) => {
                    let (Some(f), Some(c)) = (field, r.var) else {
                        continue;
                    };
                    let prim = VarKey::created(c);
                    if !self.field_of.contains_key(&prim) {
                        self.linked.insert(f);
                        self.field_of.insert(prim, f);
                    }
                    field = None;
                }
            }
        }
    }

    /// How many variables are numbered.
    pub(super) fn var_count(&self) -> u32 {
        self.var_list.len() as u32
    }

    /// How the report names variable `v`.
    pub(super) fn var_name(&self, v: u32) -> String {
        match self.var_list.get(v as usize) {
            Some(VarKey::Field(f)) => format!("self.{f}"),
            Some(VarKey::Created(file, line, _)) => {
                format!("the primitive created at {file}:{line}")
            }
            None => format!("v{v}"),
        }
    }

    /// How the report names site `s`.
    pub(super) fn site_name(&self, s: u32) -> String {
        match self.site_list.get(s as usize) {
            Some((SiteKey::Code(file, line, _), m)) | Some((SiteKey::Statement(file, line), m)) => {
                match m {
                    Some(m) => format!("{file}:{line} (in `{m}`)"),
                    None => format!("{file}:{line}"),
                }
            }
            None => format!("s{s}"),
        }
    }
}

/// The steps of a controlled run in the order their operations ran (see the module docs).
pub(super) fn in_run_order(trace: &[Step]) -> Vec<Step> {
    let mut out = Vec::with_capacity(trace.len());
    let mut pending: Vec<Option<Step>> = Vec::new();
    for s in trace {
        if pending.len() <= s.thread {
            pending.resize(s.thread + 1, None);
        }
        if let Some(p) = pending[s.thread].take() {
            out.push(p);
        }
        if s.held {
            pending[s.thread] = Some(*s);
        } else {
            out.push(*s);
        }
    }
    // Threads that ran their last operation and ended without another point.
    let mut rest: Vec<Step> = pending.into_iter().flatten().collect();
    rest.sort_by_key(|s| trace.iter().position(|t| t == s));
    out.extend(rest);
    out
}
