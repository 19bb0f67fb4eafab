//! Text messages from the server (testbed-protocol.md, "Server → page, text"): hello, scene,
//! settings, state, body_info and error, each built as one JSON string.

use std::collections::HashMap;

use fulcrum::{BodyId, CharacterId, JointId, ParticleSetId, Pose, Shape, World};
use serde_json::{json, Map, Value};

use crate::source::LoadedScene;

/// Protocol version announced in `hello`.
pub const PROTOCOL_VERSION: u32 = 1;

/// `hello`: sent first on connect.
pub fn hello(samples: &[&str], paused: bool, speed: f32) -> String {
    json!({"type": "hello", "version": PROTOCOL_VERSION, "samples": samples, "paused": paused, "speed": speed})
        .to_string()
}

/// Why a `scene` message is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SceneReason {
    /// The tab just connected.
    Connect,
    /// A sample or an uploaded scene was loaded.
    Load,
    /// The scene was reset.
    Reset,
    /// A shot ball was added (or the oldest one removed).
    Shoot,
    /// The saved state was restored.
    Restore,
}

impl SceneReason {
    fn name(self) -> &'static str {
        match self {
            SceneReason::Connect => "connect",
            SceneReason::Load => "load",
            SceneReason::Reset => "reset",
            SceneReason::Shoot => "shoot",
            SceneReason::Restore => "restore",
        }
    }
}

/// `scene`: every listed body with its colliders in the body frame, the scene's joints and
/// its characters.
pub fn scene(name: &str, scene: &LoadedScene, reason: SceneReason) -> String {
    let listed = Listed {
        bodies: &scene.bodies,
        body_names: &scene.body_names,
        joints: &scene.joints,
        particle_sets: &scene.particle_sets,
    };
    scene_of(&scene.world, &listed, &scene.characters, name, reason)
}

/// What a `scene` message lists of a world, in frame order.
pub struct Listed<'a> {
    /// The bodies (the order of the frames).
    pub bodies: &'a [BodyId],
    /// Their names, same order.
    pub body_names: &'a [String],
    /// The joints.
    pub joints: &'a [JointId],
    /// The cloths and ropes (the order of the frames' particle block).
    pub particle_sets: &'a [ParticleSetId],
}

/// `scene` for any world: the bodies, joints and characters listed (characters in the order
/// of the frames' character block), and `particle_sets` when it lists any cloth or rope.
/// [`scene`] and the replay recorder both build it here.
pub fn scene_of(world: &World, listed: &Listed, characters: &[CharacterId], name: &str, reason: SceneReason) -> String {
    let Listed { bodies, body_names, joints, particle_sets } = *listed;
    let index: HashMap<BodyId, usize> = bodies.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let bodies: Vec<Value> = bodies.iter().zip(body_names).map(|(&id, name)| body_json(world, id, name)).collect();
    let joints: Vec<Value> = joints
        .iter()
        .filter_map(|&id| world.joint(id))
        .map(|joint| {
            json!({
                "kind": joint.kind().name(),
                "body_a": joint.body_a().and_then(|id| index.get(&id)),
                "body_b": index.get(&joint.body_b()),
                "frame_a": pose_json(joint.local_frame_a()),
                "frame_b": pose_json(joint.local_frame_b()),
            })
        })
        .collect();
    // A character is its engine definition (as a scene file's `characters` entry writes it).
    let characters: Vec<Value> = characters
        .iter()
        .filter_map(|&id| world.character(id))
        .filter_map(|character| fulcrum::json::to_value(character.def()).ok())
        .collect();
    let mut message = json!({"type": "scene", "name": name, "reason": reason.name(), "bodies": bodies,
                             "joints": joints, "characters": characters});
    if !particle_sets.is_empty() {
        let sets: Vec<Value> = particle_sets.iter().filter_map(|&set| particle_set_json(world, set, &index)).collect();
        message["particle_sets"] = Value::Array(sets);
    }
    message.to_string()
}

/// A cloth or rope as `{"cloth": def}` or `{"rope": def}`: its engine definition as a scene
/// file writes it, but an attachment's body as its index in the message's bodies.
fn particle_set_json(world: &World, set: ParticleSetId, index: &HashMap<BodyId, usize>) -> Option<Value> {
    let body_index = |_: &str, id: BodyId| Ok(index.get(&id).copied());
    let (kind, def) = match set {
        ParticleSetId::Cloth(id) => {
            ("cloth", fulcrum::json::to_value(&world.cloth(id)?.def().clone().map_bodies(body_index).ok()?))
        }
        ParticleSetId::Rope(id) => {
            ("rope", fulcrum::json::to_value(&world.rope(id)?.def().clone().map_bodies(body_index).ok()?))
        }
    };
    Some(Value::Object(Map::from_iter([(kind.to_string(), def.ok()?)])))
}

fn body_json(world: &World, id: BodyId, name: &str) -> Value {
    let Some(body) = world.body(id) else { return json!({"name": name, "kind": "static", "colliders": []}) };
    let colliders: Vec<Value> = body
        .colliders()
        .iter()
        .filter_map(|&c| world.collider(c))
        .map(|collider| {
            let pose = collider.local_pose();
            json!({
                "shape": shape_json(collider.shape()),
                "position": pose.position.to_array(),
                "rotation": pose.rotation.to_array(),
                "sensor": collider.is_sensor(),
            })
        })
        .collect();
    json!({
        "name": name,
        "kind": body.kind(),
        "colliders": colliders,
        "center_of_mass": body.local_center_of_mass().to_array(),
        "mass": body.mass(),
    })
}

/// A shape as its scene file form, but a triangle mesh always with its triangles (the page
/// cannot read the file a scene names).
fn shape_json(shape: &Shape) -> Value {
    match shape {
        Shape::TriMesh(mesh) => json!({
            "type": "trimesh",
            "vertices": mesh.vertices().iter().map(|v| v.to_array()).collect::<Vec<_>>(),
            "indices": mesh.indices(),
            "two_sided": mesh.two_sided(),
        }),
        other => json!(other),
    }
}

fn pose_json(pose: Pose) -> Value {
    json!({"position": pose.position.to_array(), "rotation": pose.rotation.to_array()})
}

/// `settings`: every world setting (the fields of `fulcrum::WorldSettings`, as scene files
/// write them); `timestep` is read-only.
pub fn settings(world: &World) -> String {
    let mut message = Map::new();
    message.insert("type".to_string(), Value::String("settings".to_string()));
    if let Ok(Value::Object(fields)) = fulcrum::json::to_value(world.settings()) {
        message.extend(fields);
    }
    Value::Object(message).to_string()
}

/// `state`: after play, pause, step and speed.
pub fn state(paused: bool, speed: f32) -> String {
    json!({"type": "state", "paused": paused, "speed": speed}).to_string()
}

/// `body_info`: the reply to `inspect`. `contacts` counts the touching contact pairs the body
/// is in.
pub fn body_info(world: &World, index: usize, id: BodyId, name: &str) -> String {
    let Some(body) = world.body(id) else { return error(&format!("inspect.body: body {index} no longer exists")) };
    let contacts = world.contacts().filter(|c| c.body_a == id || c.body_b == id).count();
    json!({
        "type": "body_info",
        "body": index,
        "name": name,
        "kind": body.kind(),
        "mass": body.mass(),
        "position": body.position().to_array(),
        "velocity": body.linear_velocity().to_array(),
        "angular_velocity": body.angular_velocity().to_array(),
        "contacts": contacts,
        "sleeping": body.is_sleeping(),
    })
    .to_string()
}

/// `saved_state`: a snapshot was kept after step `step`; `bytes` is its size.
pub fn saved_state(step: u64, bytes: usize) -> String {
    json!({"type": "saved_state", "step": step, "bytes": bytes}).to_string()
}

/// `error`: a refused command (`field: reason`).
pub fn error(message: &str) -> String {
    json!({"type": "error", "message": message}).to_string()
}
