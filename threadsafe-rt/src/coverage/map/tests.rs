use std::collections::BTreeSet;

use super::*;

const X: u32 = 10;
const Y: u32 = 20;

fn r(thread: usize, site: u32, var: u32) -> Access {
    Access::read(thread, site, var)
}

fn w(thread: usize, site: u32, var: u32) -> Access {
    Access::write(thread, site, var)
}

fn key(id: u8, steps: &[(u32, u32)]) -> PatternKey {
    let steps: Vec<SiteVar> = steps
        .iter()
        .map(|&(site, var)| SiteVar { site, var })
        .collect();
    PatternKey::new(PatternId::new(id).unwrap(), &steps).expect("a well-formed key")
}

fn ids(keys: &BTreeSet<PatternKey>) -> BTreeSet<u8> {
    keys.iter().map(|k| k.id().get()).collect()
}

/// Every instance by brute force over all subsequences: the reference for [`patterns`].
fn brute_force(execution: &[Access]) -> BTreeSet<PatternKey> {
    fn go(
        execution: &[Access],
        id: PatternId,
        from: usize,
        chosen: &mut Vec<usize>,
        out: &mut BTreeSet<PatternKey>,
    ) {
        let shape = id.shape();
        if chosen.len() == shape.len() {
            let steps: Vec<Access> = chosen.iter().map(|&i| execution[i]).collect();
            let thread = |role| {
                let mut threads = shape.iter().zip(&steps).filter(|(s, _)| s.role == role);
                let first = threads.next().unwrap().1.thread;
                threads.all(|(_, e)| e.thread == first).then_some(first)
            };
            let (Some(a), Some(b)) = (thread(Role::A), thread(Role::B)) else {
                return;
            };
            if a == b || shape.iter().zip(&steps).any(|(s, e)| s.kind != e.kind) {
                return;
            }
            let svs: Vec<SiteVar> = steps
                .iter()
                .map(|e| SiteVar {
                    site: e.site,
                    var: e.var,
                })
                .collect();
            if let Some(k) = PatternKey::new(id, &svs) {
                out.insert(k);
            }
            return;
        }
        for i in from..execution.len() {
            chosen.push(i);
            go(execution, id, i + 1, chosen, out);
            chosen.pop();
        }
    }
    let mut out = BTreeSet::new();
    for id in PatternId::all() {
        go(execution, id, 0, &mut Vec::new(), &mut out);
    }
    out
}

/// A small deterministic generator (xorshift64).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// `sites` sites, site `s` on variable `s % vars`, reading when `s / vars` is odd; each
/// step a random thread at a random site.
fn random_execution(seed: u64, steps: usize, threads: u64, sites: u32, vars: u32) -> Vec<Access> {
    let mut rng = Rng(seed);
    (0..steps)
        .map(|_| {
            let thread = rng.below(threads) as usize;
            let site = rng.below(u64::from(sites)) as u32;
            let var = site % vars;
            if (site / vars) % 2 == 1 {
                r(thread, site, var)
            } else {
                w(thread, site, var)
            }
        })
        .collect()
}

#[test]
fn table_shapes() {
    let lens: Vec<usize> = PatternId::all().map(|id| id.shape().len()).collect();
    assert_eq!(lens, [2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4]);
    for id in PatternId::all() {
        let shape = id.shape();
        assert_eq!(
            (shape[0].role, shape[0].var),
            (Role::A, VarRole::X),
            "{id:?}"
        );
        assert_eq!(shape[1].role, Role::B, "{id:?}");
        assert_eq!(id.has_two_vars(), id.get() >= 9, "{id:?}");
    }
    assert_eq!(PatternId::new(0), None);
    assert_eq!(PatternId::new(18), None);
}

/// For each pattern: an execution that contains it (exactly those steps) and a near
/// miss that contains no instance of it.
#[test]
fn each_pattern_and_a_near_miss() {
    type Case = (u8, Vec<Access>, Vec<(u32, u32)>, Vec<Access>);
    let cases: Vec<Case> = vec![
        // 1: a R x, b W x. Near miss: the other order.
        (
            1,
            vec![r(1, 1, X), w(2, 2, X)],
            vec![(1, X), (2, X)],
            vec![w(2, 2, X), r(1, 1, X)],
        ),
        // 2: a W x, b R x. Near miss: one thread.
        (
            2,
            vec![w(1, 1, X), r(2, 2, X)],
            vec![(1, X), (2, X)],
            vec![w(1, 1, X), r(1, 2, X)],
        ),
        // 3: a W x, b W x. Near miss: different variables.
        (
            3,
            vec![w(1, 1, X), w(2, 2, X)],
            vec![(1, X), (2, X)],
            vec![w(1, 1, X), w(2, 2, Y)],
        ),
        // 4: a R x, b W x, a R x. Near miss: the second read on a third thread.
        (
            4,
            vec![r(1, 1, X), w(2, 2, X), r(1, 3, X)],
            vec![(1, X), (2, X), (3, X)],
            vec![r(1, 1, X), w(2, 2, X), r(3, 3, X)],
        ),
        // 5: a W x, b W x, a R x. Near miss: a's read before b's write.
        (
            5,
            vec![w(1, 1, X), w(2, 2, X), r(1, 3, X)],
            vec![(1, X), (2, X), (3, X)],
            vec![w(1, 1, X), r(1, 3, X), w(2, 2, X)],
        ),
        // 6: a W x, b R x, a W x. Near miss: the last write by b.
        (
            6,
            vec![w(1, 1, X), r(2, 2, X), w(1, 3, X)],
            vec![(1, X), (2, X), (3, X)],
            vec![w(1, 1, X), r(2, 2, X), w(2, 3, X)],
        ),
        // 7: a R x, b W x, a W x. Near miss: b reads.
        (
            7,
            vec![r(1, 1, X), w(2, 2, X), w(1, 3, X)],
            vec![(1, X), (2, X), (3, X)],
            vec![r(1, 1, X), r(2, 2, X), w(1, 3, X)],
        ),
        // 8: a W x, b W x, a W x. Near miss: the last write on another variable.
        (
            8,
            vec![w(1, 1, X), w(2, 2, X), w(1, 3, X)],
            vec![(1, X), (2, X), (3, X)],
            vec![w(1, 1, X), w(2, 2, X), w(1, 3, Y)],
        ),
        // 9: a W x, b W x, b W y, a W y. Near miss: the two writes of y swapped.
        (
            9,
            vec![w(1, 1, X), w(2, 2, X), w(2, 3, Y), w(1, 4, Y)],
            vec![(1, X), (2, X), (3, Y), (4, Y)],
            vec![w(1, 1, X), w(2, 2, X), w(1, 4, Y), w(2, 3, Y)],
        ),
        // 10: a W x, b W y, b W x, a W y. Near miss: a's last write on x.
        (
            10,
            vec![w(1, 1, X), w(2, 2, Y), w(2, 3, X), w(1, 4, Y)],
            vec![(1, X), (2, Y), (3, X), (4, Y)],
            vec![w(1, 1, X), w(2, 2, Y), w(2, 3, X), w(1, 4, X)],
        ),
        // 11: a W x, b W y, a W y, b W x. Near miss: the last write by a.
        (
            11,
            vec![w(1, 1, X), w(2, 2, Y), w(1, 3, Y), w(2, 4, X)],
            vec![(1, X), (2, Y), (3, Y), (4, X)],
            vec![w(1, 1, X), w(2, 2, Y), w(1, 3, Y), w(1, 4, X)],
        ),
        // 12: a W x, b R x, b R y, a W y. Near miss: the read of y by a.
        (
            12,
            vec![w(1, 1, X), r(2, 2, X), r(2, 3, Y), w(1, 4, Y)],
            vec![(1, X), (2, X), (3, Y), (4, Y)],
            vec![w(1, 1, X), r(2, 2, X), r(1, 3, Y), w(1, 4, Y)],
        ),
        // 13: a W x, b R y, b R x, a W y. Near miss: a reads y at the end.
        (
            13,
            vec![w(1, 1, X), r(2, 2, Y), r(2, 3, X), w(1, 4, Y)],
            vec![(1, X), (2, Y), (3, X), (4, Y)],
            vec![w(1, 1, X), r(2, 2, Y), r(2, 3, X), r(1, 4, Y)],
        ),
        // 14: a R x, b W x, b W y, a R y. Near miss: a's read of y before b's write.
        (
            14,
            vec![r(1, 1, X), w(2, 2, X), w(2, 3, Y), r(1, 4, Y)],
            vec![(1, X), (2, X), (3, Y), (4, Y)],
            vec![r(1, 1, X), w(2, 2, X), r(1, 4, Y), w(2, 3, Y)],
        ),
        // 15: a R x, b W y, b W x, a R y. Near miss: the read of y on a third thread.
        (
            15,
            vec![r(1, 1, X), w(2, 2, Y), w(2, 3, X), r(1, 4, Y)],
            vec![(1, X), (2, Y), (3, X), (4, Y)],
            vec![r(1, 1, X), w(2, 2, Y), w(2, 3, X), r(3, 4, Y)],
        ),
        // 16: a R x, b W y, a R y, b W x. Near miss: b's write of x first.
        (
            16,
            vec![r(1, 1, X), w(2, 2, Y), r(1, 3, Y), w(2, 4, X)],
            vec![(1, X), (2, Y), (3, Y), (4, X)],
            vec![w(2, 4, X), r(1, 1, X), w(2, 2, Y), r(1, 3, Y)],
        ),
        // 17: a W x, b R y, a W y, b R x. Near miss: b's last read on y.
        (
            17,
            vec![w(1, 1, X), r(2, 2, Y), w(1, 3, Y), r(2, 4, X)],
            vec![(1, X), (2, Y), (3, Y), (4, X)],
            vec![w(1, 1, X), r(2, 2, Y), w(1, 3, Y), r(2, 4, Y)],
        ),
    ];
    assert_eq!(cases.len(), 17);
    for (id, hit, steps, miss) in cases {
        let found = patterns(&hit);
        assert!(found.contains(&key(id, &steps)), "pattern {id}: {found:?}");
        assert_eq!(found, brute_force(&hit), "pattern {id}");
        let missed = patterns(&miss);
        assert!(
            !ids(&missed).contains(&id),
            "pattern {id} near miss: {missed:?}"
        );
        assert_eq!(missed, brute_force(&miss), "pattern {id} near miss");
        // One thread for both roles: no pattern at all.
        let one_thread: Vec<Access> = hit.iter().map(|e| Access { thread: 1, ..*e }).collect();
        assert!(patterns(&one_thread).is_empty(), "pattern {id}, one thread");
    }
}

#[test]
fn steps_need_not_be_adjacent() {
    // Pattern 4 on x, with unrelated steps (another variable, a third thread) between.
    let execution = [
        r(1, 1, X),
        w(3, 7, Y),
        r(2, 8, Y),
        w(2, 2, X),
        w(3, 7, Y),
        r(1, 3, X),
    ];
    assert!(patterns(&execution).contains(&key(4, &[(1, X), (2, X), (3, X)])));
}

#[test]
fn thread_ids_do_not_matter() {
    let execution = random_execution(7, 40, 2, 6, 2);
    let swapped: Vec<Access> = execution
        .iter()
        .map(|e| Access {
            thread: 1 - e.thread,
            ..*e
        })
        .collect();
    let renamed: Vec<Access> = execution
        .iter()
        .map(|e| Access {
            thread: [42, 7][e.thread],
            ..*e
        })
        .collect();
    let found = patterns(&execution);
    assert!(!found.is_empty());
    assert_eq!(patterns(&swapped), found);
    assert_eq!(patterns(&renamed), found);
    // Two instances differing only by threads have one key.
    let twice = [r(1, 1, X), w(2, 2, X), r(3, 1, X), w(4, 2, X)];
    assert_eq!(patterns(&twice[..2]), patterns(&twice[2..]));
    let one = key(1, &[(1, X), (2, X)]);
    assert!(patterns(&twice).contains(&one));
}

#[test]
fn matches_brute_force_on_random_executions() {
    let mut seen = BTreeSet::new();
    for seed in 1..31 {
        let execution = random_execution(seed * 7919, 20, 3, 5, 2);
        let found = patterns(&execution);
        assert_eq!(found, brute_force(&execution), "seed {seed}");
        seen.extend(ids(&found));
    }
    assert_eq!(seen.len(), 17, "every pattern occurs in some execution");
}

#[test]
fn matcher_counts_new_keys_as_it_goes() {
    let execution = random_execution(3, 60, 3, 6, 2);
    let mut matcher = Matcher::new();
    let mut total = 0;
    for e in &execution {
        total += matcher.push(e);
    }
    assert_eq!(total, matcher.len());
    assert_eq!(matcher.into_keys(), patterns(&execution));
}

/// The worked example of §III.B (Fig. 1–3): variable `th` read at lines 4 and 5, written
/// at line 9.
#[test]
fn worked_example_of_the_paper() {
    const TH: u32 = 0;
    let mut universe = Universe::new();
    universe.add_site(TH, 4, Kind::Read);
    universe.add_site(TH, 5, Kind::Read);
    universe.add_site(TH, 9, Kind::Write);
    assert!(!universe.add_site(TH, 9, Kind::Write));
    // 2·2·1 + 1² + 2²·1 + 3·2·1² + 1³
    assert_eq!(universe.paper_tc(), 16);
    assert_eq!(universe.size(), 16);
    assert_eq!(
        universe.sizes(),
        [2, 2, 1, 4, 2, 2, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(universe.keys().count(), 16);
    // Algorithm 3's list for the example is part of the universe.
    for k in [
        key(1, &[(4, TH), (9, TH)]),
        key(1, &[(5, TH), (9, TH)]),
        key(2, &[(9, TH), (4, TH)]),
        key(2, &[(9, TH), (5, TH)]),
        key(4, &[(4, TH), (9, TH), (5, TH)]),
        key(4, &[(5, TH), (9, TH), (4, TH)]),
        key(5, &[(9, TH), (9, TH), (4, TH)]),
    ] {
        assert!(universe.contains(&k), "{k}");
    }
    assert!(!universe.contains(&key(3, &[(4, TH), (9, TH)])));

    // Fig. 2(b): t1 reads th at s4, t2 writes it at s9, t1 reads it at s5.
    let execution = [r(1, 4, TH), w(2, 9, TH), r(1, 5, TH)];
    let mut coverage = CoveredKeys::new();
    assert_eq!(coverage.add_execution(&execution), 3);
    assert_eq!(coverage.add_execution(&execution), 0);
    let covered: Vec<PatternKey> = coverage.keys().copied().collect();
    // Fig. 3.
    assert_eq!(
        covered,
        [
            key(1, &[(4, TH), (9, TH)]),
            key(2, &[(9, TH), (5, TH)]),
            key(4, &[(4, TH), (9, TH), (5, TH)]),
        ]
    );
    assert_eq!(coverage.covered_in(&universe), 3);
    assert_eq!(coverage.ratio(&universe), Some(0.1875));
    let mut per_pattern = [0; 17];
    per_pattern[0] = 1;
    per_pattern[1] = 1;
    per_pattern[3] = 1;
    assert_eq!(coverage.per_pattern(), per_pattern);

    // Uncovered, most distinct sites first: the only 3-site key left is s5, s9, s4.
    assert_eq!(
        coverage.uncovered(&universe, 1),
        [key(4, &[(5, TH), (9, TH), (4, TH)])]
    );
    let uncovered = coverage.uncovered(&universe, 100);
    assert_eq!(uncovered.len(), 13);
    assert!(uncovered
        .iter()
        .all(|k| universe.contains(k) && !coverage.is_covered(k)));
    let sites: Vec<usize> = uncovered.iter().map(PatternKey::distinct_sites).collect();
    assert!(sites.windows(2).all(|w| w[0] >= w[1]), "{sites:?}");
    assert_eq!(sites.iter().filter(|&&d| d == 1).count(), 2); // P3 s9,s9 and P8
    assert_eq!(
        key(4, &[(4, TH), (9, TH), (5, TH)]).to_string(),
        "P4[a R s4@v0, b W s9@v0, a R s5@v0]"
    );
}

/// The paper's formula counts patterns 9–17 once per unordered pair of variables, but
/// both orders of the pair occur as distinct instances.
#[test]
fn both_orientations_of_a_pair_are_distinct() {
    let execution = [
        w(1, 1, X),
        w(2, 1, X),
        w(2, 2, Y),
        w(1, 2, Y),
        w(2, 2, Y),
        w(2, 1, X),
        w(1, 1, X),
    ];
    let nine: Vec<PatternKey> = patterns(&execution)
        .into_iter()
        .filter(|k| k.id().get() == 9)
        .collect();
    assert_eq!(
        nine,
        [
            key(9, &[(1, X), (1, X), (2, Y), (2, Y)]),
            key(9, &[(2, Y), (2, Y), (1, X), (1, X)]),
        ]
    );
    let mut universe = Universe::new();
    universe.add_accesses(&execution);
    let nine_id = PatternId::new(9).unwrap();
    assert_eq!(universe.size_of(nine_id), 2);
    // Patterns 3 and 8 on each variable (1 each), and 9–11 with one write site per
    // variable: 3·1²·1² per unordered pair, 6 keys.
    assert_eq!(universe.paper_tc(), 2 * 2 + 3);
    assert_eq!(universe.size(), 2 * 2 + 6);
}

#[test]
fn universe_size_counts_its_keys() {
    let mut universe = Universe::new();
    universe.add_accesses(&random_execution(11, 200, 2, 9, 3));
    let keys: BTreeSet<PatternKey> = universe.keys().collect();
    assert_eq!(keys.len() as u64, universe.size());
    assert_eq!(universe.keys().count() as u64, universe.size());
    for id in PatternId::all() {
        assert_eq!(
            universe.keys_of(id).count() as u64,
            universe.size_of(id),
            "{id:?}"
        );
    }
    assert!(keys.iter().all(|k| universe.contains(k)));
    let two_var: u64 = PatternId::all()
        .filter(|id| id.has_two_vars())
        .map(|id| universe.size_of(id))
        .sum();
    assert!(two_var > 0);
    assert_eq!(universe.paper_tc(), universe.size() - two_var / 2);
    assert_eq!(Universe::new().size(), 0);
    assert_eq!(CoveredKeys::new().ratio(&Universe::new()), None);
}

#[test]
fn two_thousand_steps() {
    let execution = random_execution(2019, 2000, 3, 20, 3);
    let mut universe = Universe::new();
    universe.add_accesses(&execution);
    let found = patterns(&execution);
    assert!(found.iter().all(|k| universe.contains(k)));
    // A long random run over few sites covers every feasible pattern.
    assert_eq!(found.len() as u64, universe.size());
    let mut coverage = CoveredKeys::new();
    coverage.add_keys(found);
    assert_eq!(coverage.ratio(&universe), Some(1.0));
    assert!(coverage.uncovered(&universe, 10).is_empty());
}

#[test]
fn uncovered_stops_early_and_prefers_distinct_sites() {
    let mut universe = Universe::new();
    for site in 0..30 {
        universe.add_site(
            site % 3,
            site,
            if site % 2 == 0 {
                Kind::Write
            } else {
                Kind::Read
            },
        );
    }
    assert!(universe.size() > 30_000, "{}", universe.size());
    let uncovered = CoveredKeys::new().uncovered(&universe, 5);
    assert_eq!(uncovered.len(), 5);
    assert!(uncovered.iter().all(|k| k.distinct_sites() == 4));
}

#[test]
fn pair_coverage() {
    let mut pairs = PairCoverage::new();
    assert_eq!(pairs.least(), 0);
    assert!(pairs.record(0, 1));
    assert!(!pairs.record(1, 0));
    assert!(pairs.record(2, 2));
    assert_eq!(pairs.count(1, 0), 2);
    assert_eq!(pairs.count(0, 2), 0);
    assert_eq!(pairs.covered(), 2);
    assert_eq!(pairs.least(), 1, "(2, 2) ran once, (0, 1) twice");
    assert_eq!(PairCoverage::total(3), 6);
    assert_eq!(PairCoverage::total(0), 0);
    assert_eq!(pairs.ratio(3), Some(2.0 / 6.0));
    assert_eq!(pairs.ratio(2), Some(1.0 / 3.0));
    assert_eq!(pairs.ratio(0), None);
}

/// Fig. 1: method 0 (`isAsSevereAsThreshold`) reads th at s4 then s5; method 1
/// (`setThreshold`) writes it at s9.
fn fig1_methods() -> Vec<MethodTrace> {
    vec![
        (0, vec![(4, 0, Kind::Read), (5, 0, Kind::Read)]),
        (1, vec![(9, 0, Kind::Write)]),
    ]
}

#[test]
fn methods_that_can_cover_a_pattern() {
    let methods = fig1_methods();
    // The (a's method, b's method) pairs whose single calls can cover `key`.
    let method_pairs = |key: &PatternKey, methods: &[MethodTrace]| {
        let mut out = Vec::new();
        for (ma, ta) in methods {
            for (mb, tb) in methods {
                if pair_keys(ta, tb).contains(key) {
                    out.push((*ma, *mb));
                }
            }
        }
        out
    };
    assert_eq!(method_pairs(&key(1, &[(4, 0), (9, 0)]), &methods), [(0, 1)]);
    assert_eq!(
        method_pairs(&key(4, &[(4, 0), (9, 0), (5, 0)]), &methods),
        [(0, 1)]
    );
    assert_eq!(method_pairs(&key(3, &[(9, 0), (9, 0)]), &methods), [(1, 1)]);
    // a reads at s5 then s4: not in that order in one call.
    let backwards = key(4, &[(5, 0), (9, 0), (4, 0)]);
    assert!(method_pairs(&backwards, &methods).is_empty());
    assert_eq!(role_calls(&backwards, Role::A, &methods), Some(vec![0, 0]));
    // a writes then reads: two calls, as in the paper's Algorithm 4.
    let five = key(5, &[(9, 0), (9, 0), (4, 0)]);
    assert!(method_pairs(&five, &methods).is_empty());
    assert_eq!(role_calls(&five, Role::A, &methods), Some(vec![1, 0]));
    assert_eq!(role_calls(&five, Role::B, &methods), Some(vec![1]));
    assert_eq!(
        role_calls(&key(4, &[(4, 0), (9, 0), (5, 0)]), Role::A, &methods),
        Some(vec![0])
    );
    // A site no method touches.
    assert_eq!(
        role_calls(&key(1, &[(6, 0), (9, 0)]), Role::A, &methods),
        None
    );
}

#[test]
fn guide_schedules_the_pattern_of_the_paper() {
    let target = key(4, &[(4, 0), (9, 0), (5, 0)]);
    let t1_s4 = r(1, 4, 0);
    let t1_s5 = r(1, 5, 0);
    let t2_s9 = w(2, 9, 0);
    // At the start, t1's read at s4 begins the pattern.
    assert_eq!(next_thread(&target, &[], &[t2_s9, t1_s4]), Some(1));
    // After t1 read at s4: t2 must write before t1 reads again (§IV).
    assert_eq!(next_thread(&target, &[t1_s4], &[t1_s5, t2_s9]), Some(2));
    assert_eq!(next_thread(&target, &[t1_s4, t2_s9], &[t1_s5]), Some(1));
    // The same thread cannot play b.
    assert_eq!(next_thread(&target, &[t1_s4], &[w(1, 9, 0)]), None);
    // Nothing helps: a step of no interest.
    assert_eq!(next_thread(&target, &[t1_s4], &[r(2, 4, 1)]), None);
    let mut guide = Steer::new(target);
    for e in [t1_s4, t2_s9, t1_s5] {
        assert!(!guide.is_covered());
        guide.observe(&e);
    }
    assert!(guide.is_covered());
    assert_eq!(guide.choose(&[t1_s4, t2_s9]), None);
    assert_eq!(guide.target(), &target);
}

#[test]
fn guide_prefers_the_longest_partial_match() {
    // Pattern 3 (a W x at s1, b W x at s2); t1 already wrote at s1.
    let target = key(3, &[(1, X), (2, X)]);
    // t3 would start a new match at s1; t2 completes the existing one.
    assert_eq!(
        next_thread(&target, &[w(1, 1, X)], &[w(3, 1, X), w(2, 2, X)]),
        Some(2)
    );
    // A step that only repeats an existing partial match is no progress.
    assert_eq!(next_thread(&target, &[w(1, 1, X)], &[w(1, 1, X)]), None);
}

#[test]
fn keys_reject_malformed_steps() {
    let nine = PatternId::new(9).unwrap();
    let sv = |site, var| SiteVar { site, var };
    assert!(PatternKey::new(nine, &[sv(1, X), sv(2, X), sv(3, Y), sv(4, Y)]).is_some());
    // x == y.
    assert!(PatternKey::new(nine, &[sv(1, X), sv(2, X), sv(3, X), sv(4, X)]).is_none());
    // x steps on two variables.
    assert!(PatternKey::new(nine, &[sv(1, X), sv(2, Y), sv(3, Y), sv(4, Y)]).is_none());
    // Wrong length.
    assert!(PatternKey::new(nine, &[sv(1, X), sv(2, X)]).is_none());
    let k = key(12, &[(1, X), (2, X), (3, Y), (4, Y)]);
    assert_eq!(k.vars(), (X, Some(Y)));
    assert_eq!(
        k.role_steps(Role::B),
        [(2, X, Kind::Read), (3, Y, Kind::Read)]
    );
    assert_eq!(key(3, &[(5, X), (5, X)]).distinct_sites(), 1);
    assert_eq!(key(3, &[(5, X), (5, X)]).vars(), (X, None));
}

/// Every interleaving of the two threads' accesses (thread 0 = `a`, thread 1 = `b`).
fn interleavings(a: &[Access], b: &[Access]) -> Vec<Vec<Access>> {
    if a.is_empty() || b.is_empty() {
        return vec![a.iter().chain(b).copied().collect()];
    }
    let mut out = Vec::new();
    for mut rest in interleavings(&a[1..], b) {
        rest.insert(0, a[0]);
        out.push(rest);
    }
    for mut rest in interleavings(a, &b[1..]) {
        rest.insert(0, b[0]);
        out.push(rest);
    }
    out
}

#[test]
fn pair_keys_are_what_some_interleaving_of_the_two_calls_covers() {
    let a = [r(0, 1, X), w(0, 2, Y), r(0, 3, X), w(0, 4, X)];
    let b = [w(1, 5, X), r(1, 6, Y), w(1, 7, Y)];
    let trace = |t: &[Access]| -> Vec<(u32, u32, Kind)> {
        t.iter().map(|e| (e.site, e.var, e.kind)).collect()
    };
    let got: BTreeSet<PatternKey> = pair_keys(&trace(&a), &trace(&b)).into_iter().collect();
    // Role `a` is thread 0's: the brute force keeps the instances whose first step is
    // thread 0's.
    let mut want = BTreeSet::new();
    for run in interleavings(&a, &b) {
        for k in brute_force(&run) {
            let first = run
                .iter()
                .find(|e| e.site == k.steps()[0].site && e.var == k.steps()[0].var)
                .unwrap();
            if first.thread == 0 {
                want.insert(k);
            }
        }
    }
    assert_eq!(got, want);
    assert!(got.iter().any(|k| k.id().has_two_vars()));
    let sites: Vec<usize> = pair_keys(&trace(&a), &trace(&b))
        .iter()
        .map(PatternKey::distinct_sites)
        .collect();
    assert!(sites.windows(2).all(|w| w[0] >= w[1]), "most sites first");
}
