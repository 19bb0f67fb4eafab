//! Convex hull: vertices, polygonal faces and a half-edge mesh connecting them.
//!
//! Layout (what the SAT and clipping code rely on):
//! - `vertices`: hull vertices in the local frame (no interior or duplicate points);
//! - `faces[f].first_edge`: one half-edge of face `f`; following `next` walks the face's
//!   boundary counter-clockwise seen from outside; `planes[f]` is its outward plane;
//! - `edges`: half-edges stored in twin pairs, so `twin(e) == e ^ 1`; `edges[e].origin` is the
//!   vertex the half-edge starts at, `edges[e].face` the face on its left (seen from outside).
//! - Coplanar triangles are merged: a box hull has 6 quadrilateral faces and 12 edge pairs.
//! - `vertex_edges[v]`: one half-edge leaving vertex `v`; `edges[e ^ 1].next` turns to the
//!   next one around `v` (used for hill-climbing support queries).
//! - Construction ([`ConvexHull::from_points`]) is in `quickhull.rs` (exact triangle hull)
//!   and `hull_faces.rs` (merging into polygons); the mesh from loops is in `hull_mesh.rs`.

use glam::{DMat3, DVec3};

use super::{hull_faces, quickhull, MassProperties};
use crate::error::Result;
use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::{Mat3, Pose, Vec3};

/// Largest number of vertices a single hull face may have (clipping buffers are sized by it).
pub const MAX_FACE_VERTICES: usize = 64;

/// Largest number of vertices a hull built by [`ConvexHull::from_points`] may have.
pub const MAX_HULL_VERTICES: usize = 4096;

/// Distance tolerance of hull construction as a fraction of the point cloud's largest extent:
/// points closer than this to the hull are dropped and faces that agree within it are merged.
pub const HULL_RELATIVE_TOLERANCE: f32 = 1.0e-5;

/// Hulls with more vertices than this find support points by hill climbing over the edges.
const HILL_CLIMB_MIN_VERTICES: usize = 32;

/// An outward face plane: points `p` with `normal·p > offset` are outside.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FacePlane {
    /// Unit outward normal.
    pub normal: Vec3,
    /// Distance of the plane from the local origin along `normal`, metres.
    pub offset: f32,
}

impl FacePlane {
    /// Signed distance of `p` above the plane, metres.
    #[inline]
    pub fn distance(&self, p: Vec3) -> f32 {
        self.normal.dot(p) - self.offset
    }
}

/// One directed edge of the hull's boundary mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HalfEdge {
    /// Vertex the half-edge starts at.
    pub origin: u16,
    /// Next half-edge around the same face (counter-clockwise seen from outside).
    pub next: u16,
    /// Face on this half-edge's left.
    pub face: u16,
}

/// A face of the hull: a convex polygon.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HullFace {
    /// Any half-edge of the face's boundary loop.
    pub first_edge: u16,
}

/// A convex polyhedron built from a point cloud.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ConvexHull {
    /// Hull vertices, local frame, metres.
    pub vertices: Vec<Vec3>,
    /// Half-edges in twin pairs (`twin(e) == e ^ 1`).
    pub edges: Vec<HalfEdge>,
    /// Faces, each with one half-edge of its loop.
    pub faces: Vec<HullFace>,
    /// Outward plane of each face (same index as `faces`).
    pub planes: Vec<FacePlane>,
    /// Local bounds of the vertices.
    pub local_aabb: Aabb,
    /// Centroid of the solid (its centre of mass at uniform density), local frame, metres.
    pub centroid: Vec3,
    /// One half-edge leaving each vertex (same index as `vertices`); the others follow by
    /// `edges[e ^ 1].next`.
    pub vertex_edges: Vec<u16>,
}

impl ConvexHull {
    /// Builds the convex hull of `points` (local frame, metres).
    ///
    /// Interior and duplicate points are dropped, and so are points within the construction
    /// tolerance ([`ConvexHull::tolerance_for`]) of the hull; coplanar and nearly coplanar
    /// triangles are merged into convex polygon faces of at most [`MAX_FACE_VERTICES`]
    /// vertices (a box's 8 corners give 6 quadrilaterals). Every point ends up inside or on
    /// every face plane within the tolerance; the vertices are a subset of `points`, in input
    /// order.
    ///
    /// Errors (field `points` or `points[i][k]`): fewer than 4 points, a coordinate outside
    /// ±[`MAX_SHAPE_SIZE`](super::MAX_SHAPE_SIZE), all points coincident, collinear or coplanar
    /// within the tolerance, or a hull with more than [`MAX_HULL_VERTICES`] vertices.
    pub fn from_points(points: &[Vec3]) -> Result<ConvexHull> {
        quickhull::check_points(points)?;
        let cloud = quickhull::snap(points)?;
        let triangles = quickhull::triangle_hull(&cloud)?;
        hull_faces::polygon_hull(points, &cloud, &triangles)
    }

    /// The distance tolerance (metres) [`ConvexHull::from_points`] uses for `points`: the
    /// larger of [`HULL_RELATIVE_TOLERANCE`] times the largest side of their bounding box and
    /// 16 f32 rounding units of their largest coordinate. `points` should be finite.
    pub fn tolerance_for(points: &[Vec3]) -> f32 {
        quickhull::tolerance_for(points) as f32
    }

    /// A hull with the geometry of a box of `half_extents` (metres; finite and positive),
    /// used by tests and box/hull pairs. Faces: -x, +x, -y, +y, -z, +z; vertex `i` has sign
    /// bits x = bit 0, y = bit 1, z = bit 2 (bit set = positive), as in `Cuboid::corners`.
    pub fn cuboid(half_extents: Vec3) -> ConvexHull {
        let corner = |i: usize| {
            Vec3::new(
                if i & 1 != 0 { 1.0 } else { -1.0 },
                if i & 2 != 0 { 1.0 } else { -1.0 },
                if i & 4 != 0 { 1.0 } else { -1.0 },
            )
        };
        // Faces as CCW vertex loops seen from outside: -x, +x, -y, +y, -z, +z.
        let loops: [[u16; 4]; 6] = [[0, 4, 6, 2], [1, 3, 7, 5], [0, 1, 5, 4], [2, 6, 7, 3], [0, 2, 3, 1], [4, 5, 7, 6]];
        let loops: Vec<Vec<u16>> = loops.iter().map(|l| l.to_vec()).collect();
        // The unit cube's topology is fixed; scaling keeps the planes' normals.
        let mut hull = Self::build_mesh((0..8).map(corner).collect(), &loops, None)
            .expect("the unit cube's loops form a closed mesh");
        let h = half_extents;
        for v in &mut hull.vertices {
            *v *= h;
        }
        for plane in &mut hull.planes {
            plane.offset = plane.normal.abs().dot(h);
        }
        hull.local_aabb = Aabb::new(-h, h);
        hull.centroid = Vec3::ZERO;
        hull
    }

    /// Builds the hull from its faces, given as counter-clockwise vertex-index loops (seen
    /// from outside) of 3 to [`MAX_FACE_VERTICES`] vertices. Plane normals come from Newell's
    /// method, offsets from each face's highest vertex. Fails (field `faces`, `faces[i]` or
    /// `vertices[i]`) when an edge is not shared by exactly two faces running opposite ways,
    /// a vertex is unused, the surface is not closed, or the result is not convex and planar
    /// within [`ConvexHull::tolerance_for`] the vertices.
    pub fn from_face_loops(vertices: Vec<Vec3>, loops: &[Vec<u16>]) -> Result<ConvexHull> {
        let tolerance = if vertices.iter().all(|v| v.is_finite()) { Self::tolerance_for(&vertices) } else { 0.0 };
        let hull = Self::build_mesh(vertices, loops, None)?;
        hull.validate(tolerance)?;
        Ok(hull)
    }

    /// Twin of half-edge `e`.
    #[inline]
    pub fn twin(e: u16) -> u16 {
        e ^ 1
    }

    /// Calls `f` with each vertex index of face `face`, in CCW order seen from outside.
    pub fn for_each_face_vertex(&self, face: usize, mut f: impl FnMut(u16)) {
        let first = self.faces[face].first_edge;
        let mut e = first;
        for _ in 0..MAX_FACE_VERTICES {
            f(self.edges[e as usize].origin);
            e = self.edges[e as usize].next;
            if e == first {
                break;
            }
        }
    }

    /// World bounds at `pose` (exact: the bounds of the transformed vertices).
    pub fn aabb(&self, pose: &Pose) -> Aabb {
        let m = Mat3::from_quat(pose.rotation);
        let mut min = Vec3::splat(f32::INFINITY);
        let mut max = Vec3::splat(f32::NEG_INFINITY);
        for &v in &self.vertices {
            let w = m * v;
            min = min.min(w);
            max = max.max(w);
        }
        Aabb::new(min + pose.position, max + pose.position)
    }

    /// Index of the vertex furthest along `dir` (local frame). Large hulls climb from vertex
    /// 0 along edges to a vertex no neighbour of which is further; on a convex polyhedron
    /// that is a global maximum.
    #[inline]
    pub fn support_index(&self, dir: Vec3) -> usize {
        if self.vertices.len() <= HILL_CLIMB_MIN_VERTICES || self.vertex_edges.len() != self.vertices.len() {
            crate::math::furthest_point(&self.vertices, dir)
        } else {
            self.climb(0, dir)
        }
    }

    /// Hill climbing from vertex `start` towards the support vertex along `dir`: moves to the
    /// furthest neighbour while it is strictly further (so it always ends).
    pub fn climb(&self, start: usize, dir: Vec3) -> usize {
        let mut best = start.min(self.vertices.len().saturating_sub(1));
        let mut best_dot = self.vertices[best].dot(dir);
        loop {
            let mut next_best = best;
            let first = self.vertex_edges[best];
            let mut e = first;
            // A vertex has fewer outgoing edges than there are half-edges.
            for _ in 0..self.edges.len() {
                let twin = self.edges[(e ^ 1) as usize];
                let neighbour = twin.origin as usize;
                let d = self.vertices[neighbour].dot(dir);
                if d > best_dot {
                    best_dot = d;
                    next_best = neighbour;
                }
                e = twin.next;
                if e == first {
                    break;
                }
            }
            if next_best == best {
                return best;
            }
            best = next_best;
        }
    }

    /// The vertex furthest along `dir` (local frame).
    #[inline]
    pub fn support(&self, dir: Vec3) -> Vec3 {
        self.vertices[self.support_index(dir)]
    }

    /// Volume (m³), centroid (m) and the second moment `∫ (x - c)(x - c)ᵀ dV` about the
    /// centroid c (m⁵), in f64.
    ///
    /// Each face is cut into a fan of triangles `(v0, vi, vi+1)`; each triangle and the
    /// reference point `r` (the vertex average, inside the hull) make a tetrahedron with edge
    /// vectors `a, b, c` from `r`. With `det = a·(b × c)` (six times its signed volume) and
    /// `s = a + b + c`:
    ///   volume = det / 6,   ∫ x dV = det/24 · s,
    ///   ∫ x xᵀ dV = det/120 · (a aᵀ + b bᵀ + c cᵀ + s sᵀ)   (x measured from r),
    /// the last one from integrating the linear map of the unit tetrahedron, whose
    /// second moments are ∫x² = 1/60 and ∫xy = 1/120. Summing and shifting to the centroid:
    /// `C = ∫ x xᵀ - V d dᵀ` with `d` the centroid's offset from `r`.
    pub fn volume_integrals(&self) -> (f64, DVec3, DMat3) {
        let count = self.vertices.len().max(1) as f64;
        let reference = self.vertices.iter().map(|v| v.as_dvec3()).sum::<DVec3>() / count;
        let outer = |u: DVec3| DMat3::from_cols(u * u.x, u * u.y, u * u.z);
        let (mut six_volume, mut first, mut second) = (0.0, DVec3::ZERO, DMat3::ZERO);
        let mut face_loop = Vec::with_capacity(MAX_FACE_VERTICES);
        for f in 0..self.faces.len() {
            face_loop.clear();
            self.for_each_face_vertex(f, |v| face_loop.push(self.vertices[v as usize].as_dvec3() - reference));
            for k in 1..face_loop.len().saturating_sub(1) {
                let (a, b, c) = (face_loop[0], face_loop[k], face_loop[k + 1]);
                let det = a.dot(b.cross(c));
                let s = a + b + c;
                six_volume += det;
                first += s * (det / 24.0);
                second += (outer(a) + outer(b) + outer(c) + outer(s)) * (det / 120.0);
            }
        }
        let volume = six_volume / 6.0;
        if volume.is_nan() || volume <= 0.0 {
            return (0.0, reference, DMat3::ZERO);
        }
        let offset = first / volume;
        (volume, reference + offset, second - outer(offset) * volume)
    }

    /// Volume of the solid, m³.
    pub fn volume(&self) -> f32 {
        self.volume_integrals().0 as f32
    }

    /// Uniform-density solid (`density` in kg/m³): mass `ρ V`, centre at the centroid, and
    /// inertia `ρ (tr(C) E - C)` about it, with `C` the second moment of
    /// [`ConvexHull::volume_integrals`].
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        let (volume, centroid, second) = self.volume_integrals();
        let density = density as f64;
        let trace = second.x_axis.x + second.y_axis.y + second.z_axis.z;
        let inertia = (DMat3::from_diagonal(DVec3::splat(trace)) - second) * density;
        MassProperties { mass: (volume * density) as f32, center: centroid.as_vec3(), inertia: inertia.as_mat3() }
    }

    /// Ray cast in the local frame: the ray is clipped by every face plane. Entering through
    /// plane `n·x = d` happens at `t = (d - n·o) / (n·dir)` where `n·dir < 0`, leaving where
    /// `n·dir > 0`; the hit is the last entry if it comes before the first exit and within
    /// `max_t`. A ray starting inside (or on the surface) hits at `t = 0` with the normal
    /// `-direction` normalised.
    pub fn cast_ray(&self, ray: &Ray, max_t: f32) -> Option<RayHit> {
        let (o, d) = (ray.origin, ray.direction);
        let mut t_enter = 0.0f32;
        let mut t_exit = max_t;
        let mut enter_face = None;
        let mut inside = true;
        for (f, plane) in self.planes.iter().enumerate() {
            let distance = plane.distance(o);
            let speed = plane.normal.dot(d);
            inside &= distance <= 0.0;
            if speed < 0.0 {
                let t = -distance / speed;
                if t > t_enter {
                    t_enter = t;
                    enter_face = Some(f);
                }
            } else if speed > 0.0 {
                t_exit = t_exit.min(-distance / speed);
            } else if distance > 0.0 {
                return None;
            }
        }
        if inside {
            return Some(RayHit { t: 0.0, normal: -d.normalize_or(Vec3::Y) });
        }
        let face = enter_face?;
        (t_enter <= t_exit).then(|| RayHit { t: t_enter, normal: self.planes[face].normal })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{assert_valid_hull, check_aabb_against_support, check_rays_against_marching, Lcg};
    use super::super::{Cuboid, Cylinder, Shape, Sphere};
    use super::*;
    use crate::math::Quat;
    use std::sync::Arc;

    /// Largest absolute difference between two matrices' entries.
    fn matrix_gap(a: Mat3, b: Mat3) -> f32 {
        (a - b).to_cols_array().iter().fold(0.0, |m, x| m.max(x.abs()))
    }

    fn largest_entry(a: Mat3) -> f32 {
        a.to_cols_array().iter().fold(0.0, |m, x| m.max(x.abs()))
    }

    /// Mass within `rel`, centre within `rel * size`, inertia within `rel` of its largest entry.
    fn assert_mass_close(got: &MassProperties, want: &MassProperties, size: f32, rel: f32) {
        assert!((got.mass - want.mass).abs() <= rel * want.mass, "mass {got:?} vs {want:?}");
        assert!((got.center - want.center).length() <= rel * size, "centre {got:?} vs {want:?}");
        let gap = matrix_gap(got.inertia, want.inertia);
        assert!(gap <= rel * largest_entry(want.inertia), "inertia {got:?} vs {want:?}");
    }

    #[test]
    fn cuboid_hull_topology() {
        let hull = ConvexHull::cuboid(Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(hull.vertices.len(), 8);
        assert_eq!(hull.faces.len(), 6);
        assert_eq!(hull.edges.len(), 24);
        for (f, plane) in hull.planes.iter().enumerate() {
            // Every vertex of the face lies on its plane; every other vertex is below.
            let mut on_face = Vec::new();
            hull.for_each_face_vertex(f, |v| on_face.push(v));
            assert_eq!(on_face.len(), 4);
            for (i, &v) in hull.vertices.iter().enumerate() {
                let d = plane.distance(v);
                if on_face.contains(&(i as u16)) {
                    assert!(d.abs() < 1e-6);
                } else {
                    assert!(d < -1e-3);
                }
            }
        }
        for (e, edge) in hull.edges.iter().enumerate() {
            let twin = hull.edges[e ^ 1];
            assert_ne!(edge.face, twin.face);
            // The twin starts where this edge ends.
            assert_eq!(twin.origin, hull.edges[edge.next as usize].origin);
        }
        assert_eq!(hull.vertices, Cuboid { half_extents: Vec3::new(1.0, 2.0, 3.0) }.corners());
        assert_valid_hull(&hull, &hull.vertices.clone(), 1e-6);
    }

    #[test]
    fn box_hull_mass_matches_the_box_formula() {
        let h = Vec3::new(0.5, 1.0, 1.5);
        let want = Cuboid { half_extents: h }.mass_properties(2.0);
        // Textbook m (b² + c²) / 12 with full sides 1, 2, 3: m = 12, I = (13, 10, 5).
        assert!((want.mass - 12.0).abs() < 1e-5);
        assert!(matrix_gap(want.inertia, Mat3::from_diagonal(Vec3::new(13.0, 10.0, 5.0))) < 1e-5);
        let corners = Cuboid { half_extents: h }.corners();
        let from_points = ConvexHull::from_points(&corners).unwrap();
        for hull in [ConvexHull::cuboid(h), from_points] {
            assert_mass_close(&hull.mass_properties(2.0), &want, 3.0, 1e-6);
            assert!((hull.volume() - 6.0).abs() < 1e-5);
        }
    }

    #[test]
    fn tetrahedron_mass_matches_closed_forms() {
        // Right tetrahedron (0, x, y, z): V = 1/6, centroid 1/4 (1, 1, 1); about the centroid
        // I_xx = 1/30 - V (3/16 - 1/16) = 1/80 and I_xy = -1/120 + V/16 = 1/480.
        let right = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
        let loops = vec![vec![0, 2, 1], vec![0, 1, 3], vec![0, 3, 2], vec![1, 2, 3]];
        let by_loops = ConvexHull::from_face_loops(right.to_vec(), &loops).unwrap();
        let by_points = ConvexHull::from_points(&right).unwrap();
        let (d, o) = (1.0 / 80.0, 1.0 / 480.0);
        let inertia = Mat3::from_cols(Vec3::new(d, o, o), Vec3::new(o, d, o), Vec3::new(o, o, d));
        let want = MassProperties { mass: 1.0 / 6.0, center: Vec3::splat(0.25), inertia };
        for hull in [by_loops, by_points] {
            assert_mass_close(&hull.mass_properties(1.0), &want, 1.0, 1e-5);
        }
        // Regular tetrahedron of edge a: V = a³ / (6 √2), isotropic I = m a² / 20 about the
        // centroid; placed off the origin and rotated, with density 3.
        let a = 2.0 * 2f32.sqrt();
        let pose = Pose::new(Vec3::new(5.0, -2.0, 1.0), Quat::from_rotation_y(0.4));
        let regular: Vec<Vec3> = [[1.0, 1.0, 1.0], [1.0, -1.0, -1.0], [-1.0, 1.0, -1.0], [-1.0, -1.0, 1.0]]
            .iter()
            .map(|&c| pose.transform_point(Vec3::from_array(c)))
            .collect();
        let mass = 3.0 * a * a * a / (6.0 * 2f32.sqrt());
        let want = MassProperties::new(mass, pose.position, Vec3::splat(mass * a * a / 20.0));
        let hull = ConvexHull::from_points(&regular).unwrap();
        assert_mass_close(&hull.mass_properties(3.0), &want, 2.0, 1e-5);
        assert!((hull.centroid - pose.position).length() < 1e-5);
    }

    /// Fibonacci lattice: `count` nearly even points on a sphere of `radius`.
    fn sphere_points(count: usize, radius: f32) -> Vec<Vec3> {
        let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
        (0..count)
            .map(|i| {
                let y = 1.0 - 2.0 * (i as f32 + 0.5) / count as f32;
                let ring = (1.0 - y * y).sqrt();
                let angle = golden * i as f32;
                Vec3::new(ring * angle.cos(), y, ring * angle.sin()) * radius
            })
            .collect()
    }

    #[test]
    fn sampled_cylinder_and_sphere_approach_the_analytic_mass() {
        // A 64-gon prism has N sin(2π/N) / 2π = 0.9984 of the cylinder's volume, and a
        // similar share of its inertia: 0.5 % on mass, 1 % on inertia.
        let (h, r) = (0.8, 0.5);
        let mut points = Vec::new();
        for k in 0..64 {
            let angle = k as f32 / 64.0 * std::f32::consts::TAU;
            for y in [-h, h] {
                points.push(Vec3::new(r * angle.cos(), y, r * angle.sin()));
            }
        }
        let hull = ConvexHull::from_points(&points).unwrap();
        let got = hull.mass_properties(5.0);
        let want = Cylinder { half_height: h, radius: r }.mass_properties(5.0);
        assert!((got.mass / want.mass - 1.0).abs() < 5e-3);
        assert!(got.mass < want.mass, "an inscribed prism is lighter");
        assert_mass_close(&got, &want, 1.0, 1e-2);
        // 2000 points on a sphere: inscribed facets ~0.08 r across lose ~0.3 % of the volume.
        let hull = ConvexHull::from_points(&sphere_points(2000, 1.5)).unwrap();
        let got = hull.mass_properties(5.0);
        let want = Sphere { radius: 1.5 }.mass_properties(5.0);
        assert!((got.mass / want.mass - 1.0).abs() < 1e-2 && got.mass < want.mass);
        assert_mass_close(&got, &want, 1.5, 1.5e-2);
    }

    #[test]
    fn moved_hull_mass_matches_transformed_mass() {
        let mut rng = Lcg::new(21);
        for _ in 0..10 {
            let local: Vec<Vec3> = (0..60).map(|_| rng.in_box(Vec3::new(1.0, 0.4, 0.7))).collect();
            let pose = rng.pose(8.0);
            let moved: Vec<Vec3> = local.iter().map(|&p| pose.transform_point(p)).collect();
            let want = ConvexHull::from_points(&local).unwrap().mass_properties(2.5).transformed(&pose);
            let got = ConvexHull::from_points(&moved).unwrap().mass_properties(2.5);
            assert_mass_close(&got, &want, 1.0, 1e-4);
        }
    }

    #[test]
    fn support_matches_brute_force() {
        let mut rng = Lcg::new(4);
        let clouds: [Vec<Vec3>; 3] = [
            (0..40).map(|_| rng.in_box(Vec3::new(1.0, 2.0, 0.5))).collect(),
            sphere_points(1500, 2.0),
            (0..3000).map(|_| rng.in_ball() * 3.0 + Vec3::X * 10.0).collect(),
        ];
        for points in &clouds {
            let hull = ConvexHull::from_points(points).unwrap();
            let tolerance = ConvexHull::tolerance_for(points);
            for _ in 0..300 {
                let dir = rng.direction() * rng.range(0.1, 10.0);
                let best_vertex = hull.vertices.iter().map(|v| v.dot(dir)).fold(f32::NEG_INFINITY, f32::max);
                let best_point = points.iter().map(|v| v.dot(dir)).fold(f32::NEG_INFINITY, f32::max);
                let got = hull.support(dir).dot(dir);
                assert!((got - best_vertex).abs() <= 1e-5 * best_vertex.abs().max(1.0));
                assert!(got >= best_point - tolerance * dir.length());
            }
        }
    }

    #[test]
    fn aabb_holds_support_points() {
        let mut rng = Lcg::new(8);
        let small: Vec<Vec3> = (0..30).map(|_| rng.in_box(Vec3::new(1.0, 2.0, 0.5))).collect();
        for points in [small, sphere_points(200, 1.0)] {
            let shape = Shape::ConvexHull(Arc::new(ConvexHull::from_points(&points).unwrap()));
            check_aabb_against_support(&shape, 31, 1e-5);
        }
    }

    #[test]
    fn box_hull_ray_casts_match_the_box() {
        let mut rng = Lcg::new(12);
        let h = Vec3::new(0.5, 1.0, 1.5);
        let cuboid = Cuboid { half_extents: h };
        let hulls = [ConvexHull::cuboid(h), ConvexHull::from_points(&cuboid.corners()).unwrap()];
        let (mut hits, mut misses) = (0, 0);
        for _ in 0..1000 {
            let origin = rng.in_box(Vec3::splat(4.0));
            let target = rng.in_box(h * 1.5);
            let ray = Ray::new(origin, (target - origin) * rng.range(0.2, 3.0));
            let max_t = rng.range(0.2, 3.0);
            let want = cuboid.cast_ray(&ray, max_t);
            for hull in &hulls {
                match (hull.cast_ray(&ray, max_t), want) {
                    (None, None) => misses += 1,
                    (Some(got), Some(want)) => {
                        hits += 1;
                        assert!((got.t - want.t).abs() <= 1e-4, "{got:?} vs {want:?}");
                        assert!((got.normal - want.normal).length() <= 1e-4, "{got:?} vs {want:?}");
                    }
                    (got, want) => panic!("{got:?} vs {want:?} for {ray:?}"),
                }
            }
        }
        assert!(hits > 200 && misses > 200);
    }

    #[test]
    fn hull_ray_casts_match_marching() {
        let mut rng = Lcg::new(13);
        let points: Vec<Vec3> = (0..50).map(|_| rng.in_ball() * 2.0).collect();
        let hull = ConvexHull::from_points(&points).unwrap();
        let inside = |p: Vec3| hull.planes.iter().all(|plane| plane.distance(p) <= 0.0);
        // The face a surface point lies on: the plane it is closest to (zero near edges).
        let normal_at = |p: Vec3| {
            let mut distances: Vec<(f32, Vec3)> =
                hull.planes.iter().map(|pl| (pl.distance(p).abs(), pl.normal)).collect();
            distances.sort_by(|a, b| a.0.total_cmp(&b.0));
            if distances[1].0 < 1e-3 {
                Vec3::ZERO
            } else {
                distances[0].1
            }
        };
        check_rays_against_marching(&|ray, t| hull.cast_ray(ray, t), &inside, &normal_at, 2.0, 14);
    }

    #[test]
    fn face_loops_are_checked() {
        let cube = Cuboid { half_extents: Vec3::ONE }.corners().to_vec();
        let good: Vec<Vec<u16>> = [[0, 4, 6, 2], [1, 3, 7, 5], [0, 1, 5, 4], [2, 6, 7, 3], [0, 2, 3, 1], [4, 5, 7, 6]]
            .iter()
            .map(|l| l.to_vec())
            .collect();
        assert!(ConvexHull::from_face_loops(cube.clone(), &good).is_ok());
        let mut open = good.clone();
        open.pop();
        let e = ConvexHull::from_face_loops(cube.clone(), &open).unwrap_err();
        assert_eq!(e.field, "faces", "{e}");
        let mut inverted = good.clone();
        inverted[2].reverse();
        assert_eq!(ConvexHull::from_face_loops(cube.clone(), &inverted).unwrap_err().field, "faces");
        let mut dented = cube.clone();
        dented[7] = Vec3::splat(0.5);
        let e = ConvexHull::from_face_loops(dented, &good).unwrap_err();
        assert!(e.field.starts_with("faces["), "{e}");
        let mut short = good.clone();
        short[0] = vec![0, 4];
        assert_eq!(ConvexHull::from_face_loops(cube, &short).unwrap_err().field, "faces[0]");
    }
}
