//! Panic capture: one process-wide hook, installed once, chained to the previous one.
//!
//! Threads that run generated code (the runtime's workers) turn capture on; their panics are
//! recorded with message and location, in a thread-local, and not printed. Every other
//! thread (the user's own tests, running in parallel in the same process) goes straight to
//! the previous hook and prints as usual.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;

/// A panic of generated code: where and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PanicRecord {
    /// `file:line:col` of the panic.
    pub location: String,
    /// The panic message (its payload when a string).
    pub message: String,
    /// Process-wide order of the panic, to tell which of two threads panicked first.
    pub(crate) order: u64,
    /// Not a panic of the code under test: the thread was unwound because its controlled
    /// run deadlocked.
    pub(crate) aborted: bool,
}

thread_local! {
    static CAPTURE: Cell<bool> = const { Cell::new(false) };
    static LAST: RefCell<Option<PanicRecord>> = const { RefCell::new(None) };
}

static ORDER: AtomicU64 = AtomicU64::new(0);
static INSTALL: Once = Once::new();

fn install() {
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CAPTURE.with(Cell::get) {
                let location = info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
                    .unwrap_or_else(|| "<unknown>".to_string());
                let record = PanicRecord {
                    location,
                    message: payload_message(info.payload()),
                    order: ORDER.fetch_add(1, Ordering::SeqCst),
                    aborted: false,
                };
                LAST.with(|l| *l.borrow_mut() = Some(record));
            } else {
                previous(info);
            }
        }));
    });
}

pub(crate) fn payload_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_string()
    }
}

/// Turns capture on for the current thread for good (the runtime's own threads).
pub(crate) fn capture_on_this_thread() {
    install();
    CAPTURE.with(|c| c.set(true));
}

/// Runs `f`, catching a panic and returning its record; capture is on while `f` runs.
pub(crate) fn catch<R>(f: impl FnOnce() -> R) -> Result<R, PanicRecord> {
    install();
    let was = CAPTURE.with(|c| c.replace(true));
    LAST.with(|l| l.borrow_mut().take());
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CAPTURE.with(|c| c.set(was));
    result.map_err(|payload| {
        let aborted = payload.is::<crate::point::Aborted>();
        let last = LAST.with(|l| l.borrow_mut().take());
        match last {
            Some(record) if !aborted => record,
            _ => PanicRecord {
                location: "<unknown>".to_string(),
                message: if aborted {
                    "unwound: the controlled run deadlocked".to_string()
                } else {
                    payload_message(&*payload)
                },
                order: ORDER.fetch_add(1, Ordering::SeqCst),
                aborted,
            },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_message_and_location() {
        let line = line!() + 1;
        let r = catch(|| panic!("boom {}", 7)).unwrap_err();
        assert_eq!(r.message, "boom 7");
        assert!(
            r.location.starts_with(&format!("{}:{line}:", file!())),
            "{}",
            r.location
        );
        assert_eq!(catch(|| 5), Ok(5));
    }

    #[test]
    fn orders_panics() {
        let a = catch(|| panic!("a")).unwrap_err();
        let b = catch(|| panic!("b")).unwrap_err();
        assert!(a.order < b.order);
    }
}
