//! Forces, impulses, damping and gravity scale against the integrator's own recurrence.
//!
//! Each step of dt runs n substeps of h = dt/n; per substep the velocity is
//!   v ← (v + h (g·scale + F/m)) / (1 + h c_lin),   ω ← (ω + h I⁻¹τ) / (1 + h c_ang)
//! and then the position x ← x + h v. Forces and torques last one step.

mod common;
use common::*;
use fulcrum::prelude::*;
use glam::{DMat3, DQuat, DVec3};

fn zero_gravity_world() -> World {
    World::new(WorldSettings { gravity: Vec3::ZERO, ..Default::default() }).unwrap()
}

/// A solid sphere of radius `r` (density 1000) at `position`; returns the body and its mass.
fn add_ball(world: &mut World, position: Vec3, r: f32) -> (BodyId, f64) {
    let body = world.create_body(&BodyDef::dynamic(position)).unwrap();
    world.create_collider(body, &ColliderDef::new(Shape::sphere(r).unwrap())).unwrap();
    let mass = 1000.0 * 4.0 / 3.0 * std::f64::consts::PI * (r as f64).powi(3);
    (body, mass)
}

fn substep_length(world: &World) -> (usize, f64) {
    let n = world.settings().substeps as usize;
    (n, DT as f64 / n as f64)
}

fn relative_error(actual: Vec3, expected: DVec3) -> f64 {
    (actual.as_dvec3() - expected).length() / expected.length()
}

/// A force for one step changes the velocity by F dt / m and moves the body by
/// Σₖ h·(k h F/m) = n(n+1)/2 h² F/m; it is cleared afterwards.
#[test]
fn force_for_one_step_gives_f_dt_over_m() {
    let mut world = zero_gravity_world();
    let (ball, mass) = add_ball(&mut world, Vec3::ZERO, 0.5);
    let force = Vec3::new(100.0, -50.0, 30.0);
    world.apply_force(ball, force).unwrap();
    assert_eq!(world.body(ball).unwrap().force(), force);
    world.step(DT).unwrap();
    let (n, h) = substep_length(&world);
    let accel = force.as_dvec3() / mass;
    let expected_v = accel * DT as f64;
    let expected_x = accel * h * h * (n * (n + 1) / 2) as f64;
    let b = world.body(ball).unwrap();
    let (v_error, x_error) =
        (relative_error(b.linear_velocity(), expected_v), relative_error(b.position(), expected_x));
    eprintln!("apply_force: dv rel err {v_error:e}, dx rel err {x_error:e}");
    assert!(v_error < 1e-5 && x_error < 1e-5, "v {} x {}", b.linear_velocity(), b.position());
    assert_eq!(b.force(), Vec3::ZERO, "the force lasts one step");
    let v1 = b.linear_velocity();
    world.step(DT).unwrap();
    assert_eq!(world.body(ball).unwrap().linear_velocity(), v1, "no force on the second step");
}

/// A force at a point adds the torque r × F about the centre of mass: for a sphere
/// (I = 2/5 m r² E, no gyroscopic term) Δω = (r × F) dt / I and Δv = F dt / m.
#[test]
fn force_at_point_adds_the_torque_r_cross_f() {
    let mut world = zero_gravity_world();
    let radius = 0.5;
    let (ball, mass) = add_ball(&mut world, Vec3::new(1.0, 2.0, 3.0), radius);
    let arm = Vec3::new(0.3, 0.4, -0.2);
    let force = Vec3::new(10.0, -20.0, 5.0);
    let center = world.body(ball).unwrap().center_of_mass();
    world.apply_force_at_point(ball, force, center + arm).unwrap();
    let torque = arm.as_dvec3().cross(force.as_dvec3());
    assert!(relative_error(world.body(ball).unwrap().torque(), torque) < 1e-6);
    world.step(DT).unwrap();
    let inertia = 0.4 * mass * (radius as f64).powi(2);
    let b = world.body(ball).unwrap();
    let w_error = relative_error(b.angular_velocity(), torque * DT as f64 / inertia);
    let v_error = relative_error(b.linear_velocity(), force.as_dvec3() * DT as f64 / mass);
    eprintln!("apply_force_at_point: dω rel err {w_error:e}, dv rel err {v_error:e}");
    assert!(w_error < 1e-5, "ω = {}", b.angular_velocity());
    assert!(v_error < 1e-5, "v = {}", b.linear_velocity());
}

/// An impulse at a point on a rotated box (offset in its body) changes the velocities at once:
/// Δv = J/m, Δω = I_w⁻¹ (r × J) with I_w = R_body R_box I_box R_boxᵀ R_bodyᵀ.
#[test]
fn impulse_at_point_gives_dv_and_i_inverse_r_cross_j() {
    let mut world = zero_gravity_world();
    let body_rotation = Quat::from_axis_angle(Vec3::new(0.2, 1.0, 0.4).normalize(), 1.1);
    let body = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, 1.0, 0.0)).with_rotation(body_rotation)).unwrap();
    let (half, offset) = (Vec3::new(0.2, 0.4, 0.6), Vec3::new(0.3, 0.0, -0.1));
    let box_rotation = Quat::from_rotation_x(0.5);
    let def = ColliderDef::new(Shape::cuboid(half).unwrap()).with_density(700.0).with_pose(offset, box_rotation);
    world.create_collider(body, &def).unwrap();
    let h = half.as_dvec3();
    let mass = 700.0 * 8.0 * h.x * h.y * h.z;
    let h2 = h * h;
    let principal = DMat3::from_diagonal(DVec3::new(h2.y + h2.z, h2.x + h2.z, h2.x + h2.y) * (mass / 3.0));
    let rotation = DMat3::from_quat(body_rotation.as_dquat() * box_rotation.as_dquat());
    let inertia_world = rotation * principal * rotation.transpose();
    let center = body_rotation.as_dquat() * offset.as_dvec3() + DVec3::new(0.0, 1.0, 0.0);
    assert!((world.body(body).unwrap().center_of_mass().as_dvec3() - center).length() < 1e-5);
    let (impulse, point) = (Vec3::new(2.0, -1.0, 3.0), Vec3::new(0.5, 1.2, 0.1));
    world.apply_impulse_at_point(body, impulse, point).unwrap();
    let j = impulse.as_dvec3();
    let expected_w = inertia_world.inverse() * (point.as_dvec3() - center).cross(j);
    let b = world.body(body).unwrap();
    let w_error = relative_error(b.angular_velocity(), expected_w);
    let v_error = relative_error(b.linear_velocity(), j / mass);
    eprintln!("apply_impulse_at_point: dω rel err {w_error:e}, dv rel err {v_error:e}");
    assert!(w_error < 1e-4, "ω = {} expected {expected_w}", b.angular_velocity());
    assert!(v_error < 1e-4, "v = {}", b.linear_velocity());
    // The same impulse at the centre of mass gives no rotation.
    let before = b.angular_velocity();
    world.apply_impulse_at_point(body, impulse, center.as_vec3()).unwrap();
    let b = world.body(body).unwrap();
    assert!((b.angular_velocity() - before).length() < 1e-5 * before.length());
    assert!(relative_error(b.linear_velocity(), 2.0 * j / mass) < 1e-4);
}

/// Linear damping under gravity follows v ← (v + h g)/(1 + h c), x ← x + h v per substep.
#[test]
fn linear_damping_follows_the_substep_recurrence() {
    let mut world = World::default();
    let (ball, _) = add_ball(&mut world, Vec3::new(0.0, 50.0, 0.0), 0.25);
    world.set_damping(ball, 0.8, 0.0).unwrap();
    let v0 = Vec3::new(3.0, 0.0, -1.0);
    world.set_linear_velocity(ball, v0).unwrap();
    let (n, h) = substep_length(&world);
    let g = world.settings().gravity.as_dvec3();
    let (mut x, mut v) = (DVec3::new(0.0, 50.0, 0.0), v0.as_dvec3());
    let (mut worst_v, mut worst_x) = (0.0f64, 0.0f64);
    for _ in 0..90 {
        world.step(DT).unwrap();
        for _ in 0..n {
            v = (v + h * g) / (1.0 + h * 0.8);
            x += h * v;
        }
        let b = world.body(ball).unwrap();
        worst_v = worst_v.max((b.linear_velocity().as_dvec3() - v).length());
        worst_x = worst_x.max((b.position().as_dvec3() - x).length());
    }
    eprintln!("linear damping: worst |Δv| {worst_v:e} m/s, worst |Δx| {worst_x:e} m (v = {v})");
    assert!(worst_v < 1e-4 && worst_x < 1e-4);
    // Without damping the same body would fall faster: the recurrence is not trivial.
    assert!((v.y - g.y * 1.5).abs() > 1.0);
}

/// Angular damping on a sphere (no gyroscopic term): ω_k = ω₀ / (1 + h c)^k after k substeps.
#[test]
fn angular_damping_decays_as_one_over_one_plus_hc() {
    let mut world = zero_gravity_world();
    let (ball, _) = add_ball(&mut world, Vec3::ZERO, 0.4);
    let c = 1.5;
    world.set_damping(ball, 0.0, c).unwrap();
    let w0 = Vec3::new(0.0, 2.0, 1.0);
    world.set_angular_velocity(ball, w0).unwrap();
    let (n, h) = substep_length(&world);
    let mut worst = 0.0f64;
    for step in 1..=60 {
        world.step(DT).unwrap();
        let expected = w0.as_dvec3() / (1.0 + h * c as f64).powi((step * n) as i32);
        worst = worst.max(relative_error(world.body(ball).unwrap().angular_velocity(), expected));
    }
    let end = world.body(ball).unwrap().angular_velocity().length() / w0.length();
    eprintln!("angular damping: worst rel err {worst:e}, |ω|/|ω₀| after 1 s = {end:.5}");
    // f32 rounding of (1 + h c) compounds over 240 substeps (~1e-5); exp(-h c) in place of
    // 1/(1 + h c) would be off by ~5e-3 here.
    assert!(worst < 5e-5);
    assert!(world.body(ball).unwrap().linear_velocity() == Vec3::ZERO);
}

/// Gravity scale 0 floats exactly; scale 2 falls by the recurrence with 2g.
#[test]
fn gravity_scale_zero_floats_and_two_falls_twice_as_fast() {
    let mut world = World::default();
    let start = Vec3::new(0.0, 20.0, 0.0);
    let (floating, _) = add_ball(&mut world, start, 0.3);
    let (heavy, _) = add_ball(&mut world, start + Vec3::new(5.0, 0.0, 0.0), 0.3);
    world.set_gravity_scale(floating, 0.0).unwrap();
    world.set_gravity_scale(heavy, 2.0).unwrap();
    let (n, h) = substep_length(&world);
    let g2 = 2.0 * world.settings().gravity.y as f64;
    let (mut y, mut v) = (20.0f64, 0.0f64);
    let mut worst = 0.0f64;
    for _ in 0..60 {
        world.step(DT).unwrap();
        for _ in 0..n {
            v += h * g2;
            y += h * v;
        }
        worst = worst.max((pos(&world, heavy).y as f64 - y).abs());
        assert_eq!(pos(&world, floating), start, "gravity scale 0 moved the body");
        assert_eq!(vel(&world, floating), Vec3::ZERO);
    }
    let fell = 20.0 - pos(&world, heavy).y;
    eprintln!("gravity scale 2: fell {fell:.4} m in 1 s (g t² = {:.4}), worst err {worst:e} m", -g2 / 2.0);
    assert!(worst < 1e-4);
    assert!(((vel(&world, heavy).y as f64) / v - 1.0).abs() < 1e-5);
}

/// The torque of `apply_torque` on a box about a principal axis: Δω = τ dt / I_axis.
#[test]
fn torque_about_a_principal_axis() {
    let mut world = zero_gravity_world();
    let body = world.create_body(&BodyDef::dynamic(Vec3::ZERO)).unwrap();
    let half = Vec3::new(0.2, 0.4, 0.6);
    world.create_collider(body, &ColliderDef::new(Shape::cuboid(half).unwrap())).unwrap();
    let h = half.as_dvec3();
    let mass = 1000.0 * 8.0 * h.x * h.y * h.z;
    let i_yy = mass / 3.0 * (h.x * h.x + h.z * h.z);
    world.apply_torque(body, Vec3::new(0.0, 4.0, 0.0)).unwrap();
    world.step(DT).unwrap();
    let w = world.body(body).unwrap().angular_velocity();
    let expected = DVec3::new(0.0, 4.0 * DT as f64 / i_yy, 0.0);
    eprintln!("apply_torque: ω = {w}, expected {expected}");
    assert!(relative_error(w, expected) < 1e-5);
    // The body turned about y by the integrated angle (Σ h ω_k for k = 1..n).
    let (n, hs) = substep_length(&world);
    let angle: f64 = (1..=n).map(|k| 2.0 * (hs * expected.y * k as f64 / n as f64 / 2.0).atan()).sum();
    let turned = world.body(body).unwrap().rotation().as_dquat();
    assert!(turned.angle_between(DQuat::from_rotation_y(angle)) < 1e-5);
}
