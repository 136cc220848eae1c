//! The rounds of a check (Algorithm 1's outer loop): each round a fresh generator with its
//! own seed and limits, the first small (2 prefixes, 10 suffixes), later ones larger; call
//! shapes that hung in one round are not tried again in the next. `check`, `replay` and
//! `generated_tests` all walk the same tests through [`Rounds`].

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::{Generator, ReadyTest};
use crate::config::{Config, Guide};
use crate::coverage::Tracker;
use crate::exec::SeqRunner;
use crate::subject::Description;

/// The tests of a check, round after round.
pub(crate) struct Rounds<'c, T: 'static> {
    desc: &'static Description<T>,
    config: &'c Config,
    guidance: Option<(Guide, Arc<Mutex<Tracker>>)>,
    round: u32,
    max_rounds: u32,
    generator: Option<Generator<'c, T>>,
    /// The call shapes that hung, carried from round to round.
    hung: HashSet<super::CallShape>,
    cannot_instantiate: Option<String>,
}

impl<'c, T: Send + Sync + 'static> Rounds<'c, T> {
    /// The rounds of `config`'s seed, without end.
    pub(crate) fn new(desc: &'static Description<T>, config: &'c Config) -> Self {
        Rounds {
            desc,
            config,
            guidance: None,
            round: 0,
            max_rounds: u32::MAX,
            generator: None,
            hung: HashSet::new(),
            cannot_instantiate: None,
        }
    }

    /// Plans the threads of each test with `tracker` under `guide`.
    pub(crate) fn guided(mut self, guide: Guide, tracker: Arc<Mutex<Tracker>>) -> Self {
        self.guidance = Some((guide, tracker));
        self
    }

    /// Ends after `rounds` rounds.
    pub(crate) fn at_most(mut self, rounds: u32) -> Self {
        self.max_rounds = rounds;
        self
    }

    /// The next test; `None` once `deadline` has passed, the rounds are over, or the type
    /// turned out not to be instantiable (see [`cannot_instantiate`](Self::cannot_instantiate)).
    pub(crate) fn next(&mut self, seq: &mut SeqRunner, deadline: Instant) -> Option<ReadyTest> {
        loop {
            if Instant::now() >= deadline || self.cannot_instantiate.is_some() {
                return None;
            }
            let generator = match &mut self.generator {
                Some(g) => g,
                None if self.round >= self.max_rounds => return None,
                None => {
                    let hung = std::mem::take(&mut self.hung);
                    let mut g = Generator::new(self.desc, self.config, self.round, hung);
                    if let Some((guide, tracker)) = &self.guidance {
                        g = g.guided(*guide, tracker.clone());
                    }
                    self.generator.insert(g)
                }
            };
            if let Some(ready) = generator.next_test(seq, deadline) {
                return Some(ready);
            }
            let done = self.generator.take().expect("a round is under way");
            if done.cannot_instantiate.is_some() {
                self.cannot_instantiate = done.cannot_instantiate;
                return None;
            }
            self.hung = done.hung;
            self.round += 1;
        }
    }

    /// Why the type cannot be instantiated, once the rounds found out.
    pub(crate) fn cannot_instantiate(&mut self) -> Option<String> {
        self.cannot_instantiate.take()
    }
}
