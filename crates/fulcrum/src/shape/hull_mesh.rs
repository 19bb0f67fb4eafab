//! The half-edge mesh of a [`ConvexHull`] built from face loops, and its validity check.
//!
//! Edge numbering: walking the faces in order and each loop in order, the first time an
//! undirected edge is met it gets the next pair `(2k, 2k + 1)`, the even index going in the
//! direction met first. So `twin(e) == e ^ 1` and the numbering only depends on the loops.

use glam::DVec3;

use super::hull::{ConvexHull, FacePlane, HalfEdge, HullFace, MAX_FACE_VERTICES, MAX_HULL_VERTICES};
use crate::error::{check_vec3, Error, Result};
use crate::geometry::Aabb;
use crate::math::Vec3;

impl ConvexHull {
    /// Builds the mesh from counter-clockwise (seen from outside) vertex loops. `planes`, when
    /// given, are the face planes (same order as `loops`); otherwise each face gets Newell's
    /// normal with the offset of its highest vertex. Checks the topology (a closed, genus-0,
    /// 2-manifold surface) but not convexity; see [`ConvexHull::validate`].
    pub(crate) fn build_mesh(
        vertices: Vec<Vec3>,
        loops: &[Vec<u16>],
        planes: Option<Vec<FacePlane>>,
    ) -> Result<ConvexHull> {
        check_loops(&vertices, loops)?;
        let directed: Vec<(u16, u16)> =
            loops.iter().flat_map(|l| (0..l.len()).map(move |k| (l[k], l[(k + 1) % l.len()]))).collect();
        let partner = pair_directed_edges(&directed)?;
        let (edges, faces) = link_half_edges(loops, &directed, &partner);
        let vertex_edges = vertex_edge_table(vertices.len(), &edges)?;
        let euler = vertices.len() as i64 - (edges.len() / 2) as i64 + faces.len() as i64;
        if euler != 2 {
            return Err(Error::new(
                "faces",
                format!("the faces do not close into a sphere-like surface (V - E + F = {euler})"),
            ));
        }
        let planes = match planes {
            Some(p) if p.len() == loops.len() => p,
            Some(_) => return Err(Error::new("planes", "needs one plane per face")),
            None => loops
                .iter()
                .enumerate()
                .map(|(f, l)| newell_plane(&vertices, l).ok_or_else(|| no_area(f)))
                .collect::<Result<Vec<_>>>()?,
        };
        let local_aabb = vertices.iter().fold(Aabb::EMPTY, |b, &v| b.union(&Aabb::new(v, v)));
        let mut hull = ConvexHull { vertices, edges, faces, planes, local_aabb, centroid: Vec3::ZERO, vertex_edges };
        let (volume, centroid, _) = hull.volume_integrals();
        if volume.is_nan() || volume <= 0.0 {
            return Err(Error::new(
                "faces",
                "the loops enclose no volume (they must be counter-clockwise seen from outside)",
            ));
        }
        hull.centroid = centroid.as_vec3();
        Ok(hull)
    }

    /// Checks that the hull is a valid convex polyhedron, with distances within `tolerance`
    /// metres: twins consistent, every face loop closed with 3 to [`MAX_FACE_VERTICES`]
    /// vertices, V - E + F = 2, every face vertex on its face plane, every face a convex
    /// polygon, and every vertex on or below every face plane. The error names the first
    /// offending face or edge.
    pub fn validate(&self, tolerance: f32) -> Result<()> {
        self.validate_topology()?;
        let tolerance = tolerance as f64;
        let vertex = |v: u16| self.vertices[v as usize].as_dvec3();
        let mut face_loop = Vec::with_capacity(MAX_FACE_VERTICES);
        for (f, plane) in self.planes.iter().enumerate() {
            let field = || format!("faces[{f}]");
            let normal = plane.normal.as_dvec3();
            if !plane.normal.is_finite() || (normal.length() - 1.0).abs() > 1e-4 {
                return Err(Error::new(field(), "its plane normal is not a unit vector"));
            }
            let distance = |p: DVec3| normal.dot(p) - plane.offset as f64;
            face_loop.clear();
            self.for_each_face_vertex(f, |v| face_loop.push(vertex(v)));
            if face_loop.iter().any(|&p| distance(p).abs() > tolerance) {
                return Err(Error::new(field(), "a vertex is off the face plane"));
            }
            let n = face_loop.len();
            for k in 0..n {
                let (a, b) = (face_loop[k], face_loop[(k + 1) % n]);
                let inward = normal.cross(b - a).normalize_or_zero();
                if inward == DVec3::ZERO || face_loop.iter().any(|&w| inward.dot(w - a) < -tolerance) {
                    return Err(Error::new(field(), "the face polygon is not convex"));
                }
            }
            if self.vertices.iter().any(|v| distance(v.as_dvec3()) > tolerance) {
                return Err(Error::new(field(), "a hull vertex lies outside the face plane"));
            }
        }
        Ok(())
    }

    /// Checks a hull restored from a snapshot, which was stored as built, not rebuilt: at
    /// most [`MAX_HULL_VERTICES`] vertices, finite; every index in range and every vertex's
    /// edge leaving it; then [`ConvexHull::validate`] at the construction tolerance, and the
    /// bounds as the vertices give them.
    pub(crate) fn check_stored(&self) -> Result<()> {
        let vertex_count = self.vertices.len();
        if vertex_count > MAX_HULL_VERTICES || self.edges.len() > usize::from(u16::MAX) {
            return Err(Error::new("vertices", "more vertices or edges than a hull may have"));
        }
        for (v, &vertex) in self.vertices.iter().enumerate() {
            check_vec3(&format!("vertices[{v}]"), vertex)?;
        }
        if let Some(e) = self.edges.iter().position(|edge| edge.origin as usize >= vertex_count) {
            return Err(Error::new(format!("edges[{e}].origin"), "index out of range"));
        }
        if self.vertex_edges.len() != vertex_count {
            return Err(Error::new("vertex_edges", "needs one edge per vertex"));
        }
        for (v, &e) in self.vertex_edges.iter().enumerate() {
            if self.edges.get(e as usize).is_none_or(|edge| edge.origin as usize != v) {
                return Err(Error::new(format!("vertex_edges[{v}]"), "is not an edge leaving the vertex"));
            }
        }
        self.validate(Self::tolerance_for(&self.vertices))?;
        let bounds = self.vertices.iter().fold(Aabb::EMPTY, |b, &v| b.union(&Aabb::new(v, v)));
        if bounds != self.local_aabb || !self.centroid.is_finite() {
            return Err(Error::new("local_aabb", "does not match the vertices"));
        }
        Ok(())
    }

    /// The structural part of [`ConvexHull::validate`].
    fn validate_topology(&self) -> Result<()> {
        let edge_count = self.edges.len();
        if edge_count % 2 != 0 || self.planes.len() != self.faces.len() {
            return Err(Error::new("edges", "half-edges must come in twin pairs"));
        }
        for (e, edge) in self.edges.iter().enumerate() {
            let field = || format!("edges[{e}]");
            let next = edge.next as usize;
            if next >= edge_count || edge.face as usize >= self.faces.len() {
                return Err(Error::new(field(), "index out of range"));
            }
            let twin = self.edges[e ^ 1];
            if twin.origin != self.edges[next].origin || twin.face == edge.face {
                return Err(Error::new(field(), "its twin does not run the other way"));
            }
        }
        let mut visited = 0;
        for f in 0..self.faces.len() {
            let first = self.faces[f].first_edge as usize;
            let mut e = first;
            let mut count = 0;
            loop {
                if e >= edge_count || self.edges[e].face as usize != f {
                    return Err(Error::new(format!("faces[{f}]"), "its loop leaves the face"));
                }
                count += 1;
                e = self.edges[e].next as usize;
                if e == first || count > MAX_FACE_VERTICES {
                    break;
                }
            }
            if e != first || count < 3 {
                return Err(Error::new(format!("faces[{f}]"), "its loop is not a polygon"));
            }
            visited += count;
        }
        let euler = self.vertices.len() as i64 - (edge_count / 2) as i64 + self.faces.len() as i64;
        if visited != edge_count || euler != 2 {
            return Err(Error::new("faces", "the faces do not form a closed surface"));
        }
        Ok(())
    }
}

fn no_area(face: usize) -> Error {
    Error::new(format!("faces[{face}]"), "the face has no area")
}

/// Sizes, finiteness and index ranges of the input of [`ConvexHull::build_mesh`].
fn check_loops(vertices: &[Vec3], loops: &[Vec<u16>]) -> Result<()> {
    if vertices.len() < 4 || vertices.len() > u16::MAX as usize {
        return Err(Error::new("vertices", "a hull needs between 4 and 65535 vertices"));
    }
    for (i, &v) in vertices.iter().enumerate() {
        check_vec3(&format!("vertices[{i}]"), v)?;
    }
    if loops.len() < 4 || loops.len() > u16::MAX as usize {
        return Err(Error::new("faces", "a hull needs between 4 and 65535 faces"));
    }
    let mut half_edges = 0usize;
    for (f, face_loop) in loops.iter().enumerate() {
        let field = || format!("faces[{f}]");
        if face_loop.len() < 3 || face_loop.len() > MAX_FACE_VERTICES {
            return Err(Error::new(
                field(),
                format!("a face needs 3 to {MAX_FACE_VERTICES} vertices, got {}", face_loop.len()),
            ));
        }
        if face_loop.iter().any(|&v| v as usize >= vertices.len()) {
            return Err(Error::new(field(), "a vertex index is out of range"));
        }
        for (k, v) in face_loop.iter().enumerate() {
            if face_loop[k + 1..].contains(v) {
                return Err(Error::new(field(), format!("vertex {v} appears twice")));
            }
        }
        half_edges += face_loop.len();
    }
    if half_edges > u16::MAX as usize {
        return Err(Error::new("faces", "too many edges for 16-bit half-edge indices"));
    }
    Ok(())
}

/// For each directed edge (by its slot), the slot of the same edge run the other way.
fn pair_directed_edges(directed: &[(u16, u16)]) -> Result<Vec<u32>> {
    let mut keys: Vec<(u16, u16, u32)> =
        directed.iter().enumerate().map(|(slot, &(a, b))| (a.min(b), a.max(b), slot as u32)).collect();
    keys.sort_unstable();
    let mut partner = vec![u32::MAX; directed.len()];
    for group in keys.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
        let (a, b) = (group[0].0, group[0].1);
        if group.len() != 2 {
            return Err(Error::new(
                "faces",
                format!("edge ({a}, {b}) is used by {} faces; it must join exactly two", group.len()),
            ));
        }
        let (s, t) = (group[0].2, group[1].2);
        if directed[s as usize] == directed[t as usize] {
            return Err(Error::new(
                "faces",
                format!("edge ({a}, {b}) runs the same way in both its faces (a face is inverted)"),
            ));
        }
        partner[s as usize] = t;
        partner[t as usize] = s;
    }
    Ok(partner)
}

/// Half-edges (twins at `e ^ 1`, numbered as the module comment says) and faces.
fn link_half_edges(loops: &[Vec<u16>], directed: &[(u16, u16)], partner: &[u32]) -> (Vec<HalfEdge>, Vec<HullFace>) {
    let mut half = vec![u16::MAX; directed.len()];
    let mut pairs = 0u16;
    for slot in 0..directed.len() {
        if half[slot] == u16::MAX {
            half[slot] = 2 * pairs;
            half[partner[slot] as usize] = 2 * pairs + 1;
            pairs += 1;
        }
    }
    let mut edges = vec![HalfEdge { origin: 0, next: 0, face: 0 }; directed.len()];
    let mut faces = Vec::with_capacity(loops.len());
    let mut slot = 0;
    for (f, face_loop) in loops.iter().enumerate() {
        let n = face_loop.len();
        for k in 0..n {
            let next_slot = slot + (k + 1) % n;
            edges[half[slot + k] as usize] = HalfEdge { origin: face_loop[k], next: half[next_slot], face: f as u16 };
        }
        faces.push(HullFace { first_edge: half[slot] });
        slot += n;
    }
    (edges, faces)
}

/// One outgoing half-edge per vertex (the lowest-numbered). Fails for an unused vertex or
/// one where two fans of faces touch (walking around it from that edge must meet all of its
/// outgoing edges).
fn vertex_edge_table(vertex_count: usize, edges: &[HalfEdge]) -> Result<Vec<u16>> {
    let mut first = vec![u16::MAX; vertex_count];
    let mut degree = vec![0usize; vertex_count];
    for (e, edge) in edges.iter().enumerate() {
        let v = edge.origin as usize;
        if first[v] == u16::MAX {
            first[v] = e as u16;
        }
        degree[v] += 1;
    }
    for v in 0..vertex_count {
        if first[v] == u16::MAX {
            return Err(Error::new(format!("vertices[{v}]"), "is not used by any face"));
        }
        // Around v: the twin of an outgoing edge ends at v; its successor leaves v again.
        let mut e = first[v];
        let mut steps = 0;
        loop {
            e = edges[(e ^ 1) as usize].next;
            steps += 1;
            if e == first[v] || steps > degree[v] {
                break;
            }
        }
        if steps != degree[v] {
            return Err(Error::new(format!("vertices[{v}]"), "its faces do not form one fan"));
        }
    }
    Ok(first)
}

/// Newell's normal of a counter-clockwise loop, with the offset of its highest vertex.
fn newell_plane(vertices: &[Vec3], face_loop: &[u16]) -> Option<FacePlane> {
    let p = |k: usize| vertices[face_loop[k % face_loop.len()] as usize].as_dvec3();
    // Relative to the first vertex, so the sum keeps its precision far from the origin.
    let normal = (1..face_loop.len()).map(|k| (p(k) - p(0)).cross(p(k + 1) - p(0))).sum::<DVec3>().try_normalize()?;
    let offset = (0..face_loop.len()).map(|k| normal.dot(p(k))).fold(f64::NEG_INFINITY, f64::max);
    Some(FacePlane { normal: normal.as_vec3(), offset: offset as f32 })
}
