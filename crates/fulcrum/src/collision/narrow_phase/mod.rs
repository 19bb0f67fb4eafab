//! Narrow phase: contact manifolds for a pair of shapes.
//!
//! [`collide`] dispatches on the pair of shape kinds to a dedicated routine where one exists
//! (sphere/sphere, sphere/box, sphere/capsule, capsule/capsule, capsule/box, box/box and
//! hull/hull by SAT with face clipping, plane/anything) and to GJK/EPA with face clipping for
//! every other convex pair. Every routine writes a manifold whose normal points from A to B,
//! with points down to `margin` apart (speculative contacts).
//!
//! | A \ B    | sphere | capsule | box     | cylinder | hull     | plane   |
//! |----------|--------|---------|---------|----------|----------|---------|
//! | sphere   | pair   | pair    | pair    | convex   | convex   | plane ↔ |
//! | capsule  | pair ↔ | pair    | pair    | convex   | convex   | plane ↔ |
//! | box      | pair ↔ | pair ↔  | SAT     | convex   | SAT      | plane ↔ |
//! | cylinder | convex | convex  | convex  | convex   | convex   | plane ↔ |
//! | hull     | convex | convex  | SAT ↔   | convex   | SAT      | plane ↔ |
//! | plane    | plane  | plane   | plane   | plane    | plane    | nothing |
//!
//! ↔: the routine is written for the other order; it runs with A and B swapped and the
//! normal is flipped back.

pub mod box_box;
pub mod clip;
pub mod convex;
pub mod epa;
pub mod gjk;
pub mod hull_hull;
pub mod pairs;
pub mod sat;
pub mod support_face;
pub mod support_map;
pub mod triangles;

#[cfg(test)]
mod tests;

use crate::collision::manifold::Manifold;
use crate::math::{Pose, Vec3};
use crate::shape::Shape;

/// Per-pair data kept between steps to speed up the next query (for example the last
/// separating axis found by SAT). `Default` is the empty cache.
///
/// The GJK-based routines keep the last contact normal here instead, as
/// `feature_kind == PairCache::GJK_DIRECTION` with the normal octahedron-encoded in
/// `index_a`, `index_b` (see [`PairCache::set_direction`]); a pair always goes to the same
/// routine, so the two uses never meet.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PairCache {
    /// Which kind of feature the last query found (0 = none).
    pub feature_kind: u8,
    /// First feature index of the last query.
    pub index_a: u16,
    /// Second feature index of the last query.
    pub index_b: u16,
}

impl PairCache {
    /// `feature_kind` of a cache that holds a GJK/EPA normal.
    pub const GJK_DIRECTION: u8 = 0xD1;

    /// Stores a unit direction (world) by octahedral encoding: `p = (n_x, n_y) / |n|₁`,
    /// folded over the diagonals when `n_z < 0` (`p ← (1 - |p_y|, 1 - |p_x|) · sign(p)`),
    /// each component mapped from `[-1, 1]` to 16 bits. Accurate to about 1e-4 rad.
    pub fn set_direction(&mut self, direction: Vec3) {
        let l1 = direction.x.abs() + direction.y.abs() + direction.z.abs();
        if !l1.is_finite() || l1 <= 0.0 {
            *self = Self::default();
            return;
        }
        let (mut px, mut py) = (direction.x / l1, direction.y / l1);
        if direction.z < 0.0 {
            (px, py) = ((1.0 - py.abs()) * px.signum(), (1.0 - px.abs()) * py.signum());
        }
        let quantise = |v: f32| ((v.clamp(-1.0, 1.0) + 1.0) * 0.5 * 65535.0).round() as u16;
        *self = Self { feature_kind: Self::GJK_DIRECTION, index_a: quantise(px), index_b: quantise(py) };
    }

    /// The direction stored by [`PairCache::set_direction`] (unit), or zero when the cache
    /// holds something else: `n = (p_x, p_y, 1 - |p_x| - |p_y|)`, unfolded when `n_z < 0`.
    pub fn direction(&self) -> Vec3 {
        if self.feature_kind != Self::GJK_DIRECTION {
            return Vec3::ZERO;
        }
        let expand = |q: u16| q as f32 / 65535.0 * 2.0 - 1.0;
        let (px, py) = (expand(self.index_a), expand(self.index_b));
        let z = 1.0 - px.abs() - py.abs();
        let (x, y) = if z < 0.0 { ((1.0 - py.abs()) * px.signum(), (1.0 - px.abs()) * py.signum()) } else { (px, py) };
        Vec3::new(x, y, z).normalize_or_zero()
    }
}

/// Computes the contact manifold between `shape_a` at `pose_a` and `shape_b` at `pose_b`.
///
/// The manifold is empty when the shapes are further apart than `margin` (metres). Its normal
/// points from A to B; each point's separation is negative when penetrating.
pub fn collide(
    shape_a: &Shape,
    pose_a: &Pose,
    shape_b: &Shape,
    pose_b: &Pose,
    margin: f32,
    cache: &mut PairCache,
    manifold: &mut Manifold,
) {
    use pairs::{capsule_box, capsule_capsule, plane, sphere_box, sphere_capsule, sphere_cylinder, sphere_sphere};
    use Shape as S;
    manifold.clear();
    let (a, b, out) = ((shape_a, pose_a), (shape_b, pose_b), manifold);
    match (shape_a, shape_b) {
        // Meshes and heightfields: their manifolds come from `collide_triangles` (see
        // `is_triangle_pair`); the world never sends them here.
        (S::TriMesh(_) | S::HeightField(_), _) | (_, S::TriMesh(_) | S::HeightField(_)) => {}
        (S::Plane(_), S::Plane(_)) => {}
        (S::Plane(p), _) => plane::collide_plane(p, a.1, b.0, b.1, margin, out),
        (_, S::Plane(p)) => flipped(out, |out| plane::collide_plane(p, b.1, a.0, a.1, margin, out)),
        (S::Sphere(sa), S::Sphere(sb)) => sphere_sphere::collide_spheres(sa, a.1, sb, b.1, margin, out),
        (S::Sphere(s), S::Capsule(c)) => sphere_capsule::collide_sphere_capsule(s, a.1, c, b.1, margin, out),
        (S::Capsule(c), S::Sphere(s)) => {
            flipped(out, |out| sphere_capsule::collide_sphere_capsule(s, b.1, c, a.1, margin, out))
        }
        (S::Sphere(s), S::Cuboid(c)) => sphere_box::collide_sphere_box(s, a.1, c, b.1, margin, out),
        (S::Cuboid(c), S::Sphere(s)) => flipped(out, |out| sphere_box::collide_sphere_box(s, b.1, c, a.1, margin, out)),
        (S::Sphere(s), S::Cylinder(c)) => sphere_cylinder::collide_sphere_cylinder(s, a.1, c, b.1, margin, out),
        (S::Cylinder(c), S::Sphere(s)) => {
            flipped(out, |out| sphere_cylinder::collide_sphere_cylinder(s, b.1, c, a.1, margin, out))
        }
        (S::Capsule(ca), S::Capsule(cb)) => capsule_capsule::collide_capsules(ca, a.1, cb, b.1, margin, out),
        (S::Capsule(c), S::Cuboid(x)) => capsule_box::collide_capsule_box(c, a.1, x, b.1, margin, cache, out),
        (S::Cuboid(x), S::Capsule(c)) => {
            flipped(out, |out| capsule_box::collide_capsule_box(c, b.1, x, a.1, margin, cache, out))
        }
        (S::Cuboid(xa), S::Cuboid(xb)) => box_box::collide_boxes(xa, a.1, xb, b.1, margin, cache, out),
        (S::Cuboid(x), S::ConvexHull(h)) => hull_hull::collide_box_hull(x, a.1, h, b.1, margin, cache, out),
        (S::ConvexHull(h), S::Cuboid(x)) => {
            flipped(out, |out| hull_hull::collide_box_hull(x, b.1, h, a.1, margin, cache, out))
        }
        (S::ConvexHull(ha), S::ConvexHull(hb)) => hull_hull::collide_hulls(ha, a.1, hb, b.1, margin, cache, out),
        _ => convex::collide_convex(a.0, a.1, b.0, b.1, margin, cache, out),
    }
}

/// Is one of the shapes a mesh or heightfield (its contacts come from
/// [`collide_triangles`], possibly several manifolds)?
pub fn is_triangle_pair(shape_a: &Shape, shape_b: &Shape) -> bool {
    let triangles = |s: &Shape| matches!(s, Shape::TriMesh(_) | Shape::HeightField(_));
    triangles(shape_a) || triangles(shape_b)
}

/// The manifolds of a convex shape against a mesh or heightfield, either order (normals
/// from A to B, see [`triangles`]); none for two triangle shapes or a plane.
pub fn collide_triangles(
    shape_a: &Shape,
    pose_a: &Pose,
    shape_b: &Shape,
    pose_b: &Pose,
    margin: f32,
    out: &mut Vec<Manifold>,
) {
    out.clear();
    match (shape_a, shape_b) {
        (Shape::TriMesh(_) | Shape::HeightField(_), Shape::TriMesh(_) | Shape::HeightField(_)) => {}
        (Shape::TriMesh(_) | Shape::HeightField(_), convex) => {
            triangles_against(shape_a, pose_a, convex, pose_b, margin, out)
        }
        (convex, _) => {
            triangles_against(shape_b, pose_b, convex, pose_a, margin, out);
            out.iter_mut().for_each(Manifold::flip);
        }
    }
}

/// `mesh` (a mesh or heightfield, as A) against `convex` (B).
fn triangles_against(
    mesh: &Shape,
    mesh_pose: &Pose,
    convex: &Shape,
    convex_pose: &Pose,
    margin: f32,
    out: &mut Vec<Manifold>,
) {
    let local_pose = mesh_pose.inv_mul_pose(convex_pose);
    let Some(body) = gjk::ConvexCore::from_shape(convex, &local_pose) else { return };
    let solid_below = matches!(mesh, Shape::HeightField(_));
    let query = triangles::TriangleQuery { body, bounds: convex.aabb(&local_pose), margin, solid_below };
    match mesh {
        Shape::TriMesh(mesh) => triangles::collide_triangles(&query, mesh.as_ref(), out),
        Shape::HeightField(field) => triangles::collide_triangles(&query, field.as_ref(), out),
        _ => return,
    }
    triangles::to_world(out, mesh_pose);
}

/// Runs a routine written for (B, A) and turns its manifold back into (A, B): the normal
/// flips, points and feature ids stay.
#[inline]
fn flipped(out: &mut Manifold, routine: impl FnOnce(&mut Manifold)) {
    routine(out);
    out.flip();
}
