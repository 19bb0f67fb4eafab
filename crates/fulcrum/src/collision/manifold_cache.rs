//! Reusing a manifold while a pair barely moves (contact caching).
//!
//! After a full narrow-phase query the manifold is stored in collider A's frame together with
//! B's pose relative to A. While B's relative pose stays within [`LINEAR_TOLERANCE`] and
//! [`ANGULAR_TOLERANCE`] of that stored pose, the query is skipped: each point is carried
//! along by B's small relative motion T (in A's frame),
//!
//! ```text
//! p_B  = p + s/2 · n              B's surface point (p: midpoint, s: separation, n: normal)
//! Δ    = n · (T(p_B) − p_B)       how far B's surface moved along the normal
//! s'   = s + Δ,   p' = p + Δ/2 · n
//! ```
//!
//! The comparison is always against the pose of the last full query, so errors never build
//! up: the worst case is a tangential offset of the points below the tolerances. Resting
//! piles, where almost no pair moves, skip most of the narrow phase.
//!
//! Only pairs of flat-faced shapes (boxes, hulls, planes, and a box or hull against a triangle
//! mesh or heightfield, whose manifolds are all cached) use the cache: their contact points
//! sit on vertices and edges that move rigidly with a body. On a curved surface the contact
//! point does not follow either body (a rolling ball's contact stays under its centre while
//! its material turns away), so a carried point would trail the true one and its normal impulse
//! would act at a wrong lever arm, driving slow rolling.

use crate::collision::manifold::{ContactPoint, Manifold, MAX_MANIFOLD_POINTS};
use crate::math::Pose;

/// Largest relative translation (metres) for which a cached manifold is reused.
pub const LINEAR_TOLERANCE: f32 = 5e-4;
/// Largest relative rotation (radians) for which a cached manifold is reused.
pub const ANGULAR_TOLERANCE: f32 = 5e-4;

/// A pair's manifolds in collider A's frame and the relative pose they were computed at.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct ManifoldCache {
    /// B's pose in A's collider frame at the last full query (`None`: nothing cached).
    relative: Option<Pose>,
    /// The first manifold with points and normal in A's collider frame.
    local: Manifold,
    /// A body against a mesh: its other manifolds, likewise (empty for convex pairs).
    more: Vec<Manifold>,
    /// How many manifolds the query gave (0 or 1 for convex pairs, up to four against a mesh).
    count: usize,
}

impl ManifoldCache {
    /// Stores the result of a full query that gave one manifold.
    pub fn store(&mut self, pose_a: &Pose, relative: Pose, world: &Manifold) {
        self.store_all(pose_a, relative, std::slice::from_ref(world));
    }

    /// Stores the result of a full query (several manifolds for a body against a mesh).
    pub fn store_all(&mut self, pose_a: &Pose, relative: Pose, world: &[Manifold]) {
        self.relative = Some(relative);
        self.count = world.len();
        self.more.clear();
        for (k, manifold) in world.iter().enumerate() {
            let local = to_frame(pose_a, manifold);
            match k {
                0 => self.local = local,
                _ => self.more.push(local),
            }
        }
    }

    /// The cached manifold carried to the current poses, when B moved little enough.
    pub fn reuse(&self, pose_a: &Pose, relative: &Pose, out: &mut Manifold) -> bool {
        let Some(motion) = self.motion(relative) else { return false };
        carry(&self.local, &motion, pose_a, out);
        true
    }

    /// Every cached manifold carried to the current poses into `out`, when B moved little
    /// enough.
    pub fn reuse_all(&self, pose_a: &Pose, relative: &Pose, out: &mut Vec<Manifold>) -> bool {
        let Some(motion) = self.motion(relative) else { return false };
        out.clear();
        for local in std::iter::once(&self.local).chain(&self.more).take(self.count) {
            let mut manifold = Manifold::new();
            carry(local, &motion, pose_a, &mut manifold);
            out.push(manifold);
        }
        true
    }

    /// T = relative ∘ stored⁻¹, which maps B's old placement (in A's frame) to its new one,
    /// when B moved and turned within the tolerances since the last full query.
    fn motion(&self, relative: &Pose) -> Option<Pose> {
        let stored = self.relative?;
        let moved = (relative.position - stored.position).length();
        let turned = 2.0 * (stored.rotation.inverse() * relative.rotation).xyz().length();
        (moved <= LINEAR_TOLERANCE && turned <= ANGULAR_TOLERANCE).then(|| relative.mul_pose(&stored.inverse()))
    }
}

/// A world-space manifold in the frame of `pose` (collider A's).
fn to_frame(pose: &Pose, world: &Manifold) -> Manifold {
    let mut local = *world;
    local.normal = pose.inverse_transform_vector(world.normal);
    for point in &mut local.points[..world.count] {
        point.position = pose.inverse_transform_point(point.position);
    }
    local
}

/// A manifold stored in A's frame carried by B's small relative motion `motion` (module
/// notes) and written in world space.
fn carry(local: &Manifold, motion: &Pose, pose_a: &Pose, out: &mut Manifold) {
    let n = local.normal;
    out.clear();
    out.normal = pose_a.transform_vector(n);
    for point in &local.points[..local.count.min(MAX_MANIFOLD_POINTS)] {
        let surface_b = point.position + 0.5 * point.separation * n;
        let shift = n.dot(motion.transform_point(surface_b) - surface_b);
        out.points[out.count] = ContactPoint {
            position: pose_a.transform_point(point.position + 0.5 * shift * n),
            separation: point.separation + shift,
            id: point.id,
        };
        out.count += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Quat, Vec3};

    fn manifold() -> Manifold {
        let mut m = Manifold { normal: Vec3::Y, ..Default::default() };
        m.push(Vec3::new(0.5, 1.0, 0.5), -0.001, 1);
        m.push(Vec3::new(-0.5, 1.0, 0.5), -0.002, 2);
        m
    }

    #[test]
    fn small_normal_motion_updates_the_separation() {
        let pose_a = Pose::new(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_y(0.4));
        let relative = Pose::from_position(Vec3::new(0.0, 1.0, 0.0));
        // The manifold as the narrow phase gives it: world space.
        let mut world = manifold();
        world.normal = pose_a.transform_vector(world.normal);
        for p in &mut world.points[..2] {
            p.position = pose_a.transform_point(p.position);
        }
        let mut cache = ManifoldCache::default();
        cache.store(&pose_a, relative, &world);
        // B sinks 50 µm into A: every separation drops by 50 µm, the midpoints by 25 µm.
        let sunk = Pose::from_position(Vec3::new(0.0, 1.0 - 5e-5, 0.0));
        let mut out = Manifold::new();
        assert!(cache.reuse(&pose_a, &sunk, &mut out));
        for (new, old) in out.points().iter().zip(world.points()) {
            assert!((new.separation - (old.separation - 5e-5)).abs() < 1e-7);
            assert!((new.position - (old.position - 2.5e-5 * world.normal)).length() < 1e-6);
            assert_eq!(new.id, old.id);
        }
        // Beyond the tolerance the cache refuses.
        let far = Pose::from_position(Vec3::new(0.0, 1.0 - 2.0 * LINEAR_TOLERANCE, 0.0));
        assert!(!cache.reuse(&pose_a, &far, &mut out));
        let turned = Pose::new(Vec3::new(0.0, 1.0, 0.0), Quat::from_rotation_x(2.0 * ANGULAR_TOLERANCE));
        assert!(!cache.reuse(&pose_a, &turned, &mut out));
    }
}
