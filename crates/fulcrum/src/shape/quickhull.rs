//! First stage of [`ConvexHull::from_points`](super::ConvexHull::from_points): the exact
//! triangulated convex hull of a point cloud, built incrementally in quickhull order.
//!
//! Robustness comes from three choices:
//!
//! 1. **Exact orientation tests.** The points are snapped to an integer grid with 2^24 steps
//!    across the cloud's largest extent (one step is about one f32 rounding unit of the
//!    extent), centred on the cloud, so every grid coordinate `q` has `|q| <= 2^23`. For a
//!    triangle `(a, b, c)` the normal `n = (b - a) × (c - a)` has components below
//!    `2 · 2^24 · 2^24 = 2^49` (exact in `i64`), and the orientation of a point,
//!    `n·p - n·a`, is below `2 · 3 · 2^49 · 2^23 < 2^76` (exact in `i128`). So the triangle mesh
//!    is always the exact convex hull of the points inserted so far: the faces a new point
//!    sees form a disc and its horizon is one simple cycle, whatever the input.
//! 2. **Tolerant insertion.** A point is inserted only when it lies more than `tolerance`
//!    outside the current hull. Points closer than that are dropped: they end up inside the
//!    final hull or at most `tolerance` outside its face planes. This keeps rounding noise (a
//!    rotated box's face points, say) from becoming sliver vertices.
//! 3. **Merging afterwards.** Coplanar and nearly coplanar triangles become polygon faces in
//!    `hull_faces.rs`.
//!
//! Quickhull order: every outside point sits in the conflict list of one triangle it sees
//! (the one it is furthest above); the furthest point of a triangle's list is inserted next.
//! When a triangle is replaced, its points move to the new triangle they are furthest above,
//! or are dropped when they see none (then they are inside: a point outside the new hull
//! that saw a removed triangle always sees a new one).

use crate::error::{check_vec3_range, Error, Result};
use crate::math::Vec3;

use super::hull::{HULL_RELATIVE_TOLERANCE, MAX_HULL_VERTICES};
use super::MAX_SHAPE_SIZE;

/// Half the grid's range: snapped coordinates lie in `[-2^23, 2^23]`.
const GRID_HALF_RANGE: f64 = 8_388_608.0;

/// No triangle / no point.
const NONE: u32 = u32::MAX;

/// Integer grid point.
pub(crate) type GridPoint = [i64; 3];

/// An exact plane `normal·p = offset` in grid coordinates (normal not unit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GridPlane {
    /// `(b - a) × (c - a)` of the triangle `(a, b, c)`.
    pub normal: [i64; 3],
    /// `normal · a`.
    pub offset: i128,
}

impl GridPlane {
    /// Plane of the triangle `(a, b, c)`; points above it see it counter-clockwise.
    pub fn through(a: GridPoint, b: GridPoint, c: GridPoint) -> GridPlane {
        let normal = cross(sub(b, a), sub(c, a));
        GridPlane { normal, offset: dot(normal, a) }
    }

    /// `normal·p - offset`: positive above, zero on, negative below (exact).
    #[inline]
    pub fn orient(&self, p: GridPoint) -> i128 {
        dot(self.normal, p) - self.offset
    }

    /// Length of the normal.
    pub fn normal_length(&self) -> f64 {
        let [x, y, z] = self.normal.map(|c| c as f64);
        (x * x + y * y + z * z).sqrt()
    }
}

#[inline]
fn sub(a: GridPoint, b: GridPoint) -> GridPoint {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline]
fn cross(a: GridPoint, b: GridPoint) -> GridPoint {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

#[inline]
fn dot(n: [i64; 3], p: GridPoint) -> i128 {
    n[0] as i128 * p[0] as i128 + n[1] as i128 * p[1] as i128 + n[2] as i128 * p[2] as i128
}

/// The point cloud on its integer grid.
pub(crate) struct SnappedCloud {
    /// Snapped points, same indices as the input.
    pub grid: Vec<GridPoint>,
    /// Distance tolerance of the construction, metres.
    pub tolerance: f64,
    /// Length of one grid step, metres.
    pub step: f64,
}

/// The triangulated hull: triangles counter-clockwise seen from outside, with neighbours.
pub(crate) struct TriangleHull {
    /// Point indices (into the input) of each triangle.
    pub triangles: Vec<[u32; 3]>,
    /// `neighbors[t][k]`: the triangle across edge `k` (from corner `k` to corner `k + 1`).
    pub neighbors: Vec<[u32; 3]>,
    /// Exact plane of each triangle.
    pub planes: Vec<GridPlane>,
}

/// The distance tolerance (metres) of hull construction for `points`: the larger of
/// [`HULL_RELATIVE_TOLERANCE`] times the largest side of the points' bounding box and 16 f32
/// rounding units of the largest coordinate (so clouds far from the origin still merge
/// faces that agree up to rounding). `points` must be finite.
pub(crate) fn tolerance_for(points: &[Vec3]) -> f64 {
    let (min, max) = bounds(points);
    let largest_side = (max - min).max_element();
    let largest_coordinate = min.abs().max(max.abs()).max_element();
    (HULL_RELATIVE_TOLERANCE as f64 * largest_side).max(16.0 * f32::EPSILON as f64 * largest_coordinate)
}

fn bounds(points: &[Vec3]) -> (glam::DVec3, glam::DVec3) {
    let mut min = glam::DVec3::splat(f64::INFINITY);
    let mut max = glam::DVec3::splat(f64::NEG_INFINITY);
    for p in points {
        min = min.min(p.as_dvec3());
        max = max.max(p.as_dvec3());
    }
    (min, max)
}

/// Checks the count of `points` and that every coordinate lies within ±[`MAX_SHAPE_SIZE`]
/// (errors name `points` or `points[i][k]`).
pub(crate) fn check_points(points: &[Vec3]) -> Result<()> {
    if points.len() < 4 {
        return Err(Error::new("points", format!("a convex hull needs at least 4 points, got {}", points.len())));
    }
    if points.len() > u32::MAX as usize / 2 {
        return Err(Error::new("points", "too many points"));
    }
    for (i, p) in points.iter().enumerate() {
        check_vec3_range(&format!("points[{i}]"), *p, -MAX_SHAPE_SIZE, MAX_SHAPE_SIZE)?;
    }
    Ok(())
}

/// Snaps finite `points` to the grid; fails when they all coincide within the tolerance.
pub(crate) fn snap(points: &[Vec3]) -> Result<SnappedCloud> {
    let tolerance = tolerance_for(points);
    let (min, max) = bounds(points);
    let largest_side = (max - min).max_element();
    if largest_side <= tolerance {
        return Err(Error::new(
            "points",
            format!("all points coincide (within {tolerance:e} m); a convex hull needs volume"),
        ));
    }
    let centre = 0.5 * (min + max);
    let scale = 2.0 * GRID_HALF_RANGE / largest_side;
    let grid = points
        .iter()
        .map(|p| {
            let q = ((p.as_dvec3() - centre) * scale).round();
            [q.x as i64, q.y as i64, q.z as i64]
        })
        .collect();
    Ok(SnappedCloud { grid, tolerance, step: 1.0 / scale })
}

/// Four points spanning a tetrahedron of the cloud: the extremes along the widest axis, the
/// point furthest from their line and the point furthest from the plane of the three. Fails
/// when the cloud is (within the tolerance) collinear or coplanar.
fn initial_tetrahedron(cloud: &SnappedCloud) -> Result<[u32; 4]> {
    let grid = &cloud.grid;
    let as_f64 = |p: GridPoint| glam::DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64);
    let tolerance_grid = cloud.tolerance / cloud.step;
    let (lo, hi) = bounds_grid(grid);
    let axis = (0..3).max_by_key(|&a| (hi[a] - lo[a], -(a as i64))).unwrap_or(0);
    let first = (0..grid.len()).min_by_key(|&i| (grid[i][axis], i)).unwrap_or(0);
    let second = (0..grid.len()).max_by_key(|&i| (grid[i][axis], -(i as i64))).unwrap_or(1);
    // Distance from the line: |(p - a) × u| / |u|, exact cross products in f64 (< 2^53).
    let (a, u) = (grid[first], sub(grid[second], grid[first]));
    let line_distance = |p: GridPoint| as_f64(cross(sub(p, a), u)).length();
    let third = argmax(grid.len(), |i| line_distance(grid[i]));
    if line_distance(grid[third]) / as_f64(u).length() <= tolerance_grid {
        return Err(Error::new(
            "points",
            format!("all points lie on one line (within {:e} m); a convex hull needs volume", cloud.tolerance),
        ));
    }
    let plane = GridPlane::through(grid[first], grid[second], grid[third]);
    let fourth = argmax(grid.len(), |i| plane.orient(grid[i]).unsigned_abs() as f64);
    if plane.orient(grid[fourth]).unsigned_abs() as f64 / plane.normal_length() <= tolerance_grid {
        return Err(Error::new(
            "points",
            format!("all points lie in one plane (within {:e} m); a convex hull needs volume", cloud.tolerance),
        ));
    }
    Ok([first as u32, second as u32, third as u32, fourth as u32])
}

fn bounds_grid(grid: &[GridPoint]) -> (GridPoint, GridPoint) {
    let mut lo = [i64::MAX; 3];
    let mut hi = [i64::MIN; 3];
    for p in grid {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    (lo, hi)
}

/// Index of the largest `key(i)` for `i < n` (the first one on ties).
fn argmax(n: usize, key: impl Fn(usize) -> f64) -> usize {
    let mut best = 0;
    let mut best_key = f64::NEG_INFINITY;
    for i in 0..n {
        let k = key(i);
        if k > best_key {
            best = i;
            best_key = k;
        }
    }
    best
}

/// A triangle under construction.
struct Triangle {
    corners: [u32; 3],
    neighbors: [u32; 3],
    plane: GridPlane,
    /// `1 / |normal|`: turns an orientation into a distance in grid steps.
    inverse_normal_length: f64,
    alive: bool,
    /// Points outside this triangle (above its plane) that it is responsible for.
    outside: Vec<u32>,
}

/// One edge of the horizon: `from -> to` as it ran in the visible triangle, and the hidden
/// triangle across it.
#[derive(Clone, Copy)]
struct HorizonEdge {
    from: u32,
    to: u32,
    hidden: u32,
}

/// The incremental hull.
struct Builder<'a> {
    grid: &'a [GridPoint],
    tolerance_grid: f64,
    triangles: Vec<Triangle>,
    /// Triangles that may have outside points.
    pending: Vec<u32>,
    vertex_count: usize,
    // Scratch buffers, reused by every insertion.
    visible: Vec<u32>,
    visit_stamp: Vec<u32>,
    stamp: u32,
    horizon: Vec<HorizonEdge>,
    horizon_from: Vec<u32>,
}

/// The exact triangulated hull of the snapped cloud (see the module comment).
pub(crate) fn triangle_hull(cloud: &SnappedCloud) -> Result<TriangleHull> {
    let corners = initial_tetrahedron(cloud)?;
    let mut builder = Builder {
        grid: &cloud.grid,
        tolerance_grid: cloud.tolerance / cloud.step,
        triangles: Vec::new(),
        pending: Vec::new(),
        vertex_count: 4,
        visible: Vec::new(),
        visit_stamp: Vec::new(),
        stamp: 0,
        horizon: Vec::new(),
        horizon_from: vec![NONE; cloud.grid.len()],
    };
    builder.start(corners);
    while let Some(t) = builder.pending.pop() {
        builder.process(t as usize)?;
    }
    Ok(builder.finish())
}

impl Builder<'_> {
    /// Distance of point `p` above triangle `t`, in grid steps.
    #[inline]
    fn distance(&self, t: usize, p: u32) -> f64 {
        let tri = &self.triangles[t];
        tri.plane.orient(self.grid[p as usize]) as f64 * tri.inverse_normal_length
    }

    fn new_triangle(&mut self, corners: [u32; 3], neighbors: [u32; 3]) -> u32 {
        let [a, b, c] = corners.map(|i| self.grid[i as usize]);
        let plane = GridPlane::through(a, b, c);
        self.triangles.push(Triangle {
            corners,
            neighbors,
            plane,
            inverse_normal_length: 1.0 / plane.normal_length(),
            alive: true,
            outside: Vec::new(),
        });
        self.visit_stamp.push(0);
        (self.triangles.len() - 1) as u32
    }

    /// The tetrahedron, oriented outwards, with every other point in the conflict list of
    /// the face it is furthest above.
    fn start(&mut self, corners: [u32; 4]) {
        let [a, mut b, mut c, d] = corners;
        let plane = GridPlane::through(self.grid[a as usize], self.grid[b as usize], self.grid[c as usize]);
        if plane.orient(self.grid[d as usize]) > 0 {
            std::mem::swap(&mut b, &mut c);
        }
        // With d below (a, b, c), these four are counter-clockwise seen from outside; the
        // neighbour across edge k of each face is listed in the same order.
        self.new_triangle([a, b, c], [1, 2, 3]);
        self.new_triangle([a, d, b], [3, 2, 0]);
        self.new_triangle([b, d, c], [1, 3, 0]);
        self.new_triangle([c, d, a], [2, 1, 0]);
        let new_faces = [0u32, 1, 2, 3];
        for p in 0..self.grid.len() as u32 {
            if !corners.contains(&p) {
                self.assign(p, &new_faces);
            }
        }
        self.pending.extend_from_slice(&new_faces);
    }

    /// Puts `p` in the conflict list of the candidate it is furthest above; drops it when it
    /// is above none (it is inside or on the hull).
    fn assign(&mut self, p: u32, candidates: &[u32]) {
        let mut best = NONE;
        let mut best_distance = 0.0;
        for &t in candidates {
            let tri = &self.triangles[t as usize];
            let orient = tri.plane.orient(self.grid[p as usize]);
            if orient > 0 {
                let distance = orient as f64 * tri.inverse_normal_length;
                if best == NONE || distance > best_distance {
                    best = t;
                    best_distance = distance;
                }
            }
        }
        if best != NONE {
            self.triangles[best as usize].outside.push(p);
        }
    }

    /// Inserts the furthest outside point of `t`, or settles its points when all of them lie
    /// within the tolerance of it.
    fn process(&mut self, t: usize) -> Result<()> {
        if !self.triangles[t].alive || self.triangles[t].outside.is_empty() {
            return Ok(());
        }
        let tri = &self.triangles[t];
        let mut furthest = tri.outside[0];
        let mut furthest_orient = tri.plane.orient(self.grid[furthest as usize]);
        for &p in &tri.outside[1..] {
            let orient = tri.plane.orient(self.grid[p as usize]);
            if orient > furthest_orient {
                furthest = p;
                furthest_orient = orient;
            }
        }
        if self.distance(t, furthest) > self.tolerance_grid {
            if self.vertex_count >= MAX_HULL_VERTICES {
                return Err(Error::new(
                    "points",
                    format!(
                        "the hull of these points has more than {MAX_HULL_VERTICES} vertices; \
                         use fewer points"
                    ),
                ));
            }
            self.vertex_count += 1;
            self.insert(t as u32, furthest)
        } else {
            self.settle_near_points(t);
            Ok(())
        }
    }

    /// Every point of `t`'s list is within the tolerance above `t`. It may still be further
    /// above another triangle; then it moves there, otherwise it is dropped.
    fn settle_near_points(&mut self, t: usize) {
        let points = std::mem::take(&mut self.triangles[t].outside);
        for p in points {
            let mut best = NONE;
            let mut best_distance = self.tolerance_grid;
            for u in 0..self.triangles.len() {
                if self.triangles[u].alive && u != t {
                    let distance = self.distance(u, p);
                    if distance > best_distance {
                        best = u as u32;
                        best_distance = distance;
                    }
                }
            }
            if best != NONE {
                self.triangles[best as usize].outside.push(p);
                self.pending.push(best);
            }
        }
    }

    /// Adds point `q` (outside triangle `start`): removes the triangles it sees, connects it
    /// to the horizon and hands their outside points to the new triangles.
    fn insert(&mut self, start: u32, q: u32) -> Result<()> {
        self.find_visible_and_horizon(start, q);
        self.order_horizon()?;
        let first_new = self.triangles.len() as u32;
        let count = self.horizon.len() as u32;
        for i in 0..count {
            let edge = self.horizon[i as usize];
            let next = first_new + (i + 1) % count;
            let previous = first_new + (i + count - 1) % count;
            let new = self.new_triangle([edge.from, edge.to, q], [edge.hidden, next, previous]);
            self.relink(edge.hidden, edge.to, edge.from, new)?;
        }
        let new_faces: Vec<u32> = (first_new..first_new + count).collect();
        for k in 0..self.visible.len() {
            let v = self.visible[k] as usize;
            self.triangles[v].alive = false;
            let points = std::mem::take(&mut self.triangles[v].outside);
            for p in points {
                if p != q {
                    self.assign(p, &new_faces);
                }
            }
        }
        for &t in &new_faces {
            if !self.triangles[t as usize].outside.is_empty() {
                self.pending.push(t);
            }
        }
        Ok(())
    }

    /// Depth-first search from `start` over the triangles `q` is strictly above (exact test);
    /// collects them in `visible` and the edges to the others in `horizon`.
    fn find_visible_and_horizon(&mut self, start: u32, q: u32) {
        self.stamp = self.stamp.wrapping_add(1).max(1);
        self.visible.clear();
        self.horizon.clear();
        let p = self.grid[q as usize];
        let mut stack = vec![start];
        self.visit_stamp[start as usize] = self.stamp;
        while let Some(t) = stack.pop() {
            self.visible.push(t);
            let tri = &self.triangles[t as usize];
            let (corners, neighbors) = (tri.corners, tri.neighbors);
            for k in 0..3 {
                let n = neighbors[k];
                if self.visit_stamp[n as usize] == self.stamp {
                    continue;
                }
                if self.triangles[n as usize].plane.orient(p) > 0 {
                    self.visit_stamp[n as usize] = self.stamp;
                    stack.push(n);
                } else {
                    let (from, to) = (corners[k], corners[(k + 1) % 3]);
                    self.horizon.push(HorizonEdge { from, to, hidden: n });
                }
            }
        }
    }

    /// Sorts the horizon edges into one cycle (each edge starts where the last one ended).
    fn order_horizon(&mut self) -> Result<()> {
        for (i, edge) in self.horizon.iter().enumerate() {
            if self.horizon_from[edge.from as usize] != NONE {
                return Err(internal_error("the horizon is not a simple cycle"));
            }
            self.horizon_from[edge.from as usize] = i as u32;
        }
        let mut ordered = Vec::with_capacity(self.horizon.len());
        let mut at = self.horizon[0].from;
        for _ in 0..self.horizon.len() {
            let i = self.horizon_from[at as usize];
            if i == NONE {
                break;
            }
            ordered.push(self.horizon[i as usize]);
            at = self.horizon[i as usize].to;
        }
        for edge in &self.horizon {
            self.horizon_from[edge.from as usize] = NONE;
        }
        if ordered.len() != self.horizon.len() || at != self.horizon[0].from {
            return Err(internal_error("the horizon is not a simple cycle"));
        }
        self.horizon = ordered;
        Ok(())
    }

    /// In triangle `t`, points the edge `from -> to` at the new neighbour `new`.
    fn relink(&mut self, t: u32, from: u32, to: u32, new: u32) -> Result<()> {
        let tri = &mut self.triangles[t as usize];
        for k in 0..3 {
            if tri.corners[k] == from && tri.corners[(k + 1) % 3] == to {
                tri.neighbors[k] = new;
                return Ok(());
            }
        }
        Err(internal_error("a horizon edge has no twin"))
    }

    /// The live triangles, renumbered densely.
    fn finish(self) -> TriangleHull {
        let mut new_index = vec![NONE; self.triangles.len()];
        let mut count = 0;
        for (t, tri) in self.triangles.iter().enumerate() {
            if tri.alive {
                new_index[t] = count;
                count += 1;
            }
        }
        let live = self.triangles.iter().filter(|t| t.alive);
        TriangleHull {
            triangles: live.clone().map(|t| t.corners).collect(),
            neighbors: live.clone().map(|t| t.neighbors.map(|n| new_index[n as usize])).collect(),
            planes: live.map(|t| t.plane).collect(),
        }
    }
}

fn internal_error(what: &str) -> Error {
    Error::new("points", format!("internal error in hull construction: {what}"))
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{assert_valid_hull, Lcg};
    use super::super::ConvexHull;
    use crate::math::{Pose, Quat, Vec3};

    /// Builds the hull and runs the independent validity checks with the construction
    /// tolerance (plus a few f32 rounding units of the cloud's magnitude for the planes).
    fn hull_of(points: &[Vec3]) -> ConvexHull {
        let hull = ConvexHull::from_points(points).expect("valid cloud");
        let magnitude = points.iter().map(|p| p.abs().max_element()).fold(0.0, f32::max);
        let tolerance = ConvexHull::tolerance_for(points) + 4.0 * f32::EPSILON * magnitude;
        assert_valid_hull(&hull, points, tolerance);
        hull
    }

    fn face_sizes(hull: &ConvexHull) -> Vec<usize> {
        let mut sizes: Vec<usize> = (0..hull.faces.len())
            .map(|f| {
                let mut n = 0;
                hull.for_each_face_vertex(f, |_| n += 1);
                n
            })
            .collect();
        sizes.sort_unstable();
        sizes
    }

    fn box_corners(h: Vec3) -> Vec<Vec3> {
        (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 != 0 { h.x } else { -h.x },
                    if i & 2 != 0 { h.y } else { -h.y },
                    if i & 4 != 0 { h.z } else { -h.z },
                )
            })
            .collect()
    }

    /// A `count`-gon prism (or sampled cylinder) of radius `r` and half height `h`.
    fn prism(count: usize, r: f32, h: f32) -> Vec<Vec3> {
        let mut points = Vec::new();
        for k in 0..count {
            let angle = k as f32 / count as f32 * std::f32::consts::TAU;
            for y in [-h, h] {
                points.push(Vec3::new(r * angle.cos(), y, r * angle.sin()));
            }
        }
        points
    }

    #[test]
    fn box_corners_give_six_quads() {
        let hull = hull_of(&box_corners(Vec3::new(1.0, 2.0, 3.0)));
        assert_eq!((hull.vertices.len(), hull.faces.len(), hull.edges.len()), (8, 6, 24));
        assert_eq!(face_sizes(&hull), vec![4; 6]);
    }

    #[test]
    fn rotated_boxes_with_extra_points_still_give_six_quads() {
        let mut rng = Lcg::new(7);
        for _ in 0..10 {
            let h = Vec3::new(rng.range(0.1, 3.0), rng.range(0.1, 3.0), rng.range(0.1, 3.0));
            let pose = rng.pose(10.0);
            let corners = box_corners(h);
            // Corners, edge midpoints, face points, interior points and duplicates.
            let mut local = corners.clone();
            for i in 0..8 {
                for j in 0..8usize {
                    if (i ^ j).count_ones() == 1 {
                        local.push(0.5 * (corners[i] + corners[j]));
                    }
                }
            }
            for _ in 0..200 {
                let mut p = rng.in_box(h);
                let axis = (rng.next_u32() % 3) as usize;
                p[axis] = if rng.unit() < 0.5 { -h[axis] } else { h[axis] };
                local.push(p);
                local.push(rng.in_box(h * 0.99));
            }
            local.extend_from_slice(&corners);
            let points: Vec<Vec3> = local.iter().map(|&p| pose.transform_point(p)).collect();
            let hull = hull_of(&points);
            assert_eq!((hull.vertices.len(), hull.faces.len()), (8, 6));
            assert_eq!(face_sizes(&hull), vec![4; 6]);
        }
    }

    #[test]
    fn lattice_cube_gives_eight_vertices() {
        let mut points = Vec::new();
        for i in 0..10 {
            for j in 0..10 {
                for k in 0..10 {
                    points.push(Vec3::new(i as f32, j as f32, k as f32) * 0.1);
                }
            }
        }
        let hull = hull_of(&points);
        assert_eq!((hull.vertices.len(), hull.faces.len(), hull.edges.len()), (8, 6, 24));
    }

    #[test]
    fn twenty_gon_prism_has_two_twenty_gon_caps() {
        let mut rng = Lcg::new(3);
        for trial in 0..4 {
            let pose = if trial == 0 { Pose::IDENTITY } else { rng.pose(3.0) };
            let points: Vec<Vec3> = prism(20, 1.5, 0.7).iter().map(|&p| pose.transform_point(p)).collect();
            let hull = hull_of(&points);
            assert_eq!(hull.vertices.len(), 40);
            let mut expected = vec![4; 20];
            expected.extend([20, 20]);
            assert_eq!(face_sizes(&hull), expected);
        }
    }

    #[test]
    fn large_caps_are_cut_into_pieces_of_at_most_64_vertices() {
        let hull = hull_of(&prism(150, 1.0, 0.5));
        assert_eq!(hull.vertices.len(), 300);
        assert!(*face_sizes(&hull).last().unwrap() <= super::super::hull::MAX_FACE_VERTICES);
        // Pieces of a cap share its plane.
        let caps = hull.planes.iter().filter(|p| p.normal.y.abs() > 0.999).count();
        assert_eq!(caps, 6, "each 150-gon cap becomes 3 pieces");
    }

    #[test]
    fn random_clouds_give_valid_hulls() {
        let mut rng = Lcg::new(11);
        for trial in 0..12 {
            let count = 20 + 60 * trial;
            let points: Vec<Vec3> = (0..count)
                .map(|_| match trial % 3 {
                    0 => rng.in_box(Vec3::new(1.0, 0.5, 2.0)),
                    1 => rng.in_ball() * 3.0,
                    _ => rng.direction() * 0.25 + Vec3::new(0.0, 10.0, 0.0),
                })
                .collect();
            let hull = hull_of(&points);
            if trial % 3 == 2 {
                // On a sphere every point is extreme; only points within the tolerance of
                // the hull of the others may be dropped, and that needs a near neighbour.
                let tolerance = ConvexHull::tolerance_for(&points);
                for p in points.iter().filter(|p| !hull.vertices.contains(p)) {
                    let nearest = hull.vertices.iter().map(|v| v.distance(*p)).fold(9.0, f32::min);
                    // A dropped point sags below the chord between neighbours by at most
                    // tolerance: chord²/(8 r) <= tolerance.
                    assert!(nearest <= (8.0 * 0.25 * tolerance).sqrt() * 2.0, "{p}: {nearest}");
                }
                assert!(hull.vertices.len() * 100 >= count * 98);
            }
        }
    }

    #[test]
    fn awkward_clouds_give_valid_hulls() {
        let mut rng = Lcg::new(5);
        // Far from the origin; tiny; huge; thin slab; clustered at the corners of a
        // tetrahedron; many duplicates; a rotated grid on a sphere-like lattice.
        let offset = Vec3::splat(1000.0);
        let far: Vec<Vec3> = (0..200).map(|_| rng.in_box(Vec3::ONE) + offset).collect();
        let tiny: Vec<Vec3> = (0..200).map(|_| rng.in_ball() * 1e-3).collect();
        let huge: Vec<Vec3> = (0..200).map(|_| rng.in_ball() * 1e4).collect();
        let slab: Vec<Vec3> = (0..200).map(|_| rng.in_box(Vec3::new(1.0, 1e-3, 1.0))).collect();
        let tetra = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
        let clusters: Vec<Vec3> = (0..400).map(|i| tetra[i % 4] + rng.in_ball() * 1e-4).collect();
        let duplicates: Vec<Vec3> = (0..300).map(|i| tetra[i % 4] * (1 + i % 3) as f32).collect();
        let rotation = Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
        let mut lattice = Vec::new();
        for i in -4..=4 {
            for j in -4..=4 {
                for k in -4..=4 {
                    let p = Vec3::new(i as f32, j as f32, k as f32);
                    if p.length() <= 4.0 {
                        lattice.push(rotation * p);
                    }
                }
            }
        }
        for cloud in [far, tiny, huge, slab, clusters, duplicates, lattice] {
            hull_of(&cloud);
        }
    }

    #[test]
    fn gently_curved_and_noisy_clouds_fall_back_per_face_and_stay_valid() {
        // Surfaces whose curvature or noise is a few tolerances make merged faces that are
        // not convex; those faces fall back to exact merging. Every hull must stay valid.
        let mut rng = Lcg::new(1);
        let before = super::super::hull_faces::fallback_count();
        for trial in 0..60 {
            let tolerance = 2e-5;
            let bend = [2.0, 5.0, 10.0][trial % 3] * tolerance;
            let pose = rng.pose(2.0);
            let mut points = Vec::new();
            for _ in 0..[100, 300][trial / 3 % 2] {
                let p = rng.in_ball();
                let y = if trial % 2 == 0 { p.x * p.x + p.z * p.z } else { p.x.abs() + p.z.powi(4) };
                points.push(pose.transform_point(Vec3::new(p.x, -bend * y, p.z)));
                points.push(pose.transform_point(Vec3::new(p.x, -1.0, p.z)));
                let noisy = rng.direction() + rng.in_ball() * bend;
                points.push(pose.transform_point(noisy.clamp(-Vec3::ONE, Vec3::ONE) + Vec3::X * 3.0));
            }
            hull_of(&points);
        }
        assert!(super::super::hull_faces::fallback_count() > before, "the fallback was not exercised");
    }

    #[test]
    fn degenerate_inputs_are_refused_with_clear_errors() {
        let field_of = |points: &[Vec3]| ConvexHull::from_points(points).unwrap_err();
        let e = field_of(&[Vec3::ZERO, Vec3::X, Vec3::Y]);
        assert!(e.field == "points" && e.reason.contains("at least 4"), "{e}");
        let mut points = box_corners(Vec3::ONE);
        points[5].y = f32::NAN;
        assert_eq!(field_of(&points).field, "points[5][1]");
        points[5].y = f32::INFINITY;
        assert_eq!(field_of(&points).field, "points[5][1]");
        let mut rng = Lcg::new(9);
        let base = Vec3::new(1.0, 2.0, 3.0);
        let coincident: Vec<Vec3> = (0..10).map(|_| base + rng.in_ball() * 1e-9).collect();
        let e = field_of(&coincident);
        assert!(e.field == "points" && e.reason.contains("coincide"), "{e}");
        let exactly_coincident = vec![base; 6];
        assert!(field_of(&exactly_coincident).reason.contains("coincide"));
        let direction = Vec3::new(0.3, -0.4, 0.5);
        let line: Vec<Vec3> = (0..20).map(|i| base + direction * i as f32 + rng.in_ball() * 1e-7).collect();
        let e = field_of(&line);
        assert!(e.field == "points" && e.reason.contains("line"), "{e}");
        let rotation = Quat::from_axis_angle(Vec3::new(1.0, 1.0, 0.0).normalize(), 0.4);
        let plane: Vec<Vec3> =
            (0..50).map(|_| rotation * (rng.in_box(Vec3::new(2.0, 0.0, 1.0)) + rng.in_ball() * 1e-6)).collect();
        let e = field_of(&plane);
        assert!(e.field == "points" && e.reason.contains("plane"), "{e}");
        let sphere: Vec<Vec3> = (0..5000).map(|_| rng.direction()).collect();
        let e = field_of(&sphere);
        assert!(e.field == "points" && e.reason.contains("vertices"), "{e}");
    }

    #[test]
    fn shape_convex_hull_works_end_to_end() {
        let shape = crate::shape::Shape::convex_hull(&box_corners(Vec3::ONE)).unwrap();
        let mass = shape.mass_properties(1.0);
        assert!((mass.mass - 8.0).abs() < 1e-5);
        let (hit, _) = shape
            .cast_ray(
                &Pose::from_position(Vec3::new(0.0, 0.0, 5.0)),
                &crate::geometry::Ray::new(Vec3::ZERO, Vec3::Z),
                10.0,
            )
            .unwrap();
        assert!((hit.t - 4.0).abs() < 1e-5 && (hit.normal + Vec3::Z).length() < 1e-5);
        assert!(crate::shape::Shape::convex_hull(&[Vec3::ZERO; 3]).is_err());
    }
}
