//! Statement points: in test builds, a call of the runtime's scheduling hook before every
//! statement (and before the tail expression) of the annotated methods' bodies, so that the
//! controlled scheduler can switch threads between any two statements of plain std code, and
//! a stress run can perturb timing there (DESIGN.md §4).
//!
//! Each point is one statement, compiled only with `cfg(test)` (with `statement_points =
//! "always"`, without the `cfg`; with `false`, there is none):
//!
//! ```ignore
//! #[cfg(test)]
//! ::threadsafe_rt::__private::statement({
//!     #[allow(clippy::zero_prefixed_literal)]
//!     static __TS_POINT: ::threadsafe_rt::__private::StatementPoint =
//!         ::threadsafe_rt::__private::StatementPoint {
//!             method: "insert",
//!             file: ::core::file!(),
//!             line: ::core::line!(),
//!         };
//!     &__TS_POINT
//! });
//! ```
//!
//! `file!()` and `line!()` carry the span of the statement that follows, so they expand to
//! its file and line (the macros report the outermost macro call's location, and these calls
//! are located in the user's code). The rest carries the attribute's span, so lints see
//! macro-generated code; the static's name is `mixed_site` and lives in its own block, so it
//! can neither clash with nor shadow a user's name.
//!
//! The walk goes into every block the body runs in place: `if`/`else`, `match` arms, loops,
//! labeled and plain blocks, `unsafe` blocks, `let .. else`. It does not go into closures,
//! `async` blocks, nested items, `const` contexts (`const {}`, array lengths, const generic
//! arguments), patterns, attributes or macro invocations' tokens. Items and `macro_rules!` in a
//! body get no point: they do not run. Each body is walked once.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{
    Attribute, Block, Expr, ExprAsync, ExprClosure, ExprConst, ExprRepeat, GenericArgument,
    ImplItem, Item, ItemImpl, Pat, Path, RangeLimits, Stmt, Type, UnOp,
};

use crate::ast::Entry;
use crate::attr::PointsIn;

/// Inserts the points into the bodies of the methods of `item` whose entry asks for them
/// (`entries` are the model's, one per function of `item`, in order).
pub(crate) fn insert(item: &mut ItemImpl, entries: &[Entry], krate: &Path, within: PointsIn) {
    let cfg = match within {
        PointsIn::Nowhere => return,
        PointsIn::TestBuilds => quote!(#[cfg(test)]),
        PointsIn::Always => TokenStream::new(),
    };
    let fns = item.items.iter_mut().filter_map(|i| match i {
        ImplItem::Fn(f) => Some(f),
        _ => None,
    });
    for (f, entry) in fns.zip(entries) {
        debug_assert_eq!(f.sig.ident, entry.ident);
        if entry.statement_points {
            Points::new(&f.sig.ident.unraw().to_string(), krate, cfg.clone())
                .visit_block_mut(&mut f.block);
        }
    }
}

/// The rewriter of one method's body.
struct Points {
    /// `<crate>::__private`.
    private: TokenStream,
    /// The method's name, as a string literal.
    method: String,
    /// The static's name.
    name: syn::Ident,
    /// `#[cfg(test)]`, or nothing with `statement_points = "always"`.
    cfg: TokenStream,
}

impl Points {
    fn new(method: &str, krate: &Path, cfg: TokenStream) -> Points {
        Points {
            cfg,
            private: quote!(#krate::__private),
            method: method.to_string(),
            name: syn::Ident::new("__TS_POINT", Span::mixed_site()),
        }
    }

    /// The point before a statement whose first token is at `at`.
    fn point(&self, at: Span) -> Stmt {
        let Points {
            private,
            method,
            name,
            cfg,
        } = self;
        let file = quote_spanned!(at=> ::core::file!());
        let line = quote_spanned!(at=> ::core::line!());
        let tokens = quote! {
            #cfg
            #private::statement({
                // `line!()` carries the span of the statement's first token: when that is a
                // literal `0`, clippy would read the expanded line number as zero-prefixed.
                #[allow(clippy::zero_prefixed_literal)]
                static #name: #private::StatementPoint = #private::StatementPoint {
                    method: #method,
                    file: #file,
                    line: #line,
                };
                &#name
            })
        };
        Stmt::Expr(Expr::Verbatim(tokens), Some(Default::default()))
    }
}

impl VisitMut for Points {
    fn visit_block_mut(&mut self, block: &mut Block) {
        let stmts = std::mem::take(&mut block.stmts);
        let mut out = Vec::with_capacity(stmts.len() * 2);
        for mut stmt in stmts {
            self.visit_stmt_mut(&mut stmt);
            if let Some(at) = stmt_start(&stmt) {
                out.push(self.point(at));
            }
            out.push(stmt);
        }
        block.stmts = out;
    }

    // Code that does not run in place, or not at run time, or is not parsed.
    fn visit_expr_closure_mut(&mut self, _: &mut ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut ExprAsync) {}
    fn visit_expr_const_mut(&mut self, _: &mut ExprConst) {}
    fn visit_item_mut(&mut self, _: &mut Item) {}
    fn visit_type_mut(&mut self, _: &mut Type) {}
    fn visit_generic_argument_mut(&mut self, _: &mut GenericArgument) {}
    fn visit_pat_mut(&mut self, _: &mut Pat) {}
    fn visit_attribute_mut(&mut self, _: &mut Attribute) {}

    fn visit_expr_repeat_mut(&mut self, e: &mut ExprRepeat) {
        // `[x; len]`: `len` is a const context.
        self.visit_expr_mut(&mut e.expr);
    }
}

/// Where the point before `stmt` is located (its first token, attributes aside), or `None`
/// when it gets no point.
fn stmt_start(stmt: &Stmt) -> Option<Span> {
    match stmt {
        Stmt::Local(local) => Some(local.let_token.span),
        Stmt::Item(_) => None,
        Stmt::Macro(m) if m.mac.path.is_ident("macro_rules") => None,
        Stmt::Macro(m) => Some(path_start(&m.mac.path)),
        Stmt::Expr(e, _) => expr_start(e),
    }
}

/// The span of the first token of `e` without its attributes; `None` for no tokens (the
/// empty statement `;`). Cheap for the usual statement shapes; rare ones fall back to
/// `Spanned`, which prints the expression.
fn expr_start(e: &Expr) -> Option<Span> {
    let label = |l: &Option<syn::Label>, or: Span| l.as_ref().map_or(or, |l| l.name.apostrophe);
    Some(match e {
        Expr::Array(x) => x.bracket_token.span.open(),
        Expr::Assign(x) => return expr_start(&x.left),
        Expr::Await(x) => return expr_start(&x.base),
        Expr::Binary(x) => return expr_start(&x.left),
        Expr::Block(x) => label(&x.label, x.block.brace_token.span.open()),
        Expr::Break(x) => x.break_token.span,
        Expr::Call(x) => return expr_start(&x.func),
        Expr::Cast(x) => return expr_start(&x.expr),
        Expr::Continue(x) => x.continue_token.span,
        Expr::Field(x) => return expr_start(&x.base),
        Expr::ForLoop(x) => label(&x.label, x.for_token.span),
        Expr::Group(x) => return expr_start(&x.expr),
        Expr::If(x) => x.if_token.span,
        Expr::Index(x) => return expr_start(&x.expr),
        Expr::Lit(x) => x.lit.span(),
        Expr::Loop(x) => label(&x.label, x.loop_token.span),
        Expr::Macro(x) => path_start(&x.mac.path),
        Expr::Match(x) => x.match_token.span,
        Expr::MethodCall(x) => return expr_start(&x.receiver),
        Expr::Paren(x) => x.paren_token.span.open(),
        Expr::Path(x) => match &x.qself {
            Some(q) => q.lt_token.span,
            None => path_start(&x.path),
        },
        Expr::Range(x) => match (&x.start, &x.limits) {
            (Some(start), _) => return expr_start(start),
            (None, RangeLimits::HalfOpen(t)) => t.spans[0],
            (None, RangeLimits::Closed(t)) => t.spans[0],
        },
        Expr::Reference(x) => x.and_token.span,
        Expr::Repeat(x) => x.bracket_token.span.open(),
        Expr::Return(x) => x.return_token.span,
        Expr::Struct(x) => match &x.qself {
            Some(q) => q.lt_token.span,
            None => path_start(&x.path),
        },
        Expr::Try(x) => return expr_start(&x.expr),
        Expr::Tuple(x) => x.paren_token.span.open(),
        Expr::Unary(x) => match x.op {
            UnOp::Deref(t) => t.span,
            UnOp::Not(t) => t.span,
            UnOp::Neg(t) => t.span,
            _ => x.span(),
        },
        Expr::Unsafe(x) => x.unsafe_token.span,
        Expr::While(x) => label(&x.label, x.while_token.span),
        Expr::Verbatim(tokens) => tokens.clone().into_iter().next()?.span(),
        other => other.span(),
    })
}

fn path_start(path: &Path) -> Span {
    match (&path.leading_colon, path.segments.first()) {
        (Some(colon), _) => colon.spans[0],
        (None, Some(segment)) => segment.ident.span(),
        (None, None) => Span::call_site(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::{quote, ToTokens};
    use syn::{parse_quote, ImplItemFn};

    /// `f`'s body with the points inserted, as tokens with each point written `•`.
    fn rewrite(mut f: ImplItemFn) -> String {
        let krate: Path = parse_quote!(::threadsafe_rt);
        Points::new("m", &krate, quote!(#[cfg(test)])).visit_block_mut(&mut f.block);
        let text = f.block.to_token_stream().to_string();
        // The rewritten block is valid Rust.
        let reparsed: Block = syn::parse_str(&text).expect("the rewritten body parses");
        assert_eq!(reparsed.to_token_stream().to_string(), text);
        squash(&text.replace(&point_text(), "•"))
    }

    fn point_text() -> String {
        let krate: Path = parse_quote!(::threadsafe_rt);
        Points::new("m", &krate, quote!(#[cfg(test)]))
            .point(Span::call_site())
            .to_token_stream()
            .to_string()
    }

    fn squash(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn the_point_is_one_cfg_test_statement() {
        let point: Stmt = syn::parse_str(&point_text()).unwrap();
        let Stmt::Expr(Expr::Call(call), Some(_)) = &point else {
            panic!("{point:?}")
        };
        assert_eq!(call.attrs.len(), 1);
        assert_eq!(
            call.attrs[0].to_token_stream().to_string(),
            "# [cfg (test)]"
        );
        assert_eq!(
            squash(&point_text()),
            squash(
                "# [cfg (test)] :: threadsafe_rt :: __private :: statement ({ \
                 # [allow (clippy :: zero_prefixed_literal)] static __TS_POINT : :: threadsafe_rt :: __private :: StatementPoint = \
                 :: threadsafe_rt :: __private :: StatementPoint { method : \"m\" , \
                 file : :: core :: file ! () , line : :: core :: line ! () , } ; \
                 & __TS_POINT }) ;"
            )
        );
    }

    #[test]
    fn before_each_statement_and_the_tail() {
        assert_eq!(
            rewrite(parse_quote! {
                fn m(&self) -> u32 {
                    let a = self.get();
                    self.set(a + 1);
                    println!("{a}");
                    a
                }
            }),
            "{ • let a = self . get () ; • self . set (a + 1) ; • println ! (\"{a}\") ; • a }"
        );
        assert_eq!(
            rewrite(parse_quote!(
                fn m(&self) {}
            )),
            "{ }"
        );
        assert_eq!(
            rewrite(parse_quote!(
                fn m(&self) -> u8 {
                    7
                }
            )),
            "{ • 7 }"
        );
    }

    #[test]
    fn inside_nested_blocks() {
        assert_eq!(
            rewrite(parse_quote! {
                fn m(&self) {
                    if a { f(); } else if b { g(); } else { h() }
                    while c { i(); }
                    for x in y { j(x); }
                    loop { break; }
                    'l: { k(); break 'l; }
                    unsafe { l() }
                    { m() }
                }
            }),
            "{ • if a { • f () ; } else if b { • g () ; } else { • h () } \
             • while c { • i () ; } \
             • for x in y { • j (x) ; } \
             • loop { • break ; } \
             • 'l : { • k () ; • break 'l ; } \
             • unsafe { • l () } \
             • { • m () } }"
        );
    }

    #[test]
    fn match_arms_that_are_blocks_and_let_else() {
        assert_eq!(
            rewrite(parse_quote! {
                fn m(&self) -> u8 {
                    let Some(x) = self.x() else { return 0; };
                    let v = 'outer: loop {
                        match x {
                            0 => { break 'outer 1; }
                            1 => break 2,
                            _ => {}
                        }
                    };
                    v?
                }
            }),
            "{ • let Some (x) = self . x () else { • return 0 ; } ; \
             • let v = 'outer : loop { • match x { 0 => { • break 'outer 1 ; } 1 => break 2 , _ => { } } } ; \
             • v ? }"
        );
    }

    #[test]
    fn not_inside_closures_async_const_items_or_macros() {
        assert_eq!(
            rewrite(parse_quote! {
                fn m(&self) {
                    let f = |x: u8| { let y = x; y };
                    let g = move || { h() };
                    let fut = async { i().await };
                    let c = const { let n = 1; n };
                    let arr = [0u8; { let n = 2; n }];
                    let z = make::<{ let n = 3; n }>();
                    fn nested() { let q = 1; }
                    struct Local;
                    m!({ let r = 1; });
                }
            }),
            "{ • let f = | x : u8 | { let y = x ; y } ; \
             • let g = move | | { h () } ; \
             • let fut = async { i () . await } ; \
             • let c = const { let n = 1 ; n } ; \
             • let arr = [0u8 ; { let n = 2 ; n }] ; \
             • let z = make :: < { let n = 3 ; n } > () ; \
             fn nested () { let q = 1 ; } \
             struct Local ; \
             • m ! ({ let r = 1 ; }) ; }"
        );
    }

    #[test]
    fn blocks_in_expressions_and_empty_statements() {
        assert_eq!(
            rewrite(parse_quote! {
                fn m(&self) -> u8 {
                    ;
                    macro_rules! twice { ($e:expr) => { $e * 2 }; }
                    let a = if self.p() { 1 } else { 2 };
                    f(match a { 1 => { 3 } _ => 4 }, [{ 5 }; 2])
                }
            }),
            "{ ; macro_rules ! twice { ($ e : expr) => { $ e * 2 } ; } \
             • let a = if self . p () { • 1 } else { • 2 } ; \
             • f (match a { 1 => { • 3 } _ => 4 } , [{ • 5 } ; 2]) }"
        );
    }

    /// The number of points in each method of the expansion of `#[thread_safe(args)] item`.
    fn points_per_method(args: TokenStream, item: TokenStream) -> Vec<(String, usize)> {
        let file: syn::File = syn::parse2(crate::expand::expand(args, item)).unwrap();
        let Item::Impl(imp) = &file.items[0] else {
            panic!("the impl block comes first")
        };
        imp.items
            .iter()
            .filter_map(|i| match i {
                ImplItem::Fn(f) => Some((
                    f.sig.ident.to_string(),
                    f.block
                        .to_token_stream()
                        .to_string()
                        .matches("static __TS_POINT")
                        .count(),
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn which_methods_get_points() {
        let item = quote! {
            impl Foo {
                pub fn new() -> Self { let f = Foo; f }
                pub fn shared(&self) { a(); }
                pub fn exclusive(&mut self) { a(); }
                pub fn arc_ref(self: &Arc<Self>) { a(); }
                pub fn arc(self: Arc<Self>) { a(); }
                fn private_helper(&self) { a(); }
                pub unsafe fn raw(&self) { a(); }
                pub fn generic<T>(&self, t: T) { a(); }
                pub const fn constant(&self) -> u8 { let n = 1; n }
                pub async fn later(&self) { a(); }
                #[thread_safe(skip)]
                pub fn skipped(&self) { a(); }
                pub fn by_value(self) { a(); }
                pub fn boxed(self: Box<Self>) { a(); }
                pub fn assoc() -> u8 { let n = 1; n }
            }
        };
        assert_eq!(
            points_per_method(quote!(), item.clone()),
            [
                ("new", 0),
                ("shared", 1),
                ("exclusive", 1),
                ("arc_ref", 1),
                ("arc", 1),
                ("private_helper", 1),
                ("raw", 1),
                ("generic", 1),
                ("constant", 0),
                ("later", 0),
                ("skipped", 0),
                ("by_value", 0),
                ("boxed", 0),
                ("assoc", 0),
            ]
            .map(|(m, n)| (m.to_string(), n))
        );
        let off = points_per_method(quote!(statement_points = false), item);
        assert!(off.iter().all(|(_, n)| *n == 0), "{off:?}");
    }

    #[test]
    fn always_drops_the_cfg_and_false_drops_the_points() {
        let item = quote!(impl Foo { pub fn new() -> Self { Foo } pub fn get(&self) -> u8 { 0 } });
        let body = |args: TokenStream| {
            let out = crate::expand::expand(args, item.clone()).to_string();
            let start = out.find("fn get").expect("the method is emitted");
            let end = out[start..].find("impl ").map_or(out.len(), |e| start + e);
            out[start..end].to_string()
        };
        let test_builds = body(quote!());
        assert!(test_builds.contains("# [cfg (test)]"), "{test_builds}");
        assert!(test_builds.contains("statement"), "{test_builds}");
        let always = body(quote!(statement_points = "always"));
        assert!(!always.contains("cfg"), "{always}");
        assert!(always.contains("static __TS_POINT"), "{always}");
        let off = body(quote!(statement_points = false));
        assert!(!off.contains("__TS_POINT"), "{off}");
    }

    #[test]
    fn no_points_when_the_attribute_has_errors() {
        let counts = points_per_method(
            quote!(prefixes = 0),
            quote!(impl Foo { pub fn new() -> Self { Foo } pub fn get(&self) -> u8 { 0 } }),
        );
        assert_eq!(counts, [("new".to_string(), 0), ("get".to_string(), 0)]);
    }

    #[test]
    fn the_method_name_and_a_renamed_crate() {
        let out = crate::expand::expand(
            quote!(crate = "::my_rt"),
            quote!(impl Foo { pub fn new() -> Self { Foo } pub fn r#type(&self) -> u8 { 0 } }),
        )
        .to_string();
        assert!(out.contains(":: my_rt :: __private :: statement"), "{out}");
        assert!(out.contains("method : \"type\""), "{out}");
        assert!(!out.contains("threadsafe_rt"), "{out}");
    }
}
