//! GJK distance between two convex shapes given by support mappings.
//!
//! Every shape is seen as a *core* swept by a sphere: a sphere is a point with a radius, a
//! capsule a segment with a radius, a box, cylinder or hull is its own core with radius zero.
//! GJK measures the distance between the cores exactly; the rounded shapes are then exact
//! too: `distance = |core_a - core_b| - radius_a - radius_b`, along the same normal.
//!
//! Let `D = A - B` (the Minkowski difference of the cores). Its point closest to the origin,
//! `v = p_a - p_b`, gives the closest points and the distance `|v|`; the normal from A to B is
//! `-v / |v|`. GJK keeps a simplex (1 to 4 points of `D`, each with the two support points that
//! made it) and iterates:
//!
//! 1. `v` = the point of the simplex closest to the origin; the simplex shrinks to the
//!    smallest face that holds `v` (barycentric weights `λ_i`, `v = Σ λ_i w_i`);
//! 2. `w = s_D(-v) = s_A(-v) - s_B(v)`, the point of `D` furthest towards the origin;
//! 3. stop when `v·v - v·w <= ε |v|`: the distance is then known to within `ε`
//!    (`|v| - dist <= (v·v - v·w) / |v|`), when `w` is already in the simplex, when `|v|`
//!    stops shrinking, or after a fixed number of iterations;
//! 4. a simplex of four points that holds the origin, or `|v|` below a tolerance, means the
//!    cores overlap: EPA (epa.rs) then finds the penetration from the final simplex.
//!
//! Nothing is allocated; the search may start from a cached direction (the last normal).

use super::support_map::{minkowski_support, SupportMap};
use crate::math::{Pose, Vec3};
use crate::shape::{ConvexHull, Shape};

/// Most GJK iterations; polytopes converge in far fewer, curved shapes are cut off here.
const MAX_ITERATIONS: usize = 48;
/// Distance accuracy GJK stops at, in metres per metre of shape size.
const DISTANCE_TOLERANCE: f32 = 1.0e-6;
/// The same when a core is curved (a cylinder). Over a curved surface GJK converges only
/// linearly, and its last iterations to a micrometre were a third of the cylinders' GJK time
/// on the terrain scene (12 iterations where most queries stop after 6). At 10 µm the
/// terrain step's instructions fell 3.2%; the normal against a box, capsule or cylinder
/// nearby moved from 0.1–0.4 to 0.4–1.5 mrad from a converged one on average (Jolt's default
/// collision tolerance is 0.1 mm).
const CURVED_DISTANCE_TOLERANCE: f32 = 1.0e-5;
/// Cores closer than this (metres) count as overlapping: the GJK normal is unreliable there,
/// so the caller switches to EPA.
pub const CORE_OVERLAP_TOLERANCE: f32 = 1.0e-5;

/// The inner shape GJK works on, in the core's local frame.
#[derive(Clone, Copy, Debug)]
pub enum CoreKind<'a> {
    /// The local origin (a sphere's centre).
    Point,
    /// The segment from `(0, -half_height, 0)` to `(0, half_height, 0)` (a capsule's axis).
    Segment {
        /// Half length of the segment, metres.
        half_height: f32,
    },
    /// A box centred at the origin.
    Box {
        /// Half side lengths, metres.
        half_extents: Vec3,
    },
    /// A cylinder along local Y.
    Cylinder {
        /// Half height, metres.
        half_height: f32,
        /// Radius of the caps, metres.
        radius: f32,
    },
    /// A convex hull.
    Hull(&'a ConvexHull),
    /// One triangle of a mesh or heightfield (corners counter-clockwise about its front).
    Triangle([Vec3; 3]),
}

/// A convex shape as GJK sees it: a core at a pose, swept by a sphere of `radius`.
#[derive(Clone, Copy, Debug)]
pub struct ConvexCore<'a> {
    /// The core's geometry, local frame.
    pub kind: CoreKind<'a>,
    /// Where the core sits in the world.
    pub pose: Pose,
    /// Radius of the sphere swept over the core, metres (zero for boxes, cylinders, hulls).
    pub radius: f32,
}

impl<'a> ConvexCore<'a> {
    /// The core of `shape` at `pose`; `None` for planes, meshes and heightfields (they have
    /// no support point).
    pub fn from_shape(shape: &'a Shape, pose: &Pose) -> Option<Self> {
        let (kind, radius) = match shape {
            Shape::Sphere(s) => (CoreKind::Point, s.radius),
            Shape::Capsule(c) => (CoreKind::Segment { half_height: c.half_height }, c.radius),
            Shape::Cuboid(b) => (CoreKind::Box { half_extents: b.half_extents }, 0.0),
            Shape::Cylinder(c) => (CoreKind::Cylinder { half_height: c.half_height, radius: c.radius }, 0.0),
            Shape::ConvexHull(h) => (CoreKind::Hull(h), 0.0),
            Shape::Plane(_) | Shape::TriMesh(_) | Shape::HeightField(_) => return None,
        };
        Some(Self { kind, pose: *pose, radius })
    }

    /// The core point furthest along `local_direction` (local frame; need not be unit).
    #[inline]
    pub fn local_support(&self, local_direction: Vec3) -> Vec3 {
        let d = local_direction;
        match self.kind {
            CoreKind::Point => Vec3::ZERO,
            CoreKind::Segment { half_height } => {
                Vec3::new(0.0, if d.y >= 0.0 { half_height } else { -half_height }, 0.0)
            }
            CoreKind::Box { half_extents: h } => Vec3::new(h.x.copysign(d.x), h.y.copysign(d.y), h.z.copysign(d.z)),
            CoreKind::Cylinder { half_height, radius } => cylinder_support(d, half_height, radius),
            CoreKind::Hull(hull) => hull.support(d),
            CoreKind::Triangle(v) => furthest_corner(&v, d),
        }
    }

    /// The core point furthest along the world `direction`, in world space.
    #[inline]
    pub fn support(&self, direction: Vec3) -> Vec3 {
        let local = self.pose.rotation.inverse() * direction;
        self.pose.transform_point(self.local_support(local))
    }

    /// A curved core (a cylinder's rim and side), over which GJK and EPA converge only
    /// linearly.
    pub fn is_curved(&self) -> bool {
        matches!(self.kind, CoreKind::Cylinder { .. })
    }

    /// The same core moved by `offset`.
    pub fn shifted(&self, offset: Vec3) -> Self {
        Self { pose: Pose { position: self.pose.position + offset, ..self.pose }, ..*self }
    }

    /// A point inside the core (world space), used to pick a first search direction.
    pub fn center(&self) -> Vec3 {
        match self.kind {
            CoreKind::Hull(hull) => self.pose.transform_point(hull.local_aabb.center()),
            CoreKind::Triangle(v) => self.pose.transform_point((v[0] + v[1] + v[2]) / 3.0),
            _ => self.pose.position,
        }
    }
}

/// The point of a cylinder (axis Y, local frame) furthest along `d`: the rim point
/// `(r d_x/ρ, ±h, r d_z/ρ)` with `ρ = |(d_x, d_z)|`, the cap centre when `ρ = 0`.
#[inline]
pub(crate) fn cylinder_support(d: Vec3, half_height: f32, radius: f32) -> Vec3 {
    let radial = Vec3::new(d.x, 0.0, d.z);
    let length = radial.length();
    let rim = if length > 1e-12 { radial * (radius / length) } else { Vec3::ZERO };
    Vec3::new(rim.x, half_height.copysign(d.y), rim.z)
}

/// The corner of `v` furthest along `d` (the first on ties).
#[inline]
pub(crate) fn furthest_corner(v: &[Vec3; 3], d: Vec3) -> Vec3 {
    let (d0, d1, d2) = (v[0].dot(d), v[1].dot(d), v[2].dot(d));
    if d0 >= d1 && d0 >= d2 {
        v[0]
    } else if d1 >= d2 {
        v[1]
    } else {
        v[2]
    }
}

/// A point `w = a - b` of the Minkowski difference with the support points that made it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SupportPoint {
    /// The difference `a - b`.
    pub w: Vec3,
    /// Support point of core A (world).
    pub a: Vec3,
    /// Support point of core B (world).
    pub b: Vec3,
}

/// GJK's simplex: up to four points of `A - B` and the barycentric weights of the point
/// closest to the origin.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Simplex {
    /// The points; only the first `len` are valid.
    pub points: [SupportPoint; 4],
    /// Barycentric weights of the closest point (sum 1 over the first `len`).
    pub weights: [f32; 4],
    /// Number of valid points (0 to 4).
    pub len: usize,
}

impl Simplex {
    fn push(&mut self, p: SupportPoint) {
        if self.len < 4 {
            self.points[self.len] = p;
            self.len += 1;
        }
    }

    /// The witness points `(Σ λ_i a_i, Σ λ_i b_i)` on the two cores.
    fn witnesses(&self) -> (Vec3, Vec3) {
        let a = (0..self.len).map(|i| self.points[i].a * self.weights[i]).sum();
        let b = (0..self.len).map(|i| self.points[i].b * self.weights[i]).sum();
        (a, b)
    }

    /// Keeps the points `keep` (ascending indices) with the given weights, in place.
    fn reduce(&mut self, keep: &[usize], weights: &[f32]) {
        for (slot, (&index, &weight)) in keep.iter().zip(weights).enumerate() {
            debug_assert!(index >= slot, "kept indices must ascend");
            self.points[slot] = self.points[index];
            self.weights[slot] = weight;
        }
        self.len = keep.len();
    }
}

/// What GJK found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GjkResult {
    /// True when the cores overlap (or are closer than [`CORE_OVERLAP_TOLERANCE`]); then the
    /// fields below are not meaningful and [`GjkResult::simplex`] seeds EPA.
    pub overlapping: bool,
    /// Distance between the cores, metres (zero when overlapping).
    pub core_distance: f32,
    /// Signed distance between the rounded shapes, `core_distance - radius_a - radius_b`
    /// (negative: the rounded shapes penetrate though their cores do not).
    pub distance: f32,
    /// Unit normal from A to B.
    pub normal: Vec3,
    /// Point of A's surface nearest to B: core point + `radius_a · normal` (world).
    pub point_a: Vec3,
    /// Point of B's surface nearest to A: core point - `radius_b · normal` (world).
    pub point_b: Vec3,
    /// The final simplex.
    pub simplex: Simplex,
}

/// Distance between two convex cores (and their rounded shapes).
///
/// `direction_hint` is a guess of the normal from A to B (for example the last step's
/// normal); zero falls back to the direction between the centres. The result is exact to
/// about `1e-6` metres per metre of shape size for polytopes, points and segments, and to
/// about `1e-5` with a cylinder.
pub fn gjk(a: &ConvexCore, b: &ConvexCore, direction_hint: Vec3) -> GjkResult {
    gjk_within(a, b, direction_hint, f32::INFINITY)
}

/// [`gjk`] that stops as soon as the shapes are known to be more than `max_distance` apart:
/// with `w = s_D(-v)`, the plane through `w` normal to `v` bounds `D` towards the origin, so
/// the core distance is at least `v·w / |v|`. Past that point the result's `distance` is only
/// known to exceed `max_distance` (it is the current upper bound `|v| - r_a - r_b`) and the
/// normal is the current direction. Contact generation, which drops pairs beyond its margin,
/// needs no more; most triangles beside a body end here after one or two iterations.
pub fn gjk_within(a: &ConvexCore, b: &ConvexCore, direction_hint: Vec3, max_distance: f32) -> GjkResult {
    let max_core_distance = max_distance + a.radius + b.radius;
    let accuracy = if a.is_curved() || b.is_curved() { CURVED_DISTANCE_TOLERANCE } else { DISTANCE_TOLERANCE };
    let (map_a, map_b) = (SupportMap::new(a), SupportMap::new(b));
    let mut simplex = Simplex::default();
    simplex.push(minkowski_support(&map_a, &map_b, first_direction(a, b, direction_hint)));
    simplex.weights[0] = 1.0;
    let mut v = simplex.points[0].w;
    let mut overlapping = false;
    for _ in 0..MAX_ITERATIONS {
        let vv = v.length_squared();
        if vv <= CORE_OVERLAP_TOLERANCE * CORE_OVERLAP_TOLERANCE {
            overlapping = true;
            break;
        }
        let next = minkowski_support(&map_a, &map_b, -v);
        let (v_dot_w, v_length) = (v.dot(next.w), vv.sqrt());
        let tolerance = accuracy * next.w.length().max(1.0);
        if vv - v_dot_w <= tolerance * v_length || v_dot_w > max_core_distance * v_length {
            break;
        }
        if simplex.points[..simplex.len].iter().any(|p| p.w == next.w) {
            break;
        }
        // The simplex grows by `next` in its free slot; the smaller simplex only replaces it
        // when its closest point is nearer (otherwise rounding has taken over and the
        // current simplex, still intact, is the answer).
        simplex.points[simplex.len] = next;
        let Some((keep, weights, count)) = nearest_subsimplex(&simplex.points[..=simplex.len]) else {
            simplex.len += 1;
            overlapping = true;
            break;
        };
        let closer: Vec3 = (0..count).map(|k| simplex.points[keep[k]].w * weights[k]).sum();
        if closer.length_squared() >= vv {
            break;
        }
        simplex.reduce(&keep[..count], &weights[..count]);
        v = closer;
    }
    finish(a, b, simplex, v, overlapping)
}

/// The hint when it is a usable direction, else the direction between the centres, else X.
fn first_direction(a: &ConvexCore, b: &ConvexCore, direction_hint: Vec3) -> Vec3 {
    let usable = |d: Vec3| d.is_finite() && d.length_squared() > 1e-12;
    if usable(direction_hint) {
        return direction_hint;
    }
    let between = b.center() - a.center();
    if usable(between) {
        between
    } else {
        Vec3::X
    }
}

fn finish(a: &ConvexCore, b: &ConvexCore, simplex: Simplex, v: Vec3, overlapping: bool) -> GjkResult {
    let (core_a, core_b) = simplex.witnesses();
    let core_distance = if overlapping { 0.0 } else { v.length() };
    let normal = if overlapping { Vec3::ZERO } else { -v / core_distance };
    GjkResult {
        overlapping,
        core_distance,
        distance: core_distance - a.radius - b.radius,
        normal,
        point_a: core_a + a.radius * normal,
        point_b: core_b - b.radius * normal,
        simplex,
    }
}

/// The smallest sub-simplex of `points` (2 to 4 of them) holding its point closest to the
/// origin: kept indices (ascending), their weights and how many; `None` when the origin is
/// inside the tetrahedron.
fn nearest_subsimplex(points: &[SupportPoint]) -> Option<([usize; 3], [f32; 3], usize)> {
    match points {
        [p0, p1] => Some(closest_on_segment(p0.w, p1.w)),
        [p0, p1, p2] => Some(closest_on_triangle([p0.w, p1.w, p2.w])),
        [p0, p1, p2, p3] => closest_on_tetrahedron([p0.w, p1.w, p2.w, p3.w]),
        _ => Some(([0, 0, 0], [1.0, 0.0, 0.0], 1)),
    }
}

/// Closest point of the segment `p0 p1` to the origin: `t = -p0·e / e·e`, `e = p1 - p0`,
/// clamped to `[0, 1]`. Returns the kept indices, their weights and how many.
fn closest_on_segment(p0: Vec3, p1: Vec3) -> ([usize; 3], [f32; 3], usize) {
    let edge = p1 - p0;
    let length_squared = edge.length_squared();
    let t = if length_squared > 0.0 { -p0.dot(edge) / length_squared } else { 0.0 };
    if t <= 0.0 {
        ([0, 0, 0], [1.0, 0.0, 0.0], 1)
    } else if t >= 1.0 {
        ([1, 0, 0], [1.0, 0.0, 0.0], 1)
    } else {
        ([0, 1, 0], [1.0 - t, t, 0.0], 2)
    }
}

/// Closest point of the triangle `w[0] w[1] w[2]` to the origin, by Voronoi regions.
///
/// With `a, b, c` the corners, `ab = b - a`, `ac = c - a`, the origin `o`:
/// - vertex a when `ab·(o-a) <= 0` and `ac·(o-a) <= 0`; likewise for b and c;
/// - edge ab when the origin projects inside it and the signed area `vc` of the sub-triangle
///   opposite c is `<= 0` (`vc = d1·d4 - d3·d2` with `d1 = ab·(o-a)`, `d2 = ac·(o-a)`,
///   `d3 = ab·(o-b)`, `d4 = ac·(o-b)`); likewise `vb` for ac and `va` for bc;
/// - otherwise the face, with weights `(va, vb, vc) / (va + vb + vc)`.
///
/// A degenerate (collinear) triangle falls back to the best of its three edges.
pub(crate) fn closest_on_triangle(w: [Vec3; 3]) -> ([usize; 3], [f32; 3], usize) {
    let [a, b, c] = w;
    let (ab, ac) = (b - a, c - a);
    let (d1, d2) = (-ab.dot(a), -ac.dot(a));
    if d1 <= 0.0 && d2 <= 0.0 {
        return ([0, 0, 0], [1.0, 0.0, 0.0], 1);
    }
    let (d3, d4) = (-ab.dot(b), -ac.dot(b));
    if d3 >= 0.0 && d4 <= d3 {
        return ([1, 0, 0], [1.0, 0.0, 0.0], 1);
    }
    let (d5, d6) = (-ab.dot(c), -ac.dot(c));
    if d6 >= 0.0 && d5 <= d6 {
        return ([2, 0, 0], [1.0, 0.0, 0.0], 1);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let t = d1 / (d1 - d3);
        return ([0, 1, 0], [1.0 - t, t, 0.0], 2);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let t = d2 / (d2 - d6);
        return ([0, 2, 0], [1.0 - t, t, 0.0], 2);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return ([1, 2, 0], [1.0 - t, t, 0.0], 2);
    }
    let sum = va + vb + vc;
    if !sum.is_finite() || sum <= 0.0 {
        return best_edge(w);
    }
    let (v, t) = (vb / sum, vc / sum);
    ([0, 1, 2], [1.0 - v - t, v, t], 3)
}

/// The closest of the three edges of a degenerate triangle.
fn best_edge(w: [Vec3; 3]) -> ([usize; 3], [f32; 3], usize) {
    let mut best = ([0, 0, 0], [1.0, 0.0, 0.0], 1);
    let mut best_distance = f32::INFINITY;
    for (i, j) in [(0usize, 1usize), (1, 2), (0, 2)] {
        let (keep, weights, count) = closest_on_segment(w[i], w[j]);
        if let Some(candidate) = closer_candidate(&w, &[i, j], keep, weights, count, &mut best_distance) {
            best = candidate;
        }
    }
    best
}

/// A sub-simplex result (`keep` indexes `map`, which indexes `w`) mapped to indices of `w`,
/// when its closest point is nearer the origin than `best_distance` (which it then updates).
fn closer_candidate(
    w: &[Vec3],
    map: &[usize],
    keep: [usize; 3],
    weights: [f32; 3],
    count: usize,
    best_distance: &mut f32,
) -> Option<([usize; 3], [f32; 3], usize)> {
    let point: Vec3 = (0..count).map(|k| w[map[keep[k]]] * weights[k]).sum();
    let distance = point.length_squared();
    if distance >= *best_distance {
        return None;
    }
    *best_distance = distance;
    // Map to indices of `w`, sorted ascending with their weights (the simplex keeps its
    // points in place, which needs ascending indices).
    let mut mapped = [usize::MAX; 3];
    let mut sorted_weights = [0.0; 3];
    for k in 0..count {
        mapped[k] = map[keep[k]];
        sorted_weights[k] = weights[k];
    }
    for i in 1..count {
        let mut j = i;
        while j > 0 && mapped[j - 1] > mapped[j] {
            mapped.swap(j - 1, j);
            sorted_weights.swap(j - 1, j);
            j -= 1;
        }
    }
    Some((mapped, sorted_weights, count))
}

/// Tetrahedron `a b c d`: the origin is outside face `(p, q, r)` when it lies on the other
/// side of the face's plane from the opposite vertex `s`:
/// `sign(n·(o - p)) != sign(n·(s - p))`, `n = (q - p) × (r - p)`. If it is outside no face the
/// tetrahedron holds the origin (`None`); otherwise the closest of the faces it is
/// outside of wins. A flat tetrahedron tests all four faces.
fn closest_on_tetrahedron(w: [Vec3; 4]) -> Option<([usize; 3], [f32; 3], usize)> {
    const FACES: [[usize; 4]; 4] = [[0, 1, 2, 3], [0, 2, 3, 1], [0, 3, 1, 2], [1, 3, 2, 0]];
    let mut best: Option<([usize; 3], [f32; 3], usize)> = None;
    let mut best_distance = f32::INFINITY;
    for [p, q, r, s] in FACES {
        let n = (w[q] - w[p]).cross(w[r] - w[p]);
        let side_origin = -n.dot(w[p]);
        let side_opposite = n.dot(w[s] - w[p]);
        let flat = side_opposite.abs() <= 1e-7 * n.length() * (w[s] - w[p]).length();
        if !(flat || side_origin * side_opposite < 0.0) {
            continue;
        }
        let (keep, weights, count) = closest_on_triangle([w[p], w[q], w[r]]);
        if let Some(candidate) = closer_candidate(&w, &[p, q, r], keep, weights, count, &mut best_distance) {
            best = Some(candidate);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::narrow_phase::tests::Rng;
    use crate::shape::Shape;
    use glam::DVec3;

    fn to_f64(v: Vec3) -> DVec3 {
        v.as_dvec3()
    }

    /// Distance from `p` (box frame, f64) to the box of half extents `h`.
    fn point_box_distance(p: DVec3, h: DVec3) -> f64 {
        (p - p.clamp(-h, h)).length()
    }

    /// Minimum of a convex function on `[0, 1]` by ternary search.
    fn convex_minimum(f: impl Fn(f64) -> f64) -> f64 {
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..200 {
            let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
            if f(m1) <= f(m2) {
                hi = m2;
            } else {
                lo = m1;
            }
        }
        f(0.5 * (lo + hi)).min(f(0.0)).min(f(1.0))
    }

    /// End points of a capsule's axis in the frame of `frame`, in f64.
    fn axis_in(capsule_pose: &Pose, half_height: f32, frame: &Pose) -> (DVec3, DVec3) {
        let end = |y: f32| to_f64(frame.inverse_transform_point(capsule_pose.transform_point(Vec3::new(0.0, y, 0.0))));
        (end(-half_height), end(half_height))
    }

    fn point_segment_distance(p: DVec3, a: DVec3, b: DVec3) -> f64 {
        let ab = b - a;
        let t = ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
        (p - (a + t * ab)).length()
    }

    /// Runs GJK on random poses of `a` and `b` and compares the distance with `reference`
    /// (the exact core distance in f64). Returns how many separated cases were compared.
    fn compare(shape_a: &Shape, shape_b: &Shape, seed: u64, reference: impl Fn(&Pose, &Pose) -> f64) -> usize {
        let mut rng = Rng::new(seed);
        let mut compared = 0;
        for _ in 0..300 {
            let (pose_a, pose_b) = (rng.pose(1.5), rng.pose(1.5));
            let a = ConvexCore::from_shape(shape_a, &pose_a).unwrap();
            let b = ConvexCore::from_shape(shape_b, &pose_b).unwrap();
            let exact = reference(&pose_a, &pose_b);
            let hint = if compared % 2 == 0 { Vec3::ZERO } else { rng.vec3(-1.0, 1.0) };
            let result = gjk(&a, &b, hint);
            if exact == 0.0 {
                assert!(result.overlapping, "cores overlap");
            }
            if exact < 1e-3 {
                continue;
            }
            assert!(!result.overlapping, "cores {exact} apart");
            let expected = exact - (a.radius + b.radius) as f64;
            assert!((result.distance as f64 - expected).abs() < 1e-5, "{} vs {expected}", result.distance);
            // Witnesses: on the surfaces, `distance` apart along the normal.
            let gap = result.point_b - result.point_a;
            assert!((gap.dot(result.normal) - result.distance).abs() < 1e-5);
            assert!((gap - result.normal * result.distance).length() < 1e-4);
            assert!((result.normal.length() - 1.0).abs() < 1e-5);
            compared += 1;
        }
        compared
    }

    #[test]
    fn sphere_box_distance_matches_the_clamped_point() {
        let sphere = Shape::sphere(0.3).unwrap();
        let cuboid = Shape::cuboid(Vec3::new(0.6, 0.2, 0.9)).unwrap();
        let h = DVec3::new(0.6, 0.2, 0.9);
        let compared = compare(&sphere, &cuboid, 1, |pa, pb| {
            point_box_distance(to_f64(pb.inverse_transform_point(pa.position)), h)
        });
        assert!(compared > 200, "{compared}");
    }

    #[test]
    fn capsule_box_distance_matches_a_search_along_the_axis() {
        let capsule = Shape::capsule(0.7, 0.25).unwrap();
        let cuboid = Shape::cuboid(Vec3::new(0.6, 0.2, 0.9)).unwrap();
        let h = DVec3::new(0.6, 0.2, 0.9);
        let compared = compare(&capsule, &cuboid, 2, |pa, pb| {
            let (p, q) = axis_in(pa, 0.7, pb);
            convex_minimum(|t| point_box_distance(p + t * (q - p), h))
        });
        assert!(compared > 150, "{compared}");
    }

    #[test]
    fn sphere_capsule_and_capsule_capsule_distances() {
        let sphere = Shape::sphere(0.3).unwrap();
        let capsule = Shape::capsule(0.7, 0.25).unwrap();
        let other = Shape::capsule(0.4, 0.1).unwrap();
        let compared = compare(&sphere, &capsule, 3, |pa, pb| {
            let (p, q) = axis_in(pb, 0.7, &Pose::IDENTITY);
            point_segment_distance(to_f64(pa.position), p, q)
        });
        assert!(compared > 200, "{compared}");
        let compared = compare(&capsule, &other, 4, |pa, pb| {
            let (p, q) = axis_in(pa, 0.7, &Pose::IDENTITY);
            let (r, s) = axis_in(pb, 0.4, &Pose::IDENTITY);
            convex_minimum(|t| point_segment_distance(p + t * (q - p), r, s))
        });
        assert!(compared > 200, "{compared}");
        let compared = compare(&sphere, &sphere, 5, |pa, pb| to_f64(pa.position - pb.position).length());
        assert!(compared > 250, "{compared}");
    }

    #[test]
    fn overlapping_cores_are_reported() {
        let cuboid = Shape::cuboid(Vec3::new(0.5, 0.5, 0.5)).unwrap();
        let sphere = Shape::sphere(0.1).unwrap();
        let a = ConvexCore::from_shape(&cuboid, &Pose::IDENTITY).unwrap();
        for centre in [Vec3::ZERO, Vec3::new(0.49, 0.2, -0.3), Vec3::new(0.5, 0.5, 0.5)] {
            let b = ConvexCore::from_shape(&sphere, &Pose::from_position(centre)).unwrap();
            assert!(gjk(&a, &b, Vec3::ZERO).overlapping, "centre {centre}");
        }
        // Just apart: 1e-4 from the face is measured, not called overlapping.
        let b = ConvexCore::from_shape(&sphere, &Pose::from_position(Vec3::new(0.5001, 0.1, 0.0))).unwrap();
        let result = gjk(&a, &b, Vec3::ZERO);
        assert!(!result.overlapping);
        assert!((result.core_distance - 1e-4).abs() < 2e-6);
        // v = 1e-4 is a difference of coordinates near 0.5 (rounding 3e-8 each): the
        // normal is good to a few 1e-4.
        assert!((result.normal - Vec3::X).length() < 2e-3, "{}", result.normal);
    }
}
