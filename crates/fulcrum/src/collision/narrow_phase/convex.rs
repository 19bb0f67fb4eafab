//! General convex pair: GJK (or EPA when the cores overlap) finds the normal and the
//! separation; the supporting features of both shapes along that normal, clipped against
//! each other, give the manifold.
//!
//! Building the manifold from features `F_a` (of A along `n`) and `F_b` (of B along `-n`):
//! 1. a polygon whose outward normal is within `REFERENCE_COSINE` of the contact normal may
//!    serve as the reference face (the better aligned of the two wins);
//! 2. against a reference face, the other shape's supporting feature along the face's own
//!    normal is the incident one (not along the GJK/EPA normal, whose small error would pick
//!    a line beside the lowest on a curved surface); an incident polygon is clipped by
//!    `clip::clip_faces` and an incident segment by the face's side planes; each point's separation is its height above
//!    the reference plane, which is exact for points of the real incident surface;
//! 3. two nearly parallel segments (a capsule on a cylinder's side, two capsules) overlap
//!    over an interval whose ends are the two points;
//! 4. otherwise, or when the deepest clipped point disagrees with the GJK/EPA separation by
//!    more than `FEATURE_TOLERANCE` plus 5 % of the depth (the features did not describe the
//!    contact), one point: midway between the closest (or deepest) points GJK/EPA found.

use super::clip::{clip_faces, feature_id};
use super::epa::epa;
use super::gjk::{gjk_within, ConvexCore};
use super::pairs::closest_point_on_segment;
use super::support_face::{support_feature, SupportFeature};
use super::PairCache;
use crate::collision::manifold::Manifold;
use crate::math::{Pose, Vec3};
use crate::shape::Shape;

/// A polygon may be the reference face when `n_face·n >= REFERENCE_COSINE` (about 3 degrees).
pub const REFERENCE_COSINE: f32 = 0.9986;
/// Two segments are parallel enough for a two-point contact when the sine of their angle is
/// below this (about 3 degrees).
pub const PARALLEL_SINE: f32 = 0.05;
/// Largest disagreement (metres) between the deepest clipped point and the GJK/EPA
/// separation before the clipped manifold is replaced by a single point.
const FEATURE_TOLERANCE: f32 = 2.0e-3;
/// Local id of the single point made from the GJK/EPA witnesses.
const SINGLE_POINT_ID: u32 = 0xFFF;

/// How two convex shapes sit relative to each other.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Separation {
    /// Unit normal from A to B.
    pub normal: Vec3,
    /// Signed distance along the normal, metres (negative: penetration depth).
    pub separation: f32,
    /// Point of A's surface nearest to (or deepest in) B, world.
    pub point_a: Vec3,
    /// Point of B's surface nearest to (or deepest in) A, world.
    pub point_b: Vec3,
}

/// Separation of two cores with their radii: GJK when the cores are apart, EPA when they
/// overlap, and the direction between the centres if EPA finds no volume.
///
/// `direction_hint`: a guess of the normal (A to B), e.g. last step's; zero when unknown.
/// Beyond `max_distance` the separation is only known to exceed it (see [`gjk_within`]).
pub fn separation(a: &ConvexCore, b: &ConvexCore, direction_hint: Vec3, max_distance: f32) -> Separation {
    let origin = b.pose.position;
    let found = separation_near_origin(&a.shifted(-origin), &b.shifted(-origin), direction_hint, max_distance);
    Separation { point_a: found.point_a + origin, point_b: found.point_b + origin, ..found }
}

/// [`separation`] of cores that lie near the origin, where f32 keeps its precision.
fn separation_near_origin(a: &ConvexCore, b: &ConvexCore, direction_hint: Vec3, max_distance: f32) -> Separation {
    let result = gjk_within(a, b, direction_hint, max_distance);
    if !result.overlapping {
        return Separation {
            normal: result.normal,
            separation: result.distance,
            point_a: result.point_a,
            point_b: result.point_b,
        };
    }
    match epa(a, b, &result.simplex) {
        Some(p) if p.normal.is_finite() && p.depth.is_finite() => Separation {
            normal: p.normal,
            separation: -p.depth - a.radius - b.radius,
            point_a: p.point_a + a.radius * p.normal,
            point_b: p.point_b - b.radius * p.normal,
        },
        _ => separation_along_centres(a, b),
    }
}

/// The overlap of the support intervals along the line between the centres:
/// `(s_B(-n)·n - r_b) - (s_A(n)·n + r_a)`, a valid (if not minimal) separating-axis answer.
fn separation_along_centres(a: &ConvexCore, b: &ConvexCore) -> Separation {
    let normal = (b.center() - a.center()).normalize_or(Vec3::Y);
    let point_a = a.support(normal) + a.radius * normal;
    let point_b = b.support(-normal) - b.radius * normal;
    Separation { normal, separation: normal.dot(point_b - point_a), point_a, point_b }
}

/// Contact manifold of two convex shapes (any kinds but planes) by GJK/EPA and feature
/// clipping. Normal from A to B; empty when further apart than `margin` metres.
pub fn collide_convex(
    shape_a: &Shape,
    pose_a: &Pose,
    shape_b: &Shape,
    pose_b: &Pose,
    margin: f32,
    cache: &mut PairCache,
    out: &mut Manifold,
) {
    out.clear();
    let (Some(a), Some(b)) = (ConvexCore::from_shape(shape_a, pose_a), ConvexCore::from_shape(shape_b, pose_b)) else {
        return;
    };
    let found = separation(&a, &b, cache.direction(), margin);
    cache.set_direction(found.normal);
    manifold_from_separation(&a, &b, &found, margin, out);
}

/// The manifold once the separation is known: supporting features along the normal, then
/// [`manifold_from_features`]. Empty when `found.separation > margin`.
pub fn manifold_from_separation(a: &ConvexCore, b: &ConvexCore, found: &Separation, margin: f32, out: &mut Manifold) {
    out.clear();
    if found.separation > margin || found.separation.is_nan() {
        return;
    }
    let (mut feature_a, mut feature_b) = (SupportFeature::empty(), SupportFeature::empty());
    support_feature(a, found.normal, &mut feature_a);
    support_feature(b, -found.normal, &mut feature_b);
    // Only between unrounded cores: a rounded one keeps its cores apart by its radius, where
    // GJK's normal is accurate, and a sphere over a face's rim must keep its tilted normal.
    let unrounded = a.radius == 0.0 && b.radius == 0.0;
    let face_axis = (unrounded && reference_side(&feature_a, &feature_b, found.normal).is_none())
        .then(|| face_axis_as_good(a, b, &feature_a, &feature_b, found))
        .flatten();
    let found = &face_axis.unwrap_or(*found);
    if face_axis.is_some() {
        support_feature(a, found.normal, &mut feature_a);
        support_feature(b, -found.normal, &mut feature_b);
    }
    // Against a reference face the incident feature is the other shape's support along the
    // face's own normal, not along the GJK/EPA normal: on a curved incident surface (a
    // cylinder's side) the small error of EPA's normal would pick a line beside the lowest
    // one, and the normal impulse at that lever arm rolled a cylinder lying on a box.
    match reference_side(&feature_a, &feature_b, found.normal) {
        Some(true) => support_feature(b, -feature_a.normal, &mut feature_b),
        Some(false) => support_feature(a, -feature_b.normal, &mut feature_a),
        None => {}
    }
    manifold_from_features(&feature_a, &feature_b, found, margin, out);
}

/// The separation along a supporting face's own normal when it is as good an axis as the
/// GJK/EPA normal: within `FACE_AXIS_TOLERANCE` of its separation and `FACE_AXIS_COSINE` of
/// its direction. Along any axis m the separation, (s_B(−m) − r_B − s_A(m) − r_A)·m, is at
/// most the true one, so an axis that reaches it is a true contact normal. GJK's normal is
/// poor when the cores nearly touch (its direction comes from a vector of a few µm) and
/// EPA's is approximate on a curved surface; both were seen 3–17° off a box's face under a
/// cylinder lying on it, which then had no reference face and bounced on one point.
fn face_axis_as_good(
    a: &ConvexCore,
    b: &ConvexCore,
    feature_a: &SupportFeature,
    feature_b: &SupportFeature,
    found: &Separation,
) -> Option<Separation> {
    let candidates = [(feature_a, 1.0f32), (feature_b, -1.0)];
    let along = |m: Vec3| {
        let (point_a, point_b) = (a.support(m) + a.radius * m, b.support(-m) - b.radius * m);
        Separation { normal: m, separation: m.dot(point_b - point_a), point_a, point_b }
    };
    candidates
        .iter()
        .filter(|(feature, _)| feature.is_polygon())
        .map(|&(feature, sign)| sign * feature.normal)
        .filter(|m| m.dot(found.normal) >= FACE_AXIS_COSINE)
        .map(along)
        .filter(|axis| axis.separation >= found.separation - FACE_AXIS_TOLERANCE)
        .max_by(|x, y| x.separation.total_cmp(&y.separation))
}

/// A face's normal may replace the GJK/EPA normal when its separation is within this much
/// of GJK/EPA's (metres)... Apart, GJK's distance is an upper bound where it stopped, up to
/// 0.2 mm above a face axis that was exact under the lying cylinder (1e-4 left it bouncing);
/// in overlap, taking the face axis overstates the depth by at most this much.
const FACE_AXIS_TOLERANCE: f32 = 5.0e-4;
/// ...and its direction within this cosine (about 25°).
const FACE_AXIS_COSINE: f32 = 0.9;

/// Which feature may serve as the reference face (module notes, step 1): `Some(true)` for
/// A's, `Some(false)` for B's, `None` when neither is a polygon within `REFERENCE_COSINE` of
/// the normal `n` (A to B).
fn reference_side(feature_a: &SupportFeature, feature_b: &SupportFeature, n: Vec3) -> Option<bool> {
    let align_a = if feature_a.is_polygon() { feature_a.normal.dot(n) } else { -1.0 };
    let align_b = if feature_b.is_polygon() { -feature_b.normal.dot(n) } else { -1.0 };
    (align_a.max(align_b) >= REFERENCE_COSINE).then_some(align_a >= align_b)
}

/// Clips the two supporting features against each other (see the module notes), falling
/// back to a single point.
pub fn manifold_from_features(
    feature_a: &SupportFeature,
    feature_b: &SupportFeature,
    found: &Separation,
    margin: f32,
    out: &mut Manifold,
) {
    out.clear();
    let id_base = (feature_a.index << 16) | (feature_b.index & 0xFFFF);
    let n = found.normal;
    let clipped = if let Some(reference_is_a) = reference_side(feature_a, feature_b, n) {
        let (reference, incident) = if reference_is_a { (feature_a, feature_b) } else { (feature_b, feature_a) };
        clip_against_face(reference, incident, margin, reference_is_a, id_base, out)
    } else if feature_a.is_segment() && feature_b.is_segment() {
        segment_pair(feature_a.points(), feature_b.points(), n, margin, id_base, out)
    } else {
        false
    };
    let agrees = !out.is_empty()
        && (out.min_separation() - found.separation).abs() <= FEATURE_TOLERANCE + 0.05 * found.separation.abs();
    if clipped && agrees {
        return;
    }
    single_point(found, feature_id(id_base, SINGLE_POINT_ID), out);
}

/// One contact midway between the two witness points.
pub fn single_point(found: &Separation, id: u32, out: &mut Manifold) {
    out.clear();
    out.normal = found.normal;
    out.push(0.5 * (found.point_a + found.point_b), found.separation, id);
}

fn clip_against_face(
    reference: &SupportFeature,
    incident: &SupportFeature,
    margin: f32,
    reference_is_a: bool,
    id_base: u32,
    out: &mut Manifold,
) -> bool {
    if incident.is_polygon() {
        let (face, normal) = (reference.points(), reference.normal);
        clip_faces(face, normal, incident.points(), margin, reference_is_a, id_base, out);
        true
    } else if incident.is_segment() {
        let segment = [incident.vertices[0], incident.vertices[1]];
        clip_segment_to_face(segment, (reference.points(), reference.normal), margin, reference_is_a, id_base, out);
        true
    } else {
        false
    }
}

/// Clips the segment `p(t) = p0 + t (p1 - p0)`, `t ∈ [0, 1]`, by the side planes of the
/// reference polygon `face` with normal `n` (side `j` through `v_j` with outward normal
/// `s_j = (v_{j+1} - v_j) × n`).
/// With `e0 = s_j·p0 - s_j·v_j` and `e1` likewise, the segment crosses the plane at
/// `t = e0 / (e0 - e1)`: entering when `e0 > 0`, leaving when `e1 > 0`. The kept ends become
/// contacts with separation `n·(p - v_0)`, midway `p - ½ separation · n`.
///
/// Local ids: an unclipped end k has id k; an end made by side plane j on end k's side has
/// id `0x100 + 64 k + j`.
pub fn clip_segment_to_face(
    segment: [Vec3; 2],
    (face, n): (&[Vec3], Vec3),
    margin: f32,
    reference_is_a: bool,
    id_base: u32,
    out: &mut Manifold,
) {
    out.clear();
    out.normal = if reference_is_a { n } else { -n };
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    let (mut id0, mut id1) = (0u32, 1u32);
    for j in 0..face.len() {
        let side = (face[(j + 1) % face.len()] - face[j]).cross(n);
        let offset = side.dot(face[j]);
        let (e0, e1) = (side.dot(segment[0]) - offset, side.dot(segment[1]) - offset);
        if e0 > 0.0 && e1 > 0.0 {
            return;
        }
        if e0 > 0.0 {
            let t = e0 / (e0 - e1);
            if t > t0 {
                (t0, id0) = (t, 0x100 + j as u32);
            }
        } else if e1 > 0.0 {
            let t = e0 / (e0 - e1);
            if t < t1 {
                (t1, id1) = (t, 0x100 + 64 + j as u32);
            }
        }
    }
    if t0 > t1 {
        return;
    }
    let direction = segment[1] - segment[0];
    for (t, id) in [(t0, id0), (t1, id1)] {
        let p = segment[0] + t * direction;
        let separation = n.dot(p - face[0]);
        if separation <= margin {
            out.push(p - 0.5 * separation * n, separation, feature_id(id_base, id));
        }
    }
}

/// Two nearly parallel segments of the surfaces (A's `a`, B's `b`): B's segment is clipped to
/// the slab between the planes through A's ends perpendicular to A,
/// `0 <= (q - a0)·u / |u|² <= 1`, `u = a1 - a0`. Each kept end `q` gives a contact with
/// separation `n·(q - p)`, `p` the closest point of A's segment, midway `q - ½ separation n`.
/// Returns false (no points written) when the segments are not parallel or do not overlap.
///
/// Local ids: B's end k has id k; an end cut by A's end plane j has id `2 + j`.
pub fn segment_pair(a: &[Vec3], b: &[Vec3], normal: Vec3, margin: f32, id_base: u32, out: &mut Manifold) -> bool {
    out.clear();
    out.normal = normal;
    let (u, v) = (a[1] - a[0], b[1] - b[0]);
    let (uu, vv) = (u.length_squared(), v.length_squared());
    if !(uu > 1e-12 && vv > 1e-12) || u.cross(v).length_squared() > PARALLEL_SINE.powi(2) * uu * vv {
        return false;
    }
    // Parameter of B's points along A: s(t) = s0 + t (s1 - s0).
    let s0 = (b[0] - a[0]).dot(u) / uu;
    let s1 = (b[1] - a[0]).dot(u) / uu;
    let (mut t0, mut t1, mut id0, mut id1) = (0.0f32, 1.0f32, 0u32, 1u32);
    for (plane, bound) in [(0u32, 0.0f32), (1, 1.0)] {
        // Plane 0 keeps s >= 0, plane 1 keeps s <= 1.
        let outside = |s: f32| if plane == 0 { s < bound } else { s > bound };
        match (outside(s0), outside(s1)) {
            (true, true) => return false,
            (true, false) => {
                let t = (bound - s0) / (s1 - s0);
                if t > t0 {
                    (t0, id0) = (t, 2 + plane);
                }
            }
            (false, true) => {
                let t = (bound - s0) / (s1 - s0);
                if t < t1 {
                    (t1, id1) = (t, 2 + plane);
                }
            }
            (false, false) => {}
        }
    }
    if t1 - t0 <= 1e-6 {
        return false;
    }
    for (t, id) in [(t0, id0), (t1, id1)] {
        let q = b[0] + t * v;
        let p = closest_point_on_segment(q, a[0], a[1]);
        let separation = normal.dot(q - p);
        if separation <= margin {
            out.push(q - 0.5 * separation * normal, separation, feature_id(id_base, id));
        }
    }
    true
}
