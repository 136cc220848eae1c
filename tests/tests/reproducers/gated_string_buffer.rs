// Generated: the gated test of a violation of the StringBuffer port (seed 0).
use threadsafe_corpus::contege::sync_locks::string_buffer::StringBuffer;

/// Found by threadsafe (seed 0): panic in thread 2, in `insert`, at corpus/src/contege/both_locks/string_buffer.rs:67:35: index out of bounds: the len is 0 but the index is 0.
/// The gates hold each thread where the failing controlled run switched away from it.
pub fn string_buffer_gated() {
    let cut = StringBuffer::with_text("é");
    let cut1 = StringBuffer::new();
    let v0 = cut1.len();
    let schedule = threadsafe_rt::schedule!(
        "t1: lock@corpus/src/contege/both_locks/string_buffer.rs:75#1"
        -> "t2: lock@corpus/src/contege/both_locks/string_buffer.rs:49#1"
        -> "t2: lock@corpus/src/contege/both_locks/string_buffer.rs:67#1"
        -> "t1: lock@corpus/src/contege/both_locks/string_buffer.rs:75#1"
        -> "t1: end"
        -> "t2: lock@corpus/src/contege/both_locks/string_buffer.rs:67#1"
    );
    let outcome = threadsafe_rt::gates::run(schedule, |s| {
        s.spawn("t1", || {
            let _ = cut.delete_char_at(0usize);
        });
        s.spawn("t2", || {
            cut1.insert(v0, &cut);
        });
    });
    outcome.unwrap();
}
