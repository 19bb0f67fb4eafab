//! Where the testbed's scene comes from, and building it into a world.
//!
//! A [`SceneSource`] is kept for as long as its scene runs, so that `reset` rebuilds the
//! scene from the same source: a built-in sample, a benchmark scene, a file named on the
//! command line (read again from disk on every reset) or a scene uploaded by the page.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use fulcrum::{BodyId, CharacterId, JointId, ParticleSetId, Scene, SceneIndex, World};
use fulcrum_bench::scenes::{build_scene, SCENE_NAMES};

use crate::frame::FrameOrder;
use crate::samples;

/// Where a scene comes from.
#[derive(Clone, Debug)]
pub enum SceneSource {
    /// A built-in sample (`scenes/` files), by name.
    Sample(&'static str),
    /// A standard benchmark scene (shared/bench/SCENES.md), by name.
    Bench(&'static str),
    /// A scene file given on the command line; reset reads it again.
    File(PathBuf),
    /// A scene file's text sent by the page, already validated.
    Uploaded {
        /// The name the page gave (the dropped file's name), or "uploaded scene".
        name: String,
        /// The parsed scene.
        scene: Arc<Scene>,
    },
}

/// The names the page may load with `load_sample`: the built-in samples, then the benchmark
/// scenes.
pub fn gallery() -> Vec<&'static str> {
    samples::SAMPLES.iter().map(|sample| sample.name).chain(SCENE_NAMES).collect()
}

impl SceneSource {
    /// The gallery entry called `name`.
    pub fn named(name: &str) -> Option<SceneSource> {
        if let Some(sample) = samples::find(name) {
            return Some(SceneSource::Sample(sample.name));
        }
        SCENE_NAMES.iter().find(|&&bench| bench == name).map(|&bench| SceneSource::Bench(bench))
    }

    /// A command-line SCENE argument: an existing path is a file, otherwise a gallery name.
    pub fn resolve(argument: &str) -> Result<SceneSource, String> {
        let path = Path::new(argument);
        if path.exists() {
            return Ok(SceneSource::File(path.to_path_buf()));
        }
        SceneSource::named(argument).ok_or_else(|| {
            format!(
                "{argument}: no such file, and no built-in sample or benchmark scene has that name (samples: {})",
                gallery().join(", ")
            )
        })
    }

    /// The name the page shows for this scene.
    pub fn name(&self) -> String {
        match self {
            SceneSource::Sample(name) | SceneSource::Bench(name) => name.to_string(),
            SceneSource::File(path) => path.display().to_string(),
            SceneSource::Uploaded { name, .. } => name.clone(),
        }
    }

    /// Builds the scene into a fresh world (reading a file source again).
    pub fn build(&self) -> Result<LoadedScene, String> {
        match self {
            SceneSource::Sample(name) => {
                let sample = samples::find(name).ok_or_else(|| format!("{name}: no built-in sample has that name"))?;
                LoadedScene::from_scene(&sample.scene()?)
            }
            SceneSource::File(path) => LoadedScene::from_scene(&Scene::load(path).map_err(|e| e.to_string())?),
            SceneSource::Uploaded { scene, .. } => LoadedScene::from_scene(scene),
            SceneSource::Bench(name) => {
                let desc = build_scene(name)?;
                let (world, bodies) = fulcrum_bench::fulcrum_engine::build_world(&desc)?;
                let names = (0..bodies.len())
                    .map(|i| if desc.ground == Some(i) { "ground".to_string() } else { format!("body{i}") })
                    .collect();
                let joints = world.joints().map(|(id, _)| id).collect();
                Ok(LoadedScene {
                    world,
                    bodies,
                    body_names: names,
                    joints,
                    characters: Vec::new(),
                    particle_sets: Vec::new(),
                })
            }
        }
    }
}

/// A scene built into a world, with the order the page knows its bodies and joints in.
pub struct LoadedScene {
    /// The world.
    pub world: World,
    /// Body ids in the order of the `scene` message and the frames (file order).
    pub bodies: Vec<BodyId>,
    /// The bodies' names, same order.
    pub body_names: Vec<String>,
    /// The scene's joints, in file order (drag joints are never listed).
    pub joints: Vec<JointId>,
    /// The scene's characters, in file order (the order of the frames' character block).
    pub characters: Vec<CharacterId>,
    /// The scene's cloths, then its ropes, each in file order (the order of the frames'
    /// particle block). The testbed never removes one.
    pub particle_sets: Vec<ParticleSetId>,
}

impl LoadedScene {
    /// A copy of the lists with an empty world.
    pub fn lists(&self) -> LoadedScene {
        LoadedScene {
            world: World::default(),
            bodies: self.bodies.clone(),
            body_names: self.body_names.clone(),
            joints: self.joints.clone(),
            characters: self.characters.clone(),
            particle_sets: self.particle_sets.clone(),
        }
    }

    /// What the frames list of this scene.
    pub fn frame_order(&self) -> FrameOrder<'_> {
        FrameOrder { bodies: &self.bodies, characters: &self.characters, particle_sets: &self.particle_sets }
    }

    fn from_scene(scene: &Scene) -> Result<LoadedScene, String> {
        let (world, index) = scene.build().map_err(|e| e.to_string())?;
        let (body_names, bodies) = index.iter().map(|(name, id)| (name.to_string(), id)).unzip();
        let joints = index.joints().map(|(_, id)| id).collect();
        let characters = index.characters().map(|(_, id)| id).collect();
        Ok(LoadedScene { world, bodies, body_names, joints, characters, particle_sets: particle_sets(&index) })
    }
}

/// A scene's cloths, then its ropes, in file order.
pub fn particle_sets(index: &SceneIndex) -> Vec<ParticleSetId> {
    let cloths = index.cloths().map(|(_, id)| ParticleSetId::from(id));
    cloths.chain(index.ropes().map(|(_, id)| ParticleSetId::from(id))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gallery_entry_builds() {
        for name in gallery() {
            let scene = SceneSource::named(name).unwrap().build().unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!scene.bodies.is_empty(), "{name}");
            assert_eq!(scene.bodies.len(), scene.body_names.len(), "{name}");
            assert_eq!(scene.bodies.len(), scene.world.body_count(), "{name}: every body is listed");
        }
        assert!(SceneSource::named("no_such_scene").is_none());
    }
}
