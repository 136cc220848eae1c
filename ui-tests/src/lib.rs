//! Nothing here: the trybuild cases are in `tests/ui/`, run by `tests/ui.rs`; the files in
//! `tests/ui/pass/` are also compiled with `cfg(test)` by `tests/generated_code_is_warning_free.rs`.
