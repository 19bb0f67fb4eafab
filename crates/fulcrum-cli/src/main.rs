//! The `fulcrum` command line tool.

fn main() {
    println!("fulcrum {}", env!("CARGO_PKG_VERSION"));
}
