//! Continuous collision for bullets.
//!
//! After the solver has moved every body and the poses are written back, each awake dynamic
//! body with `bullet` set whose motion this step, `|Δc| + θ·max_extent` (centre travel plus
//! rim travel from the turn), exceeds [`MOTION_FRACTION`] of its smallest half extent is swept
//! from its start pose to its end pose (centre of mass linearly, rotation by slerp) against
//! the colliders its swept box overlaps in the broad phase: static and kinematic ones and
//! those of non-bullet dynamic bodies, all held at their end-of-step poses. If the earliest
//! time of impact `t` is below 1 the body is put back at its pose at `t`, 5 mm short of
//! contact ([`ToiSettings::CONTINUOUS`]), and keeps its velocity: the next step's speculative
//! contact, created at that gap, stops it. The time between `t` and the end of the step is
//! lost (the body moves less than its velocity says during that step).
//!
//! Pairs already touching at the start of the step (closer than [`TOUCHING`]) are left to the
//! contact solver, otherwise a bullet resting on the ground would be stopped at its start
//! pose every step. Against a mesh or heightfield this holds per triangle: a bullet sliding on
//! a floor is still stopped by a wall of the same mesh. A pair that starts a little apart searches to half its starting gap at
//! most, so a bullet that CCD left 5 mm short still moves on along the surface.
//!
//! Non-bullet bodies get no sweep: their proxies are swept over the next step (their boxes
//! reach ahead by `v·dt`) and speculative contacts start at 2 cm plus the pair's closing speed
//! times `dt`, which stops straight-moving fast bodies; a fast spinning thin body, or one
//! whose velocity an impulse changed just before the step (its proxy was swept with the old
//! one), can still pass through thin walls (see `tests/ccd.rs`). Bullets are not swept
//! against each other.

use super::World;
use crate::body::BodyKind;
use crate::collision::toi::{separation, surface_impacts, time_of_impact, triangle_separation, Sweep, ToiSettings};
use crate::geometry::Aabb;
use crate::id::{BodyId, ColliderId};
use crate::math::{Pose, Quat, Vec3};
use crate::shape::Shape;

/// A bullet is swept when it moves more than this fraction of its smallest half extent in a
/// step: a body that moves less than half its thinnest half-size cannot have passed through
/// anything the contacts did not see.
pub const MOTION_FRACTION: f32 = 0.5;

/// Pairs closer than this at the start of the step (metres) are left to the contact solver.
pub const TOUCHING: f32 = 0.5e-3;

/// A bullet's state before the solver moved it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BulletStart {
    pub(crate) body: BodyId,
    pub(crate) center: Vec3,
    pub(crate) rotation: Quat,
}

impl World {
    /// Sweeps each bullet from its start to its end pose and moves it back to its first time
    /// of impact (see the module docs).
    pub(crate) fn solve_continuous(&mut self, starts: &[BulletStart]) {
        for start in starts {
            let Some(t) = self.bullet_impact_time(start) else { continue };
            let Some(body) = self.bodies.get_mut(start.body) else { continue };
            let sweep = Sweep {
                start: Pose::new(start.center, start.rotation),
                end: Pose::new(body.center, body.pose.rotation),
                local: Pose::IDENTITY,
            };
            let frame = sweep.frame_at(t);
            body.center = frame.position;
            body.pose.rotation = frame.rotation;
            body.sync_origin_from_center();
            self.refresh_collider_poses(start.body);
        }
    }

    /// The earliest time of impact in `[0, 1)` of the bullet's sweep this step, if it moved
    /// far enough to need one and hits anything.
    fn bullet_impact_time(&self, start: &BulletStart) -> Option<f32> {
        let body = self.bodies.get(start.body)?;
        let start_frame = Pose::new(start.center, start.rotation);
        let end_frame = Pose::new(body.center, body.pose.rotation);
        let frames = Sweep { start: start_frame, end: end_frame, local: Pose::IDENTITY };
        let motion = frames.linear().length() + frames.angle() * body.max_extent;
        if motion <= MOTION_FRACTION * self.smallest_half_extent(start.body) {
            return None;
        }
        let reach = Vec3::splat(body.max_extent);
        let swept = Aabb::from_center_half_extents(start.center, reach)
            .union(&Aabb::from_center_half_extents(body.center, reach));
        let candidates = self.sweep_candidates(start.body, &swept);
        let mut earliest: Option<f32> = None;
        for &own in &body.colliders {
            let Some(collider) = self.colliders.get(own) else { continue };
            if collider.sensor || matches!(collider.shape, Shape::Plane(_)) {
                continue;
            }
            let local = Pose::new(collider.local_pose.position - body.local_center, collider.local_pose.rotation);
            let sweep = Sweep { local, ..frames };
            for &other in &candidates {
                if let Some(t) = self.pair_impact_time(own, &sweep, other) {
                    earliest = Some(earliest.map_or(t, |e: f32| e.min(t)));
                }
            }
        }
        earliest
    }

    /// The time of impact of the bullet collider `own` moving along `sweep` with the fixed
    /// collider `other`; `None` when they do not meet, when the pair may not collide, or
    /// when they already touch at the start.
    fn pair_impact_time(&self, own: ColliderId, sweep: &Sweep, other: ColliderId) -> Option<f32> {
        let (a, b) = (self.colliders.get(own)?, self.colliders.get(other)?);
        if !a.groups.interacts_with(&b.groups) {
            return None;
        }
        if matches!(b.shape, Shape::TriMesh(_) | Shape::HeightField(_)) {
            return surface_impact_time(&a.shape, sweep, &b.shape, &b.world_pose);
        }
        let gap = separation(&a.shape, &sweep.pose_at(0.0), &b.shape, &b.world_pose)?;
        if gap.distance <= TOUCHING {
            return None;
        }
        // Search to the 5 mm target, or half the starting gap when that is closer.
        let target = ToiSettings::CONTINUOUS.target.min(0.5 * gap.distance);
        let settings = ToiSettings { target, tolerance: 0.25 * target, ..ToiSettings::CONTINUOUS };
        let toi = time_of_impact(&a.shape, sweep, &b.shape, &Sweep::fixed(b.world_pose), &settings)?;
        Some(toi.t)
    }

    /// Colliders whose broad-phase box overlaps `swept` that the bullet `body` is swept
    /// against: not its own, not sensors, not other bullets, none that a joint keeps from
    /// colliding with it.
    fn sweep_candidates(&self, body: BodyId, swept: &Aabb) -> Vec<ColliderId> {
        let mut candidates = Vec::new();
        self.broad_phase.query(swept, |user| {
            let Some(id) = self.colliders.id_at(user as usize) else { return true };
            let Some(collider) = self.colliders.get(id) else { return true };
            let Some(owner) = self.bodies.get(collider.body) else { return true };
            let other_bullet = owner.bullet && owner.kind == BodyKind::Dynamic;
            let excluded = collider.body == body || collider.sensor || other_bullet || !owner.enabled;
            if !excluded && !self.joint_blocks_collision(body, collider.body) {
                candidates.push(id);
            }
            true
        });
        candidates
    }

    /// The smallest half extent of the body's colliders' local boxes, metres (infinite when
    /// it has none but planes).
    fn smallest_half_extent(&self, body: BodyId) -> f32 {
        let Some(body) = self.bodies.get(body) else { return f32::INFINITY };
        let boxes = body.colliders.iter().filter_map(|&c| self.colliders.get(c));
        boxes
            .filter(|c| !matches!(c.shape, Shape::Plane(_)))
            .map(|c| c.shape.aabb(&Pose::IDENTITY).half_extents().min_element())
            .fold(f32::INFINITY, f32::min)
    }
}

/// The earliest time of impact of `convex` moving along `sweep` with the triangles of the
/// fixed mesh or heightfield `surface` that start farther than the 5 mm target (nearer ones
/// already have speculative contacts: they are the contact solver's, and a bullet sliding
/// along a floor is not held back by it).
fn surface_impact_time(convex: &Shape, sweep: &Sweep, surface: &Shape, surface_pose: &Pose) -> Option<f32> {
    let settings = ToiSettings::CONTINUOUS;
    let start = sweep.pose_at(0.0);
    let mut earliest: Option<f32> = None;
    surface_impacts(convex, sweep, surface, &Sweep::fixed(*surface_pose), &settings, |toi, triangle| {
        let Some(gap) = triangle_separation(convex, &start, triangle, surface_pose) else { return };
        if gap.distance <= settings.target + settings.tolerance {
            return;
        }
        earliest = Some(earliest.map_or(toi.t, |e: f32| e.min(toi.t)));
    });
    earliest
}
