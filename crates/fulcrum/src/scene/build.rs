//! Building a validated scene into a fresh [`World`]: settings, bodies in file order, their
//! colliders with materials resolved. Defaults are the engine's own (`WorldSettings::default()`,
//! `BodyDef::default()`, `ColliderDef::new`), so an omitted field means the same in a file as in
//! code.

use std::collections::BTreeMap;

use super::types::{BodySpec, ColliderSpec, MaterialSpec, SettingsSpec, ShapeSpec, ShapeType};
use super::validate::{check_rotation_at, fail, required, shape_type_name};
use super::{Scene, SceneIndex};
use crate::body::BodyDef;
use crate::collider::ColliderDef;
use crate::error::Result;
use crate::math::Vec3;
use crate::shape::Shape;
use crate::world::{World, WorldSettings};

/// World settings: `WorldSettings::default()` with the given fields replaced.
pub(crate) fn world_settings(spec: &SettingsSpec) -> WorldSettings {
    let mut settings = WorldSettings::default();
    let s = &mut settings.solver;
    if let Some(gravity) = spec.gravity {
        settings.gravity = Vec3::from_array(gravity);
    }
    if let Some(timestep) = spec.timestep {
        settings.timestep = timestep;
    }
    if let Some(sleep) = spec.sleep {
        settings.sleep = sleep;
    }
    if let Some(solver) = &spec.solver {
        set(&mut s.mode, solver.mode);
        set(&mut s.substeps, solver.substeps);
        set(&mut s.iterations, solver.iterations);
        set(&mut s.position_iterations, solver.position_iterations);
        set(&mut s.relax, solver.relax);
        set(&mut s.warm_start, solver.warm_start);
        set(&mut s.position_correction, solver.position_correction);
        set(&mut s.baumgarte, solver.baumgarte);
        set(&mut s.contact_hertz, solver.contact_hertz);
        set(&mut s.contact_damping_ratio, solver.contact_damping_ratio);
        set(&mut s.joint_hertz, solver.joint_hertz);
        set(&mut s.joint_damping_ratio, solver.joint_damping_ratio);
        set(&mut s.max_push_velocity, solver.max_push_velocity);
        set(&mut s.restitution_threshold, solver.restitution_threshold);
        set(&mut s.linear_slop, solver.linear_slop);
        set(&mut s.speculative_distance, solver.speculative_distance);
    }
    set(&mut s.substeps, spec.substeps);
    settings
}

/// Replaces `target` when `value` is given.
fn set<T>(target: &mut T, value: Option<T>) {
    if let Some(value) = value {
        *target = value;
    }
}

/// Builds the scene into a fresh world. The scene must have been validated; errors that only
/// building can find (features the engine lacks, shapes the engine refuses) name their path.
pub(crate) fn build_world(scene: &Scene) -> Result<(World, SceneIndex)> {
    if !scene.joints.is_empty() {
        let reason =
            format!("joints cannot be built yet: the engine has no joints (this scene has {})", scene.joints.len());
        return Err(fail("joints[0]", reason));
    }
    refuse_unsupported_shapes(&scene.bodies)?;
    let mut world = World::new(world_settings(&scene.settings)).map_err(|e| e.within("settings"))?;
    let mut index = SceneIndex::default();
    for (i, spec) in scene.bodies.iter().enumerate() {
        let path = format!("bodies[{i}]");
        let id = world.create_body(&body_def(spec)?).map_err(|e| e.within(&path))?;
        for (j, collider) in spec.colliders.iter().enumerate() {
            let path = format!("{path}.colliders[{j}]");
            let def = collider_def(collider, &scene.materials).map_err(|e| e.within(&path))?;
            world.create_collider(id, &def).map_err(|e| e.within(&path))?;
        }
        index.push(spec.name.clone(), id);
    }
    Ok((world, index))
}

/// Shapes the format describes but the engine cannot simulate yet.
fn refuse_unsupported_shapes(bodies: &[BodySpec]) -> Result<()> {
    for (i, body) in bodies.iter().enumerate() {
        for (j, collider) in body.colliders.iter().enumerate() {
            if matches!(collider.shape.kind, ShapeType::Trimesh | ShapeType::Heightfield) {
                let name = shape_type_name(collider.shape.kind);
                let reason = format!("{name} shapes are not supported yet: the engine cannot simulate them");
                return Err(fail(format!("bodies[{i}].colliders[{j}].shape"), reason));
            }
        }
    }
    Ok(())
}

/// The body definition: `BodyDef::default()` with the given fields replaced.
fn body_def(spec: &BodySpec) -> Result<BodyDef> {
    let mut def = BodyDef { name: spec.name.clone(), kind: spec.kind_or_default(), ..BodyDef::default() };
    if let Some(position) = spec.position {
        def.position = Vec3::from_array(position);
    }
    if let Some(rotation) = &spec.rotation {
        def.rotation = check_rotation_at("rotation", rotation)?;
    }
    if let Some(v) = spec.linear_velocity {
        def.linear_velocity = Vec3::from_array(v);
    }
    if let Some(w) = spec.angular_velocity {
        def.angular_velocity = Vec3::from_array(w);
    }
    set(&mut def.linear_damping, spec.linear_damping);
    set(&mut def.angular_damping, spec.angular_damping);
    set(&mut def.gravity_scale, spec.gravity_scale);
    def.mass = spec.mass;
    set(&mut def.can_sleep, spec.can_sleep);
    set(&mut def.bullet, spec.bullet);
    set(&mut def.awake, spec.awake);
    Ok(def)
}

/// The collider definition: `ColliderDef::new` defaults, then the material's fields, then the
/// collider's own.
fn collider_def(spec: &ColliderSpec, materials: &BTreeMap<String, MaterialSpec>) -> Result<ColliderDef> {
    let shape = build_shape(&spec.shape).map_err(|e| e.within("shape"))?;
    let mut def = ColliderDef::new(shape);
    if let Some(name) = &spec.material {
        let material = materials.get(name).ok_or_else(|| fail("material", format!("unknown material \"{name}\"")))?;
        set(&mut def.density, material.density);
        set(&mut def.friction, material.friction);
        set(&mut def.restitution, material.restitution);
    }
    set(&mut def.density, spec.density);
    set(&mut def.friction, spec.friction);
    set(&mut def.restitution, spec.restitution);
    set(&mut def.sensor, spec.sensor);
    if let Some(position) = spec.position {
        def.position = Vec3::from_array(position);
    }
    if let Some(rotation) = &spec.rotation {
        def.rotation = check_rotation_at("rotation", rotation)?;
    }
    Ok(def)
}

/// The engine shape of a shape spec (paths relative to the shape).
fn build_shape(spec: &ShapeSpec) -> Result<Shape> {
    let radius = || required(spec, "radius", &spec.radius).copied();
    let half_height = || required(spec, "half_height", &spec.half_height).copied();
    match spec.kind {
        ShapeType::Sphere => Shape::sphere(radius()?),
        ShapeType::Box => {
            let half_extents = Vec3::from_array(*required(spec, "half_extents", &spec.half_extents)?);
            Shape::cuboid(half_extents).map_err(|e| rename_axes(e, "half_extents"))
        }
        ShapeType::Capsule => Shape::capsule(half_height()?, radius()?),
        ShapeType::Cylinder => Shape::cylinder(half_height()?, radius()?),
        ShapeType::ConvexHull => {
            let points: Vec<Vec3> =
                required(spec, "points", &spec.points)?.iter().map(|&p| Vec3::from_array(p)).collect();
            Shape::convex_hull(&points)
        }
        ShapeType::Plane => {
            let normal = Vec3::from_array(*required(spec, "normal", &spec.normal)?);
            Shape::plane(normal, *required(spec, "offset", &spec.offset)?)
        }
        ShapeType::Trimesh | ShapeType::Heightfield | ShapeType::Compound => {
            Err(fail("type", format!("{} shapes cannot be built", shape_type_name(spec.kind))))
        }
    }
}

/// The engine names vector components `.x/.y/.z`; scene paths index arrays `[0]/[1]/[2]`.
fn rename_axes(mut error: crate::Error, field: &str) -> crate::Error {
    for (axis, index) in [("x", 0), ("y", 1), ("z", 2)] {
        if error.field == format!("{field}.{axis}") {
            error.field = format!("{field}[{index}]");
        }
    }
    error
}
