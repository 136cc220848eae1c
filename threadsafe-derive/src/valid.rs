//! Checks of the whole model, after parsing: what makes the impl block impossible to check.
//! Every failed check records its error and the others still run.

use syn::{GenericParam, Type};

use crate::ast::{EntryKind, Impl, Receiver, Ret};
use crate::ctxt::Ctxt;
use crate::ty;

pub(crate) fn check(cx: &Ctxt, m: &Impl<'_>) {
    check_self_type(cx, m);
    check_generics(cx, m);
    check_constructors(cx, m);
    check_nondeterministic(cx, m);
    check_not_cancel_safe(cx, m);
}

/// The type under test is a named type.
fn check_self_type(cx: &Ctxt, m: &Impl<'_>) {
    if !matches!(ty::peel(&m.item.self_ty), Type::Path(_)) {
        cx.error_spanned_by(
            &m.item.self_ty,
            format!(
                "`#[thread_safe]` checks a named type (`impl MyType {{ .. }}`), not `{}`",
                ty::text(&m.item.self_ty)
            ),
        );
    }
}

/// A generic impl names its instantiation; lifetimes cannot be checked.
fn check_generics(cx: &Ctxt, m: &Impl<'_>) {
    for param in &m.item.generics.params {
        if let GenericParam::Lifetime(l) = param {
            cx.error_spanned_by(
                &l.lifetime,
                format!(
                    "`#[thread_safe]` cannot check a type with a lifetime parameter (`{}`): its instances are shared with threads the check spawns, so the type must be `'static`",
                    l.lifetime
                ),
            );
        }
    }
    let self_ty = ty::text(&m.item.self_ty);
    match (m.params.is_empty(), m.instantiate) {
        (false, None) => {
            let names: Vec<String> = m.params.iter().map(|p| format!("`{p}`")).collect();
            let names = match names.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                _ => names.join(""),
            };
            cx.error_spanned_by(
                &m.item.generics,
                format!(
                    "`#[thread_safe]` checks one concrete type, and `{self_ty}` is generic: name the instantiation to check, e.g. `#[thread_safe(instantiate = \"{}\")]` with concrete types for {names}",
                    example_instantiation(m)
                ),
            );
        }
        (true, Some(lit)) => cx.error_spanned_by(
            lit,
            format!(
                "`instantiate` is for generic impl blocks, and `impl {self_ty}` has no type parameters: remove `instantiate = \"{}\"`",
                lit.value()
            ),
        ),
        _ => {}
    }
}

/// `Cache<K, V>` → `Cache<String, u32>`-like: the self type with each parameter replaced by a
/// common type, for the message.
fn example_instantiation(m: &Impl<'_>) -> String {
    const EXAMPLES: [&str; 4] = ["String", "u32", "u64", "bool"];
    let subst = ty::Subst {
        self_ty: syn::parse_quote!(Self),
        params: m
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let is_const = m
                    .item
                    .generics
                    .params
                    .iter()
                    .any(|g| matches!(g, GenericParam::Const(c) if c.ident == *p));
                let arg: syn::GenericArgument = if is_const {
                    syn::parse_quote!(4)
                } else {
                    let name = syn::Ident::new(EXAMPLES[i % EXAMPLES.len()], p.span());
                    syn::parse_quote!(#name)
                };
                (p.clone(), arg)
            })
            .collect(),
    };
    ty::text(&subst.apply(&m.item.self_ty))
}

/// The generator needs a way to make an instance.
fn check_constructors(cx: &Ctxt, m: &Impl<'_>) {
    if m.constructors().next().is_some() {
        return;
    }
    let name = ty::text(&m.item.self_ty);
    let left_out: Vec<String> = m
        .entries
        .iter()
        .filter(|e| e.constructor_shaped)
        .filter_map(|e| Some(format!("`{}` is left out ({})", e.ident, e.skip_reason()?)))
        .collect();
    let left_out = if left_out.is_empty() {
        String::new()
    } else {
        format!("; {}", left_out.join("; "))
    };
    cx.error_spanned_by(
        &m.item.self_ty,
        format!(
            "`{name}` has no constructor in this impl block: add an associated function returning `Self` (e.g. `pub fn new() -> Self`){left_out}"
        ),
    );
}

/// `#[thread_safe(nondeterministic)]` goes on methods the check calls and whose results it
/// would compare; anywhere else it would do nothing, so it is an error at the keyword.
fn check_nondeterministic(cx: &Ctxt, m: &Impl<'_>) {
    for e in &m.entries {
        let Some(span) = e.nondeterministic else {
            continue;
        };
        let name = &e.ident;
        let why = match &e.kind {
            EntryKind::Skip(_) if e.skip => "`nondeterministic` together with `skip`: a skipped method is never called, so it has no results to compare; keep one of the two".to_string(),
            EntryKind::Skip(reason) => format!(
                "`nondeterministic` on `{name}`, which the check leaves out ({reason}): it is never called, so it has no results to compare; remove `nondeterministic`"
            ),
            EntryKind::Op(op) if op.receiver == Receiver::None => format!(
                "`nondeterministic` on the constructor `{name}`: the instances constructors make are not compared; it goes on methods that return a value"
            ),
            EntryKind::Op(op) => match op.ret {
                Ret::Stash | Ret::Drop => continue,
                Ret::Unit => format!(
                    "`nondeterministic` on `{name}`, which returns nothing: there is no result to compare; remove `nondeterministic`"
                ),
                Ret::Never => format!(
                    "`nondeterministic` on `{name}`, which never returns: there is no result to compare; remove `nondeterministic`"
                ),
                Ret::Made(_) => format!(
                    "`nondeterministic` on `{name}`, which returns a new instance of `{}`: instances are not compared; remove `nondeterministic`",
                    m.name
                ),
            },
        };
        cx.syn_error(syn::Error::new(span, why));
    }
}

/// `#[thread_safe(not_cancel_safe)]` goes on async methods the check calls; anywhere else
/// nothing is cancelled, so it is an error at the keyword.
fn check_not_cancel_safe(cx: &Ctxt, m: &Impl<'_>) {
    for e in &m.entries {
        let Some(span) = e.not_cancel_safe else {
            continue;
        };
        let name = &e.ident;
        let why = match &e.kind {
            EntryKind::Op(op) if op.asynchronous && op.receiver != Receiver::None => continue,
            EntryKind::Skip(_) if e.skip => "`not_cancel_safe` together with `skip`: a skipped method is never called, so it is never cancelled; keep one of the two".to_string(),
            EntryKind::Skip(reason) => format!(
                "`not_cancel_safe` on `{name}`, which the check leaves out ({reason}): it is never called, so it is never cancelled; remove `not_cancel_safe`"
            ),
            EntryKind::Op(op) if op.receiver == Receiver::None => format!(
                "`not_cancel_safe` on the constructor `{name}`: constructors are never cancelled; it goes on async methods"
            ),
            EntryKind::Op(_) => format!(
                "`not_cancel_safe` on `{name}`, which is not async: only an async method's future can be dropped before it completes; remove `not_cancel_safe`"
            ),
        };
        cx.syn_error(syn::Error::new(span, why));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::Args;
    use syn::{parse_quote, Item};

    fn errors(item: Item, args: proc_macro2::TokenStream) -> Vec<String> {
        let cx = Ctxt::new();
        let args = Args::parse(&cx, args);
        if let Some(m) = Impl::from_item(&cx, &item, &args) {
            check(&cx, &m);
        }
        match cx.check() {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn no_constructor() {
        let e = errors(
            parse_quote!(impl Foo { pub fn get(&self) -> u8 { 0 } }),
            quote::quote!(),
        );
        assert_eq!(e, ["`Foo` has no constructor in this impl block: add an associated function returning `Self` (e.g. `pub fn new() -> Self`)"]);
        let e = errors(
            parse_quote!(impl Foo {
                fn new() -> Self { Foo }
                #[thread_safe(skip)]
                pub fn other() -> Option<Foo> { None }
                pub fn get(&self) -> u8 { 0 }
            }),
            quote::quote!(),
        );
        assert_eq!(e, ["`Foo` has no constructor in this impl block: add an associated function returning `Self` (e.g. `pub fn new() -> Self`); `new` is left out (not public); `other` is left out (excluded with #[thread_safe(skip)])"]);
    }

    #[test]
    fn generics() {
        let e = errors(
            parse_quote!(
                impl<K, V, const N: usize> Cache<K, V, N> {
                    pub fn new() -> Self {
                        todo!()
                    }
                }
            ),
            quote::quote!(),
        );
        assert_eq!(e, ["`#[thread_safe]` checks one concrete type, and `Cache<K, V, N>` is generic: name the instantiation to check, e.g. `#[thread_safe(instantiate = \"Cache<String, u32, 4>\")]` with concrete types for `K`, `V` and `N`"]);
        let e = errors(
            parse_quote!(impl Registry { pub fn new() -> Self { todo!() } }),
            quote::quote!(instantiate = "Registry"),
        );
        assert_eq!(e, ["`instantiate` is for generic impl blocks, and `impl Registry` has no type parameters: remove `instantiate = \"Registry\"`"]);
        let e = errors(
            parse_quote!(
                impl<'a> View<'a> {
                    pub fn new() -> Self {
                        todo!()
                    }
                }
            ),
            quote::quote!(),
        );
        assert_eq!(e, ["`#[thread_safe]` cannot check a type with a lifetime parameter (`'a`): its instances are shared with threads the check spawns, so the type must be `'static`"]);
        let e = errors(
            parse_quote!(
                impl<T> Cache<T> {
                    pub fn new() -> Self {
                        todo!()
                    }
                }
            ),
            quote::quote!(instantiate = "Cache<u8>"),
        );
        assert!(e.is_empty(), "{e:?}");
    }

    #[test]
    fn nondeterministic_only_where_results_are_compared() {
        let e = errors(
            parse_quote!(impl Foo {
                pub fn new() -> Self { Foo }
                #[thread_safe(nondeterministic)]
                pub fn now(&self) -> u64 { 0 }
                #[thread_safe(nondeterministic)]
                pub fn name(&self) -> &str { "" }
                #[thread_safe(nondeterministic)]
                pub fn other() -> Option<Self> { None }
                #[thread_safe(skip, nondeterministic)]
                pub fn a(&self) -> u8 { 0 }
                #[thread_safe(nondeterministic)]
                fn b(&self) -> u8 { 0 }
                #[thread_safe(nondeterministic)]
                pub fn c(&self) {}
                #[thread_safe(nondeterministic)]
                pub fn d(&self) -> ! { loop {} }
                #[thread_safe(nondeterministic)]
                pub fn e(&self) -> Self { Foo }
            }),
            quote::quote!(),
        );
        assert_eq!(
            e,
            [
                "`nondeterministic` on the constructor `other`: the instances constructors make are not compared; it goes on methods that return a value",
                "`nondeterministic` together with `skip`: a skipped method is never called, so it has no results to compare; keep one of the two",
                "`nondeterministic` on `b`, which the check leaves out (not public): it is never called, so it has no results to compare; remove `nondeterministic`",
                "`nondeterministic` on `c`, which returns nothing: there is no result to compare; remove `nondeterministic`",
                "`nondeterministic` on `d`, which never returns: there is no result to compare; remove `nondeterministic`",
                "`nondeterministic` on `e`, which returns a new instance of `Foo`: instances are not compared; remove `nondeterministic`",
            ]
        );
    }

    #[test]
    fn self_type_must_be_named() {
        let e = errors(
            parse_quote!(impl dyn Tr { pub fn new() -> Box<Self> { todo!() } }),
            quote::quote!(),
        );
        assert_eq!(
            e[0],
            "`#[thread_safe]` checks a named type (`impl MyType { .. }`), not `dyn Tr`"
        );
    }
}
