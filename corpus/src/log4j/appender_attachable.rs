//! V17 of MAPTest (Wang et al., ASE 2019, Table II):
//! `org.apache.log4j.helpers.AppenderAttachableImpl` (log4j 1.2.13), a data race.
//! `append_loop_on_appenders` reads the number of appenders once, then takes them by index; a
//! `remove_appender` or `remove_all_appenders` on another thread in between shrinks the list
//! under the loop (Java's `ArrayIndexOutOfBoundsException` from `Vector.elementAt`).

use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use threadsafe_rt::thread_safe;

use crate::whole::Whole;
use crate::{BugKind, Subject};

/// Rounds of calls per thread in the naive stress test.
const ITERS: usize = 1_000;

/// An appender that keeps its events in memory.
struct Appender {
    name: String,
    events: Mutex<Vec<String>>,
    closed: Mutex<bool>,
}

impl Appender {
    fn new(name: &str) -> Arc<Appender> {
        Arc::new(Appender {
            name: name.to_string(),
            events: Mutex::new(Vec::new()),
            closed: Mutex::new(false),
        })
    }

    /// Records `message` unless closed; returns whether it did.
    fn do_append(&self, message: &str) -> bool {
        if *self.closed.lock() {
            return false;
        }
        self.events.lock().push(message.to_string());
        true
    }

    fn close(&self) {
        *self.closed.lock() = true;
    }
}

/// Attaches a new appender named `name` unless one by that name is attached.
fn attach(appenders: &mut Vec<Arc<Appender>>, name: &str) -> bool {
    if appenders.iter().any(|a| a.name == name) {
        return false;
    }
    appenders.push(Appender::new(name));
    true
}

/// Detaches the appender named `name`, if attached.
fn detach(appenders: &mut Vec<Arc<Appender>>, name: &str) -> bool {
    let before = appenders.len();
    appenders.retain(|a| a.name != name);
    appenders.len() != before
}

/// Detaches the appender at `index`, if there is one.
fn detach_at(appenders: &mut Vec<Arc<Appender>>, index: usize) -> Option<Arc<Appender>> {
    (index < appenders.len()).then(|| appenders.remove(index))
}

/// The list of appenders a log4j `Category` sends its events to, ported from
/// `AppenderAttachableImpl`: named in-memory appenders, each attached at most once, in the
/// order they were added.
///
/// As in log4j, `append_loop_on_appenders` reads the list's size, then takes each appender
/// with `elementAt(i)` in its own lock section: with `a.append_loop_on_appenders("x")` on one
/// thread and `a.remove_appender("b")` on another, the index can run past the shrunk list.
pub struct AppenderAttachableImpl {
    appenders: RwLock<Vec<Arc<Appender>>>,
}

impl Default for AppenderAttachableImpl {
    fn default() -> Self {
        AppenderAttachableImpl::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl AppenderAttachableImpl {
    /// A list with no appender.
    pub fn new() -> Self {
        AppenderAttachableImpl {
            appenders: RwLock::new(Vec::new()),
        }
    }

    /// A list with one appender, named `name`.
    pub fn with_appender(name: &str) -> Self {
        AppenderAttachableImpl {
            appenders: RwLock::new(vec![Appender::new(name)]),
        }
    }

    /// A list with an appender for each distinct name of `names`, in order.
    pub fn with_appenders(names: Vec<String>) -> Self {
        let list = AppenderAttachableImpl::new();
        for name in &names {
            list.add_appender(name);
        }
        list
    }

    /// Attaches a new appender named `name`, unless one by that name is attached; returns
    /// whether it attached one.
    pub fn add_appender(&self, name: &str) -> bool {
        attach(&mut self.appenders.write(), name)
    }

    /// Sends `message` to every attached appender, in order; returns how many took it.
    pub fn append_loop_on_appenders(&self, message: &str) -> usize {
        let size = self.appenders.read().len();
        let mut appended = 0;
        for i in 0..size {
            // BUG: the list may have shrunk since its size was read.
            let appender = Arc::clone(&self.appenders.read()[i]);
            if appender.do_append(message) {
                appended += 1;
            }
        }
        appended
    }

    /// The number of attached appenders.
    pub fn appender_count(&self) -> usize {
        self.appenders.read().len()
    }

    /// The names of the attached appenders, in order.
    pub fn all_appenders(&self) -> Vec<String> {
        self.appenders
            .read()
            .iter()
            .map(|a| a.name.clone())
            .collect()
    }

    /// The name of the appender at `index`, if there is one.
    pub fn appender_at(&self, index: usize) -> Option<String> {
        self.appenders.read().get(index).map(|a| a.name.clone())
    }

    /// Whether an appender named `name` is attached.
    pub fn is_attached(&self, name: &str) -> bool {
        self.appenders.read().iter().any(|a| a.name == name)
    }

    /// The number of events the appender named `name` recorded, if it is attached.
    pub fn events_of(&self, name: &str) -> Option<usize> {
        self.appenders
            .read()
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.events.lock().len())
    }

    /// Detaches the appender named `name`; returns whether one was attached.
    pub fn remove_appender(&self, name: &str) -> bool {
        detach(&mut self.appenders.write(), name)
    }

    /// Detaches the appender at `index` (log4j's `removeAppender(Appender)`, with the index
    /// as the handle); returns its name if there was one.
    pub fn remove_appender_at(&self, index: usize) -> Option<String> {
        let removed = detach_at(&mut self.appenders.write(), index);
        removed.map(|a| a.name.clone())
    }

    /// Closes and detaches every appender; returns how many there were.
    pub fn remove_all_appenders(&self) -> usize {
        let removed = std::mem::take(&mut *self.appenders.write());
        for appender in &removed {
            appender.close();
        }
        removed.len()
    }
}

/// [`AppenderAttachableImpl`] with `append_loop_on_appenders` fixed: it takes a snapshot of
/// the list under one lock section and sends the event to the snapshot, so a concurrent
/// removal makes a removed appender get the event or not, never the index run past the end.
///
/// Every call also holds one lock for its whole length (`whole.rs`): the methods kept from
/// the Java class that work in several lock sections are one step each, so the results
/// oracle has nothing to report on the twin.
#[derive(Default)]
pub struct FixedAppenderAttachableImpl(AppenderAttachableImpl, Whole);

#[thread_safe(test = false, statement_points = "always")]
impl FixedAppenderAttachableImpl {
    /// A list with no appender.
    pub fn new() -> Self {
        FixedAppenderAttachableImpl(AppenderAttachableImpl::new(), Whole::default())
    }

    /// A list with one appender, named `name`.
    pub fn with_appender(name: &str) -> Self {
        FixedAppenderAttachableImpl(
            AppenderAttachableImpl::with_appender(name),
            Whole::default(),
        )
    }

    /// A list with an appender for each distinct name of `names`, in order.
    pub fn with_appenders(names: Vec<String>) -> Self {
        FixedAppenderAttachableImpl(
            AppenderAttachableImpl::with_appenders(names),
            Whole::default(),
        )
    }

    /// Attaches a new appender named `name`, unless one by that name is attached; returns
    /// whether it attached one.
    pub fn add_appender(&self, name: &str) -> bool {
        let _whole = self.1.hold();
        self.0.add_appender(name)
    }

    /// Sends `message` to every attached appender, in order; returns how many took it.
    pub fn append_loop_on_appenders(&self, message: &str) -> usize {
        let _whole = self.1.hold();
        let snapshot: Vec<Arc<Appender>> = self.0.appenders.read().clone();
        snapshot.iter().filter(|a| a.do_append(message)).count()
    }

    /// The number of attached appenders.
    pub fn appender_count(&self) -> usize {
        let _whole = self.1.hold();
        self.0.appender_count()
    }

    /// The names of the attached appenders, in order.
    pub fn all_appenders(&self) -> Vec<String> {
        let _whole = self.1.hold();
        self.0.all_appenders()
    }

    /// The name of the appender at `index`, if there is one.
    pub fn appender_at(&self, index: usize) -> Option<String> {
        let _whole = self.1.hold();
        self.0.appender_at(index)
    }

    /// Whether an appender named `name` is attached.
    pub fn is_attached(&self, name: &str) -> bool {
        let _whole = self.1.hold();
        self.0.is_attached(name)
    }

    /// The number of events the appender named `name` recorded, if it is attached.
    pub fn events_of(&self, name: &str) -> Option<usize> {
        let _whole = self.1.hold();
        self.0.events_of(name)
    }

    /// Detaches the appender named `name`; returns whether one was attached.
    pub fn remove_appender(&self, name: &str) -> bool {
        let _whole = self.1.hold();
        self.0.remove_appender(name)
    }

    /// Detaches the appender at `index` (log4j's `removeAppender(Appender)`, with the index
    /// as the handle); returns its name if there was one.
    pub fn remove_appender_at(&self, index: usize) -> Option<String> {
        let _whole = self.1.hold();
        self.0.remove_appender_at(index)
    }

    /// Closes and detaches every appender; returns how many there were.
    pub fn remove_all_appenders(&self) -> usize {
        let _whole = self.1.hold();
        self.0.remove_all_appenders()
    }
}

/// The subject: [`AppenderAttachableImpl`] and its twin.
pub fn subject() -> Subject {
    Subject {
        id: "V17",
        name: "appender_attachable",
        original: "org.apache.log4j.helpers.AppenderAttachableImpl (log4j 1.2.13)",
        bug: BugKind::DataRace,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<AppenderAttachableImpl>(c),
        check_twin: |c| threadsafe_rt::check::<FixedAppenderAttachableImpl>(c),
        naive: |budget: Duration| {
            crate::naive::race(
                budget,
                ITERS,
                || AppenderAttachableImpl::with_appenders(vec!["a".into(), "b".into()]),
                |a| {
                    a.append_loop_on_appenders("event");
                },
                |a| {
                    a.remove_appender("b");
                },
            )
        },
    }
}
