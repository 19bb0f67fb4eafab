//! Kinematic bodies: moved only by their velocity, deaf to gravity and contacts, and able to
//! carry dynamic bodies by friction and by normal force.

mod common;
use common::*;
use fulcrum::prelude::*;
use glam::{DQuat, DVec3};

fn add_kinematic_box(world: &mut World, position: Vec3, half: Vec3) -> (BodyId, ColliderId) {
    let body = world.create_body(&BodyDef::kinematic(position)).unwrap();
    let collider = world.create_collider(body, &ColliderDef::new(Shape::cuboid(half).unwrap())).unwrap();
    (body, collider)
}

/// Position after k steps is p₀ + v k dt; the rotation about y turns by 2 atan(ω h/2) per
/// substep; gravity does not act (the velocity never changes).
#[test]
fn kinematic_body_moves_exactly_by_its_velocity() {
    let mut world = World::default();
    let p0 = Vec3::new(1.0, 2.0, 3.0);
    let (body, _) = add_kinematic_box(&mut world, p0, Vec3::new(0.5, 0.2, 0.3));
    let (v, w) = (Vec3::new(1.0, 0.5, -2.0), Vec3::new(0.0, 1.2, 0.0));
    world.set_linear_velocity(body, v).unwrap();
    world.set_angular_velocity(body, w).unwrap();
    let n = world.settings().substeps as usize;
    let h = DT as f64 / n as f64;
    let mut worst = 0.0f64;
    for k in 1..=120 {
        world.step(DT).unwrap();
        let b = world.body(body).unwrap();
        assert_eq!(b.linear_velocity(), v, "gravity or something else changed the velocity");
        assert_eq!(b.angular_velocity(), w);
        let expected = p0.as_dvec3() + v.as_dvec3() * (k as f64 * DT as f64);
        worst = worst.max((b.position().as_dvec3() - expected).length());
    }
    let angle = (120 * n) as f64 * 2.0 * (w.y as f64 * h / 2.0).atan();
    let turn_error = world.body(body).unwrap().rotation().as_dquat().angle_between(DQuat::from_rotation_y(angle));
    eprintln!("kinematic: worst position error {worst:e} m, rotation error {turn_error:e} rad");
    assert!(worst < 1e-4, "position off by {worst} m");
    assert!(turn_error < 1e-4);
    assert_eq!(world.body(body).unwrap().mass(), 0.0);
}

/// A kinematic box sweeping along the ground pushes a dynamic box out of its way and keeps
/// its own velocity and path exactly; the pushed box never sinks into it by more than 1 cm.
#[test]
fn kinematic_body_pushes_and_is_not_pushed() {
    let mut world = World::default();
    add_ground(&mut world, 0.6);
    let target = add_box(&mut world, Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
    let p0 = Vec3::new(-2.0, 0.5, 0.0);
    let (pusher, pusher_collider) = add_kinematic_box(&mut world, p0, Vec3::splat(0.5));
    let v = Vec3::new(2.0, 0.0, 0.0);
    world.set_linear_velocity(pusher, v).unwrap();
    let mut worst_overlap = 0.0f32;
    let mut touched = false;
    for k in 1..=90 {
        world.step(DT).unwrap();
        let b = world.body(pusher).unwrap();
        assert_eq!(b.linear_velocity(), v);
        assert_eq!(b.angular_velocity(), Vec3::ZERO);
        let expected = p0 + v * (k as f32 * DT);
        assert!((b.position() - expected).length() < 1e-4, "the pusher left its path: {}", b.position());
        worst_overlap = worst_overlap.max(1.0 - (pos(&world, target).x - b.position().x));
        let target_collider = world.body(target).unwrap().colliders()[0];
        touched |= world.contact_between(pusher_collider, target_collider).is_some();
    }
    let (target_x, target_v) = (pos(&world, target).x, vel(&world, target).x);
    eprintln!("pushed box: x = {target_x:.4}, v = {target_v:.4} m/s, worst overlap {worst_overlap:.4} m");
    assert!(touched, "the pusher never touched the box");
    assert!(worst_overlap < 0.01, "the box sank {worst_overlap} m into the pusher");
    // The pusher travelled 3 m and started 1 m from the box, so the box (slowed by friction,
    // never overtaking) was pushed 2 m and moves with the pusher.
    assert!((target_x - 2.0).abs() < 0.01, "the box was not pushed along: x = {target_x}");
    assert!((target_v / v.x - 1.0).abs() < 0.01, "the box moves at {target_v} m/s");
}

/// Builds a kinematic platform (top at y = 0) with a 0.5 m cube settled on it; returns the
/// world, platform and box.
fn box_on_platform() -> (World, BodyId, BodyId) {
    let mut world = World::new(WorldSettings { sleep: false, ..Default::default() }).unwrap();
    let (platform, _) = add_kinematic_box(&mut world, Vec3::new(0.0, -0.1, 0.0), Vec3::new(3.0, 0.1, 3.0));
    let cube = add_box(&mut world, Vec3::new(0.0, 0.26, 0.0), Quat::IDENTITY, Vec3::splat(0.25), 0.6);
    run(&mut world, 30);
    assert!((pos(&world, cube).y - 0.25).abs() < 0.005, "cube did not settle on the platform");
    (world, platform, cube)
}

/// A platform that starts moving at 1 m/s drags the resting cube along by friction: the cube
/// first accelerates at μ g (μ = 0.6, the platform keeps its default friction 0.6), then
/// moves with the platform within 1%; the platform's motion is untouched.
#[test]
fn moving_platform_carries_a_resting_box_by_friction() {
    let (mut world, platform, cube) = box_on_platform();
    let speed = 1.0;
    world.set_linear_velocity(platform, Vec3::new(speed, 0.0, 0.0)).unwrap();
    let platform_start = pos(&world, platform);
    // Slipping phase: 6 steps (0.1 s), well before v = μ g t reaches 1 m/s (at 0.17 s).
    run(&mut world, 6);
    let slip_accel = vel(&world, cube).x / (6.0 * DT);
    let expected_accel = 0.6 * 9.81;
    run(&mut world, 84);
    let v = vel(&world, cube);
    let carried = pos(&world, cube).x;
    eprintln!(
        "platform: slip acceleration {slip_accel:.4} (μg = {expected_accel:.4}), cube v = {v}, carried {carried:.4} m"
    );
    assert!((slip_accel / expected_accel - 1.0).abs() < 0.05, "slip acceleration {slip_accel}");
    assert!((v.x / speed - 1.0).abs() < 0.01, "cube moves at {} m/s, platform at {speed}", v.x);
    assert!(v.y.abs() < 0.01 && v.z.abs() < 0.01, "cube velocity {v}");
    assert!((pos(&world, cube).y - 0.25).abs() < 0.005);
    let expected_platform = platform_start + Vec3::new(speed * 90.0 * DT, 0.0, 0.0);
    assert!((pos(&world, platform) - expected_platform).length() < 1e-4);
    assert_eq!(vel(&world, platform), Vec3::new(speed, 0.0, 0.0));
}

/// A platform rising at 0.5 m/s lifts the cube: the cube's vertical velocity matches the
/// platform's within 1% after 0.5 s, and it stays on top (y − y_platform = 0.35 within 5 mm).
#[test]
fn rising_platform_lifts_the_box() {
    let (mut world, platform, cube) = box_on_platform();
    let rise = Vec3::new(0.0, 0.5, 0.0);
    world.set_linear_velocity(platform, rise).unwrap();
    run(&mut world, 30);
    let v = vel(&world, cube);
    let gap = pos(&world, cube).y - pos(&world, platform).y;
    eprintln!("rising platform: cube v = {v}, gap {gap:.5} m (0.35 at rest)");
    assert!((v.y / rise.y - 1.0).abs() < 0.01, "cube rises at {} m/s", v.y);
    assert!((gap - 0.35).abs() < 0.005, "gap {gap}");
    assert!((pos(&world, platform).as_dvec3() - DVec3::new(0.0, -0.1 + 0.25, 0.0)).length() < 1e-4);
}

/// A kinematic body moving slower than the sleep threshold keeps moving with default settings
/// (sleep on): after 2 s at 2 cm/s it is 4 cm further and still has its velocity.
///
/// (Regression: the sleep logic once treated kinematic bodies like resting dynamic ones and
/// zeroed their velocity.)
#[test]
fn slow_kinematic_body_does_not_fall_asleep() {
    let mut world = World::default();
    let (body, _) = add_kinematic_box(&mut world, Vec3::ZERO, Vec3::new(3.0, 0.1, 3.0));
    let v = Vec3::new(0.02, 0.0, 0.0);
    world.set_linear_velocity(body, v).unwrap();
    run(&mut world, 120);
    let b = world.body(body).unwrap();
    eprintln!(
        "slow kinematic: x = {:.5} (expected 0.04), v = {}, sleeping {}",
        b.position().x,
        b.linear_velocity(),
        b.is_sleeping()
    );
    assert!(!b.is_sleeping(), "the moving kinematic body fell asleep");
    assert_eq!(b.linear_velocity(), v);
    assert!((b.position().x - 0.04).abs() < 1e-4, "x = {}", b.position().x);
}
