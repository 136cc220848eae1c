//! The typed model of the annotated impl block: the type under test, and each method
//! classified as a callable operation (constructor or method, with its receiver, parameters
//! and return) or as left out with the reason, and whether its body gets statement points.
//! Classification is syntactic and runs once per signature; method bodies are never walked
//! here (the expansion walks each body once, to insert the points: `points.rs`).

use darling::FromAttributes;
use proc_macro2::Span;
use quote::ToTokens;
use syn::{
    Attribute, FnArg, GenericParam, Ident, ImplItem, ImplItemFn, Item, ItemImpl, LitStr, Pat,
    ReturnType, Type, Visibility,
};

use crate::attr::{is_helper, Args, MethodAttrs};
use crate::ctxt::Ctxt;
use crate::ty::{self, Subst};

/// An inherent impl block under `#[thread_safe]`.
pub(crate) struct Impl<'a> {
    pub(crate) item: &'a ItemImpl,
    /// The type under test: the self type as written, or the instantiation of a generic impl.
    pub(crate) self_ty: Type,
    /// `self_ty` as the reproducer writes it (`Registry`, `Cache<String, u32>`).
    pub(crate) name: String,
    /// The impl's type and const parameters.
    pub(crate) params: Vec<Ident>,
    /// `instantiate = ".."` as written, if given.
    pub(crate) instantiate: Option<&'a LitStr>,
    /// The methods and associated functions, in source order.
    pub(crate) entries: Vec<Entry>,
}

/// One associated function of the impl block.
pub(crate) struct Entry {
    pub(crate) ident: Ident,
    /// The method's `#[cfg(..)]` attributes, repeated on its description.
    pub(crate) cfgs: Vec<Attribute>,
    /// An associated function without receiver returning `Self`, `Option<Self>`, ... (whether
    /// or not it is callable).
    pub(crate) constructor_shaped: bool,
    /// Whether the body gets statement points in test builds: a method with a supported
    /// receiver (`&self`, `&mut self`, `self: &Arc<Self>`, `self: Arc<Self>`), not `const`
    /// (a call in a `const fn` does not compile), not `#[thread_safe(skip)]`. An `async fn`'s
    /// points run as its future is polled, on the thread that drives it. Whether the generator calls it does not matter: a private
    /// helper's statements are steps of the public methods that call it.
    pub(crate) statement_points: bool,
    /// `#[thread_safe(skip)]` is written on it.
    pub(crate) skip: bool,
    /// `#[thread_safe(nondeterministic)]` is written on it: the span of the keyword.
    pub(crate) nondeterministic: Option<Span>,
    /// `#[thread_safe(not_cancel_safe)]` is written on it: the span of the keyword.
    pub(crate) not_cancel_safe: Option<Span>,
    pub(crate) kind: EntryKind,
}

pub(crate) enum EntryKind {
    /// Called by the generator.
    Op(Op),
    /// Left out, with the reason (the report shows it).
    Skip(String),
}

/// How a callable function is called.
pub(crate) struct Op {
    pub(crate) receiver: Receiver,
    pub(crate) params: Vec<Param>,
    pub(crate) ret: Ret,
    /// The return type as written (with the impl's generic parameters instantiated), when
    /// the result is observed: `ret` is `Stash` or `Drop`.
    pub(crate) returns: Option<String>,
    /// `#[thread_safe(nondeterministic)]`: its results are never compared.
    pub(crate) nondeterministic: bool,
    /// An `async fn`, or a function returning `impl Future<Output = T>` or
    /// `Pin<Box<dyn Future<Output = T>>>`: the call drives the future to completion, and
    /// `ret` and `returns` are the future's output's.
    pub(crate) asynchronous: bool,
    /// `#[thread_safe(not_cancel_safe)]`: its calls are never cancelled.
    pub(crate) not_cancel_safe: bool,
}

/// The receiver, as the runtime's `Receiver`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Receiver {
    /// No receiver: a constructor.
    None,
    /// `&self`
    Shared,
    /// `&mut self`
    Exclusive,
    /// `self: &Arc<Self>`
    ArcRef,
    /// `self: Arc<Self>`
    Arc,
}

pub(crate) struct Param {
    /// The parameter's name (`_` or the pattern if not a plain name).
    pub(crate) name: String,
    /// Its type as written (with the impl's generic parameters instantiated).
    pub(crate) ty: String,
    pub(crate) kind: ParamKind,
}

#[derive(Clone, Debug)]
pub(crate) enum ParamKind {
    /// An instance of the type under test, from the pool.
    Instance(InstancePass),
    /// A generated value of the owned type `owned`, passed as `pass` says.
    Value { owned: Box<Type>, pass: Pass },
}

/// As the runtime's `InstancePass`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InstancePass {
    Ref,
    Arc,
    ArcRef,
}

/// As the runtime's `Pass`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    Owned,
    Ref,
    RefMut,
    Deref,
}

/// What is done with the return value. A `Stash` or `Drop` value is observed first, for the
/// oracle that compares results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ret {
    /// `()`: nothing.
    Unit,
    /// `!`: the call is the closure's value.
    Never,
    /// A new instance of the type under test.
    Made(Made),
    /// A value kept as an output variable when it is `Send + Sync + 'static`.
    Stash,
    /// A value that may borrow the receiver or an argument: dropped after the call.
    Drop,
}

/// How a new instance is returned, and the `Frame` method that records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Made {
    /// `Self`: `made`.
    Plain,
    /// `Arc<Self>`: `made_arc`.
    Arc,
    /// `Option<Self>`: `made_option`.
    Option,
    /// `Result<Self, E>`: `made_result`.
    Result,
    /// `Box<Self>`: `made` of the unboxed value.
    Box,
}

/// Return types whose name says they borrow, though an elided lifetime hides it
/// (`MutexGuard<T>` is `MutexGuard<'_, T>`): their values are not kept as outputs.
const BORROWING_NAMES: [&str; 14] = [
    "Ref",
    "RefMut",
    "Cow",
    "Iter",
    "IterMut",
    "Keys",
    "Values",
    "ValuesMut",
    "Drain",
    "Chars",
    "Lines",
    "Split",
    "Entry",
    "Arguments",
];

impl<'a> Impl<'a> {
    /// The model of `item`, or `None` (with the error recorded) when it is not an inherent
    /// impl block.
    pub(crate) fn from_item(cx: &Ctxt, item: &'a Item, args: &'a Args) -> Option<Impl<'a>> {
        let imp = match item {
            Item::Impl(imp) => imp,
            other => {
                not_an_impl(cx, other);
                return None;
            }
        };
        if let Some((_, path, _)) = &imp.trait_ {
            cx.error_spanned_by(
                path,
                format!(
                    "`#[thread_safe]` goes on an inherent impl block (`impl {} {{ .. }}`), not on an implementation of `{}`: put it on the block with the type's constructors and methods",
                    ty::text(&imp.self_ty),
                    ty::text(path),
                ),
            );
            return None;
        }

        let params: Vec<Ident> = imp
            .generics
            .params
            .iter()
            .filter_map(|p| match p {
                GenericParam::Type(t) => Some(t.ident.clone()),
                GenericParam::Const(c) => Some(c.ident.clone()),
                GenericParam::Lifetime(_) => None,
            })
            .collect();
        let instantiate = args.instantiate.as_ref();
        let mut bound = Vec::new();
        let self_ty = match instantiate {
            Some((Some(concrete), lit)) if !params.is_empty() => {
                let fit = ty::unify(&imp.self_ty, concrete, &params, &mut bound).and_then(|()| {
                    match params.iter().find(|p| !bound.iter().any(|(b, _)| b == *p)) {
                        Some(p) => Err(format!("it gives no argument for `{p}`")),
                        None => Ok(()),
                    }
                });
                if let Err(why) = fit {
                    cx.error_spanned_by(
                        lit,
                        format!(
                            "`instantiate = \"{}\"` does not fit `impl{} {}`: {why}",
                            lit.value(),
                            ty::text(&imp.generics),
                            ty::text(&imp.self_ty),
                        ),
                    );
                }
                concrete.clone()
            }
            _ => (*imp.self_ty).clone(),
        };
        let subst = Subst {
            self_ty: self_ty.clone(),
            params: bound,
        };
        // The same substitution keeping `Self`, for types as the user reads them.
        let subst_written = Subst {
            self_ty: syn::parse_quote!(Self),
            params: subst.params.clone(),
        };

        let mut entries = Vec::new();
        for impl_item in &imp.items {
            match impl_item {
                ImplItem::Fn(f) => entries.push(Entry::from_fn(cx, f, &subst, &subst_written)),
                other => {
                    for attr in impl_item_attrs(other).iter().filter(|a| is_helper(a)) {
                        cx.error_spanned_by(
                            attr,
                            "`#[thread_safe(..)]` inside the impl block goes on methods only",
                        );
                    }
                }
            }
        }

        Some(Impl {
            item: imp,
            name: ty::text(&self_ty),
            self_ty,
            params,
            instantiate: instantiate.map(|(_, lit)| lit),
            entries,
        })
    }

    /// The callable constructors.
    pub(crate) fn constructors(&self) -> impl Iterator<Item = &Entry> {
        self.entries
            .iter()
            .filter(|e| matches!(&e.kind, EntryKind::Op(op) if op.receiver == Receiver::None))
    }
}

fn impl_item_attrs(item: &ImplItem) -> &[Attribute] {
    match item {
        ImplItem::Const(c) => &c.attrs,
        ImplItem::Fn(f) => &f.attrs,
        ImplItem::Type(t) => &t.attrs,
        ImplItem::Macro(m) => &m.attrs,
        _ => &[],
    }
}

/// The error for `#[thread_safe]` on anything but an impl block, at its keyword and name.
fn not_an_impl(cx: &Ctxt, item: &Item) {
    fn at<A: ToTokens, B: ToTokens>(keyword: &A, name: &B) -> proc_macro2::TokenStream {
        quote::quote!(#keyword #name)
    }
    let (what, at) = match item {
        Item::Struct(s) => ("a struct", at(&s.struct_token, &s.ident)),
        Item::Enum(e) => ("an enum", at(&e.enum_token, &e.ident)),
        Item::Union(u) => ("a union", at(&u.union_token, &u.ident)),
        Item::Fn(f) => ("a function", at(&f.sig.fn_token, &f.sig.ident)),
        Item::Trait(t) => ("a trait", at(&t.trait_token, &t.ident)),
        Item::Mod(m) => ("a module", at(&m.mod_token, &m.ident)),
        Item::Type(t) => ("a type alias", at(&t.type_token, &t.ident)),
        other => ("this item", first_tokens(other)),
    };
    let example = match item {
        Item::Struct(s) => s.ident.to_string(),
        Item::Enum(e) => e.ident.to_string(),
        Item::Union(u) => u.ident.to_string(),
        _ => "MyType".to_string(),
    };
    cx.error_spanned_by(
        at,
        format!(
            "`#[thread_safe]` goes on an inherent impl block (`impl {example} {{ .. }}`), not on {what}: put it on the block with the type's constructors and methods"
        ),
    );
}

fn first_tokens(item: &Item) -> proc_macro2::TokenStream {
    item.to_token_stream().into_iter().take(2).collect()
}

impl Entry {
    fn from_fn(cx: &Ctxt, f: &ImplItemFn, subst: &Subst, subst_written: &Subst) -> Entry {
        let attrs = MethodAttrs::from_attributes(&f.attrs).unwrap_or_else(|e| {
            cx.darling_error(e);
            MethodAttrs::default()
        });
        let sig = &f.sig;
        let declared = match &sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, t) => Some(subst.apply(t)),
        };
        // What a call gives once driven: an `async fn`'s declared output, or the output of
        // the future a synchronous function returns.
        let (asynchronous, ret) = match declared.as_ref().map(future_output) {
            _ if sig.asyncness.is_some() => (true, declared),
            Some(Some(output)) => (true, output),
            _ => (false, declared),
        };
        let receiver = sig.receiver();
        let made = match (&ret, receiver) {
            (Some(t), None) => constructor_made(t, &subst.self_ty),
            _ => None,
        };
        let statement_points = !attrs.skip
            && sig.constness.is_none()
            && receiver
                .is_some_and(|r| self::receiver(&subst.apply(&r.ty), &subst.self_ty).is_some());
        let kind = match classify(f, &attrs, ret.as_ref(), made, subst, subst_written) {
            Ok(op) if asynchronous => EntryKind::Op(Op { asynchronous, ..op }),
            Ok(op) => EntryKind::Op(op),
            Err(reason) => EntryKind::Skip(reason),
        };
        Entry {
            ident: sig.ident.clone(),
            cfgs: f
                .attrs
                .iter()
                .filter(|a| a.path().is_ident("cfg"))
                .cloned()
                .collect(),
            constructor_shaped: made.is_some(),
            statement_points,
            skip: attrs.skip,
            nondeterministic: attrs.nondeterministic,
            not_cancel_safe: attrs.not_cancel_safe,
            kind,
        }
    }

    pub(crate) fn skip_reason(&self) -> Option<&str> {
        match &self.kind {
            EntryKind::Skip(r) => Some(r),
            EntryKind::Op(_) => None,
        }
    }
}

/// The operation for `f`, or why it is left out (the first reason that applies).
fn classify(
    f: &ImplItemFn,
    attrs: &MethodAttrs,
    ret: Option<&Type>,
    made: Option<Made>,
    subst: &Subst,
    subst_written: &Subst,
) -> Result<Op, String> {
    let sig = &f.sig;
    if attrs.skip {
        return Err("excluded with #[thread_safe(skip)]".into());
    }
    if matches!(f.vis, Visibility::Inherited) {
        return Err("not public".into());
    }
    if sig.unsafety.is_some() {
        return Err("`unsafe fn`: the generator cannot uphold its safety contract".into());
    }
    if sig.variadic.is_some() {
        return Err("variadic function".into());
    }
    if let Some(p) = sig.generics.params.iter().find_map(|p| match p {
        GenericParam::Type(t) => Some(format!("type parameter `{}`", t.ident)),
        GenericParam::Const(c) => Some(format!("const parameter `{}`", c.ident)),
        GenericParam::Lifetime(_) => None,
    }) {
        return Err(format!("generic method ({p})"));
    }
    for arg in &sig.inputs {
        if let FnArg::Typed(pt) = arg {
            if ty::mentions(&pt.ty, "impl") {
                return Err(format!(
                    "generic method (`impl Trait` argument `{}: {}`)",
                    param_name(&pt.pat),
                    ty::text(&pt.ty)
                ));
            }
        }
    }

    let receiver = match sig.receiver() {
        None if made.is_some() => Receiver::None,
        None => {
            return Err(
                "associated function that does not return `Self` (not a constructor)".into(),
            )
        }
        Some(r) => receiver(&subst.apply(&r.ty), &subst.self_ty).ok_or_else(|| {
            let written = if r.colon_token.is_some() {
                format!("self: {}", ty::text(&r.ty))
            } else {
                ty::text(r)
            };
            if r.reference.is_none() && (r.colon_token.is_none() || is_boxed_self(&r.ty)) {
                "takes `self` by value".to_string()
            } else {
                format!(
                    "receiver `{written}` is not supported (use `&self`, `&mut self`, `self: &Arc<Self>` or `self: Arc<Self>`)"
                )
            }
        })?,
    };

    let mut params = Vec::new();
    for arg in &sig.inputs {
        let FnArg::Typed(pt) = arg else { continue };
        let name = param_name(&pt.pat);
        let written = ty::text(&subst_written.apply(&pt.ty));
        let kind = param_kind(&subst.apply(&pt.ty), &subst.self_ty)
            .map_err(|why| format!("argument `{name}: {written}` {why}"))?;
        params.push(Param {
            name,
            ty: written,
            kind,
        });
    }

    let returns = ret.map(|t| ty::text(&subst_written.apply(t)));
    let ret = match (receiver, made) {
        (Receiver::None, Some(m)) => Ret::Made(m),
        _ => method_ret(ret, &subst.self_ty),
    };
    Ok(Op {
        receiver,
        params,
        ret,
        returns: returns.filter(|_| matches!(ret, Ret::Stash | Ret::Drop)),
        nondeterministic: attrs.nondeterministic.is_some(),
        asynchronous: false,
        not_cancel_safe: attrs.not_cancel_safe.is_some(),
    })
}

fn param_name(pat: &Pat) -> String {
    match pat {
        Pat::Ident(p) => p.ident.to_string(),
        Pat::Wild(_) => "_".into(),
        other => ty::text(other),
    }
}

/// Whether `ty` is the type under test (`Self` was substituted by it already).
fn is_self(ty: &Type, self_ty: &Type) -> bool {
    let ty = ty::peel(ty);
    matches!(ty, Type::Path(p) if p.path.is_ident("Self")) || ty::text(ty) == ty::text(self_ty)
}

fn is_arc_self(ty: &Type, self_ty: &Type) -> bool {
    ty::single_arg(ty, "Arc").is_some_and(|t| is_self(t, self_ty))
}

fn is_boxed_self(ty: &Type) -> bool {
    ty::single_arg(ty, "Box")
        .is_some_and(|t| matches!(ty::peel(t), Type::Path(p) if p.path.is_ident("Self")))
}

/// How a constructor's return type gives the instance, if it does.
fn constructor_made(ret: &Type, self_ty: &Type) -> Option<Made> {
    if is_self(ret, self_ty) {
        return Some(Made::Plain);
    }
    let wraps = |name: &str| {
        ty::generic_args(ret, name)
            .and_then(|args| args.first().copied())
            .is_some_and(|t| is_self(t, self_ty))
    };
    if wraps("Arc") && ty::single_arg(ret, "Arc").is_some() {
        Some(Made::Arc)
    } else if wraps("Option") {
        Some(Made::Option)
    } else if wraps("Result") {
        Some(Made::Result)
    } else if wraps("Box") {
        Some(Made::Box)
    } else {
        None
    }
}

fn receiver(ty: &Type, self_ty: &Type) -> Option<Receiver> {
    match ty::peel(ty) {
        Type::Reference(r) if is_self(&r.elem, self_ty) => Some(if r.mutability.is_some() {
            Receiver::Exclusive
        } else {
            Receiver::Shared
        }),
        Type::Reference(r) if r.mutability.is_none() && is_arc_self(&r.elem, self_ty) => {
            Some(Receiver::ArcRef)
        }
        t if is_arc_self(t, self_ty) => Some(Receiver::Arc),
        _ => None,
    }
}

/// The owned type generated for a `&T` parameter whose `T` is unsized: `&str` from a
/// `String`, `&[E]` from a `Vec<E>`, `&Path` from a `PathBuf` (deref coercion passes it).
fn deref_owned(inner: &Type) -> Option<Type> {
    match ty::peel(inner) {
        Type::Slice(s) => {
            let elem = &s.elem;
            Some(syn::parse_quote!(::std::vec::Vec<#elem>))
        }
        Type::Path(p) if p.qself.is_none() => {
            let path = ty::text(&p.path);
            let owned: Type = match path.as_str() {
                "str" => syn::parse_quote!(::std::string::String),
                "Path" | "std::path::Path" | "::std::path::Path" => {
                    syn::parse_quote!(::std::path::PathBuf)
                }
                "OsStr" | "std::ffi::OsStr" | "::std::ffi::OsStr" => {
                    syn::parse_quote!(::std::ffi::OsString)
                }
                "CStr" | "std::ffi::CStr" | "::std::ffi::CStr" | "core::ffi::CStr" => {
                    syn::parse_quote!(::std::ffi::CString)
                }
                _ => return None,
            };
            Some(owned)
        }
        _ => None,
    }
}

/// How a parameter of (substituted) type `ty` is made and passed; the error completes
/// "argument `x: T` ...".
fn param_kind(ty: &Type, self_ty: &Type) -> Result<ParamKind, String> {
    let peeled = ty::peel(ty);
    if matches!(peeled, Type::Never(_)) {
        return Err("has type `!`: no value can be made".into());
    }
    if ty::has_infer(ty) {
        return Err("has an inferred type `_`".into());
    }
    let trait_object = |t: &Type| matches!(ty::peel(t), Type::TraitObject(_));
    match peeled {
        Type::Reference(r) if ty::borrows(ty) || r.mutability.is_some() => {
            let inner = ty::peel(&r.elem);
            if r.mutability.is_some() {
                if is_self(inner, self_ty) || is_arc_self(inner, self_ty) {
                    return Err("borrows an instance mutably (instances are passed as `&Self`, `Arc<Self>` or `&Arc<Self>`)".into());
                }
                if ty::borrows(inner) || r.lifetime.is_some() {
                    return Err("borrows".into());
                }
                if trait_object(inner) {
                    return Err("is a trait object".into());
                }
                let owned = deref_owned(inner).unwrap_or_else(|| inner.clone());
                return Ok(ParamKind::Value {
                    owned: Box::new(owned),
                    pass: Pass::RefMut,
                });
            }
            if is_self(inner, self_ty) {
                return Ok(ParamKind::Instance(InstancePass::Ref));
            }
            if is_arc_self(inner, self_ty) {
                return Ok(ParamKind::Instance(InstancePass::ArcRef));
            }
            if ty::borrows(inner) {
                return Err("borrows".into());
            }
            if trait_object(inner) {
                return Err("is a trait object".into());
            }
            Ok(match deref_owned(inner) {
                Some(owned) => ParamKind::Value {
                    owned: Box::new(owned),
                    pass: Pass::Deref,
                },
                None => ParamKind::Value {
                    owned: Box::new(inner.clone()),
                    pass: Pass::Ref,
                },
            })
        }
        t if is_arc_self(t, self_ty) => Ok(ParamKind::Instance(InstancePass::Arc)),
        t if ty::borrows(t) => Err("borrows".into()),
        t if trait_object(t) || matches!(t, Type::Slice(_)) => Err("is unsized".into()),
        // Includes `&'static T`: a value of that type, passed as it is.
        _ => Ok(ParamKind::Value {
            owned: Box::new(peeled.clone()),
            pass: Pass::Owned,
        }),
    }
}

/// What a method with a receiver does with its return value.
/// The output of a future type: `Some(Some(T))` for `impl Future<Output = T>` (with other
/// bounds such as `Send + '_`) and for `Pin<Box<dyn Future<Output = T> ..>>`, `Some(None)`
/// for a future whose output is not named; `None` for a type that is not a future.
fn future_output(t: &Type) -> Option<Option<Type>> {
    let bounds = match ty::peel(t) {
        Type::ImplTrait(i) => &i.bounds,
        Type::Path(_) => {
            // `Pin<Box<dyn Future<..>>>`
            let boxed = ty::single_arg(ty::single_arg(t, "Pin")?, "Box")?;
            match ty::peel(boxed) {
                Type::TraitObject(o) => &o.bounds,
                _ => return None,
            }
        }
        _ => return None,
    };
    bounds.iter().find_map(|b| match b {
        syn::TypeParamBound::Trait(tb) => {
            let last = tb.path.segments.last().filter(|s| s.ident == "Future")?;
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                return Some(None);
            };
            Some(args.args.iter().find_map(|a| match a {
                syn::GenericArgument::AssocType(at) if at.ident == "Output" => Some(at.ty.clone()),
                _ => None,
            }))
        }
        _ => None,
    })
}

fn method_ret(ret: Option<&Type>, self_ty: &Type) -> Ret {
    let Some(t) = ret else { return Ret::Unit };
    let borrowing_name = ty::last_segment(t).is_some_and(|s| {
        let name = s.ident.to_string();
        name.ends_with("Guard") || BORROWING_NAMES.contains(&name.as_str())
    });
    if ty::is_unit(t) {
        Ret::Unit
    } else if matches!(ty::peel(t), Type::Never(_)) {
        Ret::Never
    } else if is_self(t, self_ty) {
        Ret::Made(Made::Plain)
    } else if is_arc_self(t, self_ty) {
        Ret::Made(Made::Arc)
    } else if ty::borrows(t) || ty::mentions(t, "impl") || borrowing_name {
        Ret::Drop
    } else {
        Ret::Stash
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn model(item: Item) -> (Vec<(String, String)>, Vec<String>) {
        model_with(item, Args::default())
    }

    /// Each entry as `name: description`, and the errors.
    fn model_with(item: Item, args: Args) -> (Vec<(String, String)>, Vec<String>) {
        let cx = Ctxt::new();
        let entries = Impl::from_item(&cx, &item, &args)
            .map(|m| {
                m.entries
                    .iter()
                    .map(|e| (e.ident.to_string(), describe(e)))
                    .collect()
            })
            .unwrap_or_default();
        let errors = match cx.check() {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        };
        (entries, errors)
    }

    fn describe(e: &Entry) -> String {
        let mut s = String::new();
        if !e.cfgs.is_empty() {
            s.push_str("cfg ");
        }
        match &e.kind {
            EntryKind::Skip(r) => s.push_str(&format!("skip: {r}")),
            EntryKind::Op(op) => {
                if op.asynchronous {
                    s.push_str("async ");
                }
                s.push_str(&format!("{:?}(", op.receiver));
                let params: Vec<String> = op
                    .params
                    .iter()
                    .map(|p| match &p.kind {
                        ParamKind::Instance(pass) => {
                            format!("{}: {} = Instance {pass:?}", p.name, p.ty)
                        }
                        ParamKind::Value { owned, pass } => {
                            format!("{}: {} = {pass:?} {}", p.name, p.ty, ty::text(owned))
                        }
                    })
                    .collect();
                s.push_str(&params.join(", "));
                s.push_str(&format!(") -> {:?}", op.ret));
            }
        }
        s
    }

    fn check(item: Item, want: &[(&str, &str)]) {
        let (got, errors) = model(item);
        assert!(errors.is_empty(), "{errors:?}");
        let got: Vec<(&str, &str)> = got.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g, w);
        }
        assert_eq!(got.len(), want.len(), "{got:#?}");
    }

    #[test]
    fn registry_of_the_design() {
        check(
            parse_quote! {
                impl Registry {
                    pub fn new() -> Self { todo!() }
                    pub fn with_capacity(n: usize) -> Self { todo!() }
                    pub fn insert(&self, k: String, v: u32) -> Option<u32> { todo!() }
                    pub fn merge(&self, other: &Registry) {}
                    pub fn compact(&mut self) {}
                    #[thread_safe(skip)]
                    pub fn debug_dump(&self) {}
                }
            },
            &[
                ("new", "None() -> Made(Plain)"),
                (
                    "with_capacity",
                    "None(n: usize = Owned usize) -> Made(Plain)",
                ),
                (
                    "insert",
                    "Shared(k: String = Owned String, v: u32 = Owned u32) -> Stash",
                ),
                ("merge", "Shared(other: &Registry = Instance Ref) -> Unit"),
                ("compact", "Exclusive() -> Unit"),
                ("debug_dump", "skip: excluded with #[thread_safe(skip)]"),
            ],
        );
    }

    #[test]
    fn constructors() {
        check(
            parse_quote! {
                impl Foo {
                    pub fn a() -> Foo { todo!() }
                    pub fn b() -> Option<Self> { todo!() }
                    pub fn c(s: &str) -> Result<Self, String> { todo!() }
                    pub fn d() -> std::sync::Arc<Self> { todo!() }
                    pub fn e() -> Box<Self> { todo!() }
                    pub fn f() -> u32 { 0 }
                    pub fn g() {}
                    pub fn h() -> Option<u8> { None }
                    fn i() -> Self { todo!() }
                }
            },
            &[
                ("a", "None() -> Made(Plain)"),
                ("b", "None() -> Made(Option)"),
                (
                    "c",
                    "None(s: &str = Deref ::std::string::String) -> Made(Result)",
                ),
                ("d", "None() -> Made(Arc)"),
                ("e", "None() -> Made(Box)"),
                (
                    "f",
                    "skip: associated function that does not return `Self` (not a constructor)",
                ),
                (
                    "g",
                    "skip: associated function that does not return `Self` (not a constructor)",
                ),
                (
                    "h",
                    "skip: associated function that does not return `Self` (not a constructor)",
                ),
                ("i", "skip: not public"),
            ],
        );
    }

    #[test]
    fn receivers() {
        check(
            parse_quote! {
                impl Foo {
                    pub fn a(&self) {}
                    pub fn b(&'a self) {}
                    pub fn c(&mut self) {}
                    pub fn d(self: &Self) {}
                    pub fn e(self: &Arc<Self>) {}
                    pub fn f(self: Arc<Self>) {}
                    pub fn g(self) {}
                    pub fn h(mut self) {}
                    pub fn i(self: Box<Self>) {}
                    pub fn j(self: Rc<Self>) {}
                    pub fn k(self: Pin<&mut Self>) {}
                    pub fn l(self: &mut Foo) {}
                }
            },
            &[
                ("a", "Shared() -> Unit"),
                ("b", "Shared() -> Unit"),
                ("c", "Exclusive() -> Unit"),
                ("d", "Shared() -> Unit"),
                ("e", "ArcRef() -> Unit"),
                ("f", "Arc() -> Unit"),
                ("g", "skip: takes `self` by value"),
                ("h", "skip: takes `self` by value"),
                ("i", "skip: takes `self` by value"),
                ("j", "skip: receiver `self: Rc<Self>` is not supported (use `&self`, `&mut self`, `self: &Arc<Self>` or `self: Arc<Self>`)"),
                ("k", "skip: receiver `self: Pin<&mut Self>` is not supported (use `&self`, `&mut self`, `self: &Arc<Self>` or `self: Arc<Self>`)"),
                ("l", "Exclusive() -> Unit"),
            ],
        );
    }

    #[test]
    fn parameters() {
        check(
            parse_quote! {
                impl Foo {
                    pub fn a(&self, x: &str, y: &[u8], z: &mut Vec<u8>, w: &String, v: Option<String>) {}
                    pub fn b(&self, x: &Self, y: Arc<Self>, z: &Arc<Foo>, w: Self, v: Vec<Self>) {}
                    pub fn c(&self, p: &Path, _: u8, (a, b): (u8, u8), s: &'static str, mut m: u8) {}
                    pub fn d(&self, x: Option<&str>) {}
                    pub fn e(&self, x: &mut Self) {}
                    pub fn f(&self, x: Cow<'a, str>) {}
                    pub fn g(&self, x: &dyn Any) {}
                    pub fn h(&self, f: fn(&str) -> bool) {}
                    pub fn i(&self, f: impl Fn()) {}
                    pub fn j<T: Clone>(&self, t: T) {}
                    pub fn k<const N: usize>(&self, t: [u8; N]) {}
                    pub fn l<'a>(&'a self, x: &'a str) -> &'a str { x }
                    pub fn m(&self, x: &mut str, f: fn(u8) -> u8, b: Box<dyn Fn() + Send>) {}
                    pub fn n(&self, x: &&str) {}
                }
            },
            &[
                ("a", "Shared(x: &str = Deref ::std::string::String, y: &[u8] = Deref ::std::vec::Vec<u8>, z: &mut Vec<u8> = RefMut Vec<u8>, w: &String = Ref String, v: Option<String> = Owned Option<String>) -> Unit"),
                ("b", "Shared(x: &Self = Instance Ref, y: Arc<Self> = Instance Arc, z: &Arc<Foo> = Instance ArcRef, w: Self = Owned Foo, v: Vec<Self> = Owned Vec<Foo>) -> Unit"),
                ("c", "Shared(p: &Path = Deref ::std::path::PathBuf, _: u8 = Owned u8, (a, b): (u8, u8) = Owned (u8, u8), s: &'static str = Owned &'static str, m: u8 = Owned u8) -> Unit"),
                ("d", "skip: argument `x: Option<&str>` borrows"),
                ("e", "skip: argument `x: &mut Self` borrows an instance mutably (instances are passed as `&Self`, `Arc<Self>` or `&Arc<Self>`)"),
                ("f", "skip: argument `x: Cow<'a, str>` borrows"),
                ("g", "skip: argument `x: &dyn Any` is a trait object"),
                ("h", "skip: argument `f: fn(&str) -> bool` borrows"),
                ("i", "skip: generic method (`impl Trait` argument `f: impl Fn()`)"),
                ("j", "skip: generic method (type parameter `T`)"),
                ("k", "skip: generic method (const parameter `N`)"),
                ("l", "Shared(x: &'a str = Deref ::std::string::String) -> Drop"),
                ("m", "Shared(x: &mut str = RefMut ::std::string::String, f: fn(u8) -> u8 = Owned fn(u8) -> u8, b: Box<dyn Fn() + Send> = Owned Box<dyn Fn() + Send>) -> Unit"),
                ("n", "skip: argument `x: &&str` borrows"),
            ],
        );
    }

    #[test]
    fn returns() {
        check(
            parse_quote! {
                impl Foo {
                    pub fn new() -> Self { todo!() }
                    pub fn a(&self) -> () {}
                    pub fn b(&self) -> ! { loop {} }
                    pub fn c(&self) -> Self { todo!() }
                    pub fn d(&self) -> Arc<Foo> { todo!() }
                    pub fn e(&self) -> Option<Self> { None }
                    pub fn f(&self) -> &str { "" }
                    pub fn g(&self) -> MutexGuard<u8> { todo!() }
                    pub fn h(&self) -> impl Iterator<Item = u8> { None.into_iter() }
                    pub fn i(&self) -> Vec<(String, u8)> { vec![] }
                    pub fn j(&self) -> std::cell::Ref<u8> { todo!() }
                }
            },
            &[
                ("new", "None() -> Made(Plain)"),
                ("a", "Shared() -> Unit"),
                ("b", "Shared() -> Never"),
                ("c", "Shared() -> Made(Plain)"),
                ("d", "Shared() -> Made(Arc)"),
                ("e", "Shared() -> Stash"),
                ("f", "Shared() -> Drop"),
                ("g", "Shared() -> Drop"),
                ("h", "Shared() -> Drop"),
                ("i", "Shared() -> Stash"),
                ("j", "Shared() -> Drop"),
            ],
        );
    }

    /// The return type as written is kept for the methods whose results are observed.
    #[test]
    fn observed_returns_as_written() {
        let cx = Ctxt::new();
        let args = Args::parse(&cx, quote::quote!(instantiate = "Cache<String, u32>"));
        let item: Item = parse_quote! {
            impl<K, V> Cache<K, V> {
                pub fn new() -> Self { todo!() }
                pub fn get(&self, k: &K) -> Option<V> { None }
                #[thread_safe(nondeterministic)]
                pub fn iter(&self) -> std::collections::hash_map::Iter<'_, K, V> { todo!() }
                pub fn keys(&self) -> impl Iterator<Item = &K> + '_ { None.into_iter() }
                pub fn clear(&self) {}
                pub fn fork(&self) -> Cache<K, V> { todo!() }
                pub fn me(self: &Arc<Self>) -> Arc<Self> { self.clone() }
            }
        };
        let m = Impl::from_item(&cx, &item, &args).unwrap();
        assert!(cx.check().is_ok());
        let got: Vec<(String, Option<String>, bool)> = m
            .entries
            .iter()
            .map(|e| match &e.kind {
                EntryKind::Op(op) => (e.ident.to_string(), op.returns.clone(), op.nondeterministic),
                EntryKind::Skip(r) => panic!("{} skipped: {r}", e.ident),
            })
            .collect();
        let want = [
            ("new", None, false),
            ("get", Some("Option<u32>"), false),
            (
                "iter",
                Some("std::collections::hash_map::Iter<'_, String, u32>"),
                true,
            ),
            ("keys", Some("impl Iterator<Item = &String> + '_"), false),
            ("clear", None, false),
            ("fork", None, false),
            ("me", None, false),
        ];
        let want: Vec<(String, Option<String>, bool)> = want
            .iter()
            .map(|(n, r, d)| (n.to_string(), r.map(str::to_string), *d))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn async_functions_are_called_with_their_outputs() {
        check(
            parse_quote! {
                impl Foo {
                    pub async fn new() -> Self { todo!() }
                    pub async fn a(&self, k: &str) -> u32 { 0 }
                    pub fn b(&self) -> impl Future<Output = Option<u8>> + Send + '_ { async { None } }
                    pub fn c(&self) -> Pin<Box<dyn Future<Output = u64> + Send + '_>> { todo!() }
                    pub fn d(&self) -> impl Iterator<Item = u8> + '_ { todo!() }
                    pub fn e(&self) -> impl std::future::Future<Output = ()> { async {} }
                }
            },
            &[
                ("new", "async None() -> Made(Plain)"),
                (
                    "a",
                    "async Shared(k: &str = Deref ::std::string::String) -> Stash",
                ),
                ("b", "async Shared() -> Stash"),
                ("c", "async Shared() -> Stash"),
                ("d", "Shared() -> Drop"),
                ("e", "async Shared() -> Unit"),
            ],
        );
    }

    #[test]
    fn other_skips_and_cfgs() {
        check(
            parse_quote! {
                impl Foo {
                    pub fn new() -> Self { todo!() }
                    pub unsafe fn a(&self) {}
                    pub async fn b(&self) {}
                    pub(crate) fn c(&self) {}
                    pub(super) fn d(&self) {}
                    #[cfg(feature = "x")]
                    #[inline]
                    pub fn e(&self) {}
                    #[cfg(any())]
                    fn f(&self) {}
                    pub const fn g(&self) -> u8 { 0 }
                }
            },
            &[
                ("new", "None() -> Made(Plain)"),
                (
                    "a",
                    "skip: `unsafe fn`: the generator cannot uphold its safety contract",
                ),
                ("b", "async Shared() -> Unit"),
                ("c", "Shared() -> Unit"),
                ("d", "Shared() -> Unit"),
                ("e", "cfg Shared() -> Unit"),
                ("f", "cfg skip: not public"),
                ("g", "Shared() -> Stash"),
            ],
        );
    }

    #[test]
    fn generic_impl_is_instantiated() {
        let cx = Ctxt::new();
        let args = Args::parse(&cx, quote::quote!(instantiate = "Cache<String, u32>"));
        let (got, errors) = model_with(
            parse_quote! {
                impl<K: Hash + Eq, V: Clone> Cache<K, V> {
                    pub fn new() -> Self { todo!() }
                    pub fn with(k: K, v: V) -> Cache<K, V> { todo!() }
                    pub fn get(&self, k: &K) -> Option<V> { None }
                    pub fn absorb(&self, other: &Cache<K, V>, keys: &[K]) {}
                }
            },
            args,
        );
        assert!(errors.is_empty(), "{errors:?}");
        let got: Vec<String> = got.into_iter().map(|(a, b)| format!("{a}: {b}")).collect();
        assert_eq!(
            got,
            [
                "new: None() -> Made(Plain)",
                "with: None(k: String = Owned String, v: u32 = Owned u32) -> Made(Plain)",
                "get: Shared(k: &String = Ref String) -> Stash",
                "absorb: Shared(other: &Cache<String, u32> = Instance Ref, keys: &[String] = Deref ::std::vec::Vec<String>) -> Unit",
            ]
        );
    }

    #[test]
    fn instantiate_that_does_not_fit() {
        let cx = Ctxt::new();
        let args = Args::parse(&cx, quote::quote!(instantiate = "Cache<String>"));
        let (_, errors) = model_with(
            parse_quote! { impl<K, V> Cache<K, V> { pub fn new() -> Self { todo!() } } },
            args,
        );
        assert_eq!(
            errors,
            ["`instantiate = \"Cache<String>\"` does not fit `impl<K, V> Cache<K, V>`: `Cache` takes 2 generic arguments, `Cache<String>` gives 1"]
        );
    }

    #[test]
    fn not_an_impl_block() {
        let (_, errors) = model(parse_quote!(
            pub struct Registry {
                x: u8,
            }
        ));
        assert_eq!(errors, ["`#[thread_safe]` goes on an inherent impl block (`impl Registry { .. }`), not on a struct: put it on the block with the type's constructors and methods"]);
        let (_, errors) = model(parse_quote!(
            fn f() {}
        ));
        assert!(errors[0].contains("not on a function"), "{errors:?}");
        let (_, errors) = model(parse_quote!(impl fmt::Display for Registry {}));
        assert_eq!(errors, ["`#[thread_safe]` goes on an inherent impl block (`impl Registry { .. }`), not on an implementation of `fmt::Display`: put it on the block with the type's constructors and methods"]);
    }

    #[test]
    fn helper_errors_are_collected() {
        let (_, errors) = model(parse_quote! {
            impl Foo {
                #[thread_safe(skp)]
                pub fn a(&self) {}
                #[thread_safe(skip)]
                const X: u8 = 1;
                #[thread_safe(nope)]
                pub fn b(&self) {}
            }
        });
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].starts_with("unknown argument `skp`"));
        assert_eq!(
            errors[1],
            "`#[thread_safe(..)]` inside the impl block goes on methods only"
        );
        assert!(errors[2].starts_with("unknown argument `nope`"));
    }
}
