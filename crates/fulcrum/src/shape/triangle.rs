//! One triangle of a [`TriMesh`](super::TriMesh) or [`HeightField`](super::HeightField), as the
//! narrow phase and queries see it: its corners, its front normal and which of its edges and
//! corners may give a contact normal other than the face normal (the "active" features).
//!
//! An edge is inactive when the surface continues flat or bends upwards (concave) across it:
//! a body sliding over such an edge must only ever see the face normals, else it bumps on
//! the inner edges of a flat floor. Convex edges and boundary edges (nothing on the other
//! side) are active. A corner is active when any edge of the whole surface that meets there is.

use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::Vec3;

/// One triangle of a mesh or heightfield in the shape's local frame, with what the narrow
/// phase needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangle {
    /// Corners, counter-clockwise seen from the front.
    pub vertices: [Vec3; 3],
    /// Unit front normal, `(v1 − v0) × (v2 − v0)` normalised.
    pub normal: Vec3,
    /// Bit `i`: edge `i` (from vertex `i` to vertex `(i + 1) mod 3`) is active: convex by more
    /// than [`FLAT_ANGLE`], or a boundary with no neighbour. Flat and concave edges are not.
    pub active_edges: u8,
    /// Bit `i`: vertex `i` is active: some edge of the whole surface that meets there is.
    pub active_vertices: u8,
    /// True when the triangle collides on both faces (the narrow phase flips convexity for the
    /// back face).
    pub two_sided: bool,
}

/// A surface of triangles (a mesh or a heightfield) as the narrow phase walks it.
pub trait TriangleSurface {
    /// Calls `visit(index, triangle)` for every triangle whose bounds overlap `local` (shape
    /// frame); stops early when `visit` returns false.
    fn for_each_triangle_in(&self, local: &Aabb, visit: impl FnMut(u32, &Triangle) -> bool);

    /// The corner of the triangle across edge `edge` of triangle `index` that the two do not
    /// share; `None` where the edge has no single neighbour (a border, or more than two
    /// triangles meeting there).
    fn far_corner(&self, index: u32, edge: usize) -> Option<Vec3>;

    /// Does `test` hold for some corner joined by an edge of the surface to corner `corner` of
    /// triangle `index`?
    fn any_corner_joined(&self, index: u32, corner: usize, test: impl FnMut(Vec3) -> bool) -> bool;
}

/// Edges whose faces differ by less than this angle (radians, 0.5°) are flat: inactive.
pub const FLAT_ANGLE: f32 = 0.5 * std::f32::consts::PI / 180.0;

/// Bits of the three edges (or vertices) of a triangle.
pub(crate) const ALL_THREE: u8 = 0b111;

/// Barycentric slack of ray tests (dimensionless): a ray through a shared edge or corner hits
/// at least one of the triangles that meet there despite rounding.
const BARYCENTRIC_SLACK: f32 = 1e-6;

impl Triangle {
    /// The triangle with corners `vertices` and its normal computed from them.
    pub fn new(vertices: [Vec3; 3], active_edges: u8, active_vertices: u8, two_sided: bool) -> Triangle {
        Triangle {
            vertices,
            normal: face_normal(&vertices).normalize_or_zero(),
            active_edges,
            active_vertices,
            two_sided,
        }
    }

    /// Is edge `i` (vertex `i` to vertex `(i + 1) mod 3`) active?
    #[inline]
    pub fn edge_is_active(&self, i: usize) -> bool {
        self.active_edges & (1 << i) != 0
    }

    /// Is vertex `i` active?
    #[inline]
    pub fn vertex_is_active(&self, i: usize) -> bool {
        self.active_vertices & (1 << i) != 0
    }

    /// Bounds of the three corners.
    #[inline]
    pub fn aabb(&self) -> Aabb {
        Aabb::of_points(&self.vertices)
    }

    /// Ray cast against the triangle (Möller–Trumbore): with e₁ = v₁ − v₀, e₂ = v₂ − v₀,
    /// p = d × e₂, det = e₁·p = −d·n (n = e₁ × e₂), s = o − v₀, q = s × e₁, the hit has
    /// barycentrics u = s·p / det, v = d·q / det and t = e₂·q / det. det > 0 means the ray
    /// meets the front face; a one-sided triangle ignores its back face. The hit normal faces
    /// the ray: the front normal, or its opposite for the back face of a two-sided triangle.
    pub fn cast_ray(&self, ray: &Ray, max_t: f32) -> Option<RayHit> {
        let [v0, v1, v2] = self.vertices;
        let (e1, e2) = (v1 - v0, v2 - v0);
        let p = ray.direction.cross(e2);
        let det = e1.dot(p);
        let from_front = det > 0.0;
        if det == 0.0 || !(from_front || self.two_sided) {
            return None;
        }
        let inv_det = 1.0 / det;
        let s = ray.origin - v0;
        let u = s.dot(p) * inv_det;
        let q = s.cross(e1);
        let v = ray.direction.dot(q) * inv_det;
        let inside = u >= -BARYCENTRIC_SLACK && v >= -BARYCENTRIC_SLACK && u + v <= 1.0 + BARYCENTRIC_SLACK;
        let t = e2.dot(q) * inv_det;
        let normal = if from_front { self.normal } else { -self.normal };
        (inside && (0.0..=max_t).contains(&t)).then_some(RayHit { t, normal })
    }
}

/// `(v1 − v0) × (v2 − v0)`: the front normal times twice the area.
#[inline]
pub(crate) fn face_normal(v: &[Vec3; 3]) -> Vec3 {
    (v[1] - v[0]).cross(v[2] - v[0])
}

/// Is the edge `a → b` of a triangle with unit front normal `normal` active, given the corner
/// `opposite` of a neighbour across it that does not lie on the edge?
///
/// Seen along the edge, the neighbour leaves the edge in the direction of `opposite − a`
/// with the part along the edge removed: `m` across the edge (outward in the triangle's plane,
/// `m = (b − a) × n`) and `n` out of it. Its fold angle is φ = atan2((opposite − a)·n,
/// (opposite − a)·m): |φ| ≤ [`FLAT_ANGLE`] is flat, φ > 0 bends up (concave), φ < 0 bends
/// down (convex), |φ| near π folds back into a fin (convex). Only convex edges and fins are
/// active. Using the neighbour's corner, not its normal, makes the answer independent of the
/// neighbour's winding.
///
/// Without the arctangent, with y = (opposite − a)·n·|b − a| and x = (opposite − a)·m (m not
/// normalised) and T = tan([`FLAT_ANGLE`]): φ < −FLAT_ANGLE ⇔ y < 0 and −y > T·x;
/// |φ| > π − FLAT_ANGLE ⇔ x < 0 and |y| < −T·x.
pub(crate) fn fold_is_active(a: Vec3, b: Vec3, normal: Vec3, opposite: Vec3) -> bool {
    let edge = b - a;
    let offset = opposite - a;
    let x = offset.dot(edge.cross(normal));
    let y = offset.dot(normal) * edge.length();
    let tan_flat = FLAT_ANGLE.tan();
    (y < 0.0 && -y > tan_flat * x) || (x < 0.0 && y.abs() < -tan_flat * x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_triangle(two_sided: bool) -> Triangle {
        Triangle::new([Vec3::ZERO, Vec3::X, Vec3::Y], ALL_THREE, ALL_THREE, two_sided)
    }

    #[test]
    fn normal_follows_the_winding() {
        assert_eq!(unit_triangle(false).normal, Vec3::Z);
        let flipped = Triangle::new([Vec3::ZERO, Vec3::Y, Vec3::X], 0, 0, false);
        assert_eq!(flipped.normal, -Vec3::Z);
    }

    /// A ray down the z axis onto the triangle in z = 0: t = height / speed, point (x, y, 0).
    #[test]
    fn rays_hit_the_front_and_the_back_only_when_two_sided() {
        let down = Ray::new(Vec3::new(0.25, 0.25, 3.0), Vec3::new(0.0, 0.0, -2.0));
        let hit = unit_triangle(false).cast_ray(&down, 10.0).unwrap();
        assert!((hit.t - 1.5).abs() < 1e-6 && hit.normal == Vec3::Z);
        assert_eq!(unit_triangle(false).cast_ray(&down, 1.4), None);
        let up = Ray::new(Vec3::new(0.25, 0.25, -3.0), Vec3::Z);
        assert_eq!(unit_triangle(false).cast_ray(&up, 10.0), None);
        let back = unit_triangle(true).cast_ray(&up, 10.0).unwrap();
        assert!((back.t - 3.0).abs() < 1e-6 && back.normal == -Vec3::Z);
        let beside = Ray::new(Vec3::new(0.6, 0.6, 3.0), -Vec3::Z);
        assert_eq!(unit_triangle(false).cast_ray(&beside, 10.0), None);
        // Through the hypotenuse and a corner exactly: still a hit.
        for (x, y) in [(0.5, 0.5), (1.0, 0.0), (0.0, 0.0)] {
            assert!(unit_triangle(false).cast_ray(&Ray::new(Vec3::new(x, y, 1.0), -Vec3::Z), 2.0).is_some());
        }
    }

    /// The edge from (0,0,0) to (1,0,0) of the triangle in the plane z = 0 whose interior lies
    /// at y > 0: a neighbour at y < 0 leaving at angle φ below (convex) or above (concave).
    #[test]
    fn folds_are_classified_by_angle() {
        let (a, b) = (Vec3::ZERO, Vec3::X);
        let neighbour = |phi: f32| Vec3::new(0.3, -phi.cos(), phi.sin());
        let degrees = |d: f32| d.to_radians();
        assert!(!fold_is_active(a, b, Vec3::Z, neighbour(0.0)));
        assert!(!fold_is_active(a, b, Vec3::Z, neighbour(degrees(0.4))));
        assert!(!fold_is_active(a, b, Vec3::Z, neighbour(degrees(-0.4))));
        assert!(!fold_is_active(a, b, Vec3::Z, neighbour(degrees(30.0))));
        assert!(fold_is_active(a, b, Vec3::Z, neighbour(degrees(-0.6))));
        assert!(fold_is_active(a, b, Vec3::Z, neighbour(degrees(-90.0))));
        assert!(fold_is_active(a, b, Vec3::Z, neighbour(degrees(179.9))));
    }
}
