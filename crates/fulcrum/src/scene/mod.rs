//! Scene files (shared/docs/scene-format.md): a complete description of a world (settings,
//! materials, bodies with colliders, joints) that can be loaded, validated, built into a
//! [`World`], and saved again; and the trajectory lines `fulcrum run` writes.
//!
//! The file format is the engine's own definition types in their serde forms:
//! [`WorldSettings`](crate::WorldSettings) is `settings`, [`BodyDef`](crate::BodyDef) a body,
//! [`ColliderDef`](crate::ColliderDef) with its [`Shape`](crate::Shape) a collider,
//! [`JointDef`](crate::JointDef) a joint, [`CharacterDef`] a character, [`ClothDef`] and
//! [`RopeDef`] a cloth and a rope (bodies named, [`SceneCloth`], [`SceneRope`]). This module adds only what files have and the API
//! does not: names instead of ids ([`SceneJoint`] is `JointDef<String, String>`), a body's
//! colliders inside the body's object, named materials, and (in the joint's file form)
//! world-space anchors at load time and the ball's angles in degrees. An unknown or misspelt
//! field anywhere is refused with its path and the closest known name.
//!
//! ```text
//! text --parse (serde; JSON path of any bad value)--> Scene (materials resolved)
//!      --validate (the engine types' own checks, plus names)--> Scene
//!      --build (into a fresh World, returned only on success)--> (World, SceneIndex)
//! World --from_world--> Scene --to_json_string / save--> text
//! ```
//! Errors are the engine's [`Error`]: `field` is `SOURCE: JSON_PATH` (just the path for a
//! scene with no source name), `reason` says why, so the message reads
//! `scenes/stack.json: bodies[3].colliders[0].shape.radius: must be greater than zero, got -1`.
//! Nothing is half-loaded: a scene is validated completely before it is returned or built.
//!
//! ```
//! use fulcrum::Scene;
//! let text = r#"{"format": 1, "bodies": [
//!     {"name": "ball", "position": [0, 5, 0],
//!      "colliders": [{"shape": {"type": "sphere", "radius": 0.5}}]}]}"#;
//! let scene = Scene::from_json_str(text, "ball.json").unwrap();
//! let (mut world, index) = scene.build().unwrap();
//! world.step(1.0 / 60.0).unwrap();
//! let ball = index.body("ball").unwrap();
//! assert!(world.body(ball).unwrap().position().y < 5.0);
//! ```

mod body;
mod build;
mod check;
mod from_world;
mod json_format;
pub mod trajectory;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::character::CharacterDef;
use crate::error::{Error, Result};
use crate::id::{BodyId, CharacterId, ClothId, JointId, RopeId};
use crate::joint::JointDef;
use crate::particles::{ClothDef, RopeDef};
use crate::settings::WorldSettings;
use crate::world::World;

pub use body::{Material, SceneBody, SceneCollider};
pub use trajectory::{BodyState, CharacterState, JointState, ParticleSetState, TrajectoryFrame, TrajectoryHeader};

/// The scene format version this engine reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// A joint of a scene file: the engine's definition naming bodies and joints by name.
pub type SceneJoint = JointDef<String, String>;

/// A cloth of a scene file: the engine's definition naming bodies by name.
pub type SceneCloth = ClothDef<String>;

/// A rope of a scene file: the engine's definition naming bodies by name.
pub type SceneRope = RopeDef<String>;

/// A scene: the top level of a scene file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Format version; this engine reads and writes [`FORMAT_VERSION`].
    pub format: u32,
    /// Free text describing the scene (an engine extension; samples use it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// World and solver settings (omitted fields: engine defaults).
    #[serde(default, skip_serializing_if = "is_default")]
    pub settings: WorldSettings,
    /// Named materials colliders may refer to.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub materials: BTreeMap<String, Material>,
    /// The bodies, in the order they are created.
    pub bodies: Vec<SceneBody>,
    /// The joints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joints: Vec<SceneJoint>,
    /// The characters (capsules moved by the character solver), in the order they are
    /// created; `name` is required and unique among them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub characters: Vec<CharacterDef>,
    /// Cloths (particles moved by the particle solver), in the order they are created; `name`
    /// is required and unique among them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cloths: Vec<SceneCloth>,
    /// Ropes (particles moved by the particle solver), in the order they are created; `name`
    /// is required and unique among them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ropes: Vec<SceneRope>,
    /// Where the scene came from (a file path), for error messages; not part of the format.
    #[serde(skip)]
    source: String,
}

fn is_default(settings: &WorldSettings) -> bool {
    *settings == WorldSettings::default()
}

impl Default for Scene {
    fn default() -> Self {
        Scene {
            format: FORMAT_VERSION,
            description: None,
            settings: WorldSettings::default(),
            materials: BTreeMap::new(),
            bodies: Vec::new(),
            joints: Vec::new(),
            characters: Vec::new(),
            cloths: Vec::new(),
            ropes: Vec::new(),
            source: String::new(),
        }
    }
}

/// Scenes are equal when their contents are; where they came from does not matter.
impl PartialEq for Scene {
    fn eq(&self, other: &Self) -> bool {
        self.format == other.format
            && self.description == other.description
            && self.settings == other.settings
            && self.materials == other.materials
            && self.bodies == other.bodies
            && self.joints == other.joints
            && self.characters == other.characters
            && self.cloths == other.cloths
            && self.ropes == other.ropes
    }
}

impl Scene {
    /// Parses and validates a scene from JSON text. `source_name` (usually the file path)
    /// starts every error message.
    pub fn from_json_str(text: &str, source_name: &str) -> Result<Scene> {
        let mut scene: Scene = crate::json::from_str(text).map_err(|e| locate(source_name, e))?;
        scene.source = source_name.to_string();
        scene.resolve_materials().map_err(|e| scene.locate(e))?;
        scene.validate()?;
        Ok(scene)
    }

    /// Reads, parses and validates a scene file. Mesh files it names by relative paths are
    /// read from the scene file's directory ([`Scene::from_json_str`]: from the current
    /// directory).
    pub fn load(path: impl AsRef<Path>) -> Result<Scene> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(name.clone(), format!("cannot read the file: {e}")))?;
        Scene::from_json_str_in(&text, &name, path.parent().unwrap_or(Path::new("")))
    }

    /// [`Scene::from_json_str`] for text whose relative mesh file names are relative to `dir`
    /// (a scene file's directory, for text that did not come from [`Scene::load`]).
    pub fn from_json_str_in(text: &str, source_name: &str, dir: &Path) -> Result<Scene> {
        crate::shape::mesh_files::with_base_dir(dir, || Scene::from_json_str(text, source_name))
    }

    /// The scene as pretty JSON (short arrays and objects on one line), ending in a newline.
    /// Numbers are written with the fewest digits that read back as the same `f32`.
    pub fn to_json_string(&self) -> Result<String> {
        let compact =
            serde_json::to_string(self).map_err(|e| self.locate(Error::new("", format!("cannot write JSON: {e}"))))?;
        Ok(json_format::pretty(&compact))
    }

    /// Writes the scene to a file as [`Scene::to_json_string`] does.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let text = self.to_json_string()?;
        std::fs::write(path, text)
            .map_err(|e| Error::new(path.display().to_string(), format!("cannot write the file: {e}")))
    }

    /// Checks every value of the scene (see the format's Errors section): each definition with
    /// its own validation, plus the names that tie the scene together.
    pub fn validate(&self) -> Result<()> {
        check::validate_scene(self).map_err(|e| self.locate(e))
    }

    /// Validates the scene and builds it into a fresh world; returns the world and the index of
    /// its bodies and joints by name.
    pub fn build(&self) -> Result<(World, SceneIndex)> {
        self.validate()?;
        build::build_world(self).map_err(|e| self.locate(e))
    }

    /// The scene describing `world` now, every field explicit (see `from_world.rs` for names
    /// of unnamed bodies and what is left out).
    pub fn from_world(world: &World) -> Scene {
        from_world::scene_from_world(world)
    }

    /// Where the scene was read from ("" when made in code).
    pub fn source_name(&self) -> &str {
        &self.source
    }

    /// Sets the name error messages start with.
    pub fn with_source_name(mut self, source_name: impl Into<String>) -> Scene {
        self.source = source_name.into();
        self
    }

    /// Gives each collider that names a material the material's fields it does not set
    /// itself.
    fn resolve_materials(&mut self) -> Result<()> {
        for (i, body) in self.bodies.iter_mut().enumerate() {
            for (j, collider) in body.colliders.iter_mut().enumerate() {
                collider
                    .resolve_material(&self.materials)
                    .map_err(|e| e.within(&format!("bodies[{i}].colliders[{j}]")))?;
            }
        }
        Ok(())
    }

    fn locate(&self, error: Error) -> Error {
        locate(&self.source, error)
    }
}

/// Prefixes an error's JSON path with the source name.
fn locate(source: &str, mut error: Error) -> Error {
    error.field = match (source.is_empty(), error.field.is_empty()) {
        (true, _) => error.field,
        (false, true) => source.to_string(),
        (false, false) => format!("{source}: {}", error.field),
    };
    error
}

/// The bodies, joints, characters, cloths and ropes of a built scene by name, in file order. A joint the
/// file leaves unnamed is listed under a generated name (`joint<i>` for `joints[i]`, suffixed
/// until unique) so that trajectories can name it; the world's joint keeps its empty name.
/// Its serde form is the name lists (the lookups are rebuilt from them): what `fulcrum run`
/// keeps beside a world snapshot so that a resumed run names things as the scene did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(from = "IndexEntries", into = "IndexEntries")]
pub struct SceneIndex {
    entries: Vec<(String, BodyId)>,
    by_name: BTreeMap<String, usize>,
    by_id: BTreeMap<BodyId, usize>,
    joint_entries: Vec<(String, JointId)>,
    joints_by_name: BTreeMap<String, usize>,
    joints_by_id: BTreeMap<JointId, usize>,
    character_entries: Vec<(String, CharacterId)>,
    cloth_entries: Vec<(String, ClothId)>,
    rope_entries: Vec<(String, RopeId)>,
}

/// The serde form of a [`SceneIndex`]: its entries in order.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexEntries {
    bodies: Vec<(String, BodyId)>,
    joints: Vec<(String, JointId)>,
    characters: Vec<(String, CharacterId)>,
    cloths: Vec<(String, ClothId)>,
    ropes: Vec<(String, RopeId)>,
}

impl From<SceneIndex> for IndexEntries {
    fn from(index: SceneIndex) -> Self {
        IndexEntries {
            bodies: index.entries,
            joints: index.joint_entries,
            characters: index.character_entries,
            cloths: index.cloth_entries,
            ropes: index.rope_entries,
        }
    }
}

impl From<IndexEntries> for SceneIndex {
    fn from(entries: IndexEntries) -> Self {
        let mut index = SceneIndex::default();
        entries.bodies.into_iter().for_each(|(name, id)| index.push(name, id));
        entries.joints.into_iter().for_each(|(name, id)| index.push_joint(name, id));
        entries.characters.into_iter().for_each(|(name, id)| index.push_character(name, id));
        entries.cloths.into_iter().for_each(|(name, id)| index.push_cloth(name, id));
        entries.ropes.into_iter().for_each(|(name, id)| index.push_rope(name, id));
        index
    }
}

impl SceneIndex {
    pub(crate) fn push(&mut self, name: String, id: BodyId) {
        let index = self.entries.len();
        self.by_name.insert(name.clone(), index);
        self.by_id.insert(id, index);
        self.entries.push((name, id));
    }

    /// The body with this name.
    pub fn body(&self, name: &str) -> Option<BodyId> {
        self.by_name.get(name).map(|&i| self.entries[i].1)
    }

    /// The name of this body.
    pub fn name(&self, id: BodyId) -> Option<&str> {
        self.by_id.get(&id).map(|&i| self.entries[i].0.as_str())
    }

    /// `(name, id)` of every body, in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, BodyId)> {
        self.entries.iter().map(|(name, id)| (name.as_str(), *id))
    }

    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the scene had no bodies.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(crate) fn push_joint(&mut self, name: String, id: JointId) {
        let index = self.joint_entries.len();
        self.joints_by_name.insert(name.clone(), index);
        self.joints_by_id.insert(id, index);
        self.joint_entries.push((name, id));
    }

    /// The joint with this name.
    pub fn joint(&self, name: &str) -> Option<JointId> {
        self.joints_by_name.get(name).map(|&i| self.joint_entries[i].1)
    }

    /// The name of this joint.
    pub fn joint_name(&self, id: JointId) -> Option<&str> {
        self.joints_by_id.get(&id).map(|&i| self.joint_entries[i].0.as_str())
    }

    /// `(name, id)` of every joint, in file order.
    pub fn joints(&self) -> impl Iterator<Item = (&str, JointId)> {
        self.joint_entries.iter().map(|(name, id)| (name.as_str(), *id))
    }

    /// Number of joints.
    pub fn joint_count(&self) -> usize {
        self.joint_entries.len()
    }

    pub(crate) fn push_character(&mut self, name: String, id: CharacterId) {
        self.character_entries.push((name, id));
    }

    /// The character with this name.
    pub fn character(&self, name: &str) -> Option<CharacterId> {
        self.character_entries.iter().find(|(n, _)| n == name).map(|(_, id)| *id)
    }

    /// `(name, id)` of every character, in file order.
    pub fn characters(&self) -> impl Iterator<Item = (&str, CharacterId)> {
        self.character_entries.iter().map(|(name, id)| (name.as_str(), *id))
    }

    pub(crate) fn push_cloth(&mut self, name: String, id: ClothId) {
        self.cloth_entries.push((name, id));
    }

    /// The cloth with this name.
    pub fn cloth(&self, name: &str) -> Option<ClothId> {
        self.cloth_entries.iter().find(|(n, _)| n == name).map(|(_, id)| *id)
    }

    /// `(name, id)` of every cloth, in file order.
    pub fn cloths(&self) -> impl Iterator<Item = (&str, ClothId)> {
        self.cloth_entries.iter().map(|(name, id)| (name.as_str(), *id))
    }

    pub(crate) fn push_rope(&mut self, name: String, id: RopeId) {
        self.rope_entries.push((name, id));
    }

    /// The rope with this name.
    pub fn rope(&self, name: &str) -> Option<RopeId> {
        self.rope_entries.iter().find(|(n, _)| n == name).map(|(_, id)| *id)
    }

    /// `(name, id)` of every rope, in file order.
    pub fn ropes(&self) -> impl Iterator<Item = (&str, RopeId)> {
        self.rope_entries.iter().map(|(name, id)| (name.as_str(), *id))
    }
}
