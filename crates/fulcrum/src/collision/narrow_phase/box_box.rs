//! Box against box: separating-axis test over the 15 candidate axes, then face clipping
//! (face contact) or the closest points of two edges (edge contact).
//!
//! The axis tests run in A's frame. `R` is B's rotation relative to A (columns `b_j`, B's
//! axes; rows `r_i`), `t` B's centre, `h_A`, `h_B` the half extents. A box reaches
//! `Σ_k h_k |n·axis_k|` from its centre along a unit `n`, so the separations (see `sat.rs`)
//! are:
//!
//! ```text
//! face e_i of A:            s = |t_i|   − h_A,i − Σ_j |R_ij| h_B,j
//! face b_j of B:            s = |t·b_j| − h_B,j − Σ_i |R_ij| h_A,i
//! edges, u = e_i × b_j:     s = (|t·u| − Σ_k h_A,k |u_k| − Σ_k h_B,k |u·b_k|) / |u|
//! ```
//!
//! Edge pairs with `|u| = sin∠(e_i, b_j) < PARALLEL_SINE` are skipped. For boxes every edge axis
//! is a face of the Minkowski difference (a box's support along any direction perpendicular
//! to an edge contains an edge parallel to it), so no Gauss-map test is needed. The three
//! families are evaluated with SIMD vectors: three face axes, or the three edge axes sharing
//! an edge direction of A, at a time.
//!
//! The largest separation picks the contact (A's faces preferred over B's, faces over edges,
//! within `sat::clearly_greater`'s margin). Face contact: the reference face's normal points
//! at the other box, the incident face is the other box's face most anti-parallel to it, and
//! `clip::clip_box_face` makes the points in the reference box's own frame, where the face
//! is an axis-aligned rectangle (for B's face, A is placed in B's frame: axes `Rᵀ`, centre
//! `−Rᵀt`), and writes them in world space. Edge contact (also when the face clipping leaves
//! nothing, as can happen in deep overlaps where a face was kept over a slightly better edge
//! axis): one point midway between the closest points of the two support edges.

use super::clip::{clip_box_face, feature_id, BoxFace, FaceRectangle};
use super::sat::{
    choose_contact_kind, closest_points_on_segments, edge_pair_base, face_pair_base, manifold_to_world, ContactKind,
    BOX_FACE_SIDE_AXES, CACHE_EDGES, CACHE_FACE_A, CACHE_FACE_B, PARALLEL_SINE,
};
use super::PairCache;
use crate::collision::manifold::Manifold;
use crate::math::{Pose, Vec3};
use crate::shape::Cuboid;
use glam::{Mat3A, Vec3A, Vec3Swizzles};

/// Contact manifold between two boxes (normal from A to B). Empty when further apart than
/// `margin`.
///
/// - `margin`: speculative distance (metres); points are made for separations up to it;
/// - `cache`: remembers the last separating axis; when it still separates by more than
///   `margin` the query ends after that one test;
/// - `out`: receives up to 4 points, positions midway between the surfaces, separations
///   negative when penetrating, feature ids stable while the same features touch.
pub fn collide_boxes(
    box_a: &Cuboid,
    pose_a: &Pose,
    box_b: &Cuboid,
    pose_b: &Pose,
    margin: f32,
    cache: &mut PairCache,
    out: &mut Manifold,
) {
    out.clear();
    let pair = BoxPair::new(box_a.half_extents, pose_a, box_b.half_extents, pose_b);
    let Some(query) = pair.query_axes(margin, cache) else { return };
    // The face routines write world space directly.
    match choose_contact_kind(query.separation_a, query.separation_b, query.edges.separation) {
        ContactKind::FaceA => pair.face_contact_on_a(query.face_a, pose_a, margin, out),
        ContactKind::FaceB => pair.face_contact_on_b(query.face_b, pose_b, margin, out),
        ContactKind::Edges => {}
    }
    // Edge contact, also when a face kept over a slightly better edge axis clipped to
    // nothing (possible in deep overlaps).
    if out.is_empty() && query.edges.separation.is_finite() {
        pair.edge_contact(&query.edges, out);
        manifold_to_world(pose_a, out);
    }
}

/// Index and value of the largest component (ties go to the lower index).
#[inline]
fn max_component(v: Vec3A) -> (usize, f32) {
    let mut best = (0, v.x);
    if v.y > best.1 {
        best = (1, v.y);
    }
    if v.z > best.1 {
        best = (2, v.z);
    }
    best
}

/// Unit vector along local axis `i`.
#[inline]
fn unit_axis(i: usize) -> Vec3A {
    let mut e = Vec3A::ZERO;
    e[i] = 1.0;
    e
}

/// The best edge-edge axis `e_axis_a × b_axis_b` and its separation (metres).
#[derive(Clone, Copy, Debug, PartialEq)]
struct BoxEdgeQuery {
    separation: f32,
    axis_a: usize,
    axis_b: usize,
}

/// The best axis of each family when no axis separates by more than the margin.
#[derive(Clone, Copy, Debug, PartialEq)]
struct AxisQuery {
    face_a: usize,
    separation_a: f32,
    face_b: usize,
    separation_b: f32,
    edges: BoxEdgeQuery,
}

/// A box seen from another box's frame: its axes (the columns), centre and half extents.
struct PlacedBox {
    axes: Mat3A,
    centre: Vec3A,
    half_extents: Vec3A,
}

impl PlacedBox {
    /// Face `face` (< 6) in the frame the box is placed in: centre `c` and the half edges
    /// `E_u`, `E_v` along the face's in-face axes (`sat::BOX_FACE_SIDE_AXES`), so that the
    /// rectangle's corners `c − E_u − E_v`, `c − E_u + E_v`, `c + E_u + E_v`, `c + E_u − E_v`
    /// follow the face's loop in `sat::BOX_FACE_LOOPS`.
    #[inline]
    fn face(&self, face: usize) -> FaceRectangle {
        let (axis_u, axis_v) = BOX_FACE_SIDE_AXES[face];
        let (axis_n, h) = (face / 2, self.half_extents);
        let offset = if face % 2 == 1 { h[axis_n] } else { -h[axis_n] };
        FaceRectangle {
            centre: (self.centre + self.axes.col(axis_n) * offset).into(),
            half_edge_u: (self.axes.col(axis_u) * h[axis_u]).into(),
            half_edge_v: (self.axes.col(axis_v) * h[axis_v]).into(),
        }
    }
}

/// The two boxes in A's frame: `R`, its rows (as the columns of `Rᵀ`), their absolute values,
/// `t` and the half extents.
struct BoxPair {
    rotation: Mat3A,
    rows: Mat3A,
    abs_rotation: Mat3A,
    abs_rows: Mat3A,
    translation: Vec3A,
    half_a: Vec3A,
    half_b: Vec3A,
}

impl BoxPair {
    /// `R = q_A⁻¹ q_B`, `t = q_A⁻¹ (p_B − p_A)`.
    fn new(half_a: Vec3, pose_a: &Pose, half_b: Vec3, pose_b: &Pose) -> Self {
        let inverse_a = pose_a.rotation.inverse();
        let rotation = Mat3A::from_quat((inverse_a * pose_b.rotation).normalize());
        let translation = inverse_a * Vec3A::from(pose_b.position - pose_a.position);
        let rows = rotation.transpose();
        let abs = |m: Mat3A| Mat3A::from_cols(m.x_axis.abs(), m.y_axis.abs(), m.z_axis.abs());
        Self {
            rotation,
            rows,
            abs_rotation: abs(rotation),
            abs_rows: abs(rows),
            translation,
            half_a: half_a.into(),
            half_b: half_b.into(),
        }
    }

    /// Runs the axis tests. `None` when an axis separates by more than `margin` (the cache
    /// then remembers it); otherwise the best axis of each family (the cache is cleared).
    fn query_axes(&self, margin: f32, cache: &mut PairCache) -> Option<AxisQuery> {
        if self.cached_axis_separation(cache) > margin {
            return None;
        }
        let (face_a, separation_a) = max_component(self.face_a_separations());
        if separation_a > margin {
            *cache = separating_axis(CACHE_FACE_A, face_a, 0);
            return None;
        }
        let (face_b, separation_b) = max_component(self.face_b_separations());
        if separation_b > margin {
            *cache = separating_axis(CACHE_FACE_B, 0, face_b);
            return None;
        }
        let edges = self.best_edge_pair(margin);
        if edges.separation > margin {
            *cache = separating_axis(CACHE_EDGES, edges.axis_a, edges.axis_b);
            return None;
        }
        *cache = PairCache::default();
        Some(AxisQuery { face_a, separation_a, face_b, separation_b, edges })
    }

    /// Separations along A's three face axes: `|t| − h_A − |R| h_B`.
    #[inline]
    fn face_a_separations(&self) -> Vec3A {
        self.translation.abs() - self.half_a - self.abs_rotation * self.half_b
    }

    /// Separations along B's three face axes: `|Rᵀ t| − h_B − |R|ᵀ h_A`.
    #[inline]
    fn face_b_separations(&self) -> Vec3A {
        (self.rows * self.translation).abs() - self.half_b - self.abs_rows * self.half_a
    }

    /// Separations along the nine axes `e_i × b_j` (`−∞` where the edges are nearly
    /// parallel): entry `i`, lane `j`. With `(i1, i2)` and `(j1, j2)` the axes after `i` and
    /// `j` in cyclic order (lane `j` of `r_i` holds `R_ij`):
    ///
    /// ```text
    /// u = e_i × b_j = R_{i1 j} e_{i2} − R_{i2 j} e_{i1}      |u|² = R_{i1 j}² + R_{i2 j}²
    /// t·u = t_{i2} R_{i1 j} − t_{i1} R_{i2 j}
    /// Σ_k h_A,k |u_k|   = h_A,i1 |R_{i2 j}| + h_A,i2 |R_{i1 j}|
    /// Σ_k h_B,k |u·b_k| = h_B,j1 |R_{i j2}| + h_B,j2 |R_{i j1}|   (u·b_k = e_i·(b_j × b_k))
    /// ```
    ///
    /// so, lane-wise over `j`, the last sum is `h_B.yzx ∘ |r_i|.zxy + h_B.zxy ∘ |r_i|.yzx`.
    fn edge_separations(&self) -> [Vec3A; 3] {
        let rows = [self.rows.x_axis, self.rows.y_axis, self.rows.z_axis];
        let abs_rows = [self.abs_rows.x_axis, self.abs_rows.y_axis, self.abs_rows.z_axis];
        let (t, half_a) = (self.translation, self.half_a);
        let (half_b_next, half_b_prev) = (self.half_b.yzx(), self.half_b.zxy());
        let parallel = Vec3A::splat(PARALLEL_SINE * PARALLEL_SINE);
        let along = |i: usize, i1: usize, i2: usize| {
            let (r1, r2) = (rows[i1], rows[i2]);
            let length_squared = r1 * r1 + r2 * r2;
            let distance = (r1 * t[i2] - r2 * t[i1]).abs();
            let reach_a = abs_rows[i2] * half_a[i1] + abs_rows[i1] * half_a[i2];
            let reach_b = half_b_next * abs_rows[i].zxy() + half_b_prev * abs_rows[i].yzx();
            let separation = (distance - reach_a - reach_b) / length_squared.sqrt();
            Vec3A::select(length_squared.cmple(parallel), Vec3A::NEG_INFINITY, separation)
        };
        [along(0, 1, 2), along(1, 2, 0), along(2, 0, 1)]
    }

    /// Best of the nine edge axes, scanned `i` then `j`: the first separating beyond `margin`,
    /// else the largest (ties go to the earlier axis).
    fn best_edge_pair(&self, margin: f32) -> BoxEdgeQuery {
        let separations = self.edge_separations();
        let mut best = BoxEdgeQuery { separation: f32::NEG_INFINITY, axis_a: 0, axis_b: 0 };
        for (axis_a, row) in separations.iter().enumerate() {
            for (axis_b, &separation) in row.to_array().iter().enumerate() {
                if separation > best.separation {
                    best = BoxEdgeQuery { separation, axis_a, axis_b };
                    if separation > margin {
                        return best;
                    }
                }
            }
        }
        best
    }

    /// Separation along the axis the cache remembers (`−∞` when it holds none).
    fn cached_axis_separation(&self, cache: &PairCache) -> f32 {
        let (i, j) = (cache.index_a as usize, cache.index_b as usize);
        if i > 2 || j > 2 {
            return f32::NEG_INFINITY;
        }
        match cache.feature_kind {
            CACHE_FACE_A => self.face_a_separations()[i],
            CACHE_FACE_B => self.face_b_separations()[j],
            CACHE_EDGES => self.edge_separations()[i][j],
            _ => f32::NEG_INFINITY,
        }
    }

    /// Face contact with A's face on `axis` (the side facing B) as reference (world space).
    fn face_contact_on_a(&self, axis: usize, pose_a: &Pose, margin: f32, out: &mut Manifold) {
        let b = PlacedBox { axes: self.rotation, centre: self.translation, half_extents: self.half_b };
        face_contact(self.half_a, pose_a, axis, &b, margin, true, out);
    }

    /// Face contact with B's face on `axis` (the side facing A) as reference (world space),
    /// clipped in B's frame, where A has the axes `Rᵀ` and the centre `−Rᵀ t`.
    fn face_contact_on_b(&self, axis: usize, pose_b: &Pose, margin: f32, out: &mut Manifold) {
        let a = PlacedBox { axes: self.rows, centre: -(self.rows * self.translation), half_extents: self.half_a };
        face_contact(self.half_b, pose_b, axis, &a, margin, false, out);
    }

    /// Edge contact (A's frame): A's edge parallel to `e_i` through its support corner along
    /// `n`, B's edge parallel to `b_j` through its support corner along `−n`; one point midway
    /// between their closest points, with the SAT separation.
    fn edge_contact(&self, edges: &BoxEdgeQuery, out: &mut Manifold) {
        let (i, j) = (edges.axis_a, edges.axis_b);
        let b_axis = self.rotation.col(j);
        let u = unit_axis(i).cross(b_axis).normalize();
        let normal = if u.dot(self.translation) < 0.0 { -u } else { u };
        let mut centre_a = self.half_a.copysign(normal);
        centre_a[i] = 0.0;
        let extent_a = unit_axis(i) * self.half_a[i];
        let normal_in_b = self.rows * -normal;
        let mut centre_b = self.half_b.copysign(normal_in_b);
        centre_b[j] = 0.0;
        let centre_b = self.rotation * centre_b + self.translation;
        let extent_b = b_axis * self.half_b[j];
        let (on_a, on_b) = closest_points_on_segments(
            (centre_a - extent_a).into(),
            (centre_a + extent_a).into(),
            (centre_b - extent_b).into(),
            (centre_b + extent_b).into(),
        );
        out.normal = normal.into();
        let id_base = edge_pair_base(box_edge_index(i, normal), box_edge_index(j, normal_in_b));
        out.push(0.5 * (on_a + on_b), edges.separation, feature_id(id_base, 0));
    }
}

fn separating_axis(kind: u8, index_a: usize, index_b: usize) -> PairCache {
    PairCache { feature_kind: kind, index_a: index_a as u16, index_b: index_b as u16 }
}

/// Face contact (world space) with the reference box (`reference_half`, at `reference_pose`):
/// its face on `axis` on the side of the other box's centre, against the face of `incident`
/// (placed in the reference box's frame) most anti-parallel to that face's normal `n` (the
/// incident box's axes have the components `Mᵀ n = ±(row axis of M)` along it).
fn face_contact(
    reference_half: Vec3A,
    reference_pose: &Pose,
    axis: usize,
    incident: &PlacedBox,
    margin: f32,
    reference_is_a: bool,
    out: &mut Manifold,
) {
    let positive = incident.centre[axis] >= 0.0;
    let reference_face = 2 * axis + usize::from(positive);
    let row = Vec3A::new(incident.axes.x_axis[axis], incident.axes.y_axis[axis], incident.axes.z_axis[axis]);
    let along = if positive { row } else { -row };
    let (incident_axis, _) = max_component(along.abs());
    let incident_face = 2 * incident_axis + usize::from(along[incident_axis] < 0.0);
    let rectangle = incident.face(incident_face);
    let id_base = face_pair_base(reference_is_a, reference_face, incident_face);
    let reference = BoxFace { half_extents: reference_half.into(), face: reference_face };
    clip_box_face(reference, reference_pose, &rectangle, margin, reference_is_a, id_base, out);
}

/// Index 0..12 of the box edge parallel to `axis` on the side of `direction`'s other two
/// components: `4·axis + [d_u ≥ 0] + 2·[d_v ≥ 0]`.
#[inline]
fn box_edge_index(axis: usize, direction: Vec3A) -> usize {
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    4 * axis + usize::from(direction[u].is_sign_positive()) + 2 * usize::from(direction[v].is_sign_positive())
}

#[cfg(test)]
mod tests {
    use super::super::sat::test_util::{assert_close, assert_mirrored, check_manifold, Lcg, WorldPolytope};
    use super::super::sat::BoxPolyhedron;
    use super::*;
    use crate::math::Quat;
    use std::f32::consts::{FRAC_PI_4, SQRT_2};

    const MARGIN: f32 = 0.02;

    fn collide(half_a: Vec3, pose_a: &Pose, half_b: Vec3, pose_b: &Pose) -> Manifold {
        let mut m = Manifold::new();
        let (a, b) = (Cuboid { half_extents: half_a }, Cuboid { half_extents: half_b });
        collide_boxes(&a, pose_a, &b, pose_b, MARGIN, &mut PairCache::default(), &mut m);
        m
    }

    fn world(half: Vec3, pose: &Pose) -> WorldPolytope {
        WorldPolytope::new(&BoxPolyhedron::new(half).view(), pose)
    }

    /// A small box (half 0.4) resting 0.01 deep on a large one (top face at y = 0.5), turned
    /// by `yaw` about the normal, with the whole scene moved by `scene`: four points at the
    /// small box's bottom corners, each at depth 0.01, midway (y = 0.495 before the move).
    fn resting_case(yaw: f32, scene: Pose) {
        let depth = 0.01;
        let (half_a, half_b) = (Vec3::new(1.0, 0.5, 1.0), Vec3::splat(0.4));
        let centre_b = Vec3::new(0.1, 0.5 + 0.4 - depth, -0.2);
        let pose_a = scene.mul_pose(&Pose::IDENTITY);
        let pose_b = scene.mul_pose(&Pose::new(centre_b, Quat::from_rotation_y(yaw)));
        let m = collide(half_a, &pose_a, half_b, &pose_b);
        assert_eq!(m.count, 4);
        assert_close(m.normal, scene.transform_vector(Vec3::Y), 1e-5, "normal");
        for p in m.points() {
            assert!((p.separation + depth).abs() < 1e-5, "depth {}", p.separation);
            let local = scene.inverse_transform_point(p.position);
            assert!((local.y - (0.5 - 0.5 * depth)).abs() < 1e-5, "midway: {local:?}");
            let corner = Quat::from_rotation_y(-yaw) * (local - centre_b);
            assert!((corner.x.abs() - 0.4).abs() < 1e-5 && (corner.z.abs() - 0.4).abs() < 1e-5);
        }
        check_manifold(&m, &world(half_a, &pose_a), &world(half_b, &pose_b), "resting");
    }

    #[test]
    fn resting_box_gives_four_corner_points() {
        resting_case(0.0, Pose::IDENTITY);
        resting_case(FRAC_PI_4, Pose::IDENTITY);
        let scene =
            Pose::new(Vec3::new(3.0, -2.0, 7.0), Quat::from_axis_angle(Vec3::new(1.0, 2.0, -0.5).normalize(), 0.9));
        resting_case(0.0, scene);
        resting_case(FRAC_PI_4, scene);
    }

    #[test]
    fn equal_boxes_turned_45_degrees_give_four_points_of_the_octagon() {
        // The overlap of two unit squares turned by 45° is a regular octagon; four of its
        // corners are kept, all at depth 0.005 and on the octagon (|x|, |z| <= 0.5, and
        // |x| + |z| <= √2/2).
        let depth = 0.005;
        let half = Vec3::splat(0.5);
        let pose_b = Pose::new(Vec3::new(0.0, 1.0 - depth, 0.0), Quat::from_rotation_y(FRAC_PI_4));
        let m = collide(half, &Pose::IDENTITY, half, &pose_b);
        assert_eq!(m.count, 4);
        assert_close(m.normal, Vec3::Y, 1e-6, "normal");
        for p in m.points() {
            assert!((p.separation + depth).abs() < 1e-5);
            let q = p.position;
            assert!(q.x.abs() <= 0.5 + 1e-5 && q.z.abs() <= 0.5 + 1e-5);
            assert!((q.x.abs() + q.z.abs() - SQRT_2 / 2.0).abs() < 1e-4, "on an octagon side: {q:?}");
        }
        check_manifold(&m, &world(half, &Pose::IDENTITY), &world(half, &pose_b), "octagon");
    }

    #[test]
    fn crossed_edges_give_one_point_at_the_closest_points() {
        // A: unit cube turned 45° about x, top edge along x at y = √2/2, z = 0.
        // B: unit cube turned 45° about z, bottom edge along z at x = 0.2, y = c − √2/2.
        // Closest points (0.2, √2/2, 0) and (0.2, c − √2/2, 0); separation c − √2.
        let depth = 0.02;
        let c = SQRT_2 - depth;
        let half = Vec3::splat(0.5);
        let pose_a = Pose::new(Vec3::ZERO, Quat::from_rotation_x(FRAC_PI_4));
        let pose_b = Pose::new(Vec3::new(0.2, c, 0.1), Quat::from_rotation_z(FRAC_PI_4));
        let m = collide(half, &pose_a, half, &pose_b);
        assert_eq!(m.count, 1);
        assert_close(m.normal, Vec3::Y, 1e-5, "normal");
        assert!((m.points[0].separation + depth).abs() < 1e-5);
        assert_close(m.points[0].position, Vec3::new(0.2, 0.5 * c, 0.0), 1e-5, "point");
        check_manifold(&m, &world(half, &pose_a), &world(half, &pose_b), "edges");
        // A 1 mm shift keeps the same edges, hence the same id.
        let shifted = Pose::new(pose_b.position + Vec3::new(0.001, 0.0, 0.001), pose_b.rotation);
        let again = collide(half, &pose_a, half, &shifted);
        assert_eq!(again.count, 1);
        assert_eq!(again.points[0].id, m.points[0].id);
    }

    /// The rotation taking the cube diagonal (−1, −1, −1)/√3 to −y: the corner points down.
    fn corner_down() -> Quat {
        Quat::from_rotation_arc(Vec3::splat(-1.0).normalize(), -Vec3::Y)
    }

    #[test]
    fn tilted_corner_into_a_face_gives_one_point() {
        // The lowest corner is √3/2 below the centre; the next corners are 1/√3 higher, far
        // beyond the margin.
        let depth = 0.03;
        let half_a = Vec3::new(2.0, 0.5, 2.0);
        let half_b = Vec3::splat(0.5);
        let centre = Vec3::new(0.3, 0.5 + 0.75f32.sqrt() - depth, -0.2);
        let pose_b = Pose::new(centre, corner_down());
        let m = collide(half_a, &Pose::IDENTITY, half_b, &pose_b);
        assert_eq!(m.count, 1);
        assert_close(m.normal, Vec3::Y, 1e-5, "normal");
        assert!((m.points[0].separation + depth).abs() < 1e-5);
        assert_close(m.points[0].position, Vec3::new(0.3, 0.5 - 0.5 * depth, -0.2), 1e-5, "point");
        check_manifold(&m, &world(half_a, &Pose::IDENTITY), &world(half_b, &pose_b), "corner");
    }

    #[test]
    fn speculative_points_stop_at_the_margin() {
        let (half_a, half_b) = (Vec3::splat(0.5), Vec3::splat(0.4));
        let at_gap = |gap: f32| Pose::from_position(Vec3::new(0.05, 0.9 + gap, 0.0));
        let below = collide(half_a, &Pose::IDENTITY, half_b, &at_gap(MARGIN - 1e-4));
        assert_eq!(below.count, 4);
        for p in below.points() {
            assert!((p.separation - (MARGIN - 1e-4)).abs() < 1e-5);
        }
        let above = collide(half_a, &Pose::IDENTITY, half_b, &at_gap(MARGIN + 1e-4));
        assert_eq!(above.count, 0);
    }

    #[test]
    fn cached_axis_ends_the_query_only_while_it_separates() {
        let (a, b) = (Cuboid { half_extents: Vec3::splat(0.5) }, Cuboid { half_extents: Vec3::splat(0.5) });
        // Apart along B's turned face axis: the cache remembers some separating axis.
        let far = Pose::new(Vec3::new(1.3, 0.2, 0.1), Quat::from_rotation_y(0.3));
        let mut cache = PairCache::default();
        let mut m = Manifold::new();
        collide_boxes(&a, &Pose::IDENTITY, &b, &far, MARGIN, &mut cache, &mut m);
        assert_eq!(m.count, 0);
        assert_ne!(cache.feature_kind, 0);
        // Touching now: the stale axis no longer separates, so the full query runs.
        let near = Pose::new(Vec3::new(0.0, 0.98, 0.0), Quat::IDENTITY);
        collide_boxes(&a, &Pose::IDENTITY, &b, &near, MARGIN, &mut cache, &mut m);
        assert_eq!(m.count, 4);
        assert_eq!(m, collide(a.half_extents, &Pose::IDENTITY, b.half_extents, &near));
    }

    #[test]
    fn ids_survive_a_1mm_shift_and_are_distinct() {
        let half_a = Vec3::new(1.0, 0.5, 1.0);
        let cases = [
            (Vec3::splat(0.4), Quat::IDENTITY),
            (Vec3::splat(0.4), Quat::from_rotation_y(0.3)),
            (Vec3::new(1.0, 0.5, 1.0), Quat::from_rotation_y(FRAC_PI_4)),
        ];
        for (half_b, rotation) in cases {
            let centre = Vec3::new(0.05, 0.5 + half_b.y - 0.004, 0.02);
            let m = collide(half_a, &Pose::IDENTITY, half_b, &Pose::new(centre, rotation));
            for shift in [Vec3::new(0.001, 0.0, 0.0), Vec3::new(0.0, 0.0, -0.001), Vec3::new(0.0, 0.001, 0.0)] {
                let moved = collide(half_a, &Pose::IDENTITY, half_b, &Pose::new(centre + shift, rotation));
                assert_eq!(moved.count, 4);
                for (p, q) in m.points().iter().zip(moved.points()) {
                    assert_eq!(p.id, q.id);
                    assert!((p.position - q.position).length() < 2e-3);
                }
            }
            for i in 0..m.count {
                for j in 0..i {
                    assert_ne!(m.points[i].id, m.points[j].id);
                }
            }
        }
    }

    #[test]
    fn swapping_the_boxes_flips_the_normal_and_keeps_the_points() {
        let half_big = Vec3::new(2.0, 0.5, 2.0);
        let cube = Vec3::splat(0.5);
        let cases = [
            (half_big, Pose::IDENTITY, Vec3::splat(0.4), Pose::from_position(Vec3::new(0.1, 0.89, 0.0))),
            (half_big, Pose::IDENTITY, cube, Pose::new(Vec3::new(0.3, 1.33, -0.2), corner_down())),
            (
                cube,
                Pose::new(Vec3::ZERO, Quat::from_rotation_x(FRAC_PI_4)),
                cube,
                Pose::new(Vec3::new(0.2, 1.4, 0.1), Quat::from_rotation_z(FRAC_PI_4)),
            ),
        ];
        for (half_a, pose_a, half_b, pose_b) in cases {
            let ab = collide(half_a, &pose_a, half_b, &pose_b);
            let ba = collide(half_b, &pose_b, half_a, &pose_a);
            assert_mirrored(&ab, &ba);
        }
    }

    #[test]
    fn random_pairs_match_brute_force() {
        let mut rng = Lcg(0x5EED_B0B5);
        let (mut penetrating, mut exact) = (0, 0);
        for case in 0..3000 {
            let half_a = Vec3::new(rng.range(0.1, 1.0), rng.range(0.1, 1.0), rng.range(0.1, 1.0));
            let half_b = Vec3::new(rng.range(0.1, 1.0), rng.range(0.1, 1.0), rng.range(0.1, 1.0));
            let pose_a = Pose::new(rng.vec3() * 5.0, rng.rotation());
            let reach = (half_a.length() + half_b.length()) * 0.8;
            let pose_b = Pose::new(pose_a.position + rng.vec3() * reach, rng.rotation());
            let m = collide(half_a, &pose_a, half_b, &pose_b);
            let (a, b) = (world(half_a, &pose_a), world(half_b, &pose_b));
            let best = super::super::sat::test_util::brute_force_sat(&a, &b);
            if best > MARGIN + 1e-4 {
                assert_eq!(m.count, 0, "case {case}: separated by {best}");
                continue;
            }
            let exact_along_normal = m.count > 0 && check_manifold(&m, &a, &b, &format!("case {case}"));
            if best < -1e-4 {
                penetrating += 1;
                assert!(m.count > 0, "case {case}: penetrating by {best} but no points");
                exact += usize::from(exact_along_normal);
            }
        }
        assert!(penetrating > 1000, "only {penetrating} penetrating cases");
        assert!(exact > 9 * penetrating / 10, "only {exact} exact cases");
    }

    // ---- The box-specific paths against general references ----

    use super::super::clip::clip_faces;
    use super::super::sat::test_util::support_separation;
    use super::super::sat::{box_corner, RelativeFrame, BOX_FACE_LOOPS};
    use std::f32::consts::TAU;

    /// The polygon of box face `face` in the box's frame (loop order) and its outward normal.
    fn face_polygon(half: Vec3, face: usize) -> ([Vec3; 4], Vec3) {
        let mut normal = Vec3::ZERO;
        normal[face / 2] = if face % 2 == 1 { 1.0 } else { -1.0 };
        (BOX_FACE_LOOPS[face].map(|k| box_corner(half, k)), normal)
    }

    /// The face contact the general polygon clipper makes (the routine before the box-specific
    /// one): both faces as polygons in A's frame, `clip_faces`, then world space. `on_a`: the
    /// reference face is A's face on `axis`, else B's.
    fn general_face_contact(
        half_a: Vec3,
        pose_a: &Pose,
        half_b: Vec3,
        pose_b: &Pose,
        on_a: bool,
        axis: usize,
    ) -> (Manifold, f32) {
        let frame = RelativeFrame::b_in_a(pose_a, pose_b);
        let mut out = Manifold::new();
        let (reference, normal, incident, reference_face, incident_face) = if on_a {
            let positive = frame.translation[axis] >= 0.0;
            let reference_face = 2 * axis + usize::from(positive);
            let (reference, normal) = face_polygon(half_a, reference_face);
            let along_b = frame.inverse_vector(normal);
            let (axis_b, _) = max_component(Vec3A::from(along_b).abs());
            let incident_face = 2 * axis_b + usize::from(along_b[axis_b] < 0.0);
            let incident = face_polygon(half_b, incident_face).0.map(|p| frame.point(p));
            (reference, normal, incident, reference_face, incident_face)
        } else {
            let positive = frame.translation.dot(frame.rotation.col(axis)) < 0.0;
            let reference_face = 2 * axis + usize::from(positive);
            let (reference, normal) = face_polygon(half_b, reference_face);
            let (reference, normal) = (reference.map(|p| frame.point(p)), frame.vector(normal));
            let (axis_a, _) = max_component(Vec3A::from(normal).abs());
            let incident_face = 2 * axis_a + usize::from(normal[axis_a] < 0.0);
            (reference, normal, face_polygon(half_a, incident_face).0, reference_face, incident_face)
        };
        let id_base = face_pair_base(on_a, reference_face, incident_face);
        clip_faces(&reference, normal, &incident, MARGIN, on_a, id_base, &mut out);
        manifold_to_world(pose_a, &mut out);
        (out, crossing_sine(&reference, normal, &incident))
    }

    /// The smallest sine of the angle between a side of `reference` and an edge of
    /// `incident` projected on the reference plane: where an edge crosses a side at angle θ,
    /// rounding ε in the inputs moves the crossing by about ε / sin θ along the side.
    fn crossing_sine(reference: &[Vec3; 4], normal: Vec3, incident: &[Vec3; 4]) -> f32 {
        let mut smallest = 1.0f32;
        for j in 0..4 {
            let side = (reference[(j + 1) % 4] - reference[j]).normalize();
            for k in 0..4 {
                let edge = incident[(k + 1) % 4] - incident[k];
                let flat = (edge - normal * normal.dot(edge)).normalize();
                smallest = smallest.min(side.cross(flat).length());
            }
        }
        smallest
    }

    /// A random face of B turned towards a random face of A (up to 0.1 rad off), turned
    /// about the normal by a random angle (a small one half of the time), slid along the
    /// face and placed from 3 cm deep to 2 cm apart; A and B swapped half of the time.
    fn resting_pair(rng: &mut Lcg) -> (Vec3, Pose, Vec3, Pose) {
        let half_a = Vec3::new(rng.range(0.1, 1.0), rng.range(0.1, 1.0), rng.range(0.1, 1.0));
        let half_b = Vec3::new(rng.range(0.1, 1.0), rng.range(0.1, 1.0), rng.range(0.1, 1.0));
        let pose_a = Pose::new(rng.vec3() * 5.0, rng.rotation());
        let axis = (rng.next_f32() * 3.0) as usize % 3;
        let normal = Vec3::from(unit_axis(axis)) * if rng.next_f32() < 0.5 { 1.0 } else { -1.0 };
        let face_b =
            Vec3::from(unit_axis((rng.next_f32() * 3.0) as usize % 3)) * if rng.next_f32() < 0.5 { 1.0 } else { -1.0 };
        let yaw = if rng.next_f32() < 0.5 { rng.range(-0.05, 0.05) } else { rng.range(0.0, TAU) };
        let tilt = Quat::from_axis_angle(rng.vec3().normalize_or(Vec3::X), rng.range(-0.1, 0.1));
        let turn = Quat::from_axis_angle(normal, yaw);
        let rotation = tilt * turn * Quat::from_rotation_arc(face_b, -normal);
        let reach_b: f32 = (0..3).map(|k| half_b[k] * normal.dot(rotation * Vec3::from(unit_axis(k))).abs()).sum();
        let slide = rng.vec3() * (half_a + half_b * 0.5);
        let lift = half_a[axis] + reach_b + rng.range(-0.03, 0.02);
        let centre = normal * lift + slide - normal * normal.dot(slide);
        let pose_b = pose_a.mul_pose(&Pose::new(centre, rotation));
        if rng.next_f32() < 0.5 {
            (half_a, pose_a, half_b, pose_b)
        } else {
            (half_b, pose_b, half_a, pose_a)
        }
    }

    /// Same count, normal (1e-5), ids in order, separations within 1e-5 and positions within
    /// 1e-5 m plus 1e-6 m / `sine` (rounding of the inputs, about 1e-6 m at these sizes,
    /// moves a crossing along a side by that much; see [`crossing_sine`]).
    fn assert_same_manifold(fast: &Manifold, general: &Manifold, sine: f32, label: &str) {
        assert_eq!(fast.count, general.count, "{label}: {fast:?} vs {general:?}");
        assert_close(fast.normal, general.normal, 1e-5, label);
        for (p, q) in fast.points().iter().zip(general.points()) {
            assert_eq!(p.id, q.id, "{label}: ids {fast:?} vs {general:?}");
            assert_close(p.position, q.position, 1e-5 + 1e-6 / sine, label);
            assert!((p.separation - q.separation).abs() < 1e-5, "{label}: {} vs {}", p.separation, q.separation);
        }
    }

    #[test]
    fn face_contacts_match_the_general_clipper_in_random_configurations() {
        let mut rng = Lcg(0xFACE_C0DE);
        let (mut on_a, mut on_b, mut full) = (0, 0, 0);
        for case in 0..6000 {
            let (half_a, pose_a, half_b, pose_b) = if case % 3 == 0 {
                let (half_a, half_b) = (rng.vec3().abs() + Vec3::splat(0.1), rng.vec3().abs() + Vec3::splat(0.1));
                let pose_a = Pose::new(rng.vec3() * 5.0, rng.rotation());
                let offset = rng.vec3() * (half_a.length() + half_b.length()) * 0.8;
                (half_a, pose_a, half_b, Pose::new(pose_a.position + offset, rng.rotation()))
            } else {
                resting_pair(&mut rng)
            };
            let pair = BoxPair::new(half_a, &pose_a, half_b, &pose_b);
            let Some(query) = pair.query_axes(MARGIN, &mut PairCache::default()) else { continue };
            let (on_a_face, face) =
                match choose_contact_kind(query.separation_a, query.separation_b, query.edges.separation) {
                    ContactKind::FaceA => (true, query.face_a),
                    ContactKind::FaceB => (false, query.face_b),
                    ContactKind::Edges => continue,
                };
            let (general, sine) = general_face_contact(half_a, &pose_a, half_b, &pose_b, on_a_face, face);
            if general.is_empty() {
                continue; // both fall back to the edge contact
            }
            let fast = collide(half_a, &pose_a, half_b, &pose_b);
            assert_same_manifold(&fast, &general, sine, &format!("case {case}"));
            on_a += usize::from(on_a_face);
            on_b += usize::from(!on_a_face);
            full += usize::from(general.count == 4);
        }
        assert!(on_a > 1000 && on_b > 800 && full > 1000, "coverage: {on_a} on A, {on_b} on B, {full} with 4 points");
    }

    #[test]
    fn placed_face_rectangles_follow_the_face_loops() {
        let mut rng = Lcg(0x1007);
        for _ in 0..20 {
            let half = Vec3::new(rng.range(0.1, 1.0), rng.range(0.1, 1.0), rng.range(0.1, 1.0));
            let (rotation, centre) = (Mat3A::from_quat(rng.rotation()), Vec3A::from(rng.vec3() * 3.0));
            let placed = PlacedBox { axes: rotation, centre, half_extents: half.into() };
            for (face, face_loop) in BOX_FACE_LOOPS.iter().enumerate() {
                let corners = placed.face(face).corners();
                for (k, &corner) in face_loop.iter().enumerate() {
                    let expected = Vec3::from(rotation * Vec3A::from(box_corner(half, corner)) + centre);
                    assert_close(corners[k], expected, 1e-5, &format!("face {face} corner {k}"));
                }
            }
        }
    }

    #[test]
    fn axis_separations_match_the_support_functions() {
        // Face axes: A's e_i and B's −b_j; edge axes: e_i × b_j turned towards B's centre;
        // each against min_B n·y − max_A n·x from the corners (1e-5 m, boxes within 5 m).
        let mut rng = Lcg(0xA815);
        for case in 0..500 {
            let half_a = Vec3::new(rng.range(0.1, 1.0), rng.range(0.1, 1.0), rng.range(0.1, 1.0));
            let half_b = Vec3::new(rng.range(0.1, 1.0), rng.range(0.1, 1.0), rng.range(0.1, 1.0));
            let pose_a = Pose::new(rng.vec3() * 2.0, rng.rotation());
            let pose_b = Pose::new(rng.vec3() * 2.0, rng.rotation());
            let (a, b) = (world(half_a, &pose_a), world(half_b, &pose_b));
            let pair = BoxPair::new(half_a, &pose_a, half_b, &pose_b);
            let (faces_a, faces_b, edges) =
                (pair.face_a_separations(), pair.face_b_separations(), pair.edge_separations());
            let towards_b = pose_b.position - pose_a.position;
            let oriented = |n: Vec3| if n.dot(towards_b) < 0.0 { -n } else { n };
            for i in 0..3 {
                let axis_a = pose_a.rotation * Vec3::from(unit_axis(i));
                let axis_b = pose_b.rotation * Vec3::from(unit_axis(i));
                let expected_a = support_separation(&a, &b, oriented(axis_a));
                let expected_b = support_separation(&a, &b, oriented(axis_b));
                assert!((faces_a[i] - expected_a).abs() < 1e-5, "case {case} face A{i}");
                assert!((faces_b[i] - expected_b).abs() < 1e-5, "case {case} face B{i}");
                for (j, &separation) in edges[i].to_array().iter().enumerate() {
                    let u = axis_a.cross(pose_b.rotation * Vec3::from(unit_axis(j)));
                    if u.length() < 0.01 {
                        continue; // near PARALLEL_SINE the axis is skipped (−∞) by design
                    }
                    let expected = support_separation(&a, &b, oriented(u.normalize()));
                    assert!(
                        (separation - expected).abs() < 1e-5,
                        "case {case} edge {i}{j}: {separation} vs {expected}"
                    );
                }
            }
        }
    }
}
