//! V20 of MAPTest: `com.thoughtworks.xstream.XStream` (XStream 1.4.1), an atomicity
//! violation. The converter lookup caches the converter of each type it resolves: it checks
//! the cache, fills it, then reads the entry back, in separate lock sections, while
//! `registerConverter` (and `flushCache`) evict entries; an eviction between the fill and
//! the read leaves the lookup with no converter (`NullPointerException`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU8, Ordering};

use parking_lot::{Mutex, RwLock};
use threadsafe_rt::thread_safe;

use crate::whole::Whole;
use crate::{BugKind, Subject};

/// Iterations per thread and round of the naive stress test.
const ITERS: usize = 200;

/// XStream's `NO_REFERENCES` mode.
pub const NO_REFERENCES: u8 = 0;
/// XStream's `ID_REFERENCES` mode.
pub const ID_REFERENCES: u8 = 1;
/// XStream's `XPATH_RELATIVE_REFERENCES` mode, the default.
pub const XPATH_RELATIVE_REFERENCES: u8 = 2;

/// XStream's `PRIORITY_VERY_LOW`: the reflection converter, which converts every type.
pub const PRIORITY_VERY_LOW: i32 = -20;

/// A converter: it converts the types whose name starts with its prefix (the empty prefix
/// converts every type).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Converter {
    prefix: String,
    priority: i32,
}

impl Converter {
    fn can_convert(&self, ty: &str) -> bool {
        ty.starts_with(&self.prefix)
    }

    fn name(&self) -> String {
        format!("{}*@{}", self.prefix, self.priority)
    }
}

/// The converters by priority, highest first (Java's `PrioritizedList`); among equal
/// priorities, the latest registered first.
fn insert_by_priority(converters: &mut Vec<Converter>, converter: Converter) {
    let at = converters
        .iter()
        .position(|c| c.priority <= converter.priority)
        .unwrap_or(converters.len());
    converters.insert(at, converter);
}

/// The first converter that converts `ty`.
fn find_converter(converters: &[Converter], ty: &str) -> Converter {
    converters
        .iter()
        .find(|c| c.can_convert(ty))
        .cloned()
        .expect("the reflection converter converts every type")
}

/// An XML serializer's configuration that threads share, after XStream's facade: class
/// aliases, omitted fields, a reference mode and prioritized converters with a lookup cache
/// (XStream's `DefaultConverterLookup`). `converter_for` (and `to_xml` and `from_xml`, which
/// use it) checks the cache, fills it on a miss, and then reads the cached entry, each in
/// its own lock section; `register_converter` evicts the cached types the new converter
/// handles, and `flush_cache` evicts all. With `xs.to_xml("a", "1")` on one thread and
/// `xs.flush_cache()` on another, the entry can be evicted between the fill and the read,
/// and the lookup panics on the missing entry.
pub struct XStream {
    aliases: RwLock<BTreeMap<String, String>>,
    omitted: Mutex<BTreeSet<(String, String)>>,
    mode: AtomicU8,
    converters: RwLock<Vec<Converter>>,
    cache: Mutex<HashMap<String, Converter>>,
}

impl Default for XStream {
    fn default() -> Self {
        XStream::new()
    }
}

#[thread_safe(test = false, statement_points = "always")]
impl XStream {
    /// A serializer with the reflection converter, no alias, in
    /// [`XPATH_RELATIVE_REFERENCES`] mode.
    pub fn new() -> Self {
        XStream {
            aliases: RwLock::new(BTreeMap::new()),
            omitted: Mutex::new(BTreeSet::new()),
            mode: AtomicU8::new(XPATH_RELATIVE_REFERENCES),
            converters: RwLock::new(vec![Converter {
                prefix: String::new(),
                priority: PRIORITY_VERY_LOW,
            }]),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// A serializer in `mode`.
    ///
    /// # Panics
    /// If `mode` is not one of the modes (Java's `IllegalArgumentException`).
    pub fn with_mode(mode: u8) -> Self {
        let xs = XStream::new();
        xs.set_mode(mode);
        xs
    }

    /// A serializer with the aliases `(name, type)`.
    pub fn with_aliases(aliases: Vec<(String, String)>) -> Self {
        let xs = XStream::new();
        for (name, ty) in aliases {
            xs.alias(&name, &ty);
        }
        xs
    }

    /// Serializes `ty` under the element name `name`.
    pub fn alias(&self, name: &str, ty: &str) {
        self.aliases
            .write()
            .insert(ty.to_string(), name.to_string());
    }

    /// The element name of `ty`: its alias, or the type name.
    pub fn serialized_name(&self, ty: &str) -> String {
        let alias = self.aliases.read().get(ty).cloned();
        alias.unwrap_or_else(|| ty.to_string())
    }

    /// The type an element name stands for: the aliased type, or the name itself.
    pub fn real_type(&self, name: &str) -> String {
        real_type(&self.aliases.read(), name)
    }

    /// Leaves `field` of `ty` out of the XML.
    pub fn omit_field(&self, ty: &str, field: &str) {
        self.omitted
            .lock()
            .insert((ty.to_string(), field.to_string()));
    }

    /// Whether `field` of `ty` is left out.
    pub fn is_omitted(&self, ty: &str, field: &str) -> bool {
        self.omitted
            .lock()
            .contains(&(ty.to_string(), field.to_string()))
    }

    /// Sets the reference mode.
    ///
    /// # Panics
    /// If `mode` is not one of the modes (Java's `IllegalArgumentException`).
    pub fn set_mode(&self, mode: u8) {
        assert!(
            mode <= XPATH_RELATIVE_REFERENCES,
            "IllegalArgumentException: Unknown mode {mode}"
        );
        self.mode.store(mode, Ordering::SeqCst);
    }

    /// The reference mode.
    pub fn mode(&self) -> u8 {
        self.mode.load(Ordering::SeqCst)
    }

    /// Registers a converter for the types whose name starts with `prefix`, tried before the
    /// converters of lower priority; evicts the cached lookups it changes.
    pub fn register_converter(&self, prefix: &str, priority: i32) {
        let converter = Converter {
            prefix: prefix.to_string(),
            priority,
        };
        insert_by_priority(&mut self.converters.write(), converter.clone());
        self.cache.lock().retain(|ty, _| !converter.can_convert(ty));
    }

    /// The number of converters.
    pub fn converter_count(&self) -> usize {
        self.converters.read().len()
    }

    /// Evicts every cached lookup (XStream's `Caching.flushCache`).
    pub fn flush_cache(&self) {
        self.cache.lock().clear();
    }

    /// The name of the converter of `ty`, looked up through the cache.
    pub fn converter_for(&self, ty: &str) -> String {
        let cached = self.cache.lock().contains_key(ty);
        if !cached {
            let found = find_converter(&self.converters.read(), ty);
            self.cache.lock().insert(ty.to_string(), found);
        }
        // BUG: the entry can be evicted between the check (or the fill) and this read.
        let converter = self.cache.lock().get(ty).cloned();
        converter
            .expect("NullPointerException: the cached converter is gone")
            .name()
    }

    /// `value`, of type `ty`, as XML: `<name converter="..">value</name>`.
    pub fn to_xml(&self, ty: &str, value: &str) -> String {
        let name = self.serialized_name(ty);
        let converter = self.converter_for(ty);
        format!("<{name} converter=\"{converter}\">{value}</{name}>")
    }

    /// The type and the value of XML written by [`to_xml`](Self::to_xml); `None` if it is
    /// not such XML.
    pub fn from_xml(&self, xml: &str) -> Option<(String, String)> {
        let (name, value) = parse(xml)?;
        let ty = self.real_type(&name);
        let _converter = self.converter_for(&ty);
        Some((ty, value))
    }
}

/// The type aliased as `name`, or `name` itself.
fn real_type(aliases: &BTreeMap<String, String>, name: &str) -> String {
    let found = aliases.iter().find(|(_, n)| *n == name);
    found.map_or_else(|| name.to_string(), |(ty, _)| ty.clone())
}

/// The element name and the text of `<name ..>text</name>`.
fn parse(xml: &str) -> Option<(String, String)> {
    let rest = xml.strip_prefix('<')?;
    let open_end = rest.find('>')?;
    let name = rest[..open_end].split(' ').next()?.to_string();
    let body = &rest[open_end + 1..];
    let text = body.strip_suffix(&format!("</{name}>"))?;
    Some((name, text.to_string()))
}

/// [`XStream`] with the converter lookup fixed: it finds and caches the converter in one
/// lock section of the cache (`entry().or_insert_with`), and returns what it found, so an
/// eviction can only come before or after it.
///
/// Every call also holds one lock for its whole length (`whole.rs`): the methods kept from
/// the Java class that work in several lock sections are one step each, so the results
/// oracle has nothing to report on the twin.
#[derive(Default)]
pub struct FixedXStream(XStream, Whole);

#[thread_safe(test = false, statement_points = "always")]
impl FixedXStream {
    /// A serializer with the reflection converter, no alias, in
    /// [`XPATH_RELATIVE_REFERENCES`] mode.
    pub fn new() -> Self {
        FixedXStream(XStream::new(), Whole::default())
    }

    /// A serializer in `mode`.
    ///
    /// # Panics
    /// If `mode` is not one of the modes (Java's `IllegalArgumentException`).
    pub fn with_mode(mode: u8) -> Self {
        FixedXStream(XStream::with_mode(mode), Whole::default())
    }

    /// A serializer with the aliases `(name, type)`.
    pub fn with_aliases(aliases: Vec<(String, String)>) -> Self {
        FixedXStream(XStream::with_aliases(aliases), Whole::default())
    }

    /// Serializes `ty` under the element name `name`.
    pub fn alias(&self, name: &str, ty: &str) {
        let _whole = self.1.hold();
        self.0.alias(name, ty);
    }

    /// The element name of `ty`: its alias, or the type name.
    pub fn serialized_name(&self, ty: &str) -> String {
        let _whole = self.1.hold();
        self.0.serialized_name(ty)
    }

    /// The type an element name stands for: the aliased type, or the name itself.
    pub fn real_type(&self, name: &str) -> String {
        let _whole = self.1.hold();
        self.0.real_type(name)
    }

    /// Leaves `field` of `ty` out of the XML.
    pub fn omit_field(&self, ty: &str, field: &str) {
        let _whole = self.1.hold();
        self.0.omit_field(ty, field);
    }

    /// Whether `field` of `ty` is left out.
    pub fn is_omitted(&self, ty: &str, field: &str) -> bool {
        let _whole = self.1.hold();
        self.0.is_omitted(ty, field)
    }

    /// Sets the reference mode.
    ///
    /// # Panics
    /// If `mode` is not one of the modes (Java's `IllegalArgumentException`).
    pub fn set_mode(&self, mode: u8) {
        let _whole = self.1.hold();
        self.0.set_mode(mode);
    }

    /// The reference mode.
    pub fn mode(&self) -> u8 {
        let _whole = self.1.hold();
        self.0.mode()
    }

    /// Registers a converter for the types whose name starts with `prefix`, tried before the
    /// converters of lower priority; evicts the cached lookups it changes.
    pub fn register_converter(&self, prefix: &str, priority: i32) {
        let _whole = self.1.hold();
        self.0.register_converter(prefix, priority);
    }

    /// The number of converters.
    pub fn converter_count(&self) -> usize {
        let _whole = self.1.hold();
        self.0.converter_count()
    }

    /// Evicts every cached lookup (XStream's `Caching.flushCache`).
    pub fn flush_cache(&self) {
        let _whole = self.1.hold();
        self.0.flush_cache();
    }

    /// The name of the converter of `ty`, looked up through the cache.
    pub fn converter_for(&self, ty: &str) -> String {
        let _whole = self.1.hold();
        lookup(&mut self.0.cache.lock(), &self.0.converters, ty).name()
    }

    /// `value`, of type `ty`, as XML: `<name converter="..">value</name>`.
    pub fn to_xml(&self, ty: &str, value: &str) -> String {
        let _whole = self.1.hold();
        let name = self.0.serialized_name(ty);
        let converter = lookup(&mut self.0.cache.lock(), &self.0.converters, ty).name();
        format!("<{name} converter=\"{converter}\">{value}</{name}>")
    }

    /// The type and the value of XML written by [`to_xml`](Self::to_xml); `None` if it is
    /// not such XML.
    pub fn from_xml(&self, xml: &str) -> Option<(String, String)> {
        let _whole = self.1.hold();
        let (name, value) = parse(xml)?;
        let ty = self.0.real_type(&name);
        let _converter = lookup(&mut self.0.cache.lock(), &self.0.converters, &ty).name();
        Some((ty, value))
    }
}

/// The cached converter of `ty`, found and cached on a miss, under the cache's lock.
fn lookup(
    cache: &mut HashMap<String, Converter>,
    converters: &RwLock<Vec<Converter>>,
    ty: &str,
) -> Converter {
    cache
        .entry(ty.to_string())
        .or_insert_with(|| find_converter(&converters.read(), ty))
        .clone()
}

/// The V20 subject.
pub fn subject() -> Subject {
    Subject {
        id: "V20",
        name: "xstream",
        original: "com.thoughtworks.xstream.XStream (XStream 1.4.1)",
        bug: BugKind::Atomicity,
        file: file!(),
        check_buggy: |c| threadsafe_rt::check::<XStream>(c),
        check_twin: |c| threadsafe_rt::check::<FixedXStream>(c),
        naive: |budget| {
            crate::naive::race(
                budget,
                ITERS,
                XStream::new,
                |xs| {
                    xs.to_xml("a", "1");
                },
                |xs| xs.flush_cache(),
            )
        },
    }
}
