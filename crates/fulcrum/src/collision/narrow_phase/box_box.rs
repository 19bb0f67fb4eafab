//! Box against box: separating-axis test over the 15 candidate axes, then face clipping
//! (face contact) or the closest points of two edges (edge contact).
//!
//! Everything runs in A's frame. `R` is B's rotation relative to A (columns `b_j`, B's axes),
//! `t` B's centre, `h_A`, `h_B` the half extents. A box reaches `Σ_k h_k |n·axis_k|` from its
//! centre along a unit `n`, so the separations (see `sat.rs`) are:
//!
//! ```text
//! face e_i of A:            s = |t_i|   − h_A,i − Σ_j |R_ij| h_B,j
//! face b_j of B:            s = |t·b_j| − h_B,j − Σ_i |R_ij| h_A,i
//! edges, u = e_i × b_j:     s = (|t·u| − Σ_k h_A,k |u_k| − Σ_k h_B,k |u·b_k|) / |u|
//! ```
//!
//! Edge pairs with `|u| = sin∠(e_i, b_j) < PARALLEL_SINE` are skipped. For boxes every edge axis
//! is a face of the Minkowski difference (a box's support along any direction perpendicular
//! to an edge contains an edge parallel to it), so no Gauss-map test is needed.
//!
//! The largest separation picks the contact (A's faces preferred over B's, faces over edges,
//! within `sat::clearly_greater`'s margin). Face contact: the reference face's normal points
//! at the other box, the incident face is the other box's face most anti-parallel to it, and
//! `clip_faces` makes the points. Edge contact (also when the face clipping leaves nothing, as
//! can happen in deep overlaps where a face was kept over a slightly better edge axis): one
//! point midway between the closest points of the two support edges.

use super::clip::{clip_faces, feature_id};
use super::sat::{
    box_corner, choose_contact_kind, closest_points_on_segments, edge_pair_base, face_pair_base, manifold_to_world,
    ContactKind, RelativeFrame, BOX_FACE_LOOPS, CACHE_EDGES, CACHE_FACE_A, CACHE_FACE_B, PARALLEL_SINE,
};
use super::PairCache;
use crate::collision::manifold::Manifold;
use crate::math::{Mat3, Pose, Vec3};
use crate::shape::Cuboid;

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
    if pair.cached_axis_separation(cache) > margin {
        return;
    }
    let (face_a, separation_a) = max_component(pair.face_a_separations());
    if separation_a > margin {
        *cache = separating_axis(CACHE_FACE_A, face_a, 0);
        return;
    }
    let (face_b, separation_b) = max_component(pair.face_b_separations());
    if separation_b > margin {
        *cache = separating_axis(CACHE_FACE_B, 0, face_b);
        return;
    }
    let edges = pair.best_edge_pair(margin);
    if edges.separation > margin {
        *cache = separating_axis(CACHE_EDGES, edges.axis_a, edges.axis_b);
        return;
    }
    *cache = PairCache::default();
    match choose_contact_kind(separation_a, separation_b, edges.separation) {
        ContactKind::FaceA => pair.face_contact_on_a(face_a, margin, out),
        ContactKind::FaceB => pair.face_contact_on_b(face_b, margin, out),
        ContactKind::Edges => {}
    }
    // Edge contact, also when a face kept over a slightly better edge axis clipped to
    // nothing (possible in deep overlaps).
    if out.is_empty() && edges.separation.is_finite() {
        pair.edge_contact(&edges, out);
    }
    manifold_to_world(pose_a, out);
}

fn separating_axis(kind: u8, index_a: usize, index_b: usize) -> PairCache {
    PairCache { feature_kind: kind, index_a: index_a as u16, index_b: index_b as u16 }
}

/// Index and value of the largest component (ties go to the lower index).
#[inline]
fn max_component(v: Vec3) -> (usize, f32) {
    let mut best = (0, v.x);
    if v.y > best.1 {
        best = (1, v.y);
    }
    if v.z > best.1 {
        best = (2, v.z);
    }
    best
}

/// `Rᵀ v` for a rotation given by its columns.
#[inline]
fn transpose_mul(m: &Mat3, v: Vec3) -> Vec3 {
    Vec3::new(m.x_axis.dot(v), m.y_axis.dot(v), m.z_axis.dot(v))
}

/// Unit vector along local axis `i`.
#[inline]
fn unit_axis(i: usize) -> Vec3 {
    let mut e = Vec3::ZERO;
    e[i] = 1.0;
    e
}

/// The best edge-edge axis `e_axis_a × b_axis_b` and its separation (metres).
struct BoxEdgeQuery {
    separation: f32,
    axis_a: usize,
    axis_b: usize,
}

/// The two boxes in A's frame.
struct BoxPair {
    frame: RelativeFrame,
    abs_rotation: Mat3,
    /// Entries of `R` column by column: `rotation_entries[3·j + i] = R_ij`.
    rotation_entries: [f32; 9],
    half_a: Vec3,
    half_b: Vec3,
}

impl BoxPair {
    fn new(half_a: Vec3, pose_a: &Pose, half_b: Vec3, pose_b: &Pose) -> Self {
        let frame = RelativeFrame::b_in_a(pose_a, pose_b);
        let r = &frame.rotation;
        let abs_rotation = Mat3::from_cols(r.x_axis.abs(), r.y_axis.abs(), r.z_axis.abs());
        Self { frame, abs_rotation, rotation_entries: r.to_cols_array(), half_a, half_b }
    }

    /// Separations along A's three face axes: `|t| − h_A − |R| h_B`.
    #[inline]
    fn face_a_separations(&self) -> Vec3 {
        self.frame.translation.abs() - self.half_a - self.abs_rotation * self.half_b
    }

    /// Separations along B's three face axes: `|Rᵀ t| − h_B − |R|ᵀ h_A`.
    #[inline]
    fn face_b_separations(&self) -> Vec3 {
        let centre_in_b = transpose_mul(&self.frame.rotation, self.frame.translation);
        centre_in_b.abs() - self.half_b - transpose_mul(&self.abs_rotation, self.half_a)
    }

    /// Separation along `e_i × b_j` (`−∞` when the edges are nearly parallel), from the
    /// entries of `R` (module docs), with `(i1, i2)` and `(j1, j2)` the axes after `i` and `j`
    /// in cyclic order:
    ///
    /// ```text
    /// u = e_i × b_j = R_{i1 j} e_{i2} − R_{i2 j} e_{i1}      |u|² = R_{i1 j}² + R_{i2 j}²
    /// t·u = t_{i2} R_{i1 j} − t_{i1} R_{i2 j}
    /// Σ_k h_A,k |u_k|   = h_A,i1 |R_{i2 j}| + h_A,i2 |R_{i1 j}|
    /// Σ_k h_B,k |u·b_k| = h_B,j1 |R_{i j2}| + h_B,j2 |R_{i j1}|   (u·b_k = e_i·(b_j × b_k))
    /// ```
    #[inline]
    fn edge_separation(&self, i: usize, j: usize) -> f32 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
        let r = |row: usize, col: usize| self.rotation_entries[3 * col + row];
        let abs_r = |row: usize, col: usize| r(row, col).abs();
        let length_squared = r(i1, j) * r(i1, j) + r(i2, j) * r(i2, j);
        if length_squared <= PARALLEL_SINE * PARALLEL_SINE {
            return f32::NEG_INFINITY;
        }
        let t = self.frame.translation;
        let distance = (t[i2] * r(i1, j) - t[i1] * r(i2, j)).abs();
        let reach_a = self.half_a[i1] * abs_r(i2, j) + self.half_a[i2] * abs_r(i1, j);
        let reach_b = self.half_b[j1] * abs_r(i, j2) + self.half_b[j2] * abs_r(i, j1);
        (distance - reach_a - reach_b) / length_squared.sqrt()
    }

    /// Best of the nine edge axes; returns early with the first separating beyond `margin`.
    fn best_edge_pair(&self, margin: f32) -> BoxEdgeQuery {
        let mut best = BoxEdgeQuery { separation: f32::NEG_INFINITY, axis_a: 0, axis_b: 0 };
        for axis_a in 0..3 {
            for axis_b in 0..3 {
                let separation = self.edge_separation(axis_a, axis_b);
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
            CACHE_EDGES => self.edge_separation(i, j),
            _ => f32::NEG_INFINITY,
        }
    }

    /// Face contact with A's face on `axis` (the side facing B) as reference. The incident
    /// face of B has the outward normal `−sign(n·b_j) b_j` with the largest `|n·b_j|`.
    fn face_contact_on_a(&self, axis: usize, margin: f32, out: &mut Manifold) {
        let positive = self.frame.translation[axis] >= 0.0;
        let reference_normal = unit_axis(axis) * if positive { 1.0 } else { -1.0 };
        let reference_face = 2 * axis + usize::from(positive);
        let along_b = transpose_mul(&self.frame.rotation, reference_normal);
        let (axis_b, _) = max_component(along_b.abs());
        let incident_face = 2 * axis_b + usize::from(along_b[axis_b] < 0.0);
        let reference = box_face(self.half_a, reference_face);
        let incident = box_face(self.half_b, incident_face).map(|p| self.frame.point(p));
        let id_base = face_pair_base(true, reference_face, incident_face);
        clip_faces(&reference, reference_normal, &incident, margin, true, id_base, out);
    }

    /// Face contact with B's face on `axis` (the side facing A) as reference.
    fn face_contact_on_b(&self, axis: usize, margin: f32, out: &mut Manifold) {
        let b_axis = self.frame.rotation.col(axis);
        let positive = self.frame.translation.dot(b_axis) < 0.0;
        let reference_normal = if positive { b_axis } else { -b_axis };
        let reference_face = 2 * axis + usize::from(positive);
        let (axis_a, _) = max_component(reference_normal.abs());
        let incident_face = 2 * axis_a + usize::from(reference_normal[axis_a] < 0.0);
        let reference = box_face(self.half_b, reference_face).map(|p| self.frame.point(p));
        let incident = box_face(self.half_a, incident_face);
        let id_base = face_pair_base(false, reference_face, incident_face);
        clip_faces(&reference, reference_normal, &incident, margin, false, id_base, out);
    }

    /// Edge contact: A's edge parallel to `e_i` through its support corner along `n`, B's
    /// edge parallel to `b_j` through its support corner along `−n`; one point midway between
    /// their closest points, with the SAT separation.
    fn edge_contact(&self, edges: &BoxEdgeQuery, out: &mut Manifold) {
        let (i, j) = (edges.axis_a, edges.axis_b);
        let b_axis = self.frame.rotation.col(j);
        let u = unit_axis(i).cross(b_axis).normalize();
        let normal = if u.dot(self.frame.translation) < 0.0 { -u } else { u };
        let mut centre_a = self.half_a.copysign(normal);
        centre_a[i] = 0.0;
        let extent_a = unit_axis(i) * self.half_a[i];
        let normal_in_b = transpose_mul(&self.frame.rotation, -normal);
        let mut centre_b = self.half_b.copysign(normal_in_b);
        centre_b[j] = 0.0;
        let centre_b = self.frame.point(centre_b);
        let extent_b = b_axis * self.half_b[j];
        let (on_a, on_b) = closest_points_on_segments(
            centre_a - extent_a,
            centre_a + extent_a,
            centre_b - extent_b,
            centre_b + extent_b,
        );
        out.normal = normal;
        let id_base = edge_pair_base(box_edge_index(i, normal), box_edge_index(j, normal_in_b));
        out.push(0.5 * (on_a + on_b), edges.separation, feature_id(id_base, 0));
    }
}

/// The 4 corners of box face `face` (see `sat::BOX_FACE_LOOPS`), in the box's frame.
#[inline]
fn box_face(half_extents: Vec3, face: usize) -> [Vec3; 4] {
    let corners = BOX_FACE_LOOPS[face];
    [
        box_corner(half_extents, corners[0]),
        box_corner(half_extents, corners[1]),
        box_corner(half_extents, corners[2]),
        box_corner(half_extents, corners[3]),
    ]
}

/// Index 0..12 of the box edge parallel to `axis` on the side of `direction`'s other two
/// components: `4·axis + [d_u ≥ 0] + 2·[d_v ≥ 0]`.
#[inline]
fn box_edge_index(axis: usize, direction: Vec3) -> usize {
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    4 * axis + usize::from(direction[u].is_sign_positive()) + 2 * usize::from(direction[v].is_sign_positive())
}

#[cfg(test)]
mod tests {
    use super::super::sat::test_util::{check_manifold, Lcg, WorldPolytope};
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

    fn assert_close(actual: Vec3, expected: Vec3, tolerance: f32, what: &str) {
        assert!((actual - expected).length() < tolerance, "{what}: {actual:?} vs {expected:?}");
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
            assert!(ab.count > 0);
            assert_eq!(ab.count, ba.count);
            assert_close(ba.normal, -ab.normal, 1e-5, "flipped normal");
            for p in ab.points() {
                let twin = ba.points().iter().find(|q| (q.position - p.position).length() < 1e-4);
                let twin = twin.unwrap_or_else(|| panic!("no swapped point at {:?}", p.position));
                assert!((twin.separation - p.separation).abs() < 1e-5);
            }
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
}
