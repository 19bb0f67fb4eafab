//! Shape casts and overlap tests against the world's colliders.
//!
//! Both start from the broad phase: a query box (for a cast, the union of the shape's box at
//! the start and at the end of the translation) picks the colliders whose stored boxes
//! overlap it; then the exact test runs on each: the time of impact under pure translation
//! ([`crate::collision::toi`], stopped 1 mm short and finished analytically) for casts, the
//! GJK distance for overlaps. Triangle meshes and heightfields are met one triangle at a
//! time (those in the shape's box, or its swept box, in the surface's frame), each triangle
//! a convex core of its own: a cast reports the triangle it meets first, an overlap stops at
//! the first triangle it touches.
//!
//! Surfaces keep their sides, as in the narrow phase and in ray casts. A one-sided mesh is
//! met from its front only: a cast passes the triangles whose plane the shape's origin
//! starts behind, and a triangle it touches at its start while moving away from its front.
//! A heightfield is solid below its surface: a shape whose origin starts under the surface
//! (within the grid's x, z extent) hits at fraction 0 (the point straight above it on the
//! surface, that triangle's normal: the way out) and overlaps it. Like the contacts, the
//! queries see a heightfield only where the broad phase does: a shape whose box misses the
//! heightfield's bounds (one wholly below its lowest sample) is not found.
//!
//! Filters work as in [`World::cast_ray`]: a collider is considered only when the filter
//! accepts it (sensors included).

use super::World;
use crate::collision::toi::{
    separation, surface_impacts, time_of_impact, triangle_separation, Sweep, Toi, ToiSettings,
};
use crate::error::{check_rotation, check_vec3, Result};
use crate::geometry::Aabb;
use crate::id::{BodyId, ColliderId};
use crate::math::{Pose, Vec3};
use crate::shape::{Shape, Triangle};

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
    /// zero when a convex collider overlaps the shape at the start so deeply that no normal
    /// can be measured. For a mesh or heightfield: the face normal of the triangle met (of a
    /// two-sided mesh, the side facing the shape; for a shape starting under a heightfield,
    /// the front of the triangle above it: the way out).
    pub normal: Vec3,
    /// The index of the triangle met, for meshes and heightfields (`None` for other shapes).
    pub triangle: Option<u32>,
}

/// Where a cast meets one collider.
#[derive(Clone, Copy, Debug)]
struct CastContact {
    fraction: f32,
    point: Vec3,
    normal: Vec3,
    triangle: Option<u32>,
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
            let (other, other_pose) = (&collider.shape, &collider.world_pose);
            let found = match other {
                Shape::TriMesh(_) | Shape::HeightField(_) => cast_onto_surface(shape, &sweep, other, other_pose),
                _ => cast_onto_convex(shape, &sweep, other, other_pose),
            };
            let Some(CastContact { fraction, point, normal, triangle }) = found else { return };
            if fraction >= 1.0 || best.is_some_and(|b| b.fraction <= fraction) {
                return;
            }
            best = Some(ShapeCastHit { collider: id, body: collider.body, fraction, point, normal, triangle });
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
            let (other, other_pose) = (&collider.shape, &collider.world_pose);
            let touching = match other {
                Shape::TriMesh(_) | Shape::HeightField(_) => touches_surface(shape, &pose, other, other_pose),
                _ => separation(shape, &pose, other, other_pose).is_some_and(|g| g.distance <= 0.0),
            };
            if touching {
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

/// A cast against a convex collider or a plane: their time of impact, finished.
fn cast_onto_convex(shape: &Shape, sweep: &Sweep, other: &Shape, other_pose: &Pose) -> Option<CastContact> {
    let toi = time_of_impact(shape, sweep, other, &Sweep::fixed(*other_pose), &ToiSettings::CAST)?;
    let (fraction, point) = finish(&toi, sweep.linear())?;
    Some(CastContact { fraction, point, normal: -toi.normal, triangle: None })
}

/// Triangles a cast meets within this travel of each other (metres) are met together.
const TIE_TRAVEL: f32 = 1e-5;

/// A cast against the triangles of a mesh or heightfield (sides as in the module docs): the
/// impact with each triangle near the path, finished, and the earliest of them kept. Among
/// triangles met together (within [`TIE_TRAVEL`]) the one met most squarely on its face
/// wins (GJK normal closest to the face normal): a shape landing on an edge two triangles
/// share reports the one whose face holds the point, where the finish is exact. The normal
/// is the face normal on the side of the shape's origin at contact (always the front but for
/// a two-sided mesh).
fn cast_onto_surface(shape: &Shape, sweep: &Sweep, surface: &Shape, surface_pose: &Pose) -> Option<CastContact> {
    if let Some(under) = start_under_heightfield(surface, surface_pose, sweep.start.position) {
        return Some(under);
    }
    let translation = sweep.linear();
    let tie = TIE_TRAVEL / translation.length();
    let solid = matches!(surface, Shape::HeightField(_));
    let mut best: Option<(CastContact, f32)> = None;
    let surface_sweep = Sweep::fixed(*surface_pose);
    surface_impacts(shape, sweep, surface, &surface_sweep, &ToiSettings::CAST, |toi, triangle| {
        let front = surface_pose.transform_vector(triangle.normal);
        let leaves_front = toi.t == 0.0 && translation.dot(front) > 0.0;
        if leaves_front && !triangle.two_sided && !solid {
            return;
        }
        let Some((fraction, point)) = finish(&toi, translation) else { return };
        let squareness = toi.normal.dot(front).abs();
        let wins = |(b, b_squareness): (CastContact, f32)| {
            fraction < b.fraction - tie || (fraction <= b.fraction + tie && squareness > b_squareness)
        };
        if !best.is_none_or(wins) {
            return;
        }
        let origin = sweep.pose_at(fraction).position;
        let behind = front.dot(origin - surface_pose.transform_point(triangle.vertices[0])) < 0.0;
        let normal = if triangle.two_sided && behind { -front } else { front };
        best = Some((CastContact { fraction, point, normal, triangle: toi.triangle }, squareness));
    });
    best.map(|(contact, _)| contact)
}

/// The hit at fraction 0 of a shape whose origin `origin` (world) starts under the surface
/// of a heightfield: the surface point straight above and that triangle's normal.
fn start_under_heightfield(surface: &Shape, surface_pose: &Pose, origin: Vec3) -> Option<CastContact> {
    let Shape::HeightField(field) = surface else { return None };
    let (index, above) = field.surface_above(surface_pose.inverse_transform_point(origin))?;
    Some(CastContact {
        fraction: 0.0,
        point: surface_pose.transform_point(above),
        normal: surface_pose.transform_vector(field.triangle(index).normal),
        triangle: Some(index),
    })
}

/// Does the convex `shape` at `pose` touch the mesh or heightfield `surface`: is a triangle
/// in its box within GJK distance 0 of it, or (a heightfield) its origin under the surface?
/// Stops at the first touching triangle.
fn touches_surface(shape: &Shape, pose: &Pose, surface: &Shape, surface_pose: &Pose) -> bool {
    if start_under_heightfield(surface, surface_pose, pose.position).is_some() {
        return true;
    }
    let bounds = shape.aabb(&surface_pose.inv_mul_pose(pose));
    let mut touching = false;
    let mut test = |_: u32, triangle: &Triangle| {
        touching = triangle_separation(shape, pose, triangle, surface_pose).is_some_and(|g| g.distance <= 0.0);
        !touching
    };
    surface.for_each_triangle_in(&bounds, &mut test);
    touching
}

/// The fraction and contact point of a cast that stopped `d = toi.distance` short at
/// `t = toi.t`. Closing along the normal n by `a = translation·n` metres per unit fraction,
/// it touches at `f = t + d / a`; meanwhile the shape moves on by Δ = translation·(f − t),
/// whose part across n slides the contact along the collider: point = point_b + Δ − n(n·Δ).
/// Both are exact when a flat feature meets a flat or pointed one (a curved pair that meets
/// off its line of motion is off by the curvature over the last millimetre). Shapes that
/// overlap at the start stay at `t` and `point_b`; shapes apart that do not close (a ≤ 0)
/// never meet: under a translation the distance of two convex shapes is convex in the
/// fraction, and its slope −a is not negative there.
fn finish(toi: &Toi, translation: Vec3) -> Option<(f32, Vec3)> {
    if toi.distance <= 0.0 {
        return Some((toi.t, toi.point_b));
    }
    let approach = translation.dot(toi.normal);
    if approach <= 0.0 {
        return None;
    }
    let fraction = toi.t + toi.distance / approach;
    let travel = translation * (fraction - toi.t);
    Some((fraction, toi.point_b + travel - toi.normal * toi.normal.dot(travel)))
}

/// The pose with a finite position and a unit rotation (normalised), or an error naming the
/// field.
fn checked_pose(pose: Pose) -> Result<Pose> {
    check_vec3("pose.position", pose.position)?;
    let rotation = check_rotation("pose.rotation", pose.rotation)?;
    Ok(Pose::new(pose.position, rotation))
}
