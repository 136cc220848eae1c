use proc_macro::TokenStream; #[proc_macro_attribute] pub fn thread_safe(_a: TokenStream, i: TokenStream) -> TokenStream { i }
