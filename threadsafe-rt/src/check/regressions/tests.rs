use std::time::Duration;

use super::file::{append, path, read};
use super::format::{
    header, ArgValue, ControlledRun, Entry, File, NamedArg, NamedCall, NamedOut, NamedTest,
    Settings,
};
use super::parse::parse;
use crate::config::{Config, Executor, Guide, ScheduleMode, Strategy};
use crate::report::Written;

fn arg(param: &str, ty: &str, value: ArgValue) -> NamedArg {
    NamedArg {
        param: param.to_string(),
        ty: ty.to_string(),
        value,
    }
}

fn call(out: NamedOut, receiver: Option<usize>, name: &str, args: Vec<NamedArg>) -> NamedCall {
    NamedCall {
        out,
        receiver,
        name: name.to_string(),
        args,
        cancel: None,
    }
}

/// Two entries with every kind of value, types full of brackets, commas, arrows and `=`, a
/// pattern for a parameter, non-default settings, and with and without a schedule.
fn entries() -> Vec<Entry> {
    let prefix = vec![
        call(
            NamedOut::Instance(0),
            None,
            "with_capacity",
            vec![arg("n", "usize", ArgValue::Seed(u64::MAX))],
        ),
        call(NamedOut::Instance(1), None, "new", vec![]),
        call(
            NamedOut::Var(0),
            Some(0),
            "snapshot",
            vec![arg(
                "(a, b)",
                "(HashMap<String, Vec<(u8, [u16; 4])>>, fn(u8) -> u8)",
                ArgValue::Seed(0),
            )],
        ),
        call(
            NamedOut::None,
            Some(1),
            "r#merge",
            vec![
                arg("other", "&Registry", ArgValue::Instance(0)),
                arg(
                    "keys",
                    "Box<dyn Iterator<Item = String>>",
                    ArgValue::PrefixVar(0),
                ),
            ],
        ),
    ];
    let thread = |k: u64| {
        vec![
            call(
                NamedOut::Var(0),
                Some(0),
                "insert",
                vec![
                    arg("k", "String", ArgValue::Seed(k)),
                    arg("v", "u32", ArgValue::PrefixVar(0)),
                ],
            ),
            NamedCall {
                cancel: Some(2),
                ..call(
                    NamedOut::None,
                    Some(1),
                    "remove",
                    vec![arg("k", "&str", ArgValue::OwnVar(0))],
                )
            },
        ]
    };
    let first = Entry {
        seed: 7,
        settings: Settings::of(&Config::default()),
        failure: "panic in thread 2, in `insert`, at src/lib.rs:3:9: a message\nover two lines"
            .to_string(),
        test: NamedTest {
            prefix,
            threads: vec![thread(1), thread(2), thread(3)],
            post: vec![call(NamedOut::Var(0), Some(0), "len", vec![])],
        },
        schedule: Some(ControlledRun {
            batch: 0x9E37_79B9_7F4A_7C15,
            execution: 41,
        }),
    };
    let mut settings = Settings::of(&Config::default());
    settings.conc_execs = 4;
    settings.post_calls = 0;
    settings.prefixes = 3;
    settings.schedule = ScheduleMode::Controlled;
    settings.strategy = Strategy::Pct { depth: 2 };
    settings.guide = Guide::Pairs;
    settings.executor = Executor::Paper;
    settings.results = false;
    settings.deadlock_timeout = Some(Duration::from_nanos(1_500_000_001));
    let second = Entry {
        seed: 0,
        settings,
        failure: String::new(),
        test: NamedTest {
            prefix: vec![call(NamedOut::Instance(0), None, "new", vec![])],
            threads: vec![
                vec![call(NamedOut::None, Some(0), "a", vec![])],
                vec![call(NamedOut::None, Some(0), "b", vec![])],
            ],
            post: Vec::new(),
        },
        schedule: None,
    };
    vec![first, second]
}

fn file_text(entries: &[Entry]) -> String {
    let mut text = header("Registry<String, u32>");
    for e in entries {
        text.push('\n');
        text.push_str(&e.to_string());
    }
    text
}

#[test]
fn a_file_reads_back_as_written() {
    let written = entries();
    let text = file_text(&written);
    let file = parse(&text).unwrap_or_else(|e| panic!("{e:?} in:\n{text}"));
    assert_eq!(file.type_name, "Registry<String, u32>");
    let read: Vec<Entry> = file.entries.iter().map(|(_, e)| e.clone()).collect();
    let mut expected = written.clone();
    // The failure is for reading, on one line.
    expected[0].failure = expected[0].failure.replace('\n', " ");
    assert_eq!(read, expected);
    for (line, _) in &file.entries {
        assert_eq!(text.lines().nth(line - 1), Some("entry"), "line {line}");
    }
    // Written again, the same text.
    assert_eq!(
        file_text(&read),
        text.replace("message\nover", "message over")
    );
}

#[test]
fn the_format_reads_as_documented() {
    let text = "\
# a comment
threadsafe-regressions 1
type Stack

entry
  seed: 7
  settings: threads=2 conc_execs=100 schedule=auto strategy=random guide=random executor=workers results=true
  failure: panic in thread 2, in `pop`, at src/lib.rs:11:38: checked non-empty
  prefix:
    i0 = new()
    i0.push(v: u32 = seed 1234)
  thread 1:
    v0 = i0.pop()
  thread 2:
    # comments go anywhere
    v0 = i0.pop()
  schedule: batch 993412 execution 12
end
";
    let file = parse(text).unwrap();
    let (line, e) = &file.entries[0];
    assert_eq!(*line, 5);
    assert_eq!(e.test.prefix[1].args[0].value, ArgValue::Seed(1234));
    assert_eq!(e.test.threads[1][0].out, NamedOut::Var(0));
    assert_eq!(
        e.schedule,
        Some(ControlledRun {
            batch: 993412,
            execution: 12
        })
    );
    assert_eq!(e.settings, Settings::of(&Config::default()));
    assert_eq!(parse("# nothing yet\n\n").unwrap().entries, Vec::new());
    // Files written before the executor's word was `workers` say `stress`: still read.
    let older = parse(&text.replace("executor=workers", "executor=stress")).unwrap();
    assert_eq!(older.entries[0].1.settings, e.settings);
}

/// Each mistake is reported at its line, saying what is wrong.
#[test]
fn a_bad_file_names_the_line_and_the_mistake() {
    let good = file_text(&entries()[1..]);
    // The lines of the format and the type, then of the entry (with no `failure:`).
    let h = header("Registry<String, u32>").lines().count();
    let e = h + 2;
    let cases: Vec<(&str, &str, usize, String)> = vec![
        ("threadsafe-regressions 1", "threadsafe-regressions 2", h - 1, "the file is in version 2 of the format, and this threadsafe reads version 1: update threadsafe".into()),
        ("threadsafe-regressions 1", "proptest 1", h - 1, "expected `threadsafe-regressions 1` (the format and its version) first, found `proptest 1`: this is not a threadsafe regressions file".into()),
        ("threadsafe-regressions 1", "threadsafe-regressions one", h - 1, "`threadsafe-regressions one` names no version of the format: expected `threadsafe-regressions 1`".into()),
        ("type Registry<String, u32>", "kind X", h, "expected `type <name>` (the checked type), found `kind X`".into()),
        ("\nentry\n", "\nentree\n", e, "expected `entry` (the start of an entry), found `entree`".into()),
        ("  seed: 0", "  seed: -1", e + 1, "`seed: -1`: the seed is an unsigned 64-bit integer".into()),
        ("  seed: 0", "  seed: 0\n  seed: 1", e + 2, format!("a second `seed:` in the entry of line {e}")),
        ("conc_execs=4", "conc_execs=0", e + 2, "setting `conc_execs`: `0` is not a positive count".into()),
        ("conc_execs=4", "conc_execs=4 speed=9", e + 2, "unknown setting `speed`; the settings are threads, conc_execs, schedule, strategy, guide, executor, results, prefixes, suffixes, state_changer_tries, cut_call_tries, post_calls and deadlock_timeout".into()),
        ("conc_execs=4", "conc_execs=4 conc_execs=5", e + 2, "setting `conc_execs` is given twice".into()),
        ("strategy=pct2", "strategy=bfs", e + 2, "setting `strategy`: `\"bfs\"` is not a strategy: write `\"random\"` (the default), `\"pct\"` (bug depth 3) or `\"pct\"` and a bug depth of at least 1, e.g. `\"pct2\"`, or `\"dfs\"` (at most 2 preemptions) or `\"dfs\"` and a bound on preemptions, e.g. `\"dfs3\"`".into()),
        ("results=false", "results=no", e + 2, "setting `results`: `no` is not `true` or `false`".into()),
        ("  thread 1:", "  tread 1:", e + 5, "`tread 1:` is not a field of an entry: the fields are `seed:`, `settings:`, `failure:`, `prefix:`, `thread N:`, `post:`, `schedule:`".into()),
        ("  thread 1:", "  thread 1:\n  i0 .a()", e + 6, "`i0 .a()` is not a call: write `[out =] [iN.]name(param: type = value, ...)`".into()),
        ("  prefix:", "  failure: x\n  oops\n  prefix:", e + 4, "expected a field (`seed:`, `settings:`, `failure:`, `prefix:`, `thread N:`, `post:`, `schedule:`) or `end`, found `oops`".into()),
        ("  thread 2:", "  thread 3:", e + 7, "`thread 3:` where `thread 2:` was expected (the threads are numbered from 1, in order)".into()),
        ("  prefix:\n    i0 = new()\n", "", e + 3, "`thread 1:` comes after `prefix:` and before `post:`".into()),
        ("  prefix:", "  prefix: i0 = new()", e + 3, "`prefix:` is followed by calls on the lines below, not by `i0 = new()`".into()),
        ("i0.b()", "i1.b()", e + 8, "`i1` is used before the prefix makes it".into()),
        ("i0.b()", "i0.b(x: u8 = 5)", e + 8, "`x: u8 = 5` in `i0.b(x: u8 = 5)` is not an argument: write `param: type = value`, the value `seed N`, `iN`, `pN` or `vN`".into()),
        ("i0.b()", "i0.b(", e + 8, "`i0.b(` is not a call: write `[out =] [iN.]name(param: type = value, ...)`".into()),
        ("i0.b()", "i0.b(x: Vec<u8 = seed 1)", e + 8, "`i0.b(x: Vec<u8 = seed 1)` is not a call: write `[out =] [iN.]name(param: type = value, ...)`".into()),
        ("i0.b()", "v1 = i0.b()", e + 8, "`v1 =` where `v0 =` was expected (outputs are numbered from 0, in order)".into()),
        ("i0.b()", "i0.b(k: &str = v0)", e + 8, "`v0` is used before this part makes it".into()),
        ("i0.b()", "i0.b(k: &str = p0)", e + 8, "`p0` is used before the prefix makes it".into()),
        ("i0.b()", "i0.b() cancelled at 0", e + 8, "`i0.b() cancelled at 0`: `cancelled at` takes a suspension's number, 1 or more, not `0`".into()),
        ("i0.b()", "i0.b() cancelled at two", e + 8, "`i0.b() cancelled at two`: `cancelled at` takes a suspension's number, 1 or more, not `two`".into()),
        ("i0.b()", "i0 = i0.b()", e + 8, "`i0 =`: instances are made in the prefix only".into()),
        ("i0.b()", "new()", e + 8, "`new(..)` has no receiver: constructors are called in the prefix only".into()),
        ("i0 = new()", "new()", e + 4, "`new(..)` has no receiver, so it is a constructor: write `i0 = new(..)`".into()),
        ("i0 = new()", "v0 = i0.new()", e + 4, "`v0 =`: the prefix's outputs are `p0`, `p1`, ...".into()),
        ("end\n", "\n", e, "the entry is not closed: `end` is missing".into()),
        ("end\n", "entry\n", e + 9, format!("`entry` inside the entry of line {e}: its `end` is missing")),
        ("  seed: 0\n", "", e, "the entry has no `seed:`".into()),
        ("end\n", "  schedule: batch x execution 1\nend\n", e + 9, "`schedule: batch x execution 1`: expected `schedule: batch <seed> execution <number>`".into()),
    ];
    for (from, to, line, message) in &cases {
        assert!(good.contains(from), "{from:?} not in:\n{good}");
        let bad = good.replacen(from, to, 1);
        let err = parse(&bad).expect_err(&bad);
        assert_eq!(
            (err.line, err.message.as_str()),
            (*line, message.as_str()),
            "in:\n{bad}"
        );
    }
}

#[test]
fn file_names_are_the_type_made_file_safe() {
    let dir = std::path::Path::new("/r");
    for (name, file) in [
        ("Stack", "Stack.txt"),
        ("Cache<String, u32>", "Cache_String_u32.txt"),
        ("Pool<'a, [u8; 4]>", "Pool_a_u8_4.txt"),
        ("<>", "_.txt"),
    ] {
        assert_eq!(path(dir, name), dir.join(file), "{name}");
    }
}

/// A temporary folder of its own, removed at the end.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir =
            std::env::temp_dir().join(format!("threadsafe-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn entries_are_appended_once_each_at_the_line_reported() {
    let tmp = TempDir::new("append");
    let path = tmp.0.join("deeper").join("Registry.txt");
    let [first, second] = <[Entry; 2]>::try_from(entries()).unwrap();
    let mut first = first;
    first.failure = first.failure.replace('\n', " ");
    let line = header("Registry").lines().count() + 2;
    assert_eq!(append(&path, "Registry", &first), Written::Appended(line));
    assert_eq!(
        append(&path, "Registry", &first),
        Written::AlreadyThere(line)
    );
    let Written::Appended(second_line) = append(&path, "Registry", &second) else {
        panic!("not appended");
    };
    let file: File = read(&path, "Registry").unwrap();
    let lines: Vec<usize> = file.entries.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [line, second_line]);
    assert_eq!(file.entries[0].1, first);
    assert_eq!(file.entries[1].1, second);
    assert_eq!(
        std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
        1,
        "no temporary file left behind"
    );
    let e = read(&path, "Other").unwrap_err();
    assert!(
        e.contains("it holds the entries of `Registry`, not of `Other`"),
        "{e}"
    );
}
