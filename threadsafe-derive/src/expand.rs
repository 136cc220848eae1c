//! Code generation, and the whole expansion: parse → validate → generate.
//!
//! The output is the impl block (helper attributes stripped, statement points inserted in the
//! methods' bodies for test builds: `points.rs`), then
//! `const _: () = { <Send + Sync assertion> impl Subject for T { fn describe() .. } };`
//! (`describe()` also hands the table of the statement points to the runtime), then
//! (unless `test = false`) `#[cfg(test)] #[test] fn thread_safe_<type>()`. On any error it is
//! the impl block and one `compile_error!` per error instead, so IDEs keep seeing the methods.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{ImplItem, Item, Path};
use threadsafe_knobs as knobs;

use crate::ast::{Entry, EntryKind, Impl, InstancePass, Made, Op, ParamKind, Pass, Receiver, Ret};
use crate::attr::{is_helper, Args, ConfigValue};
use crate::ctxt::Ctxt;
use crate::points;
use crate::ty;
use crate::valid;

/// Expands `#[thread_safe(args)] item`.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let cx = Ctxt::new();
    let args = Args::parse(&cx, args);
    let item: Item = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(e) => {
            cx.syn_error(e);
            return with_errors(item, cx);
        }
    };
    let model = Impl::from_item(&cx, &item, &args);
    if let Some(m) = &model {
        valid::check(&cx, m);
    }
    let mut stripped = strip_helpers(&item);
    match (model, cx.has_errors()) {
        (Some(m), false) => {
            let table = match &mut stripped {
                Item::Impl(imp) => {
                    points::insert(imp, &m.entries, &args.krate, args.statement_points)
                }
                _ => points::Table::default(),
            };
            generate(&m, &args, stripped.into_token_stream(), &table)
        }
        _ => with_errors(stripped.into_token_stream(), cx),
    }
}

/// The item as it is, then the errors (tokio-macros' `token_stream_with_error`).
fn with_errors(item: TokenStream, cx: Ctxt) -> TokenStream {
    let errors = cx.check().err().map(|e| e.to_compile_error());
    quote!(#item #errors)
}

/// The item without the method-level `#[thread_safe(..)]` attributes.
fn strip_helpers(item: &Item) -> Item {
    let mut item = item.clone();
    if let Item::Impl(imp) = &mut item {
        for impl_item in &mut imp.items {
            let attrs = match impl_item {
                ImplItem::Fn(f) => &mut f.attrs,
                ImplItem::Const(c) => &mut c.attrs,
                ImplItem::Type(t) => &mut t.attrs,
                ImplItem::Macro(m) => &mut m.attrs,
                _ => continue,
            };
            attrs.retain(|a| !is_helper(a));
        }
    }
    item
}

/// Names of the expansion's locals: `mixed_site`, so no user name can clash with them.
fn local(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

fn generate(m: &Impl<'_>, args: &Args, item: TokenStream, table: &points::Table) -> TokenStream {
    let krate = &args.krate;
    let self_ty = &m.self_ty;
    let private = quote!(#krate::__private);

    let assertion = send_sync_assertion(m);
    let d = local("__d");
    let name = &m.name;
    let entries = m.entries.iter().map(|e| entry(e, m, &private, &d));
    let statements = table.statement(&d);
    let test_fn = args.test.then(|| test_fn(m, args));

    quote! {
        #item

        const _: () = {
            #assertion

            #[automatically_derived]
            impl #krate::Subject for #self_ty {
                #[allow(deprecated, unreachable_code, clippy::needless_borrow, clippy::let_and_return)]
                fn describe() -> #private::Description<Self> {
                    #[allow(unused_imports)]
                    use #private::{
                        ViaSubject as _, ViaGenerate as _, ViaNothing as _, CloneYes as _,
                        CloneNo as _, StashKeep as _, StashDrop as _,
                    };
                    #[allow(unused_imports)]
                    use #private::{ObserveValue as _, ObserveDebug as _, ObserveNothing as _};
                    let #d = #private::Description::new(#name);
                    #(#entries)*
                    #statements
                    #d
                }
            }
        };

        #test_fn
    }
}

/// A compile error "`Foo` cannot be checked by #[thread_safe]: it is not `Send + Sync`" at the
/// self type of the impl (or at the `instantiate` string, whose tokens the concrete type
/// carries) when the type is not `Send + Sync`.
///
/// A bound `T: Send + Sync` (or a trait with a blanket impl over it) would fail on the leaf
/// obligation, with rustc's message about the field (`Cell<u32>` cannot be shared ...) and not
/// ours. So the check is an autoref probe: `(&&PhantomData::<T>).verdict()` is `IsSendAndSync`
/// when `T: Send + Sync` and `IsNotSendAndSync` otherwise, and only the first implements the
/// trait that carries the message (the names show in rustc's help lines). rustc's own error
/// about the field also shows, from `Subject`'s supertraits.
fn send_sync_assertion(m: &Impl<'_>) -> TokenStream {
    let self_ty = &m.self_ty;
    let escaped = m.name.replace('{', "{{").replace('}', "}}");
    let message =
        format!("`{escaped}` cannot be checked by #[thread_safe]: it is not `Send + Sync`");
    let label = "the checked type must be `Send + Sync`: its instance is shared between threads";
    let note = "thread-safety is a claim about `Sync` types; wrap interior state in `Mutex`, `RwLock` or atomics";
    let marker = quote!(::core::marker);
    quote_spanned! {self_ty.span()=>
        #[allow(dead_code)]
        const _: fn() = || {
            struct IsSendAndSync;
            struct IsNotSendAndSync;
            trait Yes {
                fn verdict(&self) -> IsSendAndSync {
                    IsSendAndSync
                }
            }
            impl<T: ?#marker::Sized + #marker::Send + #marker::Sync> Yes for &#marker::PhantomData<T> {}
            trait No {
                fn verdict(&self) -> IsNotSendAndSync {
                    IsNotSendAndSync
                }
            }
            impl<T: ?#marker::Sized> No for #marker::PhantomData<T> {}
            #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
            trait SendAndSync {}
            impl SendAndSync for IsSendAndSync {}
            fn assert_send_and_sync<V: SendAndSync>(_: V) {}
            assert_send_and_sync((&&#marker::PhantomData::<#self_ty>).verdict());
        };
    }
}

/// `let __d = __d.op(..);` or `let __d = __d.skip(..);`, under the method's `#[cfg]`s.
fn entry(e: &Entry, m: &Impl<'_>, private: &TokenStream, d: &Ident) -> TokenStream {
    let cfgs = &e.cfgs;
    let name = e.ident.to_string();
    let add = match &e.kind {
        EntryKind::Skip(reason) => quote!(.skip(#name, #reason)),
        EntryKind::Op(op) => {
            let op = op_expr(&e.ident, op, m, private);
            quote!(.op(#op))
        }
    };
    quote! {
        #(#cfgs)*
        let #d = #d #add;
    }
}

/// `Op::new("name", Receiver::X, vec![params], |__f| { .. })`, then `.returns("T")` for a
/// method whose result is observed and `.nondeterministic()` for one whose results are never
/// compared.
fn op_expr(ident: &Ident, op: &Op, m: &Impl<'_>, private: &TokenStream) -> TokenStream {
    let name = ident.to_string();
    let receiver = format_ident!("{}", format!("{:?}", op.receiver));
    let params = op.params.iter().map(|p| {
        let (pname, pty) = (&p.name, &p.ty);
        match &p.kind {
            ParamKind::Instance(pass) => {
                let pass = format_ident!("{}", format!("{pass:?}"));
                quote!(#private::Param::instance(#pname, #pty, #private::InstancePass::#pass))
            }
            ParamKind::Value { owned, pass } => {
                let pass = format_ident!("{}", format!("{pass:?}"));
                quote! {
                    #private::Param::value::<#owned>(
                        #pname,
                        #pty,
                        #private::Pass::#pass,
                        (&&&#private::Probe::<#owned>::new()).maker(),
                        (&&#private::Probe::<#owned>::new()).cloner(),
                    )
                }
            }
        }
    });
    let body = call_body(ident, op, m, private);
    let f = local("__f");
    let returns = op.returns.as_ref().map(|ty| quote!(.returns(#ty)));
    let nondeterministic = op.nondeterministic.then(|| quote!(.nondeterministic()));
    let asynchronous = op.asynchronous.then(|| quote!(.asynchronous()));
    let not_cancel_safe = op.not_cancel_safe.then(|| quote!(.not_cancel_safe()));
    quote! {
        #private::Op::new(
            #name,
            #private::Receiver::#receiver,
            ::std::vec::Vec::from([#(#params),*]),
            |#f| { #body },
        )
        #returns
        #nondeterministic
        #asynchronous
        #not_cancel_safe
    }
}

/// The body of the call closure: receiver first, then the arguments in order, then the call
/// and what becomes of its value: observed (`Observe`), then kept (`Stash`) or dropped.
///
/// An owned value's observation starts at the value level (`&&&`: `ObserveValue`, else
/// `ObserveDebug`, else `ObserveNothing`); one that may borrow starts at the `Debug` level
/// (`&&`), because the value level's `'static` bound would be selected regardless of
/// lifetimes and then fail the borrow check instead of falling through.
fn call_body(ident: &Ident, op: &Op, m: &Impl<'_>, private: &TokenStream) -> TokenStream {
    let f = local("__f");
    let mut lets = Vec::new();
    let mut call_args = Vec::new();
    let recv = local("__recv");
    match op.receiver {
        Receiver::None => {}
        Receiver::Shared => lets.push(quote!(let #recv = #f.shared()?;)),
        Receiver::Exclusive => lets.push(quote!(let #recv = #f.exclusive()?;)),
        Receiver::ArcRef => lets.push(quote!(let #recv = #f.arc()?;)),
        Receiver::Arc => lets.push(quote!(let #recv = ::std::sync::Arc::clone(#f.arc()?);)),
    }
    if op.receiver != Receiver::None {
        call_args.push(quote!(#recv));
    }
    for (i, p) in op.params.iter().enumerate() {
        let a = local(&format!("__a{i}"));
        let index = Literal::usize_unsuffixed(i);
        match &p.kind {
            ParamKind::Instance(pass) => {
                let get = match pass {
                    InstancePass::Ref => quote!(#f.instance(#index)?),
                    InstancePass::ArcRef => quote!(#f.instance_arc(#index)?),
                    InstancePass::Arc => {
                        quote!(::std::sync::Arc::clone(#f.instance_arc(#index)?))
                    }
                };
                lets.push(quote!(let #a = #get;));
                call_args.push(quote!(#a));
            }
            ParamKind::Value { owned, pass } => {
                let mutable = (*pass == Pass::RefMut).then(|| quote!(mut));
                lets.push(quote!(let #mutable #a = #f.take::<#owned>(#index)?;));
                call_args.push(match pass {
                    Pass::Owned => quote!(#a),
                    Pass::Ref | Pass::Deref => quote!(&#a),
                    Pass::RefMut => quote!(&mut #a),
                });
            }
        }
    }
    let self_ty = &m.self_ty;
    let call = quote!(<#self_ty>::#ident(#(#call_args),*));
    let call = if op.asynchronous {
        // Driven to completion, or dropped at the test's cancellation point (`Unavailable`
        // then ends the call: it has no result of its own).
        let v = local("__v");
        lets.push(quote!(let #v = #private::drive(#f, #call)?;));
        quote!(#v)
    } else {
        call
    };
    let ok = quote!(::core::result::Result::Ok(()));
    let r = local("__r");
    let tail = match op.ret {
        Ret::Unit => quote!(#call; #ok),
        Ret::Never => quote!(#call),
        Ret::Made(Made::Plain) => quote!(#f.made(#call)),
        Ret::Made(Made::Box) => quote!(#f.made(*#call)),
        Ret::Made(Made::Arc) => quote!(#f.made_arc(#call)),
        Ret::Made(Made::Option) => quote!(#f.made_option(#call)),
        Ret::Made(Made::Result) => quote!(#f.made_result(#call)),
        Ret::Stash => quote! {
            let #r = #call;
            (&&&#private::Observe::new(&#r)).observe(#f);
            (&&#private::Stash::new(#r)).stash(#f);
            #ok
        },
        Ret::Drop => quote! {
            let #r = #call;
            (&&#private::Observe::new(&#r)).observe(#f);
            #ok
        },
    };
    quote!(#(#lets)* #tail)
}

/// `#[cfg(test)] #[test] fn thread_safe_<type>()` running the check with the attribute's
/// configuration.
fn test_fn(m: &Impl<'_>, args: &Args) -> TokenStream {
    let krate: &Path = &args.krate;
    let config = local("__config");
    let fn_name = format_ident!("thread_safe_{}", ty::snake_name(&m.self_ty));
    let sets = args.config.iter().map(|(key, value)| {
        let field = format_ident!("{}", key.name());
        let value = config_value(krate, *value);
        quote!(#config.#field = #value;)
    });
    let mutable = (!args.config.is_empty()).then(|| quote!(mut));
    let self_ty = &m.self_ty;
    let doc = format!(
        " Checks the thread safety of `{}` (generated by `#[thread_safe]`).",
        m.name
    );
    quote! {
        #[doc = #doc]
        #[cfg(test)]
        #[::core::prelude::v1::test]
        fn #fn_name() {
            let #mutable #config = #krate::Config::default();
            #(#sets)*
            #krate::__private::run_test::<#self_ty>(#config);
        }
    }
}

fn config_value(krate: &Path, value: ConfigValue) -> TokenStream {
    let duration = |d: std::time::Duration| {
        let nanos = Literal::u64_unsuffixed(d.as_nanos() as u64);
        quote!(::core::time::Duration::from_nanos(#nanos))
    };
    match value {
        ConfigValue::Usize(n) => Literal::usize_unsuffixed(n).into_token_stream(),
        ConfigValue::Seed(knobs::Seed::Fixed(n)) => Literal::u64_unsuffixed(n).into_token_stream(),
        ConfigValue::Seed(knobs::Seed::Random) => quote!(#krate::__private::random_seed()),
        ConfigValue::Duration(d) => duration(d),
        ConfigValue::SomeDuration(d) => {
            let d = duration(d);
            quote!(::core::option::Option::Some(#d))
        }
        ConfigValue::Executor(e) => match e {
            knobs::Executor::Workers => quote!(#krate::Executor::Workers),
            knobs::Executor::Paper => quote!(#krate::Executor::Paper),
        },
        ConfigValue::Schedule(s) => match s {
            knobs::ScheduleMode::Auto => quote!(#krate::ScheduleMode::Auto),
            knobs::ScheduleMode::Controlled => quote!(#krate::ScheduleMode::Controlled),
            knobs::ScheduleMode::Stress => quote!(#krate::ScheduleMode::Stress),
        },
        ConfigValue::Strategy(s) => match (s.depth(), s.preemptions()) {
            (Some(depth), _) => {
                let depth = Literal::usize_unsuffixed(depth);
                quote!(#krate::Strategy::Pct { depth: #depth })
            }
            (_, Some(bound)) => {
                let bound = Literal::usize_unsuffixed(bound);
                quote!(#krate::Strategy::Dfs { preemptions: #bound })
            }
            (None, None) => quote!(#krate::Strategy::Random),
        },
        ConfigValue::Guide(g) => match g {
            knobs::Guide::Random => quote!(#krate::Guide::Random),
            knobs::Guide::Pairs => quote!(#krate::Guide::Pairs),
            knobs::Guide::Map => quote!(#krate::Guide::Map),
        },
        ConfigValue::Bool(b) => quote!(#b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors_of(args: TokenStream, item: TokenStream) -> Vec<String> {
        let out = expand(args, item);
        let file: syn::File = syn::parse2(out).expect("the output parses");
        file.items
            .iter()
            .filter_map(|i| match i {
                Item::Macro(m) if m.mac.path.segments.last().unwrap().ident == "compile_error" => {
                    let lit: syn::LitStr = m.mac.parse_body().unwrap();
                    Some(lit.value())
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn on_error_the_item_is_kept_without_helpers() {
        let out = expand(
            quote!(prefixes = 0, bogus = 1),
            quote! {
                impl Foo {
                    #[thread_safe(skip)]
                    pub fn get(&self) -> u8 { 0 }
                }
            },
        );
        let file: syn::File = syn::parse2(out).unwrap();
        let Item::Impl(imp) = &file.items[0] else {
            panic!("the impl block comes first")
        };
        let ImplItem::Fn(f) = &imp.items[0] else {
            panic!()
        };
        assert!(f.attrs.is_empty(), "helper attribute stripped");
        let errors = errors_of(
            quote!(prefixes = 0, bogus = 1),
            quote!(impl Foo { pub fn get(&self) -> u8 { 0 } }),
        );
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].starts_with("unknown argument `bogus`"));
        assert!(errors[1].starts_with("`prefixes` takes a positive integer"));
        assert!(errors[2].starts_with("`Foo` has no constructor"));
    }

    #[test]
    fn every_error_at_once() {
        let errors = errors_of(
            quote!(prefixes = 0, threads = 9, budget = "fast"),
            quote!(
                impl<T> Foo<T> {
                    #[thread_safe(skp)]
                    pub fn get(&self) -> u8 {
                        0
                    }
                }
            ),
        );
        let starts = [
            "`prefixes` takes a positive integer",
            "`threads` takes 2, 3 or 4",
            "`budget`: `\"fast\"` is not a duration",
            "unknown argument `skp`",
            "`#[thread_safe]` checks one concrete type",
            "`Foo<T>` has no constructor",
        ];
        assert_eq!(errors.len(), starts.len(), "{errors:#?}");
        for (e, s) in errors.iter().zip(starts) {
            assert!(e.starts_with(s), "{e}");
        }
    }

    #[test]
    fn unparsable_item_is_returned_with_the_error() {
        let out = expand(quote!(), quote!(impl Foo { fn }));
        let text = out.to_string();
        assert!(text.starts_with("impl Foo { fn }"), "{text}");
        assert!(text.contains("compile_error"), "{text}");
    }

    #[test]
    fn test_fn_has_the_config_and_the_type_name() {
        let out = expand(
            quote!(
                seed = 7,
                budget = "2s",
                deadlock_timeout = "1.5s",
                executor = "stress",
                threads = 3,
                strategy = "pct",
                depth = 4,
                schedule = "controlled",
                guide = "pairs",
                stop_when_covered = true
            ),
            quote!(impl LruCache { pub fn new() -> Self { todo!() } }),
        );
        let file: syn::File = syn::parse2(out).unwrap();
        let text = prettyplease::unparse(&file);
        for want in [
            "fn thread_safe_lru_cache() {",
            "__config.seed = 7;",
            "__config.budget = ::core::time::Duration::from_nanos(2000000000);",
            "__config.deadlock_timeout = ::core::option::Option::Some(\n        ::core::time::Duration::from_nanos(1500000000),\n    );",
            "__config.executor = ::threadsafe_rt::Executor::Workers;",
            "__config.threads = 3;",
            "__config.schedule = ::threadsafe_rt::ScheduleMode::Controlled;",
            "__config.strategy = ::threadsafe_rt::Strategy::Pct {\n        depth: 4,\n    };",
            "__config.guide = ::threadsafe_rt::Guide::Pairs;",
            "__config.stop_when_covered = true;",
            "::threadsafe_rt::__private::run_test::<LruCache>(__config);",
        ] {
            assert!(text.contains(want), "{want}\nnot in\n{text}");
        }
        assert!(!text.contains(
            "let mut __config = ::threadsafe_rt::Config::default();\n    ::threadsafe_rt"
        ));
    }

    #[test]
    fn config_values_use_the_crate_path() {
        let out = expand(
            quote!(crate = "::my_rt", guide = "map", stop_when_covered = false),
            quote!(impl Foo { pub fn new() -> Self { Foo } }),
        );
        let text = out.to_string();
        assert!(!text.contains("threadsafe_rt"), "{text}");
        assert!(
            text.contains("__config . guide = :: my_rt :: Guide :: Map ;"),
            "{text}"
        );
        assert!(
            text.contains("__config . stop_when_covered = false ;"),
            "{text}"
        );
    }

    #[test]
    fn no_test_fn_with_test_false_and_crate_path() {
        let out = expand(
            quote!(test = false, crate = "::my_rt"),
            quote!(impl Foo { pub fn new() -> Self { Foo } }),
        );
        let text = out.to_string();
        assert!(!text.contains("thread_safe_foo"), "{text}");
        assert!(!text.contains("threadsafe_rt"), "{text}");
        assert!(text.contains(":: my_rt :: Subject"), "{text}");
    }

    #[test]
    fn cfg_attributes_follow_the_method() {
        let out = expand(
            quote!(),
            quote!(impl Foo {
                pub fn new() -> Self { Foo }
                #[cfg(any())]
                pub fn gone(&self) {}
                #[cfg(feature = "x")]
                fn hidden(&self) {}
            }),
        );
        let file: syn::File = syn::parse2(out).unwrap();
        let text = prettyplease::unparse(&file);
        assert!(
            text.contains("#[cfg(any())]\n            let __d = __d\n                .op("),
            "{text}"
        );
        assert!(text.contains("#[cfg(feature = \"x\")]\n            let __d = __d.skip(\"hidden\", \"not public\");"), "{text}");
    }

    #[test]
    fn snake_name_of_instantiation() {
        let out = expand(
            quote!(instantiate = "Cache<String, u32>"),
            quote!(
                impl<K, V> Cache<K, V> {
                    pub fn new() -> Self {
                        todo!()
                    }
                }
            ),
        );
        let text = out.to_string();
        assert!(text.contains("fn thread_safe_cache_string_u32"), "{text}");
        assert!(
            text.contains("impl :: threadsafe_rt :: Subject for Cache < String , u32 >"),
            "{text}"
        );
        assert!(
            text.contains("Description :: new (\"Cache<String, u32>\")"),
            "{text}"
        );
    }

    #[test]
    fn receivers_and_args_in_order() {
        let out = expand(
            quote!(),
            quote!(impl Foo {
                pub fn new() -> Self { Foo }
                pub fn f(&mut self, a: &mut Vec<u8>, b: &Self, c: Arc<Self>, d: &Arc<Self>, e: &str) -> u8 { 0 }
            }),
        );
        let file: syn::File = syn::parse2(out).unwrap();
        let text = prettyplease::unparse(&file);
        let want = "let __recv = __f.exclusive()?;
                            let mut __a0 = __f.take::<Vec<u8>>(0)?;
                            let __a1 = __f.instance(1)?;
                            let __a2 = ::std::sync::Arc::clone(__f.instance_arc(2)?);
                            let __a3 = __f.instance_arc(3)?;
                            let __a4 = __f.take::<::std::string::String>(4)?;
                            let __r = <Foo>::f( __recv, &mut __a0, __a1, __a2, __a3, &__a4, );
                            (&&&::threadsafe_rt::__private::Observe::new(&__r)) .observe(__f);
                            (&&::threadsafe_rt::__private::Stash::new(__r)).stash(__f);
                            ::core::result::Result::Ok(())
                        },
                    )
                    .returns(\"u8\"),";
        assert!(squash(&text).contains(&squash(want)), "{text}");
    }

    #[test]
    fn results_are_observed_unless_nothing_is_returned() {
        let out = expand(
            quote!(results = false),
            quote!(impl Foo {
                pub fn new() -> Self { Foo }
                #[thread_safe(nondeterministic)]
                pub fn now(&self) -> u64 { 0 }
                pub fn name(&self) -> &str { "" }
                pub fn guard(&self) -> MutexGuard<'_, u8> { todo!() }
                pub fn fork(&self) -> Self { Foo }
                pub fn set(&self, v: u8) {}
            }),
        );
        let file: syn::File = syn::parse2(out).unwrap();
        let text = squash(&prettyplease::unparse(&file));
        for want in [
            "let __r = <Foo>::now(__recv); (&&&::threadsafe_rt::__private::Observe::new(&__r)) .observe(__f); (&&::threadsafe_rt::__private::Stash::new(__r)).stash(__f); ::core::result::Result::Ok(()) }, ) .returns(\"u64\") .nondeterministic(),",
            "let __r = <Foo>::name(__recv); (&&::threadsafe_rt::__private::Observe::new(&__r)) .observe(__f); ::core::result::Result::Ok(()) }, ) .returns(\"&str\"),",
            "let __r = <Foo>::guard(__recv); (&&::threadsafe_rt::__private::Observe::new(&__r)) .observe(__f); ::core::result::Result::Ok(()) }, ) .returns(\"MutexGuard<'_, u8>\"),",
            "__f.made(<Foo>::fork(__recv)) }, ),",
            "<Foo>::set(__recv, __a0); ::core::result::Result::Ok(()) }, ),",
            "__config.results = false;",
        ] {
            assert!(text.contains(want), "{want}\nnot in\n{text}");
        }
        assert_eq!(text.matches(".observe(__f)").count(), 3, "{text}");
    }

    fn squash(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}
