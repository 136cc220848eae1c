//! Time to bug on the corpus: the tool, its paper mode and a naive stress test, and the
//! experiments compared with them; see [`threadsafe_bench::time_to_bug`] and `--help`.
//!
//! ```sh
//! cargo bench -p threadsafe-bench --bench time_to_bug -- --quick   # the CI smoke run
//! ```

fn main() -> std::process::ExitCode {
    threadsafe_bench::time_to_bug::main()
}
