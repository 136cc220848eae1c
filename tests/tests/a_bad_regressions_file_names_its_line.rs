//! A regressions file that cannot be read stops the check with a message that names the
//! file, the line and what is wrong; it is never skipped in silence. Each
//! `regressions/<case>.txt` is put in place as `StringBuffer`'s file, and the report must be
//! `regressions/<case>.expected` exactly (the temporary folder written `$DIR`).
//! `UPDATE_SNAPSHOTS=1 cargo test -p threadsafe-tests --test a_bad_regressions_file_names_its_line`
//! rewrites the expected reports.

use std::path::Path;
use std::time::Duration;

use threadsafe_corpus::contege::sync_locks::string_buffer::StringBuffer;
use threadsafe_rt::{check, Config, Verdict};
use threadsafe_tests::temp::TempDir;

#[test]
fn each_bad_file_gives_its_expected_report() {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut inputs: Vec<_> = std::fs::read_dir(&cases)
        .expect("the cases folder")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 3, "cases in {}", cases.display());
    let mut stale = Vec::new();
    for input in inputs {
        let dir = TempDir::new("regressions-bad");
        let folder = dir.path().join("threadsafe-regressions");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::copy(&input, folder.join("StringBuffer.txt")).unwrap();
        let mut config = Config::default();
        config.budget = Duration::from_secs(10);
        config.regressions = Some(folder);
        let report = check::<StringBuffer>(&config);
        assert!(
            matches!(report.verdict, Verdict::CannotCheck(_)),
            "{}: {report}",
            input.display()
        );
        assert_eq!(report.tests, 0, "nothing ran: {report}");
        let shown = report
            .to_string()
            .replace(&dir.path().display().to_string(), "$DIR");
        let expected = input.with_extension("expected");
        if update {
            std::fs::write(&expected, &shown).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&expected).unwrap_or_default();
        if want != shown {
            stale.push(format!(
                "{}:\n--- expected\n{want}--- got\n{shown}",
                input.display()
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "{}\n(UPDATE_SNAPSHOTS=1 rewrites the expected reports)",
        stale.join("\n")
    );
}
