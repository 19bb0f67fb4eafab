//! `fulcrum bench`: a stub until the benchmark crate is wired in.

/// Prints that the benchmark is not wired yet.
pub fn bench() -> Result<(), String> {
    crate::print_out("bench: not wired yet\n")
}
