//! Writing a world back as a scene: every setting, body, collider and joint with every field
//! given explicitly, so the file does not depend on the defaults of the engine that reads it.

use std::collections::BTreeSet;

use super::joint::JointSpec;
use super::joint_def::joint_spec;
use super::types::{BodySpec, ColliderSpec, GroupsSpec, Rotation, SettingsSpec, ShapeSpec, SolverSpec};
use super::validate::FORMAT_VERSION;
use super::{Scene, SceneIndex};
use crate::body::Body;
use crate::collider::Collider;
use crate::id::{BodyId, JointId};
use crate::joint::{Joint, JointDef, JointKind};
use crate::world::{World, WorldSettings};

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
    let specs = bodies
        .iter()
        .zip(names)
        .map(|((_, body), name)| {
            let colliders = body.colliders().iter().filter_map(|&id| world.collider(id)).map(collider_spec).collect();
            BodySpec { colliders, ..body_spec(body, name) }
        })
        .collect();
    Scene {
        format: FORMAT_VERSION,
        description: None,
        settings: settings_spec(world.settings()),
        materials: Default::default(),
        bodies: specs,
        joints: joint_specs(world, index),
        source: String::new(),
    }
}

/// Every joint whose bodies are kept, in creation-slot order, with its frames in each body's
/// frame (`local_anchor_*`, `local_frame_*`: the joint comes back at the angle and slide it
/// has now) and its options as they are now. A broken joint is saved disabled. Joints keep
/// their names; a hinge a gear refers to gets a generated one (`joint<slot>`) when it has none
/// or repeats another's; other unnamed joints stay unnamed.
fn joint_specs(world: &World, mut index: SceneIndex) -> Vec<JointSpec> {
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
        // Cannot fail: the anchors are local and every body and hinge is in `index`.
        .filter_map(|((_, joint), name)| joint_spec(&stored_def(joint, name), &index).ok())
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
    def.break_force = joint.break_force();
    def.break_torque = joint.break_torque();
    def
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

/// Every world setting, explicitly.
fn settings_spec(settings: &WorldSettings) -> SettingsSpec {
    let s = &settings.solver;
    SettingsSpec {
        gravity: Some(settings.gravity.to_array()),
        timestep: Some(settings.timestep),
        substeps: Some(settings.substeps),
        sleep: Some(settings.sleep),
        solver: Some(SolverSpec {
            substeps: None,
            mode: Some(s.mode),
            iterations: Some(s.iterations),
            position_iterations: Some(s.position_iterations),
            relax: Some(s.relax),
            warm_start: Some(s.warm_start),
            position_correction: Some(s.position_correction),
            baumgarte: Some(s.baumgarte),
            contact_hertz: Some(s.contact_hertz),
            contact_damping_ratio: Some(s.contact_damping_ratio),
            joint_hertz: Some(s.joint_hertz),
            joint_damping_ratio: Some(s.joint_damping_ratio),
            max_push_velocity: Some(s.max_push_velocity),
            restitution_threshold: Some(s.restitution_threshold),
            linear_slop: Some(s.linear_slop),
            speculative_distance: Some(s.speculative_distance),
            exact_joint_trees: Some(s.exact_joint_trees),
            block_solver: Some(s.block_solver),
        }),
    }
}

/// A body's fields (without colliders), explicitly.
fn body_spec(body: &Body, name: String) -> BodySpec {
    BodySpec {
        position: Some(body.position().to_array()),
        rotation: Some(Rotation::from_quat(body.rotation())),
        linear_velocity: Some(body.linear_velocity().to_array()),
        angular_velocity: Some(body.angular_velocity().to_array()),
        linear_damping: Some(body.linear_damping()),
        angular_damping: Some(body.angular_damping()),
        gravity_scale: Some(body.gravity_scale()),
        mass: body.mass_override(),
        can_sleep: Some(body.can_sleep()),
        bullet: Some(body.is_bullet()),
        awake: Some(!body.is_sleeping()),
        ..BodySpec::new(name, body.kind())
    }
}

/// A collider's fields, explicitly.
fn collider_spec(collider: &Collider) -> ColliderSpec {
    let pose = collider.local_pose();
    ColliderSpec {
        position: Some(pose.position.to_array()),
        rotation: Some(Rotation::from_quat(pose.rotation)),
        density: Some(collider.density()),
        friction: Some(collider.friction()),
        restitution: Some(collider.restitution()),
        sensor: Some(collider.is_sensor()),
        groups: Some(GroupsSpec {
            memberships: Some(collider.groups().memberships),
            filter: Some(collider.groups().filter),
        }),
        ..ColliderSpec::new(ShapeSpec::from(collider.shape()))
    }
}
