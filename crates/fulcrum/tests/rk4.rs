//! The Runge–Kutta integrator (`integrator: rk4`): energy of a compound pendulum, a double
//! pendulum against its Lagrangian equations, and the setting in scene files.
//!
//! The bars are boxes 1 m × 0.05 m × 0.05 m (density 1000: 2.5 kg) on hinges about z at one
//! end, so each swings in the xy plane; the angle θ of a bar is measured from straight down.

mod common;
use common::*;
use fulcrum::prelude::*;
use std::f64::consts::FRAC_PI_2;

const BAR_LENGTH: f32 = 1.0;
const BAR_HALF: Vec3 = Vec3::new(0.5 * BAR_LENGTH, 0.025, 0.025);
const GRAVITY: f32 = 9.81;

fn settings(integrator: Integrator) -> WorldSettings {
    WorldSettings { sleep: false, solver: SolverSettings { integrator, ..Default::default() }, ..Default::default() }
}

/// A bar hinged about z at `pivot` (on the bar `parent`, or the world), hanging at angle
/// `theta` from straight down; returns it.
fn add_bar(world: &mut World, parent: Option<BodyId>, pivot: Vec3, theta: f32) -> BodyId {
    let direction = Vec3::new(theta.sin(), -theta.cos(), 0.0);
    let rotation = Quat::from_rotation_z(theta - std::f32::consts::FRAC_PI_2);
    let bar = add_box(world, pivot + 0.5 * BAR_LENGTH * direction, rotation, BAR_HALF, 0.5);
    world.create_joint(&JointDef::hinge(parent, bar, pivot, Vec3::Z)).unwrap();
    bar
}

/// Angle of a bar from straight down, rad.
fn bar_angle(world: &World, bar: BodyId) -> f64 {
    let d = world.body(bar).unwrap().rotation() * Vec3::X;
    (d.x as f64).atan2(-d.y as f64)
}

/// Kinetic plus potential energy of `bar` (height measured from y = 0), J.
fn energy(world: &World, bar: BodyId) -> f64 {
    let body = world.body(bar).unwrap();
    let (v, w) = (body.linear_velocity(), body.angular_velocity());
    let kinetic = 0.5 * body.mass() * v.length_squared() + 0.5 * w.dot(body.inertia_world() * w);
    (kinetic + body.mass() * GRAVITY * body.center_of_mass().y) as f64
}

/// Largest |E − E₀| over 10 s at 60 Hz of a bar released from horizontal, relative to the
/// energy it turns over, m g L/2 (the kinetic energy at the bottom).
fn compound_pendulum_drift(integrator: Integrator) -> f64 {
    let mut world = World::new(settings(integrator)).unwrap();
    let bar = add_bar(&mut world, None, Vec3::ZERO, FRAC_PI_2 as f32);
    let scale = (world.body(bar).unwrap().mass() * GRAVITY * 0.5 * BAR_LENGTH) as f64;
    let start = energy(&world, bar);
    let mut drift = 0.0f64;
    for _ in 0..600 {
        world.step(DT).unwrap();
        drift = drift.max((energy(&world, bar) - start).abs() / scale);
    }
    drift
}

/// The compound pendulum keeps its energy within 0.1% over 10 s with rk4 (printed beside
/// symplectic Euler's figure, the default soft step).
#[test]
fn compound_pendulum_keeps_its_energy() {
    let rk4 = compound_pendulum_drift(Integrator::Rk4);
    let euler = compound_pendulum_drift(Integrator::SymplecticEuler);
    eprintln!(
        "compound pendulum, 10 s at 60 Hz, largest energy error / (m g L/2): rk4 {:.4}%, symplectic Euler {:.4}%",
        100.0 * rk4,
        100.0 * euler
    );
    assert!(rk4 < 1e-3, "rk4 energy drift {:.4}%", 100.0 * rk4);
}

/// Two uniform bars of mass m, length l and inertia I about their centres, the second hinged
/// at the end of the first. With c = l/2, Δ = θ₁ − θ₂, the Lagrangian gives M θ̈ = r:
///
/// ```text
/// M = [ m c² + I + m l²    m l c cos Δ ]     r = [ −m l c sin Δ θ̇₂² − (m c + m l) g sin θ₁ ]
///     [ m l c cos Δ        m c² + I    ]         [  m l c sin Δ θ̇₁² − m c g sin θ₂         ]
/// ```
/// The returned derivative is of (θ₁, θ₂, θ̇₁, θ̇₂).
fn double_pendulum_rate(y: [f64; 4], mass: f64, inertia: f64) -> [f64; 4] {
    let (l, g) = (BAR_LENGTH as f64, GRAVITY as f64);
    let c = 0.5 * l;
    let delta = y[0] - y[1];
    let (m11, m12, m22) = (mass * c * c + inertia + mass * l * l, mass * l * c * delta.cos(), mass * c * c + inertia);
    let r1 = -mass * l * c * delta.sin() * y[3] * y[3] - (mass * c + mass * l) * g * y[0].sin();
    let r2 = mass * l * c * delta.sin() * y[2] * y[2] - mass * c * g * y[1].sin();
    let det = m11 * m22 - m12 * m12;
    [y[2], y[3], (m22 * r1 - m12 * r2) / det, (m11 * r2 - m12 * r1) / det]
}

/// The reference: classic RK4 of the Lagrangian equations in f64 at a step of `h`.
fn reference_step(y: [f64; 4], h: f64, mass: f64, inertia: f64) -> [f64; 4] {
    let at = |y: [f64; 4], k: [f64; 4], s: f64| std::array::from_fn(|i| y[i] + s * k[i]);
    let k1 = double_pendulum_rate(y, mass, inertia);
    let k2 = double_pendulum_rate(at(y, k1, 0.5 * h), mass, inertia);
    let k3 = double_pendulum_rate(at(y, k2, 0.5 * h), mass, inertia);
    let k4 = double_pendulum_rate(at(y, k3, h), mass, inertia);
    std::array::from_fn(|i| y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
}

/// Largest angle error of either bar against the reference over 2 s at 60 Hz, released from
/// rest with the first bar horizontal and the second hanging straight down.
fn double_pendulum_error(integrator: Integrator) -> f64 {
    let (theta1, theta2) = (FRAC_PI_2, 0.0);
    let mut world = World::new(settings(integrator)).unwrap();
    let first = add_bar(&mut world, None, Vec3::ZERO, theta1 as f32);
    let elbow = Vec3::new(theta1.sin() as f32, -theta1.cos() as f32, 0.0) * BAR_LENGTH;
    let second = add_bar(&mut world, Some(first), elbow, theta2 as f32);
    let body = world.body(first).unwrap();
    let (mass, inertia) = (body.mass() as f64, body.inertia_local().z_axis.z as f64);
    let mut reference = [theta1, theta2, 0.0, 0.0];
    const SUBSTEPS: usize = 1000;
    let h = DT as f64 / SUBSTEPS as f64;
    let mut error = 0.0f64;
    for _ in 0..120 {
        world.step(DT).unwrap();
        for _ in 0..SUBSTEPS {
            reference = reference_step(reference, h, mass, inertia);
        }
        for (bar, expected) in [(first, reference[0]), (second, reference[1])] {
            let off = (bar_angle(&world, bar) - expected + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU)
                - std::f64::consts::PI;
            error = error.max(off.abs());
        }
    }
    error
}

/// A double pendulum follows the reference within 0.01 rad for 2 s with rk4.
#[test]
fn double_pendulum_follows_its_equations() {
    let rk4 = double_pendulum_error(Integrator::Rk4);
    let euler = double_pendulum_error(Integrator::SymplecticEuler);
    eprintln!("double pendulum, 2 s at 60 Hz, largest angle error: rk4 {rk4:.5} rad, symplectic Euler {euler:.5} rad");
    assert!(rk4 < 0.01, "rk4 off the reference by {rk4} rad");
}

/// The integrator is read from scene files, and an unknown one is refused with its path.
#[test]
fn integrator_in_scene_files() {
    let scene = |integrator: &str| {
        format!(r#"{{"format": 1, "settings": {{"solver": {{"integrator": "{integrator}"}}}}, "bodies": []}}"#)
    };
    let loaded = fulcrum::Scene::from_json_str(&scene("rk4"), "rk4.json").unwrap();
    assert_eq!(loaded.settings.solver.integrator, Integrator::Rk4);
    let err = fulcrum::Scene::from_json_str(&scene("rk5"), "rk5.json").unwrap_err();
    assert!(err.to_string().contains("solver.integrator"), "{err}");
    assert!(err.reason.contains("rk5"), "{err}");
}

/// Contacts under rk4: a box dropped from 0.5 m onto the ground comes to rest on it: over its
/// last 2 of 3 s its centre stays within 1 mm of resting height and of the drop line. (Its
/// velocity between steps is not zero: a box a few µm above the ground falls freely in the
/// probes, and the next step's projection stops it; the figure is printed.)
#[test]
fn a_dropped_box_rests_on_the_ground() {
    let mut world = World::new(settings(Integrator::Rk4)).unwrap();
    add_ground(&mut world, 0.6);
    let crate_ = add_box(&mut world, Vec3::new(0.0, 1.0, 0.0), Quat::IDENTITY, Vec3::splat(0.5), 0.6);
    let (mut off, mut speed) = (0.0f32, 0.0f32);
    for step in 0..180 {
        world.step(DT).unwrap();
        if step >= 60 {
            off = off.max((pos(&world, crate_) - Vec3::new(0.0, 0.5, 0.0)).abs().max_element());
            speed = speed.max(vel(&world, crate_).length());
        }
    }
    eprintln!("box dropped 0.5 m under rk4, last 2 s: centre within {off:.6} m of rest, velocity up to {speed:.3} m/s");
    assert!(off < 1e-3, "{off} m from rest");
}
