//! Plane against every shape. The plane is shape A: the manifold normal is the plane's
//! outward normal `n` (world), pointing from the solid half space towards the shape.
//!
//! The plane is `n·x = d` in world space (`d = n·(a point of the plane)`). A surface point `s`
//! of the shape has separation `n·s - d`; its contact sits midway between `s` and its
//! projection on the plane, at `s - ½ separation · n`. Candidates:
//! - sphere: `c - r n`;
//! - capsule: both axis ends moved by `-r n` (ids 0, 1);
//! - box: the corners (id = corner index), the four deepest kept;
//! - cylinder: on each cap (0 bottom, 1 top) eight fixed rim points 45 degrees apart
//!   (id `16 cap + k`) and, unless the axis is nearly parallel to `n`, the exact deepest rim
//!   point `c_cap - r t̂` with `t̂` the unit part of `n` perpendicular to the axis
//!   (id `16 cap + 8`), reduced to four;
//! - hull: its vertices (id = vertex index), reduced to four without a buffer.
//!
//! Only candidates with separation at most `margin` become points.

use crate::collision::manifold::{reduce_points, ContactPoint, Manifold};
use crate::collision::narrow_phase::support_face::circle_point;
use crate::math::{Pose, Vec3};
use crate::shape::{ConvexHull, Cuboid, Cylinder, Plane, Shape};

/// The cylinder's axis counts as parallel to the plane normal when the part of `n`
/// perpendicular to it is shorter than this; then only the fixed rim points are used.
const UPRIGHT_SINE: f32 = 1.0e-3;
/// Fixed rim points within 11.25 degrees of the exact deepest one are left out.
const NEAR_EXACT_COSINE: f32 = 0.980_785_3;

/// The plane in world space: `n·x = offset`.
#[derive(Clone, Copy, Debug)]
struct WorldPlane {
    normal: Vec3,
    offset: f32,
}

impl WorldPlane {
    #[inline]
    fn separation(&self, p: Vec3) -> f32 {
        self.normal.dot(p) - self.offset
    }

    /// Pushes surface point `s` if it is within `margin`.
    #[inline]
    fn push(&self, s: Vec3, margin: f32, id: u32, out: &mut Manifold) {
        let separation = self.separation(s);
        if separation <= margin {
            out.push(s - 0.5 * separation * self.normal, separation, id);
        }
    }
}

/// Contact between plane A and `shape` B (normal from A to B, the plane's world normal);
/// empty when further apart than `margin` metres. Two planes give nothing.
pub fn collide_plane(plane: &Plane, plane_pose: &Pose, shape: &Shape, pose: &Pose, margin: f32, out: &mut Manifold) {
    out.clear();
    let normal = plane_pose.transform_vector(plane.normal);
    let point = plane_pose.transform_point(plane.normal * plane.offset);
    let world = WorldPlane { normal, offset: normal.dot(point) };
    out.normal = normal;
    match shape {
        Shape::Sphere(s) => world.push(pose.position - s.radius * normal, margin, 0, out),
        Shape::Capsule(c) => {
            let (bottom, top) = c.segment();
            world.push(pose.transform_point(bottom) - c.radius * normal, margin, 0, out);
            world.push(pose.transform_point(top) - c.radius * normal, margin, 1, out);
        }
        Shape::Cuboid(b) => box_points(&world, b, pose, margin, out),
        Shape::Cylinder(c) => cylinder_points(&world, c, pose, margin, out),
        Shape::ConvexHull(h) => hull_points(&world, h, pose, margin, out),
        Shape::Plane(_) | Shape::TriMesh(_) | Shape::HeightField(_) => {}
    }
}

/// The (up to) four deepest corners within the margin; ties keep the lower corner index.
fn box_points(world: &WorldPlane, cuboid: &Cuboid, pose: &Pose, margin: f32, out: &mut Manifold) {
    let mut kept = [(0.0f32, 0usize); 8];
    let mut count = 0;
    for (index, corner) in cuboid.corners().iter().enumerate() {
        let separation = world.separation(pose.transform_point(*corner));
        if separation <= margin {
            // Insertion sort by separation; equal separations stay in corner order.
            let mut slot = count;
            while slot > 0 && kept[slot - 1].0 > separation {
                kept[slot] = kept[slot - 1];
                slot -= 1;
            }
            kept[slot] = (separation, index);
            count += 1;
        }
    }
    let corners = cuboid.corners();
    for &(_, index) in &kept[..count.min(4)] {
        world.push(pose.transform_point(corners[index]), margin, index as u32, out);
    }
}

fn cylinder_points(world: &WorldPlane, cylinder: &Cylinder, pose: &Pose, margin: f32, out: &mut Manifold) {
    let n = world.normal;
    let axis = pose.transform_vector(Vec3::Y);
    let across = n - n.dot(axis) * axis;
    // Local direction from the axis to the deepest rim point, when the cylinder is tilted.
    let deepest_local = (across.length() > UPRIGHT_SINE)
        .then(|| -pose.inverse_transform_vector(across).with_y(0.0).normalize_or_zero());
    let mut candidates = [ContactPoint::default(); 18];
    let mut count = 0;
    for cap in 0..2u32 {
        let y = if cap == 0 { -cylinder.half_height } else { cylinder.half_height };
        let exact = deepest_local.map(|d| (d, 8));
        let fixed = (0..8u32).filter_map(|k| {
            let (cos, sin) = circle_point(2 * k as usize);
            let direction = Vec3::new(sin, 0.0, cos);
            // A fixed point next to the exact one would duplicate it.
            let near_exact = deepest_local.is_some_and(|d| d.dot(direction) > NEAR_EXACT_COSINE);
            (!near_exact).then_some((direction, k))
        });
        for (direction, k) in fixed.chain(exact) {
            let s = pose.transform_point(direction * cylinder.radius + Vec3::new(0.0, y, 0.0));
            let separation = world.separation(s);
            if separation <= margin {
                let position = s - 0.5 * separation * n;
                candidates[count] = ContactPoint { position, separation, id: 16 * cap + k };
                count += 1;
            }
        }
    }
    reduce_points(&candidates[..count], n, out);
    out.normal = n;
}

/// Reduces the hull's vertices within the margin to four, as `manifold::reduce_points` does
/// (deepest; furthest from it; largest triangle; furthest outside the triangle), streaming
/// over the vertices instead of collecting them. In the hull's frame the separation of
/// vertex `v` is `n_l·v + c` with `n_l = R⁻¹ n`, `c = n·t - d`.
fn hull_points(world: &WorldPlane, hull: &ConvexHull, pose: &Pose, margin: f32, out: &mut Manifold) {
    let n_local = pose.inverse_transform_vector(world.normal);
    let shift = world.normal.dot(pose.position) - world.offset;
    let separation = |v: Vec3| n_local.dot(v) + shift;
    let best = |score: &dyn Fn(Vec3) -> f32| {
        let mut best: Option<(usize, f32)> = None;
        for (i, &v) in hull.vertices.iter().enumerate() {
            if separation(v) <= margin {
                let s = score(v);
                if best.is_none_or(|(_, b)| s > b) {
                    best = Some((i, s));
                }
            }
        }
        best.map(|(i, _)| i)
    };
    let Some(deepest) = best(&|v| -separation(v)) else {
        return;
    };
    let p1 = hull.vertices[deepest];
    let far = best(&|v| (v - p1).length_squared()).unwrap_or(deepest);
    let p2 = hull.vertices[far];
    let area = |a: Vec3, b: Vec3, c: Vec3| (b - a).cross(c - a).dot(n_local);
    let third = best(&|v| area(p1, p2, v).abs()).unwrap_or(deepest);
    let p3 = hull.vertices[third];
    let sign = if area(p1, p2, p3) >= 0.0 { 1.0 } else { -1.0 };
    let outside = |v: Vec3| -(sign * area(p1, p2, v)).min(sign * area(p2, p3, v)).min(sign * area(p3, p1, v));
    let fourth = best(&outside).unwrap_or(deepest);
    let mut chosen = [usize::MAX; 4];
    for (slot, index) in [deepest, far, third, fourth].into_iter().enumerate() {
        if !chosen.contains(&index) {
            chosen[slot] = index;
            world.push(pose.transform_point(hull.vertices[index]), margin, index as u32, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;
    use std::sync::Arc;

    /// The ground `y = 0` (normal +Y) as a plane through the origin.
    fn ground() -> (Plane, Pose) {
        (Plane { normal: Vec3::Y, offset: 0.0 }, Pose::IDENTITY)
    }

    fn collide(shape: &Shape, pose: &Pose, margin: f32) -> Manifold {
        let (plane, plane_pose) = ground();
        let mut m = Manifold::new();
        collide_plane(&plane, &plane_pose, shape, pose, margin, &mut m);
        m
    }

    #[test]
    fn tilted_offset_plane_and_sphere() {
        // The plane n·x = 2 in its local frame, rotated and moved: world normal R n.
        let plane = Plane { normal: Vec3::Y, offset: 2.0 };
        let plane_pose = Pose::new(Vec3::new(1.0, 0.0, 0.0), Quat::from_rotation_z(0.5));
        let normal = plane_pose.transform_vector(Vec3::Y);
        let on_plane = plane_pose.transform_point(Vec3::new(0.7, 2.0, -3.0));
        let sphere = Shape::sphere(0.5).unwrap();
        let centre = on_plane + 0.45 * normal;
        let mut m = Manifold::new();
        collide_plane(&plane, &plane_pose, &sphere, &Pose::from_position(centre), 0.0, &mut m);
        assert_eq!(m.count, 1);
        assert!((m.normal - normal).length() < 1e-6);
        assert!((m.points[0].separation + 0.05).abs() < 1e-5);
        assert!((m.points[0].position - (on_plane - 0.025 * normal)).length() < 1e-5);
    }

    #[test]
    fn capsule_ends() {
        let capsule = Shape::capsule(1.0, 0.25).unwrap();
        // Tilted so the ends sit at heights 0.5 ± sin(0.3).
        let pose = Pose::new(Vec3::new(0.0, 0.5, 0.0), Quat::from_rotation_z(std::f32::consts::FRAC_PI_2 - 0.3));
        let m = collide(&capsule, &pose, 0.1);
        let low_end = pose.transform_point(Vec3::new(0.0, -1.0, 0.0));
        let expected = low_end.y - 0.25;
        assert_eq!(m.count, 1, "the high end is {} above", 0.5 + 0.3f32.sin() - 0.25);
        assert!((m.points[0].separation - expected).abs() < 1e-5);
        assert!((m.points[0].position - Vec3::new(low_end.x, 0.5 * expected, 0.0)).length() < 1e-5);
        assert_eq!(m.points[0].id, 0);
        let flat = Pose::new(Vec3::new(0.0, 0.2, 0.0), Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
        let m = collide(&capsule, &flat, 0.0);
        assert_eq!(m.count, 2);
        assert!(m.points().iter().all(|p| (p.separation + 0.05).abs() < 1e-5));
    }

    #[test]
    fn box_keeps_the_four_deepest_corners() {
        let cuboid = Shape::cuboid(Vec3::new(0.5, 0.3, 0.4)).unwrap();
        // Resting flat, 0.01 deep: the four bottom corners (y bit clear: indices 0, 1, 4, 5).
        let m = collide(&cuboid, &Pose::from_position(Vec3::new(2.0, 0.29, 1.0)), 0.02);
        assert_eq!(m.count, 4);
        let mut ids: Vec<u32> = m.points().iter().map(|p| p.id).collect();
        ids.sort();
        assert_eq!(ids, vec![0, 1, 4, 5]);
        for p in m.points() {
            assert!((p.separation + 0.01).abs() < 1e-5);
            assert!((p.position.y + 0.005).abs() < 1e-5);
        }
        // Sunk 1.0 deep and tilted: every corner is below the margin; the 4 deepest remain.
        let pose = Pose::new(Vec3::new(0.0, -0.5, 0.0), Quat::from_rotation_x(0.2));
        let m = collide(&cuboid, &pose, 0.02);
        assert_eq!(m.count, 4);
        let corners = Cuboid::new(Vec3::new(0.5, 0.3, 0.4)).unwrap().corners();
        let mut depths: Vec<f32> = corners.iter().map(|c| pose.transform_point(*c).y).collect();
        depths.sort_by(f32::total_cmp);
        for p in m.points() {
            assert!(p.separation <= depths[3] + 1e-6);
        }
    }

    #[test]
    fn cylinder_upright_lying_and_on_its_rim() {
        let cylinder = Shape::cylinder(0.5, 0.3).unwrap();
        // Upright, 0.01 deep: four points spread on the bottom rim.
        let m = collide(&cylinder, &Pose::from_position(Vec3::new(0.0, 0.49, 0.0)), 0.02);
        assert_eq!(m.count, 4);
        for p in m.points() {
            assert!((p.separation + 0.01).abs() < 1e-5);
            assert!((Vec3::new(p.position.x, 0.0, p.position.z).length() - 0.3).abs() < 1e-5);
        }
        // Lying along X, 0.02 deep: the exact lowest rim points of both caps.
        let lying = Pose::new(Vec3::new(0.0, 0.28, 0.0), Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
        let m = collide(&cylinder, &lying, 0.0);
        assert_eq!(m.count, 2);
        for p in m.points() {
            assert!((p.separation + 0.02).abs() < 1e-5);
            assert!((p.position.x.abs() - 0.5).abs() < 1e-5 && p.position.z.abs() < 1e-5);
        }
        // On its rim, tilted 0.7 rad about Z: the deepest point is the exact rim point.
        let tilted = Pose::new(Vec3::new(0.0, 0.3, 0.0), Quat::from_rotation_z(0.7));
        let m = collide(&cylinder, &tilted, 0.0);
        let (s, c) = 0.7f32.sin_cos();
        let lowest = 0.3 - 0.5 * c - 0.3 * s;
        assert!(m.count >= 1);
        assert!((m.min_separation() - lowest).abs() < 1e-5);
        let deepest = m.points().iter().find(|p| p.separation == m.min_separation()).unwrap();
        assert_eq!(deepest.id, 8);
        let expected = Vec3::new(0.5 * s - 0.3 * c, 0.5 * lowest, 0.0);
        assert!((deepest.position - expected).length() < 1e-5);
        for p in m.points() {
            // Each point sits midway between its rim point and the ground.
            assert!((p.position.y - 0.5 * p.separation).abs() < 1e-6);
        }
    }

    #[test]
    fn hull_reduces_to_four_deepest_spread_vertices() {
        // An octagonal prism lying on its flat bottom; 8 bottom vertices touch.
        let mut vertices = Vec::new();
        for y in [-0.2f32, 0.2] {
            for k in 0..8 {
                let angle = k as f32 * std::f32::consts::FRAC_PI_4;
                vertices.push(Vec3::new(angle.cos(), y, angle.sin()));
            }
        }
        let bottom: Vec<u16> = (0..8).collect();
        let top: Vec<u16> = (8..16).rev().collect();
        let mut loops = vec![bottom, top];
        for k in 0..8u16 {
            let next = (k + 1) % 8;
            loops.push(vec![k, k + 8, next + 8, next]);
        }
        let hull = ConvexHull::from_face_loops(vertices, &loops).unwrap();
        let shape = Shape::ConvexHull(Arc::new(hull));
        let m = collide(&shape, &Pose::from_position(Vec3::new(0.0, 0.19, 0.0)), 0.01);
        assert_eq!(m.count, 4);
        for p in m.points() {
            assert!((p.separation + 0.01).abs() < 1e-5);
            assert!(p.id < 8, "bottom vertices only");
        }
        // The reduction picks the deepest point, the one furthest from it (so they form a
        // diagonal) and one point on each side: the area is that of the inscribed square, 2.
        let q = |i: usize| m.points[i].position;
        let diagonal = q(1) - q(0);
        let area = 0.5 * (diagonal.cross(q(2) - q(0)).length() + diagonal.cross(q(3) - q(0)).length());
        assert!(area > 1.9, "area {area}");
    }
}
