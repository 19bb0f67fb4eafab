//! What a triangle mesh computes once when it is built: vertex welding and the active edge and
//! vertex flags (edge adjacency, fold classification, T-junctions).

use super::bvh::Bvh;
use super::triangle::fold_is_active;
use crate::geometry::Aabb;
use crate::key_hash::KeyMap;
use crate::math::Vec3;

/// No entry (end of a chain).
const NONE: u32 = u32::MAX;

/// Cells of the welding grid are this many tolerances wide: a vertex is then within the
/// tolerance of a cell face along an axis for a quarter of the positions only.
const WELD_CELL: f32 = 8.0;

/// Welds vertices closer than `tolerance` (metres): returns the kept vertices (in their first
/// order) and, for each input vertex, the index of the kept vertex it became. A vertex joins
/// the earliest kept vertex within the tolerance; kept vertices are found through a grid of
/// cells [`WELD_CELL`] tolerances wide: the vertex's cell and, along each axis where the
/// vertex lies within the tolerance of a cell face, the cell beyond that face (1 to 8 cells).
pub(crate) fn weld(vertices: &[Vec3], tolerance: f32) -> (Vec<Vec3>, Vec<u32>) {
    if !(tolerance > 0.0) {
        return (vertices.to_vec(), (0..vertices.len() as u32).collect());
    }
    let origin = Aabb::of_points(vertices).min;
    let cell_size = WELD_CELL * tolerance;
    let mut first_in_cell: KeyMap<u64, u32> = KeyMap::with_capacity_and_hasher(vertices.len(), Default::default());
    let mut next_in_cell: Vec<u32> = Vec::with_capacity(vertices.len());
    let mut kept: Vec<Vec3> = Vec::with_capacity(vertices.len());
    let mut remap = Vec::with_capacity(vertices.len());
    for &vertex in vertices {
        let scaled = (vertex - origin) / cell_size;
        let cell = scaled.floor();
        let fraction = scaled - cell;
        let near = 1.0 / WELD_CELL;
        let side = Vec3::select(fraction.cmpge(Vec3::splat(0.5)), Vec3::ONE, -Vec3::ONE);
        let crosses = (fraction.cmplt(Vec3::splat(near)) | fraction.cmpgt(Vec3::splat(1.0 - near))).bitmask();
        let mut found = NONE;
        for corner in (0..8).filter(|corner| corner & !crosses == 0) {
            let step = Vec3::new((corner & 1) as f32, ((corner >> 1) & 1) as f32, ((corner >> 2) & 1) as f32);
            let mut candidate = first_in_cell.get(&cell_key(cell + step * side)).copied().unwrap_or(NONE);
            while candidate != NONE {
                if kept[candidate as usize].distance_squared(vertex) <= tolerance * tolerance {
                    found = found.min(candidate);
                }
                candidate = next_in_cell[candidate as usize];
            }
        }
        if found == NONE {
            found = kept.len() as u32;
            kept.push(vertex);
            let head = first_in_cell.entry(cell_key(cell)).or_insert(NONE);
            next_in_cell.push(*head);
            *head = found;
        }
        remap.push(found);
    }
    (kept, remap)
}

/// A grid cell's key: its three coordinates (cells from the mesh's lowest corner, from −1)
/// in 21 bits each.
fn cell_key(cell: Vec3) -> u64 {
    let coordinate = |c: f32| (c + 1.0) as u64 & 0x1F_FFFF;
    coordinate(cell.x) << 42 | coordinate(cell.y) << 21 | coordinate(cell.z)
}

/// The mesh data the flags are computed from.
pub(crate) struct MeshView<'a> {
    pub vertices: &'a [Vec3],
    pub indices: &'a [[u32; 3]],
    pub normals: &'a [Vec3],
    pub bvh: &'a Bvh,
    /// Distance within which a boundary edge lies on another triangle's edge (T-junction).
    pub tolerance: f32,
}

impl MeshView<'_> {
    fn corner(&self, triangle: usize, corner: usize) -> Vec3 {
        self.vertices[self.indices[triangle][corner % 3] as usize]
    }

    /// The edge of half-edge `h` (triangle h / 3, edge h mod 3) as its two corners.
    fn edge(&self, h: usize) -> (Vec3, Vec3) {
        (self.corner(h / 3, h % 3), self.corner(h / 3, h % 3 + 1))
    }
}

/// Per triangle: bits 0–2 its active edges, bits 3–5 its active vertices (see
/// [`Triangle`](super::Triangle)).
pub(crate) fn active_flags(mesh: &MeshView, around: &TrianglesAround) -> Vec<u8> {
    let mut flags: Vec<u8> = (0..mesh.indices.len())
        .map(|t| (0..3).filter(|&e| edge_is_active(mesh, around, 3 * t + e)).fold(0, |bits, e| bits | 1 << e))
        .collect();
    let mut vertex_active = vec![false; mesh.vertices.len()];
    for (t, bits) in flags.iter().enumerate() {
        for e in (0..3).filter(|e| bits & (1 << e) != 0) {
            vertex_active[mesh.indices[t][e] as usize] = true;
            vertex_active[mesh.indices[t][(e + 1) % 3] as usize] = true;
        }
    }
    for (t, bits) in flags.iter_mut().enumerate() {
        for (corner, &vertex) in mesh.indices[t].iter().enumerate() {
            if vertex_active[vertex as usize] {
                *bits |= 1 << (3 + corner);
            }
        }
    }
    flags
}

/// The triangles around each vertex, in triangle order (compressed rows: the triangles of
/// vertex v are `triangles[first[v]..first[v + 1]]`). Two triangles share the edge a–b when
/// both hold a and b, so a triangle's neighbours across an edge are found among the few
/// triangles around one end: no map of edges is needed.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct TrianglesAround {
    first: Vec<u32>,
    triangles: Vec<u32>,
}

impl TrianglesAround {
    pub(crate) fn new(vertex_count: usize, indices: &[[u32; 3]]) -> TrianglesAround {
        let mut first = vec![0u32; vertex_count + 1];
        for &v in indices.iter().flatten() {
            first[v as usize + 1] += 1;
        }
        for v in 0..vertex_count {
            first[v + 1] += first[v];
        }
        let mut filled = first.clone();
        let mut triangles = vec![0u32; 3 * indices.len()];
        for (t, corners) in indices.iter().enumerate() {
            for &v in corners {
                triangles[filled[v as usize] as usize] = t as u32;
                filled[v as usize] += 1;
            }
        }
        TrianglesAround { first, triangles }
    }

    /// Checks adjacency restored from a snapshot against the mesh's `indices` over
    /// `vertex_count` vertices: it must be the one [`TrianglesAround::new`] builds.
    pub(crate) fn check_stored(&self, vertex_count: usize, indices: &[[u32; 3]]) -> crate::Result<()> {
        if *self != TrianglesAround::new(vertex_count, indices) {
            return Err(crate::Error::new("around", "does not match the triangles"));
        }
        Ok(())
    }

    /// The triangles that hold `vertex`.
    pub(crate) fn of(&self, vertex: u32) -> &[u32] {
        &self.triangles[self.first[vertex as usize] as usize..self.first[vertex as usize + 1] as usize]
    }

    /// The far corners of the triangles across edge `e` of triangle `t` (`indices` the
    /// mesh's): the other triangles that hold both of its ends.
    pub(crate) fn across<'a>(&'a self, indices: &'a [[u32; 3]], t: usize, e: usize) -> impl Iterator<Item = u32> + 'a {
        let (a, b) = (indices[t][e], indices[t][(e + 1) % 3]);
        self.of(a).iter().filter(move |&&other| other as usize != t).filter_map(move |&other| {
            let corners = indices[other as usize];
            corners.contains(&b).then(|| corners.into_iter().find(|&v| v != a && v != b).unwrap_or(a))
        })
    }
}

/// Is half-edge `h` (triangle h / 3, edge h mod 3) active: convex against a triangle across
/// it; or, with none there, a true boundary, not a T-junction (see [`t_junction_folds`]).
fn edge_is_active(mesh: &MeshView, around: &TrianglesAround, h: usize) -> bool {
    let (corner_a, corner_b) = mesh.edge(h);
    let normal = mesh.normals[h / 3];
    let mut neighbours = 0;
    let mut active = false;
    for opposite in around.across(mesh.indices, h / 3, h % 3) {
        active |= fold_is_active(corner_a, corner_b, normal, mesh.vertices[opposite as usize]);
        neighbours += 1;
    }
    if neighbours == 0 {
        return t_junction_folds(mesh, h).unwrap_or(true);
    }
    active
}

/// A boundary edge `a → b` (half-edge `h`) that lies along an edge of other triangles (a
/// T-junction: a long edge beside several short ones) is classified against those
/// triangles: active if it is convex against any. `None` when no such triangle exists.
/// A triangle's edge `c → d` holds the boundary edge when both `a` and `b` lie within the
/// tolerance of its line and the two overlap by more than the tolerance along it.
fn t_junction_folds(mesh: &MeshView, h: usize) -> Option<bool> {
    let (a, b) = mesh.edge(h);
    let normal = mesh.normals[h / 3];
    let tolerance = mesh.tolerance;
    let query = Aabb::of_points(&[a, b]).expanded(tolerance);
    let mut result: Option<bool> = None;
    mesh.bvh.query(&query, |other| {
        let other = other as usize;
        if other == h / 3 {
            return true;
        }
        for e in 0..3 {
            let (c, d) = mesh.edge(3 * other + e);
            if segments_overlap_on_line(a, b, c, d, tolerance) {
                let folds = fold_is_active(a, b, normal, mesh.corner(other, e + 2));
                result = Some(result.unwrap_or(false) || folds);
            }
        }
        true
    });
    result
}

/// Do the segments `a b` and `c d` lie on one line (a and b within `tolerance` of the line
/// through c and d) and overlap along it by more than `tolerance`?
fn segments_overlap_on_line(a: Vec3, b: Vec3, c: Vec3, d: Vec3, tolerance: f32) -> bool {
    let length = c.distance(d);
    if length <= tolerance {
        return false;
    }
    let axis = (d - c) / length;
    let along = |p: Vec3| (p - c).dot(axis);
    let off_line = |p: Vec3| (p - c - along(p) * axis).length();
    if off_line(a) > tolerance || off_line(b) > tolerance {
        return false;
    }
    let (low, high) = (along(a).min(along(b)), along(a).max(along(b)));
    high.min(length) - low.max(0.0) > tolerance
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_vertices_are_welded_and_far_ones_kept() {
        let vertices = [
            Vec3::ZERO,
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 0.0009), // within 1 mm of vertex 0
            Vec3::new(1.0011, 0.0, 0.0), // 1.1 mm from vertex 1
            Vec3::new(-0.0005, 0.0005, 0.0),
        ];
        let (kept, remap) = weld(&vertices, 1e-3);
        assert_eq!(remap, vec![0, 1, 0, 2, 0]);
        assert_eq!(kept, vec![vertices[0], vertices[1], vertices[3]]);
    }

    /// Pairs straddling cell faces in every direction weld like a brute-force comparison.
    #[test]
    fn welding_matches_brute_force() {
        let mut rng = super::super::test_support::Lcg::new(5);
        let tolerance = 0.01;
        let mut vertices = Vec::new();
        for _ in 0..300 {
            let p = rng.in_box(Vec3::ONE);
            vertices.push(p);
            vertices.push(p + rng.direction() * rng.range(0.0, 0.99 * tolerance));
        }
        let (kept, remap) = weld(&vertices, tolerance);
        for (i, &v) in vertices.iter().enumerate() {
            let first_kept = kept.iter().position(|k| k.distance(v) <= tolerance).unwrap();
            assert_eq!(remap[i] as usize, first_kept);
        }
    }

    #[test]
    fn collinear_overlap_needs_both_ends_on_the_line() {
        let (c, d) = (Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0));
        assert!(segments_overlap_on_line(Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 0.0, 0.0), c, d, 1e-4));
        assert!(segments_overlap_on_line(Vec3::new(1.5, 0.0, 0.0), Vec3::new(0.5, 1e-5, 0.0), c, d, 1e-4));
        assert!(!segments_overlap_on_line(Vec3::new(2.0, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0), c, d, 1e-4));
        assert!(!segments_overlap_on_line(Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 0.1, 0.0), c, d, 1e-4));
    }
}
