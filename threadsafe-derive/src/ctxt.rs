//! Error accumulation: every pass records its errors here and goes on, so the user sees every
//! problem of the attribute and the impl block at once (as serde's `internals/ctxt.rs`).

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

/// Collects the compile errors of one expansion.
#[derive(Default)]
pub(crate) struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt::default()
    }

    /// An error spanning the tokens of `node` (from its first token to its last).
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, node: T, msg: M) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(node.into_token_stream(), msg));
    }

    pub(crate) fn syn_error(&self, err: syn::Error) {
        self.errors.borrow_mut().push(err);
    }

    /// Records each error of a (possibly multiple) darling error.
    pub(crate) fn darling_error(&self, err: darling::Error) {
        self.syn_error(err.into());
    }

    pub(crate) fn has_errors(&self) -> bool {
        !self.errors.borrow().is_empty()
    }

    /// All errors as one `syn::Error` (rendered as one `compile_error!` each), or `Ok`.
    pub(crate) fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.into_inner().into_iter();
        match errors.next() {
            None => Ok(()),
            Some(mut first) => {
                first.extend(errors);
                Err(first)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_every_error() {
        let cx = Ctxt::new();
        assert!(!cx.has_errors());
        cx.syn_error(syn::Error::new(proc_macro2::Span::call_site(), "one"));
        cx.error_spanned_by(quote::quote!(a b), "two");
        cx.darling_error(darling::Error::multiple(vec![
            darling::Error::custom("three"),
            darling::Error::custom("four"),
        ]));
        let err = cx.check().unwrap_err();
        let msgs: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(msgs, ["one", "two", "three", "four"]);
    }
}
