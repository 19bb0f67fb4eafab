//! Sphere against sphere.
//!
//! With centres `c_a`, `c_b` and radii `r_a`, `r_b`: `n = (c_b - c_a) / |c_b - c_a|`,
//! separation `|c_b - c_a| - r_a - r_b`, one point midway between the surfaces. Coincident
//! centres take the world +Y normal (any direction is as good; this one is deterministic).

use super::ball_contact;
use crate::collision::manifold::Manifold;
use crate::math::{Pose, Vec3};
use crate::shape::Sphere;

/// Contact between sphere A and sphere B (normal from A to B); empty when further apart than
/// `margin` metres.
pub fn collide_spheres(
    sphere_a: &Sphere,
    pose_a: &Pose,
    sphere_b: &Sphere,
    pose_b: &Pose,
    margin: f32,
    out: &mut Manifold,
) {
    let (a, b) = (pose_a.position, pose_b.position);
    ball_contact(a, sphere_a.radius, b, sphere_b.radius, Vec3::Y, margin, 0, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_spheres_match_the_analytic_contact() {
        let (a, b) = (Sphere { radius: 0.5 }, Sphere { radius: 0.25 });
        let direction = Vec3::new(1.0, 2.0, -2.0) / 3.0;
        let centre_a = Vec3::new(0.3, -1.0, 2.0);
        for distance in [0.7, 0.75, 0.8, 0.1] {
            let pose_a = Pose::from_position(centre_a);
            let pose_b = Pose::from_position(centre_a + distance * direction);
            let mut m = Manifold::new();
            collide_spheres(&a, &pose_a, &b, &pose_b, 0.06, &mut m);
            let expected_separation = distance - 0.75;
            if expected_separation > 0.06 {
                assert!(m.is_empty());
                continue;
            }
            assert_eq!(m.count, 1);
            assert!((m.normal - direction).length() < 1e-5);
            let p = m.points[0];
            assert!((p.separation - expected_separation).abs() < 1e-5);
            // Midway between the surface points c_a + r_a n and c_b - r_b n.
            let expected = centre_a + direction * (0.5 + 0.5 * expected_separation);
            assert!((p.position - expected).length() < 1e-5);
        }
    }

    #[test]
    fn coincident_centres_give_a_unit_normal() {
        let s = Sphere { radius: 1.0 };
        let pose = Pose::from_position(Vec3::new(1.0, 1.0, 1.0));
        let mut m = Manifold::new();
        collide_spheres(&s, &pose, &s, &pose, 0.0, &mut m);
        assert_eq!(m.count, 1);
        assert!((m.normal.length() - 1.0).abs() < 1e-6);
        assert!((m.points[0].separation + 2.0).abs() < 1e-6);
    }
}
