//! The snapshot files of `fulcrum run --snapshot-out` / `--resume`: the world's snapshot
//! ([`World::snapshot`]) and the scene's names ([`SceneIndex`]), so that a resumed run writes
//! the same trajectory lines as a run that never stopped.
//!
//! Layout: `MAGIC`, the world snapshot's length (u64 LE), the world snapshot, then the index
//! as JSON text.

use std::path::Path;

use fulcrum::{SceneIndex, World};

/// The first bytes of a run snapshot file.
const MAGIC: &[u8; 8] = b"FULCRUN\x01";

/// Writes `world` and `index` to `path`.
pub fn write(path: &Path, world: &World, index: &SceneIndex) -> Result<(), String> {
    let state = world.snapshot();
    let names = serde_json::to_vec(index).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bytes = Vec::with_capacity(MAGIC.len() + 8 + state.len() + names.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(state.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&state);
    bytes.extend_from_slice(&names);
    std::fs::write(path, bytes).map_err(|e| format!("{}: cannot write the file: {e}", path.display()))
}

/// Reads a file [`write`] wrote; every failure names the file and the reason.
pub fn read(path: &Path) -> Result<(World, SceneIndex), String> {
    let fail = |reason: String| format!("{}: {reason}", path.display());
    let bytes = std::fs::read(path).map_err(|e| fail(format!("cannot read the file: {e}")))?;
    let (state, names) = split(&bytes).map_err(fail)?;
    let world = World::restore(state).map_err(|e| fail(e.to_string()))?;
    let index = serde_json::from_slice(names).map_err(|e| fail(format!("the scene's names do not decode: {e}")))?;
    Ok((world, index))
}

/// The world snapshot and the index text of a run snapshot file.
fn split(bytes: &[u8]) -> Result<(&[u8], &[u8]), String> {
    let rest = bytes.strip_prefix(MAGIC).ok_or("not a `fulcrum run` snapshot (the first eight bytes are wrong)")?;
    let (length, rest) = rest.split_first_chunk::<8>().ok_or("truncated before the snapshot's length")?;
    let length = usize::try_from(u64::from_le_bytes(*length)).unwrap_or(usize::MAX);
    if length > rest.len() {
        return Err(format!("truncated: the world snapshot should be {length} bytes, {} follow", rest.len()));
    }
    Ok(rest.split_at(length))
}
