//! Triangle meshes: level geometry for static and kinematic bodies.

use std::fmt;

use super::bvh::Bvh;
use super::mesh_build::{self, MeshView};
use super::triangle::{face_normal, Triangle};
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
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, PartialEq)]
pub struct TriMesh {
    vertices: Vec<Vec3>,
    indices: Vec<[u32; 3]>,
    normals: Vec<Vec3>,
    /// Per triangle: bits 0–2 active edges, bits 3–5 active vertices.
    flags: Vec<u8>,
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
        let flags = mesh_build::active_flags(&view);
        Ok(TriMesh { vertices, indices, normals, flags, two_sided, bvh, source: None })
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
    for (i, &vertex) in vertices.iter().enumerate() {
        check_vec3(&component("vertices", i), vertex)?;
    }
    for (t, corners) in indices.iter().enumerate() {
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
