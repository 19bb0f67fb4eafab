//! Mass properties of bodies built from several colliders, predicted with the parallel-axis
//! theorem in f64, and the motion of the centre of mass (not the body origin).
//!
//! Reference, for parts i with mass m_i, centre c_i and inertia I_i about c_i (body axes):
//!   M = Σ m_i,  c = Σ m_i c_i / M,
//!   I = Σ [ I_i + m_i (|d_i|² E − d_i d_iᵀ) ],  d_i = c_i − c.
//! A part rotated by R in the body frame contributes R I_i Rᵀ.

mod common;
use common::*;
use fulcrum::prelude::*;
use glam::{DMat3, DQuat, DVec3};
use std::f64::consts::PI;

/// Mass (kg), centre (m) and inertia about the centre (kg·m²) of one part, in f64.
#[derive(Clone, Copy)]
struct Part {
    mass: f64,
    center: DVec3,
    inertia: DMat3,
}

/// Solid sphere of radius `r` at `center`: m = ρ 4/3 π r³, I = 2/5 m r² E.
fn sphere_part(density: f64, r: f64, center: DVec3) -> Part {
    let mass = density * 4.0 / 3.0 * PI * r * r * r;
    Part { mass, center, inertia: DMat3::from_diagonal(DVec3::splat(0.4 * mass * r * r)) }
}

/// Solid box with half extents `h`, rotated by `rotation` about its centre at `center`:
/// m = 8 ρ hx hy hz, I = R · m/3 diag(hy²+hz², hx²+hz², hx²+hy²) · Rᵀ.
fn box_part(density: f64, h: DVec3, center: DVec3, rotation: DQuat) -> Part {
    let mass = density * 8.0 * h.x * h.y * h.z;
    let h2 = h * h;
    let local = DMat3::from_diagonal(DVec3::new(h2.y + h2.z, h2.x + h2.z, h2.x + h2.y) * (mass / 3.0));
    let r = DMat3::from_quat(rotation);
    Part { mass, center, inertia: r * local * r.transpose() }
}

/// Sum of parts about their combined centre of mass (parallel-axis theorem).
fn combine(parts: &[Part]) -> Part {
    let mass: f64 = parts.iter().map(|p| p.mass).sum();
    let center = parts.iter().map(|p| p.center * p.mass).sum::<DVec3>() / mass;
    let mut inertia = DMat3::ZERO;
    for p in parts {
        let d = p.center - center;
        let shift =
            DMat3::from_diagonal(DVec3::splat(d.length_squared())) - DMat3::from_cols(d * d.x, d * d.y, d * d.z);
        inertia += p.inertia + shift * p.mass;
    }
    Part { mass, center, inertia }
}

fn dvec(v: Vec3) -> DVec3 {
    v.as_dvec3()
}

fn dquat(q: Quat) -> DQuat {
    q.as_dquat()
}

/// Largest element difference of two tensors relative to the largest element of `expected`.
fn tensor_error(actual: Mat3, expected: DMat3) -> f64 {
    let a = actual.as_dmat3();
    let scale = expected.to_cols_array().iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let diff = (a - expected).to_cols_array().iter().fold(0.0f64, |m, x| m.max(x.abs()));
    diff / scale
}

fn assert_mass_matches(world: &World, body: BodyId, expected: &Part, what: &str) {
    let b = world.body(body).unwrap();
    let mass_error = (b.mass() as f64 / expected.mass - 1.0).abs();
    let center_error = (dvec(b.local_center_of_mass()) - expected.center).length();
    let inertia_error = tensor_error(b.inertia_local(), expected.inertia);
    eprintln!("{what}: mass rel err {mass_error:e}, centre err {center_error:e} m, inertia rel err {inertia_error:e}");
    assert!(mass_error < 1e-4, "{what}: mass {} vs {}", b.mass(), expected.mass);
    assert!(center_error < 1e-4 * expected.center.length().max(1.0), "{what}: centre {}", b.local_center_of_mass());
    assert!(inertia_error < 1e-4, "{what}: inertia {:?} vs {:?}", b.inertia_local(), expected.inertia);
}

/// Two spheres of different densities at offsets, on a body at a rotated pose.
fn two_sphere_body(world: &mut World) -> (BodyId, Part) {
    let pose_rotation = Quat::from_axis_angle(Vec3::new(1.0, 2.0, -0.5).normalize(), 0.9);
    let body = world.create_body(&BodyDef::dynamic(Vec3::new(2.0, 3.0, 4.0)).with_rotation(pose_rotation)).unwrap();
    let (ca, cb) = (Vec3::new(1.0, 0.2, -0.4), Vec3::new(-0.6, 0.1, 0.3));
    let sphere_a = ColliderDef::new(Shape::sphere(0.3).unwrap()).with_density(1000.0).with_pose(ca, Quat::IDENTITY);
    let sphere_b = ColliderDef::new(Shape::sphere(0.5).unwrap()).with_density(400.0).with_pose(cb, Quat::IDENTITY);
    world.create_collider(body, &sphere_a).unwrap();
    world.create_collider(body, &sphere_b).unwrap();
    let expected = combine(&[sphere_part(1000.0, 0.3, dvec(ca)), sphere_part(400.0, 0.5, dvec(cb))]);
    (body, expected)
}

#[test]
fn two_offset_spheres_follow_the_parallel_axis_theorem() {
    let mut world = World::default();
    let (body, expected) = two_sphere_body(&mut world);
    assert_mass_matches(&world, body, &expected, "two spheres");
    // The world centre of mass is the body pose applied to the local one.
    let b = world.body(body).unwrap();
    let world_center = dvec(b.position()) + dquat(b.rotation()) * expected.center;
    assert!((dvec(b.center_of_mass()) - world_center).length() < 1e-5);
    // World inertia is R I Rᵀ.
    let r = DMat3::from_quat(dquat(b.rotation()));
    assert!(tensor_error(b.inertia_world(), r * expected.inertia * r.transpose()) < 1e-4);
    // A sensor adds no mass.
    let sensor = ColliderDef::new(Shape::sphere(2.0).unwrap()).with_sensor(true);
    world.create_collider(body, &sensor).unwrap();
    assert_mass_matches(&world, body, &expected, "two spheres + sensor");
}

#[test]
fn rotated_offset_box_with_a_sphere_follows_the_parallel_axis_theorem() {
    let mut world = World::default();
    let body = world.create_body(&BodyDef::dynamic(Vec3::new(0.0, 5.0, 0.0))).unwrap();
    let (half, offset) = (Vec3::new(0.2, 0.4, 0.6), Vec3::new(0.3, -0.2, 0.5));
    let tilt = Quat::from_axis_angle(Vec3::new(0.3, -1.0, 0.6).normalize(), 0.7);
    let cuboid = ColliderDef::new(Shape::cuboid(half).unwrap()).with_density(800.0).with_pose(offset, tilt);
    world.create_collider(body, &cuboid).unwrap();
    // The box alone: its own rotated tensor about its own centre.
    let box_alone = box_part(800.0, dvec(half), dvec(offset), dquat(tilt));
    assert_mass_matches(&world, body, &box_alone, "rotated offset box");
    // Off-diagonal terms exist, so the rotation really was applied.
    let i = box_alone.inertia;
    let off_diagonal = i.x_axis.y.abs().max(i.x_axis.z.abs()).max(i.y_axis.z.abs());
    assert!(off_diagonal > 0.05 * i.x_axis.x.max(i.y_axis.y).max(i.z_axis.z), "{i:?}");
    let ball = ColliderDef::new(Shape::sphere(0.25).unwrap()).with_density(2000.0);
    world.create_collider(body, &ball).unwrap();
    let expected = combine(&[box_alone, sphere_part(2000.0, 0.25, DVec3::ZERO)]);
    assert_mass_matches(&world, body, &expected, "rotated offset box + sphere");
}

#[test]
fn mass_override_scales_inertia_and_keeps_the_centre() {
    let mut world = World::default();
    let (body, computed) = two_sphere_body(&mut world);
    let target = 5.0;
    let scale = target / computed.mass;
    let scaled = Part { mass: target, center: computed.center, inertia: computed.inertia * scale };
    world.set_mass(body, Some(target as f32)).unwrap();
    assert_mass_matches(&world, body, &scaled, "set_mass(5)");
    world.set_mass(body, None).unwrap();
    assert_mass_matches(&world, body, &computed, "set_mass(None)");
    // The same through the definition: the override holds while colliders are added.
    let def = BodyDef { mass: Some(target as f32), ..BodyDef::dynamic(Vec3::ZERO) };
    let other = world.create_body(&def).unwrap();
    let half = Vec3::new(0.5, 0.1, 0.2);
    let offset = Vec3::new(0.0, 1.0, 0.0);
    world
        .create_collider(other, &ColliderDef::new(Shape::cuboid(half).unwrap()).with_pose(offset, Quat::IDENTITY))
        .unwrap();
    let natural = box_part(1000.0, dvec(half), dvec(offset), DQuat::IDENTITY);
    let overridden = Part { mass: target, center: natural.center, inertia: natural.inertia * (target / natural.mass) };
    assert_mass_matches(&world, other, &overridden, "BodyDef::mass = 5");
}

/// Free fall moves the centre of mass by the substep recurrence v += h g, x += h v; the body
/// origin keeps its offset from it (nothing rotates).
#[test]
fn centre_of_mass_follows_free_fall() {
    let mut world = World::default();
    let (body, expected) = two_sphere_body(&mut world);
    let b = world.body(body).unwrap();
    let (c0, q0) = (dvec(b.center_of_mass()), b.rotation());
    let substeps = world.settings().substeps;
    let h = DT as f64 / substeps as f64;
    let g = world.settings().gravity.as_dvec3();
    let (mut c, mut v) = (c0, DVec3::ZERO);
    let mut worst = 0.0f64;
    for _ in 0..60 {
        world.step(DT).unwrap();
        for _ in 0..substeps {
            v += h * g;
            c += h * v;
        }
        let b = world.body(body).unwrap();
        worst = worst.max((dvec(b.center_of_mass()) - c).length());
        assert_eq!(b.rotation(), q0, "nothing should rotate");
        assert_eq!(b.angular_velocity(), Vec3::ZERO);
        let origin = dvec(b.center_of_mass()) - dquat(b.rotation()) * expected.center;
        assert!((dvec(b.position()) - origin).length() < 1e-5);
    }
    eprintln!("free fall of the centre of mass: worst error {worst:e} m");
    assert!(worst < 1e-4, "centre of mass off the recurrence by {worst} m");
}

/// A body spun about z with its origin away from its centre of mass: the centre stays put and
/// the origin circles it. Each substep turns by 2 atan(ω h / 2) (the normalised first-order
/// quaternion update), so after n substeps the origin is at c + Rz(θ)(o₀ − c).
#[test]
fn spinning_body_rotates_about_its_centre_of_mass() {
    let mut world = World::new(WorldSettings { gravity: Vec3::ZERO, ..Default::default() }).unwrap();
    let origin0 = Vec3::new(0.0, 2.0, 0.0);
    let body = world.create_body(&BodyDef::dynamic(origin0)).unwrap();
    // Spheres on the local x axis: the inertia is diagonal, so z is a principal axis.
    for (r, x) in [(0.3, 1.0), (0.2, -0.5)] {
        let def = ColliderDef::new(Shape::sphere(r).unwrap()).with_pose(Vec3::new(x, 0.0, 0.0), Quat::IDENTITY);
        world.create_collider(body, &def).unwrap();
    }
    let c0 = dvec(world.body(body).unwrap().center_of_mass());
    assert!((c0 - dvec(origin0)).length() > 0.3, "the centre should be well off the origin");
    let omega = 3.0f64;
    world.set_angular_velocity(body, Vec3::new(0.0, 0.0, omega as f32)).unwrap();
    let substeps = world.settings().substeps as usize;
    let h = DT as f64 / substeps as f64;
    let steps = 90;
    let mut worst_center = 0.0f64;
    for _ in 0..steps {
        world.step(DT).unwrap();
        worst_center = worst_center.max((dvec(world.body(body).unwrap().center_of_mass()) - c0).length());
    }
    let theta = (steps * substeps) as f64 * 2.0 * (omega * h / 2.0).atan();
    let expected_origin = c0 + DQuat::from_rotation_z(theta) * (dvec(origin0) - c0);
    let b = world.body(body).unwrap();
    let origin_error = (dvec(b.position()) - expected_origin).length();
    let (_, angle) = b.rotation().to_axis_angle();
    eprintln!(
        "spin about the centre: centre drift {worst_center:e} m, origin error {origin_error:e} m, angle {angle} vs {theta}"
    );
    assert!(worst_center < 1e-5, "the centre of mass moved by {worst_center} m");
    assert!(origin_error < 1e-4, "origin at {}, expected {expected_origin}", b.position());
    assert!((b.angular_velocity().z as f64 - omega).abs() < 1e-5);
    assert!(b.linear_velocity().length() < 1e-6);
}
