//! Capsule against box.
//!
//! The capsule is its axis segment swept by a ball of radius `r`, so:
//! - cores apart: GJK between the segment and the box gives the exact distance `d`, the
//!   normal and the closest points; separation `d - r`;
//! - cores overlapping (the axis enters the box): the separating-axis test, exact for a
//!   segment against a box, over the box's face normals `e_i` and the edge directions
//!   `e_i × u` (`u` the axis direction). Along a unit axis `L`, with the segment's centre `m`
//!   and half vector `e` in the box frame, the overlap is
//!   `Σ h_i |L_i| + |e·L| - |m·L|`; the smallest overlap wins (face axes on near ties), the
//!   normal from the capsule to the box is `-sign(m·L) L` and the separation
//!   `-overlap - r`.
//!
//! The manifold then comes from the supporting features (`convex::manifold_from_separation`):
//! a capsule lying flat on a face gives the two ends of its axis clipped to the face, any
//! other contact one point.

use crate::collision::manifold::Manifold;
use crate::collision::narrow_phase::convex::{manifold_from_separation, Separation};
use crate::collision::narrow_phase::gjk::{gjk, ConvexCore, CoreKind};
use crate::collision::narrow_phase::pairs::closest_points_segments;
use crate::collision::narrow_phase::PairCache;
use crate::math::{Pose, Vec3};
use crate::shape::{Capsule, Cuboid};

/// An edge axis must beat the best face axis by this much (metres) to be chosen, so that
/// face contacts stay face contacts under rounding.
const EDGE_AXIS_BIAS: f32 = 1.0e-5;

/// Contact between capsule A and box B (normal from A to B); empty when further apart than
/// `margin` metres. `cache` keeps the last normal to seed GJK.
pub fn collide_capsule_box(
    capsule: &Capsule,
    pose_a: &Pose,
    cuboid: &Cuboid,
    pose_b: &Pose,
    margin: f32,
    cache: &mut PairCache,
    out: &mut Manifold,
) {
    out.clear();
    let core_a = ConvexCore {
        kind: CoreKind::Segment { half_height: capsule.half_height },
        pose: *pose_a,
        radius: capsule.radius,
    };
    let core_b = ConvexCore { kind: CoreKind::Box { half_extents: cuboid.half_extents }, pose: *pose_b, radius: 0.0 };
    let result = gjk(&core_a, &core_b, cache.direction());
    let found = if result.overlapping {
        segment_box_overlap(capsule, pose_a, cuboid, pose_b)
    } else {
        Separation {
            normal: result.normal,
            separation: result.distance,
            point_a: result.point_a,
            point_b: result.point_b,
        }
    };
    cache.set_direction(found.normal);
    manifold_from_separation(&core_a, &core_b, &found, margin, out);
}

/// The separating-axis answer for an axis segment that overlaps the box, in world space.
fn segment_box_overlap(capsule: &Capsule, pose_a: &Pose, cuboid: &Cuboid, pose_b: &Pose) -> Separation {
    let h = cuboid.half_extents;
    let (bottom, top) = capsule.segment();
    let p0 = pose_b.inverse_transform_point(pose_a.transform_point(bottom));
    let p1 = pose_b.inverse_transform_point(pose_a.transform_point(top));
    let (centre, half) = (0.5 * (p0 + p1), 0.5 * (p1 - p0));
    let overlap_along = |axis: Vec3| h.dot(axis.abs()) + half.dot(axis).abs() - centre.dot(axis).abs();
    let mut best_axis = Vec3::X;
    let mut best_overlap = f32::INFINITY;
    let mut best_edge = None;
    for i in 0..3 {
        let axis = Vec3::AXES[i];
        let overlap = overlap_along(axis);
        if overlap < best_overlap {
            (best_axis, best_overlap) = (axis, overlap);
        }
    }
    let direction = half.normalize_or_zero();
    for i in 0..3 {
        let cross = Vec3::AXES[i].cross(direction);
        if cross.length_squared() < 1e-10 {
            continue;
        }
        let axis = cross.normalize();
        let overlap = overlap_along(axis);
        if overlap + EDGE_AXIS_BIAS < best_overlap {
            (best_axis, best_overlap, best_edge) = (axis, overlap, Some(i));
        }
    }
    // The box lies on the -sign(m·L) side of the segment's centre.
    let sign = if centre.dot(best_axis) >= 0.0 { 1.0 } else { -1.0 };
    let normal = -sign * best_axis;
    let (core_point, box_point) = match best_edge {
        None => face_witnesses(p0, p1, normal, h, best_axis, sign),
        Some(i) => edge_witnesses(p0, p1, normal, h, i),
    };
    let r = capsule.radius;
    Separation {
        normal: pose_b.transform_vector(normal),
        separation: -best_overlap - r,
        point_a: pose_b.transform_point(core_point + r * normal),
        point_b: pose_b.transform_point(box_point),
    }
}

/// Face axis: the axis point deepest along `normal` (the midpoint when the axis is parallel
/// to the face) and its projection on the face plane `L·x = sign · (h·|L|)`.
fn face_witnesses(p0: Vec3, p1: Vec3, normal: Vec3, h: Vec3, axis: Vec3, sign: f32) -> (Vec3, Vec3) {
    let (d0, d1) = (p0.dot(normal), p1.dot(normal));
    let core = if (d0 - d1).abs() <= 1e-6 {
        0.5 * (p0 + p1)
    } else if d0 > d1 {
        p0
    } else {
        p1
    };
    let face_offset = sign * h.dot(axis.abs());
    (core, core + (face_offset - core.dot(axis)) * axis)
}

/// Edge axis `e_i × u`: the box edge parallel to `e_i` that supports the box towards the
/// capsule (direction `-normal`), and the closest points of that edge and the axis.
fn edge_witnesses(p0: Vec3, p1: Vec3, normal: Vec3, h: Vec3, i: usize) -> (Vec3, Vec3) {
    let corner = Vec3::new(h.x.copysign(-normal.x), h.y.copysign(-normal.y), h.z.copysign(-normal.z));
    let (mut start, mut end) = (corner, corner);
    start[i] = -h[i];
    end[i] = h[i];
    let (_, _, core, edge) = closest_points_segments(p0, p1, start, end);
    (core, edge)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;
    use std::f32::consts::FRAC_PI_2;

    fn collide(capsule: &Capsule, pose_a: &Pose, cuboid: &Cuboid, pose_b: &Pose) -> Manifold {
        let mut m = Manifold::new();
        collide_capsule_box(capsule, pose_a, cuboid, pose_b, 0.02, &mut PairCache::default(), &mut m);
        m
    }

    #[test]
    fn capsule_lying_on_a_face_gets_two_points() {
        let cuboid = Cuboid { half_extents: Vec3::new(1.0, 0.5, 1.0) };
        let capsule = Capsule { half_height: 0.6, radius: 0.2 };
        let lying = Quat::from_rotation_z(-FRAC_PI_2); // axis along X
                                                       // Axis at y = 0.69: the surfaces overlap by 0.01; the axis spans x in [0.6, 1.8],
                                                       // so clipping by the face's x = 1 side leaves x in [0.6, 1].
        for (y, separation) in [(0.69, -0.01), (0.71, 0.01), (0.6, -0.1), (0.45, -0.25)] {
            let pose_a = Pose::new(Vec3::new(1.2, y, 0.3), lying);
            let m = collide(&capsule, &pose_a, &cuboid, &Pose::IDENTITY);
            assert_eq!(m.count, 2, "axis at y = {y}");
            assert!((m.normal + Vec3::Y).length() < 1e-5, "capsule above: normal points down");
            let mut xs = [m.points[0].position.x, m.points[1].position.x];
            xs.sort_by(f32::total_cmp);
            assert!((xs[0] - 0.6).abs() < 1e-5 && (xs[1] - 1.0).abs() < 1e-5, "{xs:?}");
            for p in m.points() {
                assert!((p.separation - separation).abs() < 1e-5, "{} vs {separation}", p.separation);
                assert!((p.position.y - (0.5 + 0.5 * separation)).abs() < 1e-5);
                assert!((p.position.z - 0.3).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn standing_and_edge_contacts_get_one_point() {
        let cuboid = Cuboid { half_extents: Vec3::new(1.0, 0.5, 1.0) };
        let capsule = Capsule { half_height: 0.6, radius: 0.2 };
        // Standing on the top face, axis bottom 0.15 above it: separation -0.05.
        let pose_a = Pose::from_position(Vec3::new(0.2, 0.5 + 0.6 + 0.15, -0.4));
        let m = collide(&capsule, &pose_a, &cuboid, &Pose::IDENTITY);
        assert_eq!(m.count, 1);
        assert!((m.normal + Vec3::Y).length() < 1e-5);
        assert!((m.points[0].separation + 0.05).abs() < 1e-5);
        assert!((m.points[0].position - Vec3::new(0.2, 0.475, -0.4)).length() < 1e-5);

        // Axis along Z crossing the box's top edge at x = 1, y = 0.5 diagonally above it:
        // offset (0.1, 0.1) from the edge, distance √0.02.
        let pose_a = Pose::new(Vec3::new(1.1, 0.6, 0.0), Quat::from_rotation_x(FRAC_PI_2));
        let m = collide(&capsule, &pose_a, &cuboid, &Pose::IDENTITY);
        assert_eq!(m.count, 1);
        let expected_normal = Vec3::new(-1.0, -1.0, 0.0).normalize();
        assert!((m.normal - expected_normal).length() < 1e-5);
        assert!((m.points[0].separation - (0.02f32.sqrt() - 0.2)).abs() < 1e-5);
    }

    #[test]
    fn deep_overlaps_match_the_separating_axis_answer() {
        let cuboid = Cuboid { half_extents: Vec3::new(1.0, 0.5, 1.0) };
        let capsule = Capsule { half_height: 0.6, radius: 0.2 };
        // Axis upright through the top face, its bottom 0.1 below the face: the shallowest
        // way out is up, by 0.1 + r.
        let pose_a = Pose::from_position(Vec3::new(0.0, 0.5 - 0.1 + 0.6, 0.0));
        let m = collide(&capsule, &pose_a, &cuboid, &Pose::IDENTITY);
        assert_eq!(m.count, 1);
        assert!((m.normal + Vec3::Y).length() < 1e-5);
        assert!((m.points[0].separation + 0.3).abs() < 1e-5);
        // Axis along Z through the box near its +x face (0.05 inside): out through +x.
        let pose_a = Pose::new(Vec3::new(0.95, 0.0, 0.0), Quat::from_rotation_x(FRAC_PI_2));
        let m = collide(&capsule, &pose_a, &cuboid, &Pose::IDENTITY);
        assert!((m.normal + Vec3::X).length() < 1e-5);
        assert!((m.min_separation() + 0.25).abs() < 1e-5);
    }
}
