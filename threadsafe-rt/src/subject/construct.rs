//! Values of other checked types, built through their constructors, and the description
//! of a subject type, made once per process.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::lock::lock;
use crate::subject::{ArgSlot, Description, Frame, Output, ParamKind, Subject};
use crate::value::Gen;

/// How deep values are built from constructors of other types (`Foo::new(Bar::new(1))`).
const MAX_DEPTH: u32 = 3;

/// The description of a subject type, built once per process.
pub(crate) fn description<A: Subject>() -> &'static Description<A> {
    type Cache = Mutex<HashMap<TypeId, &'static (dyn Any + Send + Sync)>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut map = lock(cache);
    let entry = map
        .entry(TypeId::of::<A>())
        .or_insert_with(|| Box::leak(Box::new(A::describe())));
    entry
        .downcast_ref::<Description<A>>()
        .expect("description cache is keyed by type")
}

/// `Foo::new` or `<Foo<u8>>::new`: a path to an associated function of a type name.
pub(crate) fn assoc_path(type_name: &str, f: &str) -> String {
    if type_name.contains('<') {
        format!("<{type_name}>::{f}")
    } else {
        format!("{type_name}::{f}")
    }
}

/// Makes a value of a subject type by calling one of its constructors with generated
/// arguments. `None` if it has no usable constructor, the depth limit is reached, or the
/// constructor declines. A panic in the constructor propagates to the caller.
pub(crate) fn construct<A: Subject>(g: &mut Gen) -> Option<A> {
    let d = description::<A>();
    if g.depth >= MAX_DEPTH || d.constructors.is_empty() {
        return None;
    }
    let op = &d.constructors[g.below(d.constructors.len())];
    g.depth += 1;
    let args: Option<Vec<_>> = op
        .params
        .iter()
        .map(|p| match &p.kind {
            ParamKind::Value { maker: Some(s), .. } => (s.make)(g).map(|v| Some(ArgSlot::Value(v))),
            _ => None,
        })
        .collect();
    g.depth -= 1;
    let mut frame = Frame::new(None, args?);
    (op.call)(&mut frame).ok()?;
    match frame.out {
        Some(Output::Instance(a, _)) => Arc::try_unwrap(a).ok(),
        _ => None,
    }
}

/// The code of the value [`construct`] makes with the same choices.
pub(crate) fn render_construct<A: Subject>(g: &mut Gen) -> Option<String> {
    let d = description::<A>();
    if g.depth >= MAX_DEPTH || d.constructors.is_empty() {
        return None;
    }
    let op = &d.constructors[g.below(d.constructors.len())];
    g.depth += 1;
    let args: Option<Vec<String>> = op
        .params
        .iter()
        .map(|p| match &p.kind {
            ParamKind::Value {
                maker: Some(s),
                pass,
                ..
            } => (s.render)(g, *pass),
            _ => None,
        })
        .collect();
    g.depth -= 1;
    Some(format!(
        "{}({})",
        assoc_path(d.name, op.name),
        args?.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assoc_path_quotes_generic_types() {
        assert_eq!(assoc_path("Foo", "new"), "Foo::new");
        assert_eq!(
            assoc_path("Cache<String, u32>", "new"),
            "<Cache<String, u32>>::new"
        );
    }
}
