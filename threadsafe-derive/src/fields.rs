//! Field accesses: which fields of `self` a statement reads and writes, read off the source
//! for each statement point (`points.rs`), so the runtime knows which statements may conflict.
//!
//! # What belongs to a statement
//!
//! The statement's own expression tree, and not the blocks that get points of their own:
//! the blocks of `if`/`else`, loop bodies, `match` arm bodies that are blocks, plain, labeled
//! and `unsafe` blocks, the `else` block of `let .. else` (exactly the blocks the points walk
//! goes into). The conditions of `if` and `while`, the scrutinee and guards of `match`, the
//! iterator of `for` and arm bodies that are not blocks do belong to it. So do the bodies of
//! closures and `async` blocks (which get no points: a closure usually runs in place, and
//! both capture `self`'s fields where they are written), blocks included. A macro
//! invocation's tokens are read as comma-separated expressions when they parse so
//! (`println!("{}", self.n)`, `assert!(self.ok.load(..))`), and are ignored otherwise.
//! Constant contexts, patterns, types and nested items are not looked at: they cannot
//! access `self`.
//!
//! # What is an access
//!
//! `self.f` (also `(self).f`) accesses field `f`; `self.0` field `"0"`; `self.a.b` and
//! `self.a[i]` field `a`. Raw identifiers are unraw'd: `self.r#type` accesses `type`.
//!
//! It is a **write** when the field, or a place built on it by fields, indexing and `*`
//! (`self.f.g`, `self.f[i]`, `*self.f`), is
//! - the receiver of a method of [`WRITE_METHODS`] (`lock`, `write`, `store`, `fetch_add`,
//!   `insert`, `push`, `take`, `notify_one`, ...). Only the first method applied to the
//!   field decides: `self.items.lock().unwrap().len()` writes `items` (`lock`),
//!   `self.map.read().unwrap().insert(k, v)` reads `map` (`read`);
//! - the left side of `=` or of a compound assignment (`+=`, `<<=`, ...): `self.n = 1`,
//!   `self.v[i] += 1`, `*self.cell.get_mut() = x`;
//! - borrowed mutably: `&mut self.f`, `&mut self.f[i]`, `&raw mut self.f`.
//!
//! Under a `*`, the place goes on through method calls and `?`: `*self.data.get() = x` and
//! `&mut *self.data.get()` write `data` (an `UnsafeCell`'s contents), and
//! `(*self.m.lock().unwrap()).len()` is decided by `lock`, the first method. Without a `*`
//! a method call ends the place: `&mut self.v.iter()` is decided by `iter` (a read).
//!
//! Any other access is a **read**: any other method (`load`, `read`, `get`, `len`, `clone`),
//! an argument, an operand, an indexed value, `&self.f`.
//!
//! # Order
//!
//! Each (field, kind) pair is listed once per statement, at its first occurrence, in
//! evaluation order where it is easy and source order otherwise: a read where the field is
//! evaluated; a method's write when the method is called, after the reads in its arguments
//! (`self.n.store(self.n.load(..) + 1, ..)` reads `n`, then writes it); an assignment's
//! write after the reads of its value (`self.a = self.b` reads `b`, then writes `a`), for
//! compound assignments too. So a statement can both read and write a field.
//!
//! # Limits
//!
//! This is a syntactic estimate. The kind of a method call comes from the method's name
//! alone, whatever the field's type (a user's `insert(&self)` on an immutable map is a
//! write, a user's `bump(&self)` on an atomic wrapper is a read). Accesses through local
//! aliases are seen only where the alias is made: `let m = &self.items; m.lock()` is a read
//! of `items` at the `let`, and nothing at `m.lock()`. Accesses in the helper methods a
//! statement calls (`self.helper()`) are not seen there: the helper's own statements carry
//! them when it is annotated too. Macros whose tokens are not expressions (`vec![x; n]`,
//! user DSLs) are not looked into, nor are `macro_rules!` expansions.

use syn::ext::IdentExt;
use syn::punctuated::Punctuated;
use syn::{Block, Expr, ExprField, ExprMethodCall, Ident, Macro, Member, Stmt, Token, UnOp};

/// The methods that change (or take exclusive hold of) their receiver, by name: locks and
/// write locks, atomic stores and read-modify-writes, cells, once-initialisation,
/// collections' mutators, and condition variables.
pub(crate) const WRITE_METHODS: &[&str] = &[
    "lock",
    "write",
    "try_lock",
    "try_write",
    "lock_arc",
    "upgradable_read",
    "store",
    "swap",
    "fetch_add",
    "fetch_sub",
    "fetch_and",
    "fetch_or",
    "fetch_xor",
    "fetch_nand",
    "fetch_max",
    "fetch_min",
    "fetch_update",
    "compare_exchange",
    "compare_exchange_weak",
    "compare_and_swap",
    "set",
    "get_or_init",
    "get_or_try_init",
    "call_once",
    "call_once_force",
    "take",
    "replace",
    "insert",
    "push",
    "push_back",
    "push_front",
    "pop",
    "pop_back",
    "pop_front",
    "remove",
    "clear",
    "extend",
    "append",
    "truncate",
    "retain",
    "drain",
    "entry",
    "get_mut",
    "borrow_mut",
    "as_mut",
    "sort",
    "sort_by",
    "sort_by_key",
    "dedup",
    "resize",
    "swap_remove",
    "split_off",
    "notify_one",
    "notify_all",
    "wait",
    "wait_while",
    "wait_timeout",
];

/// One access of a field of `self` by a statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Access {
    /// The field's name, unraw'd (`"0"` for a tuple struct's first field).
    pub(crate) field: String,
    /// A write (see the module's doc), or a read.
    pub(crate) write: bool,
}

/// The accesses of the fields of `self` by `stmt`, without those of the blocks in it that
/// get points of their own; each (field, kind) once, in order (see the module's doc).
pub(crate) fn of_stmt(stmt: &Stmt) -> Vec<Access> {
    let mut walk = Walk {
        out: Vec::new(),
        in_place: true,
    };
    walk.stmt(stmt);
    walk.out
}

/// The root of a place expression: the field of `self` it is built on, and the first method
/// applied to that field on the way (only under a `*`).
struct Root<'a> {
    field: String,
    first_method: Option<&'a Ident>,
}

/// The walk of one statement.
struct Walk {
    out: Vec<Access>,
    /// Whether the blocks met are walked by `points.rs` and get their own points (so they
    /// are not part of this statement): false inside closures, `async` blocks and macro
    /// invocations' tokens, where every block belongs to the statement.
    in_place: bool,
}

impl Walk {
    fn record(&mut self, field: String, write: bool) {
        if !self
            .out
            .iter()
            .any(|a| a.field == field && a.write == write)
        {
            self.out.push(Access { field, write });
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Local(local) => {
                if let Some(init) = &local.init {
                    self.expr(&init.expr);
                    if let Some((_, diverge)) = &init.diverge {
                        self.expr(diverge);
                    }
                }
            }
            Stmt::Item(_) => {}
            Stmt::Expr(e, _) => self.expr(e),
            Stmt::Macro(m) => self.mac(&m.mac),
        }
    }

    /// A block met in the statement: skipped when it gets its own points.
    fn block(&mut self, block: &Block) {
        if !self.in_place {
            for stmt in &block.stmts {
                self.stmt(stmt);
            }
        }
    }

    /// A block that runs elsewhere or later, and gets no points: all of it belongs here.
    fn detached(&mut self, f: impl FnOnce(&mut Self)) {
        let in_place = std::mem::replace(&mut self.in_place, false);
        f(self);
        self.in_place = in_place;
    }

    /// A macro invocation: its tokens as comma-separated expressions, if they parse so.
    fn mac(&mut self, mac: &Macro) {
        if mac.path.is_ident("macro_rules") {
            return;
        }
        if let Ok(args) = mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated) {
            self.detached(|w| args.iter().for_each(|e| w.expr(e)));
        }
    }

    /// An expression whose value is used (a read of any field it evaluates).
    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Array(x) => x.elems.iter().for_each(|e| self.expr(e)),
            Expr::Assign(x) => {
                self.expr(&x.right);
                self.written(&x.left);
            }
            Expr::Async(x) => self.detached(|w| w.block(&x.block)),
            Expr::Await(x) => self.expr(&x.base),
            Expr::Binary(x) if is_compound_assignment(&x.op) => {
                self.expr(&x.right);
                self.written(&x.left);
            }
            Expr::Binary(x) => {
                self.expr(&x.left);
                self.expr(&x.right);
            }
            Expr::Block(x) => self.block(&x.block),
            Expr::Break(x) => x.expr.iter().for_each(|e| self.expr(e)),
            Expr::Call(x) => {
                self.expr(&x.func);
                x.args.iter().for_each(|e| self.expr(e));
            }
            Expr::Cast(x) => self.expr(&x.expr),
            Expr::Closure(x) => self.detached(|w| w.expr(&x.body)),
            Expr::Field(x) => match self_field(x) {
                Some(field) => self.record(field, false),
                None => self.expr(&x.base),
            },
            Expr::ForLoop(x) => {
                self.expr(&x.expr);
                self.block(&x.body);
            }
            Expr::Group(x) => self.expr(&x.expr),
            Expr::If(x) => {
                self.expr(&x.cond);
                self.block(&x.then_branch);
                if let Some((_, else_branch)) = &x.else_branch {
                    self.expr(else_branch);
                }
            }
            Expr::Index(x) => {
                self.expr(&x.expr);
                self.expr(&x.index);
            }
            Expr::Let(x) => self.expr(&x.expr),
            Expr::Loop(x) => self.block(&x.body),
            Expr::Macro(x) => self.mac(&x.mac),
            Expr::Match(x) => {
                self.expr(&x.expr);
                for arm in &x.arms {
                    if let Some((_, guard)) = &arm.guard {
                        self.expr(guard);
                    }
                    self.expr(&arm.body);
                }
            }
            Expr::MethodCall(x) => self.method_call(x),
            Expr::Paren(x) => self.expr(&x.expr),
            Expr::Range(x) => {
                x.start.iter().for_each(|e| self.expr(e));
                x.end.iter().for_each(|e| self.expr(e));
            }
            Expr::RawAddr(x) => match x.mutability {
                syn::PointerMutability::Mut(_) => self.written(&x.expr),
                syn::PointerMutability::Const(_) => self.expr(&x.expr),
            },
            Expr::Reference(x) if x.mutability.is_some() => self.written(&x.expr),
            Expr::Reference(x) => self.expr(&x.expr),
            // `[x; len]`: `len` is a const context.
            Expr::Repeat(x) => self.expr(&x.expr),
            Expr::Return(x) => x.expr.iter().for_each(|e| self.expr(e)),
            Expr::Struct(x) => {
                x.fields.iter().for_each(|f| self.expr(&f.expr));
                x.rest.iter().for_each(|e| self.expr(e));
            }
            Expr::Try(x) => self.expr(&x.expr),
            Expr::TryBlock(x) => self.block(&x.block),
            Expr::Tuple(x) => x.elems.iter().for_each(|e| self.expr(e)),
            Expr::Unary(x) => self.expr(&x.expr),
            Expr::Unsafe(x) => self.block(&x.block),
            Expr::While(x) => {
                self.expr(&x.cond);
                self.block(&x.body);
            }
            Expr::Yield(x) => x.expr.iter().for_each(|e| self.expr(e)),
            // Constant contexts, and what has no sub-expression (paths, literals, `continue`,
            // `_`) or is not parsed (verbatim tokens).
            _ => {}
        }
    }

    /// A place that is assigned or borrowed mutably: a write of its root field, after the
    /// reads in it (indices, arguments).
    fn written(&mut self, place: &Expr) {
        if let Some(root) = self.place(place, false) {
            self.record(root.field, true);
        }
    }

    /// `receiver.method(args)`: when the receiver is a place on a field, the first method
    /// applied to the field decides the kind; a write is recorded after the arguments.
    fn method_call(&mut self, x: &ExprMethodCall) {
        let Some(root) = self.place(&x.receiver, false) else {
            x.args.iter().for_each(|e| self.expr(e));
            return;
        };
        let method = root.first_method.unwrap_or(&x.method);
        if is_write_method(method) {
            x.args.iter().for_each(|e| self.expr(e));
            self.record(root.field, true);
        } else {
            self.record(root.field, false);
            x.args.iter().for_each(|e| self.expr(e));
        }
    }

    /// Walks a place expression down to its root: a field of `self` through fields, indices
    /// and `*` (and under a `*`, through method calls and `?` too). Returns the root, the
    /// access of which the caller records; the rest (indices, arguments, another root) is
    /// walked as reads. `None` when the place is not built on a field of `self`.
    fn place<'a>(&mut self, e: &'a Expr, under_deref: bool) -> Option<Root<'a>> {
        match e {
            Expr::Paren(x) => self.place(&x.expr, under_deref),
            Expr::Group(x) => self.place(&x.expr, under_deref),
            Expr::Field(x) => match self_field(x) {
                Some(field) => Some(Root {
                    field,
                    first_method: None,
                }),
                None => self.place(&x.base, under_deref),
            },
            Expr::Index(x) => {
                let root = self.place(&x.expr, under_deref);
                self.expr(&x.index);
                root
            }
            Expr::Unary(x) if matches!(x.op, UnOp::Deref(_)) => self.place(&x.expr, true),
            Expr::MethodCall(x) if under_deref => {
                let root = self.place(&x.receiver, true);
                x.args.iter().for_each(|e| self.expr(e));
                root.map(|root| Root {
                    first_method: root.first_method.or(Some(&x.method)),
                    ..root
                })
            }
            Expr::Try(x) if under_deref => self.place(&x.expr, true),
            _ => {
                self.expr(e);
                None
            }
        }
    }
}

/// `f` when `x` is `self.f` (or `(self).f`), unraw'd.
fn self_field(x: &ExprField) -> Option<String> {
    let mut base = &*x.base;
    loop {
        match base {
            Expr::Paren(p) => base = &p.expr,
            Expr::Group(g) => base = &g.expr,
            Expr::Path(p) if p.qself.is_none() && p.path.is_ident("self") => break,
            _ => return None,
        }
    }
    Some(match &x.member {
        Member::Named(ident) => ident.unraw().to_string(),
        Member::Unnamed(index) => index.index.to_string(),
    })
}

fn is_write_method(method: &Ident) -> bool {
    WRITE_METHODS.iter().any(|m| method == m)
}

fn is_compound_assignment(op: &syn::BinOp) -> bool {
    use syn::BinOp::{
        AddAssign, BitAndAssign, BitOrAssign, BitXorAssign, DivAssign, MulAssign, RemAssign,
        ShlAssign, ShrAssign, SubAssign,
    };
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    /// The accesses of `stmt` as `"f"` (read) and `"f!"` (write).
    fn accesses(stmt: Stmt) -> Vec<String> {
        of_stmt(&stmt)
            .into_iter()
            .map(|a| format!("{}{}", a.field, if a.write { "!" } else { "" }))
            .collect()
    }

    #[test]
    fn fields_of_self_and_their_names() {
        assert_eq!(accesses(parse_quote!(let n = self.len;)), ["len"]);
        assert_eq!(accesses(parse_quote!(let n = self.0 + self.1;)), ["0", "1"]);
        assert_eq!(accesses(parse_quote!(let n = self.a.b.c;)), ["a"]);
        assert_eq!(accesses(parse_quote!(let n = (self).a;)), ["a"]);
        assert_eq!(accesses(parse_quote!(let n = self.r#type;)), ["type"]);
        // Not fields of `self`: locals, other instances, methods, `self` itself.
        assert!(accesses(parse_quote!(let n = other.a + this.b.c;)).is_empty());
        assert!(accesses(parse_quote!(self.helper(self);)).is_empty());
        assert!(accesses(parse_quote!(let n = Self::CONST;)).is_empty());
    }

    #[test]
    fn each_pair_once_in_source_order() {
        assert_eq!(
            accesses(parse_quote!(let n = self.b.len() + self.a + self.b.len();)),
            ["b", "a"]
        );
        assert_eq!(
            accesses(parse_quote!(let n = f(self.c, g(self.a), self.c);)),
            ["c", "a"]
        );
    }

    #[test]
    fn the_first_method_on_the_field_decides() {
        assert_eq!(
            accesses(parse_quote!(let n = self.items.lock().unwrap().len();)),
            ["items!"]
        );
        assert_eq!(
            accesses(parse_quote!(self.map.read().unwrap().insert(k, v);)),
            ["map"]
        );
        assert_eq!(
            accesses(parse_quote!(let v = self.n.load(Ordering::SeqCst);)),
            ["n"]
        );
        assert_eq!(
            accesses(parse_quote!(self.n.fetch_add(1, Ordering::SeqCst);)),
            ["n!"]
        );
        // Through fields, indices and `*` of the field.
        assert_eq!(accesses(parse_quote!(self.a.b.push(1);)), ["a!"]);
        assert_eq!(accesses(parse_quote!(self.shards[i].lock();)), ["shards!"]);
        assert_eq!(accesses(parse_quote!((*self.v).clear();)), ["v!"]);
        // Under a `*`, through the methods: the first one decides.
        assert_eq!(
            accesses(parse_quote!(let n = (*self.m.lock().unwrap()).len();)),
            ["m!"]
        );
        assert_eq!(
            accesses(parse_quote!(let n = (*self.m.read().unwrap()).pop();)),
            ["m"]
        );
        // Not a receiver: an argument is a read, whatever the method.
        assert_eq!(accesses(parse_quote!(v.push(self.a);)), ["a"]);
        assert_eq!(accesses(parse_quote!(drop(self.a.clone());)), ["a"]);
    }

    #[test]
    fn every_write_method() {
        for m in WRITE_METHODS {
            let m = Ident::new(m, proc_macro2::Span::call_site());
            assert_eq!(accesses(parse_quote!(self.f.#m();)), ["f!"], "{m}");
        }
        for m in [
            "read", "get", "len", "iter", "clone", "load", "try_read", "is_empty",
        ] {
            let m = Ident::new(m, proc_macro2::Span::call_site());
            assert_eq!(accesses(parse_quote!(self.f.#m();)), ["f"], "{m}");
        }
    }

    #[test]
    fn assignments_write_their_left_side() {
        assert_eq!(accesses(parse_quote!(self.n = 1;)), ["n!"]);
        assert_eq!(accesses(parse_quote!(self.n += 1;)), ["n!"]);
        assert_eq!(
            accesses(parse_quote!(self.n <<= self.shift;)),
            ["shift", "n!"]
        );
        assert_eq!(accesses(parse_quote!(self.a.b = 1;)), ["a!"]);
        assert_eq!(accesses(parse_quote!(self.v[self.i] = x;)), ["i", "v!"]);
        assert_eq!(accesses(parse_quote!(*self.n.get_mut() = 0;)), ["n!"]);
        assert_eq!(accesses(parse_quote!(*self.cell.get() = 1;)), ["cell!"]);
        assert_eq!(
            accesses(parse_quote!(*self.m.lock().unwrap() += 1;)),
            ["m!"]
        );
        // The right side is read, before the write.
        assert_eq!(accesses(parse_quote!(self.a = self.b;)), ["b", "a!"]);
        assert_eq!(accesses(parse_quote!(self.a = self.a + 1;)), ["a", "a!"]);
        // A local on the left: nothing written.
        assert_eq!(accesses(parse_quote!(x = self.a;)), ["a"]);
        assert_eq!(accesses(parse_quote!(x[self.i] = 1;)), ["i"]);
    }

    #[test]
    fn mutable_borrows_write() {
        assert_eq!(accesses(parse_quote!(let r = &mut self.f;)), ["f!"]);
        assert_eq!(accesses(parse_quote!(let r = &mut self.f.g[0];)), ["f!"]);
        // (The `unsafe` block has its own point.)
        assert!(accesses(parse_quote!(let r = unsafe { &mut *self.data.get() };)).is_empty());
        assert_eq!(
            accesses(parse_quote!(let r = f(&mut *self.data.get());)),
            ["data!"]
        );
        assert_eq!(accesses(parse_quote!(let p = &raw mut self.f;)), ["f!"]);
        assert_eq!(accesses(parse_quote!(let p = &raw const self.f;)), ["f"]);
        assert_eq!(accesses(parse_quote!(let r = &self.f;)), ["f"]);
        // Without a `*`, a method call ends the place: its name decides.
        assert_eq!(accesses(parse_quote!(let r = &mut self.v.iter();)), ["v"]);
    }

    #[test]
    fn read_and_write_of_one_field_in_evaluation_order() {
        assert_eq!(
            accesses(
                parse_quote!(self.n.store(self.n.load(Ordering::SeqCst) + 1, Ordering::SeqCst);)
            ),
            ["n", "n!"]
        );
        // A read receiver comes before its arguments.
        assert_eq!(
            accesses(parse_quote!(let x = self.a.get(self.b);)),
            ["a", "b"]
        );
        // A write receiver after them.
        assert_eq!(accesses(parse_quote!(self.a.insert(self.b);)), ["b", "a!"]);
    }

    #[test]
    fn blocks_with_their_own_points_are_left_out() {
        assert_eq!(
            accesses(parse_quote! {
                if self.ready.load(SeqCst) { self.a.push(1); } else if self.b.is_empty() { self.c.clear() } else { self.d.take(); }
            }),
            ["ready", "b"]
        );
        assert_eq!(
            accesses(parse_quote!(while self.n.load(SeqCst) > 0 {
                self.m.lock();
            })),
            ["n"]
        );
        assert_eq!(
            accesses(parse_quote!(for x in self.items.iter() {
                self.total.fetch_add(x);
            })),
            ["items"]
        );
        assert!(accesses(parse_quote!(loop {
            self.a.pop();
        }))
        .is_empty());
        assert!(accesses(parse_quote!('l: {
            self.a.pop();
        }))
        .is_empty());
        assert!(accesses(parse_quote!(unsafe { self.a.pop() })).is_empty());
        assert!(accesses(parse_quote!({ self.a.pop() })).is_empty());
        assert_eq!(
            accesses(parse_quote! {
                let Some(x) = self.q.pop() else { self.misses.fetch_add(1); return; };
            }),
            ["q!"]
        );
        assert_eq!(
            accesses(parse_quote! {
                let v = match self.state.load(SeqCst) {
                    0 if self.flag.get() => self.a.take(),
                    1 => { self.b.take() }
                    _ => self.c,
                };
            }),
            ["state", "flag", "a!", "c"]
        );
        assert_eq!(
            accesses(parse_quote!(let v = if self.x.load() { 1 } else { self.y };)),
            ["x"]
        );
    }

    #[test]
    fn closures_and_async_blocks_count() {
        assert_eq!(
            accesses(parse_quote! {
                let v = self.a.get_or_init(|| { let n = self.b.load(SeqCst); if n > 0 { self.c.lock(); } n });
            }),
            ["b", "c!", "a!"]
        );
        assert_eq!(
            accesses(parse_quote!(let f = async { self.q.lock().await };)),
            ["q!"]
        );
    }

    #[test]
    fn macros_whose_tokens_are_expressions() {
        assert_eq!(
            accesses(parse_quote!(println!("{} {}", self.a, self.b.lock().unwrap());)),
            ["a", "b!"]
        );
        assert_eq!(
            accesses(parse_quote!(assert!(self.ok.load(SeqCst), "{}", format!("{}", self.why));)),
            ["ok", "why"]
        );
        assert_eq!(
            accesses(parse_quote!(let s = format!("{x}", x = self.name);)),
            ["name"]
        );
        // Blocks in a macro's tokens get no points: they belong to the statement.
        assert_eq!(
            accesses(parse_quote!(assert!({ self.a.push(1); true });)),
            ["a!"]
        );
        // Tokens that are not expressions: ignored.
        assert!(accesses(parse_quote!(let v = vec![self.a; 3];)).is_empty());
        assert!(accesses(parse_quote!(my_dsl!(self.a => self.b);)).is_empty());
    }

    #[test]
    fn no_self_in_items_and_constant_contexts() {
        assert!(accesses(parse_quote!(
            fn nested(&self) {
                self.a.push(1);
            }
        ))
        .is_empty());
        assert!(accesses(parse_quote!(let a = [0u8; N];)).is_empty());
    }
}
