//! Syntactic helpers on types: writing them as a person would, naming things after them,
//! substituting the instantiation of a generic impl, and the shapes the classifier asks about.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, GenericArgument, Ident, PathArguments, PathSegment, Type};

// ---------------------------------------------------------------------------------------
// Writing types.
// ---------------------------------------------------------------------------------------

/// The type as a person writes it: `&str`, `Vec<u8>`, `Cache<String, u32>`, `&'a mut [u8; 4]`,
/// `impl Fn(u8) -> u8 + Send` (not `& str` as token streams print).
pub(crate) fn text<T: ToTokens>(node: &T) -> String {
    let mut out = String::new();
    write_tokens(node.to_token_stream(), &mut out);
    out
}

#[derive(Clone, PartialEq, Eq)]
enum Atom {
    /// An identifier, literal or lifetime.
    Word(String),
    /// One or more joint punctuation characters (`&`, `::`, `->`).
    Op(String),
    /// A delimited group, already written.
    Group(String),
}

fn atoms(tokens: TokenStream) -> Vec<Atom> {
    let mut out: Vec<Atom> = Vec::new();
    let mut iter = tokens.into_iter().peekable();
    let mut pending_op = String::new();
    while let Some(tt) = iter.next() {
        match tt {
            TokenTree::Punct(p) if p.as_char() == '\'' && p.spacing() == Spacing::Joint => {
                if let Some(TokenTree::Ident(i)) = iter.peek() {
                    let word = format!("'{i}");
                    iter.next();
                    flush_op(&mut pending_op, &mut out);
                    out.push(Atom::Word(word));
                } else {
                    pending_op.push('\'');
                }
            }
            TokenTree::Punct(p) => {
                pending_op.push(p.as_char());
                if p.spacing() == Spacing::Alone {
                    flush_op(&mut pending_op, &mut out);
                }
            }
            TokenTree::Ident(i) => {
                flush_op(&mut pending_op, &mut out);
                out.push(Atom::Word(i.to_string()));
            }
            TokenTree::Literal(l) => {
                flush_op(&mut pending_op, &mut out);
                out.push(Atom::Word(l.to_string()));
            }
            TokenTree::Group(g) => {
                flush_op(&mut pending_op, &mut out);
                let mut inner = String::new();
                write_tokens(g.stream(), &mut inner);
                let written = match g.delimiter() {
                    Delimiter::Parenthesis => format!("({inner})"),
                    Delimiter::Bracket => format!("[{inner}]"),
                    Delimiter::Brace => format!("{{ {inner} }}"),
                    Delimiter::None => inner,
                };
                out.push(Atom::Group(written));
            }
        }
    }
    flush_op(&mut pending_op, &mut out);
    out
}

fn flush_op(pending: &mut String, out: &mut Vec<Atom>) {
    if !pending.is_empty() {
        out.push(Atom::Op(std::mem::take(pending)));
    }
}

fn write_tokens(tokens: TokenStream, out: &mut String) {
    let atoms = atoms(tokens);
    for (i, atom) in atoms.iter().enumerate() {
        if i > 0 && space_between(&atoms[i - 1], atom) {
            out.push(' ');
        }
        match atom {
            Atom::Word(s) | Atom::Op(s) | Atom::Group(s) => out.push_str(s),
        }
    }
}

fn space_between(a: &Atom, b: &Atom) -> bool {
    const SPACED: [&str; 4] = ["->", "+", "=", "=>"];
    const KEYWORDS_BEFORE_GROUP: [&str; 6] = ["mut", "const", "dyn", "impl", "as", "for"];
    match (a, b) {
        (Atom::Op(x), _) if x == "," || x == ";" => true,
        (Atom::Op(x), _) | (_, Atom::Op(x)) if SPACED.contains(&x.as_str()) => true,
        (Atom::Word(_), Atom::Word(_)) => true,
        (Atom::Word(w), Atom::Group(_)) => KEYWORDS_BEFORE_GROUP.contains(&w.as_str()),
        (Atom::Group(_), Atom::Word(_)) => true,
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------
// Names derived from types.
// ---------------------------------------------------------------------------------------

/// `snake_case` of an identifier: `LruCache` → `lru_cache`, `HTTPServer` → `http_server`.
pub(crate) fn snake_case(ident: &str) -> String {
    let ident = ident.strip_prefix("r#").unwrap_or(ident);
    let chars: Vec<char> = ident.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1);
            let boundary = match prev {
                Some(p) => {
                    p.is_lowercase()
                        || p.is_ascii_digit()
                        || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
                }
                None => false,
            };
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The words that name a type, for a function name: `Cache<String, u32>` → `cache_string_u32`,
/// `crate::store::Registry` → `registry`, `Buf<4>` → `buf_4`.
pub(crate) fn snake_name(ty: &Type) -> String {
    let mut words = Vec::new();
    name_words(ty, &mut words);
    let joined = words.join("_");
    // Keep identifier characters only, without doubled or edge underscores.
    let mut out = String::new();
    for c in joined.chars() {
        let c = if c.is_alphanumeric() { c } else { '_' };
        if !(c == '_' && (out.is_empty() || out.ends_with('_'))) {
            out.push(c);
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

fn name_words(ty: &Type, out: &mut Vec<String>) {
    match ty {
        Type::Path(p) => {
            if let Some(q) = &p.qself {
                name_words(&q.ty, out);
            }
            if let Some(last) = p.path.segments.last() {
                out.push(snake_case(&last.ident.to_string()));
                if let PathArguments::AngleBracketed(args) = &last.arguments {
                    for arg in &args.args {
                        match arg {
                            GenericArgument::Type(t) => name_words(t, out),
                            GenericArgument::Const(c) => out.push(text(c)),
                            GenericArgument::AssocType(a) => name_words(&a.ty, out),
                            _ => {}
                        }
                    }
                }
            }
        }
        Type::Reference(r) => name_words(&r.elem, out),
        Type::Slice(s) => name_words(&s.elem, out),
        Type::Array(a) => {
            name_words(&a.elem, out);
            out.push(text(&a.len));
        }
        Type::Tuple(t) => t.elems.iter().for_each(|e| name_words(e, out)),
        Type::Paren(p) => name_words(&p.elem, out),
        Type::Group(g) => name_words(&g.elem, out),
        Type::Ptr(p) => name_words(&p.elem, out),
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------
// Shapes.
// ---------------------------------------------------------------------------------------

/// `ty` without parentheses and invisible groups.
pub(crate) fn peel(ty: &Type) -> &Type {
    match ty {
        Type::Paren(p) => peel(&p.elem),
        Type::Group(g) => peel(&g.elem),
        t => t,
    }
}

/// The last segment of a plain path type (`std::sync::Arc<T>` → `Arc<T>`).
pub(crate) fn last_segment(ty: &Type) -> Option<&PathSegment> {
    match peel(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

/// The type arguments of `ty` if it is a path whose last segment is `name`:
/// `generic_args(Result<Self, E>, "Result")` is `[Self, E]`.
pub(crate) fn generic_args<'a>(ty: &'a Type, name: &str) -> Option<Vec<&'a Type>> {
    let seg = last_segment(ty)?;
    if seg.ident != name {
        return None;
    }
    match &seg.arguments {
        PathArguments::AngleBracketed(a) => Some(
            a.args
                .iter()
                .filter_map(|arg| match arg {
                    GenericArgument::Type(t) => Some(t),
                    _ => None,
                })
                .collect(),
        ),
        _ => None,
    }
}

/// The single type argument of `Name<T>`.
pub(crate) fn single_arg<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    match generic_args(ty, name)?.as_slice() {
        [t] => Some(t),
        _ => None,
    }
}

/// Whether `ty` is the unit type `()`.
pub(crate) fn is_unit(ty: &Type) -> bool {
    matches!(peel(ty), Type::Tuple(t) if t.elems.is_empty())
}

/// Whether the tokens of `node` borrow: a `&` or a lifetime anywhere, other than `&'static`
/// and `'static`.
pub(crate) fn borrows<T: ToTokens>(node: &T) -> bool {
    fn is_static(tokens: &[TokenTree], i: usize) -> bool {
        matches!(
            (tokens.get(i), tokens.get(i + 1)),
            (Some(TokenTree::Punct(p)), Some(TokenTree::Ident(id))) if p.as_char() == '\'' && id == "static"
        )
    }
    fn scan(tokens: TokenStream) -> bool {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        tokens.iter().enumerate().any(|(i, tt)| match tt {
            TokenTree::Punct(p) if p.as_char() == '&' => !is_static(&tokens, i + 1),
            TokenTree::Punct(p) if p.as_char() == '\'' => !is_static(&tokens, i),
            TokenTree::Group(g) => scan(g.stream()),
            _ => false,
        })
    }
    scan(node.to_token_stream())
}

/// Whether the tokens of `node` mention the identifier `word` anywhere (`impl`, `dyn`, `_`).
pub(crate) fn mentions<T: ToTokens>(node: &T, word: &str) -> bool {
    fn scan(tokens: TokenStream, word: &str) -> bool {
        tokens.into_iter().any(|tt| match tt {
            TokenTree::Ident(i) => i == word,
            TokenTree::Group(g) => scan(g.stream(), word),
            _ => false,
        })
    }
    scan(node.to_token_stream(), word)
}

/// Whether the type is `_` somewhere (not allowed in signatures; left to rustc).
pub(crate) fn has_infer(ty: &Type) -> bool {
    struct Find(bool);
    impl VisitMut for Find {
        fn visit_type_mut(&mut self, ty: &mut Type) {
            if matches!(ty, Type::Infer(_)) {
                self.0 = true;
            }
            visit_mut::visit_type_mut(self, ty);
        }
    }
    let mut f = Find(false);
    f.visit_type_mut(&mut ty.clone());
    f.0
}

// ---------------------------------------------------------------------------------------
// Instantiation of a generic impl.
// ---------------------------------------------------------------------------------------

/// Replaces `Self` by the concrete type under test and the impl's generic parameters by the
/// arguments of `instantiate = ".."`.
pub(crate) struct Subst {
    pub(crate) self_ty: Type,
    pub(crate) params: Vec<(Ident, GenericArgument)>,
}

impl Subst {
    pub(crate) fn apply(&self, ty: &Type) -> Type {
        let mut ty = ty.clone();
        Replace(self).visit_type_mut(&mut ty);
        ty
    }

    fn lookup(&self, ident: &Ident) -> Option<&GenericArgument> {
        self.params
            .iter()
            .find(|(p, _)| p == ident)
            .map(|(_, arg)| arg)
    }

    /// The replacement type for a path's first segment, `Self` or a type parameter.
    fn head(&self, ident: &Ident) -> Option<Type> {
        if ident == "Self" {
            return Some(self.self_ty.clone());
        }
        match self.lookup(ident)? {
            GenericArgument::Type(t) => Some(t.clone()),
            _ => None,
        }
    }
}

struct Replace<'a>(&'a Subst);

impl VisitMut for Replace<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(tp) = ty {
            if tp.qself.is_none() && tp.path.leading_colon.is_none() {
                let first = &tp.path.segments[0];
                if matches!(first.arguments, PathArguments::None) {
                    if let Some(head) = self.0.head(&first.ident) {
                        if tp.path.segments.len() == 1 {
                            *ty = head;
                            return;
                        }
                        // `Self::Assoc` / `T::Assoc` → `<Head>::Assoc`.
                        let rest: Vec<&PathSegment> = tp.path.segments.iter().skip(1).collect();
                        *ty = syn::parse_quote!(<#head>#(::#rest)*);
                        visit_mut::visit_type_mut(self, ty);
                        return;
                    }
                }
            }
        }
        visit_mut::visit_type_mut(self, ty);
    }

    fn visit_generic_argument_mut(&mut self, arg: &mut GenericArgument) {
        // `Buf<N>` parses the const parameter `N` as a type.
        if let GenericArgument::Type(Type::Path(tp)) = arg {
            if let Some(ident) = tp.path.get_ident() {
                if let Some(c @ GenericArgument::Const(_)) = self.0.lookup(ident) {
                    *arg = c.clone();
                    return;
                }
            }
        }
        visit_mut::visit_generic_argument_mut(self, arg);
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // A const parameter in an array length: `[u8; N]`.
        if let Expr::Path(p) = expr {
            if let Some(ident) = p.path.get_ident() {
                match self.0.lookup(ident) {
                    Some(GenericArgument::Const(c)) => {
                        *expr = c.clone();
                        return;
                    }
                    Some(GenericArgument::Type(Type::Path(tp))) => {
                        *expr = Expr::Path(syn::ExprPath {
                            attrs: Vec::new(),
                            qself: None,
                            path: tp.path.clone(),
                        });
                        return;
                    }
                    _ => {}
                }
            }
        }
        visit_mut::visit_expr_mut(self, expr);
    }
}

/// Matches the impl's self type (`pattern`, mentioning the `params`) against a concrete type,
/// binding each parameter. The error says where they differ.
pub(crate) fn unify(
    pattern: &Type,
    actual: &Type,
    params: &[Ident],
    bound: &mut Vec<(Ident, GenericArgument)>,
) -> Result<(), String> {
    let (pattern, actual) = (peel(pattern), peel(actual));
    if let Type::Path(tp) = pattern {
        if let Some(ident) = tp.path.get_ident() {
            if params.contains(ident) {
                return bind(ident, GenericArgument::Type(actual.clone()), bound);
            }
        }
    }
    let mismatch = || {
        Err(format!(
            "`{}` does not fit `{}`",
            text(actual),
            text(pattern)
        ))
    };
    match (pattern, actual) {
        (Type::Path(p), Type::Path(a)) if p.qself.is_none() && a.qself.is_none() => {
            let (ps, as_) = match (p.path.segments.last(), a.path.segments.last()) {
                (Some(ps), Some(as_)) => (ps, as_),
                _ => return mismatch(),
            };
            if ps.ident != as_.ident {
                return mismatch();
            }
            let p_args = angle_args(ps);
            let a_args = angle_args(as_);
            if p_args.len() != a_args.len() {
                return Err(format!(
                    "`{}` takes {} generic argument{}, `{}` gives {}",
                    ps.ident,
                    p_args.len(),
                    if p_args.len() == 1 { "" } else { "s" },
                    text(actual),
                    a_args.len()
                ));
            }
            for (pa, aa) in p_args.into_iter().zip(a_args) {
                unify_arg(pa, aa, params, bound)?;
            }
            Ok(())
        }
        (Type::Reference(p), Type::Reference(a))
            if p.mutability.is_some() == a.mutability.is_some() =>
        {
            unify(&p.elem, &a.elem, params, bound)
        }
        (Type::Slice(p), Type::Slice(a)) => unify(&p.elem, &a.elem, params, bound),
        (Type::Array(p), Type::Array(a)) => {
            unify(&p.elem, &a.elem, params, bound)?;
            unify_expr(&p.len, &a.len, params, bound)
        }
        (Type::Tuple(p), Type::Tuple(a)) if p.elems.len() == a.elems.len() => {
            for (pe, ae) in p.elems.iter().zip(&a.elems) {
                unify(pe, ae, params, bound)?;
            }
            Ok(())
        }
        _ if text(pattern) == text(actual) => Ok(()),
        _ => mismatch(),
    }
}

fn angle_args(seg: &PathSegment) -> Vec<&GenericArgument> {
    match &seg.arguments {
        PathArguments::AngleBracketed(a) => a.args.iter().collect(),
        _ => Vec::new(),
    }
}

fn unify_arg(
    pattern: &GenericArgument,
    actual: &GenericArgument,
    params: &[Ident],
    bound: &mut Vec<(Ident, GenericArgument)>,
) -> Result<(), String> {
    match (pattern, actual) {
        (GenericArgument::Type(Type::Path(tp)), _)
            if tp.path.get_ident().is_some_and(|i| params.contains(i)) =>
        {
            let ident = tp.path.get_ident().expect("checked");
            bind(ident, actual.clone(), bound)
        }
        (GenericArgument::Type(p), GenericArgument::Type(a)) => unify(p, a, params, bound),
        (GenericArgument::Const(p), GenericArgument::Const(a)) => unify_expr(p, a, params, bound),
        (GenericArgument::AssocType(p), GenericArgument::AssocType(a)) if p.ident == a.ident => {
            unify(&p.ty, &a.ty, params, bound)
        }
        (p, a) if text(p) == text(a) => Ok(()),
        (p, a) => Err(format!("`{}` does not fit `{}`", text(a), text(p))),
    }
}

fn unify_expr(
    pattern: &Expr,
    actual: &Expr,
    params: &[Ident],
    bound: &mut Vec<(Ident, GenericArgument)>,
) -> Result<(), String> {
    if let Expr::Path(p) = pattern {
        if let Some(ident) = p.path.get_ident() {
            if params.contains(ident) {
                return bind(ident, GenericArgument::Const(actual.clone()), bound);
            }
        }
    }
    if text(pattern) == text(actual) {
        Ok(())
    } else {
        Err(format!(
            "`{}` does not fit `{}`",
            text(actual),
            text(pattern)
        ))
    }
}

fn bind(
    ident: &Ident,
    arg: GenericArgument,
    bound: &mut Vec<(Ident, GenericArgument)>,
) -> Result<(), String> {
    match bound.iter().find(|(i, _)| i == ident) {
        Some((_, earlier)) if text(earlier) != text(&arg) => Err(format!(
            "`{ident}` would be both `{}` and `{}`",
            text(earlier),
            text(&arg)
        )),
        Some(_) => Ok(()),
        None => {
            bound.push((ident.clone(), arg));
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn writes_types_naturally() {
        let cases: Vec<(Type, &str)> = vec![
            (parse_quote!(&str), "&str"),
            (parse_quote!(&'a mut [u8; 4]), "&'a mut [u8; 4]"),
            (parse_quote!(&'static str), "&'static str"),
            (parse_quote!(Vec<u8>), "Vec<u8>"),
            (parse_quote!(Option<&str>), "Option<&str>"),
            (parse_quote!(Cache<String, u32>), "Cache<String, u32>"),
            (parse_quote!(Vec<Vec<u8>>), "Vec<Vec<u8>>"),
            (
                parse_quote!(::std::sync::Arc<Self>),
                "::std::sync::Arc<Self>",
            ),
            (parse_quote!((u8, String)), "(u8, String)"),
            (parse_quote!(()), "()"),
            (parse_quote!(&mut (u8, u8)), "&mut (u8, u8)"),
            (parse_quote!(fn(u8) -> u8), "fn(u8) -> u8"),
            (
                parse_quote!(Box<dyn Fn(&str) -> bool + Send + 'static>),
                "Box<dyn Fn(&str) -> bool + Send + 'static>",
            ),
            (
                parse_quote!(impl Iterator<Item = u32>),
                "impl Iterator<Item = u32>",
            ),
            (parse_quote!(<T as Trait>::Out), "<T as Trait>::Out"),
            (parse_quote!(*const u8), "*const u8"),
            (parse_quote!(Buf<4>), "Buf<4>"),
            (parse_quote!(&&str), "&&str"),
            (
                parse_quote!(HashMap<String, Vec<(u8, char)>>),
                "HashMap<String, Vec<(u8, char)>>",
            ),
        ];
        for (ty, want) in cases {
            assert_eq!(text(&ty), want);
        }
    }

    #[test]
    fn snake_cases() {
        assert_eq!(snake_case("Registry"), "registry");
        assert_eq!(snake_case("LruCache"), "lru_cache");
        assert_eq!(snake_case("HTTPServer"), "http_server");
        assert_eq!(snake_case("Counter2D"), "counter2_d");
        assert_eq!(snake_case("u32"), "u32");
        assert_eq!(snake_case("r#Type"), "type");
        assert_eq!(snake_case("Already_Snake"), "already_snake");
    }

    #[test]
    fn snake_names() {
        let cases: Vec<(Type, &str)> = vec![
            (parse_quote!(Registry), "registry"),
            (parse_quote!(Cache<String, u32>), "cache_string_u32"),
            (
                parse_quote!(crate::store::LruCache<std::string::String, Vec<u8>>),
                "lru_cache_string_vec_u8",
            ),
            (parse_quote!(Buf<4>), "buf_4"),
            (
                parse_quote!(Grid<[u8; 3], (bool, char)>),
                "grid_u8_3_bool_char",
            ),
            (parse_quote!(Wrap<'static, &'static str>), "wrap_str"),
        ];
        for (ty, want) in cases {
            assert_eq!(snake_name(&ty), want);
        }
    }

    fn t(ty: &str) -> Type {
        syn::parse_str(ty).unwrap()
    }

    #[test]
    fn shapes() {
        let ty: Type = parse_quote!(std::result::Result<Self, io::Error>);
        assert_eq!(generic_args(&ty, "Result").unwrap().len(), 2);
        assert!(generic_args(&ty, "Option").is_none());
        let ty: Type = parse_quote!(Arc<Self>);
        assert_eq!(text(single_arg(&ty, "Arc").unwrap()), "Self");
        assert!(is_unit(&parse_quote!(())));
        assert!(!is_unit(&parse_quote!((u8,))));
        assert!(borrows(&t("Option<&str>")));
        assert!(borrows(&t("Cow<'a, str>")));
        assert!(borrows(&t("fn(&str)")));
        assert!(!borrows(&t("Option<&'static str>")));
        assert!(borrows(&t("&'a str")));
        assert!(!borrows(&t("Wrap<'static>")));
        assert!(!borrows(&t("Vec<String>")));
        assert!(mentions(&t("Box<impl Fn()>"), "impl"));
        assert!(!mentions(&t("Implement"), "impl"));
        assert!(has_infer(&t("Vec<_>")));
    }

    #[test]
    fn substitutes_self_and_parameters() {
        let subst = Subst {
            self_ty: parse_quote!(Cache<String, u32>),
            params: vec![
                (parse_quote!(K), GenericArgument::Type(parse_quote!(String))),
                (parse_quote!(V), GenericArgument::Type(parse_quote!(u32))),
                (parse_quote!(N), GenericArgument::Const(parse_quote!(4))),
            ],
        };
        let cases: Vec<(Type, &str)> = vec![
            (parse_quote!(&Self), "&Cache<String, u32>"),
            (parse_quote!(Option<(K, V)>), "Option<(String, u32)>"),
            (parse_quote!(Arc<Self>), "Arc<Cache<String, u32>>"),
            (parse_quote!(Self::Item), "<Cache<String, u32>>::Item"),
            (parse_quote!(K::Owned), "<String>::Owned"),
            (parse_quote!([V; N]), "[u32; 4]"),
            (parse_quote!(Buf<N>), "Buf<4>"),
            (parse_quote!(other::K), "other::K"),
            (parse_quote!(Vec<Kind>), "Vec<Kind>"),
        ];
        for (ty, want) in cases {
            assert_eq!(text(&subst.apply(&ty)), want);
        }
    }

    #[test]
    fn unifies_instantiation_with_self_type() {
        let params: Vec<Ident> = vec![parse_quote!(K), parse_quote!(V), parse_quote!(N)];
        let mut bound = Vec::new();
        unify(
            &parse_quote!(Cache<K, Vec<V>, N>),
            &parse_quote!(crate::Cache<String, Vec<u8>, 3>),
            &params,
            &mut bound,
        )
        .unwrap();
        let got: Vec<String> = bound
            .iter()
            .map(|(i, a)| format!("{i}={}", text(a)))
            .collect();
        assert_eq!(got, ["K=String", "V=u8", "N=3"]);

        let err = |p: Type, a: Type| unify(&p, &a, &params, &mut Vec::new()).unwrap_err();
        assert_eq!(
            err(parse_quote!(Cache<K, V>), parse_quote!(Cache<String>)),
            "`Cache` takes 2 generic arguments, `Cache<String>` gives 1"
        );
        assert_eq!(
            err(parse_quote!(Cache<K, V>), parse_quote!(Store<String, u8>)),
            "`Store<String, u8>` does not fit `Cache<K, V>`"
        );
        assert_eq!(
            err(parse_quote!(Cache<Vec<K>>), parse_quote!(Cache<Option<u8>>)),
            "`Option<u8>` does not fit `Vec<K>`"
        );
        assert_eq!(
            err(parse_quote!(Pair<K, K>), parse_quote!(Pair<u8, u16>)),
            "`K` would be both `u8` and `u16`"
        );
    }
}
