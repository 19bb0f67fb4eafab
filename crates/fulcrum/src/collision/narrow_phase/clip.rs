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

use crate::collision::manifold::{reduce_points, ContactPoint, Manifold};
use crate::math::Vec3;
use crate::shape::hull::MAX_FACE_VERTICES;

/// Room for the general case: clipping an n-gon by m half-planes adds at most m vertices.
const CLIP_CAPACITY: usize = 2 * MAX_FACE_VERTICES + 4;

/// Room for two quadrilaterals (box faces), the hot case: 4 + 4 vertices.
const SMALL_CLIP_CAPACITY: usize = 8;

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
}
