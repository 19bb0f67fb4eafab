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
//!    Edge contact: one point midway between the closest points of the two edges.

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
/// Hulls without faces or vertices give an empty manifold.
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
    match reference {
        Some((face, reference_is_a)) => {
            face_contact(a, b, &b_in_a, face, reference_is_a, margin, out);
        }
        None => edge_contact(a, b, &b_in_a, &edges, out),
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
