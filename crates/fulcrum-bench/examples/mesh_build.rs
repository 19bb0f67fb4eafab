//! Times fulcrum's `TriMesh::new` (welding, adjacency and edge flags, BVH) on the terrain
//! grid of the `terrain_mesh` scene (32,768 triangles) and on a grid of the same kind with
//! 709 × 709 samples (1,002,528 triangles): `cargo run --release -p fulcrum-bench --example
//! mesh_build`. Prints the best of three builds of each.

use std::time::Instant;

use fulcrum::prelude::Vec3;
use fulcrum::TriMesh;
use fulcrum_bench::terrain::{terrain_grid, terrain_height, HeightGrid};

/// Best wall time of three `TriMesh::new` calls on the grid's triangles, in milliseconds.
fn best_build_ms(grid: &HeightGrid) -> f64 {
    let vertices: Vec<Vec3> = grid.vertices().into_iter().map(Vec3::from).collect();
    let triangles = grid.triangles();
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let (vertices_copy, triangles_copy) = (vertices.clone(), triangles.clone());
        let start = Instant::now();
        let mesh = TriMesh::new(vertices_copy, triangles_copy, false).expect("the grid's mesh is valid");
        best = best.min(start.elapsed().as_secs_f64() * 1e3);
        assert_eq!(mesh.triangle_count(), triangles.len());
    }
    best
}

fn main() {
    let big = HeightGrid::sampled(709, 709, 0.25, terrain_height);
    for (name, grid) in [("terrain_mesh", terrain_grid()), ("709x709 grid", big)] {
        let triangles = grid.triangles().len();
        println!("{name}: {triangles} triangles, TriMesh::new best of 3: {:.1} ms", best_build_ms(&grid));
    }
}
