//! Convex hull against convex hull (and box against hull): separating-axis test over face
//! normals and edge pairs (Gauss-map pruned), then face clipping or an edge-edge point.
//!
//! The queries live in `sat.rs` and work on a borrowed [`Polyhedron`]; a box becomes one on
//! the stack ([`BoxPolyhedron`]), so box/hull pairs take the same path without allocating.
//! Steps, all in A's frame:
//! 1. face axes of A: `s_f = n_f·support_B(−n_f) − d_f`; then face axes of B likewise;
//! 2. edge pairs whose Gauss-map arcs cross: `s = n·(q − p)`, `n ∝ E × F`;
//! 3. any `s > margin` ends the query (no contact) and is cached for the next step;
//! 4. otherwise the largest `s` picks the contact, A's faces preferred over B's and faces
//!    over edges within `sat::clearly_greater`'s margin. Face contact: the incident face is
//!    the other hull's face most anti-parallel to the reference normal, then `clip_faces`.
//!    Edge contact (also when the face clipping leaves nothing): one point midway between
//!    the closest points of the two edges.

use super::clip::{clip_faces, feature_id};
use super::sat::{
    choose_contact_kind, closest_points_on_segments, edge_axis, edge_pair_base, face_a_separation, face_b_separation,
    face_pair_base, manifold_to_world, query_edges, query_faces_a, query_faces_b, separation_along, BoxPolyhedron,
    ContactKind, EdgeQuery, Polyhedron, RelativeFrame, CACHE_EDGES, CACHE_FACE_A, CACHE_FACE_B,
};
use super::PairCache;
use crate::collision::manifold::Manifold;
use crate::math::{Pose, Vec3};
use crate::shape::hull::MAX_FACE_VERTICES;
use crate::shape::{ConvexHull, Cuboid};

/// Contact manifold between two hulls (normal from A to B). Empty when further apart than
/// `margin`.
///
/// - `margin`: speculative distance (metres); points are made for separations up to it;
/// - `cache`: remembers the last separating face or edge pair; when it still separates by
///   more than `margin` the query ends after that one test;
/// - `out`: receives up to 4 points, positions midway between the surfaces, separations
///   negative when penetrating, feature ids stable while the same features touch.
///
/// Hulls without faces or vertices give an empty manifold. The hulls must keep the layout
/// `shape::hull` documents (as its constructors build it): indices in range, twins paired.
pub fn collide_hulls(
    hull_a: &ConvexHull,
    pose_a: &Pose,
    hull_b: &ConvexHull,
    pose_b: &Pose,
    margin: f32,
    cache: &mut PairCache,
    out: &mut Manifold,
) {
    let a = Polyhedron::of_hull(hull_a);
    let b = Polyhedron::of_hull(hull_b);
    collide_polyhedra(&a, pose_a, &b, pose_b, margin, cache, out);
}

/// Contact manifold between a box (A) and a hull (B); same contract as [`collide_hulls`].
pub fn collide_box_hull(
    box_a: &Cuboid,
    pose_a: &Pose,
    hull_b: &ConvexHull,
    pose_b: &Pose,
    margin: f32,
    cache: &mut PairCache,
    out: &mut Manifold,
) {
    let boxed = BoxPolyhedron::new(box_a.half_extents);
    let b = Polyhedron::of_hull(hull_b);
    collide_polyhedra(&boxed.view(), pose_a, &b, pose_b, margin, cache, out);
}

/// The SAT query and contact construction for two polyhedra (see the module docs).
pub fn collide_polyhedra(
    a: &Polyhedron,
    pose_a: &Pose,
    b: &Polyhedron,
    pose_b: &Pose,
    margin: f32,
    cache: &mut PairCache,
    out: &mut Manifold,
) {
    out.clear();
    if !a.is_usable() || !b.is_usable() {
        return;
    }
    let b_in_a = RelativeFrame::b_in_a(pose_a, pose_b);
    if cached_axis_separation(a, b, &b_in_a, cache) > margin {
        return;
    }
    let faces_a = query_faces_a(a, b, &b_in_a, margin);
    if faces_a.separation > margin {
        *cache = separating_feature(CACHE_FACE_A, faces_a.face, 0);
        return;
    }
    let faces_b = query_faces_b(a, b, &b_in_a, margin);
    if faces_b.separation > margin {
        *cache = separating_feature(CACHE_FACE_B, 0, faces_b.face);
        return;
    }
    let edges = query_edges(a, b, &b_in_a, margin);
    if edges.separation > margin {
        *cache = separating_feature(CACHE_EDGES, edges.edge_a, edges.edge_b);
        return;
    }
    *cache = PairCache::default();
    let reference = match choose_contact_kind(faces_a.separation, faces_b.separation, edges.separation) {
        ContactKind::FaceA => Some((faces_a.face, true)),
        ContactKind::FaceB => Some((faces_b.face, false)),
        ContactKind::Edges => None,
    };
    if let Some((face, reference_is_a)) = reference {
        face_contact(a, b, &b_in_a, face, reference_is_a, margin, out);
    }
    // A face kept over a slightly better edge axis can clip to nothing in deep overlaps;
    // the edge pair then still gives a point.
    if out.is_empty() && edges.separation.is_finite() {
        edge_contact(a, b, &b_in_a, &edges, out);
    }
    manifold_to_world(pose_a, out);
}

fn separating_feature(kind: u8, index_a: usize, index_b: usize) -> PairCache {
    PairCache { feature_kind: kind, index_a: index_a as u16, index_b: index_b as u16 }
}

/// Separation along the axis the cache remembers (`−∞` when it holds none or a stale index).
fn cached_axis_separation(a: &Polyhedron, b: &Polyhedron, b_in_a: &RelativeFrame, cache: &PairCache) -> f32 {
    let (i, j) = (cache.index_a as usize, cache.index_b as usize);
    match cache.feature_kind {
        CACHE_FACE_A if i < a.faces.len() => face_a_separation(a, b, b_in_a, i),
        CACHE_FACE_B if j < b.faces.len() => face_b_separation(a, b, b_in_a, j),
        CACHE_EDGES if i < a.edges.len() && j < b.edges.len() => {
            // The pair may no longer form a Minkowski face: measure with the supports.
            let (start_a, end_a) = a.edge_endpoints(i);
            let (start_b, end_b) = b.edge_endpoints(j);
            let (left, right) = a.edge_face_normals(i);
            let direction_b = b_in_a.vector(end_b - start_b);
            match edge_axis(end_a - start_a, direction_b, left + right) {
                Some(axis) => separation_along(a, b, b_in_a, axis),
                None => f32::NEG_INFINITY,
            }
        }
        _ => f32::NEG_INFINITY,
    }
}

/// Face contact: reference face `face` of A (`reference_is_a`) or B, incident face of the
/// other polyhedron most anti-parallel to it, both polygons in A's frame.
fn face_contact(
    a: &Polyhedron,
    b: &Polyhedron,
    b_in_a: &RelativeFrame,
    face: usize,
    reference_is_a: bool,
    margin: f32,
    out: &mut Manifold,
) {
    let identity = RelativeFrame::IDENTITY;
    let (reference, incident, reference_frame, incident_frame) =
        if reference_is_a { (a, b, &identity, b_in_a) } else { (b, a, b_in_a, &identity) };
    let reference_normal = reference_frame.vector(reference.planes[face].normal);
    let incident_face = incident.most_antiparallel_face(incident_frame.inverse_vector(reference_normal));
    let mut reference_polygon = [Vec3::ZERO; MAX_FACE_VERTICES];
    let mut incident_polygon = [Vec3::ZERO; MAX_FACE_VERTICES];
    let reference_len = reference.face_polygon(face, reference_frame, &mut reference_polygon);
    let incident_len = incident.face_polygon(incident_face, incident_frame, &mut incident_polygon);
    clip_faces(
        &reference_polygon[..reference_len],
        reference_normal,
        &incident_polygon[..incident_len],
        margin,
        reference_is_a,
        face_pair_base(reference_is_a, face, incident_face),
        out,
    );
}

/// Edge contact: one point midway between the closest points of the two edges, with the SAT
/// separation.
fn edge_contact(a: &Polyhedron, b: &Polyhedron, b_in_a: &RelativeFrame, edges: &EdgeQuery, out: &mut Manifold) {
    let (start_a, end_a) = a.edge_endpoints(edges.edge_a);
    let (start_b, end_b) = b.edge_endpoints(edges.edge_b);
    let (on_a, on_b) = closest_points_on_segments(start_a, end_a, b_in_a.point(start_b), b_in_a.point(end_b));
    out.normal = edges.normal;
    let id_base = edge_pair_base(edges.edge_a / 2, edges.edge_b / 2);
    out.push(0.5 * (on_a + on_b), edges.separation, feature_id(id_base, 0));
}

#[cfg(test)]
mod tests {
    use super::super::sat::test_util::{
        assert_close, assert_mirrored, brute_force_sat, check_manifold, Lcg, WorldPolytope,
    };
    use super::*;
    use crate::collision::narrow_phase::box_box::collide_boxes;
    use crate::math::Quat;
    use std::f32::consts::{FRAC_PI_2, PI};

    const MARGIN: f32 = 0.02;

    /// A hull from faces given in any winding: each loop is turned to run counter-clockwise
    /// seen from outside (its Newell normal pointing away from the vertex mean).
    fn hull_from_loops(vertices: Vec<Vec3>, loops: &[&[u16]]) -> ConvexHull {
        let mean = vertices.iter().copied().sum::<Vec3>() / vertices.len() as f32;
        let oriented: Vec<Vec<u16>> = loops
            .iter()
            .map(|face| {
                let mut normal = Vec3::ZERO;
                let mut centre = Vec3::ZERO;
                for k in 0..face.len() {
                    let a = vertices[face[k] as usize];
                    normal += a.cross(vertices[face[(k + 1) % face.len()] as usize]);
                    centre += a / face.len() as f32;
                }
                let mut face = face.to_vec();
                if normal.dot(centre - mean) < 0.0 {
                    face.reverse();
                }
                face
            })
            .collect();
        match ConvexHull::from_face_loops(vertices, &oriented) {
            Ok(hull) => hull,
            Err(e) => panic!("test hull: {e}"),
        }
    }

    /// Tetrahedron with its apex at (0, −h, 0) and a horizontal triangle of circumradius `r`
    /// at y = h.
    fn tetrahedron(h: f32, r: f32) -> ConvexHull {
        let s = 3f32.sqrt() / 2.0;
        let vertices = vec![
            Vec3::new(0.0, -h, 0.0),
            Vec3::new(r, h, 0.0),
            Vec3::new(-0.5 * r, h, s * r),
            Vec3::new(-0.5 * r, h, -s * r),
        ];
        hull_from_loops(vertices, &[&[0, 1, 2], &[0, 2, 3], &[0, 3, 1], &[1, 2, 3]])
    }

    /// Tetrahedron on any four points in general position.
    fn tetrahedron_of(points: [Vec3; 4]) -> ConvexHull {
        hull_from_loops(points.to_vec(), &[&[0, 1, 2], &[0, 2, 3], &[0, 3, 1], &[1, 2, 3]])
    }

    /// Triangular prism: triangle `triangle` swept by `sweep` (faces: 2 triangles, 3 quads).
    fn prism(triangle: [Vec3; 3], sweep: Vec3) -> ConvexHull {
        let mut vertices = triangle.to_vec();
        vertices.extend(triangle.iter().map(|&v| v + sweep));
        hull_from_loops(vertices, &[&[0, 1, 2], &[3, 4, 5], &[0, 1, 4, 3], &[1, 2, 5, 4], &[2, 0, 3, 5]])
    }

    /// Prism along x (length 2·l) whose cross-section has its lowest edge at y = −h, z = 0 and
    /// its top at y = h, z = ±w.
    fn edge_down_prism(l: f32, h: f32, w: f32) -> ConvexHull {
        let triangle = [Vec3::new(-l, -h, 0.0), Vec3::new(-l, h, w), Vec3::new(-l, h, -w)];
        prism(triangle, Vec3::new(2.0 * l, 0.0, 0.0))
    }

    fn hulls(a: &ConvexHull, pose_a: &Pose, b: &ConvexHull, pose_b: &Pose) -> Manifold {
        let mut m = Manifold::new();
        collide_hulls(a, pose_a, b, pose_b, MARGIN, &mut PairCache::default(), &mut m);
        m
    }

    fn box_hull(half: Vec3, pose_a: &Pose, b: &ConvexHull, pose_b: &Pose) -> Manifold {
        let mut m = Manifold::new();
        let cuboid = Cuboid { half_extents: half };
        collide_box_hull(&cuboid, pose_a, b, pose_b, MARGIN, &mut PairCache::default(), &mut m);
        m
    }

    fn boxes(half_a: Vec3, pose_a: &Pose, half_b: Vec3, pose_b: &Pose) -> Manifold {
        let mut m = Manifold::new();
        let (a, b) = (Cuboid { half_extents: half_a }, Cuboid { half_extents: half_b });
        collide_boxes(&a, pose_a, &b, pose_b, MARGIN, &mut PairCache::default(), &mut m);
        m
    }

    fn world(hull: &ConvexHull, pose: &Pose) -> WorldPolytope {
        WorldPolytope::new(&Polyhedron::of_hull(hull), pose)
    }

    #[test]
    fn tetrahedron_apex_into_a_box_face_gives_one_point() {
        // Apex at y = 0.5 − depth under the tetrahedron's centre; the other vertices are 1.0
        // higher. Box/hull and hull/hull (cuboid hull) must agree.
        let depth = 0.015;
        let half = Vec3::new(2.0, 0.5, 2.0);
        let tetra = tetrahedron(0.5, 0.6);
        let pose_b = Pose::from_position(Vec3::new(0.3, 1.0 - depth, -0.2));
        let expected = Vec3::new(0.3, 0.5 - 0.5 * depth, -0.2);
        let cuboid = ConvexHull::cuboid(half);
        for m in [box_hull(half, &Pose::IDENTITY, &tetra, &pose_b), hulls(&cuboid, &Pose::IDENTITY, &tetra, &pose_b)] {
            assert_eq!(m.count, 1);
            assert_close(m.normal, Vec3::Y, 1e-5, "normal");
            assert!((m.points[0].separation + depth).abs() < 1e-5);
            assert_close(m.points[0].position, expected, 1e-5, "point");
            check_manifold(&m, &world(&cuboid, &Pose::IDENTITY), &world(&tetra, &pose_b), "tetra");
        }
    }

    #[test]
    fn prism_edge_on_a_box_face_gives_its_two_ends() {
        // Lowest edge along x from x0 − 0.6 to x0 + 0.6 at y = 0.5 − depth.
        let depth = 0.01;
        let half = Vec3::new(2.0, 0.5, 2.0);
        let wedge = edge_down_prism(0.6, 0.3, 0.4);
        let pose_b = Pose::from_position(Vec3::new(0.2, 0.8 - depth, 0.1));
        let m = box_hull(half, &Pose::IDENTITY, &wedge, &pose_b);
        assert_eq!(m.count, 2);
        assert_close(m.normal, Vec3::Y, 1e-5, "normal");
        let mut xs: Vec<f32> = m.points().iter().map(|p| p.position.x).collect();
        xs.sort_by(f32::total_cmp);
        assert!((xs[0] + 0.4).abs() < 1e-5 && (xs[1] - 0.8).abs() < 1e-5, "ends at {xs:?}");
        for p in m.points() {
            assert!((p.separation + depth).abs() < 1e-5);
            assert!((p.position.y - (0.5 - 0.5 * depth)).abs() < 1e-5);
            assert!((p.position.z - 0.1).abs() < 1e-5);
        }
        let a = world(&ConvexHull::cuboid(half), &Pose::IDENTITY);
        check_manifold(&m, &a, &world(&wedge, &pose_b), "prism");
        // A 1 mm shift keeps the ids.
        let moved = Pose::from_position(pose_b.position + Vec3::new(0.001, 0.0, -0.001));
        let again = box_hull(half, &Pose::IDENTITY, &wedge, &moved);
        assert_eq!(again.count, 2);
        for (p, q) in m.points().iter().zip(again.points()) {
            assert_eq!(p.id, q.id);
        }
        assert_ne!(m.points[0].id, m.points[1].id);
    }

    #[test]
    fn crossed_prism_edges_give_one_point() {
        // A: ridge along x at y = 0.3 (the edge-down prism turned over). B: edge-down prism
        // turned to run along z, its lowest edge at x = 0.1, y = 0.3 − depth. Closest points
        // (0.1, 0.3, 0) and (0.1, 0.3 − depth, 0).
        let depth = 0.02;
        let wedge = edge_down_prism(0.6, 0.3, 0.4);
        let pose_a = Pose::new(Vec3::ZERO, Quat::from_rotation_z(PI));
        let pose_b = Pose::new(Vec3::new(0.1, 0.6 - depth, 0.15), Quat::from_rotation_y(FRAC_PI_2));
        let m = hulls(&wedge, &pose_a, &wedge, &pose_b);
        assert_eq!(m.count, 1);
        assert_close(m.normal, Vec3::Y, 1e-5, "normal");
        assert!((m.points[0].separation + depth).abs() < 1e-5);
        assert_close(m.points[0].position, Vec3::new(0.1, 0.3 - 0.5 * depth, 0.0), 1e-5, "point");
        check_manifold(&m, &world(&wedge, &pose_a), &world(&wedge, &pose_b), "crossed");
        // Swapped: flipped normal, same point and depth.
        let swapped = hulls(&wedge, &pose_b, &wedge, &pose_a);
        assert_eq!(swapped.count, 1);
        assert_close(swapped.normal, -Vec3::Y, 1e-5, "swapped normal");
        assert_close(swapped.points[0].position, m.points[0].position, 1e-5, "swapped point");
        assert!((swapped.points[0].separation - m.points[0].separation).abs() < 1e-5);
    }

    #[test]
    fn speculative_points_stop_at_the_margin() {
        let half = Vec3::splat(1.0);
        let wedge = edge_down_prism(0.6, 0.3, 0.4);
        let at_gap = |gap: f32| Pose::from_position(Vec3::new(0.0, 1.3 + gap, 0.0));
        let below = box_hull(half, &Pose::IDENTITY, &wedge, &at_gap(MARGIN - 1e-4));
        assert_eq!(below.count, 2);
        for p in below.points() {
            assert!((p.separation - (MARGIN - 1e-4)).abs() < 1e-5);
        }
        assert_eq!(box_hull(half, &Pose::IDENTITY, &wedge, &at_gap(MARGIN + 1e-4)).count, 0);
    }

    #[test]
    fn swapping_the_hulls_flips_the_normal_and_keeps_the_points() {
        let cuboid = ConvexHull::cuboid(Vec3::new(2.0, 0.5, 2.0));
        let tetra = tetrahedron(0.5, 0.6);
        let wedge = edge_down_prism(0.6, 0.3, 0.4);
        let tilted = Quat::from_axis_angle(Vec3::new(1.0, 0.0, 1.0).normalize(), 0.2);
        let cases = [
            (&cuboid, &tetra, Pose::from_position(Vec3::new(0.3, 0.98, -0.2))),
            (&cuboid, &wedge, Pose::new(Vec3::new(0.2, 0.79, 0.1), tilted)),
            (&tetra, &wedge, Pose::new(Vec3::new(0.05, -0.75, 0.01), Quat::from_rotation_z(PI))),
        ];
        for (a, b, pose_b) in cases {
            let ab = hulls(a, &Pose::IDENTITY, b, &pose_b);
            let ba = hulls(b, &pose_b, a, &Pose::IDENTITY);
            assert_mirrored(&ab, &ba);
        }
    }

    #[test]
    fn stale_cached_axis_does_not_hide_a_contact() {
        let wedge = edge_down_prism(0.6, 0.3, 0.4);
        let pose_a = Pose::new(Vec3::ZERO, Quat::from_rotation_z(PI));
        let rotation = Quat::from_rotation_y(1.1);
        let mut cache = PairCache::default();
        let mut m = Manifold::new();
        let far = Pose::new(Vec3::new(0.1, 0.7, 0.15), rotation);
        collide_hulls(&wedge, &pose_a, &wedge, &far, MARGIN, &mut cache, &mut m);
        assert_eq!(m.count, 0);
        assert_ne!(cache.feature_kind, 0);
        let near = Pose::new(Vec3::new(0.1, 0.59, 0.15), rotation);
        collide_hulls(&wedge, &pose_a, &wedge, &near, MARGIN, &mut cache, &mut m);
        assert_eq!(m.count, 1);
        assert_eq!(m, hulls(&wedge, &pose_a, &wedge, &near));
    }

    #[test]
    fn empty_hull_gives_no_contact() {
        let empty = ConvexHull {
            vertices: Vec::new(),
            edges: Vec::new(),
            faces: Vec::new(),
            planes: Vec::new(),
            local_aabb: crate::geometry::Aabb::EMPTY,
            centroid: Vec3::ZERO,
            vertex_edges: Vec::new(),
        };
        let cube = ConvexHull::cuboid(Vec3::ONE);
        assert_eq!(hulls(&empty, &Pose::IDENTITY, &cube, &Pose::IDENTITY).count, 0);
        assert_eq!(hulls(&cube, &Pose::IDENTITY, &empty, &Pose::IDENTITY).count, 0);
    }

    #[test]
    fn cuboid_hulls_match_box_box() {
        let mut rng = Lcg(0xB0C5_4411);
        let mut touching = 0;
        for case in 0..1500 {
            let half_a = Vec3::new(rng.range(0.1, 1.0), rng.range(0.1, 1.0), rng.range(0.1, 1.0));
            let half_b = Vec3::new(rng.range(0.1, 1.0), rng.range(0.1, 1.0), rng.range(0.1, 1.0));
            let pose_a = Pose::new(rng.vec3() * 5.0, rng.rotation());
            let reach = (half_a.length() + half_b.length()) * 0.8;
            let pose_b = Pose::new(pose_a.position + rng.vec3() * reach, rng.rotation());
            let (hull_a, hull_b) = (ConvexHull::cuboid(half_a), ConvexHull::cuboid(half_b));
            let reference = boxes(half_a, &pose_a, half_b, &pose_b);
            let results = [hulls(&hull_a, &pose_a, &hull_b, &pose_b), box_hull(half_a, &pose_a, &hull_b, &pose_b)];
            for m in results {
                assert_eq!(m.count, reference.count, "case {case}");
                if m.count == 0 {
                    continue;
                }
                touching += 1;
                assert!((m.normal - reference.normal).length() < 1e-3, "case {case}: normal");
                let (s, r) = (m.min_separation(), reference.min_separation());
                assert!((s - r).abs() < 1e-4, "case {case}: separation {s} vs {r}");
            }
        }
        assert!(touching > 1000, "only {touching} touching results");
    }

    /// Random convex shapes: a tetrahedron on 4 random points, a prism on a random triangle
    /// and sweep, or a cuboid hull; all about the size of 1 m.
    fn random_hull(rng: &mut Lcg) -> ConvexHull {
        match (rng.next_f32() * 3.0) as u32 {
            0 => loop {
                let points = [rng.vec3(), rng.vec3(), rng.vec3(), rng.vec3()];
                let volume = (points[1] - points[0]).cross(points[2] - points[0]).dot(points[3] - points[0]);
                if volume.abs() > 0.3 {
                    return tetrahedron_of(points);
                }
            },
            1 => loop {
                let triangle = [rng.vec3(), rng.vec3(), rng.vec3()];
                let sweep = rng.vec3();
                let normal = (triangle[1] - triangle[0]).cross(triangle[2] - triangle[0]);
                if normal.dot(sweep).abs() > 0.3 {
                    return prism(triangle, sweep);
                }
            },
            _ => ConvexHull::cuboid(Vec3::new(rng.range(0.1, 0.8), rng.range(0.1, 0.8), rng.range(0.1, 0.8))),
        }
    }

    #[test]
    fn random_hull_pairs_match_brute_force() {
        let mut rng = Lcg(0x4417_0001);
        let (mut penetrating, mut exact) = (0, 0);
        for case in 0..1500 {
            let (a, b) = (random_hull(&mut rng), random_hull(&mut rng));
            let pose_a = Pose::new(rng.vec3() * 3.0, rng.rotation());
            let pose_b = Pose::new(pose_a.position + rng.vec3() * 1.2, rng.rotation());
            let m = hulls(&a, &pose_a, &b, &pose_b);
            let (wa, wb) = (world(&a, &pose_a), world(&b, &pose_b));
            let best = brute_force_sat(&wa, &wb);
            if best > MARGIN + 1e-4 {
                assert_eq!(m.count, 0, "case {case}: separated by {best}");
                continue;
            }
            let exact_along_normal = m.count > 0 && check_manifold(&m, &wa, &wb, &format!("case {case}"));
            if best < -1e-4 {
                penetrating += 1;
                assert!(m.count > 0, "case {case}: penetrating by {best} but no points");
                exact += usize::from(exact_along_normal);
            }
        }
        assert!(penetrating > 500, "only {penetrating} penetrating cases");
        assert!(exact > 9 * penetrating / 10, "only {exact} exact cases");
    }
}
