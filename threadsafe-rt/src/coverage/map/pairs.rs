//! Algorithm 4: which calls can cover a pattern.

use std::collections::BTreeSet;

// Fast, deterministic hashing: matching hashes every partial match of every execution.

use super::*;

/// The accesses of one sequential run of a method, in order: `(site, var, kind)`.
pub(crate) type MethodTrace = (usize, Vec<(u32, u32, Kind)>);

/// The patterns one call with trace `a` (role `a`) and one with trace `b` (role `b`) can
/// form when run concurrently: every choice of role-`a` steps in order from `a` and role-`b`
/// steps in order from `b` that fits a shape (any such choice is realized by some
/// interleaving of the two calls). Those with the most distinct sites first.
pub(crate) fn pair_keys(a: &[(u32, u32, Kind)], b: &[(u32, u32, Kind)]) -> Vec<PatternKey> {
    fn go(
        id: PatternId,
        traces: [&[(u32, u32, Kind)]; 2],
        at: usize,
        next: [usize; 2],
        steps: &mut Vec<SiteVar>,
        out: &mut BTreeSet<PatternKey>,
    ) {
        let shape = id.shape();
        if at == shape.len() {
            if let Some(k) = PatternKey::new(id, steps) {
                out.insert(k);
            }
            return;
        }
        let role = match shape[at].role {
            Role::A => 0,
            Role::B => 1,
        };
        for i in next[role]..traces[role].len() {
            let (site, var, kind) = traces[role][i];
            if kind != shape[at].kind {
                continue;
            }
            let mut n = next;
            n[role] = i + 1;
            steps.push(SiteVar { site, var });
            go(id, traces, at + 1, n, steps, out);
            steps.pop();
        }
    }
    let mut out = BTreeSet::new();
    for id in PatternId::all() {
        go(id, [a, b], 0, [0, 0], &mut Vec::with_capacity(4), &mut out);
    }
    let mut keys: Vec<PatternKey> = out.into_iter().collect();
    keys.sort_by_key(|k| std::cmp::Reverse(k.distinct_sites()));
    keys
}

/// How many of `wanted`, from the start, occur in order (not necessarily adjacent) in
/// `trace`.
fn prefix_in(wanted: &[(u32, u32, Kind)], trace: &[(u32, u32, Kind)]) -> usize {
    let mut matched = 0;
    for access in trace {
        if matched < wanted.len() && *access == wanted[matched] {
            matched += 1;
        }
    }
    matched
}

/// The fewest calls, in order, with which one thread performs the steps of `role` in `key`
/// (the paper's up-to-4-method sequences, for patterns no single call covers, e.g. a write
/// then a read by `a` in different methods); `None` if some step is in no method's trace.
///
/// Greedy: each call is the method whose trace covers the longest run of the remaining
/// steps (the first such method on ties), which is optimal since any part of a coverable
/// run is coverable.
pub(crate) fn role_calls(
    key: &PatternKey,
    role: Role,
    methods: &[MethodTrace],
) -> Option<Vec<usize>> {
    let wanted = key.role_steps(role);
    let mut calls = Vec::new();
    let mut done = 0;
    while done < wanted.len() {
        let mut best: Option<(usize, usize)> = None;
        for (m, trace) in methods {
            let reach = prefix_in(&wanted[done..], trace);
            if reach > 0 && best.map_or(true, |(_, r)| reach > r) {
                best = Some((*m, reach));
            }
        }
        let (m, reach) = best?;
        calls.push(m);
        done += reach;
    }
    Some(calls)
}
