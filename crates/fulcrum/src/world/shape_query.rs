//! Shape casts and overlap tests against the world's colliders.
//!
//! Both start from the broad phase: a query box (for a cast, the union of the shape's box at
//! the start and at the end of the translation) picks the colliders whose stored boxes
//! overlap it; then the exact test runs on each: the time of impact under pure translation
//! ([`crate::collision::toi`], stopped 1 mm short and finished analytically) for casts, the GJK distance for overlaps.
//! Filters work as in [`World::cast_ray`]: a collider is considered only when the filter
//! accepts it (sensors included). Triangle meshes and heightfields have no convex core for
//! these tests yet: shape casts and `overlap_shape` pass them by (`overlap_aabb` sees them).

use super::World;
use crate::collision::toi::{separation, time_of_impact, Sweep, ToiSettings};
use crate::error::{check_rotation, check_vec3, Result};
use crate::geometry::Aabb;
use crate::id::{BodyId, ColliderId};
use crate::math::{Pose, Vec3};
use crate::shape::Shape;

/// The first collider a cast shape meets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeCastHit {
    /// The collider hit.
    pub collider: ColliderId,
    /// Its body.
    pub body: BodyId,
    /// Fraction of the translation travelled before contact, in `[0, 1)`; 0 when the shape
    /// already touches the collider at its start pose.
    pub fraction: f32,
    /// World contact point, on the collider's surface.
    pub point: Vec3,
    /// World surface normal of the collider at the contact, pointing towards the cast shape;
    /// zero when the shapes overlap at the start so deeply that no normal can be measured.
    pub normal: Vec3,
}

impl World {
    /// Moves `shape` from `pose` along `translation` and returns the first collider it
    /// touches among those `filter` accepts, or `None` when the path is clear.
    ///
    /// Errors name the argument that is not finite (`pose.position`, `pose.rotation`,
    /// `translation`) or a rotation that is not a unit quaternion.
    pub fn cast_shape(
        &self,
        shape: &Shape,
        pose: Pose,
        translation: Vec3,
        mut filter: impl FnMut(ColliderId) -> bool,
    ) -> Result<Option<ShapeCastHit>> {
        let pose = checked_pose(pose)?;
        check_vec3("translation", translation)?;
        let sweep = Sweep::translation(pose, translation);
        let start = shape.aabb(&pose);
        let swept = start.union(&Aabb::new(start.min + translation, start.max + translation));
        let mut best: Option<ShapeCastHit> = None;
        self.for_each_candidate(&swept, &mut filter, |id, collider| {
            let other = Sweep::fixed(collider.world_pose);
            let Some(toi) = time_of_impact(shape, &sweep, &collider.shape, &other, &ToiSettings::CAST) else {
                return;
            };
            let fraction = contact_fraction(toi.t, toi.distance, translation.dot(toi.normal));
            if fraction >= 1.0 || best.is_some_and(|b| b.fraction <= fraction) {
                return;
            }
            let hit =
                ShapeCastHit { collider: id, body: collider.body, fraction, point: toi.point_b, normal: -toi.normal };
            best = Some(hit);
        });
        Ok(best)
    }

    /// Every collider accepted by `filter` that touches or overlaps `shape` at `pose`, in the
    /// broad phase's order (moving colliders first). Errors as [`World::cast_shape`].
    pub fn overlap_shape(
        &self,
        shape: &Shape,
        pose: Pose,
        mut filter: impl FnMut(ColliderId) -> bool,
    ) -> Result<Vec<ColliderId>> {
        let pose = checked_pose(pose)?;
        let mut found = Vec::new();
        self.for_each_candidate(&shape.aabb(&pose), &mut filter, |id, collider| {
            let gap = separation(shape, &pose, &collider.shape, &collider.world_pose);
            if gap.is_some_and(|g| g.distance <= 0.0) {
                found.push(id);
            }
        });
        Ok(found)
    }

    /// Every collider accepted by `filter` whose tight world box overlaps `aabb` (touching
    /// counts). Errors name `aabb.min` / `aabb.max` when not finite or when min > max.
    pub fn overlap_aabb(&self, aabb: Aabb, mut filter: impl FnMut(ColliderId) -> bool) -> Result<Vec<ColliderId>> {
        check_vec3("aabb.min", aabb.min)?;
        check_vec3("aabb.max", aabb.max)?;
        if !aabb.is_valid() {
            return Err(crate::Error::new("aabb.max", "must not be below aabb.min on any axis"));
        }
        let mut found = Vec::new();
        self.for_each_candidate(&aabb, &mut filter, |id, collider| {
            if collider.aabb.overlaps(&aabb) {
                found.push(id);
            }
        });
        Ok(found)
    }

    /// Calls `f` for each live collider whose broad-phase box overlaps `aabb` and that
    /// `filter` accepts.
    fn for_each_candidate(
        &self,
        aabb: &Aabb,
        filter: &mut impl FnMut(ColliderId) -> bool,
        mut f: impl FnMut(ColliderId, &crate::collider::Collider),
    ) {
        self.broad_phase.query(aabb, |user| {
            let Some(id) = self.colliders.id_at(user as usize) else { return true };
            let Some(collider) = self.colliders.get(id) else { return true };
            if filter(id) {
                f(id, collider);
            }
            true
        });
    }
}

/// The fraction at which a cast that stopped `distance` short at fraction `t`, closing along
/// the normal by `approach` metres per unit fraction, touches: `t + distance / approach`
/// (exact when a flat feature meets a flat or pointed one; a curved pair that meets off its
/// line of motion is off by the curvature over the last millimetre). Overlaps at
/// the start stay at 0.
fn contact_fraction(t: f32, distance: f32, approach: f32) -> f32 {
    if distance <= 0.0 || approach <= 0.0 {
        return t;
    }
    t + distance / approach
}

/// The pose with a finite position and a unit rotation (normalised), or an error naming the
/// field.
fn checked_pose(pose: Pose) -> Result<Pose> {
    check_vec3("pose.position", pose.position)?;
    let rotation = check_rotation("pose.rotation", pose.rotation)?;
    Ok(Pose::new(pose.position, rotation))
}
