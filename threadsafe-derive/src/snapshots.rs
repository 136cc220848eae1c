//! Expansion snapshots: the output of `#[thread_safe]` on representative impl blocks, formatted
//! with prettyplease and compared with the files in `tests/snapshots/`. After an intended
//! change of the expansion, rewrite them with
//! `UPDATE_SNAPSHOTS=1 cargo test -p threadsafe-derive snapshots`, and read the diff.

use std::path::PathBuf;

use proc_macro2::TokenStream;
use quote::quote;

use crate::expand::expand;

fn snapshot(name: &str, args: TokenStream, item: TokenStream) {
    let out = expand(args.clone(), item.clone());
    let file: syn::File = match syn::parse2(out) {
        Ok(file) => file,
        Err(e) => panic!("the expansion of `{name}` does not parse: {e}"),
    };
    let header = format!(
        "// Snapshot of `#[thread_safe({})]` on the impl block below: written by\n\
         // threadsafe-derive/src/snapshots.rs (`UPDATE_SNAPSHOTS=1 cargo test -p threadsafe-derive`).\n\n",
        crate::ty::text(&args)
    );
    let actual = header + &prettyplease::unparse(&file);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.rs"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("has a parent"))
            .and_then(|()| std::fs::write(&path, &actual))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}): create it with UPDATE_SNAPSHOTS=1",
            path.display()
        )
    });
    if expected != actual {
        let first_diff = expected
            .lines()
            .zip(actual.lines())
            .position(|(e, a)| e != a)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "the expansion differs from {} from line {}:\n  expected: {:?}\n    actual: {:?}\n\
             If the change is intended, run with UPDATE_SNAPSHOTS=1 and review the diff.\n\
             --- actual ---\n{actual}",
            path.display(),
            first_diff + 1,
            expected.lines().nth(first_diff).unwrap_or(""),
            actual.lines().nth(first_diff).unwrap_or(""),
        );
    }
}

/// A `Registry` as a user would write it (the README's example, grown), with every kind of constructor, receiver, parameter and
/// return, and every reason to leave a method out.
#[test]
fn registry() {
    snapshot(
        "registry",
        quote!(prefixes = 25, budget = "5s", seed = 7),
        quote! {
            impl Registry {
                pub fn new() -> Self { Registry::default() }
                pub fn with_capacity(n: usize) -> Self { todo!() }
                pub fn open(path: &str) -> Result<Self, String> { todo!() }
                pub fn shared() -> Arc<Self> { todo!() }
                pub fn insert(&self, k: String, v: u32) -> Option<u32> { todo!() }
                pub fn get(&self, k: &str) -> Option<u32> { todo!() }
                pub fn get_all(&self, keys: &[String], out: &mut Vec<u32>) { todo!() }
                pub fn merge(&self, other: &Registry) { todo!() }
                pub fn adopt(&self, other: Arc<Self>, peer: &Arc<Self>) { todo!() }
                pub fn snapshot(&self) -> Self { todo!() }
                pub fn guard(&self) -> MutexGuard<'_, u32> { todo!() }
                #[thread_safe(nondeterministic)]
                pub fn handle(self: &Arc<Self>) -> usize { todo!() }
                pub fn detach(self: Arc<Self>) { todo!() }
                pub fn compact(&mut self) { todo!() }
                #[thread_safe(skip)]
                pub fn debug_dump(&self) { todo!() }
                fn rehash(&self) { todo!() }
                pub fn into_inner(self) -> HashMap<String, u32> { todo!() }
                pub unsafe fn raw(&self) -> *const u8 { todo!() }
                pub fn visit(&self, f: impl Fn(&str)) { todo!() }
                pub fn find(&self, k: Option<&str>) -> bool { todo!() }
                pub fn default_capacity() -> usize { 16 }
                #[cfg(feature = "persist")]
                pub fn save(&self, to: &Path) -> std::io::Result<()> { todo!() }
            }
        },
    );
}

/// A generic impl, checked as `Cache<String, u32>`, with a renamed runtime crate.
#[test]
fn generic_cache() {
    snapshot(
        "generic_cache",
        quote!(
            instantiate = "Cache<String, u32>",
            crate = "::my_threadsafe",
            executor = "paper"
        ),
        quote! {
            impl<K: Eq + Hash + Clone, V: Clone> Cache<K, V> {
                pub fn new() -> Self { todo!() }
                pub fn get(&self, k: &K) -> Option<V> { todo!() }
                pub fn put(&self, k: K, v: V) -> Option<V> { todo!() }
                pub fn put_all(&self, other: &Cache<K, V>) { todo!() }
                pub fn keys(&self) -> Vec<K> { todo!() }
            }
        },
    );
}

/// Statement points in method bodies: before each statement and tail, in nested blocks, not
/// in closures, `async` blocks, nested items, `const fn` or skipped methods.
#[test]
fn statement_points() {
    snapshot(
        "statement_points",
        quote!(schedule = "controlled", strategy = "pct", depth = 2),
        quote! {
            impl Stack {
                pub fn new() -> Self { Stack(Mutex::new(Vec::new())) }
                pub fn pop_or_zero(&self) -> u32 {
                    if self.0.lock().unwrap().is_empty() {
                        return 0;
                    }
                    self.0.lock().unwrap().pop().expect("checked non-empty")
                }
                pub fn drain(&self, limit: usize) -> Option<u32> {
                    let Some(first) = self.0.lock().unwrap().pop() else {
                        return None;
                    };
                    let total = 'outer: loop {
                        match self.0.lock().unwrap().pop() {
                            Some(v) if v > 10 => {
                                break 'outer v;
                            }
                            Some(_) => {}
                            None => break first,
                        }
                    };
                    let f = |x: u32| {
                        let y = x + 1;
                        y
                    };
                    let _later = async { f(total) };
                    fn helper() -> usize { 1 }
                    println!("{}", helper());
                    Some(unsafe { f(total) })
                }
                pub const fn capacity(&self) -> usize { let n = 4; n }
                #[thread_safe(skip)]
                pub fn dump(&self) -> String { let s = String::new(); s }
            }
        },
    );
}

/// The fields of `self` each statement point reads and writes, and the table of the points
/// in `describe()`, with a `#[cfg]`'d method's points under its `#[cfg]`.
#[test]
fn field_accesses() {
    snapshot(
        "field_accesses",
        quote!(),
        quote! {
            impl Account {
                pub fn new() -> Self { todo!() }
                pub fn deposit(&self, amount: u64) {
                    let old = self.balance.load(Ordering::SeqCst);
                    self.balance.store(old + amount, Ordering::SeqCst);
                    if self.log_enabled {
                        self.log.lock().unwrap().push(amount);
                    }
                }
                pub fn history(&self) -> Vec<u64> {
                    self.log.lock().unwrap().clone()
                }
                pub fn reset(&mut self) {
                    *self.balance.get_mut() = 0;
                    self.r#type = Kind::Empty;
                }
                #[cfg(feature = "audit")]
                pub fn audit(&self) -> bool {
                    println!("{}", self.balance.load(Ordering::SeqCst));
                    self.log.lock().map(|l| l.len() == self.entries.read().unwrap().len()).unwrap_or(false)
                }
            }
        },
    );
}
