//! Contact points by clipping one face against another ("Contact Points Using Clipping",
//! shared/seeds/001, generalised from 2D edges to 3D polygons).
//!
//! Given the reference face (the face most aligned with the contact normal, on shape R) and
//! the incident face (the face of the other shape most anti-aligned with it):
//! 1. clip the incident polygon by each side plane of the reference polygon
//!    (Sutherland–Hodgman); side plane j passes through reference edge j with outward normal
//!    `s_j = (v_{j+1} - v_j) × n_ref`;
//! 2. keep the clipped points whose depth below the reference plane,
//!    `separation = n_ref · (p - v_0)`, is at most the speculative margin;
//! 3. place each contact midway between the incident point and its projection on the
//!    reference plane, and reduce to at most four points.
//!
//! Feature ids: an original incident vertex k has id k; a point made where polygon edge with
//! tag t crosses reference side plane j has id `0x1000 + t·128 + j`, where incident edge k has
//! tag k and an edge created along side plane j has tag 64 + j. These depend only on which
//! features touch, so they are stable across steps.
//!
//! [`clip_faces`] takes any two polygons in a shared frame. [`clip_box_face`] is the same
//! algorithm for a box's face as the reference and a rectangle as the incident face (the hot
//! box/box case): it works in the box's own frame, where the side planes are axis-aligned
//! (one comparison per vertex instead of a dot product), skips the side planes that no
//! incident corner crosses, and writes the points straight into the box pose's frame. It
//! gives the same points and ids in the same order as [`clip_faces`] up to rounding (a
//! vertex within rounding of a side plane may be classified differently).

use super::sat::BOX_FACE_SIDE_AXES;
use super::support_face::CYLINDER_CAP_SIDES;
use crate::collision::manifold::{reduce_points, ContactPoint, Manifold, MAX_MANIFOLD_POINTS};
use crate::math::{Pose, Vec3};
use crate::shape::hull::MAX_FACE_VERTICES;
use glam::{Mat3A, Vec3A, Vec4};

/// Room for the general case: clipping an n-gon by m half-planes adds at most m vertices.
const CLIP_CAPACITY: usize = 2 * MAX_FACE_VERTICES + 4;

/// Room for two quadrilaterals (box faces), the hot case: 4 + 4 vertices.
const SMALL_CLIP_CAPACITY: usize = 8;

/// Room for a cylinder's cap against another cap, a box face or a triangle (16 + 16 at
/// most): the buffers are zeroed on every call, and the general size costs 8 KB of that.
const MEDIUM_CLIP_CAPACITY: usize = 2 * CYLINDER_CAP_SIDES;

#[derive(Clone, Copy, Default)]
struct ClipVertex {
    position: Vec3,
    id: u32,
    /// Tag of the polygon edge that starts at this vertex.
    edge_tag: u32,
}

/// A polygon on the stack with room for `N` vertices.
struct Polygon<const N: usize> {
    vertices: [ClipVertex; N],
    len: usize,
}

impl<const N: usize> Polygon<N> {
    fn new() -> Self {
        Self { vertices: [ClipVertex::default(); N], len: 0 }
    }

    fn push(&mut self, v: ClipVertex) {
        if self.len < N {
            self.vertices[self.len] = v;
            self.len += 1;
        }
    }
}

/// Mixes a pair's face indices into a point's local clip id.
#[inline]
pub fn feature_id(base: u32, local: u32) -> u32 {
    base.wrapping_mul(0x9E37_79B1).rotate_left(13) ^ local
}

/// Clips `incident` against the side planes of `reference` and writes the manifold.
///
/// - `reference`: polygon, counter-clockwise about `reference_normal`;
/// - `reference_normal`: unit outward normal of the reference face;
/// - `incident`: polygon of the other shape (any winding), in the same frame;
/// - `margin`: speculative distance; points separated by more are dropped;
/// - `reference_is_a`: the reference face belongs to shape A (the manifold normal points from
///   A to B, so it is `reference_normal`, else `-reference_normal`);
/// - `id_base`: identifies the face pair; mixed into every point's feature id.
///
/// Works in whatever frame the polygons are given (world space, or a body's local frame that
/// the caller maps back). Uses fixed-size stack buffers, sized small for two quadrilaterals.
pub fn clip_faces(
    reference: &[Vec3],
    reference_normal: Vec3,
    incident: &[Vec3],
    margin: f32,
    reference_is_a: bool,
    id_base: u32,
    out: &mut Manifold,
) {
    let faces = FacePair { reference, reference_normal, incident, margin, id_base };
    out.clear();
    out.normal = if reference_is_a { reference_normal } else { -reference_normal };
    if reference.len() + incident.len() <= SMALL_CLIP_CAPACITY {
        clip_with_capacity::<SMALL_CLIP_CAPACITY>(&faces, out);
    } else if reference.len() + incident.len() <= MEDIUM_CLIP_CAPACITY {
        clip_with_capacity::<MEDIUM_CLIP_CAPACITY>(&faces, out);
    } else {
        clip_with_capacity::<CLIP_CAPACITY>(&faces, out);
    }
}

/// The arguments of [`clip_faces`] that the clipping passes read.
struct FacePair<'a> {
    reference: &'a [Vec3],
    reference_normal: Vec3,
    incident: &'a [Vec3],
    margin: f32,
    id_base: u32,
}

fn clip_with_capacity<const N: usize>(faces: &FacePair, out: &mut Manifold) {
    let mut first = Polygon::<N>::new();
    for (k, &p) in faces.incident.iter().take(MAX_FACE_VERTICES).enumerate() {
        first.push(ClipVertex { position: p, id: k as u32, edge_tag: k as u32 });
    }
    let mut second = Polygon::<N>::new();
    // Ping-pong between the two buffers by swapping references, not contents.
    let (mut current, mut next) = (&mut first, &mut second);
    let reference = faces.reference;
    let n = reference.len().min(MAX_FACE_VERTICES);
    for j in 0..n {
        let v0 = reference[j];
        let v1 = reference[if j + 1 == n { 0 } else { j + 1 }];
        let side = (v1 - v0).cross(faces.reference_normal);
        clip_by_plane(current, side, side.dot(v0), j as u32, next);
        std::mem::swap(&mut current, &mut next);
        if current.len == 0 {
            return;
        }
    }
    if let Some(&origin) = reference.first() {
        collect_points(current, origin, faces, out);
    }
}

/// One Sutherland–Hodgman pass: keeps the part of `input` with `side·p <= offset`.
fn clip_by_plane<const N: usize>(input: &Polygon<N>, side: Vec3, offset: f32, plane: u32, output: &mut Polygon<N>) {
    output.len = 0;
    let len = input.len;
    if len == 0 {
        return;
    }
    let first_distance = side.dot(input.vertices[0].position) - offset;
    let mut da = first_distance;
    for i in 0..len {
        let a = input.vertices[i];
        let (b, db) = if i + 1 == len {
            (input.vertices[0], first_distance)
        } else {
            let b = input.vertices[i + 1];
            (b, side.dot(b.position) - offset)
        };
        if da <= 0.0 {
            output.push(a);
        }
        if (da <= 0.0) != (db <= 0.0) {
            let t = da / (da - db);
            let position = a.position + (b.position - a.position) * t;
            let id = 0x1000 + a.edge_tag * 128 + plane;
            // Leaving the plane: the new edge runs along the side plane; entering: it
            // continues along the edge we were on.
            let edge_tag = if da <= 0.0 { 64 + plane } else { a.edge_tag };
            output.push(ClipVertex { position, id, edge_tag });
        }
        da = db;
    }
}

/// Keeps the clipped vertices within `margin` of the reference plane, places each midway
/// between the incident surface and its projection on the reference plane, and reduces to at
/// most four.
fn collect_points<const N: usize>(polygon: &Polygon<N>, reference_point: Vec3, faces: &FacePair, out: &mut Manifold) {
    let normal = faces.reference_normal;
    let mut kept = [ContactPoint::default(); N];
    let mut count = 0;
    for v in &polygon.vertices[..polygon.len] {
        let separation = normal.dot(v.position - reference_point);
        if separation <= faces.margin {
            kept[count] = ContactPoint {
                position: v.position - 0.5 * separation * normal,
                separation,
                id: feature_id(faces.id_base, v.id),
            };
            count += 1;
        }
    }
    let manifold_normal = out.normal;
    reduce_points(&kept[..count], manifold_normal, out);
    out.normal = manifold_normal;
}

/// Most vertices of a quadrilateral clipped by the four sides of a rectangle (4 + 4).
const BOX_CLIP_CAPACITY: usize = 8;

/// A face of a box: the box's half extents (metres) and the face index `2·axis + positive`,
/// as in `sat::BOX_FACE_LOOPS`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxFace {
    /// Half extents of the box (metres).
    pub half_extents: Vec3,
    /// Face index 0..6: `−x, +x, −y, +y, −z, +z`.
    pub face: usize,
}

/// A rectangle (a box's face seen from another frame) by its centre and two half edges
/// (metres). Its corners, in loop order (corner k has id k in [`clip_box_face`]), are
/// `(c − E_u) − E_v`, `(c − E_u) + E_v`, `(c + E_u) + E_v`, `(c + E_u) − E_v`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceRectangle {
    /// Centre `c` (metres).
    pub centre: Vec3,
    /// Half edge `E_u` (metres).
    pub half_edge_u: Vec3,
    /// Half edge `E_v` (metres), perpendicular to `E_u`.
    pub half_edge_v: Vec3,
}

impl FaceRectangle {
    /// The four corners in loop order.
    #[cfg(test)]
    pub fn corners(&self) -> [Vec3; 4] {
        let (low_u, high_u) = (self.centre - self.half_edge_u, self.centre + self.half_edge_u);
        [low_u - self.half_edge_v, low_u + self.half_edge_v, high_u + self.half_edge_v, high_u - self.half_edge_v]
    }
}

/// A vertex of the polygon being clipped by [`clip_box_face`], in the reference face's frame:
/// `u`, `v` the box coordinates along the face's in-face axes, `height` the signed distance
/// above the face plane (its separation). All three are affine in the box coordinates, so
/// interpolating them along an edge is interpolating the 3D point. The clip id (as in
/// [`clip_faces`], below 2¹⁶) and the tag of the polygon edge starting here (below 2⁸) share
/// `features`, which keeps a vertex at 16 bytes.
#[derive(Clone, Copy, Default)]
struct FaceVertex {
    u: f32,
    v: f32,
    height: f32,
    features: u32,
}

impl FaceVertex {
    #[inline]
    fn new(u: f32, v: f32, height: f32, id: u32, edge_tag: u32) -> Self {
        Self { u, v, height, features: id | edge_tag << 16 }
    }

    #[inline]
    fn id(&self) -> u32 {
        self.features & 0xFFFF
    }

    #[inline]
    fn edge_tag(&self) -> u32 {
        self.features >> 16
    }
}

#[derive(Default)]
struct FacePolygon {
    vertices: [FaceVertex; BOX_CLIP_CAPACITY],
    len: usize,
}

impl FacePolygon {
    #[inline]
    fn push(&mut self, vertex: FaceVertex) {
        if self.len < BOX_CLIP_CAPACITY {
            self.vertices[self.len] = vertex;
            self.len += 1;
        }
    }
}

/// [`clip_faces`] for a box's face as the reference, specialised: the same points and ids in
/// the same order (up to rounding), made in the box's own frame, where the face is an
/// axis-aligned rectangle.
///
/// With `(u, v)` the face's in-face axes (`sat::BOX_FACE_SIDE_AXES`) and `n = ±e_a` its
/// outward normal, a point `p` of the box frame becomes `(p_u, p_v, n·p − h_a)`; the side
/// planes, in the order of the face's loop, are then
///
/// ```text
/// −p_u ≤ h_u,   p_v ≤ h_v,   p_u ≤ h_u,   −p_v ≤ h_v
/// ```
///
/// one comparison each instead of a dot product. The incident quadrilateral is convex, so
/// when all four of its corners are inside a side plane every clipped polygon is too, and
/// that pass is skipped (the general clipper would copy the polygon unchanged, up to a
/// rounding-level sliver it might still cut off).
///
/// - `reference`: the reference box and face;
/// - `pose`: the reference box's pose; the manifold is written in the frame `pose` maps to
///   (world space for the box's world pose; the box's frame for `Pose::IDENTITY`);
/// - `incident`: the other face in the box's frame; its corners in [`FaceRectangle`]'s
///   order are the incident polygon of [`clip_faces`] (corner k has id k);
/// - `margin`, `reference_is_a`, `id_base`: as in [`clip_faces`].
///
/// Normal `±pose(n)`, points midway between the incident surface and the face, separations
/// `n·p − h_a`. A face index past 5 gives an empty manifold.
pub fn clip_box_face(
    reference: BoxFace,
    pose: &Pose,
    incident: &FaceRectangle,
    margin: f32,
    reference_is_a: bool,
    id_base: u32,
    out: &mut Manifold,
) {
    out.clear();
    let Some(&(axis_u, axis_v)) = BOX_FACE_SIDE_AXES.get(reference.face) else { return };
    let axis_n = reference.face / 2;
    let sign_n = if reference.face % 2 == 1 { 1.0 } else { -1.0 };
    let h = reference.half_extents.to_array();
    let (limit_u, limit_v) = (h[axis_u], h[axis_v]);
    let rotation = Mat3A::from_quat(pose.rotation);
    let normal = rotation.col(axis_n) * sign_n;
    out.normal = Vec3::from(if reference_is_a { normal } else { -normal });

    let corners = QuadCoordinates::new(incident, axis_u, axis_v, axis_n, sign_n);
    let needed = corners.planes_cutting(limit_u, limit_v);
    let mut first = corners.polygon(h[axis_n]);
    // Ping-pong between two buffers; a skipped pass leaves `current` as it is.
    let mut second = FacePolygon::default();
    let (mut current, mut next) = (&mut first, &mut second);
    let nonempty = clip_step(&mut current, &mut next, needed[0], 0, |p| -p.u - limit_u)
        && clip_step(&mut current, &mut next, needed[1], 1, |p| p.v - limit_v)
        && clip_step(&mut current, &mut next, needed[2], 2, |p| p.u - limit_u)
        && clip_step(&mut current, &mut next, needed[3], 3, |p| -p.v - limit_v);
    if !nonempty {
        return;
    }
    let frame = FaceFrame {
        origin: Vec3A::from(pose.position) + normal * h[axis_n],
        axis_u: rotation.col(axis_u),
        axis_v: rotation.col(axis_v),
        half_normal: 0.5 * normal,
    };
    collect_face_points(current, &frame, margin, id_base, out);
}

/// The incident rectangle's corners in the reference face's coordinates, one lane per corner:
/// `u`, `v` and `w = n·p` (so that `height = w − h_a`).
struct QuadCoordinates {
    u: Vec4,
    v: Vec4,
    w: Vec4,
}

impl QuadCoordinates {
    /// Corners `(c ∓ E_u) ∓ E_v` in [`FaceRectangle`]'s order, each coordinate picked from
    /// `c`, `E_u`, `E_v` and combined with the lane signs `(−, −, +, +)` for `E_u` and
    /// `(−, +, +, −)` for `E_v`.
    #[inline]
    fn new(rectangle: &FaceRectangle, axis_u: usize, axis_v: usize, axis_n: usize, sign_n: f32) -> Self {
        const SIGNS_U: Vec4 = Vec4::new(-1.0, -1.0, 1.0, 1.0);
        const SIGNS_V: Vec4 = Vec4::new(-1.0, 1.0, 1.0, -1.0);
        let (c, e_u, e_v) =
            (rectangle.centre.to_array(), rectangle.half_edge_u.to_array(), rectangle.half_edge_v.to_array());
        let lanes = |axis: usize, sign: f32| {
            Vec4::splat(sign * c[axis]) + SIGNS_U * (sign * e_u[axis]) + SIGNS_V * (sign * e_v[axis])
        };
        Self { u: lanes(axis_u, 1.0), v: lanes(axis_v, 1.0), w: lanes(axis_n, sign_n) }
    }

    /// Which of the four side planes (order of [`clip_box_face`]) have a corner outside
    /// (`!(distance <= 0)`, so a NaN counts as outside).
    #[inline]
    fn planes_cutting(&self, limit_u: f32, limit_v: f32) -> [bool; 4] {
        let (limit_u, limit_v) = (Vec4::splat(limit_u), Vec4::splat(limit_v));
        let inside = |distance: Vec4| distance.cmple(Vec4::ZERO).all();
        let (u, v) = (self.u, self.v);
        [!inside(-u - limit_u), !inside(v - limit_v), !inside(u - limit_u), !inside(-v - limit_v)]
    }

    /// The quadrilateral as the clipper's first polygon (corner k: id and edge tag k), with
    /// heights above the face plane at `offset_n` from the centre.
    #[inline]
    fn polygon(&self, offset_n: f32) -> FacePolygon {
        let (u, v, height) = (self.u.to_array(), self.v.to_array(), (self.w - offset_n).to_array());
        let mut polygon = FacePolygon { len: 4, ..Default::default() };
        for k in 0..4 {
            polygon.vertices[k] = FaceVertex::new(u[k], v[k], height[k], k as u32, k as u32);
        }
        polygon
    }
}

/// When `needed`, clips `current` by side plane `plane` (kept part: `distance(p) <= 0`) into
/// `next` and swaps the two. False when nothing is left.
#[inline(always)]
fn clip_step<'a>(
    current: &mut &'a mut FacePolygon,
    next: &mut &'a mut FacePolygon,
    needed: bool,
    plane: u32,
    distance: impl Fn(&FaceVertex) -> f32,
) -> bool {
    if needed {
        clip_face_pass(current, plane, distance, next);
        std::mem::swap(current, next);
    }
    current.len > 0
}

/// One Sutherland–Hodgman pass keeping the part of `input` with `distance(p) <= 0`, with the
/// ids and edge tags of [`clip_by_plane`].
#[inline(always)]
fn clip_face_pass(input: &FacePolygon, plane: u32, distance: impl Fn(&FaceVertex) -> f32, output: &mut FacePolygon) {
    output.len = 0;
    let len = input.len.min(BOX_CLIP_CAPACITY);
    if len == 0 {
        return;
    }
    let first_distance = distance(&input.vertices[0]);
    let mut da = first_distance;
    for i in 0..len {
        let a = input.vertices[i];
        let (next, db) = if i + 1 == len { (0, first_distance) } else { (i + 1, distance(&input.vertices[i + 1])) };
        if da <= 0.0 {
            output.push(a);
        }
        if (da <= 0.0) != (db <= 0.0) {
            let b = input.vertices[next];
            let t = da / (da - db);
            output.push(FaceVertex::new(
                a.u + (b.u - a.u) * t,
                a.v + (b.v - a.v) * t,
                a.height + (b.height - a.height) * t,
                0x1000 + a.edge_tag() * 128 + plane,
                if da <= 0.0 { 64 + plane } else { a.edge_tag() },
            ));
        }
        da = db;
    }
}

/// Where [`clip_box_face`] writes its points: the face centre `pose(n·h_a)`, the box's
/// in-face axes and half the face normal, all mapped by the box's pose.
struct FaceFrame {
    origin: Vec3A,
    axis_u: Vec3A,
    axis_v: Vec3A,
    half_normal: Vec3A,
}

impl FaceFrame {
    /// The point midway between a clipped vertex and its projection on the face:
    /// `origin + u·e_u + v·e_v + (height/2)·n`.
    #[inline]
    fn midway(&self, vertex: &FaceVertex) -> Vec3 {
        (self.origin + self.axis_u * vertex.u + self.axis_v * vertex.v + self.half_normal * vertex.height).into()
    }
}

/// Keeps the vertices within `margin` of the face plane, places them midway, and reduces to
/// four (only needed when more than four are kept).
fn collect_face_points(polygon: &FacePolygon, frame: &FaceFrame, margin: f32, id_base: u32, out: &mut Manifold) {
    let vertices = &polygon.vertices[..polygon.len.min(BOX_CLIP_CAPACITY)];
    if vertices.len() <= MAX_MANIFOLD_POINTS {
        for vertex in vertices.iter().filter(|vertex| vertex.height <= margin) {
            out.push(frame.midway(vertex), vertex.height, feature_id(id_base, vertex.id()));
        }
        return;
    }
    let mut kept = [ContactPoint::default(); BOX_CLIP_CAPACITY];
    let mut count = 0;
    for vertex in vertices.iter().filter(|vertex| vertex.height <= margin) {
        kept[count] = ContactPoint {
            position: frame.midway(vertex),
            separation: vertex.height,
            id: feature_id(id_base, vertex.id()),
        };
        count += 1;
    }
    let manifold_normal = out.normal;
    reduce_points(&kept[..count], manifold_normal, out);
    out.normal = manifold_normal;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(y: f32, half: f32, offset: Vec3) -> Vec<Vec3> {
        // CCW about +Y seen from above.
        vec![
            Vec3::new(-half, y, -half) + offset,
            Vec3::new(-half, y, half) + offset,
            Vec3::new(half, y, half) + offset,
            Vec3::new(half, y, -half) + offset,
        ]
    }

    #[test]
    fn overlapping_squares_give_the_overlap_corners() {
        // Reference: top face of a box (normal +Y) at y = 0; incident: a bottom face 0.01 below.
        let reference = square(0.0, 1.0, Vec3::ZERO);
        let incident = square(-0.01, 1.0, Vec3::new(1.0, 0.0, 1.0));
        let mut m = Manifold::new();
        clip_faces(&reference, Vec3::Y, &incident, 0.02, true, 7, &mut m);
        assert_eq!(m.count, 4);
        assert_eq!(m.normal, Vec3::Y);
        for p in m.points() {
            assert!((p.separation + 0.01).abs() < 1e-6);
            assert!((p.position.y + 0.005).abs() < 1e-6, "midpoint between surfaces");
            assert!(p.position.x >= -1e-6 && p.position.x <= 1.0 + 1e-6);
            assert!(p.position.z >= -1e-6 && p.position.z <= 1.0 + 1e-6);
        }
        // Same input, same ids; all distinct.
        let mut again = Manifold::new();
        clip_faces(&reference, Vec3::Y, &incident, 0.02, true, 7, &mut again);
        assert_eq!(m, again);
        for i in 0..4 {
            for j in 0..i {
                assert_ne!(m.points[i].id, m.points[j].id);
            }
        }
    }

    #[test]
    fn points_beyond_margin_are_dropped() {
        let reference = square(0.0, 1.0, Vec3::ZERO);
        let incident = square(0.5, 1.0, Vec3::ZERO);
        let mut m = Manifold::new();
        clip_faces(&reference, Vec3::Y, &incident, 0.02, false, 0, &mut m);
        assert_eq!(m.count, 0);
        assert_eq!(m.normal, -Vec3::Y);
    }

    #[test]
    fn many_sided_incident_face_uses_the_large_buffers() {
        // A regular 12-gon of circumradius 1 (12 + 4 vertices, past the small buffers) under a
        // square of half side 0.6, 0.01 below: the 12-gon's corners lie outside the square
        // (radius 1 > 0.6·√2), so every point is a crossing on the square's sides; all four
        // kept points lie on the square's boundary, inside the 12-gon, at depth 0.01.
        let reference = square(0.0, 0.6, Vec3::ZERO);
        let incident: Vec<Vec3> = (0..12)
            .map(|k| {
                let angle = k as f32 * std::f32::consts::TAU / 12.0;
                Vec3::new(angle.cos(), -0.01, angle.sin())
            })
            .collect();
        let mut m = Manifold::new();
        clip_faces(&reference, Vec3::Y, &incident, 0.02, true, 3, &mut m);
        assert_eq!(m.count, 4);
        for p in m.points() {
            assert!((p.separation + 0.01).abs() < 1e-6);
            let on_side = (p.position.x.abs() - 0.6).abs() < 1e-5 || (p.position.z.abs() - 0.6).abs() < 1e-5;
            assert!(on_side && p.position.x.abs() <= 0.6 + 1e-5 && p.position.z.abs() <= 0.6 + 1e-5);
            assert!(p.position.x.hypot(p.position.z) <= 1.0 + 1e-5);
        }
        for i in 0..4 {
            for j in 0..i {
                assert_ne!(m.points[i].id, m.points[j].id);
            }
        }
    }

    /// The smallest sine of the angle between a reference side and an incident edge projected
    /// on the reference plane (a crossing at angle θ moves by about ε / sin θ for input
    /// rounding ε).
    fn crossing_sine(reference: &[Vec3], normal: Vec3, incident: &[Vec3]) -> f32 {
        let mut smallest = 1.0f32;
        for j in 0..reference.len() {
            let side = (reference[(j + 1) % reference.len()] - reference[j]).normalize();
            for k in 0..incident.len() {
                let edge = incident[(k + 1) % incident.len()] - incident[k];
                smallest = smallest.min(side.cross((edge - normal * normal.dot(edge)).normalize()).length());
            }
        }
        smallest
    }

    #[test]
    fn box_face_clip_matches_the_general_clipper() {
        // Every face of random boxes against random rectangles near it (turned about the
        // normal at random, tilted up to 0.3 rad, either winding, 6 cm below to 4 cm above),
        // with a random pose. The general clipper runs in the box's frame and its manifold
        // is mapped by the pose. Same count, ids in order, separations within 1e-5 m,
        // positions within 1e-5 m plus 1e-6 m / sin θ (θ: the flattest crossing).
        use crate::collision::narrow_phase::sat::test_util::Lcg;
        use crate::collision::narrow_phase::sat::{box_corner, BOX_FACE_LOOPS};
        use crate::math::Quat;
        let mut rng = Lcg(0xC11B);
        let mut counts = [0usize; 5];
        for case in 0..4000 {
            let half = Vec3::new(rng.range(0.1, 1.0), rng.range(0.1, 1.0), rng.range(0.1, 1.0));
            let face = case % 6;
            let mut normal = Vec3::ZERO;
            normal[face / 2] = if face % 2 == 1 { 1.0 } else { -1.0 };
            let reference = BOX_FACE_LOOPS[face].map(|k| box_corner(half, k));
            let turn = Quat::from_axis_angle(normal, rng.range(0.0, std::f32::consts::TAU));
            let tilt = Quat::from_axis_angle(rng.vec3().normalize_or(Vec3::X), rng.range(-0.3, 0.3));
            let (a, b) = orthonormal_pair(normal);
            let (a, b) = if rng.next_f32() < 0.5 { (a, b) } else { (b, a) };
            let offset = rng.vec3() * 1.2 * half;
            let rectangle = FaceRectangle {
                centre: offset - normal * normal.dot(offset) + normal * (half[face / 2] + rng.range(-0.06, 0.04)),
                half_edge_u: tilt * turn * a * rng.range(0.05, 1.0),
                half_edge_v: tilt * turn * b * rng.range(0.05, 1.0),
            };
            let pose = Pose::new(rng.vec3() * 3.0, rng.rotation());
            let (margin, reference_is_a, id_base) = (rng.range(0.0, 0.05), case % 4 < 2, case as u32);
            let incident = rectangle.corners();
            let mut general = Manifold::new();
            clip_faces(&reference, normal, &incident, margin, reference_is_a, id_base, &mut general);
            crate::collision::narrow_phase::sat::manifold_to_world(&pose, &mut general);
            let mut fast = Manifold::new();
            let box_face = BoxFace { half_extents: half, face };
            clip_box_face(box_face, &pose, &rectangle, margin, reference_is_a, id_base, &mut fast);
            let tolerance = 1e-5 + 1e-6 / crossing_sine(&reference, normal, &incident);
            assert_eq!(fast.count, general.count, "case {case}: {fast:?} vs {general:?}");
            assert!((fast.normal - general.normal).length() < 1e-5, "case {case}: normal");
            for (p, q) in fast.points().iter().zip(general.points()) {
                assert_eq!(p.id, q.id, "case {case}: {fast:?} vs {general:?}");
                assert!((p.position - q.position).length() < tolerance, "case {case}: {fast:?} vs {general:?}");
                assert!((p.separation - q.separation).abs() < 1e-5, "case {case}: separations");
            }
            counts[fast.count] += 1;
        }
        assert!(counts.iter().all(|&n| n > 100), "point counts 0..=4: {counts:?}");
    }

    /// Two unit vectors perpendicular to `normal` and to each other.
    fn orthonormal_pair(normal: Vec3) -> (Vec3, Vec3) {
        let a = normal.any_orthonormal_vector();
        (a, normal.cross(a))
    }

    #[test]
    fn box_face_clip_rejects_a_bad_face_index() {
        let rectangle = FaceRectangle { centre: Vec3::ZERO, half_edge_u: Vec3::X, half_edge_v: Vec3::Z };
        let mut m = Manifold::new();
        m.push(Vec3::ONE, 0.0, 1);
        let face = BoxFace { half_extents: Vec3::ONE, face: 6 };
        clip_box_face(face, &Pose::IDENTITY, &rectangle, 0.02, true, 0, &mut m);
        assert!(m.is_empty());
    }
}
