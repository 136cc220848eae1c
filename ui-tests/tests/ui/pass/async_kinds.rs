//! Every kind of async function `#[thread_safe]` calls: an `async fn` constructor, `async fn`
//! methods with borrowed arguments and borrowed results, a method returning
//! `impl Future<Output = T> + '_`, one returning `Pin<Box<dyn Future<Output = T> + Send + '_>>`,
//! beside synchronous ones, in a crate that denies warnings. Their `.await`s (one on a
//! future that borrows a temporary) become suspensions where a test may cancel the call,
//! and one method is declared `not_cancel_safe`.
//! `tests/generated_code_is_warning_free.rs` compiles it again with `cfg(test)` and runs the
//! generated test.
#![deny(warnings)]

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use threadsafe_rt::{thread_safe, Subject};

/// Names by number, behind async methods over a std lock.
pub struct Names {
    names: Mutex<Vec<String>>,
}

#[thread_safe(budget = "100ms", seed = 3, cancel = true)]
impl Names {
    /// An empty list, made by an async constructor.
    pub async fn new() -> Self {
        Names {
            names: Mutex::new(Vec::new()),
        }
    }

    /// Adds `name`; its number.
    pub async fn add(&self, name: &str) -> usize {
        let number = {
            let mut names = self.names.lock().unwrap();
            names.push(name.to_string());
            names.len() - 1
        };
        std::future::ready(number).await
    }

    /// How many names are longer than `n` bytes, counted in a copy of the list.
    pub async fn longer_than(&self, n: u8) -> usize {
        longer(&copy(&self.names), n).await
    }

    /// Forgets every name.
    #[thread_safe(not_cancel_safe)]
    pub async fn clear(&self) {
        std::future::ready(()).await;
        self.names.lock().unwrap().clear();
    }

    /// The name numbered `i`.
    pub fn get(&self, i: u8) -> impl Future<Output = Option<String>> + '_ {
        async move { self.names.lock().unwrap().get(usize::from(i)).cloned() }
    }

    /// How many names there are.
    pub fn len(&self) -> Pin<Box<dyn Future<Output = usize> + Send + '_>> {
        Box::pin(async move { self.names.lock().unwrap().len() })
    }

    /// Whether there is none, synchronously.
    pub fn is_empty(&self) -> bool {
        self.names.lock().unwrap().is_empty()
    }
}

/// A copy of the list.
fn copy(names: &Mutex<Vec<String>>) -> Vec<String> {
    names.lock().unwrap().clone()
}

/// How many of `names` are longer than `n` bytes.
async fn longer(names: &[String], n: u8) -> usize {
    names.iter().filter(|s| s.len() > usize::from(n)).count()
}

pub fn main() {
    let d = Names::describe();
    assert_eq!(d.constructor_names(), ["new"]);
    assert_eq!(
        d.method_names(),
        ["add", "longer_than", "clear", "get", "len", "is_empty"]
    );
    assert!(d.skipped().is_empty(), "{:?}", d.skipped());
    let mut config = threadsafe_rt::Config::default();
    config.budget = std::time::Duration::from_millis(100);
    let report = threadsafe_rt::check::<Names>(&config);
    assert!(report.violation().is_none(), "{report}");
    assert!(report.tests > 0, "{report}");
}
