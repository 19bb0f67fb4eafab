//! Validation of a parsed scene: every value is checked before anything is built, and an
//! error names the JSON path of the offending value (`bodies[3].colliders[0].shape.radius`)
//! and why. Paths are built from the outside in: each level checks its own fields with paths
//! relative to itself and the caller prefixes them with [`Error::within`].

use std::collections::BTreeMap;

use super::build::world_settings;
use super::joint::validate_joints;
use super::types::{BodySpec, ColliderSpec, MaterialSpec, Rotation, SettingsSpec, ShapeSpec, ShapeType};
use super::Scene;
use crate::body::BodyKind;
use crate::error::{check_finite, check_non_negative, check_positive, check_rotation, Error, Result};
use crate::math::{Quat, Vec3};

/// The scene format version this engine reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// An error at `field` (a path relative to the caller) for `reason`.
pub(crate) fn fail(field: impl Into<String>, reason: impl Into<String>) -> Error {
    Error::new(field, reason)
}

/// `x` is finite.
pub(crate) fn check_finite_at(path: &str, x: f32) -> Result<()> {
    check_finite(path, x)
}

/// `x` is finite and > 0.
pub(crate) fn check_positive_at(path: &str, x: f32) -> Result<()> {
    check_positive(path, x)
}

/// `x` is finite and ≥ 0.
pub(crate) fn check_non_negative_at(path: &str, x: f32) -> Result<()> {
    check_non_negative(path, x)
}

/// Every component of `v` is finite; a bad one is named `path[i]`.
pub(crate) fn check_vec3_at(path: &str, v: &[f32; 3]) -> Result<()> {
    for (i, &c) in v.iter().enumerate() {
        check_finite(&format!("{path}[{i}]"), c)?;
    }
    Ok(())
}

/// Every component of `v` is finite and > 0.
fn check_positive_vec3_at(path: &str, v: &[f32; 3]) -> Result<()> {
    for (i, &c) in v.iter().enumerate() {
        check_positive(&format!("{path}[{i}]"), c)?;
    }
    Ok(())
}

/// A rotation that converts to a unit quaternion; returns it normalised.
pub(crate) fn check_rotation_at(path: &str, rotation: &Rotation) -> Result<Quat> {
    match rotation {
        Rotation::Quat(q) => {
            for (i, &c) in q.iter().enumerate() {
                check_finite(&format!("{path}[{i}]"), c)?;
            }
            check_rotation(path, Quat::from_array(*q))
        }
        Rotation::AxisAngle { axis, angle_deg } => {
            check_vec3_at(&format!("{path}.axis"), axis)?;
            if Vec3::from_array(*axis).length() < 1e-6 {
                return Err(fail(format!("{path}.axis"), "must not be the zero vector"));
            }
            check_finite(&format!("{path}.angle_deg"), *angle_deg)?;
            Ok(rotation.to_quat())
        }
    }
}

/// Validates the whole scene; error fields are JSON paths from the top level.
pub(crate) fn validate_scene(scene: &Scene) -> Result<()> {
    if scene.format != FORMAT_VERSION {
        return Err(fail(
            "format",
            format!("unsupported format version {} (this engine reads format {FORMAT_VERSION})", scene.format),
        ));
    }
    validate_settings(&scene.settings).map_err(|e| e.within("settings"))?;
    for (name, material) in &scene.materials {
        validate_material(material).map_err(|e| e.within(&format!("materials.{name}")))?;
    }
    let body_names = validate_body_names(&scene.bodies)?;
    for (i, body) in scene.bodies.iter().enumerate() {
        validate_body(body, &scene.materials).map_err(|e| e.within(&format!("bodies[{i}]")))?;
    }
    validate_joints(&scene.joints, &body_names)
}

/// Names are present and unique; returns name -> index.
fn validate_body_names(bodies: &[BodySpec]) -> Result<BTreeMap<&str, usize>> {
    let mut names = BTreeMap::new();
    for (i, body) in bodies.iter().enumerate() {
        let path = format!("bodies[{i}].name");
        if body.name.is_empty() {
            return Err(fail(path, "must not be empty (joints and trajectories refer to bodies by name)"));
        }
        if let Some(first) = names.insert(body.name.as_str(), i) {
            return Err(fail(path, format!("duplicate body name \"{}\" (first used by bodies[{first}])", body.name)));
        }
    }
    Ok(names)
}

/// Settings fields (paths relative to `settings`).
fn validate_settings(settings: &SettingsSpec) -> Result<()> {
    if let Some(gravity) = &settings.gravity {
        check_vec3_at("gravity", gravity)?;
    }
    let solver_substeps = settings.solver.as_ref().and_then(|s| s.substeps);
    if let (Some(top), Some(inner)) = (settings.substeps, solver_substeps) {
        if top != inner {
            return Err(fail("solver.substeps", format!("conflicts with settings.substeps ({inner} vs {top})")));
        }
    }
    world_settings(settings).validate().map_err(|e| {
        // The engine names its fields `timestep`, `solver.<field>`; substeps live at the
        // top of the scene's settings unless the file put them in the solver object.
        if e.field == "solver.substeps" && settings.substeps.is_some() {
            Error::new("substeps", e.reason)
        } else {
            e
        }
    })
}

/// Material fields (paths relative to the material).
fn validate_material(material: &MaterialSpec) -> Result<()> {
    if let Some(friction) = material.friction {
        check_non_negative("friction", friction)?;
    }
    if let Some(restitution) = material.restitution {
        check_non_negative("restitution", restitution)?;
    }
    if let Some(density) = material.density {
        check_positive("density", density)?;
    }
    Ok(())
}

/// Body fields (paths relative to the body).
fn validate_body(body: &BodySpec, materials: &BTreeMap<String, MaterialSpec>) -> Result<()> {
    for (field, value) in [
        ("position", &body.position),
        ("linear_velocity", &body.linear_velocity),
        ("angular_velocity", &body.angular_velocity),
    ] {
        if let Some(v) = value {
            check_vec3_at(field, v)?;
        }
    }
    if let Some(rotation) = &body.rotation {
        check_rotation_at("rotation", rotation)?;
    }
    for (field, value) in [("linear_damping", body.linear_damping), ("angular_damping", body.angular_damping)] {
        if let Some(damping) = value {
            check_non_negative(field, damping)?;
        }
    }
    if let Some(scale) = body.gravity_scale {
        check_finite("gravity_scale", scale)?;
    }
    if let Some(mass) = body.mass {
        check_positive("mass", mass)?;
    }
    let kind = body.kind_or_default();
    for (j, collider) in body.colliders.iter().enumerate() {
        validate_collider(collider, kind, materials).map_err(|e| e.within(&format!("colliders[{j}]")))?;
    }
    Ok(())
}

/// Collider fields (paths relative to the collider).
fn validate_collider(
    collider: &ColliderSpec,
    kind: BodyKind,
    materials: &BTreeMap<String, MaterialSpec>,
) -> Result<()> {
    validate_shape(&collider.shape, kind).map_err(|e| e.within("shape"))?;
    if let Some(position) = &collider.position {
        check_vec3_at("position", position)?;
    }
    if let Some(rotation) = &collider.rotation {
        check_rotation_at("rotation", rotation)?;
    }
    validate_material(&MaterialSpec {
        friction: collider.friction,
        restitution: collider.restitution,
        density: collider.density,
    })?;
    if let Some(name) = &collider.material {
        if !materials.contains_key(name) {
            let known: Vec<&str> = materials.keys().map(String::as_str).collect();
            let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
            return Err(fail("material", format!("unknown material \"{name}\" (known: {known})")));
        }
    }
    Ok(())
}

/// The name a shape type has in files.
pub(crate) fn shape_type_name(kind: ShapeType) -> &'static str {
    match kind {
        ShapeType::Sphere => "sphere",
        ShapeType::Box => "box",
        ShapeType::Capsule => "capsule",
        ShapeType::Cylinder => "cylinder",
        ShapeType::ConvexHull => "convex_hull",
        ShapeType::Plane => "plane",
        ShapeType::Trimesh => "trimesh",
        ShapeType::Heightfield => "heightfield",
        ShapeType::Compound => "compound",
    }
}

/// The value of a field the shape's type needs, or an error naming it.
pub(crate) fn required<'a, T>(shape: &ShapeSpec, field: &str, value: &'a Option<T>) -> Result<&'a T> {
    value.as_ref().ok_or_else(|| fail(field, format!("is required for a {} shape", shape_type_name(shape.kind))))
}

fn kind_name(kind: BodyKind) -> &'static str {
    match kind {
        BodyKind::Static => "static",
        BodyKind::Dynamic => "dynamic",
        BodyKind::Kinematic => "kinematic",
    }
}

/// Shape fields (paths relative to the shape), including whether `kind` may carry it.
fn validate_shape(shape: &ShapeSpec, kind: BodyKind) -> Result<()> {
    match shape.kind {
        ShapeType::Sphere => check_positive("radius", *required(shape, "radius", &shape.radius)?),
        ShapeType::Box => check_positive_vec3_at("half_extents", required(shape, "half_extents", &shape.half_extents)?),
        ShapeType::Capsule | ShapeType::Cylinder => {
            check_positive("half_height", *required(shape, "half_height", &shape.half_height)?)?;
            check_positive("radius", *required(shape, "radius", &shape.radius)?)
        }
        ShapeType::ConvexHull => check_hull_points("points", required(shape, "points", &shape.points)?),
        ShapeType::Plane => {
            if kind != BodyKind::Static {
                return Err(fail(
                    "",
                    format!("a plane may only be attached to a static body, not a {} one", kind_name(kind)),
                ));
            }
            let normal = required(shape, "normal", &shape.normal)?;
            check_vec3_at("normal", normal)?;
            if Vec3::from_array(*normal).length() < 1e-6 {
                return Err(fail("normal", "must not be the zero vector"));
            }
            check_finite("offset", *required(shape, "offset", &shape.offset)?)
        }
        ShapeType::Trimesh | ShapeType::Heightfield => {
            if kind == BodyKind::Dynamic {
                let name = shape_type_name(shape.kind);
                return Err(fail(
                    "",
                    format!("a {name} may only be attached to a static or kinematic body, not a dynamic one"),
                ));
            }
            if shape.kind == ShapeType::Trimesh {
                check_trimesh(shape)
            } else {
                check_heightfield(shape)
            }
        }
        ShapeType::Compound => Err(fail("type", "`compound` is not a shape: give the body several colliders instead")),
    }
}

/// Vertices finite, at least one triangle, indices in range and distinct within a triangle.
fn check_trimesh(shape: &ShapeSpec) -> Result<()> {
    let vertices = required(shape, "vertices", &shape.vertices)?;
    for (k, v) in vertices.iter().enumerate() {
        check_vec3_at(&format!("vertices[{k}]"), v)?;
    }
    let indices = required(shape, "indices", &shape.indices)?;
    if indices.is_empty() {
        return Err(fail("indices", "needs at least one triangle"));
    }
    for (t, triangle) in indices.iter().enumerate() {
        for (c, &index) in triangle.iter().enumerate() {
            if index as usize >= vertices.len() {
                let reason = format!("vertex index {index} is out of range (there are {} vertices)", vertices.len());
                return Err(fail(format!("indices[{t}][{c}]"), reason));
            }
        }
        if triangle[0] == triangle[1] || triangle[1] == triangle[2] || triangle[0] == triangle[2] {
            return Err(fail(format!("indices[{t}]"), "a triangle must use three different vertices"));
        }
    }
    Ok(())
}

/// At least 2×2 heights, rows of equal length, finite; positive scale.
fn check_heightfield(shape: &ShapeSpec) -> Result<()> {
    let heights = required(shape, "heights", &shape.heights)?;
    if heights.len() < 2 {
        return Err(fail("heights", format!("needs at least 2 rows, got {}", heights.len())));
    }
    let columns = heights[0].len();
    if columns < 2 {
        return Err(fail("heights[0]", format!("needs at least 2 columns, got {columns}")));
    }
    for (r, row) in heights.iter().enumerate() {
        if row.len() != columns {
            return Err(fail(format!("heights[{r}]"), format!("has {} columns, row 0 has {columns}", row.len())));
        }
        for (c, &h) in row.iter().enumerate() {
            check_finite(&format!("heights[{r}][{c}]"), h)?;
        }
    }
    check_positive_vec3_at("scale", required(shape, "scale", &shape.scale)?)
}

/// Relative size below which a hull is considered flat (or thin, or a point), times its extent.
const HULL_DEGENERACY_TOLERANCE: f32 = 1e-4;

/// At least 4 finite points that span a volume.
///
/// With `p0` the first point: `a` the point furthest from `p0` (its distance `s` is at least
/// half the cloud's diameter, so it sets the scale), `b` the point furthest from the line
/// `p0 a`, and the cloud's largest distance from the plane `p0 a b`. Each distance must exceed
/// `HULL_DEGENERACY_TOLERANCE · s`, otherwise the points are coincident, collinear or coplanar.
fn check_hull_points(field: &str, points: &[[f32; 3]]) -> Result<()> {
    if points.len() < 4 {
        return Err(fail(field, format!("a convex hull needs at least 4 points, got {}", points.len())));
    }
    for (k, p) in points.iter().enumerate() {
        check_vec3_at(&format!("{field}[{k}]"), p)?;
    }
    let p: Vec<Vec3> = points.iter().map(|&q| Vec3::from_array(q)).collect();
    let furthest = |distance: &dyn Fn(Vec3) -> f32| {
        p.iter().map(|&q| (distance(q), q)).fold((0.0, p[0]), |best, c| if c.0 > best.0 { c } else { best })
    };
    let (scale, a) = furthest(&|q| (q - p[0]).length());
    let tolerance = HULL_DEGENERACY_TOLERANCE * scale;
    if scale <= 0.0 {
        return Err(fail(field, "all points coincide: a convex hull needs 4 points that span a volume"));
    }
    let axis = (a - p[0]) / scale;
    let (line_distance, b) = furthest(&|q| (q - p[0]).cross(axis).length());
    if line_distance <= tolerance {
        return Err(fail(field, "all points lie on one line: a convex hull needs 4 points that span a volume"));
    }
    let normal = axis.cross(b - p[0]).normalize();
    let (plane_distance, _) = furthest(&|q| (q - p[0]).dot(normal).abs());
    if plane_distance <= tolerance {
        return Err(fail(field, "all points lie in one plane: a convex hull needs 4 points that span a volume"));
    }
    Ok(())
}
