//! Reusing a manifold while a pair barely moves (contact caching).
//!
//! After a full narrow-phase query the manifold is stored in collider A's frame together with
//! B's pose relative to A. While B's relative pose stays within [`LINEAR_TOLERANCE`] and
//! [`ANGULAR_TOLERANCE`] of that stored pose, or B's reference points (below) within
//! [`LINEAR_TOLERANCE`] of theirs (see [`ManifoldCache::motion`]), the query is skipped: each point is carried
//! along by B's small relative motion T (in A's frame). With p the point's midpoint, s its
//! separation, n the normal and r_B the radius B's core is swept by (zero for a flat shape):
//!
//! ```text
//! q_B = p + (s/2 + r_B) · n       B's reference point: its surface point, or for a rounded
//!                                 shape the core point behind it, which moves rigidly with B
//! d   = T(q_B) − q_B,  Δ = n · d  how far B's reference moved, and along the normal
//! s'  = s + Δ,   p' = p + Δ/2 · n + f · (d − Δ n)
//! ```
//!
//! f is how far the point follows B's sideways motion: none between flat shapes (their points
//! sit on vertices and edges: one body's feature against the other's face); all of it when B
//! is rounded and A flat (the point stays under B's core, so a rolling ball's contact stays
//! under its centre); none when A is rounded and B flat (it stays under A's core); and
//! r_A / (r_A + r_B) between two rounded shapes (the point between two spheres' centres).
//!
//! The comparison is always against the pose of the last full query, so errors never build
//! up: the worst case is a tangential offset of the points below the tolerances. Resting
//! piles, where almost no pair moves, skip most of the narrow phase.
//!
//! A cylinder, curved without a core, is cached only while it touches with a flat cap or with
//! its side ([`Surface::carried_as`]). On its cap its points sit on a flat face and move
//! rigidly with it. On its side it is its axis swept by a disc: as it rolls, its contact line
//! stays under the axis, as a lying capsule's does, so it is carried as that rounded shape. A
//! contact on its rim is never cached: the point moves around the rim as the cylinder turns,
//! so a carried point would trail the true one and its normal impulse would act at a wrong
//! lever arm, driving slow rolling.

use crate::collision::manifold::{ContactPoint, Manifold, MAX_MANIFOLD_POINTS};
use crate::math::{Pose, Quat, Vec3};

/// Largest relative translation (metres) for which a cached manifold is reused.
pub const LINEAR_TOLERANCE: f32 = 5e-4;
/// Largest relative rotation (radians) for which a cached manifold is reused whatever the
/// points' distance from B's origin.
pub const ANGULAR_TOLERANCE: f32 = 5e-4;
/// Largest relative rotation (radians) for which a cached manifold is reused when B's
/// reference points stay within [`LINEAR_TOLERANCE`] (see [`ManifoldCache::motion`]). It
/// bounds how far a normal of B's own face may have turned (about 0.1°; Jolt's body-pair
/// cache allows 2°).
pub const POINT_ANGULAR_LIMIT: f32 = 2e-3;

/// [`LINEAR_TOLERANCE`] of a single manifold between flat surfaces (box and hull faces, a
/// cylinder's cap), metres: what Box3D's contact recycling allows. Why so far: every fresh
/// query of a face pair may name its points anew (a corner on the other face's side is a
/// vertex one query and an edge clipped by the side plane the next), and a manifold taken as
/// new points drops its kept frame (`contact.rs`). A brick wall 150 rows tall creeps a few
/// millimetres a second under its load; queried again every 0.5 mm, about 500 of its
/// manifolds a step lost their frames and it buckled out of its plane after about 300 steps
/// (at 5 mm after 325, at 1 cm after 350, at 2 cm it still crept). At 5 cm it stands still.
pub const FACE_LINEAR_TOLERANCE: f32 = 0.05;
/// [`ANGULAR_TOLERANCE`] of a manifold between flat surfaces (radians, about 1.1°).
pub const FACE_ANGULAR_TOLERANCE: f32 = 0.02;
/// [`POINT_ANGULAR_LIMIT`] of a manifold between flat surfaces (radians, 2°, as Jolt's).
pub const FACE_POINT_ANGULAR_LIMIT: f32 = 0.035;

/// The three bounds of [`ManifoldCache::motion`].
#[derive(Clone, Copy)]
struct Tolerances {
    linear: f32,
    angular: f32,
    point_angular: f32,
}

impl Tolerances {
    /// Every cached pair but a single manifold between flat surfaces.
    const ANY: Tolerances =
        Tolerances { linear: LINEAR_TOLERANCE, angular: ANGULAR_TOLERANCE, point_angular: POINT_ANGULAR_LIMIT };
    /// A single manifold between flat surfaces.
    const FACES: Tolerances = Tolerances {
        linear: FACE_LINEAR_TOLERANCE,
        angular: FACE_ANGULAR_TOLERANCE,
        point_angular: FACE_POINT_ANGULAR_LIMIT,
    };
}

/// How a shape's contact points move with it, which decides whether and how its pairs'
/// manifolds are carried (module notes).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Surface {
    /// Contact points sit on vertices, edges and faces that move rigidly with the shape
    /// (boxes, hulls, planes; a mesh's or heightfield's triangles).
    #[default]
    Flat,
    /// A core swept by a sphere of this radius, metres (spheres, capsules): the contact point
    /// lies that far from the core along the normal, however the shape has turned.
    Rounded(f32),
    /// Curved without a core (cylinders, of this radius): cached only while it touches with a
    /// flat cap or with its side ([`Surface::carried_as`]).
    Curved(f32),
}

impl Surface {
    /// The surface this one's points in `manifolds` are carried as, if they can be: flat and
    /// rounded surfaces as themselves. A curved one (a cylinder of radius r, axis along its
    /// local Y, turned by `rotation`) when every manifold with points lies on a cap, its
    /// normal within [`CAP_COSINE`] of the axis (the points then sit on the flat cap: carried
    /// as a flat surface), or on the side, its normal within [`SIDE_SINE`] of square to the
    /// axis (the side is the axis swept by a disc of radius r: carried as that rounded
    /// surface); `None` for a contact on the rim.
    pub fn carried_as(self, rotation: Quat, manifolds: &[Manifold]) -> Option<Surface> {
        let Surface::Curved(radius) = self else { return Some(self) };
        let axis = rotation * Vec3::Y;
        let along = || manifolds.iter().filter(|m| m.count > 0).map(|m| m.normal.dot(axis).abs());
        if along().all(|cosine| cosine >= CAP_COSINE) {
            Some(Surface::Flat)
        } else if along().all(|cosine| cosine <= SIDE_SINE) {
            Some(Surface::Rounded(radius))
        } else {
            None
        }
    }
}

/// A cylinder's contact lies on a cap when its normal is this close to the axis (cosine,
/// about 1°): the cap is then the supporting feature, whose points are the cap's own.
pub const CAP_COSINE: f32 = 0.9998;
/// A cylinder's contact lies on its side when the normal's cosine with the axis is at most
/// this (about 1° from square to it): the side is then the supporting feature, a line of the
/// surface parallel to the axis, at the radius from it.
pub const SIDE_SINE: f32 = 0.0175;

/// How the points of one pair are carried: B's core radius and f, the share of B's sideways
/// motion the points follow (module notes).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct CarryRule {
    radius_b: f32,
    follow: f32,
}

impl CarryRule {
    /// Two flat surfaces: the points stay where they are on A, only their separations change.
    pub(crate) const FLAT: CarryRule = CarryRule { radius_b: 0.0, follow: 0.0 };

    /// The rule for collider A's surface against collider B's (both cacheable).
    pub fn new(surface_a: Surface, surface_b: Surface) -> Self {
        match (surface_a, surface_b) {
            (Surface::Rounded(a), Surface::Rounded(b)) => {
                Self { radius_b: b, follow: a / (a + b).max(f32::MIN_POSITIVE) }
            }
            (_, Surface::Rounded(b)) => Self { radius_b: b, follow: 1.0 },
            _ => Self { radius_b: 0.0, follow: 0.0 },
        }
    }
}

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
    /// How they are carried: the rule of the surfaces they were stored with.
    rule: CarryRule,
}

impl ManifoldCache {
    /// Sound manifolds (see [`Manifold::is_sound`]), as many as it says it holds.
    pub(crate) fn is_sound(&self) -> bool {
        self.count <= 1 + self.more.len() && self.local.is_sound() && self.more.iter().all(Manifold::is_sound)
    }

    /// Stores the result of a full query that gave one manifold.
    pub fn store(&mut self, pose_a: &Pose, relative: Pose, rule: CarryRule, world: &Manifold) {
        self.store_all(pose_a, relative, rule, std::slice::from_ref(world));
    }

    /// Stores the result of a full query (several manifolds for a body against a mesh).
    pub fn store_all(&mut self, pose_a: &Pose, relative: Pose, rule: CarryRule, world: &[Manifold]) {
        self.relative = Some(relative);
        self.rule = rule;
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
        let tolerances = if self.rule == CarryRule::FLAT { Tolerances::FACES } else { Tolerances::ANY };
        let Some(motion) = self.motion(relative, tolerances) else { return false };
        carry(&self.local, &motion, pose_a, self.rule, out);
        true
    }

    /// Every cached manifold carried to the current poses into `out`, when B moved little
    /// enough.
    pub fn reuse_all(&self, pose_a: &Pose, relative: &Pose, out: &mut Vec<Manifold>) -> bool {
        let Some(motion) = self.motion(relative, Tolerances::ANY) else { return false };
        out.clear();
        for local in std::iter::once(&self.local).chain(&self.more).take(self.count) {
            let mut manifold = Manifold::new();
            carry(local, &motion, pose_a, self.rule, &mut manifold);
            out.push(manifold);
        }
        true
    }

    /// T = relative ∘ stored⁻¹, which maps B's old placement (in A's frame) to its new one,
    /// when B moved and turned within the tolerances since the last full query.
    ///
    /// B's origin moved by d and B turned by θ about it: a reference point q_B (module
    /// notes) at distance ρ from the origin moved by at most d + θρ. Within d ≤
    /// [`LINEAR_TOLERANCE`] and θ ≤ [`ANGULAR_TOLERANCE`] the manifold is reused, and also
    /// for θ up to [`POINT_ANGULAR_LIMIT`] when every reference point moved within
    /// [`LINEAR_TOLERANCE`] (d + θ·max ρ): a sphere's points do not move as it turns (its
    /// core is its centre), a lying capsule's by its half height times θ. With the first
    /// bound alone a slowly rolling ball against terrain was queried again every 0.5 mrad.
    /// (The bounds are given: a single manifold between flat surfaces has its own,
    /// [`Tolerances::FACES`]; the others, the pairs with triangles included, these.)
    fn motion(&self, relative: &Pose, tolerances: Tolerances) -> Option<Pose> {
        let Tolerances { linear, angular, point_angular } = tolerances;
        let stored = self.relative?;
        let moved = (relative.position - stored.position).length();
        let turned = 2.0 * (stored.rotation.inverse() * relative.rotation).xyz().length();
        let within = moved <= linear
            && (turned <= angular
                || (turned <= point_angular && moved + turned * self.reach(stored.position) <= linear));
        within.then(|| relative.mul_pose(&stored.inverse()))
    }

    /// The largest distance ρ of a cached point's B reference point q_B from B's origin
    /// `origin` (A's frame).
    fn reach(&self, origin: Vec3) -> f32 {
        let rule = self.rule;
        let manifolds = std::iter::once(&self.local).chain(&self.more).take(self.count);
        let points =
            manifolds.flat_map(|m| m.points[..m.count.min(MAX_MANIFOLD_POINTS)].iter().map(move |p| (m.normal, p)));
        let reach_squared = points
            .map(|(n, p)| (p.position + (0.5 * p.separation + rule.radius_b) * n - origin).length_squared())
            .fold(0.0, f32::max);
        reach_squared.sqrt()
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

/// A manifold stored in A's frame carried by B's small relative motion `motion` under `rule`
/// (module notes) and written in world space.
///
/// The points go through it four at a time, one coordinate array per axis (a lane per
/// point), so that the compiler can work on all of them in one instruction. Every lane
/// takes the same operations in the same order as one point through glam's `Pose` and
/// `Vec3` (see [`rotated`]): the results are the same bits (a test checks), in about half the
/// time of one point after another (it was 7% of many_pyramids' step).
fn carry(local: &Manifold, motion: &Pose, pose_a: &Pose, rule: CarryRule, out: &mut Manifold) {
    let n = local.normal;
    out.clear();
    out.normal = pose_a.transform_vector(n);
    let count = local.count.min(MAX_MANIFOLD_POINTS);
    let points = &local.points[..count];
    let mut position = Points::default();
    let mut separation = [0.0; MAX_MANIFOLD_POINTS];
    for (i, point) in points.iter().enumerate() {
        position.set(i, point.position);
        separation[i] = point.separation;
    }
    // B's reference points, where the motion takes them, and how far along the normal.
    let reference = position.map(|i, p, axis| p + (0.5 * separation[i] + rule.radius_b) * n[axis]);
    let moved =
        rotated(motion.rotation, &reference).map(|i, p, axis| (p + motion.position[axis]) - reference.get(axis, i));
    let shift: [f32; MAX_MANIFOLD_POINTS] =
        std::array::from_fn(|i| (n.x * moved.x[i]) + (n.y * moved.y[i]) + (n.z * moved.z[i]));
    let mut carried = position.map(|i, p, axis| p + (0.5 * shift[i]) * n[axis]);
    if rule.follow != 0.0 {
        carried = carried.map(|i, p, axis| p + rule.follow * (moved.get(axis, i) - shift[i] * n[axis]));
    }
    let world = rotated(pose_a.rotation, &carried).map(|_, p, axis| p + pose_a.position[axis]);
    for (i, point) in points.iter().enumerate() {
        out.points[i] =
            ContactPoint { position: world.point(i), separation: point.separation + shift[i], id: point.id };
    }
    out.count = count;
}

/// The coordinates of up to four points, an array per axis (a lane per point).
#[derive(Clone, Copy, Default)]
struct Points {
    x: [f32; MAX_MANIFOLD_POINTS],
    y: [f32; MAX_MANIFOLD_POINTS],
    z: [f32; MAX_MANIFOLD_POINTS],
}

impl Points {
    fn set(&mut self, i: usize, p: Vec3) {
        (self.x[i], self.y[i], self.z[i]) = (p.x, p.y, p.z);
    }

    fn point(&self, i: usize) -> Vec3 {
        Vec3::new(self.x[i], self.y[i], self.z[i])
    }

    /// Coordinate `axis` (0, 1, 2) of point i.
    fn get(&self, axis: usize, i: usize) -> f32 {
        [&self.x, &self.y, &self.z][axis][i]
    }

    /// `f(i, coordinate, axis)` of every coordinate of every point.
    #[inline(always)]
    fn map(&self, f: impl Fn(usize, f32, usize) -> f32) -> Points {
        Points {
            x: std::array::from_fn(|i| f(i, self.x[i], 0)),
            y: std::array::from_fn(|i| f(i, self.y[i], 1)),
            z: std::array::from_fn(|i| f(i, self.z[i], 2)),
        }
    }
}

/// Every point rotated by the unit quaternion q = (b, w), as glam's `Quat * Vec3` does it
/// (its SSE2 path, which every lane repeats operation for operation):
///
/// ```text
/// v' = (v·(w² − b·b) + b·(2 (v·b))) + (b × v)·(2w)
/// ```
///
/// with each dot product summed x, then y, then z, and b × v = (b_y v_z − b_z v_y, ...).
#[inline(always)]
fn rotated(q: Quat, v: &Points) -> Points {
    let (bx, by, bz, w) = (q.x, q.y, q.z, q.w);
    let scale = w * w - ((bx * bx + by * by) + bz * bz);
    let twice_w = w * 2.0;
    let twice_dot: [f32; MAX_MANIFOLD_POINTS] =
        std::array::from_fn(|i| ((v.x[i] * bx + v.y[i] * by) + v.z[i] * bz) * 2.0);
    Points {
        x: std::array::from_fn(|i| (v.x[i] * scale + bx * twice_dot[i]) + (by * v.z[i] - v.y[i] * bz) * twice_w),
        y: std::array::from_fn(|i| (v.y[i] * scale + by * twice_dot[i]) + (bz * v.x[i] - v.z[i] * bx) * twice_w),
        z: std::array::from_fn(|i| (v.z[i] * scale + bz * twice_dot[i]) + (bx * v.y[i] - v.x[i] * by) * twice_w),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Quat, Vec3};

    const FLAT: CarryRule = CarryRule::FLAT;

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
        cache.store(&pose_a, relative, FLAT, &world);
        // B sinks 50 µm into A: every separation drops by 50 µm, the midpoints by 25 µm.
        let sunk = Pose::from_position(Vec3::new(0.0, 1.0 - 5e-5, 0.0));
        let mut out = Manifold::new();
        assert!(cache.reuse(&pose_a, &sunk, &mut out));
        for (new, old) in out.points().iter().zip(world.points()) {
            assert!((new.separation - (old.separation - 5e-5)).abs() < 1e-7);
            assert!((new.position - (old.position - 2.5e-5 * world.normal)).length() < 1e-6);
            assert_eq!(new.id, old.id);
        }
        // Beyond the tolerance (two flat surfaces: the faces') the cache refuses.
        let near = Pose::from_position(Vec3::new(0.0, 1.0 - 0.9 * FACE_LINEAR_TOLERANCE, 0.0));
        assert!(cache.reuse(&pose_a, &near, &mut out));
        let far = Pose::from_position(Vec3::new(0.0, 1.0 - 1.1 * FACE_LINEAR_TOLERANCE, 0.0));
        assert!(!cache.reuse(&pose_a, &far, &mut out));
        let turned = Pose::new(Vec3::new(0.0, 1.0, 0.0), Quat::from_rotation_x(2.0 * FACE_POINT_ANGULAR_LIMIT));
        assert!(!cache.reuse(&pose_a, &turned, &mut out));
    }

    /// The four-lane `carry` gives the bits of the same steps taken one point at a time
    /// through glam (the code it replaced), for random manifolds of 0 to 4 points, motions,
    /// poses and rules of each kind.
    #[test]
    fn carrying_four_points_at_once_gives_the_bits_of_one_at_a_time() {
        fn one_at_a_time(local: &Manifold, motion: &Pose, pose_a: &Pose, rule: CarryRule, out: &mut Manifold) {
            let n = local.normal;
            out.clear();
            out.normal = pose_a.transform_vector(n);
            for point in &local.points[..local.count] {
                let reference_b = point.position + (0.5 * point.separation + rule.radius_b) * n;
                let moved = motion.transform_point(reference_b) - reference_b;
                let shift = n.dot(moved);
                let mut position = point.position + 0.5 * shift * n;
                if rule.follow != 0.0 {
                    position += rule.follow * (moved - shift * n);
                }
                out.points[out.count] = ContactPoint {
                    position: pose_a.transform_point(position),
                    separation: point.separation + shift,
                    id: point.id,
                };
                out.count += 1;
            }
        }
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let vector = |rng: &mut rand_chacha::ChaCha8Rng, scale: f32| {
            Vec3::new(rng.random_range(-scale..scale), rng.random_range(-scale..scale), rng.random_range(-scale..scale))
        };
        let rotation = |rng: &mut rand_chacha::ChaCha8Rng, angle: f32| {
            let axis = Vec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
            Quat::from_axis_angle(axis.normalize_or(Vec3::X), rng.random_range(-angle..angle))
        };
        let rules = [
            FLAT,
            CarryRule::new(Surface::Flat, Surface::Rounded(0.25)),
            CarryRule::new(Surface::Rounded(0.3), Surface::Rounded(0.1)),
        ];
        let bits = |m: &Manifold| {
            let mut bits = vec![m.count as u32, m.normal.x.to_bits(), m.normal.y.to_bits(), m.normal.z.to_bits()];
            for p in m.points() {
                bits.extend([p.position.x, p.position.y, p.position.z, p.separation].map(f32::to_bits));
                bits.push(p.id);
            }
            bits
        };
        for case in 0..2000 {
            let mut local = Manifold { normal: vector(&mut rng, 1.0).normalize_or(Vec3::Y), ..Default::default() };
            for id in 0..case % (MAX_MANIFOLD_POINTS + 1) {
                local.push(vector(&mut rng, 2.0), rng.random_range(-0.05..0.02), id as u32);
            }
            let motion = Pose::new(vector(&mut rng, 1e-3), rotation(&mut rng, 1e-3));
            let pose_a = Pose::new(vector(&mut rng, 50.0), rotation(&mut rng, 3.2));
            let rule = rules[case % rules.len()];
            let (mut four, mut one) = (Manifold::new(), Manifold::new());
            carry(&local, &motion, &pose_a, rule, &mut four);
            one_at_a_time(&local, &motion, &pose_a, rule, &mut one);
            assert_eq!(bits(&four), bits(&one), "case {case}");
        }
    }

    /// A ball's manifold against a face is reused however it turns within
    /// [`POINT_ANGULAR_LIMIT`] (its reference point is its centre), a box's only while its
    /// corners stay within [`FACE_LINEAR_TOLERANCE`].
    #[test]
    fn turning_counts_as_far_as_it_moves_the_reference_points() {
        let rolling = CarryRule::new(Surface::Flat, Surface::Rounded(0.4));
        let mut ball = Manifold { normal: Vec3::Y, ..Default::default() };
        ball.push(Vec3::new(0.0, -0.0005, 0.0), -0.001, 1);
        let mut cache = ManifoldCache::default();
        cache.store(&Pose::IDENTITY, Pose::from_position(Vec3::new(0.0, 0.399, 0.0)), rolling, &ball);
        let turned_by = |angle: f32| Pose::new(Vec3::new(0.0, 0.399, 0.0), Quat::from_rotation_z(angle));
        let mut out = Manifold::new();
        assert!(cache.reuse(&Pose::IDENTITY, &turned_by(0.9 * POINT_ANGULAR_LIMIT), &mut out));
        assert!((out.points()[0].separation + 0.001).abs() < 1e-6);
        assert!(!cache.reuse(&Pose::IDENTITY, &turned_by(1.1 * POINT_ANGULAR_LIMIT), &mut out));
        // A 1 m cube on its face: its corners lie 0.87 m from its centre, so 0.03 rad moves
        // them 2.6 cm (reused, beyond FACE_ANGULAR_TOLERANCE); 4 cm sideways and 0.025 rad
        // move them 6.2 cm (queried again).
        let mut face = Manifold { normal: Vec3::Y, ..Default::default() };
        for (id, (x, z)) in [(0.5, 0.5), (-0.5, 0.5), (-0.5, -0.5), (0.5, -0.5)].into_iter().enumerate() {
            face.push(Vec3::new(x, 0.0, z), 0.0, id as u32);
        }
        let mut cache = ManifoldCache::default();
        cache.store(&Pose::IDENTITY, Pose::from_position(Vec3::new(0.0, 0.5, 0.0)), FLAT, &face);
        let box_turned_by = |angle: f32| Pose::new(Vec3::new(0.0, 0.5, 0.0), Quat::from_rotation_z(angle));
        assert!(cache.reuse(&Pose::IDENTITY, &box_turned_by(0.03), &mut out));
        let shifted_and_turned = Pose::new(Vec3::new(0.04, 0.5, 0.0), Quat::from_rotation_z(0.025));
        assert!(!cache.reuse(&Pose::IDENTITY, &shifted_and_turned, &mut out));
        assert!(!cache.reuse(&Pose::IDENTITY, &box_turned_by(1.1 * FACE_POINT_ANGULAR_LIMIT), &mut out));
    }

    /// Between two spheres (A of radius 0.3, B of 0.1, touching along Y) B moving sideways by
    /// d moves their contact point by d·r_A/(r_A + r_B), and the separation not at all.
    #[test]
    fn a_point_between_rounded_shapes_follows_by_their_radii() {
        let mut touching = Manifold { normal: Vec3::Y, ..Default::default() };
        touching.push(Vec3::new(0.0, 0.3, 0.0), 0.0, 1);
        let mut cache = ManifoldCache::default();
        let rule = CarryRule::new(Surface::Rounded(0.3), Surface::Rounded(0.1));
        cache.store(&Pose::IDENTITY, Pose::from_position(Vec3::new(0.0, 0.4, 0.0)), rule, &touching);
        let mut out = Manifold::new();
        let d = 4e-4;
        assert!(cache.reuse(&Pose::IDENTITY, &Pose::from_position(Vec3::new(d, 0.4, 0.0)), &mut out));
        let point = out.points()[0];
        assert!((point.position.x - d * 0.75).abs() < 1e-7, "moved {}", point.position.x);
        assert!(point.separation.abs() < 1e-7);
    }

    /// A cylinder (radius 0.3, turned so that its axis is X) is carried as a flat surface on
    /// its cap, as a rounded one of its radius on its side, and not at all on its rim or when
    /// its manifolds mix cap and side; the other surfaces as themselves.
    #[test]
    fn a_cylinder_is_carried_by_where_it_touches() {
        let turned = Quat::from_rotation_z(-std::f32::consts::FRAC_PI_2);
        let touching = |normal: Vec3| {
            let mut m = Manifold { normal: normal.normalize(), ..Default::default() };
            m.push(Vec3::ZERO, -0.001, 1);
            m
        };
        let (cap, side, rim) = (touching(Vec3::X), touching(Vec3::Y), touching(Vec3::new(1.0, 1.0, 0.0)));
        let cylinder = Surface::Curved(0.3);
        assert_eq!(cylinder.carried_as(turned, &[cap]), Some(Surface::Flat));
        assert_eq!(cylinder.carried_as(turned, &[side]), Some(Surface::Rounded(0.3)));
        // Half a degree off square to the axis is still the side; two degrees is the rim.
        let tilted = |degrees: f32| touching(Quat::from_rotation_z(degrees.to_radians()) * Vec3::Y);
        assert_eq!(cylinder.carried_as(turned, &[tilted(0.5)]), Some(Surface::Rounded(0.3)));
        assert_eq!(cylinder.carried_as(turned, &[tilted(2.0)]), None);
        assert_eq!(cylinder.carried_as(turned, &[rim]), None);
        assert_eq!(cylinder.carried_as(turned, &[cap, side]), None);
        assert_eq!(cylinder.carried_as(turned, &[cap, Manifold::new()]), Some(Surface::Flat));
        for other in [Surface::Flat, Surface::Rounded(0.2)] {
            assert_eq!(other.carried_as(turned, &[rim]), Some(other));
        }
    }
}
