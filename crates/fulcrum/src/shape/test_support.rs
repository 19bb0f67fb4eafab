//! Shared test helpers: a fixed-seed random generator and reference checks that do not use
//! the code under test (brute-force marching for rays, slice integration for mass).

use super::{ConvexHull, MassProperties, Shape};
use crate::geometry::{Ray, RayHit};
use crate::math::{Pose, Quat, Vec3};

/// Linear congruential generator (Knuth's MMIX constants), fixed seed, deterministic.
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Self {
        Lcg(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1))
    }

    pub fn next_u32(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 / 16_777_216.0
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in the box [-h, h].
    pub fn in_box(&mut self, h: Vec3) -> Vec3 {
        Vec3::new(self.range(-h.x, h.x), self.range(-h.y, h.y), self.range(-h.z, h.z))
    }

    /// Uniform in the unit ball.
    pub fn in_ball(&mut self) -> Vec3 {
        loop {
            let p = self.in_box(Vec3::ONE);
            if p.length_squared() <= 1.0 {
                return p;
            }
        }
    }

    /// Uniform on the unit sphere.
    pub fn direction(&mut self) -> Vec3 {
        loop {
            let p = self.in_ball();
            if p.length_squared() > 1e-4 {
                return p.normalize();
            }
        }
    }

    /// A random rotation (random axis, angle in [0, 2π)).
    pub fn rotation(&mut self) -> Quat {
        Quat::from_axis_angle(self.direction(), self.range(0.0, std::f32::consts::TAU))
    }

    /// A random pose within `extent` of the origin.
    pub fn pose(&mut self, extent: f32) -> Pose {
        Pose::new(self.in_box(Vec3::splat(extent)), self.rotation())
    }
}

/// For 20 random poses: the world AABB holds the world support point in 100 random
/// directions (within `slack`), and in each of the 6 axis directions the support point
/// reaches the AABB's face (within `slack`), so the box is tight.
pub fn check_aabb_against_support(shape: &Shape, seed: u64, slack: f32) {
    let mut rng = Lcg::new(seed);
    for _ in 0..20 {
        let pose = rng.pose(5.0);
        let aabb = shape.aabb(&pose);
        let world_support = |dir: Vec3| pose.transform_point(shape.support(pose.inverse_transform_vector(dir)));
        for _ in 0..100 {
            let p = world_support(rng.direction());
            assert!(
                (aabb.min - Vec3::splat(slack)).cmple(p).all() && p.cmple(aabb.max + Vec3::splat(slack)).all(),
                "{p} outside {aabb:?} for {shape:?}"
            );
        }
        for axis in 0..3 {
            let mut dir = Vec3::ZERO;
            dir[axis] = 1.0;
            assert!((world_support(dir)[axis] - aabb.max[axis]).abs() <= slack, "{shape:?}");
            assert!((world_support(-dir)[axis] - aabb.min[axis]).abs() <= slack, "{shape:?}");
        }
    }
}

/// Reference ray cast: samples `inside` at 4000 steps along `[0, max_t]` and bisects the
/// first crossing. `None` when no sample is inside.
pub fn march_ray(inside: &dyn Fn(Vec3) -> bool, ray: &Ray, max_t: f32) -> Option<f32> {
    let at = |t: f64| ray.origin.as_dvec3() + ray.direction.as_dvec3() * t;
    let inside64 = |t: f64| inside(at(t).as_vec3());
    if inside64(0.0) {
        return Some(0.0);
    }
    let steps = 4000;
    let step = max_t as f64 / steps as f64;
    let first = (1..=steps).find(|&k| inside64(k as f64 * step))?;
    let (mut lo, mut hi) = ((first - 1) as f64 * step, first as f64 * step);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if inside64(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi as f32)
}

/// Casts 400 random rays (origins within `3 * extent`, aimed at the shape, direction
/// lengths 0.5 to 2) and compares `cast` with [`march_ray`] on `inside`: same hit or miss,
/// `t` within `1e-4 * extent / |direction|`, and the normal equal to `normal_at(hit point)`
/// within 1e-3 (skipped where `normal_at` returns zero, i.e. on ambiguous edges). Rays
/// starting inside must hit at `t = 0` with the normal `-direction` normalised.
pub fn check_rays_against_marching(
    cast: &dyn Fn(&Ray, f32) -> Option<RayHit>,
    inside: &dyn Fn(Vec3) -> bool,
    normal_at: &dyn Fn(Vec3) -> Vec3,
    extent: f32,
    seed: u64,
) {
    let mut rng = Lcg::new(seed);
    let (mut hits, mut misses) = (0, 0);
    for _ in 0..400 {
        let origin = rng.in_box(Vec3::splat(3.0 * extent));
        // Half the rays aim near the centre, half anywhere around the shape.
        let spread = if rng.unit() < 0.5 { 0.5 } else { 1.3 };
        let target = rng.in_box(Vec3::splat(spread * extent));
        let scale = rng.range(0.5, 2.0);
        let ray = Ray::new(origin, (target - origin) * scale);
        let max_t = rng.range(0.3, 2.0) / scale;
        let reference = march_ray(inside, &ray, max_t);
        let hit = cast(&ray, max_t);
        match (reference, hit) {
            (None, None) => misses += 1,
            (Some(t_ref), Some(hit)) => {
                hits += 1;
                let length = ray.direction.length();
                assert!(
                    (hit.t - t_ref).abs() * length <= 1e-4 * extent,
                    "t {} vs reference {t_ref} for {ray:?}",
                    hit.t
                );
                assert!((hit.normal.length() - 1.0).abs() < 1e-5);
                let expected = if t_ref == 0.0 { -ray.direction.normalize() } else { normal_at(ray.at(hit.t)) };
                if expected != Vec3::ZERO {
                    assert!((hit.normal - expected).length() < 1e-3, "normal {} vs {expected} for {ray:?}", hit.normal);
                }
            }
            (reference, hit) => panic!("reference {reference:?} vs cast {hit:?} for {ray:?}"),
        }
    }
    assert!(hits > 50 && misses > 50, "{hits} hits and {misses} misses: rays not varied");
}

/// Mass, axial inertia (about Y) and transverse inertia (about X through the origin) of a
/// solid of revolution about Y with squared radius `radius_sq(y)`, by Simpson's rule over
/// each piece between consecutive `breaks` (where `radius_sq` may have kinks). Thin discs:
/// dm = ρ π R² dy, dI_y = dm R²/2, dI_x = dm (R²/4 + y²).
pub fn revolution_mass(radius_sq: &dyn Fn(f64) -> f64, breaks: &[f64], density: f64) -> [f64; 3] {
    let pi = std::f64::consts::PI;
    let integrands = |y: f64| {
        let r2 = radius_sq(y).max(0.0);
        let dm = density * pi * r2;
        [dm, dm * r2 / 2.0, dm * (r2 / 4.0 + y * y)]
    };
    let mut total = [0.0; 3];
    for piece in breaks.windows(2) {
        let n = 400;
        let h = (piece[1] - piece[0]) / n as f64;
        for k in 0..=n {
            let weight = if k == 0 || k == n {
                1.0
            } else if k % 2 == 1 {
                4.0
            } else {
                2.0
            };
            let values = integrands(piece[0] + k as f64 * h);
            for i in 0..3 {
                total[i] += weight * values[i] * h / 3.0;
            }
        }
    }
    total
}

/// Asserts that `got` (centred at the origin, axis Y) has the `[mass, axial, transverse]`
/// of [`revolution_mass`] within a relative 1e-6.
pub fn assert_revolution_mass(got: &MassProperties, expected: [f64; 3]) {
    let [mass, axial, transverse] = expected;
    assert!((got.mass as f64 / mass - 1.0).abs() < 1e-6, "mass {} vs {mass}", got.mass);
    assert!((got.inertia.y_axis.y as f64 / axial - 1.0).abs() < 1e-6, "axial inertia");
    assert!((got.inertia.x_axis.x as f64 / transverse - 1.0).abs() < 1e-6, "transverse inertia (x)");
    assert!((got.inertia.z_axis.z as f64 / transverse - 1.0).abs() < 1e-6, "transverse inertia (z)");
    assert_eq!(got.center, Vec3::ZERO);
}

/// Independent checks of a hull built from `points` with distance tolerance `tolerance`:
/// twins run opposite ways between different faces, every face loop closes with 3 to 64
/// vertices, V - E + F = 2, faces are planar and convex, and every input point and vertex
/// lies inside or on every face plane (all within `tolerance`); every vertex is an input point.
pub fn assert_valid_hull(hull: &ConvexHull, points: &[Vec3], tolerance: f32) {
    let edge_count = hull.edges.len();
    for (e, edge) in hull.edges.iter().enumerate() {
        let twin = hull.edges[e ^ 1];
        assert_eq!(twin.origin, hull.edges[edge.next as usize].origin, "edge {e}");
        assert_ne!(twin.face, edge.face, "edge {e}");
    }
    let mut loop_edges = 0;
    for f in 0..hull.faces.len() {
        let mut face = Vec::new();
        hull.for_each_face_vertex(f, |v| face.push(hull.vertices[v as usize]));
        assert!((3..=64).contains(&face.len()), "face {f} has {} vertices", face.len());
        loop_edges += face.len();
        let plane = hull.planes[f];
        assert!((plane.normal.length() - 1.0).abs() < 1e-5);
        for (k, &a) in face.iter().enumerate() {
            assert!(plane.distance(a).abs() <= tolerance, "face {f} not planar");
            let b = face[(k + 1) % face.len()];
            let inward = plane.normal.cross(b - a).normalize();
            for &w in &face {
                assert!(inward.dot(w - a) >= -tolerance, "face {f} not convex");
            }
        }
        for p in points.iter().chain(&hull.vertices) {
            assert!(plane.distance(*p) <= tolerance, "{p} outside face {f} by {}", plane.distance(*p));
        }
    }
    assert_eq!(loop_edges, edge_count, "every half-edge is in one face loop");
    let euler = hull.vertices.len() as i64 - edge_count as i64 / 2 + hull.faces.len() as i64;
    assert_eq!(euler, 2);
    for v in &hull.vertices {
        assert!(points.contains(v), "hull vertex {v} is not an input point");
    }
}

/// The samples of a `rows × cols` heightfield grid as a triangle mesh, split and numbered as
/// [`HeightField`](super::HeightField) does (sample (i, j) at x = (j − (cols − 1)/2)·sx,
/// z = (i − (rows − 1)/2)·sz, y = `height(x, z)`; triangle 2·cell + half).
pub fn grid_mesh(
    rows: usize,
    cols: usize,
    spacing: Vec3,
    height: &dyn Fn(f32, f32) -> f32,
) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut vertices = Vec::new();
    for i in 0..rows {
        for j in 0..cols {
            let x = (j as f32 - 0.5 * (cols - 1) as f32) * spacing.x;
            let z = (i as f32 - 0.5 * (rows - 1) as f32) * spacing.z;
            vertices.push(Vec3::new(x, height(x, z), z));
        }
    }
    let mut indices = Vec::new();
    let at = |i: usize, j: usize| (i * cols + j) as u32;
    for i in 0..rows - 1 {
        for j in 0..cols - 1 {
            indices.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            indices.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    (vertices, indices)
}
