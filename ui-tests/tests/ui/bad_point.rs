// `point!` takes a string literal: a variable, a path or nothing is a compile error that
// shows the expected form.
fn main() {
    let name = "after_len";
    threadsafe_rt::point!(name);
    threadsafe_rt::point!();
    threadsafe_rt::point!("a", "b");
}
