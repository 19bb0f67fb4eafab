//! Convex hull: vertices, polygonal faces and a half-edge mesh connecting them.
//!
//! Layout (what the SAT and clipping code rely on):
//! - `vertices`: hull vertices in the local frame (no interior or duplicate points);
//! - `faces[f].first_edge`: one half-edge of face `f`; following `next` walks the face's
//!   boundary counter-clockwise seen from outside; `planes[f]` is its outward plane;
//! - `edges`: half-edges stored in twin pairs, so `twin(e) == e ^ 1`; `edges[e].origin` is the
//!   vertex the half-edge starts at, `edges[e].face` the face on its left (seen from outside).
//! - Coplanar triangles are merged: a box hull has 6 quadrilateral faces and 12 edge pairs.

use super::MassProperties;
use crate::error::{Error, Result};
use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::{Pose, Vec3};

/// Largest number of vertices a single hull face may have (clipping buffers are sized by it).
pub const MAX_FACE_VERTICES: usize = 64;

/// An outward face plane: points `p` with `normal·p > offset` are outside.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FacePlane {
    /// Unit outward normal.
    pub normal: Vec3,
    /// Distance of the plane from the local origin along `normal`.
    pub offset: f32,
}

impl FacePlane {
    /// Signed distance of `p` above the plane.
    #[inline]
    pub fn distance(&self, p: Vec3) -> f32 {
        self.normal.dot(p) - self.offset
    }
}

/// One directed edge of the hull's boundary mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HalfEdge {
    /// Vertex the half-edge starts at.
    pub origin: u16,
    /// Next half-edge around the same face (counter-clockwise seen from outside).
    pub next: u16,
    /// Face on this half-edge's left.
    pub face: u16,
}

/// A face of the hull: a convex polygon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HullFace {
    /// Any half-edge of the face's boundary loop.
    pub first_edge: u16,
}

/// A convex polyhedron built from a point cloud.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexHull {
    /// Hull vertices, local frame.
    pub vertices: Vec<Vec3>,
    /// Half-edges in twin pairs (`twin(e) == e ^ 1`).
    pub edges: Vec<HalfEdge>,
    /// Faces, each with one half-edge of its loop.
    pub faces: Vec<HullFace>,
    /// Outward plane of each face (same index as `faces`).
    pub planes: Vec<FacePlane>,
    /// Local bounds of the vertices.
    pub local_aabb: Aabb,
    /// Centroid of the solid (its centre of mass at uniform density).
    pub centroid: Vec3,
}

impl ConvexHull {
    /// Builds the convex hull of `points` (quickhull). Fails with a clear error for fewer than
    /// 4 points, non-finite coordinates, or points that are all (nearly) coplanar.
    pub fn from_points(points: &[Vec3]) -> Result<ConvexHull> {
        let _ = points;
        Err(Error::new("points", "convex hull construction is not built yet"))
    }

    /// A hull with the geometry of a box of `half_extents` (used by tests and box/hull pairs).
    pub fn cuboid(half_extents: Vec3) -> ConvexHull {
        let h = half_extents;
        let vertices: Vec<Vec3> = (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 != 0 { h.x } else { -h.x },
                    if i & 2 != 0 { h.y } else { -h.y },
                    if i & 4 != 0 { h.z } else { -h.z },
                )
            })
            .collect();
        // Faces as CCW vertex loops seen from outside: -x, +x, -y, +y, -z, +z.
        let loops: [[u16; 4]; 6] = [[0, 4, 6, 2], [1, 3, 7, 5], [0, 1, 5, 4], [2, 6, 7, 3], [0, 2, 3, 1], [4, 5, 7, 6]];
        Self::from_face_loops(vertices, &loops.iter().map(|l| l.to_vec()).collect::<Vec<_>>())
            .expect("box faces form a closed mesh")
    }

    /// Builds the half-edge mesh from faces given as CCW vertex-index loops (seen from
    /// outside). Fails when an edge is not shared by exactly two faces.
    pub fn from_face_loops(vertices: Vec<Vec3>, loops: &[Vec<u16>]) -> Result<ConvexHull> {
        let mut edges: Vec<HalfEdge> = Vec::new();
        let mut faces = Vec::with_capacity(loops.len());
        let mut planes = Vec::with_capacity(loops.len());
        // (from, to) -> half-edge index; small meshes, a sorted vec keeps it deterministic.
        let mut directed: Vec<((u16, u16), u16)> = Vec::new();
        let mut loop_edges: Vec<Vec<u16>> = Vec::with_capacity(loops.len());
        for (face_index, face_loop) in loops.iter().enumerate() {
            let n = face_loop.len();
            let mut indices = Vec::with_capacity(n);
            for k in 0..n {
                let (from, to) = (face_loop[k], face_loop[(k + 1) % n]);
                let reverse = directed.iter().find(|(key, _)| *key == (to, from)).map(|(_, e)| *e);
                let e = match reverse {
                    Some(twin) => twin ^ 1,
                    None => {
                        let e = edges.len() as u16;
                        let filler = HalfEdge { origin: to, next: u16::MAX, face: u16::MAX };
                        edges.push(HalfEdge { origin: from, next: u16::MAX, face: u16::MAX });
                        edges.push(filler);
                        e
                    }
                };
                if edges[e as usize].face != u16::MAX {
                    return Err(Error::new("faces", "an edge is used twice in the same direction"));
                }
                edges[e as usize].face = face_index as u16;
                edges[e as usize].origin = from;
                directed.push(((from, to), e));
                indices.push(e);
            }
            for k in 0..n {
                edges[indices[k] as usize].next = indices[(k + 1) % n];
            }
            faces.push(HullFace { first_edge: indices[0] });
            planes.push(Self::loop_plane(&vertices, face_loop));
            loop_edges.push(indices);
        }
        if edges.iter().any(|e| e.face == u16::MAX || e.next == u16::MAX) {
            return Err(Error::new("faces", "the face loops do not form a closed surface"));
        }
        let local_aabb = vertices.iter().fold(Aabb::EMPTY, |b, &v| b.union(&Aabb::new(v, v)));
        let mut hull = ConvexHull { vertices, edges, faces, planes, local_aabb, centroid: Vec3::ZERO };
        hull.centroid = hull.mass_properties(1.0).center;
        Ok(hull)
    }

    /// Newell's method: a robust outward plane for a (nearly planar) CCW loop.
    fn loop_plane(vertices: &[Vec3], face_loop: &[u16]) -> FacePlane {
        let mut normal = Vec3::ZERO;
        let mut centre = Vec3::ZERO;
        for k in 0..face_loop.len() {
            let a = vertices[face_loop[k] as usize];
            let b = vertices[face_loop[(k + 1) % face_loop.len()] as usize];
            normal += a.cross(b);
            centre += a;
        }
        let normal = normal.normalize_or(Vec3::Y);
        centre /= face_loop.len() as f32;
        FacePlane { normal, offset: normal.dot(centre) }
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
        loop {
            f(self.edges[e as usize].origin);
            e = self.edges[e as usize].next;
            if e == first {
                break;
            }
        }
    }

    /// World bounds at `pose`.
    pub fn aabb(&self, pose: &Pose) -> Aabb {
        let mut bounds = Aabb::EMPTY;
        for &v in &self.vertices {
            let w = pose.transform_point(v);
            bounds = bounds.union(&Aabb::new(w, w));
        }
        bounds
    }

    /// Index of the vertex furthest along `dir` (local frame).
    #[inline]
    pub fn support_index(&self, dir: Vec3) -> usize {
        let mut best = 0;
        let mut best_dot = f32::NEG_INFINITY;
        for (i, v) in self.vertices.iter().enumerate() {
            let d = v.dot(dir);
            if d > best_dot {
                best_dot = d;
                best = i;
            }
        }
        best
    }

    /// The vertex furthest along `dir` (local frame).
    #[inline]
    pub fn support(&self, dir: Vec3) -> Vec3 {
        self.vertices[self.support_index(dir)]
    }

    /// Uniform-density solid: volume integrals over the tetrahedra from an interior point to
    /// each face triangle.
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        let _ = density;
        MassProperties::ZERO
    }

    /// Ray cast in the local frame (clipping the ray by every face plane).
    pub fn cast_ray(&self, ray: &Ray, max_t: f32) -> Option<RayHit> {
        let _ = (ray, max_t);
        todo!("hull ray cast")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
