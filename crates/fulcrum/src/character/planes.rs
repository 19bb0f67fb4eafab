//! What is around a character's capsule, as planes: the queries of the mover against the
//! world's colliders (meshes and heightfields triangle by triangle; sensors and colliders
//! its groups reject left out) and against the other characters (upright capsules too).
//!
//! A contact plane is the signed distance to one obstacle, linearised where it was measured:
//! with the centre at `from`, gap `d` and unit normal `n` (from the obstacle towards the
//! capsule), the gap at another centre `x` is taken as
//!
//! ```text
//! gap(x) = d + n·(x − from)
//! ```
//!
//! The obstacle grown by the capsule (their Minkowski sum) is convex and the plane is its
//! tangent plane at the nearest point, so every centre with gap(x) ≥ 0 is clear of that
//! obstacle: the linearisation errs on the safe side, and collecting again after a move
//! refines it on curved obstacles.

use super::def::CharacterDef;
use super::state::Obstacle;
use crate::collider::{Collider, CollisionGroups};
use crate::collision::narrow_phase::epa::epa;
use crate::collision::narrow_phase::gjk::{gjk, ConvexCore, CoreKind};
use crate::collision::toi::{separation, time_of_impact, Sweep, ToiSettings};
use crate::geometry::{Aabb, Ray};
use crate::id::{CharacterId, ColliderId};
use crate::math::{Pose, Quat, Vec3};
use crate::shape::{Capsule, Shape, Triangle};
use crate::world::World;

/// One obstacle's plane near the capsule (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactPlane {
    /// Unit normal from the obstacle towards the capsule.
    pub normal: Vec3,
    /// Signed gap at `from`, metres (negative: overlapping).
    pub distance: f32,
    /// The capsule centre where the plane was measured.
    pub from: Vec3,
    /// Nearest point of the obstacle (world).
    pub point: Vec3,
    /// What the plane belongs to.
    pub obstacle: Obstacle,
    /// The face normal of the triangle, for a mesh or heightfield (a contact on the face
    /// has its normal; one on an edge or corner does not).
    pub face: Option<Vec3>,
}

impl ContactPlane {
    /// The linearised gap with the capsule centred at `x`: d + n·(x − from).
    pub fn gap_at(&self, x: Vec3) -> f32 {
        self.distance + self.normal.dot(x - self.from)
    }
}

/// The first obstacle a moving capsule meets.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CastHit {
    /// Fraction of the translation travelled before contact, in [0, 1).
    pub fraction: f32,
    /// Unit normal of the obstacle towards the capsule.
    pub normal: Vec3,
    /// Contact point on the obstacle.
    pub point: Vec3,
    /// What it met.
    pub obstacle: Obstacle,
}

/// Another character as an obstacle: an upright capsule.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OtherCapsule {
    pub id: CharacterId,
    pub center: Vec3,
    pub capsule: Capsule,
    pub groups: CollisionGroups,
}

/// The world as one character sees it: the colliders it may touch and the other characters
/// near its path.
pub(crate) struct Surroundings<'a> {
    pub world: &'a World,
    /// Characters that may come near during this move.
    pub others: &'a [OtherCapsule],
    /// The capsule as a shape (along local Y).
    pub shape: Shape,
    pub capsule: Capsule,
    /// Rotation taking local Y to up.
    pub rotation: Quat,
    pub up: Vec3,
    pub groups: CollisionGroups,
}

impl<'a> Surroundings<'a> {
    pub fn new(world: &'a World, others: &'a [OtherCapsule], def: &CharacterDef, up: Vec3) -> Self {
        Surroundings {
            world,
            others,
            shape: Shape::Capsule(def.capsule),
            capsule: def.capsule,
            rotation: Quat::from_rotation_arc(Vec3::Y, up),
            up,
            groups: def.groups,
        }
    }

    /// The capsule's pose with its centre at `center`.
    pub fn pose(&self, center: Vec3) -> Pose {
        Pose::new(center, self.rotation)
    }

    /// Does the character collide with this collider? Not with sensors, nor where the groups
    /// say no.
    fn accepts(&self, collider: &Collider) -> bool {
        !collider.is_sensor() && self.groups.interacts_with(&collider.groups())
    }

    /// Every obstacle plane whose gap at `center` is below `margin`, appended to `out`.
    pub fn planes_near(&self, center: Vec3, margin: f32, out: &mut Vec<ContactPlane>) {
        let pose = self.pose(center);
        let bounds = self.shape.aabb(&pose).expanded(margin);
        let world = self.world;
        let ids =
            world.overlap_aabb(bounds, |id| world.collider(id).is_some_and(|c| self.accepts(c))).unwrap_or_default();
        for id in ids {
            let Some(collider) = world.collider(id) else { continue };
            let obstacle = Obstacle::Collider { collider: id, body: collider.body() };
            let mut push = |normal: Vec3, distance: f32, point: Vec3, face: Option<Vec3>| {
                if distance < margin && normal.is_finite() && normal != Vec3::ZERO {
                    out.push(ContactPlane { normal, distance, from: center, point, obstacle, face });
                }
            };
            match collider.shape() {
                Shape::TriMesh(_) | Shape::HeightField(_) => self.surface_planes(&pose, collider, &bounds, &mut push),
                other => {
                    if let Some((normal, distance, point)) =
                        convex_plane(&self.shape, &pose, other, &collider.world_pose())
                    {
                        push(normal, distance, point, None);
                    }
                }
            }
        }
        for other in self.others.iter().filter(|o| self.groups.interacts_with(&o.groups)) {
            let (normal, distance, point) = capsule_plane(center, self.capsule, other, self.up);
            if distance < margin {
                let obstacle = Obstacle::Character(other.id);
                out.push(ContactPlane { normal, distance, from: center, point, obstacle, face: None });
            }
        }
    }

    /// The planes of the triangles of a mesh or heightfield within `bounds` (world).
    fn surface_planes(
        &self,
        pose: &Pose,
        collider: &Collider,
        bounds: &Aabb,
        push: &mut impl FnMut(Vec3, f32, Vec3, Option<Vec3>),
    ) {
        let surface_pose = collider.world_pose();
        let local = bounds.transformed(&surface_pose.inverse());
        let solid = matches!(collider.shape(), Shape::HeightField(_));
        if let Shape::HeightField(field) = collider.shape() {
            if let Some((index, above)) = field.surface_above(surface_pose.inverse_transform_point(pose.position)) {
                let triangle = field.triangle(index);
                let above = surface_pose.transform_point(above);
                let (normal, distance, point) = self.behind_plane(pose, &triangle, &surface_pose, above);
                push(normal, distance, point, Some(normal));
                return;
            }
        }
        let mut visit = |_: u32, triangle: &Triangle| {
            let front = surface_pose.transform_vector(triangle.normal);
            let corner = surface_pose.transform_point(triangle.vertices[0]);
            let behind = front.dot(pose.position - corner) < 0.0;
            if behind && !triangle.two_sided && !solid {
                return true;
            }
            let core = ConvexCore::from_shape(&self.shape, pose);
            let Some(core) = core else { return true };
            let other = ConvexCore { kind: CoreKind::Triangle(triangle.vertices), pose: surface_pose, radius: 0.0 };
            let result = gjk(&core, &other, -front);
            if result.overlapping {
                let (normal, distance, point) = self.behind_plane(pose, triangle, &surface_pose, corner);
                push(normal, distance, point, Some(normal));
            } else {
                let face = if triangle.two_sided && behind { -front } else { front };
                push(-result.normal, result.distance, result.point_b, Some(face));
            }
            true
        };
        collider.shape().for_each_triangle_in(&local, &mut visit);
    }

    /// The plane of a triangle whose plane the capsule's axis crosses (or under a
    /// heightfield): the face normal on the side of the centre (the front for a one-sided
    /// surface), the gap that of the capsule's lowest point along it,
    /// d = n·(c − p) − (radius + half_height·|n·up|) with p (world) a point of the plane.
    fn behind_plane(&self, pose: &Pose, triangle: &Triangle, surface_pose: &Pose, on_plane: Vec3) -> (Vec3, f32, Vec3) {
        let front = surface_pose.transform_vector(triangle.normal);
        let side = front.dot(pose.position - on_plane);
        let normal = if triangle.two_sided && side < 0.0 { -front } else { front };
        let centre_gap = normal.dot(pose.position - on_plane);
        let reach = self.capsule.radius + self.capsule.half_height * normal.dot(self.up).abs();
        (normal, centre_gap - reach, pose.position - normal * centre_gap)
    }

    /// The first obstacle the capsule meets moving from `center` by `translation`, leaving
    /// out `skip` (obstacles it overlapped at the start and moves away from).
    pub fn first_hit(&self, center: Vec3, translation: Vec3, skip: &[Obstacle]) -> Option<CastHit> {
        let pose = self.pose(center);
        let world = self.world;
        let filter = |id: ColliderId| {
            let Some(collider) = world.collider(id) else { return false };
            self.accepts(collider) && !skip.contains(&Obstacle::Collider { collider: id, body: collider.body() })
        };
        let mut best = world.cast_shape(&self.shape, pose, translation, filter).ok().flatten().map(|hit| CastHit {
            fraction: hit.fraction,
            normal: hit.normal,
            point: hit.point,
            obstacle: Obstacle::Collider { collider: hit.collider, body: hit.body },
        });
        for other in self.others.iter().filter(|o| self.groups.interacts_with(&o.groups)) {
            if skip.contains(&Obstacle::Character(other.id)) {
                continue;
            }
            let Some(hit) = self.cast_onto_character(&pose, translation, other) else { continue };
            if best.is_none_or(|b| hit.fraction < b.fraction) {
                best = Some(hit);
            }
        }
        best
    }

    /// A cast onto another character: the time of impact to 1 mm, finished along the normal
    /// (fraction t + gap / (translation·n)).
    fn cast_onto_character(&self, pose: &Pose, translation: Vec3, other: &OtherCapsule) -> Option<CastHit> {
        let other_shape = Shape::Capsule(other.capsule);
        let other_pose = self.pose(other.center);
        let sweep = Sweep::translation(*pose, translation);
        let toi = time_of_impact(&self.shape, &sweep, &other_shape, &Sweep::fixed(other_pose), &ToiSettings::CAST)?;
        let approach = translation.dot(toi.normal);
        let fraction = if toi.distance <= 0.0 || approach <= 0.0 { toi.t } else { toi.t + toi.distance / approach };
        (fraction < 1.0).then_some(CastHit {
            fraction,
            normal: -toi.normal,
            point: toi.point_b,
            obstacle: Obstacle::Character(other.id),
        })
    }

    /// The normal of the surface just beyond `point` in the horizontal direction `into`
    /// (unit), no lower than `point` by more than `depth`: a ray from `reach` above that spot
    /// straight down, which must start outside every collider (a hit at 0 is no surface).
    pub fn surface_beyond(&self, point: Vec3, into: Vec3, reach: f32, depth: f32) -> Option<Vec3> {
        let origin = point + into * EDGE_PROBE_INSET + self.up * reach;
        let world = self.world;
        let ray = Ray::new(origin, -self.up);
        let hit = world.cast_ray(&ray, reach + depth, |id| world.collider(id).is_some_and(|c| self.accepts(c)))?;
        (hit.t > 0.0).then_some(hit.normal)
    }
}

/// How far beyond an edge the ground is looked for, metres.
const EDGE_PROBE_INSET: f32 = 0.01;

/// The plane of a convex collider (or a plane shape): GJK on the cores where they are apart;
/// EPA where the cores overlap (a capsule spawned deep inside); the direction between the
/// centres when even that fails. Returns (normal towards the capsule, gap, obstacle point).
fn convex_plane(capsule: &Shape, pose: &Pose, other: &Shape, other_pose: &Pose) -> Option<(Vec3, f32, Vec3)> {
    if let Shape::Plane(_) = other {
        let gap = separation(capsule, pose, other, other_pose)?;
        return Some((-gap.normal, gap.distance, gap.point_b));
    }
    let a = ConvexCore::from_shape(capsule, pose)?;
    let b = ConvexCore::from_shape(other, other_pose)?;
    let result = gjk(&a, &b, Vec3::ZERO);
    if !result.overlapping {
        return Some((-result.normal, result.distance, result.point_b));
    }
    let rounding = a.radius + b.radius;
    match epa(&a, &b, &result.simplex) {
        Some(p) => Some((-p.normal, -(p.depth + rounding), p.point_b)),
        None => {
            let normal = (a.center() - b.center()).try_normalize().unwrap_or(Vec3::Y);
            Some((normal, -rounding, b.center()))
        }
    }
}

/// Two upright capsules (both axes along `up`), in closed form. Heights along up from the
/// other's centre: this centre at s = (c − c_o)·up. The other's nearest axis point is at
/// h_o = clamp(s, −hh_o, hh_o), this one's at h = clamp(h_o, s − hh, s + hh): the facing ends
/// when the segments do not overlap in height, one height where they do. The gap is the
/// distance of those points less both radii.
fn capsule_plane(center: Vec3, capsule: Capsule, other: &OtherCapsule, up: Vec3) -> (Vec3, f32, Vec3) {
    let s = (center - other.center).dot(up);
    let other_height = s.clamp(-other.capsule.half_height, other.capsule.half_height);
    let height = other_height.clamp(s - capsule.half_height, s + capsule.half_height);
    let other_point = other.center + other_height * up;
    let between = center + (height - s) * up - other_point;
    let length = between.length();
    let normal = if length > 1e-6 { between / length } else { up.any_orthonormal_vector() };
    (normal, length - capsule.radius - other.capsule.radius, other_point + normal * other.capsule.radius)
}
