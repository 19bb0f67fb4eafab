//! Writing a world back as a scene: every setting, body, collider, joint, character, cloth and
//! rope with
//! every field given explicitly, so the file does not depend on the defaults of the engine that reads it.

use std::collections::BTreeSet;

use super::{Scene, SceneBody, SceneCloth, SceneCollider, SceneIndex, SceneJoint, SceneRope};
use crate::body::{Body, BodyDef};
use crate::character::CharacterDef;
use crate::collider::{Collider, ColliderDef};
use crate::error::{Error, Result};
use crate::id::{BodyId, JointId};
use crate::joint::{Joint, JointDef, JointKind};
use crate::particles::{Attachment, ClothDef, Particles, RopeDef};
use crate::world::World;

/// The scene describing `world` now: its settings, its enabled bodies in creation-slot order
/// with their current poses and velocities, and its joints. Bodies keep their names; an unnamed
/// body or a repeated name gets a generated one (`body<slot>`, suffixed until unique). Bodies
/// the world took out of the simulation (non-finite state) are left out, and so are the joints
/// on them.
pub(crate) fn scene_from_world(world: &World) -> Scene {
    let bodies: Vec<(BodyId, &Body)> = world.bodies().filter(|(_, body)| body.is_enabled()).collect();
    let own: Vec<&str> = bodies.iter().map(|(_, body)| body.name()).collect();
    let names = unique_names(&own, "body");
    let mut index = SceneIndex::default();
    for ((id, _), name) in bodies.iter().zip(&names) {
        index.push(name.clone(), *id);
    }
    let scene_bodies = bodies
        .iter()
        .zip(names)
        .map(|((_, body), name)| {
            let colliders = body.colliders().iter().filter_map(|&id| world.collider(id));
            SceneBody {
                def: BodyDef { name, ..body_def(body) },
                colliders: colliders.map(|c| SceneCollider::new(collider_def(c))).collect(),
            }
        })
        .collect();
    let names_by_id = index.clone();
    let joints = joint_entries(world, index);
    Scene {
        settings: *world.settings(),
        bodies: scene_bodies,
        joints,
        characters: characters(world),
        cloths: cloths(world, &names_by_id),
        ropes: ropes(world, &names_by_id),
        ..Scene::default()
    }
}

/// Every cloth as its definition (named like bodies: `cloth<slot>`), with the particles pinned
/// now and its attachments to the bodies still there, each anchor where the body's point is
/// now. The particles start again from the definition's flat grid.
fn cloths(world: &World, bodies: &SceneIndex) -> Vec<SceneCloth> {
    let own: Vec<&str> = world.cloths().map(|(_, c)| c.name()).collect();
    let names = unique_names(&own, "cloth");
    let cloths = world.cloths().zip(names);
    cloths
        .map(|((_, cloth), name)| {
            let columns = cloth.def().grid()[0];
            let cell = |i: u32| [i % columns, i / columns];
            let (pinned, attached) = particle_ties(world, cloth.particles(), bodies, cell);
            let bare = ClothDef { attached: Vec::new(), ..cloth.def().clone() };
            let def = bare.map_bodies(|_, _| Ok(String::new())).unwrap_or_default();
            ClothDef { name, pinned, attached, ..def }
        })
        .collect()
}

/// Every rope as its definition, as [`cloths`] writes cloths.
fn ropes(world: &World, bodies: &SceneIndex) -> Vec<SceneRope> {
    let own: Vec<&str> = world.ropes().map(|(_, r)| r.name()).collect();
    let names = unique_names(&own, "rope");
    let ropes = world.ropes().zip(names);
    ropes
        .map(|((_, rope), name)| {
            let (pinned, attached) = particle_ties(world, rope.particles(), bodies, |i| i);
            let bare = RopeDef { attached: Vec::new(), ..rope.def().clone() };
            let def = bare.map_bodies(|_, _| Ok(String::new())).unwrap_or_default();
            RopeDef { name, pinned, attached, ..def }
        })
        .collect()
}

/// The pinned particles and the attachments (to bodies the scene names) of a particle set,
/// particles numbered by `number`.
fn particle_ties<P>(
    world: &World,
    particles: &Particles,
    bodies: &SceneIndex,
    number: impl Fn(u32) -> P,
) -> (Vec<P>, Vec<Attachment<P, String>>) {
    let pinned = (0..particles.len()).filter(|&i| particles.is_pinned(i)).map(|i| number(i as u32)).collect();
    let attached = particles
        .attachments
        .iter()
        .filter_map(|a| {
            let (name, body) = (bodies.name(a.body)?, world.body(a.body)?);
            let anchor = body.pose().transform_point(a.local_anchor);
            Some(Attachment { particle: number(a.particle), body: name.to_string(), anchor })
        })
        .collect();
    (pinned, attached)
}

/// Every character as its definition with the position it has now (named like bodies:
/// `character<slot>` when unnamed or repeated). Its script is kept whole: a reloaded world's
/// time starts again at 0.
fn characters(world: &World) -> Vec<CharacterDef> {
    let own: Vec<&str> = world.characters().map(|(_, c)| c.name()).collect();
    let names = unique_names(&own, "character");
    world
        .characters()
        .zip(names)
        .map(|((_, character), name)| CharacterDef { name, position: character.position(), ..character.def().clone() })
        .collect()
}

/// Every joint whose bodies are kept, in creation-slot order, with its frames in each body's
/// frame (`local_anchor_*`, `local_frame_*`: the joint comes back at the angle and slide it
/// has now) and its options as they are now. A broken joint is saved disabled. Joints keep
/// their names; a hinge a gear refers to gets a generated one (`joint<slot>`) when it has none
/// or repeats another's; other unnamed joints stay unnamed.
fn joint_entries(world: &World, mut index: SceneIndex) -> Vec<SceneJoint> {
    let kept = |id: Option<BodyId>| id.is_none_or(|id| index.name(id).is_some());
    let mut joints: Vec<(JointId, &Joint)> =
        world.joints().filter(|(_, joint)| kept(joint.body_a()) && kept(Some(joint.body_b()))).collect();
    let present: BTreeSet<JointId> = joints.iter().map(|(id, _)| *id).collect();
    joints.retain(|(_, joint)| match *joint.kind() {
        JointKind::Gear { hinge_a, hinge_b, .. } => present.contains(&hinge_a) && present.contains(&hinge_b),
        _ => true,
    });
    let geared: BTreeSet<JointId> = joints
        .iter()
        .filter_map(|(_, joint)| match *joint.kind() {
            JointKind::Gear { hinge_a, hinge_b, .. } => Some([hinge_a, hinge_b]),
            _ => None,
        })
        .flatten()
        .collect();
    let own: Vec<&str> = joints.iter().map(|(_, joint)| joint.name()).collect();
    let names = unique_names(&own, "joint");
    let mut written_names = Vec::with_capacity(joints.len());
    for ((id, joint), name) in joints.iter().zip(names) {
        let written = !joint.name().is_empty() || geared.contains(id);
        written_names.push(if written { name.clone() } else { String::new() });
        index.push_joint(name, *id);
    }
    joints
        .iter()
        .zip(written_names)
        // Cannot fail: every body and hinge is in `index`.
        .filter_map(|((_, joint), name)| named(stored_def(joint, name), &index).ok())
        .collect()
}

/// The definition that re-creates a stored joint as it is now.
fn stored_def(joint: &Joint, name: String) -> JointDef {
    let (a, b) = (joint.local_frame_a(), joint.local_frame_b());
    let mut def = JointDef::new(*joint.kind(), joint.body_a(), joint.body_b(), a.position)
        .with_local_anchors(a.position, b.position)
        .with_local_frames(a.rotation, b.rotation)
        .with_collide_connected(joint.collide_connected())
        .with_enabled(joint.is_enabled())
        .with_name(name);
    if matches!(joint.kind(), JointKind::Gear { .. }) {
        (def.body_a, def.body_b) = (None, None);
    }
    def.break_force = joint.break_force();
    def.break_torque = joint.break_torque();
    def
}

/// The definition with ids replaced by the names `index` gives them.
fn named(def: JointDef, index: &SceneIndex) -> Result<SceneJoint> {
    def.map_references(
        |field, id| index.name(id).map(str::to_string).ok_or_else(|| Error::new(field, "the body has no name")),
        |field, id| index.joint_name(id).map(str::to_string).ok_or_else(|| Error::new(field, "the joint has no name")),
    )
}

/// Each object's own name where it is non-empty and its first use; `<prefix><position>`
/// otherwise, suffixed `_2`, `_3`, … until unique. All given names are reserved first so that a
/// generated name never takes a later object's.
pub(super) fn unique_names(own_names: &[&str], prefix: &str) -> Vec<String> {
    let mut used: BTreeSet<String> = own_names.iter().filter(|n| !n.is_empty()).map(|n| n.to_string()).collect();
    let mut kept: BTreeSet<&str> = BTreeSet::new();
    let mut names = Vec::with_capacity(own_names.len());
    for (slot, &own) in own_names.iter().enumerate() {
        if !own.is_empty() && kept.insert(own) {
            names.push(own.to_string());
            continue;
        }
        let base = format!("{prefix}{slot}");
        let mut candidate = base.clone();
        let mut suffix = 2;
        while used.contains(&candidate) {
            candidate = format!("{base}_{suffix}");
            suffix += 1;
        }
        used.insert(candidate.clone());
        names.push(candidate);
    }
    names
}

/// A body's definition as it is now (every field explicit).
fn body_def(body: &Body) -> BodyDef {
    BodyDef {
        name: body.name().to_string(),
        kind: body.kind(),
        position: body.position(),
        rotation: body.rotation(),
        linear_velocity: body.linear_velocity(),
        angular_velocity: body.angular_velocity(),
        linear_damping: body.linear_damping(),
        angular_damping: body.angular_damping(),
        gravity_scale: body.gravity_scale(),
        mass: body.mass_override(),
        can_sleep: body.can_sleep(),
        bullet: body.is_bullet(),
        awake: !body.is_sleeping(),
    }
}

/// A collider's definition as it is now.
fn collider_def(collider: &Collider) -> ColliderDef {
    let pose = collider.local_pose();
    ColliderDef {
        shape: collider.shape().clone(),
        position: pose.position,
        rotation: pose.rotation,
        density: collider.density(),
        friction: collider.friction(),
        restitution: collider.restitution(),
        rolling_resistance: collider.rolling_resistance(),
        sensor: collider.is_sensor(),
        groups: collider.groups(),
    }
}
