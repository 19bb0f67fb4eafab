//! One move of a character: from where it is by a target displacement, to where the world
//! lets it be.
//!
//! ```text
//! depenetrate  the plane solver at the start (capped: out of deep overlap over a few steps)
//! sweep        cast the capsule along the displacement; at a hit stop a skin short, project
//!              what is left onto the planes met so far, cast again (a few times): it never
//!              passes through anything at any speed
//! step up      walking, blocked by a wall-like plane: up by step_height, forward, down;
//!              taken when it lands on ground it can stand on and gets further
//! settle       the plane solver at the end: the closest position to where the sweep ended
//!              that satisfies every plane (overlaps from moving obstacles, corners)
//! snap         walking, no ground below within the skin: sweep down by snap_distance and
//!              keep the result only if it ends standing
//! ground       the supporting plane within the skin, if any
//! ```
//!
//! A plane *supports* the character when its normal is within `max_slope_deg` of up, or when
//! it is the edge of a step: the contact leans more (at least [`MIN_EDGE_RISE`] up), lies no
//! higher than `step_height` above the capsule's lowest point, and there is walkable ground
//! just beyond it. Supporting planes push straight up (see `solver.rs`), so a capsule rolls
//! up over the edge of a low step and down over the edge of the one it leaves. The character
//! rests a skin ([`SKIN`]) away from everything, so resting contacts are not re-hit every step
//! and nothing jitters.

use super::def::CharacterDef;
use super::planes::{CastHit, ContactPlane, OtherCapsule, Surroundings};
use super::solver::{push_direction, solve, PlaneConstraint};
use super::state::{CharacterContact, Ground, Obstacle};
use crate::math::Vec3;
use crate::world::World;

/// Gap the character keeps to everything, metres.
pub const SKIN: f32 = 0.01;
/// A supporting plane within this much more than the skin is ground, metres.
const GROUND_TOLERANCE: f32 = 0.01;
/// Casts in one sweep (each hit projects the rest of the motion).
const MAX_SWEEP_HITS: usize = 4;
/// Collect-and-solve rounds of the plane solver (curved obstacles need a second look).
const SETTLE_ROUNDS: usize = 3;
/// Fastest the character is pushed out of an overlap it starts a move in, m/s.
pub const MAX_DEPENETRATION_SPEED: f32 = 6.0;
/// A step's edge supports the character only where its contact normal has at least this
/// much up in it (the edge lies below the capsule's lower sphere's centre).
const MIN_EDGE_RISE: f32 = 0.1;
/// How far above a contact the edge probe's ray starts, metres.
const EDGE_PROBE_REACH: f32 = 0.02;

/// Where a move ended.
pub(crate) struct MoveOutcome {
    pub position: Vec3,
    pub ground: Option<Ground>,
    pub contacts: Vec<CharacterContact>,
}

/// A plane met by the sweep, and whether it supports the character.
#[derive(Clone, Copy)]
struct SweepHit {
    plane: ContactPlane,
    supports: bool,
}

/// The mover of one character for one move.
pub(crate) struct Mover<'a> {
    around: Surroundings<'a>,
    up: Vec3,
    cos_max_slope: f32,
    step_height: f32,
    snap_distance: f32,
    /// Half the capsule's height, centre to lowest point.
    half_extent: f32,
    /// Largest depenetration in this move, metres.
    max_depenetration: f32,
}

impl<'a> Mover<'a> {
    pub fn new(world: &'a World, others: &'a [OtherCapsule], def: &CharacterDef, up: Vec3, dt: f32) -> Self {
        Mover {
            around: Surroundings::new(world, others, def, up),
            up,
            cos_max_slope: def.max_slope_deg.to_radians().cos(),
            step_height: def.step_height,
            snap_distance: def.snap_distance,
            half_extent: def.capsule.half_height + def.capsule.radius,
            max_depenetration: MAX_DEPENETRATION_SPEED * dt,
        }
    }

    /// Moves from `start` by `displacement` (see the module docs). `walking`: it stood on
    /// ground before and is not jumping, so it may step up and snap down.
    pub fn move_by(&self, start: Vec3, displacement: Vec3, walking: bool) -> MoveOutcome {
        let start = self.depenetrate(start);
        let (mut position, hits) = self.sweep(start, displacement);
        if walking && self.blocked(&hits, displacement) {
            if let Some(stepped) = self.step_up(start, displacement) {
                let forward = self.horizontal(displacement);
                if (stepped - start).dot(forward) > (position - start).dot(forward) + 1e-4 {
                    position = stepped;
                }
            }
        }
        let (mut position, mut planes) = self.settle(position);
        let mut ground = self.ground_among(&planes, position);
        if walking && ground.is_none() {
            if let Some((snapped, snapped_planes, snapped_ground)) = self.snap(position) {
                (position, planes, ground) = (snapped, snapped_planes, Some(snapped_ground));
            }
        }
        let contacts = self.contacts(&hits, &planes, position);
        MoveOutcome { position, ground: ground.map(|g| self.ground_of(&g)), contacts }
    }

    /// The ground at `center` without moving (a character just created).
    pub fn ground_at(&self, center: Vec3) -> Option<Ground> {
        let (position, planes) = self.settle_from(center, 1);
        self.ground_among(&planes, position).map(|g| self.ground_of(&g))
    }

    fn ground_of(&self, plane: &ContactPlane) -> Ground {
        Ground { obstacle: plane.obstacle, point: plane.point, normal: plane.normal }
    }

    /// The part of `v` across up.
    fn horizontal(&self, v: Vec3) -> Vec3 {
        v - v.dot(self.up) * self.up
    }

    /// Does `plane` support a capsule centred at `center`? (See the module docs.)
    fn supports(&self, plane: &ContactPlane, center: Vec3) -> bool {
        let rise = plane.normal.dot(self.up);
        if rise >= self.cos_max_slope {
            return true;
        }
        if rise < MIN_EDGE_RISE || self.step_height <= 0.0 {
            return false;
        }
        let lowest = center - self.half_extent * self.up;
        if (plane.point - lowest).dot(self.up) > self.step_height {
            return false;
        }
        let into = -self.horizontal(plane.normal).normalize_or_zero();
        self.around.walkable_beyond(plane.point, into, EDGE_PROBE_REACH, SKIN, self.cos_max_slope)
    }

    fn constraint(&self, plane: &ContactPlane, center: Vec3, bound: f32) -> PlaneConstraint {
        let push = push_direction(plane.normal, self.up, self.supports(plane, center));
        PlaneConstraint { normal: plane.normal, push, bound }
    }

    /// The plane solver at the start of a move, its correction capped at
    /// [`MAX_DEPENETRATION_SPEED`]: out of a deep overlap over a few steps, without a kick.
    fn depenetrate(&self, start: Vec3) -> Vec3 {
        let (solved, _) = self.settle(start);
        let correction = solved - start;
        start + correction.clamp_length_max(self.max_depenetration)
    }

    /// The plane solver: collect the planes at the point, solve for the closest point that
    /// keeps the skin from each, repeat while it moves. Returns the point and the planes last
    /// collected.
    fn settle(&self, target: Vec3) -> (Vec3, Vec<ContactPlane>) {
        self.settle_from(target, SETTLE_ROUNDS)
    }

    fn settle_from(&self, target: Vec3, rounds: usize) -> (Vec3, Vec<ContactPlane>) {
        let mut position = target;
        let mut planes = Vec::new();
        for _ in 0..rounds {
            planes.clear();
            self.around.planes_near(position, SKIN + GROUND_TOLERANCE, &mut planes);
            let constraints: Vec<PlaneConstraint> =
                planes.iter().map(|p| self.constraint(p, position, SKIN - p.distance + p.normal.dot(p.from))).collect();
            if planes.iter().all(|p| p.gap_at(position) >= SKIN) {
                break;
            }
            let solved = solve(position, &constraints);
            let moved = (solved - position).length();
            position = solved;
            if moved < 1e-6 {
                break;
            }
        }
        (position, planes)
    }

    /// The supporting plane within the ground tolerance that faces up the most.
    fn ground_among(&self, planes: &[ContactPlane], center: Vec3) -> Option<ContactPlane> {
        planes
            .iter()
            .filter(|p| p.gap_at(center) <= SKIN + GROUND_TOLERANCE && self.supports(p, center))
            .max_by(|a, b| a.normal.dot(self.up).total_cmp(&b.normal.dot(self.up)))
            .copied()
    }

    /// Casts along `displacement`, stopping a skin short of each hit and projecting the rest
    /// onto the planes hit so far (n·r ≥ 0, pushed as the solver pushes). An obstacle the
    /// capsule already overlaps and does not move into is left to the plane solver.
    fn sweep(&self, start: Vec3, displacement: Vec3) -> (Vec3, Vec<SweepHit>) {
        let mut position = start;
        let mut remaining = displacement;
        let mut hits: Vec<SweepHit> = Vec::new();
        let mut constraints = Vec::new();
        let mut skip: Vec<Obstacle> = Vec::new();
        while hits.len() < MAX_SWEEP_HITS && skip.len() < MAX_SWEEP_HITS {
            let length = remaining.length();
            if length < 1e-7 {
                break;
            }
            let Some(hit) = self.around.first_hit(position, remaining, &skip) else {
                position += remaining;
                break;
            };
            let direction = remaining / length;
            let approach = -direction.dot(hit.normal);
            if hit.normal == Vec3::ZERO || (hit.fraction == 0.0 && approach <= 0.0) {
                skip.push(hit.obstacle);
                continue;
            }
            let travel = hit.fraction * length;
            let stop = travel - (SKIN / approach.max(1e-6)).min(travel);
            position += direction * stop;
            remaining -= direction * stop;
            let plane = self.plane_of(&hit, position);
            let supports = self.supports(&plane, position);
            constraints.push(self.constraint(&plane, position, 0.0));
            hits.push(SweepHit { plane, supports });
            remaining = solve(remaining, &constraints);
        }
        (position, hits)
    }

    fn plane_of(&self, hit: &CastHit, at: Vec3) -> ContactPlane {
        ContactPlane { normal: hit.normal, distance: SKIN, from: at, point: hit.point, obstacle: hit.obstacle }
    }

    /// Did a wall-like plane (not supporting, facing against the horizontal motion) stop the
    /// sweep?
    fn blocked(&self, hits: &[SweepHit], displacement: Vec3) -> bool {
        let forward = self.horizontal(displacement).normalize_or_zero();
        forward != Vec3::ZERO
            && hits.iter().any(|hit| !hit.supports && self.horizontal(hit.plane.normal).dot(forward) < -0.1)
    }

    /// The step-up: up by at most `step_height` (less under a ceiling), the horizontal motion
    /// from there, then down by as much as it rose; the landing must support it.
    fn step_up(&self, start: Vec3, displacement: Vec3) -> Option<Vec3> {
        if self.step_height <= 0.0 {
            return None;
        }
        let rise = self.free_travel(start, self.up * self.step_height);
        if rise < 1e-3 {
            return None;
        }
        let (ahead, _) = self.sweep(start + self.up * rise, self.horizontal(displacement));
        let drop = rise + 2.0 * SKIN;
        let hit = self.around.first_hit(ahead, -self.up * drop, &[])?;
        let approach = hit.normal.dot(self.up);
        if approach <= 0.0 {
            return None;
        }
        let travel = hit.fraction * drop;
        let landed = ahead - self.up * (travel - (SKIN / approach).min(travel));
        self.supports(&self.plane_of(&hit, landed), landed).then_some(landed)
    }

    /// How far the capsule can move along `translation` before it comes within the skin of
    /// something, metres (as the translation is long when nothing is in the way).
    fn free_travel(&self, from: Vec3, translation: Vec3) -> f32 {
        let length = translation.length();
        match self.around.first_hit(from, translation, &[]) {
            None => length,
            Some(hit) => {
                let approach = -(translation / length).dot(hit.normal);
                (hit.fraction * length - SKIN / approach.max(1e-6)).max(0.0)
            }
        }
    }

    /// Down by `snap_distance` (a sweep, so it slides off the edge it leaves), kept only if
    /// it ends on ground: the position, its planes and the ground.
    fn snap(&self, from: Vec3) -> Option<(Vec3, Vec<ContactPlane>, ContactPlane)> {
        if self.snap_distance <= 0.0 {
            return None;
        }
        let (down, _) = self.sweep(from, -self.up * self.snap_distance);
        let (position, planes) = self.settle(down);
        let ground = self.ground_among(&planes, position)?;
        Some((position, planes, ground))
    }

    /// What the move touched: the sweep's hits and the planes within the ground tolerance at
    /// the end, one entry per obstacle.
    fn contacts(&self, hits: &[SweepHit], planes: &[ContactPlane], position: Vec3) -> Vec<CharacterContact> {
        let near = planes.iter().filter(|p| p.gap_at(position) <= SKIN + GROUND_TOLERANCE);
        let mut contacts: Vec<CharacterContact> = Vec::new();
        for plane in hits.iter().map(|h| &h.plane).chain(near) {
            if !contacts.iter().any(|c| c.obstacle == plane.obstacle) {
                contacts.push(CharacterContact { obstacle: plane.obstacle, point: plane.point, normal: plane.normal });
            }
        }
        contacts
    }
}
