//! Sphere against cylinder, in the cylinder's frame (axis Y, half height `h`, radius `R`).
//!
//! With the sphere's centre `c = (x, y, z)` and its distance from the axis `ρ = |(x, z)|`:
//! - outside: the cylinder point nearest to `c` is `q = (x s, clamp(y, -h, h), z s)` with
//!   `s = min(1, R/ρ)` (the point is pulled onto the side when beyond the radius); the normal
//!   from the sphere to the cylinder is `n = (q - c) / |q - c|` and the separation
//!   `|q - c| - r`;
//! - inside (`q = c`): the sphere leaves through the nearer of the side (depth `R - ρ`) and
//!   the cap on its side of the middle (depth `h - |y|`): `n` is minus that surface's outward
//!   normal, `q` is `c` moved onto it and the separation is `-depth - r`.
//!
//! The contact lies midway between the sphere's surface point `c + r n` and `q`, as in
//! `sphere_box.rs`. Feature id: outside, the region `c` is in (below, beside or above the
//! caps; within or beyond the radius); inside, `32 +` the surface (0 side, 1 bottom, 2 top).

use super::push_sphere_contact;
use crate::collision::manifold::Manifold;
use crate::math::{Pose, Vec3};
use crate::shape::{Cylinder, Sphere};

/// Contact between sphere A and cylinder B (normal from A to B); empty when further apart
/// than `margin` metres.
pub fn collide_sphere_cylinder(
    sphere: &Sphere,
    pose_a: &Pose,
    cylinder: &Cylinder,
    pose_b: &Pose,
    margin: f32,
    out: &mut Manifold,
) {
    out.clear();
    let (h, big_r) = (cylinder.half_height, cylinder.radius);
    let centre = pose_b.inverse_transform_point(pose_a.position);
    let rho = Vec3::new(centre.x, 0.0, centre.z).length();
    let pull = if rho > big_r { big_r / rho } else { 1.0 };
    let nearest = Vec3::new(centre.x * pull, centre.y.clamp(-h, h), centre.z * pull);
    let offset = nearest - centre;
    let distance = offset.length();
    let found = if distance > 1e-7 {
        let axial = if centre.y < -h {
            0
        } else if centre.y > h {
            2
        } else {
            1
        };
        (offset / distance, distance - sphere.radius, nearest, 2 * axial + (rho > big_r) as u32)
    } else {
        inside_surface(centre, rho, h, big_r, sphere.radius)
    };
    push_sphere_contact(pose_b, centre, sphere.radius, found, margin, out);
}

/// The surface of least depth for a centre inside the cylinder: (normal from sphere to
/// cylinder, separation, cylinder surface point, id). Ties go to the side.
fn inside_surface(centre: Vec3, rho: f32, h: f32, big_r: f32, radius: f32) -> (Vec3, f32, Vec3, u32) {
    let (side_depth, cap_depth) = (big_r - rho, h - centre.y.abs());
    if side_depth <= cap_depth {
        // On the axis every direction across it is as near: +X is taken.
        let outward = if rho > 1e-7 { Vec3::new(centre.x / rho, 0.0, centre.z / rho) } else { Vec3::X };
        let surface = Vec3::new(outward.x * big_r, centre.y, outward.z * big_r);
        return (-outward, -side_depth - radius, surface, 32);
    }
    let top = centre.y >= 0.0;
    let outward = if top { Vec3::Y } else { -Vec3::Y };
    let surface = Vec3::new(centre.x, if top { h } else { -h }, centre.z);
    (-outward, -cap_depth - radius, surface, 33 + top as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::narrow_phase::convex::collide_convex;
    use crate::collision::narrow_phase::tests::Rng;
    use crate::collision::narrow_phase::PairCache;
    use crate::math::Quat;
    use crate::shape::Shape;

    fn run(centre_local: Vec3, radius: f32) -> (Manifold, Pose) {
        let cylinder = Cylinder { half_height: 0.5, radius: 0.4 };
        let pose_b = Pose::new(Vec3::new(1.0, 2.0, -0.5), Quat::from_euler(glam::EulerRot::XYZ, 0.4, 0.2, -0.9));
        let pose_a = Pose::from_position(pose_b.transform_point(centre_local));
        let mut m = Manifold::new();
        collide_sphere_cylinder(&Sphere { radius }, &pose_a, &cylinder, &pose_b, 0.02, &mut m);
        (m, pose_b)
    }

    /// Above the cap, beside the side, beyond the rim, and inside near the side and near a
    /// cap, against values worked by hand.
    #[test]
    fn cap_side_rim_and_inside_cases() {
        let rim = Vec3::new(0.6, 0.0, 0.8);
        // (centre in cylinder frame, radius, normal, separation, position)
        let cases = [
            // Above the top cap: 0.05 penetration.
            (Vec3::new(0.1, 0.75, -0.2), 0.3, -Vec3::Y, -0.05, Vec3::new(0.1, 0.475, -0.2)),
            // Beside the side at ρ = 0.6 along (0.6, 0, 0.8): 0.2 from it, radius 0.19.
            (rim * 0.6 + Vec3::new(0.0, 0.1, 0.0), 0.19, -rim, 0.01, rim * 0.405 + Vec3::new(0.0, 0.1, 0.0)),
            // Beyond the top rim: offset (0.3 radially, 0.4 up), distance 0.5.
            (
                rim * 0.7 + Vec3::new(0.0, 0.9, 0.0),
                0.52,
                -(rim * 0.6 + Vec3::new(0.0, 0.8, 0.0)),
                -0.02,
                rim * 0.4 + Vec3::new(0.0, 0.5, 0.0) - 0.01 * (rim * 0.6 + Vec3::new(0.0, 0.8, 0.0)),
            ),
            // Inside, 0.05 from the side (deeper from the caps).
            (rim * 0.35, 0.1, -rim, -0.15, rim * 0.325),
            // Inside, 0.05 under the bottom cap's surface (0.35 from the side).
            (Vec3::new(0.05, -0.45, 0.0), 0.1, Vec3::Y, -0.15, Vec3::new(0.05, -0.5 + 0.075, 0.0)),
        ];
        for (centre, radius, normal, separation, position) in cases {
            let (m, pose) = run(centre, radius);
            assert_eq!(m.count, 1, "centre {centre}");
            let local_normal = pose.inverse_transform_vector(m.normal);
            assert!((local_normal - normal).length() < 1e-5, "{local_normal} vs {normal}");
            assert!((m.points[0].separation - separation).abs() < 1e-5, "{} vs {separation}", m.points[0].separation);
            let local_position = pose.inverse_transform_point(m.points[0].position);
            assert!((local_position - position).length() < 1e-5, "{local_position} vs {position}");
        }
        let (m, _) = run(Vec3::new(0.0, 1.2, 0.0), 0.6);
        assert_eq!(m.count, 0, "0.1 apart with a margin of 0.02");
    }

    /// In random poses the closed form agrees with the general GJK/EPA path: the same normal
    /// within 1e-3 and the same separation within 1e-4 m outside, 2e-3 m inside (EPA's
    /// tolerance on a curved rim).
    #[test]
    fn agrees_with_the_general_path() {
        let mut rng = Rng::new(5);
        let (sphere, cylinder) = (Shape::sphere(0.3).unwrap(), Shape::cylinder(0.4, 0.35).unwrap());
        let (Shape::Sphere(s), Shape::Cylinder(c)) = (&sphere, &cylinder) else { unreachable!() };
        let mut compared = 0;
        for _ in 0..3000 {
            let pose_b = rng.pose(1.0);
            let pose_a = Pose::from_position(pose_b.position + rng.vec3(-0.8, 0.8));
            let (mut closed, mut general) = (Manifold::new(), Manifold::new());
            collide_sphere_cylinder(s, &pose_a, c, &pose_b, 0.1, &mut closed);
            collide_convex(&sphere, &pose_a, &cylinder, &pose_b, 0.1, &mut PairCache::default(), &mut general);
            let (Some(x), Some(y)) = (closed.points().first(), general.points().first()) else { continue };
            let tolerance = if x.separation < -0.3 { 2e-3 } else { 1e-4 };
            assert!((x.separation - y.separation).abs() < tolerance, "{} vs {}", x.separation, y.separation);
            if x.separation > -0.3 {
                assert!(closed.normal.dot(general.normal) > 1.0 - 1e-3, "{} vs {}", closed.normal, general.normal);
            }
            compared += 1;
        }
        assert!(compared > 500, "compared {compared}");
    }
}
