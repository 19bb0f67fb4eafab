//! Sphere against capsule.
//!
//! The capsule is the set of points within `r_c` of its segment `p q`; the point of the
//! segment closest to the sphere's centre `c`, `s = p + t (q - p)` with
//! `t = clamp((c - p)·(q - p) / |q - p|², 0, 1)`, makes the pair two balls: normal
//! `(s - c) / |s - c|`, separation `|s - c| - r_s - r_c`. A centre on the axis takes a normal
//! perpendicular to the axis.

use super::{ball_contact, closest_point_on_segment, perpendicular};
use crate::collision::manifold::Manifold;
use crate::math::Pose;
use crate::shape::{Capsule, Sphere};

/// Contact between sphere A and capsule B (normal from A to B); empty when further apart
/// than `margin` metres.
pub fn collide_sphere_capsule(
    sphere: &Sphere,
    pose_a: &Pose,
    capsule: &Capsule,
    pose_b: &Pose,
    margin: f32,
    out: &mut Manifold,
) {
    let (bottom, top) = capsule.segment();
    let (p, q) = (pose_b.transform_point(bottom), pose_b.transform_point(top));
    let centre = pose_a.position;
    let nearest = closest_point_on_segment(centre, p, q);
    let fallback = perpendicular(q - p);
    ball_contact(centre, sphere.radius, nearest, capsule.radius, fallback, margin, 0, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Quat, Vec3};

    #[test]
    fn sphere_beside_and_beyond_the_capsule_ends() {
        let sphere = Sphere { radius: 0.3 };
        let capsule = Capsule { half_height: 1.0, radius: 0.2 };
        // Capsule axis along world X (local Y rotated by -90 degrees about Z).
        let pose_b = Pose::new(Vec3::new(1.0, 0.0, 0.0), Quat::from_rotation_z(-0.5 * std::f32::consts::PI));
        // (sphere centre, expected normal, expected separation, expected position)
        let cases = [
            // Beside the middle: distance 0.45 below the axis.
            (Vec3::new(1.3, -0.45, 0.0), Vec3::Y, -0.05, Vec3::new(1.3, -0.175, 0.0)),
            // Beyond the +x end: distance 0.4 from the end point (2, 0, 0).
            (Vec3::new(2.4, 0.0, 0.0), -Vec3::X, -0.1, Vec3::new(2.15, 0.0, 0.0)),
            // Diagonal from the -x end point (0, 0, 0): offset (-0.3, 0, 0.4), distance 0.5.
            (Vec3::new(-0.3, 0.0, 0.4), Vec3::new(0.6, 0.0, -0.8), 0.0, Vec3::new(-0.12, 0.0, 0.16)),
        ];
        for (centre, normal, separation, position) in cases {
            let mut m = Manifold::new();
            collide_sphere_capsule(&sphere, &Pose::from_position(centre), &capsule, &pose_b, 0.01, &mut m);
            assert_eq!(m.count, 1);
            assert!((m.normal - normal).length() < 1e-5, "{} vs {normal}", m.normal);
            assert!((m.points[0].separation - separation).abs() < 1e-5);
            assert!((m.points[0].position - position).length() < 1e-5);
        }
        let mut m = Manifold::new();
        let far = Pose::from_position(Vec3::new(1.0, 0.52, 0.0));
        collide_sphere_capsule(&sphere, &far, &capsule, &pose_b, 0.01, &mut m);
        assert!(m.is_empty(), "0.02 apart with a 0.01 margin");
    }
}
