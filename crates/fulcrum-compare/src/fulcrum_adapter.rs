//! fulcrum's place in the comparison: the adapter lives in `fulcrum_bench::fulcrum_engine`,
//! shared with `fulcrum bench`.

use crate::EngineEntry;
use fulcrum_bench::fulcrum_engine::FulcrumEngine;

/// The fulcrum engine entry.
pub fn fulcrum_entry() -> Option<EngineEntry> {
    Some(EngineEntry::of::<FulcrumEngine>())
}
