//! Statement points: in test builds, a call of the runtime's scheduling hook before every
//! statement (and before the tail expression) of the annotated methods' bodies, so that the
//! controlled scheduler can switch threads between any two statements of plain std code, and
//! a stress run can perturb timing there. They stand where the papers instrument: MAPTest
//! puts a scheduling point before every shared access, and Vainer & Yehudai put gates at
//! breakpoints, without editing the code under test.
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
//!             fields: &[
//!                 ::threadsafe_rt::__private::FieldAccess { field: "items", write: true },
//!             ],
//!         };
//!     &__TS_POINT
//! });
//! ```
//!
//! `fields` are the fields of `self` the statement reads and writes (`fields.rs`).
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
//! body get no point: they do not run. Each body is walked once, and each statement's own
//! expressions once more for its fields (`fields.rs` skips the blocks that have their points).
//!
//! The walk also gathers every point of the impl block, in source order, into a [`Table`]:
//! `describe()` hands it to the runtime (`Description::statements`), under the same `cfg` as
//! the points, each entry under its method's `#[cfg]`s. Its entries are token for token the
//! points' own values (the same `file!()`/`line!()` spans), so they compare equal.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{
    Attribute, Block, Expr, ExprAsync, ExprClosure, ExprConst, ExprRepeat, GenericArgument, Ident,
    ImplItem, Item, ItemImpl, Pat, Path, RangeLimits, Stmt, Type, UnOp,
};

use crate::ast::Entry;
use crate::attr::PointsIn;
use crate::fields::{self, Access};

/// Inserts the points into the bodies of the methods of `item` whose entry asks for them
/// (`entries` are the model's, one per function of `item`, in order), and returns their
/// table.
pub(crate) fn insert(
    item: &mut ItemImpl,
    entries: &[Entry],
    krate: &Path,
    within: PointsIn,
) -> Table {
    let cfg = match within {
        PointsIn::Nowhere => return Table::default(),
        PointsIn::TestBuilds => quote!(#[cfg(test)]),
        PointsIn::Always => TokenStream::new(),
    };
    let mut table = Table {
        cfg: cfg.clone(),
        private: quote!(#krate::__private),
        entries: Vec::new(),
    };
    let fns = item.items.iter_mut().filter_map(|i| match i {
        ImplItem::Fn(f) => Some(f),
        _ => None,
    });
    for (f, entry) in fns.zip(entries) {
        debug_assert_eq!(f.sig.ident, entry.ident);
        if entry.statement_points {
            let mut points = Points::new(&f.sig.ident.unraw().to_string(), krate, cfg.clone());
            points.awaits = f.sig.asyncness.is_some();
            points.visit_block_mut(&mut f.block);
            let cfgs = &entry.cfgs;
            table
                .entries
                .extend(points.table.into_iter().map(|p| quote!(#(#cfgs)* #p)));
        }
    }
    table
}

/// Every statement point of an impl block, in source order, for `describe()`.
#[derive(Default)]
pub(crate) struct Table {
    /// `#[cfg(test)]`, or nothing with `statement_points = "always"`.
    cfg: TokenStream,
    /// `<crate>::__private`.
    private: TokenStream,
    /// The points' `StatementPoint` values, each under its method's `#[cfg]`s.
    entries: Vec<TokenStream>,
}

impl Table {
    /// `let __d = __d.statements(..);` (`d` is the description's local), under the points'
    /// `cfg`; nothing when no point was inserted.
    ///
    /// The `#[cfg]`s of a method are on its entries: `#[cfg]` on an element of an array
    /// expression removes the element, so a method compiled out contributes nothing.
    pub(crate) fn statement(&self, d: &Ident) -> TokenStream {
        let Table {
            cfg,
            private,
            entries,
        } = self;
        if entries.is_empty() {
            return TokenStream::new();
        }
        let name = Ident::new("__TS_STATEMENTS", Span::mixed_site());
        quote! {
            #cfg
            let #d = #d.statements({
                // The points' `line!()`s, with their spans (see `Points::point`).
                #[allow(clippy::zero_prefixed_literal)]
                static #name: &[#private::StatementPoint] = &[#(#entries),*];
                #name
            });
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
    /// The values of the points inserted so far, in source order.
    table: Vec<TokenStream>,
    /// Whether the body is an `async fn`'s: its `.await`s are suspensions, where a test may
    /// cancel the call (`awaited`).
    awaits: bool,
}

impl Points {
    fn new(method: &str, krate: &Path, cfg: TokenStream) -> Points {
        Points {
            cfg,
            private: quote!(#krate::__private),
            method: method.to_string(),
            name: syn::Ident::new("__TS_POINT", Span::mixed_site()),
            table: Vec::new(),
            awaits: false,
        }
    }

    /// `base.await` as a suspension of the call: `awaited(base, file!(), line!()).await`
    /// under the points' `cfg`, `base.await` without it. Two arms of a `match` carry the
    /// `cfg`s, so that the temporaries of `base` live until the `.await` is through, as
    /// they did.
    fn awaited(&self, e: &syn::ExprAwait) -> Expr {
        let Points { private, cfg, .. } = self;
        let base = &e.base;
        let at = e.await_token.span;
        let file = quote_spanned!(at=> ::core::file!());
        let line = quote_spanned!(at=> ::core::line!());
        let wrapped = quote!(#private::awaited(#base, #file, #line).await);
        let tokens = if cfg.is_empty() {
            wrapped
        } else {
            quote! {
                match () {
                    #[cfg(test)]
                    () => #wrapped,
                    #[cfg(not(test))]
                    () => #e,
                }
            }
        };
        Expr::Verbatim(tokens)
    }

    /// The point before a statement whose first token is at `at` and which accesses
    /// `fields`; its value also goes to the table.
    fn point(&mut self, at: Span, fields: &[Access]) -> Stmt {
        let Points {
            private,
            method,
            name,
            cfg,
            table,
            ..
        } = self;
        let file = quote_spanned!(at=> ::core::file!());
        let line = quote_spanned!(at=> ::core::line!());
        let fields = fields.iter().map(|Access { field, write }| {
            quote!(#private::FieldAccess { field: #field, write: #write })
        });
        let value = quote! {
            #private::StatementPoint {
                method: #method,
                file: #file,
                line: #line,
                fields: &[#(#fields),*],
            }
        };
        let tokens = quote! {
            #cfg
            #private::statement({
                // `line!()` carries the span of the statement's first token: when that is a
                // literal `0`, clippy would read the expanded line number as zero-prefixed.
                #[allow(clippy::zero_prefixed_literal)]
                static #name: #private::StatementPoint = #value;
                &#name
            })
        };
        table.push(value);
        Stmt::Expr(Expr::Verbatim(tokens), Some(Default::default()))
    }
}

impl VisitMut for Points {
    fn visit_block_mut(&mut self, block: &mut Block) {
        let stmts = std::mem::take(&mut block.stmts);
        let mut out = Vec::with_capacity(stmts.len() * 2);
        for mut stmt in stmts {
            // The statement's point before those of the blocks in it: the table is in source
            // order. Its fields are read before the blocks in it get their points.
            let point = stmt_start(&stmt).map(|at| self.point(at, &fields::of_stmt(&stmt)));
            self.visit_stmt_mut(&mut stmt);
            out.extend(point);
            out.push(stmt);
        }
        block.stmts = out;
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        if let (true, Expr::Await(a)) = (self.awaits, &*e) {
            *e = self.awaited(a);
        }
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

    /// `f`'s body with the points inserted, as tokens with each point written `•`, or
    /// `•[a b!]` when its statement reads `a` and writes `b`.
    fn rewrite(mut f: ImplItemFn) -> String {
        let krate: Path = parse_quote!(::threadsafe_rt);
        Points::new("m", &krate, quote!(#[cfg(test)])).visit_block_mut(&mut f.block);
        let text = f.block.to_token_stream().to_string();
        // The rewritten block is valid Rust.
        let reparsed: Block = syn::parse_str(&text).expect("the rewritten body parses");
        assert_eq!(reparsed.to_token_stream().to_string(), text);
        let (start, end) = (
            "# [cfg (test)] :: threadsafe_rt :: __private :: statement",
            "& __TS_POINT }) ;",
        );
        let (mut out, mut rest) = (String::new(), text.as_str());
        while let Some(i) = rest.find(start) {
            let j = i + rest[i..].find(end).expect("a point ends") + end.len();
            out.push_str(&rest[..i]);
            out.push_str(&marker(&rest[i..j]));
            rest = &rest[j..];
        }
        out.push_str(rest);
        squash(&out)
    }

    /// `•`, with the fields of the point's `FieldAccess`es if any.
    fn marker(point: &str) -> String {
        let fields: Vec<String> = point
            .split("field : \"")
            .skip(1)
            .map(|s| {
                let name = &s[..s.find('"').unwrap()];
                let write = s.split("write : ").nth(1).unwrap().starts_with("true");
                format!("{name}{}", if write { "!" } else { "" })
            })
            .collect();
        if fields.is_empty() {
            "•".to_string()
        } else {
            format!("•[{}]", fields.join(" "))
        }
    }

    fn point_text() -> String {
        let krate: Path = parse_quote!(::threadsafe_rt);
        Points::new("m", &krate, quote!(#[cfg(test)]))
            .point(Span::call_site(), &[])
            .to_token_stream()
            .to_string()
    }

    fn squash(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn awaits_in_async_fn_bodies_are_suspensions() {
        let krate: Path = parse_quote!(::threadsafe_rt);
        let mut f: ImplItemFn = parse_quote! {
            async fn m(&self) -> u8 {
                let a = self.a.lock().await;
                let f = async { other().await };
                f.await + *a
            }
        };
        let mut points = Points::new("m", &krate, quote!(#[cfg(test)]));
        points.awaits = true;
        points.visit_block_mut(&mut f.block);
        let text = squash(&f.block.to_token_stream().to_string());
        // Each `.await` of the body is wrapped, under `cfg(test)`, and left as it was
        // without; the one in the `async` block is not the body's.
        let wrapped = "match () { # [cfg (test)] () => :: threadsafe_rt :: __private :: awaited (self . a . lock () , :: core :: file ! () , :: core :: line ! ()) . await , # [cfg (not (test))] () => self . a . lock () . await , }";
        assert!(text.contains(wrapped), "{text}");
        assert!(text.contains("async { other () . await }"), "{text}");
        assert_eq!(text.matches("__private :: awaited").count(), 2, "{text}");
        // A sync body's are left alone (it has none to run), and so is everything with no cfg
        // but the wrapping itself.
        let mut always = Points::new("m", &krate, TokenStream::new());
        always.awaits = true;
        let mut g: ImplItemFn = parse_quote!(
            async fn g(&self) {
                x().await;
            }
        );
        always.visit_block_mut(&mut g.block);
        let text = squash(&g.block.to_token_stream().to_string());
        assert!(text.contains(":: threadsafe_rt :: __private :: awaited (x () , :: core :: file ! () , :: core :: line ! ()) . await ;"), "{text}");
        assert!(!text.contains("match"), "{text}");
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
                 file : :: core :: file ! () , line : :: core :: line ! () , fields : & [] , } ; \
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
                ("later", 1),
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

    #[test]
    fn each_point_carries_its_statements_fields() {
        assert_eq!(
            rewrite(parse_quote! {
                fn m(&self) -> usize {
                    let n = self.n.load(SeqCst);
                    if self.ready.get() {
                        self.items.lock().unwrap().push(n);
                    }
                    self.total += n;
                    self.helper();
                    self.items.read().len()
                }
            }),
            "{ •[n] let n = self . n . load (SeqCst) ; \
             •[ready] if self . ready . get () { •[items!] self . items . lock () . unwrap () . push (n) ; } \
             •[total!] self . total += n ; \
             • self . helper () ; \
             •[items] self . items . read () . len () }"
        );
    }

    /// Collects the initializers of the statics of a given name.
    struct Statics(&'static str, Vec<Expr>);

    impl VisitMut for Statics {
        fn visit_item_static_mut(&mut self, s: &mut syn::ItemStatic) {
            if s.ident == self.0 {
                self.1.push((*s.expr).clone());
            }
        }
    }

    /// The points' values in the methods' bodies, and the entries of the table in
    /// `describe()` (with their attributes), of `#[thread_safe(args)] item`.
    fn points_and_table(args: TokenStream, item: TokenStream) -> (Vec<String>, Vec<Expr>) {
        let mut file: syn::File = syn::parse2(crate::expand::expand(args, item)).unwrap();
        let mut points = Statics("__TS_POINT", Vec::new());
        points.visit_item_mut(&mut file.items[0]);
        let mut table = Statics("__TS_STATEMENTS", Vec::new());
        table.visit_file_mut(&mut file);
        let entries = match table.1.as_slice() {
            [] => Vec::new(),
            [Expr::Reference(r)] => match &*r.expr {
                Expr::Array(a) => a.elems.iter().cloned().collect(),
                other => panic!("{}", other.to_token_stream()),
            },
            other => panic!("{other:?}"),
        };
        let points = points.1.iter().map(|e| e.to_token_stream().to_string());
        (points.collect(), entries)
    }

    #[test]
    fn the_table_has_every_point_in_source_order_under_the_methods_cfgs() {
        let item = quote!(impl Foo {
            pub fn new() -> Self { Foo }
            pub fn a(&self) {
                let x = self.x.load(SeqCst);
                if x > 0 { self.y.store(x, SeqCst); }
                self.z.lock();
            }
            #[cfg(feature = "b")]
            #[inline]
            fn b(&self) -> u8 { self.w }
            pub fn zero(&self) -> u8 { 0 }
            #[cfg(any())]
            #[cfg(test)]
            pub fn c(&self) -> u8 { 1 }
        });
        let (points, table) = points_and_table(quote!(), item.clone());
        let no_attrs = |e: &Expr| {
            let mut e = e.clone();
            if let Expr::Struct(s) = &mut e {
                s.attrs.clear();
            }
            e.to_token_stream().to_string()
        };
        // The same values, in the same order: the statement before the block in it.
        assert_eq!(table.iter().map(no_attrs).collect::<Vec<_>>(), points);
        let summary: Vec<String> = table
            .iter()
            .map(|e| {
                let Expr::Struct(s) = e else {
                    panic!("{}", e.to_token_stream())
                };
                let attrs = s.attrs.iter().map(|a| a.to_token_stream().to_string());
                let text = e.to_token_stream().to_string();
                let method = text
                    .split("method : ")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap();
                attrs
                    .chain([method.to_string()])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(
            summary,
            [
                "\"a\"",
                "\"a\"",
                "\"a\"",
                "\"a\"",
                "# [cfg (feature = \"b\")] \"b\"",
                "\"zero\"",
                "# [cfg (any ())] # [cfg (test)] \"c\"",
            ]
        );
        assert!(
            points[0].contains("field : \"x\" , write : false"),
            "{}",
            points[0]
        );
        assert!(
            points[2].contains("field : \"y\" , write : true"),
            "{}",
            points[2]
        );

        // With `statement_points = false` there is no table; with "always", no `cfg(test)`.
        let (points, table) = points_and_table(quote!(statement_points = false), item.clone());
        assert!(points.is_empty() && table.is_empty());
        let out = crate::expand::expand(quote!(statement_points = false), item.clone());
        assert!(!out.to_string().contains(". statements ("), "{out}");
        let out = crate::expand::expand(quote!(), item.clone()).to_string();
        assert!(
            out.contains("# [cfg (test)] let __d = __d . statements ("),
            "{out}"
        );
        let out = crate::expand::expand(quote!(statement_points = "always"), item).to_string();
        assert!(out.contains("; let __d = __d . statements ("), "{out}");
        assert!(
            !out.contains("# [cfg (test)] let __d = __d . statements ("),
            "{out}"
        );
    }

    #[test]
    fn no_table_without_points() {
        let out = crate::expand::expand(
            quote!(),
            quote!(impl Foo { pub fn new() -> Self { Foo } pub const fn get(&self) -> u8 { 0 } }),
        )
        .to_string();
        assert!(!out.contains("statements"), "{out}");
    }
}
