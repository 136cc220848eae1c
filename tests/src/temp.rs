//! A temporary folder per test, for the tests that write files (the regressions file):
//! tests run in parallel, so each gets its own folder, set through the `Config` rather than
//! the process's environment.

use std::path::{Path, PathBuf};

/// A new empty folder under the system's temporary folder, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new folder whose name starts with `name`.
    ///
    /// # Panics
    /// If the folder cannot be made.
    pub fn new(name: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir =
            std::env::temp_dir().join(format!("threadsafe-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder can be made");
        TempDir(dir)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
