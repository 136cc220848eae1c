//! What `#[thread_safe]` costs a user's build: a scratch crate with `--types` registries of
//! ten methods each, compiled from clean as `cargo test` compiles it (`cargo test --no-run
//! --lib`), three ways: without the attribute, with it on synchronous methods, and with it
//! on the same methods written as `async fn`. Debug and release; the variants run in turns,
//! `--runs` times each, and the table shows each one's median and what one annotated impl
//! adds to the plain crate's build.
//!
//! Only the scratch crate is rebuilt: its dependencies (`threadsafe-rt` and the attribute)
//! are built once per profile in a target folder of its own, before the first timed run.
//!
//! ```sh
//! cargo run --release -p threadsafe-bench --example compile_cost
//! cargo run --release -p threadsafe-bench --example compile_cost -- --types 4 --runs 5
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use threadsafe_bench::cli::settings_or_exit;
use threadsafe_bench::median;

/// What `--help` prints.
const USAGE: &str = "\
usage: compile_cost [--types N] [--runs N] [--profiles debug,release]

  --types N     annotated types in the scratch crate (default 2)
  --runs N      timed builds of each variant and profile, in turns (default 3)
  --profiles P  debug, release or both (default both)
";

/// The three ways the scratch crate is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    Plain,
    Annotated,
    Async,
}

impl Variant {
    const ALL: [Variant; 3] = [Variant::Plain, Variant::Annotated, Variant::Async];

    fn name(self) -> &'static str {
        match self {
            Variant::Plain => "without the attribute",
            Variant::Annotated => "#[thread_safe], sync methods",
            Variant::Async => "#[thread_safe], async methods",
        }
    }

    fn folder(self) -> &'static str {
        match self {
            Variant::Plain => "plain",
            Variant::Annotated => "annotated",
            Variant::Async => "async",
        }
    }
}

/// One registry type of the scratch crate, numbered `i`, written as `variant` says.
fn registry(i: usize, variant: Variant) -> String {
    let attribute = match variant {
        Variant::Plain => "",
        _ => "#[threadsafe_rt::thread_safe]\n",
    };
    let asyncness = if variant == Variant::Async {
        "async "
    } else {
        ""
    };
    format!(
        "pub struct Registry{i} {{
    map: std::sync::Mutex<std::collections::HashMap<String, u32>>,
}}

impl Default for Registry{i} {{
    fn default() -> Self {{
        Registry{i}::new()
    }}
}}

{attribute}impl Registry{i} {{
    pub fn new() -> Self {{
        Registry{i} {{ map: std::sync::Mutex::new(std::collections::HashMap::new()) }}
    }}
    pub fn with_capacity(n: u8) -> Self {{
        Registry{i} {{ map: std::sync::Mutex::new(std::collections::HashMap::with_capacity(n.into())) }}
    }}
    pub {asyncness}fn insert(&self, k: String, v: u32) -> Option<u32> {{
        self.map.lock().unwrap().insert(k, v)
    }}
    pub {asyncness}fn get(&self, k: &str) -> Option<u32> {{
        self.map.lock().unwrap().get(k).copied()
    }}
    pub {asyncness}fn remove(&self, k: &str) -> Option<u32> {{
        self.map.lock().unwrap().remove(k)
    }}
    pub {asyncness}fn contains(&self, k: &str) -> bool {{
        self.map.lock().unwrap().contains_key(k)
    }}
    pub {asyncness}fn len(&self) -> usize {{
        self.map.lock().unwrap().len()
    }}
    pub {asyncness}fn is_empty(&self) -> bool {{
        self.map.lock().unwrap().is_empty()
    }}
    pub {asyncness}fn total(&self) -> u64 {{
        self.map.lock().unwrap().values().map(|v| u64::from(*v)).sum()
    }}
    pub {asyncness}fn bump(&self, k: &str, by: u32) -> u32 {{
        let mut map = self.map.lock().unwrap();
        let v = map.entry(k.to_string()).or_insert(0);
        *v = v.wrapping_add(by);
        *v
    }}
}}
"
    )
}

/// Writes the scratch crate of `variant` under `root`; its folder.
fn write_crate(root: &Path, variant: Variant, types: usize, runtime: &Path) -> PathBuf {
    let dir = root.join(variant.folder());
    std::fs::create_dir_all(dir.join("src")).expect("the scratch folder can be made");
    let manifest = format!(
        "[package]\nname = \"compile-cost-{}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nthreadsafe-rt = {{ path = {:?} }}\n\n[workspace]\n",
        variant.folder(),
        runtime.display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("the manifest can be written");
    let mut lib = String::from("//! Written by the compile_cost example.\n\n");
    for i in 0..types {
        writeln!(lib, "{}", registry(i, variant)).expect("a String takes it");
    }
    std::fs::write(dir.join("src/lib.rs"), lib).expect("the source can be written");
    dir
}

/// `cargo <args>` in `dir` with the shared target folder; how long it took.
fn cargo(dir: &Path, target: &Path, args: &[&str]) -> Duration {
    let start = Instant::now();
    let status = Command::new(env!("CARGO"))
        .args(args)
        .arg("--target-dir")
        .arg(target)
        .current_dir(dir)
        .env_remove("RUSTFLAGS")
        .env("CARGO_INCREMENTAL", "0")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("cargo runs");
    assert!(
        status.success(),
        "cargo {args:?} in {} failed",
        dir.display()
    );
    start.elapsed()
}

/// One clean build of the scratch crate's test target.
fn clean_build(dir: &Path, target: &Path, variant: Variant, release: bool) -> Duration {
    let package = format!("compile-cost-{}", variant.folder());
    let profile: &[&str] = if release { &["--release"] } else { &[] };
    let mut clean = vec!["clean", "-p", package.as_str()];
    clean.extend(profile);
    cargo(dir, target, &clean);
    let mut build = vec!["test", "--no-run", "--lib"];
    build.extend(profile);
    cargo(dir, target, &build)
}

fn main() {
    let (types, runs, profiles) = settings_or_exit(
        "compile_cost",
        USAGE,
        &["--types", "--runs", "--profiles"],
        &[],
        |o| {
            let profiles = o.get("--profiles", |v| match v.trim() {
                "both" | "debug,release" => Ok(vec![false, true]),
                "debug" => Ok(vec![false]),
                "release" => Ok(vec![true]),
                _ => Err("expected debug, release or both".to_string()),
            })?;
            Ok((
                o.count("--types", 2)?,
                o.count("--runs", 3)?,
                profiles.unwrap_or_else(|| vec![false, true]),
            ))
        },
    );

    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the bench crate is in the workspace")
        .to_path_buf();
    let root = workspace.join("target/compile-cost");
    let target = root.join("target");
    let runtime = workspace.join("threadsafe-rt");
    let dirs: Vec<(Variant, PathBuf)> = Variant::ALL
        .iter()
        .map(|&v| (v, write_crate(&root, v, types, &runtime)))
        .collect();

    println!(
        "compile_cost: {types} type(s) of 10 methods, `cargo test --no-run --lib` from clean, {runs} run(s) each, in turns"
    );
    let mut rows = Vec::new();
    for &release in &profiles {
        let profile = if release { "release" } else { "debug" };
        // The dependencies, once, untimed.
        for (v, dir) in &dirs {
            clean_build(dir, &target, *v, release);
        }
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); dirs.len()];
        for run in 0..runs {
            for k in 0..dirs.len() {
                let i = (k + run) % dirs.len();
                let (v, dir) = &dirs[i];
                let t = clean_build(dir, &target, *v, release).as_secs_f64();
                eprintln!("  {profile} run {} {}: {t:.2} s", run + 1, v.name());
                times[i].push(t);
            }
        }
        let plain = median(&times[0]).expect("at least one run");
        for ((v, _), t) in dirs.iter().zip(&times) {
            let m = median(t).expect("at least one run");
            let per_impl = (*v != Variant::Plain).then(|| (m - plain) / types as f64);
            rows.push((profile, v.name(), m, per_impl));
        }
    }
    println!();
    println!("| profile | crate | median build | per annotated impl |");
    println!("|---|---|---|---|");
    for (profile, name, m, per_impl) in rows {
        let per_impl = per_impl.map_or("—".to_string(), |p| format!("{p:.2} s"));
        println!("| {profile} | {name} | {m:.2} s | {per_impl} |");
    }
}
