//! The `#[thread_safe]` attribute of [threadsafe](https://docs.rs/threadsafe-rt). Use it through
//! `threadsafe_rt`, which re-exports it and provides what the expansion calls.
//!
//! The crate is a thin entry point over `expand::expand`: parse the arguments and the impl
//! block into a typed model (`attr`, `ast`), check it (`valid`), generate code (`expand`, and
//! `points` for the statement points in the methods' bodies, with the fields of `self` each
//! statement accesses: `fields`).

mod ast;
mod attr;
mod ctxt;
mod expand;
mod fields;
mod points;
mod ty;
mod valid;

#[cfg(test)]
mod snapshots;

use proc_macro::TokenStream;

/// Checks the thread safety of a type: put it on the type's inherent impl block.
///
/// ```ignore
/// use threadsafe_rt::thread_safe;
///
/// pub struct Registry { /* Mutex, RwLock, atomics ... */ }
///
/// #[thread_safe(budget = "5s", seed = 7)]
/// impl Registry {
///     pub fn new() -> Self { .. }                                   // constructor
///     pub fn with_capacity(n: usize) -> Self { .. }                 // constructor with an argument
///     pub fn insert(&self, k: String, v: u32) -> Option<u32> { .. } // called concurrently
///     pub fn merge(&self, other: &Registry) { .. }                  // may receive the instance itself
///     pub fn compact(&mut self) { .. }                              // called in the prefix only
///     #[thread_safe(skip)]
///     pub fn debug_dump(&self) { .. }                               // not claimed thread-safe
/// }
/// ```
///
/// The attribute returns the impl block (without the `#[thread_safe(..)]` helper attributes on
/// its methods, and with statement points in test builds: see below) and adds:
/// - an implementation of `threadsafe_rt::Subject` that describes the type to the generator
///   (so `threadsafe_rt::check::<Registry>(&config)` works from anywhere);
/// - a compile-time check that the type is `Send + Sync`;
/// - `#[cfg(test)] #[test] fn thread_safe_registry()` (named after the type, e.g.
///   `thread_safe_cache_string_u32` for `Cache<String, u32>`), which runs the check and panics
///   with a report and a reproducing test when it finds a thread-safety violation.
///
/// # Arguments
///
/// All optional, as `key = value` separated by commas. The knobs of the check set the fields
/// of `threadsafe_rt::Config` of the same name; the others keep their defaults, and
/// `THREADSAFE_SEED` / `THREADSAFE_BUDGET` / `THREADSAFE_GUIDE` / `THREADSAFE_STRATEGY` in the
/// environment still override seed, budget, guide and strategy. Values in strings follow the grammar of
/// `threadsafe-knobs`, the same as those variables: a string one accepts, the other accepts.
///
/// | argument | value | default |
/// |---|---|---|
/// | `prefixes` | most prefixes kept per round, at least 1 | 25 |
/// | `suffixes` | most suffixes per prefix, at least 1 | 500 |
/// | `state_changer_tries` | attempts to append a state-changing call to a prefix | 5 |
/// | `cut_call_tries` | attempts to append a call to a suffix, at least 1 | 2 |
/// | `conc_execs` | concurrent executions of each test, at least 1 | 100 |
/// | `threads` | suffixes run at once: 2, 3 or 4 | 2 |
/// | `post_calls` | sequential calls appended after the threads join | 1 |
/// | `seed` | seed of the generator: a `u64`, or `"random"` for a new one each run (the report prints it) | 0 |
/// | `budget` | wall-clock bound of the check: a number and a unit (`ms`, `s`, `m` or `min`), `"500ms"`, `"2s"`, `"1.5s"`, `"10m"` | `"1s"` |
/// | `deadlock_timeout` | time without progress that counts as a deadlock, same format | derived per test |
/// | `executor` | `"stress"` or `"paper"` | `"stress"` |
/// | `schedule` | `"auto"` (controlled when the type has scheduling points), `"controlled"` or `"stress"` | `"auto"` |
/// | `strategy` | who runs next in a controlled execution: `"random"`, `"pct"`, or `"pct"` with its bug depth (`"pct2"`); `"dfs"`, every schedule with at most 2 preemptions, or `"dfs"` with its bound (`"dfs3"`) | `"random"` |
/// | `depth` | the bug depth `strategy = "pct"` aims at, at least 1 (only with `"pct"` without a depth) | 3 |
/// | `guide` | how tests and controlled schedules are chosen: `"random"` (default), `"pairs"` (CovCon: the pair of methods run concurrently least so far), `"map"` (MAPTest: methods and schedules aimed at uncovered memory-access patterns) | `"random"` |
/// | `stop_when_covered` | `true` ends the check once every feasible memory-access pattern is covered | `false` |
/// | `results` | `false` keeps the methods' return values out of the verdict: panics and deadlocks only (the paper's oracle) | `true` |
/// | `instantiate` | the concrete type to check for a generic impl: `"Cache<String, u32>"` | required on generic impls |
/// | `crate` | path of the runtime crate if renamed: `"::my_threadsafe"` | `::threadsafe_rt` |
/// | `test` | `false` emits no `#[test]` (the check runs only where you call it) | `true` |
/// | `statement_points` | `false` inserts no statement points; `"always"` inserts them in every build, not only test builds (for a benchmark or example that checks the type from outside its crate's tests) | `true` |
///
/// On a method, `#[thread_safe(skip)]` leaves it out of the check (and gets it no statement
/// points), and `#[thread_safe(nondeterministic)]` keeps it in the check but its results are
/// never compared (a clock, an address, a random value, hash order): only on a method the
/// check calls that returns a value other than a new instance.
///
/// # Statement points
///
/// In test builds (`cfg(test)`) only, the bodies of the methods with a receiver (`&self`,
/// `&mut self`, `self: &Arc<Self>`, `self: Arc<Self>`; called by the check or not) get a
/// scheduling point before every statement and before the tail expression, also in the blocks
/// nested in the body (`if`/`else`, `match` arms, loops, labeled, plain and `unsafe` blocks,
/// `let .. else`). Under the controlled scheduler a thread can then be switched out between
/// any two statements of plain std code; in a stress run they add timing noise. Each point is
/// one `#[cfg(test)]` statement calling the runtime with the method's name and the
/// statement's file and line, so builds without `cfg(test)` are unchanged. Not instrumented:
/// closures, `async` blocks, nested items, `const` contexts, macro arguments, `const fn`
/// methods, and `#[thread_safe(skip)]` methods. An `async fn`'s points run as its future is
/// polled.
///
/// # What is called, and how
///
/// Classification is by signature only:
/// - **Constructors** are associated functions without receiver returning `Self` (or the type by
///   name), `Option<Self>`, `Result<Self, E>`, `Arc<Self>` or `Box<Self>`; `None`/`Err` means
///   "no instance this time". The impl block needs at least one.
/// - **`&self`**, **`self: &Arc<Self>`** and **`self: Arc<Self>`** methods are called
///   concurrently; **`&mut self`** methods only in the sequential prefix.
/// - **Async functions** (`async fn`, or returning `impl Future<Output = T>` or
///   `Pin<Box<dyn Future<Output = T>>>`) are called like the others: the calling thread
///   drives the future to completion with `threadsafe_rt::block_on`, and their output is
///   the result. Under control, each `Pending` is a scheduling point, and a future no
///   thread is left to wake is a deadlock. A test may cancel a call: drop its future at an
///   `.await` of the body (in test builds each is wrapped so it can be) or at a `Pending`;
///   the oracle then accepts the call having taken effect entirely or not at all.
///   `#[thread_safe(not_cancel_safe)]` on a method, or `cancel = false` on the impl, turns
///   that off.
/// - **Arguments** are generated: `T`, `&T` and `&mut T` from a generated `T`, `&str` from a
///   `String`, `&[E]` from a `Vec<E>`, `&Path` from a `PathBuf`. `&Self`, `Arc<Self>` and
///   `&Arc<Self>` receive an instance from the pool, often the shared instance itself. A type
///   with its own `#[thread_safe]` impl is built through its constructors; any other type
///   implementing `threadsafe_rt::Generate` is generated by it. A method with an argument of
///   any other type compiles and is left out at run time, named in the report.
/// - **Returns**: `Self` and `Arc<Self>` add an instance to the pool; other values are first
///   observed for the comparison of results (the value itself when it is
///   `PartialEq + Debug + Clone + Send + Sync + 'static`, else its `Debug` text when it is
///   `PartialEq + Debug`, else nothing: any return type compiles), then those that are
///   `Send + Sync + 'static` are kept for later calls, and values that may borrow (references,
///   lifetimes, `impl Trait`, guards and iterators) are dropped right after the call. A return
///   type that hides a lifetime (`View` for `View<'_>`) cannot be told apart from an owned one
///   and fails to compile ("borrowed data escapes outside of closure"): write `View<'_>`, or
///   skip the method.
///
/// Left out, with the reason in the report (never a compile error): methods that are not
/// public (`pub(crate)` counts as public), `#[thread_safe(skip)]`, `self` by value,
/// `unsafe fn`, generic methods (type or const parameters, `impl Trait`
/// arguments), associated functions that do not return the type, and arguments that borrow
/// below the top level (`Option<&str>`) or borrow an instance mutably (`&mut Self`). A
/// method's `#[cfg(..)]` attributes apply to its entry too.
///
/// # Errors
///
/// All reported at once, each at the smallest guilty token, with the impl block still emitted:
/// the attribute on anything but an inherent impl block (a struct, a trait impl, ...); an
/// unknown argument (with the list of valid ones); a value of the wrong type, out of range, or
/// a string that does not follow the knobs' grammar; `depth` without `strategy = "pct"` (or with
/// `"pct2"`, which has its depth); a type that is not `Send + Sync`; an impl block without a
/// constructor; a generic impl without `instantiate`, an `instantiate` that does not fit the
/// impl, or `instantiate` on an impl that is not generic; lifetime parameters on the impl; an
/// unknown argument of the method-level `#[thread_safe(..)]`, or a value given to `skip` or
/// `nondeterministic`; `nondeterministic` where there are no results to compare (a constructor,
/// a method that returns nothing or a new instance, or one the check leaves out, `skip` included).
///
/// One `#[thread_safe]` impl block per type: a second one would implement `Subject` twice.
#[proc_macro_attribute]
pub fn thread_safe(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(args.into(), item.into()).into()
}
