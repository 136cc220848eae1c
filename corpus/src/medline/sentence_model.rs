//! C6 of Pradel & Gross (Table 1): LingPipe's `com.aliasi.sentences.MedlineSentenceModel`
//! (LingPipe 4.1.0), a failure the code signals itself. Its heuristic boundary detection
//! reads the model's settings (possible stops, `forceFinalStop`) while it finds the
//! boundaries, and reads them again to check its result, throwing `IllegalStateException` on
//! an inconsistency; a setting changed by another thread in between trips the check.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::RwLock;

use threadsafe_rt::thread_safe;

use crate::{BugKind, Subject};

/// Iterations per thread and round of the naive stress test.
const ITERS: usize = 200;

/// The tokens that may end a sentence, as the MEDLINE model starts with.
pub const POSSIBLE_STOPS: [&str; 3] = [".", "?", "!"];

/// Tokens after which a stop does not end a sentence (abbreviations).
pub const IMPOSSIBLE_PENULTIMATES: [&str; 4] = ["Dr", "Mr", "e.g", "i.e"];

/// Tokens that cannot start a sentence.
pub const IMPOSSIBLE_STARTS: [&str; 3] = [")", "]", ","];

/// What the boundary heuristics ask of a model's settings.
trait Heuristics {
    fn force_final_stop(&self) -> bool;
    fn balance_parens(&self) -> bool;
    fn is_possible_stop(&self, token: &str) -> bool;
    fn is_impossible_penultimate(&self, token: &str) -> bool;
    fn is_impossible_start(&self, token: &str) -> bool;
}

/// Splits `text` into words and single punctuation characters.
fn tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            tokens.push(std::mem::take(&mut word));
        }
        if !c.is_whitespace() {
            tokens.push(c.to_string());
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    tokens
}

/// How `token` changes the parenthesis depth.
fn paren_delta(token: &str) -> i32 {
    match token {
        "(" | "[" => 1,
        ")" | "]" => -1,
        _ => 0,
    }
}

/// The indices of the tokens that end a sentence (LingPipe's `boundaryIndices`).
fn find_boundaries(h: &impl Heuristics, tokens: &[String]) -> Vec<usize> {
    let mut boundaries = Vec::new();
    let mut depth = 0;
    for (i, token) in tokens.iter().enumerate() {
        depth += paren_delta(token);
        let balanced = !h.balance_parens() || depth <= 0;
        let penultimate_ok = i == 0 || !h.is_impossible_penultimate(&tokens[i - 1]);
        let next_ok = tokens
            .get(i + 1)
            .map_or(true, |next| !h.is_impossible_start(next));
        if h.is_possible_stop(token) && balanced && penultimate_ok && next_ok {
            boundaries.push(i);
        }
    }
    if h.force_final_stop() && !tokens.is_empty() && boundaries.last() != Some(&(tokens.len() - 1))
    {
        boundaries.push(tokens.len() - 1);
    }
    boundaries
}

/// The model's own check of a result: each boundary is a possible stop, or the final token
/// when `forceFinalStop` is set, and the final token is a boundary when it is set.
///
/// # Panics
/// With LingPipe's `IllegalStateException` when the result breaks these rules.
fn check_boundaries(h: &impl Heuristics, tokens: &[String], boundaries: &[usize]) {
    let last = tokens.len().checked_sub(1);
    let force = h.force_final_stop();
    for &b in boundaries {
        if !(h.is_possible_stop(&tokens[b]) || force && Some(b) == last) {
            panic!(
                "IllegalStateException: boundary at token {b} ({:?}) is not a possible stop",
                tokens[b]
            );
        }
    }
    if force && last.is_some() && boundaries.last().copied() != last {
        panic!("IllegalStateException: forceFinalStop is set but the final token is no boundary");
    }
}

/// The sentences of `text` that `boundaries` delimit, as token sequences joined by spaces.
fn sentences_of(tokens: &[String], boundaries: &[usize]) -> Vec<String> {
    let mut start = 0;
    let mut sentences = Vec::new();
    for &b in boundaries {
        sentences.push(tokens[start..=b].join(" "));
        start = b + 1;
    }
    sentences
}

/// A set of tokens behind its own lock.
type TokenSet = RwLock<BTreeSet<String>>;

fn token_set(tokens: &[&str]) -> TokenSet {
    RwLock::new(tokens.iter().map(|t| t.to_string()).collect())
}

/// A heuristic sentence model with MEDLINE's settings that threads share, after LingPipe's
/// `MedlineSentenceModel`. The settings can be changed at run time; `boundary_indices` (and
/// `sentences`, `sentence_count`, `first_sentence`) finds the boundaries with the current
/// settings, then checks its result against the settings, read again. With
/// `model.sentence_count("hello world")` on one thread and
/// `model.set_force_final_stop(false)` on another, the setting can change between the two
/// reads, and the check panics with `IllegalStateException`.
pub struct MedlineSentenceModel {
    force_final_stop: AtomicBool,
    balance_parens: AtomicBool,
    possible_stops: TokenSet,
    impossible_penultimates: TokenSet,
    impossible_starts: TokenSet,
}

impl Default for MedlineSentenceModel {
    fn default() -> Self {
        MedlineSentenceModel::new()
    }
}

impl Heuristics for MedlineSentenceModel {
    fn force_final_stop(&self) -> bool {
        self.force_final_stop.load(Ordering::SeqCst)
    }
    fn balance_parens(&self) -> bool {
        self.balance_parens.load(Ordering::SeqCst)
    }
    fn is_possible_stop(&self, token: &str) -> bool {
        self.possible_stops.read().unwrap().contains(token)
    }
    fn is_impossible_penultimate(&self, token: &str) -> bool {
        self.impossible_penultimates.read().unwrap().contains(token)
    }
    fn is_impossible_start(&self, token: &str) -> bool {
        self.impossible_starts.read().unwrap().contains(token)
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl MedlineSentenceModel {
    /// MEDLINE's model: its stops, abbreviations and starts, forcing a final stop and
    /// balancing parentheses.
    pub fn new() -> Self {
        MedlineSentenceModel::with_settings(true, true)
    }

    /// MEDLINE's token sets with the given flags.
    pub fn with_settings(force_final_stop: bool, balance_parens: bool) -> Self {
        MedlineSentenceModel {
            force_final_stop: AtomicBool::new(force_final_stop),
            balance_parens: AtomicBool::new(balance_parens),
            possible_stops: token_set(&POSSIBLE_STOPS),
            impossible_penultimates: token_set(&IMPOSSIBLE_PENULTIMATES),
            impossible_starts: token_set(&IMPOSSIBLE_STARTS),
        }
    }

    /// Whether the final token always ends a sentence.
    pub fn force_final_stop(&self) -> bool {
        Heuristics::force_final_stop(self)
    }

    /// Sets whether the final token always ends a sentence.
    pub fn set_force_final_stop(&self, force: bool) {
        self.force_final_stop.store(force, Ordering::SeqCst);
    }

    /// Whether a stop inside parentheses ends no sentence.
    pub fn balance_parens(&self) -> bool {
        Heuristics::balance_parens(self)
    }

    /// Sets whether a stop inside parentheses ends no sentence.
    pub fn set_balance_parens(&self, balance: bool) {
        self.balance_parens.store(balance, Ordering::SeqCst);
    }

    /// Lets `token` end a sentence.
    pub fn add_possible_stop(&self, token: &str) {
        self.possible_stops
            .write()
            .unwrap()
            .insert(token.to_string());
    }

    /// Stops `token` from ending a sentence; returns whether it could.
    pub fn remove_possible_stop(&self, token: &str) -> bool {
        self.possible_stops.write().unwrap().remove(token)
    }

    /// The tokens that may end a sentence, sorted.
    pub fn possible_stops(&self) -> Vec<String> {
        self.possible_stops
            .read()
            .unwrap()
            .iter()
            .cloned()
            .collect()
    }

    /// Makes a stop after `token` end no sentence.
    pub fn add_impossible_penultimate(&self, token: &str) {
        self.impossible_penultimates
            .write()
            .unwrap()
            .insert(token.to_string());
    }

    /// The tokens of `text`: words and single punctuation characters.
    pub fn tokenize(&self, text: &str) -> Vec<String> {
        tokenize(text)
    }

    /// The indices of the tokens of `text` that end a sentence.
    pub fn boundary_indices(&self, text: &str) -> Vec<usize> {
        let tokens = tokenize(text);
        let boundaries = find_boundaries(self, &tokens);
        // BUG: the check reads the settings again; another thread may have changed them
        // since `find_boundaries` read them.
        check_boundaries(self, &tokens, &boundaries);
        boundaries
    }

    /// The sentences of `text`, their tokens joined by spaces.
    pub fn sentences(&self, text: &str) -> Vec<String> {
        let boundaries = self.boundary_indices(text);
        sentences_of(&tokenize(text), &boundaries)
    }

    /// The number of sentences of `text`.
    pub fn sentence_count(&self, text: &str) -> usize {
        self.boundary_indices(text).len()
    }

    /// The first sentence of `text`.
    pub fn first_sentence(&self, text: &str) -> Option<String> {
        self.sentences(text).into_iter().next()
    }
}

/// A copy of a model's settings, taken at once.
struct Settings {
    force_final_stop: bool,
    balance_parens: bool,
    possible_stops: BTreeSet<String>,
    impossible_penultimates: BTreeSet<String>,
    impossible_starts: BTreeSet<String>,
}

impl Heuristics for Settings {
    fn force_final_stop(&self) -> bool {
        self.force_final_stop
    }
    fn balance_parens(&self) -> bool {
        self.balance_parens
    }
    fn is_possible_stop(&self, token: &str) -> bool {
        self.possible_stops.contains(token)
    }
    fn is_impossible_penultimate(&self, token: &str) -> bool {
        self.impossible_penultimates.contains(token)
    }
    fn is_impossible_start(&self, token: &str) -> bool {
        self.impossible_starts.contains(token)
    }
}

/// [`MedlineSentenceModel`] with the boundary detection fixed: it copies the settings once
/// and both finds and checks the boundaries with that copy, so a concurrent change of a
/// setting applies to a whole call or not at all.
#[derive(Default)]
pub struct FixedMedlineSentenceModel(MedlineSentenceModel);

#[thread_safe(test = false, statement_points = "always")]
impl FixedMedlineSentenceModel {
    /// MEDLINE's model: its stops, abbreviations and starts, forcing a final stop and
    /// balancing parentheses.
    pub fn new() -> Self {
        FixedMedlineSentenceModel(MedlineSentenceModel::new())
    }

    /// MEDLINE's token sets with the given flags.
    pub fn with_settings(force_final_stop: bool, balance_parens: bool) -> Self {
        FixedMedlineSentenceModel(MedlineSentenceModel::with_settings(
            force_final_stop,
            balance_parens,
        ))
    }

    /// Whether the final token always ends a sentence.
    pub fn force_final_stop(&self) -> bool {
        self.0.force_final_stop()
    }

    /// Sets whether the final token always ends a sentence.
    pub fn set_force_final_stop(&self, force: bool) {
        self.0.set_force_final_stop(force);
    }

    /// Whether a stop inside parentheses ends no sentence.
    pub fn balance_parens(&self) -> bool {
        self.0.balance_parens()
    }

    /// Sets whether a stop inside parentheses ends no sentence.
    pub fn set_balance_parens(&self, balance: bool) {
        self.0.set_balance_parens(balance);
    }

    /// Lets `token` end a sentence.
    pub fn add_possible_stop(&self, token: &str) {
        self.0.add_possible_stop(token);
    }

    /// Stops `token` from ending a sentence; returns whether it could.
    pub fn remove_possible_stop(&self, token: &str) -> bool {
        self.0.remove_possible_stop(token)
    }

    /// The tokens that may end a sentence, sorted.
    pub fn possible_stops(&self) -> Vec<String> {
        self.0.possible_stops()
    }

    /// Makes a stop after `token` end no sentence.
    pub fn add_impossible_penultimate(&self, token: &str) {
        self.0.add_impossible_penultimate(token);
    }

    /// The tokens of `text`: words and single punctuation characters.
    pub fn tokenize(&self, text: &str) -> Vec<String> {
        tokenize(text)
    }

    /// The indices of the tokens of `text` that end a sentence.
    pub fn boundary_indices(&self, text: &str) -> Vec<usize> {
        let settings = self.settings();
        let tokens = tokenize(text);
        let boundaries = find_boundaries(&settings, &tokens);
        check_boundaries(&settings, &tokens, &boundaries);
        boundaries
    }

    /// The sentences of `text`, their tokens joined by spaces.
    pub fn sentences(&self, text: &str) -> Vec<String> {
        let boundaries = self.boundary_indices(text);
        sentences_of(&tokenize(text), &boundaries)
    }

    /// The number of sentences of `text`.
    pub fn sentence_count(&self, text: &str) -> usize {
        self.boundary_indices(text).len()
    }

    /// The first sentence of `text`.
    pub fn first_sentence(&self, text: &str) -> Option<String> {
        self.sentences(text).into_iter().next()
    }
}

impl FixedMedlineSentenceModel {
    /// A copy of the settings.
    fn settings(&self) -> Settings {
        let m = &self.0;
        Settings {
            force_final_stop: m.force_final_stop(),
            balance_parens: m.balance_parens(),
            possible_stops: m.possible_stops.read().unwrap().clone(),
            impossible_penultimates: m.impossible_penultimates.read().unwrap().clone(),
            impossible_starts: m.impossible_starts.read().unwrap().clone(),
        }
    }
}

/// The C6 subject.
pub fn subject() -> Subject {
    Subject {
        id: "C6",
        name: "medline_sentence_model",
        original: "com.aliasi.sentences.MedlineSentenceModel (LingPipe 4.1.0)",
        bug: BugKind::Atomicity,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<MedlineSentenceModel>(c),
        check_twin: |c| threadsafe_rt::check::<FixedMedlineSentenceModel>(c),
        naive: |budget| {
            crate::naive::race(
                budget,
                ITERS,
                MedlineSentenceModel::new,
                |m| {
                    m.sentence_count("Hello world. Bye");
                },
                |m| {
                    m.set_force_final_stop(false);
                    m.set_force_final_stop(true);
                },
            )
        },
    }
}
