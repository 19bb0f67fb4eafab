//! Capsule against capsule.
//!
//! The closest points `c_a`, `c_b` of the two axis segments make the pair two balls: normal
//! `n = (c_b - c_a) / |c_b - c_a|`, separation `|c_b - c_a| - r_a - r_b`. When both axes are
//! perpendicular to `n` and parallel to each other (a capsule lying on another), the surface
//! lines `a ± r_a n`, `b ∓ r_b n` overlap over an interval: its two ends are the contacts
//! (`convex::segment_pair`). Crossing axes (`c_a = c_b`) take `n ∥ u_a × u_b`, pointing from
//! A's centre towards B's; coincident parallel axes a normal perpendicular to them.
//!
//! Feature ids: the two-point contact uses `convex::segment_pair`'s ids (0 to 3), the single
//! point id 4.

use super::{closest_points_segments, perpendicular};
use crate::collision::manifold::Manifold;
use crate::collision::narrow_phase::clip::feature_id;
use crate::collision::narrow_phase::convex::{segment_pair, single_point, Separation};
use crate::collision::narrow_phase::support_face::SEGMENT_SINE;
use crate::math::{Pose, Vec3};
use crate::shape::Capsule;

/// Contact between capsule A and capsule B (normal from A to B); empty when further apart
/// than `margin` metres.
pub fn collide_capsules(
    capsule_a: &Capsule,
    pose_a: &Pose,
    capsule_b: &Capsule,
    pose_b: &Pose,
    margin: f32,
    out: &mut Manifold,
) {
    out.clear();
    let (a0, a1) = world_segment(capsule_a, pose_a);
    let (b0, b1) = world_segment(capsule_b, pose_b);
    let (_, _, core_a, core_b) = closest_points_segments(a0, a1, b0, b1);
    let offset = core_b - core_a;
    let distance = offset.length();
    let (ra, rb) = (capsule_a.radius, capsule_b.radius);
    let separation = distance - ra - rb;
    if separation > margin || separation.is_nan() {
        return;
    }
    let normal = if distance > 1e-6 {
        offset / distance
    } else {
        touching_axes_normal(a1 - a0, b1 - b0, pose_b.position - pose_a.position)
    };
    let found = Separation { normal, separation, point_a: core_a + ra * normal, point_b: core_b - rb * normal };
    let (u, v) = (a1 - a0, b1 - b0);
    let perpendicular_to_normal = |axis: Vec3| axis.dot(normal).abs() <= SEGMENT_SINE * axis.length();
    if perpendicular_to_normal(u) && perpendicular_to_normal(v) {
        let surface_a = [a0 + ra * normal, a1 + ra * normal];
        let surface_b = [b0 - rb * normal, b1 - rb * normal];
        if segment_pair(&surface_a, &surface_b, normal, margin, 0, out) && !out.is_empty() {
            return;
        }
    }
    single_point(&found, feature_id(0, 4), out);
}

fn world_segment(capsule: &Capsule, pose: &Pose) -> (Vec3, Vec3) {
    let (bottom, top) = capsule.segment();
    (pose.transform_point(bottom), pose.transform_point(top))
}

/// Normal for axes that touch: `u_a × u_b` (or, for parallel axes, the part of the centre
/// offset perpendicular to them, else any perpendicular), oriented along the centre offset.
fn touching_axes_normal(u: Vec3, v: Vec3, centre_offset: Vec3) -> Vec3 {
    let cross = u.cross(v);
    let mut normal = if cross.length_squared() > 1e-12 * u.length_squared() * v.length_squared() {
        cross.normalize()
    } else {
        let across = centre_offset - u * (centre_offset.dot(u) / u.length_squared().max(1e-12));
        if across.length_squared() > 1e-12 {
            across.normalize()
        } else {
            perpendicular(u)
        }
    };
    if normal.dot(centre_offset) < 0.0 {
        normal = -normal;
    }
    normal
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;
    use std::f32::consts::FRAC_PI_2;

    #[test]
    fn capsule_lying_on_a_capsule_gets_two_points() {
        // Both axes along world X (local Y turned by -90 degrees about Z), B above A.
        let lying = Quat::from_rotation_z(-FRAC_PI_2);
        let a = Capsule { half_height: 1.0, radius: 0.3 };
        let b = Capsule { half_height: 0.5, radius: 0.2 };
        let pose_a = Pose::new(Vec3::ZERO, lying);
        // B's axis 0.48 above A's, shifted so it spans x in [0.7, 1.7]: overlap x in [0.7, 1].
        let pose_b = Pose::new(Vec3::new(1.2, 0.48, 0.0), lying);
        let mut m = Manifold::new();
        collide_capsules(&a, &pose_a, &b, &pose_b, 0.01, &mut m);
        assert_eq!(m.count, 2);
        assert!((m.normal - Vec3::Y).length() < 1e-5);
        let mut xs = [m.points[0].position.x, m.points[1].position.x];
        xs.sort_by(f32::total_cmp);
        assert!((xs[0] - 0.7).abs() < 1e-5 && (xs[1] - 1.0).abs() < 1e-5, "{xs:?}");
        for p in m.points() {
            assert!((p.separation + 0.02).abs() < 1e-5);
            // Midway between A's top (y = 0.3) and B's bottom (y = 0.28).
            assert!((p.position.y - 0.29).abs() < 1e-5 && p.position.z.abs() < 1e-5);
        }
        assert_ne!(m.points[0].id, m.points[1].id);
    }

    #[test]
    fn crossing_capsules_get_one_point() {
        let a = Capsule { half_height: 1.0, radius: 0.25 };
        let pose_a = Pose::new(Vec3::ZERO, Quat::from_rotation_z(-FRAC_PI_2)); // along X
        let pose_b = Pose::new(Vec3::new(0.3, 0.45, -0.1), Quat::from_rotation_x(FRAC_PI_2)); // along Z
        let mut m = Manifold::new();
        collide_capsules(&a, &pose_a, &a, &pose_b, 0.01, &mut m);
        assert_eq!(m.count, 1);
        assert!((m.normal - Vec3::Y).length() < 1e-5);
        assert!((m.points[0].separation + 0.05).abs() < 1e-5);
        assert!((m.points[0].position - Vec3::new(0.3, 0.225, 0.0)).length() < 1e-5);

        // Axes crossing at one point: the normal is along u_a × u_b, towards B's centre.
        let pose_b = Pose::new(Vec3::new(0.3, 0.0, 0.0), Quat::from_rotation_x(FRAC_PI_2));
        collide_capsules(&a, &pose_a, &a, &pose_b, 0.01, &mut m);
        assert_eq!(m.count, 1);
        assert!((m.normal.length() - 1.0).abs() < 1e-6 && m.normal.x.abs() < 1e-6);
        assert!((m.points[0].separation + 0.5).abs() < 1e-5);
    }

    #[test]
    fn tilted_capsules_beyond_the_margin_give_nothing() {
        let a = Capsule { half_height: 1.0, radius: 0.25 };
        let pose_a = Pose::new(Vec3::ZERO, Quat::from_rotation_z(0.3));
        let pose_b = Pose::new(Vec3::new(0.0, 0.0, 0.52), Quat::from_rotation_z(-0.4));
        let mut m = Manifold::new();
        collide_capsules(&a, &pose_a, &a, &pose_b, 0.01, &mut m);
        assert!(m.is_empty(), "axes 0.52 apart, surfaces 0.02 apart");
        collide_capsules(&a, &pose_a, &a, &pose_b, 0.03, &mut m);
        assert_eq!(m.count, 1);
        assert!((m.points[0].separation - 0.02).abs() < 1e-5);
        assert!((m.normal - Vec3::Z).length() < 1e-5);
    }
}
