//! World snapshots: the whole state that the next steps depend on, as bytes, and back.
//!
//! Layout: `MAGIC` (8 bytes), format version (u32 LE), payload length (u64 LE), checksum of the
//! payload (u64 LE), then the payload: the [`World`]'s serde form in postcard (varint integers,
//! raw little-endian floats, no field names). Floats travel as their bits, so a restored world
//! continues bit-identically.
//!
//! What is left out and why: the solver arrays, the union-find, the new-pair list and the
//! narrow phase's scratch are rebuilt from nothing every step; the broad phase's sort and
//! rebuild buffers are scratch too; a user constraint's code is not data (its restore asks for
//! it again). Everything else goes in as it is, the broad-phase trees and the meshes' BVHs
//! included, so nothing is rebuilt on restore and nothing can differ; it is checked instead
//! (`restore_check.rs`), so that crafted bytes are refused. Definitions whose serde
//! is the scene format (joint kinds, character, cloth and rope definitions) travel in that
//! form as JSON text inside the payload: the scene format is exact for every value (floats by
//! their shortest round-trip text, angles in degrees chosen to convert back to the same
//! radians), and one form per definition is kept.

use std::collections::HashMap;
use std::hash::Hash;

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::World;
use crate::error::{Error, Result};
use crate::id::UserConstraintId;
use crate::joint::user::{UserBody, UserConstraint, UserRows};

/// The first bytes of every snapshot.
const MAGIC: &[u8; 8] = b"FULCRUM\x01";
/// Raised whenever the encoded state changes shape.
const FORMAT_VERSION: u32 = 6;
/// Magic, version, payload length, checksum.
const HEADER_LEN: usize = 8 + 4 + 8 + 8;

fn snapshot_error(reason: impl Into<String>) -> Error {
    Error::new("snapshot", reason)
}

/// Checksum of the payload: for each little-endian 64-bit word w (the tail zero-padded),
/// h ← rotl(h ⊕ w, 29) · K with K odd. Each step is a bijection of h for a fixed w and of w
/// for a fixed h, so changing any one word always changes the result; the length is the
/// seed, so truncation to a whole word changes it too.
fn checksum(payload: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut words = payload.chunks_exact(8);
    let mut hash = (payload.len() as u64).wrapping_mul(K);
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().expect("chunks of eight"));
        hash = (hash ^ w).rotate_left(29).wrapping_mul(K);
    }
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    (hash ^ u64::from_le_bytes(tail)).rotate_left(29).wrapping_mul(K)
}

/// Reads `N` bytes at `at` (the caller has checked the length).
fn read_array<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    bytes[at..at + N].try_into().expect("length checked")
}

/// The payload of a snapshot after its header has been checked.
fn payload(bytes: &[u8]) -> Result<&[u8]> {
    if bytes.len() < HEADER_LEN {
        return Err(snapshot_error(format!(
            "truncated: {} bytes, shorter than the {HEADER_LEN}-byte header",
            bytes.len()
        )));
    }
    if &bytes[..8] != MAGIC {
        return Err(snapshot_error("not a fulcrum snapshot (the first eight bytes are wrong)"));
    }
    let version = u32::from_le_bytes(read_array(bytes, 8));
    if version != FORMAT_VERSION {
        return Err(snapshot_error(format!("format version {version}, this build reads version {FORMAT_VERSION}")));
    }
    let length = u64::from_le_bytes(read_array(bytes, 12));
    let present = (bytes.len() - HEADER_LEN) as u64;
    if length != present {
        let what = if length > present { "truncated" } else { "trailing bytes" };
        return Err(snapshot_error(format!("{what}: the header says {length} bytes of state, {present} follow")));
    }
    let body = &bytes[HEADER_LEN..];
    if checksum(body) != u64::from_le_bytes(read_array(bytes, 20)) {
        return Err(snapshot_error("corrupted: the checksum does not match the state"));
    }
    Ok(body)
}

impl World {
    /// Everything the next steps depend on, as bytes: bodies (poses, velocities, pending
    /// forces, sleep timers, disabled state), colliders and their shapes (meshes with their
    /// BVHs), joints with their warm-start impulses and broken flags, user constraints' rows'
    /// impulses, the broad phase, contact pairs with their cached manifolds and impulses,
    /// sleeping islands, characters, cloths and ropes, the last step's events, settings,
    /// time, step count and every id's slot and generation. [`World::restore`] gives a world
    /// that steps on bit-identically and in which the ids held before stay valid.
    /// The bytes depend only on the state: two worlds in the same state give the same bytes.
    /// Not kept: per-step scratch, wall-clock timings, and the code of user constraints.
    pub fn snapshot(&self) -> Vec<u8> {
        let state = postcard::to_allocvec(self).expect("a world's state always encodes");
        let mut bytes = Vec::with_capacity(HEADER_LEN + state.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&(state.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&checksum(&state).to_le_bytes());
        bytes.extend_from_slice(&state);
        bytes
    }

    /// The world a [`World::snapshot`] was taken of. Fails, naming the reason, on bytes that
    /// are not a snapshot, come from another format version, are truncated or corrupted
    /// (checksum), hold settings out of range, or hold a state no world can be in (an index
    /// out of range, a reference not returned, a mesh's hierarchy that is no tree, a number
    /// out of its range: bytes crafted with a matching checksum; the error's field is the
    /// path, such as `snapshot.contacts[12]`); and when the snapshot holds user constraints,
    /// whose code only [`World::restore_with`] can supply.
    pub fn restore(bytes: &[u8]) -> Result<World> {
        Self::restore_with(bytes, |id| {
            Err(Error::new(
                "snapshot",
                format!(
                    "holds user constraint {}:{}; restore it with World::restore_with, which supplies \
                     the constraints' code",
                    id.0.index, id.0.generation
                ),
            ))
        })
    }

    /// [`World::restore`] for snapshots with user constraints: `constraint` is asked, in id
    /// order, for the code of each one (the accumulated impulses of its rows come from the
    /// snapshot; state the constraint keeps in itself is yours to restore). An `Err` from it
    /// is returned as is.
    pub fn restore_with(
        bytes: &[u8],
        mut constraint: impl FnMut(UserConstraintId) -> Result<Box<dyn UserConstraint>>,
    ) -> Result<World> {
        let mut world: World = postcard::from_bytes(payload(bytes)?)
            .map_err(|e| snapshot_error(format!("the state does not decode: {e}")))?;
        world.settings.validate()?;
        world.check_restored().map_err(|e| e.within("snapshot"))?;
        for (id, entry) in world.user_constraints.iter_mut() {
            entry.constraint = constraint(id)?;
        }
        Ok(world)
    }
}

/// What a restored user constraint holds until its code is supplied (never solved: restore
/// replaces every one before it returns the world).
struct Missing;

impl UserConstraint for Missing {
    fn rows(&mut self, _: &UserBody, _: &UserBody, _: &mut UserRows) -> Result<()> {
        Err(Error::new("user_constraint", "its code was not supplied on restore"))
    }
}

/// The placeholder a decoded user constraint starts with.
pub(crate) fn missing_constraint() -> Box<dyn UserConstraint> {
    Box::new(Missing)
}

/// A definition in its scene-file form, as JSON text (see the module docs).
pub(crate) mod file_form {
    use super::*;

    pub(crate) fn serialize<T: Serialize, S: Serializer>(
        value: &T,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        let text = serde_json::to_string(value).map_err(serde::ser::Error::custom)?;
        serializer.serialize_str(&text)
    }

    pub(crate) fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<T, D::Error> {
        let text = String::deserialize(deserializer)?;
        serde_json::from_str(&text).map_err(D::Error::custom)
    }
}

/// A lookup-only hash map as its entries sorted by key, so the bytes never depend on the
/// map's iteration order.
pub(crate) mod sorted_map {
    use super::*;

    pub(crate) fn serialize<K, V, H, S>(map: &HashMap<K, V, H>, serializer: S) -> std::result::Result<S::Ok, S::Error>
    where
        K: Serialize + Ord,
        V: Serialize,
        S: Serializer,
    {
        let mut entries: Vec<(&K, &V)> = map.iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        entries.serialize(serializer)
    }

    pub(crate) fn deserialize<'de, K, V, H, D>(deserializer: D) -> std::result::Result<HashMap<K, V, H>, D::Error>
    where
        K: Deserialize<'de> + Eq + Hash,
        V: Deserialize<'de>,
        H: std::hash::BuildHasher + Default,
        D: Deserializer<'de>,
    {
        Ok(Vec::<(K, V)>::deserialize(deserializer)?.into_iter().collect())
    }
}

/// A shape with all its data (a mesh's triangles, flags and BVH; a hull's half-edge mesh),
/// not its scene-file form, which names a mesh's file instead of holding it.
pub(crate) mod shape_form {
    use std::sync::Arc;

    use super::*;
    use crate::shape::{Capsule, ConvexHull, Cuboid, Cylinder, HeightField, Plane, Shape, Sphere, TriMesh};

    /// Written form; the variants in the order of [`Stored`].
    #[derive(Serialize)]
    enum Written<'a> {
        Sphere(&'a Sphere),
        Cuboid(&'a Cuboid),
        Capsule(&'a Capsule),
        Cylinder(&'a Cylinder),
        ConvexHull(&'a ConvexHull),
        Plane(&'a Plane),
        TriMesh(&'a TriMesh),
        HeightField(&'a HeightField),
    }

    /// Read form.
    #[derive(Deserialize)]
    enum Stored {
        Sphere(Sphere),
        Cuboid(Cuboid),
        Capsule(Capsule),
        Cylinder(Cylinder),
        ConvexHull(ConvexHull),
        Plane(Plane),
        TriMesh(TriMesh),
        HeightField(HeightField),
    }

    pub(crate) fn serialize<S: Serializer>(shape: &Shape, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let written = match shape {
            Shape::Sphere(s) => Written::Sphere(s),
            Shape::Cuboid(s) => Written::Cuboid(s),
            Shape::Capsule(s) => Written::Capsule(s),
            Shape::Cylinder(s) => Written::Cylinder(s),
            Shape::ConvexHull(s) => Written::ConvexHull(s),
            Shape::Plane(s) => Written::Plane(s),
            Shape::TriMesh(s) => Written::TriMesh(s),
            Shape::HeightField(s) => Written::HeightField(s),
        };
        written.serialize(serializer)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Shape, D::Error> {
        Ok(match Stored::deserialize(deserializer)? {
            Stored::Sphere(s) => Shape::Sphere(s),
            Stored::Cuboid(s) => Shape::Cuboid(s),
            Stored::Capsule(s) => Shape::Capsule(s),
            Stored::Cylinder(s) => Shape::Cylinder(s),
            Stored::ConvexHull(s) => Shape::ConvexHull(Arc::new(s)),
            Stored::Plane(s) => Shape::Plane(s),
            Stored::TriMesh(s) => Shape::TriMesh(Arc::new(s)),
            Stored::HeightField(s) => Shape::HeightField(Arc::new(s)),
        })
    }
}
