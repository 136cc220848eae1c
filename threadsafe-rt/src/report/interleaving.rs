//! A controlled execution's steps as a table, for the report.

use super::rust::method_at;
use crate::point::{Step, Where};
use crate::subject::Description;
use crate::testcase::{Scope, TestCase};

/// The steps of a controlled execution as a table: consecutive steps of one thread in one
/// call are collapsed into a row.
pub(crate) fn render_interleaving<T>(
    desc: &Description<T>,
    test: &TestCase,
    trace: &[Step],
) -> String {
    let mut rows: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for step in trace {
        let op = match step.at {
            Where::Statement(p) => format!("line {}", p.line),
            Where::Code(l) => format!(
                "{} at {}:{}",
                step.op.name(),
                short_file(l.file()),
                l.line()
            ),
        };
        match rows.last_mut() {
            Some((t, c, ops)) if *t == step.thread && *c == step.call => ops.push(op),
            _ => rows.push((step.thread, step.call, vec![op])),
        }
    }
    let mut out = String::new();
    for (t, c, ops) in rows {
        let method = method_at(desc, test, Scope::Thread(t), c);
        let shown: Vec<&str> = ops.iter().take(6).map(String::as_str).collect();
        let more = if ops.len() > 6 {
            format!(", … (+{})", ops.len() - 6)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "    thread {}  {:<20} {}{more}\n",
            t + 1,
            format!("{method}()"),
            shown.join(", ")
        ));
    }
    out
}

fn short_file(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
}
