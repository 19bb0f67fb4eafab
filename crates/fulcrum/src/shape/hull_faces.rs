//! Second stage of [`ConvexHull::from_points`]: merges the exact triangle hull's coplanar and
//! nearly coplanar triangles into convex polygon faces and builds the half-edge mesh.
//!
//! Grouping: triangles are taken largest first; each starts a face (its *seed*) that grows
//! across edges while the next triangle lies in the seed's plane. The face keeps the seed's
//! plane, with its offset raised to the highest face vertex: the seed plane is an exact
//! supporting plane of the (snapped) cloud, so the face plane stays a supporting plane and
//! every point lies inside it up to rounding. How "in the plane" is judged depends on the
//! triangle's *level*:
//! - level 0 ([`LEVEL_BAND`]): every corner within `tolerance / 2` below the seed plane;
//! - level 1 ([`LEVEL_EXACT`]): every corner exactly on the seed plane (integer test);
//! - level 2 ([`LEVEL_ALONE`]): the triangle stays a face of its own.
//!
//! Every triangle starts at level 0. A face that comes out wrong (its boundary touches
//! itself or has holes, a corner with only two faces is not on a straight line, or the
//! polygon is not convex within the tolerance) sends its triangles one level up and the
//! grouping is redone. Exactly coplanar triangles of a convex polyhedron always form a convex
//! polygon, and single triangles are always valid faces, so this ends with a valid mesh.
//!
//! Clean-up: a vertex shared by only two faces lies on their common edge (it is a point in
//! the middle of a hull edge) and is removed from both loops; vertices inside a face's
//! polygon disappear with the merge. Faces with more than [`MAX_FACE_VERTICES`] vertices are
//! cut into coplanar convex pieces.

use glam::DVec3;

use super::hull::{ConvexHull, FacePlane, MAX_FACE_VERTICES};
use super::quickhull::{SnappedCloud, TriangleHull};
use crate::error::{Error, Result};
use crate::math::Vec3;

/// Merge triangles whose corners are within half the tolerance of the seed plane.
const LEVEL_BAND: u8 = 0;
/// Merge only exactly coplanar triangles.
const LEVEL_EXACT: u8 = 1;
/// Do not merge.
const LEVEL_ALONE: u8 = 2;

const NONE: u32 = u32::MAX;

#[cfg(test)]
thread_local! {
    /// How many groupings this thread's hull constructions refused (tests only).
    static FALLBACKS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many groupings this thread's hull constructions have refused so far (tests only).
#[cfg(test)]
pub(crate) fn fallback_count() -> usize {
    FALLBACKS.with(|count| count.get())
}

/// Why a grouping was refused.
enum Failure {
    /// These faces (by group index) are wrong; their triangles go one level up.
    Faces(Vec<u32>),
    /// The mesh as a whole failed; every triangle goes one level up.
    Everything,
}

/// A grouping of the triangles into faces.
struct Grouping {
    /// Face of each triangle.
    face_of: Vec<u32>,
    /// Seed triangle of each face.
    seeds: Vec<u32>,
}

/// Builds the polygon hull from the triangle hull (see the module comment).
pub(crate) fn polygon_hull(points: &[Vec3], cloud: &SnappedCloud, mesh: &TriangleHull) -> Result<ConvexHull> {
    let mut levels = vec![LEVEL_BAND; mesh.triangles.len()];
    loop {
        let grouping = group_triangles(points, cloud, mesh, &levels);
        let failure = match build(points, cloud, mesh, &grouping) {
            Ok(hull) => return Ok(hull),
            Err(failure) => failure,
        };
        #[cfg(test)]
        FALLBACKS.with(|count| count.set(count.get() + 1));
        let mut raised = false;
        let mut raise = |t: usize, levels: &mut [u8]| {
            if levels[t] < LEVEL_ALONE {
                levels[t] += 1;
                raised = true;
            }
        };
        match failure {
            Failure::Faces(faces) => {
                for t in 0..levels.len() {
                    if faces.contains(&grouping.face_of[t]) {
                        raise(t, &mut levels);
                    }
                }
            }
            Failure::Everything => (0..levels.len()).for_each(|t| raise(t, &mut levels)),
        }
        if !raised {
            return Err(Error::new("points", "internal error in hull construction: no valid face merging found"));
        }
    }
}

/// Groups triangles into faces, largest seeds first (see the module comment).
fn group_triangles(points: &[Vec3], cloud: &SnappedCloud, mesh: &TriangleHull, levels: &[u8]) -> Grouping {
    let count = mesh.triangles.len();
    let mut order: Vec<u32> = (0..count as u32).collect();
    let area = |t: u32| mesh.planes[t as usize].normal_length();
    order.sort_by(|&a, &b| area(b).total_cmp(&area(a)).then(a.cmp(&b)));
    let mut face_of = vec![NONE; count];
    let mut seeds = Vec::new();
    let mut queue = Vec::new();
    let band = 0.5 * cloud.tolerance;
    for &seed in &order {
        if face_of[seed as usize] != NONE {
            continue;
        }
        let face = seeds.len() as u32;
        seeds.push(seed);
        face_of[seed as usize] = face;
        let level = levels[seed as usize];
        let plane = seed_plane(points, mesh, seed);
        queue.clear();
        queue.push(seed);
        while let Some(t) = queue.pop() {
            for &u in &mesh.neighbors[t as usize] {
                let joins = face_of[u as usize] == NONE
                    && levels[u as usize] == level
                    && match level {
                        LEVEL_BAND => within_band(points, mesh, &plane, u, band),
                        LEVEL_EXACT => exactly_coplanar(cloud, mesh, seed, u),
                        _ => false,
                    };
                if joins {
                    face_of[u as usize] = face;
                    queue.push(u);
                }
            }
        }
    }
    Grouping { face_of, seeds }
}

/// Unit outward normal of triangle `t` (from its exact grid normal) and the plane offset
/// through its first corner, in metres.
fn seed_plane(points: &[Vec3], mesh: &TriangleHull, t: u32) -> (DVec3, f64) {
    let n = mesh.planes[t as usize].normal;
    let normal = DVec3::new(n[0] as f64, n[1] as f64, n[2] as f64).normalize();
    let corner = points[mesh.triangles[t as usize][0] as usize].as_dvec3();
    (normal, normal.dot(corner))
}

fn within_band(points: &[Vec3], mesh: &TriangleHull, plane: &(DVec3, f64), t: u32, band: f64) -> bool {
    let (normal, offset) = *plane;
    let own = mesh.planes[t as usize].normal;
    let own = DVec3::new(own[0] as f64, own[1] as f64, own[2] as f64);
    own.dot(normal) > 0.0
        && mesh.triangles[t as usize]
            .iter()
            .all(|&v| (normal.dot(points[v as usize].as_dvec3()) - offset).abs() <= band)
}

fn exactly_coplanar(cloud: &SnappedCloud, mesh: &TriangleHull, seed: u32, t: u32) -> bool {
    let plane = &mesh.planes[seed as usize];
    mesh.triangles[t as usize].iter().all(|&v| plane.orient(cloud.grid[v as usize]) == 0)
}

/// Turns a grouping into a checked half-edge mesh.
fn build(
    points: &[Vec3],
    cloud: &SnappedCloud,
    mesh: &TriangleHull,
    grouping: &Grouping,
) -> std::result::Result<ConvexHull, Failure> {
    let mut loops = boundary_loops(points.len(), mesh, grouping)?;
    remove_edge_vertices(points, &mut loops, cloud.tolerance)?;
    let mut planes = Vec::with_capacity(loops.len());
    for (face, face_loop) in loops.iter().enumerate() {
        let (normal, _) = seed_plane(points, mesh, grouping.seeds[face]);
        if !is_convex_polygon(points, face_loop, normal, cloud.tolerance) {
            return Err(Failure::Faces(vec![face as u32]));
        }
        let offset =
            face_loop.iter().map(|&v| normal.dot(points[v as usize].as_dvec3())).fold(f64::NEG_INFINITY, f64::max);
        planes.push(FacePlane { normal: normal.as_vec3(), offset: offset as f32 });
    }
    let (loops, planes) = split_large_faces(loops, planes);
    let (vertices, loops) = compact(points, &loops);
    let hull = ConvexHull::build_mesh(vertices, &loops, Some(planes)).map_err(|_| Failure::Everything)?;
    hull.validate(cloud.tolerance as f32).map_err(|_| Failure::Everything)?;
    Ok(hull)
}

/// The boundary of each face as one counter-clockwise loop of point indices. A face whose
/// boundary touches itself or falls into several loops fails.
fn boundary_loops(
    point_count: usize,
    mesh: &TriangleHull,
    grouping: &Grouping,
) -> std::result::Result<Vec<Vec<u32>>, Failure> {
    let face_count = grouping.seeds.len();
    // Triangles sorted by face (counting sort keeps the order deterministic).
    let mut start = vec![0usize; face_count + 1];
    for &f in &grouping.face_of {
        start[f as usize + 1] += 1;
    }
    for f in 0..face_count {
        start[f + 1] += start[f];
    }
    let mut members = vec![0u32; grouping.face_of.len()];
    let mut fill = start.clone();
    for (t, &f) in grouping.face_of.iter().enumerate() {
        members[fill[f as usize]] = t as u32;
        fill[f as usize] += 1;
    }
    let mut next_of = vec![NONE; point_count];
    let mut loops = Vec::with_capacity(face_count);
    for face in 0..face_count {
        let triangles = &members[start[face]..start[face + 1]];
        match face_loop(mesh, grouping, face as u32, triangles, &mut next_of) {
            Some(l) => loops.push(l),
            None => return Err(Failure::Faces(vec![face as u32])),
        }
    }
    Ok(loops)
}

/// Chains the boundary edges of one face; `next_of` is all `NONE` on entry and on return.
fn face_loop(
    mesh: &TriangleHull,
    grouping: &Grouping,
    face: u32,
    triangles: &[u32],
    next_of: &mut [u32],
) -> Option<Vec<u32>> {
    let mut edges = Vec::new();
    for &t in triangles {
        let corners = mesh.triangles[t as usize];
        for k in 0..3 {
            if grouping.face_of[mesh.neighbors[t as usize][k] as usize] != face {
                edges.push((corners[k], corners[(k + 1) % 3]));
            }
        }
    }
    let mut simple = true;
    for &(from, to) in &edges {
        if next_of[from as usize] != NONE {
            simple = false;
        }
        next_of[from as usize] = to;
    }
    let mut result = Vec::with_capacity(edges.len());
    if simple && !edges.is_empty() {
        let first = edges[0].0;
        let mut at = first;
        loop {
            result.push(at);
            at = next_of[at as usize];
            if at == first || at == NONE || result.len() > edges.len() {
                break;
            }
        }
        simple = at == first && result.len() == edges.len();
    }
    for &(from, _) in &edges {
        next_of[from as usize] = NONE;
    }
    simple.then_some(result)
}

/// Removes every vertex that only two faces share: it sits on their common edge. Fails
/// (for those two faces) when such a vertex is further than `tolerance` from the straight
/// line through its neighbours.
fn remove_edge_vertices(points: &[Vec3], loops: &mut [Vec<u32>], tolerance: f64) -> std::result::Result<(), Failure> {
    let mut incidence: Vec<(u32, u32)> = Vec::new();
    for (f, face_loop) in loops.iter().enumerate() {
        incidence.extend(face_loop.iter().map(|&v| (v, f as u32)));
    }
    incidence.sort_unstable();
    let p = |v: u32| points[v as usize].as_dvec3();
    for window in incidence.chunk_by(|a, b| a.0 == b.0) {
        let &[(v, f1), (_, f2)] = window else {
            continue;
        };
        let l = &loops[f1 as usize];
        let k = l.iter().position(|&x| x == v).unwrap_or(0);
        let (prev, next) = (l[(k + l.len() - 1) % l.len()], l[(k + 1) % l.len()]);
        let chord = p(next) - p(prev);
        let off_line = (p(v) - p(prev)).cross(chord).length() / chord.length();
        if off_line.is_nan() || off_line > tolerance || loops[f2 as usize].len() <= 3 || l.len() <= 3 {
            return Err(Failure::Faces(vec![f1, f2]));
        }
        loops[f1 as usize].retain(|&x| x != v);
        loops[f2 as usize].retain(|&x| x != v);
    }
    Ok(())
}

/// True when every vertex lies on the inner side of every edge's line (within `tolerance`)
/// in the plane of `normal`, for the counter-clockwise loop seen from outside.
fn is_convex_polygon(points: &[Vec3], face_loop: &[u32], normal: DVec3, tolerance: f64) -> bool {
    let p = |v: u32| points[v as usize].as_dvec3();
    let n = face_loop.len();
    (0..n).all(|k| {
        let (a, b) = (p(face_loop[k]), p(face_loop[(k + 1) % n]));
        let inward = normal.cross(b - a).normalize_or_zero();
        inward != DVec3::ZERO && face_loop.iter().all(|&w| inward.dot(p(w) - a) >= -tolerance)
    })
}

/// Cuts faces with more than [`MAX_FACE_VERTICES`] vertices into pieces: the first
/// `MAX_FACE_VERTICES` vertices make a piece, the chord back to the first vertex closes it,
/// and the rest continues from there. Pieces of a convex polygon are convex.
fn split_large_faces(loops: Vec<Vec<u32>>, planes: Vec<FacePlane>) -> (Vec<Vec<u32>>, Vec<FacePlane>) {
    let mut out_loops = Vec::with_capacity(loops.len());
    let mut out_planes = Vec::with_capacity(planes.len());
    for (mut face_loop, plane) in loops.into_iter().zip(planes) {
        while face_loop.len() > MAX_FACE_VERTICES {
            out_loops.push(face_loop[..MAX_FACE_VERTICES].to_vec());
            out_planes.push(plane);
            face_loop.drain(1..MAX_FACE_VERTICES - 1);
        }
        out_loops.push(face_loop);
        out_planes.push(plane);
    }
    (out_loops, out_planes)
}

/// The vertices the loops use (in input order) and the loops renumbered to them.
fn compact(points: &[Vec3], loops: &[Vec<u32>]) -> (Vec<Vec3>, Vec<Vec<u16>>) {
    let mut used = vec![false; points.len()];
    for face_loop in loops {
        for &v in face_loop {
            used[v as usize] = true;
        }
    }
    let mut new_index = vec![NONE; points.len()];
    let mut vertices = Vec::new();
    for (i, _) in used.iter().enumerate().filter(|(_, &u)| u) {
        new_index[i] = vertices.len() as u32;
        vertices.push(points[i]);
    }
    let loops = loops.iter().map(|l| l.iter().map(|&v| new_index[v as usize] as u16).collect()).collect();
    (vertices, loops)
}
