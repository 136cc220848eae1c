//! What the report says about how results were compared: the methods whose results were
//! not compared, and why.

use std::collections::HashSet;

use crate::exec::{Distinct, Res, Site};
use crate::report::ResultsNotes;
use crate::subject::Description;
use crate::testcase::{Scope, TestCase};

/// The method a call site names.
pub(super) fn method<T>(
    desc: &Description<T>,
    test: &TestCase,
    site: Site,
) -> Option<&'static str> {
    let call = match site.scope {
        Scope::Thread(t) => test.threads.get(t)?.get(site.call)?,
        Scope::Post => test.post.get(site.call)?,
        Scope::Prefix => return None,
    };
    Some(desc.op_at(call.op).name)
}

/// Notes the methods whose return type cannot be compared, from a batch's results.
pub(super) fn note_not_compared<T>(
    desc: &Description<T>,
    test: &TestCase,
    distinct: &Distinct,
    notes: &mut ResultsNotes,
) {
    for seen in distinct.seen.iter().take(1) {
        for (site, res) in seen.results.iter() {
            if !matches!(res, Res::NotComparable) {
                continue;
            }
            let Some(name) = method(desc, test, site) else {
                continue;
            };
            notes
                .not_compared
                .entry(name.to_string())
                .or_insert_with(|| {
                    let ty = desc
                        .methods
                        .iter()
                        .find(|m| m.name == name)
                        .and_then(|m| m.returns)
                        .unwrap_or("its return type");
                    format!("`{ty}` is not `PartialEq + Debug`")
                });
        }
    }
}

/// The calls of `test` to the methods in `methods`.
pub(super) fn sites_of<T>(
    desc: &Description<T>,
    test: &TestCase,
    methods: &HashSet<&'static str>,
) -> HashSet<Site> {
    let threads = test.threads.iter().enumerate().flat_map(|(t, calls)| {
        calls
            .iter()
            .enumerate()
            .map(move |(k, _)| Site::thread(t, k))
    });
    let post = test.post.iter().enumerate().map(|(k, _)| Site::post(k));
    threads
        .chain(post)
        .filter(|&site| method(desc, test, site).is_some_and(|m| methods.contains(m)))
        .collect()
}

/// Notes the methods whose results varied between sequential runs of the same calls.
pub(super) fn note_varying<T>(
    desc: &Description<T>,
    test: &TestCase,
    varying: &HashSet<Site>,
    notes: &mut ResultsNotes,
) {
    for &site in varying {
        if let Some(name) = method(desc, test, site) {
            notes
                .not_compared
                .entry(name.to_string())
                .or_insert_with(|| {
                    "its results differ between sequential runs of the same calls (hash order, a \
                 clock, an address, randomness)"
                        .to_string()
                });
        }
    }
}
