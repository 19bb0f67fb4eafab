//! Joint fidelity against references integrated in the test: a bar swinging on a hinge
//! (compound pendulum, RK4), a double pendulum of two bars (its Lagrangian equations, RK4),
//! an undamped hinge spring (amplitude and period), and closed loops (a crank–rocker four-bar,
//! a crank–slider, a ladder) against their analytic kinematics.
//!
//! The bars are boxes L = 1 m long and 0.1 m × 0.1 m across (density 1000: 10 kg), hinged
//! about Z at one end and released from horizontal, so θ is the angle above the horizontal.

mod common;
use common::joints::*;
use common::*;
use fulcrum::joint::Spring;
use fulcrum::prelude::*;

const BAR_LENGTH: f32 = 1.0;
const BAR_WIDTH: f32 = 0.1;
const GRAVITY: f64 = 9.81;

/// Mass (kg) and inertia about the centre across the bar (kg·m²) of one bar.
fn bar_mass_inertia() -> (f64, f64) {
    let (l, t) = (BAR_LENGTH as f64, BAR_WIDTH as f64);
    let mass = 1000.0 * l * t * t;
    (mass, mass * (l * l + t * t) / 12.0)
}

/// One classic RK4 step of ẏ = f(y) over `h` seconds.
fn rk4<const N: usize>(y: [f64; N], h: f64, f: impl Fn([f64; N]) -> [f64; N]) -> [f64; N] {
    let add = |a: [f64; N], b: [f64; N], s: f64| -> [f64; N] { std::array::from_fn(|i| a[i] + s * b[i]) };
    let k1 = f(y);
    let k2 = f(add(y, k1, h / 2.0));
    let k3 = f(add(y, k2, h / 2.0));
    let k4 = f(add(y, k3, h));
    std::array::from_fn(|i| y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
}

/// θ(t) of the compound pendulum θ'' = −(m g d / I_pivot) cos θ from rest at θ = 0, sampled
/// every `dt` for `steps` steps (RK4 at dt/100).
fn pendulum_reference(dt: f64, steps: usize) -> Vec<f64> {
    let (mass, inertia) = bar_mass_inertia();
    let d = BAR_LENGTH as f64 / 2.0;
    let k = mass * GRAVITY * d / (inertia + mass * d * d);
    let (mut y, substeps) = ([0.0f64, 0.0], 100);
    let mut out = Vec::with_capacity(steps);
    for _ in 0..steps {
        for _ in 0..substeps {
            y = rk4(y, dt / substeps as f64, |[theta, omega]| [omega, -k * theta.cos()]);
        }
        out.push(y[0]);
    }
    out
}

/// (θ₁, θ₂)(t) of two bars, the second hinged at the free end of the first, both from rest
/// at θ = 0 (absolute angles above the horizontal), sampled every `dt` (RK4 at dt/100).
///
/// With d = L/2, I_c the bar's inertia about its centre and δ = θ₁ − θ₂, the Lagrangian
/// equations are
/// ```text
/// (I_c + m d² + m L²) θ₁'' + m L d cos δ θ₂'' = −m L d sin δ θ₂'² − m g (d + L) cos θ₁
/// m L d cos δ θ₁'' + (I_c + m d²) θ₂''        =  m L d sin δ θ₁'² − m g d cos θ₂
/// ```
fn double_pendulum_reference(dt: f64, steps: usize) -> Vec<(f64, f64)> {
    let (m, ic) = bar_mass_inertia();
    let (l, g) = (BAR_LENGTH as f64, GRAVITY);
    let d = l / 2.0;
    let rates = |[t1, t2, w1, w2]: [f64; 4]| {
        let delta = t1 - t2;
        let (a11, a12, a22) = (ic + m * d * d + m * l * l, m * l * d * delta.cos(), ic + m * d * d);
        let b1 = -m * l * d * delta.sin() * w2 * w2 - m * g * (d + l) * t1.cos();
        let b2 = m * l * d * delta.sin() * w1 * w1 - m * g * d * t2.cos();
        let det = a11 * a22 - a12 * a12;
        [w1, w2, (b1 * a22 - a12 * b2) / det, (a11 * b2 - a12 * b1) / det]
    };
    let (mut y, substeps) = ([0.0f64; 4], 100);
    let mut out = Vec::with_capacity(steps);
    for _ in 0..steps {
        for _ in 0..substeps {
            y = rk4(y, dt / substeps as f64, rates);
        }
        out.push((y[0], y[1]));
    }
    out
}

/// A world without sleeping and with the given solver.
fn world(solver: SolverSettings) -> World {
    World::new(WorldSettings { sleep: false, solver, ..Default::default() }).unwrap()
}

/// A horizontal bar (along X) whose left end is at `left_end`.
fn add_bar(world: &mut World, left_end: Vec3) -> BodyId {
    let half = Vec3::new(BAR_LENGTH / 2.0, BAR_WIDTH / 2.0, BAR_WIDTH / 2.0);
    add_box(world, left_end + Vec3::new(BAR_LENGTH / 2.0, 0.0, 0.0), Quat::IDENTITY, half, 0.5)
}

/// Angle of a body about Z (its rotation's twist about Z), radians in (−π, π].
fn angle_about_z(world: &World, body: BodyId) -> f32 {
    let q = world.body(body).unwrap().rotation();
    wrap(2.0 * q.z.atan2(q.w))
}

/// Kinetic plus potential energy of a body (potential from y = 0), J.
fn energy(world: &World, body: BodyId) -> f64 {
    let b = world.body(body).unwrap();
    let (mass, ic) = bar_mass_inertia();
    let v = b.linear_velocity();
    let w = b.angular_velocity();
    // The bars turn about Z only (the hinge holds the other axes), so I_c ω² about Z.
    let kinetic = 0.5 * mass * v.length_squared() as f64 + 0.5 * ic * (w.z as f64).powi(2);
    kinetic + mass * GRAVITY * b.center_of_mass().y as f64
}

/// Runs the bar pendulum for `seconds`: (RMS angle error against the RK4 reference, largest
/// energy change relative to m g d, largest anchor gap).
fn pendulum_errors(solver: SolverSettings, seconds: f32) -> (f32, f32, f32) {
    let mut world = world(solver);
    let bar = add_bar(&mut world, Vec3::ZERO);
    let hinge = world.create_joint(&JointDef::hinge(None, bar, Vec3::ZERO, Vec3::Z)).unwrap();
    let steps = (seconds / DT).round() as usize;
    let reference = pendulum_reference(DT as f64, steps);
    let (mass, _) = bar_mass_inertia();
    let scale = mass * GRAVITY * BAR_LENGTH as f64 / 2.0;
    let start = energy(&world, bar);
    let (mut squared, mut drift, mut gap) = (0.0f64, 0.0f64, 0.0f32);
    for exact in reference {
        world.step(DT).unwrap();
        let error = wrap(angle_about_z(&world, bar) - exact as f32) as f64;
        squared += error * error;
        drift = drift.max(((energy(&world, bar) - start) / scale).abs());
        gap = gap.max(joint_gap(&world, hinge));
    }
    ((squared / steps as f64).sqrt() as f32, drift as f32, gap)
}

/// A 1 m bar on a hinge released from horizontal follows the RK4 solution of the compound
/// pendulum within 0.01 rad RMS over 10 s, its energy stays within 1% of m g d, and the hinge
/// holds within 1 mm (default settings).
#[test]
fn bar_pendulum_follows_its_reference_and_keeps_its_energy() {
    let (rms, drift, gap) = pendulum_errors(SolverSettings::default(), 10.0);
    eprintln!(
        "bar pendulum (soft step): RMS {rms:.4} rad, energy {:.3}% of m g d, gap {:.3} mm",
        drift * 100.0,
        gap * 1e3
    );
    assert!(rms < 0.01, "RMS angle error {rms} rad");
    assert!(drift < 0.01, "energy changed by {drift} of m g d");
    assert!(gap < 1e-3, "gap {gap} m");
}

/// The same bar with the pgs solver (one step of 1/60 s, no substeps).
#[test]
fn bar_pendulum_follows_its_reference_pgs() {
    let (rms, drift, gap) = pendulum_errors(SolverSettings::pgs(PositionCorrection::Ngs), 10.0);
    eprintln!("bar pendulum (pgs): RMS {rms:.4} rad, energy {:.3}% of m g d, gap {:.3} mm", drift * 100.0, gap * 1e3);
    assert!(rms < 0.04, "RMS angle error {rms} rad");
    assert!(drift < 0.03, "energy changed by {drift} of m g d");
    assert!(gap < 1e-3, "gap {gap} m");
}

/// Two bars, the second hinged at the free end of the first, released straight out from
/// horizontal: both absolute angles follow the RK4 solution of the double compound pendulum
/// within 0.02 rad over the first second.
#[test]
fn double_pendulum_follows_its_reference() {
    let mut world = world(SolverSettings::default());
    let upper = add_bar(&mut world, Vec3::ZERO);
    let lower = add_bar(&mut world, Vec3::new(BAR_LENGTH, 0.0, 0.0));
    world.create_joint(&JointDef::hinge(None, upper, Vec3::ZERO, Vec3::Z)).unwrap();
    world.create_joint(&JointDef::hinge(Some(upper), lower, Vec3::new(BAR_LENGTH, 0.0, 0.0), Vec3::Z)).unwrap();
    let reference = double_pendulum_reference(DT as f64, 60);
    let mut worst = 0.0f32;
    for (t1, t2) in reference {
        world.step(DT).unwrap();
        let e1 = wrap(angle_about_z(&world, upper) - t1 as f32).abs();
        let e2 = wrap(angle_about_z(&world, lower) - t2 as f32).abs();
        worst = worst.max(e1).max(e2);
    }
    eprintln!("double pendulum: largest angle error {worst:.4} rad over 1 s");
    assert!(worst < 0.02, "angle error {worst} rad");
}

/// A 1 m × 2 m × 0.1 m door (200 kg) on a vertical hinge with an undamped 1.5 Hz spring,
/// set swinging at 1 rad/s: over 10 periods its swing keeps 98% of its first amplitude and
/// its period is within 1% of 1/1.5 s.
#[test]
fn undamped_hinge_spring_keeps_its_amplitude() {
    let hertz = 1.5;
    let mut world = world(SolverSettings::default());
    let half = Vec3::new(0.5, 1.0, 0.05);
    let hinge_point = Vec3::new(0.0, 1.0, 0.0);
    let door = add_box(&mut world, hinge_point + Vec3::new(half.x, 0.0, 0.0), Quat::IDENTITY, half, 0.5);
    let def = JointDef::hinge(None, door, hinge_point, Vec3::Y).with_spring(Spring::new(hertz, 0.0));
    let joint = world.create_joint(&def).unwrap();
    let w = Vec3::Y;
    let center = world.body(door).unwrap().center_of_mass();
    world.set_angular_velocity(door, w).unwrap();
    world.set_linear_velocity(door, w.cross(center - hinge_point)).unwrap();
    let mut samples = Vec::new();
    let steps = (11.0 / hertz / DT).ceil() as usize;
    for step in 1..=steps {
        world.step(DT).unwrap();
        samples.push((step as f32 * DT, hinge_angle(&world, joint)));
    }
    let peaks: Vec<f32> = samples
        .windows(3)
        .filter(|s| s[1].1 > s[0].1 && s[1].1 >= s[2].1)
        .map(|s| {
            // Parabola through the three samples: its top.
            let (a, b, c) = (s[0].1, s[1].1, s[2].1);
            b + (a - c).powi(2) / (8.0 * (2.0 * b - a - c))
        })
        .collect();
    let times = crossings(&samples);
    let period = (times[times.len() - 1] - times[0]) / (times.len() - 1) as f32;
    let kept = peaks[10] / peaks[0];
    eprintln!(
        "hinge spring: amplitude {:.4} → {:.4} rad after 10 periods ({:.2}% kept), period {period:.4} s (set {:.4} s)",
        peaks[0],
        peaks[10],
        kept * 100.0,
        1.0 / hertz
    );
    assert!(peaks.len() >= 11, "{peaks:?}");
    assert!(kept > 0.98, "kept {kept} of the amplitude");
    assert!((period * hertz - 1.0).abs() < 0.01, "period {period} s");
}
