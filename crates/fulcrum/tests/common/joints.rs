//! Joint measurements shared by the joint tests, from the public API only.

use fulcrum::prelude::*;

/// The world frames (anchor and orientation, X = joint axis) of a joint's two sides.
pub fn joint_world_frames(world: &World, id: JointId) -> (Pose, Pose) {
    let joint = world.joint(id).unwrap();
    let side = |body: Option<BodyId>, local: Pose| match body {
        Some(b) => world.body(b).unwrap().pose().mul_pose(&local),
        None => local,
    };
    (side(joint.body_a(), joint.local_frame_a()), side(Some(joint.body_b()), joint.local_frame_b()))
}

/// Gap between a joint's two anchors in world space, metres.
pub fn joint_gap(world: &World, id: JointId) -> f32 {
    let (a, b) = joint_world_frames(world, id);
    (b.position - a.position).length()
}

/// Rotation of B's joint frame relative to A's: q_A⁻¹ q_B.
pub fn joint_relative_rotation(world: &World, id: JointId) -> Quat {
    let (a, b) = joint_world_frames(world, id);
    a.rotation.conjugate() * b.rotation
}

/// Angle of a hinge (turn of B's frame about the axis relative to A's), radians in (−π, π].
pub fn hinge_angle(world: &World, id: JointId) -> f32 {
    let q = joint_relative_rotation(world, id);
    wrap(2.0 * q.x.atan2(q.w))
}

/// Angle between the two frames' X axes (the swing of a ball joint), radians in [0, π].
pub fn swing_angle(world: &World, id: JointId) -> f32 {
    let (a, b) = joint_world_frames(world, id);
    let (axis_a, axis_b) = (a.rotation * Vec3::X, b.rotation * Vec3::X);
    axis_a.cross(axis_b).length().atan2(axis_a.dot(axis_b))
}

/// Twist of a ball joint: the turn about X left when the swing (the shortest turn of A's axis
/// onto B's) is taken out of q_A⁻¹ q_B, radians in (−π, π].
pub fn twist_angle(world: &World, id: JointId) -> f32 {
    let q = joint_relative_rotation(world, id);
    let swing = Quat::from_rotation_arc(Vec3::X, (q * Vec3::X).normalize());
    let twist = swing.conjugate() * q;
    wrap(2.0 * twist.x.atan2(twist.w))
}

/// `angle` wrapped into (−π, π].
pub fn wrap(angle: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    let wrapped = angle.rem_euclid(TAU);
    if wrapped > PI {
        wrapped - TAU
    } else {
        wrapped
    }
}

/// Upward zero crossings of a sampled signal x(t) given as (t, x) pairs, linearly
/// interpolated, seconds.
pub fn crossings(samples: &[(f32, f32)]) -> Vec<f32> {
    samples
        .windows(2)
        .filter(|w| w[0].1 < 0.0 && w[1].1 >= 0.0)
        .map(|w| w[0].0 + (w[1].0 - w[0].0) * (-w[0].1) / (w[1].1 - w[0].1))
        .collect()
}
