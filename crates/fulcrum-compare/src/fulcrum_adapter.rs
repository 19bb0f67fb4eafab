//! fulcrum's place in the comparison.
//!
//! TODO(lead): once `fulcrum_bench::fulcrum_engine::FulcrumEngine` exists (the fulcrum
//! adapter implementing `fulcrum_bench::BenchEngine`), replace the body of [`fulcrum_entry`]
//! with:
//!
//! ```ignore
//! use fulcrum_bench::fulcrum_engine::FulcrumEngine;
//! Some(crate::EngineEntry::of::<FulcrumEngine>())
//! ```
//!
//! Nothing else in this crate needs to change: `main.rs` runs every entry it is given,
//! alternating engines per repeat, and prints the fulcrum/rapier3d ratio whenever both ran.

use crate::EngineEntry;

/// The fulcrum engine entry, or `None` while the fulcrum adapter is not written yet (the
/// binary then runs rapier3d alone).
pub fn fulcrum_entry() -> Option<EngineEntry> {
    None
}
