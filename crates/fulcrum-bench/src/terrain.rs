//! The `terrain` and `terrain_mesh` scenes of SCENES.md: 2,000 mixed bodies dropped on a
//! bumpy 129 × 129 grid of samples, given to the engine as a heightfield or as a one-sided
//! triangle mesh made of the very same triangles.

use std::sync::Arc;

use crate::scenes::{empty_scene, BodyDesc, QualityDesc, SceneDesc, ShapeDesc, FRICTION, RESTITUTION};

/// A regular grid of height samples, laid out as shared/docs/scene-format.md lays out a
/// heightfield: `heights[i][j]` is sample (i, j), rows run along Z and columns along X, and
/// the grid is centred on its body's origin at x = (j − (cols − 1)/2)·sx,
/// z = (i − (rows − 1)/2)·sz, y = heights[i][j]·sy.
///
/// Cell (i, j) is split along the diagonal from sample (i, j) to (i + 1, j + 1) into
/// triangle 2·(i·(cols − 1) + j) = (i, j), (i + 1, j), (i + 1, j + 1) (the half of smaller x)
/// and the next one, (i, j), (i + 1, j + 1), (i, j + 1); both run counter-clockwise seen from
/// above, so their front faces look up. This is also fulcrum's heightfield triangle order.
#[derive(Clone, Debug, PartialEq)]
pub struct HeightGrid {
    heights: Vec<Vec<f32>>,
    scale: [f32; 3],
}

/// Position along one grid axis of sample `index` out of `count`: (index − (count − 1)/2)·spacing.
fn grid_coordinate(index: usize, count: usize, spacing: f32) -> f32 {
    (index as f32 - (count - 1) as f32 * 0.5) * spacing
}

impl HeightGrid {
    /// `rows` × `columns` samples `spacing` metres apart (sy = 1), sample (i, j) holding
    /// `height(x, z)` at its own x, z. Panics with fewer than 2 × 2 samples.
    pub fn sampled(rows: usize, columns: usize, spacing: f32, height: impl Fn(f32, f32) -> f32) -> Self {
        assert!(rows >= 2 && columns >= 2, "a height grid needs at least 2 x 2 samples");
        let heights = (0..rows)
            .map(|i| {
                let z = grid_coordinate(i, rows, spacing);
                (0..columns).map(|j| height(grid_coordinate(j, columns, spacing), z)).collect()
            })
            .collect();
        Self { heights, scale: [spacing, 1.0, spacing] }
    }

    /// The heights as given (before `sy`), row by row.
    pub fn heights(&self) -> &[Vec<f32>] {
        &self.heights
    }

    /// The scale (sx, sy, sz): sample spacing along X, height factor, spacing along Z.
    pub fn scale(&self) -> [f32; 3] {
        self.scale
    }

    /// Number of rows (samples along Z).
    pub fn rows(&self) -> usize {
        self.heights.len()
    }

    /// Number of columns (samples along X).
    pub fn columns(&self) -> usize {
        self.heights[0].len()
    }

    /// Body-frame position of sample (i, j), in metres.
    pub fn sample_position(&self, i: usize, j: usize) -> [f32; 3] {
        let [sx, sy, sz] = self.scale;
        [grid_coordinate(j, self.columns(), sx), self.heights[i][j] * sy, grid_coordinate(i, self.rows(), sz)]
    }

    /// Every sample's position, row by row: sample (i, j) is vertex i·cols + j.
    pub fn vertices(&self) -> Vec<[f32; 3]> {
        (0..self.rows()).flat_map(|i| (0..self.columns()).map(move |j| self.sample_position(i, j))).collect()
    }

    /// The triangles of the surface as indices into [`Self::vertices`], two a cell in the
    /// order and winding of the type's docs.
    pub fn triangles(&self) -> Vec<[u32; 3]> {
        let columns = self.columns();
        let vertex = |i: usize, j: usize| (i * columns + j) as u32;
        let mut triangles = Vec::with_capacity(2 * (self.rows() - 1) * (columns - 1));
        for i in 0..self.rows() - 1 {
            for j in 0..columns - 1 {
                triangles.push([vertex(i, j), vertex(i + 1, j), vertex(i + 1, j + 1)]);
                triangles.push([vertex(i, j), vertex(i + 1, j + 1), vertex(i, j + 1)]);
            }
        }
        triangles
    }

    /// Height of the surface (its triangles) above the body-frame point (x, z), in metres;
    /// `None` outside the grid.
    ///
    /// With u = x/sx + (cols − 1)/2 and w = z/sz + (rows − 1)/2, the cell is (⌊w⌋, ⌊u⌋) (the
    /// last one on the far borders) and a, b its fractions along X and Z. Writing h_di,dj for
    /// the corner heights: on the half of smaller x (b ≥ a) the plane through (0,0), (0,1),
    /// (1,1) gives h = h00 + b·(h10 − h00) + a·(h11 − h10); on the other half, through (0,0),
    /// (1,1), (1,0), h = h00 + a·(h01 − h00) + b·(h11 − h01). Both agree on the diagonal a = b.
    pub fn surface_height(&self, x: f64, z: f64) -> Option<f64> {
        let [sx, sy, sz] = self.scale.map(f64::from);
        let u = x / sx + (self.columns() - 1) as f64 * 0.5;
        let w = z / sz + (self.rows() - 1) as f64 * 0.5;
        let (j, a) = cell_and_fraction(u, self.columns())?;
        let (i, b) = cell_and_fraction(w, self.rows())?;
        let h = |di: usize, dj: usize| f64::from(self.heights[i + di][j + dj]);
        let height = if b >= a {
            h(0, 0) + b * (h(1, 0) - h(0, 0)) + a * (h(1, 1) - h(1, 0))
        } else {
            h(0, 0) + a * (h(0, 1) - h(0, 0)) + b * (h(1, 1) - h(0, 1))
        };
        Some(height * sy)
    }
}

/// The cell index ⌊t⌋ along an axis of `count` samples and the fraction t − ⌊t⌋; the far
/// border belongs to the last cell. `None` when t lies outside [0, count − 1] or is NaN.
fn cell_and_fraction(t: f64, count: usize) -> Option<(usize, f64)> {
    let last_cell = count - 2;
    if !(0.0..=(count - 1) as f64).contains(&t) {
        return None;
    }
    let cell = (t.floor() as usize).min(last_cell);
    Some((cell, t - cell as f64))
}

/// Samples of the terrain grid along each axis.
pub const TERRAIN_SAMPLES: usize = 129;

/// The terrain's height at (x, z) in metres: 2·sin(0.1x)·cos(0.13z) + 0.5·sin(0.37x + 0.2z),
/// evaluated in f64 and rounded once to f32.
pub fn terrain_height(x: f32, z: f32) -> f32 {
    let (x, z) = (f64::from(x), f64::from(z));
    (2.0 * (0.1 * x).sin() * (0.13 * z).cos() + 0.5 * (0.37 * x + 0.2 * z).sin()) as f32
}

/// The ground grid of both terrain scenes: 129 × 129 samples 1 m apart, centred on the origin.
pub fn terrain_grid() -> HeightGrid {
    HeightGrid::sampled(TERRAIN_SAMPLES, TERRAIN_SAMPLES, 1.0, terrain_height)
}

/// The dropped body of kind (i + j + k) mod 4: a box (half extents 0.4, 0.3, 0.5), a sphere
/// (radius 0.4), a capsule (half height 0.3, radius 0.3) or a cylinder (half height 0.3,
/// radius 0.35).
fn terrain_body_shape(kind: usize) -> ShapeDesc {
    match kind % 4 {
        0 => ShapeDesc::Box { half_extents: [0.4, 0.3, 0.5] },
        1 => ShapeDesc::Sphere { radius: 0.4 },
        2 => ShapeDesc::Capsule { half_height: 0.3, radius: 0.3 },
        _ => ShapeDesc::Cylinder { half_height: 0.3, radius: 0.35 },
    }
}

/// The terrain scene with the given ground shape (made from `grid`) as static body 0, then
/// 2,000 bodies (density 1000) in loop order i, j, k for i, k in 0..20 and j in 0..5 at
/// x = (i − 9.5)·2.5, y = 6 + 2j, z = (k − 9.5)·2.5, of kind (i + j + k) mod 4.
fn terrain_scene(name: &'static str, grid: Arc<HeightGrid>, ground: ShapeDesc) -> SceneDesc {
    let mut scene = empty_scene(name, 300, QualityDesc::Terrain { surface: grid });
    let body = |is_static, shape, position, density| BodyDesc {
        is_static,
        shape,
        position,
        density,
        friction: FRICTION,
        restitution: RESTITUTION,
    };
    scene.bodies.push(body(true, ground, [0.0; 3], 1.0));
    scene.ground = Some(0);
    for i in 0..20 {
        for j in 0..5 {
            for k in 0..20 {
                let position = [(i as f32 - 9.5) * 2.5, 6.0 + 2.0 * j as f32, (k as f32 - 9.5) * 2.5];
                scene.bodies.push(body(false, terrain_body_shape(i + j + k), position, 1000.0));
            }
        }
    }
    scene
}

/// terrain: 2,000 mixed bodies dropped on the terrain grid given as a heightfield; 300 steps.
pub fn terrain() -> SceneDesc {
    let grid = Arc::new(terrain_grid());
    terrain_scene("terrain", grid.clone(), ShapeDesc::HeightField { grid })
}

/// terrain_mesh: the same on a one-sided triangle mesh of the grid's own triangles (two a
/// cell, split as the heightfield's cells are); 300 steps.
pub fn terrain_mesh() -> SceneDesc {
    let grid = Arc::new(terrain_grid());
    let ground = ShapeDesc::TriMesh { vertices: grid.vertices().into(), indices: grid.triangles().into() };
    terrain_scene("terrain_mesh", grid, ground)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The height of the plane through three points at (x, z), by barycentric weights.
    fn plane_height(p: [[f32; 3]; 3], x: f64, z: f64) -> f64 {
        let q = p.map(|v| v.map(f64::from));
        let det = (q[1][0] - q[0][0]) * (q[2][2] - q[0][2]) - (q[2][0] - q[0][0]) * (q[1][2] - q[0][2]);
        let l1 = ((x - q[0][0]) * (q[2][2] - q[0][2]) - (q[2][0] - q[0][0]) * (z - q[0][2])) / det;
        let l2 = ((q[1][0] - q[0][0]) * (z - q[0][2]) - (x - q[0][0]) * (q[1][2] - q[0][2])) / det;
        q[0][1] + l1 * (q[1][1] - q[0][1]) + l2 * (q[2][1] - q[0][1])
    }

    #[test]
    fn grid_layout_matches_the_scene_format() {
        let grid = terrain_grid();
        assert_eq!((grid.rows(), grid.columns()), (129, 129));
        assert_eq!(grid.sample_position(0, 0)[0], -64.0);
        assert_eq!(grid.sample_position(0, 0)[2], -64.0);
        // Row i runs along Z, column j along X.
        let p = grid.sample_position(10, 100);
        assert_eq!((p[0], p[2]), (36.0, -54.0));
        assert_eq!(p[1], terrain_height(36.0, -54.0));
        let expected = 2.0 * (3.6f64).sin() * (0.13f64 * -54.0).cos() + 0.5 * (0.37f64 * 36.0 - 0.2 * 54.0).sin();
        assert!((f64::from(p[1]) - expected).abs() < 1e-6);
        assert_eq!(grid.vertices().len(), 129 * 129);
        assert_eq!(grid.triangles().len(), 2 * 128 * 128);
    }

    #[test]
    fn triangles_face_up_and_split_along_the_diagonal() {
        let grid = terrain_grid();
        let vertices = grid.vertices();
        for (index, triangle) in grid.triangles().iter().enumerate().step_by(97) {
            let [a, b, c] = triangle.map(|v| vertices[v as usize]);
            let ab = [b[0] - a[0], b[2] - a[2]];
            let ac = [c[0] - a[0], c[2] - a[2]];
            // y component of (b − a) × (c − a): positive means counter-clockwise from above.
            assert!(ab[1] * ac[0] - ab[0] * ac[1] > 0.0, "triangle {index}");
        }
        // Cell (0, 0): the shared edge runs from sample (0, 0) to sample (1, 1).
        let first = grid.triangles();
        assert_eq!(first[0], [0, 129, 130]);
        assert_eq!(first[1], [0, 130, 1]);
    }

    #[test]
    fn surface_height_is_the_triangles_plane() {
        let grid = terrain_grid();
        let vertices = grid.vertices();
        let triangles = grid.triangles();
        // Points inside cell (i, j) = (70, 20) on each side of the diagonal, on it, and at a corner.
        let cell = 2 * (70 * 128 + 20);
        let corner = grid.sample_position(70, 20);
        for (a, b, half) in [(0.2, 0.7, 0), (0.7, 0.2, 1), (0.5, 0.5, 0), (0.0, 0.0, 1)] {
            let (x, z) = (f64::from(corner[0]) + a, f64::from(corner[2]) + b);
            let expected = plane_height(triangles[cell + half].map(|v| vertices[v as usize]), x, z);
            let height = grid.surface_height(x, z).unwrap();
            assert!((height - expected).abs() < 1e-9, "({a}, {b}): {height} vs {expected}");
        }
        // The far borders belong to the last cell; beyond them there is no surface.
        let far = grid.sample_position(128, 128);
        assert!((grid.surface_height(64.0, 64.0).unwrap() - f64::from(far[1])).abs() < 1e-9);
        assert_eq!(grid.surface_height(64.01, 0.0), None);
        assert_eq!(grid.surface_height(0.0, -64.01), None);
        assert_eq!(grid.surface_height(f64::NAN, 0.0), None);
    }

    #[test]
    fn terrain_scenes_layout() {
        for scene in [terrain(), terrain_mesh()] {
            assert_eq!(scene.body_count(), 2000);
            assert_eq!(scene.dynamic_count(), 2000);
            assert_eq!(scene.steps, 300);
            assert_eq!(scene.ground, Some(0));
            // Body 1 is (i, j, k) = (0, 0, 0), a box; body 2 is k = 1, a sphere; body 21 is
            // j = 1, k = 0, a sphere at y = 8; the last is (19, 4, 19), kind 42 mod 4 = 2.
            assert_eq!(scene.bodies[1].position, [-23.75, 6.0, -23.75]);
            assert!(matches!(scene.bodies[1].shape, ShapeDesc::Box { .. }));
            assert_eq!(scene.bodies[2].position, [-23.75, 6.0, -21.25]);
            assert!(matches!(scene.bodies[2].shape, ShapeDesc::Sphere { .. }));
            assert_eq!(scene.bodies[21].position[1], 8.0);
            assert!(matches!(scene.bodies[21].shape, ShapeDesc::Sphere { .. }));
            assert_eq!(scene.bodies[2000].position, [23.75, 14.0, 23.75]);
            assert!(matches!(scene.bodies[2000].shape, ShapeDesc::Capsule { .. }));
            assert!(scene.bodies[1..].iter().all(|b| b.density == 1000.0 && !b.is_static));
        }
        let ShapeDesc::TriMesh { vertices, indices } = &terrain_mesh().bodies[0].shape else {
            panic!("terrain_mesh's ground is not a mesh");
        };
        let grid = terrain_grid();
        assert_eq!(&vertices[..], &grid.vertices()[..]);
        assert_eq!(&indices[..], &grid.triangles()[..]);
    }
}
