//! Shared pieces of the separating-axis (SAT) contact routines: box/box, hull/hull, box/hull.
//!
//! Separation along a unit axis `n` pointing from A to B, from the support functions
//! `h_A(n) = max_{x∈A} n·x`:
//!
//! ```text
//! s(n) = min_{y∈B} n·y − max_{x∈A} n·x = −h_B(−n) − h_A(n)
//! ```
//!
//! `s(n) > 0` means a gap of `s(n)` along `n`. Two convex polyhedra are disjoint exactly when
//! some face normal of A or B, or some cross product of an edge of A with an edge of B, has
//! `s > 0`. When they overlap, the largest `s` over those axes is minus the penetration depth
//! and its axis is the contact normal. Only edge pairs whose arcs on the Gauss map cross
//! (the pair forms a face of the Minkowski difference) need testing; for them the supports
//! along the axis are the two edges themselves, so `s = n·(q − p)` with `p` on the edge of A
//! and `q` on the edge of B.
//!
//! All queries run in A's local frame, with B placed by a [`RelativeFrame`]; the routines map
//! the finished manifold back to world space with [`manifold_to_world`].

use crate::collision::manifold::Manifold;
use crate::math::{Mat3, Pose, Vec3};
use crate::shape::hull::{FacePlane, HalfEdge, HullFace, MAX_FACE_VERTICES};
use crate::shape::ConvexHull;

/// Edge pairs whose directions make an angle with sine below this are skipped as parallel:
/// their cross product is too short to give a reliable axis, and face axes cover that case.
pub const PARALLEL_SINE: f32 = 1e-3;

/// Absolute part of the margin by which a later candidate axis must beat an earlier one to be
/// chosen (metres). See [`clearly_greater`].
pub const ABSOLUTE_TOLERANCE: f32 = 5e-4;

/// Relative part of that margin (fraction of the incumbent's separation magnitude).
pub const RELATIVE_TOLERANCE: f32 = 0.02;

/// `PairCache::feature_kind` when the last query found a face of A separating.
pub const CACHE_FACE_A: u8 = 1;
/// `PairCache::feature_kind` when the last query found a face of B separating.
pub const CACHE_FACE_B: u8 = 2;
/// `PairCache::feature_kind` when the last query found an edge pair separating.
pub const CACHE_EDGES: u8 = 3;

/// True when `candidate` beats `incumbent` by more than the hysteresis margin
/// `ABSOLUTE_TOLERANCE + RELATIVE_TOLERANCE·|incumbent|` (metres).
///
/// Face axes of A are the incumbents against faces of B, and the best face against edges, so
/// nearly equal axes (a resting stack, where face and edge axes coincide) always resolve the
/// same way and the contact does not flip between steps.
#[inline]
pub fn clearly_greater(candidate: f32, incumbent: f32) -> bool {
    candidate > incumbent + ABSOLUTE_TOLERANCE + RELATIVE_TOLERANCE * incumbent.abs()
}

/// Which feature pair makes the contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactKind {
    /// A face of A is the reference face.
    FaceA,
    /// A face of B is the reference face.
    FaceB,
    /// An edge of A against an edge of B.
    Edges,
}

/// Picks the contact kind from the best separations (metres) of the three axis families:
/// B's face only when it beats A's face by [`clearly_greater`]'s margin, then the edge pair
/// only when it beats that chosen face by the margin. The chosen axis is thus never worse than
/// the best one by more than one margin.
#[inline]
pub fn choose_contact_kind(face_a: f32, face_b: f32, edges: f32) -> ContactKind {
    let (face_kind, face) =
        if clearly_greater(face_b, face_a) { (ContactKind::FaceB, face_b) } else { (ContactKind::FaceA, face_a) };
    if clearly_greater(edges, face) {
        ContactKind::Edges
    } else {
        face_kind
    }
}

/// Feature-id base of a face contact: which face is the reference, which the incident one,
/// and which shape owns the reference face. Low bit 0 marks face contacts.
#[inline]
pub fn face_pair_base(reference_is_a: bool, reference_face: usize, incident_face: usize) -> u32 {
    let reference = (reference_face as u32 & 0x7FFF) << 17;
    let incident = (incident_face as u32 & 0x7FFF) << 2;
    reference | incident | (u32::from(reference_is_a) << 1)
}

/// Feature-id base of an edge contact (edge indices of A and B). Low bit 1 marks edges.
#[inline]
pub fn edge_pair_base(edge_a: usize, edge_b: usize) -> u32 {
    ((edge_a as u32 & 0x7FFF) << 17) | ((edge_b as u32 & 0x7FFF) << 2) | 1
}

/// B's local frame expressed in A's: `x_A = rotation · x_B + translation`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RelativeFrame {
    /// Rotation from B's axes to A's; its columns are B's axes seen from A.
    pub rotation: Mat3,
    /// B's origin in A's frame (metres).
    pub translation: Vec3,
}

impl RelativeFrame {
    /// The identity (A seen from A).
    pub const IDENTITY: RelativeFrame = RelativeFrame { rotation: Mat3::IDENTITY, translation: Vec3::ZERO };

    /// B's pose relative to A's: `R = q_A⁻¹ q_B`, `t = q_A⁻¹ (p_B − p_A)`.
    #[inline]
    pub fn b_in_a(pose_a: &Pose, pose_b: &Pose) -> Self {
        let inverse_a = pose_a.rotation.inverse();
        let rotation = Mat3::from_quat((inverse_a * pose_b.rotation).normalize());
        let translation = inverse_a * (pose_b.position - pose_a.position);
        Self { rotation, translation }
    }

    /// Maps a point of B's frame into A's.
    #[inline]
    pub fn point(&self, local: Vec3) -> Vec3 {
        self.rotation * local + self.translation
    }

    /// Rotates a direction of B's frame into A's.
    #[inline]
    pub fn vector(&self, local: Vec3) -> Vec3 {
        self.rotation * local
    }

    /// Rotates a direction of A's frame into B's (`Rᵀ v`).
    #[inline]
    pub fn inverse_vector(&self, v: Vec3) -> Vec3 {
        let r = &self.rotation;
        Vec3::new(r.x_axis.dot(v), r.y_axis.dot(v), r.z_axis.dot(v))
    }
}

/// Maps a manifold computed in A's local frame to world space.
#[inline]
pub fn manifold_to_world(pose_a: &Pose, out: &mut Manifold) {
    out.normal = pose_a.rotation * out.normal;
    for point in &mut out.points[..out.count] {
        point.position = pose_a.transform_point(point.position);
    }
}

/// Closest points of segments `[p0, p1]` and `[q0, q1]`.
///
/// With `p(s) = p0 + s·d1`, `q(t) = q0 + t·d2`, `r = p0 − q0`, minimising `|p(s) − q(t)|²`
/// gives the linear system `a·s − b·t = −c`, `b·s − e·t = −f` with `a = d1·d1`, `b = d1·d2`,
/// `c = d1·r`, `e = d2·d2`, `f = d2·r`. Solve for `s` (clamped to [0, 1]), take
/// `t = (b·s + f)/e`, and when `t` leaves [0, 1] clamp it and recompute `s` for that `t`.
pub fn closest_points_on_segments(p0: Vec3, p1: Vec3, q0: Vec3, q1: Vec3) -> (Vec3, Vec3) {
    const TINY: f32 = 1e-12;
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    if a <= TINY && e <= TINY {
        return (p0, q0);
    }
    if a <= TINY {
        return (p0, q0 + d2 * (f / e).clamp(0.0, 1.0));
    }
    let c = d1.dot(r);
    if e <= TINY {
        return (p0 + d1 * (-c / a).clamp(0.0, 1.0), q0);
    }
    let b = d1.dot(d2);
    let denominator = a * e - b * b;
    let mut s = if denominator > TINY * a * e { ((b * f - c * e) / denominator).clamp(0.0, 1.0) } else { 0.0 };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (p0 + d1 * s, q0 + d2 * t)
}

/// Faces of a box as CCW corner loops seen from outside, in the order −x, +x, −y, +y, −z,
/// +z (face `2·axis + positive`). Corner `k` has sign bits x = bit 0, y = bit 1, z = bit 2
/// (bit set = positive), as in `Cuboid::corners` and `ConvexHull::cuboid`. The tables below are
/// derived from these loops; tests check them against it.
#[cfg(test)]
pub const BOX_FACE_LOOPS: [[usize; 4]; 6] =
    [[0, 4, 6, 2], [1, 3, 7, 5], [0, 1, 5, 4], [2, 6, 7, 3], [0, 2, 3, 1], [4, 5, 7, 6]];

/// The two in-face axes `(u, v)` of each box face, fixed by its loop in `BOX_FACE_LOOPS`:
/// every loop starts at the face's corner with `x_u = −h_u`, `x_v = −h_v` and runs
///
/// ```text
/// c0 = (−h_u, −h_v) → c1 = (−h_u, +h_v) → c2 = (+h_u, +h_v) → c3 = (+h_u, −h_v)
/// ```
///
/// so the side plane through loop edge `j` (outward normal `(c_{j+1} − c_j) × n`) is, in
/// order, `−x_u ≤ h_u`, `x_v ≤ h_v`, `x_u ≤ h_u`, `−x_v ≤ h_v` (checked by a test).
pub const BOX_FACE_SIDE_AXES: [(usize, usize); 6] = [(1, 2), (2, 1), (2, 0), (0, 2), (0, 1), (1, 0)];

const fn half_edge(origin: u16, next: u16, face: u16) -> HalfEdge {
    HalfEdge { origin, next, face }
}

/// The half-edge mesh `ConvexHull::cuboid` builds from `BOX_FACE_LOOPS` (checked by a test).
static BOX_EDGES: [HalfEdge; 24] = [
    half_edge(0, 2, 0),
    half_edge(4, 16, 2),
    half_edge(4, 4, 0),
    half_edge(6, 19, 5),
    half_edge(6, 6, 0),
    half_edge(2, 20, 3),
    half_edge(2, 0, 0),
    half_edge(0, 23, 4),
    half_edge(1, 10, 1),
    half_edge(3, 17, 4),
    half_edge(3, 12, 1),
    half_edge(7, 22, 3),
    half_edge(7, 14, 1),
    half_edge(5, 21, 5),
    half_edge(5, 8, 1),
    half_edge(1, 18, 2),
    half_edge(0, 15, 2),
    half_edge(1, 7, 4),
    half_edge(5, 1, 2),
    half_edge(4, 13, 5),
    half_edge(6, 11, 3),
    half_edge(7, 3, 5),
    half_edge(3, 5, 3),
    half_edge(2, 9, 4),
];

static BOX_FACES: [HullFace; 6] = [
    HullFace { first_edge: 0 },
    HullFace { first_edge: 8 },
    HullFace { first_edge: 16 },
    HullFace { first_edge: 5 },
    HullFace { first_edge: 7 },
    HullFace { first_edge: 19 },
];

/// The corner of a box with sign bits `k` (see `BOX_FACE_LOOPS`).
#[inline]
pub fn box_corner(half_extents: Vec3, k: usize) -> Vec3 {
    let h = half_extents;
    Vec3::new(
        if k & 1 != 0 { h.x } else { -h.x },
        if k & 2 != 0 { h.y } else { -h.y },
        if k & 4 != 0 { h.z } else { -h.z },
    )
}

/// A box as a polyhedron on the stack: its corners and face planes, sharing a fixed mesh.
#[derive(Clone, Copy, Debug)]
pub struct BoxPolyhedron {
    vertices: [Vec3; 8],
    planes: [FacePlane; 6],
}

impl BoxPolyhedron {
    /// The box of `half_extents` (metres) centred at the origin.
    pub fn new(half_extents: Vec3) -> Self {
        let vertices = std::array::from_fn(|k| box_corner(half_extents, k));
        let planes = std::array::from_fn(|face| {
            let axis = face / 2;
            let sign = if face % 2 == 1 { 1.0 } else { -1.0 };
            let mut normal = Vec3::ZERO;
            normal[axis] = sign;
            FacePlane { normal, offset: half_extents[axis] }
        });
        Self { vertices, planes }
    }

    /// The polyhedron view of this box.
    pub fn view(&self) -> Polyhedron<'_> {
        Polyhedron { vertices: &self.vertices, edges: &BOX_EDGES, faces: &BOX_FACES, planes: &self.planes }
    }
}

/// A borrowed convex polyhedron (a [`ConvexHull`] or a [`BoxPolyhedron`]) in the half-edge
/// layout of `shape::hull`: twin pairs `e ^ 1`, faces walked by `next`, outward planes.
#[derive(Clone, Copy, Debug)]
pub struct Polyhedron<'a> {
    /// Vertices, local frame (metres).
    pub vertices: &'a [Vec3],
    /// Half-edges in twin pairs.
    pub edges: &'a [HalfEdge],
    /// Faces, each with one half-edge of its loop.
    pub faces: &'a [HullFace],
    /// Outward unit plane of each face.
    pub planes: &'a [FacePlane],
}

impl<'a> Polyhedron<'a> {
    /// A view of `hull`.
    pub fn of_hull(hull: &'a ConvexHull) -> Self {
        Self { vertices: &hull.vertices, edges: &hull.edges, faces: &hull.faces, planes: &hull.planes }
    }

    /// True when the view has what the queries index: vertices, faces with planes, and
    /// half-edges in pairs.
    pub fn is_usable(&self) -> bool {
        !self.vertices.is_empty()
            && !self.faces.is_empty()
            && self.planes.len() >= self.faces.len()
            && self.edges.len() % 2 == 0
    }

    /// Index of the vertex furthest along `dir` (local frame); ties go to the lower index.
    #[inline]
    pub fn support_index(&self, dir: Vec3) -> usize {
        crate::math::furthest_point(self.vertices, dir)
    }

    /// The vertex furthest along `dir` (local frame).
    #[inline]
    pub fn support(&self, dir: Vec3) -> Vec3 {
        self.vertices[self.support_index(dir)]
    }

    /// Start and end vertex of half-edge `e` (the end is the twin's origin).
    #[inline]
    pub fn edge_endpoints(&self, e: usize) -> (Vec3, Vec3) {
        let start = self.vertices[self.edges[e].origin as usize];
        let end = self.vertices[self.edges[e ^ 1].origin as usize];
        (start, end)
    }

    /// Outward normals of the faces left and right of half-edge `e` (local frame).
    #[inline]
    pub fn edge_face_normals(&self, e: usize) -> (Vec3, Vec3) {
        let left = self.planes[self.edges[e].face as usize].normal;
        let right = self.planes[self.edges[e ^ 1].face as usize].normal;
        (left, right)
    }

    /// Writes face `face`'s vertices, mapped by `frame`, into `polygon` in loop order and
    /// returns how many it wrote (at most [`MAX_FACE_VERTICES`]; a broken loop stops early).
    pub fn face_polygon(&self, face: usize, frame: &RelativeFrame, polygon: &mut [Vec3; MAX_FACE_VERTICES]) -> usize {
        let first = self.faces[face].first_edge as usize;
        let mut e = first;
        let mut count = 0;
        while count < MAX_FACE_VERTICES {
            let Some(edge) = self.edges.get(e) else { break };
            let Some(&vertex) = self.vertices.get(edge.origin as usize) else {
                break;
            };
            polygon[count] = frame.point(vertex);
            count += 1;
            e = edge.next as usize;
            if e == first {
                break;
            }
        }
        count
    }

    /// The face whose outward normal is most anti-parallel to `dir` (local frame).
    pub fn most_antiparallel_face(&self, dir: Vec3) -> usize {
        let mut best = 0;
        let mut best_dot = f32::INFINITY;
        for (f, plane) in self.planes[..self.faces.len()].iter().enumerate() {
            let d = plane.normal.dot(dir);
            if d < best_dot {
                best_dot = d;
                best = f;
            }
        }
        best
    }
}

/// The best face axis of one polyhedron: its separation (metres) and face index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceQuery {
    /// Largest separation over the faces tried (stops at the first above the margin).
    pub separation: f32,
    /// Face giving it.
    pub face: usize,
}

/// The best edge-pair axis: separation (metres), the two half-edges and the normal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeQuery {
    /// Largest separation over the Minkowski-face edge pairs (`−∞` when there are none).
    pub separation: f32,
    /// Half-edge of A.
    pub edge_a: usize,
    /// Half-edge of B.
    pub edge_b: usize,
    /// Unit axis from A to B in A's frame.
    pub normal: Vec3,
}

/// Separation along face `face` of A: `s = n·support_B(−n) − d` with B mapped into A's frame.
#[inline]
pub fn face_a_separation(a: &Polyhedron, b: &Polyhedron, b_in_a: &RelativeFrame, face: usize) -> f32 {
    let plane = a.planes[face];
    let deepest_b = b_in_a.point(b.support(b_in_a.inverse_vector(-plane.normal)));
    plane.normal.dot(deepest_b) - plane.offset
}

/// Separation along face `face` of B. In A's frame B's plane has normal `m = R n` and offset
/// `d + m·t`, so `s = m·support_A(−m) − d − m·t`.
#[inline]
pub fn face_b_separation(a: &Polyhedron, b: &Polyhedron, b_in_a: &RelativeFrame, face: usize) -> f32 {
    let plane = b.planes[face];
    let normal = b_in_a.vector(plane.normal);
    let deepest_a = a.support(-normal);
    normal.dot(deepest_a - b_in_a.translation) - plane.offset
}

/// Best face of A; returns early with the first face separating by more than `margin`.
pub fn query_faces_a(a: &Polyhedron, b: &Polyhedron, b_in_a: &RelativeFrame, margin: f32) -> FaceQuery {
    let mut best = FaceQuery { separation: f32::NEG_INFINITY, face: 0 };
    for face in 0..a.faces.len() {
        let separation = face_a_separation(a, b, b_in_a, face);
        if separation > best.separation {
            best = FaceQuery { separation, face };
            if separation > margin {
                break;
            }
        }
    }
    best
}

/// Best face of B; returns early with the first face separating by more than `margin`.
pub fn query_faces_b(a: &Polyhedron, b: &Polyhedron, b_in_a: &RelativeFrame, margin: f32) -> FaceQuery {
    let mut best = FaceQuery { separation: f32::NEG_INFINITY, face: 0 };
    for face in 0..b.faces.len() {
        let separation = face_b_separation(a, b, b_in_a, face);
        if separation > best.separation {
            best = FaceQuery { separation, face };
            if separation > margin {
                break;
            }
        }
    }
    best
}

/// Whether arc `a→b` and arc `c→d` of the unit sphere cross, given `b×a` and `d×c`.
///
/// `c` and `d` lie on opposite sides of the plane of arc `a→b`, `a` and `b` on opposite sides
/// of the plane of arc `c→d`, and the two arcs lie in the same hemisphere (the last sign test
/// rules out the crossing of the great circles on the far side).
#[inline]
fn arcs_cross(a: Vec3, b: Vec3, c: Vec3, d: Vec3, b_cross_a: Vec3, d_cross_c: Vec3) -> bool {
    let cba = c.dot(b_cross_a);
    let dba = d.dot(b_cross_a);
    let adc = a.dot(d_cross_c);
    let bdc = b.dot(d_cross_c);
    cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0
}

/// One edge of B mapped into A's frame: endpoints and adjacent face normals.
struct MappedEdge {
    start: Vec3,
    end: Vec3,
    left_normal: Vec3,
    right_normal: Vec3,
}

impl MappedEdge {
    fn new(b: &Polyhedron, b_in_a: &RelativeFrame, e: usize) -> Self {
        let (start, end) = b.edge_endpoints(e);
        let (left, right) = b.edge_face_normals(e);
        Self {
            start: b_in_a.point(start),
            end: b_in_a.point(end),
            left_normal: b_in_a.vector(left),
            right_normal: b_in_a.vector(right),
        }
    }
}

/// Best edge pair over all pairs that form a face of the Minkowski difference A − B.
///
/// Edge of A with adjacent normals `a`, `b` maps to arc `a→b` of the Gauss map; edge of B with
/// `c`, `d` maps, for A − B, to arc `−c→−d`. Where they cross, the axis `n ∝ E × F` (edge
/// directions) is a face normal of A − B; it is oriented to lie on arc `a→b`
/// (`n·(a + b) > 0`), so it points from A to B, and `s = n·(q − p)`.
pub fn query_edges(a: &Polyhedron, b: &Polyhedron, b_in_a: &RelativeFrame, margin: f32) -> EdgeQuery {
    let mut best = EdgeQuery { separation: f32::NEG_INFINITY, edge_a: 0, edge_b: 0, normal: Vec3::ZERO };
    for edge_b in (0..b.edges.len()).step_by(2) {
        let mapped = MappedEdge::new(b, b_in_a, edge_b);
        let (c, d) = (-mapped.left_normal, -mapped.right_normal);
        let d_cross_c = d.cross(c);
        let direction_b = mapped.end - mapped.start;
        for edge_a in (0..a.edges.len()).step_by(2) {
            let (left, right) = a.edge_face_normals(edge_a);
            if !arcs_cross(left, right, c, d, right.cross(left), d_cross_c) {
                continue;
            }
            let (start_a, end_a) = a.edge_endpoints(edge_a);
            let Some(normal) = edge_axis(end_a - start_a, direction_b, left + right) else {
                continue;
            };
            let separation = normal.dot(mapped.start - start_a);
            if separation > best.separation {
                best = EdgeQuery { separation, edge_a, edge_b, normal };
                if separation > margin {
                    return best;
                }
            }
        }
    }
    best
}

/// Unit `E × F` oriented along `towards` (`None` when the edges are nearly parallel).
#[inline]
pub fn edge_axis(direction_a: Vec3, direction_b: Vec3, towards: Vec3) -> Option<Vec3> {
    let axis = direction_a.cross(direction_b);
    let length_squared = axis.length_squared();
    let limit = PARALLEL_SINE * PARALLEL_SINE * direction_a.length_squared() * direction_b.length_squared();
    if length_squared > limit {
        let axis = axis / length_squared.sqrt();
        Some(if axis.dot(towards) < 0.0 { -axis } else { axis })
    } else {
        None
    }
}

/// Separation along any unit `axis` (A's frame) from the support functions; valid for every
/// axis, used to re-test a cached one.
#[inline]
pub fn separation_along(a: &Polyhedron, b: &Polyhedron, b_in_a: &RelativeFrame, axis: Vec3) -> f32 {
    let deepest_b = b_in_a.point(b.support(b_in_a.inverse_vector(-axis)));
    axis.dot(deepest_b) - axis.dot(a.support(axis))
}

/// Helpers shared by the SAT routines' tests: a fixed-seed generator and brute-force
/// references computed from world-space vertices, planes and edges.
#[cfg(test)]
pub mod test_util {
    use super::*;
    use crate::math::Quat;

    /// Asserts two vectors agree within `tolerance` (labelled `what`).
    pub fn assert_close(actual: Vec3, expected: Vec3, tolerance: f32, what: &str) {
        assert!((actual - expected).length() < tolerance, "{what}: {actual:?} vs {expected:?}");
    }

    /// Asserts that the manifold of (B, A) mirrors the one of (A, B): same point count,
    /// opposite normal, and a point at every point of `ab` with the same separation.
    pub fn assert_mirrored(ab: &Manifold, ba: &Manifold) {
        assert!(ab.count > 0);
        assert_eq!(ab.count, ba.count);
        assert_close(ba.normal, -ab.normal, 1e-5, "flipped normal");
        for p in ab.points() {
            let twin = ba.points().iter().find(|q| (q.position - p.position).length() < 1e-4);
            let twin = twin.unwrap_or_else(|| panic!("no swapped point at {:?}", p.position));
            assert!((twin.separation - p.separation).abs() < 1e-5);
        }
    }

    /// Linear congruential generator (Knuth's MMIX constants), fixed seed per test.
    pub struct Lcg(pub u64);

    impl Lcg {
        /// Uniform in [0, 1).
        pub fn next_f32(&mut self) -> f32 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }

        /// Uniform in [lo, hi).
        pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
            lo + (hi - lo) * self.next_f32()
        }

        /// A vector with components uniform in [-1, 1).
        pub fn vec3(&mut self) -> Vec3 {
            Vec3::new(self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0))
        }

        /// A rotation from a normalised random 4-vector.
        pub fn rotation(&mut self) -> Quat {
            loop {
                let q = Quat::from_xyzw(
                    self.range(-1.0, 1.0),
                    self.range(-1.0, 1.0),
                    self.range(-1.0, 1.0),
                    self.range(-1.0, 1.0),
                );
                if q.length_squared() > 0.01 {
                    return q.normalize();
                }
            }
        }
    }

    /// A polyhedron in world space: vertices, outward face planes and edge directions.
    pub struct WorldPolytope {
        /// Vertices (metres).
        pub vertices: Vec<Vec3>,
        /// Outward planes `(normal, offset)`.
        pub planes: Vec<(Vec3, f32)>,
        /// Edge directions, one per twin pair.
        pub edges: Vec<Vec3>,
    }

    impl WorldPolytope {
        /// The polyhedron `shape` placed at `pose`.
        pub fn new(shape: &Polyhedron, pose: &Pose) -> Self {
            let vertices: Vec<Vec3> = shape.vertices.iter().map(|&v| pose.transform_point(v)).collect();
            let planes = shape.planes[..shape.faces.len()]
                .iter()
                .map(|p| {
                    let n = pose.transform_vector(p.normal);
                    (n, p.offset + n.dot(pose.position))
                })
                .collect();
            let edges = (0..shape.edges.len())
                .step_by(2)
                .map(|e| {
                    let (start, end) = shape.edge_endpoints(e);
                    pose.transform_vector(end - start)
                })
                .collect();
            Self { vertices, planes, edges }
        }

        /// `max n·x` over the vertices.
        pub fn reach(&self, n: Vec3) -> f32 {
            self.vertices.iter().map(|v| v.dot(n)).fold(f32::NEG_INFINITY, f32::max)
        }

        /// Largest signed distance of `p` above the face planes (exact inside, a lower bound
        /// of the distance outside).
        pub fn plane_distance(&self, p: Vec3) -> f32 {
            self.planes.iter().map(|(n, d)| n.dot(p) - d).fold(f32::NEG_INFINITY, f32::max)
        }
    }

    /// `s(n) = min_B n·y − max_A n·x` from the vertices.
    pub fn support_separation(a: &WorldPolytope, b: &WorldPolytope, n: Vec3) -> f32 {
        -b.reach(-n) - a.reach(n)
    }

    /// Exhaustive SAT: the largest `s` over every face normal and every (non-parallel) edge
    /// cross product, each measured with the supports.
    pub fn brute_force_sat(a: &WorldPolytope, b: &WorldPolytope) -> f32 {
        let mut best = f32::NEG_INFINITY;
        for (n, _) in &a.planes {
            best = best.max(support_separation(a, b, *n));
        }
        for (n, _) in &b.planes {
            // B's outward normal points towards A; the axis from A to B is its opposite.
            best = best.max(support_separation(a, b, -*n));
        }
        for ea in &a.edges {
            for eb in &b.edges {
                let axis = ea.cross(*eb);
                if axis.length_squared() > 1e-6 * ea.length_squared() * eb.length_squared() {
                    let axis = axis.normalize();
                    best = best.max(support_separation(a, b, axis));
                    best = best.max(support_separation(a, b, -axis));
                }
            }
        }
        best
    }

    /// Checks a manifold against the brute-force references (tolerances in metres):
    /// - unit normal; 1 to 4 points with distinct ids;
    /// - no axis separates more than the normal by more than the choice hysteresis (+1e-4);
    /// - min separation equal (1e-4) to the support separation along the normal (minus the
    ///   true penetration depth along it) when the normal is the best axis (within 1e-4);
    /// - otherwise (a face kept over a slightly better axis by the hysteresis) the points are
    ///   no deeper than that support separation and, when penetrating, no shallower than the
    ///   best axis allows;
    /// - each point within |s|/2 (+1e-4) of both surfaces (midway between them).
    ///
    /// Returns true when the min separation equals the support separation along the normal
    /// (1e-4), whichever case applied.
    pub fn check_manifold(m: &Manifold, a: &WorldPolytope, b: &WorldPolytope, label: &str) -> bool {
        assert!((m.normal.length() - 1.0).abs() < 1e-5, "{label}: normal {:?}", m.normal);
        assert!(m.count >= 1 && m.count <= 4, "{label}: {} points", m.count);
        for i in 0..m.count {
            for j in 0..i {
                assert_ne!(m.points[i].id, m.points[j].id, "{label}: duplicate id");
            }
        }
        let along_normal = support_separation(a, b, m.normal);
        let reported = m.min_separation();
        let best = brute_force_sat(a, b);
        let allowance = ABSOLUTE_TOLERANCE + RELATIVE_TOLERANCE * along_normal.abs() + 1e-4;
        assert!(
            best <= along_normal + allowance,
            "{label}: an axis separates by {best}, the normal only by {along_normal}"
        );
        let on_best_axis = best <= along_normal + 1e-4;
        if on_best_axis {
            assert!(
                (reported - along_normal).abs() < 1e-4,
                "{label}: min separation {reported} vs support separation {along_normal}"
            );
        } else {
            // Penetrating: the clipped points are no shallower than the best axis allows.
            // Apart (speculative points): the best axis is only a lower bound of the gap.
            let upper = if best < 0.0 { best + 1e-4 } else { f32::INFINITY };
            assert!(
                reported >= along_normal - 1e-4 && reported <= upper,
                "{label}: min separation {reported} outside [{along_normal}, {upper}]"
            );
        }
        for p in m.points() {
            let half = 0.5 * p.separation.abs() + 1e-4;
            for (shape, name) in [(a, "A"), (b, "B")] {
                let d = shape.plane_distance(p.position);
                assert!(d.abs() <= half, "{label}: point {:?} is {d} from {name}", p.position);
            }
        }
        (reported - along_normal).abs() < 1e-4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn face_side_axes_match_the_face_loops() {
        // Side plane j of face f: outward normal (c_{j+1} − c_j) × n through c_j. The table
        // says it is −e_u, +e_v, +e_u, −e_v (scaled by the edge length) at offset h_u or h_v.
        let half = Vec3::new(0.3, 0.7, 1.1);
        for (face, corners) in BOX_FACE_LOOPS.iter().enumerate() {
            let mut normal = Vec3::ZERO;
            normal[face / 2] = if face % 2 == 1 { 1.0 } else { -1.0 };
            let (u, v) = BOX_FACE_SIDE_AXES[face];
            let mut unit = [Vec3::ZERO; 2];
            unit[0][u] = 1.0;
            unit[1][v] = 1.0;
            let expected = [(-unit[0], half[u]), (unit[1], half[v]), (unit[0], half[u]), (-unit[1], half[v])];
            for j in 0..4 {
                let (c0, c1) = (box_corner(half, corners[j]), box_corner(half, corners[(j + 1) % 4]));
                let side = (c1 - c0).cross(normal).normalize();
                assert!((side - expected[j].0).length() < 1e-6, "face {face} plane {j}: {side:?}");
                assert!((side.dot(c0) - expected[j].1).abs() < 1e-6, "face {face} plane {j} offset");
            }
        }
    }

    #[test]
    fn box_mesh_matches_the_cuboid_hull() {
        let half_extents = Vec3::new(0.5, 1.0, 2.0);
        let hull = ConvexHull::cuboid(half_extents);
        let boxed = BoxPolyhedron::new(half_extents);
        let view = boxed.view();
        assert_eq!(view.edges, &hull.edges[..]);
        assert_eq!(view.faces, &hull.faces[..]);
        assert_eq!(view.vertices, &hull.vertices[..]);
        for (mine, theirs) in view.planes.iter().zip(&hull.planes) {
            assert!((mine.normal - theirs.normal).length() < 1e-6);
            assert!((mine.offset - theirs.offset).abs() < 1e-6);
        }
    }

    #[test]
    fn closest_points_of_crossed_and_parallel_segments() {
        // Crossed: x-axis segment at y = 0 and a z-axis segment at y = 1 through (0.25, 1, 0).
        let (p, q) = closest_points_on_segments(
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.25, 1.0, -1.0),
            Vec3::new(0.25, 1.0, 1.0),
        );
        assert!((p - Vec3::new(0.25, 0.0, 0.0)).length() < 1e-6);
        assert!((q - Vec3::new(0.25, 1.0, 0.0)).length() < 1e-6);
        // Beyond an end: the closest point of the first segment is clamped to its end.
        let (p, q) =
            closest_points_on_segments(Vec3::ZERO, Vec3::X, Vec3::new(3.0, 1.0, -1.0), Vec3::new(3.0, 1.0, 1.0));
        assert!((p - Vec3::X).length() < 1e-6);
        assert!((q - Vec3::new(3.0, 1.0, 0.0)).length() < 1e-6);
        // Parallel: any pair at the right distance; the distance must be 2.
        let (p, q) =
            closest_points_on_segments(Vec3::ZERO, Vec3::X, Vec3::new(0.5, 2.0, 0.0), Vec3::new(1.5, 2.0, 0.0));
        assert!(((p - q).length() - 2.0).abs() < 1e-6);
    }

    #[test]
    fn tolerance_prefers_the_incumbent() {
        assert_eq!(choose_contact_kind(-0.1, -0.1, -0.1), ContactKind::FaceA);
        assert_eq!(choose_contact_kind(-0.1, -0.0999, -0.2), ContactKind::FaceA);
        assert_eq!(choose_contact_kind(-0.1, -0.05, -0.2), ContactKind::FaceB);
        assert_eq!(choose_contact_kind(-0.1, -0.2, -0.05), ContactKind::Edges);
        assert_eq!(choose_contact_kind(-0.1, -0.2, -0.0999), ContactKind::FaceA);
        // The edge is measured against the chosen face, not the best one.
        assert_eq!(choose_contact_kind(-0.1, -0.0999, -0.0999), ContactKind::FaceA);
        assert_eq!(choose_contact_kind(-0.1, -0.0999, -0.09), ContactKind::Edges);
    }

    #[test]
    fn relative_frame_maps_points_like_the_poses() {
        let pose_a = Pose::new(Vec3::new(1.0, 2.0, -1.0), crate::math::Quat::from_rotation_y(0.7));
        let pose_b = Pose::new(Vec3::new(-0.5, 0.3, 2.0), crate::math::Quat::from_rotation_x(-1.2));
        let frame = RelativeFrame::b_in_a(&pose_a, &pose_b);
        let x = Vec3::new(0.3, -0.2, 0.9);
        let expected = pose_a.inverse_transform_point(pose_b.transform_point(x));
        assert!((frame.point(x) - expected).length() < 1e-5);
        let v = Vec3::new(-0.4, 1.0, 0.2);
        assert!((frame.inverse_vector(frame.vector(v)) - v).length() < 1e-5);
    }
}
