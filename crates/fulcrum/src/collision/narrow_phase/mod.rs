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
pub mod support_face;

#[cfg(test)]
mod tests;

use crate::collision::manifold::Manifold;
use crate::math::{Pose, Vec3};
use crate::shape::Shape;

/// Per-pair data kept between steps to speed up the next query (for example the last
/// separating axis found by SAT). `Default` is the empty cache.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairCache {
    /// Which kind of feature the last query found (0 = none).
    pub feature_kind: u8,
    /// First feature index of the last query.
    pub index_a: u16,
    /// Second feature index of the last query.
    pub index_b: u16,
    /// Last contact normal found by GJK/EPA (world, unit, from the routine's A to its B);
    /// zero when none. It seeds the next GJK search.
    pub normal: Vec3,
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
    use pairs::{capsule_box, capsule_capsule, plane, sphere_box, sphere_capsule, sphere_sphere};
    use Shape as S;
    manifold.clear();
    let (a, b, out) = ((shape_a, pose_a), (shape_b, pose_b), manifold);
    match (shape_a, shape_b) {
        (S::Plane(_), S::Plane(_)) => {}
        (S::Plane(p), _) => plane::collide_plane(p, a.1, b.0, b.1, margin, out),
        (_, S::Plane(p)) => flipped(out, |out| {
            plane::collide_plane(p, b.1, a.0, a.1, margin, out)
        }),
        (S::Sphere(sa), S::Sphere(sb)) => {
            sphere_sphere::collide_spheres(sa, a.1, sb, b.1, margin, out)
        }
        (S::Sphere(s), S::Capsule(c)) => {
            sphere_capsule::collide_sphere_capsule(s, a.1, c, b.1, margin, out)
        }
        (S::Capsule(c), S::Sphere(s)) => flipped(out, |out| {
            sphere_capsule::collide_sphere_capsule(s, b.1, c, a.1, margin, out)
        }),
        (S::Sphere(s), S::Cuboid(c)) => sphere_box::collide_sphere_box(s, a.1, c, b.1, margin, out),
        (S::Cuboid(c), S::Sphere(s)) => flipped(out, |out| {
            sphere_box::collide_sphere_box(s, b.1, c, a.1, margin, out)
        }),
        (S::Capsule(ca), S::Capsule(cb)) => {
            capsule_capsule::collide_capsules(ca, a.1, cb, b.1, margin, out)
        }
        (S::Capsule(c), S::Cuboid(x)) => {
            capsule_box::collide_capsule_box(c, a.1, x, b.1, margin, cache, out)
        }
        (S::Cuboid(x), S::Capsule(c)) => flipped(out, |out| {
            capsule_box::collide_capsule_box(c, b.1, x, a.1, margin, cache, out)
        }),
        (S::Cuboid(xa), S::Cuboid(xb)) => {
            box_box::collide_boxes(xa, a.1, xb, b.1, margin, cache, out)
        }
        (S::Cuboid(x), S::ConvexHull(h)) => {
            hull_hull::collide_box_hull(x, a.1, h, b.1, margin, cache, out)
        }
        (S::ConvexHull(h), S::Cuboid(x)) => flipped(out, |out| {
            hull_hull::collide_box_hull(x, b.1, h, a.1, margin, cache, out)
        }),
        (S::ConvexHull(ha), S::ConvexHull(hb)) => {
            hull_hull::collide_hulls(ha, a.1, hb, b.1, margin, cache, out)
        }
        _ => convex::collide_convex(a.0, a.1, b.0, b.1, margin, cache, out),
    }
}

/// Runs a routine written for (B, A) and turns its manifold back into (A, B): the normal
/// flips, points and feature ids stay.
#[inline]
fn flipped(out: &mut Manifold, routine: impl FnOnce(&mut Manifold)) {
    routine(out);
    out.flip();
}
