//! Triangle meshes: level geometry for static and kinematic bodies.

use std::fmt;

use super::bvh::Bvh;
use super::mesh_build::{self, MeshView, TrianglesAround};
use super::triangle::{face_normal, Triangle, TriangleSurface};
use crate::error::{check_vec3, component, Error, Result};
use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::Vec3;

/// Vertices closer than this fraction of the mesh's bounding-box diagonal are welded into one.
pub const WELD_TOLERANCE: f32 = 1e-6;
/// A boundary edge within this fraction of the diagonal of another triangle's edge lies on it
/// (a T-junction).
pub const T_JUNCTION_TOLERANCE: f32 = 1e-5;
/// A triangle whose area is below this fraction of its longest edge squared is degenerate:
/// its corners are collinear to within a 10⁻⁶ rad angle.
const DEGENERATE_AREA: f32 = 1e-6;

/// Where a mesh was read from, so that saving a scene writes the reference, not the triangles.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MeshFile {
    /// The file as the scene names it (relative to the scene file's directory, or absolute).
    pub file: String,
    /// Scale applied to the file's vertices (per axis, positive).
    pub scale: Vec3,
}

/// A triangle mesh in its collider's local frame, for static and kinematic bodies (it has no
/// volume, hence no mass).
///
/// Valid input: at least one triangle; finite vertices; indices below the vertex count; no
/// triangle of zero area (after welding). Vertices closer than [`WELD_TOLERANCE`] times the
/// bounding-box diagonal are welded into one, so triangles that meet there share an edge.
/// A triangle's front face is the side from which its corners run counter-clockwise; a
/// one-sided mesh (the default) collides on its front faces only, a two-sided one on both.
///
/// Built once: the face normals, which edges and vertices are active (see [`Triangle`]), and
/// a bounding-volume hierarchy over the triangles (binned SAH) for box and ray queries.
#[derive(Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TriMesh {
    vertices: Vec<Vec3>,
    indices: Vec<[u32; 3]>,
    normals: Vec<Vec3>,
    /// Per triangle: bits 0–2 active edges, bits 3–5 active vertices.
    flags: Vec<u8>,
    /// The triangles around each vertex: the surface's adjacency.
    around: TrianglesAround,
    two_sided: bool,
    bvh: Bvh,
    source: Option<MeshFile>,
}

impl TriMesh {
    /// A mesh from vertices and counter-clockwise index triples; validates, welds close
    /// vertices, and builds adjacency, edge flags and the hierarchy.
    pub fn new(vertices: Vec<Vec3>, indices: Vec<[u32; 3]>, two_sided: bool) -> Result<TriMesh> {
        check_input(&vertices, &indices)?;
        let extent = Aabb::of_points(&vertices);
        let size = (extent.max - extent.min).length();
        let (vertices, remap) = mesh_build::weld(&vertices, WELD_TOLERANCE * size);
        let indices: Vec<[u32; 3]> = indices.iter().map(|t| t.map(|i| remap[i as usize])).collect();
        let mut normals = Vec::with_capacity(indices.len());
        for (t, corners) in indices.iter().enumerate() {
            let corners = corners.map(|i| vertices[i as usize]);
            normals.push(checked_normal(&corners).map_err(|e| e.within(&component("indices", t)))?);
        }
        let boxes: Vec<Aabb> = indices.iter().map(|t| Aabb::of_points(&t.map(|i| vertices[i as usize]))).collect();
        let bvh = Bvh::build(&boxes);
        let view = MeshView {
            vertices: &vertices,
            indices: &indices,
            normals: &normals,
            bvh: &bvh,
            tolerance: T_JUNCTION_TOLERANCE * size,
        };
        let around = TrianglesAround::new(vertices.len(), &indices);
        let flags = mesh_build::active_flags(&view, &around);
        Ok(TriMesh { vertices, indices, normals, flags, around, two_sided, bvh, source: None })
    }

    /// Checks a mesh restored from a snapshot, which was stored as built, not rebuilt: at
    /// input [`TriMesh::new`] accepts; one finite normal and one flag byte per triangle; the
    /// adjacency it would build; a hierarchy over exactly these triangles (O(n), no rebuild).
    pub(crate) fn check_stored(&self) -> Result<()> {
        check_input(&self.vertices, &self.indices)?;
        let count = self.indices.len();
        if self.normals.len() != count || self.flags.len() != count {
            return Err(Error::new("normals", "needs a normal and flags for each triangle"));
        }
        if let Some(t) = self.normals.iter().position(|n| !n.is_finite()) {
            return Err(Error::new(component("normals", t), "not finite"));
        }
        self.around.check_stored(self.vertices.len(), &self.indices)?;
        self.bvh.check_stored(count)
    }

    /// The same mesh, remembered as read from `source` (saved as that reference).
    pub(crate) fn with_source(mut self, source: MeshFile) -> TriMesh {
        self.source = Some(source);
        self
    }

    /// The vertices after welding, local frame, metres.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// The triangles as counter-clockwise vertex index triples (into [`TriMesh::vertices`]).
    pub fn indices(&self) -> &[[u32; 3]] {
        &self.indices
    }

    /// True when both faces collide.
    pub fn two_sided(&self) -> bool {
        self.two_sided
    }

    /// The file the mesh was read from, if any.
    pub fn source(&self) -> Option<&MeshFile> {
        self.source.as_ref()
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len()
    }

    /// Triangle `index` (< [`TriMesh::triangle_count`]) with its normal and flags.
    pub fn triangle(&self, index: u32) -> Triangle {
        let i = index as usize;
        let flags = self.flags[i];
        Triangle {
            vertices: self.indices[i].map(|v| self.vertices[v as usize]),
            normal: self.normals[i],
            active_edges: flags & 0b111,
            active_vertices: flags >> 3,
            two_sided: self.two_sided,
        }
    }

    /// Bounds of the triangles, local frame.
    pub fn local_aabb(&self) -> Aabb {
        self.bvh.bounds()
    }

    /// Calls `visit(index, triangle)` for every triangle whose bounds overlap `local` (shape
    /// frame); stops early when `visit` returns false.
    pub fn for_each_triangle_in(&self, local: &Aabb, mut visit: impl FnMut(u32, &Triangle) -> bool) {
        self.bvh.query(local, |index| {
            let triangle = self.triangle(index);
            !triangle.aabb().overlaps(local) || visit(index, &triangle)
        });
    }

    /// The first triangle the ray hits within `max_t` (local frame) and its index. The hit
    /// normal is the face normal facing the ray; a one-sided mesh is not hit from behind.
    pub fn cast_ray_local(&self, ray: &Ray, max_t: f32) -> Option<(RayHit, u32)> {
        let cast = |index: u32, limit: f32| self.triangle(index).cast_ray(ray, limit);
        let (index, t) = self.bvh.cast_ray(ray, max_t, |index, limit| cast(index, limit).map(|hit| hit.t))?;
        cast(index, t).map(|hit| (hit, index))
    }
}

impl TriangleSurface for TriMesh {
    fn for_each_triangle_in(&self, local: &Aabb, visit: impl FnMut(u32, &Triangle) -> bool) {
        TriMesh::for_each_triangle_in(self, local, visit)
    }

    fn far_corner(&self, index: u32, edge: usize) -> Option<Vec3> {
        let mut across = self.around.across(&self.indices, index as usize, edge);
        match (across.next(), across.next()) {
            (Some(corner), None) => Some(self.vertices[corner as usize]),
            _ => None,
        }
    }

    fn any_corner_joined(&self, index: u32, corner: usize, mut test: impl FnMut(Vec3) -> bool) -> bool {
        let vertex = self.indices[index as usize][corner];
        self.around
            .of(vertex)
            .iter()
            .any(|&t| self.indices[t as usize].iter().any(|&v| v != vertex && test(self.vertices[v as usize])))
    }
}

/// Shows the sizes, not the million triangles.
impl fmt::Debug for TriMesh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TriMesh")
            .field("vertices", &self.vertices.len())
            .field("triangles", &self.indices.len())
            .field("two_sided", &self.two_sided)
            .field("source", &self.source)
            .finish()
    }
}

/// At least one triangle, finite vertices, indices in range.
fn check_input(vertices: &[Vec3], indices: &[[u32; 3]]) -> Result<()> {
    if indices.is_empty() {
        return Err(Error::new("indices", "a mesh needs at least one triangle"));
    }
    // The fast test first: naming the field allocates.
    for (i, &vertex) in vertices.iter().enumerate().filter(|(_, v)| !v.is_finite()) {
        check_vec3(&component("vertices", i), vertex)?;
    }
    for (t, corners) in indices.iter().enumerate().filter(|(_, t)| t.iter().any(|&i| i as usize >= vertices.len())) {
        for (k, &index) in corners.iter().enumerate() {
            if index as usize >= vertices.len() {
                return Err(Error::new(
                    component(&component("indices", t), k),
                    format!("vertex index {index} is out of range: the mesh has {} vertices", vertices.len()),
                ));
            }
        }
    }
    Ok(())
}

/// The unit normal of a triangle, or why it has none: area below [`DEGENERATE_AREA`] times
/// the longest edge squared (the error names no field; the caller adds the triangle's).
fn checked_normal(corners: &[Vec3; 3]) -> Result<Vec3> {
    let cross = face_normal(corners);
    let [a, b, c] = *corners;
    let longest = a.distance_squared(b).max(b.distance_squared(c)).max(c.distance_squared(a));
    if cross.length() <= DEGENERATE_AREA * longest {
        return Err(Error::new(
            "",
            format!("degenerate triangle (zero area): its corners {a}, {b}, {c} are collinear or closer than the weld tolerance"),
        ));
    }
    Ok(cross.normalize())
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{grid_mesh, Lcg};
    use super::*;

    fn flat(_: f32, _: f32) -> f32 {
        0.0
    }

    /// Each triangle's corners as separate vertices (a "soup" that only welding can join).
    fn soup(vertices: &[Vec3], indices: &[[u32; 3]]) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let corners = indices.iter().flat_map(|t| t.map(|i| vertices[i as usize])).collect();
        (corners, (0..indices.len() as u32).map(|t| [3 * t, 3 * t + 1, 3 * t + 2]).collect())
    }

    /// The unordered pair of corners of every edge with the given activity.
    fn edges(mesh: &TriMesh, active: bool) -> Vec<(Vec3, Vec3)> {
        let mut found = Vec::new();
        for t in 0..mesh.triangle_count() as u32 {
            let triangle = mesh.triangle(t);
            for e in (0..3).filter(|&e| triangle.edge_is_active(e) == active) {
                found.push((triangle.vertices[e], triangle.vertices[(e + 1) % 3]));
            }
        }
        found
    }

    #[test]
    fn bad_meshes_are_refused_naming_the_value() {
        let v = vec![Vec3::ZERO, Vec3::X, Vec3::Z, Vec3::new(2.0, 0.0, 0.0)];
        let error = |vertices: Vec<Vec3>, indices: Vec<[u32; 3]>| TriMesh::new(vertices, indices, false).unwrap_err();
        let none = error(v.clone(), vec![]);
        assert_eq!((none.field.as_str(), none.reason.contains("at least one triangle")), ("indices", true));
        let range = error(v.clone(), vec![[0, 2, 1], [0, 2, 7]]);
        assert_eq!(range.field, "indices[1][2]");
        assert!(range.reason.contains("vertex index 7 is out of range: the mesh has 4 vertices"), "{range}");
        let degenerate = error(v.clone(), vec![[0, 2, 1], [0, 1, 3]]);
        assert_eq!(degenerate.field, "indices[1]");
        assert!(degenerate.reason.contains("degenerate triangle (zero area)"), "{degenerate}");
        let repeated = error(v.clone(), vec![[0, 0, 1]]);
        assert_eq!(repeated.field, "indices[0]");
        let mut nan = v.clone();
        nan[2].y = f32::NAN;
        assert_eq!(error(nan, vec![[0, 2, 1]]).field, "vertices[2][1]");
        // Corners closer than the weld tolerance collapse and leave a degenerate triangle.
        let welded = error(
            vec![Vec3::ZERO, Vec3::new(100.0, 0.0, 0.0), Vec3::new(50.0, 1e-5, 0.0), Vec3::Z * 100.0],
            vec![[0, 3, 1], [0, 2, 1]],
        );
        assert_eq!(welded.field, "indices[1]");
    }

    /// A flat 4 × 4-cell grid: the inner edges are flat (inactive), the border edges active;
    /// only border vertices are active. A soup of the same triangles welds to the same mesh.
    #[test]
    fn a_flat_grid_has_only_its_border_active() {
        let (vertices, indices) = grid_mesh(5, 5, Vec3::ONE, &flat);
        let mesh = TriMesh::new(vertices.clone(), indices.clone(), false).unwrap();
        let on_border = |p: Vec3| p.x.abs() == 2.0 || p.z.abs() == 2.0;
        for (a, b) in edges(&mesh, true) {
            assert!(on_border(a) && on_border(b) && (a.x == b.x || a.z == b.z), "{a} {b}");
        }
        assert_eq!(edges(&mesh, true).len(), 16);
        for t in 0..mesh.triangle_count() as u32 {
            let triangle = mesh.triangle(t);
            assert_eq!(triangle.normal, Vec3::Y);
            for (k, &corner) in triangle.vertices.iter().enumerate() {
                assert_eq!(triangle.vertex_is_active(k), on_border(corner), "{corner}");
            }
        }
        let (corners, soup_indices) = soup(&vertices, &indices);
        let welded = TriMesh::new(corners, soup_indices, false).unwrap();
        assert_eq!(welded.vertices().len(), 25);
        for t in 0..mesh.triangle_count() as u32 {
            assert_eq!(welded.triangle(t), mesh.triangle(t));
        }
    }

    /// A cube of 12 outward triangles: its 12 edges are convex (active), the 6 face diagonals
    /// flat (inactive), all corners active.
    #[test]
    fn a_cube_has_convex_edges_and_flat_diagonals() {
        let corners: Vec<Vec3> = (0..8)
            .map(|k| Vec3::new((k & 1) as f32, ((k >> 1) & 1) as f32, ((k >> 2) & 1) as f32) * 2.0 - 1.0)
            .collect();
        let mut indices = Vec::new();
        for axis in 0..3 {
            for side in [-1.0, 1.0] {
                let mut face: Vec<u32> = (0..8).filter(|&k| corners[k as usize][axis] == side).collect();
                let normal = Vec3::AXES[axis] * side;
                let (u, _) = crate::math::orthonormal_basis(normal);
                let v = normal.cross(u);
                face.sort_by(|&a, &b| {
                    let angle = |k: u32| corners[k as usize].dot(v).atan2(corners[k as usize].dot(u));
                    angle(a).total_cmp(&angle(b))
                });
                indices.push([face[0], face[1], face[2]]);
                indices.push([face[0], face[2], face[3]]);
            }
        }
        let mesh = TriMesh::new(corners, indices, false).unwrap();
        let differing = |(a, b): (Vec3, Vec3)| (a - b).abs().cmpgt(Vec3::splat(0.5)).bitmask().count_ones();
        let active = edges(&mesh, true);
        assert_eq!(active.len(), 24); // each cube edge seen from both faces
        assert!(active.into_iter().all(|e| differing(e) == 1));
        assert!(edges(&mesh, false).into_iter().all(|e| differing(e) == 2));
        for t in 0..12 {
            let triangle = mesh.triangle(t);
            assert!(triangle.normal.dot(triangle.vertices[0]) > 0.0, "outward");
            assert_eq!(triangle.active_vertices, 0b111);
        }
    }

    /// Two slopes meeting along z at x = 0: a groove (V, concave) leaves the shared edge
    /// inactive, a ridge (Λ, convex) makes it active.
    #[test]
    fn grooves_are_concave_and_ridges_convex() {
        for (ridge, height) in [(false, 1.0), (true, -1.0)] {
            let vertices = vec![
                Vec3::new(-1.0, height, 0.0),
                Vec3::new(-1.0, height, 1.0),
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(0.0, 0.0, 1.0),
                Vec3::new(1.0, height, 0.0),
                Vec3::new(1.0, height, 1.0),
            ];
            let indices = vec![[0, 1, 3], [0, 3, 2], [2, 3, 5], [2, 5, 4]];
            let mesh = TriMesh::new(vertices, indices, false).unwrap();
            assert!(mesh.triangle(0).normal.y > 0.0 && mesh.triangle(2).normal.y > 0.0);
            let middle = |(a, b): &(Vec3, Vec3)| a.x == 0.0 && b.x == 0.0;
            assert_eq!(
                edges(&mesh, true).iter().filter(|e| middle(e)).count(),
                if ridge { 2 } else { 0 },
                "ridge {ridge}"
            );
            assert_eq!(edges(&mesh, false).iter().filter(|e| middle(e)).count(), if ridge { 0 } else { 2 });
        }
    }

    /// A floor whose left half is one 1 × 2 m quad and whose right half is two 1 × 1 m quads:
    /// the left quad's long edge at x = 1 meets the right quads' short edges and the vertex
    /// (1, 0, 1) lies on it (a T-junction). Flat, those edges and that vertex are inactive;
    /// with the right half sloping down 30°, they are convex and active.
    #[test]
    fn t_junctions_are_classified_against_the_edge_they_lie_on() {
        for slope in [0.0f32, 30f32.to_radians()] {
            let drop = |x: f32| -(x - 1.0).max(0.0) * slope.tan();
            let p = |x: f32, z: f32| Vec3::new(x, drop(x), z);
            let vertices = vec![
                p(0.0, 0.0),
                p(0.0, 2.0),
                p(1.0, 0.0),
                p(1.0, 2.0),
                p(1.0, 1.0),
                p(2.0, 0.0),
                p(2.0, 1.0),
                p(2.0, 2.0),
            ];
            let indices = vec![[0, 1, 3], [0, 3, 2], [2, 4, 6], [2, 6, 5], [4, 3, 7], [4, 7, 6]];
            let mesh = TriMesh::new(vertices, indices, false).unwrap();
            let seam = |(a, b): &(Vec3, Vec3)| a.x == 1.0 && b.x == 1.0;
            let expected_active = slope > 0.0;
            let (active, inactive) = (edges(&mesh, true), edges(&mesh, false));
            assert_eq!(active.iter().filter(|e| seam(e)).count(), if expected_active { 3 } else { 0 }, "slope {slope}");
            assert_eq!(inactive.iter().filter(|e| seam(e)).count(), if expected_active { 0 } else { 3 });
            // The T-junction vertex: corner 1 of triangle 2 ([2, 4, 6]).
            assert_eq!(mesh.triangle(2).vertices[1], p(1.0, 1.0));
            assert_eq!(mesh.triangle(2).vertex_is_active(1), expected_active);
        }
    }

    /// Box queries visit exactly the triangles whose boxes overlap the query, each once, and
    /// stop when asked.
    #[test]
    fn box_queries_match_brute_force() {
        let mut rng = Lcg::new(21);
        for count in [1, 7, 400] {
            let mut vertices = Vec::new();
            let mut indices = Vec::new();
            for t in 0..count as u32 {
                let center = rng.in_box(Vec3::splat(10.0));
                vertices.extend((0..3).map(|_| center + rng.in_box(Vec3::ONE)));
                indices.push([3 * t, 3 * t + 1, 3 * t + 2]);
            }
            let mesh = TriMesh::new(vertices, indices, rng.unit() < 0.5).unwrap();
            for _ in 0..100 {
                let query =
                    Aabb::from_center_half_extents(rng.in_box(Vec3::splat(11.0)), rng.in_box(Vec3::splat(3.0)).abs());
                let mut found = Vec::new();
                mesh.for_each_triangle_in(&query, |index, triangle| {
                    assert_eq!(*triangle, mesh.triangle(index));
                    found.push(index);
                    true
                });
                found.sort_unstable();
                let expected: Vec<u32> =
                    (0..count as u32).filter(|&t| mesh.triangle(t).aabb().overlaps(&query)).collect();
                assert_eq!(found, expected);
                let mut visits = 0;
                mesh.for_each_triangle_in(&query, |_, _| {
                    visits += 1;
                    false
                });
                assert_eq!(visits, expected.len().min(1));
            }
        }
    }

    /// The tilted plane y = 0.3x + 0.2z + 1 as a 6 × 6-sample grid of 1 m cells (x, z in
    /// [−2.5, 2.5]): a ray hits at t = (0.3o_x + 0.2o_z + 1 − o_y) / (d_y − 0.3d_x − 0.2d_z)
    /// with the normal (−0.3, 1, −0.2)/|…|, on the triangle whose cell half holds the point.
    /// Rays along cell borders and diagonals hit too; from below a one-sided mesh lets rays
    /// through, a two-sided one is hit with the normal reversed.
    #[test]
    fn ray_casts_match_the_analytic_plane() {
        let plane = |x: f32, z: f32| 0.3 * x + 0.2 * z + 1.0;
        let normal = Vec3::new(-0.3, 1.0, -0.2).normalize();
        let (vertices, indices) = grid_mesh(6, 6, Vec3::ONE, &plane);
        let one_sided = TriMesh::new(vertices.clone(), indices.clone(), false).unwrap();
        let two_sided = TriMesh::new(vertices, indices, true).unwrap();
        let analytic = |ray: &Ray| {
            let (o, d) = (ray.origin, ray.direction);
            (plane(o.x, o.z) - o.y) / (d.y - 0.3 * d.x - 0.2 * d.z)
        };
        let expected_triangle = |p: Vec3| {
            let (u, w) = (p.x + 2.5, p.z + 2.5);
            let (j, i) = (u.floor().min(4.0), w.floor().min(4.0));
            let half = u32::from(u - j > w - i);
            (
                2 * (i as u32 * 5 + j as u32) + half,
                (u - j - (w - i)).abs().min((u - u.round()).abs()).min((w - w.round()).abs()),
            )
        };
        let mut rng = Lcg::new(4);
        let mut hits = 0;
        for k in 0..400 {
            let target = Vec3::new(rng.range(-2.4, 2.4), 0.0, rng.range(-2.4, 2.4));
            let target = match k % 4 {
                0 => Vec3::new(target.x.round() - 0.5, 0.0, target.z), // on a grid line x = const
                1 => Vec3::new(target.x, 0.0, target.z.round() - 0.5), // on a grid line z = const
                _ => target,
            };
            let target = Vec3::new(target.x, plane(target.x, target.z), target.z);
            let direction = if k % 8 < 2 {
                Vec3::new(0.0, -1.0, 0.0)
            } else {
                rng.direction() * Vec3::new(1.0, 0.0, 1.0) - Vec3::Y * rng.range(0.5, 2.0)
            };
            let ray = Ray::new(target - direction * rng.range(0.5, 3.0), direction);
            let (hit, index) = one_sided.cast_ray_local(&ray, 10.0).unwrap_or_else(|| panic!("missed {ray:?}"));
            assert!((hit.t - analytic(&ray)).abs() < 1e-4, "{} vs {}", hit.t, analytic(&ray));
            assert!((ray.at(hit.t) - target).length() < 1e-4);
            assert!((hit.normal - normal).length() < 1e-5);
            let (want, margin) = expected_triangle(ray.at(hit.t));
            if margin > 1e-3 {
                assert_eq!(index, want);
            }
            assert_eq!(two_sided.cast_ray_local(&ray, 10.0), Some((hit, index)));
            let from_below = Ray::new(target + direction * 2.0, -direction);
            assert_eq!(one_sided.cast_ray_local(&from_below, 10.0), None);
            let (back, _) = two_sided.cast_ray_local(&from_below, 10.0).unwrap();
            assert!(
                (back.normal + normal).length() < 1e-5
                    && (back.t * direction.length() - 2.0 * direction.length()).abs() < 1e-4
            );
            assert_eq!(one_sided.cast_ray_local(&ray, 0.9 * analytic(&ray)), None);
            hits += 1;
        }
        assert_eq!(hits, 400);
    }

    /// Not a test of speed (no assertion): prints how long a 1,000,000-triangle mesh takes to
    /// build. `cargo test --release -p fulcrum --lib building_a_million -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn building_a_million_triangles_prints_its_time() {
        let (vertices, indices) = grid_mesh(708, 708, Vec3::ONE, &|x, z| 2.0 * (0.1 * x).sin() * (0.13 * z).cos());
        let count = indices.len();
        let (start, cpu_start) = (std::time::Instant::now(), thread_cpu_seconds());
        let mesh = TriMesh::new(vertices, indices, false).unwrap();
        let elapsed = start.elapsed();
        let cpu = thread_cpu_seconds() - cpu_start;
        println!(
            "built a mesh of {count} triangles in {:.3} s ({cpu:.2} s of this thread's CPU time)",
            elapsed.as_secs_f64()
        );
        assert_eq!(mesh.triangle_count(), count);
    }

    /// User + system CPU time of this thread so far, seconds (Linux: /proc/thread-self/stat,
    /// in clock ticks of 10 ms; 0 elsewhere). On a shared machine this is fairer than the wall
    /// time.
    fn thread_cpu_seconds() -> f64 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
        let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        let fields: Vec<&str> = after_name.split_whitespace().collect();
        let ticks = |k: usize| fields.get(k).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
        (ticks(11) + ticks(12)) / 100.0
    }
}
