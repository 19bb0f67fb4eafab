//! The messages the testbed page reads, built from a [`World`] (docs/testbed-protocol.md):
//!
//! - [`scene_message`]: `{"type": "scene", ...}`: every body (in [`World::bodies`] order; a
//!   body's position in that list is its id in frames and commands) with its kind, mass, centre
//!   of mass and colliders (shapes exactly as in scene files), and every joint with its frames.
//! - [`settings_message`]: `{"type": "settings", ...}`: the solver settings and gravity.
//! - [`encode_frame`]: one binary frame (little-endian, layout below), the pose and state of
//!   every body after a step; [`decode_frame`] reads one back.
//!
//! ```text
//! offset  type        field
//! 0       u32         magic 0x31524D46 ("FMR1")
//! 4       u32         step number since the scene was loaded
//! 8       f32         simulated time, s
//! 12      u32         body count N (same order as the scene message)
//! 16      u32         contact point count C (0 unless contacts are included)
//! 20      u32         touching pairs
//! 24      u32         awake bodies
//! 28      u32         joints
//! 32      f32 x 5     ms per step: broad phase, narrow phase, solve, sleep, total
//! 52      N × 32 B    per body: position f32×3, rotation f32×4 (x,y,z,w), flags u32
//!                     (bit 0 sleeping, bit 1 disabled)
//! ...     C × 24 B    per contact point: position f32×3, normal f32×3
//! ```

use std::collections::HashMap;

use fulcrum::scene::ShapeSpec;
use fulcrum::{BodyId, BodyKind, JointKind, Pose, Shape, World};
use serde::Serialize;

/// The frame's first four bytes, "FMR1" read as a little-endian u32.
pub const FRAME_MAGIC: u32 = 0x3152_4D46;
/// Bytes before the first body.
pub const FRAME_HEADER_BYTES: usize = 52;
/// Bytes per body.
pub const FRAME_BODY_BYTES: usize = 32;
/// Bytes per contact point.
pub const FRAME_CONTACT_BYTES: usize = 24;
/// Body flag: the body is asleep.
pub const FLAG_SLEEPING: u32 = 1;
/// Body flag: the world took the body out of the simulation (its state became non-finite).
pub const FLAG_DISABLED: u32 = 2;

/// The `scene` message as JSON text: `name` is the scene's name shown by the page (a sample
/// name or a file name).
///
/// Bodies are listed in [`World::bodies`] order (disabled ones too, so that indices match the
/// frames); each body: `name`, `kind` (`static`, `dynamic`, `kinematic`), `mass`,
/// `center_of_mass` (body frame), `colliders` (`shape` as in scene files, `position` and
/// `rotation` in the body frame, and `sensor`). Joints in [`World::joints`] order: `name`,
/// `kind` (the scene-file kind, `target` for a mouse joint), `body_a` (index or `null` for
/// the static world), `body_b`, `frame_a`, `frame_b` (each `{position, rotation}` in its
/// body's frame, world space for a world-attached A; X is the joint axis).
pub fn scene_message(world: &World, name: &str) -> String {
    let index = body_indices(world);
    let bodies = world
        .bodies()
        .map(|(_, body)| BodyMessage {
            name: body.name(),
            kind: kind_name(body.kind()),
            mass: body.mass(),
            center_of_mass: body.local_center_of_mass().to_array(),
            colliders: body
                .colliders()
                .iter()
                .filter_map(|&id| world.collider(id))
                .map(|collider| {
                    let pose = collider.local_pose();
                    ColliderMessage {
                        shape: shape_spec(collider.shape()),
                        position: pose.position.to_array(),
                        rotation: pose.rotation.to_array(),
                        sensor: collider.is_sensor(),
                    }
                })
                .collect(),
        })
        .collect();
    let joints = world
        .joints()
        .filter_map(|(_, joint)| {
            let body_b = *index.get(&joint.body_b())?;
            let body_a = match joint.body_a() {
                Some(a) => Some(*index.get(&a)?),
                None => None,
            };
            Some(JointMessage {
                name: joint.name(),
                kind: joint_kind_name(joint.kind()),
                body_a,
                body_b,
                frame_a: FrameMessage::of(joint.local_frame_a()),
                frame_b: FrameMessage::of(joint.local_frame_b()),
            })
        })
        .collect();
    to_json(&SceneMessage { kind: "scene", name, bodies, joints })
}

/// The `settings` message as JSON text: `solver` with the field names of the scene format's
/// `solver` object plus `substeps` and `block_solver`, `gravity`, and (beyond the protocol,
/// for display) `timestep` and `sleep`.
pub fn settings_message(world: &World) -> String {
    let settings = world.settings();
    let s = &settings.solver;
    to_json(&SettingsMessage {
        kind: "settings",
        solver: SolverMessage {
            mode: s.mode,
            substeps: s.substeps,
            iterations: s.iterations,
            position_iterations: s.position_iterations,
            relax: s.relax,
            warm_start: s.warm_start,
            block_solver: s.block_solver,
            exact_joint_trees: s.exact_joint_trees,
            position_correction: s.position_correction,
            baumgarte: s.baumgarte,
            contact_hertz: s.contact_hertz,
            contact_damping_ratio: s.contact_damping_ratio,
            joint_hertz: s.joint_hertz,
            joint_damping_ratio: s.joint_damping_ratio,
            max_push_velocity: s.max_push_velocity,
            restitution_threshold: s.restitution_threshold,
            linear_slop: s.linear_slop,
            speculative_distance: s.speculative_distance,
        },
        gravity: settings.gravity.to_array(),
        timestep: settings.timestep,
        sleep: settings.sleep,
    })
}

/// Appends one binary frame describing `world` now to `out` (layout in the module docs).
/// `step` is the step number since the scene was loaded (usually [`World::step_count`]).
/// Contact points (position and the pair's normal, A to B) are written when `with_contacts`;
/// otherwise C is 0.
pub fn encode_frame(world: &World, step: u64, with_contacts: bool, out: &mut Vec<u8>) {
    let timings = world.timings();
    let mut touching_pairs = 0u32;
    let mut points: Vec<[f32; 6]> = Vec::new();
    for contact in world.contacts() {
        touching_pairs += 1;
        if with_contacts {
            let n = contact.normal.to_array();
            points.extend(contact.points.iter().map(|p| [p.position.x, p.position.y, p.position.z, n[0], n[1], n[2]]));
        }
    }
    let body_count = world.body_count();
    out.reserve(FRAME_HEADER_BYTES + body_count * FRAME_BODY_BYTES + points.len() * FRAME_CONTACT_BYTES);
    let u32s = |out: &mut Vec<u8>, values: &[u32]| values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
    let f32s = |out: &mut Vec<u8>, values: &[f32]| values.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
    u32s(out, &[FRAME_MAGIC, saturate(step)]);
    f32s(out, &[world.time() as f32]);
    u32s(
        out,
        &[
            saturate(body_count as u64),
            saturate(points.len() as u64),
            touching_pairs,
            saturate(world.awake_body_count() as u64),
            saturate(world.joint_count() as u64),
        ],
    );
    f32s(
        out,
        &[timings.broad_phase_ms, timings.narrow_phase_ms, timings.solve_ms, timings.sleep_ms, timings.total_ms]
            .map(|ms| ms as f32),
    );
    for (_, body) in world.bodies() {
        let flags =
            if body.is_sleeping() { FLAG_SLEEPING } else { 0 } | if body.is_enabled() { 0 } else { FLAG_DISABLED };
        f32s(out, &body.position().to_array());
        f32s(out, &body.rotation().to_array());
        u32s(out, &[flags]);
    }
    for point in &points {
        f32s(out, point);
    }
}

/// A frame read back by [`decode_frame`].
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// Step number since the scene was loaded.
    pub step: u32,
    /// Simulated time, s.
    pub time: f32,
    /// Touching contact pairs.
    pub touching_pairs: u32,
    /// Awake bodies.
    pub awake: u32,
    /// Joints.
    pub joints: u32,
    /// Milliseconds per stage: broad phase, narrow phase, solve, sleep, total.
    pub ms: [f32; 5],
    /// Per body: position, rotation `[x, y, z, w]`, flags.
    pub bodies: Vec<([f32; 3], [f32; 4], u32)>,
    /// Per contact point: position, normal.
    pub contacts: Vec<([f32; 3], [f32; 3])>,
}

/// Reads the frame at the start of `bytes`; returns it and its length in bytes (frames can be
/// stored back to back). Fails on a wrong magic number or a truncated frame.
pub fn decode_frame(bytes: &[u8]) -> Result<(Frame, usize), String> {
    let word = |at: usize| -> Result<[u8; 4], String> {
        bytes.get(at..at + 4).map(|b| [b[0], b[1], b[2], b[3]]).ok_or_else(|| format!("frame truncated at byte {at}"))
    };
    let u = |at: usize| word(at).map(u32::from_le_bytes);
    let f = |at: usize| word(at).map(f32::from_le_bytes);
    let magic = u(0)?;
    if magic != FRAME_MAGIC {
        return Err(format!("bad frame magic {magic:#010x}"));
    }
    let (n, c) = (u(12)? as usize, u(16)? as usize);
    let len = FRAME_HEADER_BYTES + n * FRAME_BODY_BYTES + c * FRAME_CONTACT_BYTES;
    if bytes.len() < len {
        return Err(format!("frame of {n} bodies and {c} contact points needs {len} bytes, got {}", bytes.len()));
    }
    let f3 = |at: usize| -> Result<[f32; 3], String> { Ok([f(at)?, f(at + 4)?, f(at + 8)?]) };
    let mut bodies = Vec::with_capacity(n);
    for i in 0..n {
        let at = FRAME_HEADER_BYTES + i * FRAME_BODY_BYTES;
        bodies.push((f3(at)?, [f(at + 12)?, f(at + 16)?, f(at + 20)?, f(at + 24)?], u(at + 28)?));
    }
    let mut contacts = Vec::with_capacity(c);
    for i in 0..c {
        let at = FRAME_HEADER_BYTES + n * FRAME_BODY_BYTES + i * FRAME_CONTACT_BYTES;
        contacts.push((f3(at)?, f3(at + 12)?));
    }
    let frame = Frame {
        step: u(4)?,
        time: f(8)?,
        touching_pairs: u(20)?,
        awake: u(24)?,
        joints: u(28)?,
        ms: [f(32)?, f(36)?, f(40)?, f(44)?, f(48)?],
        bodies,
        contacts,
    };
    Ok((frame, len))
}

/// The position of each body in [`World::bodies`] order: its index in scene messages, frames
/// and commands.
pub fn body_indices(world: &World) -> HashMap<BodyId, usize> {
    world.bodies().enumerate().map(|(i, (id, _))| (id, i)).collect()
}

/// The body at position `index` of [`World::bodies`] (the id a page sends in commands).
pub fn body_at(world: &World, index: usize) -> Option<BodyId> {
    world.bodies().nth(index).map(|(id, _)| id)
}

fn saturate(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

fn kind_name(kind: BodyKind) -> &'static str {
    match kind {
        BodyKind::Static => "static",
        BodyKind::Dynamic => "dynamic",
        BodyKind::Kinematic => "kinematic",
    }
}

fn joint_kind_name(kind: &JointKind) -> &'static str {
    match kind {
        JointKind::Ball { .. } => "ball",
        JointKind::Hinge { .. } => "hinge",
        JointKind::Prismatic { .. } => "prismatic",
        JointKind::Line { .. } => "line",
        JointKind::Distance { .. } => "distance",
        JointKind::Weld { .. } => "weld",
        JointKind::Angle { .. } => "angle",
        JointKind::Pulley { .. } => "pulley",
        JointKind::Gear { .. } => "gear",
        JointKind::SixDof { .. } => "six_dof",
        JointKind::Target { .. } => "target",
    }
}

/// A shape as a scene file writes it.
fn shape_spec(shape: &Shape) -> ShapeSpec {
    match shape {
        Shape::Sphere(s) => ShapeSpec::sphere(s.radius),
        Shape::Cuboid(s) => ShapeSpec::cuboid(s.half_extents.to_array()),
        Shape::Capsule(s) => ShapeSpec::capsule(s.half_height, s.radius),
        Shape::Cylinder(s) => ShapeSpec::cylinder(s.half_height, s.radius),
        Shape::ConvexHull(hull) => ShapeSpec::convex_hull(hull.vertices.iter().map(|v| v.to_array()).collect()),
        Shape::Plane(p) => ShapeSpec::plane(p.normal.to_array(), p.offset),
    }
}

fn to_json<T: Serialize>(value: &T) -> String {
    // Cannot fail: plain structs of strings, numbers and arrays. A non-finite number (a
    // disabled body's mass cannot be one; settings are validated) would be written as null.
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"type\":\"error\",\"message\":\"{e}\"}}"))
}

#[derive(Serialize)]
struct SceneMessage<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    bodies: Vec<BodyMessage<'a>>,
    joints: Vec<JointMessage<'a>>,
}

#[derive(Serialize)]
struct BodyMessage<'a> {
    name: &'a str,
    kind: &'static str,
    mass: f32,
    center_of_mass: [f32; 3],
    colliders: Vec<ColliderMessage>,
}

#[derive(Serialize)]
struct ColliderMessage {
    shape: ShapeSpec,
    position: [f32; 3],
    rotation: [f32; 4],
    sensor: bool,
}

#[derive(Serialize)]
struct JointMessage<'a> {
    name: &'a str,
    kind: &'static str,
    body_a: Option<usize>,
    body_b: usize,
    frame_a: FrameMessage,
    frame_b: FrameMessage,
}

#[derive(Serialize)]
struct FrameMessage {
    position: [f32; 3],
    rotation: [f32; 4],
}

impl FrameMessage {
    fn of(pose: Pose) -> Self {
        FrameMessage { position: pose.position.to_array(), rotation: pose.rotation.to_array() }
    }
}

#[derive(Serialize)]
struct SettingsMessage {
    #[serde(rename = "type")]
    kind: &'static str,
    solver: SolverMessage,
    gravity: [f32; 3],
    timestep: f32,
    sleep: bool,
}

#[derive(Serialize)]
struct SolverMessage {
    mode: fulcrum::SolverMode,
    substeps: u32,
    iterations: u32,
    position_iterations: u32,
    relax: bool,
    warm_start: bool,
    block_solver: bool,
    exact_joint_trees: bool,
    position_correction: fulcrum::PositionCorrection,
    baumgarte: f32,
    contact_hertz: f32,
    contact_damping_ratio: f32,
    joint_hertz: f32,
    joint_damping_ratio: f32,
    max_push_velocity: f32,
    restitution_threshold: f32,
    linear_slop: f32,
    speculative_distance: f32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use fulcrum::Scene;

    fn sample(name: &str) -> World {
        let path = format!("{}/../../scenes/{name}.json", env!("CARGO_MANIFEST_DIR"));
        Scene::load(path).unwrap().build().unwrap().0
    }

    #[test]
    fn scene_message_lists_every_body_collider_and_joint() {
        let world = sample("newtons_cradle");
        let message: serde_json::Value = serde_json::from_str(&scene_message(&world, "newtons_cradle")).unwrap();
        assert_eq!(message["type"], "scene");
        assert_eq!(message["name"], "newtons_cradle");
        let bodies = message["bodies"].as_array().unwrap();
        assert_eq!(bodies.len(), world.body_count());
        for ((_, body), sent) in world.bodies().zip(bodies) {
            assert_eq!(sent["name"], body.name());
            assert_eq!(sent["colliders"].as_array().unwrap().len(), body.colliders().len());
            assert!(sent["colliders"][0]["shape"]["type"].is_string());
            assert_eq!(sent["center_of_mass"].as_array().unwrap().len(), 3);
        }
        let joints = message["joints"].as_array().unwrap();
        assert_eq!(joints.len(), world.joint_count());
        assert!(joints.iter().all(|j| j["body_b"].is_u64() && j["frame_a"]["rotation"].as_array().unwrap().len() == 4));
    }

    #[test]
    fn every_shape_kind_is_written_as_in_scene_files() {
        let text = r#"{"format": 1, "bodies": [
            {"name": "ground", "kind": "static", "colliders": [{"shape": {"type": "plane", "normal": [0, 1, 0], "offset": 0}}]},
            {"name": "mix", "position": [0, 2, 0], "colliders": [
                {"shape": {"type": "sphere", "radius": 0.5}},
                {"shape": {"type": "box", "half_extents": [0.5, 0.25, 0.125]}, "position": [1, 0, 0]},
                {"shape": {"type": "capsule", "half_height": 0.5, "radius": 0.2}},
                {"shape": {"type": "cylinder", "half_height": 0.3, "radius": 0.4}},
                {"shape": {"type": "convex_hull", "points": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]]}, "sensor": true}]}]}"#;
        let world = Scene::from_json_str(text, "shapes").unwrap().build().unwrap().0;
        let message: serde_json::Value = serde_json::from_str(&scene_message(&world, "shapes")).unwrap();
        let shapes: Vec<&str> = message["bodies"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|b| b["colliders"].as_array().unwrap().iter().map(|c| c["shape"]["type"].as_str().unwrap()))
            .collect();
        assert_eq!(shapes, ["plane", "sphere", "box", "capsule", "cylinder", "convex_hull"]);
        let mix = &message["bodies"][1]["colliders"];
        assert_eq!(mix[1]["shape"]["half_extents"], serde_json::json!([0.5, 0.25, 0.125]));
        assert_eq!(mix[1]["position"], serde_json::json!([1.0, 0.0, 0.0]));
        assert_eq!(mix[4]["shape"]["points"].as_array().unwrap().len(), 4);
        assert_eq!(mix[4]["sensor"], true);
        assert_eq!(message["bodies"][0]["kind"], "static");
    }

    #[test]
    fn frames_round_trip_with_and_without_contacts() {
        let mut world = sample("pyramid");
        for _ in 0..30 {
            world.step(world.settings().timestep).unwrap();
        }
        let mut bytes = Vec::new();
        encode_frame(&world, world.step_count(), false, &mut bytes);
        assert_eq!(bytes.len(), FRAME_HEADER_BYTES + world.body_count() * FRAME_BODY_BYTES);
        assert_eq!(&bytes[..4], b"FMR1");
        let (frame, len) = decode_frame(&bytes).unwrap();
        assert_eq!(len, bytes.len());
        assert_eq!(frame.step, 30);
        assert!((frame.time - world.time() as f32).abs() < 1e-6);
        assert_eq!(frame.touching_pairs as usize, world.contacts().count());
        assert_eq!(frame.awake as usize, world.awake_body_count());
        assert!(frame.contacts.is_empty());
        for ((_, body), (p, q, flags)) in world.bodies().zip(&frame.bodies) {
            assert_eq!(*p, body.position().to_array());
            assert_eq!(*q, body.rotation().to_array());
            assert_eq!(*flags & FLAG_SLEEPING != 0, body.is_sleeping());
        }
        let mut with_contacts = Vec::new();
        encode_frame(&world, world.step_count(), true, &mut with_contacts);
        let (frame, len) = decode_frame(&with_contacts).unwrap();
        assert_eq!(len, with_contacts.len());
        assert_eq!(frame.contacts.len(), world.contact_point_count());
        assert!(!frame.contacts.is_empty());
        assert!(frame.contacts.iter().all(|(_, n)| (n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1.0).abs() < 1e-4));
        assert!(decode_frame(&with_contacts[..len - 1]).is_err());
        assert!(decode_frame(&[0u8; 60]).is_err());
    }
}
