//! Building a validated scene into a fresh [`World`]: settings, bodies in file order, their
//! colliders with materials resolved, then the joints. Defaults are the engine's own
//! (`WorldSettings::default()`, `BodyDef::default()`, `ColliderDef::new`, `JointDef::new`), so
//! an omitted field means the same in a file as in code.

use std::collections::BTreeMap;

use super::from_world::unique_names;
use super::joint::{JointKind as FileKind, JointSpec};
use super::joint_def::{joint_def, Names};
use super::types::{BodySpec, ColliderSpec, MaterialSpec, SettingsSpec, ShapeSpec, ShapeType};
use super::validate::{check_rotation_at, fail, required, shape_type_name};
use super::{Scene, SceneIndex};
use crate::body::BodyDef;
use crate::collider::{ColliderDef, CollisionGroups};
use crate::error::{Error, Result};
use crate::id::{BodyId, JointId};
use crate::joint::{Anchors, JointDef, JointKind};
use crate::math::{Pose, Vec3};
use crate::shape::Shape;
use crate::world::{World, WorldSettings};

/// World settings: `WorldSettings::default()` with the given fields replaced.
pub(crate) fn world_settings(spec: &SettingsSpec) -> WorldSettings {
    let mut settings = WorldSettings::default();
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
        set(&mut settings.substeps, solver.substeps);
        let s = &mut settings.solver;
        set(&mut s.mode, solver.mode);
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
        set(&mut s.exact_joint_trees, solver.exact_joint_trees);
        set(&mut s.block_solver, solver.block_solver);
    }
    set(&mut settings.substeps, spec.substeps);
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
    build_joints(&scene.joints, &mut world, &mut index)?;
    Ok((world, index))
}

/// Bodies by the scene's names, and the joints created so far by theirs.
struct Building<'a> {
    index: &'a SceneIndex,
    joints: BTreeMap<&'a str, JointId>,
}

impl Names for Building<'_> {
    fn body_id(&self, name: &str) -> Option<BodyId> {
        self.index.body(name)
    }
    fn joint_id(&self, name: &str) -> Option<JointId> {
        self.joints.get(name).copied()
    }
    fn body_name(&self, id: BodyId) -> Option<&str> {
        self.index.name(id)
    }
    fn joint_name(&self, id: JointId) -> Option<&str> {
        self.joints.iter().find(|(_, &joint)| joint == id).map(|(name, _)| *name)
    }
}

/// Creates the joints: every other kind in file order, then the gears (which need their
/// hinges). Adds them to `index` in file order. An error names the joint (`joints[i]`) and
/// passes the engine's reason through.
fn build_joints(specs: &[JointSpec], world: &mut World, index: &mut SceneIndex) -> Result<()> {
    let is_gear = |i: &usize| specs[*i].kind == FileKind::Gear;
    let order: Vec<usize> = (0..specs.len()).filter(|i| !is_gear(i)).chain((0..specs.len()).filter(is_gear)).collect();
    let mut created: Vec<Option<JointId>> = vec![None; specs.len()];
    let mut building = Building { index, joints: BTreeMap::new() };
    for i in order {
        let path = format!("joints[{i}]");
        let spec = &specs[i];
        let hinge_body = |id: JointId| world.joint(id).map(|joint| joint.body_b());
        let mut def = joint_def(spec, &building, hinge_body).map_err(|e| e.within(&path))?;
        fix_creation_lengths(&mut def, world);
        let id = world.create_joint(&def).map_err(|e| scene_error(e).within(&path))?;
        if let Some(name) = spec.name.as_deref() {
            building.joints.insert(name, id);
        }
        created[i] = Some(id);
    }
    let own: Vec<&str> = specs.iter().map(|spec| spec.name.as_deref().unwrap_or_default()).collect();
    for (name, id) in unique_names(&own, "joint").into_iter().zip(created) {
        if let Some(id) = id {
            index.push_joint(name, id);
        }
    }
    Ok(())
}

/// A distance joint without a rest length takes the distance at creation. The file means the
/// distance at load time, so it is written into the definition where it matters (a rod; or a
/// spring with a maximum, whose minimum then becomes explicit: 0 when omitted, as the engine
/// reads a rope's): a world saved after moving reloads with the same lengths.
pub(super) fn fix_creation_lengths(def: &mut JointDef, world: &World) {
    let pose = |id: Option<BodyId>| id.and_then(|id| world.body(id)).map_or(Pose::IDENTITY, |body| body.pose());
    let (a, b) = match def.anchors {
        Anchors::Shared(p) => (p, p),
        Anchors::World { a, b } => (a, b),
        Anchors::Local { a, b } => (pose(def.body_a).transform_point(a), pose(def.body_b).transform_point(b)),
    };
    let distance = (b - a).length();
    if let JointKind::Distance { rest_length: rest @ None, min_length, max_length, spring } = &mut def.kind {
        match (*min_length, *max_length) {
            (None, None) => *rest = Some(distance),
            (min, Some(max)) if spring.is_some() => {
                let min = min.unwrap_or(0.0);
                *min_length = Some(min);
                *rest = Some(distance.clamp(min, max.max(min)));
            }
            _ => {}
        }
    }
}

/// An engine error in the scene's terms: the engine calls a joint's option fields
/// `kind.<field>` and its anchors and axes `anchors` and `axes`.
fn scene_error(mut error: Error) -> Error {
    let mut field = error.field.as_str();
    while let Some(rest) = field.strip_prefix("kind.") {
        field = rest;
    }
    let renamed = match field {
        "cone_limit" => "cone_limit_deg".to_string(),
        "twist_limits" => "twist_limits_deg".to_string(),
        f if f.starts_with("anchors") => "anchor".to_string(),
        f if f.starts_with("axes") => "axis".to_string(),
        f => f.to_string(),
    };
    error.field = renamed;
    error
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
    if let Some(groups) = spec.groups {
        let all = CollisionGroups::ALL;
        def.groups =
            CollisionGroups::new(groups.memberships.unwrap_or(all.memberships), groups.filter.unwrap_or(all.filter));
    }
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
