//! Sphere against box, in the box's frame.
//!
//! With the sphere's centre `c` and the box's half extents `h` (box frame):
//! - outside: the box point nearest to `c` is `q = clamp(c, -h, h)`; the normal from the
//!   sphere to the box is `n = (q - c) / |q - c|` and the separation `|q - c| - r`;
//! - inside (`q = c`): the face of least depth `h_i - |c_i|` wins; the box must leave through
//!   it, so `n = -sign(c_i) e_i`, `q` is `c` moved onto that face and the separation is
//!   `-(h_i - |c_i|) - r`.
//!
//! The contact lies midway between the sphere's surface point `c + r n` and `q`.
//! Feature id: outside, which of the 27 regions around the box `c` is in (per axis below,
//! within or above); inside, `32 +` the face index.

use super::push_sphere_contact;
use crate::collision::manifold::Manifold;
use crate::math::{Pose, Vec3};
use crate::shape::{Cuboid, Sphere};

/// Contact between sphere A and box B (normal from A to B); empty when further apart than
/// `margin` metres.
pub fn collide_sphere_box(
    sphere: &Sphere,
    pose_a: &Pose,
    cuboid: &Cuboid,
    pose_b: &Pose,
    margin: f32,
    out: &mut Manifold,
) {
    out.clear();
    let h = cuboid.half_extents;
    let centre = pose_b.inverse_transform_point(pose_a.position);
    let nearest = centre.clamp(-h, h);
    let offset = nearest - centre;
    let distance = offset.length();
    let found = if distance > 1e-7 {
        let region = (0..3).fold(0, |code, i| {
            let slot = if centre[i] < -h[i] {
                0
            } else if centre[i] > h[i] {
                2
            } else {
                1
            };
            code * 3 + slot
        });
        (offset / distance, distance - sphere.radius, nearest, region)
    } else {
        inside_face(centre, h, sphere.radius)
    };
    push_sphere_contact(pose_b, centre, sphere.radius, found, margin, out);
}

/// The face of least depth for a centre inside the box: (normal from sphere to box,
/// separation, box surface point, id). Ties go to the lowest axis.
fn inside_face(centre: Vec3, h: Vec3, radius: f32) -> (Vec3, f32, Vec3, u32) {
    let depth = h - centre.abs();
    let axis = if depth.x <= depth.y && depth.x <= depth.z {
        0
    } else if depth.y <= depth.z {
        1
    } else {
        2
    };
    let sign = if centre[axis] >= 0.0 { 1.0 } else { -1.0 };
    let mut normal = Vec3::ZERO;
    normal[axis] = -sign;
    let mut surface = centre;
    surface[axis] = sign * h[axis];
    let face = 2 * axis as u32 + (sign > 0.0) as u32;
    (normal, -depth[axis] - radius, surface, 32 + face)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    fn run(centre_local: Vec3, radius: f32) -> (Manifold, Pose) {
        let cuboid = Cuboid { half_extents: Vec3::new(1.0, 0.5, 2.0) };
        let pose_b = Pose::new(Vec3::new(3.0, -1.0, 0.5), Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1));
        let pose_a = Pose::from_position(pose_b.transform_point(centre_local));
        let mut m = Manifold::new();
        collide_sphere_box(&Sphere { radius }, &pose_a, &cuboid, &pose_b, 0.02, &mut m);
        (m, pose_b)
    }

    #[test]
    fn face_edge_corner_and_inside_cases() {
        // (centre in box frame, radius, normal in box frame, separation, position in box frame)
        let cases = [
            // Above the +y face: 0.1 penetration.
            (Vec3::new(0.2, 0.8, -1.0), 0.4, -Vec3::Y, -0.1, Vec3::new(0.2, 0.45, -1.0)),
            // Beside the edge x = 1, y = 0.5: offset (0.3, 0.4) from the edge, distance 0.5;
            // midway = q - ½ separation · n.
            (Vec3::new(1.3, 0.9, 0.0), 0.49, Vec3::new(-0.6, -0.8, 0.0), 0.01, Vec3::new(1.003, 0.504, 0.0)),
            // Near the corner (1, 0.5, 2): offset (0.2, 0.2, 0.1), distance 0.3.
            (
                Vec3::new(1.2, 0.7, 2.1),
                0.35,
                Vec3::new(-2.0, -2.0, -1.0) / 3.0,
                -0.05,
                Vec3::new(1.0, 0.5, 2.0) + Vec3::new(2.0, 2.0, 1.0) / 3.0 * -0.025,
            ),
            // Inside, nearest to the -y face (depth 0.1).
            (Vec3::new(0.1, -0.4, 0.3), 0.2, Vec3::Y, -0.3, Vec3::new(0.1, -0.35, 0.3)),
        ];
        for (centre, radius, normal, separation, position) in cases {
            let (m, pose) = run(centre, radius);
            assert_eq!(m.count, 1, "centre {centre}");
            let local_normal = pose.inverse_transform_vector(m.normal);
            assert!((local_normal - normal).length() < 1e-5, "{local_normal} vs {normal}");
            assert!((m.points[0].separation - separation).abs() < 1e-5);
            let local_position = pose.inverse_transform_point(m.points[0].position);
            assert!((local_position - position).length() < 1e-5, "{local_position} vs {position}");
        }
        let (m, _) = run(Vec3::new(0.0, 0.0, 2.5), 0.47);
        assert!(m.is_empty(), "0.03 apart with a 0.02 margin");
    }
}
