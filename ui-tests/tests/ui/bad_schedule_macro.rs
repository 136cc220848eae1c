// `schedule!` joins locations with `->`: commas, a trailing arrow or a bare expression are
// compile errors that show the expected form.
fn main() {
    let _ = threadsafe_rt::schedule!("a: x", "b: y");
    let _ = threadsafe_rt::schedule!("a: x" ->);
    let _ = threadsafe_rt::schedule!("a: x" -> format!("b: {}", 1));
}
