//! Heightfields: terrain as a regular grid of heights, solid below its surface.

use std::fmt;

use super::triangle::{fold_is_active, Triangle, TriangleSurface, ALL_THREE};
use super::MAX_SHAPE_SIZE;
use crate::error::{check_above_zero_vec3, check_finite, component, Error, Result};
use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::Vec3;

/// A heightfield in its collider's local frame, for static and kinematic bodies.
///
/// `heights[i][j]` is the height of sample (i, j): rows run along Z, columns along X, and the
/// grid is centred on the local origin: x = (j − (cols − 1)/2)·sx, z = (i − (rows − 1)/2)·sz,
/// y = heights[i][j]·sy. Valid input: at least 2 × 2 samples, every row the same length,
/// finite heights, a positive finite scale (sx, sz are the sample spacings in metres, sy
/// multiplies the heights).
///
/// Each cell (i, j) is two triangles split along the diagonal from sample (i, j) to
/// (i + 1, j + 1), triangle index 2·(i·(cols − 1) + j) + half: half 0 is
/// (i, j), (i + 1, j), (i + 1, j + 1) (the side of smaller x), half 1 is
/// (i, j), (i + 1, j + 1), (i, j + 1). Their front faces look up. No triangle list is stored:
/// triangles are made from the samples on demand and cells are found by index. Each
/// triangle's six flags (active edges and vertices, found from the neighbouring samples when
/// the field is built) are kept in one byte: two bytes a cell beside its four-byte sample.
///
/// The heightfield is solid below its surface: a ray whose origin lies under the surface
/// (within the grid's x, z extent) hits at t = 0 like a ray starting inside any solid shape.
/// Otherwise rays hit the surface from above only and pass through it from below.
#[derive(Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HeightField {
    rows: usize,
    cols: usize,
    /// The heights as given (before `scale.y`), row-major.
    heights: Vec<f32>,
    scale: Vec3,
    /// Lowest and highest sample, metres (after `scale.y`).
    min_height: f32,
    max_height: f32,
    /// Per triangle: bits 0–2 its active edges, bits 3–5 its active vertices.
    flags: Vec<u8>,
}

/// A sample as (row, column).
type Sample = (usize, usize);

impl HeightField {
    /// A heightfield from rows of heights (row i along Z, column j along X) and the scale
    /// (sx, sy, sz); see the type's docs for the valid ranges.
    pub fn new(heights: Vec<Vec<f32>>, scale: Vec3) -> Result<HeightField> {
        check_above_zero_vec3("scale", scale, MAX_SHAPE_SIZE)?;
        let (rows, cols) = check_grid(&heights)?;
        let flat: Vec<f32> = heights.into_iter().flatten().collect();
        for (k, &h) in flat.iter().enumerate().filter(|(_, h)| !(*h * scale.y).is_finite()) {
            let field = component(&component("heights", k / cols), k % cols);
            check_finite(&field, h)?;
            check_finite(&field, h * scale.y).map_err(|_| Error::new(field, "times scale[1] is not finite"))?;
        }
        let min_height = flat.iter().fold(f32::INFINITY, |m, &h| m.min(h * scale.y));
        let max_height = flat.iter().fold(f32::NEG_INFINITY, |m, &h| m.max(h * scale.y));
        let mut field = HeightField { rows, cols, heights: flat, scale, min_height, max_height, flags: Vec::new() };
        field.flags = field.find_flags();
        Ok(field)
    }

    /// Checks a heightfield restored from a snapshot: it must be the one [`HeightField::new`]
    /// builds from its heights and scale (O(n)).
    pub(crate) fn check_stored(&self) -> Result<()> {
        if self.rows < 2 || self.cols < 2 || self.rows.checked_mul(self.cols) != Some(self.heights.len()) {
            return Err(Error::new("heights", "the grid's size does not match its samples"));
        }
        if HeightField::new(self.heights(), self.scale)? != *self {
            return Err(Error::new("heights", "the bounds or flags do not match the samples"));
        }
        Ok(())
    }

    /// Number of rows (samples along Z).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns (samples along X).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The scale (sample spacing in X, height factor, sample spacing in Z).
    pub fn scale(&self) -> Vec3 {
        self.scale
    }

    /// The heights as given (before `scale.y`), row by row.
    pub fn heights(&self) -> Vec<Vec<f32>> {
        self.heights.chunks(self.cols).map(<[f32]>::to_vec).collect()
    }

    /// Height of sample (i, j) (row i along Z, column j along X) in metres, times `scale.y`.
    #[inline]
    pub fn height(&self, i: usize, j: usize) -> f32 {
        self.heights[i * self.cols + j] * self.scale.y
    }

    /// Local position of sample (i, j).
    #[inline]
    fn sample(&self, (i, j): Sample) -> Vec3 {
        let x = (j as f32 - 0.5 * (self.cols - 1) as f32) * self.scale.x;
        let z = (i as f32 - 0.5 * (self.rows - 1) as f32) * self.scale.z;
        Vec3::new(x, self.height(i, j), z)
    }

    /// Bounds of the surface, local frame.
    pub fn local_aabb(&self) -> Aabb {
        let half =
            Vec3::new(0.5 * (self.cols - 1) as f32 * self.scale.x, 0.0, 0.5 * (self.rows - 1) as f32 * self.scale.z);
        Aabb::new(Vec3::new(-half.x, self.min_height, -half.z), Vec3::new(half.x, self.max_height, half.z))
    }

    /// Number of triangles: two per cell.
    pub fn triangle_count(&self) -> usize {
        2 * (self.rows - 1) * (self.cols - 1)
    }

    /// The samples of triangle `index` (see the type's docs), counter-clockwise from above.
    fn corners(&self, index: u32) -> [Sample; 3] {
        let cell = index as usize / 2;
        let (i, j) = (cell / (self.cols - 1), cell % (self.cols - 1));
        if index % 2 == 0 {
            [(i, j), (i + 1, j), (i + 1, j + 1)]
        } else {
            [(i, j), (i + 1, j + 1), (i, j + 1)]
        }
    }

    /// The sample across edge `edge` of triangle `index` that the neighbouring triangle does
    /// not share with it; `None` on the grid's border. Half 0's edges are its cell's x = x_j
    /// side, z = z_(i+1) side and diagonal; half 1's the diagonal, x = x_(j+1), z = z_i.
    fn across(&self, index: u32, edge: usize) -> Option<Sample> {
        let [(i, j), ..] = self.corners(index);
        let (last_row, last_col) = (self.rows - 1, self.cols - 1);
        match (index % 2, edge) {
            (0, 0) => (j >= 1).then(|| (i, j - 1)),
            (0, 1) => (i + 2 <= last_row).then(|| (i + 2, j + 1)),
            (0, _) => Some((i, j + 1)),
            (_, 0) => Some((i + 1, j)),
            (_, 1) => (j + 2 <= last_col).then(|| (i + 1, j + 2)),
            _ => (i >= 1).then(|| (i - 1, j)),
        }
    }

    /// Active edges of triangle `index` (see [`Triangle::active_edges`]): each edge is
    /// classified against the neighbouring triangle's far sample; border edges are active.
    fn active_edges(&self, index: u32) -> u8 {
        let vertices = self.corners(index).map(|s| self.sample(s));
        let normal = Triangle::new(vertices, 0, 0, false).normal;
        (0..3).fold(0, |bits, edge| {
            let active = match self.across(index, edge) {
                None => true,
                Some(far) => fold_is_active(vertices[edge], vertices[(edge + 1) % 3], normal, self.sample(far)),
            };
            bits | (u8::from(active) << edge)
        })
    }

    /// Every triangle's flags: its active edges, and as active vertices the samples where
    /// some active edge of the surface ends.
    fn find_flags(&self) -> Vec<u8> {
        let edges: Vec<u8> = (0..self.triangle_count() as u32).map(|index| self.active_edges(index)).collect();
        let mut active_samples = vec![false; self.rows * self.cols];
        for (index, &bits) in edges.iter().enumerate() {
            let corners = self.corners(index as u32);
            for edge in (0..3).filter(|edge| bits & (1 << edge) != 0) {
                for (i, j) in [corners[edge], corners[(edge + 1) % 3]] {
                    active_samples[i * self.cols + j] = true;
                }
            }
        }
        let vertex_bits = |index: usize| {
            let corners = self.corners(index as u32);
            (0..3).fold(0u8, |bits, corner| {
                let (i, j) = corners[corner];
                bits | u8::from(active_samples[i * self.cols + j]) << corner
            })
        };
        edges.iter().enumerate().map(|(index, &bits)| bits | (vertex_bits(index) & ALL_THREE) << 3).collect()
    }

    /// Triangle `index` (< [`HeightField::triangle_count`]) with its normal and flags.
    pub fn triangle(&self, index: u32) -> Triangle {
        self.triangle_with(index, self.corners(index).map(|s| self.sample(s)))
    }

    /// Triangle `index` whose corners (`vertices`) are already known.
    fn triangle_with(&self, index: u32, vertices: [Vec3; 3]) -> Triangle {
        let flags = self.flags[index as usize];
        Triangle::new(vertices, flags & ALL_THREE, (flags >> 3) & ALL_THREE, false)
    }

    /// Calls `visit(index, triangle)` for every triangle whose bounds overlap `local` (shape
    /// frame), cell by cell in row order; cells outside the box's x, z range are never looked
    /// at and cells whose height range misses it are skipped. Stops when `visit` returns false.
    pub fn for_each_triangle_in(&self, local: &Aabb, mut visit: impl FnMut(u32, &Triangle) -> bool) {
        let Some((rows, cols)) = self.cells_under(local) else { return };
        for i in rows.0..=rows.1 {
            for j in cols.0..=cols.1 {
                let heights =
                    [self.height(i, j), self.height(i + 1, j), self.height(i, j + 1), self.height(i + 1, j + 1)];
                let low = heights.iter().fold(f32::INFINITY, |m, &h| m.min(h));
                let high = heights.iter().fold(f32::NEG_INFINITY, |m, &h| m.max(h));
                if high < local.min.y || low > local.max.y {
                    continue;
                }
                for half in 0..2 {
                    let index = (2 * (i * (self.cols - 1) + j) + half) as u32;
                    let corners = self.corners(index).map(|s| self.sample(s));
                    if Aabb::of_points(&corners).overlaps(local) && !visit(index, &self.triangle_with(index, corners)) {
                        return;
                    }
                }
            }
        }
    }

    /// The inclusive ranges of cell rows and columns whose x, z extent touches the box's;
    /// `None` when the box misses the grid.
    fn cells_under(&self, local: &Aabb) -> Option<((usize, usize), (usize, usize))> {
        let range = |low: f32, high: f32, spacing: f32, count: usize| {
            let start = -0.5 * (count - 1) as f32 * spacing;
            let (first, last) = (((low - start) / spacing).ceil() - 1.0, ((high - start) / spacing).floor());
            let cells = (count - 1) as f32;
            (last >= 0.0 && first < cells && first <= last)
                .then(|| (first.max(0.0) as usize, last.min(cells - 1.0) as usize))
        };
        let rows = range(local.min.z, local.max.z, self.scale.z, self.rows)?;
        let cols = range(local.min.x, local.max.x, self.scale.x, self.cols)?;
        Some((rows, cols))
    }

    /// The cell (i, j) holding the local point's x, z and the point's fractions (u along X,
    /// w along Z) in it; `None` outside the grid. Points on the far border belong to the last
    /// cell.
    fn cell_at(&self, x: f32, z: f32) -> Option<(Sample, f32, f32)> {
        let locate = |value: f32, spacing: f32, count: usize| {
            let position = value / spacing + 0.5 * (count - 1) as f32;
            let cells = (count - 1) as f32;
            (0.0..=cells).contains(&position).then(|| {
                let cell = position.floor().min(cells - 1.0);
                (cell as usize, position - cell)
            })
        };
        let (i, w) = locate(z, self.scale.z, self.rows)?;
        let (j, u) = locate(x, self.scale.x, self.cols)?;
        Some(((i, j), u, w))
    }

    /// Surface height at local (x, z), `None` outside the grid. In cell (i, j) with fractions
    /// u (along X) and w (along Z): half 0 (u ≤ w) gives h₀₀ + w·(h₁₀ − h₀₀) + u·(h₁₁ − h₁₀),
    /// half 1 gives h₀₀ + u·(h₀₁ − h₀₀) + w·(h₁₁ − h₀₁) (h_ab = height of sample (i+a, j+b)).
    pub fn height_at(&self, x: f32, z: f32) -> Option<f32> {
        let ((i, j), u, w) = self.cell_at(x, z)?;
        let h = |a: usize, b: usize| self.height(i + a, j + b);
        Some(if u <= w {
            h(0, 0) + w * (h(1, 0) - h(0, 0)) + u * (h(1, 1) - h(1, 0))
        } else {
            h(0, 0) + u * (h(0, 1) - h(0, 0)) + w * (h(1, 1) - h(0, 1))
        })
    }

    /// For a local point under the surface (inside the grid's x, z extent): the triangle
    /// straight above it and the surface point there, (x, height_at(x, z), z). `None` for a
    /// point on or above the surface or outside the grid.
    pub fn surface_above(&self, point: Vec3) -> Option<(u32, Vec3)> {
        let height = self.height_at(point.x, point.z).filter(|&h| point.y < h)?;
        Some((self.triangle_at(point.x, point.z)?, Vec3::new(point.x, height, point.z)))
    }

    /// The triangle under local (x, z), if inside the grid.
    fn triangle_at(&self, x: f32, z: f32) -> Option<u32> {
        let ((i, j), u, w) = self.cell_at(x, z)?;
        Some((2 * (i * (self.cols - 1) + j) + usize::from(u > w)) as u32)
    }

    /// The first hit of the ray within `max_t` (local frame) and its triangle (see the type's
    /// docs for rays from below). Walks the cells the ray crosses in order (2D DDA over x, z,
    /// within the part of the ray inside the bounds) and tests each cell's two triangles; the
    /// first cell with a hit holds the nearest one.
    pub fn cast_ray_local(&self, ray: &Ray, max_t: f32) -> Option<(RayHit, u32)> {
        let (o, d) = (ray.origin, ray.direction);
        if let Some((triangle, _)) = self.surface_above(o) {
            return Some((RayHit { t: 0.0, normal: -d.normalize_or(Vec3::Y) }, triangle));
        }
        let (t_enter, t_exit) = self.ray_span(ray, max_t)?;
        let start = ray.at(t_enter);
        let cells = |value: f32, spacing: f32, count: usize| {
            ((value / spacing + 0.5 * (count - 1) as f32).floor()).clamp(0.0, (count - 2) as f32) as usize
        };
        let (mut i, mut j) = (cells(start.z, self.scale.z, self.rows), cells(start.x, self.scale.x, self.cols));
        let grid_line = |cell: usize, step: f32, spacing: f32, count: usize| {
            (cell as f32 + if step > 0.0 { 1.0 } else { 0.0 } - 0.5 * (count - 1) as f32) * spacing
        };
        let crossing =
            |line: f32, origin: f32, speed: f32| if speed == 0.0 { f32::INFINITY } else { (line - origin) / speed };
        loop {
            let next_x = crossing(grid_line(j, d.x, self.scale.x, self.cols), o.x, d.x);
            let next_z = crossing(grid_line(i, d.z, self.scale.z, self.rows), o.z, d.z);
            if let Some(hit) = self.cast_into_cell(ray, (i, j), max_t) {
                return Some(hit);
            }
            let t_leave = next_x.min(next_z);
            if t_leave > t_exit {
                return None;
            }
            let (ni, nj) =
                if next_x < next_z { (Some(i), step(j, d.x, self.cols)) } else { (step(i, d.z, self.rows), Some(j)) };
            (i, j) = (ni?, nj?);
        }
    }

    /// The nearer hit of the ray on the two triangles of cell (i, j) within `max_t`.
    fn cast_into_cell(&self, ray: &Ray, (i, j): Sample, max_t: f32) -> Option<(RayHit, u32)> {
        let first = (2 * (i * (self.cols - 1) + j)) as u32;
        let mut best: Option<(RayHit, u32)> = None;
        for index in [first, first + 1] {
            let triangle = Triangle::new(self.corners(index).map(|s| self.sample(s)), 0, 0, false);
            let limit = best.map_or(max_t, |(hit, _)| hit.t);
            if let Some(hit) = triangle.cast_ray(ray, limit) {
                best = Some((hit, index));
            }
        }
        best
    }

    /// The ray's parameter interval inside the bounds (slab test per axis), within
    /// `[0, max_t]`.
    fn ray_span(&self, ray: &Ray, max_t: f32) -> Option<(f32, f32)> {
        let bounds = self.local_aabb();
        let (mut enter, mut exit) = (0.0f32, max_t);
        for axis in 0..3 {
            let (o, d) = (ray.origin[axis], ray.direction[axis]);
            if d == 0.0 {
                if o < bounds.min[axis] || o > bounds.max[axis] {
                    return None;
                }
                continue;
            }
            let (a, b) = ((bounds.min[axis] - o) / d, (bounds.max[axis] - o) / d);
            enter = enter.max(a.min(b));
            exit = exit.min(a.max(b));
        }
        (enter <= exit).then_some((enter, exit))
    }
}

/// The next cell index from `cell` in the direction of `speed` among `count − 1` cells;
/// `None` past the border.
fn step(cell: usize, speed: f32, count: usize) -> Option<usize> {
    if speed > 0.0 {
        (cell + 2 < count).then_some(cell + 1)
    } else {
        cell.checked_sub(1)
    }
}

/// At least 2 × 2 samples and rows of equal length: returns (rows, cols).
fn check_grid(heights: &[Vec<f32>]) -> Result<(usize, usize)> {
    let cols = heights.first().map_or(0, Vec::len);
    if heights.len() < 2 {
        return Err(Error::new(
            "heights",
            format!("a heightfield needs at least 2 × 2 samples, got {} rows", heights.len()),
        ));
    }
    if let Some(i) = heights.iter().position(|row| row.len() != cols) {
        return Err(Error::new(
            component("heights", i),
            format!("row {i} has {} samples but row 0 has {cols}: every row needs the same length", heights[i].len()),
        ));
    }
    if cols < 2 {
        return Err(Error::new("heights", format!("a heightfield needs at least 2 × 2 samples, got {cols} columns")));
    }
    Ok((heights.len(), cols))
}

impl TriangleSurface for HeightField {
    fn for_each_triangle_in(&self, local: &Aabb, visit: impl FnMut(u32, &Triangle) -> bool) {
        HeightField::for_each_triangle_in(self, local, visit)
    }

    /// The sample across the edge (see `across`); `None` on the grid's border.
    fn far_corner(&self, index: u32, edge: usize) -> Option<Vec3> {
        self.across(index, edge).map(|sample| self.sample(sample))
    }

    /// The samples joined to sample (i, j): the four along the rows and columns and the two
    /// along the cells' diagonals, (i + 1, j + 1) and (i − 1, j − 1).
    fn any_corner_joined(&self, index: u32, corner: usize, mut test: impl FnMut(Vec3) -> bool) -> bool {
        let (i, j) = self.corners(index)[corner];
        let steps: [(isize, isize); 6] = [(-1, 0), (1, 0), (0, -1), (0, 1), (1, 1), (-1, -1)];
        steps.into_iter().any(|(di, dj)| {
            let (row, col) = (i.wrapping_add_signed(di), j.wrapping_add_signed(dj));
            row < self.rows && col < self.cols && test(self.sample((row, col)))
        })
    }
}

/// Shows the sizes, not the samples.
impl fmt::Debug for HeightField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HeightField")
            .field("rows", &self.rows)
            .field("cols", &self.cols)
            .field("scale", &self.scale)
            .field("min_height", &self.min_height)
            .field("max_height", &self.max_height)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{grid_mesh, Lcg};
    use super::super::TriMesh;
    use super::*;

    fn bumpy(x: f32, z: f32) -> f32 {
        0.6 * (0.9 * x).sin() * (0.7 * z).cos() + 0.2 * x
    }

    /// Heights sampled from `height(x, z)` on a rows × cols grid with spacing (sx, sz) and
    /// `scale.y` = 2 (the heights are given halved).
    fn field(rows: usize, cols: usize, spacing: Vec3, height: &dyn Fn(f32, f32) -> f32) -> HeightField {
        let (vertices, _) = grid_mesh(rows, cols, spacing, height);
        let heights = vertices.chunks(cols).map(|row| row.iter().map(|v| 0.5 * v.y).collect()).collect();
        HeightField::new(heights, Vec3::new(spacing.x, 2.0, spacing.z)).unwrap()
    }

    #[test]
    fn bad_heightfields_are_refused_naming_the_value() {
        let error = |heights: Vec<Vec<f32>>, scale: Vec3| HeightField::new(heights, scale).unwrap_err();
        let ragged = error(vec![vec![0.0; 3], vec![0.0; 3], vec![0.0; 2]], Vec3::ONE);
        assert_eq!(ragged.field, "heights[2]");
        assert!(ragged.reason.contains("row 2 has 2 samples but row 0 has 3"), "{ragged}");
        let one_row = error(vec![vec![0.0; 3]], Vec3::ONE);
        assert!(one_row.field == "heights" && one_row.reason.contains("at least 2 × 2 samples"), "{one_row}");
        let one_column = error(vec![vec![0.0], vec![0.0]], Vec3::ONE);
        assert!(one_column.reason.contains("at least 2 × 2 samples, got 1 columns"), "{one_column}");
        let nan = error(vec![vec![0.0, 0.0], vec![f32::NAN, 0.0]], Vec3::ONE);
        assert_eq!(nan.field, "heights[1][0]");
        let overflow = error(vec![vec![0.0, 0.0], vec![0.0, 3e38]], Vec3::new(1.0, 10.0, 1.0));
        assert_eq!(overflow.field, "heights[1][1]");
        assert_eq!(error(vec![vec![0.0; 2]; 2], Vec3::new(1.0, 0.0, 1.0)).field, "scale[1]");
        assert_eq!(error(vec![vec![0.0; 2]; 2], Vec3::new(-1.0, 1.0, 1.0)).field, "scale[0]");
    }

    /// The heightfield's triangles (corners, normals, edge and vertex flags) are those of the
    /// triangle mesh of the same samples, which computes its flags from its own adjacency:
    /// the on-the-fly neighbour lookups of the grid agree with it on a bumpy and a flat field.
    #[test]
    fn triangles_and_flags_match_the_mesh_of_the_same_samples() {
        let spacing = Vec3::new(0.8, 1.0, 1.3);
        for height in [&bumpy as &dyn Fn(f32, f32) -> f32, &|_, _| 0.5] {
            let field = field(7, 9, spacing, height);
            let (vertices, indices) = grid_mesh(7, 9, spacing, height);
            let mesh = TriMesh::new(vertices, indices, false).unwrap();
            assert_eq!(field.triangle_count(), mesh.triangle_count());
            assert_eq!(field.triangle_count(), 2 * 6 * 8);
            for t in 0..field.triangle_count() as u32 {
                let (a, b) = (field.triangle(t), mesh.triangle(t));
                for k in 0..3 {
                    assert!((a.vertices[k] - b.vertices[k]).length() < 1e-5, "triangle {t}");
                }
                assert!((a.normal - b.normal).length() < 1e-5 && a.normal.y > 0.0);
                assert_eq!((a.active_edges, a.active_vertices), (b.active_edges, b.active_vertices), "triangle {t}");
            }
            assert_eq!(field.local_aabb(), mesh.local_aabb());
        }
        // A flat field: only the border is active.
        let flat = field(4, 4, Vec3::ONE, &|_, _| 0.0);
        let border_edges: u32 = (0..18).map(|t| flat.triangle(t).active_edges.count_ones()).sum();
        assert_eq!(border_edges, 12);
    }

    /// `height_at` lies on the triangle under the point (its plane through its corners),
    /// `None` off the grid; samples give their own heights.
    #[test]
    fn heights_lie_on_the_triangles() {
        let field = field(6, 5, Vec3::new(1.5, 1.0, 0.7), &bumpy);
        let mut rng = Lcg::new(2);
        for _ in 0..500 {
            let (x, z) = (rng.range(-3.0, 3.0), rng.range(-1.75, 1.75));
            let h = field.height_at(x, z).unwrap();
            let triangle = field.triangle(field.triangle_at(x, z).unwrap());
            let on_plane = triangle.normal.dot(Vec3::new(x, h, z) - triangle.vertices[0]);
            assert!(on_plane.abs() < 1e-5, "{on_plane}");
        }
        assert_eq!(field.height_at(3.01, 0.0), None);
        assert_eq!(field.height_at(0.0, -1.76), None);
        assert!((field.height_at(3.0, 1.75).unwrap() - field.height(5, 4)).abs() < 1e-6);
        assert!((field.height_at(-3.0, -1.75).unwrap() - field.height(0, 0)).abs() < 1e-6);
    }

    /// Box queries give exactly the triangles whose boxes overlap, like a loop over all.
    #[test]
    fn box_queries_match_brute_force() {
        let field = field(9, 12, Vec3::new(1.0, 1.0, 0.5), &bumpy);
        let mut rng = Lcg::new(8);
        for k in 0..300 {
            let center = rng.in_box(Vec3::new(7.0, 2.0, 3.0));
            let mut half = rng.in_box(Vec3::new(2.0, 1.0, 2.0)).abs();
            if k % 10 == 0 {
                half = Vec3::ZERO; // a point, also exactly on grid lines
            }
            let center =
                if k % 20 == 0 { Vec3::new(center.x.round() + 0.5, center.y, center.z.round()) } else { center };
            let query = Aabb::from_center_half_extents(center, half);
            let mut found = Vec::new();
            field.for_each_triangle_in(&query, |index, triangle| {
                assert_eq!(*triangle, field.triangle(index));
                found.push(index);
                true
            });
            let expected: Vec<u32> =
                (0..field.triangle_count() as u32).filter(|&t| field.triangle(t).aabb().overlaps(&query)).collect();
            assert_eq!(found, expected, "{query:?}");
        }
    }

    /// Rays against a tilted planar field y = 0.3x − 0.2z + 1 (6 × 8 samples, 1 × 0.5 m
    /// cells) hit at the analytic t with the plane's normal on the triangle under the point,
    /// including rays running along cell borders and diagonals and vertical rays through
    /// samples; the same rays against a bumpy field agree with the mesh of its samples (where
    /// they start above it).
    #[test]
    fn ray_casts_match_the_analytic_plane_and_the_mesh() {
        let plane = |x: f32, z: f32| 0.3 * x - 0.2 * z + 1.0;
        let spacing = Vec3::new(1.0, 1.0, 0.5);
        let flat = field(8, 6, spacing, &plane);
        let normal = Vec3::new(-0.3, 1.0, 0.2).normalize();
        let bumps = field(8, 6, spacing, &bumpy);
        let (vertices, indices) = grid_mesh(8, 6, spacing, &bumpy);
        let mesh = TriMesh::new(vertices, indices, false).unwrap();
        let mut rng = Lcg::new(6);
        for k in 0..600 {
            let (x, z) = (rng.range(-2.4, 2.4), rng.range(-1.7, 1.7));
            let (x, z) = match k % 5 {
                0 => (x.round() + 0.5, z),         // on a column line
                1 => (x, (2.0 * z).round() * 0.5), // on a row line
                2 => (x.round() + 0.5, (2.0 * z).round() * 0.5),
                _ => (x, z),
            };
            let along = Vec3::new(rng.range(-1.0, 1.0), 0.0, rng.range(-1.0, 1.0));
            let along = match k % 5 {
                0 => Vec3::new(0.0, 0.0, along.z),
                1 => Vec3::new(along.x, 0.0, 0.0),
                2 => Vec3::ZERO,
                _ => along,
            };
            let direction = along - Vec3::Y * rng.range(0.3, 2.0);
            let target = Vec3::new(x, plane(x, z), z);
            let ray = Ray::new(target - direction * rng.range(0.2, 2.0), direction);
            let (o, d) = (ray.origin, ray.direction);
            let t = (plane(o.x, o.z) - o.y) / (d.y - 0.3 * d.x + 0.2 * d.z);
            let (hit, index) = flat.cast_ray_local(&ray, 10.0).unwrap_or_else(|| panic!("missed {ray:?}"));
            assert!((hit.t - t).abs() < 1e-4 && (ray.at(hit.t) - target).length() < 1e-4, "{} vs {t}", hit.t);
            assert!((hit.normal - normal).length() < 1e-5);
            let (u, w) = (x + 2.5, 2.0 * (z + 1.75));
            let margin = (u - u.round()).abs().min((w - w.round()).abs()).min((u.fract() - w.fract()).abs());
            if margin > 1e-3 {
                assert_eq!(Some(index), flat.triangle_at(x, z));
            }
            assert_eq!(flat.cast_ray_local(&ray, 0.99 * t), None);
            if bumps.height_at(o.x, o.z).is_some_and(|h| o.y < h) {
                continue; // inside the bumpy solid: not a mesh's answer
            }
            let field_hit = bumps.cast_ray_local(&ray, 10.0);
            let mesh_hit = mesh.cast_ray_local(&ray, 10.0);
            assert_eq!(field_hit.is_some(), mesh_hit.is_some(), "{ray:?}");
            // On an edge the two may report either triangle; each with its own normal.
            if let (Some((a, i)), Some((b, j))) = (field_hit, mesh_hit) {
                assert!((a.t - b.t).abs() < 1e-4, "{a:?} {b:?} {ray:?}");
                assert!((a.normal - bumps.triangle(i).normal).length() < 1e-6);
                assert!((b.normal - mesh.triangle(j).normal).length() < 1e-6);
            }
        }
    }

    /// A ray starting under the surface is inside the solid: t = 0, normal against the ray,
    /// the triangle under the origin. From below outside the grid, rays cross the surface
    /// upwards without a hit; rays above it that never come down miss; a horizontal ray through
    /// a hill hits its near slope.
    #[test]
    fn rays_from_below_start_inside_the_solid() {
        let field = field(5, 5, Vec3::ONE, &|x, z| 1.0 - 0.1 * (x * x + z * z));
        let inside = Ray::new(Vec3::new(0.3, 0.5, -0.2), Vec3::new(1.0, 2.0, 0.0));
        let (hit, index) = field.cast_ray_local(&inside, 10.0).unwrap();
        assert_eq!(hit.t, 0.0);
        assert!((hit.normal + inside.direction.normalize()).length() < 1e-6);
        assert_eq!(Some(index), field.triangle_at(0.3, -0.2));
        let from_outside_below = Ray::new(Vec3::new(-3.0, -1.0, 0.0), Vec3::new(1.0, 0.5, 0.0));
        assert_eq!(field.cast_ray_local(&from_outside_below, 100.0), None);
        assert_eq!(field.cast_ray_local(&Ray::new(Vec3::new(0.0, 1.5, 0.0), Vec3::X), 100.0), None);
        // y = 0.6 at x ≤ 0, z = 0.5: the hill 1 − 0.1(x² + z²) reaches 0.6 near x = −1.94,
        // crossed on the chord between the samples at x = −2 (0.575) and x = −1 (0.875)
        // interpolated with z: half 1 of cell (2, 0)'s plane.
        let sideways = Ray::new(Vec3::new(-5.0, 0.6, 0.5), Vec3::X);
        let (hit, _) = field.cast_ray_local(&sideways, 100.0).unwrap();
        let p = sideways.at(hit.t);
        assert!((field.height_at(p.x, p.z).unwrap() - 0.6).abs() < 1e-5 && p.x > -2.0 && p.x < -1.0);
    }
}
