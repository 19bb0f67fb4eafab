//! Writing a world back as a scene: every setting, body and collider with every field given
//! explicitly, so the file does not depend on the defaults of the engine that reads it.

use std::collections::BTreeSet;

use super::types::{BodySpec, ColliderSpec, Rotation, SettingsSpec, ShapeSpec, SolverSpec};
use super::validate::FORMAT_VERSION;
use super::Scene;
use crate::body::Body;
use crate::collider::Collider;
use crate::shape::Shape;
use crate::world::{World, WorldSettings};

/// The scene describing `world` now: its settings, and its enabled bodies in creation-slot
/// order with their current poses and velocities. Bodies keep their names; an unnamed body or a
/// repeated name gets a generated one (`body<slot>`, suffixed until unique). Bodies the world
/// took out of the simulation (non-finite state) are left out.
pub(crate) fn scene_from_world(world: &World) -> Scene {
    let bodies: Vec<&Body> = world.bodies().map(|(_, body)| body).filter(|body| body.is_enabled()).collect();
    let names = unique_names(&bodies);
    let bodies = bodies
        .iter()
        .zip(names)
        .map(|(body, name)| {
            let colliders = body.colliders().iter().filter_map(|&id| world.collider(id)).map(collider_spec).collect();
            BodySpec { colliders, ..body_spec(body, name) }
        })
        .collect();
    Scene {
        format: FORMAT_VERSION,
        description: None,
        settings: settings_spec(world.settings()),
        materials: Default::default(),
        bodies,
        joints: Vec::new(),
        source: String::new(),
    }
}

/// Each body's own name where it is non-empty and its first use; a generated name otherwise.
/// All given names are reserved first so that a generated name never takes a later body's.
fn unique_names(bodies: &[&Body]) -> Vec<String> {
    let mut used: BTreeSet<String> = bodies.iter().map(|b| b.name().to_string()).filter(|n| !n.is_empty()).collect();
    let mut kept: BTreeSet<&str> = BTreeSet::new();
    let mut names = Vec::with_capacity(bodies.len());
    for (slot, body) in bodies.iter().enumerate() {
        let own = body.name();
        if !own.is_empty() && kept.insert(own) {
            names.push(own.to_string());
            continue;
        }
        let base = format!("body{slot}");
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
        substeps: Some(s.substeps),
        sleep: Some(settings.sleep),
        solver: Some(SolverSpec {
            mode: Some(s.mode),
            substeps: None,
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
        ..ColliderSpec::new(shape_spec(collider.shape()))
    }
}

/// The file form of an engine shape (a hull is written as its vertices).
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
