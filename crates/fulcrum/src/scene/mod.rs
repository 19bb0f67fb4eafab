//! Scene files (shared/docs/scene-format.md): a complete description of a world (settings,
//! materials, bodies with colliders, joints) that can be loaded, validated, built into a
//! [`World`], and saved again; and the trajectory lines `fulcrum run` writes.
//!
//! ```text
//! text --parse (serde, JSON path of any type error)--> Scene
//!      --validate (every value, JSON path of the first bad one)--> Scene
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

mod build;
mod from_world;
pub mod joint;
mod joint_def;
mod json_format;
pub mod trajectory;
pub mod types;
mod validate;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::id::{BodyId, JointId};
use crate::world::World;

pub use joint::{AxisMotion, JointKind, JointSpec, LimitsSpec, MotorSpec, SixDofAxesSpec, SpringSpec};
pub use trajectory::{BodyState, JointState, TrajectoryFrame, TrajectoryHeader};
pub use types::{
    BodySpec, ColliderSpec, GroupsSpec, MaterialSpec, Rotation, SettingsSpec, ShapeSpec, ShapeType, SolverSpec,
};
pub use validate::FORMAT_VERSION;

/// A scene: the top level of a scene file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Scene {
    /// Format version; this engine reads and writes [`FORMAT_VERSION`].
    pub format: u32,
    /// Free text describing the scene (an engine extension; samples use it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// World and solver settings (omitted fields: engine defaults).
    #[serde(default, skip_serializing_if = "SettingsSpec::is_empty")]
    pub settings: SettingsSpec,
    /// Named materials colliders may refer to.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub materials: BTreeMap<String, MaterialSpec>,
    /// The bodies, in the order they are created.
    pub bodies: Vec<BodySpec>,
    /// The joints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joints: Vec<JointSpec>,
    /// Where the scene came from (a file path), for error messages; not part of the format.
    #[serde(skip)]
    source: String,
}

impl Default for Scene {
    fn default() -> Self {
        Scene {
            format: FORMAT_VERSION,
            description: None,
            settings: SettingsSpec::default(),
            materials: BTreeMap::new(),
            bodies: Vec::new(),
            joints: Vec::new(),
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
    }
}

impl Scene {
    /// Parses and validates a scene from JSON text. `source_name` (usually the file path)
    /// starts every error message. Unknown fields are accepted and dropped.
    pub fn from_json_str(text: &str, source_name: &str) -> Result<Scene> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let parsed: std::result::Result<Scene, _> = serde_path_to_error::deserialize(&mut deserializer);
        let mut scene = parsed.map_err(|e| locate(source_name, parse_error(&e)))?;
        deserializer.end().map_err(|e| locate(source_name, Error::new("", format!("invalid JSON: {e}"))))?;
        scene.source = source_name.to_string();
        scene.validate()?;
        Ok(scene)
    }

    /// Reads, parses and validates a scene file.
    pub fn load(path: impl AsRef<Path>) -> Result<Scene> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(name.clone(), format!("cannot read the file: {e}")))?;
        Scene::from_json_str(&text, &name)
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

    /// Checks every value of the scene (see the format's Errors section).
    pub fn validate(&self) -> Result<()> {
        validate::validate_scene(self).map_err(|e| self.locate(e))
    }

    /// Validates the scene and builds it into a fresh world; returns the world and the index of
    /// its bodies and joints by name. Trimeshes and height fields are refused for now (the
    /// engine cannot simulate them yet), naming the first one's path; so is a joint the engine
    /// refuses, naming it (`joints[3].kind: ...`) with the engine's reason.
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

/// A parse error with the JSON path serde reached.
fn parse_error(error: &serde_path_to_error::Error<serde_json::Error>) -> Error {
    let path = error.path().to_string();
    let path = if path == "." { String::new() } else { path };
    let inner = error.inner();
    let reason = match inner.classify() {
        serde_json::error::Category::Data => inner.to_string(),
        _ => format!("invalid JSON: {inner}"),
    };
    Error::new(path, reason)
}

/// The bodies and joints of a built scene by name, in file order. A joint the file leaves
/// unnamed is listed under a generated name (`joint<i>` for `joints[i]`, suffixed until
/// unique) so that trajectories can name it; the world's joint keeps its empty name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SceneIndex {
    entries: Vec<(String, BodyId)>,
    by_name: BTreeMap<String, usize>,
    by_id: BTreeMap<BodyId, usize>,
    joint_entries: Vec<(String, JointId)>,
    joints_by_name: BTreeMap<String, usize>,
    joints_by_id: BTreeMap<JointId, usize>,
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
}
