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
//! snap         walking, the ground not within the skin: sweep down by snap_distance and
//!              keep the result only if it ends standing (so it follows the ground down
//!              slopes and stairs exactly, not in hops of the ground tolerance)
//! ground       the supporting plane within the skin, if any
//! ```
//!
//! A contact *supports* the character when its normal is within `max_slope_deg` of up
//! (walkable ground), or when it is a *ledge*: the edge of a step, whose contact leans more
//! (at least [`MIN_EDGE_RISE`] up) but lies under the capsule's footprint (within its radius
//! of the axis), no higher than `step_height` above its lowest point, with walkable ground
//! just beyond it. The character stands on a ledge flat-footed: the settle and the ground
//! test replace the edge's contact plane by the level plane through the edge, so its lowest
//! point rests a skin above the step's top, as on the step itself, rather than sinking
//! until the round bottom touches the edge. That lifts it onto a low step the step it walks
//! into the edge, and keeps it up at the step's height until its axis has left the edge by
//! a radius (then the snap takes it down to the next step). Supporting contacts push
//! straight up (see `solver.rs`). The character rests a skin ([`SKIN`]) away from
//! everything, so resting contacts are not re-hit every step and nothing jitters.

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
/// Walking, ground further than the skin by more than this is snapped to, metres.
const SNAP_SLACK: f32 = 1.0e-4;
/// Casts in one sweep (each hit projects the rest of the motion).
const MAX_SWEEP_HITS: usize = 4;
/// Collect-and-solve rounds of the plane solver (curved obstacles need a second look).
const SETTLE_ROUNDS: usize = 3;
/// Fastest the character is pushed out of an overlap it starts a move in, m/s.
pub const MAX_DEPENETRATION_SPEED: f32 = 6.0;
/// A step's edge supports the character only where its contact normal has at least this
/// much up in it (the edge lies below the capsule's lower sphere's centre).
const MIN_EDGE_RISE: f32 = 0.1;
/// Normals whose cosine is at least this are taken as equal (2.6°), and a contact normal this
/// close to up as level.
const LEVEL: f32 = 0.999;
/// How far above a contact the edge probe's ray starts, metres.
const EDGE_PROBE_REACH: f32 = 0.02;
/// Planes are collected this many radii further than the ground tolerance: a ledge at the
/// rim of the footprint is (√2 − 1)·radius from the capsule standing level over it.
const LEDGE_REACH: f32 = 0.45;

/// How a contact bears the character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Support {
    /// Walkable ground: its normal is within the slope limit.
    Walkable,
    /// The edge of a step under the footprint (see the module docs).
    Ledge,
    /// Anything else: walls, steep ground, ceilings.
    None,
}

/// A collected plane with how it supports the character and the plane the solver uses for
/// it (a ledge's level plane; the contact plane otherwise).
#[derive(Clone, Copy, Debug)]
struct NearPlane {
    contact: ContactPlane,
    support: Support,
    solved: ContactPlane,
}

/// Where a move ended.
pub(crate) struct MoveOutcome {
    pub position: Vec3,
    pub ground: Option<Ground>,
    pub contacts: Vec<CharacterContact>,
}

/// A plane met by the sweep, and how it supports the character.
#[derive(Clone, Copy)]
struct SweepHit {
    plane: ContactPlane,
    support: Support,
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
    radius: f32,
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
            radius: def.capsule.radius,
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
        let hovering = ground.is_none_or(|g| g.gap_at(position) > SKIN + SNAP_SLACK);
        if walking && hovering {
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

    /// How `plane` bears a capsule centred at `center` (see the module docs). Level
    /// contacts, and contacts on a triangle's face, are walkable by their slope; another
    /// leaning one is looked at from above just beyond its point and just before it: a
    /// walkable surface beyond with a normal other than the contact's, and nothing just
    /// before (the ground drops away on the character's side), make it the edge of a ledge.
    fn support(&self, plane: &ContactPlane, center: Vec3) -> Support {
        let rise = plane.normal.dot(self.up);
        let by_slope = if rise >= self.cos_max_slope { Support::Walkable } else { Support::None };
        if !(MIN_EDGE_RISE..LEVEL).contains(&rise) || self.step_height <= 0.0 {
            return by_slope;
        }
        if plane.face.is_some_and(|face| face.dot(plane.normal) >= LEVEL) {
            return by_slope;
        }
        let lowest = center - self.half_extent * self.up;
        let offset = plane.point - lowest;
        let footprint = self.radius + 2.0 * SKIN;
        if offset.dot(self.up) > self.step_height || self.horizontal(offset).length() > footprint {
            return by_slope;
        }
        let into = -self.horizontal(plane.normal).normalize_or_zero();
        let top = self.around.surface_beyond(plane.point, into, EDGE_PROBE_REACH, SKIN);
        let is_top = |surface: Vec3| surface.dot(plane.normal) < LEVEL && surface.dot(self.up) >= self.cos_max_slope;
        let drops = || self.around.surface_beyond(plane.point, -into, EDGE_PROBE_REACH, SKIN).is_none();
        match top {
            Some(surface) if is_top(surface) && drops() => Support::Ledge,
            _ => by_slope,
        }
    }

    /// The plane as the settle and the ground test use it: a ledge becomes the level plane
    /// through its edge, whose gap is that of the capsule's lowest point above the edge.
    fn near_plane(&self, contact: ContactPlane, center: Vec3) -> NearPlane {
        let support = self.support(&contact, center);
        let solved = match support {
            Support::Ledge => ContactPlane {
                normal: self.up,
                distance: (center - contact.point).dot(self.up) - self.half_extent,
                ..contact
            },
            _ => contact,
        };
        NearPlane { contact, support, solved }
    }

    /// The constraint gap ≥ `skin` of a plane measured at `from`, pushed as its support says.
    fn constraint(&self, plane: &ContactPlane, support: Support, skin: f32) -> PlaneConstraint {
        let push = push_direction(plane.normal, self.up, support != Support::None);
        let bound = skin - plane.distance + plane.normal.dot(plane.from);
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
    fn settle(&self, target: Vec3) -> (Vec3, Vec<NearPlane>) {
        self.settle_from(target, SETTLE_ROUNDS)
    }

    fn settle_from(&self, target: Vec3, rounds: usize) -> (Vec3, Vec<NearPlane>) {
        let mut position = target;
        let mut planes = Vec::new();
        let mut contacts = Vec::new();
        let margin = SKIN + GROUND_TOLERANCE + LEDGE_REACH * self.radius;
        for _ in 0..rounds {
            contacts.clear();
            self.around.planes_near(position, margin, &mut contacts);
            planes = contacts.iter().map(|c| self.near_plane(*c, position)).collect();
            if planes.iter().all(|p| p.solved.gap_at(position) >= SKIN) {
                break;
            }
            let constraints: Vec<PlaneConstraint> =
                planes.iter().map(|p| self.constraint(&p.solved, p.support, SKIN)).collect();
            let solved = solve(position, &constraints);
            let moved = (solved - position).length();
            position = solved;
            if moved < 1e-6 {
                break;
            }
        }
        (position, planes)
    }

    /// The supporting plane within the ground tolerance that faces up the most (a ledge's
    /// level plane faces straight up).
    fn ground_among(&self, planes: &[NearPlane], center: Vec3) -> Option<ContactPlane> {
        planes
            .iter()
            .filter(|p| p.support != Support::None && p.solved.gap_at(center) <= SKIN + GROUND_TOLERANCE)
            .map(|p| p.solved)
            .max_by(|a, b| a.normal.dot(self.up).total_cmp(&b.normal.dot(self.up)))
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
            let support = self.support(&plane, position);
            let PlaneConstraint { normal, push, .. } = self.constraint(&plane, support, 0.0);
            constraints.push(PlaneConstraint { normal, push, bound: 0.0 });
            hits.push(SweepHit { plane, support });
            remaining = solve(remaining, &constraints);
        }
        (position, hits)
    }

    fn plane_of(&self, hit: &CastHit, at: Vec3) -> ContactPlane {
        ContactPlane {
            normal: hit.normal,
            distance: SKIN,
            from: at,
            point: hit.point,
            obstacle: hit.obstacle,
            face: None,
        }
    }

    /// Did a wall-like plane (not supporting, facing against the horizontal motion) stop the
    /// sweep?
    fn blocked(&self, hits: &[SweepHit], displacement: Vec3) -> bool {
        let forward = self.horizontal(displacement).normalize_or_zero();
        forward != Vec3::ZERO
            && hits
                .iter()
                .any(|hit| hit.support == Support::None && self.horizontal(hit.plane.normal).dot(forward) < -0.1)
    }

    /// The step-up: up by at most `step_height` (less under a ceiling), the horizontal motion
    /// from there, then down by as much as it rose; the landing must support it no higher
    /// than `step_height` above the start (the forward part may roll over an edge).
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
        let (settled, planes) = self.settle(landed);
        let low_enough = (settled - start).dot(self.up) <= self.step_height + 1e-4;
        (low_enough && self.ground_among(&planes, settled).is_some()).then_some(settled)
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
    fn snap(&self, from: Vec3) -> Option<(Vec3, Vec<NearPlane>, ContactPlane)> {
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
    fn contacts(&self, hits: &[SweepHit], planes: &[NearPlane], position: Vec3) -> Vec<CharacterContact> {
        let near = planes.iter().filter(|p| p.solved.gap_at(position) <= SKIN + GROUND_TOLERANCE).map(|p| &p.contact);
        let mut contacts: Vec<CharacterContact> = Vec::new();
        for plane in hits.iter().map(|h| &h.plane).chain(near) {
            if !contacts.iter().any(|c| c.obstacle == plane.obstacle) {
                contacts.push(CharacterContact { obstacle: plane.obstacle, point: plane.point, normal: plane.normal });
            }
        }
        contacts
    }
}
