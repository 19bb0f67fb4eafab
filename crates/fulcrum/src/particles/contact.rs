//! Particles against the rigid shapes: the nearest point of a shape's surface to a particle's
//! centre, as a plane the particle may not pass, and the plane's projection with friction.
//!
//! A contact found at the start of the step with centre distance d, surface point s and unit
//! normal n (out of the shape) is kept for the whole step as the half-space
//!
//! ```text
//! C(x) = n·(x − s) − thickness ≥ 0
//! ```
//!
//! the tangent plane of the obstacle grown by the thickness, so every x it allows is clear of
//! the (convex) obstacle. Each substep a particle with C < 0 is moved out by −C·n and its
//! slip over the substep, d = (x − x_prev) − v_surface·h less its normal part, is removed
//! entirely while |d_t| ≤ μ·|C| (static friction: the push out bounds the friction) and
//! shortened by μ·|C| otherwise (kinetic).
//!
//! A plane of a dynamic body is kept in the body's frame and moves with it, and the
//! correction is shared through the particle's inverse mass w and the body's generalised
//! inverse mass at the contact point (`coupling.rs`), r from its centre of mass:
//!
//! ```text
//! w_n = 1/m + (r × n)·I⁻¹(r × n)      Δλ = −C / (w + w_n)
//! x += w·Δλ·n                          body moved by −Δλ·n at r
//! d = (x − x_prev) − (s − s_prev)      t = d − (d·n)·n   (the slip against the surface)
//! Δλ_t = min(|t|, μ·|C|) / (w + w_t)   x −= w·Δλ_t·t̂, body moved by +Δλ_t·t̂ at r
//! ```
//!
//! A particle pressed by a body against an immovable obstacle it lies on (a cloth between a
//! box and the ground) does not give way towards that obstacle: its w is scaled by
//! 1 − max(0, −n_body·n_obstacle), so the body takes the whole correction. Shared by the
//! masses instead, a 1 kg box on a cloth of 1 g particles moved the particle, which the ground
//! then pushed back, and the box sank through the cloth a fraction of a millimetre per substep.

use glam::DVec3;

use super::coupling::CoupledBody;
use crate::collision::narrow_phase::gjk::{closest_on_triangle, gjk, ConvexCore, CoreKind};
use crate::geometry::Aabb;
use crate::math::{Pose, Vec3};
use crate::shape::{Shape, Triangle};

/// A plane a particle may not pass during this step (module docs).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct ParticleContact {
    pub particle: u32,
    /// Unit normal out of the obstacle (world; in the body's frame for a moving body).
    pub normal: Vec3,
    /// The obstacle's surface point nearest to the particle (world; in the body's frame,
    /// relative to its origin, for a moving body).
    pub point: Vec3,
    /// Velocity of that point of an immovable obstacle, m/s.
    pub surface_velocity: Vec3,
    /// Friction coefficient of the pair.
    pub friction: f32,
    /// The moving body (index into the stage's coupled bodies), or `None` for an obstacle the
    /// particles cannot move (static, kinematic, asleep).
    pub body: Option<u32>,
}

/// How far outside an immovable obstacle's plane a particle may be and still lie on it
/// (module docs), metres: a resting particle is pulled in by g·h² ≈ 10 µm each substep.
pub(crate) const SUPPORT_GAP: f64 = 1.0e-4;

/// The plane of a moving body's contact where the body is now: (point, unit normal), world.
pub(crate) fn body_plane(contact: &ParticleContact, body: &CoupledBody) -> (DVec3, DVec3) {
    let (point, _) = body.point(contact.point);
    (point.as_dvec3(), (body.rotation * contact.normal).as_dvec3())
}

/// Projects particle `x` (at `previous` when the substep began, inverse mass `w`) out of a
/// moving body's plane, the body pushed back, with friction (module docs). Returns the new
/// position.
pub(crate) fn push_body(
    contact: &ParticleContact,
    body: &mut CoupledBody,
    x: DVec3,
    previous: DVec3,
    w: f64,
    thickness: f64,
) -> DVec3 {
    let (point, normal) = body_plane(contact, body);
    let penetration = normal.dot(x - point) - thickness;
    if penetration >= 0.0 {
        return x;
    }
    let r = body.point(contact.point).1;
    let total = w + body.inv_mass_at(r, normal.as_vec3()) as f64;
    if total <= 0.0 {
        return x;
    }
    let lambda = -penetration / total;
    let x = x + w * lambda * normal;
    body.apply(r, (-lambda * normal).as_vec3());
    let (point, normal) = body_plane(contact, body);
    let slip = (x - previous) - (point - body.previous_point(contact.point).as_dvec3());
    let tangential = slip - normal * normal.dot(slip);
    let length = tangential.length();
    if length < 1e-12 {
        return x;
    }
    let direction = tangential / length;
    let r = body.point(contact.point).1;
    let total = w + body.inv_mass_at(r, direction.as_vec3()) as f64;
    let lambda = length.min(contact.friction as f64 * -penetration) / total;
    body.apply(r, (lambda * direction).as_vec3());
    x - w * lambda * direction
}

/// The nearest surface point of a convex shape (or plane) to `p`, all in the shape's frame:
/// (point, unit normal out of the shape, signed distance of p from the surface, negative
/// inside). `None` for meshes and heightfields.
pub(crate) fn nearest_on_convex(shape: &Shape, p: Vec3) -> Option<(Vec3, Vec3, f32)> {
    match shape {
        Shape::Sphere(sphere) => Some(around_point(Vec3::ZERO, sphere.radius, p)),
        Shape::Capsule(capsule) => {
            let axis = Vec3::new(0.0, p.y.clamp(-capsule.half_height, capsule.half_height), 0.0);
            Some(around_point(axis, capsule.radius, p))
        }
        Shape::Cuboid(cuboid) => Some(nearest_on_box(cuboid.half_extents, p)),
        Shape::Cylinder(cylinder) => Some(nearest_on_cylinder(cylinder.half_height, cylinder.radius, p)),
        Shape::ConvexHull(_) => nearest_on_hull(shape, p),
        Shape::Plane(plane) => {
            let distance = plane.normal.dot(p) - plane.offset;
            Some((p - distance * plane.normal, plane.normal, distance))
        }
        Shape::TriMesh(_) | Shape::HeightField(_) => None,
    }
}

/// A ball of `radius` about `center`: d = |p − c| − r along (p − c)/|p − c| (up when p is
/// at the centre).
fn around_point(center: Vec3, radius: f32, p: Vec3) -> (Vec3, Vec3, f32) {
    let normal = (p - center).try_normalize().unwrap_or(Vec3::Y);
    (center + normal * radius, normal, (p - center).length() - radius)
}

/// A box of half extents e: outside, the clamped point; inside, the nearest face.
fn nearest_on_box(e: Vec3, p: Vec3) -> (Vec3, Vec3, f32) {
    let clamped = p.clamp(-e, e);
    if clamped != p {
        let normal = (p - clamped).normalize();
        return (clamped, normal, (p - clamped).length());
    }
    let room = e - p.abs();
    let axis = if room.x <= room.y && room.x <= room.z {
        0
    } else if room.y <= room.z {
        1
    } else {
        2
    };
    let mut normal = Vec3::ZERO;
    normal[axis] = if p[axis] < 0.0 { -1.0 } else { 1.0 };
    let mut point = p;
    point[axis] = normal[axis] * e[axis];
    (point, normal, -room[axis])
}

/// A cylinder along Y: outside, the radial part clamped to the radius and the height to the
/// caps; inside, the nearer of the side and the cap.
fn nearest_on_cylinder(half_height: f32, radius: f32, p: Vec3) -> (Vec3, Vec3, f32) {
    let radial = Vec3::new(p.x, 0.0, p.z);
    let rho = radial.length();
    let out = radial.try_normalize().unwrap_or(Vec3::X);
    if rho <= radius && p.y.abs() <= half_height {
        let (side, cap) = (radius - rho, half_height - p.y.abs());
        if side < cap {
            return (out * radius + Vec3::Y * p.y, out, -side);
        }
        let up = Vec3::Y * p.y.signum();
        return (radial + up * half_height, up, -cap);
    }
    let point = out * rho.min(radius) + Vec3::Y * p.y.clamp(-half_height, half_height);
    let normal = (p - point).normalize();
    (point, normal, (p - point).length())
}

/// A convex hull: GJK from the point outside; inside, the face plane nearest to it.
fn nearest_on_hull(shape: &Shape, p: Vec3) -> Option<(Vec3, Vec3, f32)> {
    let Shape::ConvexHull(hull) = shape else { return None };
    let inside =
        hull.planes.iter().map(|plane| (plane.distance(p), plane.normal)).fold(None, |best, (d, n)| match best {
            Some((bd, _)) if bd >= d => best,
            _ => Some((d, n)),
        });
    let (depth, normal) = inside?;
    if depth <= 0.0 {
        return Some((p - depth * normal, normal, depth));
    }
    let point = ConvexCore { kind: CoreKind::Point, pose: Pose::from_position(p), radius: 0.0 };
    let core = ConvexCore::from_shape(shape, &Pose::IDENTITY)?;
    let result = gjk(&point, &core, normal);
    let normal = -result.normal;
    normal.is_finite().then_some((result.point_b, normal, result.distance))
}

/// The planes of the triangles of a mesh or heightfield (in `surface_pose`) within `reach`
/// of the world point `p` whose centre distance is below `reach`: `visit(point, normal,
/// distance)` in world space. A one-sided mesh is met from its front only; a point under a
/// heightfield gets the plane of the triangle above it (the way out).
pub(crate) fn surface_planes(
    shape: &Shape,
    surface_pose: &Pose,
    p: Vec3,
    reach: f32,
    mut visit: impl FnMut(Vec3, Vec3, f32),
) {
    let local = surface_pose.inverse_transform_point(p);
    if let Shape::HeightField(field) = shape {
        if let Some((index, above)) = field.surface_above(local) {
            let normal = field.triangle(index).normal;
            let depth = normal.dot(local - above);
            visit(surface_pose.transform_point(local - normal * depth), surface_pose.transform_vector(normal), depth);
            return;
        }
    }
    let solid = matches!(shape, Shape::HeightField(_));
    let bounds = Aabb::new(local - Vec3::splat(reach), local + Vec3::splat(reach));
    let mut each = |_: u32, triangle: &Triangle| {
        if let Some((point, normal, distance)) = nearest_on_triangle(triangle, local, solid) {
            if distance < reach {
                visit(surface_pose.transform_point(point), surface_pose.transform_vector(normal), distance);
            }
        }
        true
    };
    shape.for_each_triangle_in(&bounds, &mut each);
}

/// The nearest point of a triangle to `p` (surface frame): (point, normal towards p, distance).
/// A point behind a one-sided triangle gets nothing; on the plane itself, the normal is the
/// face's.
fn nearest_on_triangle(triangle: &Triangle, p: Vec3, solid: bool) -> Option<(Vec3, Vec3, f32)> {
    let height = triangle.normal.dot(p - triangle.vertices[0]);
    if height < 0.0 && !triangle.two_sided && !solid {
        return None;
    }
    let w = triangle.vertices.map(|v| v - p);
    let (indices, weights, count) = closest_on_triangle(w);
    let point = (0..count).map(|k| weights[k] * triangle.vertices[indices[k]]).sum::<Vec3>();
    let offset = p - point;
    let distance = offset.length();
    let face = if height < 0.0 && triangle.two_sided { -triangle.normal } else { triangle.normal };
    let normal = if distance > 1e-6 { offset / distance } else { face };
    Some((point, normal, distance))
}

/// Projects particle `x` (at `previous` when the substep began) out of the contact plane
/// and applies friction over a substep `h` (module docs). Returns the new position.
pub(crate) fn project_contact(contact: &ParticleContact, x: DVec3, previous: DVec3, thickness: f64, h: f64) -> DVec3 {
    let normal = contact.normal.as_dvec3();
    let penetration = normal.dot(x - contact.point.as_dvec3()) - thickness;
    if penetration >= 0.0 {
        return x;
    }
    let pushed = x - penetration * normal;
    let slip = (pushed - previous) - contact.surface_velocity.as_dvec3() * h;
    let tangential = slip - normal * normal.dot(slip);
    let length = tangential.length();
    let bound = contact.friction as f64 * -penetration;
    if length <= bound {
        pushed - tangential
    } else {
        pushed - tangential * (bound / length)
    }
}
